"""The ``expanding`` trend: the mean of every point so far, in x order (pandas' ``expanding().mean()``).

Ties in x keep input order. A smoother: no bands, and its curve stops at the
data; it costs one pass over the rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..registry import SMOOTHER_MAX_ROWS, Options, TrendMethod

if TYPE_CHECKING:
    import numpy as np


class Expanding(TrendMethod):
    """The running mean (see the module docstring)."""

    name = "expanding"
    description = ("The mean of every point up to each x (pandas' `Series.expanding().mean()`); no bands, and the "
                   "curve stops at the data.")
    has_band = False
    extrapolates = False
    max_rows = SMOOTHER_MAX_ROWS

    def fit(self, u, v, options: Options):
        from .. import numerics  # numpy: only once a chart is fitted

        return numerics.smoother_model(u, smooth_expanding(u, v),
                                       f"{options.y_name} = expanding-mean({options.x_name})")


def smooth_expanding(x: Sequence[float], y: Sequence[float]) -> np.ndarray:
    """The mean of y over every point up to each one, in x order (ties in input order).

    Args:
        x: finite x values.
        y: finite y values, same length.

    Returns:
        The means, in the order of the input.
    """
    import numpy as np

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.argsort(x, kind="stable")
    ys = y[order]
    shift = ys.mean() if len(ys) else 0.0  # deviations from the mean lose less to cancellation
    means = np.cumsum(ys - shift) / np.arange(1, len(ys) + 1) + shift
    smoothed = np.empty(len(ys))
    smoothed[order] = means
    return smoothed
