"""The ``ewm`` trend: an exponentially weighted mean in x order, with pandas' definitions.

The decay is given one of four ways, exactly one of them written, as
``pandas.Series.ewm`` takes them: ``alpha`` (0 < α ≤ 1) directly, ``com``
(α = 1/(1 + com), com ≥ 0), ``span`` (α = 2/(span + 1), span ≥ 1) or
``halflife`` (α = 1 − e^(−ln 2/halflife), halflife > 0; in points, not in
units of x). With ``adjust: true`` (the default, as pandas) the mean at the
i-th point is Σ (1−α)^k·y(i−k) / Σ (1−α)^k over the points so far; with
``adjust: false`` it is the recursion m(0) = y(0), m(i) = (1−α)·m(i−1) + α·y(i).
Ties in x keep input order. A smoother: no bands, and its curve stops at the
data; it costs one pass over the rows.
"""

from __future__ import annotations

import math
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Sequence

from ... import errors
from ...errors import SpecError
from ..registry import SMOOTHER_MAX_ROWS, STAGE, Options, Parameter, TrendMethod

if TYPE_CHECKING:
    import numpy as np

# The keys that give the decay -> (α from the value, whether the value is allowed, the bound as words).
DECAYS = {
    "alpha": (lambda a: a, lambda a: 0 < a <= 1, "0 < alpha ≤ 1"),
    "com": (lambda c: 1.0 / (1.0 + c), lambda c: c >= 0, "com ≥ 0"),
    "span": (lambda s: 2.0 / (s + 1.0), lambda s: s >= 1, "span ≥ 1"),
    "halflife": (lambda h: -math.expm1(-math.log(2.0) / h), lambda h: h > 0, "halflife > 0"),
}


class Ewm(TrendMethod):
    """An exponentially weighted mean (see the module docstring)."""

    name = "ewm"
    description = ("An exponentially weighted mean in x order, as pandas' `Series.ewm(...).mean()`: exactly one of "
                   "`alpha`, `com`, `span` or `halflife` gives the decay (counted in points); no bands, and the "
                   "curve stops at the data.")
    parameters = (
        Parameter("alpha", {"type": "number", "description": "Smoothing factor α of an `ewm` (0 < α ≤ 1).",
                            "examples": [0.3], "exclusiveMinimum": 0, "maximum": 1}),
        Parameter("com", {"type": "number", "description": "Centre of mass of an `ewm`: α = 1/(1 + com).",
                          "examples": [4], "minimum": 0}),
        Parameter("span", {"type": "number", "description": "Span of an `ewm`: α = 2/(span + 1).",
                           "examples": [10], "minimum": 1}),
        Parameter("halflife", {"type": "number",
                               "description": "Half-life of an `ewm` in points: α = 1 − exp(−ln 2/halflife).",
                               "examples": [5], "exclusiveMinimum": 0}),
        Parameter("adjust", {"type": "boolean",
                             "description": ("Whether an `ewm` divides by the weights so far (pandas' "
                                             "`adjust=True`) or runs the recursion m = (1−α)·m + α·y "
                                             "(`adjust=False`)."),
                             "examples": [False], "default": True}),
    )
    has_band = False
    extrapolates = False
    max_rows = SMOOTHER_MAX_ROWS

    def check(self, options: Options) -> None:
        decay_alpha(options)
        if not isinstance(options["adjust"], bool):
            raise SpecError(errors.trend_parameter_choice("adjust", options["adjust"], (True, False)),
                            ("adjust",), stage=STAGE)

    def fit(self, u, v, options: Options):
        from .. import numerics  # numpy: only once a chart is fitted

        key, value = next((k, options[k]) for k in DECAYS if options[k] is not None)
        fitted = smooth_ewm(u, v, decay_alpha(options), options["adjust"])
        shown = "" if options["adjust"] else ", adjust=false"
        return numerics.smoother_model(u, fitted, f"{options.y_name} = ewm({options.x_name}, {key}={value:g}{shown})")


def decay_alpha(options: Options) -> float:
    """α from the one decay key the spec writes.

    Raises:
        SpecError: none or several of them written (at ``method``, or the second one), or a value out of its
            bounds (at its key).
    """
    from ..numerics import is_number

    written = [key for key in DECAYS if options[key] is not None]
    if len(written) != 1:
        raise SpecError(errors.trend_ewm_decay(written), (written[1],) if written else ("method",), stage=STAGE,
                        hint=errors.trend_ewm_decay_hint())
    key = written[0]
    to_alpha, allowed, bound = DECAYS[key]
    value: Any = options[key]
    if not is_number(value) or not allowed(value):
        raise SpecError(errors.trend_parameter_bound(key, value, bound), (key,), stage=STAGE)
    return float(to_alpha(float(value)))


def smooth_ewm(x: Sequence[float], y: Sequence[float], alpha: float, adjust: bool = True) -> np.ndarray:
    """The exponentially weighted mean of y in x order (ties in input order).

    Equal to ``pandas.Series(y_sorted).ewm(alpha=alpha, adjust=adjust).mean()``
    on the data sorted by x, to rounding.

    Args:
        x: finite x values.
        y: finite y values, same length.
        alpha: the smoothing factor, 0 < α ≤ 1.
        adjust: pandas' ``adjust``.

    Returns:
        The means, in the order of the input.
    """
    import numpy as np

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.argsort(x, kind="stable")
    ys = y[order].tolist()
    keep = 1.0 - alpha
    if adjust:
        # Numerator and denominator of the weighted mean, each a one-step recursion: no power of (1−α) to underflow.
        shift = math.fsum(ys) / len(ys) if ys else 0.0   # deviations from the mean lose less to cancellation
        numerator = np.fromiter(accumulate((v - shift for v in ys), lambda m, v: keep * m + v), float, len(ys))
        weights = np.fromiter(accumulate((1.0 for _ in ys), lambda m, v: keep * m + v), float, len(ys))
        means = numerator / weights + shift
    else:
        means = np.fromiter(accumulate(ys, lambda m, v: keep * m + alpha * v), float, len(ys))
    smoothed = np.empty(len(ys))
    smoothed[order] = means
    return smoothed
