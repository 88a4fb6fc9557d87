"""``lookup`` and ``argmin``/``argmax``: the engine's rows are Vega's, and what is drawn is what pandas computes.

1. Generated rows and generated second sources (keys as numbers and as text,
   null keys, rows without the key, keys held by several rows, values of
   every kind) through generated lookups, and generated groups (ties, nulls,
   text among numbers, groups with no valid value) through argmin/argmax:
   the engine's rows are the rows Vega computes for the same spec, cell by
   cell (`test_engine_vega`'s comparison), and the engine computed them.
2. The specs' charts against pandas, read from Vega's scenegraph: each
   barley site's means at the latitude merged from the second file, and each
   stock's peak drawn where pandas' ``idxmax`` puts it.
3. Provenance: the second file's hash is in the chart's provenance block and
   in the gallery's manifest, and `build --check` names it once it changes.
4. Bad input: a positioned diagnostic, never a traceback.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_vega import compare_engine_with_vega, engine_layers, keyed, vega_fixture  # noqa: F401
from test_ir import bare, parsed, transform_chains

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.infra.provenance import input_hash

from conftest import ROOT, compile_text, layer_items, scene_nodes, vega_dataset

KEYS = [1, "1", 2, 2.5, None, "x", "null", True, "true", 0]
VALUES = [1, -2.5, "a", "", None, True, False, 0, "2024-01-05"]
NUMBERS = [1, 2, 2, 3.5, -1, 0, None, "x", "7", 0.1]
GROUPS = ["a", "b", None, "a"]


@st.composite
def lookup_rows(draw):
    """The chart's rows: a key now and then missing (the inline data then writes it null)."""
    rows = []
    for index in range(draw(st.integers(1, 8))):
        row = {"i": index, "n": draw(st.sampled_from(NUMBERS))}
        if draw(st.integers(0, 5)):
            row["k"] = draw(st.sampled_from(KEYS))
        rows.append(row)
    return rows


@st.composite
def second_sources(draw):
    """A second source: several rows may share a key; `v` and `w` of every kind."""
    return [{"key": draw(st.sampled_from(KEYS)), "v": draw(st.sampled_from(VALUES)), "w": draw(st.sampled_from(VALUES))}
            for _ in range(draw(st.integers(1, 6)))]


@st.composite
def lookups(draw, source):
    fields = draw(st.lists(st.sampled_from(["v", "w"]), min_size=1, max_size=2, unique=True))
    step = {"lookup": "k", "from": {"data": {"values": source}, "key": "key", "fields": fields}}
    if draw(st.booleans()):
        step["as"] = [f"looked_{name}" for name in fields]
    if draw(st.booleans()):  # Vega-Lite 6 passes a default on only when it is truthy (see `emit_lookup`)
        step["default"] = draw(st.sampled_from(["none", 7, True]))
    return step


def engine_against_vega(vega, values: list[dict], steps: list[dict]) -> int:
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": steps}), "generated.json",
                   format="json")
    [chain] = transform_chains(chart)
    [rows] = engine_layers(bare(chart, chain), keyed(chart))
    assert rows is not None, "the engine left the transform to the interpreter"
    return compare_engine_with_vega(vega, chart, chain)


@pytest.mark.slow
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), values=lookup_rows(), source=second_sources())
def test_generated_lookups_over_generated_rows_give_the_rows_vega_gives(vega, data, values, source):
    engine_against_vega(vega, values, [data.draw(lookups(source))])


@st.composite
def picks(draw):
    ops = draw(st.lists(st.sampled_from(["argmin", "argmax"]), min_size=1, max_size=2))
    step = {"aggregate": [{"op": op, "field": draw(st.sampled_from(["n", "m", "g"])), "as": f"p{index}"}
                          for index, op in enumerate(ops)]}
    if draw(st.integers(0, 2)):
        step["aggregate"].append({"op": "count", "as": "rows"})
    if draw(st.booleans()):
        step["groupby"] = ["g"]
    return step


@st.composite
def pick_rows(draw):
    return [{"g": draw(st.sampled_from(GROUPS)), "n": draw(st.sampled_from(NUMBERS)),
             "m": draw(st.sampled_from(NUMBERS[:6])), "t": draw(st.sampled_from(["p", "q", None]))}
            for _ in range(draw(st.integers(1, 10)))]


@pytest.mark.slow
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=pick_rows(), step=picks())
def test_generated_argmin_and_argmax_give_the_row_vega_picks(vega, values, step):
    engine_against_vega(vega, values, [step])


def test_of_tied_extremes_the_first_row_is_picked_as_vega_picks_it_and_none_in_a_group_without_values(vega):
    values = [{"g": "a", "n": 1, "t": "first low"}, {"g": "a", "n": 3, "t": "first high"},
              {"g": "a", "n": 3, "t": "second high"}, {"g": "a", "n": 1, "t": "second low"},
              {"g": "b", "n": None, "t": "nothing"}, {"g": "c", "n": 2, "t": "only"}]
    steps = [{"aggregate": [{"op": "argmax", "field": "n", "as": "high"}, {"op": "argmin", "field": "n", "as": "low"}],
              "groupby": ["g"]}]
    assert engine_against_vega(vega, values, steps) == 3
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": steps}), "ties.json",
                   format="json")
    [rows] = engine_layers(chart, keyed(chart))
    assert rows.table["high.t"] == ["first high", None, "only"]
    assert rows.table["low.t"] == ["first low", None, "only"]
    assert rows.table["high.n"] == [3, None, 2]


def test_a_lookup_joins_on_the_keys_text_keeps_the_last_row_of_a_key_and_fills_the_default(vega):
    source = [{"key": 1, "v": "first"}, {"key": 1, "v": "second"}, {"key": "null", "v": "text null"},
              {"key": 2, "v": None}]
    values = [{"k": 1}, {"k": "1"}, {"k": 2}, {"k": None}, {"k": 3}]
    steps = [{"lookup": "k", "from": {"data": {"values": source}, "key": "key", "fields": ["v"]}, "default": "none"}]
    assert engine_against_vega(vega, values, steps) == 5
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": steps}), "keys.json",
                   format="json")
    [rows] = engine_layers(chart, keyed(chart))
    # 1 and "1" are one key (the last row of it wins), a null key is "null", a match of null stays null
    assert rows.table["v"] == ["second", "second", None, "text null", "none"]


# ------------------------------------------------------------------ 2. the specs, drawn, against pandas

def drawn_scene(name: str) -> dict:
    import vl_convert

    from chartc.pipeline import compile_spec

    return vl_convert.vegalite_to_scenegraph(compile_spec(ROOT / "specs" / f"{name}.yaml").vega_lite)


def linear_fit(expected, drawn) -> np.ndarray:
    """The drawn pixels mapped back through the one linear scale that fits them best."""
    a, b = np.polyfit(expected, drawn, 1)
    return (np.asarray(drawn) - b) / a


def test_the_latitude_chart_draws_each_sites_means_at_the_latitude_pandas_merges_from_the_second_file():
    barley = vega_dataset("barley")
    means = barley.groupby(["site", "year"], sort=False)["yield"].mean().reset_index()
    sites = pd.read_csv(ROOT / "specs" / "data" / "barley_sites.csv")
    expected = means.merge(sites, on="site", how="left", validate="many_to_one")
    points = layer_items(drawn_scene("barley_site_latitude"), "symbol", "marks")
    assert len(points) == len(expected) == 12
    assert np.allclose(linear_fit(expected.latitude, [p["x"] for p in points]), expected.latitude, atol=1e-9)
    assert np.allclose(linear_fit(expected["yield"], [p["y"] for p in points]), expected["yield"], atol=1e-9)


def test_the_peaks_chart_marks_each_stocks_first_highest_close_where_pandas_idxmax_puts_it():
    stocks = vega_dataset("stocks")
    peaks = stocks.loc[stocks.groupby("symbol", sort=False)["price"].idxmax()]
    graph = drawn_scene("stocks_peaks")
    points = [item for node in scene_nodes(graph, "symbol", "mark") for item in node["items"]]
    assert len(points) == len(peaks) == 5
    times = pd.to_datetime(peaks.date, format="%b %d %Y").astype("int64").to_numpy() / 1e6
    assert np.allclose(linear_fit(times, [p["x"] for p in points]), times, rtol=1e-12)
    assert np.allclose(linear_fit(peaks.price, [p["y"] for p in points]), peaks.price, atol=1e-9)
    lines = [item for node in scene_nodes(graph, "line", "mark") for item in node["items"][:1]]
    assert len(lines) == 5  # every symbol's line beside its peak


# ------------------------------------------------------------------ 3. provenance and staleness

LOOKUP_SPEC = """\
data: {values: [{site: a, y: 1}, {site: b, y: 2}]}
transform:
  - lookup: site
    from: {data: {path: data/sites.csv}, key: site, fields: [lat]}
mark: point
encoding: {x: lat, y: y}
"""


def test_the_second_files_hash_is_in_the_provenance_block(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "sites.csv").write_bytes(b"site,lat\r\na,44.1\r\nb,47.2\r\n")
    block = compile_text(tmp_path, LOOKUP_SPEC).vega_lite["usermeta"]["chartc"]
    assert block["lookups"] == [{"data": "data/sites.csv", "data_hash": input_hash(b"site,lat\na,44.1\nb,47.2\n")}]
    assert block["data"] == "values"


def test_a_chart_without_lookups_has_the_provenance_block_it_had():
    golden = json.loads((ROOT / "tests" / "golden" / "barley_site_difference.vl.json").read_text(encoding="utf-8"))
    assert sorted(golden["usermeta"]["chartc"]) == ["data", "data_hash", "spec_hash", "vega_lite", "version"]


@pytest.mark.slow
def test_build_check_names_a_changed_lookup_file(tmp_path):
    from chartc.commands.gallery import build_gallery, check_gallery
    from chartc.commands.manifest import read_manifest

    specs = tmp_path / "specs"
    (specs / "data").mkdir(parents=True)
    (specs / "sites.yaml").write_text(LOOKUP_SPEC)
    (specs / "data" / "sites.csv").write_text("site,lat\na,44.1\nb,47.2\n")
    gallery = tmp_path / "gallery"
    assert not build_gallery([specs / "sites.yaml"], gallery, jobs=0).failed
    inputs = read_manifest(gallery).charts["sites"].inputs
    assert inputs["../specs/data/sites.csv"] == input_hash(b"site,lat\na,44.1\nb,47.2\n")
    assert not check_gallery([specs / "sites.yaml"], gallery).failed
    (specs / "data" / "sites.csv").write_text("site,lat\na,44.1\nb,47.3\n")
    report = check_gallery([specs / "sites.yaml"], gallery)
    assert report.failed
    changed = msg.chart_input_changed(str(gallery.parent.joinpath("specs/data/sites.csv").relative_to(tmp_path)))
    assert any(changed.split("/")[-1] in problem and "changed" in problem for problem in report.problems), \
        report.problems


# ------------------------------------------------------------------ 4. bad input

BAD = """\
data: {values: [{variety: Manchuria, yield: 27}, {variety: Peatland, yield: 30}]}
transform:
  - lookup: %s
    from:
      data: %s
      key: %s
      fields: %s
mark: bar
encoding: {x: variety, y: yield}
"""
INLINE = "{values: [{name: Manchuria, bred: Minnesota}, {name: Peatland, bred: Ontario}]}"


@pytest.mark.parametrize("parts, message, line, column", [
    (("variety", INLINE, "variety", "[bred]"), msg.lookup_key_not_found("variety", msg.lookup_source("values")), 6, 12),
    (("variety", INLINE, "name", "[bred, bread]"), msg.lookup_field_not_found("bread", msg.lookup_source("values")),
     7, 22),
    (("varietee", INLINE, "name", "[bred]"), msg.field_not_found("varietee", ()), 3, 13),
    (("variety", "{path: data/missing.csv}", "name", "[bred]"), msg.file_not_found("data/missing.csv"), 5, 20),
    (("variety", "{path: /etc/passwd}", "name", "[bred]"), msg.data_path_absolute("/etc/passwd"), 5, 20),
])
def test_a_bad_lookup_is_a_positioned_diagnostic(tmp_path, parts, message, line, column):
    with pytest.raises(SpecError) as raised:
        compile_text(tmp_path, BAD % parts)
    error = raised.value.errors[0]
    assert (error.message, error.location.line, error.location.column) == (message, line, column)
    assert error.code == message.code


def test_an_unknown_key_hints_the_column_meant_and_else_lists_the_columns(tmp_path):
    with pytest.raises(SpecError) as raised:
        compile_text(tmp_path, BAD % ("variety", INLINE, "nam", "[bred]"))
    assert raised.value.errors[0].hint == msg.lookup_columns_hint("nam", ["name", "bred"]) == "did you mean 'name'?"
    assert msg.lookup_columns_hint("zzz", ["name", "bred"]) == "its columns: 'name', 'bred'"


def test_as_names_one_field_each(tmp_path):
    with pytest.raises(SpecError) as raised:
        compile_text(tmp_path, (BAD % ("variety", INLINE, "name", "[bred, name]")).replace(
            "mark: bar", "    as: origin\nmark: bar"))
    error = raised.value.errors[0]
    assert error.message == msg.lookup_as_count(2, 1) and error.code == "E280"
    assert tuple(error.path) == ("transform", 0, "as") and error.hint == msg.lookup_as_count_hint()


def test_a_key_several_rows_hold_is_a_warning_and_the_last_row_is_used(tmp_path):
    source = "{values: [{name: Manchuria, bred: Minnesota}, {name: Manchuria, bred: Ontario}]}"
    compiled = compile_text(tmp_path, BAD % ("variety", source, "name", "[bred]"))
    [warning] = [w for w in compiled.warnings if w.code == "W281"]
    assert warning.message == msg.lookup_duplicate_key("Manchuria", 2, msg.lookup_source("values"))
    assert (warning.location.line, warning.location.column) == (6, 12)
    [rows] = compiled.flow.layers
    assert rows.table["bred"] == ["Ontario", None]


# ------------------------------------------------------------------ 5. an encoding's argmax, computed in the engine

def test_the_best_variety_chart_labels_each_sites_highest_yield_with_the_variety_pandas_idxmax_finds():
    barley = vega_dataset("barley")
    best = barley.loc[barley.groupby("site")["yield"].idxmax()].set_index("site")
    best = best.sort_index()  # the y axis sorts the sites ascending
    graph = drawn_scene("barley_best_variety")
    labels = sorted((item for node in scene_nodes(graph, "text", "mark") for item in node["items"]),
                    key=lambda item: item["y"])
    bars = sorted((item for node in scene_nodes(graph, "rect", "mark") for item in node["items"]),
                  key=lambda item: item["y"])
    assert len(labels) == len(bars) == len(best) == 6
    assert [label["text"] for label in labels] == best.variety.tolist()
    widths = np.array([bar["width"] for bar in bars])
    assert np.allclose(widths / widths.max(), best["yield"] / best["yield"].max(), rtol=1e-9)


TIES = """\
data:
  values:
    - {g: a, n: 1, t: first low}
    - {g: a, n: 3, t: first high}
    - {g: a, n: 3, t: second high}
    - {g: a, n: 1, t: second low}
    - {g: b, n: null, t: nothing}
    - {g: b, n: 2, t: only}
    - {g: c, n: -1, t: alone}
mark: text
encoding:
  y: {field: g, type: nominal}
  text: {field: t, aggregate: {%s: n}}
"""


@pytest.mark.parametrize("op, expected", [("argmax", ["first high", "only", "alone"]),
                                          ("argmin", ["first low", "only", "alone"])])
def test_an_encodings_argmax_is_computed_by_the_engine_and_draws_what_vega_lite_draws(tmp_path, op, expected):
    import vl_convert

    compiled = compile_text(tmp_path, TIES % op)
    [encoded] = compiled.flow.encoded
    assert encoded is not None, "Vega-Lite was left to aggregate the encoding"
    assert encoded.table[f"{op}_n.t"] == expected
    spec = {"data": {"values": [dict(row) for row in compiled.chart.data.records()]}, "mark": "text",
            "encoding": {"y": {"field": "g", "type": "nominal"},
                         "text": {"field": "t", "type": "nominal", "aggregate": {op: "n"}}}}
    theirs = sorted(item["text"] for node in scene_nodes(vl_convert.vegalite_to_scenegraph(spec), "text", "mark")
                    for item in node["items"])
    ours = sorted(item["text"] for node in scene_nodes(vl_convert.vegalite_to_scenegraph(compiled.vega_lite),
                                                       "text", "mark") for item in node["items"])
    assert ours == theirs == sorted(expected)


def test_an_encodings_argmax_of_a_misspelt_field_is_a_positioned_diagnostic(tmp_path):
    with pytest.raises(SpecError) as raised:
        compile_text(tmp_path, (TIES % "argmax").replace("{argmax: n}", "{argmax: m}"))
    error = raised.value.errors[0]
    assert error.message == msg.field_not_found("m", ()) and tuple(error.path) == ("encoding", "text", "aggregate",
                                                                                  "argmax")
    assert (error.location.line, error.location.column) == (13, 40)
