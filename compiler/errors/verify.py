"""Messages of the verify stage (stages/verify.py): what the renderer would refuse.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import code


@code("E711")
def image_url(value: object) -> str:
    """An image from a URL.

    An image mark would load its picture from a URL. Charts are drawn offline and the same everywhere:
    draw the picture with marks.
    """
    return f"images are never fetched from a URL: {value!r}"


def image_url_hint() -> str:
    return "charts are drawn offline and the same on every machine; draw the picture with marks instead"


def integer_range_hint() -> str:
    return "use a number of at most 2⁵³ = 9007199254740992"


@code("E712")
def vega_lite_refused(reason: str) -> str:
    """Vega-Lite its compiler refuses.

    Vega-Lite's compiler refuses the chart: usually a `vega_lite:` override that contradicts what chartc
    wrote. The diagnostic points at the key that wrote it.
    """
    return f"Vega-Lite cannot compile this chart: {reason}"


@code("E713")
def render_limit(key: str, value: object, limit: int) -> str:
    """A value over the renderer's limit.

    A value in the Vega-Lite (often from a `vega_lite:` override) is over the limit beyond which the
    renderer runs out of memory or stalls.
    """
    return f"{key} {value!r} is over the limit of {limit:,}"


def render_limit_hint() -> str:
    return "the renderer hangs or runs out of memory on larger values"


@code("E714", hint="text_too_long_hint")
def render_text_too_long(key: str, length: int, limit: int) -> str:
    """Text over the renderer's limit.

    A text in the Vega-Lite is longer than the renderer handles in reasonable time.
    """
    return f"{key} of {length:,} characters is over the limit of {limit:,}"


@code("E715")
def too_many_bins(step: object, bins: float, limit: int) -> str:
    """A bin step making too many bins.

    The bin step is so small for the data's range that it would make more bins than the renderer can
    draw. Use a larger step or maxbins.
    """
    return f"bin step {step!r} makes {bins:,.0f} bins over the data, over the limit of {limit:,}"


@code("E716")
def bad_number_format(text: str) -> str:
    """A malformed number format.

    A d3 number format (axis `format`, text `format`) that d3 cannot parse; the renderer would stop at
    it.
    """
    return f"{text!r} is not a number format"


def bad_number_format_hint() -> str:
    return "use a d3-format string such as '.2f', ',d', '.0%' or '~s', or a preset: pow10, si, percent"


@code("E717")
def number_format_too_large(text: str, part: str, digits: str, limit: int) -> str:
    """A number format too large.

    A d3 number format asks for a width or precision over the limit, which would make the renderer build
    huge strings.
    """
    return f"number format {text!r} asks for a {part} of {digits}, over the limit of {limit}"


def number_format_too_large_hint(width: int, precision: int) -> str:
    return f"a d3-format width may be at most {width} and a precision at most {precision}, e.g. '>8.2f'"


@code("E718")
def render_refused(reason: str) -> str:
    """A chart the renderer refuses.

    The renderer refused the chart (usually a `vega_lite:` override or an expression it cannot compile).
    The diagnostic points at the spec key that wrote the refused part.
    """
    return f"the renderer refused this chart: {reason}"


def render_refused_hint() -> str:
    return ("check the expressions in filter and calculate: fields are written datum.NAME, "
            "text is quoted ('text')")


def render_refused_other_hint() -> str:
    return "values passed through 'config' and 'vega_lite' reach the renderer unchecked; check those first"
