"""The names a data expression may use: Vega's functions with their arities, and its constants.

`VEGA_FUNCTIONS` holds every function Vega 6.2's expression language knows
(vega-expression's functions, vega-functions' context and registered
functions, the event and internal scale helpers), with the arguments it
documents. A name outside this table is "Unrecognized function" in Vega.
chartc is stricter than Vega on the count: JavaScript ignores extra arguments
and passes undefined for missing ones, so `log(x, 10)` is quietly a natural
log there; here it is an error. Functions `evaluate` does not compute carry
the reason.

The parser refuses a call of a function not in `VEGA_FUNCTIONS` or with
another number of arguments, and a name other than `datum` and `CONSTANTS`;
the evaluator reads a function's `unsupported` reason before it runs it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Signature:
    """How a Vega function is called: its argument count, and why `evaluate` cannot run it (if so)."""

    low: int
    high: int | None  # None: any number
    unsupported: str | None = None


_VIEW = "needs the rendered view (scales, data sets, signals or events)"
_RANDOM = "is not deterministic"
# The reason for a function Vega computes in a way the evaluator does not reproduce exactly
# (also given for a function with no implementation in `functions.FUNCTIONS`).
NOT_REPRODUCED = "is not reproduced exactly by chartc's evaluator"


def _signatures() -> dict[str, Signature]:
    table: dict[str, Signature] = {}

    def add(names: str, low: int, high: int | None, unsupported: str | None = None) -> None:
        for name in names.split():
            table[name] = Signature(low, high, unsupported)

    # vega-expression: Math, dates, strings, regular expressions, control flow
    add("isNaN isFinite abs acos asin atan ceil cos exp floor log round sin sqrt tan", 1, 1)
    add("atan2 pow", 2, 2)
    add("hypot max min", 1, None)
    add("clamp if", 3, 3)
    add("random", 0, 0, _RANDOM)
    add("now", 0, 0, _RANDOM)
    add("utc", 1, 7)
    add("datetime", 0, 7)
    add("date day year month hours minutes seconds milliseconds time timezoneoffset", 1, 1)
    add("utcdate utcday utcyear utcmonth utchours utcminutes utcseconds utcmilliseconds", 1, 1)
    add("length upper lower trim parseFloat btoa atob", 1, 1)
    add("parseInt", 1, 2)
    add("substring split", 2, 3)
    add("regexp", 1, 2)
    add("test", 1, 2)
    # vega-functions: the function context
    add("sampleNormal sampleLogNormal sampleUniform", 0, 2, _RANDOM)
    add("cumulativeNormal cumulativeLogNormal cumulativeUniform densityNormal densityLogNormal "
        "densityUniform quantileNormal quantileLogNormal quantileUniform", 1, 3, NOT_REPRODUCED)
    add("isArray isBoolean isDate isDefined isNumber isObject isRegExp isString isValid", 1, 1)
    add("isTuple", 1, 1, _VIEW)
    add("toBoolean toDate toNumber toString", 1, 1)
    add("indexof lastindexof", 2, 3)
    add("join", 1, 2)
    add("replace", 3, 3)
    add("reverse sort peek span extent", 1, 1)
    add("slice", 2, 3)
    add("flush", 6, 6, NOT_REPRODUCED)
    add("lerp", 2, 2)
    add("merge", 1, None)
    add("pad truncate", 2, 4)
    add("pluck", 2, 2, NOT_REPRODUCED)
    add("inrange", 2, 4)
    add("rgb lab hcl hsl", 1, 4, NOT_REPRODUCED)
    add("luminance", 1, 1, NOT_REPRODUCED)
    add("contrast", 2, 2, NOT_REPRODUCED)
    add("sequence", 1, 3)
    add("format utcFormat timeFormat", 2, 2)
    add("utcParse timeParse", 2, 2, NOT_REPRODUCED)
    add("utcOffset timeOffset", 2, 3, NOT_REPRODUCED)
    add("utcSequence timeSequence", 3, 4, NOT_REPRODUCED)
    add("timeUnitSpecifier", 1, 2, NOT_REPRODUCED)
    add("monthFormat monthAbbrevFormat dayFormat dayAbbrevFormat", 1, 1)
    add("quarter utcquarter week utcweek dayofyear utcdayofyear", 1, 1)
    add("warn info debug", 1, None, _VIEW)
    add("inScope pinchDistance pinchAngle", 1, 1, _VIEW)
    add("intersect", 1, 3, _VIEW)
    add("clampRange", 3, 3)
    add("screen containerSize windowSize", 0, 0, _VIEW)
    add("bandspace", 1, 3, NOT_REPRODUCED)
    add("setdata", 2, 2, _VIEW)
    add("pathShape", 1, 1, _VIEW)
    add("panLinear panLog", 2, 2, NOT_REPRODUCED)
    add("panPow panSymlog zoomLinear zoomLog", 3, 3, NOT_REPRODUCED)
    add("zoomPow zoomSymlog", 4, 4, NOT_REPRODUCED)
    add("encode", 2, 3, _VIEW)
    add("modify", 1, 6, _VIEW)
    add("lassoAppend", 3, 4, _VIEW)
    add("lassoPath", 1, 1, _VIEW)
    add("intersectLasso", 2, 3, _VIEW)
    # vega-functions: registered with AST visitors (scales, geography, data, trees, selections)
    add("bandwidth copy domain range geoScale", 1, 2, _VIEW)
    add("invert scale", 2, 3, _VIEW)
    add("gradient", 1, 4, _VIEW)
    add("geoArea geoBounds geoCentroid", 2, 3, _VIEW)
    add("geoShape", 1, 3, _VIEW)
    add("indata treePath", 3, 3, _VIEW)
    add("data", 1, 1, _VIEW)
    add("treeAncestors", 2, 2, _VIEW)
    add("vlSelectionTest vlSelectionIdTest", 2, 3, _VIEW)
    add("vlSelectionResolve", 1, 4, _VIEW)
    add("vlSelectionTuples", 2, 2, _VIEW)
    # event functions (event.vega.*) and the internal scale helpers mark encoders use
    add("view item", 0, 0, _VIEW)
    add("group xy x y", 0, 1, _VIEW)
    add("_bandwidth _range", 1, 1, _VIEW)
    add("_scale", 2, 2, _VIEW)
    return table


VEGA_FUNCTIONS: dict[str, Signature] = _signatures()

# Vega's named constants (JavaScript's Math constants, NaN and Number's limits) -> their values.
CONSTANTS: dict[str, float] = {
    "NaN": math.nan,
    "E": math.e,
    "LN2": math.log(2),
    "LN10": math.log(10),
    "LOG2E": 1 / math.log(2),
    "LOG10E": 1 / math.log(10),
    "PI": math.pi,
    "SQRT1_2": math.sqrt(0.5),
    "SQRT2": math.sqrt(2),
    "MIN_VALUE": 5e-324,
    "MAX_VALUE": 1.7976931348623157e308,
}
# JavaScript's Math.LOG2E and Math.LOG10E are the doubles nearest log2(e) and log10(e).
CONSTANTS["LOG2E"] = 1.4426950408889634
CONSTANTS["LOG10E"] = 0.4342944819032518
