"""chartc: declarative chart specs compiled to Vega-Lite through Altair.

    >>> import chartc
    >>> chart = chartc.load("specs/cars_scatter.yaml")          # or chartc.from_spec(yaml_or_dict, data=df)
    >>> chart.save("cars.svg")                                   # .vl.json .svg .png .pdf .html
    >>> chart.fits, chart.warnings, chart.to_altair()

In a notebook, ``%load_ext chartc`` adds the ``%%chartc`` cell magic. The
lower-level pipeline functions (`compile_spec`, `export_chart`, ...) stay
available (docs/api.md).
"""

from .errors import Location, SpecError, SpecWarning
from .version import __version__

# The pipeline (and the YAML and JSON Schema libraries it loads) is imported on
# first use, so `chartc schema` and `chartc --version` start without it, and
# `import chartc` imports no numpy, pandas, Altair or DuckDB.
PIPELINE_NAMES = ("Compiled", "check_spec", "compile_spec", "export_chart", "validate_spec")
API_NAMES = ("Chart", "Fit", "from_spec", "load")

__all__ = ["Location", "SpecError", "SpecWarning", "__version__", "load_ipython_extension", *API_NAMES,
           *PIPELINE_NAMES]


def __getattr__(name: str):
    if name in API_NAMES:
        from . import api

        return getattr(api, name)
    if name in PIPELINE_NAMES:
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'chartc' has no attribute {name!r}")


def load_ipython_extension(ipython) -> None:
    """``%load_ext chartc``: the ``%%chartc`` cell magic (`chartc.notebook`)."""
    from .notebook import load_ipython_extension as register

    register(ipython)
