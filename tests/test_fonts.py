"""chartc's font: every glyph chartc writes is in it and drawn with it (no fallback), and text is measured in it."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ElementTree

import pypdf
import pytest
import vl_convert
from fontTools.ttLib import TTFont

from chartc.infra.fonts import EMITTED_GLYPHS, FAMILY, FONT_DIRECTORY, widths
from chartc.render.export import engine, render
from chartc.stages.translate.text import text_width
from chartc.stages.translate.vega import POW10_EXPR
from chartc.trends.equations import SUPERSCRIPTS, number

FONT_FILES = {"Regular": FONT_DIRECTORY / "chartcSans-Regular.ttf", "Bold": FONT_DIRECTORY / "chartcSans-Bold.ttf"}


def embedded_fonts(pdf: bytes) -> set[str]:
    """The fonts a PDF's pages use, without their subset tags."""
    names = set()
    for page in pypdf.PdfReader(io.BytesIO(pdf), strict=True).pages:
        names |= {str(font.get_object()["/BaseFont"]).split("+", 1)[-1] for font in page["/Resources"]["/Font"].values()}
    return names


def text_chart(text: str, font: str = FAMILY) -> dict:
    """A chart that draws `text` in every role: title (bold), axis title (bold), axis label, legend label, text mark."""
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "title": text, "config": {"font": font},
        "data": {"values": [{"x": 1, "t": text}]},
        "layer": [
            {"mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative", "title": text},
                                           "color": {"field": "t", "type": "nominal"}}},
            {"mark": "text", "encoding": {"x": {"field": "x", "type": "quantitative"},
                                          "text": {"field": "t", "type": "nominal"}}},
        ],
    }


def test_chartc_writes_only_glyphs_of_its_font():
    """What chartc writes itself (superscript exponents, minus, times, middle dot) is in the declared set."""
    written = {chr(code) for code in SUPERSCRIPTS.values()} | set(number(-1.5e-12) + number(3.25e21) + "·²")
    written |= {char for char in POW10_EXPR if ord(char) > 127}  # 10⁻³ axis labels
    assert written <= set(EMITTED_GLYPHS)


@pytest.mark.parametrize("style", sorted(FONT_FILES))
def test_every_glyph_chartc_emits_is_in_the_font(style):
    cmap = TTFont(FONT_FILES[style]).getBestCmap()
    assert [char for char in EMITTED_GLYPHS if ord(char) not in cmap] == []


@pytest.mark.parametrize("style", sorted(FONT_FILES))
def test_the_font_is_named_chartc_sans(style):
    names = TTFont(FONT_FILES[style])["name"]
    assert names.getDebugName(1) == FAMILY
    assert names.getDebugName(6) == f"chartcSans-{style}"


def test_every_glyph_is_drawn_in_chartc_sans_with_no_fallback():
    engine()  # the renderer, with chartc's fonts registered
    pdf = vl_convert.vegalite_to_pdf(text_chart(EMITTED_GLYPHS))
    assert embedded_fonts(pdf) == {"chartcSans-Regular", "chartcSans-Bold"}


def test_the_check_sees_a_fallback():
    """A letter the font does not have (Cyrillic Zhe) is drawn from another font, and the PDF shows it."""
    engine()
    assert ord("Ж") not in TTFont(FONT_FILES["Regular"]).getBestCmap()
    pdf = vl_convert.vegalite_to_pdf(text_chart("10⁻³ Ж"))
    assert embedded_fonts(pdf) - {"chartcSans-Regular", "chartcSans-Bold"}


def test_the_renderer_default_font_falls_back_for_the_superscript_minus():
    """Why chartc ships a font: the renderer's own sans-serif lacks ⁻ (it comes from another font)."""
    engine()
    pdf = vl_convert.vegalite_to_pdf(text_chart("10⁻³", font="sans-serif"))
    assert len(embedded_fonts(pdf)) > 2


@pytest.mark.parametrize("style", sorted(FONT_FILES))
def test_the_width_table_is_the_fonts_own(style):
    font = TTFont(FONT_FILES[style])
    per_em, metrics = font["head"].unitsPerEm, font["hmtx"].metrics
    table = widths(FAMILY, bold=style == "Bold")
    expected = {chr(code): round(metrics[glyph][0] * 1000 / per_em, 2) for code, glyph in font.getBestCmap().items()}
    assert table == expected
    assert json.loads((FONT_DIRECTORY / "widths.json").read_text())["family"] == FAMILY


def _legend_width(label: str) -> float:
    """The width Vega lays out for a one-entry legend of `label` at 100 px in chartc Sans (no symbol, no padding)."""
    spec = {"data": {"values": [{"c": label, "x": 1}]}, "mark": "point",
            "encoding": {"x": {"field": "x", "type": "quantitative"},
                         "color": {"field": "c", "type": "nominal", "legend": {"labelLimit": 0, "title": None}}},
            "config": {"font": FAMILY, "legend": {"labelFontSize": 100, "padding": 0, "symbolSize": 0,
                                                  "labelOffset": 0}}}
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("role") == "legend" and node.get("items"):
                found.append(node["items"][0]["width"])
            for key in ("items", "scenegraph"):
                walk(node.get(key))
        elif isinstance(node, list):
            for item in node:
                walk(item)

    engine()
    walk(vl_convert.vegalite_to_scenegraph(spec))
    return found[0]


@pytest.mark.parametrize("text", ["0123456789", "WWWW mmmm", "10⁻³ × α", "Trend (R²=0.626)", "y = 1.2×10⁻³·x²"])
def test_text_is_measured_in_the_font_that_draws_it(text):
    """chartc's estimate in chartc Sans is at least what Vega measures, and within 5% of it (Arial's would not be)."""
    measured = _legend_width(text) - _legend_width("")
    estimate = text_width(text, 100, FAMILY)
    assert measured <= estimate <= measured * 1.05


def test_the_same_chart_gives_the_same_pdf():
    chart = {**text_chart("10⁻³ × α"), "usermeta": {"chartc_paper": {"dpi": 300}}}
    assert render(chart, "pdf") == render(chart, "pdf")


SCREEN_SPEC = """\
title: Loss by learning rate
data:
  values:
    - {lr: 1, loss: 0.0008, run: a}
    - {lr: 2, loss: 0.004, run: b}
    - {lr: 3, loss: 0.03, run: a}
    - {lr: 4, loss: 0.2, run: b}
encoding:
  x: {field: lr, title: Learning rate}
  y: {field: loss, title: Loss, scale: {type: log, domain: [0.0001, 1]}, axis: {format: pow10}}
layers:
  - mark: point
    encoding: {color: {field: run}}
  - trend: {method: linear, label: "Fit (R²={r2:.2f})", annotate: {position: bottom-right, text: "α = 10⁻³, R² = {r2:.2f}"}}
"""


@pytest.mark.slow
def test_a_screen_chart_draws_every_text_in_chartc_sans(tmp_path):
    """No preset: 10⁻ⁿ tick labels, the title, the legend and the annotation all name chartc Sans alone."""
    from chartc import compile_spec, export_chart

    spec = tmp_path / "screen.yaml"
    spec.write_text(SCREEN_SPEC, encoding="utf-8")
    svg = export_chart(compile_spec(spec), tmp_path / "screen.svg").read_text(encoding="utf-8")
    root = ElementTree.fromstring(svg)
    texts = [element for element in root.iter("{http://www.w3.org/2000/svg}text")]
    drawn = {"".join(element.itertext()) for element in texts}
    assert {"10⁻³", "Loss by learning rate", "a"} <= drawn  # a pow10 tick label (a superscript minus), the title, a legend label
    assert any(text.startswith("α = 10⁻³, R² =") for text in drawn)  # the annotation
    assert {element.get("font-family") for element in texts} == {FAMILY}


@pytest.mark.slow
@pytest.mark.parametrize("extra, fonts", [
    ("config: {font: Georgia}\n", {"Georgia"}),  # the spec's font wins
    ("theme: googlecharts\n", {"Arial, sans-serif"}),  # so do a theme's (annotations take the legend's font)
])
def test_a_font_the_spec_or_its_theme_names_wins(tmp_path, extra, fonts):
    from chartc import compile_spec, export_chart

    spec = tmp_path / "screen.yaml"
    spec.write_text(extra + SCREEN_SPEC, encoding="utf-8")
    svg = export_chart(compile_spec(spec), tmp_path / "screen.svg").read_text(encoding="utf-8")
    assert {element.get("font-family") for element in ElementTree.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")} == fonts
