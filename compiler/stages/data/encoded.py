"""Encoding-level aggregation done in the engine: a histogram's bins, a heatmap's cells, a bar of means.

A channel's ``aggregate`` or ``bin`` makes Vega-Lite aggregate every row in
the renderer. Here the engine does it once, as Vega would: the bins from
Vega's own algorithm (`vega_bins`, vega-statistics' ``bin``: maxbins 10 by
default, nice steps) over the field's extent, each value binned as
vega-transforms' ``Bin`` does (`sql.BinStep`), then Vega's ``aggregate``
(`sql`'s, property-tested against Vega) grouped by every other field the
encoding reads, as Vega-Lite groups it. The layer then carries the groups'
rows and an encoding rewritten to draw them as Vega-Lite would have drawn
its own: ``bin: {binned: true, step}`` with the bin's end on ``x2``/``y2``
and the bins' extent as the scale's domain, each measure a plain field, the
axis and legend titles Vega-Lite would have written ("Count of Records",
"Mean of x", "x (binned)"), no stacking where Vega-Lite had nothing to stack.
The size of the Vega-Lite depends on the marks, not on the rows.

A box plot's statistics are computed in the engine too (`boxes.py`): the
layer keeps its ``boxplot`` and carries, per group, the few rows that make
Vega-Lite draw exactly those statistics, and its outliers. A scatter that
asks for its density (``mark: {type: point, density: true}``) is counted per
cell of a grid over x and y (`density.py`) and drawn as rects.

A ``timeUnit`` on a date or a number of milliseconds (a channel's, or the
facet's) groups the rows by the parts of the date it keeps, each group's
date one that holds them (`sql.TimeUnitStep`: mostly vega-time's floor, the
unit's parts of the date, the others 2012, January, the 1st, midnight;
`TIME_UNITS`). The channel keeps its ``timeUnit``: Vega-Lite floors each
group's date, which gives the floor of each of its rows, and formats it as
before. Where one date has several units (a heatmap of days by month), the
rows are grouped by all their parts, which each unit reads alike.

What is not rewritten keeps Vega-Lite's own aggregation (`aggregate_encoding`
returns None): error bars (but `intervals.py`), a time unit of a column read
as text, a date also read as it is, a binned facet, random ops, bins with parameters beyond
``maxbins``/``step``/``nice``, a bin on any channel but x and y, a field
sort, a layer with ``markers``, fields that are not numbers where a number
is binned.

A line with more rows than its plot has pixels to draw them is reduced the
same way (`reduce_line`): M4 (`reduce.py`) keeps at most 4 rows per pixel
column and series, the columns laid on the x domain Vega draws.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass

from ...infra.paper import screen_pixels
from ...infra.table import DATE, NUMBER, STORED_BOOLEAN, STORED_INTEGER, STORED_TEXT, Table
from ...ir.nodes import Channel, Chart, Layer
from ...ir.transforms import ARG_OPS, Aggregate, AggregateOp, arg_field
from .boxes import box_rows, wants_box
from .density import density_rows, wants_density
from .engine import quote_identifier
from .sources import EngineTable
from .sql import (NUM, BinStep, NotCompiled, TimeUnitStep, compile_chain, register_table, registered_in_place,
                  registered_kind, run_query, stored_date)
from .vega import COMPOSITE_MARKS, EPOCH, RANDOM_OPS, channel_type

# Vega-Lite's default number of bins on x and y (`bin: true`).
DEFAULT_MAXBINS = 10
# Bins past which a `bin: {step}` is left to Vega-Lite, so that the verify stage refuses it (its MAX_BINS).
MAX_BINS = 10_000
BIN_KEYS = frozenset({"maxbins", "step", "nice"})
# Channels whose field splits a stack (Vega-Lite's `STACK_BY_CHANNELS`).
STACK_BY = ("color", "fill", "stroke", "opacity", "fillOpacity", "strokeOpacity", "strokeWidth", "size", "detail",
            "shape", "strokeDash")
SECONDARY = {"x": "x2", "y": "y2"}
# The time units the engine groups a date by (`sql.TimeUnitStep`), each as the parts of a date it keeps: every unit
# the chart schema allows.
TIME_UNITS = {name: frozenset(parts) for name, parts in (("day", ["day"]), ("week", ["week"]),
    ("dayofyear", ["dayofyear"]), ("milliseconds", ["milliseconds"]),
    ("year", ["year"]), ("quarter", ["quarter"]), ("month", ["month"]), ("date", ["date"]), ("hours", ["hours"]),
    ("minutes", ["minutes"]), ("seconds", ["seconds"]), ("yearquarter", ["year", "quarter"]),
    ("yearmonth", ["year", "month"]), ("yearmonthdate", ["year", "month", "date"]),
    ("yearmonthdatehours", ["year", "month", "date", "hours"]), ("monthdate", ["month", "date"]),
    ("hoursminutes", ["hours", "minutes"]), ("hoursminutesseconds", ["hours", "minutes", "seconds"]))}
# JavaScript's dates: at most 8.64e15 ms from 1970; past it, an Invalid Date.
MAX_DATE = 8.64e15
LEGEND_CHANNELS = ("color", "fill", "stroke", "shape", "size", "strokeDash", "strokeWidth", "angle")
# Marks Vega-Lite draws at opacity 0.7 unless the encoding aggregates (its `defaultOpacity`).
TRANSLUCENT = frozenset({"point", "circle", "square", "tick"})


@dataclass(frozen=True)
class Encoded:
    """A layer's rows aggregated as its encoding asks, and the channels that draw them.

    Attributes:
        table: one row per group (bin, category...), in Vega's order.
        channels: channel name -> its new definition (a list for a tuple channel
            such as ``tooltip``); channels not named are emitted as written.
        mark: mark properties to add: a point, circle, square or tick that
            Vega-Lite drew opaque because it aggregated (0.7 otherwise).
        kind: the mark drawn instead of the layer's (a density's ``rect``
            cells), with only `mark`'s properties; None keeps the layer's.
    """

    table: Table
    channels: dict
    mark: dict
    kind: str | None = None


def vega_bins(extent: tuple[float, float], maxbins: int = DEFAULT_MAXBINS, nice: bool = True,
              step: float | None = None) -> tuple[float, float, float]:
    """vega-statistics' ``bin``: (start, stop, step) for an extent, base 10, divisors 5 and 2.

    The arithmetic is JavaScript's, step for step (Python's floats are the same
    doubles; `round` is `Math.round`: halves up).
    """
    low, high = extent
    span = (high - low) or abs(low) or 1
    log_base = math.log(10)
    if step is None:
        level = math.ceil(math.log(maxbins) / log_base)
        step = max(0, 10 ** (math.floor(math.log(span) / log_base + 0.5) - level))
        while math.ceil(span / step) > maxbins:
            step *= 10
        for divisor in (5, 2):
            smaller = step / divisor
            if smaller >= 0 and span / smaller <= maxbins:
                step = smaller
    logged = math.log(step)
    precision = 0 if logged >= 0 else int(-logged / log_base) + 1
    eps = 10 ** (-precision - 1)
    if nice:
        floored = math.floor(low / step + eps) * step
        low = floored - step if low < floored else floored
        high = math.ceil(high / step) * step
    return float(low), float(low + step if high == low else high), float(step)


def binnable(layer: Layer) -> bool:
    """Whether the layer's encoding aggregates in a way `aggregate_encoding` computes (no rows read)."""
    if wants_box(layer) or wants_density(layer):
        return True
    if layer.trend is not None or layer.mark is None or layer.mark.type in COMPOSITE_MARKS or layer.markers:
        return False
    channels = list(layer.encoding.each())
    if not any(channel.aggregate or channel.get("bin") for channel in channels):
        return False
    for channel in channels:
        props = channel.definition()
        picked = props.get("aggregate")
        if isinstance(picked, dict) and (len(picked) != 1 or not set(picked) <= set(ARG_OPS)):
            return False
        if "timeUnit" in props and (time_unit_parts(props["timeUnit"]) is None or picked or props.get("bin")):
            return False
        if isinstance(props.get("sort"), dict):
            return False
        if isinstance(props.get("sort"), str) and props["sort"] not in ("ascending", "descending"):
            return False  # sorted by another channel: Vega-Lite measures the rows before they are aggregated
        if (not isinstance(picked, dict) and picked in RANDOM_OPS) or "condition" in props:
            return False
        binning = props.get("bin")
        if binning:
            if channel.name not in SECONDARY or layer.encoding.get(SECONDARY[channel.name]) is not None:
                return False
            if isinstance(binning, dict) and not set(binning) <= BIN_KEYS:
                return False
            if props.get("aggregate") or props.get("type", "quantitative") != "quantitative":
                return False
    return True


def time_unit_parts(unit) -> frozenset | None:
    """The parts of a date a channel's ``timeUnit`` keeps, where the engine floors it (`TIME_UNITS`); else None.

    A ``utc`` unit floors alike: the renderer's local time is UTC."""
    if not isinstance(unit, str):
        return None
    return TIME_UNITS.get(unit[3:] if unit.startswith("utc") else unit)


def aggregate_encoding(connection, chart: Chart, layer: Layer, table: Table, types: dict) -> Encoded | None:
    """A layer's encoding aggregation computed in the engine, and its channels rewritten to draw the result.

    Args:
        connection: the engine (`engine.connect`).
        chart: the chart (its facet's fields group the rows too).
        layer: the layer.
        table: the rows the layer draws, its transforms done.
        types: field -> measurement type after the layer's transforms.

    Returns:
        The groups' rows and the channels that draw them, or None where
        Vega-Lite keeps aggregating (see the module's docstring).
    """
    if not binnable(layer):
        return None
    if wants_density(layer):
        cells, channels, mark = density_rows(connection, chart, layer, table, types)
        return Encoded(cells, channels, mark, "rect")
    if wants_box(layer):
        rows = box_rows(connection, chart, layer, table, types)
        return None if rows is None else Encoded(rows, {}, {})
    view = register_table(connection, table, f"encoded_{id(table)}")
    bins, ops, groupby, rewritten, extents = [], [], [], {}, {}
    floors: dict[str, set] = {}  # a date field -> the parts its channels' time units keep (their groups' floor)
    plain = set()  # the fields read as they are: a field floored for a time unit must be read by none
    utc_years = set()  # fields a `utc` unit with a year floors: vega-time's utcFloor gives no date in years 0-99
    stacked = any(isinstance(layer.encoding.get(name), Channel) and layer.encoding.get(name).field
                  and not layer.encoding.get(name).aggregate for name in STACK_BY)

    def group(name: str) -> None:
        if name not in groupby:
            groupby.append(name)

    def rewrite(channel: Channel) -> dict | None:
        props = channel.definition()
        kind = channel_type(props, types)
        field, op, binning = props.get("field"), props.get("aggregate"), props.get("bin")
        if "timeUnit" in props:  # grouped by the date's floor; the channel, kept, floors the floors again alike
            floor(field, props["timeUnit"])
            return None
        plain.add(field)
        if binning:
            if table.kinds.get(field) != NUMBER:
                raise NotCompiled("a bin of values that are not numbers")
            if registered_kind(table, field) != NUM:  # integers past 2^53, whose JavaScript values are text
                raise NotCompiled("a bin of numbers JavaScript holds as text")
            if field not in extents:  # every binned field's extent at once: one scan
                extents.update(_extents(connection, table, view, [
                    name for name in _binned_fields(layer) if table.kinds.get(name) == NUMBER
                    and registered_kind(table, name) == NUM] or [field]))
            found = extents[field]
            if found[0] is None:
                raise NotCompiled("a bin of no numbers")
            binning = binning if isinstance(binning, dict) else {}
            maxbins = binning.get("maxbins", DEFAULT_MAXBINS)
            start, stop, step = vega_bins((float(found[0]), float(found[1])), maxbins, binning.get("nice", True),
                                          binning.get("step"))
            if (stop - start) / step > MAX_BINS:
                raise NotCompiled("more bins than the renderer draws")  # left for the verify stage to refuse
            last = start + math.ceil((stop - start) / step) * step  # vega-transforms' stop
            name = f"{field} (binned)"  # the title Vega-Lite gives the bin, as the field's own
            bins.append(BinStep(field, start, last, step, (name, f"{name}_end")))
            group(name)
            group(f"{name}_end")
            # The scale and axis Vega-Lite gives a bin it computes (for a `binned` one they differ on some marks):
            # the bins' extent, no zero, a tick per 10 px at most (`ceil(width/10)`).
            scale = {"domain": [start, stop], "zero": False, **dict(props.get("scale") or {})}
            out = {**{k: v for k, v in props.items() if k != "bin"}, "field": name, "type": "quantitative",
                   "bin": {"binned": True, "step": step}, "scale": scale}
            if props.get("axis", {}) is not None:
                size = "width" if channel.name == "x" else "height"
                out["axis"] = {"tickCount": {"expr": f"ceil({size}/10)"}, **dict(props.get("axis") or {})}
            # The end's title is the start's: Vega-Lite would join two default titles ("x (binned), x (binned)_end").
            rewritten[SECONDARY[channel.name]] = {"field": f"{name}_end", "title": props.get("title", name)}
            return out
        if isinstance(op, dict):  # `{argmax: F}`: the field in the row Vega picks (`vega.arg_row`)
            [(pick, by)] = op.items()
            plain.update(table.names)  # the picked row's fields are carried as they are
            if field is None or table.kinds.get(by) != NUMBER:
                raise NotCompiled("a row picked by values that are not numbers")
            name = f"{pick}_{by}"  # Vega-Lite's name for it, and its title: "price for max date"
            if name not in [made.as_ for made in ops]:
                ops.append(AggregateOp(pick, name, by))
            out = {**{k: v for k, v in props.items() if k != "aggregate"}, "field": arg_field(name, field),
                   "type": kind, "title": props.get("title", f"{field} for {pick[3:]} {by}")}
            if channel.name in SECONDARY and not stacked and "stack" not in props:
                out["stack"] = None
            return out
        if op:
            if op != "count" and (field is None or table.kinds.get(field) != NUMBER):
                raise NotCompiled("a measure of values that are not numbers")
            # Named with the title Vega-Lite gives the measure: a field's title is its name, and
            # Vega-Lite merges the layers' default titles of one axis ("price, Average of price").
            name = "Count of Records" if op == "count" else f"{op[:1].upper()}{op[1:]} of {field}"
            if name not in [made.as_ for made in ops]:  # a measure two channels draw (a colour and its tooltip)
                ops.append(AggregateOp(op, name, None if op == "count" else field))
            out = {**{k: v for k, v in props.items() if k != "aggregate"}, "field": name, "type": kind}
            if channel.name in SECONDARY and not stacked and "stack" not in props:
                out["stack"] = None  # Vega-Lite stacked nothing here; a plain field on a bar would stack
            return out
        if field is not None:
            if kind == "temporal":
                raise NotCompiled("a group of dates")  # Vega-Lite groups the Date objects it parsed
            group(field)
        return None

    def floor(field: str | None, unit) -> None:
        parts = time_unit_parts(unit)
        if parts is None or field is None or table.kinds.get(field) not in (DATE, NUMBER):
            raise NotCompiled("a time unit the engine does not floor")
        floors.setdefault(field, set()).update(parts)  # parts no built date holds: a row holds them (`sql`)
        if unit.startswith("utc") and "year" in parts:
            utc_years.add(field)
        group(field)

    try:
        for name, value in layer.encoding.items():
            if isinstance(value, tuple):
                items = [(rewrite(item), item) for item in value]
                if any(new is not None for new, _ in items):
                    rewritten[name] = [new if new is not None else item.definition() for new, item in items]
            else:
                new = rewrite(value)
                if new is not None:
                    rewritten[name] = new
        for channel in (chart.facet.channels() if chart.facet is not None else ()):
            if channel.field is None:
                continue
            props = channel.definition()
            if props.get("bin"):
                raise NotCompiled("a binned facet")  # its panels group the rows by their bins
            if "timeUnit" in props:
                floor(channel.field, props["timeUnit"])
            else:
                plain.add(channel.field)
                group(channel.field)
        if plain & set(floors):
            return None  # a date both floored and read as it is: the rows would need both
        made = [op.as_ for op in ops]
        if not ops or any(name not in table and not any(name in b.as_ for b in bins) for name in groupby) or len(
                set(made) | set(groupby)) < len(made) + len(groupby):
            return None  # a bin alone aggregates nothing: Vega-Lite bins each row
        chain = (*bins, *(TimeUnitStep(field, frozenset(parts)) for field, parts in floors.items()),
                 Aggregate(tuple(ops), tuple(groupby)))
        # A floored field is read as Vega-Lite parses a time unit's field: a date.
        in_place = registered_in_place(connection, table)
        dates = frozenset(field for field in floors if in_place and stored_date(table, field))
        numbers = [field for field in floors if table.kinds[field] == NUMBER]  # milliseconds since 1970
        if any(registered_kind(table, field) != NUM for field in numbers):
            raise NotCompiled("a time unit of numbers JavaScript holds as text")  # (integers past 2^53)
        if numbers and any(low is not None and max(-low, high) > MAX_DATE for low, high in
                           _extents(connection, table, view, numbers).values()):
            raise NotCompiled("a number past JavaScript's dates")  # an Invalid Date, which Vega groups apart
        query = compile_chain(view, table, chain, {field: "date" for field in floors}, [{} for _ in chain],
                              [None for _ in chain], prefix="e", dates=dates)
        rows, _ = run_query(connection, query, table)
    except (NotCompiled, OverflowError):  # (a date outside Python's years 1-9999)
        return None
    if any(value is not None and value.year < 100 for field in utc_years for value in rows[field]):
        return None
    if numbers:  # a floor of numbers is written as its number, as they were (the channels' types unchanged)
        millisecond = datetime.timedelta(milliseconds=1)
        rows = Table({name: [None if value is None else float((value - EPOCH) // millisecond) for value in cells]
                      if name in numbers else cells for name, cells in rows.columns.items()},
                     {**rows.kinds, **{name: NUMBER for name in numbers}})
    picks = [op.as_ for op in ops if op.op in ARG_OPS]
    if picks:  # of a picked row's fields (`arg_field`), only those a channel draws are carried
        drawn = {item.get("field") for new in rewritten.values() for item in (new if isinstance(new, list) else [new])}
        kept = [name for name in rows.names if name in drawn or not any(name.startswith(f"{pick}.") for pick in picks)]
        rows = Table({name: rows[name] for name in kept}, {name: rows.kinds[name] for name in kept})
    mark = {}
    if (layer.mark.type in TRANSLUCENT and "opacity" not in layer.mark.definition()
            and layer.encoding.get("opacity") is None and not _configures_opacity(chart, layer.mark.type)):
        mark["opacity"] = {"expr": "null"}  # none drawn, as for an aggregate (1 is written out; null is not Vega-Lite)
        for name in LEGEND_CHANNELS:  # the legend's symbols drawn opaque, as Vega-Lite draws an aggregate's
            channel = layer.encoding.get(name)
            if not isinstance(channel, Channel) or channel.field is None:
                continue
            props = rewritten.get(name, channel.definition())
            legend = props.get("legend", {})
            if isinstance(legend, dict) and "symbolOpacity" not in legend:
                rewritten[name] = {**props, "legend": {**legend, "symbolOpacity": 1}}
    return Encoded(rows, rewritten, mark)


def _binned_fields(layer: Layer) -> list[str]:
    """The fields the layer's channels bin, each once."""
    return list(dict.fromkeys(channel.field for channel in layer.encoding.each()
                              if channel.field and channel.definition().get("bin")))


def _extents(connection, table: Table, view: str, fields: list[str]) -> dict:
    """Field -> (min, max) of its numbers, NaN and missing values left out.

    Rows left in the engine are read from their own view: the registered one numbers the rows, which an
    extent does not need (`row_number()` is one more pass, in one thread). There, the integer columns'
    extents are a query of their own, which DuckDB answers from a Parquet file's statistics without
    reading a row; the others are one scan, whose NaN (greater than every number in DuckDB's order: a
    minimum is NaN only where every value is) is left out of the maxima alone, which costs less than a
    filter on each aggregate."""
    found: dict = {}
    if isinstance(table, EngineTable) and all(registered_kind(table, field) == NUM for field in fields):
        view = table.view
        integers = [field for field in fields if table.stored.get(field) == STORED_INTEGER]
        if integers:
            measures = ", ".join(f"{op}({quote_identifier(field)})" for field in integers for op in ("min", "max"))
            row = connection.execute(f"SELECT {measures} FROM {quote_identifier(view)}").fetchall()[0]
            found.update({field: tuple(None if value is None else float(value) for value in row[2 * i:2 * i + 2])
                          for i, field in enumerate(integers)})
    rest = [field for field in fields if field not in found]
    if rest:
        values = ", ".join(f"CAST({quote_identifier(field)} AS DOUBLE) AS v{index}" for index, field in enumerate(rest))
        measures = ", ".join(f"min(v{index}), max(CASE WHEN NOT isnan(v{index}) THEN v{index} END)"
                             for index in range(len(rest)))
        row = connection.execute(f"SELECT {measures} FROM (SELECT {values} FROM {quote_identifier(view)})").fetchall()[0]
        for index, field in enumerate(rest):
            low, high = row[2 * index:2 * index + 2]
            found[field] = (None, None) if low is None or math.isnan(low) else (low, high)
    return found


def _configures_opacity(chart: Chart, mark: str) -> bool:
    """Whether the chart's config (or hand-written Vega-Lite) may set the mark's opacity: then Vega-Lite's default is not drawn."""
    if chart.vega_lite.plain():
        return True
    config = chart.config.plain()
    return any(isinstance(config.get(key), dict) and "opacity" in config[key] for key in ("mark", mark))


# ------------------------------------------------------------------ lines reduced to their pixels (M4)

# A line is reduced when it has more rows than this many per pixel column: a smaller one is emitted whole.
REDUCE_ABOVE = 4
# The PNG's pixels per SVG pixel (`render.export.PNG_SCALE`): M4 at the raster's columns is exact at the
# SVG's too (each SVG column is two raster columns, whose extremes M4 keeps).
RASTER_SCALE = 2
# What a reducible line may set: nothing that draws a mark per row (`point`) or bends the line between rows.
LINE_MARK_KEYS = frozenset({"type", "color", "stroke", "strokeWidth", "strokeDash", "opacity", "strokeOpacity",
                            "strokeCap", "strokeJoin", "clip", "tooltip"})
POSITION_KEYS = frozenset({"field", "type", "title", "axis"})
# Channels whose field splits the rows into lines (or only labels them: a tooltip).
SERIES_CHANNELS = ("color", "stroke", "detail", "strokeDash", "tooltip")
# How a column left in the engine is stored, where its values split lines as their texts do (not floats: -0 and 0).
RAW_SERIES = frozenset({STORED_INTEGER, STORED_TEXT, STORED_BOOLEAN})


def nice_linear(low: float, high: float, count: int = 10) -> tuple[float, float]:
    """d3-scale's ``linear.nice(count)``: the domain Vega gives a linear scale with ``nice: true`` (count 10).

    The arithmetic is JavaScript's, step for step (d3-array's ``tickIncrement``).
    """
    previous = None
    for _ in range(10):
        step = _tick_increment(low, high, count)
        if step == previous:
            break
        if step > 0:
            low, high = math.floor(low / step) * step, math.ceil(high / step) * step
        elif step < 0:
            low, high = math.ceil(low * step) / step, math.floor(high * step) / step
        else:
            break
        previous = step
    return float(low), float(high)


def _tick_increment(start: float, stop: float, count: int) -> float:
    step = (stop - start) / max(0, count)
    if not step > 0 or not math.isfinite(step):
        return 0.0
    power = math.floor(math.log10(step))
    error = step / 10 ** power
    factor = 10 if error >= math.sqrt(50) else 5 if error >= math.sqrt(10) else 2 if error >= math.sqrt(2) else 1
    return -(10 ** -power) / factor if power < 0 else factor * 10 ** power


def line_columns(chart: Chart, layer: Layer, types: dict) -> int | None:
    """The pixel columns M4 reduces a line layer at (the PNG's), or None when its rows are emitted whole.

    Reduced: a screen chart of one line layer with a set width (the default
    theme, not interactive nor with a selection bound to the scales: a zoom
    would show what was left out; a facet's
    panels sharing x), x and y plain
    quantitative fields (x without a scale of its own: its domain is then
    Vega's niced extent, which `reduce_line` replicates), the other channels
    plain fields that split or label the lines.
    """
    width = screen_pixels(chart.width)
    if (len(chart.layers) != 1 or layer.trend is not None or layer.mark is None or layer.mark.type != "line"
            or layer.markers or chart.preset is not None or chart.vega_lite.plain() or chart.theme != "default"
            or chart.interactive or any(param.bind == "scales" for param in chart.params())
            or (chart.facet is not None and chart.resolve.plain())
            or not isinstance(width, (int, float)) or isinstance(width, bool) or width < 1
            or not set(layer.mark.definition()) <= LINE_MARK_KEYS or _configures_view(chart)):
        return None
    for name, value in layer.encoding.items():
        for channel in value if isinstance(value, tuple) else (value,):
            props = channel.definition()
            if name in ("x", "y"):
                keys = POSITION_KEYS | ({"scale"} if name == "y" else set())
                if not set(props) <= keys or channel_type(props, types) != "quantitative" or not props.get("field"):
                    return None
            elif name not in SERIES_CHANNELS or not set(props) <= {"field", "type", "title", "legend", "scale"}:
                return None
            elif not props.get("field") or channel_type(props, types) not in ("nominal", "ordinal"):
                return None
    if layer.encoding.get("x") is None or layer.encoding.get("y") is None:
        return None
    return int(width) * RASTER_SCALE


def _configures_view(chart: Chart) -> bool:
    """Whether the config may change the x scale or the plot's size (then the columns are not Vega's)."""
    config = chart.config.plain()
    return any(key in config for key in ("scale", "view", "line", "mark", "axisX", "autosize"))


def reduce_line(connection, chart: Chart, layer: Layer, table: Table, types: dict) -> Encoded | None:
    """A long line layer's rows reduced with M4 to at most 4 per pixel column and series (`reduce.m4_rows`).

    The columns are those of the x scale Vega draws (the extent of x, niced
    as d3 nices it) at the PNG's resolution, so the reduced line covers the
    full line's pixels in the SVG and in the PNG. None where the layer is not
    reduced (`line_columns`) or has at most `REDUCE_ABOVE` rows per column.
    """
    from .reduce import m4_reduce
    from .sql import ROW

    columns = line_columns(chart, layer, types)
    if columns is None or len(table) <= REDUCE_ABOVE * columns:
        return None
    x, y = layer.encoding.get("x").field, layer.encoding.get("y").field
    if table.kinds.get(x) != NUMBER or table.kinds.get(y) != NUMBER:
        return None
    in_place = registered_in_place(connection, table)  # the line's view holds the table's cells, nulls as nulls
    view = quote_identifier(register_table(connection, table, f"line_{id(table)}"))
    # Rows left in the engine: the extent read from their own view, which does not number them.
    extent_view = (quote_identifier(table.view) if isinstance(table, EngineTable) and registered_kind(table, x) == NUM
                   else view)
    integers = None  # x's extent and the rows' count, where x is integers a double holds: its cheaper key
    if extent_view != view and table.stored.get(x) == STORED_INTEGER:  # integers are finite: the file's statistics
        low, high = connection.execute(f"SELECT min({quote_identifier(x)}), max({quote_identifier(x)}) "
                                       f"FROM {extent_view}").fetchall()[0]
        if low is not None and x in table.exact:
            integers = (int(low), int(high), table.places)  # kept rows keep their data rows' numbers
    else:
        low, high = connection.execute(
            f"SELECT min(v), max(v) FROM (SELECT CAST({quote_identifier(x)} AS DOUBLE) AS v FROM {extent_view}) "
            "WHERE isfinite(v)").fetchall()[0]
    if low is None or not low < high:
        return None
    domain = nice_linear(float(low), float(high))
    fields = [channel.field for name in SERIES_CHANNELS if name != "tooltip"
              for channel in _channels(layer.encoding.get(name)) if channel.field]
    fields += [channel.field for channel in (chart.facet.channels() if chart.facet is not None else ())
               if channel.field]
    series = (f"list_value({', '.join(f'CAST({quote_identifier(f)} AS VARCHAR)' for f in fields)})"
              if fields else None)
    raw = len(fields) == 1 and isinstance(table, EngineTable) and table.stored.get(fields[0]) in RAW_SERIES and (
        table.stored[fields[0]] != STORED_INTEGER or fields[0] in table.exact)
    if raw:
        # One field of integers (a double holds each exactly), text or booleans: equal values are equal texts,
        # so the lines are split by the values themselves (building a list of text per row cost 15%).
        series = quote_identifier(fields[0])
    kept, named, cells = m4_reduce(connection, view, x=quote_identifier(x), y=quote_identifier(y),
                                   order=quote_identifier(ROW), domain=domain, width=columns, series=series,
                                   integers=integers, present=in_place and {x, y} <= table.complete)
    # The reduced rows carry only the fields drawn (as computed rows do): the others' cells would be
    # those of rows chosen for their x and y, and reading them is a second pass over every row.
    drawn = chart.drawn_fields()
    names = [name for name in table.names if drawn is None or name in drawn]
    if isinstance(table, EngineTable):  # only the rows kept leave the engine
        if raw and fields[0] not in table.cache:  # its values, as M4's pass found them, are its categories
            table.uniques.setdefault(fields[0], _as_fetched(table, fields[0], named))
        found = {x: 1, y: 2, **({fields[0]: 0} if raw else {})}  # where each is among the cells M4's pass found
        # In place, the view holds each cell as a fetch gives it (integers as doubles a double holds exactly),
        # but for a mix of integers and floats (a fold's), whose marks only a fetch reads.
        if cells is not None and in_place and set(names) <= set(found) and not set(names) & set(table.integers):
            return Encoded(Table({name: _as_fetched(table, name, [cells[row][found[name]] for row in kept])
                                  for name in names}, {name: table.kinds[name] for name in names}), {}, {})
        return Encoded(table.take(kept, names), {}, {})
    kept = set(kept)
    return Encoded(table.select([index in kept for index in range(len(table))]).only(names), {}, {})


def _as_fetched(table: EngineTable, name: str, values: list) -> list:
    """A column's values as the line's view holds them (integers as doubles) typed as `table.fetch` fetches
    them: a legend's categories, or the kept rows' cells, without a scan of their own (`reduce_line`)."""
    if table.stored[name] == STORED_INTEGER:
        return [v if v is None else float(v) if name in table.floats else int(v) for v in values]
    return list(values)


def _channels(value) -> tuple:
    if value is None:
        return ()
    return value if isinstance(value, tuple) else (value,)
