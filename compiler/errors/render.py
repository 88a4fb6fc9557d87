"""Messages of rendering (render/): renderer processes that crash, hang or raise.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import code


@code("E751")
def render_crashed(how: str) -> str:
    """The renderer crashed."""
    return f"the renderer crashed while rendering this chart ({how}); no output was written"


@code("E752")
def render_timed_out(seconds: float) -> str:
    """The render timed out."""
    return f"rendering this chart took longer than {seconds:g} s and was stopped; no output was written"


@code("E753")
def render_raised(description: str) -> str:
    """The renderer raised an error."""
    return f"internal error while rendering this chart: {description} (please report this as a chartc bug)"


def render_failed_hint() -> str:
    return "its previous outputs are kept; the other charts are built"


def render_timeout_hint() -> str:
    return "raise --timeout if the chart is just large; a regular expression in a filter can also hang the renderer"


def bundle_failed(reason: str) -> str:
    return f"could not make the Vega bundle every chart page loads: {reason}"


def pdf_not_reproducible(reason: str) -> str:
    return f"the renderer's PDF could not be read to write it reproducibly ({reason}); no PDF was written"
