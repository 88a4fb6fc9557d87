"""Two pieces of grammar the second corpus needed: a filter by a selection (`filter: {param: NAME}`) and caps on an
error bar's ends (`mark: {type: errorbar, ticks: ...}`), each checked on what Vega draws (its scenegraph) against
the data read independently (vega_datasets' JSON, numpy).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import vega_datasets
import vl_convert as vlc

from chartc import errors as msg
from chartc.errors import SpecError
from conftest import compile_text, scene_nodes


def rows(name: str) -> list[dict]:
    return json.loads(Path(getattr(vega_datasets.local_data, name.replace("-", "_")).filepath).read_text())


def items(compiled, marktype: str, name: str | None = None) -> list[dict]:
    graph = vlc.vegalite_to_scenegraph(compiled.vega_lite)
    return [item for node in scene_nodes(graph, marktype, role="mark", name=name) for item in node["items"]]


def first_error(tmp_path, text: str) -> SpecError:
    with pytest.raises(SpecError) as caught:
        compile_text(tmp_path, text)
    return caught.value.errors[0] if getattr(caught.value, "errors", None) else caught.value


# ------------------------------------------------------------------ filter by a selection

BRUSHED_MEAN = """
data: {dataset: cars}
layers:
  - mark: point
    params: [{name: brush, select: interval}]
    encoding:
      x: Horsepower
      y: Miles_per_Gallon
  - mark: rule
    transform:
      - filter: {param: brush%s}
    encoding:
      y: {field: Miles_per_Gallon, aggregate: mean}
"""


def test_a_filter_by_a_selection_stays_in_its_layer_and_the_empty_brush_keeps_every_row(tmp_path):
    compiled = compile_text(tmp_path, BRUSHED_MEAN % "")
    assert compiled.vega_lite["layer"][1]["transform"] == [{"filter": {"param": "brush"}}]
    assert "transform" not in compiled.vega_lite["layer"][0]
    points = items(compiled, "symbol", "layer_0_marks")
    drawn = [r for r in rows("cars") if r["Horsepower"] is not None and r["Miles_per_Gallon"] is not None]
    assert len(points) == len(drawn)
    a, b = np.polyfit([r["Miles_per_Gallon"] for r in drawn], [p["y"] for p in points], 1)
    mpg = [r["Miles_per_Gallon"] for r in rows("cars") if r["Miles_per_Gallon"] is not None]
    (rule,) = items(compiled, "rule", "layer_1_marks")
    assert rule["y"] == pytest.approx(a * np.mean(mpg) + b, abs=1e-6)


def test_a_filter_by_a_selection_that_keeps_nothing_while_empty_draws_nothing(tmp_path):
    compiled = compile_text(tmp_path, BRUSHED_MEAN % ", empty: false")
    assert compiled.vega_lite["layer"][1]["transform"] == [{"filter": {"param": "brush", "empty": False}}]
    assert items(compiled, "rule", "layer_1_marks") == []
    assert len(items(compiled, "symbol", "layer_0_marks")) > 0


def test_a_filter_by_an_undeclared_selection_is_placed_at_its_name(tmp_path):
    error = first_error(tmp_path, (BRUSHED_MEAN % "").replace("{param: brush}", "{param: bursh}"))
    assert str(error.message) == msg.filter_param_undefined("bursh")
    assert error.code == "E277"
    assert (error.location.line, error.location.column) == (11, 25)
    assert error.hint == msg.param_undefined_hint(msg.did_you_mean("bursh", ["brush"]), ["brush"])


def test_a_trend_over_rows_a_selection_filters_is_refused_with_why(tmp_path):
    error = first_error(tmp_path, """
        data: {dataset: cars}
        params: [{name: brush, select: interval}]
        transform:
          - filter: {param: brush}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        layers:
          - mark: point
          - trend: {method: linear}
        """)
    assert str(error.message) == msg.trend_rows_unknown(msg.rows_unknowable_selection("brush"))


def test_a_faceted_chart_filters_by_the_selection_inside_each_panel(tmp_path):
    compiled = compile_text(tmp_path, """
        data: {dataset: cars}
        params: [{name: pick, select: {type: point, fields: [Origin]}}]
        transform:
          - filter: {param: pick}
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        facet: {column: {field: Origin}}
        """)
    assert compiled.vega_lite["spec"]["transform"] == [{"filter": {"param": "pick"}}]
    assert "transform" not in compiled.vega_lite
    drawn = [r for r in rows("cars") if r["Horsepower"] is not None and r["Miles_per_Gallon"] is not None]
    assert len(items(compiled, "symbol")) == len(drawn)


# ------------------------------------------------------------------ error bar caps

INTERVALS = """
data:
  values:
    - {k: a, low: 1, high: 3}
    - {k: b, low: 2, high: 5}
encoding:
  x: {field: k, type: nominal}
  y: {field: low, type: quantitative}
  y2: high
mark: {type: errorbar%s}
"""


def test_caps_drawn_at_vega_lites_tick_width_in_the_bars_colour_at_both_ends(tmp_path):
    """`ticks: true`: a cap centred on each end of each bar, three quarters of the x band's step wide."""
    compiled = compile_text(tmp_path, INTERVALS % ", ticks: true")
    rules = sorted(items(compiled, "rule"), key=lambda rule: rule["x"])
    caps = items(compiled, "rect")
    assert len(rules) == 2 and len(caps) == 4
    step = rules[1]["x"] - rules[0]["x"]
    a, b = np.polyfit([1, 3, 2, 5], [end for rule in rules for end in (rule["y"], rule["y2"])], 1)
    for rule, (low, high) in zip(rules, [(1, 3), (2, 5)]):
        at = [cap for cap in caps if cap["x"] + cap["width"] / 2 == pytest.approx(rule["x"])]
        assert sorted(cap["y"] + cap["height"] / 2 for cap in at) == pytest.approx(sorted((a * low + b, a * high + b)))
    assert {cap["width"] for cap in caps} == {0.75 * step}
    assert {cap["fill"] for cap in caps} == {rule["stroke"] for rule in rules} == {"black"}


def test_caps_of_a_given_width_thickness_and_colour(tmp_path):
    compiled = compile_text(tmp_path, INTERVALS % ", color: 'tab:blue', ticks: {size: 7, thickness: 2, color: 'tab:red'}")
    caps = items(compiled, "rect")
    assert {(cap["width"], cap["height"], cap["fill"]) for cap in caps} == {(7, 2, "#d62728")}
    assert {rule["stroke"] for rule in items(compiled, "rule")} == {"#1f77b4"}


def test_ticks_on_a_mark_that_draws_no_caps_is_refused_with_the_marks_that_do(tmp_path):
    error = first_error(tmp_path, INTERVALS.replace("errorbar%s", "bar, ticks: true"))
    assert str(error.message) == msg.mark_property_not_for("ticks", "bar")
    assert error.hint == msg.mark_property_hint(["boxplot", "errorbar"])
    assert (error.location.line, error.location.column) == (10, 19)


def test_a_box_plots_whiskers_take_caps_at_their_ends(tmp_path):
    compiled = compile_text(tmp_path, """
        data: {dataset: cars}
        mark: {type: boxplot, ticks: {size: 8}}
        encoding:
          x: {field: Origin, type: nominal}
          y: {field: Horsepower, type: quantitative}
        """)
    whiskers = items(compiled, "rule", r"layer_0_layer_1_layer_[01]_marks")
    caps = items(compiled, "rect", r"layer_0_layer_1_layer_[23]_marks")
    origins = {r["Origin"] for r in rows("cars")}
    assert len(whiskers) == len(caps) == 2 * len(origins)
    ends = []  # per box, the whiskers' far ends: the lowest and the highest of their four ends
    for x in {w["x"] for w in whiskers}:
        heights = [y for w in whiskers if w["x"] == x for y in (w["y"], w["y2"])]
        ends += [(x, min(heights)), (x, max(heights))]
    ends.sort()
    centres = sorted((cap["x"] + cap["width"] / 2, cap["y"] + cap["height"] / 2) for cap in caps)
    assert np.allclose(centres, ends, rtol=0, atol=1e-9)
    assert {cap["width"] for cap in caps} == {8}
