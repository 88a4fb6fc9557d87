"""Stage 5: a checked `ChartSpec` (plus its data and fits) -> Altair -> Vega-Lite.

Only this module knows Altair. The result is a plain dict in canonical form:
the same spec and data always give the same bytes from `canonical_json`.
"""

from __future__ import annotations

import copy
import json
import math

from .colors import resolve_color, resolve_free_form
from .model import ChartSpec, LayerSpec
from .resolve import field_types, transform_fields

# Axis / legend `format` presets: d3-format strings, or a label expression.
POW10_EXPR = (
    "abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) < 1e-6 ? "
    "'10' + replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace("
    "format(round(log(datum.value) / LN10), 'd'),"
    " /0/g, '⁰'), /1/g, '¹'), /2/g, '²'), /3/g, '³'), /4/g, '⁴'), /5/g, '⁵'),"
    " /6/g, '⁶'), /7/g, '⁷'), /8/g, '⁸'), /9/g, '⁹'), /-/g, '⁻') : ''"
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
    "opacity": "Opacity", "strokeDash": "StrokeDash", "text": "Text", "tooltip": "Tooltip", "detail": "Detail",
}
# Secondary channels take their type from the primary one and accept no type.
UNTYPED_CHANNELS = {"x2", "y2"}


def translate_chart(spec: ChartSpec, table, fits: dict) -> dict:
    """Build the Altair chart for a spec and return its Vega-Lite dict.

    Args:
        spec: the checked chart.
        table: its rows (from `resolve_data`).
        fits: layer path -> list of fitted `TrendLine` (from the fit stage).

    Returns:
        The Vega-Lite specification as a plain dict.
    """
    import altair as alt

    from .legend import plan_legend

    base_types = transform_fields(field_types(table), spec.transform)
    plan = plan_legend(spec, table, fits)  # one legend across every layer
    views, trend_views = [], []
    for layer in spec.layers:
        if layer.trend is not None:
            charts = translate_trend(layer, fits.get(layer.path, []), alt, plan)
            views.extend(charts)
            trend_views.extend(charts)
        else:
            views.append(translate_layer(layer, spec, base_types, alt, plan))
    rows = table.records()
    if spec.facet is not None and trend_views:
        views, rows = _facet_trend_rows(views, trend_views, rows, alt)
    data = inline_data(alt, rows)
    chart = views[0] if len(views) == 1 else alt.LayerChart(layer=views)
    # A facet carries the data itself; trend layers carry their own curves, so
    # a chart of trends alone embeds no raw rows (its size does not grow with them).
    if spec.facet is None and any(layer.trend is None for layer in spec.layers):
        chart.data = data
    chart = _decorate(chart, spec, data, alt, base_types)
    vega_lite = chart.to_dict(validate=False)
    vega_lite["config"] = _config(spec, vega_lite.get("config", {}))
    return deep_merge(vega_lite, resolve_free_form(spec.vega_lite))


# In a faceted chart, which layer a row of the shared data belongs to (absent on data rows).
PART_FIELD = "trend_part"


def _facet_trend_rows(views: list, trend_views: list, rows: list[dict], alt) -> tuple[list, list[dict]]:
    """Trend curves moved into the facet's data, so the facet splits them into panels too.

    Vega-Lite facets only the top-level data (vega-lite#8157): a layer with
    data of its own would draw every panel's curve in every panel. So each
    trend view's rows join the data, tagged with their view in `PART_FIELD`,
    and every view keeps its own rows with a filter, first of its transforms.
    """
    trend_ids = {id(view) for view in trend_views}
    merged, out = list(rows), []
    for index, view in enumerate(views):
        view, trend = view.copy(deep=False), id(view) in trend_ids
        if trend:
            part = f"layer {index}"
            merged.extend({**row, PART_FIELD: part} for row in view.data.values)
            view.data = alt.Undefined
            keep = f"datum[{expression_string(PART_FIELD)}] === {expression_string(part)}"
        else:
            keep = f"!isValid(datum[{expression_string(PART_FIELD)}])"
        earlier = [] if view.transform is alt.Undefined else list(view.transform)
        view.transform = [alt.FilterTransform(filter=keep), *earlier]
        out.append(view)
    return out, merged


def expression_string(text: str) -> str:
    """Text as a string literal of a Vega expression.

    JSON's quoting, but U+2028 and U+2029 escaped: JSON allows them raw in a
    string, Vega's expression parser reads them as line breaks and refuses the
    expression (a category named with one broke the whole chart).
    """
    return json.dumps(text, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def inline_data(alt, rows: list[dict]):
    """Rows as Altair inline data, without Altair checking each row against Vega-Lite's schema.

    The rows are flat JSON records already (the resolve stage refuses nested
    values), and that check cost 2.7 s for 20,000 rows, 40% of a compile of
    a few hundred.
    """
    with alt.utils.schemapi.debug_mode(False):
        return alt.InlineData(values=rows)


def translate_layer(layer: LayerSpec, spec: ChartSpec, base_types: dict, alt, plan=None):
    """One mark layer: mark, encodings, marker styles and transforms.

    `plan` (from `legend.plan_legend`) gives a layer with `markers` the
    encodings that draw its categories and join the chart's one legend.
    """
    types = transform_fields(base_types, layer.transform)
    styled = layer.markers is not None and plan is not None
    mark = {**(plan.mark_properties(layer) if styled else {}), **layer.mark}
    kind = mark.pop("type")
    if "strokeDash" in mark:
        mark["strokeDash"] = list(mark["strokeDash"])
    if "color" in mark:
        mark["color"] = resolve_color(mark["color"])
    chart = getattr(alt.Chart(), f"mark_{kind}")(**mark)
    encodings = {}
    for channel, definition in layer.encoding.items():
        encodings[channel] = translate_channel(channel, definition, types, alt)
    if styled:
        encodings.update(plan.mark_encodings(layer, types, alt))
    chart = chart.encode(**encodings)
    for step in (*spec.transform, *layer.transform):
        chart = _transform(chart, step, alt, types)
    return chart


def translate_channel(channel: str, definition, types: dict, alt):
    """A channel mapping (or a list for tooltip/detail) -> Altair channel object."""
    if isinstance(definition, list):
        return [translate_channel(channel, item, types, alt) for item in definition]
    props = dict(definition)
    cls = getattr(alt, CHANNEL_CLASSES[channel])
    if channel == "color":
        props = _resolve_channel_colors(props)
    if "value" in props:
        return getattr(alt, CHANNEL_CLASSES[channel] + "Value")(props["value"])
    if "datum" in props:
        return getattr(alt, CHANNEL_CLASSES[channel] + "Datum")(props["datum"])
    if channel not in UNTYPED_CHANNELS and "type" not in props:
        props["type"] = channel_type(props, types)
    if channel in UNTYPED_CHANNELS:
        props.pop("type", None)
    if "scale" in props:
        props["scale"] = alt.Scale(**props["scale"])
    for key, params in (("axis", alt.Axis), ("legend", alt.Legend)):
        if key in props:
            props[key] = None if props[key] is None else params(**apply_format(dict(props[key])))
    if "format" in props:
        props.update(apply_format({"format": props.pop("format")}, label_key=None))
    if isinstance(props.get("bin"), dict):
        props["bin"] = alt.Bin(**props["bin"])
    return cls(**props)


def _resolve_channel_colors(props: dict) -> dict:
    """A colour channel's constant and scale range as the renderer draws them (`tab:blue` is hex)."""
    if isinstance(props.get("value"), str):
        props["value"] = resolve_color(props["value"])
    scale = props.get("scale")
    if isinstance(scale, dict) and isinstance(scale.get("range"), list):
        props["scale"] = {**scale, "range": [resolve_color(c) if isinstance(c, str) else c for c in scale["range"]]}
    return props


def channel_type(props: dict, types: dict) -> str:
    """The declared type, else the one the data (or the aggregate) implies."""
    if props.get("aggregate") in ("count", "distinct", "valid", "missing") or props.get("bin"):
        return "quantitative"
    if "timeUnit" in props:
        return "temporal" if types.get(props.get("field")) == "temporal" else "ordinal"
    return types.get(props.get("field"), "nominal")


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


def translate_trend(layer: LayerSpec, lines, alt, plan=None) -> list:
    """Fitted trend lines -> line (and band) layers over their own inline data.

    A labelled trend joins the chart's legend through `plan`.
    """
    from .trend_layers import translate_trend_layers

    return translate_trend_layers(layer, lines, alt, plan=plan)


def _transform(chart, step: dict, alt, types: dict):
    if "filter" in step:
        predicate = step["filter"]  # expression text or field predicate
        if isinstance(predicate, dict) and types.get(predicate["field"]) == "temporal":
            predicate = _date_predicate(predicate)
        return chart.transform_filter(predicate)
    if "calculate" in step:
        return chart.transform_calculate(**{step["as"]: step["calculate"]})
    if "fold" in step:
        return chart.transform_fold(step["fold"], as_=step.get("as", ["key", "value"]))
    if "aggregate" in step:
        return chart.transform_aggregate(
            [alt.AggregatedFieldDef(**a) for a in step["aggregate"]], groupby=step.get("groupby", []))
    raise AssertionError(f"unknown transform {step}")  # the schema admits no other


PREDICATE_VALUES = ("equal", "lt", "lte", "gt", "gte")


def _date_predicate(predicate: dict) -> dict:
    """Date strings in a field predicate -> Vega-Lite DateTime objects.

    Vega-Lite compares a date field with a string as text (keeping no rows),
    while the fit stage compares dates; DateTime objects make both agree.
    """
    converted = dict(predicate)
    for key in PREDICATE_VALUES:
        if isinstance(converted.get(key), str):
            converted[key] = _date_time(converted[key])
    for key in ("range", "oneOf"):
        if isinstance(converted.get(key), list):
            converted[key] = [_date_time(v) if isinstance(v, str) else v for v in converted[key]]
    return converted


def _date_time(text: str):
    """ISO text -> a Vega-Lite DateTime (wall-clock, like the data); other text unchanged."""
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    value = {"year": moment.year, "month": moment.month, "date": moment.day}
    for key, part in (("hours", moment.hour), ("minutes", moment.minute), ("seconds", moment.second)):
        if part:
            value[key] = part
    return value


def _decorate(chart, spec: ChartSpec, data, alt, types: dict | None = None):
    """Title, size and facet: properties of the whole chart."""
    if spec.facet is not None:
        facet_args = {}
        for channel in ("row", "column"):
            if channel in spec.facet:
                props = dict(spec.facet[channel])
                if "type" not in props:  # inferred from the data, as for every other channel
                    props["type"] = channel_type(props, types or {})
                facet_args[channel] = getattr(alt, channel.capitalize())(**props)
        if spec.width is not None or spec.height is not None:
            chart = chart.properties(**_size(spec))
        chart = chart.facet(data=data, columns=spec.facet.get("columns", alt.Undefined), **facet_args)
    else:
        chart = chart.properties(**_size(spec))
    if spec.title is not None:
        chart = chart.properties(title=alt.TitleParams(
            text=spec.title, **({"subtitle": spec.subtitle} if spec.subtitle else {})))
    if spec.description is not None:
        chart = chart.properties(description=spec.description)
    return chart


def _size(spec: ChartSpec) -> dict:
    return {k: v for k, v in (("width", spec.width), ("height", spec.height)) if v is not None}


# Vega config keys in the renderer's themes that Vega-Lite's schema has no place
# for. Vega's `group` marks are Vega-Lite's views (so ggplot2's grey panels show);
# `path`, `shape` and `symbol` style marks that Vega-Lite always styles itself.
VEGA_THEME_KEYS = {"group": "view", "path": None, "shape": None, "symbol": None}


def _config(spec: ChartSpec, altair_config: dict) -> dict:
    """Theme, then the chart's legend settings, then the user's config."""
    from .export import vega_themes  # from a disk cache: no renderer engine started to compile

    config = copy.deepcopy(vega_themes()[spec.theme]) if spec.theme != "default" else {}
    for key, target in VEGA_THEME_KEYS.items():  # keep the output valid Vega-Lite
        value = config.pop(key, None)
        if target and value:
            config[target] = deep_merge(value, config.get(target, {}))
    config = deep_merge(altair_config, config)
    if spec.legend:
        from .legend import legend_config

        config = deep_merge(config, {"legend": legend_config(spec.legend)})
    return deep_merge(config, resolve_free_form(spec.config))


def deep_merge(base: dict, override: dict) -> dict:
    """`override` merged into a copy of `base`: mappings recursively, the rest replaced."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def canonical_json(vega_lite: dict) -> str:
    """Sorted keys, no NaN/Infinity, two-space indent, trailing newline."""
    return json.dumps(_finite(vega_lite), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
