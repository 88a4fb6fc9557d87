"""Vega-Lite building blocks shared by the chart, legend and trend translators.

A channel mapping as an Altair channel object (`translate_channel`, with its
type inferred and its `format` preset expanded), text as a Vega expression
string literal (`expression_string`) and the recursive merge every config
goes through (`deep_merge`). The chart translator (`translate`), the legend
plan (`legend`) and the trend layers (`trend_layers`) all build on these, so
none of them imports another for them.

Altair is passed in as `alt` (the caller imported it): importing this module
costs nothing.
"""

from __future__ import annotations

import copy
import json

from ...infra.colors import PALETTES, is_color_key, resolve_color
from ...infra.shapes import resolve_shape
from ..data import channel_type

__all__ = ["FORMAT_PRESETS", "POW10_EXPR", "CHANNEL_CLASSES", "apply_format", "channel_type", "deep_merge",
           "expression_string", "translate_channel"]

# Axis / legend `format` presets: d3-format strings, or a label expression.
POW10_EXPR = (
    "abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) < 1e-6 ? "
    "'10' + replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace("
    "format(round(log(datum.value) / LN10), 'd'),"
    " /0/g, '⁰'), /1/g, '¹'), /2/g, '²'), /3/g, '³'), /4/g, '⁴'), /5/g, '⁵'),"
    " /6/g, '⁶'), /7/g, '⁷'), /8/g, '⁸'), /9/g, '⁹'), /[-−]/g, '⁻') : ''"
)
# preset -> (d3 format for text and tooltip channels, label expression for axes
# and legends). A label expression formats each label on its own: `si` gives
# 200k, 1.2M where the d3 format alone gives 0.2M, 1.2M (one prefix per axis);
# `~%` rather than `.0%`, which repeats labels on fine ticks (1%, 1%, 2%).
FORMAT_PRESETS = {
    "pow10": (None, POW10_EXPR),
    "si": ("~s", "format(datum.value, '~s')"),
    "percent": ("~%", None),
}

CHANNEL_CLASSES = {
    "x": "X", "y": "Y", "x2": "X2", "y2": "Y2", "color": "Color", "shape": "Shape", "size": "Size",
    "fillOpacity": "FillOpacity", "strokeOpacity": "StrokeOpacity", "strokeWidth": "StrokeWidth",
    "opacity": "Opacity", "strokeDash": "StrokeDash", "text": "Text", "tooltip": "Tooltip", "detail": "Detail",
    "xOffset": "XOffset", "yOffset": "YOffset",
    "theta": "Theta", "radius": "Radius", "order": "Order",
}
# A log axis ticks 2, 3, ... 9 between decades, ever closer together: Vega-Lite
# hides overlapping labels ("greedy"), but keeps labels that touch, and
# `200` `300` read as `200300`. Past this gap (px) a label is hidden instead.
LOG_LABEL_SEPARATION = 4
LOG_SCALES = ("log", "symlog")
# Secondary channels take their type from the primary one and accept no type.
UNTYPED_CHANNELS = {"x2", "y2"}


def expression_string(text: str) -> str:
    """Text as a string literal of a Vega expression.

    JSON's quoting, but U+2028 and U+2029 escaped: JSON allows them raw in a
    string, Vega's expression parser reads them as line breaks and refuses the
    expression (a category named with one broke the whole chart).
    """
    return json.dumps(text, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def translate_channel(channel: str, definition, types: dict, alt):
    """A channel mapping (or a list for tooltip/detail) -> Altair channel object."""
    if isinstance(definition, list):
        return [translate_channel(channel, item, types, alt) for item in definition]
    props = dict(definition)
    cls = getattr(alt, CHANNEL_CLASSES[channel])
    if channel == "color":
        props = _resolve_channel_colors(props)
    if channel == "shape":
        props = _resolve_channel_shapes(props)
    if isinstance(props.get("condition"), dict):
        props["condition"] = _condition(channel, props["condition"], types)
    elif isinstance(props.get("condition"), list):  # Vega-Lite tries them in order, the first that holds wins
        props["condition"] = [_condition(channel, item, types) for item in props["condition"]]
    if "value" in props:
        return getattr(alt, CHANNEL_CLASSES[channel] + "Value")(props["value"], **_only(props, "condition"))
    if "datum" in props:
        return getattr(alt, CHANNEL_CLASSES[channel] + "Datum")(props["datum"], **_only(props, "condition"))
    if channel not in UNTYPED_CHANNELS and "type" not in props:
        props["type"] = channel_type(props, types)
    if channel in UNTYPED_CHANNELS:
        props.pop("type", None)
    if channel in ("x", "y") and isinstance(props.get("scale"), dict) and props["scale"].get("type") in LOG_SCALES:
        props = _separate_log_labels(props)
    if "scale" in props:
        props["scale"] = _build(alt.Scale, "scale", props["scale"])
    if isinstance(props.get("axis"), dict):
        props["axis"] = _resolve_axis_colors(props["axis"])
    for key, params in (("axis", alt.Axis), ("legend", alt.Legend)):
        if key in props:
            props[key] = None if props[key] is None else _build(params, key, apply_format(dict(props[key])))
    if "format" in props:
        props.update(apply_format({"format": props.pop("format")}, label_key=None))
    if isinstance(props.get("bin"), dict):
        props["bin"] = _build(alt.Bin, "bin", props["bin"])
    return cls(**props)


def _condition(channel: str, condition: dict, types: dict) -> dict:
    """A channel's condition as Vega-Lite reads it: a colour as the renderer draws it, `empty` only when written.

    A condition that draws a field (`{param: brush, field: Cylinders}`) gets
    the field's type from the data when none is written, as a channel does.
    """
    condition = dict(condition)
    if channel == "color" and isinstance(condition.get("value"), str):
        condition["value"] = resolve_color(condition["value"])
    if "field" in condition and "type" not in condition:
        condition["type"] = channel_type(condition, types)
    return condition


def _only(props: dict, *keys) -> dict:
    return {key: props[key] for key in keys if key in props}


def _separate_log_labels(props: dict) -> dict:
    """A log axis that hides labels closer than `LOG_LABEL_SEPARATION` (none for a hidden axis)."""
    axis = props.get("axis", {})
    if axis is None:
        return props
    return {**props, "axis": {**axis, "labelSeparation": LOG_LABEL_SEPARATION}}


def _build(cls, key: str, props: dict):
    """An Altair object for one property of a channel; an error Altair raises building it names that key.

    Altair checks a scale, axis, legend or bin as it builds it, with a path
    relative to that object: `chartc_key` says which key of the channel it is.
    """
    try:
        return cls(**props)
    except Exception as error:  # Altair's SchemaValidationError; the translator places it
        if hasattr(error, "absolute_path"):
            error.chartc_key = (key,)
        raise


def _resolve_channel_colors(props: dict) -> dict:
    """A colour channel's constant and scale range as the renderer draws them (`tab:blue` is hex)."""
    if isinstance(props.get("value"), str):
        props["value"] = resolve_color(props["value"])
    scale = props.get("scale")
    if isinstance(scale, dict) and scale.get("scheme") in PALETTES and "range" not in scale:
        # Vega knows none of chartc's palettes by name: their colours become the range.
        colors = list(PALETTES[scale["scheme"]])
        props["scale"] = scale = {**{k: v for k, v in scale.items() if k != "scheme"}, "range": colors}
    if isinstance(scale, dict) and isinstance(scale.get("range"), list):
        props["scale"] = {**scale, "range": [resolve_color(c) if isinstance(c, str) else c for c in scale["range"]]}
    return props


def _resolve_axis_colors(axis: dict) -> dict:
    """An axis's colours (`titleColor`, `labelColor`, ...) as the renderer draws them (`tab:red` is hex)."""
    return {key: resolve_color(value) if is_color_key(key) and isinstance(value, str) else value
            for key, value in axis.items()}


def _resolve_channel_shapes(props: dict) -> dict:
    """A shape channel's constant and scale range in the `markers` vocabulary (`x` is its path, not a missing symbol)."""
    if isinstance(props.get("value"), str):
        props["value"] = resolve_shape(props["value"])
    scale = props.get("scale")
    if isinstance(scale, dict) and isinstance(scale.get("range"), list):
        props["scale"] = {**scale, "range": [resolve_shape(s) if isinstance(s, str) else s for s in scale["range"]]}
    return props


def apply_format(props: dict, label_key: str | None = "labelExpr") -> dict:
    """Expand `format` presets (`pow10`, `si`, `percent`) into Vega-Lite terms.

    Args:
        props: axis, legend or channel properties, possibly with `format`.
        label_key: where a label expression goes (None for a channel's own
            `format`, which takes only d3-format strings).

    Returns:
        `props`, its preset replaced; any other `format` (a d3-format string)
        is left as it is. A label expression the user wrote wins.
    """
    fmt = props.get("format")
    if fmt not in FORMAT_PRESETS:
        return props
    d3_format, expression = FORMAT_PRESETS[fmt]
    if label_key and expression:
        props.pop("format")
        props.setdefault(label_key, expression)
    elif d3_format:
        props["format"] = d3_format
    else:
        props.pop("format")
    return props


def deep_merge(base: dict, override: dict) -> dict:
    """`override` merged into a copy of `base`: mappings recursively, the rest replaced.

    Only the mappings on `override`'s paths are copied; the rest of `base` is
    shared, not copied (the chart's rows: a deep copy of 10⁵ rows took ~5 s).
    Callers merge into values made for the merge and never change them after.
    """
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


