"""Iteratively reweighted fits: robust least squares (statsmodels' `RLM`), the binomial GLM and quantile regression.

Each is a weighted least-squares pass repeated with new weights until the
coefficients stop moving; none of them reduces to sums the engine could
compute once, so they run in numpy on the rows (up to
`registry.ITERATIVE_MAX_ROWS` per group). The basis is the least-squares
methods' own, powers of z = (w − mean)/spread with |z| ≤ 1, so a cubic
stays well conditioned.

- `fit_robust`: M-estimation with Huber's T (t = 1.345) or Tukey's biweight
  (c = 4.685), from the least-squares fit, the scale the residuals' MAD
  about 0 (median |r| / Φ⁻¹(¾)) re-estimated after every pass, as
  ``statsmodels.api.RLM(y, X, M).fit()`` (``scale_est="mad"``).
- `fit_logistic`: the binomial GLM with the logit link by Fisher scoring
  (IRLS), as ``statsmodels.api.GLM(y, X, family=Binomial()).fit()``.
- `fit_quantile`: quantile regression by statsmodels' `QuantReg` iteration
  (weights 1/|r|, residuals floored at 1e-6, until no coefficient moves by
  more than 1e-6).

May import: `chartc.errors`, `chartc.trends` (registry, numerics), numpy and the standard library.
"""

from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist

import numpy as np

from .numerics import Ols

# Huber's T and Tukey's biweight tuning constants: statsmodels' defaults (95% efficiency at the normal).
HUBER_T = 1.345
BISQUARE_C = 4.685
# The MAD's consistency constant: Φ⁻¹(¾), so that the MAD of normal residuals estimates σ.
MAD_NORMAL = NormalDist().inv_cdf(0.75)
ROBUST_MAX_ITERATIONS = 50
# A robust or logistic fit stops when no coefficient (in the centred basis) moves by more than this fraction of
# the largest one: far below statsmodels' own stopping rules, so the fit is the fixed point theirs approaches.
RELATIVE_TOLERANCE = 1e-12
LOGISTIC_MAX_ITERATIONS = 100
# statsmodels' QuantReg: its residual floor, step tolerance and iteration cap.
QUANTILE_FLOOR = 1e-6
QUANTILE_TOLERANCE = 1e-6
QUANTILE_MAX_ITERATIONS = 1000


def robust_weights(scaled: np.ndarray, norm: str) -> np.ndarray:
    """The IRLS weights ψ(r)/r of Huber's T or Tukey's biweight at residuals over the scale."""
    size = np.abs(scaled)
    if norm == "huber":
        with np.errstate(divide="ignore"):
            return np.where(size <= HUBER_T, 1.0, HUBER_T / size)
    return np.where(size <= BISQUARE_C, (1.0 - (scaled / BISQUARE_C) ** 2) ** 2, 0.0)


class Basis:
    """The polynomial basis 1, z, .., z^k of z = (w − centre)/scale, as `numerics.Ols` writes it."""

    def __init__(self, w: np.ndarray, degree: int):
        self.centre = float(np.mean(w))
        spread = max(float(w.max()) - self.centre, self.centre - float(w.min()))
        self.scale = spread if spread > 0 else 1.0
        self.matrix = np.vander((w - self.centre) / self.scale, degree + 1, increasing=True)

    def weighted_fit(self, t: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Weighted least squares of t on the basis: the coefficients."""
        root = np.sqrt(weights)
        return np.linalg.lstsq(self.matrix * root[:, None], t * root, rcond=None)[0]

    def ols(self, beta: np.ndarray, n: int, weights: np.ndarray | None = None) -> Ols:
        """An `Ols` holding the coefficients (its R and sums of squares those of the final weighted pass)."""
        root = np.ones(n) if weights is None else np.sqrt(weights)
        r = np.linalg.qr(self.matrix * root[:, None], mode="r")
        r = r * np.sign(np.diag(r))[:, None]   # a positive diagonal, as a Cholesky factor has
        return Ols(self.centre, self.scale, beta, r, n, math.nan, math.nan)


def _converged(beta: np.ndarray, previous: np.ndarray) -> bool:
    return bool(np.max(np.abs(beta - previous)) <= RELATIVE_TOLERANCE * max(np.max(np.abs(beta)), 1e-300))


def fit_robust(w: np.ndarray, t: np.ndarray, degree: int, norm: str) -> tuple[Basis, np.ndarray]:
    """M-estimation of t on the polynomial basis in w (see the module docstring).

    Returns:
        The basis and the coefficients in it.
    """
    basis = Basis(w, degree)
    beta = basis.weighted_fit(t, np.ones(len(t)))
    for _ in range(ROBUST_MAX_ITERATIONS):
        resid = t - basis.matrix @ beta
        scale = float(np.median(np.abs(resid))) / MAD_NORMAL
        if scale == 0.0:   # more than half the points on the curve: it is the fit
            break
        previous, beta = beta, basis.weighted_fit(t, robust_weights(resid / scale, norm))
        if _converged(beta, previous):
            break
    return basis, beta


def fit_logistic(w: np.ndarray, t: np.ndarray, degree: int) -> tuple[Basis, np.ndarray, np.ndarray]:
    """The binomial GLM of t (0..1) on the basis in w, logit link, by IRLS from μ = (t + ½)/2 (statsmodels' start).

    Returns:
        The basis, the coefficients and the final IRLS weights μ(1 − μ) (for the covariance (XᵀWX)⁻¹).

    Raises:
        FloatingPointError: the fit does not converge (the classes are separated: the slope grows without bound).
    """
    basis = Basis(w, degree)
    mu = (t + 0.5) / 2.0
    eta = np.log(mu / (1.0 - mu))
    beta = None
    for _ in range(LOGISTIC_MAX_ITERATIONS):
        weights = mu * (1.0 - mu)
        previous, beta = beta, basis.weighted_fit(eta + (t - mu) / weights, weights)
        eta = basis.matrix @ beta
        mu = 1.0 / (1.0 + np.exp(-eta))
        if previous is not None and _converged(beta, previous):
            return basis, beta, mu * (1.0 - mu)
    raise FloatingPointError("the logistic fit does not converge")


def fit_quantile(w: np.ndarray, t: np.ndarray, degree: int, q: float) -> tuple[Basis, np.ndarray]:
    """Quantile regression of t on the basis in w at quantile q, by statsmodels' QuantReg iteration.

    Returns:
        The basis and the coefficients in it.
    """
    basis = Basis(w, degree)
    x = basis.matrix
    beta = np.ones(x.shape[1])
    weights = np.ones(len(t))
    for _ in range(QUANTILE_MAX_ITERATIONS):
        previous = beta
        beta = np.linalg.solve((x * weights[:, None]).T @ x, (x * weights[:, None]).T @ t)
        resid = t - x @ beta
        small = np.abs(resid) < QUANTILE_FLOOR
        resid[small] = np.where(resid[small] >= 0, 1.0, -1.0) * QUANTILE_FLOOR
        weights = 1.0 / np.abs(np.where(resid < 0, q * resid, (1.0 - q) * resid))
        if np.max(np.abs(beta - previous)) <= QUANTILE_TOLERANCE:
            break
    return basis, beta


def without_statistics(model):
    """A `numerics.Model` without the least-squares band and statistics (they do not hold for these fits)."""
    return dataclasses.replace(model, band=None, r2=None, adj_r2=None, rse=None, statistics=())
