"""The ``logistic`` trend: a binomial GLM with the logit link, ``y = 1/(1 + e^−(intercept + slope·x))``.

y is an outcome, 0 or 1, or a proportion between them; the fit is maximum
likelihood by iteratively reweighted least squares (`trends.robust.fit_logistic`),
as ``statsmodels.api.GLM(y, X, family=Binomial()).fit()``. Its confidence
band is the Wald interval of the linear predictor, η ± z·se(η) with z the
normal quantile and se from (XᵀWX)⁻¹, mapped through the logistic function
(statsmodels' ``get_prediction().summary_frame()``); so it stays inside 0..1.
A prediction band of 0/1 outcomes means nothing and is refused. Fitted in
memory, up to `registry.ITERATIVE_MAX_ROWS` rows per group.
"""

from __future__ import annotations

from ... import errors
from ...errors import SpecError
from ..equations import terms
from ..registry import ITERATIVE_MAX_ROWS, STAGE, Options, Placeholder, TrendMethod


class Logistic(TrendMethod):
    """The binomial GLM with the logit link (see the module docstring)."""

    name = "logistic"
    description = ("Logistic regression (binomial GLM, logit link) of y, an outcome 0/1 or a proportion, on x: "
                   "`y = 1/(1 + e^−(intercept + slope·x))`, as statsmodels' `GLM(family=Binomial())`. `band` is "
                   "the Wald interval of the linear predictor (normal quantile), mapped back; no `prediction`.")
    placeholders = (Placeholder("slope", "the slope (log-odds per unit of x)"),
                    Placeholder("intercept", "the intercept (log-odds at x = 0)"))
    max_rows = ITERATIVE_MAX_ROWS

    def draws_band(self, options: Options, kind: str) -> bool:
        return kind == "confidence"

    def fit(self, u, v, options: Options):
        from statistics import NormalDist

        import numpy as np

        from .. import numerics, robust

        outside = int(np.count_nonzero((v < 0) | (v > 1)))
        if outside:
            raise SpecError(errors.trend_logistic_values(outside, len(v)), ("method",), stage=STAGE,
                            hint=errors.trend_logistic_values_hint())
        try:
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                basis, beta, weights = robust.fit_logistic(u, v, 1)
        except (FloatingPointError, np.linalg.LinAlgError):
            raise SpecError(errors.trend_not_converged(options.method), ("method",), stage=STAGE) from None
        ols = basis.ols(beta, len(u), weights)
        b0, b1 = ols.raw()

        def curve(at):
            return 1.0 / (1.0 + np.exp(-ols.predict(at)))

        def band(at, level, prediction):
            se = np.linalg.norm(numerics.forward_substitute(ols.r.T, ols.basis(at).T), axis=0)
            half = NormalDist().inv_cdf(0.5 + level / 2.0) * se
            eta = ols.predict(at)
            return 1.0 / (1.0 + np.exp(-(eta - half))), 1.0 / (1.0 + np.exp(-(eta + half)))

        linear = terms([(b0, ""), (b1, "·" + options.x_name)])
        return numerics.Model((("intercept", float(b0)), ("slope", float(b1))),
                              f"{options.y_name} = 1/(1 + e^−({linear}))", curve, band)
