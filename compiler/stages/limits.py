"""How many marks a chart draws, and what chartc does about large numbers.

The renderer keeps every mark of a chart in its JavaScript heap. Measured
with vl-convert 1.9 (one point layer, 480×360, ARIA labels off, 2-core
machine): 2·10⁵ points render to SVG in 3.2 s at 0.74 GB peak and to PNG in
13 s at 0.9 GB; 5·10⁵ points take 7 s / 31 s at 1.7–1.9 GB; near 10⁶ the
~1.4 GB V8 heap runs out and the process *aborts* (vl-convert#210). So:

- Above `MAX_MARKS` marks chartc refuses the chart with a `SpecError` at the
  mark (or the data) that makes them, naming the count and the limit: a
  chart of that many marks is a blot anyway; aggregate, bin, sample or
  filter first. A gallery worker renders a chart at the limit (SVG, PNG,
  HTML, JSON) in ~30 s at ~1.2 GB peak, so two workers stay near 2.5 GB.
- Above `ARIA_MARKS` marks the per-mark ARIA labels are off
  (``config.mark.aria: false``, unless the spec sets ``aria`` itself): they
  are ~40% of the SVG's bytes and a quarter of its render time, and nobody
  reads 10⁴ labels with a screen reader. The axes, legend and title keep
  theirs.

Trend layers never count: their curves are fitted (a fixed number of
samples), not the raw rows.
"""

from __future__ import annotations

import dataclasses

from .. import errors as msg
from ..errors import SpecError

MAX_MARKS = 200_000
ARIA_MARKS = 10_000
# Each facet panel is a Vega group with its own axes and scales: a few
# thousand of them exhaust the renderer long before the marks do.
MAX_FACET_PANELS = 400
# Marks that summarise their rows: one mark per group, whatever the rows.
AGGREGATING_MARKS = frozenset({"boxplot", "errorbar", "errorband"})
DEFAULT_MAXBINS = 10  # Vega-Lite's


def count_marks(spec, table) -> list[tuple[tuple, int]]:
    """How many marks each (non-trend) layer draws, at most.

    An upper bound from the rows: filters are assumed to keep every row, a
    fold multiplies them, and an aggregate (a transform, an encoding's
    `aggregate` or `bin`, a boxplot) leaves one mark per distinct group when
    the group fields are columns of the data.

    Args:
        spec: the parsed chart.
        table: its rows (from the resolve stage).

    Returns:
        ``(layer path, marks)`` per mark layer, in layer order.
    """
    counts = []
    for layer in spec.layers:
        if layer.trend is not None or layer.mark is None:
            continue
        rows, columns = _through(len(table), table, (*spec.transform, *layer.transform))
        if rows and _aggregates(layer):
            rows = _groups(layer, table, columns, rows)
        counts.append((layer.path, rows))
    return counts


def apply_mark_limits(spec, table, doc):
    """Refuse a chart with too many marks; turn per-mark ARIA labels off for a large one.

    Args:
        spec: the parsed, checked chart.
        table: its rows.
        doc: its document, to place the error.

    Returns:
        The chart, with ``config.mark.aria: false`` added above `ARIA_MARKS`
        marks (unless its config sets ``aria``).

    Raises:
        SpecError: more than `MAX_MARKS` marks, at the mark of the largest layer.
    """
    _check_facet_panels(spec, table, doc)
    counts = count_marks(spec, table)
    total = sum(marks for _, marks in counts)
    if total > MAX_MARKS:
        path, _ = max(counts, key=lambda item: item[1])
        where = path + ("mark",)
        if where not in doc.positions:
            where = ("data",)
        raise SpecError(msg.too_many_marks(total, MAX_MARKS, len(counts)), where,
                        location=doc.locate(where), stage="check", hint=msg.too_many_marks_hint())
    if total > ARIA_MARKS and not _sets_aria(spec.config):
        config = dict(spec.config)
        config["mark"] = {**dict(config.get("mark") or {}), "aria": False}
        spec = dataclasses.replace(spec, config=config)
    return spec


def _check_facet_panels(spec, table, doc) -> None:
    """Refuse a facet whose row and column fields make more than `MAX_FACET_PANELS` panels."""
    # A binned or time-unit facet has fewer panels than values (a year of dates
    # is one panel): only plain fields are counted.
    fields = [d["field"] for c, d in (spec.facet or {}).items()
              if c in ("row", "column") and isinstance(d, dict) and d.get("field") in table
              and not d.get("timeUnit") and not d.get("bin")]
    panels = _distinct(table, fields) if fields else 1
    if panels > MAX_FACET_PANELS:
        where = ("facet",)
        raise SpecError(msg.too_many_panels(panels, MAX_FACET_PANELS), where, location=doc.locate(where, key=True),
                        stage="check", hint=msg.too_many_panels_hint())


def _sets_aria(config: dict) -> bool:
    mark = config.get("mark")
    return "aria" in config or (isinstance(mark, dict) and "aria" in mark)


def _through(rows: int, table, transforms) -> tuple[int, set | None]:
    """Rows after the transforms (an upper bound), and the data columns still usable as groups."""
    columns: set | None = set(table.names)
    for step in transforms:
        if "fold" in step:
            rows *= max(1, len(step["fold"]))
            columns = None  # the folded key and value are new fields
        elif "aggregate" in step:
            groups = step.get("groupby", [])
            if columns is not None and all(g in columns for g in groups):
                rows = min(rows, _distinct(table, groups))
            columns = set()  # only the aggregate's own fields remain
        elif "calculate" in step and columns is not None:
            columns.discard(step["as"])  # a calculated field shadows a column of the same name
    return rows, columns


def _aggregates(layer) -> bool:
    if layer.mark.get("type") in AGGREGATING_MARKS:
        return True
    return any(isinstance(d, dict) and (d.get("aggregate") or d.get("bin"))
               for d in layer.encoding.values())


def _groups(layer, table, columns: set | None, rows: int) -> int:
    """Marks of an aggregated layer: distinct values of its grouping channels, times the bins."""
    fields, bins = [], 1
    for definition in layer.encoding.values():
        items = definition if isinstance(definition, list) else [definition]
        for item in items:
            if not isinstance(item, dict) or "field" not in item or item.get("aggregate"):
                continue
            if item.get("bin"):
                binning = item["bin"] if isinstance(item["bin"], dict) else {}
                bins *= int(binning.get("maxbins", DEFAULT_MAXBINS)) if "step" not in binning else 1
                if "step" not in binning:
                    continue
            fields.append(item["field"])
    if columns is None or not all(f in columns for f in fields):
        return rows  # a group field made by a transform: no better bound than the rows
    return min(rows, _distinct(table, sorted(set(fields))) * bins)


def _distinct(table, fields) -> int:
    return table.distinct(fields) if fields else 1
