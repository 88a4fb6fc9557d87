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
