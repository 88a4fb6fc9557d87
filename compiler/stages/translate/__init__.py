"""Stage 5: a checked `ChartSpec` (plus its data and fits) -> Altair -> Vega-Lite.

Only this package knows Altair: `legend` plans the chart's one legend,
`trend_layers` draws the fitted lines, `vega` holds the channel and
expression helpers all of them share. The result is a plain dict: the same
spec and data always give the same bytes from `infra.jsonout.canonical_json`.

Altair's own errors (it checks some objects as it builds them) end here, as
`SpecError`s placed in the spec (`spec_path_for`); the verify stage checks
the whole chart against Vega-Lite's schema, which `vega_lite_schema` gives it.
Altair is imported when a chart is translated, never when this module is.
"""

from __future__ import annotations

import copy
import functools
import json
from datetime import datetime
from pathlib import Path

from ... import errors as msg
from ...errors import SpecError
from ...infra.colors import resolve_color, resolve_free_form
from ...ir.model import ChartSpec, LayerSpec
from ...render.export import vega_themes
from ..load import Document
from ..resolve import field_types, transform_fields
from .legend import legend_config, plan_legend
from .trend_layers import translate_trend_layers
from .vega import channel_type, deep_merge, expression_string, translate_channel


def translate_chart(spec: ChartSpec, table, fits: dict, doc: Document) -> dict:
    """Build the Altair chart for a spec and return its Vega-Lite dict.

    Args:
        spec: the checked chart.
        table: its rows (from `resolve_data`).
        fits: layer path -> list of fitted `TrendLine` (from the fit stage).
        doc: the spec's document, to place what Altair refuses.

    Returns:
        The Vega-Lite specification as a plain dict.

    Raises:
        SpecError: Altair refused an object as it built it (a scale, an
            axis), at the spec path that most likely set it.
    """
    import altair as alt  # ~0.3 s: only when a chart is compiled
    from altair.utils.schemapi import SchemaValidationError

    try:
        return _translate(spec, table, fits, alt)
    except SchemaValidationError as error:  # Altair checks some objects as it builds them
        raise SpecError.collect(altair_problems(error, doc)) from None


def _translate(spec: ChartSpec, table, fits: dict, alt) -> dict:
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


def translate_trend(layer: LayerSpec, lines, alt, plan=None) -> list:
    """Fitted trend lines -> line (and band) layers over their own inline data.

    A labelled trend joins the chart's legend through `plan`.
    """
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
    # The themes come from a disk cache: no renderer engine is started to compile.
    config = copy.deepcopy(vega_themes()[spec.theme]) if spec.theme != "default" else {}
    for key, target in VEGA_THEME_KEYS.items():  # keep the output valid Vega-Lite
        value = config.pop(key, None)
        if target and value:
            config[target] = deep_merge(value, config.get(target, {}))
    config = deep_merge(altair_config, config)
    if spec.legend:
        config = deep_merge(config, {"legend": legend_config(spec.legend)})
    return deep_merge(config, resolve_free_form(spec.config))


# ------------------------------------------------------------------ Vega-Lite's schema

@functools.cache
def vega_lite_schema() -> dict:
    """Vega-Lite's JSON schema, of the version this stage compiles to (Altair's copy), read once.

    The verify stage checks every compiled chart against it.
    """
    import altair  # only to find its schema file; the chart was translated with it already

    path = Path(altair.__file__).parent / "vegalite" / "v6" / "schema" / "vega-lite-schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ placing problems

def spec_path_for(vl_path: tuple, doc: Document) -> tuple:
    """The spec path that most likely set a Vega-Lite path.

    Spec and Vega-Lite share key names (``encoding.color.sort``,
    ``config.axis``, ``mark``), so the spec path with the longest common
    suffix is the one; what comes from the ``vega_lite`` escape hatch is
    found under it by the full path.

    Args:
        vl_path: a path in the compiled Vega-Lite (or in an object Altair built).
        doc: the spec's document.

    Returns:
        A path of `doc` (``()`` when nothing matches).
    """
    vl_path = tuple(vl_path)
    escape = ("vega_lite",) + vl_path
    for end in range(len(escape), 1, -1):
        if escape[:end] in doc.positions:
            return escape[:end]
    best, best_length = (), 0
    for path in doc.positions:
        length = 0
        while length < min(len(path), len(vl_path)) and path[-1 - length] == vl_path[-1 - length]:
            length += 1
        if length > best_length:
            best, best_length = path, length
    if best_length:
        return best
    # No common suffix (an index in a list the spec spells differently): the
    # nearest named key of the Vega-Lite path that the spec also has.
    for key in reversed(vl_path):
        for path in doc.positions:
            if path and path[-1] == key:
                return path
    return ()


def altair_problems(error, doc: Document) -> list[SpecError]:
    """An Altair ``SchemaValidationError`` (raised as it builds a chart) as `SpecError`s.

    Altair checks some objects (a scale, an axis) when they are made; its
    error path is relative to that object (``range`` of a scale), which the
    longest-suffix match places in the spec all the same.
    """
    where = spec_path_for(tuple(error.absolute_path), doc)
    reason = str(getattr(error, "_original_message", "") or error.message).splitlines()[0]
    return [SpecError(msg.vega_lite_invalid(reason[:160]), where, location=doc.locate(where),
                      stage="translate", hint=msg.vega_lite_invalid_hint(msg.format_path(tuple(error.absolute_path))))]
