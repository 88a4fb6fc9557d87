"""The ``quantile`` trend: linear quantile regression, ``y = intercept + slope·x`` at the ``quantile`` of y.

It minimises Σ ρ_q(residual) (the check loss: q·r above the line, (q − 1)·r
below) by statsmodels' `QuantReg` iteration (`trends.robust.fit_quantile`):
weighted least squares with weights 1/|r| (residuals floored at 1e-6),
until no coefficient moves by more than 1e-6, so its coefficients agree
with ``statsmodels.api.QuantReg(y, X).fit(q)`` to about that. No bands or
fit statistics. Fitted in memory, up to `registry.ITERATIVE_MAX_ROWS` rows per
group.
"""

from __future__ import annotations

from ..equations import terms
from ..registry import ITERATIVE_MAX_ROWS, STAGE, Options, Parameter, Placeholder, TrendMethod


class Quantile(TrendMethod):
    """Linear quantile regression (see the module docstring)."""

    name = "quantile"
    description = ("Linear quantile regression, `y = intercept + slope·x` through the `quantile` of y (0.5: the "
                   "median), as statsmodels' `QuantReg`; no bands.")
    parameters = (Parameter("quantile", {
        "type": "number", "description": "The quantile of y a `quantile` trend follows (0.5: the median).",
        "examples": [0.9, 0.5], "default": 0.5, "exclusiveMinimum": 0, "exclusiveMaximum": 1}),)
    placeholders = (Placeholder("slope", "the slope"), Placeholder("intercept", "the intercept"))
    has_band = False
    max_rows = ITERATIVE_MAX_ROWS

    def check(self, options: Options) -> None:
        from ... import errors
        from ...errors import SpecError
        from ..numerics import is_number

        q = options["quantile"]
        if not is_number(q) or not 0 < q < 1:
            raise SpecError(errors.trend_parameter_bound("quantile", q, "0 < quantile < 1"), ("quantile",),
                            stage=STAGE)

    def fit(self, u, v, options: Options):
        from .. import numerics, robust

        basis, beta = robust.fit_quantile(u, v, 1, float(options["quantile"]))
        ols = basis.ols(beta, len(u))
        b0, b1 = ols.raw()
        return numerics.Model((("intercept", float(b0)), ("slope", float(b1))),
                              f"{options.y_name} = {terms([(b0, ''), (b1, '·' + options.x_name)])}",
                              ols.predict, None)
