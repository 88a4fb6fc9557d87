"""The ``linear`` trend: ordinary least squares ``y = b0 + b1·x``."""

from __future__ import annotations

from ..equations import terms
from ..registry import ROBUST, WEIGHT, LeastSquares, Options, Placeholder


class Linear(LeastSquares):
    """OLS of y on x, with confidence and prediction bands."""

    name = "linear"
    description = "Ordinary least squares, `y = intercept + slope·x`."
    parameters = (WEIGHT, ROBUST)
    placeholders = (Placeholder("slope", "the slope"), Placeholder("intercept", "the intercept"))

    def model(self, ols, options: Options):
        from .. import numerics  # numpy: only once a chart is fitted

        b0, b1 = ols.raw()
        return numerics.ols_model(
            ols, numerics.identity, numerics.identity,
            (("intercept", float(b0)), ("slope", float(b1))),
            f"{options.y_name} = {terms([(b0, ''), (b1, '·' + options.x_name)])}")
