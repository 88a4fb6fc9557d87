"""What is drawn is what was declared: facet wrap, per-group trend colours, pow10 labels.

Each of these once compiled with exit 0 to a chart other than the one the
spec declared (6 panels in one row, every group's trend line gray, a blank
axis); the tests look at what Vega draws (its scenegraph), not only at the
Vega-Lite chartc emits.
"""

from __future__ import annotations


import pytest

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.pipeline import compile_spec, validate_spec

from conftest import compile_text
from conftest import scene_nodes as marks

# Six groups of five points each (x, y = 2x), and three groups with their own slopes.
SIX = "data:\n  values:\n" + "".join(f"    - {{x: {i}, y: {2 * i}, g: {g}}}\n" for g in "abcdef" for i in range(5))
THREE = "data:\n  values:\n" + "".join(f"    - {{x: {i}, y: {(k + 1) * i + (i % 2) / 10}, g: {g}}}\n"
                                       for k, g in enumerate("pqr") for i in range(6))


@pytest.fixture(scope="module")
def scene():
    return pytest.importorskip("vl_convert").vegalite_to_scenegraph


# ---------------------------------------------------------------- facet.columns


@pytest.mark.parametrize("channel", ["column", "row"])
def test_a_facet_by_one_field_wraps_after_columns_panels(tmp_path, scene, channel):
    compiled = compile_text(tmp_path, SIX + f"width: 100\nheight: 80\nmark: point\nencoding: {{x: x, y: y}}\n"
                            f"facet: {{{channel}: {{field: g, title: Group}}, columns: 3}}\n")
    vl = compiled.vega_lite
    assert vl["facet"] == {"field": "g", "title": "Group", "type": "nominal"} and vl["columns"] == 3
    (cells,) = [node["items"] for node in marks(scene(vl), "group") if node.get("name") == "cell"]
    places = [(cell["x"], cell["y"]) for cell in cells]
    xs, ys = sorted({x for x, _ in places}), sorted({y for _, y in places})
    assert (len(xs), len(ys)) == (3, 2)  # 2 rows of 3, not 1 row (or column) of 6
    assert places == [(x, y) for y in ys for x in xs]  # filled row by row: a, b, c then d, e, f
    assert all(later - earlier > 100 for earlier, later in zip(xs, xs[1:]))  # panels side by side, not overlapping
    assert all(len(symbols["items"]) == 5 for symbols in marks(scene(vl), "symbol", "mark"))


def test_a_facet_without_columns_keeps_its_row_and_column(tmp_path):
    vl = compile_text(tmp_path, SIX + "mark: point\nencoding: {x: x, y: y}\nfacet: {column: g}\n").vega_lite
    assert vl["facet"] == {"column": {"field": "g", "type": "nominal"}} and "columns" not in vl


def test_columns_with_row_and_column_is_refused_at_columns(tmp_path):
    path = tmp_path / "chart.yaml"
    path.write_text(SIX + "mark: point\nencoding: {x: x, y: y}\nfacet:\n  row: g\n  column: g\n  columns: 3\n")
    (error,) = validate_spec(path)
    assert error.message == msg.facet_wrap_two_fields() and error.code == "E461"
    assert error.hint == msg.facet_wrap_two_fields_hint()
    assert error.path == ("facet", "columns")
    line = path.read_text().splitlines().index("  columns: 3") + 1
    assert (error.location.line, error.location.column) == (line, 12)
    with pytest.raises(SpecError) as caught:
        compile_spec(path)
    assert [e.message for e in caught.value.errors] == [msg.facet_wrap_two_fields()]


# ---------------------------------------------------------------- trend.by colours

TREND_BY = THREE + """\
layers:
  - mark: point
    encoding: {x: x, y: y}
  - trend: {method: linear, by: g LABEL}
    encoding: {x: x, y: y}
"""


@pytest.mark.parametrize("label", [None, "{group}"])
def test_trend_lines_by_group_are_drawn_in_distinct_colours_their_legend_shows(tmp_path, scene, label):
    text = TREND_BY.replace(" LABEL", f", label: '{label}'" if label else "")
    graph = scene(compile_text(tmp_path, text).vega_lite)
    lines = marks(graph, "line", "mark")
    strokes = [node["items"][0]["stroke"] for node in lines]
    assert len(lines) == 3 and len(set(strokes)) == 3  # one line per group, each its own colour
    assert all(len({item["stroke"] for item in node["items"]}) == 1 for node in lines)
    assert "gray" not in strokes
    symbols = [node["items"][0] for node in marks(graph, "symbol", "legend-symbol")]
    labels = [node["items"][0]["text"] for node in marks(graph, "text", "legend-label")]
    assert labels == ["p", "q", "r"]
    swatches = [symbol["stroke"] for symbol in symbols]
    assert swatches == strokes  # the legend entry of each group in its line's colour, in group order


@pytest.mark.parametrize("scale", ["", ", scale: {range: ['#111111', '#00aa00', '#aa0000']}"])
def test_trend_lines_by_group_take_the_colour_of_their_groups_points(tmp_path, scene, scale):
    # Points coloured by g and one line per g: the USA line was green over red USA points (the lines took
    # chartc's palette, the points Vega's). Each line now takes its group's colour in the points' scale.
    text = (THREE + "layers:\n  - mark: point\n    encoding: {x: x, y: y, color: {field: g" + scale + "}}\n"
            "  - trend: {method: linear, by: g, label: '{group}'}\n    encoding: {x: x, y: y}\n")
    graph = scene(compile_text(tmp_path, text).vega_lite)
    labels = [node["items"][0]["text"] for node in marks(graph, "text", "legend-label")]
    swatches = [node["items"][0]["stroke"] for node in marks(graph, "symbol", "legend-symbol")]
    assert labels == ["p", "q", "r"] * 2  # the points' legend, then the lines'
    points, lines = swatches[:3], swatches[3:]
    assert len(set(points)) == 3 and lines == points
    assert [node["items"][0]["stroke"] for node in marks(graph, "line", "mark")] == points


def test_one_overall_trend_line_stays_gray(tmp_path, scene):
    text = TREND_BY.replace(", by: g LABEL", ", label: Fit")
    graph = scene(compile_text(tmp_path, text).vega_lite)
    assert [node["items"][0]["stroke"] for node in marks(graph, "line", "mark")] == ["gray"]


# ---------------------------------------------------------------- pow10 on a linear axis


def test_pow10_on_a_linear_axis_is_refused_at_the_format(tmp_path):
    path = tmp_path / "chart.yaml"
    path.write_text(SIX + "mark: point\nencoding:\n  x: x\n  y: {field: y, axis: {format: pow10}}\n")
    (error,) = validate_spec(path)
    assert error.message == msg.pow10_linear("y") and error.code == "E462"
    assert error.hint == msg.pow10_linear_hint()
    assert error.path == ("encoding", "y", "axis", "format")
    line = path.read_text().splitlines().index("  y: {field: y, axis: {format: pow10}}") + 1
    assert (error.location.line, error.location.column) == (line, 32)


def test_pow10_on_a_log_axis_labels_the_powers_of_ten(tmp_path, scene):
    values = "".join(f"    - {{x: {i}, y: {10 ** i}}}\n" for i in range(1, 6))
    text = (f"data:\n  values:\n{values}layers:\n  - mark: point\n"
            "    encoding: {x: x, y: {field: y, scale: {type: log}}}\n"
            "  - mark: line\n    encoding: {x: x, y: {field: y, axis: {format: pow10}}}\n")
    vl = compile_text(tmp_path, text).vega_lite  # the scale declared on another layer: the axis is shared
    labels = [item["text"] for node in marks(scene(vl), "text") for item in node["items"]
              if isinstance(item.get("text"), str) and item["text"].startswith("10")]
    assert {"10¹", "10²", "10³", "10⁴", "10⁵"} <= set(labels)


# ---------------------------------------------------------------- a calculated category


def test_a_calculated_category_draws_every_row(tmp_path, scene):
    # Typed quantitative, a ternary of two strings met a continuous colour scale and Vega-Lite dropped
    # every bar: a blank chart, exit 0. Typed from its expression, each bar is drawn in its category's colour.
    compiled = compile_text(tmp_path, """\
        data:
          values:
            - {x: a, y: 3}
            - {x: b, y: -2}
            - {x: c, y: 1}
        transform:
          - {calculate: "datum.y > 0 ? 'gain' : 'loss'", as: sign}
        mark: bar
        encoding:
          x: {field: x, type: nominal}
          y: {field: y}
          color: {field: sign}
        """)
    bars = [item for node in marks(scene(compiled.vega_lite), "rect", "mark") for item in node["items"]]
    assert len(bars) == 3
    fills = [bar["fill"] for bar in bars]
    assert fills[0] == fills[2] != fills[1]
