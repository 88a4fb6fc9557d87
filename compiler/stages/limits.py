"""How many marks a chart draws, and what chartc does about large numbers.

The renderer keeps every mark of a chart in its JavaScript heap. Measured
with vl-convert 1.9 (one point layer, 480×360, ARIA labels off, 2-core
machine): 2·10⁵ points render to SVG in 3.2 s at 0.74 GB peak and to PNG in
13 s at 0.9 GB; 5·10⁵ points take 7 s / 31 s at 1.7–1.9 GB; near 10⁶ the
~1.4 GB V8 heap runs out and the process *aborts* (vl-convert#210). So:

- Above `MAX_MARKS` marks chartc refuses the chart with a `SpecError` at the
  mark (or the data) that makes them, naming the count and the limit: a
  chart of that many marks is a blot anyway; draw a scatter as its density
  (`mark: {type: point, density: true}`: a mark per cell), aggregate, bin,
  sample or filter first. A density of more cells than that is told to use
  larger ones. A gallery worker renders a chart at the limit (SVG, PNG,
  HTML, JSON) in ~30 s at ~1.2 GB peak, so two workers stay near 2.5 GB.
- Above `ARIA_MARKS` marks the per-mark ARIA labels are off
  (``config.mark.aria: false``, unless the spec sets ``aria`` itself): they
  are ~40% of the SVG's bytes and a quarter of its render time, and nobody
  reads 10⁴ labels with a screen reader. The axes, legend and title keep
  theirs.

Trend layers never count: their curves are fitted (a fixed number of
samples), not the raw rows.

What a mark cannot draw at all is refused here too, before any row is read
(`check_polar_channels`): an arc placed by x or y, or without a theta, and
theta or radius on a mark they do not place.
"""

from __future__ import annotations

import dataclasses

from .. import errors as msg
from ..errors import SpecError
from ..ir.nodes import Chart, Layer, freeze
from .data import DataFlow, Rows
from .data.density import wants_density
from .data.vega import COMPOSITE_MARKS

STAGE = "check"
MAX_MARKS = 200_000
ARIA_MARKS = 10_000
# Each facet panel is a Vega group with its own axes and scales: a few
# thousand of them exhaust the renderer long before the marks do.
MAX_FACET_PANELS = 400
# The channels that place arcs (and text around a pie); the marks they place; what an arc never takes.
POLAR_CHANNELS = ("theta", "radius")
POLAR_MARKS = ("arc", "text")
ARC_EXCLUDED = ("x", "y", "x2", "y2")
# Marks that summarise their rows: one mark per group, whatever the rows.
DEFAULT_MAXBINS = 10  # Vega-Lite's


def count_marks(chart: Chart, data: DataFlow) -> list[tuple[tuple, int]]:
    """How many marks each (non-trend) layer draws, at most.

    The rows each layer draws come from the data stage's interpreter: exact
    when they are known, else its upper bound (filters keep every row, a
    fold multiplies them, an aggregate leaves at most its groups). An
    aggregating layer (an encoding's `aggregate` or `bin`, a boxplot) draws
    one mark per distinct group of its rows, times the bins.

    Args:
        chart: the parsed chart.
        data: its rows through every layer's transforms (`data.flow_data`).

    Returns:
        ``(layer path, marks)`` per mark layer, in layer order.
    """
    counts = []
    encoded = data.encoded or (None,) * len(chart.layers)
    for layer, rows, reduced in zip(chart.layers, data.drawn_layers, encoded):
        if layer.trend is not None or layer.mark is None:
            continue
        marks = rows.bound if reduced is None else len(reduced.table)
        # Groups the engine computed are counted (a box plot's are a few rows each); others are bounded here.
        if marks and _aggregates(layer) and (reduced is None or layer.mark.type in COMPOSITE_MARKS):
            marks = _groups(layer, rows, marks)
        counts.append((layer.path, marks))
    return counts


def apply_mark_limits(chart: Chart, data: DataFlow) -> Chart:
    """Refuse a chart with too many marks; turn per-mark ARIA labels off for a large one.

    Args:
        chart: the parsed, checked chart.
        data: its rows (`data.flow_data`).

    Returns:
        The chart, with ``config.mark.aria: false`` added above `ARIA_MARKS`
        marks (unless its config sets ``aria``).

    Raises:
        SpecError: more than `MAX_MARKS` marks, at the mark of the largest layer.
    """
    _check_facet_panels(chart, data)
    counts = count_marks(chart, data)
    total = sum(marks for _, marks in counts)
    if total > MAX_MARKS:
        path, _ = max(counts, key=lambda item: item[1])
        layer = next(layer for layer in chart.layers if layer.path == path)
        node = layer.mark if layer.mark.source is not None and layer.mark.source.has(layer.mark.path) else chart.data
        encoded = data.encoded[chart.layers.index(layer)] if data.encoded else None
        grouped = _grouped_by_renderer(layer) if len(counts) == 1 and encoded is None else None
        if grouped is not None:  # its count is its rows' distinct values: every row is sent
            rows = data.drawn_layers[chart.layers.index(layer)].bound
            raise node.error(msg.too_many_rows_grouped_by_renderer(rows, MAX_MARKS, grouped), stage=STAGE,
                             hint=msg.too_many_rows_grouped_by_renderer_hint(grouped))
        hint = msg.too_many_cells_hint() if wants_density(layer) else msg.too_many_marks_hint()
        raise node.error(msg.too_many_marks(total, MAX_MARKS, len(counts)), stage=STAGE, hint=hint)
    if total > ARIA_MARKS and not _sets_aria(chart.config):
        config = chart.config.plain()
        config["mark"] = {**dict(config.get("mark") or {}), "aria": False}
        chart = dataclasses.replace(chart, config=dataclasses.replace(chart.config, value=freeze(config)))
    return chart


def check_polar_channels(chart: Chart) -> list[SpecError]:
    """What an arc mark and the polar channels cannot draw: refused before any row is read.

    An arc (a pie or donut slice) is placed by `theta` and `radius`, never by
    x or y (E555), and needs a theta (E557: else every slice is the whole
    circle); a theta or radius draws a field, a constant, or a count (E556);
    and only arc and text marks are placed by them (E558: the renderer
    ignores them on any other mark, silently).

    Args:
        chart: the parsed chart.

    Returns:
        The errors, layer by layer; a channel shared by several layers is
        reported once.
    """
    problems: dict[tuple, SpecError] = {}
    for layer in chart.layers:
        if layer.mark is None:
            continue
        kind = layer.mark.type
        for channel in layer.encoding.each():
            if kind == "arc" and channel.name in ARC_EXCLUDED:
                problem = channel.error(msg.arc_position_channel(channel.name), stage=STAGE, key=True,
                                        hint=msg.arc_position_channel_hint())
            elif channel.name not in POLAR_CHANNELS:
                continue
            elif kind not in POLAR_MARKS:
                problem = channel.error(msg.polar_channel_not_for(channel.name, kind), stage=STAGE, key=True,
                                        hint=msg.polar_channel_not_for_hint())
            elif not any(key in channel for key in ("field", "value", "datum")) and channel.aggregate != "count":
                problem = channel.error(msg.polar_channel_without_value(channel.name), stage=STAGE, key=True,
                                        hint=msg.polar_channel_without_value_hint(channel.name))
            else:
                continue
            problems.setdefault(channel.path, problem)
        if kind == "arc" and "theta" not in layer.encoding:
            problems.setdefault(layer.mark.path, layer.mark.error(msg.arc_without_theta(), stage=STAGE,
                                                                  hint=msg.arc_without_theta_hint()))
    return list(problems.values())


def _check_facet_panels(chart: Chart, data: DataFlow) -> None:
    """Refuse a facet whose row and column fields make more than `MAX_FACET_PANELS` panels."""
    # A binned or time-unit facet has fewer panels than values (a year of dates
    # is one panel): only plain fields are counted.
    table = data.drawn
    channels = chart.facet.channels() if chart.facet is not None else ()
    fields = [channel.field for channel in channels if channel.field in table
              and not channel.get("timeUnit") and not channel.get("bin")]
    panels = table.distinct(fields) if fields else 1
    if panels > MAX_FACET_PANELS:
        raise chart.facet.error(msg.too_many_panels(panels, MAX_FACET_PANELS), stage=STAGE, key=True,
                                hint=msg.too_many_panels_hint())


def _sets_aria(config) -> bool:
    mark = config.get("mark")
    return "aria" in config or (hasattr(mark, "keys") and "aria" in mark)


def _aggregates(layer: Layer) -> bool:
    if layer.mark.type in COMPOSITE_MARKS:
        return True
    return any(channel.aggregate or channel.get("bin") for channel in layer.encoding.each())


def _grouped_by_renderer(layer: Layer) -> str | None:
    """The field whose `timeUnit` groups an aggregating layer (asked of a layer the engine did not group: the
    renderer groups it, every row is sent to it, its groups not counted before); None for any other."""
    if not _aggregates(layer):
        return None
    return next((channel.field for channel in layer.encoding.each()
                 if channel.field is not None and not channel.aggregate and channel.get("timeUnit")), None)


def _groups(layer: Layer, rows: Rows, marks: int) -> int:
    """Marks of an aggregated layer: distinct values of its grouping channels, times the bins."""
    fields, bins = [], 1
    for channel in layer.encoding.each():
        if channel.field is None or channel.aggregate:
            continue
        binning = channel.get("bin")
        if binning:
            binning = binning if hasattr(binning, "keys") else {}
            bins *= int(binning.get("maxbins", DEFAULT_MAXBINS)) if "step" not in binning else 1
            if "step" not in binning:
                continue
        fields.append(channel.field)
    if not all(rows.known(field) for field in fields) or (rows.table is None and fields):
        return marks  # groups of values that cannot be known: no better bound than the rows
    distinct = rows.table.distinct(sorted(set(fields))) if rows.table is not None else 1
    return min(marks, distinct * bins)
