"""Axis colours and conditions that draw a field: what Vega draws of them (its scenegraph).

An axis's `titleColor`, `labelColor`, `tickColor`, `domainColor` and `gridColor` take chartc's
colours (`tab:red` is matplotlib's #d62728); a condition may draw a field where its selection
holds (`{param: brush, field: Cylinders}`) and the channel's `value` elsewhere. The interval's
initial `value` makes the static render draw both sides of the brush, checked here against the
cars read independently (vega_datasets' JSON).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import vega_datasets
import vl_convert as vlc

from chartc import errors as msg
from chartc.errors import SpecError
from conftest import compile_text, scene_nodes


def scene(compiled) -> dict:
    return vlc.vegalite_to_scenegraph(compiled.vega_lite)


def drawn(graph, marktype: str, role: str) -> list[dict]:
    return [item for node in scene_nodes(graph, marktype, role) for item in node["items"]]


def first_error(tmp_path, text: str) -> SpecError:
    with pytest.raises(SpecError) as caught:
        compile_text(tmp_path, text)
    return caught.value.errors[0] if getattr(caught.value, "errors", None) else caught.value


# ------------------------------------------------------------------ axis colours

AXIS = """
data: {dataset: cars}
mark: point
encoding:
  x: {field: Horsepower, axis: {grid: true, tickColor: "tab:green", domainColor: C3, gridColor: "#dddddd"}}
  y: {field: Miles_per_Gallon, axis: {titleColor: "tab:red", labelColor: "tab:blue"}}
"""


def test_axis_colours_are_drawn_on_their_axis_in_chartc_colours(tmp_path):
    graph = scene(compile_text(tmp_path, AXIS))
    titles = {item["text"]: item["fill"] for item in drawn(graph, "text", "axis-title")}
    assert titles == {"Horsepower": "#000", "Miles_per_Gallon": "#d62728"}  # matplotlib's tab:red
    labels = drawn(graph, "text", "axis-label")
    y_labels = {item["fill"] for item in labels if item["text"] in {"0", "10", "20", "30", "40", "50"}}
    assert "#1f77b4" in y_labels  # tab:blue: the y labels (0 ... 45 mpg)
    assert {item["fill"] for item in labels} == {"#000", "#1f77b4"}
    ticks = [node for node in scene_nodes(graph, "rule", "axis-tick")]
    assert sorted({item["stroke"] for node in ticks for item in node["items"]}) == ["#2ca02c", "#888"]
    domains = sorted(item["stroke"] for item in drawn(graph, "rule", "axis-domain"))
    assert domains == ["#888", "#d62728"]  # C3 is matplotlib's fourth cycle colour, red
    assert {item["stroke"] for item in drawn(graph, "rule", "axis-grid")} >= {"#dddddd"}


def test_an_axis_colour_chartc_does_not_know_is_refused_with_a_suggestion(tmp_path):
    text = AXIS.replace('titleColor: "tab:red"', "titleColor: tab:redd")
    error = first_error(tmp_path, text)
    assert error.path == ("encoding", "y", "axis", "titleColor")
    line = text.splitlines()[error.location.line - 1]
    assert line.index("tab:redd") + 1 == error.location.column
    assert "tab:red" in (error.hint or "")


def test_an_unknown_axis_key_suggests_the_colour_key(tmp_path):
    error = first_error(tmp_path, AXIS.replace("titleColor", "titleColour"))
    assert str(error.message) == msg.unknown_key("titleColour")
    assert "titleColor" in (error.hint or "")


# ------------------------------------------------------------------ a condition that draws a field

BRUSHED = """
data: {dataset: cars}
params:
  - name: brush
    select: interval
    value: {x: [100, 150], y: [10, 20]}
mark: {type: point, filled: true}
encoding:
  x: {field: Horsepower, type: quantitative}
  y: {field: Miles_per_Gallon, type: quantitative}
  color: {condition: {param: brush, field: Cylinders, type: ordinal}, value: grey}
"""


def cars() -> list[dict]:
    rows = json.loads(Path(vega_datasets.local_data.cars.filepath).read_text())
    return [r for r in rows if r["Horsepower"] is not None and r["Miles_per_Gallon"] is not None]


def test_a_field_condition_colours_the_brushed_cars_by_cylinders_and_the_rest_grey(tmp_path):
    graph = scene(compile_text(tmp_path, BRUSHED))
    points = drawn(graph, "symbol", "mark")
    inside = [r for r in cars() if 100 <= r["Horsepower"] <= 150 and 10 <= r["Miles_per_Gallon"] <= 20]
    assert len(points) == len(cars())
    assert sum(p["fill"] == "grey" for p in points) == len(cars()) - len(inside)
    coloured = [p["fill"] for p in points if p["fill"] != "grey"]
    assert len(coloured) == len(inside)
    # one colour per cylinder count among the brushed cars; the legend lists every count of the data
    assert len(set(coloured)) == len({r["Cylinders"] for r in inside})
    legend = [item["text"] for item in drawn(graph, "text", "legend-label")]
    assert legend == [str(c) for c in sorted({r["Cylinders"] for r in cars()})]


def test_a_field_condition_takes_its_type_from_the_data_when_none_is_written(tmp_path):
    compiled = compile_text(tmp_path, BRUSHED.replace(", type: ordinal}", "}"))
    assert compiled.vega_lite["encoding"]["color"]["condition"]["type"] == "quantitative"


def test_a_condition_field_not_in_the_data_is_placed_with_a_suggestion(tmp_path):
    error = first_error(tmp_path, BRUSHED.replace("field: Cylinders", "field: Cylindrs"))
    assert str(error.message) == msg.field_not_found("Cylindrs", [])
    assert error.path == ("encoding", "color", "condition", "field")
    assert "Cylinders" in error.hint


def test_a_condition_with_a_value_and_a_field_is_refused(tmp_path):
    error = first_error(tmp_path, BRUSHED.replace("type: ordinal}", "type: ordinal, value: red}"))
    assert (error.code, str(error.message)) == ("E275", msg.condition_value_and_field("color"))
    assert error.path == ("encoding", "color", "condition", "value")


def test_a_field_condition_on_a_channel_with_its_own_field_is_refused(tmp_path):
    error = first_error(tmp_path, BRUSHED.replace(", value: grey}", ", field: Origin}"))
    assert (error.code, str(error.message)) == ("E276", msg.condition_field_without_value("color"))
    assert error.path == ("encoding", "color", "field")
