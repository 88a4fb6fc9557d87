"""The one interpreter of transforms: each layer's rows through the chart's and its own transforms, as Vega computes them.

`INTERPRETERS` maps each transform class to the function that runs it on
the rows (a new kind is one entry here). They work on the JavaScript values
Vega holds (`vega.js_cell` of each cell, after Vega-Lite's implicit parses,
`vega.parse_plans`) and keep the table's Python cells beside them, so every
consumer (the checks, the mark limits, the fits) reads plain rows.

What cannot be known without running Vega is said, never guessed: an
expression the evaluator marks `Unsupported`, a random aggregate op
(``ci0``/``ci1``). Every field name is a flat column, whatever its
characters: the translator escapes each reference (`translate.fields`). A field whose
values are unknowable is listed in `Rows.unknown` (the rows themselves are
still known); when the rows are (a filter, a group by such a field),
`Rows.table` is None and `Rows.unknowable` says why, with an upper bound on
their number. Where JavaScript would throw, Vega draws nothing from the
rows: `Unknowable.thrown`, which the check stage reports.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ... import errors as msg
from ...errors import SpecError
from ...infra.table import TEXT, DateOutOfRange, Table
from ...ir import expressions as ex
from ...ir.nodes import Chart, Layer
from ...ir.source import Node
from ...ir.transforms import (ARG_OPS, Aggregate, AggregateOp, Calculate, Density, Expression, FieldPredicate, Filter,
                              Fold, Impute, JoinAggregate, Lookup, Pivot, SelectionPredicate, Transform, Window,
                              arg_field)
from . import vega, window
from .lookup import default_value, key_text, lookup_index, lookup_table


@dataclass(frozen=True)
class Unknowable:
    """Why some rows, or one field's values, cannot be known without running Vega.

    Attributes:
        node: the transform (or its expression or predicate) that makes it so.
        reason: why, for people (a message function of `errors`).
        offset: where in the expression's text, when `node` is an expression.
        thrown: JavaScript throws here, so Vega draws nothing from these rows (or chartc cannot hold what
            it makes): the check stage refuses the chart.
        hint: the refusal's hint, where it is not `errors.expression_throws_hint`.
    """

    node: Node
    reason: str
    offset: int | None = None
    thrown: bool = False
    hint: str | None = None

    def error(self, message: str, *, stage: str, hint: str | None = None) -> SpecError:
        """A `SpecError` placed at the node (at the expression's column where it can)."""
        location = None
        if self.offset is not None and isinstance(self.node, Expression):
            location = self.node.locate_offset(self.offset)
        return self.node.error(message, stage=stage, hint=hint, location=location)


@dataclass(frozen=True)
class Rows:
    """The rows that reach one layer's marks, through the chart's and the layer's transforms.

    Attributes:
        layer: the layer.
        fields: field -> measurement type after the transforms (declared by
            each transform's `fields_after`; known even when the rows are not).
        table: the rows, or None when they cannot be known (`unknowable`).
        origin: per row, the index of the data row it came from (None for a
            row an aggregate made); None when the rows are the data's own.
        unknown: fields of `table` whose values cannot be known, and why.
        unknowable: why `table` is None.
        bound: the number of rows, or an upper bound on it when unknowable.
    """

    layer: Layer
    fields: dict
    table: Table | None
    origin: tuple | None = None
    unknown: Mapping[str, Unknowable] = field(default_factory=dict)
    unknowable: Unknowable | None = None
    bound: int = 0

    def source_row(self, index: int) -> int | None:
        """The data row row `index` came from (None for an aggregate's)."""
        return index if self.origin is None else self.origin[index]

    def known(self, name: str) -> bool:
        """Whether the rows and this field's values in them are known."""
        return self.table is not None and name in self.table and name not in self.unknown


class _Stop(Exception):
    """The rows cannot be known past this transform."""

    def __init__(self, unknowable: Unknowable):
        super().__init__(unknowable.reason)
        self.unknowable = unknowable


class _State:
    """The rows between two transforms: Python cells, and the JavaScript values Vega holds (filled in lazily)."""

    __slots__ = ("table", "origin", "js", "unknown", "parses", "source")

    def __init__(self, table: Table, origin, js: dict, unknown: dict, parses: dict, source: set):
        self.table = table
        self.origin = origin        # list of data rows, or None for the data's own rows
        self.js = js                # field -> JavaScript values per row (derived fields, and views computed)
        self.unknown = unknown      # field -> Unknowable
        self.parses = parses        # source field -> Vega-Lite parses applied to it, in order
        self.source = source        # fields whose values are still the data's cells (views computed from them)

    def names(self) -> list[str]:
        return list(dict.fromkeys([*self.table.names, *self.js]))

    def view(self, name: str, node: Node) -> list:
        """The JavaScript value of a field in each row (undefined for a field the rows lack).

        Raises:
            _Stop: a field whose values cannot be known (with why).
        """
        if name in self.unknown:
            raise _Stop(self.unknown[name])
        if name in self.js:
            return self.js[name]
        if name not in self.table:
            return [ex.UNDEFINED] * len(self.table)
        values = [vega.js_cell(cell) for cell in self.table[name]]
        try:
            for kind in self.parses.get(name, ()):
                values = vega.parse_cells(values, kind)
        except ex.Unsupported as error:
            unknowable = Unknowable(node, msg.rows_unknowable_unsupported(str(error)))
            self.unknown[name] = unknowable
            raise _Stop(unknowable) from None
        self.js[name] = values
        return values

    def select(self, keep: list[bool]) -> "_State":
        """The rows whose flag is true."""
        origin = [row for row, kept in zip(self.origin or range(len(keep)), keep) if kept]
        js = {name: [value for value, kept in zip(values, keep) if kept] for name, values in self.js.items()}
        return _State(self.table.select(keep), origin, js, dict(self.unknown), self.parses, set(self.source))


@dataclass
class _Context:
    """What the interpreters of one layer's chain share: the predicates as emitted, and parsed expressions."""

    emitted: dict = field(default_factory=dict)      # filter path -> the field predicate the translator emits
    trees: dict = field(default_factory=dict)        # expression text -> parsed tree
    pivots: dict = field(default_factory=dict)       # pivot path -> the columns it made (`follow_fields`)

    def tree(self, text: str):
        if text not in self.trees:
            self.trees[text] = ex.parse(text)
        return self.trees[text]


def _rows_for(state: _State, reads, node: Node) -> list[dict]:
    """Each row as the JavaScript object an expression sees (only the fields it reads, when those are known)."""
    names = state.names() if reads is None else [name for name in reads]
    columns = [(name, state.view(name, node)) for name in names]
    return [{name: values[index] for name, values in columns} for index in range(len(state.table))]


def _evaluate(tree, rows: list[dict], node: Node):
    """An expression's value in each row.

    Raises:
        _Stop: the evaluator cannot compute it as Vega does, or JavaScript throws.
    """
    run = ex.evaluator(tree)
    try:
        return [run(row) for row in rows]
    except ex.Unsupported as error:
        raise _Stop(Unknowable(node, msg.rows_unknowable_unsupported(str(error)))) from None
    except ex.EvaluationError as error:
        raise _Stop(Unknowable(node, msg.expression_throws(error.message), offset=error.start, thrown=True)) from None
    except RecursionError:
        raise _Stop(Unknowable(node, msg.rows_unknowable_unsupported("an expression nested too deeply"))) from None


# ------------------------------------------------------------------ one function per kind

def interpret_filter(context: _Context, state: _State, step: Filter) -> _State:
    """``filter``: keep the rows whose predicate (a Vega-Lite field predicate, or an expression) is truthy."""
    predicate = step.predicate
    if isinstance(predicate, SelectionPredicate):
        raise _Stop(Unknowable(predicate, msg.rows_unknowable_selection(predicate.param)))
    if isinstance(predicate, FieldPredicate):
        if not predicate.field:
            raise _Stop(Unknowable(predicate, msg.rows_unknowable_unsupported("a field predicate on no field")))
        tree = context.tree(vega.filter_expression(context.emitted[step.path]))
        node = predicate
    else:
        if predicate.tree is None:
            raise _Stop(Unknowable(predicate, msg.rows_unknowable_unparsed()))
        tree, node = predicate.tree, predicate
    values = _evaluate(tree, _rows_for(state, ex.fields_read(tree), node), node)
    return state.select([ex.truthy(value) for value in values])


def interpret_calculate(context: _Context, state: _State, step: Calculate) -> _State:
    """``calculate``: a new field from an expression; when it cannot be known, the field alone is unknown."""
    expression = step.expression
    result = _State(state.table, state.origin, dict(state.js), dict(state.unknown), state.parses, set(state.source))
    result.source.discard(step.as_)
    result.unknown.pop(step.as_, None)
    try:
        if expression.tree is None:
            raise _Stop(Unknowable(expression, msg.rows_unknowable_unparsed()))
        values = _evaluate(expression.tree, _rows_for(state, ex.fields_read(expression.tree), expression), expression)
    except _Stop as stop:
        if stop.unknowable.thrown:
            raise
        result.unknown[step.as_] = stop.unknowable
        result.js.pop(step.as_, None)
        result.table = _with_column(state.table, step.as_, [None] * len(state.table))
        return result
    result.js[step.as_] = values
    result.table = _with_column(state.table, step.as_, [vega.python_cell(value) for value in values])
    return result


def _with_column(table: Table, name: str, cells: list, kind: str | None = "infer") -> Table:
    kinds = {**table.kinds, name: vega.column_kind(cells) if kind == "infer" else kind}
    return Table({**table.columns, name: cells}, kinds)


def interpret_fold(context: _Context, state: _State, step: Fold) -> _State:
    """``fold``: per row, one row per folded field (row by row, as Vega), its name and value added; every field kept."""
    key, value = step.as_
    count, width = len(state.table), len(step.fields)

    def repeat(values):
        return [item for item in values for _ in range(width)]

    columns = {name: repeat(cells) for name, cells in state.table.columns.items()}
    kinds = dict(state.table.kinds)
    unknown = dict(state.unknown)
    folded_unknown = next((unknown[name] for name in step.fields if name in unknown), None)
    views = None
    if folded_unknown is None:
        try:
            views = [state.view(name, step) for name in step.fields]
        except _Stop as stop:
            folded_unknown = stop.unknowable
    cells = [state.table[name] if name in state.table else [None] * count for name in step.fields]
    columns[key] = [name for _ in range(count) for name in step.fields]
    kinds[key] = TEXT
    columns[value] = [cells[j][i] for i in range(count) for j in range(width)]
    folded_kinds = {state.table.kinds.get(name) for name in step.fields}
    kinds[value] = folded_kinds.pop() if len(folded_kinds) == 1 else None
    js = {name: repeat(values) for name, values in state.js.items()}
    js[key] = list(columns[key])
    unknown.pop(key, None)
    if views is None:
        unknown[value] = folded_unknown
        js.pop(value, None)
    else:
        unknown.pop(value, None)
        js[value] = [views[j][i] for i in range(count) for j in range(width)]
    origin = repeat(state.origin or range(count))
    return _State(Table(columns, kinds), origin, js, unknown, state.parses, state.source - {key, value})


def interpret_aggregate(context: _Context, state: _State, step: Aggregate) -> _State:
    """``aggregate``: one row per group of `groupby` values (in order of first appearance), each op as Vega computes it."""
    keys_by_field = [state.view(name, step) for name in step.groupby]
    groups: dict[str, list[int]] = {}
    for row in range(len(state.table)):
        groups.setdefault(vega.group_key([values[row] for values in keys_by_field]), []).append(row)
    firsts = [rows[0] for rows in groups.values()]
    columns, kinds, js, unknown = {}, {}, {}, {}
    for name, values in zip(step.groupby, keys_by_field):
        columns[name] = [state.table[name][row] if name in state.table else None for row in firsts]
        kinds[name] = state.table.kinds.get(name) if name in state.table else None
        js[name] = [values[row] for row in firsts]
    for op in step.ops:
        why = _unknown_measure(state, step, op)
        try:
            values = state.view(op.field, step) if op.field is not None else [None] * len(state.table)
            if why is None and op.op in ARG_OPS:
                _arg_columns(state, step, op, values, groups, (columns, kinds, js))
                continue
        except _Stop as stop:
            why = why or stop.unknowable
        if why is not None and op.op in ARG_OPS:
            for name in state.names():
                unknown[arg_field(op.as_, name)] = why
                columns[arg_field(op.as_, name)], kinds[arg_field(op.as_, name)] = [None] * len(groups), None
            continue
        if why is not None:
            unknown[op.as_] = why
            columns[op.as_], kinds[op.as_] = [None] * len(groups), None
            js.pop(op.as_, None)
            continue
        results = [vega.measure(op.op, [values[row] for row in rows], rows, None) for rows in groups.values()]
        unknown.pop(op.as_, None)
        js[op.as_] = results
        columns[op.as_] = [vega.python_cell(value) for value in results]
        kinds[op.as_] = vega.column_kind(columns[op.as_])
    return _State(Table(columns, kinds), [None] * len(groups), js, unknown, {}, set())


def _arg_columns(state: _State, step: Aggregate, op, values: list, groups: dict, out: tuple) -> None:
    """``argmin``/``argmax``: per group, every field of the row Vega picks (`vega.arg_row`), as flat columns named
    `arg_field` (undefined in each where it picks none: a group without a valid value)."""
    columns, kinds, js = out
    picked = [vega.arg_row(op.op, [values[row] for row in rows], rows) for rows in groups.values()]
    for name in state.names():
        view = state.view(name, step)
        cells = state.table[name] if name in state.table else None
        target = arg_field(op.as_, name)
        js[target] = [ex.UNDEFINED if row is None else view[row] for row in picked]
        columns[target] = [None if row is None or cells is None else cells[row] for row in picked]
        kinds[target] = state.table.kinds.get(name) if name in state.table else None


def _unknown_measure(state: _State, step: Aggregate, op) -> Unknowable | None:
    """Why one measure of an aggregate cannot be known, or None."""
    reason = vega.unknowable_op(op)
    if reason is not None:
        return Unknowable(op, reason)
    if op.field is not None and op.field in state.unknown:
        return state.unknown[op.field]
    if op.op in ("argmin", "argmax") and state.unknown:
        return next(iter(state.unknown.values()))  # the row it returns holds every field
    return None


# ------------------------------------------------------------------ reshaping: pivot, impute

def pivot_keys(keys: list, limit: int) -> list:
    """Vega's pivot keys: each distinct value (by its text, the first kept), sorted ascending, the first `limit`."""
    seen: dict = {}
    for key in keys:
        seen.setdefault(ex.to_js_string(key), key)
    ordered = sorted(seen.values(), key=functools.cmp_to_key(window.ascending))
    return ordered[:limit] if limit else ordered


def interpret_pivot(context: _Context, state: _State, step: Pivot) -> _State:
    """``pivot``: Vega's aggregate of one measure per pivot key, `op` over `value` where the key is strictly equal."""
    keys = state.view(step.pivot, step)
    values = state.view(step.value, step)
    names = pivot_keys(keys, step.limit)
    columns = tuple(ex.to_js_string(name) for name in names)
    context.pivots[step.path] = columns
    work = _State(state.table, state.origin, dict(state.js), dict(state.unknown), state.parses, set(state.source))
    ops = []
    for index, (name, column) in enumerate(zip(names, columns)):
        hidden = f"\0pivot{index}"
        matched = [value if ex.strict_equals(key, name) else math.nan for key, value in zip(keys, values)]
        if step.op == "count":  # Vega's ``__count__`` counts the values that are not NaN: the key's rows
            matched = [math.nan if vega.is_nan(value) else 1.0 for value in matched]
        work.js[hidden] = matched
        ops.append(AggregateOp("valid" if step.op == "count" else step.op, column, hidden,
                               path=step.path, source=step.source))
    return interpret_aggregate(context, work, Aggregate(tuple(ops), step.groupby, path=step.path, source=step.source))


def interpret_impute(context: _Context, state: _State, step: Impute) -> _State:
    """``impute`` as Vega-Lite compiles it: Vega's impute adds a row per key a group lacks (after every row read,
    group by group), then for a method other than ``value`` a window computes it and a formula fills the nulls."""
    keys = state.view(step.key, step)
    filled = state.view(step.impute, step)
    by = [state.view(name, step) for name in step.groupby]
    domain = [vega.js_cell(value) for value in step.keyvals or ()]
    slots = {ex.to_js_string(value): index for index, value in enumerate(domain)}
    groups: dict[str, tuple[list, set]] = {}
    for row, key in enumerate(keys):
        slot = slots.setdefault(ex.to_js_string(key), len(domain))
        if slot == len(domain):
            domain.append(key)
        values = [column[row] for column in by]
        # Vega's group key here is the values array as text: joined by ',', null and undefined empty.
        text = ",".join("" if value is None or value is ex.UNDEFINED else ex.to_js_string(value) for value in values)
        groups.setdefault(text, (values, set()))[1].add(slot)
    # Vega-Lite passes `value` to Vega's impute for method value (Vega fills 0 when it is not given), else null.
    value = (0.0 if step.value is ex.UNDEFINED else vega.js_cell(step.value)) if step.method == "value" else None
    added = [(values, domain[slot]) for values, present in groups.values()
             for slot in range(len(domain)) if slot not in present]
    count, more = len(state.table), len(added)
    names = list(dict.fromkeys([*state.names(), *step.groupby, step.key, step.impute]))
    js = {}
    for name in names:
        if name == step.key:
            js[name] = [*keys, *(key for _, key in added)]
        elif name == step.impute:
            js[name] = [*filled, *([value] * more)]
        elif name in step.groupby:
            js[name] = [*by[step.groupby.index(name)], *(values[step.groupby.index(name)] for values, _ in added)]
        elif name in state.unknown:
            continue
        else:
            js[name] = [*state.view(name, step), *([ex.UNDEFINED] * more)]
    if step.derived is not None:
        partitions: dict[str, list[int]] = {}
        for row in range(count + more):
            partitions.setdefault(vega.group_key([js[name][row] for name in step.groupby]), []).append(row)
        derived = [ex.UNDEFINED] * (count + more)
        low, high = step.frame
        for rows in partitions.values():
            size = len(rows)
            for index, row in enumerate(rows):
                start = 0 if low is None else max(0, index - abs(low))
                stop = size if high is None else min(size, index + abs(high) + 1)
                window = rows[start:stop]
                derived[row] = vega.measure(step.method, [js[step.impute][r] for r in window], window, None)
        js[step.derived] = derived
        js[step.impute] = [derived[row] if js[step.impute][row] is None else js[step.impute][row]
                           for row in range(count + more)]
    columns, kinds, source = {}, {}, set()
    for name, values in js.items():
        kept = name in state.table and name in state.source and not (name == step.impute and step.derived)
        head = list(state.table[name]) if kept else [vega.python_cell(value) for value in values[:count]]
        columns[name] = [*head, *(vega.python_cell(value) for value in values[count:])]
        kinds[name] = vega.column_kind(columns[name])
        if kept:  # the rows read still hold the data's cells (a later impute keeps them too)
            source.add(name)
    origin = [*(state.origin or range(count)), *([None] * more)]
    unknown = {name: why for name, why in state.unknown.items() if name not in js}
    return _State(Table(columns, kinds), origin, js, unknown, {}, source)


def interpret_window(context: _Context, state: _State, step: Window) -> _State:
    """``window``: every row kept, in order, with each op's value over its partition (`window.window_partition`)."""
    count = len(state.table)
    keys = [state.view(name, step) for name in step.groupby]
    sort_keys = [state.view(name, step) for name, _ in step.sort]
    ops = []
    for op in step.ops:
        if op.field is not None and op.field in state.unknown:
            raise _Stop(state.unknown[op.field])
        ops.append((op.op, state.view(op.field, step) if op.field is not None else None, op.param))
    results: dict[int, list] = {}
    for rows in window.partitions(keys, count).values():
        results.update(window.window_partition(rows, ops, sort_keys, [order for _, order in step.sort],
                                               step.frame, step.ignorePeers))
    columns = [[results[row][index] for row in range(count)] for index in range(len(step.ops))]
    return _joined(state, [op.as_ for op in step.ops], columns)


def interpret_joinaggregate(context: _Context, state: _State, step: JoinAggregate) -> _State:
    """``joinaggregate``: every row kept, in order, with each measure of its `groupby` group (as `aggregate`)."""
    count = len(state.table)
    groups = window.partitions([state.view(name, step) for name in step.groupby], count)
    columns = []
    for op in step.ops:
        why = _unknown_measure(state, step, op)
        if why is not None:
            raise _Stop(why)
        values = state.view(op.field, step) if op.field is not None else [None] * count
        column = [None] * count
        for rows in groups.values():
            result = vega.measure(op.op, [values[row] for row in rows], rows, None)
            for row in rows:
                column[row] = result
        columns.append(column)
    return _joined(state, [op.as_ for op in step.ops], columns)


def _joined(state: _State, names: list[str], columns: list[list]) -> _State:
    """The rows with new fields of JavaScript values (a field of the same name replaced)."""
    result = _State(state.table, state.origin, dict(state.js), dict(state.unknown), state.parses, set(state.source))
    table = state.table
    for name, values in zip(names, columns):
        result.source.discard(name)
        result.unknown.pop(name, None)
        result.js[name] = values
        table = _with_column(table, name, [vega.python_cell(value) for value in values])
    result.table = table
    return result


def interpret_lookup(context: _Context, state: _State, step: Lookup) -> _State:
    """``lookup``: every row kept, in order, with `fields` of the second source's row holding its key (the last
    such row, as Vega's index keeps it), or `default` where none does (`lookup.lookup_index`)."""
    table = lookup_table(step)
    index = lookup_index(step, table)
    rows = [index.get(key_text(key)) for key in state.view(step.lookup, step)]
    default = default_value(step)
    columns = []
    for name in step.fields:
        values = [vega.js_cell(cell) for cell in table[name]]
        columns.append([default if row is None else values[row] for row in rows])
    return _joined(state, list(step.as_), columns)


def interpret_density(context: _Context, state: _State, step: Density) -> _State:
    """``density``: per group of `groupby` values (in order of first appearance), Vega's sampled kernel density."""
    from ...trends import kde  # numpy, imported where a density runs

    keys_by_field = [state.view(name, step) for name in step.groupby]
    values = state.view(step.density, step)
    if any(value is not None and type(value) is not float for value in values):
        raise _Stop(Unknowable(step, msg.density_not_numeric(step.density)))
    groups: dict[str, list[int]] = {}
    for row in range(len(state.table)):
        groups.setdefault(vega.group_key([keys[row] for keys in keys_by_field]), []).append(row)
    if not step.groupby:
        groups = {"": list(range(len(state.table)))}
    options = kde.step_options(step, kde.value_extent(values))
    columns: dict[str, list] = {name: [] for name in (*step.groupby, *step.as_)}
    js: dict[str, list] = {name: [] for name in step.groupby}
    for rows in groups.values():
        curve = kde.density_curve([values[row] for row in rows], **options) if rows else []
        for name, keys in zip(step.groupby, keys_by_field):
            columns[name].extend([state.table[name][rows[0]] if name in state.table else None] * len(curve))
            js[name].extend([keys[rows[0]]] * len(curve))
        columns[step.as_[0]].extend(vega.python_cell(x) for x, _ in curve)
        columns[step.as_[1]].extend(vega.python_cell(y) for _, y in curve)
    kinds = {name: state.table.kinds.get(name) for name in step.groupby}
    kinds.update({name: vega.column_kind(columns[name]) for name in step.as_})
    return _State(Table(columns, kinds), [None] * len(columns[step.as_[0]]), js, {}, {}, set())


# Transform class -> how the data stage runs it (one entry per `ir.transforms` kind).
INTERPRETERS: dict[type, Callable[[_Context, _State, Transform], _State]] = {
    Filter: interpret_filter,
    Calculate: interpret_calculate,
    Fold: interpret_fold,
    Aggregate: interpret_aggregate,
    Pivot: interpret_pivot,
    Impute: interpret_impute,
    Window: interpret_window,
    JoinAggregate: interpret_joinaggregate,
    Density: interpret_density,
    Lookup: interpret_lookup,
}


# ------------------------------------------------------------------ bounds past an unknowable transform

def bound_after(step: Transform, rows: int, table: Table | None) -> int:
    """An upper bound on the rows after a transform, given a bound on those before it."""
    if isinstance(step, Fold):
        return rows * max(1, len(step.fields))
    if isinstance(step, Aggregate) and table is not None and all(name in table for name in step.groupby):
        return min(rows, table.distinct(step.groupby)) if step.groupby else min(rows, 1)
    return rows


# ------------------------------------------------------------------ layers

def interpret_layers(chart: Chart, table: Table, layer_fields: tuple[dict, ...], shared_fields: dict,
                     pivots: dict | None = None) -> tuple:
    """Every layer's rows through the chart's transforms and its own, as Vega computes them.

    Args:
        chart: the chart.
        table: the rows read (or drawn).
        layer_fields: per layer, its fields after its transforms (`FieldFlow.layers`).
        shared_fields: the fields after the chart's transforms (the facet's types).
        pivots: filled with each pivot's columns (pivot path -> names), when given.

    Returns:
        One `Rows` per layer, in layer order.
    """
    emitted, facet, plans, common, conflicting = vega.parse_plans(chart, layer_fields, shared_fields)
    cache: dict = {}
    result = []
    for layer, plan, gaps, types in zip(chart.layers, emitted, plans, layer_fields):
        chain = chart.transforms(layer)
        top = {**common, **({} if layer.mark is not None else gaps[0])}
        parses: dict[str, tuple] = {}
        for name, kind in (*facet.items(), *top.items()):
            parses[name] = (*parses.get(name, ()), kind)
        unknown = {name: Unknowable(layer, msg.rows_unknowable_parse_conflict(name))
                   for name in (conflicting if layer.mark is not None else ())}
        key: tuple = (tuple(sorted(parses.items())), tuple(sorted(unknown)))
        state = cache.setdefault(key, _State(table, None, {}, dict(unknown), parses, set(table.names)))
        context = _Context({step.path: predicate for step, predicate in zip(chain, plan) if predicate is not None},
                           pivots={} if pivots is None else pivots)
        rows, stop = len(table), None
        for index, step in enumerate(chain):
            if stop is not None:
                rows = bound_after(step, rows, None)
                continue
            variant = vega.filter_expression(plan[index]) if plan[index] is not None else None
            before = tuple(sorted(gaps[index].items())) if index else ()
            key = (*key, (step.path, variant, before))
            done = cache.get(key)
            if done is None:
                try:
                    done = _step(context, state, step, gaps[index] if index else {})
                except _Stop as error:
                    done = error
                cache[key] = done
            if isinstance(done, _Stop):
                stop = done.unknowable
                known = Table({name: values for name, values in state.table.columns.items()
                               if name not in state.unknown}, state.table.kinds)
                rows = bound_after(step, rows, known)
                continue
            state = done
            rows = len(state.table)
        result.append(_rows(layer, types, None if stop is not None else state, stop, rows))
    return tuple(result)


def _step(context: _Context, state: _State, step: Transform, parses: dict) -> _State:
    """One transform on the rows, after the parses Vega-Lite left just before it."""
    if parses:
        state = _State(state.table, state.origin, dict(state.js), dict(state.unknown), state.parses, set(state.source))
        for name, kind in parses.items():
            try:
                state.js[name] = vega.parse_cells(state.view(name, step), kind)
            except ex.Unsupported as error:
                state.unknown[name] = Unknowable(step, msg.rows_unknowable_unsupported(str(error)))
    try:
        return INTERPRETERS[type(step)](context, state, step)
    except DateOutOfRange as error:  # a Date Python cannot hold: refused at what made it
        node = step.expression if isinstance(step, Calculate) else step
        raise _Stop(Unknowable(node, msg.date_out_of_range(error.year), thrown=True,
                               hint=msg.date_out_of_range_hint())) from None


def _rows(layer: Layer, types: dict, state: _State | None, stop: Unknowable | None, bound: int) -> Rows:
    if state is None:
        return Rows(layer, dict(types), None, None, {}, stop, bound)
    origin = None if state.origin is None else tuple(state.origin)
    return Rows(layer, dict(types), state.table, origin, dict(state.unknown), None, len(state.table))
