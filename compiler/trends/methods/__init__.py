"""The built-in trend methods, one class per file, registered as they are defined (see `trends.registry`).

Importing this package registers them, in the order schemas, hints and the
reference list them: linear, poly and quad, log, exp, pow, loess,
moving-average, ewm, expanding, logistic, quantile. A user's method is a `TrendMethod` subclass in a file of
their own, registered the same way.

A method's file imports no numpy at module level: the light ``chartc
validate`` registers every method to build its schema, and a `fit` imports
the numerics when it runs.

May import: `chartc.trends` (the registry, the numerics, the equations), `chartc.errors`, numpy.
"""

from ..registry import Options, Parameter, Placeholder, TrendMethod
from . import linear, poly, log, exp, power, loess, moving_average, ewm, expanding, logistic, quantile  # noqa: F401, I001  (registration order)

__all__ = ["Options", "Parameter", "Placeholder", "TrendMethod"]
