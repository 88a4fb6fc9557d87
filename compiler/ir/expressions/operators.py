"""JavaScript's operators and property access on evaluated values: `+ - < == in` and `a[b]`.

`BINARY` maps each binary operator to its operation on two values; `add`,
`less`, `get_property` and `property_key` are also what the functions that
Vega writes in JavaScript (`pad`, `extent`, `peek`, ...) compute with.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable

from . import v8math
from .jsvalues import (
    OBJECT_PROTOTYPE,
    UNDEFINED,
    JSDate,
    JSRegExp,
    concat,
    is_object,
    loose_equals,
    strict_equals,
    string_less_than,
    to_int32,
    to_js_string,
    to_number,
    to_primitive,
    to_uint32,
    to_units,
)
from .problems import Throw, Unsupported

# --- property access

_ARRAY_PROTOTYPE = OBJECT_PROTOTYPE | frozenset(
    "at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat flatMap forEach "
    "includes indexOf join keys lastIndexOf map pop push reduce reduceRight reverse shift slice some sort "
    "splice toReversed toSorted toSpliced unshift values with".split())
_STRING_PROTOTYPE = OBJECT_PROTOTYPE | frozenset(
    "anchor at big blink bold charAt charCodeAt codePointAt concat endsWith fontcolor fontsize fixed includes "
    "indexOf isWellFormed italics lastIndexOf link localeCompare match matchAll normalize padEnd padStart "
    "repeat replace replaceAll search slice small split strike sub substr substring sup startsWith "
    "toWellFormed trim trimStart trimLeft trimEnd trimRight toLocaleLowerCase toLocaleUpperCase "
    "toLowerCase toUpperCase".split())
_NUMBER_PROTOTYPE = OBJECT_PROTOTYPE | frozenset("toExponential toFixed toPrecision".split())
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")


def property_key(value: object) -> str:
    """ToPropertyKey: a number is written as JavaScript writes it (`a[1.0]` is `a['1']`)."""
    if type(value) is str:
        return value
    return to_js_string(to_primitive(value, "string"))


def _array_index(key: str) -> int | None:
    if _ARRAY_INDEX.fullmatch(key):
        index = int(key)
        if index < 0xFFFFFFFF:
            return index
    return None


def get_property(obj: object, key: str) -> object:
    """`obj[key]` for a property name, or Unsupported for JavaScript's built-in methods."""
    kind = type(obj)
    if kind is dict:
        if key in obj:
            return obj[key]
        prototype = OBJECT_PROTOTYPE
    elif kind is list:
        index = _array_index(key)
        if index is not None:
            return obj[index] if index < len(obj) else UNDEFINED
        if key == "length":
            return float(len(obj))
        prototype = _ARRAY_PROTOTYPE
    elif kind is str:
        units = to_units(obj)
        index = _array_index(key)
        if index is not None:
            return units[index] if index < len(units) else UNDEFINED
        if key == "length":
            return float(len(units))
        prototype = _STRING_PROTOTYPE
    elif kind is float or kind is bool:
        prototype = _NUMBER_PROTOTYPE
    elif obj is None or obj is UNDEFINED:
        raise Throw(f"TypeError: Cannot read properties of {to_js_string(obj)} (reading '{key}')")
    else:  # Date and RegExp objects: every property is a built-in
        raise Unsupported(key, f"reads a property of a {'Date' if kind is JSDate else 'RegExp'}")
    if key in prototype:
        raise Unsupported(key, "reads a JavaScript built-in method")
    return UNDEFINED


# --- operators

def add(left: object, right: object) -> object:
    """JavaScript's `+`: concatenation when either primitive is text, else addition of numbers."""
    if type(left) is float and type(right) is float:
        return left + right
    left, right = to_primitive(left), to_primitive(right)
    if type(left) is str or type(right) is str:
        return concat(to_js_string(left), to_js_string(right))
    return to_number(left) + to_number(right)


def _remainder(left: float, right: float) -> float:
    if left != left or right != right or math.isinf(left) or right == 0:
        return math.nan
    if math.isinf(right) or left == 0:
        return left
    return math.fmod(left, right)


def less(left: object, right: object) -> bool | None:
    """IsLessThan: None stands for undefined (a NaN was compared)."""
    left, right = to_primitive(left, "number"), to_primitive(right, "number")
    if type(left) is str and type(right) is str:
        return string_less_than(left, right)
    left, right = to_number(left), to_number(right)
    if left != left or right != right:
        return None
    return left < right


def _shift_left(left: object, right: object) -> float:
    number = (to_int32(to_number(left)) << (to_uint32(to_number(right)) & 31)) & 0xFFFFFFFF
    return float(number - 0x100000000 if number >= 0x80000000 else number)


def _bitwise(operation: Callable[[int, int], int]) -> Callable[[object, object], float]:
    def bitwise(left: object, right: object) -> float:
        number = operation(to_int32(to_number(left)), to_int32(to_number(right))) & 0xFFFFFFFF
        return float(number - 0x100000000 if number >= 0x80000000 else number)
    return bitwise


def _in(left: object, right: object) -> bool:
    key = property_key(left)
    kind = type(right)
    if kind is dict:
        return key in right or key in OBJECT_PROTOTYPE
    if kind is list:
        index = _array_index(key)
        return (index is not None and index < len(right)) or key == "length" or key in _ARRAY_PROTOTYPE
    if kind is JSDate or kind is JSRegExp:
        raise Unsupported("in", "looks up a property of a Date or RegExp")
    raise Throw(f"TypeError: Cannot use 'in' operator to search for '{key}' in {to_js_string(right)}")


def _instanceof(left: object, right: object) -> bool:
    # nothing an expression can reach is callable, so JavaScript always throws
    if is_object(right):
        raise Throw("TypeError: Right-hand side of 'instanceof' is not callable")
    raise Throw("TypeError: Right-hand side of 'instanceof' is not an object")


# Each binary operator (not `&&` and `||`, which are `nodes.Logical`) -> its operation on two values.
BINARY: dict[str, Callable[[object, object], object]] = {
    "+": add,
    "-": lambda a, b: to_number(a) - to_number(b),
    "*": lambda a, b: to_number(a) * to_number(b),
    "/": lambda a, b: v8math.divide(to_number(a), to_number(b)),
    "%": lambda a, b: _remainder(to_number(a), to_number(b)),
    "<": lambda a, b: less(a, b) is True,
    ">": lambda a, b: less(b, a) is True,
    "<=": lambda a, b: less(b, a) is False,
    ">=": lambda a, b: less(a, b) is False,
    "==": loose_equals,
    "!=": lambda a, b: not loose_equals(a, b),
    "===": strict_equals,
    "!==": lambda a, b: not strict_equals(a, b),
    "<<": _shift_left,
    ">>": lambda a, b: float(to_int32(to_number(a)) >> (to_uint32(to_number(b)) & 31)),
    ">>>": lambda a, b: float(to_uint32(to_number(a)) >> (to_uint32(to_number(b)) & 31)),
    "&": _bitwise(lambda a, b: a & b),
    "|": _bitwise(lambda a, b: a | b),
    "^": _bitwise(lambda a, b: a ^ b),
    "in": _in,
    "instanceof": _instanceof,
}
