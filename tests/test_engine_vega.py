"""The engine's rows are Vega's: every transform compiled to SQL (stages/data/sql.py) against Vega's own evaluation.

1. Generated data (nulls, text in number columns, dates with and without a
   zone, NaN, -0) through generated transforms: the rows DuckDB computes are
   the rows Vega computes for the spec chartc emits, cell by cell (Vega's
   read back from the text marks vl-convert draws, as tests/test_ir.py does).
2. Every case tests/test_ir.py compares with Vega (each transform list of the
   examples and cases, every example chart, the targeted cases) goes through
   the SQL compiler, none left to the interpreter.
3. Every query those make transpiles to Spark SQL (sqlglot): the next backend
   is the same text.
4. Results do not depend on DuckDB's threads: the same query twice, two
   threads, a million rows, the same bytes.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_ir import (DRAWN, ROOT, ROW_KEY, TARGETED, WHOLE, Vega, bare, calculated, close_cell, corpus, estimated,
                     parsed, same_cell, transform_chains)

from chartc.infra.table import NUMBER, Table
from chartc.stages.data import field_types, flow_data, follow_fields, read_rows, scrub_table
from chartc.stages.data import sql as engine_sql
from chartc.stages.data.engine import connect

@pytest.fixture(scope="module", name="vega")
def vega_fixture() -> Vega:
    """Vega through vl-convert, the process in UTC (as chartc renders) before its engine starts."""
    os.environ["TZ"] = "UTC"
    if hasattr(time, "tzset"):
        time.tzset()
    return Vega(pytest.importorskip("vl_convert"))


QUERIES: list[str] = []  # every query the cases below compiled (section 3 transpiles them)


def engine_layers(chart, table: Table) -> tuple:
    """Each layer's rows as the engine computes them (None for a layer it leaves to the interpreter)."""
    fields = follow_fields(chart, field_types(table))
    original = engine_sql.compile_chain

    def recorded(*args, **kwargs):
        query = original(*args, **kwargs)
        QUERIES.append(query.sql)
        return query

    engine_sql.compile_chain = recorded
    try:
        with contextlib.closing(connect()) as connection:
            return engine_sql.evaluate_layers(connection, chart, table, fields.layers, fields.shared)
    finally:
        engine_sql.compile_chain = original


def keyed(chart) -> Table:
    """The chart's rows (scrubbed), each with its index in `ROW_KEY`."""
    table, _ = scrub_table(read_rows(chart.data), chart.data)
    return Table({**table.columns, ROW_KEY: [float(i) for i in range(len(table))]}, {**table.kinds, ROW_KEY: NUMBER})


def compare_engine_with_vega(vega, chart, chain) -> int:
    """One transform list through the engine and through Vega; assert the same rows. Returns their number."""
    from chartc.stages.translate import translate_chart

    table = keyed(chart)
    chart = bare(chart, chain)
    [rows] = engine_layers(chart, table)
    assert rows is not None, "the engine left this chain to the interpreter"
    names = rows.table.names
    theirs = vega.rows(translate_chart(chart, flow_data(chart, table), {}, evaluated=False).vega_lite, names)
    ours = [{name: rows.table[name][i] for name in names} for i in range(len(rows.table))]
    assert len(ours) == len(theirs), f"the engine has {len(ours)} rows, Vega {len(theirs)}"
    exact, close = calculated(chain), estimated(chain)
    differ = [(i, name, mine[name], vegas[name]) for i, (mine, vegas) in enumerate(zip(ours, theirs))
              for name in names if not same_cell(mine[name], vegas[name], parsed=name not in exact)
              and not (name in close and close_cell(mine[name], vegas[name]))]
    assert not differ, f"{len(differ)} cells differ from Vega, e.g. {differ[:6]}"
    return len(ours)


# ------------------------------------------------------------------ 1. generated data and transforms

NUMBERS = [1, 2.5, -3, 0, -0.0, None, "x", "7", " 7 ", "", 1e21, 0.1, 12345678901234567]
TEXTS = ["a", "b", "10", "", None, "null", "A", "é", "😀", "ｚ", "a|b"]
DATES = ["2024-01-05", "2024-02-10T12:30:00", "2023-12-31", None, "2024-01-05T00:00:00"]
ZONED = ["2024-01-05T00:00:00Z", "2024-03-01T10:00:00+02:00", "2023-12-31T23:30:00-01:00", None, "2024-01-05"]
BOOLEANS = [True, False, None]
COLUMNS = {"n": NUMBERS, "t": TEXTS, "d": DATES, "z": ZONED, "b": BOOLEANS}
VALUES = [0, 1, 2.5, -3, "a", "10", "", "2024-01-05", "2024-02-01T00:00:00", True, None]

EXPRESSIONS = [
    "datum.n > 1", "datum.n <= datum.t", "datum.t === 'a'", "isValid(datum.n)", "datum.n", "!datum.b",
    "datum.n * 2 >= 3 || datum.b", "inrange(datum.n, [0, 5])", "indexof(['a', 'b', null], datum.t) !== -1",
    "toDate(datum.d) > datetime(2024, 0, 1)", "datum.t < 'b'", "year(toDate(datum.z)) === 2024",
    "datum.n !== datum.n", "datum.d < '2024-02'", "isValid(datum.t) && isFinite(+datum.t)", "datum.n == null",
    "-datum.n < 0", "datum.b === true", "time(toDate(datum.z)) >= time(datetime(2024, 0, 5))",
    "datum.n % 2 !== 0", "+datum.t % 3 === 1",
]
CALCULATIONS = [
    "datum.n + 1", "datum.t + '!'", "toNumber(datum.t)", "datum.n / 0", "toDate(datum.d)", "datum.b ? 1 : -1",
    "length(datum.t + '')", "datum.n * datum.n", "toDate(datum.z)", "datum.n > 1 ? 'big' : 'small'",
    "datetime(2024, 0, 1)", "datum.n - datum.n", "datum.n % 2.5", "-datum.n % datum.n", "datum.n % (1 / 0)",
    "(datum.n / 0) % 3", "datum.n % 0",
]
OPS = ["count", "valid", "missing", "distinct", "sum", "mean", "median", "q1", "q3", "min", "max", "stdev",
       "variance", "variancep", "stderr", "product"]


@st.composite
def rows(draw):
    count = draw(st.integers(1, 8))
    out = []
    for index in range(count):
        row = {}
        for name, pool in COLUMNS.items():
            if draw(st.integers(0, 9)) or (index == 0 and name == "n"):  # a missing key, now and then
                row[name] = draw(st.sampled_from(pool))
        out.append(row)
    return out


@st.composite
def predicates(draw):
    name = draw(st.sampled_from(sorted(COLUMNS)))
    test = draw(st.sampled_from(["equal", "lt", "lte", "gt", "gte", "oneOf", "range", "valid"]))
    if test == "valid":
        return {"field": name, "valid": draw(st.booleans())}
    if test == "oneOf":  # of one type, as Vega-Lite's schema asks
        kind = draw(st.sampled_from([float, str, bool]))
        pool = [v for v in VALUES if v is not None and type(v) in (kind, int if kind is float else kind)]
        return {"field": name, "oneOf": draw(st.lists(st.sampled_from(pool), max_size=3))}
    if test == "range":
        numbers = [None, -3, 0, 1, 2.5, 10]
        return {"field": name, "range": [draw(st.sampled_from(numbers)), draw(st.sampled_from(numbers))]}
    pool = [v for v in VALUES if v is not None and (test == "equal" or type(v) is not bool)]
    return {"field": name, test: draw(st.sampled_from(pool))}


@st.composite
def transforms(draw):
    steps, made = [], []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["predicate", "expression", "calculate", "fold", "aggregate"]))
        if kind == "predicate":
            steps.append({"filter": draw(predicates())})
        elif kind == "expression":
            steps.append({"filter": draw(st.sampled_from(EXPRESSIONS))})
        elif kind == "calculate":
            name = draw(st.sampled_from(["c", "n", "t"]))
            steps.append({"calculate": draw(st.sampled_from(CALCULATIONS)), "as": name})
            made.append(name)
        elif kind == "fold":
            steps.append({"fold": draw(st.lists(st.sampled_from(["n", "t", "b", "c", "nope"]), min_size=1, max_size=3,
                                                unique=True))})
        else:
            ops = draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=3, unique=True))
            fields = ["n", "t", "b", "d", "c"]
            aggregate = [{"op": op, **({} if op == "count" else {"field": draw(st.sampled_from(fields))}),
                          "as": f"m{index}"} for index, op in enumerate(ops)]
            groupby = draw(st.lists(st.sampled_from(["t", "b", "d", "n", "z"]), max_size=2, unique=True))
            steps.append({"aggregate": aggregate, "groupby": groupby})
            break  # past an aggregate, the fields are its own
    return steps


def spec(values: list[dict], steps: list[dict]) -> str:
    return json.dumps({"data": {"values": values}, "mark": "point", "transform": steps})


@pytest.mark.slow
@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values=rows(), steps=transforms())
def test_generated_transforms_over_generated_rows_give_the_rows_vega_gives(vega, values, steps):
    chart = parsed(spec(values, steps), "generated.json", format="json")
    [chain] = transform_chains(chart)
    table = keyed(chart)
    [rows] = engine_layers(bare(chart, chain), table)
    if rows is None:  # only where the interpreter also says Vega alone knows the rows
        from chartc.stages.data.interpret import interpret_layers

        fields = follow_fields(bare(chart, chain), field_types(table))
        [explained] = interpret_layers(bare(chart, chain), table, fields.layers, fields.shared)
        assert explained.table is None or explained.unknown, "the engine gave up on rows the interpreter knows"
        return
    compare_engine_with_vega(vega, chart, chain)


def test_a_remainder_is_computed_in_sql_as_javascript_computes_it(vega):
    """``%``: an exact fmod with the dividend's sign (-7 % 2 is -1, -4 % 2 is -0), NaN for an infinite dividend
    or a zero divisor, the dividend for an infinite divisor, null as 0: Vega's cells, from SQL (no Python
    function in the query: before, every row called chartc's evaluator)."""
    values = [{"n": n, "m": m} for n, m in [(7, 2), (-7, 2), (-4, 2), (5.5, -2), (-0.0, 3), (1e300, 7e-300), (0, 0),
                                            (None, 3), (3, None), (0.1, 0.01), (2 ** 53, 3)]]
    steps = [{"calculate": "datum.n % datum.m", "as": "r"}, {"calculate": "datum.n % (1 / 0)", "as": "big"},
             {"calculate": "(datum.n / 0) % 3", "as": "inf"}, {"calculate": "-datum.n % 0", "as": "zero"},
             {"filter": "datum.n % 2 !== 1"}]
    chart = parsed(spec(values, steps), "remainders.json", format="json")
    [chain] = transform_chains(chart)
    compiled = []
    original = engine_sql.compile_chain
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine_sql, "compile_chain", lambda *args, **kwargs: compiled.append(
            original(*args, **kwargs)) or compiled[-1])
        assert compare_engine_with_vega(vega, chart, chain) == 9  # 7 and 3 left out
    assert not compiled[0].functions  # (the engine's query; `flow_data`'s for Vega's chart follows)


@pytest.mark.slow
def test_groups_of_one_text_and_other_values_are_vegas_without_its_joined_text(vega):
    """Vega groups by the values' texts joined by '|'. With one text among numbers, booleans and dates the engine
    groups by the values themselves (no Python call per row): the same groups, in the same order, as Vega's; with
    two texts ('a|b', 'c') and ('a', 'b|c') are one group, as in Vega."""
    values = [{"t": t, "u": u, "n": n, "b": b, "d": d}
              for t, u, n, b, d in itertools.product(["a|b", "a", "b|1", "1|b", None, "null"], ["c", "b|c"],
                                                      [1, -0.0, 0, None], [True, None], ["2024-01-05", None])]
    for groupby in (["t", "n"], ["n", "t", "b"], ["d", "t"], ["t", "u"], ["n", "u", "t"]):
        steps = [{"calculate": "toDate(datum.d)", "as": "d"},
                 {"aggregate": [{"op": "count", "as": "k"}, {"op": "sum", "field": "n", "as": "s"}],
                  "groupby": groupby}]
        chart = parsed(spec(values, steps), "grouped.json", format="json")
        [chain] = transform_chains(chart)
        assert compare_engine_with_vega(vega, chart, chain) > 0


# ------------------------------------------------------------------ 2. every case test_ir compares, through SQL

def cases() -> list:
    from chartc.pipeline import check_spec

    found = []
    for name, (text, transform) in TARGETED.items():
        chart = parsed(text % transform)
        found.extend((name, bare(chart, chain)) for chain in transform_chains(chart))
    for name, text in WHOLE.items():
        found.append((name, parsed(DRAWN + text)))
    for path in corpus():
        chart, _ = check_spec(path)
        found.extend((path.relative_to(ROOT).as_posix(), bare(chart, chain)) for chain in transform_chains(chart))
    for path in sorted((ROOT / "specs").glob("*.yaml")):
        chart, _ = check_spec(path)
        found.append((path.relative_to(ROOT).as_posix(), chart))
    return found


CASES = cases()


@pytest.mark.parametrize("case", range(len(CASES)), ids=[name for name, _ in CASES])
def test_every_case_compared_with_vega_is_computed_by_the_engine(case):
    """test_ir.py checks these rows against Vega through `flow_data`: the engine made them (not the interpreter),
    cell for cell, kind for kind and row for row what the interpreter (checked against Vega since v0.2) gives."""
    from chartc.stages.data.interpret import interpret_layers

    name, chart = CASES[case]
    table = keyed(chart)
    layers = engine_layers(chart, table)
    assert all(rows is not None for rows in layers), [index for index, rows in enumerate(layers) if rows is None]
    fields = follow_fields(chart, field_types(table))
    for ours, theirs in zip(layers, interpret_layers(chart, table, fields.layers, fields.shared)):
        assert _same(ours.table.columns, theirs.table.columns)
        assert ours.table.kinds == theirs.table.kinds and ours.origin == theirs.origin


def _same(a: dict, b: dict) -> bool:
    """Equal columns, NaN equal to NaN."""
    def cell(x, y):
        return x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
    return list(a) == list(b) and all(len(a[n]) == len(b[n]) and all(map(cell, a[n], b[n])) for n in a)


# ------------------------------------------------------------------ 3. Spark

def test_every_query_the_cases_make_transpiles_to_spark_sql():
    sqlglot = pytest.importorskip("sqlglot")
    from sqlglot.errors import ErrorLevel

    if not QUERIES:  # run alone: make them
        for _, chart in CASES:
            engine_layers(chart, keyed(chart))
    assert len(QUERIES) >= len(CASES)
    for query in dict.fromkeys(QUERIES):
        [spark] = sqlglot.transpile(query, read="duckdb", write="spark", unsupported_level=ErrorLevel.RAISE)
        assert "SELECT" in spark and "list_sort" not in spark.lower()


# ------------------------------------------------------------------ 4. threads

@pytest.mark.slow
def test_a_query_gives_the_same_bytes_twice_on_two_threads_over_a_million_rows():
    from chartc.ir import Aggregate, AggregateOp, Calculate, Expression, FieldPredicate, Filter
    from chartc.ir import expressions as ex

    count = 10**6
    table = Table({"x": [((i * 7919) % 1000) / 7.0 for i in range(count)], "g": [f"g{i % 13}" for i in range(count)]},
                  {"x": NUMBER, "g": "text"})
    tree = ex.parse("datum.x * 3 + 1")
    chain = (Filter(path=("transform", 0), predicate=FieldPredicate(path=(), field="x", tests=(("gt", 1),))),
             Calculate(path=("transform", 1), expression=Expression(path=(), text="datum.x * 3 + 1", tree=tree),
                       as_="y"),
             Aggregate(path=("transform", 2), ops=(AggregateOp(path=(), op="sum", field="y", as_="s"),
                                                  AggregateOp(path=(), op="mean", field="x", as_="m"),
                                                  AggregateOp(path=(), op="median", field="x", as_="q"),
                                                  AggregateOp(path=(), op="count", as_="n")), groupby=("g",)))
    emitted = [{"field": "x", "gt": 1}, None, None]
    outputs = []
    for _ in range(2):
        with contextlib.closing(connect()) as connection:
            connection.execute("SET threads = 2")
            view = engine_sql.register_table(connection, table, "million")
            query = engine_sql.compile_chain(view, table, chain, {}, [{}, {}, {}, {}], emitted)
            rows, origin = engine_sql.run_query(connection, query, table)
        outputs.append(json.dumps([rows.columns, rows.kinds, origin]).encode())
    assert outputs[0] == outputs[1]
    # Vega's sums: a running float sum in row order, per group, groups in order of first appearance.
    expected: dict[str, float] = {}
    for x, g in zip(table["x"], table["g"]):
        if x > 1:
            expected[g] = expected.get(g, 0.0) + (x * 3 + 1)
    got = json.loads(outputs[0])[0]
    assert got["g"] == list(expected) and got["s"] == list(expected.values())


# ------------------------------------------------------------------ 5. a chart-level filter reaches the facet

FACETED = """\
data:
  values:
    - {g: a, x: 1, y: 2}
    - {g: b, x: 2, y: 3}
    - {g: null, x: 3, y: 4}
    - {g: a, x: 4, y: 1}
    - {g: b, x: 5, y: 6}
    - {g: a, x: 6, y: 3}
    - {g: b, x: 7, y: 5}
transform:
  - filter: %s
encoding: {x: x, y: y}
facet:
  column: {field: g}
layers:
%s"""
LAYERS = {
    "a trend beside the points": "  - mark: point\n  - trend: {method: linear}\n",
    "two layers, each its own filter": "  - mark: point\n  - mark: line\n    transform: [{filter: 'datum.x > 1'}]\n",
}


def drawn_panels(vega_lite: dict) -> tuple[list[str], int]:
    """The facet's column headers as drawn, and the points drawn in all panels (Vega's scenegraph)."""
    import vl_convert

    headers, points = [], 0

    def walk(node, header=False):
        nonlocal points
        if isinstance(node, dict):
            header = header or node.get("role") == "column-header"
            if header and node.get("marktype") == "text":
                headers.extend(str(item.get("text")) for item in node["items"])
            if node.get("marktype") == "symbol":
                points += len(node["items"])
            for child in node.values():
                walk(child, header)
        elif isinstance(node, list):
            for child in node:
                walk(child, header)

    walk(vl_convert.vegalite_to_scenegraph(vega_lite))
    return headers, points


@pytest.mark.slow
@pytest.mark.parametrize("predicate", ["'isValid(datum.g)'", "{field: g, oneOf: [a, b]}"])
@pytest.mark.parametrize("layers", LAYERS, ids=list(LAYERS))
def test_a_chart_level_filter_reaches_the_facet_so_no_empty_panel_is_drawn(tmp_path, predicate, layers):
    from chartc.pipeline import compile_spec

    (tmp_path / ".git").mkdir()
    path = tmp_path / "faceted.yaml"
    path.write_text(FACETED % (predicate, LAYERS[layers]), encoding="utf-8")
    compiled = compile_spec(path)
    headers, points = drawn_panels(compiled.vega_lite)
    assert headers == ["a", "b"]  # no `null` panel for the row the filter drops
    assert points == 6  # every row the filter keeps, once


def test_every_transform_kind_is_compiled_by_one_entry():
    from chartc.ir import Transform, transforms

    kinds = {kind for kind in vars(transforms).values()
             if isinstance(kind, type) and issubclass(kind, Transform) and kind is not Transform}
    # and the bin and time unit floor an encoding's `bin` and `timeUnit` compile to, when the engine aggregates
    # the encoding (`data.encoded`)
    assert set(engine_sql.STEPS) == kinds | {engine_sql.BinStep, engine_sql.TimeUnitStep}
