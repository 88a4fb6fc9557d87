"""Stage 4: fit every trend layer of a chart on its data.

The numbers come from `trends.fitting.fit_trend` (pure numpy); this stage picks the
rows and fields each trend layer sees, one fit per `by` group, follows the x
and y scales the chart declares (on any layer: layers share their axes),
turns dates into numbers and back, and places any failure at the trend's
position in the spec file.

Dates on x are fitted as milliseconds since 1970-01-01 of their wall-clock
time (the same zone-free reading `Table.records` gives the renderer), so
the coefficients of a temporal trend are per millisecond.
"""

from __future__ import annotations

import dataclasses
import datetime
import string
import sys

import numpy as np

from .. import errors as msg
from ..errors import SpecError
from ..infra.table import DATE, Table, floats, json_value, milliseconds, parse_date
from ..ir.model import ChartSpec, LayerSpec
from ..trends.fitting import TrendLine, fit_trend, format_trend_label
from .load import Document
from .markers import category_key
from .resolve import IncomparableFilter, predicate_mask

# Encoding properties that make a channel show something other than the rows'
# own values; a trend is fitted to the rows, so it cannot follow them.
DERIVED_PROPERTIES = ("aggregate", "bin", "timeUnit")

# Measurement types a trend can fit on, per channel.
FIT_TYPES = {"x": ("quantitative", "temporal"), "y": ("quantitative",)}

# The scale a channel has when the chart declares no type.
DEFAULT_SCALE = {"quantitative": "linear", "temporal": "time"}

def fit_chart(spec: ChartSpec, table: Table, doc: Document) -> dict[tuple, list[TrendLine]]:
    """Fit each trend layer.

    Args:
        spec: the checked chart.
        table: its rows.
        doc: the document, for positions.

    Returns:
        Layer path -> its fitted lines (one per group), in group order.

    Raises:
        SpecError: a fit is impossible (too few points, bad values, bad label).
    """
    fits = {}
    problems = []
    for layer in spec.layers:
        if layer.trend is None:
            continue
        try:
            fits[layer.path] = fit_layer(layer, spec, table, doc)
        except SpecError as error:
            problems.extend(error.errors)
    if problems:
        raise SpecError.collect(problems)
    return fits


def fit_layer(layer: LayerSpec, spec: ChartSpec, table: Table, doc: Document) -> list[TrendLine]:
    """The fitted lines of one trend layer, labels filled in.

    Args:
        layer: a layer with a `trend`.
        spec: the chart (for its transforms, facet and the other layers' scales).
        table: the chart's rows.
        doc: the document, for positions.

    Returns:
        One `TrendLine` per `by` group (one in all without `by`): groups that a
        marker map on the same field declares come first, in its order, then
        the rest in sorted order.

    Raises:
        SpecError: the first problem, at the trend key it concerns.
    """
    trend = layer.trend
    where = layer.path + ("trend",)

    def fail(message, relative=(), hint=None, group=None, panel=()):
        path = where + tuple(relative)
        # The key at fault if the file has it, else the trend's own key.
        location = (doc.positions.get(path) if relative else None) or doc.locate(where, key=True)
        if trend.by is not None and group is not None:
            message = msg.trend_in_group(trend.by, group, message)
        if panel:
            message = msg.trend_in_panel(panel, message)
        return SpecError(message, path, location=location, stage="fit", hint=hint)

    facet_fields = _facet_fields(spec, doc)
    if facet_fields and annotation(trend)[0] is not None:
        raise fail(msg.trend_annotate_with_facet(), ("annotate",), msg.trend_annotate_with_facet_hint())
    for channel in ("x", "y"):
        if "field" not in layer.encoding.get(channel, {}):
            raise fail(msg.trend_needs_xy(channel))
        for prop in DERIVED_PROPERTIES:
            if layer.encoding[channel].get(prop):
                path = layer.channel_paths[channel] + (prop,)
                raise SpecError(msg.trend_channel_derived(channel, prop), path,
                                location=doc.locate(path), stage="fit",
                                hint=msg.trend_channel_derived_hint(channel, prop))
    rows = _apply_transforms(table, (*spec.transform, *layer.transform), layer, doc)
    x_field, y_field = layer.encoding["x"]["field"], layer.encoding["y"]["field"]
    kinds = {}
    for channel, field in (("x", x_field), ("y", y_field)):
        kind = layer.encoding[channel].get("type") or rows.measurement(field)
        if rows.kinds[field] == DATE:
            kind = "temporal"
        if kind not in FIT_TYPES[channel]:
            path = layer.channel_paths[channel]
            raise SpecError(msg.trend_channel_type(channel, field, kind, FIT_TYPES[channel]), path,
                            location=doc.locate(path), stage="fit", hint=msg.trend_channel_type_hint())
        kinds[channel] = kind
    temporal = rows.kinds[x_field] == DATE
    scales = {channel: _axis_scale(spec, layer, channel) for channel in ("x", "y")}
    try:
        extent = _extent(trend.extent, scales["x"], temporal)
    except SpecError as error:
        raise fail(error.message, ("extent",), error.hint) from None
    options = dict(
        order=trend.order, bandwidth=trend.bandwidth, window=trend.window, band=trend.band,
        prediction=trend.prediction, space=trend.space, extent=extent,
        x_scale=scales["x"].get("type", DEFAULT_SCALE[kinds["x"]]),
        y_scale=scales["y"].get("type", DEFAULT_SCALE[kinds["y"]]),
        x_exponent=scales["x"].get("exponent", 1.0), y_exponent=scales["y"].get("exponent", 1.0),
    )
    lines = []
    for panel, panel_rows in _panels(rows, facet_fields):
        groups = _groups(panel_rows, trend.by, spec)
        if not groups:  # every row's `by` value is missing
            raise fail(msg.trend_too_few_x(0), ("by",), msg.trend_too_few_x_hint(), panel=panel)
        for group, part in groups:
            x, y = floats(part, x_field), floats(part, y_field)
            corner, text = annotation(trend)
            try:
                line = _fit(x, y, trend.method, group, options)
                label = format_trend_label(trend.label, line) if trend.label is not None else None
            except SpecError as error:
                raise fail(error.message, error.path, error.hint, group, panel) from None
            if corner is not None and text is not None:
                try:  # fail here, at the text, not when drawing
                    format_trend_label(text, line)
                except SpecError as error:
                    raise fail(error.message, ("annotate", "text"), error.hint, group, panel) from None
            lines.append(dataclasses.replace(
                line, label=label, x_type="temporal" if temporal else "quantitative", panel=panel))
    if facet_fields and trend.label is not None:
        # One legend for every panel: a label must read the same in each of them.
        labels: dict = {}
        for line in lines:
            labels.setdefault(category_key(line.group), set()).add(line.label)
        if any(len(texts) > 1 for texts in labels.values()):
            raise fail(msg.trend_label_differs_by_panel(trend.label), ("label",),
                       msg.trend_label_differs_by_panel_hint())
    return lines


# What numpy raises when numbers leave double precision mid-fit (a scale that
# overflows, a padding width that comes out negative).
ARITHMETIC_ERRORS = (ArithmeticError, ValueError)


def _fit(x, y, method: str, group, options: dict) -> TrendLine:
    """`fit_trend`, with x values too close together for double precision reported as a `SpecError`.

    The polynomial fits map x's range onto [-1, 1], scaling by 2 / (max - min):
    when that span is below the smallest normal double (~2.2e-308, e.g. x
    values such as 5e-324 and 1e-310) the scale overflows and the fit breaks.
    A fit that succeeds all the same (on a log axis, a smoother) is kept.

    Raises:
        SpecError: from `fit_trend`, or for x values whose span is subnormal.
    """
    try:
        with np.errstate(all="ignore"):  # a failure is reported below, not warned about on stderr
            return fit_trend(x, y, method, group=group, **options)
    except ARITHMETIC_ERRORS:
        kept = x[np.isfinite(x) & np.isfinite(y)]
        low, high = (float(kept.min()), float(kept.max())) if len(kept) else (0.0, 0.0)
        if not 0 < high - low < sys.float_info.min:
            raise  # not this data's precision: a fault to report as such
        raise SpecError(msg.trend_x_span_subnormal(method, low, high, sys.float_info.min), stage="fit",
                        hint=msg.trend_x_span_subnormal_hint()) from None


def _facet_fields(spec: ChartSpec, doc: Document) -> tuple[str, ...]:
    """The fields the chart is faceted by (row, then column); a trend is fitted once per panel.

    Raises:
        SpecError: a facet channel that bins, aggregates or takes a time unit:
            its panels are not the rows' own values, so no fit can follow them.
    """
    fields = []
    for channel in ("row", "column"):
        definition = (spec.facet or {}).get(channel)
        if not isinstance(definition, dict):
            continue
        for prop in DERIVED_PROPERTIES:
            if definition.get(prop):
                path = ("facet", channel, prop)
                raise SpecError(msg.trend_facet_derived(channel, prop), path, location=doc.locate(path),
                                stage="fit", hint=msg.trend_facet_derived_hint())
        fields.append(definition["field"])
    return tuple(fields)


def _panels(rows: Table, fields: tuple[str, ...]) -> list[tuple[tuple, Table]]:
    """((field, value) pairs of a panel, its rows) per facet panel, in order of first appearance.

    One panel, ``()``, without a facet. A missing value is a panel of its own,
    as Vega-Lite draws it.
    """
    if not fields:
        return [((), rows)]
    keys = list(zip(*(map(json_value, rows[field]) for field in fields)))
    return [(tuple(zip(fields, key)), rows.select([k == key for k in keys])) for key in dict.fromkeys(keys)]


def annotation(trend) -> tuple[str | None, str | None]:
    """A trend's `annotate` as (corner, text template): (None, None) for none;
    a text of None prints each line's label, else its equation."""
    value = trend.annotate
    if isinstance(value, dict):
        corner, text = value.get("position"), value.get("text")
    else:
        corner, text = value, None
    return (None, None) if corner in (None, "none") else (corner, text)


def label_uses_group(template: str | None) -> bool:
    """Whether a label template names the `{group}` placeholder."""
    if template is None:
        return False
    try:
        return any(name is not None and name.split(".")[0].split("[")[0] == "group"
                   for _, name, _, _ in string.Formatter().parse(template))
    except ValueError:
        return False


def _axis_scale(spec: ChartSpec, layer: LayerSpec, channel: str) -> dict:
    """The scale a layer's channel is drawn with: its own declaration first,
    then the other layers' (Vega-Lite shares one x and one y scale)."""
    scale = dict(layer.encoding.get(channel, {}).get("scale") or {})
    for other in spec.layers:
        if other is not layer and isinstance(other.encoding.get(channel), dict):
            for key, value in (other.encoding[channel].get("scale") or {}).items():
                scale.setdefault(key, value)
    return scale


def _extent(extent, scale: dict, temporal: bool):
    """`extent` as fit_trend takes it: None for the data, else (low, high) numbers."""
    if extent == "data":
        return None
    if extent == "axis":
        domain = scale.get("domain")
        if not isinstance(domain, list) or len(domain) < 2:
            raise SpecError(msg.trend_extent_axis(), hint=msg.trend_extent_axis_hint())
        values = [_bound(v, temporal) for v in domain]
        if any(v is None for v in values):
            raise SpecError(msg.trend_extent_axis(), hint=msg.trend_extent_axis_hint())
        return (min(values), max(values))
    return tuple(_bound(v, temporal) for v in extent)


def _bound(value, temporal: bool):
    """One extent or domain value in fitting units (dates as milliseconds)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not temporal:
        raise SpecError(msg.trend_extent_text(value), hint=msg.trend_extent_text_hint())
    try:
        stamp = datetime.datetime(**_datetime_parts(value)) if isinstance(value, dict) else parse_date(value)
    except (ValueError, TypeError, OverflowError):
        raise SpecError(msg.trend_extent_date(value), hint=msg.trend_extent_text_hint()) from None
    return milliseconds(stamp)


def _datetime_parts(value: dict) -> dict:
    """A Vega-Lite DateTime object (`{year: 2020, month: 3}`) as datetime arguments."""
    keys = {"year": "year", "month": "month", "date": "day", "hours": "hour",
            "minutes": "minute", "seconds": "second"}
    parts = {"year": 2012, "month": 1, "day": 1}  # Vega-Lite's defaults
    for key, name in keys.items():
        if key in value:
            parts[name] = value[key]
    if "milliseconds" in value:
        parts["microsecond"] = int(value["milliseconds"]) * 1000
    unknown = set(value) - set(keys) - {"milliseconds", "utc"}
    if unknown:
        raise ValueError(f"unknown DateTime keys {sorted(unknown)}")
    return parts


def _groups(rows: Table, by: str | None, spec: ChartSpec) -> list[tuple]:
    """(group value, its rows) pairs: one pair of (None, all rows) without `by`."""
    if by is None:
        return [(None, rows)]
    keys = [json_value(v) for v in rows[by]]  # dates as text, NaN as None
    present = list(dict.fromkeys(k for k in keys if k is not None))
    declared = [value for layer in spec.layers if layer.markers is not None
                and layer.markers.field == by for value, _ in layer.markers.styles]
    rank = {key: index for index, key in enumerate(dict.fromkeys(declared))}

    def order(value, text=False):
        return (rank.get(category_key(value), len(rank)), str(value) if text else value)

    try:
        present.sort(key=order)
    except TypeError:  # a column of mixed types: compare their text
        present.sort(key=lambda v: order(v, text=True))
    return [(value, rows.select([k == value for k in keys])) for value in present]


def _apply_transforms(rows: Table, transforms, layer: LayerSpec, doc: Document) -> Table:
    for step in transforms:
        if "filter" in step and isinstance(step["filter"], dict):
            # Evaluated here so the fitted numbers describe exactly the points drawn.
            predicate = step["filter"]
            try:
                keep = predicate_mask(rows, predicate)
            except IncomparableFilter as error:  # numbers against text: refused here where Vega would coerce
                where = layer.path + ("trend",)
                raise SpecError(msg.filter_incomparable(predicate["field"], error.test, error.value), where,
                                location=doc.locate(where, key=True), stage="fit",
                                hint=msg.filter_incomparable_hint()) from None
            rows = rows.select(keep)
        elif "fold" in step:
            key, value = step.get("as", ["key", "value"])
            rows = rows.fold(list(step["fold"]), key, value)
        else:
            kind = "filter" if "filter" in step else "calculate" if "calculate" in step else "aggregate"
            where = layer.path + ("trend",)
            raise SpecError(msg.trend_unsupported_transform(kind), where,
                            location=doc.locate(where, key=True), stage="fit", hint=msg.trend_transform_hint())
    return rows
