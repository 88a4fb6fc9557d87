"""The ``moving-average`` trend: a rolling mean over ``window`` points in x order, centred or trailing.

Ties in x keep input order. ``align: centered`` (the default) averages the
points around each one; an even window takes one more point before the
centre than after it, as ``pandas.Series.rolling(window, center=True)``.
``align: trailing`` averages each point and the ``window - 1`` before it, as
``pandas.Series.rolling(window)``. At the ends the window shrinks to the
points that exist (pandas' ``min_periods=1``), so the curve spans the data.
A smoother: no bands, and its curve stops at the data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ... import errors
from ...errors import SpecError
from ..registry import SMOOTHER_MAX_ROWS, STAGE, Options, Parameter, TrendMethod

if TYPE_CHECKING:
    import numpy as np

# align -> how many of a window's points come before the point it is drawn at (the rest after it).
ALIGNMENTS = {"centered": lambda window: window // 2, "trailing": lambda window: window - 1}


class MovingAverage(TrendMethod):
    """A rolling mean (see the module docstring)."""

    name = "moving-average"
    description = ("A rolling mean over `window` points in x order, centred on each point or trailing it; no "
                   "bands, and the curve stops at the data.")
    parameters = (
        Parameter("window", {
            "type": "integer", "description": "Number of points averaged by `moving-average`.", "examples": [5, 7],
            "minimum": 1}),
        Parameter("align", {
            "type": "string", "enum": list(ALIGNMENTS),
            "description": ("Where a `moving-average` window sits: `centered` on each point (pandas' "
                            "`rolling(window, center=True)`) or `trailing` it (the point and the `window - 1` "
                            "before it, pandas' `rolling(window)`); at the ends it shrinks to the points that "
                            "exist."),
            "examples": ["trailing"], "default": "centered"}),
    )
    has_band = False
    extrapolates = False
    max_rows = SMOOTHER_MAX_ROWS

    def check(self, options: Options) -> None:
        if options["align"] not in ALIGNMENTS:
            raise SpecError(errors.trend_parameter_choice("align", options["align"], tuple(ALIGNMENTS)),
                            ("align",), stage=STAGE)

    def fit(self, u, v, options: Options):
        from .. import numerics  # numpy: only once a chart is fitted

        window, align = options["window"], options["align"]
        fitted = smooth_moving_average(u, v, window, align)
        shown = "" if align == "centered" else f", align={align}"
        return numerics.smoother_model(
            u, fitted, f"{options.y_name} = moving-average({options.x_name}, window={window}{shown})")


def smooth_moving_average(x: Sequence[float], y: Sequence[float], window: int,
                          align: str = "centered") -> np.ndarray:
    """Moving average of y over `window` points in x order.

    Ties in x keep input order. A centred window with an even length has
    one more point before the centre than after it; a trailing one ends at
    the point. At the ends the window is cut to the points that exist. This
    is ``pandas.Series.rolling(window, center=align == "centered",
    min_periods=1).mean()`` on the data sorted by x.

    Args:
        x: finite x values.
        y: finite y values, same length.
        window: number of points per mean, from 1 to len(x).
        align: ``centered`` or ``trailing``.

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
    before = ALIGNMENTS[align](window)
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
