"""JavaScript values as the evaluator holds them, and ECMAScript's conversions between them.

undefined is `UNDEFINED`, null is None, booleans are bool, numbers float,
strings str, arrays list, objects dict, a Date `JSDate` and a RegExp
`JSRegExp`. Arrays, objects and dates compare by identity in JavaScript
(`[1] === [1]` is false), so they are fresh Python objects.

This module owns what every other part reads values with: ToPrimitive,
ToNumber, ToBoolean (`truthy`), `String(value)` (`to_js_string`),
Number::toString (`js_string`), the integer conversions, `===` and `==`,
strings as UTF-16 code units (`to_units`, `from_units`), and `from_python`,
a row's cell as the value Vega sees.
"""
from __future__ import annotations

import datetime
import math
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass

from .dates import date_string
from .problems import Unsupported


class _Undefined:
    """JavaScript's undefined: what a missing field reads as. Falsy, and not None (null)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False


UNDEFINED = _Undefined()


@dataclass(eq=False, slots=True)
class JSDate:
    """A JavaScript Date: its time value, epoch milliseconds (NaN for an invalid date)."""

    time: float


@dataclass(eq=False, slots=True)
class JSRegExp:
    """A JavaScript RegExp: its source, flags and the exact Python translation (or why there is none)."""

    source: str
    flags: str
    compiled: re.Pattern | None
    unsupported: str | None
    groups: int = 0


# JavaScript's white space and line terminators (String.prototype.trim, Number("...")).
JS_SPACE = ("\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
            "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
LINE_TERMINATORS = "\n\r\u2028\u2029"
# Object.prototype's method names and __proto__: Vega refuses them as object literal keys, and
# reading one (`datum.toString`) reads a JavaScript built-in.
OBJECT_PROTOTYPE = frozenset({
    "constructor", "__defineGetter__", "__defineSetter__", "hasOwnProperty", "__lookupGetter__",
    "__lookupSetter__", "isPrototypeOf", "propertyIsEnumerable", "toString", "valueOf", "toLocaleString",
    "__proto__",
})


def js_string(number: float) -> str:
    """ECMAScript Number::toString(10): how JavaScript writes a number.

    The shortest digits that read back as the same double (Python's `repr`
    finds the same digits: shortest, then closest), laid out with
    JavaScript's rules: integers up to 21 digits in full, 1e21 and above and
    below 1e-6 in exponent form, ``-0`` as ``0``.

    Args:
        number: a double.

    Returns:
        The text, e.g. ``0.30000000000000004``, ``1e+21``, ``1e-7``, ``5``.
    """
    number = float(number)
    if number != number:
        return "NaN"
    if number == 0:
        return "0"
    if number < 0:
        return "-" + js_string(-number)
    if number == math.inf:
        return "Infinity"
    digits, point = shortest_digits(number)
    k, n = len(digits), point
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    exponent = n - 1
    sign = "+" if exponent >= 0 else "-"
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{mantissa}e{sign}{abs(exponent)}"


def shortest_digits(number: float) -> tuple[str, int]:
    """Digits d1..dk and n with number = 0.d1..dk x 10**n, k as small as possible (positive, finite)."""
    text = repr(number)
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) - (len(whole + fraction) - len((whole + fraction).lstrip("0"))) + int(exponent or 0)
    return digits.rstrip("0"), point


def to_js_string(value: object) -> str:
    """JavaScript's `String(value)`.

    Args:
        value: an evaluated value.

    Returns:
        The text JavaScript writes: numbers by `js_string`, arrays joined by
        commas, "[object Object]", a Date as `Date.prototype.toString` in UTC.

    Raises:
        Unsupported: a Python value with no JavaScript counterpart.
    """
    kind = type(value)
    if kind is str:
        return value
    if kind is float:
        return js_string(value)
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if kind is list:
        return array_join(value, ",")
    if kind is dict:
        return "[object Object]"
    if kind is JSDate:
        return date_string(value.time)
    if kind is JSRegExp:
        return f"/{value.source}/{value.flags}"
    if isinstance(value, (int, float)):
        return js_string(float(value))
    raise Unsupported(type(value).__name__, "not a JavaScript value")


def array_join(items: list, separator: str) -> str:
    """Array.prototype.join: each item as text (null and undefined as ''), between separators."""
    return separator.join("" if item is None or item is UNDEFINED else to_js_string(item) for item in items)


def to_primitive(value: object, hint: str = "default") -> object:
    """JavaScript's ToPrimitive.

    Args:
        value: an evaluated value.
        hint: "default" (for `+` and `==`), "number" (for `-` and `<`) or "string".

    Returns:
        Primitives unchanged; arrays, objects and RegExps as their text; a
        Date as its time value for "number", else as its text.
    """
    kind = type(value)
    if kind is float or kind is str or kind is bool or value is None or value is UNDEFINED:
        return value
    if kind is JSDate and hint == "number":
        return value.time
    return to_js_string(value)


_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_RADIX_LITERAL = re.compile(r"0(?:[xX]([0-9a-fA-F]+)|[oO]([0-7]+)|[bB]([01]+))")


def string_to_number(text: str) -> float:
    """StringToNumber: JavaScript's `Number("...")`."""
    text = text.strip(JS_SPACE)
    if not text:
        return 0.0
    if _DECIMAL.fullmatch(text):
        return float(text.replace("Infinity", "inf"))
    match = _RADIX_LITERAL.fullmatch(text)
    if match:
        hexa, octal, binary = match.groups()
        return int_to_double(int(hexa, 16) if hexa else int(octal, 8) if octal else int(binary, 2))
    return math.nan


def to_number(value: object) -> float:
    """JavaScript's ToNumber.

    Args:
        value: an evaluated value.

    Returns:
        The double: undefined is NaN, null and '' are 0, text is read as
        `Number("...")` reads it (hex, binary, octal, Infinity, white space).
    """
    kind = type(value)
    if kind is float:
        return value
    if kind is str:
        return string_to_number(value)
    if kind is bool:
        return 1.0 if value else 0.0
    if value is None:
        return 0.0
    if value is UNDEFINED:
        return math.nan
    if kind is JSDate:
        return value.time
    return to_number(to_primitive(value, "number"))


def truthy(value: object) -> bool:
    """JavaScript's ToBoolean: whether a `filter` keeps the row.

    Args:
        value: an evaluated value.

    Returns:
        False for undefined, null, false, 0, -0, NaN and ''; True otherwise
        (every array and object, even empty, and the text '0' or 'false').
    """
    kind = type(value)
    if kind is bool:
        return value
    if kind is float:
        return value == value and value != 0
    if kind is str:
        return value != ""
    return not (value is None or value is UNDEFINED)


def to_integer(value: float) -> float:
    """ToIntegerOrInfinity of a number: NaN is 0, fractions truncate toward zero."""
    if value != value:
        return 0.0
    if math.isinf(value):
        return value
    return float(math.trunc(value))


def to_int32(value: float) -> int:
    """ToInt32 of a number: NaN and infinities are 0, the rest wraps to a signed 32-bit integer."""
    if value != value or math.isinf(value):
        return 0
    number = math.trunc(value) & 0xFFFFFFFF
    return number - 0x100000000 if number >= 0x80000000 else number


def to_uint32(value: float) -> int:
    """ToUint32 of a number: NaN and infinities are 0, the rest wraps to an unsigned 32-bit integer."""
    if value != value or math.isinf(value):
        return 0
    return math.trunc(value) & 0xFFFFFFFF


def int_to_double(number: int) -> float:
    """An integer as the nearest double; past the largest double, an infinity (as JSON and parseInt give)."""
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def strict_equals(left: object, right: object) -> bool:
    """JavaScript's `===`.

    Args:
        left, right: evaluated values.

    Returns:
        Whether both have the same type and value; NaN equals nothing, -0
        equals 0, arrays, objects and Dates are equal only to themselves.
    """
    kind = type(left)
    if kind is not type(right):
        return False
    if kind is float or kind is str or kind is bool:
        return left == right
    return left is right


def loose_equals(left: object, right: object) -> bool:
    """JavaScript's `==` (IsLooselyEqual).

    Args:
        left, right: evaluated values.

    Returns:
        Whether they are equal after JavaScript's coercions: null == undefined,
        text against a number is read as a number, a boolean is 0 or 1, an
        object is compared through its primitive.
    """
    while True:
        lkind, rkind = type(left), type(right)
        if lkind is rkind or (nullish(left) and nullish(right)):
            return strict_equals(left, right) or (nullish(left) and nullish(right))
        if nullish(left) or nullish(right):
            return False
        if lkind is float and rkind is str:
            return left == string_to_number(right)
        if lkind is str and rkind is float:
            return string_to_number(left) == right
        if lkind is bool:
            left = 1.0 if left else 0.0
            continue
        if rkind is bool:
            right = 1.0 if right else 0.0
            continue
        if is_object(left):
            left = to_primitive(left)
            continue
        if is_object(right):
            right = to_primitive(right)
            continue
        return False


def nullish(value: object) -> bool:
    """Whether a value is null or undefined."""
    return value is None or value is UNDEFINED


def is_object(value: object) -> bool:
    """Whether a value is a JavaScript object (an array, object, Date or RegExp), not a primitive."""
    kind = type(value)
    return kind is list or kind is dict or kind is JSDate or kind is JSRegExp


# ------------------------------------------------------------------ UTF-16
# JavaScript strings are UTF-16 code units: "😀".length is 2 and "😀"[0] is a
# lone surrogate. Python strings are code points. String operations that count
# or cut work on a "units" string (one Python character per code unit) and
# turn the result back, so lone surrogates stay lone and pairs become one
# character again.

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def to_units(text: str) -> str:
    """A string as its UTF-16 code units, one Python character each (an astral character becomes a pair)."""
    if text.isascii() or not _ASTRAL.search(text):
        return text
    data = text.encode("utf-16-le", "surrogatepass")
    return "".join(map(chr, struct.unpack(f"<{len(data) // 2}H", data)))


def from_units(units: str) -> str:
    """The inverse of `to_units`: surrogate pairs become one character again; lone surrogates stay."""
    if units.isascii() or not _SURROGATE.search(units):
        return units
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def concat(left: str, right: str) -> str:
    """JavaScript's string concatenation: a high surrogate at the end of `left` pairs with a low one after it."""
    if left and right and "\ud800" <= left[-1] <= "\udbff" and "\udc00" <= right[0] <= "\udfff":
        return from_units(left + right)
    return left + right


def string_less_than(left: str, right: str) -> bool:
    """String comparison by UTF-16 code units, as JavaScript compares."""
    return to_units(left) < to_units(right)


# ------------------------------------------------------------------ rows
# A row holds Python values (chartc's table cells); the evaluator reads each as the value Vega sees.

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def from_python(value: object) -> object:
    """A row's cell as the JavaScript value Vega sees.

    Numbers become doubles; a `datetime` becomes epoch milliseconds (a naive
    one read as UTC), which is what Vega-Lite's date parsing gives Vega; a
    `date` is its midnight; lists become arrays and mappings objects.

    Args:
        value: a cell (None, bool, int, float, str, datetime, date, list, dict).

    Returns:
        The JavaScript value, as `evaluate` represents it.

    Raises:
        Unsupported: a value with no JavaScript counterpart.
    """
    kind = type(value)
    if kind is float or kind is str or kind is bool or value is None:
        return value
    if kind is int:
        return int_to_double(value)
    if isinstance(value, datetime.datetime):
        delta = value - (_EPOCH_UTC if value.tzinfo is not None else _EPOCH)
        return float((delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000)
    if isinstance(value, datetime.date):
        return float((value - _EPOCH.date()).days * 86400000)
    if value is UNDEFINED or kind is JSDate or kind is JSRegExp:
        return value
    if isinstance(value, (list, tuple)):
        return [from_python(item) for item in value]
    if isinstance(value, Mapping):
        return {str(k): from_python(v) for k, v in value.items()}
    if isinstance(value, (int, float)):  # bool subclasses and numpy-like numbers
        return float(value)
    raise Unsupported(type(value).__name__, "has no JavaScript counterpart")
