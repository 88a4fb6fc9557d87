"""Messages of rendering (render/): renderer processes that crash, hang or raise.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import code


@code("E751", hint="render_failed_hint")
def render_crashed(how: str) -> str:
    """The renderer crashed.

    The renderer's process died while rendering this chart (the signal says how); only this chart
    failed. Usually the chart is too large: aggregate or sample the data.
    """
    return f"the renderer crashed while rendering this chart ({how}); no output was written"


@code("E752", hint="render_timeout_hint")
def render_timed_out(seconds: float) -> str:
    """The render timed out.

    Rendering took longer than the timeout (`--timeout`, 180 s by default) and was stopped; only this
    chart failed. Usually too many marks, or a regular expression that backtracks without end.
    """
    return f"rendering this chart took longer than {seconds:g} s and was stopped; no output was written"


@code("E753", hint="render_failed_hint")
def render_raised(description: str) -> str:
    """The renderer raised an error.

    Rendering raised an error chartc did not expect: a bug in chartc. Please report it with the spec.
    """
    return f"internal error while rendering this chart: {description} (please report this as a chartc bug)"


def render_failed_hint() -> str:
    return "its previous outputs are kept; the other charts are built"


def render_timeout_hint() -> str:
    return "raise --timeout if the chart is just large; a regular expression in a filter can also hang the renderer"


@code("E754", hint="render_failed_hint")
def bundle_failed(reason: str) -> str:
    """The Vega bundle of the chart pages could not be made.

    `chartc build` makes one JavaScript bundle (vega-bundle.js) that every chart
    page loads offline; making it failed, so no chart page can be written. The
    reason says why; it is usually a crash of the renderer's process: build again.
    """
    return f"could not make the Vega bundle every chart page loads: {reason}"


@code("E755")
def pdf_not_reproducible(reason: str) -> str:
    """The PDF could not be written reproducibly.

    chartc writes every PDF again through qpdf so that the same chart gives the same bytes in any
    process. The renderer gave a PDF that qpdf could read only by repairing it, or not at all, so no
    PDF was written (a file that differs from build to build would be worse than none). The reason is
    qpdf's. The other formats (SVG, PNG, HTML) are not affected: export one of them, and report the
    spec as a chartc bug.
    """
    return f"the renderer's PDF could not be read to write it reproducibly ({reason}); no PDF was written"
