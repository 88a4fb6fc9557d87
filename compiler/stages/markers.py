"""Marker maps: which categories a layer styles, and how each one is drawn.

A layer's `markers` names a category field and maps each of its values to a
`MarkerStyle`. The declared order is the legend order. A `default` style is
both the base every declared style builds on and the style of data values
that have no entry of their own (those follow the declared ones, in data
order). Without a `default`, a value in the data with no style is an error;
a styled value absent from the data is a warning.

Style keys are strings (YAML mapping keys); data values may be numbers
(cylinders 4, 6, 8). They are matched by their string form (`category_key`),
and the data-typed value is what scale domains carry, so the compiled scale
matches the rows Vega-Lite sees.

How the styles become scales that merge into one legend is `translate.legend`'s
job; the check stage (`check.check_markers`) reports unstyled and absent
categories.
"""

from __future__ import annotations

import dataclasses
import math

from ..infra.table import json_value
from ..ir.nodes import Layer, Markers, MarkerStyle

DEFAULT_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
DEFAULT_SHAPE = "circle"
DEFAULT_SIZE = 64            # px², about matplotlib's default 6 pt marker
DEFAULT_LINE_WIDTH = 2       # px, a line series without `width`
# Outline width of a marker: thin on a filled one (it only smooths the edge),
# thicker on a hollow one (the outline is all there is).
DEFAULT_OUTLINE = {True: 1.0, False: 1.5}

# How a layer's mark draws a category: a symbol, a line, or a filled area.
MARK_KINDS = {
    "point": "marker", "circle": "marker", "square": "marker",
    "line": "line", "rule": "line", "trail": "line",
    "bar": "area", "area": "area", "rect": "area", "tick": "area",
    "text": "area",  # a text's colour is its fill, as an area's
    "boxplot": "area", "errorbar": "line", "errorband": "area",
    "arc": "area",
}


def mark_kind(layer: Layer) -> str:
    """`marker`, `line` or `area`: how the layer's mark draws a category."""
    return MARK_KINDS.get(layer.mark.type if layer.mark is not None else None, "marker")


def category_key(value) -> str:
    """The string a style key must equal to style this data value.

    Whole floats read as integers, so a column that became float (`4.0`,
    because of a missing value) still matches the key `4`. Booleans
    read as JSON writes them: `"true"`, `"false"` (the loader takes no
    unquoted boolean key).
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)


def data_categories(markers: Markers, table) -> list | None:
    """The distinct non-null values of a marker map's field in the data's rows, in data order.

    None when the field is not a column of the data (a transform makes it),
    so nothing can be said about which categories occur.
    """
    field = markers.field
    if table is None or field not in table:
        return None
    return [json_value(v) for v in table.unique(field)]


def merge_style(base: MarkerStyle | None, style: MarkerStyle) -> MarkerStyle:
    """`style` over `base`: the keys `style` declares win."""
    if base is None:
        return style
    own = {f.name: getattr(style, f.name) for f in dataclasses.fields(style)
           if getattr(style, f.name) is not None}
    return dataclasses.replace(base, **own)


def layer_categories(layer: Layer, table) -> list[tuple[object, MarkerStyle]]:
    """(domain value, effective style) of every category, in legend order.

    Declared styles first (built on `default`), then data values without an
    entry when there is a `default`. A declared value takes its data type from
    the data when it occurs there.
    """
    markers = layer.markers
    present = data_categories(markers, table) or []
    typed = {}
    for value in present:
        typed.setdefault(category_key(value), value)
    result = [(typed.get(key, key), merge_style(markers.default, style))
              for key, style in markers.styles]
    if markers.default is not None:
        declared = {key for key, _ in markers.styles}
        result += [(value, markers.default) for key, value in typed.items() if key not in declared]
    return result
