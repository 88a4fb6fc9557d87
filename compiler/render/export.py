"""Rendering: Vega-Lite -> the bytes of files people open: .vl.json, .svg, .png, .pdf, .html.

Only this module knows vl-convert. Rendering never touches the network
(`allowed_base_urls=[]`; data is always inlined) and runs in UTC so temporal
axes do not depend on the machine's time zone. Callers write the bytes with
`infra.files.write_atomic`: a reader sees the old file or the new one, never half.

Every export carries the chart's provenance (``usermeta.chartc``: chartc and
Vega-Lite versions, spec and data hashes; never a timestamp): inside the
Vega-Lite JSON, as an SVG ``<metadata>`` element, as a PNG ``tEXt`` chunk and
as ``<meta name="chartc:...">`` tags in HTML.

A chart drawn for paper (`infra.paper`: one Vega pixel is one point) says so
in ``usermeta.chartc_paper`` with its DPI: its SVG is sized in ``pt``, its PNG
rendered at that DPI (pixels = inches x DPI) with a ``pHYs`` chunk saying so;
its PDF's page is the figure's size already. The renderer knows chartc's own
font (`infra.fonts`) from the moment it starts.

This module imports vl-convert only when it renders (through `engine`), so
builds that render nothing never load it.
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import struct
import time
import zlib
from pathlib import Path

from ..infra.files import read_bounded, write_atomic
from ..infra.fonts import FONT_DIRECTORY
from ..infra.html import inline_script, page
from ..infra.jsonout import canonical_json, html_safe_json
from ..infra.paths import cache_dir  # the folder the data hash cache shares (`infra.datahash`)
from ..infra.provenance import PROVENANCE_KEY, provenance
from .pdf import canonical_pdf

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
    try:
        return RENDERERS[fmt](vega_lite)
    except ValueError as error:
        if "conversion failed" not in str(error):
            raise
        raise RenderRefused(renderer_reason(error)) from None


class RenderRefused(Exception):
    """Vega refused to draw a chart that Vega-Lite compiled (e.g. an unknown name in an expression).

    `stages.verify.render_refusal` turns it into a diagnostic on the spec file.
    """

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def renderer_reason(error: BaseException) -> str:
    """The first meaningful line of a vl-convert error, without the JavaScript stack."""
    lines = [line.strip() for line in str(error).splitlines()[1:]
             if line.strip() and not line.strip().startswith("at ")]
    reason = lines[0] if lines else str(error).splitlines()[0]
    return reason.removeprefix("Error: ")[:200]


@functools.cache
def use_utc() -> None:
    """Set the process time zone to UTC, before vl-convert's JavaScript engine starts.

    V8 reads the zone once, when it starts, and any vl-convert call starts it
    (`vl_convert.get_themes()` too), so the pipeline calls this before the
    translate stage. Dates are zone-free wall-clock times, which UTC shows as
    written: no shift across a daylight-saving change.
    """
    os.environ["TZ"] = "UTC"
    if hasattr(time, "tzset"):
        time.tzset()


# While `chartc compile` runs, vl-convert lives in a warm worker process (see
# `workers.engine_in_worker`): this is then its stand-in, whose calls go there.
_stand_in = None


def set_engine_stand_in(stand_in) -> None:
    """Render through `stand_in` instead of this process's vl-convert; None renders here again.

    `workers.engine_in_worker` sets an object whose vl-convert calls run in a
    warm worker process, so a renderer that aborts or hangs during `chartc
    compile` fails that call instead of ending chartc. A process forked from
    one with a stand-in clears it: its own renders run in it.

    Args:
        stand_in: an object with vl-convert's functions (`vegalite_to_svg`, ...), or None.
    """
    global _stand_in
    _stand_in = stand_in


def engine_stand_in():
    """The object `set_engine_stand_in` set, or None when vl-convert runs in this process."""
    return _stand_in


def engine():
    """vl-convert (or its stand-in), with the process set to UTC before its JavaScript engine starts.

    Every use of vl-convert goes through here (only this module knows it), so
    a worker can stand in for it.
    """
    if _stand_in is not None:
        return _stand_in
    return _local_engine()


@functools.cache
def _local_engine():
    use_utc()
    import vl_convert

    vl_convert.register_font_directory(str(FONT_DIRECTORY))  # "chartc Sans", for every render of this process
    return vl_convert


_font_folders: set[tuple[int, str]] = set()


def register_fonts(folder: str | os.PathLike) -> None:
    """Let the renderer draw with the fonts in `folder` (a spec's `font_directory`), once per engine.

    Registered with the engine that renders (the warm worker's, under a stand-in).
    """
    key = (id(engine()), os.fspath(folder))
    if key not in _font_folders:
        engine().register_font_directory(os.fspath(folder))
        _font_folders.add(key)


def engine_started() -> bool:
    """Whether this process has loaded vl-convert (and so may have started its engine)."""
    return _local_engine.cache_info().currsize > 0


def compile_to_vega(vega_lite: dict) -> dict:
    """A Vega-Lite chart compiled to Vega by vl-convert's engine, drawing nothing.

    The compile step of rendering alone: the verify stage runs it to find
    what Vega-Lite's compiler refuses (an expression that does not parse, a
    boxplot without a continuous axis) before anything is drawn. The first
    call starts the engine (~0.3 s); then a chart takes a few milliseconds.

    Args:
        vega_lite: the compiled chart (its rows may be left out).

    Returns:
        The Vega specification.

    Raises:
        ValueError: Vega-Lite's compiler refused the chart (`renderer_reason` says why).
    """
    return engine().vegalite_to_vega(vega_lite)


def _render_json(vega_lite: dict) -> bytes:
    return canonical_json(vega_lite).encode("utf-8")


def _render_svg(vega_lite: dict) -> bytes:
    svg = normalize_svg_ids(engine().vegalite_to_svg(vega_lite, allowed_base_urls=[]))
    if paper_dpi(vega_lite) is not None:
        svg = svg_size_unit(svg, "pt")
    return svg_with_provenance(svg, provenance(vega_lite)).encode("utf-8")


def _render_png(vega_lite: dict) -> bytes:
    dpi = paper_dpi(vega_lite)
    png = engine().vegalite_to_png(vega_lite, scale=_png_scale(dpi), allowed_base_urls=[])
    return png_with_provenance(png_with_dpi(png, dpi), provenance(vega_lite))


def paper_dpi(vega_lite: dict) -> int | None:
    """The DPI a chart drawn for paper is rendered at (``usermeta.chartc_paper.dpi``); None for a screen chart."""
    usermeta = vega_lite.get("usermeta")
    paper = usermeta.get(PAPER_KEY) if isinstance(usermeta, dict) else None
    dpi = paper.get("dpi") if isinstance(paper, dict) else None
    return dpi if isinstance(dpi, int) and not isinstance(dpi, bool) and dpi > 0 else None


PAPER_KEY = "chartc_paper"


def _png_scale(dpi: int | None) -> float:
    # One point is dpi/72 pixels. The rasteriser floors the size (in 32-bit floats): a hair more keeps 3.25in x 300
    # at 975 px.
    return PNG_SCALE if dpi is None else dpi / 72 * (1 + 1e-6)


SVG_SIZE = re.compile(r'(<svg\b[^>]*?\swidth=")([\d.]+)(?:pt)?("[^>]*?\sheight=")([\d.]+)(?:pt)?(")')


def svg_size_unit(svg: str, unit: str) -> str:
    """The SVG with its root ``width`` and ``height`` in `unit` (``pt``; ``""`` for none), its viewBox unchanged."""
    return SVG_SIZE.sub(lambda m: f"{m[1]}{m[2]}{unit}{m[3]}{m[4]}{unit}{m[5]}", svg, count=1)


def png_with_dpi(png: bytes, dpi: int | None) -> bytes:
    """The PNG with one ``pHYs`` chunk, after IHDR: `dpi` as pixels per metre (unchanged for None).

    The rasteriser writes a ``pHYs`` of its own (72 dpi whatever the scale): it is replaced.
    """
    if dpi is None or not png.startswith(b"\x89PNG\r\n\x1a\n"):
        return png
    chunks, offset = [], 8
    while offset + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        if kind != b"pHYs":
            chunks.append(png[offset:offset + 12 + length])
        offset += 12 + length
    per_metre = round(dpi / 0.0254)
    data = struct.pack(">IIB", per_metre, per_metre, 1)  # unit 1: the metre
    chunk = struct.pack(">I", len(data)) + b"pHYs" + data + struct.pack(">I", zlib.crc32(b"pHYs" + data))
    return png[:8] + chunks[0] + chunk + b"".join(chunks[1:])


def png_from_svg(svg: bytes, vega_lite: dict) -> bytes:
    """A chart's PNG from its SVG export (`render(vega_lite, "svg")`), without running Vega again.

    vl-convert makes a PNG by rendering the SVG and rasterising it; given the
    SVG, only the second half runs (~40% less time) and the bytes are the
    same as `render(vega_lite, "png")` (renumbered ids and the provenance
    element draw nothing), except for a chart of many marks: that is
    rasterised from `svg_for_raster` (the same look within 8/255 per channel,
    drawn faster).
    """
    dpi = paper_dpi(vega_lite)
    text = svg.decode("utf-8")
    if dpi is not None:  # the rasteriser reads pt as 4/3 px: back to the plain numbers the scale is for
        text = svg_size_unit(text, "")
    png = engine().svg_to_png(svg_for_raster(text), scale=_png_scale(dpi))
    return png_with_provenance(png_with_dpi(png, dpi), provenance(vega_lite))


# The rasteriser draws an element with `opacity` in a layer of its own and blends it back: ~15% of its time
# on a 10⁵-point scatter. A path that paints only its stroke (or only its fill) looks the same with that
# opacity on its one paint, drawn directly; the 8-bit layer rounds differently, by at most 8/255 per
# channel (tests/test_export.py). Only charts with this many such marks are rewritten: the gallery's
# (1,547 at most) rasterise exactly as before.
RASTER_REWRITE_MARKS = 5_000


def svg_for_raster(svg: str) -> str:
    """The SVG to rasterise: with many marks, each single-paint path's `opacity` moved onto its paint.

    Args:
        svg: the chart's SVG export (Vega's SVG renderer).

    Returns:
        The same SVG when it has fewer than `RASTER_REWRITE_MARKS` elements with an opacity, or does not
        start with Vega's unfilled root group; else the SVG with ``opacity`` as ``stroke-opacity`` on
        every path that strokes and does not fill (``fill-opacity`` on one that fills and does not
        stroke), unless it already has that attribute.
    """
    first = svg.find("<path ")
    if svg.count(' opacity="') < RASTER_REWRITE_MARKS or '<g fill="none"' not in svg[:first]:
        return svg
    # Split at each path rather than a pattern with a callback: ~0.2 s instead of ~0.7 s for 10⁵ marks
    parts = svg[first:].split("<path ")
    return svg[:first] + "<path ".join([parts[0], *map(_paint_opacity, parts[1:])])


def _paint_opacity(part: str) -> str:
    """One path's attributes and what follows it, its opacity moved onto its one paint."""
    # Vega writes one element per mark, its paints as attributes: `fill` on a filled mark, `stroke` on a
    # stroked one; an unfilled mark inherits the root group's fill="none".
    end = part.find(">")
    start = part.find(' opacity="', 0, end)
    if start < 0:
        return part
    attributes = " " + part[:end]
    fills = ' fill="' in attributes and ' fill="none"' not in attributes
    strokes = ' stroke="' in attributes and ' stroke="none"' not in attributes
    if fills == strokes:  # both paints (they overlap inside the layer) or none: as it was
        return part
    paint = " fill-opacity=" if fills else " stroke-opacity="
    if paint in attributes:
        return part
    return part[:start] + paint + part[start + len(" opacity="):]


# --------------------------------------------------------------- provenance

def _provenance_json(block: dict) -> str:
    return json.dumps(block, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def svg_with_provenance(svg: str, block: dict | None) -> str:
    """The SVG with ``<metadata id="chartc-provenance">JSON</metadata>`` first inside <svg>."""
    if not block:
        return svg
    start = svg.find("<svg")
    end = svg.find(">", start)
    if start < 0 or end < 0:
        return svg
    element = f'<metadata id="chartc-provenance">{html.escape(_provenance_json(block), quote=False)}</metadata>'
    return svg[:end + 1] + element + svg[end + 1:]


def png_with_provenance(png: bytes, block: dict | None) -> bytes:
    """The PNG with a ``tEXt`` chunk (keyword ``chartc``, JSON text) after IHDR."""
    if not block or not png.startswith(b"\x89PNG\r\n\x1a\n"):
        return png
    ihdr_end = 8 + 8 + struct.unpack(">I", png[8:12])[0] + 4  # signature, length+type, data, crc
    data = PROVENANCE_KEY.encode("latin-1") + b"\0" + _provenance_json(block).encode("latin-1")
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data + struct.pack(">I", zlib.crc32(b"tEXt" + data))
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def png_text_chunks(png: bytes) -> dict[str, str]:
    """keyword -> text of every ``tEXt`` chunk of a PNG (to read provenance back)."""
    chunks, offset = {}, 8
    while offset + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        if kind == b"tEXt":
            key, _, text = png[offset + 8:offset + 8 + length].partition(b"\0")
            chunks[key.decode("latin-1")] = text.decode("latin-1")
        offset += 12 + length
    return chunks


def _render_pdf(vega_lite: dict) -> bytes:
    # canonical_pdf: vl-convert's object order changes from process to process
    return canonical_pdf(engine().vegalite_to_pdf(vega_lite, allowed_base_urls=[]), provenance(vega_lite))


# No leading \b: a pattern that starts with one is tried at every position (0.5 s over the 15 MB SVG
# of 10⁵ points, against 0.1 s); the word boundary before the name is checked per match instead.
SVG_ID = re.compile(r"(clip|gradient_|pattern_|marker_)(\d+)\b")


def normalize_svg_ids(svg: str) -> str:
    """Renumber the ids vl-convert counts per process (clip7 -> clip1, ...).

    The same chart then gives the same SVG whether it is rendered alone or
    tenth in a batch.
    """
    numbers: dict[tuple[str, str], int] = {}

    def renumber(match: re.Match) -> str:
        before = svg[match.start() - 1] if match.start() else ""
        if before.isalnum() or before == "_":  # inside a longer name (`myclip1`): not an id vl-convert counts
            return match.group(0)
        key = (match.group(1), match.group(2))
        if key not in numbers:
            numbers[key] = sum(1 for k in numbers if k[0] == key[0]) + 1
        return f"{match.group(1)}{numbers[key]}"

    return SVG_ID.sub(renumber, svg)


# -------------------------------------------------------------------- cache

# What vl-convert makes the same way every time for one version of it, and
# slowly: the JavaScript bundle (~1.3 s, after ~0.45 s of engine start) and
# the themes (an engine start). Kept in chartc's cache folder, one file per
# vl-convert version, written atomically; when the folder cannot be written
# they are made again in every process (and kept in memory).
CACHE_FILES = {"bundle": "vega-bundle-{version}.js", "themes": "vega-themes-{version}.json"}
# What a cache file may weigh: the bundle is ~0.9 MB, the themes ~17 KB; a
# bigger file (or a FIFO, a device) is not chartc's and is not read.
CACHE_LIMITS = {"bundle": 8 * 1024 * 1024, "themes": 1024 * 1024}


@functools.cache
def renderer_version() -> str | None:
    """The installed vl-convert's version, read without importing it."""
    from importlib import metadata  # ~30 ms: only when the cache is looked up
    try:
        version = metadata.version("vl-convert-python")
    except metadata.PackageNotFoundError:
        return None
    return re.sub(r"[^A-Za-z0-9._+-]", "_", version)


def _cache_path(kind: str) -> Path | None:
    version = renderer_version()
    return cache_dir() / CACHE_FILES[kind].format(version=version) if version else None


def _read_cache(kind: str, valid) -> str | None:
    path = _cache_path(kind)
    if path is None:
        return None
    try:
        text = read_bounded(path, CACHE_LIMITS[kind]).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text if valid(text) else None


def _write_cache(kind: str, text: str) -> None:
    path = _cache_path(kind)
    if path is None:
        return
    try:
        write_atomic(path, text.encode("utf-8"))
    except OSError:  # a read-only home, a full disk: stay in memory
        pass


def _cached(kind: str, make, valid) -> str:
    text = _read_cache(kind, valid)
    if text is None:
        text = make()
        _write_cache(kind, text)
    return text


def _valid_bundle(text: str) -> bool:
    return len(text) > 100_000 and "vegaEmbed" in text


def _valid_themes(text: str) -> bool:
    try:
        themes = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(themes, dict) and all(isinstance(config, dict) for config in themes.values())


@functools.cache
def vega_themes() -> dict:
    """vl-convert's named themes (theme name -> Vega-Lite config), from the cache when there."""
    # Key order kept as vl-convert gives it: the config reaches the renderer as it did uncached.
    text = _cached("themes", lambda: json.dumps(engine().get_themes()), _valid_themes)
    return json.loads(text)


# --------------------------------------------------------------------- html

def _safe_bundle(bundle: str) -> str:
    return inline_script(bundle)


@functools.cache
def javascript_bundle() -> str:
    """Vega, Vega-Lite and vega-embed as one script, safe inside <script>.

    From chartc's cache folder when it is there (no engine started), else
    made by vl-convert and stored there.
    """
    return _safe_bundle(_cached("bundle", lambda: engine().javascript_bundle(), _valid_bundle))


def cached_javascript_bundle() -> str | None:
    """`javascript_bundle` if it can be had without starting vl-convert's engine, else None."""
    info = getattr(javascript_bundle, "cache_info", None)
    if info is not None and info().currsize:  # made in this process already
        return javascript_bundle()
    text = _read_cache("bundle", _valid_bundle)
    return None if text is None else _safe_bundle(text)


# The standalone page's own styles (its head is `infra.html.page`'s, like every page chartc writes).
HTML_STYLES = """\
  body { margin: 0; padding: 24px; font-family: system-ui, sans-serif; background: #fff; }
  #chart-error { color: #b00020; white-space: pre-wrap; }
"""
HTML_EMBED = """
  vegaEmbed("#chart", {spec}, {{"actions": false, "renderer": "svg"}})
    .catch(function (error) {{ document.getElementById("chart-error").textContent = String(error); }});
"""


def _render_html(vega_lite: dict) -> bytes:
    title = vega_lite.get("title", {})
    text = title.get("text") if isinstance(title, dict) else title
    body = '<div id="chart"></div>\n<pre id="chart-error"></pre>\n'
    return page(str(text) if text else "chart", body, styles=HTML_STYLES, meta=provenance_meta(provenance(vega_lite)),
                scripts=(javascript_bundle(), HTML_EMBED.format(spec=html_safe_json(vega_lite)))).encode("utf-8")


def provenance_meta(block: dict | None) -> dict[str, str]:
    """The provenance block as ``<meta>`` tags for `infra.html.page`: ``chartc:KEY`` -> value, keys sorted."""
    if not block:
        return {}
    return {f'chartc:{key.replace("_", "-")}': "" if value is None else str(value)
            for key, value in sorted(block.items())}


RENDERERS = {
    "vl.json": _render_json,
    "svg": _render_svg,
    "png": _render_png,
    "pdf": _render_pdf,
    "html": _render_html,
}
