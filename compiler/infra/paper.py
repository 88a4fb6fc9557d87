"""Figures for paper: venue presets, physical lengths, and the size a physical chart is drawn at.

A chart is *physical* when it names a `preset` or writes a width or height
with a unit (``3.25in``, ``8cm``, ``40mm``, ``234pt``). It is then laid out
in points: one Vega pixel is one point (1/72 in), so the whole figure, axes
and legend included, is as wide as written (`\\columnwidth`, not the plot
alone) and font sizes are in points. The exports keep that size: the PDF's
page, the SVG's ``width``/``height`` in ``pt``, the PNG at the preset's DPI
with a ``pHYs`` chunk. A plain number (or ``px``) stays the screen size of
the plot area, as before.

A preset sets the figure's size, chartc's font (`infra.fonts`) at sizes
matching the venue's body text, line widths and marker sizes scaled to the
figure (`mark_scale`) and the PNG's DPI. The venues' numbers come from
their LaTeX style files (docs/paper.md lists them).

May import: the standard library and `infra.fonts`.

The project's defaults file, ``chartc.toml`` (`project_file`), can set a preset for every spec below it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .fonts import FAMILY

POINTS_PER = {"in": 72.0, "cm": 72 / 2.54, "mm": 72 / 25.4, "pt": 1.0}
LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*(in|cm|mm|pt|px)\s*$")
# What a screen chart's marks are drawn for: a chart about this wide (px) in all. A physical chart draws
# the sizes and widths a spec writes times its width over this (area-like sizes by the square).
SCREEN_WIDTH = 600.0


@dataclass(frozen=True, slots=True)
class Preset:
    """One venue's figure: size (in), body-text font sizes (pt), PNG resolution; `source` says where from."""

    width: str
    height: str
    title: float          # the chart's title
    axis_title: float     # axis and legend titles
    label: float          # tick labels, legend labels, text marks
    dpi: int
    source: str


PRESETS: dict[str, Preset] = {
    # Single column, \textwidth 5.5in, 10pt Times (neurips_2025.sty): \columnwidth is the text width.
    "neurips-column": Preset("5.5in", "3.4in", 10, 9, 8, 300, "neurips_2025.sty: \\textwidth 5.5in, 10pt"),
    "neurips-full": Preset("5.5in", "3.4in", 10, 9, 8, 300, "neurips_2025.sty: \\textwidth 5.5in, 10pt"),
    "neurips-half": Preset("2.7in", "2.1in", 9, 8, 7, 300, "neurips_2025.sty: two figures at 0.49\\textwidth"),
    "iclr-column": Preset("5.5in", "3.4in", 10, 9, 8, 300, "iclr2025_conference.sty: \\textwidth 5.5in, 10pt"),
    "iclr-full": Preset("5.5in", "3.4in", 10, 9, 8, 300, "iclr2025_conference.sty: \\textwidth 5.5in, 10pt"),
    # Two columns of 3.25in, 0.25in apart (\textwidth 6.75in), 10pt Times (icml2025.sty).
    "icml-column": Preset("3.25in", "2.3in", 9, 8, 7, 300, "icml2025.sty: \\columnwidth 3.25in, 10pt"),
    "icml-full": Preset("6.75in", "2.8in", 10, 9, 8, 300, "icml2025.sty: \\textwidth 6.75in, 10pt"),
    # \textwidth 16cm, \columnsep 0.6cm: columns of 7.7cm (3.03in), 11pt Times (acl.sty).
    "acl-column": Preset("7.7cm", "5.4cm", 10, 9, 8, 300, "acl.sty: \\columnwidth 7.7cm (3.03in), 11pt"),
    "acl-full": Preset("16cm", "6.5cm", 11, 10, 9, 300, "acl.sty: \\textwidth 16cm (6.3in), 11pt"),
    # IEEEtran, conference on letter paper: columns of 3.5in, \textwidth 7.16in, 10pt Times.
    "ieee-column": Preset("3.5in", "2.4in", 9, 8, 7, 300, "IEEEtran.cls: \\columnwidth 3.5in, 10pt"),
    "ieee-full": Preset("7.16in", "2.8in", 10, 9, 8, 300, "IEEEtran.cls: \\textwidth 7.16in, 10pt"),
    # A whole 16:9 slide (PowerPoint's widescreen page, 13.33in x 7.5in), text readable from the back.
    "slide-16x9": Preset("13.333in", "7.5in", 28, 22, 18, 150, "PowerPoint widescreen: 13.333in x 7.5in"),
    # A figure in an A0 poster's column (~10in), read from a metre or two.
    "poster": Preset("10in", "7in", 36, 28, 24, 300, "A0 poster column, ~10in wide"),
}


def length_points(value) -> float | None:
    """A physical length written with a unit (``3.25in``, ``8cm``, ``40mm``, ``234pt``) in points; else None.

    A plain number or a ``px`` length is a screen size, not a physical one: None.
    """
    match = LENGTH.match(value) if isinstance(value, str) else None
    if match is None or match.group(2) == "px":
        return None
    return float(match.group(1)) * POINTS_PER[match.group(2)]


def screen_pixels(value):
    """A screen size as the renderer takes it: ``480px`` is 480; a number, ``container`` or None unchanged."""
    match = LENGTH.match(value) if isinstance(value, str) else None
    if match is not None and match.group(2) == "px":
        return float(match.group(1))
    return value


@dataclass(frozen=True, slots=True)
class Paper:
    """How a physical chart is drawn: the whole figure's size in points (None: laid out freely), fonts, DPI."""

    width: float | None
    height: float | None
    preset: Preset | None
    dpi: int

    @property
    def mark_scale(self) -> float:
        """How much thinner (or thicker) lines are drawn than on a screen chart: the figure's width over 600 px."""
        return (self.width / SCREEN_WIDTH) if self.width else 1.0

    def config(self) -> dict:
        """The Vega-Lite config a preset gives (under the chart's own): chartc's font at the venue's sizes."""
        config: dict = {"font": FAMILY}
        if self.preset is not None:
            preset = self.preset
            config.update({
                "title": {"fontSize": preset.title, "subtitleFontSize": preset.label},
                "axis": {"labelFontSize": preset.label, "titleFontSize": preset.axis_title},
                "legend": {"labelFontSize": preset.label, "titleFontSize": preset.axis_title},
                "header": {"labelFontSize": preset.label, "titleFontSize": preset.axis_title},
                "text": {"fontSize": preset.label},
            })
        return config


# A physical chart without a preset: the resolution papers ask for.
DEFAULT_DPI = 300


def paper_layout(preset: str | None, width, height) -> Paper | None:
    """How a chart is drawn on paper, or None for a screen chart.

    Args:
        preset: the preset's name (`PRESETS`), or None.
        width, height: the chart's sizes as written; one with a unit wins over the preset's.

    Returns:
        The figure's size in points and its preset, or None when nothing is physical.
    """
    chosen = PRESETS.get(preset) if preset is not None else None
    width_pt, height_pt = length_points(width), length_points(height)
    if chosen is None and width_pt is None and height_pt is None:
        return None
    if chosen is not None:
        width_pt = width_pt if width_pt is not None else length_points(chosen.width)
        height_pt = height_pt if height_pt is not None else length_points(chosen.height)
    return Paper(width_pt, height_pt, chosen, chosen.dpi if chosen is not None else DEFAULT_DPI)


# The project's defaults (`preset = "neurips-column"`), read by `stages.validate.project_defaults`.
PROJECT_FILE = "chartc.toml"
# The engines a project file (``engine = "spark"``) or ``--engine`` may name: the embedded DuckDB, or Apache
# Spark (`stages.data.spark`), where the file's ``[spark]`` table says.
ENGINES = ("duckdb", "spark")


def project_file(spec: str | os.PathLike) -> Path | None:
    """The project's defaults file for a spec: the nearest ``chartc.toml`` from its folder up to the git work tree's root.

    Returns:
        Its path, or None when there is none.
    """
    folder = Path(spec).resolve().parent
    for candidate in (folder, *folder.parents):
        if (candidate / PROJECT_FILE).is_file():
            return candidate / PROJECT_FILE
        if (candidate / ".git").exists():  # the project's root: no further
            return None
    return None
