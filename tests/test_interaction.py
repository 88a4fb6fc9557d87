"""Selections, conditions, grouped bars, shared or independent scales, facet sorts, steps, legends and a layer's
own escape hatch: what Vega draws of them (its scenegraph), against the data read independently (vega_datasets'
files through json and numpy).

What a reader does in a browser (hover, click a legend, brush) is in tests/test_browser.py; here, the static
render: a selection draws empty (every mark selected) unless it has a `value`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import vega_datasets
import vl_convert as vlc

from chartc import errors as msg
from chartc.errors import SpecError
from conftest import compile_text, scene_nodes


def rows(name: str) -> list[dict]:
    """A vega-datasets table as vega_datasets ships it (JSON)."""
    return json.loads(Path(getattr(vega_datasets.local_data, name.replace("-", "_")).filepath).read_text())


def cars_drawn() -> list[dict]:
    return [r for r in rows("cars") if r["Horsepower"] is not None and r["Miles_per_Gallon"] is not None]


def scene(compiled):
    return vlc.vegalite_to_scenegraph(compiled.vega_lite)


def items(graph, marktype: str, name: str | None = None) -> list[dict]:
    return [item for node in scene_nodes(graph, marktype, role="mark", name=name) for item in node["items"]]


POINTS = """
data: {dataset: cars}
mark: {type: point, filled: true}
encoding:
  x: Horsepower
  y: Miles_per_Gallon
  color: Origin
"""


def compile_error(tmp_path, text: str) -> SpecError:
    with pytest.raises(SpecError) as caught:
        compile_text(tmp_path, text)
    return caught.value.errors[0] if getattr(caught.value, "errors", None) else caught.value


# ------------------------------------------------------------------ selections and conditions


def test_an_empty_selection_draws_every_mark_selected_and_the_spec_static(tmp_path):
    """Params change nothing a static export draws: the condition's value on every mark, as without the param."""
    with_param = compile_text(tmp_path, POINTS + """  opacity: {condition: {param: origin, value: 0.9}, value: 0.08}
params:
  - {name: origin, select: {type: point, fields: [Origin]}, bind: legend}
interactive: true
""")
    drawn = items(scene(with_param), "symbol")
    assert len(drawn) == len(cars_drawn())
    assert {item["opacity"] for item in drawn} == {0.9}
    plain = compile_text(tmp_path, POINTS + "  opacity: {value: 0.9}\n")
    assert [(i["x"], i["y"], i["fill"], i["opacity"]) for i in items(scene(plain), "symbol")] == \
        [(i["x"], i["y"], i["fill"], i["opacity"]) for i in drawn]


def test_a_selection_value_is_drawn_and_the_param_sits_on_its_view(tmp_path):
    compiled = compile_text(tmp_path, POINTS + """  opacity: {condition: {param: origin, value: 0.9}, value: 0.08}
params:
  - {name: origin, select: {type: point, fields: [Origin]}, bind: legend, value: [{Origin: Japan}]}
""")
    assert compiled.vega_lite["params"] == [{"name": "origin", "bind": "legend", "value": [{"Origin": "Japan"}],
                                            "select": {"type": "point", "fields": ["Origin"]}}]
    drawn = Counter(item["opacity"] for item in items(scene(compiled), "symbol"))
    japan = sum(1 for r in cars_drawn() if r["Origin"] == "Japan")
    assert drawn == {0.9: japan, 0.08: len(cars_drawn()) - japan}


def test_a_selection_on_a_field_no_channel_draws_keeps_it_in_computed_rows(tmp_path):
    """Computed rows carry only the fields the marks read: the fields a selection projects on are read too
    (without them every mark drew unselected: no row held a Cylinders value to match)."""
    compiled = compile_text(tmp_path, POINTS + """  opacity: {condition: {param: pick, value: 0.9}, value: 0.08}
transform:
  - {calculate: 'datum.Horsepower / 10', as: power}
params:
  - {name: pick, select: {type: point, fields: [Cylinders]}, value: [{Cylinders: 4}]}
""")
    drawn = Counter(item["opacity"] for item in items(scene(compiled), "symbol"))
    four = sum(1 for r in cars_drawn() if r["Cylinders"] == 4)
    assert drawn == {0.9: four, 0.08: len(cars_drawn()) - four}


def test_a_test_condition_colours_the_rows_it_holds_for(tmp_path):
    compiled = compile_text(tmp_path, """
data: {dataset: cars}
mark: point
encoding:
  x: Horsepower
  y: Miles_per_Gallon
  color: {condition: {test: 'datum.Horsepower > 150', value: 'tab:red'}, value: grey}
""")
    strokes = Counter(item["stroke"] for item in items(scene(compiled), "symbol"))
    high = sum(1 for r in cars_drawn() if r["Horsepower"] > 150)
    assert strokes == {"#d62728": high, "grey": len(cars_drawn()) - high}  # tab:red as the renderer draws it


def test_chart_params_go_on_the_first_mark_layer_and_interactive_binds_the_scales(tmp_path):
    compiled = compile_text(tmp_path, """
data: {dataset: cars}
encoding: {x: Horsepower, y: Miles_per_Gallon}
params: [{name: brush, select: {type: interval, encodings: [x]}}]
interactive: true
layers:
  - trend: {method: linear}
  - mark: point
    encoding:
      opacity: {condition: {param: brush, value: 1}, value: 0.2}
  - mark: rule
    params: [{name: hover, select: {type: point, on: pointerover}}]
    encoding: {y: {field: Miles_per_Gallon, aggregate: mean}}
""")
    views = compiled.vega_lite["layer"]
    assert "params" not in views[0]
    assert [p["name"] for p in views[1]["params"]] == ["brush", "chartc_pan_zoom"]
    assert views[1]["params"][1] == {"name": "chartc_pan_zoom", "select": {"type": "interval"}, "bind": "scales"}
    assert [p["name"] for p in views[2]["params"]] == ["hover"]
    assert len(items(scene(compiled), "symbol")) == len(cars_drawn())  # the brush is empty: nothing fades


def test_a_brush_in_a_facet_is_one_selection_across_the_panels(tmp_path):
    compiled = compile_text(tmp_path, """
data: {dataset: cars}
params: [{name: brush, select: {type: interval, encodings: [x]}, value: {x: [100, 150]}}]
mark: circle
encoding:
  x: Horsepower
  y: Acceleration
  opacity: {condition: {param: brush, value: 0.85}, value: 0.15}
facet: {column: Origin}
""")
    assert "params" in compiled.vega_lite["spec"]
    drawn = Counter(item["opacity"] for item in items(scene(compiled), "symbol"))
    valid = [r for r in rows("cars") if r["Horsepower"] is not None and r["Acceleration"] is not None]
    inside = sum(1 for r in valid if 100 <= r["Horsepower"] <= 150)
    assert drawn == {0.85: inside, 0.15: len(valid) - inside}


def test_a_condition_on_an_undeclared_selection_is_refused_with_the_declared_names(tmp_path):
    error = compile_error(tmp_path, POINTS + """  opacity: {condition: {param: hovr, value: 1}, value: 0.3}
params: [{name: hover, select: point}]
""")
    assert error.message == msg.param_undefined("hovr")
    assert error.code == "E250"
    assert error.path == ("encoding", "opacity", "condition", "param")
    assert (error.location.line, error.location.column) == (8, 32)
    assert error.hint == msg.param_undefined_hint(msg.did_you_mean("hovr", ["hover"]), ["hover"])


@pytest.mark.parametrize("text, message, path", [
    ("layers:\n  - mark: point\n    params: [{name: a, select: point}]\n"
     "  - mark: line\n    params: [{name: a, select: interval}]\n",
     msg.param_duplicate("a"), ("layers", 1, "params", 0, "name")),
    ("layers:\n  - mark: point\n  - trend: {method: linear}\n    params: [{name: a, select: point}]\n",
     msg.param_on_trend(), ("layers", 1, "params")),
    ("mark: point\nparams: [{name: a, select: point, bind: legend}]\n",
     msg.param_bind("legend", "a point selection of one field: select: {type: point, fields: [FIELD]}"),
     ("params", 0, "bind")),
    ("mark: point\nparams: [{name: a, select: point, bind: scales}]\n",
     msg.param_bind("scales", "an interval selection: select: interval"), ("params", 0, "bind")),
])
def test_selections_that_cannot_work_are_refused_where_written(tmp_path, text, message, path):
    error = compile_error(tmp_path, "data: {dataset: cars}\nencoding: {x: Horsepower, y: Miles_per_Gallon}\n" + text)
    assert (error.message, error.path) == (message, path)


def test_a_test_expression_vega_would_refuse_is_reported_at_its_column(tmp_path):
    error = compile_error(tmp_path, POINTS.replace("color: Origin", "color: {condition: {test: 'datum.x >', "
                                                   "value: red}, value: grey}"))
    assert error.code == "E302"
    assert error.path == ("encoding", "color", "condition", "test")



# ------------------------------------------------------------------ outlines and fills: strokeWidth, fillOpacity

BARS = """
data: {values: [{a: A, b: 28, w: 1}, {a: B, b: 55, w: 3}, {a: C, b: 43, w: 2}]}
mark: {type: bar, fill: tab:orange, stroke: k, cursor: pointer}
encoding:
  x: {field: a, type: nominal}
  y: {field: b, type: quantitative}
"""


def test_a_list_of_conditions_is_tried_in_order_the_first_that_holds_giving_the_value(tmp_path):
    """Vega-Lite's condition array: `b > 50` holds for B alone (3), `b > 40` for B and C, but B took the first."""
    graph = scene(compile_text(tmp_path, BARS + """  strokeWidth:
    condition: [{test: datum.b > 50, value: 3}, {test: datum.b > 40, value: 1}]
    value: 0
  fillOpacity: {value: 0.4}
  strokeOpacity: {condition: {test: datum.b > 50, value: 1}, value: 0.5}
"""))
    bars = sorted(items(graph, "rect"), key=lambda bar: bar["x"])
    assert [(bar["strokeWidth"], bar["strokeOpacity"]) for bar in bars] == [(0, 0.5), (3, 1), (1, 0.5)]
    assert {(bar["fill"], bar["stroke"], bar["fillOpacity"]) for bar in bars} == {("#ff7f0e", "#000000", 0.4)}


def test_stroke_width_by_a_field_draws_the_field_on_a_scale(tmp_path):
    graph = scene(compile_text(tmp_path, BARS + "  strokeWidth: {field: w, type: quantitative, legend: null}\n"))
    widths = [bar["strokeWidth"] for bar in sorted(items(graph, "rect"), key=lambda bar: bar["x"])]
    assert widths[0] < widths[2] < widths[1]  # w = 1, 3, 2: a linear scale keeps the order


def test_a_condition_in_a_list_names_a_declared_selection_and_gives_a_value(tmp_path):
    spec = BARS + """  strokeWidth:
    condition: [{param: pick, value: 2}, {param: hovr, value: 1}]
    value: 0
params: [{name: pick, select: point}, {name: hover, select: {type: point, on: pointerover}}]
"""
    error = compile_error(tmp_path, spec)
    assert (error.message, error.code) == (msg.param_undefined("hovr"), "E250")
    assert error.path == ("encoding", "strokeWidth", "condition", 1, "param")
    error = compile_error(tmp_path, spec.replace("{param: hovr, value: 1}", "{param: hover, field: w}"))
    assert (error.message, error.code) == (msg.missing_key("value"), "E203")  # values only: Vega-Lite's array
    assert error.path == ("encoding", "strokeWidth", "condition", 1)


def test_a_cursor_is_one_of_vegas_names(tmp_path):
    error = compile_error(tmp_path, BARS.replace("cursor: pointer", "cursor: pointr"))
    assert error.path == ("mark", "cursor")
    assert "'pointer'" in error.message


# ------------------------------------------------------------------ grouped bars, steps, resolve, facet sort


BARLEY_GROUPED = """
data: {dataset: barley}
width: {step: 36}
mark: bar
encoding:
  x: {field: site, type: nominal}
  xOffset: {field: year, type: nominal}
  y: {field: yield, aggregate: sum}
  color: {field: year, type: nominal}
"""


def test_grouped_bars_stand_side_by_side_in_bands_of_the_step(tmp_path):
    graph = scene(compile_text(tmp_path, BARLEY_GROUPED))
    bars = sorted(items(graph, "rect"), key=lambda bar: bar["x"])
    sums: dict = {}
    for r in rows("barley"):
        sums[(r["site"], r["year"])] = sums.get((r["site"], r["year"]), 0) + r["yield"]
    assert len(bars) == len(sums) == 12
    pairs = [bars[i:i + 2] for i in range(0, len(bars), 2)]
    for left, right in pairs:  # one group per site: two bars touching, side by side, in the two years' colours
        assert left["x"] + left["width"] == pytest.approx(right["x"])
        assert left["fill"] != right["fill"]
    assert {left["fill"] for left, _ in pairs} == {pairs[0][0]["fill"]}
    # `step` is one bar's band (Vega-Lite's step is for the offset): every bar 36 px wide, the sites'
    # groups evenly apart.
    assert {bar["width"] for bar in bars} == {36}
    starts = np.diff([left["x"] for left, _ in pairs])
    assert np.allclose(starts, starts[0]) and starts[0] > 2 * 36
    # Every bar's height is its sum on one linear scale (sites in Vega's ascending order, 1931 on the left).
    sites = sorted({site for site, _ in sums})
    heights = [bar["height"] for pair in pairs for bar in pair]
    totals = [sums[(site, year)] for site in sites for year in (1931, 1932)]
    assert np.allclose(np.array(heights) / np.array(totals), heights[0] / totals[0])


def test_a_step_height_grows_the_plot_with_its_categories(tmp_path):
    compiled = compile_text(tmp_path, """
data: {dataset: barley}
height: {step: 12}
mark: point
encoding:
  x: {field: yield, aggregate: median}
  y: {field: variety, type: nominal}
""")
    assert compiled.vega_lite["height"] == {"step": 12}
    graph = scene(compiled)
    varieties = {r["variety"] for r in rows("barley")}
    ys = sorted({item["y"] for item in items(graph, "symbol")})
    assert len(ys) == len(varieties)
    assert np.allclose(np.diff(ys), 12)


def test_resolve_gives_a_layered_chart_a_second_y_axis_on_the_right(tmp_path):
    text = """
data: {dataset: seattle-weather}
encoding:
  x: {field: date, timeUnit: month}
layers:
  - mark: bar
    encoding: {y: {field: precipitation, aggregate: sum}}
  - mark: line
    encoding: {y: {field: temp_max, aggregate: mean}}
"""
    shared = scene(compile_text(tmp_path, text))
    independent = compile_text(tmp_path, text + "resolve: {scale: {y: independent}}\n")
    assert independent.vega_lite["resolve"] == {"scale": {"y": "independent"}}
    graph = scene(independent)

    def orients(graph):
        return sorted(item["orient"] for axis in scene_nodes(graph, "group", role="axis") for item in axis["items"])

    assert "right" not in orients(shared)
    assert orients(graph).count("right") == 1 and "left" in orients(graph)
    # On its own scale the line of mean highs (at most ~26 °C) spans the plot; on the precipitation
    # sums' scale (up to ~640 mm) it lay flat along the bottom.
    assert min(point["y"] for point in items(graph, "line")) < 60
    assert min(point["y"] for point in items(shared, "line")) > 250


def test_facet_rows_sorted_by_an_aggregate_are_drawn_in_that_order(tmp_path):
    compiled = compile_text(tmp_path, """
data: {dataset: barley}
mark: point
encoding:
  x: {field: yield, aggregate: median}
  y: {field: variety, type: nominal}
facet:
  row: {field: site, type: nominal, sort: {op: median, field: yield, order: descending}}
""")
    graph = scene(compiled)
    drawn = [text for _, text in sorted((header["y"], text) for node in scene_nodes(graph, "group", name="row_header")
                                        for header in node["items"] for text in _texts(header))]
    by_site: dict = {}
    for r in rows("barley"):
        by_site.setdefault(r["site"], []).append(r["yield"])
    expected = sorted(by_site, key=lambda site: -np.median(by_site[site]))
    assert drawn == expected


def _texts(node) -> list[str]:
    return [item["text"] for text in scene_nodes(node, "text", role="title-text") for item in text["items"]]


# ------------------------------------------------------------------ legends above and below, a layer's escape hatch


def _legend_box(graph) -> tuple[float, float, float, float]:
    (legend,) = [item for node in scene_nodes(graph, "group", role="legend") for item in node["items"]]
    return legend["x"], legend["y"], legend["width"], legend["height"]


@pytest.mark.parametrize("position", ["top", "bottom"])
def test_a_legend_above_or_below_is_centred_on_the_plot(tmp_path, position):
    graph = scene(compile_text(tmp_path, POINTS + f"width: 400\nlegend: {{position: {position}}}\n"))
    x, y, width, height = _legend_box(graph)
    assert x + width / 2 == pytest.approx(400 / 2, abs=1)
    assert (y + height < 0) if position == "top" else (y > 300)


def test_a_centred_legend_keeps_the_configured_offset_from_the_plot(tmp_path):
    below = POINTS + "width: 400\nlegend: {position: bottom}\n"
    _, default_y, _, _ = _legend_box(scene(compile_text(tmp_path, below)))
    x, y, width, _ = _legend_box(scene(compile_text(tmp_path, below + "config: {legend: {offset: 40}}\n")))
    assert y - default_y == pytest.approx(40 - 18)  # Vega's default offset is 18 px
    assert x + width / 2 == pytest.approx(400 / 2, abs=1)


@pytest.mark.parametrize("width", [200, 300, 500])
def test_a_legend_below_wraps_into_columns_never_wider_than_the_plot(tmp_path, width):
    text = f"""
data: {{dataset: barley}}
width: {width}
mark: bar
encoding:
  y: {{field: site, type: nominal}}
  x: {{field: yield, aggregate: sum}}
  color: {{field: variety, type: nominal}}
legend: {{position: bottom}}
"""
    compiled = compile_text(tmp_path, text)
    graph = scene(compiled)
    x, _, legend_width, _ = _legend_box(graph)
    assert legend_width <= width
    labels = [item for node in scene_nodes(graph, "text", role="legend-label") for item in node["items"]]
    assert len(labels) == len({r["variety"] for r in rows("barley")}) == 10
    columns = compiled.vega_lite["config"]["legend"]["columns"]
    assert 1 <= columns < 10
    # The widest column count that fits: one more column would not have.
    wider = compile_text(tmp_path, text.replace("legend: {position: bottom}",
                                                f"legend: {{position: bottom, columns: {columns + 1}}}"))
    assert _legend_box(scene(wider))[2] > width


def test_a_layer_escape_hatch_adds_to_its_own_view_and_extends_its_lists(tmp_path):
    compiled = compile_text(tmp_path, """
data: {dataset: cars}
layers:
  - mark: point
    encoding: {x: Horsepower, y: Miles_per_Gallon}
    params: [{name: hover, select: {type: point, on: pointerover}}]
    vega_lite:
      params: [{name: grid, select: interval, bind: scales}]
      mark: {cursor: pointer}
  - mark: rule
    encoding: {y: {field: Miles_per_Gallon, aggregate: mean}}
    vega_lite:
      encoding: {strokeDash: {value: [4, 2]}}
""")
    point, rule = compiled.vega_lite["layer"]
    assert [p["name"] for p in point["params"]] == ["hover", "grid"]  # added, not replaced
    assert point["mark"] == {"type": "point", "cursor": "pointer"}
    assert "params" not in rule and "params" not in compiled.vega_lite
    assert rule["encoding"]["strokeDash"] == {"value": [4, 2]}
    graph = scene(compiled)
    (drawn_rule,) = items(graph, "rule")
    assert drawn_rule["strokeDash"] == [4, 2]
    assert len(items(graph, "symbol")) == len(cars_drawn())


def test_a_layer_escape_hatch_vega_lite_refuses_is_placed_in_it(tmp_path):
    error = compile_error(tmp_path, """
data: {dataset: cars}
encoding: {x: Horsepower, y: Miles_per_Gallon}
layers:
  - mark: point
  - mark: line
    vega_lite:
      mark: {interpolate: wobbly}
""")
    assert error.path[:4] == ("layers", 1, "vega_lite", "mark")
    assert error.location.line == 8
