"""What Vega-Lite and Vega do to the rows, reproduced: field predicates, implicit parsing, aggregate ops.

The interpreter (`interpret`) runs a chart's transforms as the renderer
will. Three things in between the spec and Vega's dataflow change what a
transform sees, and live here, each read from Vega-Lite 6.4 and Vega 6.2
(the versions vl-convert 1.9 runs):

- A field predicate compiles to an expression (`filter_expression`, as
  Vega-Lite's ``fieldFilterExpression``): one test per predicate, in the
  order equal, lt, gt, lte, gte, oneOf, valid, range; ``valid`` is
  ``isValid(x) && isFinite(+x)``.
- Vega-Lite parses some fields before the transforms (`parse_plans`, as its
  ``getImplicitFromFilterTransform``, ``getImplicitFromEncoding`` and the
  ``MoveParseUp``/``MergeParse`` optimisers leave them): a field predicate
  with a number, text or date value parses its field as such; a temporal
  channel's field is parsed as a date, a quantitative ``min``/``max``
  aggregate's and a line or area's quantitative dimension as a number. A
  parse floats up to the top of its layer (above any transform that does
  not make the field) and, where the layers agree, above every layer.
- The ``aggregate`` transform's ops (`aggregate_rows`) as Vega's
  ``AggregateOps``: Welford's mean and variance, d3's quantiles on the
  numbers of a group, ``count`` counting every row and ``valid`` those that
  are not null, undefined, '' or NaN.

Cells pass between Python and the JavaScript values Vega holds through
`js_cell` (what the inline data writes) and `python_cell`.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Callable, Sequence

from ... import errors as msg
from ...infra.table import BOOLEAN, DATE, INTEGER_RANGE, NUMBER, TEXT, DateOutOfRange, json_value
from ...ir import expressions as ex
from ...ir.expressions.dates import year_of
from ...ir.nodes import Chart, Layer
from ...ir.transforms import Aggregate, AggregateOp, FieldPredicate, Filter

# ------------------------------------------------------------------ channel types

# Channels that take their type from a primary channel and declare none.
UNTYPED_CHANNELS = {"x2": "x", "y2": "y"}
COUNTING_OPS = ("count", "distinct", "valid", "missing")
# Marks Vega-Lite expands into layers of aggregates (their continuous axis is computed, not parsed).
COMPOSITE_MARKS = frozenset({"boxplot", "errorbar", "errorband"})
PATH_MARKS = frozenset({"line", "area", "trail"})


def channel_type(props, types: dict) -> str:
    """The type a channel is drawn with: the declared one, else what the data (or the aggregate) implies.

    Args:
        props: the channel's mapping (or `ir.Channel`).
        types: field -> measurement type after the layer's transforms.
    """
    declared = props.get("type")
    if declared:  # emitted as declared: Vega-Lite parses (or not) by it, whatever the data holds
        return declared
    if props.get("aggregate") in COUNTING_OPS or props.get("bin"):
        return "quantitative"
    if "timeUnit" in props:
        return "temporal" if types.get(props.get("field")) == "temporal" else "ordinal"
    return types.get(props.get("field"), "nominal")


# ------------------------------------------------------------------ field predicates

PREDICATE_VALUES = ("equal", "lt", "lte", "gt", "gte")
# The order Vega-Lite tests a predicate's keys in: the first one present is the whole predicate.
PREDICATE_ORDER = ("equal", "lt", "gt", "lte", "gte", "oneOf", "valid", "range")
COMPARISONS = {"equal": "===", "lt": "<", "gt": ">", "lte": "<=", "gte": ">="}


def emitted_predicate(predicate: FieldPredicate, temporal: bool) -> dict:
    """A field predicate as the translator emits it: on a temporal field, ISO date text becomes a DateTime.

    Vega-Lite compares a date field with a string as text (keeping no rows);
    DateTime objects make it compare dates. Other values are unchanged.

    Args:
        predicate: the filter's predicate.
        temporal: the field is temporal in the layer the filter runs in.
    """
    converted = {"field": predicate.field, **{key: ex_value(value) for key, value in predicate.tests}}
    if not temporal:
        return converted
    for key in PREDICATE_VALUES:
        if isinstance(converted.get(key), str):
            converted[key] = date_time(converted[key])
    for key in ("range", "oneOf"):
        if isinstance(converted.get(key), list):
            converted[key] = [date_time(v) if isinstance(v, str) else v for v in converted[key]]
    return converted


def ex_value(value):
    """A read-only predicate value as plain JSON data (tuples as lists)."""
    if isinstance(value, tuple):
        return [ex_value(item) for item in value]
    return value


def date_time(text: str):
    """ISO text -> a Vega-Lite DateTime (wall-clock, like the data); other text unchanged."""
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        return text
    value = {"year": moment.year, "month": moment.month, "date": moment.day}
    for key, part in (("hours", moment.hour), ("minutes", moment.minute), ("seconds", moment.second)):
        if part:
            value[key] = part
    return value


def _is_date_time(value) -> bool:
    return isinstance(value, dict)


def _value_expression(value) -> str:
    """A predicate value as Vega-Lite writes it into the expression (``valueExpr`` with ``wrapTime``)."""
    if _is_date_time(value):
        parts = [value.get("year", 2012), value["month"] - 1 if "month" in value else 0, value.get("date", 1),
                 *(value.get(key, 0) for key in ("hours", "minutes", "seconds", "milliseconds"))]
        return f"time(datetime({', '.join(_number_text(part) for part in parts)}))"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number_text(value)
    return json.dumps(value, ensure_ascii=False)


def _number_text(value) -> str:
    return ex.js_string(float(value)) if not isinstance(value, int) or abs(value) > 2**53 else str(value)


def filter_expression(predicate: dict) -> str:
    """The Vega expression Vega-Lite compiles a field predicate to (its first test only, as Vega-Lite does)."""
    field = f"datum[{json.dumps(predicate['field'], ensure_ascii=False)}]"
    test = next((key for key in PREDICATE_ORDER if key in predicate), None)
    if test in COMPARISONS:
        return f"{field}{COMPARISONS[test]}{_value_expression(predicate[test])}"
    if test == "oneOf":
        return f"indexof([{','.join(_value_expression(v) for v in predicate['oneOf'])}], {field}) !== -1"
    if test == "valid":
        if predicate["valid"]:
            return f"isValid({field}) && isFinite(+{field})"
        return f"!isValid({field}) || !isFinite(+{field})"
    low, high = predicate["range"]
    if low is not None and high is not None:
        return f"inrange({field}, [{_value_expression(low)}, {_value_expression(high)}])"
    parts = ([f"{field} >= {_value_expression(low)}"] if low is not None else []) + (
        [f"{field} <= {_value_expression(high)}"] if high is not None else [])
    return " && ".join(parts) or "true"


def _filter_parse(predicate: dict) -> dict[str, str]:
    """How Vega-Lite parses a field predicate's field before the filter (``getImplicitFromFilterTransform``)."""
    value = None
    for key in ("equal", "lte", "lt", "gt", "gte"):
        if key in predicate:
            value = predicate[key]
            break
    else:
        if isinstance(predicate.get("range"), list) and len(predicate["range"]) == 2:
            value = predicate["range"][0]
        elif isinstance(predicate.get("oneOf"), list):
            value = predicate["oneOf"][0] if predicate["oneOf"] else None
    if not value:  # JavaScript truthiness: 0, '' and null parse nothing
        return {}
    if _is_date_time(value):
        return {predicate["field"]: "date"}
    if isinstance(value, bool):
        return {}
    if isinstance(value, (int, float)):
        return {predicate["field"]: "number"}
    if isinstance(value, str):
        return {predicate["field"]: "string"}
    return {}


# ------------------------------------------------------------------ implicit parsing

def _unbinned_quantitative(channel, types) -> bool:
    return channel is not None and channel.field is not None and not channel.get("bin") and \
        channel_type(channel, types) == "quantitative"


def _path_dimension(layer: Layer, types: dict) -> str:
    """The channel a line or area is ordered along (Vega-Lite's ``orient``): ``x`` unless it is horizontal."""
    encoding, mark = layer.encoding, layer.mark
    if mark.properties.get("orient"):
        return "y" if mark.properties["orient"] == "horizontal" else "x"
    if mark.type == "area":
        if "y2" in encoding:
            return "y" if (encoding.get("y") is not None and encoding["y"].get("bin") == "binned") else "x"
        if "x2" in encoding:
            return "x" if (encoding.get("x") is not None and encoding["x"].get("bin") == "binned") else "y"
    x_measure = _unbinned_quantitative(encoding.get("x"), types)
    y_measure = _unbinned_quantitative(encoding.get("y"), types)
    if x_measure and not y_measure:
        return "y"
    if not x_measure and not y_measure:
        x_temporal = encoding.get("x") is not None and channel_type(encoding["x"], types) == "temporal"
        y_temporal = encoding.get("y") is not None and channel_type(encoding["y"], types) == "temporal"
        if y_temporal and not x_temporal:
            return "y"
    return "x"


def encoding_parse(layer: Layer, types: dict) -> dict[str, str]:
    """How Vega-Lite parses a layer's encoded fields after its transforms (``getImplicitFromEncoding``)."""
    implicit: dict[str, str] = {}
    composite = layer.mark is not None and layer.mark.type in COMPOSITE_MARKS
    channels = list(layer.encoding.each())
    for channel in channels:
        field = channel.field
        if field is None or "value" in channel or "datum" in channel:
            continue
        primary = UNTYPED_CHANNELS.get(channel.name)
        source = layer.encoding.get(primary) if primary else channel
        kind = channel_type(source, types) if source is not None and not isinstance(source, tuple) else None
        if composite and channel.name in ("x", "y", "x2", "y2") and kind == "quantitative":
            continue  # the composite mark's own aggregate computes it
        if kind == "temporal" or channel.get("timeUnit"):
            implicit[field] = "date"
        elif kind == "quantitative" and channel.aggregate in ("min", "max"):
            implicit[field] = "number"
    if layer.mark is not None and layer.mark.type in PATH_MARKS:
        dimension = layer.encoding.get(_path_dimension(layer, types))
        if dimension is not None and not isinstance(dimension, tuple) and dimension.field is not None \
                and channel_type(dimension, types) == "quantitative" and dimension.field not in implicit:
            implicit[dimension.field] = "number"
    return implicit


def parse_plans(chart: Chart, layer_fields: Sequence[dict], shared_fields: dict) -> tuple[list, dict, list, dict, set]:
    """What Vega-Lite emits and parses for every layer, as both evaluators of the rows read it.

    Args:
        chart: the chart.
        layer_fields: per layer, its fields after its transforms.
        shared_fields: the fields after the chart's transforms (the facet's types).

    Returns:
        Per layer, the predicate each of its transforms' filters is emitted as
        (None for the others); the facet's parses (`facet_parse`); per layer,
        its parses (`layer_parses`); the
        parses every mark layer shares; and the fields two layers parse
        differently (`merge_tops`).
    """
    emitted = [[emitted_predicate(step.predicate, types.get(step.predicate.field) == "temporal")
                if is_filter_predicate(step) else None for step in chart.transforms(layer)]
               for layer, types in zip(chart.layers, layer_fields)]
    facet = facet_parse(chart, shared_fields)
    plans = [layer_parses(chart, layer, plan, types, facet)
             for layer, plan, types in zip(chart.layers, emitted, layer_fields)]
    common, conflicting = merge_tops([plan[0] for layer, plan in zip(chart.layers, plans) if layer.mark is not None])
    return emitted, facet, plans, common, conflicting


def facet_parse(chart: Chart, types: dict) -> dict[str, str]:
    """How Vega-Lite parses the facet's fields, above every layer's transforms."""
    implicit: dict[str, str] = {}
    for channel in (chart.facet.channels() if chart.facet is not None else ()):
        kind = channel.type or channel_type(channel, types)
        if kind == "temporal" or channel.get("timeUnit"):
            implicit[channel.field] = "date"
    return implicit


def _with_ancestors(implicit: dict, ancestors: dict) -> dict:
    """Vega-Lite's ``ParseNode.makeWithAncestors``: what is parsed already, or derived, is not parsed again."""
    kept = {}
    for field, kind in implicit.items():
        before = ancestors.get(field)
        if before is not None and (before == kind or before == "derived"):
            continue
        kept[field] = kind
    ancestors.update(kept)
    return kept


def layer_parses(chart: Chart, layer: Layer, emitted: Sequence, types: dict, ancestors: dict) -> list[dict]:
    """The parses of one layer's chain, per gap (gap k is before transform k; the last after them all).

    Args:
        chart: the chart.
        layer: the layer.
        emitted: per transform of the chain, the predicate the translator
            emits for a field-predicate filter (else None).
        types: field -> measurement type after the layer's transforms.
        ancestors: field -> parse already applied above the layer (the facet's).

    Returns:
        Each gap's parses after Vega-Lite's optimiser moved them up.
    """
    chain = chart.transforms(layer)
    ancestors = dict(ancestors)
    gaps: list[dict] = [{} for _ in range(len(chain) + 1)]
    for index, (step, predicate) in enumerate(zip(chain, emitted)):
        if predicate is not None:
            gaps[index].update(_with_ancestors(_filter_parse(predicate), ancestors))
        for field in step.makes():
            ancestors[field] = "number" if isinstance(step, Aggregate) else "derived"
    if layer.mark is not None:
        gaps[-1].update(_with_ancestors(encoding_parse(layer, types), ancestors))
    for index in range(len(chain), 0, -1):  # MoveParseUp: past every transform that does not make the field
        if gaps[index] and not set(gaps[index]) & set(chain[index - 1].makes()):
            gaps[index - 1] = {**gaps[index - 1], **gaps[index]}
            gaps[index] = {}
    return gaps


def merge_tops(tops: Sequence[dict]) -> tuple[dict, set]:
    """Vega-Lite's ``MergeParse`` at the fork of the layers: the parses they agree on, and the fields they do not."""
    common: dict = {}
    conflicting: set = set()
    for top in tops:
        for field, kind in top.items():
            if field in common and common[field] != kind:
                conflicting.add(field)
            common.setdefault(field, kind)
    return {field: kind for field, kind in common.items() if field not in conflicting}, conflicting


# ------------------------------------------------------------------ cells

EPOCH = datetime.datetime(1970, 1, 1)
MAX_EXACT = 2**53
PARSERS = {kind: ex.evaluator(ex.parse(f"{function}(datum.v)"))
           for kind, function in (("number", "toNumber"), ("date", "toDate"), ("string", "toString"))}


def js_cell(value):
    """The JavaScript value Vega holds for a table cell: what the inline data writes (`Table.records`).

    Dates are zone-free ISO text, integers past 2⁵³ their decimal text,
    NaN and infinities null.
    """
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is int:
        return float(value) if -MAX_EXACT <= value <= MAX_EXACT else str(value)
    if kind is str or kind is bool or value is None:
        return value
    return ex.from_python(json_value(value))


def parse_cells(values: list, kind: str) -> list:
    """Vega-Lite's parse of one field's JavaScript values (``toNumber``, ``toDate``, ``toString``).

    Raises:
        Unsupported: a value parsed as Vega would not be here (date text not in ISO form).
    """
    run = PARSERS[kind]
    out = []
    for value in values:
        if value is None or (type(value) is float and kind != "string"):
            out.append(value)
        else:
            out.append(run({"v": value}))
    return out


# The times of Python's first and last milliseconds (0001-01-01, 9999-12-31 23:59:59.999) since 1970.
FIRST_TIME, LAST_TIME = ((limit - EPOCH) // datetime.timedelta(milliseconds=1)
                         for limit in (datetime.datetime.min, datetime.datetime.max))


def python_cell(value):
    """A JavaScript value as a table cell: undefined is missing, a Date a naive datetime, arrays lists.

    Raises:
        DateOutOfRange: a Date before year 1 or after 9999.
    """
    kind = type(value)
    if kind is float or kind is str or kind is bool or value is None:
        return value
    if value is ex.UNDEFINED:
        return None
    if kind is ex.JSDate:
        if not math.isfinite(value.time):
            return None
        if not FIRST_TIME <= value.time <= LAST_TIME:
            raise DateOutOfRange(year_of(value.time))
        return EPOCH + datetime.timedelta(milliseconds=value.time)
    if kind is list:
        return [python_cell(item) for item in value]
    if kind is dict:
        return {key: python_cell(item) for key, item in value.items()}
    return ex.to_js_string(value)


def column_kind(values: list) -> str | None:
    """The table kind of a column of cells made by a transform (after an impute, a data column's integers among
    them: numbers, as a column read holds them, unless past 64 bits)."""
    present = [value for value in values if value is not None and not (type(value) is float and value != value)]
    if not present:
        return NUMBER if values and any(type(value) is float for value in values) else None
    kinds = {type(value) for value in present}
    if kinds <= {float, int} and all(INTEGER_RANGE[0] <= value <= INTEGER_RANGE[1]
                                     for value in present if type(value) is int):
        return NUMBER
    if kinds == {bool}:
        return BOOLEAN if len(present) == len(values) else None
    if kinds == {str}:
        return TEXT
    if kinds == {datetime.datetime}:
        return DATE
    return None


# ------------------------------------------------------------------ comparisons

_LESS = ex.evaluator(ex.parse("datum.a < datum.b"))


def js_less(a, b) -> bool:
    """JavaScript's ``a < b`` (numbers compare as numbers, two strings by UTF-16 code units, the rest coerced)."""
    if type(a) is float and type(b) is float:
        return a < b
    if type(a) is str and type(b) is str and a.isascii() and b.isascii():
        return a < b
    return bool(_LESS({"a": a, "b": b}))


def _missing(value) -> bool:
    """Vega's aggregate counts a value as missing when it is null, undefined or ''."""
    return value is None or value is ex.UNDEFINED or (type(value) is str and value == "")


def is_nan(value) -> bool:
    """JavaScript's ``x !== x``."""
    return type(value) is float and value != value


# ------------------------------------------------------------------ aggregate ops

# Ops whose value is drawn at random (a bootstrap): a chart's rows cannot be known with them.
RANDOM_OPS = frozenset({"ci0", "ci1"})


def quantile_sorted(numbers: list[float], p: float):
    """d3-array's ``quantileSorted`` of sorted numbers (undefined for none)."""
    n = len(numbers)
    if not n:
        return ex.UNDEFINED
    if p <= 0 or n < 2:
        return numbers[0]
    if p >= 1:
        return numbers[-1]
    i = (n - 1) * p
    i0 = math.floor(i)
    value0, value1 = numbers[i0], numbers[i0 + 1]
    return value0 + (value1 - value0) * (i - i0)


class _Measures:
    """Vega's streaming measures of one field over one group (``AggregateOps``, Vega 6.2)."""

    def __init__(self):
        self.valid = self.missing = 0
        self.sum, self.product, self.mean, self.mean_d, self.dev = 0.0, 1.0, 0.0, 0.0, 0.0
        self.min = self.max = ex.UNDEFINED
        self.argmin = self.argmax = None  # the row (its index), or None while undecided

    def add(self, value, row: int) -> None:
        if _missing(value):
            self.missing += 1
            return
        if is_nan(value):
            return
        self.valid += 1
        number = ex.to_number(value)
        self.sum += number
        self.product *= number
        self.mean_d = number - self.mean           # mean (op index 0) before variance (1)
        self.mean += self.mean_d / self.valid
        self.dev += self.mean_d * (number - self.mean)
        if self.min is not ex.UNDEFINED and js_less(value, self.min):   # argmin (3) before min (4)
            self.argmin = row
        if self.max is not ex.UNDEFINED and js_less(self.max, value):
            self.argmax = row
        if self.min is ex.UNDEFINED or js_less(value, self.min):
            self.min = value
        if self.max is ex.UNDEFINED or js_less(self.max, value):
            self.max = value


def _extent_index(values: list) -> tuple[int, int]:
    """vega-util's ``extentIndex``: the first minimum and maximum among the non-null values (-1 for none)."""
    start = next((i for i, b in enumerate(values) if b is not None and b is not ex.UNDEFINED and not is_nan(b)), None)
    if start is None:
        return -1, -1
    low = high = values[start]
    u = v = start
    for i in range(start + 1, len(values)):
        b = values[i]
        if b is None or b is ex.UNDEFINED:
            continue
        if js_less(b, low):
            low, u = b, i
        if js_less(high, b):
            high, v = b, i
    return u, v


def measure(op: str, values: list, rows: list[int], records: Callable[[int], dict]):
    """The value of one aggregate op over one group's values, as Vega computes it.

    Args:
        op: the op (not ``ci0``/``ci1``: those are random).
        values: the field's JavaScript value in each row of the group.
        rows: the group's rows (for ``argmin``/``argmax``, which return a row).
        records: row -> that row as a JavaScript object.

    Returns:
        A JavaScript value (a float, the raw value for min/max, an object
        for argmin/argmax, or `UNDEFINED`).
    """
    if op == "count":
        return float(len(values))
    state = _Measures()
    for value, row in zip(values, rows):
        state.add(value, row)
    valid = state.valid
    if op == "valid":
        return float(valid)
    if op == "missing":
        return float(state.missing)
    if op == "distinct":
        return float(len({ex.to_js_string(value) for value in values}))
    if op in ("sum", "product", "mean", "average"):
        value = {"sum": state.sum, "product": state.product}.get(op, state.mean)
        return value if valid else ex.UNDEFINED
    if op in ("variance", "variancep", "stdev", "stdevp", "stderr"):
        if valid <= 1:
            return ex.UNDEFINED
        divisor = {"variance": valid - 1, "stdev": valid - 1, "variancep": valid, "stdevp": valid,
                   "stderr": valid * (valid - 1)}[op]
        quotient = state.dev / divisor
        return math.sqrt(quotient) if op.startswith("std") and quotient >= 0 else (
            math.nan if op.startswith("std") else quotient)
    if op in ("median", "q1", "q3"):
        numbers = sorted(number for number in (ex.to_number(v) for v in values if v is not None
                                               and v is not ex.UNDEFINED and not (type(v) is str and v == ""))
                         if number == number)
        return quantile_sorted(numbers, {"q1": 0.25, "median": 0.5, "q3": 0.75}[op])
    if op in ("min", "max"):
        return getattr(state, op)
    if op in ("argmin", "argmax"):
        row = arg_row(op, values, rows)
        return {} if row is None else records(row)
    raise ValueError(f"unknown aggregate op {op!r}")  # the schema admits no other


def arg_row(op: str, values: list, rows: list[int]) -> int | None:
    """The row ``argmin``/``argmax`` picks of a group, as Vega picks it; None when it picks none (an empty object).

    Vega's streaming measure notes a row only when a later value beats the
    extreme so far, so of equal extremes the first wins; when no later value
    beat the first valid one, vega-util's ``extentIndex`` picks it (again the
    first of equal extremes).
    """
    state = _Measures()
    for value, row in zip(values, rows):
        state.add(value, row)
    row = getattr(state, op)
    if row is None:
        u, v = _extent_index(values)
        index = u if op == "argmin" else v
        return rows[index] if index >= 0 else None
    return row


def group_key(values: Sequence) -> str:
    """Vega's group key of a row: its groupby values as text, joined by '|'."""
    return "|".join(ex.to_js_string(value) for value in values) if values else ""


def unknowable_op(op: AggregateOp) -> str | None:
    """Why an op's value cannot be known, or None."""
    return msg.rows_unknowable_random(op.op) if op.op in RANDOM_OPS else None


def is_filter_predicate(step) -> bool:
    return isinstance(step, Filter) and isinstance(step.predicate, FieldPredicate)
