"""``pivot`` and ``impute``: the rows the data stage computes are the rows Vega computes from the raw transforms."""

from __future__ import annotations

import pytest
from test_ir import MIXED, WIDE, compare_with_vega, parsed, transform_chains, vega  # noqa: F401  (a fixture)

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
