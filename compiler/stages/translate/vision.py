"""Categories that only colour tells apart, and a reader who cannot: greyscale prints and colour-vision deficiencies.

Two categories of one chart stay apart when their marks differ in shape,
dash or fill (hollow against filled), or in kind (a line beside a point);
otherwise the colour alone carries them, and `infra.vision` says whether it
still does for a greyscale print and for deuteranopia, protanopia and
tritanopia (Machado et al. 2009 at severity 1.0, CIEDE2000 under
`vision.DISTINCT`). Two sources of categories are read:

- the legend plan (marker maps, line series, labelled trends): every
  entry's colour, shape, dash and fill are what is drawn;
- a colour channel on a nominal or ordinal field without a marker map
  (unless shape, dash, place or a text layer writing the same field, a
  direct label, tells its categories apart too):
  Vega's category colours (or the scale's range, or a chartc palette) in the
  order Vega-Lite sorts the field's values, when chartc knows them (not under
  a theme or a config range, a Vega scheme, or a field a transform makes).

Each source of categories is reported at most once per kind of reader, at
its closest pair (and how many other pairs merge): `W770` for the
colour-vision deficiencies, `W771` for greyscale.
"""

from __future__ import annotations

from itertools import combinations

from ... import errors as msg
from ...errors import SpecWarning
from ...infra.colors import PALETTES
from ...infra.vision import CONDITIONS, DISTINCT, appearance, difference
from ...ir.nodes import Channel, Chart, Layer
from ..data import channel_type, present_values
from ..markers import category_key
from .legend import VEGA_CATEGORY, LegendPlan

STAGE = "translate"
DEFICIENCIES = tuple(condition for condition in CONDITIONS if condition != "greyscale")
# Channels that, encoding the colour's field too, tell its categories apart besides the colour: by
# shape or dash, or by place (each category at its own position, or in its own facet panel).
DISTINGUISHING_CHANNELS = ("shape", "strokeDash", "x", "y")
# Widths (lines) or areas (markers) this many times apart tell two entries apart.
DISTINCT_RATIO = 1.5


def check_vision(chart: Chart, plan: LegendPlan | None, flow, fits: dict) -> list[SpecWarning]:
    """Warn of categories told apart by colour alone that a greyscale print or a colour-blind reader merges.

    Args:
        chart: the chart.
        plan: its legend plan (None without one).
        flow: its rows (`data.DataFlow`): the categories of a colour channel.
        fits: layer path -> fitted `TrendLine`s (the trend entries' labels).

    Returns:
        At most one `W770` and one `W771` per source of categories, at the node
        of the second category of its closest pair.
    """
    warnings = []
    if plan is not None:
        nodes, fallback = _entry_nodes(chart, fits)
        looks = [(entry.label, _look(entry), nodes.get(category_key(entry.value), fallback))
                 for entry in plan.entries]
        warnings += _pairs(looks)
    checked = set()  # a chart-level colour channel is every layer's: one source of categories, checked once
    for index, layer in enumerate(chart.layers):
        channel = layer.encoding.get("color")
        if layer.markers is None and layer.mark is not None and id(channel) not in checked:
            checked.add(id(channel))
            warnings += _pairs(_channel_looks(chart, layer, flow, index))
    return warnings


def _look(entry) -> tuple:
    """(colour, everything else that tells it apart) of a legend entry as drawn."""
    hollow = entry.fill == "transparent"
    color = entry.stroke if hollow else entry.fill
    scale = entry.size if entry.kind == "marker" else entry.strokeWidth
    return appearance(color, entry.opacity), (entry.kind, entry.shape, hollow, tuple(entry.strokeDash), scale)


def _apart(first: tuple, second: tuple) -> bool:
    """Whether two looks differ besides their colour: kind, shape, fill, dash, or a width or area 1.5x apart."""
    if first[:-1] != second[:-1]:
        return True
    small, large = sorted((first[-1] or 0, second[-1] or 0))
    return large >= small * DISTINCT_RATIO if small > 0 else large > 0


def _entry_nodes(chart: Chart, fits: dict) -> tuple[dict, tuple]:
    """Category key -> (node, child) that declares its look: a marker style's colour, a trend's label.

    And where a category styled by a marker map's `default` is placed: that default.
    """
    nodes, fallback = {}, (chart, ())
    for layer in chart.layers:
        if layer.markers is not None:
            if layer.markers.default is not None and fallback[0] is chart:
                fallback = (layer.markers, ("default",))
            for key, style in layer.markers.styles:
                nodes.setdefault(key, (style, ("color",) if style.color is not None else ()))
        elif layer.trend is not None and layer.trend.label is not None:
            for line in fits.get(layer.path, []):
                nodes.setdefault(line.label, (layer.trend, ("label",)))
    return nodes, fallback


def _channel_looks(chart: Chart, layer: Layer, flow, index: int) -> list:
    """The categories a colour channel draws, in Vega-Lite's order, with their colours (empty when unknown)."""
    channel = layer.encoding.get("color")
    if not isinstance(channel, Channel) or channel.field is None or "value" in channel:
        return []
    if channel_type(channel, flow.fields.layers[index]) not in ("nominal", "ordinal"):
        return []
    scale = channel.get("scale") or {}
    colors = scale.get("range")
    if colors is None:
        scheme = scale.get("scheme")
        if scheme in PALETTES:
            colors = PALETTES[scheme]
        elif scheme is None and chart.theme == "default" and "category" not in (chart.config.get("range") or {}):
            colors = VEGA_CATEGORY
    rows = flow.drawn_layers[index].table
    if not isinstance(colors, tuple | list) or not colors or rows is None or channel.field not in rows:
        return []
    domain = scale.get("domain")
    if domain is None and channel.get("sort") is None:
        values = present_values(rows, channel.field)
        if not (all(isinstance(value, str) for value in values) or all(
                isinstance(value, int | float) and not isinstance(value, bool) for value in values)):
            return []
        domain = sorted(values)
    if not isinstance(domain, tuple | list) or any(not isinstance(color, str) for color in colors):
        return []
    facets = chart.facet.channels() if chart.facet is not None else ()
    # Direct labels: a layer writing the colour's field as text names every category on the chart.
    labels = (other.encoding.get("text") for other in chart.layers)
    others = [other for other in (*(layer.encoding.get(name) for name in DISTINGUISHING_CHANNELS), *facets, *labels)
              if isinstance(other, Channel) and other.field == channel.field]
    place = (channel, ("scale",) if "scale" in channel else ())
    # Categories the channel also draws with another shape or dash all differ: nothing to check.
    return [] if others else [(category_key(value), (appearance(colors[position % len(colors)]), ("channel", 0)), place)
                              for position, value in enumerate(domain)]


def _pairs(looks: list) -> list[SpecWarning]:
    """At most one `W770` and one `W771` per source of categories: its closest pair, and how many more there are.

    Categories drawn exactly alike are compared once (the first of them): a colour cycle over
    thousands of categories is its ten colours, and identical entries are the scene's W767.
    """
    seen = set()
    looks = [look for look in looks if (look[1][0], look[1][1]) not in seen and not seen.add((look[1][0], look[1][1]))]
    deficient, grey = [], []  # (ΔE00, first, second, conditions, place) of every pair a reader merges
    for (first, (color_a, rest_a), _), (second, (color_b, rest_b), place) in combinations(looks, 2):
        if _apart(rest_a, rest_b) or color_a == color_b:  # another shape, dash or fill; identical ones are W767's
            continue
        merged = {condition: difference(color_a, color_b, condition) for condition in CONDITIONS}
        merged = {condition: value for condition, value in merged.items() if value < DISTINCT}
        deficiencies = [condition for condition in DEFICIENCIES if condition in merged]
        if deficiencies:
            deficient.append((min(merged[c] for c in deficiencies), first, second, deficiencies, place))
        if "greyscale" in merged:
            grey.append((merged["greyscale"], first, second, None, place))
    warnings = []
    if deficient:
        delta, first, second, conditions, (node, child) = min(deficient, key=lambda pair: pair[0])
        warnings.append(node.warning(
            msg.colors_merge_for_deficiency(first, second, conditions, delta, len(deficient) - 1),
            *child, stage=STAGE, hint=msg.colors_merge_for_deficiency_hint()))
    if grey:
        delta, first, second, _, (node, child) = min(grey, key=lambda pair: pair[0])
        warnings.append(node.warning(msg.colors_merge_in_grey(first, second, delta, len(grey) - 1),
                                     *child, stage=STAGE, hint=msg.colors_merge_in_grey_hint()))
    return warnings
