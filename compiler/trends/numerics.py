"""The numerics every trend method shares: least squares with its bands, axis transforms, smoother curves.

`Ols` is a polynomial least-squares fit (made from sufficient statistics by
`trends.moments`), and `ols_model` wraps it as a `Model` through a feature and a link (``ln x`` for
``log``, ``ln y`` for ``exp`` and ``pow``: those methods' R² and bands are
the linearised fit's, exponentiated back); `smoother_model` draws a
smoother through its fitted values. `SCALE_TRANSFORMS` are the axis scales'
transforms into fitting space (see `trends.fitting`). Student's t for the
bands is `trends.tdist`.

May import: `chartc.errors`, numpy and the standard library.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Callable

import numpy as np
from numpy.polynomial import Polynomial

from .. import errors
from ..errors import SpecError
from .tdist import student_t_quantile

STAGE = "fit"


# ---------------------------------------------------------------- scales

@dataclass(frozen=True, slots=True)
class Transform:
    """How an axis scale maps data values into fitting space and back."""

    name: str                                   # the `TrendLine.space` entry
    variable: str                               # how x or y is written
    forward: Callable[[np.ndarray], np.ndarray]
    inverse: Callable[[np.ndarray], np.ndarray]
    positive: bool                              # defined for values > 0 only
    # The same map as DuckDB SQL, ``{0}`` the value (`trends.moments` fits in the engine with it); a value
    # outside the domain (a log of 0) is NULL, never an error, and is refused by count before it is used.
    sql: str = "{0}"


LN10 = math.log(10.0)

IDENTITY = Transform("linear", "{}", lambda v: v, lambda u: u, False)

SCALE_TRANSFORMS: dict[str, Transform] = {
    "linear": IDENTITY,
    "time": IDENTITY,
    "utc": IDENTITY,
    "log": Transform("log", "log10({})", np.log10,
                      lambda u: np.power(10.0, u), True, "CASE WHEN {0} > 0 THEN log10({0}) END"),
    "sqrt": Transform("sqrt", "sqrt({})",
                       lambda v: np.sign(v) * np.sqrt(np.abs(v)),
                       lambda u: np.sign(u) * u * u, False, "sign({0}) * sqrt(abs({0}))"),
    # log1p/expm1 keep precision near 0, where symlog is nearly linear (DuckDB has no log1p: ln(1 + |v|)
    # there, exact to ~1e-16 in absolute terms, which is what a fit in that space sees).
    "symlog": Transform("symlog", "symlog({})",
                         lambda v: np.sign(v) * np.log1p(np.abs(v)) / LN10,
                         lambda u: np.sign(u) * np.expm1(np.abs(u) * LN10),
                         False, f"sign({{0}}) * ln(1 + abs({{0}})) / {LN10!r}"),
}


def pow_transform(exponent: float) -> Transform:
    """Vega's pow scale: ``sign(v)·|v|^exponent``."""
    if exponent == 1.0:
        return IDENTITY
    return Transform(
        "pow", f"{{}}^{exponent:g}",
        lambda v: np.sign(v) * np.power(np.abs(v), exponent),
        lambda u: np.sign(u) * np.power(np.abs(u), 1.0 / exponent), False,
        f"sign({{0}}) * pow(abs({{0}}), CAST({exponent!r} AS DOUBLE))")


# ---------------------------------------------------------------- models

@dataclass(frozen=True, slots=True)
class Model:
    """A fitted method, evaluated in fitting space."""

    coefficients: tuple[tuple[str, float], ...]
    equation: str
    curve: Callable[[np.ndarray], np.ndarray]
    # (u, level, prediction) -> (lower, upper); None for the smoothers.
    band: Callable[[np.ndarray, float, bool], tuple[np.ndarray, np.ndarray]] | None
    r2: float | None = None
    adj_r2: float | None = None
    rse: float | None = None
    # The label statistics beyond these (``p``, ``f``, ``slope_ci``, ``aic``, ``bic``, ``rmse``: `Ols.statistics`);
    # a name left out has no value for this fit.
    statistics: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class Ols:
    """Least squares on the polynomial basis 1, z, .., z^degree of z = (w − centre) / scale.

    Centred on the mean of w and scaled so that |z| ≤ 1, the basis is as well
    conditioned for a cubic in horsepower or a line at x = 1e9 ± 1 as on
    [−1, 1]; `raw` converts the coefficients back to powers of w. Made from
    sufficient statistics by `trends.moments.solve`.
    """

    centre: float
    scale: float
    beta: np.ndarray          # coefficients in the centred basis
    r: np.ndarray             # upper triangular, RᵀR = XᵀX in that basis
    n: int
    ssr: float
    sst: float
    # Σ ln wᵢ of a weighted fit (0 without weights): the normal log-likelihood's term for the weights.
    log_weights: float = 0.0

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

    def statistics(self, level: float = 0.95) -> tuple[tuple[str, Any], ...]:
        """The fit's test statistics, as statsmodels' OLS (or WLS) results give them.

        ``f``: the overall F statistic (``fvalue``), ``p``: for a straight line (degree 1) the slope's two-sided
        t-test p-value (``pvalues[1]``), otherwise the F test's (``f_pvalue``); for one slope F = t² and the
        two are the same. ``slope_ci``: the slope's `level` confidence interval (``conf_int()[1]``), degree 1
        only. ``aic``, ``bic``: from the normal log-likelihood with the variance at its maximum-likelihood
        value SSR/n (``aic``, ``bic``; a weighted fit adds ½·Σ ln w to it, as WLS). ``rmse``: √(SSR/n), the
        root of the mean squared residual; `rse` is √(SSR/(n − k − 1)), statsmodels' ``sqrt(mse_resid)``.
        A statistic without residual degrees of freedom, or of a perfect fit, is left out.
        """
        from .tdist import f_upper, student_t_two_sided

        k = len(self.beta) - 1
        found: dict[str, Any] = {}
        if self.n > 0 and self.ssr > 0:
            llf = -self.n / 2.0 * (math.log(2.0 * math.pi) + math.log(self.ssr / self.n) + 1.0) + self.log_weights / 2.0
            found["aic"] = -2.0 * llf + 2.0 * (k + 1)
            found["bic"] = -2.0 * llf + math.log(self.n) * (k + 1)
        if self.n > 0:
            found["rmse"] = math.sqrt(self.ssr / self.n)
        if self.df > 0 and self.ssr > 0 and k > 0:
            f = (self.sst - self.ssr) / k / (self.ssr / self.df)
            found["f"] = f
            found["p"] = f_upper(f, k, self.df)
            if k == 1:
                inverse = back_substitute(self.r, np.eye(2))     # R⁻¹: (XᵀX)⁻¹ = R⁻¹R⁻ᵀ
                se = self.rse * float(np.linalg.norm(inverse[1])) / self.scale
                slope = float(self.beta[1]) / self.scale
                found["p"] = student_t_two_sided(slope / se, self.df)
                half = -student_t_quantile((1.0 - level) / 2.0, self.df) * se
                found["slope_ci"] = (slope - half, slope + half)
        return tuple(found.items())

    def raw(self) -> np.ndarray:
        coef = Polynomial(self.beta)(Polynomial([-self.centre / self.scale, 1.0 / self.scale])).coef
        return np.pad(coef, (0, len(self.beta) - len(coef)))

    def basis(self, w: np.ndarray) -> np.ndarray:
        z = (w - self.centre) / self.scale
        return np.vander(z, len(self.beta), increasing=True)

    def predict(self, w: np.ndarray) -> np.ndarray:
        return self.basis(w) @ self.beta

    def interval(self, w: np.ndarray, level: float,
                 prediction: bool) -> tuple[np.ndarray, np.ndarray]:
        # se of the mean at w is rse·|R⁻ᵀ z(w)|, from (XᵀX)⁻¹ = R⁻¹R⁻ᵀ.
        se = self.rse * np.linalg.norm(forward_substitute(self.r.T, self.basis(w).T), axis=0)
        if prediction:
            se = np.hypot(se, self.rse)
        # t at the lower tail (1 - level)/2, negated: that tail stays above 0,
        # while 0.5 + level/2 rounds to 1 for a level within 1e-16 of 1.
        half = -student_t_quantile((1.0 - level) / 2.0, self.df) * se
        mean = self.predict(w)
        return mean - half, mean + half


def back_substitute(upper: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with upper·x = b, for an upper-triangular matrix (b: a vector or columns).

    A few rows at most (the polynomial's order + 1): a loop in numpy, rather
    than scipy.linalg, whose import costs a cold compile ~0.2 s.
    """
    x = np.zeros_like(b, dtype=float)
    for i in range(len(upper) - 1, -1, -1):
        x[i] = (b[i] - upper[i, i + 1:] @ x[i + 1:]) / upper[i, i]
    return x


def forward_substitute(lower: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with lower·x = b, for a lower-triangular matrix (b: a vector or columns)."""
    x = np.zeros_like(b, dtype=float)
    for i in range(len(lower)):
        x[i] = (b[i] - lower[i, :i] @ x[:i]) / lower[i, i]
    return x


def ols_model(ols: Ols, feature: Callable, link_inverse: Callable,
               coefficients: tuple[tuple[str, float], ...],
               equation: str) -> Model:
    """Wrap an OLS fit of link(v) on a polynomial in feature(u)."""

    def band(u, level, prediction):
        low, high = ols.interval(feature(u), level, prediction)
        return link_inverse(low), link_inverse(high)

    return Model(coefficients, equation,
                  lambda u: link_inverse(ols.predict(feature(u))), band,
                  ols.r2, ols.adj_r2, ols.rse, ols.statistics())


def identity(a: np.ndarray) -> np.ndarray:
    """The feature or link of a method that transforms nothing."""
    return a


def require_positive(values: np.ndarray, channel: str, method: str | None) -> None:
    """Refuse values <= 0 where a logarithm is taken (by `method`, or by the axis when None).

    Raises:
        SpecError: how many values are not positive.
    """
    refuse_nonpositive(int(np.count_nonzero(values <= 0)), len(values), channel, method)


def refuse_nonpositive(bad: int, total: int, channel: str, method: str | None) -> None:
    """`require_positive` from counts (the engine counts the values; the rows never reach Python).

    Raises:
        SpecError: when `bad` is not 0.
    """
    if bad:
        raise SpecError(errors.trend_nonpositive(channel, bad, total, method),
                        ("method",) if method else (), stage=STAGE,
                        hint=errors.trend_nonpositive_hint(channel, method))



def smoother_model(u, fitted, equation: str) -> Model:
    """Draw a smoother through its fitted values (mean over tied x)."""
    xs, inverse = np.unique(u, return_inverse=True)
    ys = np.bincount(inverse, weights=fitted) / np.bincount(inverse)
    return Model((), equation, lambda g: np.interp(g, xs, ys), None)



def count_distinct(values: np.ndarray) -> int:
    """How many distinct values, as ``len(np.unique(values))`` counts them (0.0 and -0.0 alike, NaNs as one).

    A set rather than `np.unique`: numpy 2.x imports `numpy.ma` on that
    function's first call, ~20 ms of a cold compile spent on masked arrays.
    """
    seen = set(values.tolist())
    nans = sum(1 for value in seen if value != value)
    return len(seen) - nans + (1 if nans else 0)


def is_number(value: Any) -> bool:
    """A finite real number, not a bool."""
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def is_whole(value: Any) -> bool:
    """A whole number (``2`` or ``2.0``), not a bool."""
    if isinstance(value, bool):
        return False
    return isinstance(value, Integral) or (is_number(value) and float(value).is_integer())

