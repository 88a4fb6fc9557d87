"""Transforms as SQL: each layer's chain of typed transforms compiled to one DuckDB query, with Vega's semantics.

A chart's transforms run once, in the engine (`engine.connect`): every layer's
chain (the chart's transforms, then its own) becomes one query over the rows'
relation, a chain of CTEs, one per transform, read back in the order Vega
keeps the rows (`ORDER BY` a row sequence carried from the source row
number). What the query computes is what Vega computes, value for value:

- Each field holds, in SQL, the JavaScript value Vega holds (`vega.js_cell`
  of each cell, after Vega-Lite's implicit parses, `vega.layer_parses`), in
  one of a few *kinds*: ``NUM`` (DOUBLE; NULL is null, or undefined for a
  measure of no values), ``STR`` (VARCHAR), ``BOOL``, ``DATE`` (a Date as
  its epoch milliseconds, NaN when invalid) or ``ANY`` (any JavaScript
  value as tagged text, `encode`/`decode`: mixed columns, and what an
  expression returns).
- An expression compiles from its tree to SQL where SQL says exactly what
  JavaScript says for those kinds (comparisons with null as 0 and NaN
  false, truthiness, ``inrange``, ``indexof``, ``isValid``, arithmetic on
  numbers, ``%`` as JavaScript's remainder); anything else runs as a DuckDB Python function calling chartc's
  own evaluator (`ir.expressions`) on the row's values: slower, never
  different. A field predicate is the expression Vega-Lite compiles it to
  (`vega.filter_expression`).
- ``fold`` is a UNION ALL of one select per folded field; ``aggregate``
  groups by Vega's group key (the values as JavaScript text), keeps the
  groups in order of first appearance, and computes each op natively where
  SQL is exact (counts, extremes of numbers, d3's quantiles: `d3_quantile`) and otherwise
  with Vega's streaming measures (`vega.measure`) over the group's values in
  row order (`list(x ORDER BY seq)`): a floating sum in Vega's order, not in
  the order threads happen to add.
- ``joinaggregate`` is that aggregate's measures joined back onto each row
  of the group; ``window`` runs as SQL window functions over the partitions
  in Vega's order (ranks, lag/lead, first/last/nth value, counts, extremes,
  d3's quantiles over frames, a frame widened to its ends' peers as a frame
  of literal bounds and those peers: `_Chain.window_in_sql`), except the ops SQL
  cannot match (Vega's streamed sums, means and variances, whose rounding
  follows the rows its frame added and removed) and sorts by text or mixed
  values (JavaScript orders by UTF-16 code units): those call Vega's window
  (`window.window_partition`) once per partition on its values in row order,
  the results unnested back onto the rows by their sequence.
- ``pivot`` is conditional aggregation: its keys are read first (one query
  over the steps before it: the first value of each key text, sorted by
  Vega's comparator in Python, as few values as there are columns), then
  one `aggregate` measure per key of ``CASE WHEN key === k THEN value ELSE
  NaN END`` (`_Chain.pivot`). ``impute`` is the groups crossed with the
  keys (`keyvals`, then the data's in order of first appearance) less the
  pairs present, the new rows numbered after every row read, group by group
  (`_Chain.impute`); a method other than ``value`` is Vega-Lite's window
  over the groups, then a fill of the nulls.

The rows come back as the cells the interpreter gave (`Rows`): a field that
still holds a data row's value gives that row's cell as read (its Python
type kept), a computed one `vega.python_cell` of its value. What this module
does not compile (`NotCompiled`), or an expression whose value cannot be
known without Vega (`ex.Unsupported`) or throws, is left to the caller.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ... import errors as msg
from ...infra.table import (BOOLEAN, DATE, NUMBER, STORED_BOOLEAN, STORED_DATE, STORED_FLOAT, STORED_INTEGER, STORED_TEXT,
                            STORED_VALUE, TEXT, DateOutOfRange, Table, integer_array, scannable)
from ...ir import expressions as ex
from ...ir.nodes import Chart
from ...ir.transforms import (ARG_OPS, RANKING_OPS, VALUE_OPS, Aggregate, AggregateOp, Calculate, Density,
                              FieldPredicate, Filter, Fold, Impute, JoinAggregate, Lookup, Pivot, SelectionPredicate,
                              Transform, Window, WindowOp, arg_field)
from . import vega, window
from .engine import quote_identifier, quote_text
from .interpret import Rows, Unknowable, pivot_keys
from .lookup import default_value, key_text, lookup_index, lookup_table
from .settings import DOUBLE_TEXT
from . import sources
from .sources import (KIND_MEASURED, ORIGIN, EngineTable, KeptOrigin, exact_integer_sql, in_engine, pulled_too_many,
                      register_arrays)

NUM, STR, BOOL, DATE_KIND, ANY = "num", "str", "bool", "date", "any"
TAG = "tag"  # a column of `_Chain.tag`'s letters (a probe of cells' kinds), held as text
SQL_TYPES = {NUM: "DOUBLE", STR: "VARCHAR", BOOL: "BOOLEAN", DATE_KIND: "DOUBLE", ANY: "VARCHAR"}
ROW, SEQ = "__row", "__seq"   # the data row a row came from; the rows' order
# Aggregate ops SQL computes exactly on numbers (the rest go through Vega's streaming measures).
NATIVE_NUMBER_OPS = frozenset({"count", "valid", "missing", "distinct", "min", "max", "median", "q1", "q3"})
QUANTILES = {"q1": 0.25, "median": 0.5, "q3": 0.75}
# Ops whose value over a group skips NaN (Vega's valid values): a pivot's NaN for another key changes nothing.
SKIPPING_NAN = frozenset({"sum", "product", "mean", "average", "variance", "variancep", "stdev", "stdevp", "stderr",
                          "median", "q1", "q3", "min", "max", "valid", "missing"})


@dataclass(frozen=True)
class BinStep:
    """Vega's ``bin`` of a numeric field with its parameters known (`encoded.vega_bins`): the bin's start and end as `as_`.

    Not a transform of the spec: what Vega-Lite compiles a channel's ``bin`` to,
    computed where the engine aggregates an encoding (`encoded`).
    """

    field: str
    start: float
    stop: float
    step: float
    as_: tuple[str, str]


@dataclass(frozen=True)
class TimeUnitStep:
    """Vega's ``timeunit`` floor of a date field, its value replaced: the units' parts of the date, the others their
    defaults (`_Chain.time_unit`).

    Not a transform of the spec: what Vega-Lite compiles a channel's ``timeUnit`` to, computed where the engine
    aggregates an encoding (`encoded`). Each channel reading the field floors it to a subset of `units`, so the
    groups are those Vega-Lite's floors make.
    """

    field: str
    units: frozenset


# The parts of the day a date's time units may join, in each set one built date can hold them all in, a month holding
# its quarter: not a weekday beside a day of the month, a week or a day of the year beside a month, a day of a quarter
# without its month (the 31st is in one month of the second quarter). A row holds those (`_Chain.time_unit`).
ONE_DAY = (frozenset({"quarter", "day"}), frozenset({"month", "day"}), frozenset({"month", "date"}),
           frozenset({"week", "day"}), frozenset({"dayofyear"}))
DAY_PARTS = frozenset().union(*ONE_DAY)
# Window ops that read one row of the frame by its place in the frame's order.
FRAMED_VALUE_OPS = frozenset({"first_value", "last_value", "nth_value"})
# Window ops whose value over a frame widened to its ends' peers is computed from frames of literal bounds and
# the peers of its ends (`_Chain.window_in_sql`): Spark takes no frame of variable width.
SPLIT_FRAME_OPS = frozenset({"count", "valid", "missing", "min", "max", "first_value", "last_value", "nth_value",
                             "distinct", *QUANTILES})
# Bins past which an aggregate groups by the bins' start and end themselves (`_Chain.bin`: the check is a loop).
MAX_INDEXED_BINS = 100_000


class NotCompiled(Exception):
    """A chain this module does not compile to SQL (the caller says why the rows cannot be known).

    `step`: the transform that does not compile (set by `compile_chain`), or None.
    """

    step = None


# ------------------------------------------------------------------ JavaScript values as text

class Codec:
    """JavaScript values to and from the tagged text an ``ANY`` column holds (objects kept aside, by number)."""

    def __init__(self):
        self.objects: list = []

    def encode(self, value) -> str:
        kind = type(value)
        if kind is float:
            return "n" + repr(value)
        if kind is str:
            return "s" + value
        if kind is bool:
            return "b1" if value else "b0"
        if value is None:
            return "l"
        if value is ex.UNDEFINED:
            return "u"
        if kind is ex.JSDate:
            return "d" + repr(value.time)
        self.objects.append(value)
        # (an array or a mapping is a list or a dict cell; any other object's cell is its text: `O`, tagged so)
        return f"{'o' if kind is list or kind is dict else 'O'}{len(self.objects) - 1}"

    def decode(self, text: str | None):
        if text is None:
            return None
        tag, body = text[0], text[1:]
        if tag == "n":
            return float(body)
        if tag == "s":
            return body
        if tag == "b":
            return body == "1"
        if tag == "l":
            return None
        if tag == "u":
            return ex.UNDEFINED
        if tag == "d":
            return ex.JSDate(float(body))
        return self.objects[int(body)]


@dataclass(frozen=True)
class Column:
    """A SQL column holding one field's JavaScript values, of one kind.

    `undefined`: a NULL is JavaScript's undefined (a measure of no values), not null.
    """

    name: str
    kind: str
    undefined: bool = False

    @property
    def sql(self) -> str:
        return quote_identifier(self.name)


@dataclass(frozen=True)
class FieldState:
    """One field between two transforms: its JavaScript value, and where its cell comes from.

    `cell` is ``("source", data field, row column)``, ``("computed", Column)``
    (the cell is `python_cell` of that column's value), ``("fold", key column,
    cell column, row column, {folded field: "source" | "computed" |
    "missing" | an impute's ``("added", ...)`` cell})``, ``("added", cell, Column, flag column, set by the impute)``
    (a field after an impute: `cell` for the rows read, `python_cell` of the
    column's value for the rows it added) or ``("missing",)``. `kind` is the
    table kind of its cells, ``("probe", cte, Column)`` to be measured on the
    rows of that step, or ``("cells", kind before the impute)``: `column_kind`
    of the cells once they are made (``("cells", kind before, probe)``: measured
    on the impute's rows, where a later step changes them).
    """

    value: Column
    cell: tuple
    kind: object
    hidden: bool = False  # a value Vega holds (a parse of a field no row has) in no column of the rows


@dataclass
class Query:
    """One layer's chain as SQL, and how to read its rows back."""

    sql: str
    fields: dict
    functions: list
    probes: dict
    changes_rows: bool
    codec: Codec
    errors: list = field(default_factory=list)
    relations: list = field(default_factory=list)  # (name, arrays) registered before the query runs (lookups)
    steps: str = ""  # the `WITH` of the steps' CTEs, and the last step's name: the query's rows, unordered
    last: str = ""
    measures: str = ""  # the probes' measures, one row of them when selected `WITH` the steps
    raw: dict = field(default_factory=dict)  # data column -> the column carrying its cells (`compile_chain`)
    # The step whose rows give an impute's fields their kinds, where a filter follows it: then only the rows kept
    # in the engine (`kept_rows`) can measure them, and the query is not run on its own.
    kinds_at: str | None = None


# ------------------------------------------------------------------ the compiler

class _Chain:
    """Compiles one chain: CTEs in order, the fields after each, the Python functions the query calls."""

    def __init__(self, view: str, table: Table, codec: Codec, prefix: str):
        self.table = table
        self.codec = codec
        self.prefix = prefix
        self.ctes: list[tuple[str, str]] = []
        self.functions: list = []
        self.relations: list = []
        self.errors: list = []
        self.count = 0
        self.fields: dict[str, FieldState] = {}
        self.extra: list[str] = []  # columns carried for cells (row numbers, cell values)
        self.view = view
        self.row = ROW
        self.grouped: int | None = None  # the first aggregate's groups, over rows left in the engine
        self.run: Callable | None = None  # (sql, functions, errors) -> rows: a query over the steps so far
        self.later: tuple = ()  # the steps after the one being compiled
        self.pivots: dict | None = None  # pivot path -> its columns, recorded when given
        self.only: dict[str, str] = {}  # a pivot's hidden field -> the rows whose value its op does not skip
        # A bin's start or end column -> (its bin's index column, the value written from an index's SQL): an
        # aggregate groups by the index and computes the value on its groups alone (`bin`).
        self.binned: dict[str, tuple[str, Callable[[str], str]]] = {}
        self.raw: dict[str, str] | None = None  # data column -> the column carrying its cells, when asked for
        self.dates: frozenset = frozenset()  # date columns parsed as dates at the start, read from the dates
        # An impute's last step, where filters follow it: its fields' kinds are measured on its rows there.
        self.kinds_at: str | None = None
        # Data column -> a column carried from the start naming the kind of each of its cells (`_Chain.tag`'s
        # letters), where an impute's fields are measured by probes (`impute`); None when not asked for.
        self.cell_tags: dict[str, str] | None = None

    # names
    def fresh(self, stem: str = "c") -> str:
        self.count += 1
        return f"__{stem}{self.count}"

    def function(self, fn: Callable, params: list[str], returns: str) -> Callable[[list[str]], str]:
        """Register a Python function the query calls; returns how to write a call of it on SQL arguments.

        A DOUBLE comes back as its text (DuckDB would turn a returned NaN into NULL).
        """
        name = f"chartc_{self.prefix}_{len(self.functions)}"
        errors = self.errors
        as_text = returns == "DOUBLE"

        def guarded(*args):
            try:
                value = fn(*args)
            except (ex.Unsupported, ex.EvaluationError, RecursionError) as error:
                errors.append(error)
                raise
            return repr(value) if as_text and value is not None else value

        arguments = ", ".join(f"a{index}" for index in range(len(params)))
        scope = {"guarded": guarded}
        exec(f"def call({arguments}):\n    return guarded({arguments})", scope)  # DuckDB reads the arity
        self.functions.append((name, scope["call"], params, "VARCHAR" if as_text else returns))

        def write(args: list[str]) -> str:
            call = f"{name}({', '.join(args)})"
            return f"CAST({call} AS DOUBLE)" if as_text else call

        return write

    def first_values(self, columns: list[str]) -> list[str]:
        """Over rows left in the engine, an aggregate's groups take their first row's `columns` themselves
        (`arg_min_null` by the rows' order, NULL kept), so the rows are scanned once: a join back to the
        first rows scanned them twice (and joined against every row, held them all: 0.7 GB at 10^7 rows).
        The groups and every step after them are held (`held`).

        Returns:
            The measures to add to the groups' select (none over rows in memory: the first rows are joined back).
        """
        if not isinstance(self.table, EngineTable):
            return []
        at = len(self.ctes)  # the groups are the next step
        self.grouped = at if self.grouped is None else min(self.grouped, at)
        return [f"arg_min_null({quote_identifier(name)}, {SEQ}) AS {quote_identifier(name)}" for name in columns]

    def held(self, index: int) -> str:
        """How a step over rows left in the engine is kept: the groups and after, held; before them, not."""
        return " AS MATERIALIZED" if self.grouped is not None and index >= self.grouped else " AS NOT MATERIALIZED"

    @property
    def current(self) -> str:
        return self.ctes[-1][0] if self.ctes else self.view

    def columns(self) -> list[str]:
        """Every SQL column the next step must carry."""
        names = [SEQ, self.row] if self.row == ROW else [SEQ, ROW, self.row]
        for state in self.fields.values():
            names.append(state.value.name)
            names.extend(_cell_columns(state.cell))
        return list(dict.fromkeys([*names, *self.extra]))

    def add(self, select: str) -> str:
        name = self.fresh("s")
        self.ctes.append((name, select))
        return name

    def carried(self, skip=()) -> str:
        return ", ".join(quote_identifier(name) for name in self.columns() if name not in skip)

    # the start: the data's columns as JavaScript values, with the parses above every transform
    def start(self, names: list[str], parses: dict[str, tuple]) -> None:
        parts = [f"{quote_identifier(ROW)} AS {SEQ}", quote_identifier(ROW)]
        for name in names:
            kind = registered_kind(self.table, name)
            read = _source_value(quote_identifier(name), self.table.kinds[name], kind)
            if name in self.dates:  # Vega's parse of its text, from the dates themselves (the text's whole seconds)
                kind, read = NUM, _milliseconds(f"date_trunc('second', {quote_identifier(_own_cells(self.table, name))})")
            column = Column(self.fresh(), kind)
            parts.append(f"{read} AS {column.sql}")
            self.fields[name] = FieldState(column, ("source", name, ROW), self.table.kinds[name])
        if self.raw is not None:  # each cell as read, beside its JavaScript value: `EngineTable.derived`'s columns
            for name in names:
                self.raw[name] = self.fresh("r")
                own = stored_date(self.table, name) or wide_integers(self.table, name) or stored_values(self.table, name)
                read = _own_cells(self.table, name) if own else name
                parts.append(f"{quote_identifier(read)} AS {quote_identifier(self.raw[name])}")
            self.extra = [*self.extra, *self.raw.values()]
        if self.cell_tags is not None:
            for name in names:
                tag = _cell_tag_sql(self.table, name, quote_identifier(name), registered_kind(self.table, name),
                                    in_place=self.raw is not None)
                if tag is not None:
                    self.cell_tags[name] = self.fresh("t")
                    parts.append(f"{tag} AS {quote_identifier(self.cell_tags[name])}")
            self.extra = [*self.extra, *self.cell_tags.values()]
        self.add(f"SELECT {', '.join(parts)} FROM {quote_identifier(self.view)}")
        self.parse(parses, first=True)

    def parse(self, parses: dict, first: bool = False) -> None:
        """Vega-Lite's implicit parses: each field's value column replaced by the parsed one (its cell kept)."""
        rounds = max((len(kinds) if isinstance(kinds, tuple) else 1 for kinds in parses.values()), default=0)
        absent = [name for name in parses if name not in self.fields]
        if absent:  # Vega-Lite parses a field no row has too: undefined becomes null
            carried = self.carried()
            for name in absent:
                self.fields[name] = FieldState(Column(self.fresh(), ANY), ("missing",), None, hidden=True)
            undefined = quote_text(self.codec.encode(ex.UNDEFINED))
            self.add(f"SELECT {carried}, " + ", ".join(f"{undefined} AS {self.fields[name].value.sql}"
                                                         for name in absent) + f" FROM {quote_identifier(self.current)}")
        for round_ in range(rounds):
            before, new = set(self.columns()), []
            for name, kinds in parses.items():
                kinds = kinds if isinstance(kinds, tuple) else (kinds,)
                state = self.fields.get(name)
                if state is None or round_ >= len(kinds):
                    continue
                sql, value = self.parse_value(state.value, kinds[round_], name if first and not round_ else None)
                if sql is not None:
                    new.append(f"{sql} AS {value.sql}")
                    self.fields[name] = FieldState(value, state.cell, state.kind, state.hidden)
            if new:
                kept = [quote_identifier(name) for name in self.columns() if name in before]
                self.add(f"SELECT {', '.join(kept + new)} FROM {quote_identifier(self.current)}")

    def parse_value(self, value: Column, kind: str, source: str | None) -> tuple[str | None, Column]:
        """One parse of a value column: (its SQL, the parsed column), or (None, the same column) when it changes nothing."""
        if kind in ("number", "date") and value.kind == NUM:
            return None, value  # numbers stay numbers (`vega.parse_cells`)
        if kind == "string" and value.kind == STR:  # Vega's toString: '' is null
            out = Column(self.fresh(), STR)
            return f"CASE WHEN {value.sql} <> '' THEN {value.sql} END", out
        if kind == "date" and source is not None and self.table.kinds.get(source) == DATE and value.kind == STR:
            # Zone-free ISO text of a date column: Date.parse reads it as UTC (the renderer runs in UTC),
            # and Vega's parse keeps the number it returns.
            return _milliseconds(f"CAST({value.sql} AS TIMESTAMP)"), Column(self.fresh(), NUM)
        run = vega.PARSERS[kind]
        decode = _decoder(value, self.codec)
        target = NUM if (kind in ("number", "date") and value.kind == STR) else ANY
        encode = _encoder(target, self.codec)

        def parse_one(cell):
            js = decode(cell)
            if js is None or (type(js) is float and kind != "string"):
                return encode(js)
            return encode(run({"v": js}))

        out = Column(self.fresh(), target)
        function = self.function(parse_one, [SQL_TYPES[value.kind]], SQL_TYPES[target])
        return function([value.sql]), out

    # one function per kind of transform
    def filter(self, step: Filter, emitted: dict | None) -> None:
        predicate = step.predicate
        if isinstance(predicate, SelectionPredicate):
            raise NotCompiled("a filter by a selection")
        if isinstance(predicate, FieldPredicate):
            if not predicate.field or emitted is None:
                raise NotCompiled("a field predicate on no field")
            tree = ex.parse(vega.filter_expression(emitted))
        else:
            if predicate.tree is None:
                raise NotCompiled("an expression that does not parse")
            tree = predicate.tree
        test = _Expressions(self).truthy(tree)
        self.add(f"SELECT {self.carried()} FROM {quote_identifier(self.current)} WHERE {test}")

    def calculate(self, step: Calculate) -> None:
        if step.expression.tree is None:
            raise NotCompiled("an expression that does not parse")
        sql, value = _Expressions(self).value(step.expression.tree)
        previous = self.current
        carried = self.carried()
        self.fields[step.as_] = FieldState(value, ("computed", value), None)
        cte = self.add(f"SELECT {carried}, {sql} AS {value.sql} FROM {quote_identifier(previous)}")
        self.fields[step.as_] = FieldState(value, ("computed", value), ("probe", cte, value))

    def fold(self, step: Fold) -> None:
        key_name, value_name = step.as_
        folded = []
        for name in step.fields:
            state = self.fields.get(name)
            if state is not None and state.cell[0] == "fold":
                raise NotCompiled("a fold of a fold's value")
            folded.append(state)
        kinds = {state.value.kind for state in folded if state is not None} | (
            {ANY} if any(state is None for state in folded) else set())
        target = kinds.pop() if len(kinds) == 1 else ANY
        undefined = target == NUM and any(state is not None and state.value.undefined for state in folded)
        if target == NUM and any(state is not None and not state.value.undefined for state in folded) and undefined:
            target, undefined = ANY, False
        key, value, cell, index = Column(self.fresh(), STR), Column(self.fresh(), target, undefined), \
            Column(self.fresh(), ANY), self.fresh("j")
        skip = {ROW}
        carried = [quote_identifier(name) for name in self.columns() if name not in skip]
        selects = []
        mapping = {}
        for position, (name, state) in enumerate(zip(step.fields, folded)):
            if state is None:
                js, cell_sql, mapping[name] = quote_text(self.codec.encode(ex.UNDEFINED)), "NULL", "missing"
                js = js if target == ANY else "NULL"
            else:
                js = _convert(state.value, target, self)
                if state.cell[0] == "computed":
                    cell_sql, mapping[name] = _convert(state.cell[1], ANY, self), "computed"
                elif state.cell[0] == "added":  # an impute's field: its cell's columns are carried on each row
                    cell_sql, mapping[name] = "NULL", state.cell
                else:
                    cell_sql, mapping[name] = "NULL", state.cell[0]
            selects.append(f"SELECT {', '.join(carried)}, {quote_identifier(ROW)}, {quote_text(name)} AS {key.sql}, "
                           f"{js} AS {value.sql}, CAST({cell_sql} AS VARCHAR) AS {cell.sql}, {position} AS {index} "
                           f"FROM {quote_identifier(self.current)}")
        if not selects:
            raise NotCompiled("a fold of no fields")
        union = self.add(" UNION ALL ".join(selects))
        kinds_of = [self.table.kinds.get(name) if (state is not None and state.cell[0] == "source") else (
            state.kind if state is not None else None) for name, state in zip(step.fields, folded)]
        value_kind = ("union", tuple(kinds_of))  # one kind if every folded field's is the same, else None
        self.fields[key_name] = FieldState(key, ("computed", key), TEXT)
        self.fields[value_name] = FieldState(value, ("fold", key, cell, ROW, mapping), value_kind)
        self.extra = [name for name in self.extra]
        # Each row's folded rows follow it in the fields' order: numbered apart by the field's position, not by a
        # row_number() over every row (a sort; on Spark, one task).
        live = [name for name in self.columns() if name != SEQ]
        self.add(f"SELECT {SEQ} * {len(selects)} + {index} AS {SEQ}, "
                 f"{', '.join(quote_identifier(name) for name in live)} FROM {quote_identifier(union)}")

    def bin(self, step: BinStep) -> None:
        """Vega's bin of each value, and the bin's end (vega-transforms' ``Bin``, EPSILON 1e-14 included).

        NaN is tested first: DuckDB orders it above every number, JavaScript compares it false. The bin's
        index (NaN, NULL and the infinities kept as they are) is carried too: an aggregate grouping by the
        bin groups by that one number, and computes the start and end on its groups only, not on every row
        (the same doubles: the same operations on the same index). Only where no two indexes give the same
        start (a step under the start's precision), so the groups are the same.
        """
        state = self.fields.get(step.field)
        if state is None or state.value.kind != NUM or state.value.undefined:
            raise NotCompiled("a bin of a field that is not a number")
        x, (start, _), (step_, _), (last, _) = (state.value.sql, _literal(step.start), _literal(step.step),
                                                  _literal(step.stop - step.step))
        index, low, high = Column(self.fresh(), NUM), Column(self.fresh(), NUM), Column(self.fresh(), NUM)
        position = (f"CASE WHEN {x} IS NULL THEN NULL WHEN isnan({x}) THEN {x} "
                    f"WHEN {x} < {start} THEN CAST('-inf' AS DOUBLE) WHEN {x} > {_literal(step.stop)[0]} "
                    f"THEN CAST('inf' AS DOUBLE) "
                    f"ELSE floor(CAST('1e-14' AS DOUBLE) + (greatest({start}, least({x}, {last})) "
                    f"- {start}) / {step_}) END")

        def start_of(i: str) -> str:
            return f"CASE WHEN isfinite({i}) THEN {start} + {step_} * {i} ELSE {i} END"

        def end_of(i: str) -> str:
            value = start_of(i)
            return f"CASE WHEN {i} IS NULL THEN NULL ELSE {start} + {step_} * (1 + ({value} - {start}) / {step_}) END"

        carried = self.carried()
        indexed = self.add(f"SELECT {carried}, {position} AS {index.sql} FROM {quote_identifier(self.current)}")
        self.add(f"SELECT {carried}, {index.sql}, {start_of(index.sql)} AS {low.sql}, {end_of(index.sql)} AS "
                 f"{high.sql} FROM {quote_identifier(indexed)}")
        self.fields[step.as_[0]] = FieldState(low, ("computed", low), NUMBER)
        self.fields[step.as_[1]] = FieldState(high, ("computed", high), NUMBER)
        self.extra = [*self.extra, index.name]
        count = round((step.stop - step.start) / step.step)
        if count <= MAX_INDEXED_BINS and len({step.start + step.step * i for i in range(count + 1)}) == count + 1:
            self.binned[low.name] = (index.name, start_of)
            self.binned[high.name] = (index.name, end_of)

    def time_unit(self, step: TimeUnitStep) -> None:
        """A date standing for vega-time's ``timeFloor`` of each row (local time, which is UTC) by every unit whose
        parts `step.units` joins: a date holding each of those parts as the row does, the others their defaults
        (2012, January or the quarter's first month, the 1st, midnight). A null stays null and an invalid date
        invalid, as vega-transforms' ``TimeUnit`` leaves them.

        Where one unit floors alone, this is vega-time's floor, but for a week without its year: week 0 of 2012 has
        no day (it began on a Sunday), so its dates stand in 2018's (which began on a Monday). A weekday beside a
        month is that weekday's first in the month (vega-time's floor would keep the month, not the weekday); a week
        beside its year, the week's first day in that year.

        Parts no built date holds together (`ONE_DAY`: a weekday beside a day of the month, which differs by month
        and year) are held by a row: each group's first row's time. Each of its floors is its group's, as of any of
        the group's rows; its milliseconds are its first row's, which Vega keeps (`_group_key`: whole seconds)."""
        state = self.fields.get(step.field)
        if state is None or state.value.kind not in (NUM, DATE_KIND) or state.value.undefined:
            raise NotCompiled("a time unit of a field that is not a date")
        value, units = state.value.sql, step.units
        days = units & DAY_PARTS - ({"quarter"} if "month" in units else set())
        built = any(days <= able for able in ONE_DAY)
        # A Date's time is its number truncated (a number of milliseconds may have a fraction): CAST rounds.
        whole = self.fresh("t")
        dated = self.add(f"SELECT *, CAST(CASE WHEN {value} < 0 THEN ceil({value}) ELSE floor({value}) END AS BIGINT) "
                         f"AS {quote_identifier(whole)} FROM {quote_identifier(self.current)}")
        t = quote_identifier(whole)
        date = f"epoch_ms({t})"
        weekday = _weekday(t)  # 0 for Sunday
        day_of_year = f"dayofyear({date})"
        # d3's week number (timeWeek.count from the year's start): the Sundays from the 1st of January to the date.
        january_first = f"(({weekday} - {day_of_year} + 1) % 7 + 7) % 7"
        week = f"CAST(floor(({day_of_year} + ({january_first} + 6) % 7) / 7) AS BIGINT)"

        def part(unit: str, function: str, default: str) -> str:
            return f"{function}({date})" if unit in units else default

        if not built:
            parts = {"year": "year", "quarter": "quarter", "month": "month", "date": "day", "hours": "hour",
                     "minutes": "minute", "seconds": "second"}
            keys = [f"{function}({date})" for unit, function in parts.items() if unit in units]
            keys += [key for unit, key in (("week", week), ("day", weekday), ("dayofyear", day_of_year)) if unit in units]
            floored = (f"CAST(first_value({t}) OVER (PARTITION BY {', '.join(keys)} ORDER BY {SEQ} "
                       f"ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS DOUBLE)")
            self._floored(step.field, value, floored, dated)
            return

        year = part("year", "year", "2012")
        month = part("month", "month", f"(quarter({date}) - 1) * 3 + 1" if "quarter" in units else "1")
        if "week" in units and "year" in units:  # the week's first day of that year
            days = f"{day_of_year} - 1" if "day" in units else f"greatest({day_of_year} - 1 - {weekday}, 0)"
        elif "week" in units:
            year = f"CASE WHEN {week} = 0 THEN 2018 ELSE 2012 END"
            on = (f"{weekday} - 1", f"{weekday}") if "day" in units else ("0", "0")
            days = f"CASE WHEN {week} = 0 THEN {on[0]} ELSE 7 * {week} - 7 + {on[1]} END"
        elif "dayofyear" in units:
            days = f"{day_of_year} - 1"
        elif "day" in units and {"year", "quarter", "month"} & units:  # the weekday's first in the month
            first = _weekday(f"CAST({_milliseconds(f'make_timestamp({year}, {month}, 1, 0, 0, 0)')} AS BIGINT)")
            days = f"({weekday} - {first} + 7) % 7"
        elif "day" in units:  # that day of 2012's first week (Sunday the 1st)
            days = weekday
        else:
            days = part("date", "day", "1") + " - 1"
        start = _milliseconds(f"make_timestamp({year}, {month}, 1, {part('hours', 'hour', '0')}, "
                              f"{part('minutes', 'minute', '0')}, {part('seconds', 'second', '0')})")
        # Spark's parts of a date are INTs, whose product in milliseconds would overflow.
        floored = f"{start} + CAST({days} AS BIGINT) * 86400000" + (f" + (({t} % 1000) + 1000) % 1000"
                                                                 if "milliseconds" in units else "")
        self._floored(step.field, value, floored, dated)

    def _floored(self, field: str, value: str, floored: str, dated: str) -> None:
        """The field's rows as `floored` (SQL over `dated`), a null or NaN left as it was."""
        out = Column(self.fresh(), DATE_KIND)
        self.add(f"SELECT {self.carried()}, CASE WHEN {value} IS NULL OR isnan({value}) THEN {value} ELSE {floored} "
                 f"END AS {out.sql} FROM {quote_identifier(dated)}")
        self.fields[field] = FieldState(out, ("computed", out), DATE)

    def aggregate(self, step: Aggregate) -> None:
        for op in step.ops:
            if op.op in vega.RANDOM_OPS:
                raise NotCompiled(f"the {op.op} op")
        previous = quote_identifier(self.current)
        keys, indexed = [], {}  # indexed: a binned field -> its bin's index column and its value from the index
        carried = self.columns()
        for name in step.groupby:
            state = self.fields.get(name)
            binned = self.binned.get(state.value.name) if state is not None else None
            if binned is not None and binned[0] in carried:
                indexed[name] = binned
                keys.append(quote_identifier(binned[0]))
            else:
                keys.append(_group_key(state.value, self) if state is not None else "NULL")
        if self.texts_join(step.groupby):
            keys, indexed = [self.joined_key(step.groupby)], {}
        keys = list(dict.fromkeys(keys))  # a bin's start and end: one index
        key_names = [self.fresh("k") for _ in keys]
        key_of = dict(zip(keys, key_names))
        measures, out_fields = [], {}
        first = self.fresh("first")
        for name in step.groupby:
            out_fields[name] = None  # filled below, in order
        picks = []  # (op, the column of the row it picks)
        for op in step.ops:
            state = self.fields.get(op.field) if op.field is not None else None
            if op.op in ARG_OPS:
                sql, column = self.arg_measure(op.op, state)
                measures.append(f"{sql} AS {column.sql}")
                picks.append((op, column))
                for name, held in self.fields.items():
                    if not held.hidden:
                        out_fields[arg_field(op.as_, name)] = None  # filled below, in order
                continue
            sql, column = self.measure(op.op, state, op.field is not None, self.only.get(op.field))
            measures.append(f"{sql} AS {column.sql}")
            out_fields[op.as_] = ("measure", column)
        having = "" if step.groupby else " HAVING count(*) > 0"
        group = f" GROUP BY {', '.join(quote_identifier(n) for n in key_names)}" if keys else ""
        # The keys are computed under their own names in a first select, grouped by them after.
        key_exprs = ", ".join(f"{k} AS {quote_identifier(n)}" for k, n in zip(keys, key_names))
        base = self.add(f"SELECT *{', ' + key_exprs if keys else ''} FROM {previous}") if keys else self.current
        # The group's first row gives its groupby fields (value and cell), as Vega keeps them.
        lazy = isinstance(self.table, EngineTable)
        row = "g" if lazy else "p"
        carry, firsts = [], []
        fields: dict[str, FieldState] = {}
        for name in step.groupby:
            state = self.fields.get(name)
            if state is None:
                column = Column(self.fresh(), ANY)
                carry.append(f"{quote_text(self.codec.encode(ex.UNDEFINED))} AS {column.sql}")
                fields[name] = FieldState(column, ("missing",), None)
                continue
            renamed = {}
            for old in [state.value.name, *_cell_columns(state.cell)]:
                if old not in renamed:
                    renamed[old] = self.fresh()
                    if name in indexed:  # the group's key is its bin's index: the value is computed from it
                        index, value = indexed[name]
                        carry.append(f"{value('g.' + quote_identifier(key_of[quote_identifier(index)]))} "
                                     f"AS {quote_identifier(renamed[old])}")
                        continue
                    firsts.append(old)
                    carry.append(f"{row}.{quote_identifier(old)} AS {quote_identifier(renamed[old])}")
            fields[name] = FieldState(_renamed(state.value, renamed), _renamed_cell(state.cell, renamed), state.kind)
        indexes = [quote_identifier(key_of[quote_identifier(index)]) for index in
                   dict.fromkeys(index for index, _ in indexed.values())]
        select = [f"min({SEQ}) AS {first}", *measures, *indexes, *self.first_values(list(dict.fromkeys(firsts)))]
        grouped = self.add(f"SELECT {', '.join(select)} FROM {quote_identifier(base)}{group}{having}")
        joined = "" if lazy else f" JOIN {previous} AS p ON p.{SEQ} = g.{first}"
        # An argmin/argmax's row gives every field (value and cell) under `arg_field` names; none where it picks none.
        joins = []
        for index, (op, column) in enumerate(picks):
            alias = f"a{index}"
            joins.append(f" LEFT JOIN {previous} AS {alias} ON {alias}.{SEQ} = g.{column.sql}")
            for name, held in self.fields.items():
                if held.hidden:
                    continue
                renamed = {}
                for old in [held.value.name, *_cell_columns(held.cell)]:
                    if old not in renamed:
                        renamed[old] = self.fresh()
                        carry.append(f"{alias}.{quote_identifier(old)} AS {quote_identifier(renamed[old])}")
                fields[arg_field(op.as_, name)] = FieldState(_renamed(held.value, renamed),
                                                             _renamed_cell(held.cell, renamed), held.kind)
        for name, spec in out_fields.items():
            if spec is not None:
                fields[name] = FieldState(spec[1], ("computed", spec[1]), None)
        measure_columns = [spec[1] for spec in out_fields.values() if spec is not None]
        out = self.add(f"SELECT g.{first} AS {SEQ}, CAST(NULL AS BIGINT) AS {quote_identifier(ROW)}"
                       f"{''.join(', ' + part for part in carry)}"
                       f"{''.join(', g.' + column.sql for column in measure_columns)} "
                       f"FROM {quote_identifier(grouped)} AS g{joined}{''.join(joins)}")
        for name, spec in out_fields.items():
            if spec is not None:
                fields[name] = FieldState(spec[1], ("computed", spec[1]), ("probe", out, spec[1]))
        self.fields = {name: fields[name] for name in out_fields}
        self.extra = []

    def density(self, step: Density) -> None:
        """Vega's ``KDE``: the engine groups the rows (in order of first appearance) and lists each group's values
        in row order; `trends.kde.density_curve` samples each group's curve, a list the query unnests into rows."""
        state = self.fields.get(step.density)
        if state is None or state.value.kind != NUM or state.value.undefined:
            raise NotCompiled("a density of a field that is not a number")
        previous = quote_identifier(self.current)
        keys = [_group_key(self.fields[name].value, self) if name in self.fields else "NULL" for name in step.groupby]
        if self.texts_join(step.groupby):
            keys = [self.joined_key(step.groupby)]
        key_names = [self.fresh("k") for _ in keys]
        first, points, index = self.fresh("first"), self.fresh("points"), self.fresh("i")

        from ...trends import kde  # numpy, imported where a density runs

        def curve(values, low, high):  # low, high: the field's extent over every row (NULL for none)
            shared = (math.nan if low is None else low, math.nan if high is None else high)
            options = kde.step_options(step, shared)
            return [number for point in kde.density_curve(values or [], **options) for number in point]

        sample = self.function(curve, ["DOUBLE[]", "DOUBLE", "DOUBLE"], "DOUBLE[]")
        x = state.value.sql
        listed = f"list_transform(list_sort(list({{'s': {SEQ}, 'v': {x}}})), lambda e: e.v)"
        extent = [f"(SELECT {op}({x}) FILTER (WHERE NOT isnan({x})) FROM {previous})" for op in ("min", "max")]
        key_exprs = ", ".join(f"{k} AS {quote_identifier(n)}" for k, n in zip(keys, key_names))
        base = self.add(f"SELECT *, {key_exprs} FROM {previous}") if keys else self.current
        group = f" GROUP BY {', '.join(quote_identifier(n) for n in key_names)}" if keys else ""
        grouped = self.add(f"SELECT min({SEQ}) AS {first}, {sample([listed, *extent])} AS {points} "
                           f"FROM {quote_identifier(base)}{group}")
        unnested = self.add(f"SELECT {first}, {points}, unnest(range(CAST(array_length({points}) / 2 AS BIGINT))) AS {index} "
                            f"FROM {quote_identifier(grouped)}")
        value, density = Column(self.fresh(), NUM), Column(self.fresh(), NUM)
        carry, fields = [], {}
        for name in step.groupby:  # each point holds its group's values (the group's first row's cells)
            held = self.fields.get(name)
            if held is None:
                column = Column(self.fresh(), ANY)
                carry.append(f"{quote_text(self.codec.encode(ex.UNDEFINED))} AS {column.sql}")
                fields[name] = FieldState(column, ("missing",), None)
                continue
            renamed = {}
            for old in [held.value.name, *_cell_columns(held.cell)]:
                if old not in renamed:
                    renamed[old] = self.fresh()
                    carry.append(f"p.{quote_identifier(old)} AS {quote_identifier(renamed[old])}")
            fields[name] = FieldState(_renamed(held.value, renamed), _renamed_cell(held.cell, renamed), held.kind)
        self.add(f"SELECT row_number() OVER (ORDER BY g.{first}, g.{index}) - 1 AS {SEQ}, "
                 f"CAST(NULL AS BIGINT) AS {quote_identifier(ROW)}{''.join(', ' + part for part in carry)}, "
                 f"g.{points}[2 * g.{index} + 1] AS {value.sql}, g.{points}[2 * g.{index} + 2] AS {density.sql} "
                 f"FROM {quote_identifier(unnested)} AS g JOIN {previous} AS p ON p.{SEQ} = g.{first}")
        fields[step.as_[0]] = FieldState(value, ("computed", value), NUMBER)
        fields[step.as_[1]] = FieldState(density, ("computed", density), NUMBER)
        self.fields = fields
        self.extra = []

    def texts_join(self, names) -> bool:
        """Whether Vega's group key (the values' texts joined by '|') must be computed as such: where two of the
        values may be text holding a '|' (("a|b", "c") and ("a", "b|c") are one group). With one at most, the
        values themselves group alike: a number's, a boolean's, a date's or undefined's text holds no '|', so
        the joined text splits back into one tuple (as before, every row's key was a Python call)."""
        return sum(name in self.fields and self.fields[name].value.kind in (STR, ANY) for name in names) > 1

    def joined_key(self, names) -> str:
        """Vega's group key of several fields, one of them text: the values as text joined by '|'."""
        states = [self.fields.get(name) for name in names]
        decoders = [_decoder(state.value, self.codec) if state is not None else None for state in states]

        def key(*cells):
            values, cells = [], list(cells)
            for decode in decoders:
                values.append(ex.UNDEFINED if decode is None else decode(cells.pop(0)))
            return vega.group_key(values)

        params = [SQL_TYPES[state.value.kind] for state in states if state is not None]
        function = self.function(key, params, "VARCHAR")
        return function([state.value.sql for state in states if state is not None])

    def arg_measure(self, op: str, state: FieldState | None) -> tuple[str, Column]:
        """``argmin``/``argmax`` over a group: the sequence number of the row Vega picks (`vega.arg_row`), NULL
        where it picks none; computed on the group's values in row order."""
        if state is None:  # every value undefined: Vega picks no row
            return "CAST(NULL AS BIGINT)", Column(self.fresh(), NUM)
        decode = _decoder(state.value, self.codec)

        def run(cells, seqs):
            row = vega.arg_row(op, [decode(cell) for cell in cells], list(range(len(cells))))
            return None if row is None else seqs[row]

        function = self.function(run, [f"{SQL_TYPES[state.value.kind]}[]", "BIGINT[]"], "BIGINT")
        listed = f"list_transform(list_sort(list({{'s': {SEQ}, 'v': {state.value.sql}}})), lambda e: e.v)"
        return function([listed, f"list_sort(list({SEQ}))"]), Column(self.fresh(), NUM)

    def measure(self, op: str, state: FieldState | None, named: bool, where: str | None = None) -> tuple[str, Column]:
        """One aggregate op over a group: its SQL and the column it makes (a streamed one over the rows
        `where` holds, when given: the rest are values the op skips)."""
        if op == "count":
            return "CAST(count(*) AS DOUBLE)", Column(self.fresh(), NUM)
        if state is None:
            state = None
            values_sql, kind, decode = "NULL", ANY, lambda cell: ex.UNDEFINED
        else:
            values_sql, kind, decode = state.value.sql, state.value.kind, _decoder(state.value, self.codec)
        if kind == NUM and not state.value.undefined and op in NATIVE_NUMBER_OPS:
            x = values_sql
            clean = f"{x} IS NOT NULL AND NOT isnan({x})"
            if op == "valid":
                return f"CAST(count(*) FILTER (WHERE {clean}) AS DOUBLE)", Column(self.fresh(), NUM)
            if op == "missing":
                return f"CAST(count(*) FILTER (WHERE {x} IS NULL) AS DOUBLE)", Column(self.fresh(), NUM)
            if op == "distinct":
                return (f"CAST(count(DISTINCT {x}) + CASE WHEN count({x}) < count(*) THEN 1 ELSE 0 END AS DOUBLE)",
                        Column(self.fresh(), NUM))
            if op in QUANTILES:
                return d3_quantile(f"list({x}) FILTER (WHERE {clean})", QUANTILES[op]), Column(self.fresh(), NUM,
                                                                                            undefined=True)
            # min/max: the first of equal extremes wins (-0 before 0 or after it), as Vega's streaming comparison.
            extreme = f"{op}({x}) FILTER (WHERE {clean})"
            return (f"CASE WHEN {extreme} = 0 THEN arg_min({x}, {SEQ}) FILTER (WHERE {x} = 0) ELSE {extreme} END",
                    Column(self.fresh(), NUM, undefined=True))
        if op == "missing" and kind in (STR, BOOL, DATE_KIND):
            empty = f" OR {values_sql} = ''" if kind == STR else ""
            return (f"CAST(count(*) FILTER (WHERE {values_sql} IS NULL{empty}) AS DOUBLE)",
                    Column(self.fresh(), NUM))
        # Vega's streaming measures over the group's values, in row order.
        counting = op in vega.COUNTING_OPS or op in ("sum", "product", "mean", "average", "variance", "variancep",
                                                     "stdev", "stdevp", "stderr", "median", "q1", "q3")
        target = NUM if counting else ANY
        encode = _encoder(target, self.codec)

        def run(cells):
            cells = cells or []  # a group none of whose rows `where` holds: no list
            if kind == NUM and not state.value.undefined and op in NUMBER_MEASURES:
                return encode(NUMBER_MEASURES[op]([cell for cell in cells if cell is not None and cell == cell]))
            values = [decode(cell) for cell in cells]
            return encode(vega.measure(op, values, list(range(len(values))), None))

        param = f"{SQL_TYPES[kind]}[]"
        function = self.function(run, [param], SQL_TYPES[target])
        values_sql = values_sql if state is not None else "CAST(NULL AS VARCHAR)"
        # The values in row order, written so that Spark keeps the order too (collect_list alone does not).
        kept = f" FILTER (WHERE {where})" if where else ""
        listed = f"list_transform(list_sort(list({{'s': {SEQ}, 'v': {values_sql}}}){kept}), lambda e: e.v)"
        return function([listed]), Column(self.fresh(), target, undefined=target == NUM)

    # window and joinaggregate: every row kept, new fields beside its own
    def partition_keys(self, groupby: tuple[str, ...]) -> list[str]:
        """SQL equal for two rows exactly when Vega's group keys of `groupby` are (as `aggregate` groups)."""
        keys = [_group_key(self.fields[name].value, self) if name in self.fields else "NULL" for name in groupby]
        if self.texts_join(groupby):
            keys = [self.joined_key(groupby)]
        return keys

    def keyed(self, groupby: tuple[str, ...]) -> tuple[str, list[str]]:
        """The current rows with their partition key columns (their names; none for one partition)."""
        keys = self.partition_keys(groupby)
        names = [self.fresh("k") for _ in keys]
        if not keys:
            return self.current, names
        exprs = ", ".join(f"{key} AS {quote_identifier(name)}" for key, name in zip(keys, names))
        return self.add(f"SELECT *, {exprs} FROM {quote_identifier(self.current)}"), names

    def joined(self, base: str, grouped: str, keys: list[str], columns: list[Column], makes: list[str],
               on: str | None = None) -> None:
        """Each row of `base` with its group's `columns` from `grouped` (matched on the keys, or `on`)."""
        carried = ", ".join(f"b.{quote_identifier(name)}" for name in self.columns())
        match = on or (" AND ".join(f"b.{quote_identifier(k)} IS NOT DISTINCT FROM g.{quote_identifier(k)}"
                                    for k in keys) or "true")
        out = self.add(f"SELECT {carried}{''.join(', g.' + column.sql for column in columns)} "
                       f"FROM {quote_identifier(base)} AS b JOIN {quote_identifier(grouped)} AS g ON {match}")
        for name, column in zip(makes, columns):
            self.fields[name] = FieldState(column, ("computed", column), ("probe", out, column))

    def joinaggregate(self, step: JoinAggregate) -> None:
        """Each row with its group's measures: `aggregate`'s ops over the group, joined back on its key."""
        for op in step.ops:
            if op.op in vega.RANDOM_OPS:
                raise NotCompiled(f"the {op.op} op")
        base, keys = self.keyed(step.groupby)
        measures, columns = [], []
        for op in step.ops:
            sql, column = self.measure(op.op, self.fields.get(op.field) if op.field is not None else None,
                                       op.field is not None)
            measures.append(f"{sql} AS {column.sql}")
            columns.append(column)
        group = f" GROUP BY {', '.join(quote_identifier(k) for k in keys)}" if keys else ""
        listed = "".join(f"{quote_identifier(k)}, " for k in keys)
        grouped = self.add(f"SELECT {listed}{', '.join(measures)} FROM {quote_identifier(base)}{group}")
        self.joined(base, grouped, keys, columns, [op.as_ for op in step.ops])

    def window(self, step: Window) -> None:
        """Each row with its window values: SQL window functions where SQL computes Vega's values
        (`native_window_op`), Vega's window in Python per partition for the rest (`window_in_python`)."""
        native = self.native_sort(step)
        ops = [(op, native is not None and self.native_window_op(op)) for op in step.ops]
        reads = {op.field for op in step.ops} | {name for name, _ in step.sort} | set(step.groupby)
        if all(done for _, done in ops) or not any(done for _, done in ops) or reads & set(step.makes()):
            # One kind of evaluation for the whole step (a split one would read what the first half wrote).
            everything = all(done for _, done in ops)
            ops = [(op, everything) for op in step.ops]
        order = list(dict.fromkeys([*self.fields, *step.makes()]))
        in_sql = tuple(op for op, done in ops if done)
        in_python = tuple(op for op, done in ops if not done)
        if in_sql:
            self.window_in_sql(step, in_sql, native)
        if in_python:
            self.window_in_python(step, in_python)
        self.fields = {name: self.fields[name] for name in order}

    def native_sort(self, step: Window) -> list[str] | None:
        """The partition's order as SQL ``ORDER BY`` terms with Vega's comparator (`window.ascending`: null and
        undefined first, then NaN, then the values; descending reverses all), or None where SQL's order differs.

        Only numbers, dates (their times) and booleans: text compares by UTF-16 code units in
        JavaScript, by code points in SQL, which differ past U+FFFF.
        """
        terms = []
        for name, order in step.sort:
            state = self.fields.get(name)
            if state is None or state.value.kind not in (NUM, DATE_KIND, BOOL):
                return None
            x, direction = state.value.sql, "DESC" if order == "descending" else "ASC"
            nan = f" WHEN isnan({x}) THEN 1" if state.value.kind != BOOL else ""
            terms += [f"CASE WHEN {x} IS NULL THEN 0{nan} ELSE 2 END {direction}", f"{x} {direction}"]
        return terms

    def native_window_op(self, op) -> bool:
        """Whether SQL computes this window op's values exactly as Vega does.

        Not the streamed ops (sum, product, mean, variance...): Vega's frame adds each entering row and
        subtracts each leaving one, so a sliding sum's rounding depends on the rows that passed through,
        not only on the frame's values; SQL sums a frame in any order. They stay in Python.
        """
        if op.op in RANKING_OPS or op.op == "count":
            return True
        state = self.fields.get(op.field) if op.field is not None else None
        if state is None:
            return False
        column = state.value
        if op.op in VALUE_OPS:
            return not column.undefined  # a NULL must be null (out of the partition), not undefined
        if op.op in ("valid", "missing"):
            return column.kind in (NUM, STR, BOOL, DATE_KIND) and not column.undefined
        numbers = column.kind == NUM and not column.undefined
        if op.op in ("min", "max", "distinct"):
            return numbers
        return numbers and op.op in QUANTILES

    def window_in_sql(self, step: Window, ops: tuple, sort: list[str]) -> None:
        """Vega's window ops as SQL window functions over the partitions (`keyed`) in Vega's order.

        Rows of equal sort values keep their order (Vega's sort is stable: `SEQ` breaks ties); without a
        sort every row is its own peer. A frame is ``[row - before, row + after]`` in rows; unless
        ``ignorePeers`` (or without a sort) each end widens to its row's peers: the first peer of the
        first row, the last of the last (`pos`, `start`, `end`): the rows of a literal frame and the peers
        of its ends (`split_frame_op`), as Spark takes no frame of variable width.
        Vega's quirks kept: ``cume_dist`` (and so ``ntile``) of a partition's first row is ``1 / n``
        even when it has peers; ``percent_rank`` of a lone row is 0 / 0, NaN.
        """
        base, keys = self.keyed(step.groupby)
        partition = f"PARTITION BY {', '.join(quote_identifier(k) for k in keys)} " if keys else ""
        rows = f"ORDER BY {', '.join([*sort, SEQ])}"
        pos, n, rank, dense, start, end = (self.fresh(stem) for stem in ("pos", "n", "rk", "drk", "ps", "pe"))
        if sort:
            peers = f"({partition}ORDER BY {', '.join(sort)})"
            ranks = (f"rank() OVER {peers} AS {rank}, dense_rank() OVER {peers} AS {dense}, "
                     f"rank() OVER {peers} - 1 AS {start}, count(*) OVER ({partition}ORDER BY {', '.join(sort)} "
                     f"RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - 1 AS {end}")
        else:
            ranks = (f"{pos} + 1 AS {rank}, {pos} + 1 AS {dense}, {pos} AS {start}, {pos} AS {end}")
        numbered = self.add(f"SELECT *, row_number() OVER ({partition}{rows}) - 1 AS {pos}, "
                            f"count(*) OVER ({partition[:-1] if partition else ''}) AS {n} "
                            f"FROM {quote_identifier(base)}")
        ranked = self.add(f"SELECT *, {ranks} FROM {quote_identifier(numbered)}")
        before, after = step.frame
        # A frame whose ends are the partition's or the row's own peers is a RANGE frame over the sort's values:
        # the same rows in both engines (Spark takes no frame of variable width). Its rows' order among peers is
        # the engine's, so only for ops of the frame's values as a set (not first_value, last_value, nth_value).
        peers = bool(sort) and not step.ignorePeers and (before, after) != (None, None)  # else: the whole partition
        peer_range = peers and {before, after} <= {None, 0} and not any(op.op in FRAMED_VALUE_OPS for op in ops)
        split = peers and not peer_range  # the ops of `SPLIT_FRAME_OPS` from literal frames and the ends' peers
        literal = _rows_frame(before, after)
        if split:
            ranked, peer = self.peer_columns(ranked, ops, step.frame, keys, dense, pos, f"{partition}{rows}")
        if peer_range:
            frame = (f"RANGE BETWEEN {'UNBOUNDED PRECEDING' if before is None else 'CURRENT ROW'} AND "
                     f"{'UNBOUNDED FOLLOWING' if after is None else 'CURRENT ROW'}")
        else:
            frame = literal
        order = f"ORDER BY {', '.join(sort)}" if peer_range else rows  # a RANGE frame's peers: the sort's values alone
        over, framed = f"OVER ({partition}{rows})", f"OVER ({partition}{order} {frame})"
        cume = f"CAST(1 + CASE WHEN {pos} = 0 THEN 0 ELSE {end} END AS DOUBLE) / CAST({n} AS DOUBLE)"
        selects, columns = [], []
        for op in ops:
            state = self.fields.get(op.field) if op.field is not None else None
            x = state.value.sql if state is not None else None
            kind, undefined = NUM, False
            if split and op.op in SPLIT_FRAME_OPS:
                sql, kind, undefined = self.split_frame_op(op, state, step.frame, peer, (pos, n, start, end),
                                                           f"{partition}{rows}")
            elif op.op == "row_number":
                sql = f"CAST({pos} + 1 AS DOUBLE)"
            elif op.op in ("rank", "dense_rank"):
                sql = f"CAST({rank if op.op == 'rank' else dense} AS DOUBLE)"
            elif op.op == "percent_rank":
                sql = (f"CASE WHEN {n} = 1 THEN CAST('NaN' AS DOUBLE) "
                       f"ELSE CAST({rank} - 1 AS DOUBLE) / CAST({n} - 1 AS DOUBLE) END")
            elif op.op == "cume_dist":
                sql = cume
            elif op.op == "ntile":
                sql = f"ceil({_literal(float(op.param))[0]} * ({cume}))"
            elif op.op in ("lag", "lead"):
                offset = int(op.param) if op.param else 1  # Vega's `+offset || 1`
                function = op.op if offset > 0 else {"lag": "lead", "lead": "lag"}[op.op]
                sql, kind = f"{function}({x}, {abs(offset)}) {over}", state.value.kind
            elif op.op in ("first_value", "last_value"):
                sql, kind = f"{op.op}({x}) {framed}", state.value.kind
            elif op.op == "nth_value":
                sql, kind = f"nth_value({x}, {int(op.param)}) {framed}", state.value.kind
            elif op.op == "count":
                sql = f"CAST(count(*) {framed} AS DOUBLE)"
            elif op.op in ("valid", "missing"):
                sql = f"CAST(count(*) FILTER (WHERE {_window_count(op.op, state.value)}) {framed} AS DOUBLE)"
            elif op.op == "distinct":  # on Spark, which has none over a window, the frame's list made distinct
                distinct = f"count(DISTINCT {_distinct_value(x)}) {framed}"
                sql = f"CAST({distinct} + CASE WHEN {_null_count(x)} {framed} > 0 THEN 1 ELSE 0 END AS DOUBLE)"
            elif op.op in QUANTILES:
                sql, undefined = d3_quantile(f"{_frame_values(op.op, x)} {framed}", QUANTILES[op.op]), True
            else:  # min, max: the first of equal extremes in the frame's order (-0 or 0), as Vega's measure
                extreme = f"{op.op}({x}) FILTER (WHERE NOT isnan({x})) {framed}"
                sql = (f"CASE WHEN {extreme} = 0 THEN arg_min({x}, {pos}) FILTER (WHERE {x} = 0) {framed} "
                       f"ELSE {extreme} END")
                undefined = True
            column = Column(self.fresh(), kind, undefined)
            selects.append(f"{sql} AS {column.sql}")
            columns.append(column)
        carried = self.carried()
        out = self.add(f"SELECT {carried}, {', '.join(selects)} FROM {quote_identifier(ranked)}")
        for op, column in zip(ops, columns):
            self.fields[op.as_] = FieldState(column, ("computed", column), ("probe", out, column))

    def peer_columns(self, ranked: str, ops: tuple, frame: tuple, keys: list[str], dense: str, pos: str,
                     ordered: str) -> tuple[str, dict]:
        """The rows with what `split_frame_op` reads of each row's peers (its partition's rows of its sort
        values: `dense`, their dense rank), returned with their names by (what, op, field): for ``valid`` and
        ``missing``, the running count through the peers and before them (and the partition's); for ``min`` and
        ``max``, the peers' extreme and their first zero's place and value (-0 or 0); for ``first_value`` and
        ``last_value``, the peers' first or last in the rows' order (`ordered`: its partition and order); for
        ``nth_value``, the value k - 1 rows after the peers' first; for ``distinct`` and the quantiles, the
        values of the row's peers before it and after it (those the frame's ends add to its literal frame)."""
        before, after = frame
        peers = f"PARTITION BY {', '.join([*(quote_identifier(k) for k in keys), dense])}"
        peer, in_order = f"OVER ({peers})", f"OVER ({peers} ORDER BY {pos} {_rows_frame(None, None)})"
        whole = f"OVER ({'PARTITION BY ' + ', '.join(quote_identifier(k) for k in keys) if keys else ''})"
        names: dict[tuple, str] = {}
        running: dict[str, str] = {}  # name -> SQL, a step before the measures that read them
        measures: dict[str, str] = {}

        def name(*key) -> str:
            if key not in names:
                names[key] = self.fresh("peer")
            return names[key]

        for op in ops:
            if op.op not in SPLIT_FRAME_OPS or op.op == "count":
                continue
            value = self.fields[op.field].value
            x = value.sql
            if op.op in ("valid", "missing"):
                counted, q = _window_count(op.op, value), name("running", op.op, op.field)
                running[q] = (f"count(*) FILTER (WHERE {counted}) OVER ({ordered} ROWS BETWEEN UNBOUNDED PRECEDING "
                              f"AND CURRENT ROW)")
                measures[name("through", op.op, op.field)] = f"max({q}) {peer}"
                measures[name("before", op.op, op.field)] = f"min({q} - CASE WHEN {counted} THEN 1 ELSE 0 END) {peer}"
                measures[name("all", op.op, op.field)] = f"max({q}) {whole}"
            elif op.op == "nth_value":  # the row k - 1 after each row, read at its peers' first
                k = int(op.param)
                ahead = x if k == 1 else quote_identifier(name("ahead", k, op.field))
                if k > 1:
                    running[name("ahead", k, op.field)] = f"lead({x}, {k - 1}) OVER ({ordered})"
                measures[name("nth", k, op.field)] = f"first_value({ahead}) {in_order}"
            elif op.op == "distinct" or op.op in QUANTILES:  # the values of the row's peers before it, after it
                parts = {"distinct": (("values", _frame_values(op.op, x)), ("nulls", _null_count(x)))}.get(
                    op.op, (("numbers", _frame_values(op.op, x)),))
                for what, sql in parts:
                    if before is not None:
                        measures[name("peers before", what, op.field)] = (
                            f"{sql} OVER ({peers} ORDER BY {pos} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)")
                    if after is not None:
                        measures[name("peers after", what, op.field)] = (
                            f"{sql} OVER ({peers} ORDER BY {pos} ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)")
            elif op.op in ("min", "max"):
                measures[name("extreme", op.op, op.field)] = f"{op.op}({x}) FILTER (WHERE NOT isnan({x})) {peer}"
                measures[name("zero at", op.field)] = f"min({pos}) FILTER (WHERE {x} = 0) {peer}"
                measures[name("zero", op.field)] = f"arg_min({x}, {pos}) FILTER (WHERE {x} = 0) {peer}"
            else:
                measures[name(op.op, op.field)] = f"{op.op}({x}) {in_order}"
        for selects in (running, measures):
            if selects:
                listed = ", ".join(f"{sql} AS {quote_identifier(column)}" for column, sql in selects.items())
                ranked = self.add(f"SELECT *, {listed} FROM {quote_identifier(ranked)}")
        return ranked, {key: quote_identifier(column) for key, column in names.items()}

    def split_frame_op(self, op, state: FieldState | None, frame: tuple, peer: dict, places: tuple,
                       ordered: str) -> tuple[str, str, bool]:
        """A window op over a frame widened to its ends' peers, in SQL of literal frame bounds (Spark takes no
        bound of variable width): its SQL, kind and whether it may be undefined.

        Vega's frame of row i is ``[start(i - before), end(i + after)]`` (each end kept in the partition),
        `start` and `end` the first and last place of a row's peers. That is the frame of literal bounds
        ``[i - before, i + after]`` and the peers of its two ends, which ``lag`` and ``lead`` read
        (`peer_columns`). ``count``: the places between the ends; ``valid``, ``missing``: a running count
        through the last end's peers less the one before the first end's; ``min``, ``max``: the extreme of
        the three, a zero the first in the rows' order; ``first_value``: the first end's peers' first (the
        partition's first where the end is past it), ``last_value`` alike; ``nth_value``: the value k - 1
        rows after the first end's peers' first, where that row is before the last end; ``distinct`` and the
        quantiles: over the literal frame's values joined to those of the first end's peers before it and the
        last end's peers after it (and the nulls of the three, for ``distinct``)."""
        pos, n, start, end = places
        before, after = frame
        over, literal = f"OVER ({ordered})", f"OVER ({ordered} {_rows_frame(before, after)})"
        everything = f"OVER ({ordered} {_rows_frame(None, None)})"  # the partition, in the rows' order

        def at_first(column: str) -> str | None:  # the column at row i - before (NULL past the partition)
            return None if before is None else column if before == 0 else f"lag({column}, {abs(before)}) {over}"

        def at_last(column: str) -> str | None:  # the column at row i + after
            return None if after is None else column if after == 0 else f"lead({column}, {abs(after)}) {over}"

        first = "0" if before is None else f"coalesce({at_first(start)}, 0)"  # the widened frame's places
        last = f"{n} - 1" if after is None else f"coalesce({at_last(end)}, {n} - 1)"
        if op.op == "count":
            return f"CAST(({last}) - ({first}) + 1 AS DOUBLE)", NUM, False
        if op.op in ("valid", "missing"):
            every = peer["all", op.op, op.field]
            through = every if after is None else f"coalesce({at_last(peer['through', op.op, op.field])}, {every})"
            ahead = "0" if before is None else f"coalesce({at_first(peer['before', op.op, op.field])}, 0)"
            return f"CAST(({through}) - ({ahead}) AS DOUBLE)", NUM, False
        x = state.value.sql
        if op.op == "distinct" or op.op in QUANTILES:  # the frame's values: the literal frame's and its ends' peers'
            what, empty = ("values" if op.op == "distinct" else "numbers"), "CAST([] AS DOUBLE[])"  # for a NULL: none
            values, nulls = f"coalesce({_frame_values(op.op, x)} {literal}, {empty})", [f"{_null_count(x)} {literal}"]
            if before is not None:
                values = f"list_concat(coalesce({at_first(peer['peers before', what, op.field])}, {empty}), {values})"
            if after is not None:
                values = f"list_concat({values}, coalesce({at_last(peer['peers after', what, op.field])}, {empty}))"
            if op.op in QUANTILES:
                return d3_quantile(values, QUANTILES[op.op]), NUM, True
            nulls += [f"coalesce({at(peer[side, 'nulls', op.field])}, 0)"
                      for at, side in ((at_first, "peers before"), (at_last, "peers after")) if at(pos) is not None]
            return (f"CAST(array_length(list_distinct({values})) + CASE WHEN {' + '.join(nulls)} > 0 THEN 1 ELSE 0 END "
                    f"AS DOUBLE)"), NUM, False
        if op.op == "nth_value":  # the row k - 1 after the frame's first, where it is in the frame
            k = int(op.param)
            ahead = x if k == 1 else peer["ahead", k, op.field]
            of_partition = f"first_value({ahead}) {everything}"
            of_peers = peer["nth", k, op.field]
            value = (of_partition if before is None else of_peers if before == 0 else
                     f"CASE WHEN {at_first(pos)} IS NULL THEN {of_partition} ELSE {at_first(of_peers)} END")
            return f"CASE WHEN ({first}) + {k - 1} <= ({last}) THEN {value} END", state.value.kind, False
        if op.op in ("first_value", "last_value"):
            whole = f"{op.op}({x}) {everything}"
            at, step = (at_first, before) if op.op == "first_value" else (at_last, after)
            if step is None:
                return whole, state.value.kind, False
            if step == 0:
                return peer[op.op, op.field], state.value.kind, False
            return (f"CASE WHEN {at(pos)} IS NULL THEN {whole} ELSE {at(peer[op.op, op.field])} END",
                    state.value.kind, False)
        # min, max
        extremes = [f"{op.op}({x}) FILTER (WHERE NOT isnan({x})) {literal}",
                    *(part for part in (at_first(peer["extreme", op.op, op.field]),
                                        at_last(peer["extreme", op.op, op.field])) if part is not None)]
        combined = f"{'least' if op.op == 'min' else 'greatest'}({', '.join(extremes)})"
        extreme = extremes[0] if len(extremes) == 1 else combined
        zeros = [(f"min({pos}) FILTER (WHERE {x} = 0) {literal}",
                  f"arg_min({x}, {pos}) FILTER (WHERE {x} = 0) {literal}"),
                 *((at(peer["zero at", op.field]), at(peer["zero", op.field])) for at in (at_first, at_last)
                   if at(pos) is not None)]
        # The zero first in the rows' order (-0 or 0, as Vega's measure keeps it): the one of least place.
        cases = []
        for place, value in zeros:
            least = "".join(f" AND {place} <= coalesce({other}, {place})" for other, _ in zeros if other != place)
            cases.append(f"WHEN {place} IS NOT NULL{least} THEN {value}")
        first_zero = f"CASE {' '.join(cases)} END"
        return f"CASE WHEN {extreme} = 0 THEN {first_zero} ELSE {extreme} END", NUM, True

    def window_in_python(self, step: Window, window_ops: tuple) -> None:
        """Vega's window (`window.window_partition`) over each partition's rows in order, one call per
        partition, unnested back onto the rows by their sequence."""
        base, keys = self.keyed(step.groupby)
        inputs: list[tuple[str, Callable, int]] = []  # (SQL list of the values in row order, decoder, slot)
        slots: dict[str, int] = {}

        def slot(name: str) -> int | None:
            state = self.fields.get(name)
            if state is None:
                return None
            if name not in slots:
                slots[name] = len(inputs)
                inputs.append((f"list({state.value.sql} ORDER BY {SEQ})", _decoder(state.value, self.codec),
                               SQL_TYPES[state.value.kind]))
            return slots[name]

        ops = [(op.op, slot(op.field) if op.field is not None else None, op.param, op.field is not None)
               for op in window_ops]
        sorts = [slot(name) for name, _ in step.sort]
        orders = [order for _, order in step.sort]
        encode = self.codec.encode

        def run(*lists):
            count = len(lists[0])
            values = [[decode(cell) for cell in cells] for (_, decode, _), cells in zip(inputs, lists[1:])]

            def column(index, named):
                if index is None:
                    return [ex.UNDEFINED] * count if named else None
                return values[index]

            results = window.window_partition(list(range(count)), [(op, column(index, named), param)
                                                                    for op, index, param, named in ops],
                                              [column(index, True) for index in sorts], orders, step.frame,
                                              step.ignorePeers)
            # Each row's results after its sequence, as text: one list to unnest (two unnests in one select
            # zip in DuckDB, and Spark allows only one).
            return [[str(lists[0][row]), *(encode(value) for value in results[row])] for row in range(count)]

        function = self.function(run, ["BIGINT[]", *(f"{kind}[]" for _, _, kind in inputs)], "VARCHAR[][]")
        seqs, rows = self.fresh("ws"), self.fresh("wr")
        group = f" GROUP BY {', '.join(quote_identifier(k) for k in keys)}" if keys else ""
        call = function([f"list({SEQ} ORDER BY {SEQ})", *(sql for sql, _, _ in inputs)])
        parts = self.add(f"SELECT {call} AS {rows} FROM {quote_identifier(base)}{group}")
        exploded = self.add(f"SELECT unnest({rows}) AS {rows} FROM {quote_identifier(parts)}")
        columns = [Column(self.fresh(), ANY) for _ in ops]
        outs = self.add(f"SELECT CAST({rows}[1] AS BIGINT) AS {seqs}, " + ", ".join(
            f"{rows}[{index + 2}] AS {column.sql}" for index, column in enumerate(columns))
                        + f" FROM {quote_identifier(exploded)}")
        self.joined(base, outs, [], columns, [op.as_ for op in window_ops], on=f"b.{SEQ} = g.{seqs}")

    def lookup(self, step: Lookup) -> None:
        """Each row with the looked-up fields: Vega's index of the second source (`lookup.lookup_index`: key
        text -> its last row) as a relation of key text and each field's JavaScript value, left-joined on the
        row's key as text; a row without a match gets the default.

        A field of numbers, text or booleans (and a default of its kind, or none) is held in its SQL type;
        any other as tagged text (`Codec`). A key of numbers is written as JavaScript writes it in SQL where
        that is exact (whole numbers below 10^15), by chartc's `to_js_string` elsewhere.
        """
        table = lookup_table(step)
        index = lookup_index(step, table)
        rows = list(index.values())
        default = default_value(step)
        key, names = self.fresh("lk"), [self.fresh("lv") for _ in step.fields]
        columns, numbers, made, fills = {key: list(index)}, set(), [], []
        for name, looked in zip(names, step.fields):
            kind = registered_kind(table, looked)
            fits = default is None or type(default) is {NUM: float, STR: str, BOOL: bool}.get(kind)
            if kind in (NUM, STR, BOOL) and fits:
                cells, _ = registered_column(table, looked)
                columns[name] = [cells[row] for row in rows]
                if kind == NUM:
                    numbers.add(name)
                literal = _literal(default)[0] if default is not None else "NULL"
                made.append(Column(self.fresh(), kind))
            else:
                cells = table[looked]
                columns[name] = [self.codec.encode(vega.js_cell(cells[row])) for row in rows]
                literal = quote_text(self.codec.encode(default))
                made.append(Column(self.fresh(), ANY))
            fills.append(f"CAST({literal} AS {SQL_TYPES[made[-1].kind]})")
        # Named after the step: two layers' queries alike but for their lookup's source differ in their text.
        relation = f"{self.prefix}_lookup_{'_'.join(map(str, step.path))}"
        arrays = scannable(columns, numbers)
        self.relations.append((relation, arrays))
        # (numbers enter as floats, null as NaN: JavaScript's null again here, as `_source_value` does for the rows)
        selects = [f"CAST({quote_identifier(key)} AS VARCHAR) AS {quote_identifier(key)}", *(
            f"{_source_value(f'CAST({quote_identifier(name)} AS DOUBLE)', None, NUM)} AS {quote_identifier(name)}"
            if column.kind == NUM else f"CAST({quote_identifier(name)} AS {SQL_TYPES[column.kind]}) AS "
            f"{quote_identifier(name)}" for name, column in zip(names, made))]
        keyed = self.add(f"SELECT *, {self.key_text(step.lookup)} AS {quote_identifier(key)} "
                         f"FROM {quote_identifier(self.current)}")
        typed = self.add(f"SELECT {', '.join(selects)} FROM {quote_identifier(relation)}")
        carried = ", ".join(f"b.{quote_identifier(name)}" for name in self.columns())
        # A match's null stays null: only a row without a match (no key on the right) gets the default.
        values = "".join(f", CASE WHEN g.{quote_identifier(key)} IS NULL THEN {fill} ELSE g.{quote_identifier(name)} "
                         f"END AS {column.sql}" for name, column, fill in zip(names, made, fills))
        out = self.add(f"SELECT {carried}{values} FROM {quote_identifier(keyed)} AS b "
                       f"LEFT JOIN {quote_identifier(typed)} AS g ON b.{quote_identifier(key)} = g.{quote_identifier(key)}")
        for name, column in zip(step.as_, made):
            self.fields[name] = FieldState(column, ("computed", column), ("probe", out, column))

    def key_text(self, name: str) -> str:
        """SQL of a field's value as the text Vega's index keys it by (`lookup.key_text`)."""
        state = self.fields.get(name)
        if state is None:
            return quote_text(key_text(ex.UNDEFINED))
        sql, kind = state.value.sql, state.value.kind
        if kind == STR:
            return f"coalesce({sql}, 'null')"
        decode = _decoder(state.value, self.codec)
        function = self.function(lambda cell: key_text(decode(cell)), [SQL_TYPES[kind]], "VARCHAR")
        if kind == NUM and not state.value.undefined:
            whole = f"abs({sql}) < CAST('1e15' AS DOUBLE) AND {sql} = trunc({sql})"
            return (f"CASE WHEN {sql} IS NULL THEN 'null' WHEN {whole} THEN CAST(CAST({sql} AS BIGINT) AS VARCHAR) "
                    f"ELSE {function([sql])} END")
        return function([sql])

    # reshaping: pivot and impute
    def pivot(self, step: Pivot) -> None:
        """Vega's pivot as conditional aggregation: one measure per key, `op` over ``value`` where the row's
        key is strictly equal to it, NaN elsewhere (what Vega's pivot hands its aggregate), grouped as
        `aggregate` groups.

        The keys are the data's: the first value of each distinct key text in row order, fetched by a
        query over the steps so far (`run`), sorted by Vega's ascending comparator and cut at `limit`
        (`interpret.pivot_keys`, on as many values as there are keys).
        """
        key, value = self.fields.get(step.pivot), self.fields.get(step.value)
        if key is None or key.value.kind == DATE_KIND or (key.value.kind == ANY and value is None):
            raise NotCompiled("a pivot on a field no row has, or on dates (equal only to themselves)")
        names = pivot_keys(self.first_keys(key.value), step.limit)
        if any(type(name) not in (float, str, bool) and name is not None and name is not ex.UNDEFINED
               for name in names):
            raise NotCompiled("a pivot on objects (equal only to themselves)")
        if self.pivots is not None:
            self.pivots[step.path] = tuple(ex.to_js_string(name) for name in names)
        nan = "CAST('NaN' AS DOUBLE)"
        parts, ops = [], []
        for index, name in enumerate(names):
            hidden, column = f"\0pivot{index}", ex.to_js_string(name)
            match = self.strictly_equal(key.value, name)
            if step.op == "count":  # Vega's `__count__` counts the values that are not NaN: the key's rows
                not_nan = ""
                if value is not None and value.value.kind == NUM:
                    not_nan = f" AND NOT coalesce(isnan({value.value.sql}), false)"
                elif value is not None and value.value.kind == ANY:
                    not_nan = f" AND NOT coalesce({value.value.sql} = {quote_text(self.codec.encode(math.nan))}, false)"
                matched = Column(self.fresh(), NUM)
                parts.append(f"CASE WHEN {match}{not_nan} THEN 1.0 ELSE {nan} END AS {matched.sql}")
            elif value is not None and value.value.kind == NUM:
                matched = Column(self.fresh(), NUM, value.value.undefined)
                parts.append(f"CASE WHEN {match} THEN {value.value.sql} ELSE {nan} END AS {matched.sql}")
            else:
                cell = quote_text(self.codec.encode(ex.UNDEFINED)) if value is None else _convert(value.value, ANY, self)
                matched = Column(self.fresh(), ANY)
                parts.append(f"CASE WHEN {match} THEN {cell} ELSE {quote_text(self.codec.encode(math.nan))} END "
                             f"AS {matched.sql}")
            self.fields[hidden] = FieldState(matched, ("computed", matched), None, hidden=True)
            if step.op in SKIPPING_NAN:  # the other keys' rows are NaN to it: left out of its list
                self.only[hidden] = match
            ops.append(AggregateOp("valid" if step.op == "count" else step.op, column, hidden,
                                   path=step.path, source=step.source))
        if parts:
            carried = self.carried(skip={self.fields[f"\0pivot{index}"].value.name for index in range(len(names))})
            self.add(f"SELECT {carried}, {', '.join(parts)} FROM {quote_identifier(self.current)}")
        self.aggregate(Aggregate(tuple(ops), step.groupby, path=step.path, source=step.source))

    def first_keys(self, column: Column) -> list:
        """The first value (in row order) of each distinct JavaScript text of a column, in order of first
        appearance: one row per key, computed by the engine over the steps so far."""
        if self.run is None:
            raise NotCompiled("keys the engine must read first, with no engine to read them")
        first, current = self.fresh("first"), quote_identifier(self.current)
        ctes = ",\n".join(f"{quote_identifier(name)} AS ({sql})" for name, sql in self.ctes)
        # Each key's first row joined back by its sequence (Spark has no ordered `first`).
        rows = self.run(f"WITH {ctes}\nSELECT p.{column.sql} FROM (SELECT min({SEQ}) AS {first} FROM {current} "
                        f"GROUP BY {_group_key(column, self)}) AS g JOIN {current} AS p ON p.{SEQ} = g.{first} "
                        f"ORDER BY g.{first}", self.functions, self.errors)
        decode = _decoder(column, self.codec)
        return [decode(row[0]) for row in rows]

    def strictly_equal(self, column: Column, name) -> str:
        """SQL for JavaScript's ``value === name`` of each row's value (never NULL)."""
        kind = column.kind
        if name is ex.UNDEFINED or name is None:
            if kind == ANY:
                return f"coalesce({column.sql} = {quote_text(self.codec.encode(name))}, false)"
            holds = name is ex.UNDEFINED if kind == NUM and column.undefined else name is None
            return f"{column.sql} IS NULL" if holds else "false"
        literal = _literal(name)
        if kind == ANY:
            if type(name) is float and name != name:
                return "false"
            if type(name) is float and name == 0:  # -0 === 0
                return f"coalesce({column.sql} IN ('n0.0', 'n-0.0'), false)"
            return f"coalesce({column.sql} = {quote_text(self.codec.encode(name))}, false)"
        if literal is None or literal[1] != kind:
            return "false"
        if kind == NUM:
            return f"coalesce({column.sql} = {literal[0]} AND NOT isnan({column.sql}), false)"
        return f"coalesce({column.sql} = {literal[0]}, false)"

    def impute(self, step: Impute, later: tuple) -> None:
        """Vega's impute as Vega-Lite compiles it, in SQL: the groups × the keys, less the pairs the rows hold.

        Each group (Vega's impute key: the groupby values as text, null and undefined as '', in order of
        first appearance) gains a row for each key of the domain it lacks: the `keyvals` first (matched by
        their text; a value written twice takes the later slot, as Vega's map does), then the data's keys
        in order of first appearance. The new rows follow every row read, group by group, key by key;
        each holds its group's values (its first row's), the key and the fill (`value`, 0 when not given;
        null for the other methods), every other field undefined. A method other than ``value`` is
        Vega-Lite's window over the groups in row order (`window`; over a whole group, the default frame,
        the group's measure joined back: `joinaggregate`, the same values), then the nulls filled with it.

        Every field's kind is its cells' (`vega.column_kind`): read with the rows (`("cells",)`) where no
        step after it changes them, else a probe on its own rows of its cells' tags (`("cells", kind before
        it, probe)`: then the steps after it are `PROBED_AFTER`'s, and every cell needs a tag). A field
        the new rows leave undefined that a later step reads is copied as a value of any kind, where its
        column holds null for undefined.
        """
        if step.key == step.impute or step.key in step.groupby or step.impute in step.groupby:
            raise NotCompiled("an impute whose key, field and groups overlap")
        filtered = any(isinstance(after, Filter) for after in later)
        # Its fields' kinds are those of its rows: measured on them where they are kept in the engine
        # (`Query.kinds_at`), read from the cells (the rows it leaves) otherwise. Where a later step changes
        # the rows (or a filter thins rows not kept), each field's kind is a probe of its cells' kinds on the
        # impute's own rows: each cell's tag is its data cell's (carried from the start) or its value's.
        probed = _impute_probed(later, self.raw is not None)
        if probed and (any(not isinstance(after, PROBED_AFTER) for after in later) or self.cell_tags is None
                       or any(self.cell_tag(state) is None for state in self.fields.values())):
            raise NotCompiled("rows changed after an impute (its fields' kinds are those of its rows)")
        reads: set = set()
        for after in later:
            expression = after.expression if isinstance(after, Calculate) else getattr(after, "predicate", None)
            if hasattr(expression, "tree"):  # (a field predicate, a window, a joinaggregate: their reads)
                names = ex.fields_read(expression.tree) if expression.tree is not None else None
                if names is None:
                    raise NotCompiled("an expression after an impute reading fields not known in advance")
                reads |= set(names)
            else:
                reads |= {read.name for read in after.reads()}
        # A field the new rows leave undefined, read after the impute, where its column holds null for undefined:
        # copied as a value of any kind, which tells the two apart.
        set_fields = [step.key, step.impute, *step.groupby]
        widened = [name for name, state in self.fields.items()
                   if name not in set_fields and name in reads and state.value.kind != ANY
                   and not (state.value.kind == NUM and state.value.undefined)]
        fill = (0.0 if step.value is ex.UNDEFINED else vega.js_cell(step.value)) if step.method == "value" else None
        domain = [vega.js_cell(value) for value in step.keyvals or ()]
        if any(_literal(value) is None for value in [*domain, fill]):
            raise NotCompiled("an impute of objects")
        flag, before = self.fresh("added"), dict(self.fields)
        # 1. fresh copies of the fields the new rows set, of a kind that holds what they get
        copies, fresh = [], {}
        for name, literals in ((step.key, domain), (step.impute, [fill]), *((name, []) for name in step.groupby)):
            state = self.fields.get(name)
            kind = _holding(state.value if state is not None else None, literals)
            column = Column(self.fresh(), kind, state is not None and kind == state.value.kind and state.value.undefined)
            source = quote_text(self.codec.encode(ex.UNDEFINED)) if state is None else _convert(state.value, kind, self)
            copies.append(f"{source} AS {column.sql}")
            fresh[name] = column
        for name in widened:
            column = Column(self.fresh(), ANY)
            copies.append(f"{_convert(self.fields[name].value, ANY, self)} AS {column.sql}")
            fresh[name] = column
        copied = self.add(f"SELECT {self.carried()}, {', '.join(copies)} FROM {quote_identifier(self.current)}")
        order = list(dict.fromkeys([*self.fields, *step.groupby, step.key, step.impute]))
        fields = {}
        for name in order:
            state = self.fields.get(name)
            inner = state.cell if state is not None else ("missing",)
            value = fresh.get(name, state.value if state is not None else None)
            # The kind is the cells' (measured once they are), after those before the impute (`inner`'s).
            fields[name] = FieldState(value, ("added", inner, value, flag, name in fresh and name not in widened),
                                      ("cells", state.kind if state is not None else None),
                                      state.hidden if state is not None else False)
        # 2. each row's group, the key's identity and its slot among the keyvals. Each step below reads the rows
        # at most once (on Spark each reference of a step is planned, and so scanned, again): what a group or a
        # key takes from its first row is an `arg_min_null` of its own grouping, not a join back to the rows.
        key = fresh[step.key]
        slots = {ex.to_js_string(value): index for index, value in enumerate(domain)}
        cases = " ".join(f"WHEN {self.text_equals(key, text)} THEN {index}" for text, index in slots.items())
        kvs, kid, first, last, slot, kv = (self.fresh(stem) for stem in ("kvs", "kid", "kf", "kl", "slot", "kv"))
        groups = self.impute_groups([fresh[name] for name in step.groupby])
        group_names = [self.fresh("g") for _ in groups]
        parts = [f"{_group_key(key, self)} AS {kid}", f"{f'CASE {cases} END' if cases else 'NULL'} AS {kvs}",
                 *(f"{sql} AS {name}" for sql, name in zip(groups, group_names))]
        base = self.add(f"SELECT *, {', '.join(parts)} FROM {quote_identifier(copied)}")
        keys = self.add(f"SELECT {kid}, min({SEQ}) AS {first}, arg_min_null({key.sql}, {SEQ}) AS {kv} "
                        f"FROM {quote_identifier(base)} WHERE {kvs} IS NULL GROUP BY {kid}")
        keys = self.add(f"SELECT {kid}, {kv}, {len(domain)} + row_number() OVER (ORDER BY {first}) - 1 AS {slot} "
                        f"FROM {quote_identifier(keys)}")
        # 3. the domain, the groups (each with its first row's values), the pairs present; the pairs missing,
        # numbered after every row
        listed = [f"SELECT {index} AS {slot}, CAST({self.literal(value, key.kind)} AS {SQL_TYPES[key.kind]}) AS {kv}"
                  for index, value in enumerate(domain)]
        domain_sql = self.add(" UNION ALL ".join([*listed, f"SELECT {slot}, {kv} FROM {quote_identifier(keys)}"]))
        gs = ", ".join(group_names)
        held = list(dict.fromkeys(fresh[name].sql for name in step.groupby))
        firsts = "".join(f", arg_min_null({column}, {SEQ}) AS {column}" for column in held)
        grouped = self.add(f"SELECT {gs + ', ' if gs else ''}min({SEQ}) AS {first}, max({SEQ}) AS {last}{firsts} "
                           f"FROM {quote_identifier(base)}" + (f" GROUP BY {gs}" if gs else " HAVING count(*) > 0"))
        present = self.add(f"SELECT DISTINCT {''.join(f'b.{name}, ' for name in group_names)}"
                           f"coalesce(b.{kvs}, k.{slot}) AS {slot} FROM {quote_identifier(base)} AS b "
                           f"LEFT JOIN {quote_identifier(keys)} AS k ON b.{kid} IS NOT DISTINCT FROM k.{kid}")
        same = "".join(f" AND p.{name} IS NOT DISTINCT FROM g.{name}" for name in group_names)
        missing = self.add(f"SELECT g.{first}{''.join(f', g.{column}' for column in held)}, d.{slot}, d.{kv} "
                           f"FROM {quote_identifier(grouped)} AS g CROSS JOIN {quote_identifier(domain_sql)} AS d "
                           f"WHERE NOT EXISTS (SELECT 1 FROM {quote_identifier(present)} AS p "
                           f"WHERE p.{slot} = d.{slot}{same})")
        values = {fresh[name].name: f"m.{fresh[name].sql}" for name in step.groupby}
        values[key.name] = f"m.{kv}"
        values[fresh[step.impute].name] = f"CAST({self.literal(fill, fresh[step.impute].kind)} AS " \
                                          f"{SQL_TYPES[fresh[step.impute].kind]})"
        for state in fields.values():
            if state.value.name not in values and state.value.kind == ANY:
                values[state.value.name] = quote_text(self.codec.encode(ex.UNDEFINED))
        values[SEQ] = (f"(SELECT max({last}) FROM {quote_identifier(grouped)}) + "
                       f"row_number() OVER (ORDER BY m.{first}, m.{slot})")
        self.fields = fields
        names = [name for name in self.columns() if name != flag]
        originals = f"SELECT {', '.join(quote_identifier(name) for name in names)}, false AS {flag} " \
                    f"FROM {quote_identifier(copied)}"
        news = (f"SELECT {', '.join(values.get(name, 'NULL') + ' AS ' + quote_identifier(name) for name in names)}, "
                f"true AS {flag} FROM {quote_identifier(missing)} AS m")
        self.add(f"{originals} UNION ALL {news}")
        if probed:  # each field's cell tags, read rows and added ones, measured on the impute's rows
            columns = {name: Column(self.fresh("ct"), TAG) for name in fields}
            tags = [f"CASE WHEN {flag} THEN {self.tag(state.value) if state.cell[4] else quote_text('n')} "
                    f"ELSE {self.cell_tag(before[name]) if name in before else quote_text('n')} END "
                    f"AS {columns[name].sql}" for name, state in fields.items()]
            tagged = self.add(f"SELECT *, {', '.join(tags)} FROM {quote_identifier(self.current)}")
            self.fields = {name: FieldState(state.value, state.cell, (*state.kind, ("probe", tagged, columns[name])),
                                            state.hidden) for name, state in self.fields.items()}
        if step.derived is None:
            self.kinds_at = self.current if filtered and not probed else None
            return
        if step.frame == (None, None):  # every row's frame is its whole group: the group's measure, once
            self.joinaggregate(JoinAggregate((AggregateOp(step.method, step.derived, step.impute, path=step.path,
                                                          source=step.source),),
                                             step.groupby, path=step.path, source=step.source))
        else:
            self.window(Window((WindowOp(step.method, step.derived, step.impute, path=step.path, source=step.source),),
                               step.groupby, (), step.frame, False, path=step.path, source=step.source))
        value, derived = self.fields[step.impute].value, self.fields[step.derived].value
        if value.kind == NUM and not value.undefined and derived.kind == NUM:
            out = Column(self.fresh(), NUM, True)
            sql = f"CASE WHEN {value.sql} IS NULL THEN {derived.sql} ELSE {value.sql} END"
        else:
            out = Column(self.fresh(), ANY)
            null = quote_text(self.codec.encode(None))
            sql = (f"CASE WHEN {_convert(value, ANY, self)} = {null} THEN {_convert(derived, ANY, self)} "
                   f"ELSE {_convert(value, ANY, self)} END")
        filled = self.add(f"SELECT {self.carried()}, {sql} AS {out.sql} FROM {quote_identifier(self.current)}")
        # Computed values: their kinds measured on these rows (no step after them changes the rows).
        self.fields[step.impute] = FieldState(out, ("computed", out), ("probe", filled, out))
        self.fields[step.derived] = FieldState(derived, ("computed", derived), ("probe", filled, derived))
        self.kinds_at = filled if filtered and not probed else None

    def cell_tag(self, state: FieldState) -> str | None:
        """SQL of the tag (`tag`) of each row's cell of a field, before an impute; None where it is not known:
        a computed cell is its value's, a data cell is tagged from the start (`cell_tags`)."""
        cell = state.cell
        if cell[0] == "computed":
            return self.tag(cell[1])
        if cell[0] == "missing":
            return quote_text("n")
        if cell[0] == "source" and cell[2] == ROW and self.cell_tags and cell[1] in self.cell_tags:
            return quote_identifier(self.cell_tags[cell[1]])
        return None

    def literal(self, value, kind: str) -> str:
        """A JavaScript value as SQL of a column of this kind (`_holding` made sure it has one)."""
        if kind == ANY:
            return quote_text(self.codec.encode(value))
        return _literal(value)[0]

    def text_equals(self, column: Column, text: str) -> str:
        """SQL for whether each value's JavaScript text (``value + ''``) is `text`."""
        x, kind = column.sql, column.kind
        if kind == STR:
            return f"coalesce({x}, 'null') = {quote_text(text)}"
        if kind == BOOL:
            return {"true": f"coalesce({x}, false)", "false": f"coalesce(NOT {x}, false)",
                    "null": f"{x} IS NULL"}.get(text, "false")
        if kind == NUM:
            if text == ("undefined" if column.undefined else "null"):
                return f"{x} IS NULL"
            if text == "NaN":
                return f"coalesce(isnan({x}), false)"
            try:
                number = float(text)
            except ValueError:
                return "false"
            if ex.to_js_string(number) != text or number != number:
                return "false"
            return f"coalesce({x} = {_literal(number)[0]} AND NOT isnan({x}), false)"
        decode = _decoder(column, self.codec)
        function = self.function(lambda cell: ex.to_js_string(decode(cell)), [SQL_TYPES[kind]], "VARCHAR")
        return f"coalesce({function([x])} = {quote_text(text)}, false)"

    def impute_groups(self, columns: list[Column]) -> list[str]:
        """SQL equal for two rows exactly when Vega's impute puts them in one group: the groupby values as
        text joined by ',', null and undefined as '' (not `aggregate`'s key)."""
        if all(column.kind in (NUM, BOOL) for column in columns):
            return [column.sql for column in columns]  # no ',' and no '' in their text; null alone
        if len(columns) == 1 and columns[0].kind == STR:
            return [f"coalesce({columns[0].sql}, '')"]
        decoders = [_decoder(column, self.codec) for column in columns]

        def text(*cells):
            values = [decode(cell) for decode, cell in zip(decoders, cells)]
            return ",".join("" if value is None or value is ex.UNDEFINED else ex.to_js_string(value)
                            for value in values)

        function = self.function(text, [SQL_TYPES[column.kind] for column in columns], "VARCHAR")
        return [function([column.sql for column in columns])]

    def finish(self, changes_rows: bool) -> Query:
        """The whole query: the rows in order, and beside them what each computed column's kind needs.

        A computed column's table kind is `vega.column_kind` of its values at
        the step that made them (a later filter keeps it): two scalar
        subqueries on that step's CTE, read with the rows in one query.
        """
        shown = {name: state for name, state in self.fields.items() if not state.hidden}
        probes: dict = {}
        for state in shown.values():
            for cte, column in _probes_of(state.kind):
                if (cte, column.name) not in probes:
                    tag = self.tag(column)
                    probes[(cte, column.name)] = (f"__pn{len(probes)}", f"__pt{len(probes)}", cte, tag)
        raw = self.raw or {}
        names = [name for name in self.columns() if name not in raw.values()]
        select = ", ".join(f"r.{quote_identifier(name)}" for name in names)
        # Over rows left in the engine a step read twice is scanned again rather than held: held, it is
        # every row of every column. The groups (which carry their first rows' fields: `first_values`) and
        # every step after them are few rows: held, so that reading them again (the probes) does not run
        # the scan again.
        lazy = isinstance(self.table, EngineTable)
        ctes = ",\n".join(f"{quote_identifier(name)}{self.held(index) if lazy else ' AS'} ({sql})"
                           for index, (name, sql) in enumerate(self.ctes))
        last = quote_identifier(self.current)
        measured = ", ".join(f"(SELECT count(*) FROM {quote_identifier(cte)}) AS {count}, "
                             f"(SELECT list(DISTINCT {tag}) FROM {quote_identifier(cte)}) AS {tags}"
                             for count, tags, cte, tag in probes.values())
        if probes:
            sql = (f"WITH {ctes}\nSELECT {select}, p.* FROM (SELECT {measured}) AS p "
                   f"LEFT JOIN {last} AS r ON true ORDER BY r.{SEQ}")
        else:
            sql = f"WITH {ctes}\nSELECT {select} FROM {last} AS r ORDER BY r.{SEQ}"
        return Query(sql, shown, self.functions, {key: value[:2] for key, value in probes.items()}, changes_rows,
                     self.codec, self.errors, self.relations, f"WITH {ctes}\n", last, measured, raw, self.kinds_at)

    def tag(self, column: Column) -> str:
        """SQL naming the kind of cell a value becomes (`_kind_of_tags`): n none, N NaN, f float, s, b, d, o other;
        S an object's text and Y a date past Python's years (cells only Python makes)."""
        sql = column.sql
        if column.kind == TAG:  # a column of tags already
            return sql
        tags = {NUM: _tag_sql(sql, "f"), STR: _tag_sql(sql, "s"), BOOL: _tag_sql(sql, "b"),
                DATE_KIND: f"CASE WHEN {_finite(sql)} THEN 'd' ELSE 'n' END"}
        if column.kind in tags:
            return tags[column.kind]
        # A value of any kind: the tag of its cell (`vega.python_cell`) from its text's (`Codec`), in SQL: undefined
        # and an Invalid Date have none, an array or a mapping is 'o'. Two are cells only Python makes: another
        # object's, its text ('S': the object is Python's), and a Date past Python's years ('Y': refused there).
        time = f"CAST(substr({sql}, 2) AS DOUBLE)"
        return (f"CASE WHEN {sql} IS NULL OR {sql} IN ('l', 'u', 'dnan', 'dinf', 'd-inf') THEN 'n' "
                f"WHEN {sql} = 'nnan' THEN 'N' WHEN left({sql}, 1) = 'n' THEN 'f' WHEN left({sql}, 1) = 'O' THEN 'S' "
                f"WHEN left({sql}, 1) = 'd' THEN CASE WHEN {time} BETWEEN {vega.FIRST_TIME} AND {vega.LAST_TIME} "
                f"THEN 'd' ELSE 'Y' END "
                f"WHEN left({sql}, 1) IN ('s', 'b') THEN left({sql}, 1) ELSE 'o' END")


def _probes_of(kind) -> list:
    if not isinstance(kind, tuple):
        return []
    if kind[0] == "probe":
        return [(kind[1], kind[2])]
    if kind[0] == "cells":  # (before the impute, and where measured so: its own probe)
        return [probe for part in kind[1:] for probe in _probes_of(part)]
    return [probe for part in kind[1] for probe in _probes_of(part)]


def _rows_frame(before: int | None, after: int | None) -> str:
    """A ``ROWS`` frame of Vega's offsets (each counted away from the row, as Vega takes their magnitude;
    None unbounded)."""
    return (f"ROWS BETWEEN {'UNBOUNDED' if before is None else abs(before)} PRECEDING AND "
            f"{'UNBOUNDED' if after is None else abs(after)} FOLLOWING")


# ------------------------------------------------------------------ Vega's streaming measures of numbers

def _sum(numbers: list[float]):
    """Vega's ``sum``: a running float sum in row order (not `math.fsum`, not Python 3.12's compensated `sum`)."""
    total = 0.0
    for number in numbers:
        total += number
    return total if numbers else ex.UNDEFINED


def _product(numbers: list[float]):
    total = 1.0
    for number in numbers:
        total *= number
    return total if numbers else ex.UNDEFINED


def _welford(numbers: list[float]) -> tuple[float, float]:
    """Vega's running mean and sum of squared deviations (Welford), in row order."""
    mean = dev = 0.0
    for count, number in enumerate(numbers, 1):
        delta = number - mean
        mean += delta / count
        dev += delta * (number - mean)
    return mean, dev


def _spread(divisor: Callable[[int], int], root: bool) -> Callable[[list[float]], object]:
    def measure(numbers: list[float]):
        valid = len(numbers)
        if valid <= 1:
            return ex.UNDEFINED
        quotient = _welford(numbers)[1] / divisor(valid)
        if not root:
            return quotient
        return math.sqrt(quotient) if quotient >= 0 else math.nan
    return measure


# Op -> its value over the valid numbers (not null, not NaN) of a group, as `vega.measure` computes it.
NUMBER_MEASURES: dict[str, Callable[[list[float]], object]] = {
    "sum": _sum,
    "product": _product,
    "mean": lambda numbers: _welford(numbers)[0] if numbers else ex.UNDEFINED,
    "average": lambda numbers: _welford(numbers)[0] if numbers else ex.UNDEFINED,
    "variance": _spread(lambda n: n - 1, False),
    "variancep": _spread(lambda n: n, False),
    "stdev": _spread(lambda n: n - 1, True),
    "stdevp": _spread(lambda n: n, True),
    "stderr": _spread(lambda n: n * (n - 1), True),
}


def d3_quantile(values: str, p: float) -> str:
    """SQL for d3's ``quantileSorted`` (R's type 7) of a list of numbers (undefined, NULL, for none).

    ``v[i0] + (v[i0 + 1] - v[i0]) * (i - i0)`` at ``i = (n - 1) * p`` over the sorted values, in
    JavaScript's arithmetic: DuckDB's ``quantile_cont`` interpolates as ``lo * (1 - d) + hi * d``, which
    differs in the last bit (the median of 1 and 1e16: 5e15 there, 5000000000000001 in Vega).
    """
    at = f"(array_length(v) - 1) * {_literal(float(p))[0]}"  # array_length: a list's, in every dialect
    low = f"CAST(floor({at}) AS BIGINT)"
    return (f"list_transform([list_sort({values})], lambda v: CASE WHEN array_length(v) = 0 THEN NULL "
            f"WHEN array_length(v) < 2 THEN v[1] ELSE v[{low} + 1] + (v[{low} + 2] - v[{low} + 1]) * ({at} - floor({at})) "
            f"END)[1]")


def _frame_values(op: str, x: str) -> str:
    """SQL of the list a frame's ``distinct`` or quantile is computed from (before its ``OVER``): for a quantile
    the numbers, NaN and null left out; for ``distinct`` the values but null (Spark's lists keep none; counted
    apart: `_null_count`), -0 as 0 (Vega tells values apart by their text, ``value + ''``: NaN is one value)."""
    if op == "distinct":
        return f"list({_distinct_value(x)}) FILTER (WHERE {x} IS NOT NULL)"
    return f"list({x}) FILTER (WHERE NOT isnan({x}))"


def _distinct_value(x: str) -> str:
    """SQL of a value as ``distinct`` tells values apart (by their text, ``value + ''``): -0 as 0."""
    return f"CASE WHEN {x} = 0 THEN CAST(0 AS DOUBLE) ELSE {x} END"


def _null_count(x: str) -> str:
    """SQL of the nulls of a frame (before its ``OVER``): one more value for ``distinct``, as Vega's ``'null'``."""
    return f"count(*) FILTER (WHERE {x} IS NULL)"


def _window_count(op: str, column: Column) -> str:
    """SQL for whether a value counts as ``valid`` (not null, undefined, '' or NaN) or ``missing``
    (null, undefined or ''), as Vega's window cell counts them."""
    x = column.sql
    missing = f"{x} IS NULL" + (f" OR {x} = ''" if column.kind == STR else "")
    if op == "missing":
        return missing
    return f"NOT ({missing})" + (f" AND NOT isnan({x})" if column.kind == NUM else "")


def _cell_columns(cell: tuple) -> list[str]:
    if cell[0] == "source":
        return [cell[2]]
    if cell[0] == "computed":
        return [cell[1].name]
    if cell[0] == "fold":
        nested = [name for how in cell[4].values() if isinstance(how, tuple) for name in _cell_columns(how)]
        return [cell[1].name, cell[2].name, cell[3], *nested]
    if cell[0] == "added":
        return [*_cell_columns(cell[1]), cell[2].name, cell[3]]
    return []


def _renamed(column: Column, names: dict) -> Column:
    return Column(names.get(column.name, column.name), column.kind, column.undefined)


def _renamed_cell(cell: tuple, names: dict) -> tuple:
    if cell[0] == "source":
        return ("source", cell[1], names.get(cell[2], cell[2]))
    if cell[0] == "computed":
        return ("computed", _renamed(cell[1], names))
    if cell[0] == "fold":
        mapping = {name: _renamed_cell(how, names) if isinstance(how, tuple) else how for name, how in cell[4].items()}
        return ("fold", _renamed(cell[1], names), _renamed(cell[2], names), names.get(cell[3], cell[3]), mapping)
    if cell[0] == "added":
        return ("added", _renamed_cell(cell[1], names), _renamed(cell[2], names), names.get(cell[3], cell[3]),
                cell[4])
    return cell


# ------------------------------------------------------------------ kinds, values, conversions

def registered_kind(table: Table, name: str) -> str:
    """The kind of a data column's JavaScript values (`vega.js_cell` of its cells)."""
    kind = table.kinds.get(name)
    if kind == NUMBER and in_engine(table, name):
        return NUM if _exact_in_engine(table, name) else ANY
    if kind is None and in_engine(table, name) and table.stored[name] in (STORED_BOOLEAN, STORED_TEXT):
        # One type of cell in the engine: booleans beside a gap (no table kind, as pandas reads them), or a text
        # column of nulls. Their JavaScript values are the cells, null for null, as with a kind.
        return BOOL if table.stored[name] == STORED_BOOLEAN else STR
    if kind == NUMBER and all(type(value) is not int or abs(value) <= vega.MAX_EXACT for value in table[name]):
        return NUM
    return {TEXT: STR, BOOLEAN: BOOL, DATE: STR}.get(kind, ANY)


def registered_column(table: Table, name: str) -> tuple[list, str]:
    """A data column as registered: the cells SQL holds, and their SQL type."""
    kind = registered_kind(table, name)
    cells = table[name]
    if kind == NUM:
        return [None if value is None else float(value) for value in cells], "DOUBLE"
    if kind == BOOL:
        return list(cells), "BOOLEAN"
    if table.kinds.get(name) == DATE:
        return [None if value is None else vega.js_cell(value) for value in cells], "VARCHAR"
    if kind == STR:
        return list(cells), "VARCHAR"
    codec = Codec()
    return [codec.encode(vega.js_cell(value)) for value in cells], "VARCHAR"


def _source_value(sql: str, table_kind, kind: str) -> str:
    """A registered column's JavaScript values: non-finite numbers are null, as the inline data writes them."""
    if kind == NUM:
        return f"CASE WHEN {_finite(sql)} THEN {sql} END"
    return sql


def _timestamp(milliseconds: str) -> str:
    """A Date's time (whole milliseconds since 1970, finite) as a timestamp: the datetime `vega.python_cell` makes."""
    return f"epoch_ms(CAST({milliseconds} AS BIGINT))"


def _weekday(milliseconds: str) -> str:
    """The day of the week (0 for Sunday) of a whole number of milliseconds since 1970, a Thursday."""
    return f"((CAST(floor({milliseconds} / 86400000) AS BIGINT) + 4) % 7 + 7) % 7"


def _milliseconds(timestamp: str) -> str:
    """A timestamp's milliseconds since 1970 as a double: a Date's number, as Date.parse gives it."""
    return f"CAST(date_diff('millisecond', TIMESTAMP '1970-01-01 00:00:00', {timestamp}) AS DOUBLE)"


def _finite(sql: str) -> str:
    """Whether a number is finite (NULL for NULL): NaN is above infinity in DuckDB's order, and Spark's."""
    return f"abs({sql}) < CAST('Infinity' AS DOUBLE)"


def _decoder(column: Column, codec: Codec) -> Callable:
    """SQL value of a column -> the JavaScript value."""
    kind = column.kind
    if kind == ANY:
        return codec.decode
    if kind == DATE_KIND:
        return lambda cell: None if cell is None else ex.JSDate(cell)
    if kind == NUM and column.undefined:
        return lambda cell: ex.UNDEFINED if cell is None else cell
    return lambda cell: cell


def _encoder(kind: str, codec: Codec) -> Callable:
    """A JavaScript value -> the SQL value of a column of this kind."""
    if kind == ANY:
        return codec.encode
    if kind == DATE_KIND:
        return lambda value: None if value is None or value is ex.UNDEFINED else value.time
    return lambda value: None if value is None or value is ex.UNDEFINED else value


def _convert(column: Column, target: str, chain: _Chain) -> str:
    """A column's values as another kind's SQL (only to ``ANY``, or the same kind)."""
    if column.kind == target:
        return column.sql
    assert target == ANY
    decode, encode = _decoder(column, chain.codec), chain.codec.encode
    function = chain.function(lambda cell: encode(decode(cell)), [SQL_TYPES[column.kind]], "VARCHAR")
    return function([column.sql])


def _holding(column: Column | None, values: list) -> str:
    """The kind of a column holding a column's values and these JavaScript values (`ANY` where one kind cannot)."""
    if column is None:
        return ANY
    kind = column.kind
    for value in values:
        literal = _literal(value)[1]
        if kind != ANY and (literal != kind if literal != "null" else kind == NUM and column.undefined):
            return ANY
    return kind


def _group_key(column: Column, chain: _Chain) -> str:
    """A SQL value equal for two rows exactly when Vega's group keys (the value as JavaScript text) are."""
    sql = column.sql
    if column.kind in (NUM, BOOL):
        return sql  # NaN with NaN, -0 with 0, null alone: as their text
    if column.kind == STR:
        return f"coalesce({sql}, 'null')"
    if column.kind == DATE_KIND:  # a Date's text shows whole seconds; null and NaN ('Invalid Date') stay apart
        return f"floor({sql} / 1000)"
    decode = chain.codec.decode
    function = chain.function(lambda cell: ex.to_js_string(decode(cell)), ["VARCHAR"], "VARCHAR")
    return function([sql])


# ------------------------------------------------------------------ expressions

class _Native(Exception):
    """This node has no exact SQL here: the whole expression runs in chartc's evaluator."""


COMPARE = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}
ARITHMETIC = {"+": "+", "-": "-", "*": "*", "/": "/"}


class _Expressions:
    """A Vega expression tree as SQL: native where exact, else a Python function calling chartc's evaluator."""

    def __init__(self, chain: _Chain):
        self.chain = chain

    def truthy(self, tree) -> str:
        """SQL for whether each row's value is truthy (never NULL)."""
        try:
            return self.test(tree)
        except _Native:
            pass
        decode_row, params, args = self.row_reader(tree)
        run = ex.evaluator(tree)
        function = self.chain.function(lambda *cells: ex.truthy(run(decode_row(cells))), params, "BOOLEAN")
        return function(args)

    def value(self, tree) -> tuple[str, Column]:
        """SQL for each row's value, and the column it makes."""
        try:
            sql, kind = self.native(tree)
            if kind in (NUM, STR, BOOL, DATE_KIND):
                return sql, Column(self.chain.fresh(), kind)
        except _Native:
            pass
        decode_row, params, args = self.row_reader(tree)
        run = ex.evaluator(tree)
        encode = self.chain.codec.encode
        function = self.chain.function(lambda *cells: encode(run(decode_row(cells))), params, "VARCHAR")
        return function(args), Column(self.chain.fresh(), ANY)

    def row_reader(self, tree):
        """The row object an expression sees, from the SQL values of the fields it reads."""
        reads = ex.fields_read(tree)
        names = list(self.chain.fields) if reads is None else sorted(reads)
        present = [name for name in names if name in self.chain.fields]
        absent = [name for name in names if name not in self.chain.fields]
        columns = [self.chain.fields[name].value for name in present]
        decoders = [_decoder(column, self.chain.codec) for column in columns]

        def decode_row(cells):
            row = {name: decode(cell) for name, decode, cell in zip(present, decoders, cells)}
            for name in absent:
                row[name] = ex.UNDEFINED
            return row

        return decode_row, [SQL_TYPES[column.kind] for column in columns], [column.sql for column in columns]

    # native SQL: (sql, kind); raises _Native
    def test(self, node) -> str:
        kind = type(node)
        if kind is ex.Logical:
            joiner = " AND " if node.operator == "&&" else " OR " if node.operator == "||" else None
            if joiner is None:
                raise _Native
            return f"({self.test(node.left)}{joiner}{self.test(node.right)})"
        if kind is ex.Unary and node.operator == "!":
            return f"(NOT {self.test(node.argument)})"
        sql, value_kind = self.native(node)
        return _truthy(sql, value_kind)

    def native(self, node) -> tuple[str, str]:
        constant = self.constant(node)
        if constant is not None:
            return constant
        kind = type(node)
        if kind is ex.Field:
            state = self.chain.fields.get(node.name)
            if state is None or state.value.kind == ANY or state.value.undefined:
                raise _Native
            return state.value.sql, state.value.kind
        if kind is ex.Binary:
            return self.binary(node)
        if kind is ex.Unary:
            if node.operator == "!":
                return self.test(node), BOOL
            sql, value_kind = self.native(node.argument)
            if value_kind != NUM or node.operator not in "+-":
                raise _Native
            number = f"coalesce({sql}, 0.0)"
            return (number if node.operator == "+" else f"(-{number})"), NUM
        if kind is ex.Logical:
            left, left_kind = self.native(node.left)
            right, right_kind = self.native(node.right)
            if left_kind != right_kind or node.operator not in ("&&", "||"):
                raise _Native
            test = _truthy(left, left_kind)
            if node.operator == "&&":
                return f"(CASE WHEN {test} THEN {right} ELSE {left} END)", left_kind
            return f"(CASE WHEN {test} THEN {left} ELSE {right} END)", left_kind
        if kind is ex.Conditional:
            yes, yes_kind = self.native(node.consequent)
            no, no_kind = self.native(node.alternate)
            if yes_kind != no_kind:
                raise _Native
            return f"(CASE WHEN {self.test(node.test)} THEN {yes} ELSE {no} END)", yes_kind
        if kind is ex.Call:
            return self.call(node)
        raise _Native

    def constant(self, node) -> tuple[str, str] | None:
        """A subtree that reads no field, evaluated once (None when it reads one, or its value has no SQL literal)."""
        if any(type(part) in (ex.Field, ex.Datum, ex.Member) for part in ex.walk(node)):
            return None
        if any(type(part) is ex.Call and part.name in ("now", "random") for part in ex.walk(node)):
            return None
        try:
            value = ex.evaluator(node)({})
        except (ex.Unsupported, ex.EvaluationError, RecursionError):
            return None
        return _literal(value)

    def binary(self, node) -> tuple[str, str]:
        operator = node.operator
        left, left_kind = self.native(node.left)
        right, right_kind = self.native(node.right)
        numeric = {NUM, DATE_KIND}
        if operator in COMPARE:
            if left_kind in numeric and right_kind in numeric:
                a, b = f"coalesce({left}, 0.0)", f"coalesce({right}, 0.0)"
                return f"(NOT isnan({a}) AND NOT isnan({b}) AND {a} {COMPARE[operator]} {b})", BOOL
            raise _Native
        if operator in ("===", "!==", "==", "!="):
            if DATE_KIND in (left_kind, right_kind):
                raise _Native  # a Date is an object: equal only to itself
            if left_kind == right_kind:
                same = f"({left} IS NULL AND {right} IS NULL)"
                equal = f"coalesce({left} = {right}, false)"
                if left_kind == NUM:
                    equal = f"coalesce({left} = {right} AND NOT isnan({left}), false)"
                test = f"({same} OR {equal})"
            elif operator in ("===", "!=="):
                test = f"({left} IS NULL AND {right} IS NULL)"
            else:
                raise _Native
            return (test if operator in ("===", "==") else f"(NOT {test})"), BOOL
        if operator in ARITHMETIC and left_kind == NUM and right_kind == NUM:
            return f"(coalesce({left}, 0.0) {ARITHMETIC[operator]} coalesce({right}, 0.0))", NUM
        if operator == "%" and left_kind == NUM and right_kind == NUM:
            # JavaScript's remainder (an exact fmod, the dividend's sign, as both engines' `%` on doubles) where
            # it is one; NaN for an infinite dividend or a zero or NaN divisor; the dividend for an infinite one.
            a, b = f"coalesce({left}, 0.0)", f"coalesce({right}, 0.0)"
            return (f"(CASE WHEN {_finite(a)} AND {b} <> 0 AND NOT isnan({b}) THEN (CASE WHEN {_finite(b)} "
                    f"THEN {a} % {b} ELSE {a} END) ELSE CAST('NaN' AS DOUBLE) END)", NUM)
        raise _Native

    def call(self, node) -> tuple[str, str]:
        name, arguments = node.name, node.arguments
        if name == "isValid" and len(arguments) == 1:
            sql, kind = self.native(arguments[0])
            if kind == NUM:
                return f"({sql} IS NOT NULL AND NOT isnan({sql}))", BOOL
            return f"({sql} IS NOT NULL)", BOOL
        if name == "isFinite" and len(arguments) == 1:
            sql, kind = self.native(arguments[0])
            if kind != NUM:
                raise _Native
            return f"coalesce({_finite(sql)}, true)", BOOL
        if name == "inrange" and len(arguments) == 2 and type(arguments[1]) is ex.ArrayLiteral:
            sql, kind = self.native(arguments[0])
            bounds = [self.constant(element) for element in arguments[1].elements]
            if kind not in (NUM, DATE_KIND) or not bounds or any(b is None or b[1] != NUM for b in bounds):
                raise _Native
            low, high = float(bounds[0][0].split("'")[1]), float(bounds[-1][0].split("'")[1])
            if high < low:
                low, high = high, low
            number = f"coalesce({sql}, 0.0)"
            return (f"(NOT isnan({number}) AND {_literal(low)[0]} <= {number} AND {number} <= {_literal(high)[0]})",
                    BOOL)
        if name == "indexof" and len(arguments) == 2 and type(arguments[0]) is ex.ArrayLiteral:
            sql, kind = self.native(arguments[1])
            if kind not in (NUM, STR, BOOL):
                raise _Native
            cases = []
            for index, element in enumerate(arguments[0].elements):
                literal = self.constant(element)
                if literal is None:
                    raise _Native
                if literal[1] == "null":
                    cases.append(f"WHEN {sql} IS NULL THEN {index}.0")
                elif literal[1] == kind:
                    guard = f" AND NOT isnan({sql})" if kind == NUM else ""
                    cases.append(f"WHEN {sql} = {literal[0]}{guard} THEN {index}.0")
            return (f"(CASE {' '.join(cases)} ELSE -1.0 END)" if cases else "-1.0"), NUM
        if name == "time" and len(arguments) == 1:
            sql, kind = self.native(arguments[0])
            if kind != DATE_KIND:
                raise _Native
            return sql, NUM
        raise _Native


def _literal(value) -> tuple[str, str] | None:
    """A JavaScript value as a SQL literal and its kind (None when it has none)."""
    kind = type(value)
    if kind is float:
        return f"CAST('{value!r}' AS DOUBLE)", NUM
    if kind is bool:
        return ("true" if value else "false"), BOOL
    if kind is str:
        return quote_text(value), STR
    if kind is ex.JSDate:
        return f"CAST('{value.time!r}' AS DOUBLE)", DATE_KIND
    if value is None:
        return "NULL", "null"
    return None


def _truthy(sql: str, kind: str) -> str:
    if kind == BOOL:
        return f"coalesce({sql}, false)"
    if kind == NUM:
        return f"coalesce({sql} <> 0 AND NOT isnan({sql}), false)"
    if kind == STR:
        return f"coalesce({sql} <> '', false)"
    if kind == DATE_KIND:
        return f"({sql} IS NOT NULL)"
    if kind == "null":
        return "false"
    raise _Native


# ------------------------------------------------------------------ a layer's chain

STEPS: dict[type, Callable] = {
    Filter: lambda chain, step, emitted: chain.filter(step, emitted),
    Calculate: lambda chain, step, emitted: chain.calculate(step),
    Fold: lambda chain, step, emitted: chain.fold(step),
    Aggregate: lambda chain, step, emitted: chain.aggregate(step),
    BinStep: lambda chain, step, emitted: chain.bin(step),
    TimeUnitStep: lambda chain, step, emitted: chain.time_unit(step),
    Pivot: lambda chain, step, emitted: chain.pivot(step),
    Impute: lambda chain, step, emitted: chain.impute(step, chain.later),
    Window: lambda chain, step, emitted: chain.window(step),
    JoinAggregate: lambda chain, step, emitted: chain.joinaggregate(step),
    Density: lambda chain, step, emitted: chain.density(step),
    Lookup: lambda chain, step, emitted: chain.lookup(step),
}


def compile_chain(view: str, table: Table, chain: tuple[Transform, ...], top: dict, gaps: list[dict],
                  emitted: list, prefix: str = "q", run: Callable | None = None, pivots: dict | None = None,
                  cells: bool = False, dates: frozenset = frozenset()) -> Query:
    """One layer's transforms as one query over the rows' relation.

    Args:
        view: the relation's name (its columns the table's, plus `ROW`).
        table: the rows (their column kinds; the cells stay in Python).
        chain: the chart's transforms, then the layer's.
        top: field -> the parses Vega-Lite applies above every transform, in order.
        gaps: per transform, the parses just before it (`vega.layer_parses`).
        emitted: per transform, the field predicate as the translator emits it (else None).
        prefix: names the query's Python functions apart from another query's.
        run: runs a query over the steps so far, `(sql, functions, errors) -> rows` (a pivot's keys);
            without it a pivot is not compiled.
        pivots: filled with each pivot's columns (pivot path -> names), when given.
        cells: carry each data cell as read beside its value (`Query.raw`), for `kept_rows`.
        dates: date columns `top` parses as dates whose view holds the dates themselves (`register_table` in
            place): their milliseconds are read from them, not parsed from their text (a tenth of the time).

    Returns:
        The query.

    Raises:
        NotCompiled: a chain (or part of one) this module does not compile.
    """
    state = _Chain(view, table, Codec(), prefix)
    state.run, state.pivots, state.raw, state.dates = run, pivots, {} if cells else None, dates
    if any(isinstance(step, Impute) and _impute_probed(chain[index + 1:], cells) for index, step in enumerate(chain)):
        state.cell_tags = {}
    state.start(table.names, top)
    for index, step in enumerate(chain):
        if index and gaps[index]:
            state.parse(gaps[index])
        state.later = chain[index + 1:]
        try:
            STEPS[type(step)](state, step, emitted[index])
        except NotCompiled as error:  # (where a refusal of the layer's rows points: `evaluate_layers`)
            error.step = error.step or step
            raise
    return state.finish(any(not isinstance(step, (Calculate, Window, JoinAggregate, Lookup)) for step in chain))


# The steps that may follow an impute whose fields' kinds are probes of its rows (`_Chain.impute`).
PROBED_AFTER = (Calculate, Window, JoinAggregate, Filter, Aggregate, Lookup, Density, Pivot, Fold, Impute)


def _impute_probed(later: tuple, kept: bool) -> bool:
    """Whether an impute's fields' kinds are probes on its rows: a later step changes the rows, or a filter thins
    rows not kept in the engine (where kept, `Query.kinds_at` measures the impute's rows as they are)."""
    return (any(not isinstance(after, (Calculate, Window, JoinAggregate, Filter)) for after in later)
            or (not kept and any(isinstance(after, Filter) for after in later)))


def _cell_tag_sql(table: Table, name: str, sql: str, kind: str, in_place: bool = False) -> str | None:
    """SQL of the tag (`_Chain.tag`) of each cell of a data column registered as `kind`, from the registered
    column `sql`; None where the registered values do not tell (a mix of kinds). In a view registered in place,
    a wide integer column's and a column of several kinds' are read from their own cells (`_own_cells`)."""
    own = quote_identifier(_own_cells(table, name))
    if in_place and wide_integers(table, name):
        return f"CASE WHEN {own} IS NULL THEN 'n' ELSE 'f' END"
    if in_place and stored_values(table, name):  # (`sources._value_cell`'s tags: an integer's cell is a number, D a date)
        return (f"CASE WHEN {own} IS NULL OR {own} IN ('l', 'u') THEN 'n' WHEN {own} = 'nnan' THEN 'N' "
                f"WHEN left({own}, 1) IN ('n', 'i') THEN 'f' WHEN left({own}, 1) = 'D' THEN 'd' "
                f"ELSE left({own}, 1) END")
    # (a number's tag is the cell's own: NaN and infinities, which its JavaScript value makes null)
    letter = {(NUM, NUMBER): "f", (STR, TEXT): "s", (STR, None): "s", (STR, DATE): "d", (BOOL, BOOLEAN): "b",
              (BOOL, None): "b"}.get((kind, table.kinds.get(name)))
    return None if letter is None else _tag_sql(sql, letter)


def _tag_sql(sql: str, letter: str) -> str:
    """SQL of the tag of each value of a column whose cells are of one kind (`letter`): n for null, N for NaN."""
    nan = f"WHEN isnan({sql}) THEN 'N' " if letter == "f" else ""
    return f"CASE WHEN {sql} IS NULL THEN 'n' {nan}ELSE '{letter}' END"


def _exact_in_engine(table: EngineTable, name: str) -> bool:
    """Whether a number column left in the engine holds no integer past what a double holds exactly."""
    return table.stored[name] not in (STORED_INTEGER, STORED_VALUE) or name in table.exact


def registered_in_place(connection, table: Table) -> bool:
    """Whether `register_table` makes the table's relation a view over rows left in the engine (each cell cast,
    a missing cell still missing, NaN still NaN; a date its ISO text), not a copy of its cells as JavaScript
    has them."""
    return isinstance(table, EngineTable) and table.connection is connection and all(
        (kind in (NUM, STR, BOOL) and (kind != STR or table.kinds[column] in (TEXT, None)
                                       or stored_date(table, column)))
        or wide_integers(table, column) or stored_values(table, column)
        for column, kind in ((column, registered_kind(table, column)) for column in table.names))


def wide_integers(table: Table, name: str) -> bool:
    """Whether a column left in the engine holds integers some of which a double does not hold exactly: Python
    reads them as integers, JavaScript as numbers to 2^53 and as their decimal text past it (`vega.js_cell`)."""
    return (table.kinds.get(name) == NUMBER and in_engine(table, name) and table.stored[name] == STORED_INTEGER
            and name not in table.exact)


def _wide_integer_cells(sql: str) -> str:
    """A wide integer column's cells as `Codec` text: a number to 2^53 (whose shortest text in Python is its
    digits and ``.0``, under 10^16), its decimal text past it, null."""
    return (f"CASE WHEN {sql} IS NULL THEN 'l' WHEN {exact_integer_sql(sql)} "
            f"THEN 'n' || CAST({sql} AS VARCHAR) || '.0' ELSE 's' || CAST({sql} AS VARCHAR) END")


def stored_values(table: Table, name: str) -> bool:
    """Whether a column left in the engine holds JavaScript values of several kinds there (`STORED_VALUE`)."""
    return isinstance(table, EngineTable) and table.stored.get(name) == STORED_VALUE and in_engine(table, name)


def _value_cells(sql: str) -> str:
    """A `STORED_VALUE` column's JavaScript values of its cells (`vega.js_cell`): NaN, infinities and undefined
    are null, as the inline data writes them; an integer is its number to 2^53 (its digits and .0, as under
    10^16) and its decimal text past it (`_wide_integer_cells`); a date its ISO text to the second, as
    `_js_date` writes it."""
    return (f"CASE WHEN {sql} IN ('nnan', 'ninf', 'n-inf', 'u') THEN 'l' "
            f"WHEN left({sql}, 1) = 'i' THEN {_wide_integer_cells(f'CAST(substr({sql}, 2) AS BIGINT)')} "
            f"WHEN left({sql}, 1) = 'D' THEN 's' || substr({sql}, 2, 19) ELSE {sql} END")


def stored_date(table: EngineTable, name: str) -> bool:
    """Whether a column left in the engine holds dates there (a timestamp, not text read as dates)."""
    return table.kinds[name] == DATE and table.stored[name] == STORED_DATE


def _own_cells(table: Table, name: str) -> str:
    """The column of a view registered in place (`register_table`) holding a column's own cells where the view
    holds JavaScript's values of them: a date column's, a wide integer column's, a column of several kinds'."""
    return f"{ROW}_own{table.names.index(name)}"


def _js_date(sql: str) -> str:
    """A timestamp as the text JavaScript holds for its cell (`vega.js_cell`: ISO, whole seconds)."""
    return f"CASE WHEN {sql} IS NOT NULL THEN strftime({sql}, '%Y-%m-%d') || 'T' || strftime({sql}, '%H:%M:%S') END"


def register_table(connection, table: Table, name: str) -> str:
    """Make the rows a relation of the connection, with each row's number; returns its name.

    Each column as its JavaScript values need it (`registered_column`), and
    `ROW`, each row's index, entering the engine through
    `sources.register_arrays`. Rows left in the engine (`sources.EngineTable`)
    on this connection are read where they are: a view over them, no row
    leaving the engine, where every column is a number, text or a boolean.
    """
    if registered_in_place(connection, table):
        selects = [quote_identifier(ROW)]
        for column in table.names:
            cell = quote_identifier(column)
            if stored_date(table, column):  # its text as JavaScript's value, and beside it the date itself
                selects += [f"{_js_date(cell)} AS {cell}", f"{cell} AS {quote_identifier(_own_cells(table, column))}"]
            elif wide_integers(table, column):  # its Codec text, and beside it the integers themselves
                selects += [f"{_wide_integer_cells(cell)} AS {cell}", f"{cell} AS {quote_identifier(_own_cells(table, column))}"]
            elif stored_values(table, column):  # its cells' JavaScript values, and beside it the cells' own text
                selects += [f"{_value_cells(cell)} AS {cell}", f"{cell} AS {quote_identifier(_own_cells(table, column))}"]
            else:
                selects.append(f"CAST({cell} AS {SQL_TYPES[registered_kind(table, column)]}) AS {cell}")
        connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS SELECT {', '.join(selects)} "
                           f"FROM {quote_identifier(table.rows_view())}")
        return name
    columns, numbers, selects = {}, set(), [f"{quote_identifier(ROW)}"]
    for index, column in enumerate(table.names):
        cells, sql_type = registered_column(table, column)
        scanned = f"c{index}"
        columns[scanned] = cells
        if sql_type == "DOUBLE":  # NaN is a missing cell too: the inline data writes both as null
            numbers.add(scanned)
        selects.append(f"CAST({scanned} AS {sql_type}) AS {quote_identifier(column)}")
    arrays = scannable(columns, numbers)
    arrays[ROW] = integer_array(range(len(table)))
    scan = register_arrays(connection, f"{name}_scan", arrays)
    connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS SELECT {', '.join(selects)} "
                       f"FROM {quote_identifier(scan)}")
    return name


# ------------------------------------------------------------------ running a chart's layers

@contextlib.contextmanager
def calling(connection, functions: list, errors: list):
    """A query's Python functions registered while the block runs it.

    Raises:
        ex.Unsupported, ex.EvaluationError, RecursionError: an expression Vega
            must run (raised by the evaluator inside the query, `errors`).
    """
    import duckdb

    for name, function, params, returns in functions:
        connection.create_function(name, function, params, returns, null_handling="special", side_effects=False)
    try:
        yield
    except duckdb.Error:
        if errors:
            raise errors[0] from None
        raise
    finally:
        for name, *_ in functions:
            connection.remove_function(name)


def fetch_rows(connection, sql: str, functions: list, errors: list) -> list:
    """Run a query calling these Python functions; its rows (raises as `calling`)."""
    with calling(connection, functions, errors):
        return connection.execute(sql).fetchall()


def run_query(connection, query: Query, table: Table, limit: int | None = None):
    """Run a query; its rows as a `Table`, and each row's data row (None when no transform changes the rows).
    With `limit`, its first `limit` rows at most.

    Raises:
        ex.Unsupported, ex.EvaluationError, RecursionError: an expression Vega
            must run (raised by the evaluator inside the query).
    """
    for name, arrays in query.relations:
        register_arrays(connection, name, arrays)
    with calling(connection, query.functions, query.errors):
        cursor = connection.execute(query.sql if limit is None else f"{query.sql} LIMIT {limit}")
        names = [column[0] for column in cursor.description]
        rows = cursor.fetchall()
    at = {name: index for index, name in enumerate(names)}
    measured = {}
    if query.probes:  # one row at least, with the kinds' measures (and NULLs for the rows when there are none)
        for key, (count, tags) in query.probes.items():
            measured[key] = _kind_of_tags(rows[0][at[count]], set(rows[0][at[tags]] or ()))
        rows = [row for row in rows if row[at[SEQ]] is not None]
    columns, kinds = {}, {}
    for name, state in query.fields.items():
        try:
            columns[name] = _cells(state, rows, at, table, query.codec)
        except DateOutOfRange as error:  # a date past Python's years, a column's or computed: named by its field
            raise DateOutOfRange(error.year, name) from None
        # A field an impute made: the kind of its cells, probed on the impute's rows or read from these.
        probe = _cells_probe(state.kind)
        kinds[name] = ((vega.column_kind(columns[name]) if probe is None else _resolve(probe, measured))
                       if _of_cells(state.kind) else _resolve(state.kind, measured))
    origin = tuple(row[at[ROW]] for row in rows) if query.changes_rows else None
    return Table(columns, kinds), origin


def _of_cells(kind) -> bool:
    """Whether a field's kind is its cells' (an impute's fields, and those after it): ``("cells", kind before
    it)``, measured once they are made, or ``("cells", kind before it, probe)``, measured on the impute's rows."""
    return isinstance(kind, tuple) and kind[0] == "cells"


def _kind_before_impute(kind):
    """A field's kind before any impute (`_kept_cell` decodes a data cell of any kind by it): an impute's field's
    ``("cells", kind before it, ...)`` gives it, where it has one; any other kind is its own."""
    if not _of_cells(kind):
        return kind
    return kind[1] if len(kind) > 1 else None


def _cells_probe(kind) -> tuple | None:
    """The probe measuring an impute's field on the impute's rows (`_of_cells`), where it has one."""
    return kind[2] if _of_cells(kind) and len(kind) > 2 else None


def _resolve(kind, measured: dict) -> str | None:
    """A table kind known once the query ran: a computed column's, or the one kind of a fold's fields."""
    if not isinstance(kind, tuple):
        return kind
    if kind[0] == "probe":
        return measured[(kind[1], kind[2].name)]
    if kind[0] == "cells":  # an impute's field, where its cells' kind is a probe on the impute's rows
        probe = _cells_probe(kind)
        return None if probe is None else _resolve(probe, measured)
    kinds = {_resolve(part, measured) for part in kind[1]}
    return kinds.pop() if len(kinds) == 1 else None


def _kind_of_tags(count: int, tags: set) -> str | None:
    """`vega.column_kind` from which kinds of cell a column holds (an object's text is a text, a date past
    Python's years a date)."""
    present = {PYTHON_ONLY_AS.get(tag, tag) for tag in tags} - {"n", "N"}
    if not present:
        return NUMBER if "N" in tags else None
    if present == {"f"}:
        return NUMBER
    if present == {"b"}:
        return BOOLEAN if tags == {"b"} else None
    return {frozenset({"s"}): TEXT, frozenset({"d"}): DATE}.get(frozenset(present))


def _cells(state: FieldState, rows: list, at: dict, table: Table, codec: Codec) -> list:
    """One field's cells: the data's own where the value is a data row's, else the computed value's."""
    cell = state.cell
    if cell[0] == "added":  # a row an impute added: its value's cell; the others as before it
        flag, decode, index = at[cell[3]], _decoder(cell[2], codec), at[cell[2].name]
        before = iter(_cells(FieldState(state.value, cell[1], state.kind), [row for row in rows if not row[flag]],
                             at, table, codec))
        return [vega.python_cell(decode(row[index])) if row[flag] else next(before) for row in rows]
    if cell[0] == "source":  # (no data row: the row an argmin/argmax picks in a group where it picks none)
        index = at[cell[2]]
        if isinstance(table, EngineTable):  # only the rows the query kept are fetched
            found = iter(table.cells(cell[1], [row[index] for row in rows if row[index] is not None]))
            return [None if row[index] is None else next(found) for row in rows]
        source = table[cell[1]]
        return [None if row[index] is None else source[row[index]] for row in rows]
    if cell[0] == "computed":
        decode, index = _decoder(cell[1], codec), at[cell[1].name]
        return [vega.python_cell(decode(row[index])) for row in rows]
    if cell[0] == "fold":
        key, value, origin, mapping = at[cell[1].name], at[cell[2].name], at[cell[3]], cell[4]
        nested = {}  # an impute's folded field: its cells on the rows of its key, read as that field's are
        for name, how in mapping.items():
            if isinstance(how, tuple):
                positions = [index for index, row in enumerate(rows) if row[key] == name]
                found = _cells(FieldState(state.value, how, None), [rows[index] for index in positions], at, table, codec)
                nested.update(zip(positions, found))
        out = []
        for index, row in enumerate(rows):
            how = mapping[row[key]] if row[key] is not None else "missing"
            if isinstance(how, tuple):
                out.append(nested[index])
            elif how == "source":
                out.append(table[row[key]][row[origin]])
            elif how == "computed":
                out.append(vega.python_cell(codec.decode(row[value])))
            else:
                out.append(None)
        return out
    return [None] * len(rows)


def _top_parses(layer, facet: dict, common: dict, gaps: list) -> dict[str, tuple]:
    """Field -> the parses Vega-Lite applies to a layer's rows above every transform, in order."""
    top = {**common, **({} if layer.mark is not None else gaps[0])}
    parses: dict[str, tuple] = {}
    for name, kind in (*facet.items(), *top.items()):
        parses[name] = (*parses.get(name, ()), kind)
    return parses


def pivot_columns(connection, chart: Chart, table: Table, layer_fields: tuple, shared_fields: dict) -> dict | None:
    """Each pivot's columns (pivot path -> names): its keys read by the engine over the steps before it.

    Returns None where a pivot's keys cannot be read so (a step before it
    that does not compile, or a pivot on dates or objects): the interpreter
    reads them.
    """
    import duckdb

    view = register_table(connection, table, f"rows_{id(table)}")
    emitted, facet, plans, common, conflicting = vega.parse_plans(chart, layer_fields, shared_fields)
    pivots: dict = {}
    wanted = set()
    for layer, plan, gaps in zip(chart.layers, emitted, plans):
        chain = chart.transforms(layer)
        paths = {step.path for step in chain if isinstance(step, Pivot)}
        if not paths or paths <= set(pivots):
            continue
        wanted |= paths
        if layer.mark is not None and conflicting:
            return None
        try:
            compile_chain(view, table, chain, _top_parses(layer, facet, common, gaps), gaps, plan,
                          run=lambda sql, functions, errors: fetch_rows(connection, sql, functions, errors),
                          pivots=pivots)
        except (NotCompiled, RecursionError, ex.Unsupported, ex.EvaluationError, duckdb.Error):
            pass  # the steps after the last pivot need not compile
    return pivots if wanted <= set(pivots) else None


def evaluate_layers(connection, chart: Chart, table: Table, layer_fields: tuple, shared_fields: dict) -> tuple:
    """Every layer's rows through the chart's transforms and its own, computed in the engine as Vega computes them.

    Args:
        connection: the engine (`engine.connect`).
        chart: the chart.
        table: the rows read (or drawn).
        layer_fields: per layer, its fields after its transforms.
        shared_fields: the fields after the chart's transforms (the facet's types).

    Returns:
        Per layer, its `Rows`, or None where the rows cannot be known
        without Vega (the interpreter says why).
    """
    import duckdb

    view = register_table(connection, table, f"rows_{id(table)}")
    emitted, facet, plans, common, conflicting = vega.parse_plans(chart, layer_fields, shared_fields)
    done: dict = {}
    bounded = pulled_too_many(table)  # the rows read into Python whole, refused past the bound (E416)
    result = []
    for layer, plan, gaps, types in zip(chart.layers, emitted, plans, layer_fields):
        chain = chart.transforms(layer)
        if layer.mark is not None and conflicting:  # (the interpreter's: it reads every row, up to the bound)
            result.append(_refused_read(layer, types, len(table), layer, "Vega-Lite parses one of its fields two "
                                        "ways") if bounded else None)
            continue
        parses = _top_parses(layer, facet, common, gaps)
        keepable = registered_in_place(connection, table) and all(type(step) in KEPT_STEPS for step in chain)
        try:
            query = compile_chain(view, table, chain, parses, gaps, plan,
                                  run=lambda sql, functions, errors: fetch_rows(connection, sql, functions, errors),
                                  cells=keepable)
            # An impute's rows, made by joins over every row, are held: not made again by each query over them.
            kept = (kept_rows(connection, query, table, costly=any(type(step) is Impute for step in chain))
                    if keepable else None)
        except (NotCompiled, RecursionError, ex.Unsupported, ex.EvaluationError, duckdb.Error) as error:
            # The interpreter reads every row of the table: refused past the bound, before a row is read
            result.append(_refused_read(layer, types, len(table), getattr(error, "step", None)
                                        or _last_node(layer, chain), _not_computed(error))
                          if bounded else None)
            continue
        if kept is None and query.kinds_at is not None:  # kinds only the kept rows measure: the interpreter's
            result.append(_refused_read(layer, types, len(table), *_unkept(layer, chain, query))
                          if bounded else None)
            continue
        if kept is not None:
            # The layer's rows stay where they are: a fit sums them there, an encoding aggregates them there
            # or M4 reduces them there, and a layer drawn row by row fetches them once the mark limit allows
            # (`stages.limits`).
            origin = KeptOrigin(kept) if query.changes_rows else None
            result.append(Rows(layer, dict(types), kept, origin, {}, None, len(kept)))
            continue
        if query.sql not in done:
            try:
                done[query.sql] = _read_rows(connection, query, table, keepable) if bounded else run_query(
                    connection, query, table)
            except (ex.Unsupported, ex.EvaluationError, RecursionError, duckdb.Error) as error:
                # Only Vega knows these rows (or the engine failed on them): the interpreter says why.
                done[query.sql] = error
        read = done[query.sql]
        if isinstance(read, Exception):
            result.append(_refused_read(layer, types, len(table), _last_node(layer, chain), _not_computed(read))
                          if bounded else None)
        elif isinstance(read, int):
            result.append(_refused_read(layer, types, read, *_unkept(layer, chain, query)))
        else:
            rows, origin = read
            result.append(Rows(layer, dict(types), rows, origin, {}, None, len(rows)))
    return tuple(result)


def _read_rows(connection, query: Query, table: EngineTable, keepable: bool):
    """A compiled layer's rows read into Python, as `run_query`'s, up to `sources.MAX_PULLED_ROWS`; past it, their
    number, having read at most one row past the bound. The rows of steps kept elsewhere may be every row: they
    are counted first (the count needs no value a calculate makes, which the engine leaves out). Others (an
    aggregate's groups, most often few) are read up to one past the bound, the query run once, and counted only
    past it."""
    if keepable and (count := _counted(connection, query)) > sources.MAX_PULLED_ROWS:
        return count
    read = run_query(connection, query, table, sources.MAX_PULLED_ROWS + 1)
    return _counted(connection, query) if len(read[0]) > sources.MAX_PULLED_ROWS else read


# The steps whose rows can stay in the engine (`kept_rows`): each row is a row of the data, one of a fold, or one
# an impute added.
KEPT_STEPS = (Filter, Calculate, Fold, Window, JoinAggregate, Lookup, Impute)
# The kinds of cell (`_Chain.tag`'s letters) a column of any kind may hold to be kept where the rows are (as
# `STORED_VALUE` where they are of several kinds): nulls, NaN, numbers, text, booleans and dates. Not an array or a
# mapping ('o'), an object's text ('S') nor a date past Python's years ('Y'): only Python makes those cells.
VALUE_TAGS = frozenset("nNfsbd")
# Those of an impute's key and groups, beside the rows read: no Date either (a Date is equal only to itself).
PLAIN_TAGS = VALUE_TAGS - {"d"}
# The cells only Python makes, as the kind of cell they are (`_kind_of_tags`).
PYTHON_ONLY_AS = {"S": "s", "Y": "d"}
# A computed value's SQL kind -> how its cells are stored (a number's cell is its double, NaN kept).
KEPT_STORED = {NUM: STORED_FLOAT, BOOL: STORED_BOOLEAN, STR: STORED_TEXT}
# A value of any kind (`Codec`'s text) whose cells are all of one kind -> how they are stored, and decoded.
DECODED = {
    NUMBER: (STORED_FLOAT, lambda text: f"CASE WHEN left({text}, 1) = 'n' THEN CAST(CASE substr({text}, 2) "
                                        f"WHEN 'nan' THEN 'NaN' WHEN 'inf' THEN 'Infinity' WHEN '-inf' THEN "
                                        f"'-Infinity' ELSE substr({text}, 2) END AS DOUBLE) END"),
    TEXT: (STORED_TEXT, lambda text: f"CASE WHEN left({text}, 1) = 's' THEN substr({text}, 2) END"),
    BOOLEAN: (STORED_BOOLEAN, lambda text: f"({text} = 'b1')"),
    # A Date's time (a whole number of milliseconds, or NaN: an Invalid Date, which a cell holds as missing).
    DATE: (STORED_DATE, lambda text: f"CASE WHEN left({text}, 1) = 'd' AND {text} <> 'dnan' THEN "
                                     f"{_timestamp(f'CAST(substr({text}, 2) AS DOUBLE)')} END"),
}


def kept_rows(connection, query: Query, table: EngineTable, costly: bool = False) -> EngineTable | None:
    """A layer's rows left in the engine (`EngineTable.derived`), or None where Python must hold them.

    Each field's cells must be SQL's own: a data cell (carried as read: `Query.raw`), a computed number,
    boolean, text or date (a value of any kind whose cells are all of one of these, decoded in SQL), a fold's
    value over data columns stored alike, or an impute's field (one of these for the rows read, what it set for
    the rows it adds). Each column's kind is the one the rows read would have: the query's probes, measured
    first, or after an impute its cells' (`EngineTable.derived` measures it). Where the query calls Python
    functions, or is `costly` (an impute's joins), its rows are computed once and held by the engine (a
    temporary table), not computed again by each query over them.
    """
    import duckdb

    if not query.raw or not query.fields or not all(_kept_shape(state.cell) for state in query.fields.values()):
        return None  # (before the probes are measured: a scan of every row, then run again by `run_query`)
    for name, arrays in query.relations:  # a lookup's second source: registered for as long as the connection
        register_arrays(connection, name, arrays)
    try:
        with calling(connection, query.functions, query.errors):
            measured = {}
            if query.probes:
                found, = connection.execute(f"{query.steps}SELECT {query.measures}").fetchall()
                measured = {key: _kind_of_tags(found[2 * index], set(found[2 * index + 1] or ()))
                            for index, key in enumerate(query.probes)}
                # (and the kinds of cell each holds, under ("tags", *key): a column of several is kept as values)
                measured.update({("tags", *key): frozenset(found[2 * index + 1] or ())
                                 for index, key in enumerate(query.probes)})
            kept = _kept_columns(query, table, measured)
            if kept is None:
                return None
            columns, integers = kept
            row = quote_identifier(ROW)
            marks = {name: _integers_column(index) for index, name in enumerate(columns) if name in integers}
            selects = ", ".join([f"r.{SEQ} AS {row}", f"r.{row} AS {quote_identifier(ORIGIN)}",
                                 *(f"{sql} AS {quote_identifier(name)}" for name, (sql, _) in columns.items()),
                                 *(f"{integers[name]} AS {quote_identifier(mark)}" for name, mark in marks.items())])
            # An impute's fields before a filter: their kinds are those of the impute's rows, measured there.
            measured = [f"{sql} AS {quote_identifier(name)}" for name, (sql, spec) in columns.items()
                        if spec[1] == KIND_MEASURED]
            kinds_from = (f"{query.steps}SELECT {', '.join(measured)} FROM {quote_identifier(query.kinds_at)} AS r"
                          if query.kinds_at and measured else None)
            return table.derived(f"{query.steps}SELECT {selects} FROM {query.last} AS r",
                                 {name: spec for name, (_, spec) in columns.items()}, held=bool(query.functions) or costly,
                                 integers=marks, kinds_from=kinds_from)
    except (duckdb.Error, ex.Unsupported, ex.EvaluationError, RecursionError):
        return None  # an expression only Vega runs: the rows are read, and the interpreter says why


def _refused_read(layer, types: dict, count: int, node, why: str) -> Rows:
    """A layer whose `count` rows Python would read whole, past `sources.MAX_PULLED_ROWS`: refused at `node` (E416, by
    the check stage) before a row is read."""
    unknowable = Unknowable(node, msg.rows_pulled_past_limit(count, sources.MAX_PULLED_ROWS, why), thrown=True,
                            hint=msg.rows_pulled_past_limit_hint())
    return Rows(layer, dict(types), None, None, {}, unknowable, count)


def _not_computed(error: Exception) -> str:
    """Why a chain that does not compile (or run) in the engine needs the interpreter, in E416's words."""
    if isinstance(error, NotCompiled):
        return f"the engine does not compute {error.args[0]} as Vega does"
    if isinstance(error, ex.Unsupported):
        return f"only the renderer computes {error}"
    return "a step the engine does not compute as Vega does"


def _last_node(layer, chain: tuple):
    """The last transform of a layer's chain (the rows it makes are those read), or the layer without one."""
    return chain[-1] if chain else layer


def _unkept(layer, chain: tuple, query: Query) -> tuple:
    """Where E416 points, and why in its words, for a layer whose compiled rows are read rather than kept: the
    first step whose rows are never kept (an aggregate's, a pivot's, a density's: `KEPT_STEPS`), else the last
    step making a value of any kind (whose cells SQL does not hold as Python does)."""
    made = next((step for step in chain if type(step) not in KEPT_STEPS), None)
    if made is not None:
        return made, f"the rows after its {type(made).__name__.lower()} are read whole"
    anything = {name for name, state in query.fields.items() if state.value.kind == ANY}
    return (next((step for step in reversed(chain) if anything & set(step.makes())), _last_node(layer, chain)),
            "its values are ones only Python holds: an array or another object beside other kinds, a date past the "
            "year 9999, Dates as an impute's keys or groups")


def _counted(connection, query: Query) -> int:
    """The number of rows a query makes, counted by the engine (nothing else is read)."""
    for name, arrays in query.relations:
        register_arrays(connection, name, arrays)
    with calling(connection, query.functions, query.errors):
        (count,), = connection.execute(f"{query.steps}SELECT count(*) FROM {query.last}").fetchall()
    return count


def _kept_shape(cell: tuple) -> str | None:
    """What a field's cell is to `_kept_columns`, from its shape alone (before any kind is measured): a data
    cell, a computed value SQL holds, one of any kind (decoded if its cells are of one), a fold's, an impute's
    (of a kept cell, and a value SQL holds for the rows it adds); else None."""
    if cell[0] == "source" and cell[2] == ROW:
        return "source"
    if cell[0] == "computed" and cell[1].kind in KEPT_STORED:
        return "computed"
    if cell[0] == "computed" and cell[1].kind == ANY:
        return "decoded"
    if cell[0] == "computed" and cell[1].kind == DATE_KIND:
        return "date"
    if cell[0] == "fold" and cell[3] == ROW and all(
            how in ("source", "computed", "missing") or (isinstance(how, tuple) and _kept_shape(how) == "added")
            for how in cell[4].values()):
        return "fold"
    if cell[0] == "added" and (cell[1][0] == "missing" or _kept_shape(cell[1]) is not None):
        return "added"
    return None


def _kept_columns(query: Query, table: EngineTable, measured: dict) -> tuple[dict, dict] | None:
    """Each field's SQL over the query's last step, and its column's (stored type, kind, floats, exact); and for
    a column of numbers Python holds as a mix of integers and floats, SQL of whether a row's cell is an integer.
    A kind known only from the cells (after an impute) is `KIND_MEASURED`: `EngineTable.derived` measures it."""
    columns, integers = {}, {}
    for name, state in query.fields.items():
        cells = _of_cells(state.kind)
        kept = _kept_cell(query, table, state.cell, _kind_before_impute(state.kind), measured)
        if kept is None:
            return None
        sql, alike, integer = kept
        alike, mixed = _fold_stored(alike)
        if mixed:  # a float column and a complete integer column: Python's mix, each row's kind marked
            integers[name], sql = integer, f"CAST({sql} AS DOUBLE)"
        if len(alike) > 1:  # cells stored differently (text and numbers, say): each held as its tagged text
            kept = _kept_cell(query, table, state.cell, _kind_before_impute(state.kind), measured, values=True)
            if kept is None:
                return None
            sql, alike, _ = kept
        stored, floats, exact = alike.pop() if alike else (STORED_FLOAT, False, False)
        probe = _cells_probe(state.kind)
        kind = (KIND_MEASURED if probe is None else _resolve(probe, measured)) if cells else _resolve(state.kind, measured)
        columns[name] = (sql, (stored, kind, floats, exact))
    return columns, integers


def _kept_cell(query: Query, table: EngineTable, cell: tuple, kind, measured: dict,
               values: bool = False) -> tuple[str, set, str] | None:
    """A kept cell's SQL over the query's last step, how each of its cells may be stored (`_stored_as`), and SQL
    of whether a row's cell is one of a complete integer column's (an integer in Python); None where SQL does not
    hold it. `kind` is the field's kind before any impute (a data cell of any kind is decoded by it). With
    `values`, every cell is its tagged text (`STORED_VALUE`, `_value_text`): a column whose cells are stored
    differently (a fold of text and numbers, an impute's text fill beside numbers) is held so."""
    shape = _kept_shape(cell)
    if shape == "decoded" and _python_only(kind, measured):
        return None
    if shape == "decoded" and _value_tags(kind, measured) and (values or _resolve(kind, measured) not in DECODED):
        # Values of several kinds (numbers and text, a date and text, say): held as their tagged text (which a value
        # of one kind is too, where the cells beside it are of others)
        return _codec_values(f"r.{cell[1].sql}"), {(STORED_VALUE, False, False)}, "false"
    if shape == "fold":
        return _folded_cells(query, table, cell, kind, measured, values)
    if shape == "added":
        # The rows read: the cell before the impute. The rows it adds: a value the impute set (its key, its
        # fill, its groups), Python's cell of it (a number's is a float), or nothing (every other field).
        inner = ("NULL", set(), "false") if cell[1][0] == "missing" else _kept_cell(query, table, cell[1], kind,
                                                                                    measured, values)
        if inner is None:
            return None
        if cell[4] and cell[2].kind == ANY and not _plain_values(cell[1], kind, measured):
            return None  # (the values it sets may be dates or objects, which only Python holds beside others)
        added, spec = _set_cell(cell[2]) if cell[4] else ("NULL", None)
        if values and spec is not None:
            added, spec = _value_text(added, spec), (STORED_VALUE, False, False)
            if added is None:
                return None
        flag = f"r.{quote_identifier(cell[3])}"
        return (f"CASE WHEN {flag} THEN {added} ELSE {inner[0]} END", inner[1] | ({spec} if spec else set()),
                f"(NOT {flag} AND {inner[2]})")
    if shape == "source":
        sql, spec = _raw_cell(query, table, cell[1]), _stored_as(table, cell[1])
        integer = "true" if _integral(spec) else "false"
    elif shape == "computed":
        sql, spec, integer = f"r.{cell[1].sql}", (KEPT_STORED[cell[1].kind], False, False), "false"
    elif shape == "date":  # held as the timestamp its time is (a cell reads it as Python's datetime)
        sql = f"CASE WHEN {_finite(f'r.{cell[1].sql}')} THEN {_timestamp(f'r.{cell[1].sql}')} END"
        spec, integer = (STORED_DATE, False, False), "false"
    elif shape == "decoded" and not _of_cells(kind) and (decoded := _resolve(kind, measured)) in DECODED:
        sql, spec = DECODED[decoded][1](f"r.{cell[1].sql}"), (DECODED[decoded][0], False, False)
        integer = "false"
    else:
        return None
    if values:
        sql, spec = _value_text(sql, spec), (STORED_VALUE, False, False)
        if sql is None:
            return None
    return sql, {spec}, integer


def _value_tags(kind, measured: dict, held: frozenset = VALUE_TAGS) -> bool:
    """Whether a computed value of any kind, measured by its probe, holds only the kinds of cell `held` (by
    default `VALUE_TAGS`: those SQL holds as Python does)."""
    return (isinstance(kind, tuple) and kind[0] == "probe"
            and measured.get(("tags", kind[1], kind[2].name), VALUE_TAGS | {"o"}) <= held)


def _python_only(kind, measured: dict) -> bool:
    """Whether a computed value's probe saw cells only Python makes (an array's or a mapping's, an object's text, a
    date past Python's years: not `VALUE_TAGS`), which no SQL column holds."""
    return (isinstance(kind, tuple) and kind[0] == "probe"
            and not measured.get(("tags", kind[1], kind[2].name), frozenset("o")) <= VALUE_TAGS)


def _value_text(sql: str, spec: tuple) -> str | None:
    """A cell stored as `spec`, as the tagged text a `STORED_VALUE` column holds (`sources._value_cell` reads it
    back as the same cell): ``n`` and a float's shortest text (Python's), ``i`` and an integer's digits (a
    complete integer column's, past 2^53 too), ``s`` and a text, ``b1``/``b0``, ``D`` and a date's ISO text to
    the microsecond; a missing cell is null."""
    stored, floats, _ = spec
    if stored == STORED_VALUE:
        return sql
    if stored == STORED_DATE:
        return f"('D' || strftime({sql}, '%Y-%m-%d') || 'T' || strftime({sql}, '%H:%M:%S.%f'))"
    if stored == STORED_TEXT:
        return f"('s' || {sql})"
    if stored == STORED_BOOLEAN:
        return f"CASE WHEN {sql} THEN 'b1' WHEN NOT {sql} THEN 'b0' END"
    if stored == STORED_FLOAT or (stored == STORED_INTEGER and floats):
        return f"('n' || {DOUBLE_TEXT}(CAST({sql} AS DOUBLE)))"
    if stored == STORED_INTEGER:
        return f"('i' || CAST(CAST({sql} AS BIGINT) AS VARCHAR))"
    return None


def _codec_values(sql: str) -> str:
    """A value of any kind (`Codec`'s text) as the tagged text a `STORED_VALUE` column holds: its own text, but a
    Date's ('d' and its milliseconds) is its datetime's ISO text (`_value_text`) and an Invalid Date none, as
    `vega.python_cell` makes them (a date past Python's years is never kept: `VALUE_TAGS`)."""
    time = f"CAST(substr({sql}, 2) AS DOUBLE)"
    date = _value_text(_timestamp(time), (STORED_DATE, False, False))
    return (f"CASE WHEN left({sql}, 1) <> 'd' THEN {sql} WHEN {sql} IN ('dnan', 'dinf', 'd-inf') THEN NULL "
            f"ELSE {date} END")


def _set_cell(column: Column) -> tuple[str, tuple]:
    """A value an impute set, as Python's cell of it: its SQL over the query's last step, and how it is stored
    (a value of any kind, a number's fill in a text field say, as its tagged text)."""
    sql = f"r.{column.sql}"
    if column.kind == DATE_KIND:
        return f"CASE WHEN {_finite(sql)} THEN {_timestamp(sql)} END", (STORED_DATE, False, False)
    if column.kind == ANY:
        return _codec_values(sql), (STORED_VALUE, False, False)
    return sql, (KEPT_STORED[column.kind], False, False)


def _plain_values(cell: tuple, kind, measured: dict) -> bool:
    """Whether the JavaScript values of a field's cells (before an impute) are numbers, text, booleans, null or
    undefined, never a Date or an object: a data cell's, a computed number's, text's or boolean's, one of any
    kind whose probe saw none, a fold's of data cells. (An impute's key or group values are these values, and
    its fill a literal: held as `STORED_VALUE` beside the rows read.)"""
    if cell[0] in ("source", "missing"):
        return True
    if cell[0] == "computed":
        return cell[1].kind in (NUM, STR, BOOL) or (cell[1].kind == ANY and _value_tags(kind, measured, PLAIN_TAGS))
    return cell[0] == "fold" and all(how in ("source", "missing") for how in cell[4].values())


def _integral(spec: tuple) -> bool:
    """Whether cells so stored are Python's integers a double holds (a complete integer column's)."""
    stored, floats, exact = spec
    return stored == STORED_INTEGER and not floats and exact


def _integers_column(index: int) -> str:
    """The column beside a kept table's `index`th, holding whether each row's cell is an integer in Python
    (`EngineTable.derived`'s `integers`)."""
    return f"{ROW}_int{index}"


def _fold_stored(specs: set) -> tuple[set, bool]:
    """How a fold's value cells are kept where its columns are stored differently, and whether each row must
    mark its cell an integer: as doubles where all read as floats in Python (a float column's, an integer
    column's beside a gap), and where the others are integers a double holds (a complete integer column's:
    Python's mix, marked). Else the specs as they are (several: only Python holds them)."""
    floats = {spec for spec in specs if spec[0] == STORED_FLOAT or (spec[0] == STORED_INTEGER and spec[1])}
    integers = specs - floats
    if len(specs) < 2 or not floats or not all(stored == STORED_INTEGER and exact for stored, _, exact in integers):
        return specs, False
    return {(STORED_FLOAT, False, False)}, bool(integers)


def _folded_cells(query: Query, table: EngineTable, cell: tuple, kind, measured: dict,
                  values: bool = False) -> tuple[str, set, str] | None:
    """A fold's value cells, each folded field's own by the row's key: a data cell as read, a computed one
    decoded from its text (by the kind its probe measured), an impute's field as its own cells are kept, none
    for a missing field; how each is stored; and SQL of whether a row's cell is an integer in Python. With
    `values`, each as its tagged text (`_kept_cell`)."""
    mapping = cell[4]
    kinds = kind[1] if isinstance(kind, tuple) and kind[0] == "union" and len(kind[1]) == len(mapping) else None
    branches, alike, integers = [], set(), []
    for index, (folded, how) in enumerate(mapping.items()):
        decoded = _resolve(kinds[index], measured) if how == "computed" and kinds is not None else None
        integer = "false"
        if isinstance(how, tuple):  # an impute's field: by the kind its cells had before the impute
            before = _kind_before_impute(kinds[index] if kinds is not None else None)
            if (kept := _kept_cell(query, table, how, before, measured, values)) is None:
                return None
            sql, specs, integer = kept
            alike |= specs
        elif how == "source":
            sql, spec = _raw_cell(query, table, folded), _stored_as(table, folded)
            integer = "true" if spec[0] == STORED_INTEGER and not spec[1] else "false"
            if values and (sql := _value_text(sql, spec)) is None:
                return None
            alike.add((STORED_VALUE, False, False) if values else spec)
        elif how == "computed" and kinds is not None and _python_only(kinds[index], measured):
            return None
        elif how == "computed" and kinds is not None and (
                (values and decoded in (NUMBER, TEXT, BOOLEAN)) or (decoded is None and _value_tags(kinds[index], measured))):
            sql = _codec_values(f"r.{cell[2].sql}")  # (its tagged text: values of several kinds, or of one beside others)
            alike.add((STORED_VALUE, False, False))
        elif decoded in DECODED:
            sql, spec = DECODED[decoded][1](f"r.{cell[2].sql}"), (DECODED[decoded][0], False, False)
            if values and (sql := _value_text(sql, spec)) is None:
                return None
            alike.add((STORED_VALUE, False, False) if values else spec)
        elif how == "missing":
            continue
        else:
            return None
        branches.append(f" WHEN {quote_text(folded)} THEN {sql}")
        if integer != "false":
            integers.append(f" WHEN {quote_text(folded)} THEN {integer}")
    key = f"r.{cell[1].sql}"
    return ((f"CASE {key}{''.join(branches)} END" if branches else "CAST(NULL AS DOUBLE)"), alike,
            f"coalesce(CASE {key}{''.join(integers)} END, false)" if integers else "false")


def _stored_as(table: EngineTable, name: str) -> tuple:
    """How a data column's cells are stored: (stored type, integers read as floats, a double holds them)."""
    return table.stored[name], name in table.floats, name in table.exact


def _raw_cell(query: Query, table: EngineTable, name: str) -> str:
    """A data column's cells as read (an integer column's are registered as doubles, which hold them exactly)."""
    raw = f"r.{quote_identifier(query.raw[name])}"
    return f"CAST({raw} AS BIGINT)" if table.stored[name] == STORED_INTEGER else raw
