# Several functions below follow the JavaScript Vega runs for them closely
# (among them vega-util's pad, truncate, extent, span, lerp, inrange,
# clampRange, peek and repeat, and vega-functions' format, timeFormat,
# monthFormat and dayFormat), under Vega's licence:
#
# Copyright (c) 2015-2023, University of Washington Interactive Data Lab
# All rights reserved.
#
# Redistribution and use in source and binary forms, with or without
# modification, are permitted provided that the following conditions are met:
#
# 1. Redistributions of source code must retain the above copyright notice, this
#    list of conditions and the following disclaimer.
#
# 2. Redistributions in binary form must reproduce the above copyright notice,
#    this list of conditions and the following disclaimer in the documentation
#    and/or other materials provided with the distribution.
#
# 3. Neither the name of the copyright holder nor the names of its contributors
#   may be used to endorse or promote products derived from this software
#   without specific prior written permission.
#
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
# AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
# IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
# DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT OWNER OR CONTRIBUTORS BE LIABLE
# FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
# DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
# SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
# CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
# OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
# OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
#
# `_sequence` follows d3-array's range (3.2.4), under the ISC licence:
#
# Copyright 2010-2023 Mike Bostock
#
# Permission to use, copy, modify, and/or distribute this software for any purpose
# with or without fee is hereby granted, provided that the above copyright notice
# and this permission notice appear in all copies.
#
# THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH
# REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND
# FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT,
# INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS
# OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER
# TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF
# THIS SOFTWARE.
#
# See THIRD_PARTY_NOTICES.md.

"""Vega's expression functions, as the JavaScript behind them computes them: `FUNCTIONS`, the table `evaluate` calls.

Each takes the list of evaluated arguments (as many as were written: an
absent argument is not the same as undefined for `lastIndexOf`) and follows
the JavaScript that Vega runs for it (vega-expression, vega-util,
vega-functions, d3-array). Math is in `v8math`, regular expressions in
`regex`, time values in `dates` and the formats in `d3format`; this module
reads the arguments as those functions do and calls them.
"""
from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable

from . import v8math
from .d3format import d3_format, d3_time_format
from .dates import (
    DAY_NAMES,
    MONTH_NAMES,
    MONTHS,
    MS_PER_DAY,
    WEEKDAYS,
    date_fields,
    date_parse,
    days_from_civil,
    time_clip,
    time_from_parts,
)
from .jsvalues import (
    JS_SPACE,
    UNDEFINED,
    JSDate,
    JSRegExp,
    array_join,
    from_units,
    int_to_double,
    is_object,
    nullish,
    strict_equals,
    to_int32,
    to_integer,
    to_js_string,
    to_number,
    to_primitive,
    to_uint32,
    to_units,
    truthy,
)
from .operators import BINARY, add, get_property, less, property_key
from .problems import Throw, Unsupported
from .regex import new_regexp, regex_compiled, regex_replace, regex_split, substitution

# --- Math (the operations on numbers are in `v8math`)

def _arg(args: list, index: int) -> object:
    return args[index] if index < len(args) else UNDEFINED


def _math1(operation: Callable[[float], float]) -> Callable[[list], float]:
    return lambda args: operation(to_number(_arg(args, 0)))


def _math2(operation: Callable[[float, float], float]) -> Callable[[list], float]:
    return lambda args: operation(to_number(_arg(args, 0)), to_number(_arg(args, 1)))


def _extremum(args: list, larger: bool) -> float:
    values = [to_number(value) for value in args]  # every argument is coerced before any is compared
    result = -math.inf if larger else math.inf
    for value in values:
        if value != value:
            return math.nan
        if (value > result) if larger else (value < result):
            result = value
        elif value == 0 and result == 0 and math.copysign(1, value) != math.copysign(1, result):
            result = 0.0 if larger else -0.0  # max(-0, 0) is 0, min(0, -0) is -0
    return result


def _hypot(args: list) -> float:
    return v8math.hypot([to_number(value) for value in args])


def _clamp(args: list) -> float:
    value, low, high = args
    return _extremum([low, _extremum([high, value], False)], True)


def _is_nan(args: list) -> bool:
    value = _arg(args, 0)
    return type(value) is float and value != value


def _is_finite(args: list) -> bool:
    value = _arg(args, 0)
    return type(value) is float and math.isfinite(value)


# --- type tests and coercions (vega-util)

def _is_valid(args: list) -> bool:
    value = _arg(args, 0)
    return not nullish(value) and not (type(value) is float and value != value)


def _to_boolean(args: list) -> bool | None:
    value = _arg(args, 0)
    if nullish(value) or value == "":
        return None
    return False if (not truthy(value) or value == "false" or value == "0") else True


def _to_number(args: list) -> float | None:
    value = _arg(args, 0)
    return None if nullish(value) or value == "" else to_number(value)


def _to_string(args: list) -> str | None:
    value = _arg(args, 0)
    return None if nullish(value) or value == "" else to_js_string(to_primitive(value))


def _to_date(args: list) -> object:
    value = _arg(args, 0)
    if nullish(value) or value == "":
        return None
    if type(value) is float or type(value) is JSDate:
        return value
    return date_parse(to_js_string(value))


# --- strings (String.prototype methods, on UTF-16 code units)

def _relative(value: object, length: int, default: int) -> int:
    """A start or end index as slice() reads it: negative counts from the end."""
    if value is UNDEFINED:
        return default
    number = to_integer(to_number(value))
    if number < 0:
        return int(max(length + number, 0))
    return int(min(number, length))


def _substring(args: list) -> str:
    units = to_units(to_js_string(args[0]))
    length = len(units)

    def clamp(value: object, default: int) -> int:
        if value is UNDEFINED:
            return default
        return int(min(max(to_integer(to_number(value)), 0), length))

    start, end = clamp(_arg(args, 1), 0), clamp(_arg(args, 2), length)
    return from_units(units[min(start, end):max(start, end)])


def _trim(args: list) -> str:
    return to_js_string(_arg(args, 0)).strip(JS_SPACE)


def _length(args: list) -> object:
    return get_property(_arg(args, 0), "length")


def _sequence_or_throw(value: object, method: str, strings: bool = True) -> list | str:
    if type(value) is list or (strings and type(value) is str):
        return value
    raise Throw(f"TypeError: Cannot read properties of null (reading '{method}')")


def _index_of(args: list, last: bool) -> float:
    sequence = _sequence_or_throw(args[0], "lastIndexOf" if last else "indexOf")
    rest = args[1:]
    if type(sequence) is list:
        length = len(sequence)
        target = _arg(rest, 0)
        if last:
            start = length - 1 if len(rest) < 2 else to_integer(to_number(rest[1]))
            start = min(start, length - 1) if start >= 0 else length + start
            indexes = range(int(start), -1, -1) if start > -math.inf else ()
        else:
            start = 0 if len(rest) < 2 else to_integer(to_number(rest[1]))
            start = max(length + start, 0) if start < 0 else start
            indexes = range(int(min(start, length)), length)
        for index in indexes:
            if strict_equals(sequence[index], target):
                return float(index)
        return -1.0
    units = to_units(sequence)
    search = to_units(to_js_string(_arg(rest, 0)))
    length = len(units)
    if last:
        position = to_number(_arg(rest, 1))
        position = math.inf if position != position else to_integer(position)
        start = int(min(max(position, 0), length))
        return float(units.rfind(search, 0, start + len(search)))
    start = int(min(max(to_integer(to_number(_arg(rest, 1))), 0), length))
    return float(units.find(search, start))


def _slice(args: list) -> object:
    sequence = _sequence_or_throw(args[0], "slice")
    if type(sequence) is list:
        length = len(sequence)
        return sequence[_relative(_arg(args, 1), length, 0):_relative(_arg(args, 2), length, length)]
    units = to_units(sequence)
    length = len(units)
    return from_units(units[_relative(_arg(args, 1), length, 0):_relative(_arg(args, 2), length, length)])


def _join_function(args: list) -> str:
    sequence = _sequence_or_throw(args[0], "join", strings=False)
    separator = _arg(args, 1)
    return array_join(sequence, "," if separator is UNDEFINED else to_js_string(separator))


def _reverse(args: list) -> list:
    return _sequence_or_throw(args[0], "slice", strings=False)[::-1]


def _sort(args: list) -> list:
    """vega-util's `ascending` through Array.prototype.sort, for arrays whose order is well defined."""
    items = _sequence_or_throw(args[0], "slice", strings=False)
    defined = [item for item in items if item is not UNDEFINED]
    tail = [UNDEFINED] * (len(items) - len(defined))  # sort() moves undefined to the end unseen
    kinds = {type(item) for item in defined if item is not None}
    if kinds <= {float}:
        def key(item):
            return (0,) if item is None else (1,) if item != item else (2, item)
    elif kinds == {str}:
        def key(item):
            return (0,) if item is None else (1, to_units(item))
    else:
        raise Unsupported("sort", "of values of mixed types")
    return sorted(defined, key=key) + tail


def _split(args: list) -> list:
    text = to_js_string(args[0])
    separator, limit = _arg(args, 1), _arg(args, 2)
    if type(separator) is JSRegExp:
        return regex_split(separator, text, limit)
    units = to_units(text)
    lim = 0xFFFFFFFF if limit is UNDEFINED else to_uint32(to_number(limit))
    if lim == 0:
        return []
    if separator is UNDEFINED:
        return [text]
    separator = to_units(to_js_string(separator))
    if not separator:
        return [from_units(unit) for unit in units[:lim]]
    if not units:
        return [text]
    return [from_units(part) for part in units.split(separator)][:lim]


def _replace(args: list) -> str:
    text, pattern, replacement = args
    if type(pattern) is not str and type(pattern) is not JSRegExp:
        raise Throw("Error: Please pass a string or RegExp argument to replace.")
    text = to_units(to_js_string(text))
    template = to_units(to_js_string(replacement))
    if type(pattern) is JSRegExp:
        return from_units(regex_replace(pattern, text, template))
    search = to_units(pattern)
    position = text.find(search)
    if position < 0:
        return from_units(text)
    substitute = substitution(search, text, position, [], template)
    return from_units(text[:position] + substitute + text[position + len(search):])


def _parse_float(args: list) -> float:
    text = to_js_string(_arg(args, 0)).lstrip(JS_SPACE)
    match = re.match(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", text)
    if not match:
        return math.nan
    return float(match.group().replace("Infinity", "inf"))


def _parse_int(args: list) -> float:
    text = to_js_string(_arg(args, 0)).lstrip(JS_SPACE)
    sign = -1 if text[:1] == "-" else 1
    if text[:1] in ("-", "+"):
        text = text[1:]
    radix = to_int32(to_number(_arg(args, 1)))
    strip_prefix = True
    if radix != 0:
        if radix < 2 or radix > 36:
            return math.nan
        strip_prefix = radix == 16
    else:
        radix = 10
    if strip_prefix and text[:2] in ("0x", "0X"):
        text, radix = text[2:], 16
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"[:radix]
    end = 0
    while end < len(text) and text[end].isascii() and text[end].lower() in digits:
        end += 1
    if end == 0:
        return math.nan
    number = int(text[:end], radix)
    if number == 0:
        return -0.0 if sign < 0 else 0.0
    if number >= 2 ** 53 and radix not in (2, 4, 8, 10, 16, 32):
        raise Unsupported("parseInt", "rounds large numbers in other radixes as V8 chooses")
    return int_to_double(sign * number)


def _btoa(args: list) -> str:
    text = to_js_string(_arg(args, 0))
    try:
        data = text.encode("latin-1")
    except UnicodeEncodeError:
        raise Throw("InvalidCharacterError: The string to be encoded contains characters "
                     "outside of the Latin1 range.") from None
    return base64.b64encode(data).decode("ascii")


def _atob(args: list) -> str:
    """The forgiving-base64 decode of the HTML standard, as Deno's atob runs it."""
    text = re.sub(r"[\t\n\f\r ]", "", to_js_string(_arg(args, 0)))
    if len(text) % 4 == 0 and text.endswith("="):
        text = text[:-2] if text.endswith("==") else text[:-1]
    if len(text) % 4 == 1 or not re.fullmatch(r"[A-Za-z0-9+/]*", text):
        raise Throw("InvalidCharacterError: The string to be decoded is not correctly encoded.")
    try:
        data = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except binascii.Error:
        raise Throw("InvalidCharacterError: The string to be decoded is not correctly encoded.") from None
    return data.decode("latin-1")


# --- vega-util helpers

def _repeat(text: object, count: float) -> str:
    """vega-util's repeat: `while (--reps >= 0) s += str`."""
    if count != count or count < 1:
        return ""
    if count > 1_000_000:
        raise Unsupported("pad", "builds a string of more than a million copies")
    return to_js_string(to_primitive(text)) * math.floor(count)


def _pad(args: list) -> str:
    value, length = args[0], args[1]
    padding, align = _arg(args, 2), _arg(args, 3)
    char = padding if truthy(padding) else " "
    text = to_js_string(to_primitive(value))
    missing = to_number(length) - len(to_units(text))
    if missing <= 0:
        return text
    if strict_equals(align, "left"):
        return _repeat(char, missing) + text
    if strict_equals(align, "center"):
        return _repeat(char, float(to_int32(missing / 2))) + text + _repeat(char, v8math.ceil(missing / 2))
    return text + _repeat(char, missing)


def _truncate(args: list) -> str:
    value, length = args[0], args[1]
    align, ellipsis = _arg(args, 2), _arg(args, 3)
    ellipsis = ellipsis if not nullish(ellipsis) else "\u2026"
    units = to_units(to_js_string(to_primitive(value)))
    size = len(units)
    keep = _extremum([0.0, BINARY["-"](length, get_property(ellipsis, "length"))], True)
    if BINARY["<="](float(size), length):
        return from_units(units)

    def cut(start: object, end: object = UNDEFINED) -> str:
        return from_units(units[_relative(start, size, 0):_relative(end, size, size)])

    if strict_equals(align, "left"):
        return add(ellipsis, cut(size - keep))
    if strict_equals(align, "center"):
        return add(add(cut(0.0, v8math.ceil(keep / 2)), ellipsis), cut(size - float(to_int32(keep / 2))))
    return add(cut(0.0, keep), ellipsis)


def _peek(value: object) -> object:
    return get_property(value, property_key(BINARY["-"](get_property(value, "length"), 1.0)))


def _peek_function(args: list) -> object:
    return _peek(args[0])


def _span(args: list) -> object:
    value = args[0]
    if not truthy(value):
        return 0.0
    difference = BINARY["-"](_peek(value), get_property(value, "0"))
    return difference if truthy(difference) else 0.0


def _lerp(args: list) -> object:
    values, fraction = args
    low, high, f = get_property(values, "0"), _peek(values), to_number(fraction)
    if not truthy(f):
        return low
    if f == 1:
        return high
    return add(low, f * to_number(BINARY["-"](high, low)))


def _inrange(args: list) -> bool:
    value, bounds = args[0], args[1]
    left, right = _arg(args, 2), _arg(args, 3)
    low, high = get_property(bounds, "0"), _peek(bounds)
    if less(high, low) is True:
        low, high = high, low
    left = True if left is UNDEFINED else left
    right = True if right is UNDEFINED else right
    above = BINARY["<="](low, value) if truthy(left) else BINARY["<"](low, value)
    return above and (BINARY["<="](value, high) if truthy(right) else BINARY["<"](value, high))


def _extent(args: list) -> list:
    values = args[0]
    if not truthy(values) or not truthy(get_property(values, "length")):
        return [UNDEFINED, UNDEFINED]
    if type(values) is list:
        items = values
    elif type(values) is str:
        items = list(to_units(values))
    else:
        raise Unsupported("extent", "of an object with a length")
    count = len(items)
    index = 0
    while index < count and (nullish(items[index]) or (type(items[index]) is float and items[index] != items[index])):
        index += 1
    if index >= count:
        return [UNDEFINED, UNDEFINED]
    low = high = items[index]
    for item in items[index:]:
        if not nullish(item):
            if less(item, low) is True:
                low = item
            if less(high, item) is True:
                high = item
    return [low, high]


def _clamp_range(args: list) -> list:
    bounds, low_limit, high_limit = args
    low, high = get_property(bounds, "0"), get_property(bounds, "1")
    if less(high, low) is True:
        low, high = high, low
    width = BINARY["-"](high, low)
    if BINARY[">="](width, BINARY["-"](high_limit, low_limit)):
        return [low_limit, high_limit]
    low = _extremum([_extremum([low, low_limit], True), BINARY["-"](high_limit, width)], False)
    return [low, add(low, width)]


def _sequence(args: list) -> list:
    """d3-array's range(start, stop, step)."""
    count = len(args)
    start, stop = to_number(args[0]), to_number(_arg(args, 1))
    if count < 2:
        start, stop, step = 0.0, start, 1.0
    else:
        step = 1.0 if count < 3 else to_number(args[2])
    size = to_int32(_extremum([0.0, v8math.ceil(v8math.divide(stop - start, step))], True))  # `| 0` wraps past 2**31
    if size < 0:
        raise Throw("RangeError: Invalid array length")
    if size > 10_000_000:
        raise Unsupported("sequence", "builds more than ten million numbers")
    return [start + i * step for i in range(size)]


def _merge(args: list) -> dict:
    merged: dict = {}
    for value in args:
        kind = type(value)
        if kind is dict:
            merged.update(value)
        elif kind is list:
            merged.update((str(i), item) for i, item in enumerate(value))
        elif kind is str:
            merged.update((str(i), unit) for i, unit in enumerate(to_units(value)))
    return merged


def _regexp_function(args: list) -> JSRegExp:
    pattern, flags = _arg(args, 0), _arg(args, 1)
    if type(pattern) is JSRegExp:
        if flags is UNDEFINED:
            return pattern  # RegExp(re) called as a function returns re itself
        source = pattern.source
    else:
        source = "" if pattern is UNDEFINED else to_js_string(pattern)
    flags = "" if flags is UNDEFINED else to_js_string(flags)
    return new_regexp(source, flags)


def _test(args: list) -> bool:
    pattern = _regexp_function(args[:1])
    text = to_units(to_js_string(_arg(args, 1)))
    return regex_compiled(pattern, "test").search(text) is not None


def _month_name(args: list, names: tuple[str, ...]) -> str:
    value = _arg(args, 0)
    if type(value) is not float or not math.isfinite(value) or value != math.floor(value):
        return ""
    if abs(value) > 1e6:
        raise Unsupported("monthFormat", "of a month far outside a calendar year")
    return names[int(value) % 12]


def _day_name(args: list, names: tuple[str, ...]) -> str:
    # vega-functions formats the date `2 + day` of January 2000 (the 2nd is a Sunday), so `+` coerces
    # first: dayFormat(true) is "Monday", dayFormat(null) "Sunday", dayFormat('1') ""
    value = add(2.0, _arg(args, 0))
    if type(value) is not float or not math.isfinite(value) or value != math.floor(value):
        return ""
    if abs(value) > 1e8:
        raise Unsupported("dayFormat", "of a day far outside the calendar")
    return names[(int(value) - 2) % 7]


# --- dates (time values in `dates`; local time is UTC)

def _time_from_arguments(args: list) -> float:
    """Date.UTC(...) and new Date(y, m, ...) before the clip: every argument read as a number."""
    return time_from_parts([to_number(value) for value in args])


def _utc(args: list) -> float:
    return time_clip(_time_from_arguments(args))


def _new_date(args: list) -> JSDate:
    if not args:
        raise Unsupported("datetime", "of no arguments is the current time")
    if len(args) == 1:
        return JSDate(_time_from_value(args[0]))
    return JSDate(time_clip(_time_from_arguments(args)))


def _time_from_value(value: object) -> float:
    """`new Date(value)`: a Date's time, parsed text, or a number of milliseconds."""
    if type(value) is JSDate:
        return value.time
    value = to_primitive(value)
    if type(value) is str:
        return date_parse(value)
    return time_clip(to_number(value))


def _date_getter(index: int) -> Callable[[list], float]:
    """`new Date(x).getX()` (local and UTC read alike under TZ=UTC)."""
    def getter(args: list) -> float:
        time = _time_from_value(args[0])
        return math.nan if time != time else float(date_fields(time)[index])
    return getter


def _time(args: list) -> float:
    return _time_from_value(args[0])


def _timezone_offset(args: list) -> float:
    time = _time_from_value(args[0])
    return math.nan if time != time else 0.0


def _quarter(args: list) -> float:
    time = _time_from_value(args[0])
    return 1.0 if time != time else float(1 + date_fields(time)[1] // 3)  # ~~NaN is 0: an invalid date is Q1


def _day_of_year(utc: bool) -> Callable[[list], float]:
    """d3-time's day count from the end of the previous year (vega-time's dayofyear)."""
    def day_of_year(args: list) -> float:
        time = _time_from_value(args[0])
        if time != time:
            return math.nan
        year = date_fields(time)[0]
        if utc and 0 <= year <= 99:
            year += 1900  # vega-time starts the count at Date.UTC(year, 0, 1), which maps 0-99 to 1900-1999
        days = math.floor(time / MS_PER_DAY)
        return float(days - (days_from_civil(year, 1, 1) - 1))
    return day_of_year


def _week(utc: bool) -> Callable[[list], float]:
    """d3-time's Sunday-based week count from the end of the previous year (vega-time's week)."""
    def week(args: list) -> float:
        time = _time_from_value(args[0])
        if time != time:
            return math.nan
        year = date_fields(time)[0]
        if utc and 0 <= year <= 99:
            year += 1900
        days = math.floor(time / MS_PER_DAY)
        start = days_from_civil(year, 1, 1) - 1
        sunday, start_sunday = days - (days + 4) % 7, start - (start + 4) % 7
        return float((sunday - start_sunday) // 7)
    return week


# --- formats (vega-functions' wrappers of d3-format and d3-time-format)

def _format_function(args: list) -> str:
    value, specifier = args
    if value is None:
        return "null"  # Vega's wrapper, before d3 sees the value
    if type(specifier) is not str:
        raise Unsupported("format", "with a specifier that is not text")
    return d3_format(value, specifier)


def _time_format_function(args: list) -> str:
    value, specifier = args
    if value is None:
        return "null"
    if type(specifier) is not str:
        raise Unsupported("timeFormat", "with a multi-format specifier object")
    time = value.time if type(value) is JSDate else time_clip(to_number(value))  # d3: new Date(+value)
    if time != time:
        raise Unsupported("timeFormat", "of an invalid date")
    return d3_time_format(time, specifier)


# ------------------------------------------------------------------ the function table

def _type_test(test: Callable[[object], bool]) -> Callable[[list], bool]:
    return lambda args: test(_arg(args, 0))


# Vega's function name -> its implementation, a function of the list of evaluated arguments. A name of
# `signatures.VEGA_FUNCTIONS` missing here is Unsupported.
FUNCTIONS: dict[str, Callable[[list], object]] = {
    # Math (every argument read with ToNumber)
    "isNaN": _is_nan,
    "isFinite": _is_finite,
    "abs": _math1(abs),
    "acos": _math1(v8math.acos),
    "asin": _math1(v8math.asin),
    "atan": _math1(v8math.atan),
    "atan2": _math2(v8math.atan2),
    "ceil": _math1(v8math.ceil),
    "cos": _math1(v8math.cos),
    "exp": _math1(v8math.exp),
    "floor": _math1(v8math.floor),
    "hypot": _hypot,
    "log": _math1(v8math.log),
    "max": lambda args: _extremum(args, True),
    "min": lambda args: _extremum(args, False),
    "pow": _math2(v8math.power),
    "round": _math1(v8math.round_half_up),
    "sin": _math1(v8math.sin),
    "sqrt": _math1(v8math.sqrt),
    "tan": _math1(v8math.tan),
    "clamp": _clamp,
    # dates (local time is UTC)
    "utc": _utc,
    "datetime": _new_date,
    "time": _time,
    "timezoneoffset": _timezone_offset,
    "quarter": _quarter,
    "utcquarter": _quarter,
    "dayofyear": _day_of_year(False),
    "utcdayofyear": _day_of_year(True),
    "week": _week(False),
    "utcweek": _week(True),
    # strings
    "length": _length,
    "parseFloat": _parse_float,
    "parseInt": _parse_int,
    "upper": lambda args: to_js_string(_arg(args, 0)).upper(),
    "lower": lambda args: to_js_string(_arg(args, 0)).lower(),
    "substring": _substring,
    "split": _split,
    "trim": _trim,
    "btoa": _btoa,
    "atob": _atob,
    "regexp": _regexp_function,
    "test": _test,
    "replace": _replace,
    "pad": _pad,
    "truncate": _truncate,
    # types
    "isArray": _type_test(lambda v: type(v) is list),
    "isBoolean": _type_test(lambda v: type(v) is bool),
    "isDate": _type_test(lambda v: type(v) is JSDate),
    "isDefined": _type_test(lambda v: v is not UNDEFINED),
    "isNumber": _type_test(lambda v: type(v) is float),
    "isObject": _type_test(is_object),
    "isRegExp": _type_test(lambda v: type(v) is JSRegExp),
    "isString": _type_test(lambda v: type(v) is str),
    "isValid": _is_valid,
    "toBoolean": _to_boolean,
    "toDate": _to_date,
    "toNumber": _to_number,
    "toString": _to_string,
    # arrays (and strings where vega-functions accepts them)
    "indexof": lambda args: _index_of(args, False),
    "lastindexof": lambda args: _index_of(args, True),
    "join": _join_function,
    "reverse": _reverse,
    "sort": _sort,
    "slice": _slice,
    "peek": _peek_function,
    "span": _span,
    "lerp": _lerp,
    "inrange": _inrange,
    "extent": _extent,
    "clampRange": _clamp_range,
    "sequence": _sequence,
    "merge": _merge,
    # names of months and days (en-US, as Vega's default locale)
    "monthFormat": lambda args: _month_name(args, MONTH_NAMES),
    "monthAbbrevFormat": lambda args: _month_name(args, MONTHS),
    "dayFormat": lambda args: _day_name(args, DAY_NAMES),
    "dayAbbrevFormat": lambda args: _day_name(args, WEEKDAYS),
    "format": _format_function,
    "timeFormat": _time_format_function,
    "utcFormat": _time_format_function,
}
for _index, _name in enumerate(("year", "month", "date", "hours", "minutes", "seconds", "milliseconds", "day")):
    FUNCTIONS[_name] = FUNCTIONS["utc" + _name] = _date_getter(_index)
