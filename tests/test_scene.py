"""The scene check: what Vega drew (the chart's SVG, read back as its scenegraph), against the spec.

Each chart below really draws wrongly (the tests count what Vega drew in
its own scenegraph, `vl_convert.vegalite_to_scenegraph`), and the check
reports it with its message, code, spec path and file position; every
example spec and seed draws what it declares, and the SVG read back holds
what Vega's scenegraph holds. `--strict` makes the warnings errors for
`chartc compile` and `chartc build`.
"""

from __future__ import annotations

import functools
import re
import textwrap

import pytest
from fontTools.ttLib import TTFont

from chartc import errors as msg
from chartc.commands import cli
from chartc.errors import SpecError, SpecWarning
from chartc.pipeline import check_drawn, compile_spec, export_bytes, export_checked
from chartc.infra.fonts import FAMILY, FONT_DIRECTORY
from chartc.stages.scene import Box, check_scene, read_scene, scene_from_svg, text_box, vega_lite_path
from chartc.stages.translate.text import drawn_width

from conftest import example_specs

vl_convert = pytest.importorskip("vl_convert")


def write(tmp_path, text: str, name: str = "chart.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def drawn(tmp_path, text: str):
    """The compiled chart of a spec text, its scene warnings, and Vega's scenegraph of it."""
    compiled = compile_spec(write(tmp_path, text))
    return compiled, check_drawn(compiled), vl_convert.vegalite_to_scenegraph(compiled.vega_lite)


def marks(scenegraph, **wanted) -> list[dict]:
    """Every mark node whose keys have the wanted values, in drawing order."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if "marktype" in node and all(node.get(key) == value for key, value in wanted.items()):
                found.append(node)
            for child in node.get("items") or []:
                walk(child)

    walk(scenegraph["scenegraph"])
    return found


def where(warning) -> tuple:
    return warning.code, warning.path, (warning.location.line, warning.location.column), warning.stage


# ---------------------------------------------------------------- a layer draws fewer marks than its rows

def test_a_layer_of_empty_values_draws_nothing_and_is_reported_at_its_field(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: null}, {a: 2, b: null}, {a: 3, b: null}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
        """)
    assert sum(len(mark["items"]) for mark in marks(scene, role="mark")) == 0  # a blank chart, exit 0
    assert [w.message for w in warnings] == [msg.layer_drew_fewer(0, 3)]
    assert isinstance(warnings[0], SpecWarning) and warnings[0].hint == msg.layer_drew_fewer_hint()
    assert where(warnings[0]) == ("W760", ("encoding", "y", "field"), (6, 14), "scene")


def test_text_on_a_quantitative_axis_is_a_row_not_drawn(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2}, {a: 2, b: "n/a"}, {a: 3, b: 4}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
        """)
    (symbols,) = marks(scene, role="mark", marktype="symbol")
    assert len(symbols["items"]) == 2
    assert [(w.message, *where(w)) for w in warnings] == [
        (msg.layer_drew_fewer(2, 3), "W760", ("encoding", "y", "field"), (6, 14), "scene")]


def test_rows_without_a_value_are_left_out_as_vega_lite_documents(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2}, {a: 2, b: null}, {a: 3, b: 4}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
        """)
    assert len(marks(scene, role="mark", marktype="symbol")[0]["items"]) == 2 and warnings == []
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2, s: 3}, {a: 2, b: 3, s: null}, {a: 3, b: 4, s: 5}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
          size: {field: s, type: quantitative}
        """)
    assert len(marks(scene, role="mark", marktype="symbol")[0]["items"]) == 2 and warnings == []  # any channel


# ---------------------------------------------------------------- a trend over nothing

def test_a_trend_over_a_layer_that_drew_nothing(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2}, {a: 2, b: 3}, {a: 3, b: 5}, {a: 4, b: 4}]
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
        layers:
          - mark: point
            transform:
              - filter: "datum.a > 10"
          - trend: {method: linear}
        """)
    assert marks(scene, role="mark", marktype="symbol")[0]["items"] == []
    assert len(marks(scene, role="mark", marktype="line")[0]["items"]) > 2  # the fit is drawn all the same
    assert [(w.message, w.hint, *where(w)) for w in warnings] == [
        (msg.trend_over_nothing("layers[0]"), msg.trend_over_nothing_hint(), "W761", ("layers", 1, "trend"),
         (10, 5), "scene")]


# ---------------------------------------------------------------- an empty facet panel

def test_a_chart_filter_reaches_the_facet_so_no_panel_is_left_empty(tmp_path):
    # A panel holding several views used to keep a panel for the filtered-out species, drawn empty (the
    # scene check's W762). The chart's filter now reaches the facet: two panels, each drawn, no warning.
    compiled, warnings, scene = drawn(tmp_path, """\
        data: {dataset: iris}
        transform:
          - filter: "datum.species != 'setosa'"
        encoding:
          x: {field: petalLength}
          y: {field: petalWidth}
        layers:
          - mark: point
          - mark: {type: point, shape: square, size: 4}
        facet:
          column: {field: species}
        """)
    (cells,) = [node["items"] for node in marks(scene, marktype="group", name="cell")]
    assert [sum(len(mark["items"]) for mark in cell["items"] if mark.get("role") == "mark") for cell in cells] \
        == [100, 100]
    assert warnings == []


def test_an_empty_panel_of_a_grid_is_named_by_its_row_and_column(tmp_path):
    compiled, warnings, _ = drawn(tmp_path, """\
        data:
          values: [{r: 1, c: a, x: 1, y: 2}, {r: 1, c: b, x: 2, y: 3}, {r: 2, c: a, x: 1, y: 3}]
        mark: point
        encoding:
          x: {field: x, type: quantitative}
          y: {field: y, type: quantitative}
        facet:
          row: {field: r}
          column: {field: c}
        """)
    assert [w.message for w in warnings] == [msg.facet_panel_empty("'r=2, c=b'", 4)]


# ---------------------------------------------------------------- axes

def test_an_axis_whose_labels_are_blanked(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2}, {a: 2, b: 3}, {a: 30, b: 4}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
        vega_lite:
          encoding:
            x: {axis: {labelExpr: "datum.value == 0 ? datum.label : ''"}}
        """)
    labels = [item["text"] for mark in marks(scene, role="axis-label") for item in mark["items"]]
    x_labels = labels[:7]
    assert x_labels == ["0", "", "", "", "", "", ""]
    assert [(w.message, w.hint, *where(w)) for w in warnings] == [
        (msg.axis_labels_blank("x", 1, 7), msg.axis_labels_blank_hint(), "W763",
         ("vega_lite", "encoding", "x", "axis"), (9, 15), "scene")]


def test_axis_labels_forced_to_overlap(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2}, {a: 2, b: 3}, {a: 30, b: 4}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
        vega_lite:
          encoding:
            x: {axis: {labelFontSize: 60, labelOverlap: false}}
        """)
    x_labels = marks(scene, role="axis-label")[0]["items"]
    ten, fifteen = x_labels[2], x_labels[3]
    assert (ten["text"], fifteen["text"], fifteen["x"] - ten["x"], ten["fontSize"]) == ("10", "15", 50, 60)
    # Two digits at 60 px are wider than the 50 px between the ticks, in any sans-serif font; in chartc Sans
    # (0.636 em a digit) the first label, flush with the axis's start, already runs 7 px into the second.
    zero, five = x_labels[:2]
    assert (zero["text"], five["text"], zero["align"], five["x"] - zero["x"]) == ("0", "5", "left", 50)
    assert [(w.message, w.hint, *where(w)) for w in warnings] == [
        (msg.axis_labels_overlap("x", "0", "5"), msg.axis_labels_overlap_hint(), "W764",
         ("vega_lite", "encoding", "x", "axis"), (9, 15), "scene")]


def test_labels_vega_hides_itself_are_no_overlap(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2}, {a: 2, b: 3}, {a: 30, b: 4}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
        vega_lite:
          encoding:
            x: {axis: {labelFontSize: 60}}
        """)
    opacities = [item.get("opacity") for item in marks(scene, role="axis-label")[0]["items"]]
    assert 0 in opacities and warnings == []  # labelOverlap (the default) hid some: the rest are readable


LONG_NAMES = """\
data:
  values:
    - {k: "a fairly long category name one", v: 3}
    - {k: "a fairly long category name two", v: 4}
    - {k: "a fairly long category name three", v: 5}
width: 200
mark: bar
encoding:
  x: {field: k, type: nominal, axis: {labelAngle: ANGLE}}
  y: {field: v, type: quantitative}
"""


def test_long_category_labels_side_by_side_overlap_and_slanted_ones_do_not(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, LONG_NAMES.replace("ANGLE", "0"))
    one, three = marks(scene, role="axis-label")[0]["items"][:2]
    # 67 px apart, centred, and each over 120 px wide (0.4 em a character is narrow for any sans-serif font)
    assert three["x"] - one["x"] < len(one["text"]) * one["fontSize"] * 0.4
    assert [(w.message, *where(w)) for w in warnings] == [
        (msg.axis_labels_overlap("x", one["text"], three["text"]), "W764", ("encoding", "x", "axis"), (9, 38),
         "scene")]
    assert drawn(tmp_path, LONG_NAMES.replace("ANGLE", "-45"))[1] == []


# ---------------------------------------------------------------- text

def test_a_legend_label_cut_by_its_limit(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2, k: "a rather long category name"}, {a: 2, b: 3, k: "short"}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
          color: {field: k}
        config:
          legend: {labelLimit: 40}
        """)
    svg = vl_convert.vegalite_to_svg(compiled.vega_lite)
    shown = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "a rather long category name" not in shown and "a rath…" in shown  # Vega cut it with an ellipsis
    assert [(w.message, w.hint, *where(w)) for w in warnings] == [
        (msg.text_truncated("a rath…"), msg.text_truncated_hint(), "W765",
         ("config", "legend", "labelLimit"), (9, 12), "scene")]


def test_an_annotation_that_leaves_the_plot(tmp_path):
    # The translator wraps an annotation to the plot's width; in a plot too short for its lines,
    # the stack still runs past the top edge.
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2}, {a: 2, b: 3}, {a: 3, b: 5}, {a: 4, b: 4}]
        width: 120
        height: 30
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
        layers:
          - mark: point
          - trend:
              method: linear
              annotate: {position: bottom-right, text: "a long note: {equation}, R² = {r2:.3f}, and more words"}
        """)
    (note,) = [item for mark in marks(scene, role="mark", marktype="text") for item in mark["items"]]
    lines = "\n".join(note["text"] if isinstance(note["text"], list) else [note["text"]]).split("\n")
    assert len(lines) * note["fontSize"] > 30  # taller than the plot
    assert [(w.message, w.hint, *where(w)) for w in warnings] == [
        (msg.text_outside_view(" ".join(lines), "top"), msg.text_outside_view_hint(), "W766",
         ("layers", 1, "trend", "annotate"), (12, 7), "scene")]


WRAPPED_NOTE = """\
    data: {dataset: cars}
    width: 200
    height: HEIGHT
    encoding:
      x: {field: Horsepower, type: quantitative}
      y: {field: Weight_in_lbs, type: quantitative}
    FACET
    layers:
      - mark: point
      - trend:
          method: linear
          annotate: {position: top-left, text: '{equation}  R²={r2}  p={p}  AIC={aic}'}
    """


def _svg_notes(svg: str) -> list[tuple[float, float, int, float]]:
    """Per trend annotation in an SVG: its first baseline's y, font size, line count and line height."""
    notes = re.findall(r'<g class="mark-text role-mark [a-z_]*layer_2_marks"[^>]*><text[^>]*translate\([^,]+,([^)]+)\)'
                       r'[^>]*font-size="([0-9.]+)px"[^>]*>(.*?)</text>', svg)
    return [(float(y), float(size), len(re.findall("<tspan", body)), float((re.findall(r'dy="([0-9.]+)"', body)
                                                                          or ["0"])[0]))
            for y, size, body in notes]


@pytest.mark.slow
@pytest.mark.parametrize("facet", ["", "facet: {column: {field: Origin, type: nominal}}"], ids=["plain", "facets"])
def test_a_note_wrapped_at_a_top_corner_inside_the_plot_is_not_reported(tmp_path, facet):
    compiled, warnings, scene = drawn(tmp_path, WRAPPED_NOTE.replace("HEIGHT", "200").replace("FACET", facet))
    notes = _svg_notes(vl_convert.vegalite_to_svg(compiled.vega_lite))
    assert notes and all(lines >= 3 for _, _, lines, _ in notes)  # wrapped onto several lines
    for baseline, size, lines, height in notes:  # every line is inside the plot, as drawn
        assert baseline - size >= 0 and baseline + (lines - 1) * height <= 200
    assert [w.code for w in warnings] == []


@pytest.mark.slow
def test_a_note_wrapped_at_a_top_corner_that_runs_past_the_bottom_is_reported(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, WRAPPED_NOTE.replace("HEIGHT", "40").replace("FACET", ""))
    ((baseline, size, lines, height),) = _svg_notes(vl_convert.vegalite_to_svg(compiled.vega_lite))
    assert baseline - size >= 0 and baseline + (lines - 1) * height > 40  # its top inside, its last lines below
    (note,) = [item for mark in marks(scene, role="mark", marktype="text") for item in mark["items"]]
    text = " ".join(line.strip() for line in note["text"].split("\n"))
    assert [(w.message, *where(w)) for w in warnings] == [
        (msg.text_outside_view(text, "bottom"), "W766", ("layers", 1, "trend", "annotate"), (12, 7), "scene")]


# ---------------------------------------------------------------- legends

def test_two_categories_coloured_alike_through_a_scale(tmp_path):
    compiled, warnings, scene = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2, k: x}, {a: 2, b: 3, k: y}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
          color: {field: k, scale: {range: ["#d62728", "#d62728"]}}
        """)
    symbols = [item for mark in marks(scene, role="legend-symbol") for item in mark["items"]]
    assert len(symbols) == 2 and symbols[0] == symbols[1]
    assert [(w.message, w.hint, *where(w)) for w in warnings] == [
        (msg.legend_entries_identical("x", "y"), msg.legend_entries_identical_hint(), "W767",
         ("encoding", "color", "scale", "range"), (7, 29), "scene")]


def test_two_categories_given_one_style_in_a_marker_map(tmp_path):
    compiled, warnings, _ = drawn(tmp_path, """\
        data:
          values: [{a: 1, b: 2, k: x}, {a: 2, b: 3, k: y}]
        mark: point
        encoding:
          x: {field: a, type: quantitative}
          y: {field: b, type: quantitative}
        markers:
          field: k
          styles:
            x: {shape: square, color: "#d62728"}
            y: {shape: square, color: "#d62728"}
        """)
    assert [(w.message, *where(w)) for w in warnings] == [
        (msg.legend_entries_identical("x", "y"), "W767", ("markers", "styles", "y"), (11, 5), "scene")]



OUTLINED = """\
    data:
      values: [{a: A, b: 28, w: 1}, {a: B, b: 55, w: 3}, {a: C, b: 43, w: 2}]
    mark: {type: bar, stroke: black}
    encoding:
      x: {field: a, type: nominal}
      y: {field: b, type: quantitative}
      strokeWidth: {field: w, type: ordinal%s}
    """


def test_legend_entries_told_apart_by_their_outline_width_alone_are_not_alike(tmp_path):
    """A strokeWidth legend draws one symbol per width, all else equal: read back from the SVG, as Vega drew them."""
    compiled, warnings, scene = drawn(tmp_path, OUTLINED % "")
    assert warnings == []
    svg = export_bytes(compiled, "svg")
    read = [item["strokeWidth"] for mark in marks(scene_from_svg(svg), role="legend-symbol") for item in mark["items"]]
    assert read == [item["strokeWidth"] for mark in marks(scene, role="legend-symbol") for item in mark["items"]]
    assert len(set(read)) == 3
    _, warnings, _ = drawn(tmp_path, OUTLINED % ", scale: {range: [2, 2]}")
    assert [(w.message, w.code) for w in warnings] == [(msg.legend_entries_identical("1", "2"), "W767")]


# ---------------------------------------------------------------- the examples draw what they declare

@functools.cache
def _compiled(spec):
    return compile_spec(spec)


@pytest.mark.parametrize("spec", example_specs(), ids=lambda p: p.stem)
def test_every_example_draws_what_it_declares(spec):
    assert [w.diagnostic() for w in check_drawn(_compiled(spec))] == []


def test_the_seeds_are_among_the_examples():
    assert {"seed_pretraining", "seed_flops"} <= {spec.stem for spec in example_specs()}


@pytest.mark.parametrize("spec", example_specs(), ids=lambda p: p.stem)
def test_the_svg_read_back_holds_what_vegas_scenegraph_holds(spec):
    compiled = _compiled(spec)
    mine = read_scene(scene_from_svg(export_bytes(compiled, "svg")))
    vegas = read_scene(vl_convert.vegalite_to_scenegraph(compiled.vega_lite))

    def items(scene):
        return {name: sum(len(mark["items"]) for mark in nodes) for name, nodes in scene.marks.items()}

    def texts(entries):
        return [item.get("text") for item in entries]

    assert items(mine) == items(vegas) and items(mine)
    assert [(side, texts(labels)) for side, labels in mine.axes] == [(side, texts(labels)) for side, labels in vegas.axes]
    assert [[label.get("font") for label in labels] for _, labels in mine.axes] == \
        [[label.get("font") for label in labels] for _, labels in vegas.axes]
    assert [texts(label for label, _ in legend) for legend in mine.legends] == \
        [texts(label for label, _ in legend) for legend in vegas.legends]
    assert (mine.cells, mine.headers) == (vegas.cells, vegas.headers)


# ---------------------------------------------------------------- pieces

@pytest.mark.parametrize("name, path", [
    ("marks", ()), ("layer_2_marks", ("layer", 2)), ("child_layer_1_marks", ("spec", "layer", 1)),
    ("layer_0_layer_1_layer_0_marks", ("layer", 0, "layer", 1, "layer", 0)), ("child_marks", ("spec",)),
])
def test_a_vega_mark_name_is_read_as_the_vega_lite_view_that_made_it(name, path):
    assert vega_lite_path(name) == path


def test_text_boxes_follow_alignment_baseline_and_rotation():
    item = {"text": "ab", "fontSize": 10, "x": 100, "y": 50}
    width = drawn_width("ab", 10)
    assert text_box({**item, "align": "right", "baseline": "top"}) == Box(100 - width, 50, 100, 60)
    assert text_box({**item, "align": "center", "baseline": "middle"}) == Box(100 - width / 2, 45, 100 + width / 2, 55)
    assert text_box({**item, "angle": 270}) == Box(95, 50 - width / 2, 105, 50 + width / 2)
    assert text_box({**item, "text": ""}) is None
    # Lines after the first hang one line height below it from an alphabetic baseline, stack up from a bottom one.
    lines = {**item, "text": ["ab", "ab", "ab"], "lineHeight": 14}
    assert text_box(lines) == Box(100, 40, 100 + width, 78)
    assert text_box({**lines, "baseline": "bottom"}) == Box(100, 12, 100 + width, 50)
    assert scene_from_svg(b"<svg") == {} and check_scene({}, None, None, None) == []  # nothing read, nothing said


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_a_checked_export_is_the_same_bytes_from_one_render(tmp_path, fmt):
    compiled = compile_spec(write(tmp_path, NULLS))
    content, warnings = export_checked(compiled, fmt)
    assert content == export_bytes(compiled, fmt)
    assert [w.message for w in warnings] == [msg.layer_drew_fewer(0, 2)]


def _advance(text: str, size: float, style: str) -> float:
    """The width of a line of text from the font file's own advance widths (fontTools)."""
    font = TTFont(FONT_DIRECTORY / f"chartcSans-{style}.ttf")
    cmap, metrics = font.getBestCmap(), font["hmtx"].metrics
    return sum(metrics[cmap[ord(char)]][0] for char in text) / font["head"].unitsPerEm * size


def test_text_is_measured_in_the_font_and_weight_it_was_drawn_in(tmp_path):
    """The SVG's texts are read with their font and weight: the bold title, the 10⁻ⁿ labels, in chartc Sans."""
    compiled = compile_spec(write(tmp_path, """\
        title: Loss ⁻ WWW
        data:
          values: [{x: 1, y: 0.001}, {x: 2, y: 0.1}]
        mark: point
        encoding:
          x: {field: x, type: quantitative}
          y: {field: y, type: quantitative, scale: {type: log}, axis: {format: pow10}}
        """))
    scene = scene_from_svg(export_bytes(compiled, "svg"))
    texts = [item for node in marks(scene, marktype="text") for item in node["items"]]
    title = next(item for item in texts if item["text"] == "Loss ⁻ WWW")
    labels = [item for item in texts if str(item["text"]).startswith("10")]
    assert labels and {item["font"] for item in texts} == {FAMILY}
    assert (title["fontWeight"], {item["fontWeight"] for item in labels}) == ("bold", {"normal"})
    for item, style in [(title, "Bold"), *[(label, "Regular") for label in labels]]:
        box = text_box(item)
        assert box.x1 - box.x0 == pytest.approx(_advance(item["text"], item["fontSize"], style), rel=1e-4)
    # Another font is measured with Arial's widths (the renderer's sans-serif has Arial's metrics: 556/1000 em a digit).
    assert drawn_width("10", 10, "sans-serif") == pytest.approx(11.12) and drawn_width("il", 10) < drawn_width("MW", 10)
    assert drawn_width("ЖЖ", 10) == pytest.approx(10)  # a character in no table: half an em, short of any script's


# ---------------------------------------------------------------- --strict

NULLS = """\
data:
  values: [{a: 1, b: null}, {a: 2, b: null}]
mark: point
encoding:
  x: {field: a, type: quantitative}
  y: {field: b, type: quantitative}
"""


@pytest.mark.slow  # the renderer starts in a worker process
def test_compile_warns_and_strict_refuses(tmp_path, capsys):
    spec = write(tmp_path, NULLS, "nulls.yaml")
    line = f"{spec}:6:14: SEVERITY[W760]: encoding.y.field: {msg.layer_drew_fewer(0, 2)} ({msg.layer_drew_fewer_hint()})"
    assert cli.main(["compile", str(spec), "-o", str(tmp_path / "a.svg")]) == cli.EXIT_OK
    assert capsys.readouterr().err.splitlines() == [line.replace("SEVERITY", "warning")]
    assert (tmp_path / "a.svg").exists()
    assert cli.main(["compile", str(spec), "-o", str(tmp_path / "b.svg"), "--strict"]) == cli.EXIT_INVALID
    assert capsys.readouterr().err.splitlines() == [line.replace("SEVERITY", "error")]
    assert not (tmp_path / "b.svg").exists()
    assert cli.main(["compile", str(spec), "-o", "-", "--strict"]) == cli.EXIT_INVALID  # checked though not drawn
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.splitlines() == [line.replace("SEVERITY", "error")]


@pytest.mark.slow  # renders a gallery in worker processes
def test_build_strict_fails_the_chart_and_keeps_the_rest(tmp_path, capsys):
    specs = tmp_path / "specs"
    specs.mkdir()
    write(specs, NULLS, "nulls.yaml")
    write(specs, NULLS.replace("null", "3"), "fine.yaml")
    out = tmp_path / "gallery"
    assert cli.main(["build", str(specs), "--out", str(out), "--jobs", "1"]) == cli.EXIT_OK
    assert f"{specs / 'nulls.yaml'}:6:14: warning[W760]" in capsys.readouterr().err
    assert cli.main(["build", str(specs), "--out", str(out), "--jobs", "1", "--strict"]) == cli.EXIT_INVALID
    captured = capsys.readouterr()
    assert f"{specs / 'nulls.yaml'}:6:14: error[W760]" in captured.err
    assert "fine.yaml: rendered" in captured.out  # --strict checks every chart, up to date or not
    assert (out / "fine.svg").exists() and (out / "nulls.svg").exists()  # the previous outputs stay
    assert cli.main(["build", str(specs), "--out", str(out), "--check", "--strict"]) == cli.EXIT_USAGE


def test_strict_errors_keep_the_warnings_place_and_code(tmp_path):
    compiled = compile_spec(write(tmp_path, NULLS))
    from chartc.pipeline import as_errors

    (warning,) = check_drawn(compiled)
    (error,) = as_errors([warning])
    assert isinstance(error, SpecError)
    assert (error.code, error.path, error.location, error.hint) == (warning.code, warning.path, warning.location,
                                                                     warning.hint)
    assert error.diagnostic() == warning.diagnostic().replace("warning[W760]", "error[W760]")
