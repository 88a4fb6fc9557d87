"""Trend layers: fitted lines (and bands, and annotations) as Vega-Lite layers.

Each trend layer of the spec becomes, over its own inline data:

- a band (an area from the lower to the upper limit) when `band` or
  `prediction` is set, drawn first so the line sits on top of it;
- the line: one per `by` group, in the group's colour;
- with `annotate`, one text mark per line in a corner of the plot, placed in
  pixels (`x: {value: "width"}`), so it stays inside the plot whatever the
  scales; a text wider than the plot is wrapped into lines that fit it, in
  the legend labels' font. In a facet each text carries its panel's values,
  so the facet draws it in its own panel, stacked with that panel's texts
  only: every panel shows its own fit's numbers.

Colours: a labelled trend joins the chart's one legend through the legend
plan, which draws it (stroke, dash, width). Otherwise a declared
`style.color` wins; a line per group takes its group's colour from the
legend's marker entries, or else, when no layer styles that field, encodes
`color` by the group field so Vega-Lite colours it like any other layer that
encodes the same field (and lists it in a colour legend). One overall line
is gray.

The curve's x is written as the data's x is: dates as zone-free ISO text,
so a temporal axis draws the line where the points are.
"""

from __future__ import annotations

import datetime as dt

from ...infra.colors import resolve_color
from ...ir.nodes import Channel, Layer
from ...trends.labels import format_trend_label
from ..fit import annotation, label_uses_group
from ..markers import category_key
from .text import TextStyle, wrap_text
from .vega import translate_channel

DEFAULT_STYLE = {"color": "gray", "width": 2}
DEFAULT_BAND_OPACITY = 0.18
# Field names of the trend's own rows (besides the x and y fields).
GROUP_FIELD = "trend_group"
COLOR_FIELD = "trend_color"
UPPER_FIELD = "trend_upper"
TEXT_FIELD = "trend_text"
# Annotation text: size, line spacing and distance from the plot's edge, in px.
ANNOTATE_FONT_SIZE = 12
ANNOTATE_LINE_HEIGHT = 16
ANNOTATE_PADDING = 8
# corner -> (x value, text align, y value, baseline)
ANNOTATE_CORNERS = {
    "top-left": (0, "left", 0, "top"),
    "top-right": ("width", "right", 0, "top"),
    "bottom-left": (0, "left", "height", "bottom"),
    "bottom-right": ("width", "right", "height", "bottom"),
}


def translate_trend_layers(layer: Layer, lines, alt, plan=None, text: TextStyle | None = None,
                           plot_width: float = 300) -> list:
    """Band, line and annotation charts for the fitted lines of one trend layer.

    Args:
        layer: the trend layer.
        lines: its fitted `TrendLine`s (one per group), from the fit stage.
        alt: the altair module.
        plan: the chart's `LegendPlan`, or None (then the trend has no legend
            entry).
        text: how the chart's legend labels are drawn: annotations take
            their font (default: Vega's).
        plot_width: the plot's width in px: annotations wrap to fit it.

    Returns:
        Altair charts, bottom to top: band, line, annotations.
    """
    if not lines:
        return []
    # Altair validates each object as it is built (the curve rows one by one);
    # the compiled chart is checked as a whole instead (tests/test_fit.py).
    with alt.utils.schemapi.debug_mode(False):
        return _trend_charts(layer, lines, alt, plan, text or TextStyle(), plot_width)


def _trend_charts(layer: Layer, lines, alt, plan, text: TextStyle, plot_width: float) -> list:
    trend = layer.trend
    style = {**DEFAULT_STYLE, **trend.style}
    x_field = layer.encoding["x"].field
    y_field = layer.encoding["y"].field
    legend_field = plan.field if plan is not None else None
    legend_values = [plan.trend_value(layer.path, line) if plan is not None else None for line in lines]
    legend_encodings = plan.trend_encodings(layer.path, alt) if plan is not None else {}
    colors = _line_colors(layer, lines, style, plan, legend_values)
    by_field = trend.by if colors is None else None  # colour encoded by the group field
    grouped = len(lines) > 1

    def base_row(index, line):
        row = dict(line.panel)  # the facet panel's values: the facet splits trend rows like data rows
        if grouped:
            row[GROUP_FIELD] = line.group
        if colors is not None and len(set(colors)) > 1:
            row[COLOR_FIELD] = colors[index]
        if by_field is not None:
            row[by_field] = line.group
        return row

    line_rows, band_rows = [], []
    for index, line in enumerate(lines):
        base = base_row(index, line)
        if legend_encodings and legend_field is not None:
            base = {**base, legend_field: legend_values[index]}
        xs = _x_values(line)
        line_rows.extend({x_field: x, y_field: y, **base} for x, y in zip(xs, line.y))
        if line.lower is not None:
            band_rows.extend({x_field: x, y_field: low, UPPER_FIELD: high, **base_row(index, line)}
                             for x, low, high in zip(xs, line.lower, line.upper))

    x_channel, y_channel = _position_channels(layer, lines, alt)
    color = _color_encoding(colors, by_field, layer, alt)
    detail = {"detail": alt.Detail(field=GROUP_FIELD, type="nominal")} if grouped else {}
    # Hovering a curve shows its x and y and what names it, never chartc's own fields.
    x_tip = alt.Tooltip(field=x_field, type=_x_type(lines), title=_tip_title(layer, "x"))
    y_title = _tip_title(layer, "y")
    if legend_encodings and legend_field is not None:
        names = [alt.Tooltip(field=legend_field, type="nominal")]  # titled as its legend channel
    elif grouped and trend.by is not None:
        names = [alt.Tooltip(field=by_field or GROUP_FIELD, type="nominal", title=trend.by)]
    else:
        names = []
    charts = []
    if band_rows:
        band_mark = {"opacity": style.get("band_opacity", DEFAULT_BAND_OPACITY), "clip": True}
        if colors is not None and len(set(colors)) == 1:
            band_mark["color"] = colors[0]
        charts.append(alt.Chart(alt.InlineData(values=band_rows)).mark_area(**band_mark).encode(
            x=x_channel, y=y_channel,
            # y2's title joins y's unless it is the same: keep the axis title the points give it.
            y2=alt.Y2(field=UPPER_FIELD, title=_title(layer, "y")),
            tooltip=[x_tip, alt.Tooltip(field=y_field, type="quantitative", title=y_title),
                     alt.Tooltip(field=UPPER_FIELD, type="quantitative", title=f"{y_title} (upper)")],
            **detail, **color))

    line_mark = {"strokeWidth": style["width"], "clip": True}
    if colors is not None and len(set(colors)) == 1:
        line_mark["color"] = colors[0]
    if "dash" in style:
        line_mark["strokeDash"] = list(style["dash"])
    if "opacity" in style:
        line_mark["opacity"] = style["opacity"]
    # A legend entry draws the line through the plan's scales (stroke, dash).
    line_encodings = {**detail, **(legend_encodings or color)}
    charts.append(alt.Chart(alt.InlineData(values=line_rows)).mark_line(**line_mark).encode(
        x=x_channel, y=y_channel,
        tooltip=[*names, x_tip, alt.Tooltip(field=y_field, type="quantitative", title=y_title)],
        **line_encodings))

    if annotation(trend)[0] in ANNOTATE_CORNERS:
        charts.extend(_annotations(layer, lines, colors, by_field, alt, text, plot_width))
    return charts


def _line_colors(layer: Layer, lines, style: dict, plan, legend_values) -> list[str] | None:
    """One colour per line, as the renderer draws it, or None when the group field's colour encoding decides."""
    colors = _declared_line_colors(layer, lines, style, plan, legend_values)
    return None if colors is None else [resolve_color(color) for color in colors]


def _declared_line_colors(layer: Layer, lines, style: dict, plan, legend_values) -> list[str] | None:
    declared = layer.trend.style.get("color")
    if plan is not None and any(v is not None for v in legend_values):
        # The legend draws the lines; the band and annotations use its colours.
        by_value = {category_key(e.value): e for e in plan.entries}
        return [_entry_color(by_value.get(category_key(v))) or declared or style["color"]
                for v in legend_values]
    if declared is not None or layer.trend.by is None:
        return [style["color"]] * len(lines)
    if plan is not None:
        by_value = {category_key(e.value): e for e in plan.entries if e.kind != "trend"}
        found = [_entry_color(by_value.get(category_key(line.group))) for line in lines]
        if all(found):
            return found
    return None


def _entry_color(entry) -> str | None:
    """The colour a legend entry is seen in: its fill, or its outline if hollow."""
    if entry is None:
        return None
    if entry.fill and entry.fill != "transparent" and entry.kind != "trend":
        return entry.fill
    return entry.stroke


def _color_encoding(colors, by_field, layer: Layer, alt) -> dict:
    if by_field is not None:
        own = layer.encoding.get("color")
        if isinstance(own, Channel) and own.field == by_field:
            return {"color": translate_channel("color", own.definition(), {by_field: "nominal"}, alt)}
        return {"color": alt.Color(field=by_field, type="nominal")}
    if colors is not None and len(set(colors)) > 1:
        # The rows carry the colour itself: no scale, so no legend and no
        # interference with the chart's colour scale.
        return {"color": alt.Color(field=COLOR_FIELD, type="nominal", scale=None, legend=None)}
    return {}


def _position_channels(layer: Layer, lines, alt):
    """x and y channels sharing the chart's axes (same fields, same types)."""
    temporal = lines[0].x_type == "temporal"
    keep = ("field", "type", "title", "scale", "axis")
    x_def = {k: v for k, v in layer.encoding["x"].definition().items() if k in keep}
    y_def = {k: v for k, v in layer.encoding["y"].definition().items() if k in keep}
    if x_def.get("type") not in ("quantitative", "temporal"):
        x_def["type"] = "temporal" if temporal else "quantitative"
    y_def["type"] = "quantitative"
    return translate_channel("x", x_def, {}, alt), translate_channel("y", y_def, {}, alt)


def _title(layer: Layer, channel: str):
    definition = layer.encoding[channel].definition()
    if "title" in definition:
        return definition["title"]
    axis = definition.get("axis")
    if isinstance(axis, dict) and "title" in axis:
        return axis["title"]
    return definition["field"]


def _x_type(lines) -> str:
    return "temporal" if lines[0].x_type == "temporal" else "quantitative"


def _tip_title(layer: Layer, channel: str) -> str:
    """The channel's title as a tooltip shows it: its field when the axis has no title."""
    title = _title(layer, channel)
    return layer.encoding[channel].field if title is None else str(title)


def _x_values(line) -> list:
    """The curve's x as the chart's data writes x: dates as zone-free ISO text."""
    if line.x_type != "temporal":
        return list(line.x)
    epoch = dt.datetime(1970, 1, 1)
    return [(epoch + dt.timedelta(milliseconds=round(ms))).isoformat(timespec="milliseconds")
            for ms in line.x]


def annotation_texts(layer: Layer, lines) -> list[str]:
    """What `annotate` prints per line: its own text, else its label, else its
    equation.

    With several groups, a text that does not name its group is prefixed with it.
    """
    _, own = annotation(layer.trend)
    texts = []
    for line in lines:
        if own is not None:
            text, template = format_trend_label(own, line), own
        elif line.label is not None:
            text, template = line.label, layer.trend.label
        else:
            text, template = line.equation, None
        if line.group is not None and len(lines) > 1 and not label_uses_group(template):
            text = f"{line.group}: {text}"
        texts.append(text)
    return texts


def _annotations(layer: Layer, lines, colors, by_field, alt, style: TextStyle, plot_width: float) -> list:
    """One text mark per line, stacked in the plot's corner, each wrapped to the plot's width."""
    x_value, align, y_value, baseline = ANNOTATE_CORNERS[annotation(layer.trend)[0]]
    size = style.text_size or ANNOTATE_FONT_SIZE  # a paper preset's label size, else the screen's
    line_height = ANNOTATE_LINE_HEIGHT if style.text_size is None else ANNOTATE_LINE_HEIGHT * size / ANNOTATE_FONT_SIZE
    width = max(plot_width - 2 * ANNOTATE_PADDING, size)
    # Drawn in the legend's font (below): measured in it.
    texts = [wrap_text(text, width, size, style.font) for text in annotation_texts(layer, lines)]
    # Lines above each text (from the plot's edge), counted within its facet panel: a wrapped text takes the
    # room of its lines.
    order = range(len(texts)) if baseline == "top" else reversed(range(len(texts)))
    before, above = {}, {}
    for index in order:
        panel = lines[index].panel
        before[index] = above.get(panel, 0)
        above[panel] = before[index] + len(texts[index])
    charts = []
    for index, (line, text) in enumerate(zip(lines, texts)):
        offset = ANNOTATE_PADDING + before[index] * line_height
        if baseline == "bottom":  # Vega puts the first line at y, the others below it
            offset += (len(text) - 1) * line_height
        mark = dict(
            align=align, baseline=baseline, fontSize=size,
            dx=ANNOTATE_PADDING if align == "left" else -ANNOTATE_PADDING,
            dy=offset if baseline == "top" else -offset)
        if style.font != style.text_font:  # a text mark's own font differs from the legend's
            mark["font"] = style.font
        if len(text) > 1:
            mark.update(lineBreak="\n", lineHeight=line_height)
        row = {**dict(line.panel), TEXT_FIELD: "\n".join(text)}
        encodings = {}
        if colors is not None:
            mark["color"] = colors[index]
        elif by_field is not None:
            row[by_field] = line.group
            encodings = _color_encoding(None, by_field, layer, alt)
        charts.append(alt.Chart(alt.InlineData(values=[row])).mark_text(**mark).encode(
            x=alt.XValue(x_value), y=alt.YValue(y_value),
            text=alt.Text(field=TEXT_FIELD, type="nominal"), **encodings))
    return charts
