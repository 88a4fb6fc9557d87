"""Stage 6: Vega-Lite -> files people open: .vl.json, .svg, .png, .pdf, .html.

Only this module knows vl-convert. Rendering never touches the network
(`allowed_base_urls=[]`; data is always inlined) and runs in UTC so temporal
axes do not depend on the machine's time zone. Every file is written
atomically: a reader sees the old bytes or the new ones, never half a file.
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import tempfile
import time
from pathlib import Path

from .translate import canonical_json

PNG_SCALE = 2  # crisp on high-density screens and in papers

# Longest suffix first: "chart.vl.json" is Vega-Lite, not plain JSON.
SUFFIXES = (".vl.json", ".json", ".svg", ".png", ".pdf", ".html")


def export_format(path: str | os.PathLike) -> str | None:
    """The export format a file name asks for ("vl.json", "svg", ...), or None."""
    name = str(path).lower()
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return "vl.json" if suffix in (".vl.json", ".json") else suffix[1:]
    return None


def render(vega_lite: dict, fmt: str) -> bytes:
    """Render a Vega-Lite dict to the bytes of one export format.

    Args:
        vega_lite: the compiled chart.
        fmt: "vl.json", "svg", "png", "pdf" or "html".

    Returns:
        The file content.
    """
    return RENDERERS[fmt](vega_lite)


def write_atomic(path: str | os.PathLike, content: bytes) -> None:
    """Write `content` to `path` through a temporary file and a rename.

    A build killed half-way leaves the previous file intact; the temporary
    file (named ``.<name>.*.tmp``) is removed on failure.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


@functools.cache
def _engine():
    """vl-convert, with the process set to UTC before its JavaScript engine starts."""
    os.environ["TZ"] = "UTC"
    if hasattr(time, "tzset"):
        time.tzset()
    import vl_convert

    return vl_convert


def _render_json(vega_lite: dict) -> bytes:
    return canonical_json(vega_lite).encode("utf-8")


def _render_svg(vega_lite: dict) -> bytes:
    svg = _engine().vegalite_to_svg(vega_lite, allowed_base_urls=[])
    return normalize_svg_ids(svg).encode("utf-8")


def _render_png(vega_lite: dict) -> bytes:
    return _engine().vegalite_to_png(vega_lite, scale=PNG_SCALE, allowed_base_urls=[])


def _render_pdf(vega_lite: dict) -> bytes:
    return _engine().vegalite_to_pdf(vega_lite, allowed_base_urls=[])


SVG_ID = re.compile(r"\b(clip|gradient_|pattern_|marker_)(\d+)\b")


def normalize_svg_ids(svg: str) -> str:
    """Renumber the ids vl-convert counts per process (clip7 -> clip1, ...).

    The same chart then gives the same SVG whether it is rendered alone or
    tenth in a batch.
    """
    numbers: dict[tuple[str, str], int] = {}

    def renumber(match: re.Match) -> str:
        key = (match.group(1), match.group(2))
        if key not in numbers:
            numbers[key] = sum(1 for k in numbers if k[0] == key[0]) + 1
        return f"{match.group(1)}{numbers[key]}"

    return SVG_ID.sub(renumber, svg)


# --------------------------------------------------------------------- html

@functools.cache
def javascript_bundle() -> str:
    """Vega, Vega-Lite and vega-embed as one script, safe inside <script>."""
    bundle = _engine().javascript_bundle()
    return bundle.replace("</script", "<\\/script").replace("<!--", "<\\!--")


def html_safe_json(value) -> str:
    """JSON that cannot close a <script> element or start an HTML comment.

    `<`, `>` and `&` become \\u escapes (still the same JSON value), and so do
    U+2028/U+2029, which end a line in older JavaScript.
    """
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text


HTML_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
  body {{ margin: 0; padding: 24px; font-family: system-ui, sans-serif; background: #fff; }}
  #chart-error {{ color: #b00020; white-space: pre-wrap; }}
</style>
</head>
<body>
<div id="chart"></div>
<pre id="chart-error"></pre>
<script>{bundle}</script>
<script>
  vegaEmbed("#chart", {spec}, {{"actions": false, "renderer": "svg"}})
    .catch(function (error) {{ document.getElementById("chart-error").textContent = String(error); }});
</script>
</body>
</html>
"""


def _render_html(vega_lite: dict) -> bytes:
    title = vega_lite.get("title", {})
    text = title.get("text") if isinstance(title, dict) else title
    page = HTML_PAGE.format(
        title=html.escape(str(text) if text else "chart"),
        bundle=javascript_bundle(),
        spec=html_safe_json(vega_lite),
    )
    return page.encode("utf-8")


RENDERERS = {
    "vl.json": _render_json,
    "svg": _render_svg,
    "png": _render_png,
    "pdf": _render_pdf,
    "html": _render_html,
}
