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

from dataclasses import dataclass
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
class Filter(Transform):
    """``filter``: keep the rows that pass a field predicate or a Vega expression."""

    predicate: FieldPredicate | Expression

    def reads(self) -> tuple[FieldRead, ...]:
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
        return {**kept, **{op.as_: AGGREGATED_TYPE for op in self.ops}}

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
