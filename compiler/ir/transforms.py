"""Data transforms as nodes: one class per kind, each declaring what it reads and what it leaves.

A transform node says, once, for every stage:

- `reads()`: the fields it reads, each with the child path (and, inside an
  expression, the offset) where the spec names it, so the check stage can
  point at a misspelt name;
- `fields_after(fields)`: the fields (name -> measurement type) after it,
  given those before it; the check stage, the translator and `chartc
  validate` follow the same flow.

The data stage interprets each kind (`stages.data.INTERPRETERS`) and the
translator emits each kind (`stages.translate.TRANSFORMS`): a new kind
(`Bin`, `TimeUnit`, `Window`, `JoinAggregate`, `Impute`, `Lookup`) is a class
here plus one entry in each of those tables (and `stages.parse.TRANSFORM_PARSERS`).

A Vega expression (`calculate`, an expression `filter`) is parsed once by
the parse stage into an `Expression` node holding the `expressions` tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import expressions
from .expressions.types import measurement
from .source import Node

Fields = dict  # field name -> measurement type ("quantitative", "nominal", "temporal", "ordinal")

# What a field becomes when a transform makes it and nothing says more (a calculated
# field's expression usually says: `expressions.types.measurement`).
CALCULATED_TYPE = "quantitative"
AGGREGATED_TYPE = "quantitative"
FOLD_KEY_TYPE = "nominal"


@dataclass(frozen=True, slots=True)
class FieldRead:
    """A field a node reads: its name and where the spec names it.

    Attributes:
        name: the field.
        child: the path below the transform node of the text that names it.
        offset: for a field inside an expression, its offset in that text.
    """

    name: str
    child: tuple
    offset: int | None = None


@dataclass(frozen=True, slots=True)
class Expression(Node):
    """A Vega expression string of the spec, parsed once.

    Attributes:
        text: the expression as written (the translator emits it unchanged).
        tree: the parsed `expressions.Expression`; None when the text does
            not parse (the parse stage reported why).
    """

    text: str
    tree: Any = None

    def reads(self) -> tuple[FieldRead, ...]:
        """Each `datum.x` the expression reads, at its offset (none when it does not parse, or reads a computed name)."""
        if self.tree is None:
            return ()
        return tuple(FieldRead(node.name, (), node.start) for node in expressions.walk(self.tree)
                     if isinstance(node, expressions.Field))

    def locate_offset(self, offset: int):
        """The file position of character `offset` of the text (exact for a one-line string written verbatim)."""
        if self.source is None:
            return None
        return self.source.locate_text(self.path, offset)


@dataclass(frozen=True, slots=True)
class Transform(Node):
    """What every transform node has: the fields it reads and the fields after it."""

    def reads(self) -> tuple[FieldRead, ...]:
        """The fields this transform reads, where the spec names them."""
        return ()

    def fields_after(self, fields: Fields) -> Fields:
        """The fields after this transform, given those before it (a new dict)."""
        return dict(fields)

    def makes(self) -> tuple[str, ...]:
        """The fields this transform writes (a field of the same name before it is replaced)."""
        return ()

    def place(self, read: FieldRead):
        """The file position of a field read (an expression's exact column where it can)."""
        if read.offset is not None and self.source is not None:
            return self.source.locate_text(self.at(*read.child), read.offset)
        return self.locate(*read.child)


@dataclass(frozen=True, slots=True)
class FieldPredicate(Node):
    """A filter's field predicate: `field` and its tests in written order (``("gt", 0)``, ``("valid", True)``).

    Test values are read-only (a `range` or `oneOf` is a tuple).
    """

    field: str
    tests: tuple[tuple[str, Any], ...]

    def test(self, name: str, default=None):
        return next((value for key, value in self.tests if key == name), default)

    def has(self, name: str) -> bool:
        return any(key == name for key, _ in self.tests)


@dataclass(frozen=True, slots=True)
class SelectionPredicate(Node):
    """A filter by a selection (``{param: NAME}``): the rows the reader's selection holds.

    Only the renderer knows them (the reader makes the selection); an empty
    selection keeps every row unless `empty` is false.
    """

    param: str
    empty: bool = True


@dataclass(frozen=True, slots=True)
class Filter(Transform):
    """``filter``: keep the rows that pass a field predicate, a Vega expression or a selection."""

    predicate: FieldPredicate | Expression | SelectionPredicate

    def reads(self) -> tuple[FieldRead, ...]:
        if isinstance(self.predicate, SelectionPredicate):
            return ()
        if isinstance(self.predicate, FieldPredicate):
            return (FieldRead(self.predicate.field, ("filter", "field")),)
        return tuple(FieldRead(read.name, ("filter",), read.offset) for read in self.predicate.reads())


@dataclass(frozen=True, slots=True)
class Calculate(Transform):
    """``calculate``: a field computed by a Vega expression, named `as_`."""

    expression: Expression
    as_: str

    def reads(self) -> tuple[FieldRead, ...]:
        return tuple(FieldRead(read.name, ("calculate",), read.offset) for read in self.expression.reads())

    def fields_after(self, fields: Fields) -> Fields:
        tree = getattr(self.expression, "tree", None)  # None when it did not parse (or a test builds it bare)
        kind = measurement(tree, fields) if tree is not None else None
        return {**fields, self.as_: kind or CALCULATED_TYPE}

    def makes(self) -> tuple[str, ...]:
        return (self.as_,)


@dataclass(frozen=True, slots=True)
class Fold(Transform):
    """``fold``: one row per row and folded field, the field's name in `as_[0]` and its value in `as_[1]`."""

    fields: tuple[str, ...]
    as_: tuple[str, str] = ("key", "value")

    def reads(self) -> tuple[FieldRead, ...]:
        return tuple(FieldRead(name, ("fold", index)) for index, name in enumerate(self.fields))

    def fields_after(self, fields: Fields) -> Fields:
        key, value = self.as_
        folded = {fields.get(name, "quantitative") for name in self.fields}
        return {**fields, key: FOLD_KEY_TYPE, value: folded.pop() if len(folded) == 1 else "nominal"}

    def makes(self) -> tuple[str, ...]:
        return self.as_


@dataclass(frozen=True, slots=True)
class AggregateOp(Node):
    """One measure of an aggregate: `op` over `field` (none for ``count``), named `as_`."""

    op: str
    as_: str
    field: str | None = None


@dataclass(frozen=True, slots=True)
class Aggregate(Transform):
    """``aggregate``: one row per `groupby` group, holding the group's fields and each measure."""

    ops: tuple[AggregateOp, ...]
    groupby: tuple[str, ...] = ()

    def reads(self) -> tuple[FieldRead, ...]:
        measured = tuple(FieldRead(op.field, ("aggregate", index, "field"))
                         for index, op in enumerate(self.ops) if op.field is not None)
        return measured + tuple(FieldRead(name, ("groupby", index)) for index, name in enumerate(self.groupby))

    def fields_after(self, fields: Fields) -> Fields:
        kept = {name: fields.get(name, "nominal") for name in self.groupby}
        made: dict = {}
        for op in self.ops:
            if op.op in ARG_OPS:  # the picked row's every field, flat: `best.year` (`arg_fields`)
                made.update({arg_field(op.as_, name): kind for name, kind in fields.items()})
            else:
                made[op.as_] = AGGREGATED_TYPE
        return {**kept, **made}

    def makes(self) -> tuple[str, ...]:
        return tuple(op.as_ for op in self.ops)


# The ops that pick a row (the first of equal extremes, as Vega picks it) rather than compute a value.
ARG_OPS = ("argmin", "argmax")


def arg_field(as_: str, name: str) -> str:
    """The flat field holding field `name` of the row an ``argmin``/``argmax`` named `as_` picks.

    Vega holds the row as an object under `as_`, and Vega-Lite reads
    ``best.year`` as its field ``year``; chartc's columns are flat, so the
    row's fields are columns named that way, and ``field: best.year`` reads
    the same in both.
    """
    return f"{as_}.{name}"


# ------------------------------------------------------------------ reshaping: pivot, impute

# A pivot's columns are the distinct values of its `pivot` field: unknown without the rows.
PIVOT_TYPE = "quantitative"
IMPUTE_METHODS = ("value", "mean", "median", "max", "min")


@dataclass(frozen=True, slots=True)
class Pivot(Transform):
    """``pivot``: one row per `groupby` group, one column per distinct value of `pivot` holding `op` of `value`.

    The columns are named after the values (Vega's ``value + ''``), sorted
    ascending, the first `limit` kept (all when 0): they depend on the rows,
    so `fields_after` knows them only once `columns` is given (the data
    stage's `follow_fields` fills it from the rows; `chartc validate`
    without rows knows the groupby fields alone).
    """

    pivot: str
    value: str
    groupby: tuple[str, ...] = ()
    limit: int = 0
    op: str = "sum"
    columns: tuple[str, ...] | None = None

    def reads(self) -> tuple[FieldRead, ...]:
        return (FieldRead(self.pivot, ("pivot",)), FieldRead(self.value, ("value",)),
                *(FieldRead(name, ("groupby", index)) for index, name in enumerate(self.groupby)))

    def fields_after(self, fields: Fields) -> Fields:
        kept = {name: fields.get(name, "nominal") for name in self.groupby}
        return {**kept, **{name: PIVOT_TYPE for name in self.columns or ()}}

    def makes(self) -> tuple[str, ...]:
        return tuple(self.columns or ())


@dataclass(frozen=True, slots=True)
class Impute(Transform):
    """``impute``: a row for every `key` value a `groupby` group lacks, its `impute` field filled.

    As Vega-Lite compiles it: Vega's impute adds the rows with `value` (null
    for the other methods); a method other than ``value`` then computes
    ``imputed_<field>_value``, the `method` of the field over the group's rows
    in `frame`, and puts it where the field is null.
    """

    impute: str
    key: str
    keyvals: tuple | None = None
    groupby: tuple[str, ...] = ()
    method: str = "value"
    value: Any = expressions.UNDEFINED  # not given (Vega fills 0); None is the spec's null
    frame: tuple = (None, None)

    def reads(self) -> tuple[FieldRead, ...]:
        return (FieldRead(self.impute, ("impute",)), FieldRead(self.key, ("key",)),
                *(FieldRead(name, ("groupby", index)) for index, name in enumerate(self.groupby)))

    @property
    def has_value(self) -> bool:
        """Whether the spec gives `value` (null included)."""
        return self.value is not expressions.UNDEFINED

    @property
    def derived(self) -> str | None:
        """The field Vega-Lite's window writes for a method other than ``value``."""
        return None if self.method == "value" else f"imputed_{self.impute}_value"

    def fields_after(self, fields: Fields) -> Fields:
        out = {**fields, self.impute: fields.get(self.impute, "quantitative"), self.key: fields.get(self.key, "nominal")}
        if self.derived is not None:
            out[self.derived] = "quantitative"
        return out

    def makes(self) -> tuple[str, ...]:
        return (self.impute,) if self.derived is None else (self.impute, self.derived)


# ------------------------------------------------------------------ window and joinaggregate

# Window ops that rank or pick rows (the rest are aggregate ops over the frame), and the type of what each makes.
RANKING_OPS = ("row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile")
VALUE_OPS = ("lag", "lead", "first_value", "last_value", "nth_value")
WINDOW_ONLY_OPS = RANKING_OPS + VALUE_OPS


@dataclass(frozen=True, slots=True)
class WindowOp(Node):
    """One op of a window: `op` over `field` (none for the ranking ops and ``count``), its `param`, named `as_`."""

    op: str
    as_: str
    field: str | None = None
    param: float | None = None


@dataclass(frozen=True, slots=True)
class Window(Transform):
    """``window``: each row keeps its fields and gains each op's value over its partition (or its frame).

    Attributes:
        ops: the ops, in written order.
        groupby: the partitions' fields.
        sort: (field, "ascending" | "descending") pairs ordering each partition;
            none keeps the rows' order.
        frame: the frame's offsets before and after the row (None: unbounded),
            Vega-Lite's default ``[null, 0]``.
        ignorePeers: whether the frame's ends stop at the row's peers (equal sort values).
    """

    ops: tuple[WindowOp, ...]
    groupby: tuple[str, ...] = ()
    sort: tuple[tuple[str, str], ...] = ()
    frame: tuple[int | None, int | None] = (None, 0)
    ignorePeers: bool = False  # noqa: N815 - the schema's key

    def reads(self) -> tuple[FieldRead, ...]:
        measured = tuple(FieldRead(op.field, ("window", index, "field"))
                         for index, op in enumerate(self.ops) if op.field is not None)
        sorted_by = tuple(FieldRead(name, ("sort", index, "field")) for index, (name, _) in enumerate(self.sort))
        return (measured + sorted_by
                + tuple(FieldRead(name, ("groupby", index)) for index, name in enumerate(self.groupby)))

    def fields_after(self, fields: Fields) -> Fields:
        made = {}
        for op in self.ops:
            picks = op.op in VALUE_OPS and op.field is not None
            made[op.as_] = fields.get(op.field, "nominal") if picks else AGGREGATED_TYPE
        return {**fields, **made}

    def makes(self) -> tuple[str, ...]:
        return tuple(op.as_ for op in self.ops)


@dataclass(frozen=True, slots=True)
class JoinAggregate(Transform):
    """``joinaggregate``: each row keeps its fields and gains each measure of its `groupby` group."""

    ops: tuple[AggregateOp, ...]
    groupby: tuple[str, ...] = ()

    def reads(self) -> tuple[FieldRead, ...]:
        measured = tuple(FieldRead(op.field, ("joinaggregate", index, "field"))
                         for index, op in enumerate(self.ops) if op.field is not None)
        return measured + tuple(FieldRead(name, ("groupby", index)) for index, name in enumerate(self.groupby))

    def fields_after(self, fields: Fields) -> Fields:
        return {**fields, **{op.as_: AGGREGATED_TYPE for op in self.ops}}

    def makes(self) -> tuple[str, ...]:
        return tuple(op.as_ for op in self.ops)


# ------------------------------------------------------------------ density (kernel density estimate)

DENSITY_AS = ("value", "density")


@dataclass(frozen=True, slots=True)
class Density(Transform):
    """``density``: per `groupby` group, a kernel density estimate of `density` sampled as Vega samples it.

    The rows after it are the curve's points: the group's fields, the
    sample in `as_[0]` and its density (or cumulative probability, or
    smoothed count) in `as_[1]`. A `bandwidth` of 0 is Scott's rule.
    """

    density: str
    groupby: tuple[str, ...] = ()
    cumulative: bool = False
    counts: bool = False
    bandwidth: float = 0
    extent: tuple[float, float] | None = None
    minsteps: int | None = None
    maxsteps: int | None = None
    steps: int | None = None
    as_: tuple[str, str] = DENSITY_AS
    resolve: str | None = None  # None: Vega-Lite's default, ``shared``

    def reads(self) -> tuple[FieldRead, ...]:
        return (FieldRead(self.density, ("density",)),
                *(FieldRead(name, ("groupby", index)) for index, name in enumerate(self.groupby)))

    def fields_after(self, fields: Fields) -> Fields:
        kept = {name: fields.get(name, "nominal") for name in self.groupby}
        return {**kept, **{name: "quantitative" for name in self.as_}}

    def makes(self) -> tuple[str, ...]:
        return self.as_


# ------------------------------------------------------------------ lookup (a second data source joined)

# A looked-up field's type while the second source's rows are not read (`chartc validate`).
LOOKUP_TYPE = "nominal"


class Loaded:
    """The rows of a lookup's second source, once the data stage has read them (once per compile)."""

    __slots__ = ("table", "warnings")

    def __init__(self) -> None:
        self.table = None       # an `infra.table.Table`, scrubbed
        self.warnings: tuple = ()


@dataclass(frozen=True, slots=True)
class Lookup(Transform):
    """``lookup``: each row gains `fields` of the row of `data` whose `key` equals its `lookup` field (a left join).

    Keys are compared as Vega compares them, as JavaScript text (1 and "1"
    match, null matches a null key); of several rows with one key the last
    wins. A row without a match gets `default` in each field.

    Attributes:
        lookup: the field of the chart's rows looked up.
        data: the second source (`nodes.DataSource`, placed at ``from.data``).
        key: its field matched against `lookup`.
        fields: its fields each row gains, named `as_` (their own names when not given).
        default: the value of a row without a match (None: null).
        types: (field, measurement type) of each looked-up field, once its rows are read
            (`stages.data.follow_fields`); None before.
        loaded: the second source's rows, once read (`stages.data.lookup_table`).
    """

    lookup: str
    data: Any = field(hash=False)  # its inline values are mappings; the rest of the node identifies it
    key: str
    fields: tuple[str, ...]
    as_: tuple[str, ...]
    default: Any = None
    types: Any = None
    loaded: Loaded = field(default_factory=Loaded, compare=False, repr=False)

    def reads(self) -> tuple[FieldRead, ...]:
        return (FieldRead(self.lookup, ("lookup",)),)

    def fields_after(self, fields: Fields) -> Fields:
        types = dict(self.types or ())
        return {**fields, **{name: types.get(looked, LOOKUP_TYPE) for looked, name in zip(self.fields, self.as_)}}

    def makes(self) -> tuple[str, ...]:
        return self.as_
