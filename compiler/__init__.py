"""chartc: declarative chart specs compiled to Vega-Lite through Altair.

    >>> from compiler import compile_spec, export_chart
    >>> chart = compile_spec("specs/cars_scatter.yaml")
    >>> export_chart(chart, "cars.svg")
"""

from .errors import Location, SpecError, SpecWarning
from .pipeline import Compiled, check_spec, compile_spec, export_chart

__version__ = "0.1.0"

__all__ = [
    "Compiled", "Location", "SpecError", "SpecWarning",
    "check_spec", "compile_spec", "export_chart", "__version__",
]
