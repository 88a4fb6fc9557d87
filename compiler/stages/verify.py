"""Stage 9: make the compiled Vega-Lite safe for the renderer, and place what it refuses in the spec.

- `check_vega_lite` (after translate): the compiled chart is validated
  against Vega-Lite's own JSON schema and its compiler, so a value the chart
  schema lets through but Vega-Lite refuses (through `config`, `vega_lite`
  or a loosely typed key such as `scale.range`) ends as a `SpecError` at its
  spot in the spec, not as a blank chart or a renderer error. Numbers and
  texts that hang or exhaust the renderer are refused the same way. Of
  these checks only Vega-Lite's compiler (`compile_refusal`) needs the
  renderer's JavaScript engine: it runs when asked (`full`), else where the
  chart is rendered anyway.
- `render_refusal` (after render): a chart Vega refused to draw
  (`render.export.RenderRefused`): what Vega-Lite's compiler refuses is
  placed as `compile_refusal` places it; anything else at the node whose
  expression or free-form text the reason names, else at the marks.

Every problem is placed through the translator's `Origins` map: the longest
recorded prefix of the Vega-Lite path gives the IR node that wrote it, and
the rest of the path is resolved inside that node (a key of `config` or
`vega_lite`, a channel's ``axis.format``). (Text in the data that would abort
the renderer is scrubbed earlier, by the data stage.)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from .. import errors as msg
from ..errors import SpecError
from ..errors.text import VALUE_SYNONYMS
from ..infra.table import Table, to_number
from ..ir.expressions.d3format import FORMAT_SPECIFIER
from ..ir.nodes import Chart, FreeForm
from ..ir.source import Node
from ..ir.transforms import Expression
from ..render.export import compile_to_vega, renderer_reason
from .data import MAX_SAFE_INTEGER
from .translate import Translation, vega_lite_schema
from .translate.fields import unescape_field
from .validate import SCHEMA_TYPE_NAMES

STAGE = "translate"


# Numbers past which the renderer hangs beyond any Python signal or runs out
# of memory (measured with vl-convert 1.9: tickCount 10⁵ and maxbins 10⁵ hang,
# width 10⁸ hangs, tickCount 10⁴ takes 9 s). Sizes are in pixels.
RENDER_LIMITS = {
    "width": 10_000, "height": 10_000,
    "continuousWidth": 10_000, "continuousHeight": 10_000,
    "discreteWidth": 10_000, "discreteHeight": 10_000,
    "step": 10_000,  # a band's width in pixels (under width/height/view), or a bin's width (checked by count)
    "tickCount": 1_000,
    "maxbins": 1_000,
    # Legend (and facet) columns: 10⁸ legend columns take 1.5 GB, 10⁹ abort the
    # process. The chart schema allows 1,000 legend columns; this catches
    # `config` and `vega_lite`.
    "columns": 1_000_000,
}
MAX_BINS = 10_000  # bins a `bin: {step}` may make over the data's extent

# Longest text under these keys, in characters. Vega measures and lays out a
# title as one line: a 10⁴-character title adds ~2 s to a render, 10⁵ ~25 s,
# 10⁶ over 180 s (vl-convert 1.9). The chart schema bounds the spec's own
# titles, labels and descriptions with the same numbers (`text` is a title's
# text in Vega-Lite); this catches `config` and `vega_lite`.
TEXT_LIMITS = {"title": 1_000, "subtitle": 1_000, "text": 1_000, "description": 10_000}

# d3-format pads to its width, so a width of 10⁷ writes 40 MB of SVG and a
# zero-padded width of 10⁸ hangs the renderer; it clamps a precision to 20
# (21 for g, p, r, s) on its own. The chart schema documents both limits.
D3_MAX_WIDTH = 50
D3_MAX_PRECISION = 20


# ------------------------------------------------------------------ Vega-Lite

@functools.cache
def _vega_lite_validator():
    """A validator of Vega-Lite's schema (the version chartc compiles to), built once."""
    from jsonschema import Draft7Validator  # only once a chart is compiled

    return Draft7Validator(vega_lite_schema())


def _without_rows(value: Any) -> Any:
    """The chart with inline rows emptied: rows are any JSON, and checking them is slow."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "values" and isinstance(item, list):
                out[key] = []
            elif key == "datasets" and isinstance(item, dict):
                out[key] = {name: [] for name in item}
            else:
                out[key] = _without_rows(item)
        return out
    if isinstance(value, list):
        return [_without_rows(item) for item in value]
    return value


def _leaves(error):
    if not error.context:
        yield error
    for sub in error.context:
        yield from _leaves(sub)


def vega_lite_problem(vega_lite: dict):
    """The Vega-Lite schema violation of a compiled chart that says most about it, or None.

    Returns:
        A jsonschema ``ValidationError`` (its ``absolute_path`` is the path in
        the Vega-Lite), or None when the chart is valid.
    """
    leaves = _vega_lite_leaves(vega_lite)
    return _best_leaf(leaves) if leaves else None


def _vega_lite_leaves(vega_lite: dict) -> list:
    """Every leaf error of every Vega-Lite schema violation (an anyOf's branches each give theirs)."""
    return [leaf for error in _vega_lite_validator().iter_errors(_without_rows(vega_lite)) for leaf in _leaves(error)]


def _best_leaf(leaves: list):
    """The leaf of the branch the value was meant for.

    The deepest leaf wins: a branch that got further into the value is the
    one meant. At one depth, a leaf naming allowed values (an enum or a
    constant) goes first: `_describe_leaf` lists them with those of every
    sibling branch, where a wrong type (`'scatter' is not of type 'object'`)
    or the last branch's constant alone says nothing of what to write. Ties
    keep the schema's order.
    """
    return max(leaves, key=lambda leaf: (len(leaf.absolute_path), leaf.validator in ("enum", "const")))


def _describe_leaf(leaf, leaves: list) -> tuple[str, str | None]:
    """The reason of a Vega-Lite schema violation, and a did-you-mean for a misspelled value.

    An anyOf of constants (`mark` is one of the marks, or 'boxplot', or
    'errorbar', ...) fails in every branch at once: the choices of all of them
    are listed, never the last branch's alone.
    """
    if leaf.validator not in ("enum", "const"):
        return _reason(leaf), None
    here = [other for other in leaves if other.absolute_path == leaf.absolute_path]
    constants: list = []
    for other in here:
        if other.validator in ("enum", "const"):
            values = other.validator_value if other.validator == "enum" else [other.validator_value]
            constants.extend(v for v in values if v not in constants)
    types = [other.validator_value for other in here if other.validator == "type"]
    types = list(dict.fromkeys(t for wanted in types for t in ([wanted] if isinstance(wanted, str) else wanted)))
    instance = leaf.instance
    words = [c for c in constants if isinstance(c, str)]
    suggestion = msg.did_you_mean(instance, words, synonyms=VALUE_SYNONYMS) if isinstance(instance, str) else None
    if types and len(constants) <= 3:  # `width: wide`: a number or 'container'
        names = [repr(c) for c in constants] + [SCHEMA_TYPE_NAMES[t] for t in types if t in SCHEMA_TYPE_NAMES]
        return msg.wrong_type(instance, names), suggestion
    return msg.not_one_of(instance, constants), suggestion


def check_vega_lite(translation: Translation, chart: Chart, table: Table | None = None, *,
                    full: bool = True, schema: bool = True) -> list[SpecError]:
    """Check compiled Vega-Lite before it reaches the renderer.

    Refuses any URL (the renderer fetches nothing, so it would draw a blank
    chart), numbers that hang or exhaust the renderer (`RENDER_LIMITS`, and
    a `bin.step` that makes more than `MAX_BINS` bins over `table`), titles
    past `TEXT_LIMITS`, number formats d3-format cannot read or that ask for
    a width or precision past `D3_MAX_WIDTH` / `D3_MAX_PRECISION`, anything
    Vega-Lite's JSON schema refuses and, when `full`, anything its compiler
    refuses (`compile_refusal`).

    Only the last check needs the renderer's JavaScript engine (~0.3 s to
    start, ~150 MB): a compile that renders nothing (``-o x.vl.json``) leaves
    it out, and a render finds the same refusal as `compile_refusal` places it
    (`pipeline.refusals_as_errors`).

    Args:
        translation: the compiled chart and the origin of each of its nodes.
        chart: the chart model (a compiler refusal names an expression in it).
        table: the chart's rows, to count the bins a `bin.step` makes.
        full: also compile the chart with Vega-Lite's own compiler (starts the engine).
        schema: check Vega-Lite's JSON schema (~15-50 ms for a small chart). Only a
            draft (`chartc serve`'s preview, which a full build follows) leaves it out.

    Returns:
        One `SpecError` for the first problem, at the spec node that wrote it;
        an empty list when the chart is fine.
    """
    vega_lite = translation.vega_lite

    def error(message, vl_path, hint):
        return [place(translation, chart, vl_path, message, hint)]

    fetched = list(_urls(vega_lite))
    if fetched:  # data: the renderer fetches nothing, a blank chart; images: the PNG rasteriser would fetch them
        vl_path, url = fetched[0]
        if "data" in vl_path:
            return error(msg.data_url(str(url)), vl_path, msg.data_url_hint())
        return error(msg.image_url(url), vl_path, msg.image_url_hint())
    for vl_path, message in _over_limits(vega_lite, table):
        return error(message, vl_path, msg.render_limit_hint())
    for vl_path, key, length, limit in _long_texts(vega_lite):
        return error(msg.render_text_too_long(key, length, limit), vl_path, msg.text_too_long_hint())
    for vl_path, text in _bad_number_formats(vega_lite):
        return error(msg.bad_number_format(text), vl_path, msg.bad_number_format_hint())
    for vl_path, text, part, digits, limit in _oversized_number_formats(vega_lite):
        return error(msg.number_format_too_large(text, part, digits, limit), vl_path,
                     msg.number_format_too_large_hint(D3_MAX_WIDTH, D3_MAX_PRECISION))
    for vl_path, number in _big_integers(vega_lite):
        return error(msg.number_out_of_range(str(number)), vl_path, msg.integer_range_hint())
    leaves = _vega_lite_leaves(vega_lite) if schema else []
    if leaves:
        leaf = _best_leaf(leaves)
        reason, suggestion = _describe_leaf(leaf, leaves)
        return error(msg.vega_lite_invalid(reason), tuple(leaf.absolute_path),
                     msg.vega_lite_invalid_hint(_format_vl_path(leaf.absolute_path), suggestion))
    refusal = compile_refusal(translation, chart) if full else None
    return [refusal] if refusal is not None else []


def compile_refusal(translation: Translation, chart: Chart) -> SpecError | None:
    """What Vega-Lite's own compiler refuses in a schema-valid chart, placed in the spec, or None.

    A boxplot or error bar without the axis it needs, an expression written
    through `vega_lite` or `config` that does not parse: Vega-Lite's JSON
    schema lets them through. Runs the compile step of rendering
    (`vega_compile_problem`), so it starts the renderer's engine if nothing has.

    Args:
        translation: the compiled chart and the origin of each of its nodes.
        chart: the chart model (a refusal names an expression in it, or a layer).

    Returns:
        The diagnostic, at the expression or layer the reason points to; None
        when the compiler takes the chart.
    """
    reason = vega_compile_problem(translation.vega_lite)
    if reason is None:
        return None
    reason = _first_line(reason)
    node, child = refused_at(reason, chart)
    if (node, child) == (chart, ("layers",)):  # the reason names nothing in the spec: which layer is it?
        node, child = refused_layer(translation, chart, reason) or (node, child)
    return node.error(msg.vega_lite_refused(reason), *child, stage=STAGE, key=True)


def refused_layer(translation: Translation, chart: Chart, reason: str) -> tuple[Node, tuple] | None:
    """The mark of the first layer that Vega-Lite's compiler refuses for `reason` on its own, or None.

    Vega-Lite's compile errors carry no path ("Need a valid continuous axis
    for boxplots"), so each layer is compiled alone, with what the chart
    shares (data, encoding, transforms): a few milliseconds per layer, spent
    only when the chart is refused.
    """
    vega_lite = _without_rows(translation.vega_lite)
    prefix = ("spec",) if "layer" not in vega_lite and isinstance(vega_lite.get("spec"), dict) else ()
    outer = vega_lite["spec"] if prefix else vega_lite
    layers = outer.get("layer")
    if not isinstance(layers, list) or len(layers) < 2:
        return None
    for index, layer in enumerate(layers):
        alone = {**outer, "layer": [layer]}
        candidate = {**vega_lite, "spec": alone} if prefix else alone
        problem = vega_compile_problem(candidate)
        if problem is not None and _first_line(problem) == reason:
            return translation.origins.place(prefix + ("layer", index, "mark"))
    return None


def place(translation: Translation, chart: Chart, vl_path, message: str, hint: str | None) -> SpecError:
    """A problem at a Vega-Lite path, placed at the spec node the translator recorded as its origin."""
    found = translation.origins.place(vl_path)
    node, child = found if found is not None else (chart, ())
    return node.error(message, *child, stage=STAGE, hint=hint)


def render_refusal(reason: str, chart: Chart, translation: Translation | None = None) -> SpecError:
    """A chart Vega refused to draw (`export.RenderRefused`), placed where the spec most likely caused it.

    Args:
        reason: the renderer's reason (`export.renderer_reason`); only its
            first meaningful line is kept, never a JavaScript stack.
        chart: the chart model.
        translation: the chart's Vega-Lite and origins: when given, a chart
            Vega-Lite's compiler refuses (not checked before the render, see
            `check_vega_lite`) gets the diagnostic `compile_refusal` gives.

    Returns:
        The diagnostic: what Vega-Lite's compiler refuses as `compile_refusal`
        places it; else at the expression a parse or name error concerns,
        else at the text the reason quotes, else at the marks.
    """
    refusal = compile_refusal(translation, chart) if translation is not None else None
    if refusal is not None:
        return refusal
    reason = _first_line(reason)
    node, child = refused_at(reason, chart)
    hint = msg.render_refused_hint() if EXPRESSION_ERROR.search(reason) else msg.render_refused_other_hint()
    return node.error(msg.render_refused(reason), *child, stage="render", hint=hint, key=True)


EXPRESSION_ERROR = re.compile(r"Unexpected|Expression|Unrecognized|Illegal|Unterminated|Invalid regular", re.I)
# Keys whose text is a Vega expression: transforms, label expressions, conditions.
EXPRESSION_KEYS = ("calculate", "filter", "expr", "test")
# What a reason names: 'Unrecognized function: foo', 'Unrecognized signal name: "x"',
# 'Expression parse error: (datum.a +)', 'invalid format: {nope}'.
NAMED_IN_REASON = re.compile(r":\s*[\"'(]?(.+?)[\"')]?\s*$")
QUOTED_IN_REASON = re.compile(r"\"([^\"]+)\"|'([^']+)'")
REASON_LENGTH = 200


def _first_line(reason: str) -> str:
    """The first line of a reason that is not a stack frame, at most `REASON_LENGTH` characters."""
    lines = [line.strip() for line in reason.splitlines() if line.strip() and not line.strip().startswith("at ")]
    line = lines[0] if lines else ""
    return line if len(line) <= REASON_LENGTH else line[:REASON_LENGTH - 3] + "..."


def texts(chart: Chart) -> Iterator[tuple[Node, tuple, str]]:
    """(node, child path, text) of every expression and every text in a free-form mapping of the chart."""
    stack: list[Any] = [chart]
    while stack:
        value = stack.pop()
        if isinstance(value, Expression):
            yield value, (), value.text
        elif isinstance(value, FreeForm):
            yield from ((value, where, text) for where, text in value.entries() if isinstance(text, str))
        elif isinstance(value, Node):
            attributes = [(name, getattr(value, name)) for name in _node_fields(type(value))]
            yield from ((value, (name,), item) for name, item in attributes if isinstance(item, str))
            stack.extend(reversed([item for _, item in attributes if not isinstance(item, str)]))
        elif isinstance(value, tuple):
            stack.extend(reversed(value))


@functools.cache
def _node_fields(kind: type) -> tuple[str, ...]:
    import dataclasses

    return tuple(f.name for f in dataclasses.fields(kind) if f.name not in ("path", "source"))


def refused_at(reason: str, chart: Chart) -> tuple[Node, tuple]:
    """The node (and child path) to point at for a compile or render error.

    An expression for a parse or name error (the one holding the name or
    text the reason gives, else the first in the file); else a text of the
    spec the reason quotes; else the marks.
    """
    found = [(node, child, text) for node, child, text in texts(chart) if node.locate(*child) is not None]

    def in_file_order(items):
        return sorted(items, key=lambda item: (item[0].locate(*item[1]).line, item[0].locate(*item[1]).column))

    def written(items):
        return [item for item in items if item[0].source.has(item[0].at(*item[1]))]

    found = written(found)
    if EXPRESSION_ERROR.search(reason):
        expressions = in_file_order(item for item in found if isinstance(item[0], Expression) or (
            item[1] and isinstance(item[1][-1], str) and (item[1][-1] in EXPRESSION_KEYS or item[1][-1].endswith("Expr"))))
        named = NAMED_IN_REASON.search(reason)
        if named and expressions:
            word = re.compile(rf"(?<![\w.]){re.escape(named.group(1))}(?!\w)")
            exact = [item for item in expressions if item[2].strip() == named.group(1).strip()]
            best = (exact or [item for item in expressions if word.search(item[2])] or expressions)[0]
            return best[0], best[1]
        if expressions:
            return expressions[0][0], expressions[0][1]
    quoted = {a or b for a, b in QUOTED_IN_REASON.findall(reason)}
    quoted |= {named.group(1)} if (named := NAMED_IN_REASON.search(reason)) else set()
    mentioned = in_file_order(item for item in found if item[2] in quoted)
    if mentioned:
        return mentioned[0][0], mentioned[0][1]
    if chart.layered:
        return chart, ("layers",)
    mark = chart.layers[0].mark if chart.layers else None
    return (mark, ()) if mark is not None else (chart, ())


def _value_at(data: Any, path: tuple) -> Any:
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def vega_compile_problem(vega_lite: dict) -> str | None:
    """Why Vega-Lite's own compiler refuses the chart (rows aside), or None.

    This is the compile step of rendering, without drawing anything: an
    expression that does not parse, a boxplot without a continuous axis. It
    starts vl-convert's JavaScript engine once per process (~0.3 s); then a
    chart takes a few milliseconds. (The pipeline has set the process to UTC
    by then, as the engine keeps the time zone it starts with.)
    """
    try:
        compile_to_vega(_without_rows(vega_lite))  # the renderer's engine, or the worker standing in for it
    except ValueError as error:
        return renderer_reason(error)
    return None


def _entries(value: Any, path: tuple = ()):
    """(path, value) of every node of the chart but its rows and its free-form `usermeta`."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            rows = key == "datasets" or (key == "values" and path[-1:] == ("data",))
            if not rows and key != "usermeta":
                yield from _entries(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _entries(item, path + (index,))


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _over_limits(vega_lite: dict, table: Table | None):
    """(path, message) of every number past what the renderer survives."""
    for path, value in _entries(vega_lite):
        key = path[-1] if path else None
        bin_step = key == "step" and path[-2:-1] == ("bin",)  # data units: counted in bins below
        limit = None if bin_step else RENDER_LIMITS.get(key)
        if limit is not None and _number(value) and abs(value) > limit:
            yield path, msg.render_limit(key, value, limit)
        if isinstance(value, dict):
            bins = _bin_count(value, table)
            if bins is not None and bins > MAX_BINS:
                yield path + ("bin", "step"), msg.too_many_bins(value["bin"]["step"], bins, MAX_BINS)


def _bin_count(channel: dict, table: Table | None) -> float | None:
    """How many bins `{field, bin: {step}}` makes over the field's extent in `table`."""
    bin_ = channel.get("bin")
    field = channel.get("field")
    if not isinstance(field, str):
        return None
    field = unescape_field(field)  # as the translator escaped it
    if table is None or not isinstance(bin_, dict) or field not in table:
        return None
    step = bin_.get("step")
    if not _number(step) or step <= 0:
        return None
    values = [number for number in map(to_number, table[field]) if abs(number) < float("inf")]
    if not values:
        return None
    return float(max(values) - min(values)) / step


def _bad_number_formats(vega_lite: dict):
    """(path, format) of every number format (on a quantitative channel) d3-format cannot read."""
    for path, value in _entries(vega_lite):
        # A field, or a count: both are numbers on the axis, both formatted by d3-format.
        if not (isinstance(value, dict) and value.get("type") == "quantitative"
                and ("field" in value or "aggregate" in value) and "formatType" not in value):
            continue
        for where in (("format",), ("axis", "format"), ("legend", "format")):
            node = value
            for key in where:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, str) and not FORMAT_SPECIFIER.fullmatch(node):
                yield path + where, node


def _oversized_number_formats(vega_lite: dict):
    """(path, format, "width" or "precision", its digits, the limit) of every d3 number format past the limits.

    Every ``format`` and ``numberFormat`` (channels, axes, legends, `config`)
    that reads as a d3 number format is checked, but on a temporal channel,
    whose format is a time format.
    """
    for path, value in _entries(vega_lite):
        if path[-1:] not in (("format",), ("numberFormat",)) or not isinstance(value, str):
            continue
        owner = _value_at(vega_lite, path[:-2] if path[-2:-1] in (("axis",), ("legend",)) else path[:-1])
        if isinstance(owner, dict) and (owner.get("type") == "temporal" or "timeUnit" in owner
                                        or owner.get("formatType") in ("time", "utc")):
            continue
        match = FORMAT_SPECIFIER.fullmatch(value)  # anything else throws "invalid format" while rendering
        if match is None:
            continue
        width, precision = match.group(6), (match.group(8) or "")[1:]
        for part, digits, limit in (("width", width, D3_MAX_WIDTH), ("precision", precision, D3_MAX_PRECISION)):
            digits = (digits or "").lstrip("0")
            if len(digits) > len(str(limit)) or (digits and int(digits) > limit):
                yield path, value, part, digits, limit
                break


def _long_texts(vega_lite: dict):
    """(path, key, length, limit) of every title, subtitle or description past `TEXT_LIMITS`."""
    for path, value in _entries(vega_lite):
        # A title may be a list of lines: each is held to the title's limit.
        key = path[-2] if path and isinstance(path[-1], int) and len(path) > 1 else (path[-1] if path else None)
        limit = TEXT_LIMITS.get(key) if isinstance(key, str) else None
        if limit is not None and isinstance(value, str) and len(value) > limit:
            yield path, key, len(value), limit


def _big_integers(vega_lite: dict):
    """(path, number) of every integer the renderer cannot read exactly (rows: see scrub_table)."""
    for path, value in _entries(vega_lite):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
            yield path, value


def _urls(vega_lite: dict):
    """(path, url) of every `url` the renderer would try to load (data, images)."""
    for path, value in _entries(vega_lite):
        if path[-1:] == ("url",) and isinstance(value, (str, dict)):
            yield path, value


def _reason(leaf) -> str:
    text = leaf.message
    return text if len(text) <= 160 else text[:157] + "..."


def _format_vl_path(path) -> str:
    return msg.format_path(tuple(path))