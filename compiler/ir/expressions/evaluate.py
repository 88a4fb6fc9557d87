"""Evaluation: a parsed tree compiled once into Python closures that compute, row by row, what Vega does.

`evaluator(expr)` compiles the tree once into nested Python closures; each
call then runs them on one row. A `_Context` holds the row for one call and
caches converted fields, so `datum.a === datum.a` is true for an array field
as it is in JavaScript. Calls run the implementations in `functions.FUNCTIONS`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from .functions import FUNCTIONS
from .jsvalues import OBJECT_PROTOTYPE, UNDEFINED, JSRegExp, from_python, to_int32, to_number, truthy
from .nodes import (
    ArrayLiteral,
    Binary,
    Call,
    Conditional,
    Constant,
    Datum,
    Expression,
    Field,
    Literal,
    Logical,
    Member,
    ObjectLiteral,
    Regex,
    Unary,
)
from .operators import BINARY, get_property, property_key
from .problems import EvaluationError, Throw, Unsupported
from .regex import translate_regex
from .signatures import CONSTANTS, NOT_REPRODUCED, VEGA_FUNCTIONS

class _Context:
    """One evaluation: the row, and the JavaScript values read from it so far."""

    __slots__ = ("row", "values", "whole")

    def __init__(self, row: Mapping[str, object]):
        self.row = row
        self.values: dict[str, object] = {}
        self.whole: dict | None = None

    def field(self, name: str) -> object:
        try:
            return self.values[name]
        except KeyError:
            pass
        if name in self.row:
            value = from_python(self.row[name])
        elif name in OBJECT_PROTOTYPE:
            raise Unsupported(name, "reads a JavaScript built-in method")
        else:
            value = UNDEFINED
        self.values[name] = value
        return value

    def datum(self) -> dict:
        if self.whole is None:
            self.whole = {str(name): self.field(str(name)) for name in self.row}
        return self.whole


# A compiled node: a function of one evaluation's context to the node's value.
Compiled = Callable[[_Context], object]


def evaluator(expr: Expression) -> Callable[[Mapping[str, object]], object]:
    """Compile a parsed expression once, for evaluating it on many rows.

    Args:
        expr: a tree from `parse`.

    Returns:
        A function of one row (field name -> Python value: None, bool, int,
        float, str, datetime, lists and dicts of these) that returns what
        Vega computes: None for null, `UNDEFINED`, bool, float, str, list,
        dict, `JSDate` or `JSRegExp`.

    The returned function raises `Unsupported` when the value cannot be
    computed exactly here, and `EvaluationError` when JavaScript would throw.
    """
    run = _compile(expr)

    def evaluate_row(row: Mapping[str, object]) -> object:
        return run(_Context(row))

    return evaluate_row


def evaluate(expr: Expression, row: Mapping[str, object]) -> object:
    """Evaluate a parsed expression on one row, as Vega's generated code does.

    Args:
        expr: a tree from `parse`.
        row: field name -> value; a missing name reads as `UNDEFINED`.

    Returns:
        The JavaScript value (see `evaluator`).

    Raises:
        Unsupported: not computed here (see the package docstring).
        EvaluationError: JavaScript would throw (Vega stops the render).
    """
    return evaluator(expr)(row)


def _compile(node: Expression) -> Compiled:
    return _COMPILERS[type(node)](node)


def _compile_literal(node: Literal) -> Compiled:
    value = node.value
    return lambda ctx: value


def _compile_regex(node: Regex) -> Compiled:
    pattern, flags = node.pattern, node.flags
    compiled, unsupported, groups = translate_regex(pattern, flags)
    # a literal is a new RegExp object each time JavaScript evaluates it
    return lambda ctx: JSRegExp(pattern, flags, compiled, unsupported, groups)


def _compile_constant(node: Constant) -> Compiled:
    value = CONSTANTS[node.name]
    return lambda ctx: value


def _compile_datum(node: Datum) -> Compiled:
    return lambda ctx: ctx.datum()


def _compile_field(node: Field) -> Compiled:
    name = node.name
    return lambda ctx: ctx.field(name)


def _compile_member(node: Member) -> Compiled:
    target, key = _compile(node.object), _compile(node.property)

    def member(ctx: _Context) -> object:
        obj = target(ctx)
        name = property_key(key(ctx))
        try:
            return get_property(obj, name)
        except Throw as error:
            raise EvaluationError(str(error), node.start, node.end) from None

    return member


def _compile_unary(node: Unary) -> Compiled:
    argument, operator = _compile(node.argument), node.operator
    if operator == "!":
        return lambda ctx: not truthy(argument(ctx))
    if operator == "-":
        return lambda ctx: -to_number(argument(ctx))
    if operator == "+":
        return lambda ctx: to_number(argument(ctx))
    return lambda ctx: float(~to_int32(to_number(argument(ctx))))


def _compile_binary(node: Binary) -> Compiled:
    left, right, operation = _compile(node.left), _compile(node.right), BINARY[node.operator]

    def binary(ctx: _Context) -> object:
        try:
            return operation(left(ctx), right(ctx))
        except Throw as error:
            raise EvaluationError(str(error), node.start, node.end) from None

    return binary


def _compile_logical(node: Logical) -> Compiled:
    left, right = _compile(node.left), _compile(node.right)
    if node.operator == "&&":
        def logical_and(ctx: _Context) -> object:
            value = left(ctx)
            return right(ctx) if truthy(value) else value
        return logical_and

    def logical_or(ctx: _Context) -> object:
        value = left(ctx)
        return value if truthy(value) else right(ctx)
    return logical_or


def _compile_conditional(node: Conditional) -> Compiled:
    test, consequent, alternate = _compile(node.test), _compile(node.consequent), _compile(node.alternate)
    return lambda ctx: consequent(ctx) if truthy(test(ctx)) else alternate(ctx)


def _compile_call(node: Call) -> Compiled:
    name = node.name
    reason = VEGA_FUNCTIONS[name].unsupported
    implementation = FUNCTIONS.get(name)
    arguments = tuple(_compile(argument) for argument in node.arguments)
    if reason or implementation is None:
        def unsupported(ctx: _Context) -> object:
            raise Unsupported(name, reason or NOT_REPRODUCED)
        return unsupported

    def call(ctx: _Context) -> object:
        values = [argument(ctx) for argument in arguments]
        try:
            return implementation(values)
        except Throw as error:
            raise EvaluationError(str(error), node.start, node.end) from None

    return call


def _compile_array(node: ArrayLiteral) -> Compiled:
    elements = tuple(_compile(element) for element in node.elements)
    return lambda ctx: [element(ctx) for element in elements]


def _compile_object(node: ObjectLiteral) -> Compiled:
    properties = tuple((key, _compile(value)) for key, value in node.properties)
    return lambda ctx: {key: value(ctx) for key, value in properties}


_COMPILERS: dict[type, Callable[[Expression], Compiled]] = {
    Literal: _compile_literal,
    Regex: _compile_regex,
    Constant: _compile_constant,
    Datum: _compile_datum,
    Field: _compile_field,
    Member: _compile_member,
    Unary: _compile_unary,
    Binary: _compile_binary,
    Logical: _compile_logical,
    Conditional: _compile_conditional,
    Call: _compile_call,
    ArrayLiteral: _compile_array,
    ObjectLiteral: _compile_object,
}
