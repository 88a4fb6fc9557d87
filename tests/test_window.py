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

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_vega import compare_engine_with_vega, engine_layers, keyed, vega_fixture  # noqa: F401
from test_ir import bare, parsed, transform_chains

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
