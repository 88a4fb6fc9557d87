"""Stage 2: check a loaded document against the JSON Schema in ``schemas/``.

Every violation becomes a `SpecError` at the most specific spec path the
schema can name, reworded for people and placed at its line and column.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat as stat_module
from pathlib import Path
from typing import TYPE_CHECKING

from .. import errors as msg
from ..errors import SpecError, SpecWarning
from ..errors.text import KEY_SYNONYMS, VALUE_SYNONYMS
from ..infra import paths
from ..infra.colors import free_form_problems, resolve_color
from ..infra.shapes import resolve_shape, shape_schema, shapes_version
from ..ir.nodes import Trend
from ..trends import registry as trend_registry
from ..trends.schema import trend_properties

if TYPE_CHECKING:  # annotations only: checking a document needs no YAML loader
    from .load import Document

SCHEMA_TYPE_NAMES = {
    "object": "a mapping", "array": "a list", "string": "a string", "boolean": "true or false",
    "number": "a number", "integer": "a whole number", "null": "null",
}


@functools.cache
def load_schema() -> dict:
    """The chart JSON Schema (`paths.SCHEMA_PATH`), read once per process."""
    return json.loads(paths.SCHEMA_PATH.read_text(encoding="utf-8"))


# The trend keys the schema file writes by hand (the `ir.Trend` node's own);
# every other trend key is a registered method's parameter.
TREND_KEYS = tuple(name for name in Trend.__dataclass_fields__ if name not in ("path", "source", "parameters"))


def compose_schema(base: dict) -> dict:
    """The chart schema with its trend and marker-shape parts written from the registries.

    The trend method enum, each method's parameters and the label's
    placeholders come from `trends.registry` (`trends.schema`), the shape
    vocabulary from `infra.shapes`; the rest is `base` as written.
    ``scripts/build_schema.py`` writes this for the built-ins into
    ``schemas/chart.schema.json``.

    Args:
        base: a chart schema (the file's).

    Returns:
        A new schema; `base` is left as it is.
    """
    # Only the mappings on the way to the two rewritten parts are copied; the rest is shared with `base`,
    # which nothing changes (a deep copy of the whole schema took ~15 ms of a cold compile).
    schema = {**base, "$defs": dict(base["$defs"])}
    defs = schema["$defs"]
    trend = defs["trend"] = dict(defs["trend"])
    trend["properties"] = trend_properties(trend["properties"], TREND_KEYS)
    style = defs["marker_style"] = dict(defs["marker_style"])
    style["properties"] = {**style["properties"], "shape": shape_schema(style["properties"]["shape"])}
    return schema


def chart_schema() -> dict:
    """The schema documents are checked with: the file's, composed with what is registered now."""
    return _composed(trend_registry.version(), shapes_version())


@functools.lru_cache(maxsize=4)
def _composed(methods_version: int, shapes: int) -> dict:
    return compose_schema(load_schema())


@functools.lru_cache(maxsize=4)
def _validator(methods_version: int = 0, shapes: int = 0):
    # Built once per registry state: jsonschema.validate() re-checks the schema on every call.
    from jsonschema import Draft202012Validator  # ~0.1 s: only once a document is checked (not `chartc schema`)

    return Draft202012Validator(_composed(methods_version, shapes), format_checker=format_checker())


@functools.cache
def format_checker():
    """The schema's own formats: ``color`` (`colors.resolve_color`); standard formats are not checked."""
    from jsonschema import FormatChecker  # as in `_validator`

    checker = FormatChecker(formats=())
    checker.checks("color", raises=SpecError)(_is_color)
    return checker


def _is_color(instance) -> bool:
    if isinstance(instance, str):  # other types get the schema's type error
        resolve_color(instance)
    return True


def validate_document(doc: Document) -> list[SpecError]:
    """Check a document against the chart schema.

    Args:
        doc: the loaded spec.

    Returns:
        Every violation, in file order, each reworded at its most specific path.
    """
    problems: list[SpecError] = []
    for error in _validator(trend_registry.version(), shapes_version()).iter_errors(doc.data):
        problems.extend(_describe(error, doc))
    problems.extend(_check_structure(doc))
    unique = {p.diagnostic(): p for p in problems}
    return sorted(unique.values(), key=_file_order)


def _file_order(error: SpecError):
    loc = error.location
    return (loc.line, loc.column) if loc else (0, 0)


def check_schema_reference(doc: Document) -> list[SpecWarning]:
    """A `$schema` that names a local copy of the chart schema from another chartc version.

    Editors complete and check a spec against the file its `$schema` names
    (the copy `chartc init` writes); a stale copy quietly disagrees with chartc.

    Args:
        doc: the loaded spec.

    Returns:
        One warning at the `$schema` key, or none: for a URL, an absolute path,
        a missing or unreadable file, another schema, or the same schema.
    """
    reference = doc.data.get("$schema") if isinstance(doc.data, dict) else None
    if not isinstance(reference, str) or URL_OR_DRIVE.match(reference) or Path(reference).is_absolute():
        return []
    target = Path(doc.file).parent / reference
    try:
        stat = target.stat()
    except (OSError, ValueError):  # missing, or a name the system refuses
        return []
    if not stat_module.S_ISREG(stat.st_mode) or stat.st_size > MAX_SCHEMA_COPY_BYTES:  # not a copy chartc wrote
        return []
    if not _is_stale_copy(os.path.realpath(target), stat.st_mtime_ns, stat.st_size):
        return []
    return [SpecWarning(msg.schema_copy_stale(reference), ("$schema",), location=doc.locate(("$schema",), key=True),
                        stage="schema", hint=msg.schema_copy_stale_hint())]


# The schema is ~90 KB; a $schema naming something far larger (or a device) is not read.
MAX_SCHEMA_COPY_BYTES = 4 * 1024 * 1024
URL_OR_DRIVE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # https:, file:, C:


@functools.lru_cache(maxsize=64)
def _is_stale_copy(path: str, mtime_ns: int, size: int) -> bool:
    # Keyed by the file's stat too: each copy is read once, and again only after
    # it changes (`chartc serve` outlives a `chartc init`).
    try:
        copy = json.loads(Path(path).read_bytes())
    except (OSError, ValueError):
        return False
    schema = load_schema()
    return isinstance(copy, dict) and copy.get("$id") == schema.get("$id") and copy != schema


def _check_structure(doc: Document) -> list[SpecError]:
    """Rules about which keys go together, with messages the schema cannot give."""
    data = doc.data if isinstance(doc.data, dict) else {}
    problems = []
    has_mark, has_layers = "mark" in data, "layers" in data
    if has_mark and has_layers:
        problems.append(_error(msg.mark_and_layers(), ("mark",), doc, hint=msg.mark_and_layers_hint()))
    elif not has_mark and not has_layers:
        problems.append(_error(msg.no_mark(), (), doc, hint=msg.no_mark_hint()))
    if "markers" in data and has_layers:
        problems.append(_error(msg.markers_with_layers(), ("markers",), doc, key=True))
    if "data" not in data:
        problems.append(_error(msg.missing_key("data"), (), doc, hint=msg.data_hint()))
    if has_mark:
        problems.extend(_check_mark(data["mark"], ("mark",), doc))
    problems.extend(_check_encoding(data.get("encoding"), ("encoding",), doc))
    problems.extend(_check_shapes(data, (), doc))
    facet = data.get("facet")
    for channel in ("row", "column") if isinstance(facet, dict) else ():
        if isinstance(facet.get(channel), dict):
            problems.extend(
                _error(msg.facet_property_not_allowed(prop, channel), ("facet", channel, prop), doc,
                       hint=msg.allowed_keys(FACET_CHANNEL_KEYS), key=True)
                for prop in facet[channel] if prop not in FACET_CHANNEL_KEYS)
    for key in FREE_FORM_KEYS:  # passed to Vega-Lite as written: colours, fonts and unsafe text
        if isinstance(data.get(key), dict):
            problems.extend(_error(p.message, p.path, doc, hint=p.hint) for p in free_form_problems(data[key], (key,)))
    layers = data.get("layers")
    for index, layer in enumerate(layers if isinstance(layers, list) else []):
        if not isinstance(layer, dict):
            continue
        path = ("layers", index)
        if "mark" in layer:
            problems.extend(_check_mark(layer["mark"], path + ("mark",), doc))
        problems.extend(_check_encoding(layer.get("encoding"), path + ("encoding",), doc))
        problems.extend(_check_shapes(layer, path, doc))
        if isinstance(layer.get("vega_lite"), dict):  # a layer's escape hatch: passed on as written too
            problems.extend(_error(p.message, p.path, doc, hint=p.hint)
                            for p in free_form_problems(layer["vega_lite"], path + ("vega_lite",)))
        if "mark" in layer and "trend" in layer:
            problems.append(_error(msg.mark_and_trend(), path + ("trend",), doc, key=True))
        elif "mark" not in layer and "trend" not in layer:
            problems.append(_error(msg.layer_needs_mark(), path, doc, hint=msg.layer_needs_mark_hint()))
        if "markers" in layer and "trend" in layer:
            problems.append(_error(msg.markers_on_trend(), path + ("markers",), doc, key=True))
    problems.extend(_check_params(data, doc))
    problems.extend(_check_imputes(data, doc))
    problems.extend(_check_windows(data, doc))
    problems.extend(_check_lookups(data, doc))
    return problems


def _transform_steps(data: dict):
    """(spec path, step) of every transform step: the chart's, then each layer's."""
    layers = data.get("layers") if isinstance(data.get("layers"), list) else []
    owners = [((), data)] + [(("layers", i), layer) for i, layer in enumerate(layers) if isinstance(layer, dict)]
    for path, owner in owners:
        steps = owner.get("transform")
        for index, step in enumerate(steps if isinstance(steps, list) else []):
            yield path + ("transform", index), step


# The most key values an impute's sequence may name: every group gets a row per key.
MAX_KEYVALS = 100_000


def _check_imputes(data: dict, doc: Document) -> list[SpecError]:
    """An impute's option its method never reads (Vega-Lite drops it without a word), or a sequence too long to fill."""
    problems = []
    for at, step in _transform_steps(data):
        if not isinstance(step, dict) or "impute" not in step:
            continue
        method = step.get("method", "value")
        keyvals = step.get("keyvals")
        if isinstance(keyvals, dict) and isinstance(keyvals.get("stop"), (int, float)):
            start, stride = keyvals.get("start", 0), keyvals.get("step") or 1
            count = (keyvals["stop"] - start) / stride if isinstance(start, (int, float)) and isinstance(
                stride, (int, float)) else 0
            if count > MAX_KEYVALS:
                problems.append(_error(msg.impute_sequence_too_long(MAX_KEYVALS), at + ("keyvals",), doc,
                                       hint=msg.impute_sequence_too_long_hint()))
        if method != "value" and "value" in step:
            problems.append(_error(msg.impute_value_unused(method), at + ("value",), doc, key=True,
                                   hint=msg.impute_value_unused_hint()))
        if method == "value" and "frame" in step:
            problems.append(_error(msg.impute_frame_unused(), at + ("frame",), doc, key=True,
                                   hint=msg.impute_frame_unused_hint()))
    return problems


# Window ops that read a field (every aggregate op but count, and the value ops), and those with a param.
WINDOW_FIELDLESS_OPS = frozenset({"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "count"})
WINDOW_PARAM_NEEDED = frozenset({"ntile", "nth_value"})
WINDOW_PARAM_TAKEN = frozenset({"ntile", "nth_value", "lag", "lead"})


def _check_windows(data: dict, doc: Document) -> list[SpecError]:
    """Window transforms Vega would throw on or read otherwise than written: a field, a param, the frame's order."""
    problems = []
    for at, step in _transform_steps(data):
        if not isinstance(step, dict) or not isinstance(step.get("window"), list):
            continue
        for number, op in enumerate(step["window"]):
            name = op.get("op") if isinstance(op, dict) else None
            if not isinstance(name, str):
                continue
            if name not in WINDOW_FIELDLESS_OPS and "field" not in op:
                problems.append(_error(msg.window_op_needs_field(name), at + ("window", number), doc))
            param = op.get("param")
            whole = isinstance(param, (int, float)) and not isinstance(param, bool) and param > 0 \
                and float(param).is_integer()
            if (name in WINDOW_PARAM_NEEDED and param is None) or (
                    name in WINDOW_PARAM_TAKEN and param is not None and not whole):
                where = at + ("window", number) + (("param",) if param is not None else ())
                problems.append(_error(msg.window_op_param(name), where, doc))
        frame = step.get("frame")
        if isinstance(frame, list) and len(frame) == 2 and all(
                value is None or isinstance(value, int) for value in frame) and (
                (frame[0] is not None and frame[0] > 0) or (frame[1] is not None and frame[1] < 0)):
            problems.append(_error(msg.window_frame_order(frame), at + ("frame",), doc,
                                   hint=msg.window_frame_hint(frame)))
    problems.extend(_check_densities(data, doc))
    return problems


def _check_lookups(data: dict, doc: Document) -> list[SpecError]:
    """Each lookup's `as` names as many fields as `from.fields` lists (Vega refuses any other count)."""
    problems = []
    for at, step in _transform_steps(data):
        if not isinstance(step, dict) or "lookup" not in step or "as" not in step:
            continue
        fields = step.get("from", {}).get("fields") if isinstance(step.get("from"), dict) else None
        names = step["as"]
        count = 1 if isinstance(names, str) else len(names) if isinstance(names, list) else None
        if isinstance(fields, list) and count is not None and count != len(fields):
            problems.append(_error(msg.lookup_as_count(len(fields), count), at + ("as",), doc,
                                   hint=msg.lookup_as_count_hint()))
    return problems


def _check_densities(data: dict, doc: Document) -> list[SpecError]:
    """Each density transform's extent increases and its bandwidth is not negative."""
    layers = data.get("layers") if isinstance(data.get("layers"), list) else []
    owners = [((), data)] + [(("layers", i), layer) for i, layer in enumerate(layers) if isinstance(layer, dict)]
    problems = []
    for path, owner in owners:
        steps = owner.get("transform")
        for index, step in enumerate(steps if isinstance(steps, list) else []):
            if not isinstance(step, dict) or "density" not in step:
                continue
            at = path + ("transform", index)
            extent = step.get("extent")
            if isinstance(extent, list) and len(extent) == 2 and all(_is_number(value) for value in extent) \
                    and not extent[0] < extent[1]:
                problems.append(_error(msg.density_extent_empty(*extent), at + ("extent",), doc))
            bandwidth = step.get("bandwidth")
            if _is_number(bandwidth) and bandwidth < 0:
                problems.append(_error(msg.density_bandwidth_negative(bandwidth), at + ("bandwidth",), doc,
                                       hint=msg.density_bandwidth_negative_hint()))
    return problems


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _declared_params(data: dict):
    """(path, param) of every selection the chart declares: the chart's, then each layer's."""
    layers = data.get("layers") if isinstance(data.get("layers"), list) else []
    owners = [((), data)] + [(("layers", i), layer) for i, layer in enumerate(layers) if isinstance(layer, dict)]
    for path, owner in owners:
        params = owner.get("params")
        for index, param in enumerate(params if isinstance(params, list) else []):
            if isinstance(param, dict) and isinstance(param.get("name"), str):
                yield path + ("params", index), param


def _check_params(data: dict, doc: Document) -> list[SpecError]:
    """Selections: one name each, on mark layers, bound to what they can drive; conditions naming one of them."""
    problems, names = [], []
    layers = data.get("layers") if isinstance(data.get("layers"), list) else []
    for path, param in _declared_params(data):
        if param["name"] in names:
            problems.append(_error(msg.param_duplicate(param["name"]), path + ("name",), doc))
        names.append(param["name"])
        if path[:1] == ("layers",) and "trend" in layers[path[1]]:
            problems.append(_error(msg.param_on_trend(), path[:2] + ("params",), doc, key=True))
        select = param.get("select")
        kind = select.get("type") if isinstance(select, dict) else select
        fields = select.get("fields") if isinstance(select, dict) else None
        if param.get("bind") == "legend" and (kind != "point" or not isinstance(fields, list) or len(fields) != 1):
            problems.append(_error(msg.param_bind("legend", "a point selection of one field: "
                                                  "select: {type: point, fields: [FIELD]}"), path + ("bind",), doc))
        elif param.get("bind") == "scales" and kind != "interval":
            problems.append(_error(msg.param_bind("scales", "an interval selection: select: interval"),
                                   path + ("bind",), doc))
    owners = [((), data)] + [(("layers", i), layer) for i, layer in enumerate(layers) if isinstance(layer, dict)]
    for path, owner in owners:
        steps = owner.get("transform")
        for index, step in enumerate(steps if isinstance(steps, list) else ()):
            predicate = step.get("filter") if isinstance(step, dict) else None
            name = predicate.get("param") if isinstance(predicate, dict) else None
            if isinstance(name, str) and name not in names:
                problems.append(_error(msg.filter_param_undefined(name), path + ("transform", index, "filter", "param"),
                                       doc, hint=msg.param_undefined_hint(msg.did_you_mean(name, names), names)))
        encoding = owner.get("encoding")
        for channel, definition, where, condition in _conditions(encoding, path):
            name = condition.get("param")
            if isinstance(name, str) and name not in names:
                problems.append(_error(msg.param_undefined(name), where + ("param",),
                                       doc, hint=msg.param_undefined_hint(msg.did_you_mean(name, names), names)))
            if "field" in condition and not isinstance(where[-1], int):  # a list's (values only): the schema's
                if "value" in condition:
                    problems.append(_error(msg.condition_value_and_field(channel), where + ("value",), doc, key=True,
                                           hint=msg.condition_value_and_field_hint()))
                elif "field" in definition:
                    problems.append(_error(msg.condition_field_without_value(channel), path + ("encoding", channel, "field"),
                                           doc, key=True, hint=msg.condition_field_without_value_hint()))
    return problems


def _conditions(encoding, path):
    """(channel, its definition, the condition's path, the condition) of every condition, a list's one by one."""
    for channel, definition in (encoding.items() if isinstance(encoding, dict) else ()):
        condition = definition.get("condition") if isinstance(definition, dict) else None
        where = path + ("encoding", channel, "condition")
        if isinstance(condition, dict):
            yield channel, definition, where, condition
        elif isinstance(condition, list):  # tried in order
            yield from ((channel, definition, where + (index,), item) for index, item in enumerate(condition)
                        if isinstance(item, dict))


# Composite marks take only these properties (Vega-Lite's BoxPlotDef, ErrorBarDef,
# ErrorBandDef); every other mark takes all of the mark object's keys but these
# composite-only ones.
COMPOSITE_MARK_PROPERTIES = {
    "boxplot": ("type", "color", "opacity", "size", "extent", "orient", "clip", "ticks"),
    "errorbar": ("type", "color", "opacity", "size", "thickness", "extent", "orient", "clip", "ticks"),
    "errorband": ("type", "color", "opacity", "interpolate", "extent", "orient", "clip"),
}
COMPOSITE_ONLY_PROPERTIES = ("extent", "ticks")
# chartc's own mark properties (no Vega-Lite key; the translator consumes them): the marks that take each.
OWN_MARK_PROPERTIES = {"density": ("point", "circle", "square")}
FACET_CHANNELS = ("row", "column", "facet")
# Free-form mappings the schema leaves open, checked by `colors.free_form_problems`.
FREE_FORM_KEYS = ("config", "vega_lite")
# The channel keys a facet row or column takes (Vega-Lite's RowColumnEncodingFieldDef).
FACET_CHANNEL_KEYS = ("field", "type", "title", "aggregate", "bin", "timeUnit", "sort")


def _check_mark(mark, path, doc: Document) -> list[SpecError]:
    """Mark properties that the schema allows but that the mark's kind has not."""
    if not isinstance(mark, dict) or not isinstance(mark.get("type"), str):
        return []
    kind = mark["type"]
    allowed = COMPOSITE_MARK_PROPERTIES.get(kind)
    problems = []
    for prop in mark:
        if allowed is not None and prop not in allowed:
            hint = msg.allowed_keys(allowed)
        elif allowed is None and prop in COMPOSITE_ONLY_PROPERTIES:
            hint = msg.mark_property_hint([other for other, keys in COMPOSITE_MARK_PROPERTIES.items() if prop in keys])
        elif allowed is None and prop in OWN_MARK_PROPERTIES and kind not in OWN_MARK_PROPERTIES[prop]:
            hint = msg.mark_property_hint(list(OWN_MARK_PROPERTIES[prop]))
        else:
            continue
        problems.append(_error(msg.mark_property_not_for(prop, kind), path + (prop,), doc, hint=hint, key=True))
    return problems


def _shape_places(owner: dict):
    """Where a chart or layer writes a marker shape: marker styles, the mark, a shape channel's constant and range."""
    markers = owner.get("markers")
    if isinstance(markers, dict):
        styles = markers.get("styles")
        yield from (("markers", "styles", key, "shape") for key in (styles if isinstance(styles, dict) else ()))
        yield ("markers", "default", "shape")
    yield ("mark", "shape")
    yield ("encoding", "shape", "value")
    channel = owner.get("encoding", {}).get("shape") if isinstance(owner.get("encoding"), dict) else None
    scale = channel.get("scale") if isinstance(channel, dict) else None
    shapes = scale.get("range") if isinstance(scale, dict) else None
    yield from (("encoding", "shape", "scale", "range", i) for i in range(len(shapes) if isinstance(shapes, list) else 0))


def _check_shapes(owner: dict, path, doc: Document) -> list[SpecError]:
    """Shape names `shapes.resolve_shape` does not know, with its message and did-you-mean.

    Checked here, before any data is read, so `chartc validate` refuses what a
    compile refuses; stage "check", as the marker check has always given them.
    """
    problems = []
    for place in _shape_places(owner):
        node = owner
        for key in place:
            if isinstance(node, list) and isinstance(key, int):  # a range item (indexed only where it is a list)
                node = node[key]
            else:
                node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, str):  # absent, or the schema's type error
            continue
        try:
            resolve_shape(node)
        except SpecError as error:
            where = path + place
            problems.append(SpecError(error.message, where, location=doc.locate(where), stage="check",
                                      hint=error.hint))
    return problems


# Channels without a constant form in Vega-Lite: no `value`, or no `datum`.
CHANNEL_CONSTANTS = {"detail": (), "tooltip": ("value",), "order": ("value",)}
CONSTANTS = ("value", "datum")


def _check_encoding(encoding, path, doc: Document) -> list[SpecError]:
    """Constants (`value`, `datum`) where a channel has none, or next to other keys."""
    if not isinstance(encoding, dict):
        return []
    problems = []
    known = _resolve({"$ref": "#/$defs/channel"}).get("properties", {})
    for channel, definition in encoding.items():
        items = definition if isinstance(definition, list) else [definition]
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            where = path + (channel,) + ((index,) if isinstance(definition, list) else ())
            constants = [c for c in CONSTANTS if c in item]
            allowed = CHANNEL_CONSTANTS.get(channel, CONSTANTS)
            for constant in constants:
                if constant not in allowed:
                    problems.append(_error(msg.channel_takes_no(constant, channel), where + (constant,), doc,
                                           hint=msg.channel_takes_no_hint(), key=True))
            if constants and constants[0] in allowed:
                problems.extend(
                    _error(msg.constant_channel_with(prop, constants[0]), where + (prop,), doc,
                           hint=msg.constant_channel_hint(constants[0]), key=True)
                    for prop in item if prop not in (constants[0], "condition") and prop in known)  # unknown: E201
    return problems


def _error(message, path, doc, *, hint=None, key=False) -> SpecError:
    return SpecError(message, path, location=doc.locate(path, key=key), stage="schema", hint=hint)


def _describe(error, doc: Document) -> list[SpecError]:
    """Reword one jsonschema error (descending into anyOf/oneOf) for people."""
    path = tuple(error.absolute_path)
    validator, value, instance = error.validator, error.validator_value, error.instance
    refused = _refused_on_purpose(path, instance, doc)
    if refused is not None:
        return [refused]
    if validator in ("anyOf", "oneOf"):
        if path == ("data",) or (validator == "oneOf" and _is_data_choice(error)):
            return [_describe_data_sources(instance, path, doc)]
        return _describe_choice(error, doc)
    if validator == "not":
        return []  # structural rules are reported by _check_structure
    if validator == "format" and isinstance(error.cause, SpecError):  # a colour: resolve_color says why
        return [_error(error.cause.message, path, doc, hint=error.cause.hint)]
    if validator == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        extra = [k for k in instance if k not in allowed] if isinstance(instance, dict) else []
        if not allowed:  # e.g. a closed mapping with no keys
            return [_error(msg.unknown_key(k), path + (k,), doc, key=True) for k in extra]
        return [
            _error(msg.unknown_key(k), path + (k,), doc, key=True,
                   hint=msg.did_you_mean(k, allowed, synonyms=KEY_SYNONYMS) or _unknown_key_hint(k, path)
                   or msg.allowed_keys(allowed))
            for k in extra
        ]
    if validator == "enum":
        choices = [v for v in value if v is not None and not isinstance(v, bool)]
        hint = msg.did_you_mean(instance, choices, synonyms=VALUE_SYNONYMS) if isinstance(instance, str) else None
        return [_error(msg.not_one_of(instance, value), path, doc, hint=hint)]
    if validator == "const":
        return [_error(msg.not_one_of(instance, [value]), path, doc)]
    if validator == "type":
        wanted = [value] if isinstance(value, str) else list(value)
        return [_error(msg.wrong_type(instance, [SCHEMA_TYPE_NAMES[w] for w in wanted]), path, doc)]
    if validator == "required":
        missing = [k for k in value if isinstance(instance, dict) and k not in instance]
        extra = [k for k in instance if k not in error.schema.get("properties", {})] if isinstance(instance, dict) else []
        missing = [k for k in missing if not any(msg.did_you_mean(e, [k]) for e in extra)]
        properties = error.schema.get("properties", {})
        return [_error(msg.missing_key(k), path, doc, key=bool(path),
                       hint=_as_hint(_resolve(properties.get(k, {})).get("description")))
                for k in missing]
    if validator in BOUNDS:
        return [_error(msg.out_of_bounds(instance, BOUNDS[validator], value), path, doc)]
    if validator in ("minItems", "maxItems", "minProperties", "maxProperties", "minLength"):
        return [_error(msg.wrong_size(validator, value), path, doc)]
    if validator == "maxLength":  # jsonschema's own message repeats the whole text
        return [_error(msg.text_too_long(len(instance), value), path, doc, hint=msg.text_too_long_hint())]
    if validator == "pattern":
        described = error.schema.get("description") or (error.parent.schema.get("description") if error.parent else None)
        return [_error(msg.bad_pattern(instance), path, doc, hint=_as_hint(described))]
    return [_error(error.message, path, doc)]


def _unknown_key_hint(key: str, path: tuple) -> str | None:
    """A hint for keys people bring from Vega-Lite: `encoding: {row: ...}`."""
    if path and path[-1] == "encoding" and key in FACET_CHANNELS:
        return msg.facet_channel_hint("column" if key == "facet" else key)
    return None


def _refused_on_purpose(path: tuple, instance, doc: Document) -> SpecError | None:
    """A value chartc leaves out on purpose, said with why: the schema can only say it is not allowed."""
    if instance == "ci" and path[-2:] == ("trend", "extent"):  # a confidence band, taken for the line's x range
        return _error(msg.trend_extent_ci(), path, doc, hint=msg.trend_extent_ci_hint())
    return None


def _describe_data_sources(instance, path, doc: Document) -> SpecError:
    sources = [k for k in instance if k in DATA_SOURCES] if isinstance(instance, dict) else []
    if len(sources) > 1:  # point at the first source too many
        return _error(msg.data_two_sources(sources), path + (sources[1],), doc, key=True,
                      hint=msg.data_two_sources_hint())
    return _error(msg.data_one_source(), path, doc, hint=msg.data_hint())


def _as_hint(description: str | None) -> str | None:
    """A schema description as a hint: plain quotes, no final full stop."""
    if not description:
        return None
    text = description.replace("`", "'").rstrip(".")
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


DATA_SOURCES = ("values", "path", "dataset", "frame", "table")
BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}


def _is_data_choice(error) -> bool:
    return all(set(sub.get("required", [])) & set(DATA_SOURCES) for sub in error.validator_value)


def _describe_choice(error, doc: Document) -> list[SpecError]:
    """Pick the branch of an anyOf/oneOf the user meant and report its errors.

    The branch whose JSON type matches the value is the one meant (a mapping
    where a channel may be a string or a mapping). Among mappings, the branch
    that knows most of the value's keys (or near misses of them) is meant:
    ``{calculat: ..., as: x}`` is a misspelled calculate transform, not a
    filter. Ties go to the branch whose errors go deepest, then the fewest.
    """
    by_branch: dict[int, list] = {}
    for sub in error.context:
        by_branch.setdefault(sub.schema_path[0], []).append(sub)
    branches = error.validator_value
    instance = error.instance
    path = tuple(error.absolute_path)
    kind = type(instance)
    matching = [i for i in by_branch if _branch_accepts_type(branches[i], kind)]
    if not matching:
        return [_error(msg.wrong_type(instance, _choice_names(branches)), path, doc)]
    scores = {i: _key_score(branches[i], instance) for i in matching}
    keyed = [i for i in matching if "properties" in _resolve(branches[i])]
    if isinstance(instance, dict) and len(keyed) > 1 and not any(scores[i] for i in keyed):
        # A mapping that looks like none of the variants (a transform with no known key).
        keys = [_resolve(branches[i]).get("required", [None])[0] for i in keyed]
        if all(keys):
            return [_error(msg.needs_one_of_keys(keys), path, doc)]
    best = max(matching, key=lambda i: (scores[i], max(len(e.absolute_path) for e in by_branch[i]),
                                        -len(by_branch[i])))
    errors = by_branch[best]
    if (len(errors) == 1 and errors[0].validator in ("const", "enum") and len(branches) > 1
            and tuple(errors[0].absolute_path) == path and len(_choice_names([branches[best]])) <= 3):
        # `width: wide`: the string branch is a constant, so name every alternative.
        hint = (msg.did_you_mean(instance, _branch_constants(branches[best]), synonyms=VALUE_SYNONYMS)
                if isinstance(instance, str) else None)
        return [_error(msg.wrong_type(instance, _choice_names(branches)), path, doc, hint=hint)]
    found: list[SpecError] = []
    for sub in errors:
        found.extend(_describe(sub, doc))
    return found


def _key_score(branch: dict, instance) -> float:
    """How well a mapping's keys fit a branch: known keys count 1, near misses 0.5."""
    properties = _resolve(branch).get("properties")
    if not isinstance(instance, dict) or not properties:
        return 0
    known = sum(1 for k in instance if k in properties)
    near = sum(0.5 for k in instance if k not in properties and msg.did_you_mean(k, properties))
    return known + near


def _branch_constants(branch: dict) -> list:
    branch = _resolve(branch)
    return list(branch.get("enum", [branch["const"]] if "const" in branch else []))


def _choice_names(branches) -> list[str]:
    """What a set of alternatives accepts, for "expected ..." messages; constants quoted."""
    names = []
    for branch in branches:
        constants = _branch_constants(branch)
        resolved = _resolve(branch)
        if constants and "type" not in resolved:
            names.extend(repr(c) if isinstance(c, str) else _describe_constant(c) for c in constants)
        elif resolved.get("type") == "string" and "pattern" in resolved and resolved.get("examples"):
            names.append(f"a string such as {resolved['examples'][0]!r}")  # `width: 3.25in`
        else:
            names.extend(_branch_type_names(branch))
    return list(dict.fromkeys(names))


def _describe_constant(value) -> str:
    return "null" if value is None else ("true or false" if isinstance(value, bool) else repr(value))


def _resolve(branch: dict) -> dict:
    ref = branch.get("$ref")
    if ref:
        return chart_schema()["$defs"][ref.rsplit("/", 1)[-1]]
    return branch


def _branch_types(branch: dict) -> list[str]:
    branch = _resolve(branch)
    if "type" in branch:
        return [branch["type"]] if isinstance(branch["type"], str) else list(branch["type"])
    if "enum" in branch or "const" in branch:
        values = branch.get("enum", [branch.get("const")])
        return sorted({_schema_type_of(v) for v in values})
    if "anyOf" in branch:
        return [t for sub in branch["anyOf"] for t in _branch_types(sub)]
    return ["object", "array", "string", "number", "boolean", "null"]


def _schema_type_of(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]


def _branch_accepts_type(branch: dict, kind: type) -> bool:
    names = _branch_types(branch)
    if kind is bool:
        return "boolean" in names
    if kind in (int, float):
        return "number" in names or ("integer" in names and kind is int)
    return _schema_type_of(kind()) in names


def _branch_type_names(branch: dict) -> list[str]:
    return [SCHEMA_TYPE_NAMES[t] for t in _branch_types(branch)]


# ------------------------------------------------------------------ the project's defaults

PROJECT_KEYS = ("preset", "engine", "spark")
# The project file's [spark] table: where Spark runs (`stages.data.spark.SparkSettings`).
SPARK_KEYS = ("master", "remote", "conf")


def project_defaults(spec: str | os.PathLike) -> tuple[dict, Path | None]:
    """The defaults the project's ``chartc.toml`` sets for a spec (``{"preset": ..., "engine": ...,
    "spark": {...}}``), and the file.

    Raises:
        SpecError: the file is not TOML, has a key chartc does not know, or names no preset (or engine)
            chartc has; at the file, on the key's line.
    """
    import tomllib  # the standard library's; only when a project file is there

    from ..infra.paper import ENGINES, PRESETS, project_file

    path = project_file(spec)
    if path is None:
        return {}, None
    text = path.read_bytes().decode("utf-8", errors="replace")
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise project_error(path, text, None, msg.project_file_invalid(str(error))) from None
    for key, value in values.items():
        if key not in PROJECT_KEYS:
            raise project_error(path, text, key, msg.project_file_invalid(msg.unknown_key(key)))
        if key == "spark":
            _check_spark_table(path, text, value)
        elif not isinstance(value, str):
            raise project_error(path, text, key, msg.project_file_invalid(f"{key} must be a string"))
    if "preset" in values and values["preset"] not in PRESETS:
        raise project_error(path, text, "preset", msg.unknown_preset(values["preset"], list(PRESETS)),
                             hint=msg.did_you_mean(values["preset"], PRESETS))
    if "engine" in values and values["engine"] not in ENGINES:
        raise project_error(path, text, "engine", msg.unknown_engine(values["engine"], ENGINES),
                             hint=msg.did_you_mean(values["engine"], ENGINES))
    return values, path


def _check_spark_table(path: Path, text: str, table) -> None:
    """The project file's [spark] table: text `master` and `remote`, a `conf` table of plain values."""
    if not isinstance(table, dict):
        raise project_error(path, text, "spark", msg.project_file_invalid("spark must be a table ([spark])"))
    for key, value in table.items():
        if key not in SPARK_KEYS:
            raise project_error(path, text, key, msg.project_file_invalid(msg.unknown_key(key)),
                                 hint=msg.did_you_mean(key, SPARK_KEYS))
        if key == "conf":
            if not isinstance(value, dict) or not all(isinstance(v, (str, int, float, bool)) for v in value.values()):
                raise project_error(path, text, key, msg.project_file_invalid(
                    "spark.conf must be a table of Spark settings to text, numbers or booleans"))
        elif not isinstance(value, str):
            raise project_error(path, text, key, msg.project_file_invalid(f"spark.{key} must be a string"))


def project_error(path: Path, text: str, key: str | None, message, hint: str | None = None,
                  stage: str = "schema") -> SpecError:
    """A problem of the project file, on the line of `key` (its first line without one)."""
    line = 1
    if key is not None:
        for number, written in enumerate(text.splitlines(), 1):
            if written.split("=")[0].strip().strip("\"'") == key:
                line = number
                break
    return SpecError(message, (), location=msg.Location(str(path), line, 1), stage=stage,
                     hint=hint or msg.project_file_hint())
