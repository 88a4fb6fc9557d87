# `d3_format` and its helpers are ported from d3-format 3.1.0
# (https://github.com/d3/d3-format), and `d3_time_format` from d3-time-format
# 4.1.0 (https://github.com/d3/d3-time-format). Both are distributed under
# the ISC licence; their copyright lines and permission notice:
#
# Copyright 2010-2021 Mike Bostock (d3-format)
# Copyright 2010-2021 Mike Bostock (d3-time-format)
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

"""Vega's number and date formats: ports of d3-format 3.1.0 and d3-time-format 4.1 (en-US).

`d3_format(value, specifier)` is d3-format's `format(specifier)(value)` and
`d3_time_format(time, specifier)` d3-time-format's `format(specifier)` of a
valid time value, in the en-US locale Vega uses (a minus sign is U+2212).
Vega's `format`, `timeFormat` and `utcFormat` (in `functions`) call them.

d3-format's JavaScript number primitives (toFixed, toExponential,
toPrecision) are exact decimal rounding of the binary value, ties away from
zero, which Decimal does on the double's exact value. d3-format 3.1.0 keeps
the SI exponent of the last "s" format in a module variable, and NaN or an
infinity formatted with "s" takes that stale suffix: those are Unsupported
(measured: Vega wrote "NaNy" after formatting 5e-324).
"""
from __future__ import annotations

import decimal
import math
import re
from collections.abc import Callable

from . import v8math
from .dates import DAY_NAMES, MONTH_NAMES, MONTHS, MS_PER_DAY, WEEKDAYS, date_fields, days_from_civil
from .jsvalues import js_string, shortest_digits, string_to_number, to_js_string, to_number, to_primitive, to_units
from .problems import Throw, Unsupported

# ------------------------------------------------------------------ d3-format

_DECIMAL_CONTEXT = decimal.Context(prec=1200, rounding=decimal.ROUND_HALF_UP)


def _to_fixed(x: float, digits: int) -> str:
    """Number.prototype.toFixed."""
    if not math.isfinite(x) or abs(x) >= 1e21:
        return js_string(x)
    sign = "-" if x < 0 else ""
    exact = decimal.Decimal(abs(x)).quantize(decimal.Decimal(1).scaleb(-digits), context=_DECIMAL_CONTEXT)
    return sign + format(exact, "f")


def _significant(x: float, digits: int) -> tuple[str, int]:
    """(digits, exponent e) with x ~ d.ddd x 10**e, rounded half up to `digits` significant digits."""
    exact = decimal.Decimal(abs(x))
    exponent = exact.adjusted()
    scaled = exact.scaleb(digits - 1 - exponent, context=_DECIMAL_CONTEXT)
    number = int(scaled.to_integral_value(context=_DECIMAL_CONTEXT))
    if number >= 10 ** digits:
        number //= 10
        exponent += 1
    return str(number), exponent


def _to_exponential(x: float, fraction: int | None) -> str:
    """Number.prototype.toExponential (`fraction` None: as many digits as it takes)."""
    if not math.isfinite(x):
        return js_string(x)
    sign = "-" if x < 0 else ""
    if x == 0:
        digits, exponent = "0" * (1 + (fraction or 0)), 0
    elif fraction is None:
        digits, point = shortest_digits(abs(x))
        exponent = point - 1
    else:
        digits, exponent = _significant(x, fraction + 1)
    mantissa = digits if len(digits) == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _to_precision(x: float, precision: int) -> str:
    """Number.prototype.toPrecision."""
    if not math.isfinite(x):
        return js_string(x)
    sign = "-" if x < 0 else ""
    if x == 0:
        digits, exponent = "0" * precision, 0
    else:
        digits, exponent = _significant(x, precision)
    if exponent < -6 or exponent >= precision:
        mantissa = digits if precision == 1 else digits[0] + "." + digits[1:]
        return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
    if exponent == precision - 1:
        return sign + digits
    if exponent >= 0:
        return sign + digits[:exponent + 1] + "." + digits[exponent + 1:]
    return sign + "0." + "0" * -(exponent + 1) + digits


def _decimal_parts(x: float, precision: int | None) -> tuple[str, int] | None:
    """d3-format's formatDecimalParts: coefficient digits and exponent, or None for NaN and infinities."""
    if not math.isfinite(x):
        return None
    text = _to_exponential(x, precision - 1 if precision else None)
    coefficient, _, exponent = text.partition("e")
    return coefficient.replace(".", ""), int(exponent)


def _format_rounded(x: float, precision: int) -> str:
    parts = _decimal_parts(x, precision)
    if parts is None:
        return js_string(x)
    coefficient, exponent = parts
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + coefficient
    if len(coefficient) > exponent + 1:
        return coefficient[:exponent + 1] + "." + coefficient[exponent + 1:]
    return coefficient + "0" * (exponent - len(coefficient) + 1)


_SI_PREFIXES = ("y", "z", "a", "f", "p", "n", "\u00b5", "m", "", "k", "M", "G", "T", "P", "E", "Z", "Y")


def _format_prefix_auto(x: float, precision: int) -> tuple[str, int | None]:
    """d3-format's formatPrefixAuto: the digits and the SI exponent chosen."""
    parts = _decimal_parts(x, precision)
    if parts is None:
        raise Unsupported("format", "of a non-finite number with an SI prefix, which depends on the last call")
    coefficient, exponent = parts
    prefix = max(-8, min(8, math.floor(exponent / 3))) * 3
    i, n = exponent - prefix + 1, len(coefficient)
    if i == n:
        return coefficient, prefix
    if i > n:
        return coefficient + "0" * (i - n), prefix
    if i > 0:
        return coefficient[:i] + "." + coefficient[i:], prefix
    return "0." + "0" * -i + (_decimal_parts(x, max(0, precision + i - 1)) or ("",))[0], prefix


def _format_integer(x: float, radix: int) -> str:
    value = v8math.round_half_up(x)
    if not math.isfinite(value):
        return js_string(value)
    if value >= 2 ** 53:
        raise Unsupported("format", "of an integer past 2**53 in another base")
    return {2: "{:b}", 8: "{:o}", 16: "{:x}"}[radix].format(int(value))


def _format_decimal(x: float, precision: int) -> str:
    value = v8math.round_half_up(x)
    if math.isinf(value):
        return "\u221e"  # toLocaleString("en") writes Infinity as the sign
    if abs(value) >= 1e21:
        digits, point = shortest_digits(abs(value))  # toLocaleString("en") without its commas
        return ("-" if value < 0 else "") + digits + "0" * (point - len(digits))
    return js_string(value)


_FORMAT_TYPES: dict[str, Callable[[float, int], str]] = {
    "%": lambda x, p: _to_fixed(x * 100, p),
    "b": lambda x, p: _format_integer(x, 2),
    "d": _format_decimal,
    "e": lambda x, p: _to_exponential(x, p),
    "f": _to_fixed,
    "g": _to_precision,
    "o": lambda x, p: _format_integer(x, 8),
    "p": lambda x, p: _format_rounded(x * 100, p),
    "r": _format_rounded,
    "X": lambda x, p: _format_integer(x, 16).upper(),
    "x": lambda x, p: _format_integer(x, 16),
}
# d3-format's specifier grammar (formatSpecifier.js); public: the verify stage checks formats with it.
FORMAT_SPECIFIER = re.compile(
    r"(?:([^\n\r\u2028\u2029])?([<>=^]))?([+\-( ])?([$#])?(0)?([0-9]+)?(,)?(\.[0-9]+)?(~)?([a-zA-Z%])?")


def _format_trim(text: str) -> str:
    """d3-format's formatTrim: drop insignificant zeros after the decimal point."""
    first = last = -1
    for index in range(1, len(text)):
        char = text[index]
        if char == ".":
            first = last = index
        elif char == "0":
            if first == 0:
                first = index
            last = index
        elif char in "123456789":
            if first > 0:
                first = 0
        else:
            break
    return text[:first] + text[last + 1:] if first > 0 else text


def _group(value: str, width: float) -> str:
    """d3-format's formatGroup with en-US grouping: thousands by three, joined by commas."""
    parts, index, length = [], len(value), 0
    size = 3
    while index > 0 and size > 0:
        if length + size + 1 > width:
            size = max(1, int(width - length))
        parts.append(value[max(index - size, 0):index])
        index -= size
        length += size + 1
        if length > width:
            break
        size = 3
    return ",".join(reversed(parts))


def d3_format(value: object, specifier: str) -> str:
    """d3-format's format(specifier)(value), as Vega's `format` runs it.

    Args:
        value: an evaluated value (read as a number, or as text for type "c").
        specifier: d3-format's specifier, e.g. ",.2f".

    Returns:
        The text d3-format writes.

    Raises:
        Throw: an invalid specifier (d3-format throws "invalid format").
        Unsupported: NaN or an infinity with an SI prefix ("s").
    """
    units = to_units(specifier)
    match = FORMAT_SPECIFIER.fullmatch(units)
    if not match:
        raise Throw(f"Error: invalid format: {specifier}")
    fill, align, sign, symbol, zero, width, comma, precision, trim, kind = match.groups()
    fill, align, sign, symbol = fill or " ", align or ">", sign or "-", symbol or ""
    width_value = int(width) if width else None
    precision_value = int(precision[1:]) if precision else None
    comma, trim, zero, kind = bool(comma), bool(trim), bool(zero), kind or ""
    if kind == "n":
        comma, kind = True, "g"
    elif kind not in _FORMAT_TYPES and kind != "c" and kind != "s":
        precision_value = 12 if precision_value is None else precision_value
        trim, kind = True, "g"
    if zero or (fill == "0" and align == "="):
        zero, fill, align = True, "0", "="
    prefix = "$" if symbol == "$" else ("0" + kind.lower() if symbol == "#" and kind in "boxX" else "")
    suffix = "" if symbol == "$" else ("%" if kind in "%p" else "")
    if precision_value is None:
        precision_value = 6
    elif kind in "gprs":
        precision_value = max(1, min(21, precision_value))
    else:
        precision_value = max(0, min(20, precision_value))
    if kind == "c":
        value_prefix, value_suffix, text = prefix, to_js_string(to_primitive(value)) + suffix, ""
    else:
        number = to_number(value)
        negative = number < 0 or (number == 0 and math.copysign(1, number) < 0)
        si_prefix = None
        if number != number:
            if kind == "s":
                raise Unsupported("format", "of NaN with an SI prefix, which depends on the last call")
            text = "NaN"
        elif kind == "s":
            text, si_prefix = _format_prefix_auto(abs(number), precision_value)
        else:
            text = _FORMAT_TYPES[kind](abs(number), precision_value)
        if trim:
            text = _format_trim(text)
        if negative and string_to_number(text) == 0 and sign != "+":
            negative = False  # a negative number that rounds to zero loses its sign
        value_prefix = (("(" if sign == "(" else "\u2212") if negative else ("" if sign in "-(" else sign)) + prefix
        value_suffix = _SI_PREFIXES[8 + si_prefix // 3] if kind == "s" else ""
        value_suffix += suffix + (")" if negative and sign == "(" else "")
        if kind in "defgprs%":
            for index, char in enumerate(text):
                if not "0" <= char <= "9":
                    value_suffix = ("." + text[index + 1:] if char == "." else text[index:]) + value_suffix
                    text = text[:index]
                    break
    if comma and not zero:
        text = _group(text, math.inf)
    length = len(to_units(value_prefix)) + len(to_units(text)) + len(to_units(value_suffix))
    padding = fill * (width_value - length) if width_value is not None and length < width_value else ""
    if comma and zero:
        text = _group(padding + text, width_value - len(to_units(value_suffix)) if padding else math.inf)
        padding = ""
    if align == "<":
        return value_prefix + text + value_suffix + padding
    if align == "=":
        return value_prefix + padding + text + value_suffix
    if align == "^":
        half = len(padding) >> 1
        return padding[:half] + value_prefix + text + value_suffix + padding[half:]
    return padding + value_prefix + text + value_suffix


# ------------------------------------------------------------------ d3-time-format

_TIME_PADS = {"-": "", "_": " ", "0": "0"}
_LOCALE_FORMATS = {"c": "%x, %X", "x": "%-m/%-d/%Y", "X": "%-I:%M:%S %p"}


def _pad_number(value: int, fill: str, width: int) -> str:
    text = str(abs(value))
    return ("-" if value < 0 else "") + (fill * (width - len(text)) + text if len(text) < width else text)


def _truncated_remainder(value: int, divisor: int) -> int:
    return value - divisor * int(value / divisor)


def _week_count(days: int, year: int, weekday: int, from_day_before: bool) -> int:
    """d3-time's count of `weekday`-starting weeks from the start of `year` (or the day before) to `days`."""
    start = days_from_civil(year, 1, 1) - (1 if from_day_before else 0)
    return ((days - (days + 4 - weekday) % 7) - (start - (start + 4 - weekday) % 7)) // 7


def _time_directive(char: str, time: float, fill: str) -> str | None:
    """One d3-time-format directive for a valid time value (UTC), or None when `char` is none."""
    year, month, day, hours, minutes, seconds, millis, weekday = date_fields(time)
    days = math.floor(time / MS_PER_DAY)
    if char in "gGV":
        thursday = days - (weekday - 4) % 7 if (weekday >= 4 or weekday == 0) else days + (4 - weekday)
        iso_year = date_fields(thursday * MS_PER_DAY)[0]
        if char == "V":
            start = days_from_civil(iso_year, 1, 1)
            count = _week_count(thursday, iso_year, 4, False) + ((start + 4) % 7 == 4)
            return _pad_number(count, fill, 2)
        return (_pad_number(_truncated_remainder(iso_year, 100), fill, 2) if char == "g"
                else _pad_number(_truncated_remainder(iso_year, 10000), fill, 4))
    simple = {
        "a": lambda: WEEKDAYS[weekday], "A": lambda: DAY_NAMES[weekday],
        "b": lambda: MONTHS[month], "B": lambda: MONTH_NAMES[month],
        "d": lambda: _pad_number(day, fill, 2), "e": lambda: _pad_number(day, fill, 2),
        "f": lambda: _pad_number(millis, fill, 3) + "000", "H": lambda: _pad_number(hours, fill, 2),
        "I": lambda: _pad_number(hours % 12 or 12, fill, 2),
        "j": lambda: _pad_number(days - days_from_civil(year, 1, 1) + 1, fill, 3),
        "L": lambda: _pad_number(millis, fill, 3), "m": lambda: _pad_number(month + 1, fill, 2),
        "M": lambda: _pad_number(minutes, fill, 2), "p": lambda: "PM" if hours >= 12 else "AM",
        "q": lambda: str(1 + month // 3), "Q": lambda: js_string(time),
        "s": lambda: js_string(float(math.floor(time / 1000))), "S": lambda: _pad_number(seconds, fill, 2),
        "u": lambda: str(weekday or 7), "U": lambda: _pad_number(_week_count(days, year, 0, True), fill, 2),
        "w": lambda: str(weekday), "W": lambda: _pad_number(_week_count(days, year, 1, True), fill, 2),
        "y": lambda: _pad_number(_truncated_remainder(year, 100), fill, 2),
        "Y": lambda: _pad_number(_truncated_remainder(year, 10000), fill, 4),
        "Z": lambda: "+0000", "%": lambda: "%",
    }
    produce = simple.get(char)
    return produce() if produce else None


def d3_time_format(time: float, specifier: str) -> str:
    """d3-time-format's format(specifier)(date) for a valid time value (local time is UTC).

    Args:
        time: a time value, not NaN.
        specifier: d3-time-format's specifier, e.g. "%Y-%m-%d".

    Returns:
        The text d3-time-format writes in the en-US locale.
    """
    out, index, start, size = [], 0, 0, len(specifier)
    while index < size:
        if specifier[index] == "%":
            out.append(specifier[start:index])
            index += 1
            char = specifier[index:index + 1]
            fill = _TIME_PADS.get(char) if char else None
            if fill is not None:
                index += 1
                char = specifier[index:index + 1]
            else:
                fill = " " if char == "e" else "0"
            if char in _LOCALE_FORMATS:
                out.append(d3_time_format(time, _LOCALE_FORMATS[char]))
            else:
                produced = _time_directive(char, time, fill) if char else None
                out.append(char if produced is None else produced)
            start = index + 1
        index += 1
    out.append(specifier[start:])
    return "".join(out)
