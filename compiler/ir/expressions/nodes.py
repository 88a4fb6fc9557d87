"""The typed tree of a Vega expression: frozen nodes that know their offsets, and walks over them.

Frozen nodes, each with `start`/`end` offsets into the parsed text (end
exclusive). The tree is close to ESTree (what Vega's parser builds), with the
data-transform meaning resolved: `datum.a` is a `Field`, a known constant is
a `Constant`, a call names a known function. `parser.parse` builds the tree
and `evaluate` runs it; `children`, `walk` and `fields_read` read it.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Expression:
    """Base of every node: where it is in the text."""

    start: int = field(kw_only=True)
    end: int = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class Literal(Expression):
    """A number (always a float), string, boolean or null (`None`) written in the text."""

    value: float | str | bool | None


@dataclass(frozen=True, slots=True)
class Regex(Expression):
    """A regular expression literal `/pattern/flags`."""

    pattern: str
    flags: str


@dataclass(frozen=True, slots=True)
class Constant(Expression):
    """One of Vega's named constants (`PI`, `NaN`, ...); `CONSTANTS[name]` is its value."""

    name: str


@dataclass(frozen=True, slots=True)
class Datum(Expression):
    """The bare `datum` object (the whole row)."""


@dataclass(frozen=True, slots=True)
class Field(Expression):
    """`datum.name` or `datum['name']`: a field read by a name known before evaluation.

    `name` is the literal property name: `datum["x.y"]` reads the field called
    ``x.y``, not a nested one.
    """

    name: str


@dataclass(frozen=True, slots=True)
class Member(Expression):
    """`object.name` or `object[property]` on anything but a static datum field.

    For the dotted form `property` is a `Literal` holding the name; `computed`
    tells the bracket form.
    """

    object: Expression
    property: Expression
    computed: bool


@dataclass(frozen=True, slots=True)
class Unary(Expression):
    """`!x`, `-x`, `+x`, `~x`."""

    operator: str
    argument: Expression


@dataclass(frozen=True, slots=True)
class Binary(Expression):
    """Arithmetic, comparison, equality, bitwise, shift, `in`, `instanceof`."""

    operator: str
    left: Expression
    right: Expression


@dataclass(frozen=True, slots=True)
class Logical(Expression):
    """`a && b`, `a || b`: the value of one operand (not a boolean), the right one evaluated only if needed."""

    operator: str
    left: Expression
    right: Expression


@dataclass(frozen=True, slots=True)
class Conditional(Expression):
    """`test ? consequent : alternate` (and Vega's `if(test, a, b)`, which compiles to it)."""

    test: Expression
    consequent: Expression
    alternate: Expression


@dataclass(frozen=True, slots=True)
class Call(Expression):
    """A call of one of Vega's expression functions (`VEGA_FUNCTIONS`), by name."""

    name: str
    arguments: tuple[Expression, ...]


@dataclass(frozen=True, slots=True)
class ArrayLiteral(Expression):
    """`[a, b, ...]`."""

    elements: tuple[Expression, ...]


@dataclass(frozen=True, slots=True)
class ObjectLiteral(Expression):
    """`{key: value, ...}`; keys are property names (text) in written order."""

    properties: tuple[tuple[str, Expression], ...]


def children(node: Expression) -> tuple[Expression, ...]:
    """The direct sub-expressions of a node.

    Args:
        node: any node.

    Returns:
        Its children in evaluation order (empty for leaves).
    """
    kind = type(node)
    if kind is Member:
        return (node.object, node.property)
    if kind is Unary:
        return (node.argument,)
    if kind is Binary or kind is Logical:
        return (node.left, node.right)
    if kind is Conditional:
        return (node.test, node.consequent, node.alternate)
    if kind is Call:
        return node.arguments
    if kind is ArrayLiteral:
        return node.elements
    if kind is ObjectLiteral:
        return tuple(value for _, value in node.properties)
    return ()


def walk(node: Expression) -> Iterator[Expression]:
    """Every node of a tree.

    Args:
        node: the root.

    Returns:
        An iterator over the nodes, parents before children, left to right.
    """
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def fields_read(node: Expression) -> frozenset[str] | None:
    """The datum fields an expression reads, or None when it cannot be known statically.

    `datum.a`, `datum['a b']` and `datum["x.y"]` read ``a``, ``a b`` and
    ``x.y``. A computed access `datum[expr]` or the bare `datum` (passed to a
    function, say) may read any field: the answer is then None, and callers
    must assume every field is read.

    Args:
        node: a parsed expression.

    Returns:
        The field names, or None.
    """
    names = set()
    for current in walk(node):
        if type(current) is Field:
            names.add(current.name)
        elif type(current) is Datum:
            return None
    return frozenset(names)
