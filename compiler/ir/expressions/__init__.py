"""Vega expressions as a typed AST: parse once, evaluate the way Vega does.

chartc specs carry Vega expressions (`transform: [{calculate: ...}]`,
`transform: [{filter: ...}]`). This package owns the whole language:

- `parse(text)` reads the expression with the grammar of vega-expression's
  parser (an Esprima subset) and the checks of its code generator, and returns
  frozen nodes that know their offsets in `text`. A syntax error, an unknown
  function ("Unrecognized function" in Vega) or a name Vega would not resolve
  in a data transform is an `ExpressionError` with the offset of the problem.
- `fields_read(expr)` names the fields a tree reads (`datum.a`, `datum['a b']`),
  or None when a computed `datum[expr]` may read any.
- `evaluate(expr, row)` (or `evaluator(expr)` for many rows) computes the value
  with JavaScript's semantics, as Vega's generated code does: `+` concatenates
  when either side is text, comparisons coerce, `==` is loose, `NaN` and
  infinities flow through arithmetic, `null` (None) is not `undefined`
  (`UNDEFINED`, a missing field), numbers are doubles (results are floats),
  strings are counted in UTF-16 code units. `truthy(value)` is what a
  `filter` keeps.
- `js_string(number)` is ECMAScript's Number::toString; `to_js_string(value)`
  is `String(value)`.

The language, as Vega 6.2 runs it in a data transform (vl-convert 1.9: V8
12.9, Vega-Lite 6.4, d3-format 3.1.0, d3-time-format 4.1):

- literals: numbers (decimal, exponent, leading dot, hex), strings in either
  quote with JavaScript escapes, `true false null`, regular expressions
  (`/x/gimuy`), arrays `[a, b]`, objects `{k: v}`;
- names: `datum` and the constants `NaN PI E LN2 LN10 LOG2E LOG10E SQRT1_2
  SQRT2 MIN_VALUE MAX_VALUE` (`Infinity` and `undefined` are not among them);
- member access `a.b`, `a['b']`, `a[expr]`; calls of Vega's functions by name;
- operators: unary `! - + ~`; `* / % + -`, `<< >> >>>`, `< > <= >= in
  instanceof`, `== != === !==`, `& ^ |`, `&& ||`, `?:`, with JavaScript's
  precedence. Refused as Vega refuses them: assignment, `++`/`--`, `typeof`,
  `void`, `delete`, `new`, the comma operator, comments, template strings,
  `**`, `??`, `?.`, octal literals, array holes `[1,,2]`, duplicate object
  keys, and `length(3)` (Vega compiles it to `3.length`, which JavaScript
  cannot read).

chartc refuses three things Vega takes, each a mistake in a chart spec: any
other name (a signal lookup in Vega; chartc declares no signals for data
transforms, so `width` would depend on the layout and a typo is "Unrecognized
signal name" only at render time), `event` and `item` (in a data transform
they are a ReferenceError, and Vega then draws nothing), and a call with more
or fewer arguments than the function documents (JavaScript ignores the extra
ones: `log(x, 10)` is a natural logarithm).

What `evaluate` does not compute raises `Unsupported(name)`, and callers treat
the rows as unknowable rather than guess:

- functions that need the view (scales, data sets, selections, events,
  geography, logging), that are not deterministic (`now`, `random`,
  `sample*`), or whose JavaScript behaviour is not reproduced here (colours,
  distributions, `timeParse`, `timeOffset`, `pluck`, `sort` of mixed types;
  the table `VEGA_FUNCTIONS` says which and why);
- regular expressions outside the subset translated exactly to Python's `re`
  (backreferences, lookbehind, named groups, the u and y flags, quantified
  capturing groups, case-insensitive non-ASCII letters; see `regex`);
- text read as a date that is not in ECMAScript's ISO format (V8 then falls
  back to its own legacy parser);
- reading JavaScript's built-in methods as values (`datum.toString`);
- `format(NaN or an infinity, "s")` (d3-format 3.1.0 writes the SI suffix of
  whatever it formatted before) and integers past 2**53 in base 2, 8 or 16.

When JavaScript would throw (`null.x`, `length(null)`), `evaluate` raises
`EvaluationError` at the node: Vega logs the error and draws nothing from that
data, with no exception from vl-convert.

Dates. Vega-Lite parses a temporal field with `toDate`, which returns a
*number*: epoch milliseconds, not a Date object (measured: `isDate(datum.d)`
is false, `'' + datum.d` is "1579082400000"). So a `datetime` in `row` is that
number here (a naive one's wall clock read as UTC: chartc renders with
TZ=UTC, where local time is UTC, so `year` and `utcyear` agree and
`timezoneoffset` is 0), and the date functions read it as JavaScript does.
Text in `row` stays text, as it does in Vega when nothing asks Vega-Lite to
parse the field: the caller must pass what Vega will see. `datetime(...)`
builds a real Date (`JSDate`), which prints as `Date.prototype.toString` does.

Numbers. `+ - * / %`, `sqrt`, `floor`, `round`, `min`, `hypot`, ... are exact
IEEE operations, as in V8. V8 computes `exp log pow tan atan atan2 asin acos`
with its port of fdlibm, so Python's `math` (the system libm) differs from
them in the last bit for a few percent of inputs; those functions are ported
in `v8math`, operation for operation, and match Vega bit for bit. `sin` and
`cos` are the exception (`INEXACT_FUNCTIONS`): within one unit in the last
place.

The modules, each importing only those listed before it (and the standard
library; `parser` also reads `chartc.errors` for its hints):

- `problems`: the exceptions and the `expression_*` messages;
- `nodes`: the typed tree, `children`, `walk`, `fields_read`;
- `signatures`: `VEGA_FUNCTIONS` (arities, and why a function is not
  computed) and `CONSTANTS`;
- `dates`: ECMAScript time values (calendar arithmetic, Date.parse,
  Date.prototype.toString);
- `jsvalues`: JavaScript values and ECMAScript's conversions, UTF-16 code
  units, Number::toString, a row's cells as values;
- `v8math`: Math as V8 computes it (a port of V8's fdlibm);
- `regex`: JavaScript regular expressions translated to Python's `re`;
- `operators`: JavaScript's operators and property access;
- `parser`: `parse`, a port of vega-expression's scanner and parser;
- `d3format`: ports of d3-format and d3-time-format;
- `functions`: Vega's functions, the table the evaluator calls;
- `evaluate`: `evaluator` and `evaluate`.

This package re-exports the public names below; import them from here.
Ports of other projects' code carry their notices (THIRD_PARTY_NOTICES.md).

May import: the standard library and `chartc.errors` only.
"""
from __future__ import annotations

from ... import errors as msg  # noqa: F401  (public: `expressions.msg` is chartc.errors, the source of the hints)
from .evaluate import Compiled, evaluate, evaluator
from .jsvalues import (
    UNDEFINED,
    JSDate,
    JSRegExp,
    from_python,
    js_string,
    loose_equals,
    strict_equals,
    to_js_string,
    to_number,
    to_primitive,
    truthy,
)
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
    children,
    fields_read,
    walk,
)
from .parser import MAX_DEPTH, MAX_NESTING, parse
from .problems import (
    EvaluationError,
    ExpressionError,
    Unsupported,
    expression_arity,
    expression_array_hole,
    expression_assignment_hint,
    expression_bad_character,
    expression_bad_escape,
    expression_bad_number,
    expression_bad_regex,
    expression_bad_regex_flags,
    expression_duplicate_key,
    expression_event_name,
    expression_expected,
    expression_illegal_key,
    expression_length_of_integer,
    expression_not_a_function_name,
    expression_not_allowed,
    expression_nothing,
    expression_octal,
    expression_reserved_name,
    expression_too_deep,
    expression_trailing,
    expression_unclosed,
    expression_unknown_function,
    expression_unknown_name,
    expression_unterminated_string,
)
from .signatures import CONSTANTS, VEGA_FUNCTIONS, Signature
from .v8math import INEXACT_FUNCTIONS

__all__ = [
    # parsing and the tree
    "parse", "MAX_NESTING", "MAX_DEPTH", "fields_read", "walk", "children",
    "Expression", "Literal", "Regex", "Constant", "Datum", "Field", "Member", "Unary", "Binary", "Logical",
    "Conditional", "Call", "ArrayLiteral", "ObjectLiteral",
    # evaluation and JavaScript values
    "evaluate", "evaluator", "Compiled", "from_python", "truthy", "js_string", "to_js_string", "to_primitive",
    "to_number", "strict_equals", "loose_equals", "UNDEFINED", "JSDate", "JSRegExp",
    # Vega's functions and constants
    "VEGA_FUNCTIONS", "INEXACT_FUNCTIONS", "CONSTANTS", "Signature",
    # problems and their messages
    "ExpressionError", "Unsupported", "EvaluationError",
    "expression_nothing", "expression_expected", "expression_unclosed", "expression_trailing",
    "expression_bad_character", "expression_unterminated_string", "expression_bad_escape", "expression_octal",
    "expression_bad_number", "expression_not_allowed", "expression_assignment_hint", "expression_unknown_function",
    "expression_not_a_function_name", "expression_arity", "expression_unknown_name", "expression_event_name",
    "expression_reserved_name", "expression_length_of_integer", "expression_duplicate_key", "expression_illegal_key",
    "expression_array_hole", "expression_bad_regex", "expression_bad_regex_flags", "expression_too_deep",
]
