"""Stage 5: a checked spec -> Altair -> canonical Vega-Lite."""

from __future__ import annotations

import json
import math

import pytest

from chartc import compile_spec
from chartc.stages.translate.vega import (FORMAT_PRESETS, LOG_LABEL_SEPARATION, POW10_EXPR, apply_format,
                                          channel_type, deep_merge)
from chartc.stages.translate import VEGA_THEME_KEYS
from chartc.infra.jsonout import canonical_json

from conftest import vega_lite_errors

ROWS = """\
data:
  values:
    - {name: a, n: 1, when: "2024-01-01", flag: true}
    - {name: b, n: 2, when: "2024-02-01", flag: false}
    - {name: c, n: 4, when: "2024-03-01", flag: true}
"""


@pytest.fixture
def compile_text(tmp_path):
    """Compile spec text; returns the Vega-Lite dict (checked against Vega-Lite's schema)."""
    def run(text: str, name: str = "spec.yaml") -> dict:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        vega_lite = compile_spec(path).vega_lite
        assert vega_lite_errors(vega_lite) == []
        return vega_lite
    return run


def view(vega_lite: dict, index: int | None = None) -> dict:
    """The unit spec: the chart itself, a facet's inner spec, or one layer."""
    unit = vega_lite.get("spec", vega_lite)
    return unit["layer"][index] if index is not None else unit


# ------------------------------------------------------------------ channels

def test_shorthand_and_inferred_types(compile_text):
    vl = compile_text(ROWS + "mark: point\nencoding:\n  x: n\n  y: when\n  color: name\n  shape: flag\n")
    encoding = view(vl)["encoding"]
    assert encoding["x"] == {"field": "n", "type": "quantitative"}
    assert encoding["y"] == {"field": "when", "type": "temporal"}
    assert encoding["color"] == {"field": "name", "type": "nominal"}
    assert encoding["shape"] == {"field": "flag", "type": "nominal"}


def test_declared_type_wins(compile_text):
    vl = compile_text(ROWS + "mark: bar\nencoding:\n  x: {field: n, type: ordinal}\n  y: {aggregate: count}\n")
    assert view(vl)["encoding"]["x"]["type"] == "ordinal"
    # The count is the engine's: a field named with the title Vega-Lite gives it, nothing stacked on it.
    assert view(vl)["encoding"]["y"] == {"field": "Count of Records", "type": "quantitative", "stack": None}


@pytest.mark.parametrize("props, kind", [
    ({"field": "n"}, "quantitative"), ({"field": "name"}, "nominal"), ({"field": "when"}, "temporal"),
    ({"aggregate": "count"}, "quantitative"), ({"field": "name", "aggregate": "distinct"}, "quantitative"),
    ({"field": "n", "bin": True}, "quantitative"), ({"field": "when", "timeUnit": "month"}, "temporal"),
    ({"field": "name", "timeUnit": "month"}, "ordinal"), ({"field": "missing"}, "nominal"),
])
def test_channel_type(props, kind):
    types = {"n": "quantitative", "name": "nominal", "when": "temporal"}
    assert channel_type(props, types) == kind


def test_every_channel_translates(compile_text):
    text = ROWS + """\
mark: point
encoding:
  x: {field: n, title: N, scale: {type: sqrt, zero: false, nice: true}, axis: {grid: false, orient: top}}
  y: {field: when, scale: {type: time}, axis: {format: "%b", labelAngle: -45, title: When}}
  color: {field: name, legend: {title: Name, orient: bottom}, sort: descending}
  shape: {field: name, legend: null}
  size: {field: n, scale: {type: symlog, range: [10, 100]}, legend: {format: si}}
  opacity: {value: 0.5}
  tooltip: [name, {field: n, format: percent}]
  detail: name
"""
    encoding = view(compile_text(text))["encoding"]
    assert encoding["x"]["scale"] == {"type": "sqrt", "zero": False, "nice": True}
    assert encoding["x"]["axis"] == {"grid": False, "orient": "top"}
    assert encoding["y"]["axis"] == {"format": "%b", "labelAngle": -45, "title": "When"}
    assert encoding["color"]["sort"] == "descending"
    assert encoding["shape"]["legend"] is None
    assert encoding["size"]["scale"] == {"type": "symlog", "range": [10, 100]}
    assert encoding["opacity"] == {"value": 0.5}
    assert encoding["tooltip"] == [{"field": "name", "type": "nominal"},
                                   {"field": "n", "type": "quantitative", "format": FORMAT_PRESETS["percent"][0]}]
    assert encoding["detail"] == {"field": "name", "type": "nominal"}


def test_secondary_channels_take_no_type(compile_text):
    text = ROWS + "mark: rule\nencoding:\n  x: n\n  x2: {field: n, type: quantitative}\n  y: {datum: 2}\n  y2: {value: 0}\n"
    encoding = view(compile_text(text))["encoding"]
    assert encoding["x2"] == {"field": "n"}
    assert encoding["y"] == {"datum": 2} and encoding["y2"] == {"value": 0}


def test_text_channel_and_marks_with_properties(compile_text):
    text = ROWS + "mark: {type: text, align: left, dx: 3, fontSize: 12}\nencoding:\n  x: n\n  text: {field: n, format: .1f}\n"
    vl = compile_text(text)
    assert view(vl)["mark"] == {"type": "text", "align": "left", "dx": 3, "fontSize": 12}
    assert view(vl)["encoding"]["text"] == {"field": "n", "type": "quantitative", "format": ".1f"}


# ------------------------------------------------------------------ formats

def test_format_presets():
    assert apply_format({"format": "pow10"}) == {"labelExpr": POW10_EXPR}
    assert apply_format({"format": "percent"}) == {"format": FORMAT_PRESETS["percent"][0]}
    assert apply_format({"format": "si"})["labelExpr"] == FORMAT_PRESETS["si"][1]
    assert apply_format({"format": "si"}, label_key=None) == {"format": "~s"}
    assert apply_format({"format": ".2f"}) == {"format": ".2f"}  # d3 formats pass through
    assert apply_format({"format": "pow10", "labelExpr": "'x'"}) == {"labelExpr": "'x'"}  # the user's wins


def test_pow10_axis(compile_text):
    text = ROWS + "mark: point\nencoding:\n  x: {field: n, scale: {type: log}, axis: {format: pow10}}\n"
    axis = {"labelExpr": POW10_EXPR, "labelSeparation": LOG_LABEL_SEPARATION}  # log labels kept apart
    assert view(compile_text(text))["encoding"]["x"]["axis"] == axis


# ------------------------------------------------------------------ layers, transforms, facet

def test_layer_encoding_overrides_the_shared_one(compile_text):
    text = ROWS + """\
encoding: {x: n, y: n}
layers:
  - mark: point
  - mark: line
    encoding: {y: {field: n, aggregate: mean}}
"""
    vl = compile_text(text)
    assert view(vl, 0)["encoding"]["y"] == {"field": "n", "type": "quantitative"}
    assert view(vl, 1)["encoding"]["y"] == {"field": "Mean of n", "type": "quantitative", "stack": None}
    assert view(vl, 1)["encoding"]["x"] == view(vl, 0)["encoding"]["x"]


def test_transforms_in_order(compile_text, tmp_path):
    from chartc.pipeline import check_spec
    from chartc.stages.data import flow_data, read_rows
    from chartc.stages.translate import translate_chart

    text = ROWS + """\
transform:
  - filter: {field: n, gte: 2}
  - calculate: datum.n * 2
    as: double
  - fold: [n, double]
    as: [measure, amount]
  - aggregate: [{op: sum, field: amount, as: total}]
    groupby: [measure]
mark: bar
encoding: {x: measure, y: total}
"""
    vl = compile_text(text)
    # The data stage ran them: the chart carries their rows (n is 1, 2, 4: sums of n and 2n over n >= 2).
    assert "transform" not in view(vl)
    assert list(vl["datasets"].values()) == [[{"measure": "n", "total": 6.0}, {"measure": "double", "total": 12.0}]]
    assert view(vl)["encoding"]["y"]["type"] == "quantitative"
    # Emitted for Vega to run instead (what the engine tests compare with): each in order, as written.
    chart, _ = check_spec(tmp_path / "spec.yaml")
    vl = translate_chart(chart, flow_data(chart, read_rows(chart.data)), {}, evaluated=False).vega_lite
    assert view(vl)["transform"] == [
        {"filter": {"field": "n", "gte": 2}},
        {"calculate": "datum.n * 2", "as": "double"},
        {"fold": ["n", "double"], "as": ["measure", "amount"]},
        {"aggregate": [{"op": "sum", "field": "amount", "as": "total"}], "groupby": ["measure"]},
    ]


def test_facet(compile_text):
    text = ROWS + "width: 100\nmark: point\nencoding: {x: n}\nfacet: {column: {field: name, title: null}, columns: 2}\n"
    vl = compile_text(text)
    # With `columns`, the one-field form Vega-Lite wraps (a `column` facet would stay one row).
    assert vl["facet"] == {"field": "name", "title": None, "type": "nominal"}
    assert vl["columns"] == 2
    assert vl["spec"]["width"] == 100 and vl["spec"]["mark"] == {"type": "point"}
    assert "datasets" in vl and "data" in vl


def test_chart_properties_and_inline_data(compile_text):
    text = ROWS + "title: T\nsubtitle: S\ndescription: D\nwidth: 200\nheight: 100\nmark: point\nencoding: {x: n}\n"
    vl = compile_text(text)
    assert vl["title"] == {"text": "T", "subtitle": "S"}
    assert (vl["description"], vl["width"], vl["height"]) == ("D", 200, 100)
    assert "url" not in json.dumps(vl["data"])
    [rows] = vl["datasets"].values()
    assert rows[0] == {"name": "a", "n": 1, "when": "2024-01-01T00:00:00", "flag": True}


# ------------------------------------------------------------------ config, theme, escape hatch

def test_theme_is_valid_vega_lite(compile_text):
    import vl_convert

    vl = compile_text(ROWS + "theme: ggplot2\nmark: point\nencoding: {x: n}\n")
    theme = vl_convert.get_themes()["ggplot2"]
    assert not set(VEGA_THEME_KEYS) & set(vl["config"])
    assert vl["config"]["view"]["fill"] == theme["group"]["fill"]  # ggplot2's grey panel
    assert vl["config"]["axis"] == theme["axis"]


def test_config_merges_over_the_theme(compile_text):
    vl = compile_text(ROWS + "theme: ggplot2\nconfig: {axis: {labelFontSize: 20}}\nmark: point\nencoding: {x: n}\n")
    assert vl["config"]["axis"]["labelFontSize"] == 20
    assert vl["config"]["axis"]["gridColor"] == "#FFFFFF"  # the theme's, kept


def test_vega_lite_escape_hatch_deep_merges(compile_text):
    text = ROWS + """\
mark: point
encoding: {x: {field: n, title: N}}
vega_lite:
  background: "#fafafa"
  encoding: {x: {axis: {tickCount: 3}}}
"""
    vl = compile_text(text)
    assert vl["background"] == "#fafafa"
    assert vl["encoding"]["x"] == {"field": "n", "title": "N", "type": "quantitative", "axis": {"tickCount": 3}}


# ------------------------------------------------------------------ colours as the renderer draws them

def test_matplotlib_colours_are_written_as_hex_everywhere(compile_text):
    vl = compile_text(ROWS + """\
layers:
  - mark: {type: bar, color: 'tab:blue'}
    encoding: {x: name, y: n}
  - mark: {type: rule, color: C3}
    encoding: {y: n, color: {value: '.3'}}
  - mark: point
    encoding: {x: name, y: n, color: {field: name, scale: {range: [C0, 'tab:orange', k]}}}
config: {background: C1, axis: {gridColor: 'tab:gray', labelFontSize: 12}, range: {category: ['.3', w]}}
vega_lite: {config: {view: {fill: 'rgb(30%, 30%, 30%)', stroke: null}}}
""")
    bar, rule, point = vl["layer"]
    assert bar["mark"]["color"] == "#1f77b4"
    assert rule["mark"]["color"] == "#d62728" and rule["encoding"]["color"] == {"value": "#4d4d4d"}
    assert point["encoding"]["color"]["scale"]["range"] == ["#1f77b4", "#ff7f0e", "#000000"]
    config = vl["config"]
    assert (config["background"], config["axis"]) == ("#ff7f0e", {"gridColor": "#7f7f7f", "labelFontSize": 12})
    assert config["range"]["category"] == ["#4d4d4d", "#ffffff"]
    assert (config["view"]["fill"], config["view"]["stroke"]) == ("#4d4d4d", None)


def test_css_colours_are_written_as_given(compile_text):
    vl = compile_text(ROWS + "mark: {type: bar, color: SteelBlue}\nencoding: {x: name, y: n}\n"
                             "config: {background: '#fafafa80', view: {fill: transparent}}\n")
    assert vl["mark"]["color"] == "SteelBlue"
    assert (vl["config"]["background"], vl["config"]["view"]["fill"]) == ("#fafafa80", "transparent")


def test_deep_merge():
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    merged = deep_merge(base, {"a": {"c": [3], "e": {"f": 1}}, "d": {"g": 2}})
    assert merged == {"a": {"b": 1, "c": [3], "e": {"f": 1}}, "d": {"g": 2}}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}  # inputs untouched


# ------------------------------------------------------------------ canonical JSON

def test_canonical_json():
    text = canonical_json({"b": 1, "a": {"z": math.nan, "y": [math.inf, -math.inf, 1.5]}, "c": "é"})
    assert text == '{\n  "a": {\n    "y": [\n      null,\n      null,\n      1.5\n    ],\n    "z": null\n  },\n  "b": 1,\n  "c": "é"\n}\n'
    assert canonical_json({"x": 1, "y": 2}) == canonical_json({"y": 2, "x": 1})


def test_compiled_json_is_canonical(compile_text):
    vl = compile_text(ROWS + "mark: point\nencoding: {x: n, y: n}\n")
    text = canonical_json(vl)
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == vl
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_missing_values_become_null(tmp_path):
    (tmp_path / "rows.csv").write_text("a,b\n1,\n2,3\n")
    (tmp_path / "spec.yaml").write_text("data: {path: rows.csv}\nmark: point\nencoding: {x: a, y: b}\n")
    text = canonical_json(compile_spec(tmp_path / "spec.yaml").vega_lite)
    [rows] = json.loads(text)["datasets"].values()
    assert rows == [{"a": 1, "b": None}, {"a": 2, "b": 3.0}]
    assert "NaN" not in text
