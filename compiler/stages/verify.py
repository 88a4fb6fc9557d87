"""Stage 6: make what reaches the renderer safe: text in the data, and the Vega-Lite itself.

Two guards sit between the data stage and the exports, and one after them:

- `scrub_table` (resolve stage): the loader rejects control characters and
  non-characters in the spec's own text, but a data file (CSV, TSV, JSON) can
  carry them, and vl-convert *aborts the Python process* (SIGABRT,
  vl-convert#220) when one reaches any text it renders: a label, a tick, a
  legend entry. Such characters in data values and column names are replaced
  with U+FFFD, and each field that had any gets one `SpecWarning` naming it
  and the count: a documented, warned fix-up rather than a rejected data file.
- `check_vega_lite` (after translate): the compiled chart is validated
  against Vega-Lite's own JSON schema, so a value the chart schema lets
  through but Vega-Lite refuses (through `config`, `vega_lite` or a loosely
  typed key such as `scale.range`) ends as a `SpecError` at its spot in the
  spec, not as a blank chart or a renderer error.
- `render_refusal` (after render): a chart Vega refused to draw
  (`render.export.RenderRefused`), placed where the spec most likely caused it.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from .. import errors as msg
from ..errors import SpecError, SpecWarning
from ..infra.table import TEXT, Table, to_number
from ..render.export import compile_to_vega, renderer_reason
from .load import Document
from .translate import spec_path_for, vega_lite_schema

REPLACEMENT = "\ufffd"
# Integers past 2⁵³ are not exact in JavaScript, and past 2⁶⁴ the renderer
# cannot read its input at all.
MAX_SAFE_INTEGER = 2**53

# What the renderer must never see: C0 controls except tab, LF and CR, DEL and
# the C1 controls, unpaired surrogates (a JSON file can spell "\ud800"), and
# the Unicode non-characters (U+FDD0..U+FDEF and the last two code points of
# every plane). The same set the spec loader rejects.
RENDERER_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(chr(plane + 0xFFFE) + chr(plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000))
    + "]"
)


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


# ------------------------------------------------------------------ data text

def scrub_text(text: str) -> tuple[str, int]:
    """`text` with every renderer-unsafe character replaced by U+FFFD, and how many."""
    return RENDERER_UNSAFE.subn(REPLACEMENT, text)


def _scrub_value(value: Any) -> tuple[Any, int, int]:
    """A data value (text, or a mapping or list from a JSON file) scrubbed throughout.

    Returns:
        The clean value, how many characters were replaced, and how many
        integers too large for the renderer were made floats.
    """
    if isinstance(value, str):
        return (*scrub_text(value), 0)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        return float(value), 0, 1
    if isinstance(value, dict):
        chars = ints = 0
        clean = {}
        for key, item in value.items():
            key, in_key = scrub_text(key) if isinstance(key, str) else (key, 0)
            clean[key], in_item, big = _scrub_value(item)
            chars, ints = chars + in_key + in_item, ints + big
        return (clean, chars, ints) if chars or ints else (value, 0, 0)
    if isinstance(value, (list, tuple)):
        triples = [_scrub_value(item) for item in value]
        chars, ints = sum(t[1] for t in triples), sum(t[2] for t in triples)
        return (type(value)(t[0] for t in triples), chars, ints) if chars or ints else (value, 0, 0)
    return value, 0, 0


def scrub_table(table: Table, doc: Document) -> tuple[Table, list[SpecWarning]]:
    """Replace renderer-unsafe characters in a chart's data with U+FFFD.

    Args:
        table: the rows from `resolve.resolve_data`.
        doc: the spec's document, to place the warnings at its `data` entry.

    Returns:
        The table (the same object when nothing needed replacing) and one
        `SpecWarning` per column whose name or values had such characters.
    """
    warnings: list[SpecWarning] = []
    where = _data_path(doc)
    location = doc.locate(where)
    renamed: dict = {}
    replaced: dict = {}
    taken = set(table.names)
    for column in table.names:
        name = column
        clean_name, in_name = scrub_text(name)
        if in_name:
            while clean_name in taken:  # never merge two columns
                clean_name += REPLACEMENT
            taken.add(clean_name)
            renamed[column] = clean_name
            warnings.append(SpecWarning(msg.data_column_scrubbed(name, clean_name, in_name), where,
                                        location=location, stage="resolve", hint=msg.data_scrubbed_hint()))
        if table.kinds[column] not in (TEXT, None):  # numbers, booleans and dates hold no text
            continue
        if table.kinds[column] == TEXT and not RENDERER_UNSAFE.search("\n".join(v for v in table[column] if v)):
            continue  # one scan of the whole column finds nothing: the common case
        triples = [_scrub_value(v) for v in table[column]]
        chars, ints = sum(t[1] for t in triples), sum(t[2] for t in triples)
        if chars or ints:
            replaced[column] = [t[0] for t in triples]
        if chars:
            warnings.append(SpecWarning(msg.data_text_scrubbed(renamed.get(column, name), chars), where,
                                        location=location, stage="resolve", hint=msg.data_scrubbed_hint()))
        if ints:
            warnings.append(SpecWarning(msg.data_integers_rounded(renamed.get(column, name), ints), where,
                                        location=location, stage="resolve", hint=msg.data_integers_hint()))
    if not renamed and not replaced:
        return table, []
    for column, values in replaced.items():
        table = table.replace(column, values)
    return table.rename(renamed), warnings


def _data_path(doc: Document) -> tuple:
    data = doc.data.get("data") if isinstance(doc.data, dict) else None
    for key in ("path", "values", "dataset"):
        if isinstance(data, dict) and key in data:
            return ("data", key)
    return ("data",)


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
    """The deepest Vega-Lite schema violation of a compiled chart, or None.

    Returns:
        A jsonschema ``ValidationError`` (its ``absolute_path`` is the path in
        the Vega-Lite), or None when the chart is valid.
    """
    errors = list(_vega_lite_validator().iter_errors(_without_rows(vega_lite)))
    if not errors:
        return None
    return max((leaf for error in errors for leaf in _leaves(error)), key=lambda e: len(e.absolute_path))


def check_vega_lite(vega_lite: dict, doc: Document, table: Table | None = None) -> list[SpecError]:
    """Check compiled Vega-Lite before it reaches the renderer.

    Refuses any URL (the renderer fetches nothing, so it would draw a blank
    chart), numbers that hang or exhaust the renderer (`RENDER_LIMITS`, and
    a `bin.step` that makes more than `MAX_BINS` bins over `table`), titles
    past `TEXT_LIMITS`, number formats d3-format cannot read or that ask for
    a width or precision past `D3_MAX_WIDTH` / `D3_MAX_PRECISION`, and
    anything Vega-Lite's JSON schema refuses.

    Args:
        vega_lite: the compiled chart.
        doc: its spec document, to place a problem in the file.
        table: the chart's rows, to count the bins a `bin.step` makes.

    Returns:
        One `SpecError` for the first problem, at the spec path that set it;
        an empty list when the chart is fine.
    """
    def error(message, vl_path, hint):
        where = spec_path_for(vl_path, doc)
        return [SpecError(message, where, location=doc.locate(where), stage="translate", hint=hint)]

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
    leaf = vega_lite_problem(vega_lite)
    if leaf is not None:
        where = spec_path_for(tuple(leaf.absolute_path), doc)
        return [SpecError(msg.vega_lite_invalid(_reason(leaf)), where, location=doc.locate(where),
                          stage="translate", hint=msg.vega_lite_invalid_hint(_format_vl_path(leaf.absolute_path)))]
    reason = vega_compile_problem(vega_lite)
    if reason is not None:  # valid by the schema, yet Vega-Lite's compiler refuses it
        reason = _first_line(reason)
        where = _refused_at(reason, doc)
        return [SpecError(msg.vega_lite_refused(reason), where, location=doc.locate(where, key=True),
                          stage="translate")]
    return []


def render_refusal(reason: str, doc: Document) -> SpecError:
    """A chart Vega refused to draw (`export.RenderRefused`), placed where the spec most likely caused it.

    Args:
        reason: the renderer's reason (`export.renderer_reason`); only its
            first meaningful line is kept, never a JavaScript stack.
        doc: the spec's document.

    Returns:
        The diagnostic: at the expression a parse or name error concerns,
        else at the value the reason quotes, else at the marks.
    """
    reason = _first_line(reason)
    where = _refused_at(reason, doc)
    hint = msg.render_refused_hint() if EXPRESSION_ERROR.search(reason) else msg.render_refused_other_hint()
    return SpecError(msg.render_refused(reason), where, location=doc.locate(where, key=True), stage="render",
                     hint=hint)


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


def _refused_at(reason: str, doc: Document) -> tuple:
    """Where to point for a compile or render error.

    An expression for a parse or name error (the one holding the name or
    text the reason gives, else the first in the file); else a spec value the
    reason quotes; else the marks.
    """
    def in_file_order(paths):
        return sorted(paths, key=lambda path: (doc.positions[path].line, doc.positions[path].column))

    texts = {path: value for path in doc.positions
             if isinstance(value := _value_at(doc.data, path), str)}
    if EXPRESSION_ERROR.search(reason):
        expressions = in_file_order(path for path in texts if path and isinstance(path[-1], str)
                                    and (path[-1] in EXPRESSION_KEYS or path[-1].endswith("Expr")))
        named = NAMED_IN_REASON.search(reason)
        if named and expressions:
            word = re.compile(rf"(?<![\w.]){re.escape(named.group(1))}(?!\w)")
            exact = [path for path in expressions if texts[path].strip() == named.group(1).strip()]
            return (exact or [path for path in expressions if word.search(texts[path])] or expressions)[0]
        if expressions:
            return expressions[0]
    quoted = {a or b for a, b in QUOTED_IN_REASON.findall(reason)}
    quoted |= {named.group(1)} if (named := NAMED_IN_REASON.search(reason)) else set()
    mentioned = in_file_order(path for path, text in texts.items() if text in quoted)
    if mentioned:
        return mentioned[0]
    return next((path for path in (("mark",), ("layers",)) if path in doc.positions), ())


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
    if table is None or not isinstance(bin_, dict) or not isinstance(field, str) or field not in table:
        return None
    step = bin_.get("step")
    if not _number(step) or step <= 0:
        return None
    values = [number for number in map(to_number, table[field]) if abs(number) < float("inf")]
    if not values:
        return None
    return float(max(values) - min(values)) / step


# d3-format's own specifier grammar: anything else throws "invalid format" while rendering.
D3_NUMBER_FORMAT = re.compile(r"^(?:(.)?([<>=^]))?([+\-( ])?([$#])?(0)?(\d+)?(,)?(\.\d+)?(~)?([a-z%])?$", re.I)


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
            if isinstance(node, str) and not D3_NUMBER_FORMAT.match(node):
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
        match = D3_NUMBER_FORMAT.match(value)
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