"""``window`` and ``joinaggregate``: the engine's rows are Vega's, and what is drawn is what pandas computes.

1. Generated rows (groups, ties in the sort keys, nulls, NaN, text among
   numbers) through generated windows (every op, frames, peers, sorts,
   groupby) and join-aggregates: the engine's rows are the rows Vega
   computes for the same spec, cell by cell (`test_engine_vega`'s comparison).
2. The specs' charts against pandas: a running total, a rank, a difference
   from the group mean, read from Vega's scenegraph.
3. Bad input: a positioned diagnostic, never a traceback.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_vega import compare_engine_with_vega, engine_layers, keyed, vega_fixture  # noqa: F401
from test_ir import bare, parsed, transform_chains

from chartc import errors as msg
from chartc.stages.data import window
from chartc.stages.data.sql import SPLIT_FRAME_OPS
from chartc.errors import SpecError

from conftest import ROOT, compile_text, layer_items, scene_nodes, vega_dataset

RANKING = ["row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile"]
VALUE = ["lag", "lead", "first_value", "last_value", "nth_value"]
AGGREGATE = ["count", "valid", "missing", "distinct", "sum", "mean", "average", "median", "q1", "q3", "min", "max",
             "stdev", "stdevp", "variance", "variancep", "stderr", "product"]
NUMBERS = [1, 2, 2, 3.5, -1, 0, None, "x", "7", 1e16, 0.1, 0.2]
GROUPS = ["a", "b", None, "a"]
KEYS = [1, 1, 2, None, 3, 2, "b"]


@st.composite
def rows(draw):
    count = draw(st.integers(1, 10))
    return [{"g": draw(st.sampled_from(GROUPS)), "k": draw(st.sampled_from(KEYS)), "n": draw(st.sampled_from(NUMBERS)),
             "m": draw(st.sampled_from(NUMBERS[:6]))} for _ in range(count)]


@st.composite
def windows(draw):
    ops = []
    for index in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(RANKING + VALUE + AGGREGATE))
        entry = {"op": op, "as": f"w{index}"}
        if op in VALUE or (op in AGGREGATE and op != "count"):
            entry["field"] = draw(st.sampled_from(["n", "m", "k", "g"]))
        if op in ("ntile", "nth_value") or (op in ("lag", "lead") and draw(st.booleans())):
            entry["param"] = draw(st.integers(1, 3))
        ops.append(entry)
    step = {"window": ops}
    if draw(st.booleans()):
        step["frame"] = [draw(st.sampled_from([None, 0, -1, -2])), draw(st.sampled_from([None, 0, 1, 3]))]
    if draw(st.booleans()):
        step["ignorePeers"] = draw(st.booleans())
    if draw(st.booleans()):
        step["groupby"] = draw(st.lists(st.sampled_from(["g", "k"]), min_size=1, max_size=2, unique=True))
    if draw(st.integers(0, 3)):
        step["sort"] = [{"field": name, **({"order": "descending"} if draw(st.booleans()) else {})}
                        for name in draw(st.lists(st.sampled_from(["k", "m", "n"]), min_size=1, max_size=2,
                                                  unique=True))]
    return step


@st.composite
def joinaggregates(draw):
    ops = draw(st.lists(st.sampled_from(AGGREGATE), min_size=1, max_size=3, unique=True))
    step = {"joinaggregate": [{"op": op, **({} if op == "count" else {"field": draw(st.sampled_from(["n", "m", "g"]))}),
                               "as": f"j{index}"} for index, op in enumerate(ops)]}
    if draw(st.booleans()):
        step["groupby"] = draw(st.lists(st.sampled_from(["g", "k"]), min_size=1, max_size=2, unique=True))
    return step


def engine_against_vega(vega, values: list[dict], steps: list[dict]) -> None:
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": steps}), "generated.json",
                   format="json")
    [chain] = transform_chains(chart)
    [rows] = engine_layers(bare(chart, chain), keyed(chart))
    assert rows is not None, "the engine left the window to the interpreter"
    compare_engine_with_vega(vega, chart, chain)


@pytest.mark.slow
@settings(max_examples=80, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=rows(), step=windows())
def test_generated_windows_over_generated_rows_give_the_rows_vega_gives(vega, values, step):
    engine_against_vega(vega, values, [step])


@pytest.mark.slow
@settings(max_examples=40, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=rows(), step=joinaggregates(), after=windows())
def test_generated_joinaggregates_then_windows_give_the_rows_vega_gives(vega, values, step, after):
    engine_against_vega(vega, values, [step, after])


NUMERIC = [1, 2, 2, 3.5, -1, 0, -0.0, None, 0.1, 1e16]
IN_SQL = ["count", "valid", "missing", "distinct", "median", "q1", "q3", "min", "max"]
# `c` is NaN where n is 2 and Infinity where n is 3.5 (d3's interpolation next to it is NaN).
WITH_NAN = {"calculate": "datum.n === 2 ? NaN : datum.n === 3.5 ? 1 / 0 : datum.n", "as": "c"}


@st.composite
def numeric_rows(draw):
    count = draw(st.integers(1, 12))
    return [{"g": draw(st.sampled_from(GROUPS)), "k": draw(st.sampled_from([1, 1, 2, None, 3, -0.0])),
             "n": draw(st.sampled_from(NUMERIC)), "m": draw(st.sampled_from(NUMERIC[:6]))} for _ in range(count)]


@st.composite
def sql_windows(draw):
    step = draw(windows())
    for entry in step["window"]:
        if entry["op"] not in RANKING + VALUE + IN_SQL:
            entry["op"] = draw(st.sampled_from(IN_SQL))
            entry.setdefault("field", "n")
            entry.pop("param", None)
        if "field" in entry:
            entry["field"] = draw(st.sampled_from(["n", "m", "k", "c"]))
    for key in step.get("sort", []):
        key["field"] = draw(st.sampled_from(["k", "m", "n", "c"]))
    step["sort"] = list({key["field"]: key for key in step.get("sort", [])}.values())
    if not step["sort"]:
        del step["sort"]
    return step


def python_windows(monkeypatch) -> list:
    """Records every partition Vega's window is run on in Python (the engine's and the interpreter's)."""
    calls = []
    original = window.window_partition

    def recorded(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(window, "window_partition", recorded)
    return calls


@pytest.mark.slow
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=numeric_rows(), step=sql_windows())
def test_windows_over_numbers_run_as_sql_and_give_the_rows_vega_gives(vega, monkeypatch, values, step):
    sql_window_against_vega(vega, monkeypatch, values, step)


def sql_window_against_vega(vega, monkeypatch, values: list[dict], step: dict) -> None:
    """The window after `WITH_NAN` runs in SQL (Vega's window never runs in Python) and gives Vega's rows."""
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": [WITH_NAN, step]}),
                   "generated.json", format="json")
    [chain] = transform_chains(chart)
    with monkeypatch.context() as patch:
        calls = python_windows(patch)
        [rows] = engine_layers(bare(chart, chain), keyed(chart))
    assert rows is not None and calls == []
    compare_engine_with_vega(vega, chart, chain)


@st.composite
def peer_frame_windows(draw):
    """Frames of offsets each end of which widens to its row's peers (a sort, peers not ignored), over the ops
    computed from frames of literal bounds and the ends' peers (`sql.SPLIT_FRAME_OPS`)."""
    ops = [{"op": op, "as": f"w{index}", **({} if op == "count" else {"field": draw(st.sampled_from(["n", "m", "c"]))}),
            **({"param": draw(st.integers(1, 4))} if op == "nth_value" else {})}
           for index, op in enumerate(draw(st.lists(st.sampled_from(sorted(SPLIT_FRAME_OPS)), min_size=1, max_size=4)))]
    frame = [draw(st.sampled_from([None, 0, -1, -2, -5])), draw(st.sampled_from([None, 0, 1, 3]))]
    step = {"window": ops, "frame": frame if frame != [None, None] else [-1, None],
            "sort": [{"field": name, **({"order": "descending"} if draw(st.booleans()) else {})}
                     for name in draw(st.lists(st.sampled_from(["k", "m", "c"]), min_size=1, max_size=2, unique=True))]}
    if draw(st.booleans()):
        step["groupby"] = ["g"]
    return step


@pytest.mark.slow
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=numeric_rows(), step=peer_frame_windows())
def test_frames_widened_to_their_ends_peers_are_literal_frames_in_sql_and_give_the_rows_vega_gives(
        vega, monkeypatch, values, step):
    """Spark takes no frame bound of variable width: each end's peers are read by lag and lead, the frame's
    ends are literal. Ties, nulls, -0 beside 0, NaN and Infinity in the sort keys and values: Vega's rows.
    (A last row of numbers makes each column one of numbers, which SQL sorts as Vega does.)"""
    sql_window_against_vega(vega, monkeypatch, [*values, {"g": "a", "k": 2, "n": 0, "m": 1}], step)


@pytest.mark.slow
def test_a_zero_extreme_over_a_frame_widened_to_its_ends_peers_is_the_first_zero_in_vegas_order(vega):
    """Vega's min and max keep the first of equal extremes in the frame's order: -0 or 0. The frame's first
    zero may lie in its first end's peers, in the rows between the ends, or in the last end's peers; rows of
    zeros of both signs, sorted with ties of 4, over frames of each shape."""
    import random

    rng = random.Random(3)
    values = [{"g": "a", "k": i // 4, "n": rng.choice([0.0, -0.0, 0.0, 1.0]), "m": rng.choice([0.0, -0.0, -1.0])}
              for i in range(40)]
    rng.shuffle(values)
    for frame in ([-1, 1], [-3, 2], [-5, 0], [0, 3], [None, 2], [-2, None], [-6, 6]):
        step = {"window": [{"op": "min", "field": "n", "as": "low"}, {"op": "max", "field": "m", "as": "top"}],
                "sort": [{"field": "k"}], "frame": frame}
        chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": [step]}), "g.json",
                       format="json")
        [chain] = transform_chains(chart)
        assert compare_engine_with_vega(vega, chart, chain) == 40


def test_a_frame_widened_to_its_ends_peers_has_only_literal_bounds(monkeypatch):
    """The SQL of a moving max, count, first value, distinct count and median over 5 rows before to 3 after,
    sorted with ties: every frame bound is a number or UNBOUNDED (Spark refuses "Frame bound value must be a
    literal"), and the distinct counts and medians are numpy's over each row's frame."""
    from chartc.stages.data import sql

    written = []
    monkeypatch.setattr(sql._Chain, "add", lambda chain, text, original=sql._Chain.add: (
        written.append(text), original(chain, text))[1])
    values = [{"g": "ab"[i % 2], "k": i // 3, "n": float(i % 7), "m": 1.0} for i in range(30)]
    step = {"window": [{"op": "max", "field": "n", "as": "top"}, {"op": "count", "as": "seen"},
                       {"op": "first_value", "field": "n", "as": "first"}, {"op": "distinct", "field": "n", "as": "kinds"},
                       {"op": "median", "field": "n", "as": "mid"}], "sort": [{"field": "k"}], "frame": [-5, 3]}
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": [step]}), "g.json",
                   format="json")
    [chain] = transform_chains(chart)
    [rows] = engine_layers(bare(chart, chain), keyed(chart))
    assert rows is not None and written
    bounds = re.findall(r"BETWEEN (\S+) (?:PRECEDING|FOLLOWING|ROW) AND (\S+) (?:PRECEDING|FOLLOWING|ROW)", " ".join(written))
    assert bounds and all(end in ("UNBOUNDED", "CURRENT") or end.isdigit() for pair in bounds for end in pair), bounds
    # each row's frame, counted here: from the first of its 5th predecessor's peers to the last of its 3rd successor's
    keys = [row["k"] for row in values]
    counts = [keys.index(keys[max(0, i - 5)]) for i in range(30)], [
        len(keys) - 1 - keys[::-1].index(keys[min(29, i + 3)]) for i in range(30)]
    assert rows.table["seen"] == [float(last - first + 1) for first, last in zip(*counts)]
    framed = [[row["n"] for row in values[first:last + 1]] for first, last in zip(*counts)]
    assert rows.table["kinds"] == [float(len(set(frame))) for frame in framed]
    assert rows.table["mid"] == [float(np.median(frame)) for frame in framed]


@pytest.mark.slow
def test_a_median_is_d3s_interpolation_to_the_last_bit(vega):
    # quantile_cont gives 5e15 (lo * (1 - d) + hi * d); d3, 1 + (1e16 - 1) * 0.5 = 5000000000000001.
    values = [{"n": 1}, {"n": 1e16}, {"n": 1, "g": "b"}, {"n": 1e16, "g": "b"}, {"n": 3, "g": "b"}]
    steps = [{"joinaggregate": [{"op": "median", "field": "n", "as": "j"}, {"op": "q3", "field": "n", "as": "q"}],
              "groupby": ["g"]},
             {"window": [{"op": "median", "field": "n", "as": "w"}], "frame": [-1, 1]}]
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": steps}), "generated.json",
                   format="json")
    [chain] = transform_chains(chart)
    [rows] = engine_layers(bare(chart, chain), keyed(chart))
    assert rows.table["j"][0] == 5000000000000001.0
    compare_engine_with_vega(vega, chart, chain)


def test_a_rank_lag_and_sliding_max_over_partitions_call_no_python(monkeypatch):
    values = [{"g": index % 7, "x": float(index % 1000)} for index in range(3000)]
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": [
        {"window": [{"op": "rank", "as": "r"}, {"op": "lag", "field": "x", "as": "p"},
                    {"op": "max", "field": "x", "as": "top"}],
         "groupby": ["g"], "sort": [{"field": "x", "order": "descending"}], "frame": [-2, 2]}]}),
        "generated.json", format="json")
    [chain] = transform_chains(chart)
    calls = python_windows(monkeypatch)
    [rows] = engine_layers(bare(chart, chain), keyed(chart))
    assert calls == []
    frame = pd.DataFrame(values)
    frame["seq"] = range(len(frame))
    ordered = frame.sort_values(["x", "seq"], ascending=[False, True], kind="stable")
    expected_rank = ordered.groupby("g").x.rank(method="min", ascending=False)
    expected_lag = ordered.groupby("g").x.shift(1)
    assert rows.table["r"] == expected_rank.sort_index().tolist()
    assert [None if value != value else value for value in expected_lag.sort_index()] == rows.table["p"]


# ------------------------------------------------------------------ 2. the specs, drawn, against pandas

def drawn_scene(name: str) -> dict:
    import vl_convert

    from chartc.pipeline import compile_spec

    return vl_convert.vegalite_to_scenegraph(compile_spec(ROOT / "specs" / f"{name}.yaml").vega_lite)


def test_the_running_total_line_draws_pandas_cumulative_sum_per_year():
    weather = vega_dataset("seattle-weather")
    year = pd.to_datetime(weather.date).dt.year
    expected = weather.groupby(year, sort=False).precipitation.cumsum().to_numpy()
    lines = [node["items"] for node in scene_nodes(drawn_scene("weather_cumulative"), "line")]
    assert [len(line) for line in lines] == year.value_counts(sort=False).tolist()
    points = [item for line in lines for item in line]
    a, b = np.polyfit(expected, [p["y"] for p in points], 1)
    assert np.allclose([(p["y"] - b) / a for p in points], expected, atol=1e-6)


def test_the_rank_chart_draws_pandas_five_largest_totals_in_order():
    totals = vega_dataset("barley").groupby("variety")["yield"].sum()
    top = totals[totals.rank(method="min", ascending=False) <= 5].sort_values(ascending=False)
    graph = drawn_scene("barley_top_varieties")
    bars = layer_items(graph, "rect", "marks")
    assert [label for label in axis_labels(graph) if label in set(totals.index)] == list(top.index)
    widths = sorted((bar["width"] for bar in bars), reverse=True)
    assert np.allclose(np.array(widths) / top.to_numpy(), widths[0] / top.iloc[0], rtol=1e-9)


def test_the_difference_bars_are_each_site_mean_less_the_mean_of_the_site_means():
    means = vega_dataset("barley").groupby("site")["yield"].mean()
    difference = (means - means.mean()).sort_values(ascending=False)
    graph = drawn_scene("barley_site_difference")
    bars = sorted(layer_items(graph, "rect", "marks"), key=lambda bar: bar["y"])
    assert [label for label in axis_labels(graph) if label in set(means.index)] == list(difference.index)
    scale = bars[0]["width"] / abs(difference.iloc[0])
    assert np.allclose([bar["width"] / scale for bar in bars], difference.abs().to_numpy(), rtol=1e-9)
    colours = [bar["fill"] for bar in bars]
    assert colours == ["#1f4e79" if value >= 0 else "#f4a582" for value in difference]


def axis_labels(graph) -> list[str]:
    return [item["text"] for node in scene_nodes(graph, "text", "axis-label") for item in node["items"]]


# ------------------------------------------------------------------ 3. bad input

WINDOW_SPEC = """\
data: {dataset: cars}
transform:
  - %s
mark: point
encoding: {x: Horsepower, y: Acceleration}
"""


@pytest.mark.parametrize("step, message, line, column", [
    ("window: [{op: sum, as: total}]", msg.window_op_needs_field("sum"), 3, 14),
    ("window: [{op: lag, as: previous}]", msg.window_op_needs_field("lag"), 3, 14),
    ("window: [{op: ntile, as: quartile}]", msg.window_op_param("ntile"), 3, 14),
    ("window: [{op: lead, field: Horsepower, param: 0.5, as: next}]", msg.window_op_param("lead"), 3, 51),
    ("window: [{op: mean, field: Horsepower, as: smooth}]\n    frame: [2, 2]", msg.window_frame_order([2, 2]), 4, 12),
    ("window: [{op: rank, as: r}]\n    sort: [{field: Yeer}]", msg.field_not_found("Yeer", ()), 4, 20),
    ("joinaggregate: [{op: mean, field: Horsepowr, as: m}]", msg.field_not_found("Horsepowr", ()), 3, 39),
])
def test_a_bad_window_is_a_positioned_diagnostic(tmp_path, step, message, line, column):
    with pytest.raises(SpecError) as raised:
        compile_text(tmp_path, WINDOW_SPEC % step)
    error = raised.value.errors[0]
    assert (error.message, error.location.line, error.location.column) == (message, line, column)
    assert error.code == message.code


def test_a_misspelt_window_op_is_refused_with_the_op_meant(tmp_path):
    with pytest.raises(SpecError) as raised:
        compile_text(tmp_path, WINDOW_SPEC % "window: [{op: cumsum, field: Horsepower, as: c}]")
    error = raised.value.errors[0]
    assert tuple(error.path) == ("transform", 0, "window", 0, "op") and error.code == "E202"
    assert str(error).endswith("(did you mean 'sum'?)")
    assert (error.location.line, error.location.column) == (3, 19)


def test_a_backwards_frame_hints_the_frame_meant(tmp_path):
    with pytest.raises(SpecError) as raised:
        compile_text(tmp_path, WINDOW_SPEC % "window: [{op: sum, field: Horsepower, as: s}]\n    frame: [3, -1]")
    assert raised.value.errors[0].hint == msg.window_frame_hint([3, -1]) == "write frame: [-3, 1]"
