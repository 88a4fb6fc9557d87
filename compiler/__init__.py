"""chartc: declarative chart specs compiled to Vega-Lite through Altair.

    >>> from chartc import compile_spec, export_chart
    >>> chart = compile_spec("specs/cars_scatter.yaml")
    >>> export_chart(chart, "cars.svg")
"""

from .errors import Location, SpecError, SpecWarning
from .version import __version__

# The pipeline (and the YAML and JSON Schema libraries it loads) is imported on
# first use, so `chartc schema` and `chartc --version` start without it.
PIPELINE_NAMES = ("Compiled", "check_spec", "compile_spec", "export_chart", "validate_spec")

__all__ = ["Location", "SpecError", "SpecWarning", "__version__", *PIPELINE_NAMES]


def __getattr__(name: str):
    if name in PIPELINE_NAMES:
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'chartc' has no attribute {name!r}")
