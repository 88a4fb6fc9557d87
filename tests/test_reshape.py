"""``pivot`` and ``impute``: the rows the data stage computes are the rows Vega computes from the raw transforms."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_engine_vega import compare_engine_with_vega, engine_layers, keyed
from test_ir import MIXED, WIDE, bare, compare_with_vega, parsed, transform_chains, vega  # noqa: F401  (a fixture)

LINES = """\
data:
  values:
    - {x: 1, y: 2.5, g: a}
    - {x: 2, y: null, g: a}
    - {x: 4, y: 7, g: a}
    - {x: 1, y: 0.1, g: b}
    - {x: 3, y: 0.2, g: b}
    - {x: 5, y: 0.7, g: b}
    - {x: 2, y: 1, g: c}
    - {x: '3', y: 4, g: null}
mark: point
transform: %s
"""

CASES = {
    "pivot by text": (MIXED, "[{pivot: s, value: n}]"),
    "pivot grouped": (MIXED, "[{pivot: s, value: n, groupby: [t]}]"),
    "pivot of numbers as keys, limited": (LINES, "[{pivot: x, value: y, groupby: [g], limit: 3}]"),
    "pivot mean": (LINES, "[{pivot: g, value: y, groupby: [x], op: mean}]"),
    "pivot count": (LINES, "[{pivot: g, value: y, op: count}]"),
    "pivot count grouped": (LINES, "[{pivot: g, value: y, groupby: [x], op: count}]"),
    "pivot of mixed keys": (WIDE, "[{pivot: k, value: n, groupby: [b]}]"),
    "pivot of booleans and nulls": (WIDE, "[{pivot: b, value: n, op: max}]"),
    "impute a value": (LINES, "[{impute: y, key: x, groupby: [g], value: -1}]"),
    "impute default value": (LINES, "[{impute: y, key: x, groupby: [g]}]"),
    "impute null": (LINES, "[{impute: y, key: x, groupby: [g], value: null}]"),
    "impute with keyvals": (LINES, "[{impute: y, key: x, keyvals: [0, 1, 6], groupby: [g], value: 9}]"),
    "impute a sequence": (LINES, "[{impute: y, key: x, keyvals: {start: 0, stop: 8, step: 2}, groupby: [g]}]"),
    "impute mean": (LINES, "[{impute: y, key: x, groupby: [g], method: mean}]"),
    "impute median": (LINES, "[{impute: y, key: x, groupby: [g], method: median}]"),
    "impute max in a frame": (LINES, "[{impute: y, key: x, groupby: [g], method: max, frame: [-1, 1]}]"),
    "impute min trailing": (LINES, "[{impute: y, key: x, groupby: [g], method: min, frame: [-2, 0]}]"),
    "impute mean without groups": (LINES, "[{impute: y, key: g, method: mean}]"),
    "impute text": (MIXED, "[{impute: t, key: s, groupby: [m], value: none}]"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_pivot_and_impute_give_the_rows_vega_gives(vega, case):  # noqa: F811
    text, transform = CASES[case]
    chart = parsed(text % transform)
    [chain] = transform_chains(chart)
    assert compare_with_vega(vega, chart, chain) > 0


PIVOTED = """\
data:
  values:
    - {year: 2024, crop: wheat, tons: 5}
    - {year: 2023, crop: wheat, tons: 4}
    - {year: 2023, crop: rye, tons: 2}
    - {year: 2023, crop: wheat, tons: 1.5}
transform:
  - {pivot: year, value: tons, groupby: [crop]}
mark: point
encoding: {x: '2023', y: crop}
"""


def test_a_pivots_columns_are_its_keys_sorted_and_each_groups_sum():
    from chartc.stages.data import flow_data, read_rows, scrub_table

    chart = parsed(PIVOTED)
    table, _ = scrub_table(read_rows(chart.data), chart.data)
    [rows] = flow_data(chart, table).layers
    assert rows.table.names == ["crop", "2023", "2024"]
    assert rows.table.records() == [{"crop": "wheat", "2023": 5.5, "2024": 5.0},
                                    {"crop": "rye", "2023": 2.0, "2024": None}]
    assert rows.fields == {"crop": "nominal", "2023": "quantitative", "2024": "quantitative"}


def test_without_rows_the_fields_past_a_pivot_are_open_and_none_is_reported():
    from chartc.stages.check import check_chart
    from chartc.stages.data import OpenFields, follow_fields

    chart = parsed(PIVOTED.replace("x: '2023'", "x: '1999'"))
    fields = follow_fields(chart, {"year": "nominal", "crop": "nominal", "tons": "nominal"})
    assert isinstance(fields.layers[0], OpenFields) and "1999" in fields.layers[0]
    assert check_chart(chart, fields) == []


def running_mean(values: list[float]) -> float:
    """Vega's mean: the running mean of vega-transforms' aggregate ops, in row order (not sum / count)."""
    mean = 0.0
    for count, value in enumerate(values, 1):
        mean += (value - mean) / count
    return mean


def test_impute_adds_each_missing_key_after_the_rows_read_with_the_groups_mean():
    from chartc.stages.data import flow_data, read_rows, scrub_table

    chart = parsed(LINES % "[{impute: y, key: x, groupby: [g], method: mean}]")
    table, _ = scrub_table(read_rows(chart.data), chart.data)
    [rows] = flow_data(chart, table).layers
    added = rows.table.records()[len(table):]
    # Group a lacks x 3 and 5, b lacks 2 and 4, c lacks 1, 4, 3, 5 ('3' and 3 are one key, as in Vega),
    # null lacks 1, 2, 4, 5: each filled with the mean of its group's valid y (a's null too).
    means = {"a": running_mean([2.5, 7]), "b": running_mean([0.1, 0.2, 0.7]), "c": 1.0, None: 4.0}
    assert [(row["g"], row["x"]) for row in added] == [
        ("a", 3), ("a", 5), ("b", 2), ("b", 4), ("c", 1), ("c", 4), ("c", 3), ("c", 5),
        (None, 1), (None, 2), (None, 4), (None, 5)]
    assert [row["y"] for row in added] == [means[row["g"]] for row in added]
    assert rows.table["y"][1] == means["a"]  # a null read is filled too


def test_an_imputes_integer_columns_stay_numbers_as_read():
    """After an impute a column of the data's integers, now beside the floats the impute adds (its key's
    JavaScript numbers), is a number, as the column read was, and as a fold of integers and floats is: M4
    reduces a line over it (before, it had no kind)."""
    from chartc.infra.table import NUMBER
    from chartc.stages.data import flow_data, read_rows, scrub_table

    values = [{"step": step, "g": g, "y": 0.5} for step, g in zip([1, 2, 3], "aab")]
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point",
                               "transform": [{"impute": "y", "key": "step", "groupby": ["g"]}]}), "g.json",
                   format="json")
    table, _ = scrub_table(read_rows(chart.data), chart.data)
    [rows] = flow_data(chart, table).layers
    assert rows.table["step"] == [1, 2, 3, 3.0, 1.0, 2.0]
    assert [type(cell) for cell in rows.table["step"]] == [int] * 3 + [float] * 3
    assert table.kinds["step"] == rows.table.kinds["step"] == NUMBER


def test_a_column_of_integers_past_64_bits_has_no_kind_after_an_impute_as_read():
    from chartc.stages.data.vega import column_kind

    assert column_kind([1, 2.0, None]) == column_kind([1.5, float("nan")]) == "number"
    assert column_kind([2 ** 64, 1.0]) is None and column_kind([True, 1]) is None


# ------------------------------------------------------------------ generated pivots and imputes, in the engine

KEYS = [1, 2, 2.5, -0.0, 0, None, "a", "b", "1", "null", True, False, "2024-01-05"]
NUMBERS = [1, 2.5, -3, 0, -0.0, None, "x", "7", 1e16, 0.1]
GROUPS = ["a", "b", None, "", "c", 1, "1"]
DATES = ["2024-01-05", "2024-02-10T12:30:00", "2023-12-31", None]
PIVOT_OPS = ["sum", "count", "mean", "max", "min", "median", "valid", "missing", "distinct", "product", "q3"]


@st.composite
def reshape_rows(draw):
    count = draw(st.integers(1, 14))
    return [{"g": draw(st.sampled_from(GROUPS)), "h": draw(st.sampled_from(GROUPS[:3])),
             "k": draw(st.sampled_from(KEYS)), "n": draw(st.sampled_from(NUMBERS)),
             "m": draw(st.sampled_from([1, 2, 3, 4.5, None])), "d": draw(st.sampled_from(DATES))}
            for _ in range(count)]


@st.composite
def pivots(draw):
    # not g: a column named '' is not read back from Vega's marks
    step = {"pivot": draw(st.sampled_from(["k", "h", "d", "m"])), "value": draw(st.sampled_from(["n", "m"]))}
    step["groupby"] = [name for name in draw(st.lists(st.sampled_from(["g", "h", "d"]), max_size=2, unique=True))
                       if name != step["pivot"]]
    if draw(st.booleans()):
        step["op"] = draw(st.sampled_from(PIVOT_OPS))
    if draw(st.booleans()):
        step["limit"] = draw(st.integers(1, 3))
    return step


@st.composite
def imputes(draw):
    step = {"impute": draw(st.sampled_from(["n", "m"])), "key": draw(st.sampled_from(["k", "m", "d"]))}
    if step["key"] == step["impute"]:
        step["impute"] = "n"
    step["groupby"] = draw(st.lists(st.sampled_from(["g", "h"]), max_size=2, unique=True))
    method = draw(st.sampled_from(["value", "value", "mean", "median", "max", "min"]))
    if method != "value":
        step["method"] = method
        if draw(st.booleans()):
            step["frame"] = [draw(st.sampled_from([None, 0, -1, -2])), draw(st.sampled_from([None, 0, 1, 2]))]
    else:
        choice = draw(st.sampled_from(["absent", "null", 7, -1.5, "text"]))
        if choice != "absent":
            step["value"] = None if choice == "null" else choice
    if draw(st.booleans()):
        step["keyvals"] = draw(st.lists(st.sampled_from([0, 1, 2, 4.5, "a", "1", None]), min_size=1, max_size=4))
    return step


def engine_against_vega(vega, values: list[dict], steps: list[dict]) -> None:  # noqa: F811
    """The engine computes these rows (not the interpreter), and they are Vega's, cell by cell."""
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": steps}), "generated.json",
                   format="json")
    [chain] = transform_chains(chart)
    [rows] = engine_layers(bare(chart, chain), keyed(chart))
    assert rows is not None, "the engine left the chain to the interpreter"
    compare_engine_with_vega(vega, chart, chain)


@pytest.mark.slow
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=reshape_rows(), step=pivots())
def test_generated_pivots_run_in_the_engine_and_give_the_rows_vega_gives(vega, values, step):  # noqa: F811
    engine_against_vega(vega, values, [step])
    assert_engine_reads_the_interpreters_pivot_columns(values, [step])


def assert_engine_reads_the_interpreters_pivot_columns(values: list[dict], steps: list[dict]) -> None:
    from contextlib import closing

    from chartc.stages.data import field_types, follow_fields
    from chartc.stages.data import sql as engine_sql
    from chartc.stages.data.engine import connect
    from chartc.stages.data.interpret import interpret_layers

    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": steps}), "generated.json",
                   format="json")
    table = keyed(chart)
    fields = follow_fields(chart, field_types(table))
    with closing(connect()) as connection:
        ours = engine_sql.pivot_columns(connection, chart, table, fields.layers, fields.shared)
    theirs: dict = {}
    interpret_layers(chart, table, fields.layers, fields.shared, theirs)
    assert ours == theirs and ours


@pytest.mark.slow
@settings(max_examples=30, derandomize=True, deadline=None, database=None)
@given(values=reshape_rows(), step=pivots(), before=st.sampled_from([
    {"filter": "datum.m !== 4.5"}, {"calculate": "datum.k + ''", "as": "k"}, {"calculate": "datum.m > 2", "as": "h"}]))
def test_a_pivots_columns_after_a_filter_or_a_calculate_are_read_by_the_engine(values, step, before):
    assert_engine_reads_the_interpreters_pivot_columns(values, [before, step])


@pytest.mark.slow
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=reshape_rows(), step=imputes())
def test_generated_imputes_run_in_the_engine_and_give_the_rows_vega_gives(vega, values, step):  # noqa: F811
    engine_against_vega(vega, values, [step])


@pytest.mark.slow
@settings(max_examples=25, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=reshape_rows(), step=imputes(), before=st.sampled_from([
    {"filter": "datum.m !== 4.5"}, {"calculate": "datum.m * 2", "as": "m"},
    {"calculate": "toDate(datum.d)", "as": "d"}]))
def test_generated_imputes_after_a_filter_or_a_calculate_give_the_rows_vega_gives(vega, values, step, before):  # noqa: F811
    engine_against_vega(vega, values, [before, step])


def many_groups(count: int = 400) -> list[dict]:
    """`count` rows over 60 groups and 12 keys (text and numbers), a few missing, some values null."""
    import random

    rng = random.Random(16)
    return [{"g": f"g{rng.randrange(60)}", "k": rng.choice([*range(8), "a", "b", "c", "1"]),
             "n": None if rng.random() < 0.05 else round(rng.uniform(-5, 5), 3)} for _ in range(count)]


@pytest.mark.slow
@pytest.mark.parametrize("step", [
    {"pivot": "k", "value": "n", "groupby": ["g"]},
    {"pivot": "k", "value": "n", "groupby": ["g"], "op": "mean", "limit": 5},
    {"impute": "n", "key": "k", "groupby": ["g"]},
    {"impute": "n", "key": "k", "groupby": ["g"], "method": "median", "keyvals": [9, "z"]},
    {"impute": "n", "key": "k", "groupby": ["g"], "method": "mean", "frame": [-3, 1]},
], ids=["pivot sum", "pivot mean limited", "impute value", "impute median keyvals", "impute mean framed"])
def test_many_groups_give_the_rows_vega_gives(vega, step):  # noqa: F811
    engine_against_vega(vega, many_groups(), [step])


def test_a_pivot_of_many_groups_holds_pandas_sums_in_its_keys_order():
    import pandas as pd

    values = [{**row, "j": index % 11 if index % 7 else 2.5} for index, row in enumerate(many_groups())]
    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point",
                               "transform": [{"pivot": "j", "value": "n", "groupby": ["g"]}]}), "g.json", format="json")
    [chain] = transform_chains(chart)
    [rows] = engine_layers(bare(chart, chain), keyed(chart))
    frame = pd.DataFrame(values)
    keys = sorted(set(frame["j"]))  # numbers: ascending; named by their JavaScript text
    names = [str(int(key)) if key == int(key) else str(key) for key in keys]
    assert rows.table.names == ["g", *names]
    assert rows.table["g"] == list(dict.fromkeys(frame["g"]))  # the groups in order of their first rows
    sums = frame.groupby(["g", "j"])["n"].sum(min_count=1)  # no valid value: undefined in Vega, an empty cell
    for key, name in zip(keys, names):
        expected = [sums.get((group, key), math.nan) for group in rows.table["g"]]
        assert [math.nan if cell is None else cell for cell in rows.table[name]] == pytest.approx(
            expected, abs=1e-12, nan_ok=True)


@pytest.mark.slow
def test_an_imputed_mean_in_a_sliding_frame_is_vegas_window_not_a_fresh_mean(vega):  # noqa: F811
    # Vega's window adds each row entering the frame and removes each leaving it (Welford both ways): after
    # 1e16 leaves, its rounding stays in the mean. A fresh mean of the frame's values (what the interpreter
    # computes) gives 0.6 at x = 3; Vega and the engine give 0.
    values = [{"x": x, "g": "a", "y": y} for x, y in enumerate([1e16, 1, 0.1, 1, 0.3, None, 0.7, 1e-3])]
    step = {"impute": "y", "key": "x", "groupby": ["g"], "method": "mean", "frame": [-2, 2]}
    chart = parsed(json.dumps({"data": {"values": [*values, {"x": 9, "g": "b", "y": 1}]}, "mark": "point",
                               "transform": [step]}), "g.json", format="json")
    [chain] = transform_chains(chart)
    [rows] = engine_layers(bare(chart, chain), keyed(chart))
    assert rows.table["imputed_y_value"][3] == 0.0
    compare_engine_with_vega(vega, chart, chain)


def steps_after(step: dict, after: str) -> list[dict]:
    """A step after an impute reading only what it sets (its key, its field, its groups): the rows it leaves
    aggregated, or filtered while they are held in memory."""
    key, value = step["key"], step["impute"]
    other = next(name for name in ["d", "h", "m", "k"] if name not in (key, value, *step["groupby"]))
    return {"aggregate": [{"aggregate": [{"op": "sum", "field": value, "as": "total"}, {"op": "count", "as": "rows"}],
                           "groupby": [key, *step["groupby"]]}],
            "argmax": [{"aggregate": [{"op": "argmax", "field": value, "as": "top"}], "groupby": step["groupby"]}],
            "filter": [{"filter": f"datum['{value}'] !== 4.5"}],
            "fold": [{"fold": [value, key]}],
            "fold, then an aggregate": [{"fold": [value, key], "as": ["f", "v"]},
                                        {"aggregate": [{"op": "max", "field": "v", "as": "top"}], "groupby": ["f"]}],
            "pivot": [{"pivot": key, "value": value, "groupby": step["groupby"]}],
            "density": [{"density": value, "groupby": step["groupby"]}],
            "impute": [{"impute": value, "key": step["groupby"][0], "groupby": [key], "value": -2}]
            if step["groupby"] else [{"impute": value, "key": key, "value": -2}],
            # a field the rows it adds leave undefined (not null: the filter keeps them)
            "filter on a field it leaves undefined": [{"filter": f"datum['{other}'] !== null"}],
            "aggregate by a field it leaves undefined": [{"aggregate": [{"op": "count", "as": "rows"}],
                                                          "groupby": [other]}],
            }[after]


# Cells of one kind per column: a column of mixed kinds holds values SQL does not tell from their cells (it is
# left to the interpreter after an impute that changes the rows).
ONE_KIND = {"k": ([1, 2, 2.5, -0.0, 0, None], ["a", "b", "1", "null", None, "2024-01-05"], [True, False]),
            "n": ([1, 2.5, -3, 0, -0.0, None, 1e16, 0.1], ["x", "7", None]),
            "g": (["a", "b", None, "", "c", "1"], [1, 2, None]), "h": (["a", "b", None], [True, False])}


@st.composite
def one_kind_rows(draw):
    pools = {name: draw(st.sampled_from(choices)) for name, choices in ONE_KIND.items()}
    count = draw(st.integers(1, 14))
    pools.update(m=[1, 2, 3, 4.5, None], d=DATES)
    rows = [{name: draw(st.sampled_from(pool)) for name, pool in pools.items()} for _ in range(count)]
    for name, pool in pools.items():  # (a column of nulls alone has no kind either)
        if all(row[name] is None for row in rows):
            rows[0][name] = pool[0]
    return rows


@pytest.mark.slow
@settings(max_examples=40, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=one_kind_rows(), step=imputes(), after=st.sampled_from(["aggregate", "argmax", "filter"]))
def test_generated_imputes_followed_by_an_aggregate_or_a_filter_run_in_the_engine(vega, values, step, after):  # noqa: F811
    """The rows are Vega's, cell by cell, and each field's kind is the interpreter's: the kind of the impute's
    cells, measured on the impute's rows (a group's first cell, or the rows a filter keeps, can differ)."""
    steps = [step, *steps_after(step, after)]
    engine_against_vega(vega, values, steps)
    ours, theirs = engine_and_interpreter(values, steps)
    assert ours.table.kinds == theirs.table.kinds
    assert ours.table.records() == theirs.table.records()


@pytest.mark.slow
@settings(max_examples=80, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=one_kind_rows(), step=imputes(),
       after=st.sampled_from(["fold", "fold, then an aggregate", "pivot", "density", "impute",
                              "filter on a field it leaves undefined", "aggregate by a field it leaves undefined"]))
def test_generated_imputes_followed_by_a_fold_pivot_density_or_impute_run_in_the_engine(vega, values, step, after):  # noqa: F811
    """As an aggregate after an impute: the rows are Vega's, cell by cell, each field's kind the interpreter's
    (a fold's value holds the cells of the fields it folds, each of its kind). A later step may read a field the
    impute's rows leave undefined."""
    if after == "density":  # (a density of text is the interpreter's, impute or not)
        assume(all(type(row[step["impute"]]) in (int, float, type(None)) for row in values)
               and type(step.get("value", 0)) in (int, float) and step.get("method", "value") == "value")
    steps = [step, *steps_after(step, after)]
    engine_against_vega(vega, values, steps)
    ours, theirs = engine_and_interpreter(values, steps)
    assert ours.table.kinds == theirs.table.kinds
    assert ours.table.records() == theirs.table.records()


def engine_and_interpreter(values: list[dict], steps: list[dict]) -> tuple:
    """One point layer over these rows and transforms: its rows as the engine computes them (None where it
    leaves them to the interpreter) and as the interpreter does."""
    from chartc.stages.data import field_types, follow_fields
    from chartc.stages.data.interpret import interpret_layers

    chart = parsed(json.dumps({"data": {"values": values}, "mark": "point", "transform": steps}), "generated.json",
                   format="json")
    [chain] = transform_chains(chart)
    chart, table = bare(chart, chain), keyed(chart)
    fields = follow_fields(chart, field_types(table))
    [ours] = engine_layers(chart, table)
    [theirs] = interpret_layers(chart, table, fields.layers, fields.shared)
    return ours, theirs


def test_a_group_of_an_imputed_key_keeps_the_kind_of_the_impute_cells_not_of_its_first_cell():
    """After an impute, an aggregate's groups keep the kind the impute's cells have: here text (the key 'null'
    beside a null, which Vega's aggregate groups together, the null first). The kind of the groups' first cells
    alone would be none."""
    values = [{"k": None, "n": 1, "g": "a"}, {"k": "null", "n": 2, "g": "b"}]
    steps = [{"impute": "n", "key": "k", "groupby": ["g"], "value": 0},
             {"aggregate": [{"op": "sum", "field": "n", "as": "total"}], "groupby": ["k"]}]
    ours, theirs = engine_and_interpreter(values, steps)
    assert ours is not None, "the engine left the chain to the interpreter"
    assert ours.table.records() == theirs.table.records() == [{"k": None, "total": 3.0}]
    assert ours.table.kinds["k"] == theirs.table.kinds["k"] == "text"


@pytest.mark.parametrize("expression, kind", [
    ("datum.n > 1 ? /ab+/ : 'x'", "text"),                 # a RegExp's cell is its text
    ("datum.n > 1 ? [datum.n] : 'x'", None),               # an array's is a list
    ("datum.n > 1 ? datetime(2024, 0, 5) : datum.n > 0 ? datetime(NaN, 0, 1) : 'x'", "date"),  # an Invalid Date's: none
    ("datum.n > 1 ? datetime(2024, 0, 5) : 'x'", None),
    ("datum.n > 1 ? datum.n : datum.nothing", "number"),   # undefined's is none
    ("datum.n > 1 ? 0 / 0 : 'x'", "text"),                 # NaN beside text (NaN is no value)
    ("datum.n > 1 ? true : datum.nothing", None),          # booleans beside a gap
], ids=["regexp", "array", "invalid date", "date and text", "undefined", "nan and text", "booleans and undefined"])
def test_the_kind_of_a_value_of_any_kind_is_its_cells(expression, kind):
    """A computed value of any kind: its kind is `vega.column_kind` of its cells, as the interpreter's, from
    each value's tag computed in SQL from its tagged text."""
    values = [{"n": 1}, {"n": 2}, {"n": 3}]
    ours, theirs = engine_and_interpreter(values, [{"calculate": expression, "as": "v"}])
    assert ours is not None, "the engine left the chain to the interpreter"
    assert ours.table.kinds["v"] == theirs.table.kinds["v"] == kind
