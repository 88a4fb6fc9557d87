"""One legend for the whole chart: marker categories, line series and trends.

Vega-Lite draws one legend per scale and merges legends whose scales have
the same domain (vega-lite#5996, #9748 are what happens otherwise). So every
layer that joins the legend encodes the same field with the *same* explicit
domain on every channel it uses; only the ranges say how each entry looks:

    domain       MLA        MQA          Trend (R²=0.786)
    shape        diamond    triangle-up  stroke
    fill         #d62728    transparent  transparent     (hollow MQA)
    stroke       #d62728    #2ca02c      gray
    size         64         64           400             (length of the legend line)
    strokeWidth  1          1.5          2
    strokeDash   [1, 0]     [1, 0]       [6, 4]

A marker layer encodes shape/fill/stroke/size/strokeWidth (hollow or filled
per category needs fill and stroke as channels; `filled` is per mark), a line
series and a trend line encode stroke/strokeDash/strokeWidth, and Vega-Lite
merges all of them into one symbol legend whose trend entries are dashed
strokes. Trend rows carry their legend text in the plan's field.

Measured with vl-convert 1.9 (Vega-Lite 6.4): exactly one legend in the Vega
output; a point mark's own `opacity: 1` also sets the legend symbols' opacity
(Vega-Lite's 0.7 default otherwise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field as dataclass_field

from ...infra.colors import PALETTES, resolve_color
from ...infra.shapes import resolve_shape, shape_filled
from ...ir.nodes import Chart, Layer, Legend, MarkerStyle
from ..data import present_values
from ..markers import (DEFAULT_COLORS, DEFAULT_LINE_WIDTH, DEFAULT_OUTLINE, DEFAULT_SHAPE,
                       DEFAULT_SIZE, category_key, layer_categories, mark_kind, merge_style)
from .text import TextStyle, text_width, wrap_text
from .vega import expression_string

# The field trend rows carry when no marker map names one.
TREND_FIELD = "legend"
# Size (px²) of a line entry's symbol: Vega draws the `stroke` glyph sqrt(size)
# long, so 400 is a 20 px line, long enough to show one period of a dash.
LINE_SYMBOL_SIZE = 400
TREND_COLOR = "gray"
# The colours Vega gives a nominal colour scale's categories, in domain order ("tableau10"), when
# neither the theme, the config nor the channel's scale names others.
VEGA_CATEGORY = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b",
                 "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac")
SOLID = (1, 0)  # a strokeDash that draws a solid line in both SVG and canvas

# Channels each kind of layer encodes. A line mark's `size` is its width and
# an area's `stroke` its outline, so each kind takes only what it draws.
KIND_CHANNELS = {
    "marker": ("shape", "fill", "stroke", "size", "strokeWidth", "opacity"),
    "line": ("stroke", "strokeDash", "strokeWidth", "opacity"),
    "area": ("fill", "opacity"),
    "trend": ("stroke", "strokeDash", "strokeWidth", "opacity"),
}
CHANNEL_CLASSES = {
    "shape": "Shape", "fill": "Fill", "stroke": "Stroke", "size": "Size",
    "strokeWidth": "StrokeWidth", "strokeDash": "StrokeDash", "opacity": "Opacity",
}
# Inside the plot the legend sits over the data: give it a background.
INSIDE_POSITIONS = ("top-left", "top-right", "bottom-left", "bottom-right")
INSIDE_LEGEND = {"fillColor": "rgba(255, 255, 255, 0.85)", "strokeColor": "#cccccc",
                 "cornerRadius": 3, "padding": 8}
# Vega-Lite cuts a legend label at 160 px with "…" (`Trend (R²=0.…`). A label
# is never cut: past that width the legend lifts the limit, and a label wider
# than LABEL_WRAP_WIDTH is wrapped into lines, so the legend stays about as
# wide as that (a 500-character label: 14 lines, the legend ~270 px wide).
VEGA_LITE_LABEL_LIMIT = 160
LABEL_WRAP_WIDTH = 240


@dataclass(frozen=True, slots=True)
class LegendEntry:
    """One legend row and the look of everything drawn for it."""

    value: object        # the domain value: a data value, or a trend's label text
    label: str           # the text shown
    kind: str            # marker | line | area | trend
    shape: str
    fill: str
    stroke: str
    size: float
    strokeWidth: float
    strokeDash: tuple
    opacity: float


@dataclass
class LegendPlan:
    """The chart's one legend: its entries, field and the encodings that draw it.

    Built once per chart by `plan_legend`; layers ask it for their encodings.
    """

    field: str
    title: str | None
    hidden: bool = False   # `legend.position: none`: draw the styles, no legend
    entries: list[LegendEntry] = dataclass_field(default_factory=list)
    trend_labels: dict = dataclass_field(default_factory=dict)   # trend layer path -> label template
    text: TextStyle = dataclass_field(default_factory=TextStyle)  # how its labels are drawn

    def trend_value(self, layer_path, line) -> str | None:
        """The legend text of a fitted line, or None when it has no legend entry.

        Args:
            layer_path: the trend layer's spec path.
            line: one of that layer's `TrendLine`s (from the fits).

        Returns:
            The value trend rows carry in `field`.
        """
        return line.label if tuple(layer_path) in self.trend_labels else None  # formatted by the fit stage

    def trend_encodings(self, layer_path, alt) -> dict:
        """Channel -> Altair encoding for a trend layer's line chart.

        Args:
            layer_path: the trend layer's spec path.
            alt: the altair module.

        Returns:
            stroke/strokeDash/strokeWidth/opacity on `field`; empty when the
            layer has no legend entries (no `label`), so its mark style applies.
        """
        if tuple(layer_path) not in self.trend_labels:
            return {}
        return self._encodings(self.field, KIND_CHANNELS["trend"], alt)

    def mark_encodings(self, layer: Layer, types: dict, alt) -> dict:
        """Channel -> Altair encoding for a mark layer with `markers`.

        Args:
            layer: the layer.
            types: field -> measurement type after the layer's transforms (unused:
                categories are always nominal).
            alt: the altair module.

        Returns:
            The channels the layer's mark kind draws, on its marker field,
            except those the layer's `encoding` declares itself: those win
            (`color` stands for fill and stroke).
        """
        declared = set(layer.encoding)
        if "color" in declared:
            declared |= {"fill", "stroke"}
        channels = [c for c in KIND_CHANNELS[mark_kind(layer)] if c not in declared]
        return self._encodings(layer.markers.field, channels, alt)

    def mark_properties(self, layer: Layer) -> dict:
        """Fixed mark properties a marker layer needs (merged under the user's)."""
        if mark_kind(layer) == "marker":
            return {"opacity": 1}  # else Vega-Lite fades points (and legend symbols) to 0.7
        return {}

    def legend_properties(self) -> dict | None:
        """The `legend` of every encoding that joins: title and display labels.

        None (no legend) when the chart hides it.
        """
        if self.hidden:
            return None
        props = {"title": self.title}
        size = self.text.size
        if not self.text.label_limit and any(
                text_width(e.label, size, self.text.font) > VEGA_LITE_LABEL_LIMIT for e in self.entries):
            props["labelLimit"] = 0  # no limit: a long label wraps instead
        shown = []  # (domain key, the label's text expression) where the label is not the key itself
        for entry in self.entries:
            key = category_key(entry.value)
            lines = ([entry.label] if "labelLimit" not in props
                     else wrap_text(entry.label, LABEL_WRAP_WIDTH, size, self.text.font))
            if len(lines) > 1:  # Vega draws an array of strings as lines
                shown.append((key, "[" + ", ".join(expression_string(line) for line in lines) + "]"))
            elif entry.label != key:
                shown.append((key, expression_string(entry.label)))
        if shown:
            expr = "datum.label"
            for key, label in reversed(shown):
                expr = f"datum.label === {expression_string(key)} ? {label} : {expr}"
            props["labelExpr"] = expr
        if not any(e.kind == "marker" for e in self.entries) and any(
                e.kind in ("line", "trend") for e in self.entries):
            props["symbolSize"] = LINE_SYMBOL_SIZE  # no size scale: lengthen the lines
        return props

    def _encodings(self, field: str, channels, alt) -> dict:
        domain = [e.value for e in self.entries]
        props = self.legend_properties()
        legend = None if props is None else alt.Legend(**props)
        result = {}
        for channel in channels:
            values = [getattr(e, channel) for e in self.entries]
            if channel == "opacity" and all(v == 1 for v in values):
                continue
            if channel == "strokeDash":
                values = [list(v) for v in values]
            result[channel] = getattr(alt, CHANNEL_CLASSES[channel])(
                field=field, type="nominal", legend=legend,
                scale=alt.Scale(type="ordinal", domain=domain, range=values))
        return result


def plan_legend(chart: Chart, table, fits: dict, label_text: TextStyle | None = None) -> LegendPlan | None:
    """Plan the chart's legend from its marker maps and labelled trends.

    Args:
        chart: the checked chart.
        table: the rows drawn (the data stage's).
        fits: layer path -> list of `TrendLine` (from the fit stage).
        label_text: how the chart's legend labels are drawn (default: Vega's).

    Returns:
        The plan, or None when no layer has markers or a trend label.
    """
    entries: dict[str, dict] = {}       # category key -> entry fields, first declaration first
    styles: dict[str, MarkerStyle] = {}
    fields = []
    titles = []
    trend_labels = {}
    for layer in chart.layers:
        if layer.markers is not None:
            fields.append(layer.markers.field)
            if layer.markers.has_title:
                titles.append(layer.markers.title)
            kind = mark_kind(layer)
            for value, style in layer_categories(layer, table):
                key = category_key(value)
                if key in entries:  # a second layer styles the same category: merge
                    styles[key] = _fill_in(styles[key], style)
                    entries[key]["kinds"].add(kind)
                else:
                    entries[key] = {"value": value, "kinds": {kind}}
                    styles[key] = style
        elif layer.trend is not None and layer.trend.label is not None:
            for line in fits.get(layer.path, []):
                text = line.label  # the fit stage formatted it
                trend_labels[layer.path] = layer.trend.label
                if text not in entries:
                    entries[text] = {"value": text, "kinds": {"trend"}}
                    styles[text] = _trend_style(layer, line, styles, chart, table)
    if not entries:
        return None
    field = fields[0] if fields else TREND_FIELD
    title = titles[0] if titles else (field if fields else None)
    if chart.legend.has_title:
        title = chart.legend.title
    plan = LegendPlan(field=field, title=title, hidden=chart.legend.position == "none",
                      trend_labels=trend_labels, text=label_text or TextStyle())
    plan.entries = [_entry(info, styles[key], index) for index, (key, info) in enumerate(entries.items())]
    return plan


def _fill_in(first: MarkerStyle, later: MarkerStyle) -> MarkerStyle:
    """Keys `first` leaves open, taken from `later`."""
    return merge_style(later, first)


def _trend_style(layer: Layer, line, styles: dict, chart: Chart, table) -> MarkerStyle:
    """A trend line's look, from its `style`; a per-group line without a colour
    takes its group's marker colour, or the colour a layer's colour encoding of
    the same field gives its points, so line and points match.

    A group nothing else colours gets none here: its entry then takes the
    category palette's colour of its place (`_entry`), so each group's line
    and legend swatch differ rather than all being gray.
    """
    style = layer.trend.style
    color = style.get("color")
    if color is None and line.group is not None:
        group = category_key(line.group)
        if group not in styles:
            color = _encoded_color(chart, layer.trend.by, line.group, table)
        elif styles[group].color is not None:
            color = styles[group].color
        else:  # a marker map that styles the group's shape only: its points take the palette's colour
            color = DEFAULT_COLORS[list(styles).index(group) % len(DEFAULT_COLORS)]
    elif color is None:
        color = TREND_COLOR
    return MarkerStyle(color=color, dash=tuple(style["dash"]) if "dash" in style else None,
                       width=style.get("width"), opacity=style.get("opacity"))


def _encoded_color(chart: Chart, field: str | None, group, table) -> str | None:
    """The colour Vega gives `group`'s points where a layer encodes colour by `field`, when chartc can know it.

    Vega-Lite sorts a nominal domain ascending and takes the category range
    in order; a scheme, a theme or a config range chartc does not read
    leaves it unknown (None), and the line keeps the palette's colour.
    """
    for layer in chart.layers:
        channel = layer.encoding.get("color") if layer.mark is not None else None
        if channel is None or isinstance(channel, tuple) or field is None or channel.field != field:
            continue
        scale = channel.get("scale") or {}
        colors = scale.get("range")
        if colors is None and scale.get("scheme") in PALETTES:
            colors = PALETTES[scale["scheme"]]
        if colors is None and scale.get("scheme") is None and chart.theme == "default" \
                and "category" not in (chart.config.get("range") or {}):
            colors = VEGA_CATEGORY
        domain = scale.get("domain")
        domain = list(domain) if isinstance(domain, list | tuple) else domain
        if domain is None and channel.get("sort") is None and field in table:
            values = present_values(table, field)
            if all(isinstance(value, str) for value in values) or all(
                    isinstance(value, (int, float)) and not isinstance(value, bool) for value in values):
                domain = sorted(values)
        if not isinstance(colors, list | tuple) or not isinstance(domain, list) or group not in domain:
            return None
        return colors[domain.index(group) % len(colors)]
    return None


def _entry(info: dict, style: MarkerStyle, index: int) -> LegendEntry:
    kinds = info["kinds"]
    kind = next(k for k in ("marker", "line", "area", "trend") if k in kinds)
    # Entries carry colours as the renderer draws them (`tab:blue` as hex): every layer reads them here.
    color = resolve_color(style.color or DEFAULT_COLORS[index % len(DEFAULT_COLORS)])
    edge = resolve_color(style.stroke) if style.stroke else color
    filled = style.filled
    if filled is None:  # a line marker (`x`, `+`) is drawn by its stroke alone
        filled = shape_filled(style.shape or DEFAULT_SHAPE) if kind == "marker" else True
    if kind == "marker":
        outline = style.strokeWidth if style.strokeWidth is not None else DEFAULT_OUTLINE[filled]
        if "line" in kinds:
            # Points and a line series of one category share the stroke scales:
            # the line's width and dash win (the legend symbol's outline shows them).
            outline = style.width if style.width is not None else style.strokeWidth or DEFAULT_LINE_WIDTH
        return LegendEntry(
            value=info["value"], label=style.label or category_key(info["value"]), kind=kind,
            shape=resolve_shape(style.shape or DEFAULT_SHAPE),
            fill=color if filled else "transparent",
            stroke=edge,
            size=style.size if style.size is not None else DEFAULT_SIZE,
            strokeWidth=outline,
            strokeDash=tuple(style.dash) if style.dash and "line" in kinds else SOLID,
            opacity=style.opacity if style.opacity is not None else 1)
    if kind == "area":
        return LegendEntry(
            value=info["value"], label=style.label or category_key(info["value"]), kind=kind,
            shape="square", fill=color, stroke=edge, size=DEFAULT_SIZE * 2,
            strokeWidth=0, strokeDash=SOLID,
            opacity=style.opacity if style.opacity is not None else 1)
    width = style.width if style.width is not None else style.strokeWidth
    return LegendEntry(  # a line series or a trend line
        value=info["value"], label=style.label or category_key(info["value"]), kind=kind,
        shape="stroke", fill="transparent", stroke=edge, size=LINE_SYMBOL_SIZE,
        strokeWidth=width if width is not None else DEFAULT_LINE_WIDTH,
        strokeDash=tuple(style.dash) if style.dash else SOLID,
        opacity=style.opacity if style.opacity is not None else 1)


# Channels Vega-Lite draws a legend for.
LEGEND_CHANNELS = ("color", "fill", "stroke", "shape", "size", "opacity", "fillOpacity", "strokeOpacity",
                   "strokeWidth", "strokeDash")


def wrap_legend_labels(vega_lite: dict, table, style: TextStyle, planned: str | None = None) -> None:
    """Lift the label limit of every legend whose categories are too long for it, and wrap the longest.

    A channel's categories come from the rows drawn; a field a transform
    makes is not known before rendering and is left as it is. The plan's
    legend (`planned`, its field) wraps its own labels.

    Args:
        vega_lite: the compiled chart, changed in place (its `encoding`
            blocks, in every view and layer).
        table: the rows drawn.
        style: how the chart's legend labels are drawn.
        planned: the legend plan's field, if any.
    """
    if style.label_limit:
        return
    for view in _views(vega_lite):
        for channel, definition in view.get("encoding", {}).items():
            if channel not in LEGEND_CHANNELS or not isinstance(definition, dict):
                continue
            name, legend = definition.get("field"), definition.get("legend", {})
            if (not isinstance(name, str) or name == planned or name not in table or legend is None
                    or definition.get("type") not in ("nominal", "ordinal") or "labelLimit" in legend):
                continue
            long = [v for v in table.unique(name) if isinstance(v, str)
                    and text_width(v, style.size, style.font) > VEGA_LITE_LABEL_LIMIT]
            if not long:
                continue
            legend = {**legend, "labelLimit": 0}
            if "labelExpr" not in legend:  # a label expression of the user's (or a format's) stays
                expr = "datum.label"
                for value in reversed(long):
                    lines = wrap_text(value, LABEL_WRAP_WIDTH, style.size, style.font)
                    if len(lines) > 1:
                        text = "[" + ", ".join(expression_string(line) for line in lines) + "]"
                        expr = f"datum.label === {expression_string(value)} ? {text} : {expr}"
                if expr != "datum.label":
                    legend["labelExpr"] = expr
            definition["legend"] = legend


def _views(spec: dict):
    """The chart and every view in it (a facet's inner spec, layers), never its data."""
    yield spec
    inner = spec.get("spec")
    if isinstance(inner, dict):
        yield from _views(inner)
    for layer in spec.get("layer", ()):
        if isinstance(layer, dict):
            yield from _views(layer)


# Above or below the plot the legend is centred on it. Vega's legend layout (an expression in
# Vega-Lite's schema) replaces Vega's whole default, so its offset (18 px from the plot) is restated.
CENTRED_POSITIONS = ("top", "bottom")
VEGA_LEGEND_OFFSET = 18
CENTRED_LAYOUT = ("{" + ", ".join(f"{side}: {{anchor: 'middle', offset: {VEGA_LEGEND_OFFSET}}}"
                                  for side in CENTRED_POSITIONS) + "}")
# Vega's symbol legend: a symbol's default area (px²) and stroke width, the gap to its label, and between columns.
VEGA_SYMBOL_SIZE = 100
VEGA_SYMBOL_STROKE_WIDTH = 1.5
VEGA_LABEL_OFFSET = 4
VEGA_COLUMN_PADDING = 10


def fit_legend_columns(vega_lite: dict, legend: Legend, table, style: TextStyle, plot_width: float) -> None:
    """Wrap a legend above or below the plot into as many columns as fit the plot's width.

    Vega lays a top or bottom legend out in one row, however many entries
    it has: twenty categories make it wider than the chart. Each column is
    as wide as its widest entry (symbol, gap, label, padding), so chartc
    takes the widest entry of any such legend and sets `columns` in the
    chart's legend config. Columns the spec gives (`legend.columns`) win.

    Args:
        vega_lite: the compiled chart (its config is changed in place).
        legend: the chart's `legend` settings.
        table: the rows drawn (a legend's categories come from them, or from its scale's domain).
        style: how legend labels are drawn.
        plot_width: the plot's width in px.
    """
    if legend.position not in CENTRED_POSITIONS or legend.columns is not None:
        return
    legends = []
    for view in _views(vega_lite):
        for channel, definition in view.get("encoding", {}).items():
            if channel not in LEGEND_CHANNELS or not isinstance(definition, dict) \
                    or definition.get("type") not in ("nominal", "ordinal") or definition.get("legend", {}) is None:
                continue
            scale = definition.get("scale") if isinstance(definition.get("scale"), dict) else {}
            name = definition.get("field")
            if isinstance(scale.get("domain"), list):  # drawn in the domain's order
                values = [value for value in scale["domain"] if value is not None]
            elif isinstance(name, str) and name in table:  # Vega sorts a nominal domain ascending
                found = [value for value in table.unique(name) if value is not None]
                values = sorted(found, key=lambda v: (not isinstance(v, (int, float)), v if isinstance(
                    v, (int, float)) else category_key(v)))
            else:
                continue
            legends.append([category_key(value) for value in values])
    if not legends:
        return
    limit = LABEL_WRAP_WIDTH if not style.label_limit else float("inf")  # a longer label is wrapped
    columns = min(_columns_that_fit([min(text_width(label, style.size, style.font), limit) for label in labels],
                                    plot_width, style.size) for labels in legends)
    if columns < max(len(labels) for labels in legends):
        vega_lite.setdefault("config", {}).setdefault("legend", {})["columns"] = columns


def _columns_that_fit(label_widths: list[float], plot_width: float, font_size: float) -> int:
    """The most columns whose entries, laid out row by row, stay within the plot (at least one).

    Vega aligns each column on its own (`gridAlign: each`): a column is as
    wide as its widest entry, rounded up to a whole pixel, columns apart by
    the padding. An entry's label starts past its symbol's box (the symbol's
    side and stroke, rounded up, or the label's font size if larger) and the
    label offset (vega-parser's legend `sizeExpression`, vega's `gridLayout`).
    """
    symbol = max(math.ceil(VEGA_SYMBOL_SIZE ** 0.5 + VEGA_SYMBOL_STROKE_WIDTH), font_size)
    entries = [symbol + VEGA_LABEL_OFFSET + width for width in label_widths]
    for columns in range(len(entries), 1, -1):
        widths = [math.ceil(max(entries[start::columns])) for start in range(columns)]
        if sum(widths) + VEGA_COLUMN_PADDING * (columns - 1) <= plot_width:
            return columns
    return 1


def legend_config(legend: Legend) -> dict:
    """Vega-Lite `config.legend` for the chart's `legend` settings.

    Args:
        legend: the chart's `legend`.

    Returns:
        orient (or disable), columns, and a background inside the plot.
    """
    settings = {}
    position = legend.position
    if position == "none":
        settings["disable"] = True
    elif position:
        settings["orient"] = position
        if position in INSIDE_POSITIONS:
            settings.update(INSIDE_LEGEND)
        if position in CENTRED_POSITIONS:
            settings["layout"] = {"expr": CENTRED_LAYOUT}
    if legend.columns is not None:
        settings["columns"] = legend.columns
    if legend.has_title and legend.title is None:
        settings["title"] = None
    return settings
