"""Trend layers: fit a curve through x/y data, in numpy.

Every function here is pure: plain arrays in, a frozen `TrendLine` out, with no
randomness, so the same data always gives the same floats.

Fitting happens in *fitting space*. When ``space="axis"`` (the default) x and
y are first put through the transform of their axis scale, so that a trend
looks the way its method promises on the chart as drawn: a linear trend on a
log x axis is a straight line on that axis (``y = b0 + b1·log10(x)``), and it
stays well conditioned for x around 1e24. ``space="data"`` fits the raw values.

Scale transforms (``space="axis"``):

- ``linear``, ``time``, ``utc``: none.
- ``pow`` (with its exponent e): ``sign(v)·|v|^e``, as Vega's pow scale.
- ``log``: ``log10(v)``; values must be positive.
- ``sqrt``: ``sign(v)·sqrt(|v|)``, as Vega's sqrt scale, so negatives are kept.
- ``symlog``: ``sign(v)·log10(1 + |v|)``. Vega's symlog uses the natural log;
  the two differ by a constant factor, which changes the printed coefficients
  but not the fitted curve or its band.

Methods (`TREND_METHODS`):

- ``linear``: OLS ``y = b0 + b1·x``; ``poly``: OLS on ``x^0 .. x^order``;
  ``quad``: ``poly`` of order 2; ``log``: ``y = a + b·ln(x)``.
- ``exp``: ``y = a·e^(b·x)``, by OLS of ``ln(y)`` on ``x``; ``pow``:
  ``y = a·x^b``, by OLS of ``ln(y)`` on ``ln(x)``. Their R², adjusted R² and
  residual standard error are those of that linearised OLS (ln y space), and
  their bands are computed there and exponentiated.
- ``loess``: local linear regression with tricube weights over the nearest
  ``bandwidth`` fraction of the points, without robustness iterations. Local
  fits are made at points 1% of the x range apart and interpolated linearly
  in between (R's default for ``lowess``), so its cost grows with the data,
  not with its square; it equals ``statsmodels.nonparametric.lowess(y, x,
  frac=bandwidth, it=0, delta=0.01·range(x))`` at the data x. Tied x values
  are ordered as in the input.
- ``moving-average``: centred rolling mean over ``window`` points in x order
  (ties keep input order). An even window takes one more point before the
  centre than after it, as ``pandas.Series.rolling(window, center=True)``; at
  both ends the window shrinks to the points that exist, so the curve spans the
  data.

Curves are sampled evenly on the x axis as drawn. The two smoothers are drawn
as the polyline through their fitted value at each distinct x; they do not
extrapolate, so an `extent` wider than the data is cut to the data's x range.
Bands (``band`` for the confidence band of the mean, ``prediction`` for the
prediction band) use Student's t and exist for the OLS methods only.
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Callable, Sequence

import numpy as np
from numpy.polynomial import Polynomial

from .. import errors
from ..errors import SpecError, did_you_mean
from .tdist import student_t_quantile

STAGE = "fit"

# Placeholders a trend label may use, in the order the hint lists them.
LABEL_PLACEHOLDERS = (
    "r2", "adj_r2", "rse", "slope", "intercept", "coef", "n", "equation",
    "method", "group",
)

# Significant digits of the numbers in `TrendLine.equation`.
EQUATION_DIGITS = 4

# Bounds on what a label template may ask for. A format spec's width and
# precision are counts of characters to write, so a 16-byte label such as
# ``{r2:>100000000}`` would otherwise write 100 MB into every export. A
# double has 17 significant digits (d3-format stops at 20, as here): more
# digits are noise or zeros.
LABEL_MAX_WIDTH = 50
LABEL_MAX_PRECISION = 20
LABEL_MAX_LENGTH = 500  # characters of the filled-in label (and of its template, in the schema)

# Python's format-spec mini-language, which every label value (a number, text,
# the coefficient tuple, None) formats with:
# [[fill]align][sign][z][#][0][width][grouping][.precision][type].
FORMAT_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?z?#?0?(?P<width>\d+)?[,_]?"
    r"(?:\.(?P<precision>\d+))?(?P<type>[a-zA-Z%])?", re.DOTALL)

# Local fits with at most this many weights are computed in one block.
_LOESS_BLOCK = 1 << 20
# Loess fits locally at points this fraction of the x range apart and
# interpolates between them. Every point's own fit cost O(n²): 88 s at 10⁵
# points on the benchmark machine.
LOESS_DELTA = 0.01


@dataclass(frozen=True, slots=True)
class TrendLine:
    """A fitted trend: its numbers, and the curve (and band) to draw.

    ``coefficients`` are named (``intercept``/``slope``; ``c0``..``cK`` for
    polynomials; ``a``/``b`` for log, exp and pow) and refer to the fitting
    space given by ``space``. ``r2``, ``adj_r2`` and ``rse`` are None where
    they are undefined (the smoothers; R² of a constant y; no residual degrees
    of freedom). ``x``/``y`` and ``lower``/``upper`` are in data space.
    ``group`` is the ``by`` value of this fit (None for one overall fit).
    The fit stage fills in ``label`` (the legend text) and ``x_type``
    (``temporal`` when x was dates, fitted and sampled as milliseconds since
    1970-01-01 of their wall-clock time).
    """

    method: str
    group: Any
    n: int
    coefficients: tuple[tuple[str, float], ...]
    r2: float | None
    adj_r2: float | None
    rse: float | None
    equation: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    lower: tuple[float, ...] | None
    upper: tuple[float, ...] | None
    band: float | None
    band_kind: str | None
    space: tuple[str, str]
    label: str | None = None
    x_type: str = "quantitative"
    panel: tuple = ()  # ((facet field, value), ...) of the panel this line was fitted in


# ---------------------------------------------------------------- scales

@dataclass(frozen=True, slots=True)
class _Transform:
    """How an axis scale maps data values into fitting space and back."""

    name: str                                   # the `TrendLine.space` entry
    variable: str                               # how x or y is written
    forward: Callable[[np.ndarray], np.ndarray]
    inverse: Callable[[np.ndarray], np.ndarray]
    positive: bool                              # defined for values > 0 only


_LN10 = math.log(10.0)

_IDENTITY = _Transform("linear", "{}", lambda v: v, lambda u: u, False)

SCALE_TRANSFORMS: dict[str, _Transform] = {
    "linear": _IDENTITY,
    "time": _IDENTITY,
    "utc": _IDENTITY,
    "log": _Transform("log", "log10({})", np.log10,
                      lambda u: np.power(10.0, u), True),
    "sqrt": _Transform("sqrt", "sqrt({})",
                       lambda v: np.sign(v) * np.sqrt(np.abs(v)),
                       lambda u: np.sign(u) * u * u, False),
    # log1p/expm1 keep precision near 0, where symlog is nearly linear.
    "symlog": _Transform("symlog", "symlog({})",
                         lambda v: np.sign(v) * np.log1p(np.abs(v)) / _LN10,
                         lambda u: np.sign(u) * np.expm1(np.abs(u) * _LN10),
                         False),
}

SPACES = ("axis", "data")


# ---------------------------------------------------------------- models

@dataclass(frozen=True, slots=True)
class _Options:
    """What a method needs besides the data."""

    method: str
    order: Any
    bandwidth: Any
    window: Any
    x_name: str   # the x variable as the equation writes it: "x", "log10(x)"
    y_name: str


@dataclass(frozen=True, slots=True)
class _Model:
    """A fitted method, evaluated in fitting space."""

    coefficients: tuple[tuple[str, float], ...]
    equation: str
    curve: Callable[[np.ndarray], np.ndarray]
    # (u, level, prediction) -> (lower, upper); None for the smoothers.
    band: Callable[[np.ndarray, float, bool], tuple[np.ndarray, np.ndarray]] | None
    r2: float | None = None
    adj_r2: float | None = None
    rse: float | None = None
    # False for the smoothers: their curve exists only over the data's x.
    extrapolates: bool = True


@dataclass(frozen=True, slots=True)
class _Ols:
    """Least squares on the polynomial basis 1, w, .., w^degree.

    The basis is built on w mapped onto [-1, 1] and solved by QR, so that a
    cubic in horsepower or a line at x = 1e24 is as well conditioned as one
    on [0, 1]; `raw` converts the coefficients back to powers of w.
    """

    domain: tuple[float, float]
    beta: np.ndarray          # coefficients in the mapped basis
    r: np.ndarray             # R of the QR decomposition of that basis
    n: int
    ssr: float
    sst: float

    @property
    def df(self) -> int:
        return self.n - len(self.beta)

    @property
    def rse(self) -> float | None:
        return math.sqrt(self.ssr / self.df) if self.df > 0 else None

    @property
    def r2(self) -> float | None:
        return 1.0 - self.ssr / self.sst if self.sst > 0 else None

    @property
    def adj_r2(self) -> float | None:
        if self.r2 is None or self.df <= 0:
            return None
        return 1.0 - (self.n - 1) / self.df * (1.0 - self.r2)

    def raw(self) -> np.ndarray:
        coef = Polynomial(self.beta, domain=self.domain).convert().coef
        return np.pad(coef, (0, len(self.beta) - len(coef)))

    def basis(self, w: np.ndarray) -> np.ndarray:
        low, high = self.domain
        z = (2.0 * w - (low + high)) / (high - low)
        return np.vander(z, len(self.beta), increasing=True)

    def predict(self, w: np.ndarray) -> np.ndarray:
        return self.basis(w) @ self.beta

    def interval(self, w: np.ndarray, level: float,
                 prediction: bool) -> tuple[np.ndarray, np.ndarray]:
        # se of the mean at w is rse·|R⁻ᵀ z(w)|, from (XᵀX)⁻¹ = R⁻¹R⁻ᵀ.
        se = self.rse * np.linalg.norm(_forward_substitute(self.r.T, self.basis(w).T), axis=0)
        if prediction:
            se = np.hypot(se, self.rse)
        # t at the lower tail (1 - level)/2, negated: that tail stays above 0,
        # while 0.5 + level/2 rounds to 1 for a level within 1e-16 of 1.
        half = -student_t_quantile((1.0 - level) / 2.0, self.df) * se
        mean = self.predict(w)
        return mean - half, mean + half


def _back_substitute(upper: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with upper·x = b, for an upper-triangular matrix (b: a vector or columns).

    A few rows at most (the polynomial's order + 1): a loop in numpy, rather
    than scipy.linalg, whose import costs a cold compile ~0.2 s.
    """
    x = np.zeros_like(b, dtype=float)
    for i in range(len(upper) - 1, -1, -1):
        x[i] = (b[i] - upper[i, i + 1:] @ x[i + 1:]) / upper[i, i]
    return x


def _forward_substitute(lower: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with lower·x = b, for a lower-triangular matrix (b: a vector or columns)."""
    x = np.zeros_like(b, dtype=float)
    for i in range(len(lower)):
        x[i] = (b[i] - lower[i, :i] @ x[:i]) / lower[i, i]
    return x


def _solve_ols(w: np.ndarray, t: np.ndarray, degree: int) -> _Ols:
    domain = (float(w.min()), float(w.max()))
    low, high = domain
    z = (2.0 * w - (low + high)) / (high - low)
    q, r = np.linalg.qr(np.vander(z, degree + 1, increasing=True))
    beta = _back_substitute(r, q.T @ t)
    resid = t - q @ (q.T @ t)
    return _Ols(domain, beta, r, len(t), float(resid @ resid),
                float(np.sum((t - t.mean()) ** 2)))


def _ols_model(ols: _Ols, feature: Callable, link_inverse: Callable,
               coefficients: tuple[tuple[str, float], ...],
               equation: str) -> _Model:
    """Wrap an OLS fit of link(v) on a polynomial in feature(u)."""

    def band(u, level, prediction):
        low, high = ols.interval(feature(u), level, prediction)
        return link_inverse(low), link_inverse(high)

    return _Model(coefficients, equation,
                  lambda u: link_inverse(ols.predict(feature(u))), band,
                  ols.r2, ols.adj_r2, ols.rse)


def _identity(a: np.ndarray) -> np.ndarray:
    return a


def _require_positive(values: np.ndarray, channel: str, method: str) -> None:
    bad = int(np.count_nonzero(values <= 0))
    if bad:
        raise SpecError(errors.trend_nonpositive(channel, bad, len(values), method),
                        ("method",) if method else (), stage=STAGE,
                        hint=errors.trend_nonpositive_hint(channel, method))


def _fit_linear(u, v, opts: _Options) -> _Model:
    ols = _solve_ols(u, v, 1)
    b0, b1 = ols.raw()
    return _ols_model(
        ols, _identity, _identity,
        (("intercept", float(b0)), ("slope", float(b1))),
        f"{opts.y_name} = {_terms([(b0, ''), (b1, '·' + opts.x_name)])}")


def _fit_polynomial(u, v, opts: _Options, order: int) -> _Model:
    distinct = len(np.unique(u))
    if order >= distinct:
        key = "order" if opts.method == "poly" else "method"  # quad has no order key
        raise SpecError(errors.trend_order_too_high(order, distinct), (key,),
                        stage=STAGE, hint=errors.trend_order_too_high_hint(distinct))
    ols = _solve_ols(u, v, order)
    coef = ols.raw()
    terms = [(c, _power(opts.x_name, k)) for k, c in enumerate(coef)]
    return _ols_model(
        ols, _identity, _identity,
        tuple((f"c{k}", float(c)) for k, c in enumerate(coef)),
        f"{opts.y_name} = {_terms(terms)}")


def _fit_poly(u, v, opts: _Options) -> _Model:
    order = opts.order
    if not _is_whole(order) or order < 1:
        raise SpecError(errors.trend_poly_order(order), ("order",), stage=STAGE,
                        hint=errors.trend_poly_order_hint())
    return _fit_polynomial(u, v, opts, int(order))


def _fit_quad(u, v, opts: _Options) -> _Model:
    if opts.order is not None and not (_is_whole(opts.order) and opts.order == 2):
        raise SpecError(errors.trend_quad_order(opts.order), ("order",), stage=STAGE,
                        hint=errors.trend_quad_order_hint(opts.order))
    return _fit_polynomial(u, v, opts, 2)


def _fit_log(u, v, opts: _Options) -> _Model:
    _require_positive(u, "x", opts.method)
    ols = _solve_ols(np.log(u), v, 1)
    a, b = ols.raw()
    return _ols_model(
        ols, np.log, _identity, (("a", float(a)), ("b", float(b))),
        f"{opts.y_name} = {_terms([(a, ''), (b, f'·ln({opts.x_name})')])}")


def _fit_exp(u, v, opts: _Options) -> _Model:
    _require_positive(v, "y", opts.method)
    ols = _solve_ols(u, np.log(v), 1)
    ln_a, b = ols.raw()
    a = math.exp(ln_a)
    return _ols_model(
        ols, _identity, np.exp, (("a", a), ("b", float(b))),
        f"{opts.y_name} = {_number(a)}·e^({_number(b)}·{opts.x_name})")


def _fit_pow(u, v, opts: _Options) -> _Model:
    _require_positive(u, "x", opts.method)
    _require_positive(v, "y", opts.method)
    ols = _solve_ols(np.log(u), np.log(v), 1)
    ln_a, b = ols.raw()
    a = math.exp(ln_a)
    exponent = _number(b) if b >= 0 else f"({_number(b)})"
    return _ols_model(
        ols, np.log, np.exp, (("a", a), ("b", float(b))),
        f"{opts.y_name} = {_number(a)}·{_wrap(opts.x_name)}^{exponent}")


def _smoother_model(u, fitted, equation: str) -> _Model:
    """Draw a smoother through its fitted values (mean over tied x)."""
    xs, inverse = np.unique(u, return_inverse=True)
    ys = np.bincount(inverse, weights=fitted) / np.bincount(inverse)
    return _Model((), equation, lambda g: np.interp(g, xs, ys), None,
                  extrapolates=False)


def _fit_loess(u, v, opts: _Options) -> _Model:
    fitted = smooth_loess(u, v, opts.bandwidth, delta=LOESS_DELTA * float(np.ptp(u)))
    return _smoother_model(
        u, fitted, f"{opts.y_name} = loess({opts.x_name}, bandwidth={opts.bandwidth:g})")


def _fit_moving_average(u, v, opts: _Options) -> _Model:
    fitted = smooth_moving_average(u, v, opts.window)
    return _smoother_model(
        u, fitted,
        f"{opts.y_name} = moving-average({opts.x_name}, window={opts.window})")


TREND_METHODS: dict[str, Callable[[np.ndarray, np.ndarray, _Options], _Model]] = {
    "linear": _fit_linear,
    "poly": _fit_poly,
    "quad": _fit_quad,
    "log": _fit_log,
    "exp": _fit_exp,
    "pow": _fit_pow,
    "loess": _fit_loess,
    "moving-average": _fit_moving_average,
}

# Which variables a method takes the logarithm of; with a log axis in fitting
# space the method's fit is the one that logs the remaining variables.
_LOGARITHM_OF: dict[str, frozenset[str]] = {
    "log": frozenset("x"), "exp": frozenset("y"), "pow": frozenset("xy"),
}
_METHOD_LOGGING: dict[frozenset[str], str] = {
    frozenset(): "linear", frozenset("x"): "log", frozenset("y"): "exp",
    frozenset("xy"): "pow",
}

_SMOOTHERS = ("loess", "moving-average")
BAND_METHODS = tuple(m for m in TREND_METHODS if m not in _SMOOTHERS)


# ---------------------------------------------------------------- smoothers

def smooth_loess(x: Sequence[float], y: Sequence[float], bandwidth: float,
                 delta: float = 0.0) -> np.ndarray:
    """Loess fitted values at the data x: local linear, tricube, no robustness.

    Equal to ``statsmodels.nonparametric.lowess(y, x, frac=bandwidth, it=0,
    delta=delta, return_sorted=False)`` when tied x values are in input order.
    A local fit uses the ``int(bandwidth·n)`` (at least 2) points nearest in
    x; when fewer than two of them have weight, the fit is the point's own y.
    With `delta` 0 every distinct x gets its own fit; otherwise fits are made
    at x values about `delta` apart and interpolated linearly in between.

    Args:
        x: finite x values.
        y: finite y values, same length.
        bandwidth: fraction of the points in each local fit, in (0, 1].
        delta: the x distance within which fits are interpolated (≥ 0).

    Returns:
        The fitted values, in the order of the input.

    Raises:
        SpecError: if `bandwidth` is not in (0, 1].
    """
    _check_bandwidth(bandwidth)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    n = len(xs)
    k = min(max(int(bandwidth * n + 1e-10), 2), n)
    # The window [left, left + k) moves right while the point lies beyond the
    # midpoint of its first point and the next point outside it; those
    # midpoints never decrease, so a search finds every window at once.
    midpoints = (xs[: n - k] + xs[k:]) / 2.0
    anchors = _loess_anchors(xs, delta)
    fitted_anchors = np.empty(len(anchors))
    step = max(1, _LOESS_BLOCK // k)
    for start in range(0, len(anchors), step):
        rows = anchors[start:start + step]
        fitted_anchors[start:start + step] = _loess_block(xs, ys, rows, midpoints, k)
    # Tied x share their anchor's fit; x between two anchors are interpolated
    # as statsmodels does (a·right + (1 - a)·left, left = the earlier anchor).
    right = np.searchsorted(xs[anchors], xs, side="left")
    tied = xs[anchors[np.minimum(right, len(anchors) - 1)]] == xs
    right = np.minimum(right, len(anchors) - 1)
    left = np.maximum(right - 1, 0)
    x_left, x_right = xs[anchors[left]], xs[anchors[right]]
    with np.errstate(invalid="ignore", divide="ignore"):
        a = (xs - x_left) / (x_right - x_left)
    between = a * fitted_anchors[right] + (1.0 - a) * fitted_anchors[left]
    fitted_sorted = np.where(tied, fitted_anchors[right], between)
    fitted = np.empty(n)
    fitted[order] = fitted_sorted
    return fitted


def _loess_anchors(xs: np.ndarray, delta: float) -> np.ndarray:
    """Indexes (into sorted x) where loess fits locally: statsmodels' ``update_indices``.

    From a fit at i, the next is at the last point within `delta` of x[i]
    (at least the point after x[i]'s ties, which share its fit).
    """
    n = len(xs)
    anchors = []
    i = 0
    while True:
        anchors.append(i)
        last = int(np.searchsorted(xs, xs[i], side="right")) - 1  # x[i]'s ties share its fit
        if last >= n - 1:
            return np.array(anchors)
        beyond = int(np.searchsorted(xs, xs[i] + delta, side="right"))  # first x past the cut
        k = beyond if beyond < n else n - 1  # statsmodels' loop ends on the last point
        i = max(k - 1, last + 1)


def _check_bandwidth(bandwidth: Any) -> None:
    if not _is_number(bandwidth) or not 0 < bandwidth <= 1:
        raise SpecError(errors.trend_bandwidth(bandwidth), ("bandwidth",), stage=STAGE,
                        hint=errors.trend_bandwidth_hint())


def _loess_block(xs, ys, rows, midpoints, k) -> np.ndarray:
    centre = xs[rows]
    left = np.searchsorted(midpoints, centre, side="left")
    window = left[:, None] + np.arange(k)
    xw, yw = xs[window], ys[window]
    radius = np.maximum(centre - xs[left], xs[left + k - 1] - centre)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = (1.0 - (np.abs(xw - centre[:, None]) / radius) ** 3) ** 3
    # A window of one x value has radius 0 (weights 0/0); it and any window
    # with fewer than two weighted points keeps the point's own y, and the
    # 1e-12 floors are statsmodels' own, so the two agree.
    weights = np.nan_to_num(weights, nan=0.0)
    usable = np.count_nonzero(weights > 1e-12, axis=1) >= 2
    weights = weights / np.where(usable, weights.sum(axis=1), 1.0)[:, None]
    mean_x = np.sum(weights * xw, axis=1, keepdims=True)
    spread = np.maximum(np.sum(weights * (xw - mean_x) ** 2, axis=1, keepdims=True),
                        1e-12)
    projection = weights * (1.0 + (centre[:, None] - mean_x) * (xw - mean_x) / spread)
    return np.where(usable, np.sum(projection * yw, axis=1), ys[rows])


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
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(x)
    if not _is_whole(window) or not 1 <= window <= n:
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


# ---------------------------------------------------------------- fit_trend

def fit_trend(
    x: Sequence[Any],
    y: Sequence[Any],
    method: str = "linear",
    *,
    order: int | None = None,
    bandwidth: float = 0.3,
    window: int | None = None,
    band: float | None = None,
    prediction: float | None = None,
    x_scale: str = "linear",
    y_scale: str = "linear",
    x_exponent: float = 1.0,
    y_exponent: float = 1.0,
    space: str = "axis",
    extent: tuple[float | None, float | None] | None = None,
    samples: int = 100,
    group: Any = None,
) -> TrendLine:
    """Fit a trend through (x, y) and sample its curve for drawing.

    The curve is sampled at `samples` points evenly spaced on the x axis as
    drawn (in the x scale's space, whatever `space` is), so it is smooth on a
    log axis too. A smoother's curve instead passes through its fitted value
    at every distinct x inside the extent (plus the ends), which is the exact
    polyline it stands for; with ``space="data"`` on a non-linear x axis the
    evenly spaced points are added as well.

    Args:
        x: x values; None, NaN and infinite rows (in x or y) are dropped.
        y: y values, same length as x.
        method: a key of `TREND_METHODS`.
        order: polynomial order for ``poly`` (required, >= 1).
        bandwidth: loess fraction of points per local fit, in (0, 1].
        window: moving-average window, 1..n (required for that method).
        band: level of the confidence band of the mean, e.g. 0.95.
        prediction: level of the prediction band, e.g. 0.95.
        x_scale: the x axis scale (a key of `SCALE_TRANSFORMS`, or ``pow``).
        y_scale: the y axis scale.
        x_exponent: the exponent of a ``pow`` x scale.
        y_exponent: the exponent of a ``pow`` y scale.
        space: ``"axis"`` fits in the axis scales' space, ``"data"`` fits raw
            values.
        extent: x range of the curve, in data units; None is the data's range,
            and a None bound is the data's minimum or maximum.
        samples: number of curve points, evenly spaced on the x axis.
        group: the ``by`` group this fit belongs to (its value), None for one
            overall fit.

    Returns:
        The fitted `TrendLine`.

    Raises:
        SpecError: for an unknown method, scale or space; bad parameters; data
            the method cannot fit (too few distinct x, values outside the
            domain of a logarithm); or a curve that overflows. The error has
            stage ``"fit"`` and a path relative to the trend that names the
            parameter at fault (``("order",)``), or ``()`` when the data is;
            callers prefix the layer's path.
    """
    fit = TREND_METHODS.get(method) if isinstance(method, str) else None
    if fit is None:
        raise SpecError(errors.trend_unknown_method(method, TREND_METHODS), ("method",),
                        stage=STAGE, hint=did_you_mean(str(method), TREND_METHODS))
    if space not in SPACES:
        raise SpecError(errors.trend_unknown_space(space, SPACES), ("space",), stage=STAGE,
                        hint=did_you_mean(str(space), SPACES))
    x_axis = _scale_transform("x", x_scale, x_exponent)
    y_axis = _scale_transform("y", y_scale, y_exponent)
    x_transform = x_axis if space == "axis" else _IDENTITY
    y_transform = y_axis if space == "axis" else _IDENTITY
    level, band_kind = _band_request(method, band, prediction)
    band_key = "band" if band is not None else "prediction"
    if method == "loess":
        _check_bandwidth(bandwidth)
    if not _is_whole(samples) or samples < 2:
        raise SpecError(errors.trend_samples(samples), (), stage=STAGE)
    _check_log_axes(method, x_transform, y_transform)

    xv, yv = _as_numbers(x, "x"), _as_numbers(y, "y")
    if len(xv) != len(yv):
        raise ValueError(f"x and y differ in length: {len(xv)} != {len(yv)}")
    keep = np.isfinite(xv) & np.isfinite(yv)
    xv, yv = xv[keep], yv[keep]
    distinct = len(np.unique(xv))
    if distinct < 2:
        raise SpecError(errors.trend_too_few_x(distinct), (), stage=STAGE,
                        hint=errors.trend_too_few_x_hint())
    for channel, values, transform in (("x", xv, x_axis), ("y", yv, y_axis)):
        if transform.positive:
            _require_positive(values, channel, None)
    u, v = x_transform.forward(xv), y_transform.forward(yv)

    options = _Options(method, order, bandwidth, window,
                       x_transform.variable.format("x"),
                       y_transform.variable.format("y"))
    model = fit(u, v, options)

    low, high = _extent(extent, xv, x_axis, method, model)
    lower = upper = None
    # Overflow (an exp fit far out) is reported below, not warned about.
    with np.errstate(over="ignore", invalid="ignore"):
        grid = np.linspace(float(x_axis.forward(np.float64(low))),
                           float(x_axis.forward(np.float64(high))), int(samples))
        curve_x = x_axis.inverse(grid)
        # The ends are the requested values, not their round trip through a scale.
        curve_x[0], curve_x[-1] = low, high
        if model.extrapolates:
            # In axis space the grid is the fitting space's own: use it as is.
            at = grid if x_transform is x_axis else x_transform.forward(curve_x)
        else:
            distinct_x = np.unique(xv)
            knots = _thin(np.r_[low, distinct_x[(distinct_x > low) & (distinct_x < high)], high])
            curve_x = knots if x_transform is x_axis else np.union1d(knots, curve_x)
            at = x_transform.forward(curve_x)
        curve_y = y_transform.inverse(model.curve(at))
        if level is not None:
            coefficients = len(model.coefficients)
            if len(xv) <= coefficients:
                raise SpecError(errors.trend_band_too_few_points(len(xv), coefficients),
                                (band_key,), stage=STAGE,
                                hint=errors.trend_band_too_few_points_hint())
            low_band, high_band = model.band(at, level, band_kind == "prediction")
            lower, upper = y_transform.inverse(low_band), y_transform.inverse(high_band)
    # The coefficients too: x over a tiny span can give a drawable curve from an infinite c2.
    arrays = [curve_x, curve_y, [value for _, value in model.coefficients]] + (
        [lower, upper] if level is not None else [])
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise SpecError(errors.trend_not_finite(method), (), stage=STAGE,
                        hint=errors.trend_not_finite_hint())

    return TrendLine(
        method=method,
        group=group,
        n=int(len(xv)),
        coefficients=model.coefficients,
        r2=model.r2,
        adj_r2=model.adj_r2,
        rse=model.rse,
        equation=model.equation,
        x=_floats(curve_x),
        y=_floats(curve_y),
        lower=None if lower is None else _floats(lower),
        upper=None if upper is None else _floats(upper),
        band=level,
        band_kind=band_kind,
        space=(x_transform.name, y_transform.name),
    )


def _scale_transform(channel: str, scale: str, exponent: Any = 1.0) -> _Transform:
    """The transform of an axis scale (a ``pow`` scale takes its exponent)."""
    if scale == "pow":
        if not _is_number(exponent) or exponent == 0:
            raise SpecError(errors.trend_scale_exponent(channel, exponent), (), stage=STAGE)
        return _pow_transform(float(exponent))
    transform = SCALE_TRANSFORMS.get(scale) if isinstance(scale, str) else None
    if transform is None:
        scales = (*SCALE_TRANSFORMS, "pow")
        raise SpecError(errors.trend_unknown_scale(channel, scale, scales),
                        (), stage=STAGE, hint=did_you_mean(str(scale), scales))
    return transform


def _pow_transform(exponent: float) -> _Transform:
    """Vega's pow scale: ``sign(v)·|v|^exponent``."""
    if exponent == 1.0:
        return _IDENTITY
    return _Transform(
        "pow", f"{{}}^{exponent:g}",
        lambda v: np.sign(v) * np.power(np.abs(v), exponent),
        lambda u: np.sign(u) * np.power(np.abs(u), 1.0 / exponent), False)


def _band_request(method: str, band: Any, prediction: Any) -> tuple[float | None, str | None]:
    if band is None and prediction is None:
        return None, None
    if band is not None and prediction is not None:
        raise SpecError(errors.trend_band_conflict(), ("prediction",), stage=STAGE,
                        hint=errors.trend_band_conflict_hint())
    band_key = "band" if band is not None else "prediction"
    if method not in BAND_METHODS:
        raise SpecError(errors.trend_band_unsupported(method), (band_key,), stage=STAGE,
                        hint=errors.trend_band_unsupported_hint(BAND_METHODS))
    kind, level = ("confidence", band) if band is not None else ("prediction", prediction)
    if not _is_number(level) or not 0 < level < 1:
        raise SpecError(errors.trend_band_level(kind, level), (band_key,), stage=STAGE,
                        hint=errors.trend_band_level_hint())
    return float(level), kind


def _check_log_axes(method: str, x_transform: _Transform, y_transform: _Transform) -> None:
    logged = _LOGARITHM_OF.get(method, frozenset())
    log_axes = {c for c, t in (("x", x_transform), ("y", y_transform)) if t.name == "log"}
    clash = sorted(logged & log_axes)
    if clash:
        raise SpecError(
            errors.trend_log_on_log_axis(method, sorted(logged), clash), ("method",),
            stage=STAGE,
            hint=errors.trend_log_on_log_axis_hint(_METHOD_LOGGING[logged - log_axes]))


def _extent(extent: Any, xv: np.ndarray, x_axis: _Transform, method: str,
            model: _Model) -> tuple[float, float]:
    """The curve's ends in data space (a smoother's cut to the data)."""
    low, high = float(xv.min()), float(xv.max())
    if extent is not None:
        bounds = tuple(extent) if isinstance(extent, (tuple, list)) else None
        if (bounds is None or len(bounds) != 2
                or not all(b is None or _is_number(b) for b in bounds)):
            raise SpecError(errors.trend_extent(extent), ("extent",), stage=STAGE,
                            hint=errors.trend_extent_hint())
        low = low if bounds[0] is None else float(bounds[0])
        high = high if bounds[1] is None else float(bounds[1])
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise SpecError(errors.trend_extent(extent), ("extent",), stage=STAGE,
                            hint=errors.trend_extent_hint())
        if low <= 0 and (x_axis.positive or "x" in _LOGARITHM_OF.get(method, ())):
            needed_by = None if x_axis.positive else method
            raise SpecError(errors.trend_extent_nonpositive(extent, needed_by), ("extent",),
                            stage=STAGE, hint=errors.trend_extent_nonpositive_hint())
    if not model.extrapolates:
        first, last = float(xv.min()), float(xv.max())
        if high <= first or low >= last:
            raise SpecError(errors.trend_extent_misses_data(extent, method, first, last),
                            ("extent",), stage=STAGE, hint=errors.trend_extent_misses_data_hint())
        low, high = max(low, first), min(high, last)
    return low, high


# A smoother's curve runs through its fitted values at the data's distinct x;
# past this many it is thinned to this many, evenly spread (ends kept), so a
# chart's size does not grow with its rows: no plot is that many pixels wide.
MAX_CURVE_POINTS = 2_000


def _thin(knots: np.ndarray) -> np.ndarray:
    if len(knots) <= MAX_CURVE_POINTS:
        return knots
    keep = np.unique(np.round(np.linspace(0, len(knots) - 1, MAX_CURVE_POINTS)).astype(int))
    return knots[keep]


def _as_numbers(values: Sequence[Any], channel: str) -> np.ndarray:
    """A float array, with None as NaN; anything else non-numeric is an error."""
    try:
        return np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        pass
    numbers = []
    for value in values:
        try:
            numbers.append(math.nan if value is None else float(value))
        except (TypeError, ValueError):
            raise SpecError(errors.trend_not_numeric(channel, value), (), stage=STAGE,
                            hint=errors.trend_not_numeric_hint()) from None
    return np.asarray(numbers, dtype=float)


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def _is_whole(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, Integral) or (_is_number(value) and float(value).is_integer())


def _floats(values: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


# ---------------------------------------------------------------- equations

_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _number(value: float) -> str:
    """`value` to `EQUATION_DIGITS` significant digits, as people write it."""
    text = f"{value:.{EQUATION_DIGITS}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPTS)}"
    return text.replace("-", "−")


def _terms(terms: list[tuple[float, str]]) -> str:
    """``a + b·x − c·x²`` from (coefficient, suffix) pairs."""
    text = ""
    for coefficient, suffix in terms:
        if not text:
            text = _number(coefficient) + suffix
        else:
            sign = "−" if coefficient < 0 else "+"
            text += f" {sign} {_number(abs(coefficient))}{suffix}"
    return text


def _wrap(variable: str) -> str:
    return variable if variable.isalnum() else f"({variable})"


def _power(variable: str, k: int) -> str:
    if k == 0:
        return ""
    return "·" + variable + (str(k).translate(_SUPERSCRIPTS) if k > 1 else "")


# ---------------------------------------------------------------- labels

def format_trend_label(template: str, line: TrendLine) -> str:
    """Fill a legend label such as ``"Trend (R²={r2:.3f})"`` from a fit.

    Placeholders (`LABEL_PLACEHOLDERS`): r2, adj_r2, rse, slope, intercept
    (linear only), coef (the coefficient values, e.g. ``{coef[1]:.2f}``), n,
    equation, method, group. The syntax is `str.format`.

    Args:
        template: the label with placeholders.
        line: the fitted trend.

    Returns:
        The label text.

    Raises:
        SpecError: for an unknown placeholder, one without a value for this
            trend (e.g. ``{r2}`` of a loess), a malformed template or format
            spec, a width or precision over `LABEL_MAX_WIDTH` or
            `LABEL_MAX_PRECISION`, or a label longer than `LABEL_MAX_LENGTH`.
    """
    values = _label_values(line)
    try:
        names = _placeholders(template)
    except ValueError as exc:
        raise SpecError(errors.trend_label_format(template, str(exc)), ("label",),
                        stage=STAGE, hint=errors.trend_label_format_hint()) from None
    for name in names:
        if name not in values:
            raise SpecError(errors.trend_label_placeholder(name), ("label",), stage=STAGE,
                            hint=errors.trend_label_placeholder_hint(LABEL_PLACEHOLDERS))
        if values[name] is None:
            raise SpecError(errors.trend_label_undefined(name, line.method), ("label",),
                            stage=STAGE, hint=errors.trend_label_undefined_hint())
    try:
        text = _fill_label(template, values)
    except (ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
        raise SpecError(errors.trend_label_format(template, str(exc)), ("label",),
                        stage=STAGE, hint=errors.trend_label_format_hint()) from None
    if len(text) > LABEL_MAX_LENGTH:
        raise SpecError(errors.trend_label_too_long(len(text), LABEL_MAX_LENGTH), ("label",),
                        stage=STAGE, hint=errors.trend_label_too_long_hint())
    return text


_FORMATTER = string.Formatter()


def _fill_label(template: str, values: dict, nested: bool = False) -> str:
    """What `str.format_map` makes of `template`, each format spec checked before it is applied.

    A spec may hold placeholders itself (``{r2:.{n}}``), one level deep as in
    `str.format`; its bounds are checked once they are filled in.

    Raises:
        SpecError: a width or precision over its limit.
        ValueError, TypeError, IndexError, KeyError, AttributeError: what
            `str.format` raises for the same template.
    """
    parts = []
    for literal, field, spec, conversion in _FORMATTER.parse(template):
        parts.append(literal)
        if field is None:
            continue
        value = _FORMATTER.convert_field(_FORMATTER.get_field(field, (), values)[0], conversion)
        if spec and nested:
            raise ValueError("Max string recursion exceeded")
        written = "{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        spec = _fill_label(spec, values, nested=True) if spec else spec
        _check_format_spec(written, spec)
        parts.append(format(value, spec))
    return "".join(parts)


def _check_format_spec(placeholder: str, spec: str) -> None:
    """Refuse a width or precision past `LABEL_MAX_WIDTH` / `LABEL_MAX_PRECISION`.

    A spec the mini-language pattern does not match is left to `format`,
    which refuses it for every value a label can hold.

    Args:
        placeholder: the placeholder as the template writes it, for the message.
        spec: its format spec, nested placeholders filled in.
    """
    match = FORMAT_SPEC.fullmatch(spec)
    if match is None:
        return
    for part, limit in (("width", LABEL_MAX_WIDTH), ("precision", LABEL_MAX_PRECISION)):
        digits = match[part]
        # Compared as text first: int() refuses numbers of over 4,300 digits.
        if digits is not None and (len(digits.lstrip("0")) > len(str(limit)) or int(digits) > limit):
            raise SpecError(errors.trend_label_spec_too_large(placeholder, part, digits.lstrip("0"), limit),
                            ("label",), stage=STAGE,
                            hint=errors.trend_label_spec_too_large_hint(LABEL_MAX_WIDTH, LABEL_MAX_PRECISION))


def _placeholders(template: str) -> list[str]:
    """The names a format template refers to, nested format specs included."""
    names = []
    for _, field, spec, _ in string.Formatter().parse(template):
        if field is None:
            continue
        names.append(re.match(r"[^.\[]*", field).group())
        if spec:
            names.extend(_placeholders(spec))
    return names


def _label_values(line: TrendLine) -> dict[str, Any]:
    named = dict(line.coefficients) if line.method == "linear" else {}
    return {
        "r2": line.r2,
        "adj_r2": line.adj_r2,
        "rse": line.rse,
        "slope": named.get("slope"),
        "intercept": named.get("intercept"),
        "coef": tuple(value for _, value in line.coefficients) or None,
        "n": line.n,
        "equation": line.equation,
        "method": line.method,
        "group": line.group,
    }


# ---------------------------------------------------------------- summary

def line_subset(line: TrendLine) -> str | None:
    """Which rows a line was fitted on, as people read it: ``species = setosa, g = a``; None for all."""
    parts = [f"{field} = {value}" for field, value in line.panel]
    if line.group is not None:
        parts.append(str(line.group))
    return ", ".join(parts) or None


def trend_summary(line: TrendLine) -> dict[str, Any]:
    """The fit's results as a JSON-ready dict, without the curve arrays.

    Args:
        line: the fitted trend.

    Returns:
        ``{"method", "group", "label", "n", "coefficients": {name: value},
        "r2", "adj_r2", "rse", "band", "band_kind", "space": {"x", "y"},
        "x_type", "equation"}``; undefined statistics, absent bands and
        labels are None. A line fitted in a facet panel adds ``"panel":
        {field: value}``.
    """
    panel = {"panel": dict(line.panel)} if line.panel else {}
    return {
        **panel,
        "method": line.method,
        "group": line.group,
        "label": line.label,
        "n": line.n,
        "coefficients": {name: value for name, value in line.coefficients},
        "r2": line.r2,
        "adj_r2": line.adj_r2,
        "rse": line.rse,
        "band": line.band,
        "band_kind": line.band_kind,
        "space": {"x": line.space[0], "y": line.space[1]},
        "x_type": line.x_type,
        "equation": line.equation,
    }
