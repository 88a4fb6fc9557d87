"""The measurement type of an expression's value, read from its tree before any row is seen.

A `calculate` makes a field; a channel that names it without a `type`
takes the type the transform declares (`Calculate.fields_after`). Typing
every calculated field quantitative made `datum.a > 0 ? 'up' : 'down'` a
quantitative colour, and Vega-Lite dropped every row of the layer: a blank
chart with exit 0. The rules follow JavaScript's: `+` gives text when either
side is text, comparisons and `!` give booleans (categories, as Altair types
a boolean column), `datetime`/`toDate` give dates, and arithmetic numbers.
None means the tree does not say (a field of unknown type, branches of
different kinds); the caller keeps its default.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import nodes as ast

NOMINAL, QUANTITATIVE, TEMPORAL = "nominal", "quantitative", "temporal"
# Vega functions whose value is text or a boolean (a category on a chart).
_TEXT_FUNCTIONS = frozenset({
    "upper", "lower", "substring", "trim", "pad", "truncate", "replace", "format", "timeFormat", "utcFormat",
    "timeUnitSpecifier", "toString", "toBoolean", "join", "isNaN", "isFinite", "isValid", "isArray", "isBoolean",
    "isDate", "isDefined", "isNumber", "isObject", "isRegExp", "isString", "test", "inrange", "monthFormat",
    "monthAbbrevFormat", "dayFormat", "dayAbbrevFormat", "regexp",
})
# Vega functions whose value is a date.
_DATE_FUNCTIONS = frozenset({"datetime", "toDate"})
# Vega functions whose value is a number (the date parts are numbers too: `year(d)` is 2024).
_NUMBER_FUNCTIONS = frozenset({
    "abs", "acos", "asin", "atan", "atan2", "ceil", "clamp", "cos", "exp", "floor", "hypot", "log", "max", "min",
    "pow", "random", "round", "sin", "sqrt", "tan", "toNumber", "parseFloat", "parseInt", "length", "indexof",
    "lastindexof", "now", "time", "utc", "timezoneoffset", "year", "quarter", "month", "week", "date", "day",
    "dayofyear", "hours", "minutes", "seconds", "milliseconds", "utcyear", "utcquarter", "utcmonth", "utcweek",
    "utcdate", "utcday", "utcdayofyear", "utchours", "utcminutes", "utcseconds", "utcmilliseconds", "lerp",
    "sampleNormal", "sampleLogNormal", "sampleUniform", "luminance", "contrast",
})
_COMPARISONS = frozenset({"<", ">", "<=", ">=", "==", "!=", "===", "!==", "in", "instanceof"})


def measurement(tree: ast.Expression, fields: Mapping[str, str]) -> str | None:
    """The measurement type of the expression's value, or None when its tree does not say.

    Args:
        tree: the parsed expression.
        fields: the measurement type of each field it may read.

    Returns:
        "nominal" (text or a boolean), "quantitative", "temporal", or None.
    """
    if isinstance(tree, ast.Literal):
        if isinstance(tree.value, bool) or isinstance(tree.value, str):
            return NOMINAL
        return QUANTITATIVE if isinstance(tree.value, (int, float)) else None
    if isinstance(tree, ast.Field):
        return fields.get(tree.name)
    if isinstance(tree, ast.Constant):
        return QUANTITATIVE
    if isinstance(tree, ast.Unary):
        return NOMINAL if tree.operator == "!" else QUANTITATIVE
    if isinstance(tree, ast.Binary):
        if tree.operator in _COMPARISONS:
            return NOMINAL
        if tree.operator != "+":
            return QUANTITATIVE
        sides = (measurement(tree.left, fields), measurement(tree.right, fields))
        if NOMINAL in sides or TEMPORAL in sides:  # JavaScript's `+` turns a Date into its text
            return NOMINAL
        return QUANTITATIVE if sides == (QUANTITATIVE, QUANTITATIVE) else None
    if isinstance(tree, ast.Logical):
        return _either(measurement(tree.left, fields), measurement(tree.right, fields))
    if isinstance(tree, ast.Conditional):
        return _either(measurement(tree.consequent, fields), measurement(tree.alternate, fields), null_ok=True,
                       branches=(tree.consequent, tree.alternate))
    if isinstance(tree, ast.Call):
        if tree.name == "if" and len(tree.arguments) == 3:
            then, otherwise = tree.arguments[1:]
            return _either(measurement(then, fields), measurement(otherwise, fields), null_ok=True,
                           branches=(then, otherwise))
        if tree.name in _TEXT_FUNCTIONS:
            return NOMINAL
        if tree.name in _DATE_FUNCTIONS:
            return TEMPORAL
        if tree.name in _NUMBER_FUNCTIONS:
            return QUANTITATIVE
    return None


def _either(left: str | None, right: str | None, *, null_ok: bool = False, branches=()) -> str | None:
    """The type of a value that is one of two: theirs when they agree; a `null` branch takes the other's."""
    if left == right:
        return left
    if null_ok:
        nulls = [isinstance(branch, ast.Literal) and branch.value is None for branch in branches]
        if nulls[0]:
            return right
        if nulls[1]:
            return left
    return None
