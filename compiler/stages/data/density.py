"""A scatter too large to draw point by point, drawn as an exact density raster: the points counted per cell.

``mark: {type: point, density: true}`` (or ``circle``, ``square``) asks for
it. The engine counts every row drawn in a grid of even cells over the
extent of x and of y, as ``numpy.histogram2d`` does with those edges: cell
``i`` of x holds ``edges[i] <= x < edges[i+1]`` (the last cell its right edge
too), the edges ``low + i · (high − low) / n`` and the last one ``high``
itself; rows with a missing or non-finite x or y are not counted. Each
non-empty cell becomes one row (its edges and its count, per facet panel) and
is drawn as a ``rect`` from edge to edge, coloured by the count, on x and y
scales whose domains are the edges' extent (so the cells fall on the plot's
pixels). The size of the Vega-Lite depends on the cells, not on the rows.

The grid: ``density: true`` lays cells of `DEFAULT_CELL` pixels over the
plot's width and height (Vega-Lite's 300 × 300 when the chart sets none);
``density: {cell: 1}`` is one cell per pixel (datashader's raster),
``density: {bins: 50}`` or ``{bins: [80, 40]}`` a number of cells on x and y;
``density: {scale: log}`` colours the counts on a log scale (sparse tails
show beside a dense core). A ``color`` channel without a field may title the
count, place its legend or pick its scheme (``{title: Requests, scale:
{scheme: viridis}}``).

May import: the standard library, `infra`, `ir`, `engine`, `sql` and `vega` (a caller passes the connection).
"""

from __future__ import annotations

import math

from ... import errors as msg
from ...infra.paper import screen_pixels
from ...infra.table import NUMBER, Table
from ...ir.nodes import Channel, Chart, Layer, thaw
from .engine import quote_identifier
from .sql import register_table
from .vega import channel_type

STAGE = "data"
DENSITY_MARKS = frozenset({"point", "circle", "square"})
# Pixels per cell of `density: true`: a 400 × 300 plot is 100 × 75 cells at most.
DEFAULT_CELL = 4
# Vega-Lite's plot size on continuous scales (`config.view.continuousWidth`/`continuousHeight`).
CONTINUOUS_SIZE = 300
COUNT = "Count of Records"  # the title Vega-Lite gives a count
POSITION_KEYS = frozenset({"field", "type", "title", "axis"})
# What a density's `color` may say about the count it shows (no field: the colour is the count).
COUNT_KEYS = frozenset({"title", "legend", "scale"})
# What a density's mark keeps of the point mark's properties (the rest are the points').
CELL_MARK_KEYS = frozenset({"opacity", "clip"})


def wants_density(layer: Layer) -> bool:
    """Whether the layer asks for its points counted per cell (``mark: {density: ...}``, not false)."""
    return (layer.trend is None and layer.mark is not None
            and layer.mark.properties.get("density", False) not in (False, None))


def density_grid(chart: Chart, layer: Layer) -> tuple[int, int, str]:
    """The cells on x and y, and the colour scale's type, that the layer's ``density`` asks for."""
    setting = thaw(layer.mark.properties.get("density"))
    setting = setting if isinstance(setting, dict) else {}
    scale = setting.get("scale", "linear")
    bins = setting.get("bins")
    if bins is not None:
        columns, rows = (bins, bins) if isinstance(bins, int) else tuple(bins)
        return int(columns), int(rows), scale
    cell = setting.get("cell", DEFAULT_CELL)
    sizes = []
    for value in (chart.width, chart.height):
        pixels = screen_pixels(value)
        pixels = pixels if isinstance(pixels, (int, float)) and not isinstance(pixels, bool) else CONTINUOUS_SIZE
        sizes.append(max(1, math.ceil(pixels / cell)))
    return sizes[0], sizes[1], scale


def density_positions(chart: Chart, layer: Layer, types: dict) -> tuple[str, str]:
    """The x and y fields a density counts.

    Raises:
        SpecError: the mark or encoding has no density (E480), at the mark's ``density``.
    """
    def refuse(reason: str):
        return layer.mark.error(msg.density_unsupported(reason), "density", stage=STAGE,
                                hint=msg.density_unsupported_hint())

    if layer.mark.type not in DENSITY_MARKS:
        raise refuse(f"a {layer.mark.type} mark draws no points (use point, circle or square)")
    fields = []
    for name in ("x", "y"):
        channel = layer.encoding.get(name)
        props = channel.definition() if isinstance(channel, Channel) else {}
        if not props.get("field") or channel_type(props, types) != "quantitative":
            raise refuse(f"{name} must be a quantitative field")
        extra = sorted(set(props) - POSITION_KEYS)
        if extra:
            raise refuse(f"{name} has {', '.join(repr(key) for key in extra)}, but its cells are even steps "
                         "of the data's extent")
        fields.append(props["field"])
    others = [name for name, value in layer.encoding.items() if name not in ("x", "y")
              and not (name == "color" and isinstance(value, Channel) and set(value.definition()) <= COUNT_KEYS)]
    if others:
        raise refuse(f"the colour is the count, so {', '.join(repr(name) for name in others)} has no place here")
    if fields[0] == fields[1]:
        raise refuse("x and y are the same field")
    return fields[0], fields[1]


def density_rows(connection, chart: Chart, layer: Layer, table: Table, types: dict) -> tuple[Table, dict, dict]:
    """The layer's non-empty cells with their counts, and the channels and mark that draw them.

    Args:
        connection: the engine (`engine.connect`).
        chart: the chart (its size sets the cells; its facet's fields split the counts).
        layer: a layer with ``density`` (`wants_density`).
        table: the rows the layer draws, its transforms done.
        types: field -> measurement type after the layer's transforms.

    Returns:
        ``(cells, channels, mark)``: one row per non-empty cell (each
        position's start and end, the facet's fields, the count), the
        channels (x, x2, y, y2, color) and the rect mark's properties.

    Raises:
        SpecError: an encoding the density cannot count (E480).
    """
    x, y = density_positions(chart, layer, types)
    if table.kinds.get(x) != NUMBER or table.kinds.get(y) != NUMBER:
        raise layer.mark.error(msg.density_unsupported("x and y must hold numbers"), "density", stage=STAGE,
                               hint=msg.density_unsupported_hint())
    columns, rows, scale = density_grid(chart, layer)
    panels = [channel.field for channel in (chart.facet.channels() if chart.facet is not None else ())
              if channel.field is not None]
    view = quote_identifier(register_table(connection, table, f"density_{id(table)}"))
    qx, qy = quote_identifier(x), quote_identifier(y)
    finite = f"isfinite(CAST({qx} AS DOUBLE)) AND isfinite(CAST({qy} AS DOUBLE))"
    extent = connection.execute(f"SELECT min({qx}), max({qx}), min({qy}), max({qy}) FROM {view} "
                                f"WHERE {qx} IS NOT NULL AND {qy} IS NOT NULL AND {finite}").fetchall()[0]
    names = {x: f"{x} (binned)", y: f"{y} (binned)"}
    keys = ", ".join(quote_identifier(name) for name in panels)
    found: list = []
    if extent[0] is not None:
        x_edges = cell_edges(float(extent[0]), float(extent[1]), columns)
        y_edges = cell_edges(float(extent[2]), float(extent[3]), rows)
        panel_keys = f"{keys}, " if keys else ""
        found = connection.execute(
            f"WITH guessed AS (SELECT {panel_keys}CAST({qx} AS DOUBLE) AS vx, CAST({qy} AS DOUBLE) AS vy, "
            f"{cell_guess('CAST(' + qx + ' AS DOUBLE)', x_edges)} AS gx, "
            f"{cell_guess('CAST(' + qy + ' AS DOUBLE)', y_edges)} AS gy FROM {view} "
            f"WHERE {qx} IS NOT NULL AND {qy} IS NOT NULL AND {finite}) "
            f"SELECT {cell_index('vx', 'gx', x_edges)} AS i, {cell_index('vy', 'gy', y_edges)} AS j, "
            f"{panel_keys}count(*) AS n FROM guessed GROUP BY ALL ORDER BY {panel_keys}j, i").fetchall()
    else:
        x_edges = y_edges = [0.0, 1.0]
    cells = {names[x]: [], f"{names[x]}_end": [], names[y]: [], f"{names[y]}_end": [],
             **{name: [] for name in panels}, COUNT: []}
    for i, j, *rest in found:
        cells[names[x]].append(x_edges[i])
        cells[f"{names[x]}_end"].append(x_edges[i + 1])
        cells[names[y]].append(y_edges[j])
        cells[f"{names[y]}_end"].append(y_edges[j + 1])
        for name, value in zip(panels, rest[:-1]):
            cells[name].append(value)
        cells[COUNT].append(rest[-1])
    kinds = {name: NUMBER for name in cells}
    kinds.update({name: table.kinds.get(name) for name in panels})
    channels = {}
    for name, field in (("x", x), ("y", y)):
        props = layer.encoding.get(name).definition()
        edges = x_edges if name == "x" else y_edges
        channels[name] = {**{k: v for k, v in props.items() if k != "type"}, "field": names[field],
                          "type": "quantitative", "title": props.get("title", field),
                          "scale": {"domain": [edges[0], edges[-1]], "nice": False, "zero": False}}
        channels[f"{name}2"] = {"field": f"{names[field]}_end"}
    written = layer.encoding.get("color")
    written = written.definition() if isinstance(written, Channel) else {}
    color_scale = {**({"type": "log"} if scale == "log" else {"zero": False}), **dict(written.get("scale") or {})}
    channels["color"] = {"title": COUNT, **written, "field": COUNT, "type": "quantitative", "scale": color_scale}
    return Table(cells, kinds), channels, {}


def cell_edges(low: float, high: float, count: int) -> list[float]:
    """``numpy.linspace(low, high, count + 1)``: ``low + i · step``, the last edge ``high`` itself."""
    if not low < high:  # one value: a cell of width 1 around it, as numpy.histogram2d makes for a flat extent
        low, high = low - 0.5, high + 0.5
    step = (high - low) / count
    return [index * step + low for index in range(count)] + [high]


def cell_guess(value: str, edges: list[float]) -> str:
    """The SQL of a first guess at a value's cell, from the even step (off by one at most where rounding differs)."""
    count, low, high = len(edges) - 1, edges[0], edges[-1]
    return f"least(greatest(CAST(floor(({value} - {low!r}) / {(high - low) / count!r}) AS BIGINT), 0), {count - 1})"


def cell_index(value: str, guess: str, edges: list[float]) -> str:
    """The SQL of a value's cell: ``searchsorted(edges, v, 'right') − 1``, the last edge in the last cell.

    The guess (`cell_guess`) corrected once each way against the edges
    themselves, computed as `cell_edges` computes them.
    """
    count, low, high = len(edges) - 1, edges[0], edges[-1]
    step = (high - low) / count
    start = f"(CAST({guess} AS DOUBLE) * {step!r} + {low!r})"
    end = f"CASE WHEN {guess} + 1 = {count} THEN {high!r} ELSE (CAST({guess} + 1 AS DOUBLE) * {step!r} + {low!r}) END"
    return (f"CASE WHEN {value} < {start} THEN {guess} - 1 "
            f"WHEN {guess} + 1 < {count} AND {value} >= {end} THEN {guess} + 1 ELSE {guess} END")
