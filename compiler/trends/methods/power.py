"""The ``pow`` trend: ``y = a·x^b``, by least squares of ln y on ln x."""

from __future__ import annotations

import math

from ..equations import number, wrap
from ..registry import LeastSquares, Options, Placeholder


class Pow(LeastSquares):
    """OLS of ln(y) on ln(x); x and y must be positive. R², RSE and the bands are those of the log-log fit."""

    name = "pow"
    description = ("`y = a·x^b`, by least squares of ln y on ln x (R² and the bands are that fit's); "
                   "x and y must be positive.")
    placeholders = (Placeholder("a", "the factor `a`"), Placeholder("b", "the exponent `b`"))
    logarithm_of = frozenset("xy")

    def model(self, ols, options: Options):
        import numpy as np

        from .. import numerics

        ln_a, b = ols.raw()
        a = math.exp(ln_a)
        exponent = number(b) if b >= 0 else f"({number(b)})"
        return numerics.ols_model(
            ols, np.log, np.exp, (("a", a), ("b", float(b))),
            f"{options.y_name} = {number(a)}·{wrap(options.x_name)}^{exponent}")
