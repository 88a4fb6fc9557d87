"""Stage 10, after the render: what the renderer drew, against what the spec declared.

`check_scene` is a pure function of the chart's SVG (the render itself:
Vega's SVG renderer writes every item of its scenegraph, one element per
item, in groups named after their marks), the chart model, its rows
(`data.DataFlow`) and the translator's `Origins`; it returns `SpecWarning`s
placed at the spec node responsible:

- a data layer that drew fewer marks at a finite position than the rows it
  was given (`DataFlow.drawn_layers`, where the rows are known);
- a trend drawn while the data layers drew nothing;
- a facet panel with no mark in it;
- an axis that labels fewer than two of its ticks, or whose labels overlap;
- a legend label cut short (Vega's ellipsis), an annotation past the plot's edge;
- two entries of one legend drawn with the same shape, colour, size and dash.

`scene_from_svg` reads the SVG back into the scenegraph's form (marks with
their type, role, name and items; group items with their offset and size),
so no second run of the renderer is needed: reading it costs a few
milliseconds where a `vegalite_to_scenegraph` call costs about as much as
the render (benchmarks/bench_scene.py). Vega names each mark after the
Vega-Lite view that made it (``layer_1_marks``, ``child_layer_0_marks``
inside a facet); that name read as a Vega-Lite path (``("spec", "layer", 0)``)
finds the IR node through the origins, as the verify stage places the
renderer's refusals. An SVG carries no text bounds: a text's width is
measured from its characters in the font and weight it was drawn in, with
the translator's widths (`translate.text.drawn_width`: chartc Sans's own,
Arial's for another font), so the check and the layout agree.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from dataclasses import dataclass, field

from .. import errors as msg
from ..errors import SpecWarning, format_path
from ..infra.table import is_missing, to_number
from ..ir.nodes import Channel, Chart, Layer, Trend
from ..ir.source import Node
from .data import DataFlow
from .data.density import wants_density
from .data.vega import COMPOSITE_MARKS
from .translate import Origins
from .translate.text import drawn_width

STAGE = "scene"

# Marks that draw one item per row (when no channel aggregates or bins).
PER_ROW_MARKS = {"point", "circle", "square", "tick", "text", "rule", "bar", "rect", "line", "area", "trail", "arc",
                 "image"}
POSITION_CHANNELS = ("x", "y", "x2", "y2", "theta", "radius")
POSITION_KEYS = ("x", "y", "x2", "y2", "width", "height")
AXIS_CHANNEL = {"bottom": "x", "top": "x", "left": "y", "right": "y"}
# How far two labels may run into each other, or text past an edge, before it shows (pixels).
TOLERANCE = 1.0
DEFAULT_FONT_SIZE = 11  # Vega's, for a text item without one
DEFAULT_FONT = "sans-serif"  # Vega's, for a text item without one
VEGA_MARK_NAME = re.compile(r"layer_(\d+)_")


@dataclass
class Box:
    """An axis-aligned text box, in the coordinates of the group that holds it."""

    x0: float
    y0: float
    x1: float
    y1: float


def text_box(item: dict, dx: float = 0.0, dy: float = 0.0) -> Box | None:
    """The box of a text item (its lines, alignment, baseline and a right-angle rotation), or None for no text."""
    lines = _lines(item.get("text"))
    if not any(lines):
        return None
    size = _number(item.get("fontSize")) or DEFAULT_FONT_SIZE
    width = max(_width(item, line, size) for line in lines)
    # Each line after the first starts one line height below the one before it.
    height = size + (len(lines) - 1) * (_number(item.get("lineHeight")) or size)
    x = (_number(item.get("x")) or 0.0) + (_number(item.get("dx")) or 0.0) + dx
    y = (_number(item.get("y")) or 0.0) + (_number(item.get("dy")) or 0.0) + dy
    if round(_number(item.get("angle")) or 0.0) % 180 == 90:  # vertical text: its box stands on end
        return Box(x - height / 2, y - width / 2, x + height / 2, y + width / 2)
    align = item.get("align", "left")
    x0 = x - width if align == "right" else x - width / 2 if align == "center" else x
    baseline = item.get("baseline", "alphabetic")
    # An alphabetic baseline is the first line's: the lines below it hang down from there.
    y0 = (y if baseline == "top" else y - height / 2 if baseline == "middle" else y - size if baseline == "alphabetic"
          else y - height)
    return Box(x0, y0, x0 + width, y0 + height)


def _width(item: dict, text: str, size: float) -> float:
    """A line of a text item as wide as it was drawn: in its font and weight (the translator's widths)."""
    weight = str(item.get("fontWeight") or "normal")
    bold = weight in ("bold", "bolder") or (weight.isdigit() and int(weight) >= 600)
    return drawn_width(text, size, item.get("font") or DEFAULT_FONT, bold=bold)


# ------------------------------------------------------------------ reading the scenegraph

@dataclass
class Scene:
    """What the checks read of a scenegraph."""

    marks: dict = field(default_factory=dict)     # Vega mark name -> [mark node, ...] (every panel's)
    axes: list = field(default_factory=list)      # (orient, [label item, ...])
    legends: list = field(default_factory=list)   # [(label item, symbol item or None), ...] per legend
    cells: list = field(default_factory=list)     # per facet panel: how many mark items it drew
    headers: dict = field(default_factory=dict)   # "row"/"column" -> per header item: its label
    texts: list = field(default_factory=list)     # (mark name, text item, its box, the view's box)


def read_scene(scenegraph: dict) -> Scene:
    """The marks, axes, legends, facet panels and placed texts of a scenegraph (`scene_from_svg`'s)."""
    scene = Scene()
    root = scenegraph.get("scenegraph", scenegraph)
    view = Box(0, 0, _number(scenegraph.get("width")) or 0, _number(scenegraph.get("height")) or 0)
    _visit(root, scene, 0.0, 0.0, view)
    return scene


def _visit(node: dict, scene: Scene, ox: float, oy: float, view: Box) -> None:
    role, name, items = node.get("role"), node.get("name"), node.get("items") or []
    if node.get("marktype") == "group":
        if role == "axis":
            for item in items:
                labels = [label for mark in _marks(item) if mark.get("role") == "axis-label"
                          for label in mark.get("items") or []]
                if labels:
                    scene.axes.append((item.get("orient") or _orient(node, labels), labels))
            return
        if role == "legend":
            for item in items:
                symbols = [s for mark in _marks(item) if mark.get("role") == "legend-symbol" for s in mark["items"]]
                labels = [t for mark in _marks(item) if mark.get("role") == "legend-label" for t in mark["items"]]
                scene.legends.append(list(zip(labels, symbols)) if len(symbols) == len(labels)
                                     else [(label, None) for label in labels])
            return
        if role in ("row-header", "column-header"):  # a facet's labels (its axes are drawn there too)
            scene.headers[role.split("-")[0]] = [" ".join(
                text for mark in _marks(item) if mark.get("role") == "title-text"
                for t in mark.get("items") or [] for text in _lines(t.get("text"))) for item in items]
        for item in items:
            x, y = ox + (_number(item.get("x")) or 0.0), oy + (_number(item.get("y")) or 0.0)
            width, height = _number(item.get("width")), _number(item.get("height"))
            inner = Box(x, y, x + width, y + height) if width and height else view
            if name == "cell":
                scene.cells.append(sum(len(mark.get("items") or []) for mark in _marks(item)
                                       if mark.get("role") == "mark"))
            for child in item.get("items") or []:
                _visit(child, scene, x, y, inner)
        return
    if role == "mark" and name:
        scene.marks.setdefault(name, []).append(node)
        if node.get("marktype") == "text":
            for item in items:
                box = text_box(item, ox, oy)
                if box is not None:
                    scene.texts.append((name, item, box, view))


def _orient(node: dict, labels: list[dict]) -> str:
    """Which side an axis is on, for an SVG (which does not say): its ARIA label or how its labels spread."""
    described = node.get("aria", "")
    xs = [item.get("x") or 0.0 for item in labels]
    ys = [item.get("y") or 0.0 for item in labels]
    horizontal = described.startswith("X-axis") or (
        not described.startswith("Y-axis") and max(xs) - min(xs) >= max(ys) - min(ys))
    if horizontal:
        return "bottom" if min(ys) >= 0 else "top"
    return "left" if max(xs) <= 0 else "right"


def _marks(item: dict) -> Iterator[dict]:
    """Every mark node below a group item, depth first."""
    for child in item.get("items") or []:
        yield child
        for sub in child.get("items") or []:
            if isinstance(sub, dict) and "items" in sub:
                yield from _marks(sub)


def _lines(text) -> list[str]:
    if isinstance(text, list):
        return [str(line) for line in text]
    return [] if text is None else [str(text)]


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _finite(item: dict) -> bool:
    """Whether an item is drawn at a finite position (a line's point also `defined`)."""
    if item.get("defined") is False:
        return False
    return all(isinstance(item[key], (int, float)) and math.isfinite(item[key])
               for key in POSITION_KEYS if key in item)


def vega_lite_path(name: str) -> tuple:
    """The Vega-Lite view a Vega mark name comes from: ``child_layer_1_marks`` -> ``("spec", "layer", 1)``."""
    path: list = []
    if name.startswith("child_"):
        path.append("spec")
        name = name[len("child_"):]
    while (match := VEGA_MARK_NAME.match(name)) is not None:
        path += ["layer", int(match.group(1))]
        name = name[match.end():]
    return tuple(path)


# ------------------------------------------------------------------ the SVG, read back as a scenegraph

SVG = "{http://www.w3.org/2000/svg}"
TRANSLATE = re.compile(r"translate\(\s*([^,\s)]+)[,\s]+([^)\s]+)\s*\)")
ROTATE = re.compile(r"rotate\(\s*([^,\s)]+)")
GROUP_SIZE = re.compile(r"^M[-\d.]+,[-\d.]+h([-\d.]+)v([-\d.]+)h")
PATH_COMMANDS = re.compile(r"[MLHVCSQTA]", re.I)
ITEM_ATTRIBUTES = (("fill", "fill"), ("stroke", "stroke"), ("d", "shape"))
# What else tells legend symbols apart (a legend of strokeWidth, fillOpacity ...): read on them alone, not per mark.
SYMBOL_ATTRIBUTES = (("stroke-width", "strokeWidth"), ("fill-opacity", "fillOpacity"),
                     ("stroke-opacity", "strokeOpacity"))
TEXT_TAG = f"{SVG}text"
ANCHORS = {"start": "left", "middle": "center", "end": "right"}
ELLIPSIS = "\u2026"


def scene_from_svg(svg: bytes | str) -> dict:
    """A chart's SVG (Vega's SVG renderer) read back in the form of vl-convert's scenegraph.

    Marks come back as ``{marktype, role, name, items}``; group items as
    ``{x, y, width, height, items}``; other items with what the checks read:
    position (``x``, ``y``), text (its font, weight and size, anchor as ``align``, the
    alphabetic ``baseline`` its first line is written at, the ``lineHeight``
    its further lines move down by, rotation as ``angle``),
    ``opacity``, and for symbols and lines their path as ``shape``, ``fill``,
    ``stroke`` and ``strokeDash`` (legend symbols also ``strokeWidth``, ``fillOpacity``
    and ``strokeOpacity``). A line or area is one item per vertex of
    its path. A text Vega cut short ends with an ellipsis, as drawn. Text
    that is no SVG gives an empty mapping (`check_scene` then checks nothing).
    """
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError:  # not Vega's SVG (nothing chartc renders): nothing to read back
        return {}
    frame = next((element for element in root.iter(f"{SVG}g")
                  if element.get("class", "").startswith("mark-group role-frame")), None)
    return {"width": _float(root.get("width")), "height": _float(root.get("height")),
            "scenegraph": _svg_mark(frame) if frame is not None else {}}


def _svg_mark(element) -> dict:
    """One mark (a ``<g class="mark-TYPE role-ROLE NAME">``) and its items."""
    words = element.get("class", "").split()
    marktype = words[0][len("mark-"):] if words else ""
    role = words[1][len("role-"):] if len(words) > 1 and words[1].startswith("role-") else None
    node = {"marktype": marktype, "role": role, "name": words[2] if len(words) > 2 else None}
    if element.get("aria-label"):
        node["aria"] = element.get("aria-label")
    children = [child for child in element if child.tag != f"{SVG}title"]
    if marktype == "group":
        node["items"] = [_svg_group_item(child) for child in children if child.tag == f"{SVG}g"]
    elif marktype in ("line", "area", "trail"):
        per_point = 2 if marktype == "area" else 1  # an area goes out along its top and back along its base
        node["items"] = [item for child in children for item in
                         [_svg_item(child)] * max(1, len(PATH_COMMANDS.findall(child.get("d", ""))) // per_point)]
    else:
        node["items"] = [_svg_item(child) for child in children]
    if role == "legend-symbol":
        for child, item in zip(children, node["items"]):
            item.update((key, _float(child.get(attribute))) for attribute, key in SYMBOL_ATTRIBUTES
                        if child.get(attribute) is not None)
    return node


def _svg_group_item(element) -> dict:
    """A group item: its offset, its size (from its background) and the marks inside it."""
    x, y = _translate(element.get("transform"))
    item: dict = {"x": x, "y": y, "items": []}
    for child in element:
        if child.get("class") == "background":
            size = GROUP_SIZE.match(child.get("d", ""))
            if size is not None:
                item["width"], item["height"] = float(size.group(1)), float(size.group(2))
        elif child.tag == f"{SVG}g":  # the item's content: its marks
            item["items"] = [_svg_mark(mark) for mark in child if "class" in mark.attrib]
    return item


def _svg_item(element) -> dict:
    # Run once per mark drawn (10⁵ times for a large scatter): the attribute mapping is read directly.
    attributes = element.attrib
    transform = attributes.get("transform", "")
    x, y = _translate(transform)
    item: dict = {"x": x, "y": y}
    for attribute, key in ITEM_ATTRIBUTES:
        value = attributes.get(attribute)
        if value is not None:
            item[key] = value
    opacity = attributes.get("opacity")
    if opacity is not None:
        item["opacity"] = _float(opacity)
    dash = attributes.get("stroke-dasharray")
    if dash:
        item["strokeDash"] = [_float(part) for part in dash.split(",")]
    if "NaN" in transform or "NaN" in attributes.get("d", "") or "NaN" in attributes.get("x", ""):
        item["x"] = None  # drawn nowhere
    if element.tag == TEXT_TAG:
        spans = element.findall(f"{SVG}tspan")
        item["text"] = [span.text or "" for span in spans] if spans else (element.text or "")
        if len(spans) > 1:  # each line after the first is a tspan moved down by the line height
            item["lineHeight"] = _float(spans[1].get("dy"))
        item["fontSize"] = _float((element.get("font-size") or "").removesuffix("px"))
        item["font"] = element.get("font-family") or DEFAULT_FONT
        item["fontWeight"] = element.get("font-weight") or "normal"
        item["align"] = ANCHORS.get(element.get("text-anchor", "start"), "left")
        item["baseline"] = "alphabetic"
        angle = ROTATE.search(transform)
        item["angle"] = _float(angle.group(1)) if angle else 0.0
    return item


def _translate(transform: str | None) -> tuple[float, float]:
    if transform and transform.startswith("translate(") and transform.endswith(")"):
        # Vega's own form, `translate(X,Y)`, read without the pattern (once per mark drawn)
        x, _, y = transform[len("translate("):-1].partition(",")
        try:  # what `float` reads here, TRANSLATE reads the same (the spaces it skips, `float` strips)
            return float(x), float(y)
        except ValueError:  # another form (`translate(1 2)`, a rotation after it): the pattern's reading
            pass
    found = TRANSLATE.search(transform or "")
    return (_float(found.group(1)), _float(found.group(2))) if found else (0.0, 0.0)


def _float(text) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


# ------------------------------------------------------------------ the checks

def check_scene(scenegraph: dict, chart: Chart, flow: DataFlow, origins: Origins) -> list[SpecWarning]:
    """Compare what the renderer drew with what the chart declares.

    Args:
        scenegraph: what the renderer drew: the chart's SVG read back (`scene_from_svg`).
        chart: the chart model that was rendered.
        flow: its rows (`data.flow_data`): how many rows each layer was given.
        origins: the translator's map from Vega-Lite paths to IR nodes.

    Returns:
        One `SpecWarning` per problem, placed at the spec node responsible;
        an empty list when the chart drew what it declares.
    """
    if not scenegraph:
        return []
    scene = read_scene(scenegraph)
    drawn = _drawn_by_node(scene, origins)
    return [*_layer_counts(chart, flow, drawn), *_empty_panels(chart, scene), *_axes(chart, scene),
            *_texts(chart, scene, origins), *_legends(chart, scene)]


def _drawn_by_node(scene: Scene, origins: Origins) -> dict:
    """IR node path -> (items drawn at a finite position, items of line marks)."""
    drawn: dict = {}
    for name, nodes in scene.marks.items():
        found = origins.place(vega_lite_path(name))
        if found is None:
            continue
        node = found[0]
        finite = sum(1 for mark in nodes for item in mark.get("items") or [] if _finite(item))
        lines = sum(1 for mark in nodes if mark.get("marktype") in ("line", "area") for _ in mark.get("items") or [])
        before = drawn.get((type(node).__name__, node.path), (0, 0))
        drawn[(type(node).__name__, node.path)] = (before[0] + finite, before[1] + lines)
    return drawn


def _counts_rows(layer: Layer) -> bool:
    """Whether a layer draws one mark per row (no aggregate, bin or composite mark)."""
    if layer.trend is not None or layer.mark is None or layer.mark.type in COMPOSITE_MARKS:
        return False
    if layer.mark.type not in PER_ROW_MARKS or wants_density(layer):  # a density draws a mark per cell
        return False
    return not any(channel.aggregate or channel.get("bin") for channel in layer.encoding.each())


def _layer_counts(chart: Chart, flow: DataFlow, drawn: dict) -> Iterator[SpecWarning]:
    """A data layer that drew fewer marks than its rows; a trend over data layers that drew nothing."""
    empty = []
    data_layers = 0
    for index, (layer, rows) in enumerate(zip(chart.layers, flow.drawn_layers)):
        if layer.trend is not None or layer.mark is None:
            continue
        data_layers += 1
        count = drawn.get(("Layer", layer.path), (0, 0))[0]
        if count == 0:
            empty.append(layer)
        if not _counts_rows(layer) or rows.table is None or not len(rows.table):
            continue
        channels = [channel for channel in layer.encoding.each() if channel.field in rows.table]
        # A row without a value in an encoded field is left out by Vega-Lite, as documented (and as
        # matplotlib skips NaN): it counts only when nothing at all is drawn.
        placed = sum(1 for row in zip(*(rows.table[channel.field] for channel in channels))
                     if not any(map(is_missing, row))) if channels else len(rows.table)
        expected = placed if count else len(rows.table)
        if count >= expected:
            continue
        types = flow.fields.layers[index]
        positions = [channel for channel in channels if channel.name in POSITION_CHANNELS]
        node, child = (_unplottable(positions, rows.table, types) or _unplottable(channels, rows.table, types)
                       or (layer.mark, ()))
        yield node.warning(msg.layer_drew_fewer(count, expected), *child, stage=STAGE,
                           hint=msg.layer_drew_fewer_hint())
    if not empty or len(empty) < data_layers:
        return
    for layer in chart.layers:
        if layer.trend is not None and drawn.get(("Trend", layer.trend.path), (0, 0))[1] > 0:
            yield layer.trend.warning(msg.trend_over_nothing(format_path(empty[0].path) or "the marks"), stage=STAGE,
                                      key=True, hint=msg.trend_over_nothing_hint())


def _unplottable(channels: list[Channel], table, types: dict) -> tuple[Node, tuple] | None:
    """The position channel with the most values Vega cannot place (empty, or text on a number axis), if any."""
    best, most = None, 0
    for channel in channels:
        numeric = (channel.type or types.get(channel.field)) == "quantitative"
        bad = sum(1 for value in table[channel.field]
                  if is_missing(value) or (numeric and isinstance(value, str) and not math.isfinite(to_number(value))))
        if bad > most:
            best, most = channel, bad
    return (best, best.field_at()) if best is not None else None


def _empty_panels(chart: Chart, scene: Scene) -> Iterator[SpecWarning]:
    if chart.facet is None:
        return
    for index, marks in enumerate(scene.cells):
        if marks == 0:
            yield chart.facet.warning(msg.facet_panel_empty(_panel_name(chart, scene, index), len(scene.cells)),
                                      stage=STAGE, key=True, hint=msg.facet_panel_empty_hint())


def _panel_name(chart: Chart, scene: Scene, index: int) -> str:
    """A panel by its facet values (``'Origin=USA'``, row-major in a grid), else by its number."""
    rows, columns = scene.headers.get("row") or [], scene.headers.get("column") or []
    facet = chart.facet
    if facet.row is not None and facet.column is not None and len(rows) * len(columns) == len(scene.cells):
        parts = [(facet.row, rows[index // len(columns)]), (facet.column, columns[index % len(columns)])]
    else:
        channel = facet.row or facet.column
        labels = rows if facet.row is not None else columns
        parts = [(channel, labels[index])] if len(labels) == len(scene.cells) else []
    if not parts or not all(label for _, label in parts):
        return f"#{index + 1}"
    return repr(", ".join(f"{channel.field}={label}" for channel, label in parts))


def _axis_channel(chart: Chart, orient: str) -> Channel | None:
    name = AXIS_CHANNEL.get(orient)
    for layer in chart.layers:
        channel = layer.encoding.get(name) if name else None
        if isinstance(channel, Channel):
            return channel
    return None


def _axes(chart: Chart, scene: Scene) -> Iterator[SpecWarning]:
    """Axes labelling fewer than two ticks, or with overlapping labels (once per axis of the chart)."""
    reported = set()
    for orient, labels in scene.axes:
        channel = _axis_channel(chart, orient)
        if channel is None or channel.name in reported:
            continue
        visible = [label for label in labels if any(_lines(label.get("text"))) and label.get("opacity", 1) != 0]
        problem = None
        if len(labels) >= 2 and len(visible) < 2:
            problem = msg.axis_labels_blank(channel.name, len(visible), len(labels)), msg.axis_labels_blank_hint()
        else:
            pair = _overlapping(visible, horizontal=AXIS_CHANNEL[orient] == "x")
            if pair is not None:
                texts = [" ".join(_lines(label.get("text"))) for label in pair]
                problem = msg.axis_labels_overlap(channel.name, *texts), msg.axis_labels_overlap_hint()
        if problem is not None:
            reported.add(channel.name)
            node, child = _axis_owner(chart, channel, orient)
            yield node.warning(problem[0], *child, stage=STAGE, hint=problem[1])


def _axis_owner(chart: Chart, channel: Channel, orient: str) -> tuple[Node, tuple]:
    """Where the axis is styled: the channel's `axis`, the escape hatch's, `config`'s axis keys, else the channel."""
    if channel.within(("axis",)):
        return channel, ("axis",)
    written = _written(chart.vega_lite, lambda path: path[-3:-1] == ("encoding", channel.name) and path[-1] == "axis")
    if written is not None:
        return chart.vega_lite, written
    keys = {"axis", f"axis{channel.name.upper()}", f"axis{orient.capitalize()}"}
    written = _written(chart.config, lambda path: len(path) == 1 and path[0] in keys)
    return (chart.config, written) if written is not None else (channel, ())


def _written(free, wanted) -> tuple | None:
    """The first path of a free-form mapping (`config`, `vega_lite`) that `wanted` accepts and the file writes."""
    for path, _ in free.entries():
        if wanted(path) and free.within(path) == path:
            return path
    return None


def _overlapping(labels: list[dict], *, horizontal: bool) -> tuple[dict, dict] | None:
    """The first two neighbouring labels that run into each other along the axis."""
    labels = [label for label in labels if text_box(label) is not None]
    if any(round(_number(label.get("angle")) or 0.0) % 90 for label in labels):
        return _slanted_overlap(labels, horizontal=horizontal)
    boxes = sorted(((text_box(label), label) for label in labels),
                   key=lambda pair: pair[0].x0 if horizontal else pair[0].y0)
    for (first, a), (second, b) in zip(boxes, boxes[1:]):
        overlap = first.x1 - second.x0 if horizontal else first.y1 - second.y0
        if overlap > TOLERANCE:
            return a, b
    return None


def _slanted_overlap(labels: list[dict], *, horizontal: bool) -> tuple[dict, dict] | None:
    """Slanted labels are parallel lines of text: they collide when their anchors are closer, across
    the text, than its height and, along it, than its length."""
    anchors = sorted(labels, key=lambda label: (label.get("x") if horizontal else label.get("y")) or 0.0)
    for a, b in zip(anchors, anchors[1:]):
        key = "x" if horizontal else "y"
        gap = abs((b.get(key) or 0.0) - (a.get(key) or 0.0))
        angle = math.radians(_number(a.get("angle")) or 0.0)
        across, along = (abs(math.sin(angle)), abs(math.cos(angle)))
        if not horizontal:
            across, along = along, across
        size = _number(a.get("fontSize")) or DEFAULT_FONT_SIZE
        length = min(_width(label, " ".join(_lines(label.get("text"))), size) for label in (a, b))
        if gap * across < size - TOLERANCE and gap * along < length - TOLERANCE:
            return a, b
    return None


def _texts(chart: Chart, scene: Scene, origins: Origins) -> Iterator[SpecWarning]:
    """Legend labels cut by their limit; trend annotations past the plot's edge."""
    for entries in scene.legends:
        for label, _ in entries:
            text = " ".join(_lines(label.get("text")))
            if text.endswith(ELLIPSIS):  # Vega cut it at its limit
                node, child = _limit_owner(chart, text)
                yield node.warning(msg.text_truncated(text), *child, stage=STAGE, key=True,
                                   hint=msg.text_truncated_hint())
    for name, item, box, view in scene.texts:
        found = origins.place(vega_lite_path(name))
        if found is None or not isinstance(found[0], Trend):
            continue
        sides = (("left", view.x0 - box.x0), ("right", box.x1 - view.x1), ("top", view.y0 - box.y0),
                 ("bottom", box.y1 - view.y1))
        side = next((side for side, past in sides if past > TOLERANCE), None)
        if side is not None:
            trend = found[0]
            yield trend.warning(msg.text_outside_view(" ".join(_lines(item.get("text"))), side),
                                *trend.within(("annotate",)), stage=STAGE, key=True, hint=msg.text_outside_view_hint())


def _style(symbol: dict) -> tuple:
    """What tells one legend entry from another: shape, colours, size, dash, outline width and opacities."""
    dash = symbol.get("strokeDash")
    dash = tuple(dash) if isinstance(dash, list) and any(dash[1:]) else ()  # [1, 0] is a solid line
    return (symbol.get("shape", "circle"), symbol.get("fill"), symbol.get("stroke"), symbol.get("size"), dash,
            symbol.get("strokeWidth"), symbol.get("opacity"), symbol.get("fillOpacity"), symbol.get("strokeOpacity"))


def _legends(chart: Chart, scene: Scene) -> Iterator[SpecWarning]:
    for entries in scene.legends:
        seen: dict = {}
        for label, symbol in entries:
            if symbol is None:
                continue
            text = " ".join(_lines(label.get("text")))
            style = _style(symbol)
            if style in seen:
                node, child = _legend_owner(chart, text)
                yield node.warning(msg.legend_entries_identical(seen[style], text), *child, stage=STAGE, key=True,
                                   hint=msg.legend_entries_identical_hint())
                break
            seen[style] = text


def _limit_owner(chart: Chart, label: str) -> tuple[Node, tuple]:
    """Where a legend's label limit is written (`config`, the escape hatch, a channel's legend), else its owner."""
    for free in (chart.config, chart.vega_lite):
        written = _written(free, lambda path: path[-1:] == ("labelLimit",))
        if written is not None:
            return free, written
    for layer in chart.layers:
        for channel in layer.encoding.each():
            if channel.within(("legend", "labelLimit")) == ("legend", "labelLimit"):
                return channel, ("legend", "labelLimit")
    return _legend_owner(chart, label)


def _legend_owner(chart: Chart, label: str) -> tuple[Node, tuple]:
    """The spec node that makes a legend entry: its marker style, a trend's `by`, the colour channel, the legend."""
    for layer in chart.layers:
        if layer.markers is not None:
            for key, style in layer.markers.styles:
                if str(key) == label:
                    return style, ()
    for layer in chart.layers:
        if layer.trend is not None and layer.trend.by is not None:
            return layer.trend, layer.trend.within(("by",))
    if chart.legend and chart.legend.source is not None and chart.legend.source.has(chart.legend.path):
        return chart.legend, ()
    for layer in chart.layers:
        channel = layer.encoding.get("color")
        if isinstance(channel, Channel):
            return channel, channel.within(("scale", "range"))
        if layer.markers is not None:
            return layer.markers, ()
    return chart, ()
