"""Figures for paper: presets, physical sizes in every export, chartc's font embedded, the project's defaults."""

from __future__ import annotations

import io
import json
import os
import shutil
import struct
import subprocess
import textwrap
import zlib
from pathlib import Path

import pypdf
import pytest
import vl_convert

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.infra.fonts import FAMILY
from chartc.infra.paper import PRESETS, SCREEN_WIDTH, length_points, paper_layout
from chartc.pipeline import compile_spec, export_bytes
from chartc.render.export import png_from_svg
from conftest import compile_text, scene_nodes

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
GALLERY = ROOT / "gallery"
# The paper versions of the seed charts in the gallery, and the preset each is drawn with.
PAPER_CHARTS = {"seed_flops_neurips": "neurips-column", "seed_pretraining_icml": "icml-column"}


def pdf_fonts(pdf: bytes) -> dict[str, pypdf.generic.DictionaryObject]:
    """BaseFont name (subset tag dropped) -> its font descriptor, for every font the PDF's pages use."""
    fonts = {}
    for page in pypdf.PdfReader(io.BytesIO(pdf), strict=True).pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            fonts[str(font["/BaseFont"]).split("+", 1)[-1]] = descendant["/FontDescriptor"].get_object()
    return fonts


def page_size(pdf: bytes) -> tuple[float, float]:
    (page,) = pypdf.PdfReader(io.BytesIO(pdf), strict=True).pages
    return float(page.mediabox.width), float(page.mediabox.height)


# ------------------------------------------------------------------ lengths and presets

@pytest.mark.parametrize("written, points", [
    ("3.25in", 234.0), ("5.5in", 396.0), ("2.54cm", 72.0), ("25.4mm", 72.0), ("234pt", 234.0), (".5in", 36.0),
])
def test_lengths_in_points(written, points):
    assert length_points(written) == pytest.approx(points)


@pytest.mark.parametrize("written", [480, "480px", "container", None, "3.25 inches", "in"])
def test_screen_sizes_are_not_physical(written):
    assert length_points(written) is None


# The widths the venues' LaTeX style files set, in inches (docs/paper.md).
VENUE_WIDTHS = {
    "neurips-column": 5.5, "neurips-full": 5.5, "iclr-column": 5.5, "iclr-full": 5.5,
    "icml-column": 3.25, "icml-full": 6.75, "acl-column": 7.7 / 2.54, "acl-full": 16 / 2.54,
    "ieee-column": 3.5, "ieee-full": 7.16,
}


@pytest.mark.parametrize("name, inches", sorted(VENUE_WIDTHS.items()))
def test_a_venue_preset_is_its_column(name, inches):
    assert length_points(PRESETS[name].width) == pytest.approx(inches * 72)


def test_the_slide_is_sixteen_by_nine():
    preset = PRESETS["slide-16x9"]
    assert length_points(preset.width) / length_points(preset.height) == pytest.approx(16 / 9, rel=1e-3)


def test_a_unit_wins_over_the_preset_and_pixels_lose_to_it():
    assert paper_layout("icml-column", "3in", None).width == pytest.approx(216)
    assert paper_layout("icml-column", 480, 360).width == pytest.approx(234)  # the screen size gives way
    assert paper_layout(None, 480, 360) is None


# ------------------------------------------------------------------ what a preset draws

SCATTER = """\
    data:
      values: [{x: 1, y: 2, g: a}, {x: 2, y: 3, g: b}, {x: 3, y: 1, g: a}]
    encoding: {x: x, y: y}
    mark: {type: point, size: 120}
    {extra}
"""


def scatter(tmp_path, extra: str):
    return compile_text(tmp_path, textwrap.dedent(SCATTER).replace("{extra}", extra))


def test_a_preset_draws_the_whole_figure_at_its_width_in_its_font(tmp_path):
    compiled = scatter(tmp_path, "preset: icml-column\ntitle: Loss")
    graph = vl_convert.vegalite_to_scenegraph(compiled.vega_lite)
    assert (graph["width"], graph["height"]) == (234, pytest.approx(2.3 * 72))
    texts = scene_nodes(graph, "text")
    assert {item["font"] for node in texts for item in node["items"]} == {FAMILY}
    sizes = {node["role"]: {item["fontSize"] for item in node["items"]} for node in texts}
    preset = PRESETS["icml-column"]
    assert sizes == {"axis-label": {preset.label}, "axis-title": {preset.axis_title}, "title-text": {preset.title}}
    # the marks scaled to the figure: an area by the square of the width's ratio
    (points,) = scene_nodes(graph, "symbol")
    assert [item["size"] for item in points["items"]] == [pytest.approx(120 * (234 / SCREEN_WIDTH) ** 2, abs=1e-3)] * 3


def test_a_physical_width_alone_makes_a_paper_chart(tmp_path):
    compiled = scatter(tmp_path, "width: 8cm\nheight: 5cm")
    graph = vl_convert.vegalite_to_scenegraph(compiled.vega_lite)
    assert (graph["width"], graph["height"]) == (pytest.approx(8 / 2.54 * 72, abs=1e-3),
                                                 pytest.approx(5 / 2.54 * 72, abs=1e-3))
    assert compiled.vega_lite["usermeta"]["chartc_paper"] == {"dpi": 300}


def test_a_screen_chart_is_left_as_it_was(tmp_path):
    compiled = scatter(tmp_path, "width: 480px")
    assert compiled.vega_lite["width"] == 480
    assert "chartc_paper" not in compiled.vega_lite["usermeta"]
    assert "autosize" not in compiled.vega_lite


def test_the_spec_config_wins_over_the_preset(tmp_path):
    compiled = scatter(tmp_path, "preset: poster\nconfig: {axis: {labelFontSize: 30}}")
    graph = vl_convert.vegalite_to_scenegraph(compiled.vega_lite)
    labels = scene_nodes(graph, "text", role="axis-label")
    assert {item["fontSize"] for node in labels for item in node["items"]} == {30}
    titles = scene_nodes(graph, "text", role="axis-title")
    assert {item["fontSize"] for node in titles for item in node["items"]} == {PRESETS["poster"].axis_title}


# ------------------------------------------------------------------ the exports at their physical size

def test_every_export_has_the_physical_size(tmp_path):
    compiled = scatter(tmp_path, "preset: ieee-column")
    width_pt, height_pt = 3.5 * 72, 2.4 * 72
    pdf = export_bytes(compiled, "pdf")
    assert page_size(pdf) == (pytest.approx(width_pt), pytest.approx(height_pt))
    svg = export_bytes(compiled, "svg").decode()
    root = svg[:svg.index(">")]
    assert f'width="{width_pt:g}pt"' in root and f'height="{height_pt:g}pt"' in root
    assert f'viewBox="0 0 {width_pt:g} {height_pt:g}"' in root
    for png in (export_bytes(compiled, "png"), png_from_svg(svg.encode(), compiled.vega_lite)):
        assert struct.unpack(">II", png[16:24]) == (3.5 * 300, round(2.4 * 300))
        (resolution,) = [data for kind, data in png_chunks(png) if kind == b"pHYs"]  # the renderer's replaced
        assert struct.unpack(">IIB", resolution) == (round(300 / 0.0254), round(300 / 0.0254), 1)
        kinds = [kind for kind, _ in png_chunks(png)]
        assert kinds.index(b"pHYs") < kinds.index(b"IDAT")


def png_chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """(type, data) of every chunk, each one's CRC checked."""
    chunks, offset = [], 8
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        data = png[offset + 8:offset + 8 + length]
        assert struct.unpack(">I", png[offset + 8 + length:offset + 12 + length])[0] == zlib.crc32(kind + data)
        chunks.append((kind, data))
        offset += 12 + length
    return chunks


def test_a_screen_png_keeps_the_renderers_resolution(tmp_path):
    compiled = scatter(tmp_path, "width: 200")
    (resolution,) = [data for kind, data in png_chunks(export_bytes(compiled, "png")) if kind == b"pHYs"]
    assert struct.unpack(">IIB", resolution) == (2835, 2835, 1)  # 72 dpi, as vl-convert writes it


def test_the_pdf_is_vector_with_chartc_sans_embedded(tmp_path):
    compiled = scatter(tmp_path, "preset: acl-column\ntitle: Accuracy")
    pdf = export_bytes(compiled, "pdf")
    fonts = pdf_fonts(pdf)
    assert set(fonts) == {"chartcSans-Regular", "chartcSans-Bold"}
    assert all("/FontFile2" in descriptor for descriptor in fonts.values())  # the TrueType program is in the file
    reader = pypdf.PdfReader(io.BytesIO(pdf), strict=True)
    assert "/XObject" not in reader.pages[0]["/Resources"] or not any(
        x.get_object().get("/Subtype") == "/Image" for x in reader.pages[0]["/Resources"]["/XObject"].values())
    assert export_bytes(compiled, "pdf") == pdf  # the same bytes again


def test_pdffonts_reads_every_font_embedded(tmp_path):
    if shutil.which("pdffonts") is None:  # CI must have it: scripts/setup-test-env installs it
        (pytest.fail if os.environ.get("CI") else pytest.skip)("pdffonts is missing (apt-get install poppler-utils)")
    compiled = scatter(tmp_path, "preset: neurips-half\ntitle: Accuracy")
    path = tmp_path / "chart.pdf"
    path.write_bytes(export_bytes(compiled, "pdf"))
    lines = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout.splitlines()
    rows = [line.split() for line in lines[2:]]
    assert sorted(row[0].split("+")[1] for row in rows) == ["chartcSans-Bold", "chartcSans-Regular"]
    assert all(row[-5:-2] == ["yes", "yes", "yes"] for row in rows)  # embedded, subset, with a ToUnicode map


# ------------------------------------------------------------------ the gallery's paper versions of the seeds

@pytest.mark.parametrize("stem, preset", sorted(PAPER_CHARTS.items()))
def test_the_gallery_pdf_drops_into_latex_at_the_column_width(stem, preset):
    pdf = (GALLERY / f"{stem}.pdf").read_bytes()
    width, height = page_size(pdf)
    assert width == pytest.approx(length_points(PRESETS[preset].width))
    assert height == pytest.approx(length_points(PRESETS[preset].height))
    assert set(pdf_fonts(pdf)) == {"chartcSans-Regular", "chartcSans-Bold"}
    assert compile_spec(SPECS / f"{stem}.yaml").chart.preset == preset


# ------------------------------------------------------------------ the project's defaults and --preset

def project(tmp_path: Path, toml: str | None, spec_extra: str = "") -> Path:
    (tmp_path / ".git").mkdir()
    if toml is not None:
        (tmp_path / "chartc.toml").write_text(toml)
    spec = tmp_path / "specs" / "chart.yaml"
    spec.parent.mkdir()
    spec.write_text(textwrap.dedent(SCATTER).replace("{extra}", spec_extra))
    return spec


def test_the_project_file_sets_the_preset(tmp_path):
    spec = project(tmp_path, 'preset = "ieee-column"\n')
    assert compile_spec(spec).chart.preset == "ieee-column"


def test_the_spec_wins_over_the_project_and_the_command_over_both(tmp_path):
    spec = project(tmp_path, 'preset = "ieee-column"\n', "preset: poster")
    assert compile_spec(spec).chart.preset == "poster"
    assert compile_spec(spec, "acl-full").chart.preset == "acl-full"


def test_a_project_file_stops_at_the_git_root(tmp_path):
    (tmp_path / "chartc.toml").write_text('preset = "poster"\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    spec = project(repo, None)
    assert compile_spec(spec).chart.preset is None


def test_an_unknown_preset_in_the_project_file_is_placed_there(tmp_path):
    spec = project(tmp_path, '# the paper\npreset = "neurips-col"\n')
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    error = caught.value
    assert error.message == msg.unknown_preset("neurips-col", list(PRESETS))
    assert error.code == "E230"
    assert (error.location.file, error.location.line) == (str(tmp_path / "chartc.toml"), 2)
    assert error.hint == msg.did_you_mean("neurips-col", PRESETS)


@pytest.mark.parametrize("toml, reason", [
    ("preset = [1]\n", "preset must be a string"),
    ("colour = 'red'\n", msg.unknown_key("colour")),
])
def test_a_project_file_chartc_cannot_use(tmp_path, toml, reason):
    spec = project(tmp_path, toml)
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    assert caught.value.message == msg.project_file_invalid(reason)
    assert caught.value.code == "E231"


def test_the_cli_preset(tmp_path):
    from chartc.commands.cli import main

    spec = project(tmp_path, None)
    out = tmp_path / "chart.vl.json"
    assert main(["compile", str(spec), "--preset", "icml-full", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["width"] == 6.75 * 72
    with pytest.raises(SystemExit) as exited:
        main(["compile", str(spec), "--preset", "icml", "-o", str(out)])
    assert exited.value.code == 2


def test_docs_list_every_preset_with_its_size_and_text():
    table = {line.split("|")[1].strip().strip("`"): line for line in (ROOT / "docs" / "paper.md").read_text().splitlines()
             if line.startswith("| `")}
    assert set(table) == set(PRESETS)
    for name, preset in PRESETS.items():
        row = table[name]
        assert f"| {preset.width}" in row and f"× {preset.height} |" in row, row
        assert f"| {preset.title:g} / {preset.axis_title:g} / {preset.label:g} | {preset.dpi} |" in row, row


# ------------------------------------------------------------------ a paper's own font

def test_a_spec_draws_in_the_fonts_of_its_font_directory(tmp_path):
    from fontTools.ttLib import TTFont

    from chartc.infra.fonts import FONT_DIRECTORY

    fonts = tmp_path / "fonts"
    fonts.mkdir()
    face = TTFont(FONT_DIRECTORY / "chartcSans-Regular.ttf")
    for record in face["name"].names:  # the same outlines under a family no machine has
        if record.nameID in (1, 4, 16):
            face["name"].setName("Paper Test Face", record.nameID, record.platformID, record.platEncID,
                                 record.langID)
        elif record.nameID == 6:
            face["name"].setName("PaperTestFace-Regular", 6, record.platformID, record.platEncID, record.langID)
    face.save(fonts / "PaperTestFace-Regular.ttf")
    compiled = scatter(tmp_path, "preset: icml-column\nfont_directory: fonts\nconfig: {font: Paper Test Face}")
    assert set(pdf_fonts(export_bytes(compiled, "pdf"))) == {"PaperTestFace-Regular"}


@pytest.mark.parametrize("folder", ["no-such-folder", "../.."])
def test_a_font_directory_must_be_a_folder_in_the_project(tmp_path, folder):
    spec = project(tmp_path, None, f"font_directory: {folder}")
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    assert caught.value.message == msg.font_directory_missing(folder)
    assert (caught.value.code, caught.value.location.line) == ("E232", 5)  # the line that names it


def test_a_faceted_figure_shares_its_width_among_the_panels(tmp_path):
    """Vega-Lite cannot fit a facet: each panel gets its share, and the figure comes out about the preset's size."""
    compiled = compile_text(tmp_path, """\
        data: {dataset: iris}
        encoding: {x: petalLength, y: petalWidth}
        mark: point
        facet: {column: {field: species}}
        preset: icml-full
    """)
    width, height = page_size(export_bytes(compiled, "pdf"))
    assert width == pytest.approx(6.75 * 72, rel=0.15) and height == pytest.approx(2.8 * 72, rel=0.15)
    graph = vl_convert.vegalite_to_scenegraph(compiled.vega_lite)
    assert graph["width"] == pytest.approx(width)
