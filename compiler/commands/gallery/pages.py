"""The gallery's pages: the index (a thumbnail per chart) and each chart's page, and the fits beside them.

A chart's page is the interactive chart (vega-embed, tooltips on), its spec
source beside it, the fitted trends as a table and download links. The pages
share one ``vega-bundle.js`` (Vega, Vega-Lite and vega-embed, ~0.9 MB) and
one stylesheet by relative path instead of embedding them each: still
offline, no CDN, and the gallery stays small in git. Every page's head is
`infra.html.page`'s. Pure functions of their input: the same chart gives
the same bytes.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from urllib.parse import quote

from ...errors import format_path
from ...infra.html import page
from ...infra.jsonout import html_safe_json
from ...infra.provenance import provenance
from ...render.export import paper_dpi, provenance_meta
from ..manifest import BUNDLE_NAME, STYLE_NAME, ChartRecord

PAGE_STYLE = """\
  body { font-family: system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
  a { color: #1f5fa8; }
  nav { margin-bottom: 8px; }
  h1 { margin: 0 0 4px; font-size: 1.5rem; }
  .downloads a { margin-right: 10px; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 20px; }
  figure { margin: 0; border: 1px solid #ddd; border-radius: 6px; padding: 12px; }
  figure img { width: 100%; height: 220px; object-fit: contain; }
  figcaption a { margin-right: 8px; }
  .chart-page { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
  .chart-page > section { min-width: 0; }
  .source { flex: 1 1 380px; }
  .source pre { background: #f6f8fa; border: 1px solid #ddd; border-radius: 6px; padding: 12px;
                overflow: auto; max-height: 80vh; font-size: 13px; line-height: 1.4; }
  #chart-error { color: #b00020; white-space: pre-wrap; }
  table.fits { border-collapse: collapse; margin-top: 8px; font-size: 14px; }
  table.fits th, table.fits td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; }
  table.fits td.num { text-align: right; font-variant-numeric: tabular-nums; }
"""


CHART_EMBED = """
  vegaEmbed("#chart", {spec}, {{"actions": false, "renderer": "svg"}})
    .catch(function (error) {{
      document.getElementById("chart-error").textContent = String(error);
      console.error(error);
    }});
"""


def output_stem(spec: Path) -> str:
    """The name a spec's outputs (and its page) share: ``specs/cars.yaml`` -> ``cars``."""
    return Path(spec).name.split(".")[0]


def index_entries(records: dict[str, ChartRecord]) -> list[tuple[str, str]]:
    """The index's ``(stem, title)`` pairs for a gallery's chart records, in display order (by spec path)."""
    return [(stem, record.title) for stem, record in sorted(records.items(), key=lambda i: (i[1].spec, i[0]))]


def index_page(entries) -> str:
    """The gallery's index: a thumbnail and title per chart, linking to its page.

    Args:
        entries: ``(stem, title)`` pairs in display order.

    Returns:
        The page's HTML (deterministic: the same entries give the same bytes).
    """
    figures = []
    for stem, title in entries:
        name, href = html.escape(stem, quote=True), _href(stem)
        links = " ".join(
            f'<a href="{href}.{fmt}">{label}</a>'
            for fmt, label in (("html", "chart page"), ("svg", "SVG"), ("png", "PNG"), ("vl.json", "Vega-Lite")))
        figures.append(
            f'<figure id="chart-{name}"><a href="{href}.html"><img src="{href}.png" loading="lazy" '
            f'alt="{html.escape(title, quote=True)}"></a>'
            f'<figcaption><a href="{href}.html"><strong>{html.escape(title)}</strong></a><br>{links}</figcaption>'
            "</figure>")
    count = f"{len(entries)} chart{'s' if len(entries) != 1 else ''}"
    body = f'<h1>chartc gallery</h1>\n<p>{count}</p>\n<div class="grid">\n' + "\n".join(figures) + "\n</div>\n"
    return page("chartc gallery", body, icon=True, stylesheets=(STYLE_NAME,))


def _href(stem: str) -> str:
    """A chart's name as a relative link: percent-encoded, so ``#``, ``?`` or ``%`` in it stay part of the path."""
    return html.escape(quote(stem, safe=""), quote=True)


def chart_page(compiled) -> str:
    """One chart's gallery page (its ``.html``).

    The interactive chart (vega-embed, tooltips on) beside its spec source,
    the fitted trends as a table, download links, and the chart's provenance
    as ``<meta>`` tags. Loads ``vega-bundle.js`` from the same folder.

    Args:
        compiled: from `pipeline.compile_spec`.

    Returns:
        The page's HTML; the spec's line endings are normalised, so a CRLF
        checkout gives the same bytes.
    """
    stem = output_stem(Path(compiled.document.file))
    title = compiled.chart.title or stem
    title = " ".join(title) if isinstance(title, (list, tuple)) else str(title)
    name = _href(stem)
    downloads = [(f"{name}.svg", "SVG"), (f"{name}.png", "PNG"), (f"{name}.vl.json", "Vega-Lite JSON")]
    if paper_dpi(compiled.vega_lite) is not None:  # a figure for paper: its PDF, at the figure's size
        downloads.insert(0, (f"{name}.pdf", "PDF"))
    if compiled.fits:
        downloads.append((f"{name}.fits.json", "fits JSON"))
    links = " ".join(f'<a href="{href}" download>{label}</a>' for href, label in downloads)
    body = (
        '<nav><a href="index.html">&larr; gallery</a></nav>\n'
        f"<h1>{html.escape(title)}</h1>\n"
        f'<p class="downloads">Download: {links}</p>\n'
        '<main class="chart-page">\n<section class="chart">\n<div id="chart"></div>\n<pre id="chart-error"></pre>\n'
        '</section>\n<section class="source">\n'
        f"<h2>Spec <code>{html.escape(Path(compiled.document.file).name)}</code></h2>\n"
        f"<pre><code>{html.escape(_spec_source(compiled.source), quote=False)}</code></pre>\n"
        "</section>\n</main>\n"
        f"{fits_table(compiled)}")
    return page(f"{title} - chartc gallery", body, icon=True, stylesheets=(STYLE_NAME,),
                meta=provenance_meta(provenance(compiled.vega_lite)), script_files=(BUNDLE_NAME,),
                scripts=(CHART_EMBED.format(spec=html_safe_json(with_hover_tooltips(compiled.vega_lite))),))


def fits_json(compiled) -> str:
    """The fitted trends of a chart as canonical JSON (for `--fits` and the gallery): `pipeline.fits_json`."""
    from ...pipeline import fits_json as trends_json  # the pipeline: only where charts are compiled

    return trends_json(compiled)


def with_hover_tooltips(vega_lite: dict) -> dict:
    """The chart as its page embeds it: every mark shows its data on hover.

    Only on the page (the .vl.json is untouched): a channel's own ``tooltip``
    encoding still wins, and so does a ``config.mark.tooltip`` the spec sets.
    """
    config = dict(vega_lite.get("config") or {})
    mark = dict(config.get("mark") or {})
    if "tooltip" in mark:
        return vega_lite
    mark["tooltip"] = {"content": "data"}
    config["mark"] = mark
    return {**vega_lite, "config": config}


def _spec_source(raw: bytes) -> str:
    """The spec as the page shows it: the bytes compiled (not the file as it is now), LF line ends, no BOM."""
    text = raw.decode("utf-8", errors="replace")
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


FITS_COLUMNS = (("layer", "Layer"), ("group", "Group"), ("method", "Method"), ("equation", "Equation"),
                ("r2", "R²"), ("adj_r2", "adj. R²"), ("rse", "RSE"), ("n", "n"))


def fits_table(compiled) -> str:
    """The fitted trends of a chart as an HTML table ('' when it has none)."""
    from ...trends.fitting import line_subset, trend_summary  # numpy: loaded already where charts are compiled

    rows = []
    for path, lines in compiled.fits.items():
        for line in lines:
            summary = {"layer": format_path(path), **trend_summary(line), "group": line_subset(line)}
            rows.append("<tr>" + "".join(_fits_cell(key, summary.get(key)) for key, _ in FITS_COLUMNS) + "</tr>")
    if not rows:
        return ""
    header = "".join(f"<th>{html.escape(label)}</th>" for _, label in FITS_COLUMNS)
    return (f'<section class="fits">\n<h2>Fitted trends</h2>\n<table class="fits">\n<thead><tr>{header}</tr></thead>\n'
            f"<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>\n</section>\n")


def _fits_cell(key: str, value) -> str:
    if value is None:
        return "<td>&ndash;</td>"
    if isinstance(value, float):
        return f'<td class="num">{value:.4g}</td>' if key != "r2" and key != "adj_r2" else f'<td class="num">{value:.4f}</td>'
    if isinstance(value, int) and not isinstance(value, bool):
        return f'<td class="num">{value}</td>'
    return f"<td>{html.escape(str(value))}</td>"
