"""Vega expressions: the parser against Vega's grammar, the evaluator against Vega itself.

The oracle is Vega as vl-convert runs it. `VegaOracle.values` builds one
Vega-Lite spec with the rows as inline `data.values`, one `calculate` per
expression (`as: rI`), then one more `calculate` that writes every result of a
row into a single string, each tagged with its JavaScript type and written by
JavaScript itself (`'' + value`); a `text` mark draws that string per row and
`vl_convert.vegalite_to_scenegraph` hands it back. (A text channel on the raw
field would not do: Vega-Lite draws valid values as they are, so the
scenegraph carries numbers as JSON, not as JavaScript prints them, and it
draws null and undefined as the words "null" and "undefined".)

Rows are what chartc's table holds: numbers, None, missing keys, text,
booleans and `datetime`s. NaN, infinities and -0 cannot travel as JSON, so the
oracle writes markers and turns them back with a first `calculate`; dates
travel as ISO text with `format.parse: date`, which makes them epoch
milliseconds in Vega (and a missing date null).

Two things that Vega does to a spec, found here, shape the oracle: a formula
that throws (a ReferenceError, `null.x`) makes Vega log the error and draw no
marks at all, with no exception from vl-convert, so every batch holds only
expressions that do not throw (those are tested on their own); and a control
character or a lone UTF-16 surrogate in drawn text aborts or mangles the
render, so results that would hold one are checked through `length()` and
`indexof()` instead.
"""

from __future__ import annotations

import datetime
import math
import os
import re
import time

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from chartc.ir import expressions as ex  # noqa: E402

# ------------------------------------------------------------------ the oracle

SEPARATOR = "\ue000"  # a private-use character: never in a value, never a control character
MARKERS = {"NaN": "__NaN__", "-0": "__-0__", "Infinity": "__Inf__", "-Infinity": "__-Inf__"}


def tag_expression(ref: str) -> str:
    """A Vega expression writing `ref` as 'type:' + its JavaScript string (-0 marked)."""
    return (f"(isNumber({ref}) ? ({ref} === 0 && 1 / {ref} < 0 ? 'n:-' : 'n:') : isString({ref}) ? 's:' : "
            f"isBoolean({ref}) ? 'b:' : {ref} === null ? 'l:' : !isDefined({ref}) ? 'u:' : isDate({ref}) ? 'd:' : "
            f"isArray({ref}) ? 'a' + length({ref}) + ':' : isRegExp({ref}) ? 'r:' : 'o:') + {ref}")


def tag(value: object) -> str:
    """The same tag for a value from `ex.evaluate`: JavaScript's `'' + value`, typed."""
    kind = type(value)
    if kind is float:
        prefix = "n:-" if value == 0 and math.copysign(1, value) < 0 else "n:"
    elif kind is str:
        prefix = "s:"
    elif kind is bool:
        prefix = "b:"
    elif value is None:
        prefix = "l:"
    elif value is ex.UNDEFINED:
        prefix = "u:"
    elif kind is ex.JSDate:
        prefix = "d:"
    elif kind is list:
        prefix = f"a{len(value)}:"
    elif kind is ex.JSRegExp:
        prefix = "r:"
    else:
        prefix = "o:"
    return prefix + ex.to_js_string(ex.to_primitive(value))


def _json_cell(value: object) -> object:
    if isinstance(value, float):
        if value != value:
            return MARKERS["NaN"]
        if math.isinf(value):
            return MARKERS["Infinity" if value > 0 else "-Infinity"]
        if value == 0 and math.copysign(1, value) < 0:
            return MARKERS["-0"]
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    return value


def _date_columns(rows: list[dict]) -> list[str]:
    return sorted({c for row in rows for c, v in row.items() if isinstance(v, datetime.datetime)})


class VegaOracle:
    """Expressions evaluated by Vega through vl-convert."""

    def __init__(self, vl_convert):
        self.vl_convert = vl_convert

    def _data(self, rows: list[dict]) -> tuple[dict, list[dict]]:
        dates = _date_columns(rows)
        values = [dict({c: _json_cell(v) for c, v in row.items()}, __k=k) for k, row in enumerate(rows)]
        data = {"values": values}
        if dates:
            data["format"] = {"parse": {c: "date" for c in dates}}
        restore = []
        for column in sorted({c for row in rows for c in row} - set(dates)):
            if any(isinstance(row.get(column), float) and _json_cell(row[column]) != row[column] for row in rows):
                cell = f"datum[{column!r}]"
                restore.append({"calculate": (
                    f"{cell} === '__NaN__' ? NaN : {cell} === '__-0__' ? -0 : {cell} === '__Inf__' ? 1/0 : "
                    f"{cell} === '__-Inf__' ? -1/0 : {cell}"), "as": column})
        return data, restore

    def _texts(self, spec: dict) -> list[str]:
        found = []

        def walk(node):
            if isinstance(node, dict):
                if node.get("marktype") == "text" and node.get("role") == "mark":
                    found.extend(item["text"] for item in node["items"])
                for child in node.values():
                    walk(child)
            elif isinstance(node, list):
                for child in node:
                    walk(child)

        walk(self.vl_convert.vegalite_to_scenegraph(spec))
        return found

    def values(self, expressions: list[str], rows: list[dict]) -> dict[tuple[int, int], str]:
        """{(expression index, row index): tag of Vega's value}; empty when a formula threw."""
        data, transforms = self._data(rows)
        for i, text in enumerate(expressions):
            transforms.append({"calculate": text, "as": f"r{i}"})
        joined = (" + '" + SEPARATOR + "' + ").join(tag_expression(f"datum.r{i}") for i in range(len(expressions)))
        transforms.append({"calculate": f"datum.__k + '{SEPARATOR}' + {joined}", "as": "out"})
        spec = {"data": data, "transform": transforms, "mark": "text",
                "encoding": {"text": {"field": "out", "type": "nominal"}}}
        found = {}
        for text in self._texts(spec):
            key, *parts = text.split(SEPARATOR)
            for i, part in enumerate(parts):
                found[i, int(key)] = part
        return found

    def survivors(self, predicates: list[str], rows: list[dict]) -> dict[int, set[int]]:
        """{predicate index: indexes of the rows a Vega-Lite `filter` keeps}."""
        data, restore = self._data(rows)
        layers = [{"transform": restore + [{"filter": text}, {"calculate": f"'{i}|' + datum.__k", "as": "out"}],
                   "mark": "text", "encoding": {"text": {"field": "out", "type": "nominal"}}}
                  for i, text in enumerate(predicates)]
        kept: dict[int, set[int]] = {i: set() for i in range(len(predicates))}
        for text in self._texts({"data": data, "layer": layers}):
            i, k = text.split("|")
            kept[int(i)].add(int(k))
        return kept

    def accepts(self, expression: str) -> bool:
        """Whether Vega-Lite and Vega take the expression in a `calculate` (parse and code generation)."""
        spec = {"data": {"values": [{"a": 1}]}, "transform": [{"calculate": expression, "as": "r"}],
                "mark": "text", "encoding": {"text": {"field": "r", "type": "nominal"}}}
        try:
            self.vl_convert.vegalite_to_scenegraph(spec)
        except ValueError:
            return False
        return True


def python_values(expressions: list[str], rows: list[dict]) -> dict[tuple[int, int], object]:
    """The tags `ex.evaluate` gives, with Unsupported/EvaluationError kept as the exception."""
    dates = _date_columns(rows)
    rows = [dict({c: None for c in dates}, **row) for row in rows]  # Vega's date parse makes a missing date null
    found: dict[tuple[int, int], object] = {}
    for i, text in enumerate(expressions):
        run = ex.evaluator(ex.parse(text))
        for k, row in enumerate(rows):
            try:
                found[i, k] = tag(run(row))
            except (ex.Unsupported, ex.EvaluationError) as error:
                found[i, k] = error
    return found


def assert_same_as_vega(oracle: VegaOracle, expressions: list[str], rows: list[dict],
                        unsupported: int = 0) -> int:
    """Compare every expression on every row with Vega; returns the number of comparisons.

    `unsupported` is how many (expression, row) pairs chartc is expected not
    to compute (they are left out); nothing in the batch may throw, since a
    throw blanks Vega's whole batch.
    """
    mine = python_values(expressions, rows)
    thrown = {(expressions[i], k): v for (i, k), v in mine.items() if isinstance(v, ex.EvaluationError)}
    assert not thrown, f"the batch must hold only expressions that do not throw: {list(thrown.items())[:5]}"
    skipped = [(expressions[i], rows[k]) for (i, k), v in mine.items() if isinstance(v, ex.Unsupported)]
    assert len(skipped) == unsupported, f"{len(skipped)} pairs are Unsupported, e.g. {skipped[:5]}"
    theirs = oracle.values(expressions, rows)
    assert theirs, "Vega drew nothing: an expression threw in Vega"
    compared = [key for key, value in mine.items() if not isinstance(value, Exception)]
    differ = [(expressions[i], rows[k], mine[i, k], theirs.get((i, k))) for (i, k) in compared
              if mine[i, k] != theirs.get((i, k))]
    assert not differ, f"{len(differ)} of {len(compared)} differ from Vega, e.g. {differ[:8]}"
    return len(compared)


@pytest.fixture(scope="module")
def vega() -> VegaOracle:
    """The oracle, with the process in UTC (as chartc renders) before vl-convert's engine starts."""
    os.environ["TZ"] = "UTC"
    if hasattr(time, "tzset"):
        time.tzset()
    vl_convert = pytest.importorskip("vl_convert")
    oracle = VegaOracle(vl_convert)
    offsets = oracle.values(["timezoneoffset(datetime(2020, 6, 1))", "timezoneoffset(datetime(2020, 0, 1))"], [{}])
    assert offsets == {(0, 0): "n:0", (1, 0): "n:0"}, "vl-convert's engine started before TZ=UTC was set"
    return oracle


# ------------------------------------------------------------------ rows and expressions

NAN, INF = math.nan, math.inf
ROWS = [
    {"a": 1.5, "b": 2, "s": "10", "t": "abc", "z": 0.0, "n": None, "bo": True,
     "d": datetime.datetime(2020, 1, 15, 10, 30)},
    {"a": -0.0, "b": -3, "s": " 12 ", "t": "Hello World", "z": NAN, "n": None, "bo": False,
     "d": datetime.datetime(1969, 12, 31, 23, 59, 59)},
    {"a": INF, "b": 0, "s": "", "t": "ß straße 😀 x", "z": -INF, "bo": True, "d": None},
    {"b": 7, "s": "0x1F", "t": "a,b,,c", "z": 1e21, "n": 0.1, "d": datetime.datetime(2024, 2, 29)},
    {"a": 123456789.123, "b": 1e-7, "s": "1e3", "t": "  padded\t", "z": 2.0 ** 53 + 2, "n": "null", "bo": False,
     "d": datetime.datetime(2000, 1, 1)},
    {"a": 5, "b": 255, "s": "2020-01-15", "t": "The Quick brown fox, 42 jumps!", "z": -7, "n": "0", "bo": True,
     "d": datetime.datetime(1900, 3, 1, 12)},
]

# The core of the language: coercion, equality, NaN and null, dates, the common functions.
CORE = [
    "datum.a + datum.b", "datum.a + datum.s", "datum.s * 2", "datum.s - 1", "datum.t + datum.n", "datum.a / datum.z",
    "datum.b % 3", "datum.a % datum.b", "-datum.a", "+datum.s", "!datum.s", "~datum.a", "datum.b << 30",
    "datum.b >> 1", "datum.b >>> 1", "datum.b & 6", "datum.b | 8", "datum.b ^ 5", "datum.a < datum.b",
    "datum.s < datum.t", "datum.s <= 10", "datum.n == null", "datum.n === null", "datum.missing == null",
    "datum.missing === null", "datum.s == 10", "datum.bo == 1", "datum.bo === 1", "datum.a && datum.t",
    "datum.z || 'default'", "datum.a > 1 ? 'big' : 'small'", "if(datum.bo, datum.a, datum.b)",
    "datum.d", "datum.d + 1", "datum.d - 1", "datum.d < datum.a", "year(datum.d)", "month(datum.d)",
    "date(datum.d)", "day(datum.d)", "hours(datum.d)", "minutes(datum.d)", "seconds(datum.d)",
    "milliseconds(datum.d)", "quarter(datum.d)", "dayofyear(datum.d)", "week(datum.d)", "utcweek(datum.d)",
    "utcdayofyear(datum.d)", "time(datum.d)", "timezoneoffset(datum.d)", "datetime(datum.b, 1, 1)",
    "utc(2020, datum.b, 1)", "toNumber(datum.s)", "toString(datum.a)", "toBoolean(datum.s)", "toDate(datum.d)",
    "isValid(datum.n)", "isNumber(datum.z)", "isNaN(datum.z)", "isFinite(datum.z)", "isDate(datum.d)",
    "length(datum.t)", "upper(datum.t)", "lower(datum.t)", "trim(datum.t)", "substring(datum.t, 1, 4)",
    "slice(datum.t, 1, -1)", "length(slice(datum.t, -3))", "split(datum.t, ',')", "length(split(datum.t, ''))",
    "indexof(datum.t, 'b')", "indexof(datum.t, 'x')", "lastindexof(datum.t, 'a')", "replace(datum.t, 'a', '[$&]')",
    "replace(datum.t, /[aeiou]/g, '_')", "replace(datum.t, /(\\w)(\\w)/, '$2$1')", "pad(datum.t, 8, '*', 'center')",
    "truncate(datum.t, 5)", "parseFloat(datum.s)", "parseInt(datum.s)", "abs(datum.a)", "floor(datum.a)",
    "ceil(datum.a)", "round(datum.a)", "sqrt(datum.b)", "exp(datum.a)", "log(datum.b)", "pow(datum.b, datum.a)",
    "tan(datum.b)", "atan2(datum.a, datum.b)", "hypot(datum.a, datum.b, 3)", "max(datum.a, datum.b)",
    "min(datum.a, datum.s)", "clamp(datum.b, 0, 5)", "[datum.a, datum.b]", "{x: datum.a}", "datum",
    "join([datum.a, null, datum.missing, datum.t], '|')", "reverse([1, datum.b, 3])", "extent([datum.b, datum.a, 3])",
    "inrange(datum.b, [0, 5])", "test(/^[a-z]/, datum.t)", "test('l+', datum.t)", "regexp('a.c', 'i')",
    "datum.t[1]", "datum.t.length", "datum['t']", "datum.z + ''", "datum.a * 1e21", "1 / 3", "0.1 + 0.2",
    "0.000001234", "123e-20", "-1e-7", "PI * datum.b", "MAX_VALUE * 2", "MIN_VALUE", "9007199254740993",
]

# Everything else the evaluator computes, at the corners.
BROAD = [
    "toDate('2020-01-15')", "toDate('2021-02-30T10:00')", "toDate('1999-12-31T23:59:59.999Z')",
    "toDate('+002020-06-01T00:00:00+05:30')", "toDate('2020-01-15t10:00')", "toDate('2020-01-15T24:00')",
    "toDate('2020-01-15T10:00:00.1234567')", "toDate('2020-01-15T10:00+0100')", "year('2020-06-01T12:00')",
    "'' + datetime('2020-02-29')", "datetime(2020, datum.b, 31, 25, 61, 61, 1001)", "datetime(datum.b, 0)",
    "datetime(-1, 0, 1)", "datetime(12345, 5, 1)", "datetime(NaN, 1)", "'' + datetime(8.64e15 + 1)",
    "datetime(-8.64e15)", "utc(datum.b, datum.b, datum.b)", "week(datetime(2021, 0, datum.b))",
    "dayofyear(datetime(2020, 11, 31))", "utcdayofyear(datetime(2021, 0, datum.b))", "quarter(NaN)",
    "quarter(datetime(2020, datum.b, 1))", "day(datum.b * 86400000)", "datetime(2020, 0, 1) + 1",
    "datetime(2020, 0, 1) - 1", "datetime(2020, 0, 1) == datetime(2020, 0, 1)",
    "replace(datum.t, /o/g, '0')", "replace(datum.t, /(\\w+) (\\w+)/, '$2 $1')", "replace(datum.t, /[A-Z]/g, '<$&>')",
    "replace(datum.s, /x*/g, '-')", "replace(datum.t, /\\d+/g, '#')", "replace(datum.t, 'a', '$`|$\\'')",
    "replace(datum.t, /^/gm, '>')", "replace('a\\nb\\r\\nc', /$/gm, '<')", "replace('a\\u2028b', /./g, '.')",
    "replace(datum.t, /abc/gi, 'X')", "replace('$1 $& $$', '$', 'D')", "replace('abc', /(b)/, '$01$10$2$0$$')",
    "split(datum.t, /\\d/)", "split('a1b22c333', /(\\d)/)", "split('1,2;3 4', /[,; ]/, 2)", "split(datum.t, ' ', 3)",
    "split(datum.s, /x*/)", "split('The fox', /\\b/)", "split('x\\ny\\r\\nz', /\\s+/)", "split('', ',')",
    "split('', '')", "split('abc', '', 2)", "test(/^\\d/, datum.s)", "test(/quick/i, datum.t)",
    "test(/\\bfox\\b/, datum.t)", "test(/[^\\x00-\\x7f]/, datum.t)", "test(/a{2,}/, datum.t)", "test(/^$/, datum.t)",
    "test(/(?=a)a/, datum.t)", "test(/(?!a)./, datum.t)", "test(/[\\d-z]/, datum.t)", "test(/\\S\\s\\S/, datum.t)",
    "test(/a{,2}/, 'a{,2}')", "test(/]/, ']')", "regexp('a/b', 'gm')", "regexp('')", "'x' + /ab+c/gi",
    "upper('ß straße')", "lower('ÉCOLE ΣΑΣ')", "trim('\\u00a0 x \\u3000')", "indexof(datum.t, 'a', 2)",
    "lastindexof(datum.t, 'a', 1)", "lastindexof(datum.t, '')", "indexof(datum.t, '')", "substring(datum.t, 5, 2)",
    "substring(datum.t, -3)", "slice(datum.t, -100, 100)", "pad(datum.s, 6)", "pad(datum.s, 7, '-', 'left')",
    "pad(datum.s, 7.5, 'ab', 'center')", "pad(datum.s, datum.b, 0)", "truncate(datum.t, 10, 'center')",
    "truncate(datum.t, 10, 'left', '..')", "truncate(datum.t, 4, 'right', '')", "truncate(datum.t, 2, 'right', 5)",
    "parseInt(datum.s, 16)", "parseInt('0x' + datum.b)", "parseInt(datum.b, 2)", "parseFloat('-.5e-3x')",
    "parseInt('  -0')", "parseInt(datum.a)", "toNumber('0b101')", "toNumber('1_000')", "toNumber(' \\n12\\t')",
    "toNumber('-0x10')", "toBoolean(datum.b)", "toString(datum.b) + ''", "'10' < '9'", "10 < '9'", "[2] == 2",
    "[1, 2] == '1,2'", "{} == '[object Object]'", "'' == 0", "'\\t' == 0", "NaN == NaN", "null == 0", "null >= 0",
    "datum.missing >= 0", "1 << 31", "datum.b << 40", "-datum.b >>> 28", "2 * datum.a / 0", "-1 / 0 * 0",
    "datum.a % 1", "-5 % 2", "5.5 % -2", "datum.b % 0", "[datum.b, [datum.a, null], 'x']",
    "indexof([1, datum.b, NaN], datum.b)", "indexof([1, 2, NaN], NaN)", "lastindexof([1, 2, 1, 2], 2, -2)",
    "slice([1, 2, 3, 4], -2)", "sort([3, datum.b, 1, NaN, datum.a, null])", "sort(['b', datum.t, 'a'])",
    "extent(datum.s)", "span([datum.b, datum.a])", "lerp([datum.b, datum.a], 0.25)",
    "inrange(datum.b, [10, 0], false, true)", "clampRange([datum.b, datum.a], 0, 10)", "sequence(0, datum.b, 2)",
    "length(sequence(1, 2, 0.1))", "peek(datum.t)", "merge({a: datum.b}, {b: datum.a}, 'xy')", "toString({a: 1})",
    "[1, 2][datum.b]", "{'a b': 1, c: [2]}['a b']", "monthFormat(datum.b)", "monthAbbrevFormat(datum.b)",
    "dayFormat(datum.b)", "dayAbbrevFormat(-1)", "dayFormat(true)", "dayFormat(null)", "dayFormat('1')", "monthFormat(datum.a)", "btoa(datum.s)", "atob(btoa(datum.s))",
    "atob(' Y W I ')", "isValid(datum.missing)", "isDefined(datum.missing)", "isObject(datum.t)", "isObject([1])",
    "isRegExp(/a/)", "isArray(split('a', ','))", "'' + [1, [2, [3, null]], {}]", "'' + true + null", "1 + true",
    "'1' - - '1'", "+[]", "+{}", "+[5]", "+' 0x1f '", "+'1e1000'", "-'-Infinity'", "+'infinity'",
    "1e21 + 1", "123456789012345680000", "1.7976931348623157e308", "5e-324", "round(-0.5)", "round(2.5)",
    "round(-2.5)", "round(0.49999999999999994)", "floor(-0.5)", "ceil(-0.5)", "sqrt(-0)", "sqrt(-1)",
    "max(-0, 0)", "min(0, -0)", "max('3', 2)", "min([1], '0')", "hypot(3, 4)", "hypot(NaN, 1/0)",
    "clamp(NaN, 0, 1)", "'\U0001f600' < '\uffff'", "length('a\U0001f600b')", "indexof('a\U0001f600b', 'b')",
    "slice('a\U0001f600b', 0, 2) + slice('a\U0001f600b', 2)", "upper('\U00010428')", "'t' in datum", "'zz' in datum", "'length' in [1]", "'x'.length", "LOG2E", "LOG10E", "SQRT1_2", "LN10",
]

# Filter predicates: which rows a Vega-Lite `filter` keeps.
PREDICATES = [
    "datum.a", "datum.s", "datum.a > 0", "datum.a == 0", "[]", "{}", "datum.missing", "datum.s && datum.a",
    "isValid(datum.a)", "toBoolean(datum.s)", "'0'", "NaN", "datum.b - 7", "datum.d < toDate('2000-01-01')",
    "test(/o/, datum.t)", "datum.n", "datum.z !== datum.z",
]


# ------------------------------------------------------------------ evaluation against Vega

def test_core_expressions_match_vega(vega):
    assert assert_same_as_vega(vega, CORE, ROWS) == len(CORE) * len(ROWS)


def test_broad_expressions_match_vega(vega):
    assert assert_same_as_vega(vega, BROAD, ROWS) == len(BROAD) * len(ROWS)


def test_filters_keep_the_rows_vega_keeps(vega):
    kept = vega.survivors(PREDICATES, ROWS)
    dates = _date_columns(ROWS)
    rows = [dict({c: None for c in dates}, **row) for row in ROWS]
    for i, text in enumerate(PREDICATES):
        run = ex.evaluator(ex.parse(text))
        assert {k for k, row in enumerate(rows) if ex.truthy(run(row))} == kept[i], text


def test_js_string_writes_numbers_as_vega_does(vega):
    numbers = [0.1 + 0.2, 1e21, 1e-7, -0.0, 123.0, 5e-324, 1.7976931348623157e308, 100.0, 1e20, 0.000001,
               1.5e-7, -1e-7, 2.0 ** 53 + 2, 123456789.123, -1.5, 1 / 3, 2.0 ** 70, 1e-6 * 3, 4.35, 0.1 * 3]
    rows = [{"x": x} for x in numbers]
    theirs = vega.values(["'' + datum.x"], rows)
    for k, x in enumerate(numbers):
        assert theirs[0, k] == "s:" + ex.js_string(x), x


@pytest.mark.slow
def test_math_functions_match_vega_bit_for_bit(vega):
    """V8's fdlibm functions, ported: exp, log, pow, tan, atan, atan2, asin, acos (and hypot) are exact."""
    import random

    generator = random.Random(7)
    xs = ([generator.uniform(-10, 10) for _ in range(250)] + [generator.uniform(-1, 1) for _ in range(250)]
          + [10 ** generator.uniform(-300, 300) * generator.choice([-1, 1]) for _ in range(250)]
          + [generator.uniform(-1e6, 1e6) for _ in range(150)] + [generator.uniform(700, 720) for _ in range(40)]
          + [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 0.5, -0.5, 2.0, math.pi, 1e308, 5e-324, 2.0 ** 31, 1e22])
    ys = [generator.uniform(-5, 5), generator.uniform(-400, 400), 2.5, -1.0, INF, NAN, 0.0, -0.0, 1e10, -1e-10]
    rows = [{"x": x, "y": generator.choice(ys)} for x in xs]
    exact = ["exp(datum.x)", "log(datum.x)", "tan(datum.x)", "atan(datum.x)", "asin(datum.x)", "acos(datum.x)",
             "sqrt(datum.x)", "atan2(datum.x, datum.y)", "pow(datum.x, datum.y)", "pow(abs(datum.x), datum.y)",
             "hypot(datum.x, datum.y)", "round(datum.x)", "datum.x % datum.y", "pow(10, datum.y)",
             "pow(datum.y, 2.5)", "datum.x + ''"]
    assert assert_same_as_vega(vega, exact, rows) == len(exact) * len(rows)
    # sin and cos run glibc's code in V8: within one unit in the last place, and equal nearly always
    theirs = vega.values(["sin(datum.x)", "cos(datum.x)"], rows)
    mine = python_values(["sin(datum.x)", "cos(datum.x)"], rows)
    unequal = 0
    for key, text in theirs.items():
        ours, vegas = float(mine[key][2:]), float(text[2:])
        if not (ours == vegas or (ours != ours and vegas != vegas)):
            unequal += 1
            assert abs(ours - vegas) <= math.ulp(vegas), (key, ours, vegas)
    assert unequal <= len(theirs) // 200
    assert {"sin", "cos"} == set(ex.INEXACT_FUNCTIONS)


def test_an_expression_that_throws_is_an_error_here_and_an_empty_chart_in_vega(vega):
    for text in ("datum.missing.x", "length(datum.n)", "indexof(5, 1)", "replace('a', 1, 'b')", "'a' in 5",
                 "datum.a instanceof datum.b", "sequence(1e21)"):
        with pytest.raises(ex.EvaluationError):
            ex.evaluate(ex.parse(text), {"n": None, "a": 1.0})
        assert vega.values([text], [{"n": None, "a": 1.0}]) == {}, text  # Vega logs it and draws nothing


NUMBERS = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.125, 1234.5678, -1234.5678, 1e21, 1.2345678901234567e25,
           1e-7, 123456789.987, 0.000123456, 999.9999, 9.995, 0.0049999, 1e300, 5e-324, NAN, INF, -INF, 42.0,
           1e6, 0.1 + 0.2, 7e-10, 3.14159, 255.0, 1e15 + 0.3, 2.0 ** 60]
NUMBER_FORMATS = ["", ",", ".2f", ",.2f", ".0f", ".3e", ".2%", ".3s", ".4r", ".3g", "d", ",d", "+.1f", "(.2f",
                  "$,.2f", "08.2f", "^12,.1f", "#x", ".1p", ".3~s", ".6~g", "=+10.2f", "c", ".0e"]
MORE_NUMBER_FORMATS = ["e", "%", "s", "r", "g", " .2f", "010d", "*<10d", "x", "X", "o", "#b", "~s", ".20f", ".21g",
                       "n", ",.3~r", ".0%", "+,", "-d", ",.0f"]
DATES = [datetime.datetime(2020, 1, 5, 13, 4, 5), datetime.datetime(2021, 1, 1), datetime.datetime(2021, 12, 31, 23, 59, 59),
         datetime.datetime(1969, 12, 31, 0, 0, 1), datetime.datetime(2000, 2, 29, 12), datetime.datetime(2015, 1, 1),
         datetime.datetime(2016, 1, 3), datetime.datetime(2018, 12, 31), datetime.datetime(2009, 12, 31),
         datetime.datetime(2010, 1, 3), datetime.datetime(1, 3, 4), datetime.datetime(105, 7, 8)]
TIME_FORMATS = ["%Y-%m-%d", "%a %A %b %B", "%c", "%x", "%X", "%d %e %-d %_d %0e", "%H %I %p %M %S %L %f",
                "%j %U %W %V %u %w", "%g %G %y %Y", "%q %Q %s %Z %%", "%-m/%-d/%y %-I:%M %p", "%", "%k %1 end%"]


def number_formats(specifiers: list[str]) -> list[str]:
    return [f"format(datum.x, '{specifier}')" for specifier in specifiers]


def test_number_format_matches_vega(vega):
    rows = [{"x": x} for x in NUMBERS]
    # ".3s" and ".3~s" of NaN and the infinities take the stale SI suffix of the last call (6);
    # "#x" of 1e21, 1.23e25, 1e300 and 2**60 writes integers past 2**53 in base 16 (4)
    assert assert_same_as_vega(vega, number_formats(NUMBER_FORMATS), rows, unsupported=10) > 700


@pytest.mark.slow
def test_more_number_formats_match_vega(vega):
    import random

    generator = random.Random(3)
    rows = [{"x": x} for x in NUMBERS + [generator.uniform(-1e6, 1e6) for _ in range(20)]
            + [10 ** generator.uniform(-12, 22) for _ in range(20)]]
    unsupported = sum(1 for row in rows for specifier in MORE_NUMBER_FORMATS
                      if (specifier in ("s", "~s") and not math.isfinite(row["x"]))
                      or (specifier in ("x", "X", "o", "#b") and math.isfinite(row["x"]) and abs(row["x"]) >= 2 ** 53))
    assert assert_same_as_vega(vega, number_formats(MORE_NUMBER_FORMATS), rows, unsupported) > 1400


def test_time_format_matches_vega(vega):
    rows = [{"d": d} for d in DATES]
    expressions = ([f"timeFormat(datum.d, '{specifier}')" for specifier in TIME_FORMATS]
                   + [f"utcFormat(datum.d, '{specifier}')" for specifier in TIME_FORMATS[:4]]
                   + ["timeFormat(0, '%Y')", "timeFormat(true, '%L')", "format(null, 'd')", "timeFormat(null, '%Y')",
                      "format('12', '.1f')", "format(true, 'd')", "format([5], 'd')"])
    assert_same_as_vega(vega, expressions, rows)


# ------------------------------------------------------------------ Hypothesis: random trees against Vega

LEAVES = ["datum.a", "datum.b", "datum.s", "datum.t", "datum.n", "datum.z", "datum.missing", "0", "1", "-1", "2.5",
          "0.1", "3", "1e21", "NaN", "PI", "'7'", "''", "'x'", "' 3 '", "'0x10'", "true", "false", "null"]
BINARY = ["+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "===", "!==", "&&", "||", "&", "|", "^",
          "<<", ">>", ">>>"]
FUNCTIONS = {"abs": 1, "floor": 1, "ceil": 1, "round": 1, "sqrt": 1, "exp": 1, "log": 1, "isValid": 1,
             "isNaN": 1, "toNumber": 1, "toString": 1, "toBoolean": 1, "upper": 1, "trim": 1, "isNumber": 1,
             "length": 1, "toDate": 1, "year": 1, "pow": 2, "atan2": 2, "max": 2, "min": 2, "indexof": 2,
             "substring": 3, "clamp": 3, "if": 3}
HYPOTHESIS_ROWS = [
    {"a": 1.5, "b": -2, "s": "10", "t": "abc", "n": None, "z": 0.0},
    {"a": -0.0, "b": 7, "s": " 1e3 ", "t": "", "n": 0.0, "z": NAN},
    {"a": INF, "b": 0, "s": "x", "t": "Hello World", "z": -1e-7},
    {"a": 123456789.5, "b": 255, "s": "", "t": "0", "n": "null", "z": 1e300},
]


def expressions():
    def combine(children):
        unary = st.tuples(st.sampled_from(["-", "+", "!", "~"]), children).map(lambda p: f"{p[0]}({p[1]})")
        binary = st.tuples(children, st.sampled_from(BINARY), children).map(lambda p: f"({p[0]} {p[1]} {p[2]})")
        ternary = st.tuples(children, children, children).map(lambda p: f"({p[0]} ? {p[1]} : {p[2]})")
        call = st.sampled_from(sorted(FUNCTIONS)).flatmap(
            lambda name: st.lists(children, min_size=FUNCTIONS[name], max_size=FUNCTIONS[name]).map(
                lambda args: f"{name}({', '.join(args)})"))
        return st.one_of(unary, binary, ternary, call)
    return st.recursive(st.sampled_from(LEAVES), combine, max_leaves=8)


COUNTS = {"compared": 0, "excluded": 0, "refused": 0}


@pytest.mark.slow
@settings(max_examples=20, deadline=None, derandomize=True, database=None)
@given(batch=st.lists(expressions(), min_size=40, max_size=40, unique=True))
def test_random_expressions_match_vega(vega, batch):
    """Generated trees of arithmetic, comparisons, logic, ternaries and functions give Vega's values.

    A tree the parser refuses must be one Vega refuses too (`length(3)` is:
    Vega compiles it to `3.length`). A tree that chartc does not evaluate
    (Unsupported) or that throws (it would blank Vega's whole batch) is left
    out and counted.
    """
    parsed = []
    for text in batch:
        try:
            ex.parse(text)
        except ex.ExpressionError:
            COUNTS["refused"] += 1
            assert not vega.accepts(text), text
        else:
            parsed.append(text)
    mine = python_values(parsed, HYPOTHESIS_ROWS)
    kept = [text for i, text in enumerate(parsed)
            if not any(isinstance(mine[i, k], Exception) for k in range(len(HYPOTHESIS_ROWS)))]
    COUNTS["excluded"] += len(parsed) - len(kept)
    COUNTS["compared"] += assert_same_as_vega(vega, kept, HYPOTHESIS_ROWS) if kept else 0
    hypothesis.note(f"compared {COUNTS['compared']}, excluded {COUNTS['excluded']}, refused {COUNTS['refused']}")
    assert COUNTS["excluded"] <= COUNTS["compared"]  # most generated trees are evaluated, not skipped


CALL_LEAVES = LEAVES + ["datum.d", "datum.l", "datum.o", "datum", "-0", "1/0", "'2020-01-05'", "'%Y %j'", "',.3s'",
                        "[]", "[1, 'a', null]", "[3, 1, 2]", "{}", "{a: 1, length: 3}", "/a(b)?/g", "/x*/", "'a.b*c'",
                        "datetime(2020, 1, 2)", "'$1-$&'", "'left'", "'center'", "12", "0.5"]
CALL_ROWS = [dict(row, l=[1, 2, None], o={"a": 1, "length": 2}) for row in ROWS if "😀" not in str(row.get("t"))]
# results that vl-convert cannot draw: control characters abort it, lone surrogates come back mangled
UNDRAWABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def calls():
    names = sorted(name for name, signature in ex.VEGA_FUNCTIONS.items()
                   if not signature.unsupported and name not in ("btoa", "atob", "sequence"))

    def combine(children):
        def call(name):
            signature = ex.VEGA_FUNCTIONS[name]
            high = signature.low + 2 if signature.high is None else signature.high
            return st.integers(signature.low, high).flatmap(
                lambda n: st.lists(children, min_size=n, max_size=n)).map(lambda args: f"{name}({', '.join(args)})")
        binary = st.tuples(children, st.sampled_from(["+", "-", "<", "==", "%", "&&"]), children).map(
            lambda p: f"({p[0]} {p[1]} {p[2]})")
        return st.one_of(st.sampled_from(names).flatmap(call), binary)
    return st.recursive(st.sampled_from(CALL_LEAVES), combine, max_leaves=4)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(batch=st.lists(calls(), min_size=60, max_size=60, unique=True))
def test_random_function_calls_match_vega(vega, batch):
    """Every function chartc computes, called on arguments of every kind, gives Vega's value."""
    kept = []
    for text in batch:
        try:
            ex.parse(text)
        except ex.ExpressionError:
            continue
        mine = python_values([text], CALL_ROWS)
        if not any(isinstance(v, Exception) or UNDRAWABLE.search(v) or len(v) > 2000 for v in mine.values()):
            kept.append(text)
    if kept:
        assert_same_as_vega(vega, kept, CALL_ROWS)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(text=st.one_of(calls(), expressions(), st.text(alphabet="datum.ab01+-*/%<>=!&|^~?:,()[]{}'\"\\/eE$_ ",
                                                         max_size=25)))
def test_parse_and_evaluate_raise_only_their_own_errors(text):
    try:
        tree = ex.parse(text)
    except ex.ExpressionError as error:
        assert 0 <= error.offset <= len(text)
        return
    run = ex.evaluator(tree)
    for row in CALL_ROWS:
        try:
            ex.to_js_string(ex.to_primitive(run(row)))
        except (ex.Unsupported, ex.EvaluationError):
            pass


# ------------------------------------------------------------------ the grammar against Vega's

VEGA_REFUSES = [
    "1 +", "(1", "1)", "[1, 2", "[1,,2]", "[,1]", "{a: 1, a: 2}", "{1: 1, '1': 2}", "{toString: 1}",
    "{__proto__: 1}", "a", "datum.a = 1", "datum.a++", "++datum.a", "typeof datum.a", "void 0", "delete datum.a",
    "new Date()", "1, 2", "(1, 2)", "datum[1, 2]", "clamp(1, 2)", "if(1, 2)", "foo(1)", "datum.f(1)", "log.x(1)",
    "010", "08", "0x", "0x1g", "1e", "1e+", "3in", "0b101", "1_000", "'abc", "'a\\x4'", "'a\\u12'", "'\\x{41}'",
    "'\\01'", '"a\nb"', "/a(/", "/a)/", "/*a/", "/a{2,1}/", "/[z-a]/", "/a/gg", "/a/x", "/a/s", "/[/", "//",
    "// note", "`a`", "a ? b", "1 ? 2 : 3 : 4", "datum.a ?? 1", "datum?.a", "1 ** 2", "!", "datum.", "datum.1",
    "datum[]", "length(1)", "length((10))", "parent", "_", "$", "Infinity", "undefined", "this", "PI()", "if", "1;", "1 2", "", " ", "é",
]
VEGA_TAKES = [
    "[1,]", "{a: 1,}", "{'toString': 1}", "{if: 1}", "{true: 1}", "{3.5: 1}", "(log)(1)", "1.5e3", ".5", "5.",
    "1..toString", "'a\\u{1F600}'", "'\\8'", "'a\\\nb'", "'\\q'", "/abc/", "/a/u", "/a/y", "/\\1(a)/",
    "/(?<=a)b/", "/(?<n>a)/", "/(?i:a)/", "1 === 1 === true", "datum .a", "datum\n.a", "datum['a']['b']",
    "datum.if", "datum.true.false", "datum.constructor", "'x'.length", "datum.$x", "NaN", "null", "true",
    "datum instanceof datum", "'a' in datum", "\\u0064atum.a", "if(1,2,3)", "if (1, 2, 3)", "''", "datum.été",
    "1 < 2 > 3", "length(1.5)", "length(1e3)", "length(0x10)", "length(-1)",
]
# Vega takes these, chartc refuses them on purpose (see the module docstring).
CHARTC_STRICTER = ["log(1, 2)", "log()", "event", "item", "width"]


@pytest.mark.parametrize("text", VEGA_REFUSES)
def test_what_vega_refuses_is_an_expression_error(vega, text):
    assert not vega.accepts(text)
    with pytest.raises(ex.ExpressionError):
        ex.parse(text)


@pytest.mark.parametrize("text", VEGA_TAKES)
def test_what_vega_takes_parses(vega, text):
    assert vega.accepts(text)
    ex.parse(text)


@pytest.mark.parametrize("text", CHARTC_STRICTER)
def test_chartc_is_stricter_than_vega_here(vega, text):
    assert vega.accepts(text)
    with pytest.raises(ex.ExpressionError):
        ex.parse(text)


# ------------------------------------------------------------------ parse: positions and messages

END = "the end of the expression"

SYNTAX_ERRORS = [
    ("", ex.expression_nothing(), 0, None),
    ("1 +", ex.expression_expected("an expression", END), 3, None),
    ("log(datum.x", ex.expression_unclosed(")", "the call of 'log'", 3, END), 11, None),
    ("log(datum.x 2)", ex.expression_unclosed(")", "the call of 'log'", 3, "the number 2"), 12, None),
    ("(1 + 2", ex.expression_unclosed(")", "the parenthesis", 0, END), 6, None),
    ("[1, 2", ex.expression_unclosed("]", "the array", 0, END), 5, None),
    ("{a: 1", ex.expression_unclosed("}", "the object", 0, END), 5, None),
    ("datum['a'", ex.expression_unclosed("]", "the '['", 5, END), 9, None),
    ("datum.a ? 1", ex.expression_unclosed(":", "the conditional '?'", 8, END), 11, None),
    ("1)", ex.expression_trailing("')'"), 1, None),
    ("datum.a datum.b", ex.expression_trailing("the name 'datum'"), 8, None),
    ("datum.a = 1", ex.expression_not_allowed("assignment ('=')"), 8, ex.expression_assignment_hint("=")),
    ("datum.a += 1", ex.expression_not_allowed("assignment ('+=')"), 8, None),
    ("datum.a++", ex.expression_not_allowed("'++'"), 7, None),
    ("typeof datum.a", ex.expression_not_allowed("the keyword 'typeof'"), 0, None),
    ("new Date()", ex.expression_not_allowed("the keyword 'new'"), 0, None),
    ("datum.a, datum.b", ex.expression_not_allowed("the comma operator"), 7, None),
    ("x => 1", ex.expression_not_allowed("a function ('=>')"), 2, None),
    ("[1,,2]", ex.expression_array_hole(), 3, None),
    ("010", ex.expression_octal(), 0, None),
    ("'\\101'", ex.expression_octal(), 1, None),
    ("3px", ex.expression_bad_number("3px"), 0, None),
    ("1e+", ex.expression_bad_number("1e+"), 0, None),
    ("datum.a + 'abc", ex.expression_unterminated_string("'"), 10, None),
    ("'a\\x4'", ex.expression_bad_escape("\\x4"), 2, None),
    ("'\\u{110000}'", ex.expression_bad_escape("\\u{110000}"), 1, None),
    ("datum.a # 2", ex.expression_bad_character("#"), 8, None),
    ("1 // note", ex.expression_not_allowed("a comment"), 2, None),
    ("test(/a(b/, datum.s)", ex.expression_bad_regex("unterminated group"), 7, None),
    ("test(/[z-a]/, datum.s)", ex.expression_bad_regex("range out of order in character class"), 7, None),
    ("test(/a**/, datum.s)", ex.expression_bad_regex("nothing to repeat"), 8, None),
    ("test(/a{3,2}/, datum.s)", ex.expression_bad_regex("numbers out of order in {} quantifier"), 7, None),
    ("test(/a/x, datum.s)", ex.expression_bad_regex_flags("x"), 8, None),
    ("test(/a, datum.s)", ex.expression_bad_regex("no closing '/'"), 5, None),
    ("datum.", ex.expression_expected("a property name after '.'", END), 6, None),
    ("datum.a.2", ex.expression_trailing("the number .2"), 7, None),
    ("foo(1)", ex.expression_unknown_function("foo"), 0, "did you mean 'floor'?"),
    ("1 + indexOf(datum.s, 'a')", ex.expression_unknown_function("indexOf"), 4, "did you mean 'indexof'?"),
    ("log(datum.x, 10)", ex.expression_arity("log", 1, 1, 2), 0, None),
    ("pad(datum.s)", ex.expression_arity("pad", 2, 4, 1), 0, None),
    ("if(datum.a, 1)", ex.expression_arity("if", 3, 3, 2), 0, None),
    ("max()", ex.expression_arity("max", 1, None, 0), 0, None),
    ("datum.f(1)", ex.expression_not_a_function_name(), 0, None),
    ("length(12)", ex.expression_length_of_integer("12"), 7, None),
    ("2 * pi", ex.expression_unknown_name("pi"), 4, "did you mean 'PI'?"),
    ("Datum.a", ex.expression_unknown_name("Datum"), 0, "did you mean 'datum'?"),
    ("event.x > 1", ex.expression_event_name("event"), 0, None),
    ("_ + 1", ex.expression_reserved_name("_"), 0, None),
    ("{toString: 1}", ex.expression_illegal_key("toString"), 1, None),
    ("{'__proto__': {}}", ex.expression_illegal_key("__proto__"), 1, None),
    ("{a: 1, 'a': 2}", ex.expression_duplicate_key("a"), 7, None),
    ("(" * 150 + "1" + ")" * 150, ex.expression_too_deep(ex.MAX_NESTING), 60, None),
    ("!" * 80 + "1", ex.expression_too_deep(ex.MAX_NESTING), 60, None),
]


@pytest.mark.parametrize("text, message, offset, hint", SYNTAX_ERRORS, ids=[repr(c[0])[:40] for c in SYNTAX_ERRORS])
def test_errors_say_what_and_where(text, message, offset, hint):
    with pytest.raises(ex.ExpressionError) as caught:
        ex.parse(text)
    assert (caught.value.message, caught.value.offset, caught.value.hint) == (message, offset, hint)


def test_a_long_chain_of_operators_is_not_deep_nesting():
    tree = ex.parse(" + ".join(["datum.a"] * 199))  # 198 operators over a field (itself two levels)
    assert ex.evaluate(tree, {"a": 1}) == 199.0
    with pytest.raises(ex.ExpressionError) as caught:
        ex.parse(" + ".join(["datum.a"] * 202))
    assert (caught.value.message, caught.value.offset) == (ex.expression_too_deep(ex.MAX_DEPTH), 0)


def lit(value, start, end):
    return ex.Literal(value, start=start, end=end)


def test_nodes_carry_their_positions():
    assert ex.parse("datum.a + 1") == ex.Binary("+", ex.Field("a", start=0, end=7), lit(1.0, 10, 11), start=0, end=11)
    assert ex.parse("datum['a b'] * 2") == ex.Binary(
        "*", ex.Field("a b", start=0, end=12), lit(2.0, 15, 16), start=0, end=16)
    assert ex.parse('datum["x.y"]') == ex.Field("x.y", start=0, end=12)
    assert ex.parse("datum[0]") == ex.Field("0", start=0, end=8)
    assert ex.parse("datum[datum.k]") == ex.Member(
        ex.Datum(start=0, end=5), ex.Field("k", start=6, end=13), True, start=0, end=14)
    assert ex.parse("datum.a.b") == ex.Member(ex.Field("a", start=0, end=7), lit("b", 8, 9), False, start=0, end=9)
    assert ex.parse("if(datum.a, 'y', 'n')") == ex.Conditional(
        ex.Field("a", start=3, end=10), lit("y", 12, 15), lit("n", 17, 20), start=0, end=21)
    assert ex.parse("-PI") == ex.Unary("-", ex.Constant("PI", start=1, end=3), start=0, end=3)
    assert ex.parse("log(2)") == ex.Call("log", (lit(2.0, 4, 5),), start=0, end=6)
    assert ex.parse("[1, 'a']") == ex.ArrayLiteral((lit(1.0, 1, 2), lit("a", 4, 7)), start=0, end=8)
    assert ex.parse("{a: 1, 'b c': 2, 3: null}") == ex.ObjectLiteral(
        (("a", lit(1.0, 4, 5)), ("b c", lit(2.0, 14, 15)), ("3", lit(None, 20, 24))), start=0, end=25)
    assert ex.parse("/a+b/gi") == ex.Regex("a+b", "gi", start=0, end=7)
    assert ex.parse("datum.a || datum.b") == ex.Logical(
        "||", ex.Field("a", start=0, end=7), ex.Field("b", start=11, end=18), start=0, end=18)


@pytest.mark.parametrize("text, value", [
    ("0x1F", 31.0), (".5", 0.5), ("5.", 5.0), ("1e3", 1000.0), ("1E-2", 0.01), ("0", 0.0),
    ("'it\\'s'", "it's"), ('"a\\tb"', "a\tb"), ("'\\u0041\\x42\\u{43}'", "ABC"), ("'\\ud83d\\ude00'", "😀"),
    ("'a\\\nb'", "ab"), ("'\\q'", "q"), ("true", True), ("false", False), ("null", None),
])
def test_literals(text, value):
    node = ex.parse(text)
    assert type(node) is ex.Literal and node.value == value and type(node.value) is type(value)


@pytest.mark.parametrize("text, shape", [
    ("1 + 2 * 3", ("+", 1.0, ("*", 2.0, 3.0))),
    ("1 - 2 - 3", ("-", ("-", 1.0, 2.0), 3.0)),
    ("1 < 2 == 3 > 4", ("==", ("<", 1.0, 2.0), (">", 3.0, 4.0))),
    ("1 | 2 ^ 3 & 4", ("|", 1.0, ("^", 2.0, ("&", 3.0, 4.0)))),
    ("1 || 2 && 3", ("||", 1.0, ("&&", 2.0, 3.0))),
    ("1 << 2 + 3", ("<<", 1.0, ("+", 2.0, 3.0))),
    ("-1 * 2", ("*", ("-", 1.0), 2.0)),
    ("1 ? 2 : 3 ? 4 : 5", ("?", 1.0, 2.0, ("?", 3.0, 4.0, 5.0))),
])
def test_precedence(text, shape):
    def form(node):
        if type(node) is ex.Literal:
            return node.value
        if type(node) is ex.Unary:
            return (node.operator, form(node.argument))
        if type(node) in (ex.Binary, ex.Logical):
            return (node.operator, form(node.left), form(node.right))
        return ("?", form(node.test), form(node.consequent), form(node.alternate))
    assert form(ex.parse(text)) == shape


@pytest.mark.parametrize("text, fields", [
    ("datum.a + datum['b c'] * datum[\"x.y\"]", {"a", "b c", "x.y"}),
    ("datum.a.b + length(datum.t)", {"a", "t"}),
    ("PI * 2", set()),
    ("datum[datum.key]", None),
    ("merge(datum, {})", None),
])
def test_fields_read(text, fields):
    found = ex.fields_read(ex.parse(text))
    assert found == (None if fields is None else frozenset(fields))


def test_every_known_function_has_a_signature_and_unknown_ones_are_refused():
    assert {"log", "indexof", "if", "format", "scale", "vlSelectionTest", "_scale"} <= set(ex.VEGA_FUNCTIONS)
    for name, signature in ex.VEGA_FUNCTIONS.items():
        arguments = ", ".join(["datum.x"] * signature.low)
        ex.parse(f"{name}({arguments})")  # the fewest arguments it takes parse
    assert "indexOf" not in ex.VEGA_FUNCTIONS and "typeof" not in ex.VEGA_FUNCTIONS


# ------------------------------------------------------------------ evaluate: the API

def test_missing_is_undefined_and_none_is_null():
    assert ex.evaluate(ex.parse("datum.x"), {}) is ex.UNDEFINED
    assert ex.evaluate(ex.parse("datum.x"), {"x": None}) is None
    assert math.isnan(ex.evaluate(ex.parse("datum.x + 1"), {}))
    assert ex.evaluate(ex.parse("datum.x + 1"), {"x": None}) == 1.0


def test_a_date_cell_is_epoch_milliseconds_as_vega_lite_parses_it():
    row = {"d": datetime.datetime(2020, 1, 15, 10, 30, 0, 250000)}
    assert ex.evaluate(ex.parse("datum.d"), row) == 1579084200250.0
    assert ex.evaluate(ex.parse("isDate(datum.d)"), row) is False
    assert ex.evaluate(ex.parse("year(datum.d) + hours(datum.d)"), row) == 2030.0
    aware = {"d": datetime.datetime(2020, 1, 15, 12, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))}
    assert ex.evaluate(ex.parse("utchours(datum.d)"), aware) == 10.0


def test_objects_compare_by_identity():
    assert ex.evaluate(ex.parse("[1] === [1]"), {}) is False
    assert ex.evaluate(ex.parse("datum.l === datum.l"), {"l": [1, 2]}) is True
    assert ex.evaluate(ex.parse("datum === datum"), {"l": [1, 2]}) is True


def test_strings_are_utf16_code_units():
    row = {"t": "a😀b"}
    assert ex.evaluate(ex.parse("length(datum.t)"), row) == 4.0
    assert ex.evaluate(ex.parse("slice(datum.t, 0, 2)"), row) == "a\ud83d"
    assert ex.evaluate(ex.parse("slice(datum.t, 0, 2) + slice(datum.t, 2)"), row) == "a😀b"
    assert ex.evaluate(ex.parse("'😀' < '\uffff'"), {}) is True  # code units, not code points


@pytest.mark.parametrize("text, name", [
    ("now()", "now"), ("random()", "random"), ("scale('x', datum.a)", "scale"), ("format(NaN, 's')", "format"),
    ("timeFormat(datum.a, {year: '%Y'})", "timeFormat"), ("timeFormat('2020-01-01', '%Y')", "timeFormat"),
    ("sin(datum.a) + sampleNormal()", "sampleNormal"), ("rgb('red')", "rgb"), ("toDate('Jan 5, 2020')", "Date.parse"),
    ("datum.toString", "toString"), ("'abc'.toUpperCase", "toUpperCase"), ("sort([1, 'a'])", "sort"),
])
def test_what_is_not_computed_here_is_unsupported(text, name):
    with pytest.raises(ex.Unsupported) as caught:
        ex.evaluate(ex.parse(text), {"a": 1.0})
    assert caught.value.name == name


@pytest.mark.parametrize("text, why", [
    ("replace(datum.s, /(a)\\1/, 'x')", "a backreference or octal escape"),
    ("test(/(?<=a)b/, datum.s)", "lookbehind"),
    ("test(/é/i, datum.s)", "a case-insensitive non-ASCII letter"),
    ("test(/(a)+/, datum.s)", "a quantified group that captures or can match nothing"),
    ("test(/a/u, datum.s)", "the u flag"),
])
def test_regular_expressions_outside_the_exact_subset_are_unsupported(text, why):
    with pytest.raises(ex.Unsupported) as caught:
        ex.evaluate(ex.parse(text), {"s": "aab"})
    assert caught.value.reason == why


def test_an_error_points_at_the_node_that_threw():
    text = "1 + datum.a.b"
    with pytest.raises(ex.EvaluationError) as caught:
        ex.evaluate(ex.parse(text), {"a": None})
    error = caught.value
    assert (error.start, error.end) == (4, 13)
    assert error.message == "TypeError: Cannot read properties of null (reading 'b')"


def test_an_evaluator_is_compiled_once_for_many_rows():
    run = ex.evaluator(ex.parse("datum.x * 2 + 1"))
    assert [run({"x": x}) for x in (0, 1.5, "2")] == [1.0, 4.0, 5.0]


@pytest.mark.parametrize("number, text", [
    (0.1 + 0.2, "0.30000000000000004"), (1e21, "1e+21"), (1e-7, "1e-7"), (-0.0, "0"), (123.0, "123"),
    (1e20, "100000000000000000000"), (0.000001, "0.000001"), (NAN, "NaN"), (-INF, "-Infinity"),
    (5e-324, "5e-324"), (1.5e300, "1.5e+300"), (-1.25, "-1.25"),
])
def test_js_string(number, text):
    assert ex.js_string(number) == text


def test_the_package_imports_only_the_standard_library_its_modules_and_errors():
    import ast
    import pathlib
    import sys

    outside = set()
    for path in pathlib.Path(ex.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                outside.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level != 1:
                outside.add("." * node.level + (node.module or "").split(".")[0])
    # `...`: chartc.errors (as msg); `...errors`: the messages, declared with the parse stage's (problems.py)
    assert outside - set(sys.stdlib_module_names) == {"...", "...errors"}
    assert ex.msg.__name__ == "chartc.errors"
