"""The ``exp`` trend: ``y = a·e^(b·x)``, by least squares of ln y on x."""

from __future__ import annotations

import math

from ..equations import number
from ..registry import LeastSquares, Options, Placeholder


class Exp(LeastSquares):
    """OLS of ln(y) on x; y must be positive. R², RSE and the bands are those of the ln y fit."""

    name = "exp"
    description = ("`y = a·e^(b·x)`, by least squares of ln y on x (R² and the bands are that fit's); "
                   "y must be positive.")
    placeholders = (Placeholder("a", "the factor `a`"), Placeholder("b", "the rate `b`"))
    logarithm_of = frozenset("y")

    def model(self, ols, options: Options):
        import numpy as np

        from .. import numerics

        ln_a, b = ols.raw()
        a = math.exp(ln_a)
        return numerics.ols_model(
            ols, numerics.identity, np.exp, (("a", a), ("b", float(b))),
            f"{options.y_name} = {number(a)}·e^({number(b)}·{options.x_name})")
