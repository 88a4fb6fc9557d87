"""The ``moving-average`` trend: a centred rolling mean over ``window`` points in x order.

Ties in x keep input order. An even window takes one more point before the
centre than after it, as ``pandas.Series.rolling(window, center=True)``; at
both ends the window shrinks to the points that exist, so the curve spans
the data. A smoother: no bands, and its curve stops at the data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ... import errors
from ...errors import SpecError
from ..registry import SMOOTHER_MAX_ROWS, STAGE, Options, Parameter, TrendMethod

if TYPE_CHECKING:
    import numpy as np


class MovingAverage(TrendMethod):
    """A centred rolling mean (see the module docstring)."""

    name = "moving-average"
    description = ("A centred rolling mean over `window` points in x order; no bands, and the curve stops at "
                   "the data.")
    parameters = (Parameter("window", {
        "type": "integer", "description": "Number of points averaged by `moving-average`.", "examples": [5, 7],
        "minimum": 1}),)
    has_band = False
    extrapolates = False
    max_rows = SMOOTHER_MAX_ROWS

    def fit(self, u, v, options: Options):
        from .. import numerics  # numpy: only once a chart is fitted

        window = options["window"]
        fitted = smooth_moving_average(u, v, window)
        return numerics.smoother_model(
            u, fitted, f"{options.y_name} = moving-average({options.x_name}, window={window})")


def smooth_moving_average(x: Sequence[float], y: Sequence[float], window: int) -> np.ndarray:
    """Centred moving average of y over `window` points in x order.

    Ties in x keep input order. An even window has one more point before the
    centre than after it; at the ends the window is cut to the points that
    exist. This is ``pandas.Series.rolling(window, center=True,
    min_periods=1).mean()`` on the data sorted by x.

    Args:
        x: finite x values.
        y: finite y values, same length.
        window: number of points per mean, from 1 to len(x).

    Returns:
        The averages, in the order of the input.

    Raises:
        SpecError: if `window` is not a whole number in [1, len(x)].
    """
    import numpy as np

    from ..numerics import is_whole

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(x)
    if not is_whole(window) or not 1 <= window <= n:
        raise SpecError(errors.trend_window(window, n), ("window",), stage=STAGE,
                        hint=errors.trend_window_hint())
    window = int(window)
    order = np.argsort(x, kind="stable")
    ys = y[order]
    before = window // 2
    index = np.arange(n)
    low = np.maximum(index - before, 0)
    high = np.minimum(index + window - before, n)
    # Sums of deviations from the mean lose less to cancellation.
    shift = ys.mean()
    cumulative = np.r_[0.0, np.cumsum(ys - shift)]
    means = (cumulative[high] - cumulative[low]) / (high - low) + shift
    averaged = np.empty(n)
    averaged[order] = means
    return averaged
