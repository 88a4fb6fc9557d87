"""The ``log`` trend: ``y = a + b·ln(x)``, by least squares of y on ln x."""

from __future__ import annotations

from ..equations import terms
from ..registry import LeastSquares, Options, Placeholder


class Log(LeastSquares):
    """OLS of y on ln(x); x must be positive."""

    name = "log"
    description = "`y = a + b·ln(x)`, by least squares of y on ln x; x must be positive."
    placeholders = (Placeholder("a", "the constant `a`"), Placeholder("b", "the factor `b` of ln(x)"))
    logarithm_of = frozenset("x")

    def model(self, ols, options: Options):
        import numpy as np

        from .. import numerics

        a, b = ols.raw()
        return numerics.ols_model(
            ols, np.log, numerics.identity, (("a", float(a)), ("b", float(b))),
            f"{options.y_name} = {terms([(a, ''), (b, f'·ln({options.x_name})')])}")
