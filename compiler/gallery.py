"""The gallery: every spec rendered to every format, plus an index page.

Built only on `pipeline`: a chart in the gallery is exactly what
`chartc compile` makes of the same spec.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SpecError

GALLERY_FORMATS = ("vl.json", "svg", "png", "html")


@dataclass
class BuildReport:
    """What a build did, as lines to print, and whether it failed."""

    lines: list[str] = field(default_factory=list)
    failed: bool = False


def fits_json(compiled) -> str:
    """The fitted trends of a chart as canonical JSON (for `--fits` and the gallery)."""
    from .errors import format_path
    from .trend import trend_summary

    layers = [
        {"layer": format_path(path), "fits": [trend_summary(line) for line in lines]}
        for path, lines in compiled.fits.items()
    ]
    return json.dumps({"trends": layers}, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def chart_outputs(compiled) -> dict[str, bytes]:
    """File name suffix -> content for one chart."""
    from .export import render

    outputs = {fmt: render(compiled.vega_lite, fmt) for fmt in GALLERY_FORMATS}
    if compiled.fits:
        outputs["fits.json"] = fits_json(compiled).encode("utf-8")
    return outputs


def build_gallery(specs: list[Path], out: Path, *, check: bool = False) -> BuildReport:
    """Render every spec into `out` with an index page.

    Args:
        specs: spec files, in the order they appear on the index.
        out: the gallery folder.
        check: write nothing; report outputs that differ from what would be written.

    Returns:
        A report; `failed` is set when a spec has errors or (with check) an output is stale.
    """
    from .export import write_atomic
    from .pipeline import compile_spec

    report = BuildReport()
    expected: dict[str, bytes] = {}
    entries = []
    for spec in specs:
        try:
            compiled = compile_spec(spec)
        except SpecError as error:
            report.failed = True
            report.lines.extend(problem.diagnostic() for problem in error.errors)
            continue
        stem = spec.name.split(".")[0]
        for suffix, content in chart_outputs(compiled).items():
            expected[f"{stem}.{suffix}"] = content
        entries.append((stem, compiled.spec.title or stem, spec))
    expected["index.html"] = index_page(entries).encode("utf-8")

    if check:
        for name, content in sorted(expected.items()):
            target = out / name
            if not target.exists():
                report.lines.append(f"{target}: missing")
                report.failed = True
            elif target.read_bytes() != content:
                report.lines.append(f"{target}: stale")
                report.failed = True
        if not report.failed:
            report.lines.append(f"{out}: {len(entries)} charts up to date")
        return report

    for name, content in sorted(expected.items()):
        target = out / name
        if not target.exists() or target.read_bytes() != content:
            write_atomic(target, content)
    report.lines.append(f"{out}: built {len(entries)} charts")
    return report


INDEX_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>chartc gallery</title>
<style>
  body {{ font-family: system-ui, sans-serif; margin: 24px; color: #222; }}
  .grid {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 20px; }}
  figure {{ margin: 0; border: 1px solid #ddd; border-radius: 6px; padding: 12px; }}
  figure img {{ width: 100%; height: 220px; object-fit: contain; }}
  figcaption a {{ margin-right: 8px; }}
</style>
</head>
<body>
<h1>chartc gallery</h1>
<div class="grid">
{figures}
</div>
</body>
</html>
"""


def index_page(entries) -> str:
    """The gallery's index: a thumbnail, title and links per chart."""
    figures = []
    for stem, title, spec in entries:
        name = html.escape(stem, quote=True)
        links = " ".join(
            f'<a href="{name}.{fmt}">{label}</a>'
            for fmt, label in (("html", "interactive"), ("svg", "SVG"), ("png", "PNG"), ("vl.json", "Vega-Lite")))
        figures.append(
            f'<figure><a href="{name}.html"><img src="{name}.png" alt="{html.escape(title, quote=True)}"></a>'
            f"<figcaption><strong>{html.escape(title)}</strong><br>{links}</figcaption></figure>")
    return INDEX_PAGE.format(figures="\n".join(figures))
