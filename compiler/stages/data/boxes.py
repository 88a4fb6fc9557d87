"""A box plot's statistics computed in the engine, and the few rows that make Vega-Lite draw them.

Vega-Lite's ``boxplot`` aggregates every row in the renderer: per group, the
quartiles (vega-statistics' ``quartiles``: d3's ``quantileSorted``, R's type 7,
``v[i0] + (v[i0+1] − v[i0]) · (i − i0)`` at ``i = (n − 1) · p``), the
whiskers (with ``extent: k``, default 1.5: the smallest and largest values
within ``[q1 − k·IQR, q3 + k·IQR]``; with ``min-max``, the extremes) and, past
the whiskers, every outlier as a point. Here the engine computes them once,
over every row drawn: the order statistics by a window over each group
(exact, never an interpolation of the engine's own: DuckDB's ``quantile_cont``
differs from d3's in the last bit), the interpolation and the fences in
JavaScript's arithmetic, the whiskers and the outliers by two scans joined
with the fences.

The layer then carries, per group, rows that Vega-Lite's own box plot turns
back into exactly these numbers, and stays a ``boxplot`` (so every part of it,
tooltips, colours, sizes, is drawn by Vega-Lite itself):

    a low outliers, c − a copies of the lower whisker, q1, 2c − 1 copies of the
    median, q3, c − b copies of the upper whisker, b high outliers

with ``c = max(a, b) + 1``: 4c + 1 numbers whose type-7 quartiles fall exactly
on positions c, 2c and 3c, whose extremes are the data's, and whose values
within the fences end at the whiskers. The outliers are the real rows, in
their order. A group whose whisker lies inside its box (a few values, one far
out: the whisker is drawn from the box's edge inwards) keeps its rows as they
are. A missing value keeps one row per group (Vega reads it as 0 in the
outliers' test, then drops it), and every row keeps the place of the data row
it stands for, so the marks come in Vega's order. The size of the Vega-Lite
depends on the groups and the outliers (at most 4 rows per outlier), not on
the rows.

May import: the standard library, `infra.table`, `ir`, `engine`, `sql` and `vega`
(a caller passes the connection).
"""

from __future__ import annotations

import math

from ...infra.table import NUMBER, Table, scannable
from ...ir.nodes import Channel, Chart, Layer
from .engine import quote_identifier
from .sources import register_arrays
from .sql import ROW, register_table
from .vega import channel_type

# Vega-Lite's default box plot extent: whiskers at 1.5 times the interquartile range.
DEFAULT_EXTENT = 1.5
QUARTILES = (0.25, 0.5, 0.75)
POSITIONS = {"x": "x2", "y": "y2"}


def wants_box(layer: Layer) -> bool:
    """Whether the layer is a box plot (its statistics may be computed in the engine: `box_rows`)."""
    return layer.trend is None and layer.mark is not None and layer.mark.type == "boxplot" and not layer.markers


def box_layout(chart: Chart, layer: Layer, table: Table, types: dict) -> tuple[str, list[str], float | None] | None:
    """The box plot's measured field, its groups and its extent; None where Vega-Lite keeps computing it.

    Returns:
        ``(field, groupby, k)``: the continuous channel's field, every other
        field the encoding and the facet read (Vega-Lite's groups), and the
        whiskers' multiple of the IQR (None for ``min-max``).
    """
    if not wants_box(layer) or chart.vega_lite.plain() or "boxplot" in chart.config.plain():
        return None
    extent = layer.mark.properties.get("extent", DEFAULT_EXTENT)
    if extent != "min-max" and (isinstance(extent, bool) or not isinstance(extent, (int, float)) or extent < 0):
        return None
    channels = dict(layer.encoding.items())
    measured = [name for name in POSITIONS if isinstance(channels.get(name), Channel)
                and channels[name].field is not None
                and channel_type(channels[name].definition(), types) == "quantitative"]
    if len(measured) != 1 or any(name in channels for name in POSITIONS.values()):
        return None
    field = channels[measured[0]].field
    groupby: list[str] = []
    for name, value in channels.items():
        if isinstance(value, tuple) or not isinstance(value, Channel):
            return None  # a tooltip list: Vega-Lite shows the rows' own fields
        props = value.definition()
        if props.get("aggregate") or props.get("bin") or "timeUnit" in props or "condition" in props:
            return None
        if name == measured[0] or value.field is None:
            continue
        if channel_type(props, types) == "temporal":
            return None  # Vega-Lite groups the Date objects it parsed, not the cells' text
        if value.field not in groupby:
            groupby.append(value.field)
    for channel in (chart.facet.channels() if chart.facet is not None else ()):
        if channel.field is not None and channel.field not in groupby:
            groupby.append(channel.field)
    if table.kinds.get(field) != NUMBER or field in groupby or any(name not in table for name in groupby):
        return None
    return field, groupby, None if extent == "min-max" else float(extent)


def box_rows(connection, chart: Chart, layer: Layer, table: Table, types: dict) -> Table | None:
    """The rows that make Vega-Lite's box plot draw the statistics the engine computed (see the module).

    Args:
        connection: the engine (`engine.connect`).
        chart: the chart (its facet's fields group the rows too).
        layer: a box plot layer (`wants_box`).
        table: the rows the layer draws, its transforms done.
        types: field -> measurement type after the layer's transforms.

    Returns:
        The rows (the group fields and the measured field only), or None
        where Vega-Lite keeps computing the box plot (`box_layout`).
    """
    layout = box_layout(chart, layer, table, types)
    if layout is None:
        return None
    field, groupby, k = layout
    view = quote_identifier(register_table(connection, table, f"box_{id(table)}"))
    value, row = quote_identifier(field), quote_identifier(ROW)
    keys = ", ".join(quote_identifier(name) for name in groupby)
    partition = f"PARTITION BY {keys}" if groupby else ""
    # Each group: its first row (its id), its first missing value, and its numbers at the quartiles' positions.
    grouped = connection.execute(
        f"SELECT min({row}) AS g, min({row}) FILTER (WHERE {value} IS NULL) AS missing, count({value}) AS n, "
        f"min({value}), max({value}) FROM {view} {'GROUP BY ' + keys if groupby else ''} ORDER BY g").fetchall()
    groups = {g: {"missing": missing, "n": n, "min": low, "max": high} for g, missing, n, low, high in grouped}
    ided = f"(SELECT min({row}) OVER ({partition}) AS g, {row} AS r, {value} AS v FROM {view})"
    ranked = connection.execute(f"""
        WITH ranked AS (
            SELECT g, v, count(v) OVER (PARTITION BY g) AS n, row_number() OVER (PARTITION BY g ORDER BY v) - 1 AS k
            FROM {ided} WHERE v IS NOT NULL
        ) SELECT g, k, v FROM ranked
        WHERE k IN (floor((n - 1) * 0.25), floor((n - 1) * 0.25) + 1, floor((n - 1) * 0.5),
                    floor((n - 1) * 0.5) + 1, floor((n - 1) * 0.75), floor((n - 1) * 0.75) + 1)""").fetchall()
    order: dict = {}
    for g, position, number in ranked:
        order.setdefault(g, {})[position] = number
    for g, stats in groups.items():
        if stats["n"]:
            at = order[g]
            stats["q"] = [_quartile(at, stats["n"], p) for p in QUARTILES]
            q1, _, q3 = stats["q"]
            stats["fences"] = (q1 - k * (q3 - q1), q3 + k * (q3 - q1)) if k is not None else (
                stats["min"], stats["max"])
    fences = [(g, *stats["fences"]) for g, stats in groups.items() if stats["n"]]
    if not fences:
        return _rows(table, groupby, field, groups, [], [])
    # The whiskers and each group's first value within them; then the outliers (and a short group's every row).
    fenced = _register_fences(connection, fences, set())
    joined = f"FROM {ided} t JOIN {fenced} f USING (g)"
    within = "t.v >= f.lo AND t.v <= f.hi"
    for g, low, high, first in connection.execute(
            f"SELECT g, min(t.v) FILTER (WHERE {within}), max(t.v) FILTER (WHERE {within}), "
            f"min(t.r) FILTER (WHERE {within}) {joined} GROUP BY g").fetchall():
        stats = groups[g]
        q1, _, q3 = stats["q"]
        stats["whiskers"], stats["first"] = (low, high), first
        stats["raw"] = low is None or low > q1 or high < q3  # no whisker outside the box: the rows as they are
    raw = [g for g, stats in groups.items() if stats.get("raw")]
    if raw:
        _register_fences(connection, fences, set(raw))
    kept = connection.execute(
        f"SELECT t.r, t.g, t.v {joined} WHERE f.raw OR t.v < f.lo OR t.v > f.hi ORDER BY t.r").fetchall()
    return _rows(table, groupby, field, groups, kept, raw)


def _register_fences(connection, fences: list, raw: set) -> str:
    """Each group's fences as the relation ``box_fences`` (g, lo, hi, raw), entering the engine as any rows do."""
    groups, lows, highs = zip(*fences)
    columns = {"g": list(groups), "lo": list(lows), "hi": list(highs), "raw": [g in raw for g in groups]}
    return register_arrays(connection, "box_fences", scannable(columns, {"lo", "hi"}))


def _quartile(at: dict, count: int, p: float) -> float:
    """The type-7 quantile from the order statistics fetched around its position."""
    index = (count - 1) * p
    low = math.floor(index)
    values = [at[low]] if count < 2 else [at[low], at.get(low + 1, at[low])]
    if count < 2:
        return values[0]
    return values[0] + (values[1] - values[0]) * (index - low)


def _rows(table: Table, groupby: list[str], field: str, groups: dict, kept: list, raw: list) -> Table:
    """Every group's stand-in rows and the rows kept as they are, in the places of the data rows they stand for."""
    placed: list[tuple[int, int, float | None]] = []  # (place, group id, value)
    raw_groups = set(raw)
    low_outliers: dict = {}
    high_outliers: dict = {}
    for place, g, number in kept:
        placed.append((place, g, number))
        if g not in raw_groups and number is not None:
            stats = groups[g]
            (low_outliers if number < stats["fences"][0] else high_outliers)[g] = (
                (low_outliers if number < stats["fences"][0] else high_outliers).get(g, 0) + 1)
    for g, stats in groups.items():
        if g in raw_groups:
            continue
        if stats["missing"] is not None:
            placed.append((stats["missing"], g, None))
        if not stats["n"]:
            continue
        below, above = low_outliers.get(g, 0), high_outliers.get(g, 0)
        c = max(below, above) + 1
        (lower, upper), (q1, median, q3) = stats["whiskers"], stats["q"]
        stand_in = [lower] * (c - below) + [q1] + [median] * (2 * c - 1) + [q3] + [upper] * (c - above)
        placed.extend((stats["first"], g, number) for number in stand_in)
    placed.sort(key=lambda item: item[0])  # stable: a group's stand-ins stay together
    columns = {name: [table[name][g] for _, g, _ in placed] for name in groupby}
    columns[field] = [number for _, _, number in placed]
    return Table(columns, {**{name: table.kinds.get(name) for name in groupby}, field: NUMBER})
