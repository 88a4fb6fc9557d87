"""Stage 5: every check of the spec against its data: fields, values, marker maps.

`check_chart` reports, each at the position where the spec names it:

- every field a transform, channel, marker map, trend or facet names that
  the data lacks at that point (`data.FieldFlow`: each transform's
  `fields_after`), including the fields an expression reads, at their
  column in the expression;
- a facet `columns` with both `row` and `column` (only one field wraps), and
  `format: pow10` on an x or y axis no layer makes logarithmic;
- with the rows (`data.DataFlow`, the interpreter's output): a log scale
  over values that are zero or negative, date text a temporal channel cannot
  place (both on the rows the layer draws), marker categories without a
  style, shapes the renderer does not draw, and an expression that throws
  in JavaScript (Vega would then draw nothing).

`chartc validate` runs the field checks alone, from the column names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .. import errors as msg
from ..errors import SpecError
from ..infra.shapes import resolve_shape
from ..infra.table import TEXT, Table, parse_date
from ..ir.nodes import Channel, Chart, DataSource, Layer, Markers
from ..ir.source import Node
from ..ir.transforms import Density
from .data import DataFlow, FieldFlow, Rows, row_place
from .data.engine import quote_text
from .data.sources import in_engine, iso_date_sql
from .markers import category_key, data_categories

STAGE = "check"


def check_chart(chart: Chart, fields: FieldFlow, data: DataFlow | None = None) -> list[SpecError]:
    """Check every field reference, and (with the rows) the values each layer draws.

    Args:
        chart: the parsed chart.
        fields: the fields along its transforms (`data.follow_fields`).
        data: its rows through every layer's transforms (`data.flow_data`);
            None to check field names only (`chartc validate`).

    Returns:
        Errors and `SpecWarning`s, in file order.
    """
    problems: list[SpecError] = []

    def need(name: str, available: dict, node: Node, *child, location=None) -> None:
        if name in available:
            return
        if name in fields.base:  # dropped by an aggregate or fold on the way
            message, hint = msg.field_dropped(name), msg.field_dropped_hint(list(available))
        else:
            message, hint = msg.field_not_found(name, available), msg.field_hint(name, list(available))
        problems.append(node.error(message, *child, stage=STAGE, hint=hint, location=location))

    for step in (*chart.transform, *(step for layer in chart.layers for step in layer.transform)):
        for read in step.reads():
            need(read.name, fields.before[step.path], step, *read.child, location=step.place(read))
    for index, layer in enumerate(chart.layers):
        rows = data.layers[index] if data is not None else None
        _check_layer(layer, fields.layers[index], rows, data, chart.data, need, problems)
    for channel in (chart.facet.channels() if chart.facet is not None else ()):
        need(channel.field, fields.shared, channel, *channel.field_at())
    if chart.facet is not None and chart.facet.columns is not None and len(chart.facet.channels()) > 1:
        problems.append(chart.facet.error(msg.facet_wrap_two_fields(), "columns", stage=STAGE,
                                          hint=msg.facet_wrap_two_fields_hint()))
    problems.extend(_check_pow10(chart))
    problems.extend(_check_densities(chart, fields))
    if data is not None:
        problems.extend(_thrown(data))
    return sorted(problems, key=lambda p: (p.location.line, p.location.column) if p.location else (0, 0))


def _check_pow10(chart: Chart) -> list[SpecError]:
    """`format: pow10` on an x or y axis whose scale no layer makes logarithmic.

    Its labels show only exact powers of ten, so a linear axis would draw all
    but one blank. Layers share the x and y scales: a log scale declared on
    any layer's channel makes the whole axis logarithmic.
    """
    problems = []
    for name in ("x", "y"):
        channels = [layer.encoding.get(name) for layer in chart.layers]
        channels = [c for c in channels if isinstance(c, Channel)]
        if any((c.get("scale") or {}).get("type") == "log" for c in channels):
            continue
        for channel in channels:
            axis = channel.get("axis")
            if axis is not None and axis.get("format") == "pow10":
                problems.append(channel.error(msg.pow10_linear(name), "axis", "format", stage=STAGE,
                                              hint=msg.pow10_linear_hint()))
    return problems


def _check_layer(layer: Layer, fields: dict, rows: Rows | None, data: DataFlow | None, source: DataSource,
                 need, problems) -> None:
    for channel in layer.encoding.each():
        condition = channel.get("condition")
        if isinstance(condition, Mapping) and isinstance(condition.get("field"), str):  # `{param: brush, field: F}`
            need(condition.get("field"), fields, channel, "condition", "field")
        picked = channel.aggregate
        if isinstance(picked, Mapping):  # `{argmax: F}`: the row where F is largest
            for op, name in picked.items():
                need(name, fields, channel, "aggregate", op)
        if channel.field is None:
            continue
        need(channel.field, fields, channel, *channel.field_at())
        if rows is None or not rows.known(channel.field):
            continue
        scale = channel.get("scale")
        if scale is not None and scale.get("type") == "log" and not channel.aggregate:
            problems.extend(_check_log_scale(rows.table, channel))
        if channel.type == "temporal":
            problems.extend(_check_dates(rows, channel, source))
    if layer.markers:
        need(layer.markers.field, fields, layer.markers, "field")
        if layer.markers.field in fields and data is not None:
            problems.extend(check_markers(layer.markers, data.table))
    if layer.trend and layer.trend.by is not None:
        need(layer.trend.by, fields, layer.trend, "by")


def _check_densities(chart: Chart, fields: FieldFlow) -> list[SpecError]:
    """A density estimates a numeric field: one the flow says holds text, dates or booleans draws nothing."""
    problems = []
    for step in (*chart.transform, *(step for layer in chart.layers for step in layer.transform)):
        if not isinstance(step, Density):
            continue
        kind = fields.before[step.path].get(step.density)
        if kind is not None and kind != "quantitative":
            problems.append(step.error(msg.density_not_numeric(step.density), "density", stage=STAGE,
                                       hint=msg.density_not_numeric_hint(kind)))
    return problems


def _thrown(data: DataFlow) -> list[SpecError]:
    """An expression that throws in JavaScript on these rows: Vega would draw nothing from them."""
    seen, problems = set(), []
    for rows in data.layers:
        why = rows.unknowable
        if why is not None and why.thrown and why.node.path not in seen:
            seen.add(why.node.path)
            problems.append(why.error(why.reason, stage=STAGE, hint=why.hint or msg.expression_throws_hint()))
    return problems


# ------------------------------------------------------------------ values

def _check_log_scale(table: Table, channel: Channel) -> list[SpecError]:
    bad = table.non_positive(channel.field)  # over rows left in the engine, counted there
    if not bad:
        return []
    return [channel.error(msg.log_scale_non_positive(channel.field, bad), "scale", "type", stage=STAGE,
                          hint=msg.log_scale_hint())]


def _check_dates(rows: Rows, channel: Channel, source: DataSource) -> list[SpecError]:
    """Text a temporal channel cannot place would silently drop or misplace its marks."""
    table: Table = rows.table
    field = channel.field
    if table.kinds.get(field) not in (TEXT, None):  # numbers are timestamps; dates are parsed
        return []
    found = _first_day_first(table, field)
    if found is not None:  # the renderer drops these, and reads the rest month first
        first, value = found
        row = rows.source_row(first)
        where = row_place(source, row) if row is not None else msg.data_row_number(first)
        return [channel.error(msg.day_first_dates(field, value, where), "type", stage=STAGE,
                              hint=msg.day_first_dates_hint())]
    count, bad = _unreadable_dates(table, field)
    if bad:
        return [channel.error(msg.not_dates(field, bad, count), "type", stage=STAGE, hint=msg.not_dates_hint())]
    return []


def _unreadable_dates(table: Table, field: str) -> tuple[int, list]:
    """How many distinct texts of a column are no date the renderer reads (`readable_date`), and the first
    three. Rows left in the engine are tested there, ISO dates in SQL, the rest once per distinct text: only
    the three come back, not the column's texts (unbounded where each row has its own time)."""
    if _text_in_engine(table, field):
        return table.rejected(field, readable_date, lambda text: iso_date_sql(text)[0], limit=3)
    bad = [value for value in table.unique(field) if isinstance(value, str) and not readable_date(value)]
    return len(bad), bad[:3]


# A date written with numbers, day or month first: 31/12/2020, 12.31.20, 1-2-2020.
NUMERIC_DATE = re.compile(r"^\s*(\d{1,2})([/.-])(\d{1,2})\2(?:\d{4}|\d{2})(?!\d)", re.ASCII)
# The same for the engines' regular expressions (RE2's and Java's): one per separator (no back-reference),
# the year's end a non-digit or the end (no look-ahead), Python's ASCII spaces written out (no backslash).
NUMERIC_DATE_SQL = tuple(f"^[ \t\n\r\f\v]*([0-9]{{1,2}}){sep}[0-9]{{1,2}}{sep}([0-9]{{4}}|[0-9]{{2}})([^0-9]|$)"
                         for sep in ("/", "[.]", "-"))


def day_first_sql(column: str) -> str:
    """SQL of whether a text column's cell is a date written day first (`day_first`): its first number past 12."""
    return " OR ".join(f"coalesce(CAST(nullif(regexp_extract({column}, {quote_text(pattern)}, 1), '') AS INTEGER) "
                       f"> 12, false)" for pattern in NUMERIC_DATE_SQL)


def _first_day_first(table: Table, field: str) -> tuple[int, str] | None:
    """The first row whose date text is written day first (`day_first`), and that text; None where none is.
    Rows left in the engine are searched there (`NUMERIC_DATE_SQL`): the column is not read whole."""
    if _text_in_engine(table, field):
        return table.first_where(field, day_first_sql)
    values = table[field]
    first = next((index for index, value in enumerate(values) if isinstance(value, str) and day_first(value)), None)
    return None if first is None else (first, values[first])


def _text_in_engine(table: Table, field: str) -> bool:
    """Whether a column is text left in the engine: the checks of its dates then run there."""
    return table.kinds.get(field) == TEXT and in_engine(table, field)


def day_first(text: str) -> bool:
    """Whether date text is written day first, which the renderer (JavaScript's Date) cannot read.

    It reads a numeric date month first: 12/31/2020 is a day, 31/12/2020 is
    no date at all (and 01/02/2020 is January 2).
    """
    match = NUMERIC_DATE.match(text)
    return match is not None and int(match.group(1)) > 12


def readable_date(text: str) -> bool:
    """Whether date text reads as a day that exists: ISO, or a common form such as "Jan 1 2000"."""
    try:
        parse_date(text)
        return True
    except ValueError:
        pass
    from dateutil import parser  # the loose reading, only for the rare text column on a time axis

    try:
        parser.parse(text)
    except (ValueError, OverflowError):
        return False
    return True


# ------------------------------------------------------------------ marker maps

def check_markers(markers: Markers, table: Table | None) -> list[SpecError]:
    """Problems with a layer's marker map against its data.

    Args:
        markers: the layer's marker map.
        table: the chart's rows (every row read).

    Returns:
        An error for unknown shapes and for data values without a style (and
        no `default`); a `SpecWarning` for each styled value absent from the
        data.
    """
    problems: list[SpecError] = []
    styled = [style for _, style in markers.styles] + ([markers.default] if markers.default is not None else [])
    for style in styled:
        if style.shape is None:
            continue
        try:
            resolve_shape(style.shape)
        except SpecError as error:
            problems.append(style.error(error.message, "shape", stage=STAGE, hint=error.hint))
    present = data_categories(markers, table)
    if present is None:
        return problems
    keys = {category_key(v): v for v in present}
    declared = [key for key, _ in markers.styles]
    missing = [keys[k] for k in keys if k not in declared]
    if missing and markers.default is None:
        problems.append(markers.error(msg.marker_unstyled(markers.field, missing), "styles", stage=STAGE, key=True,
                                      hint=msg.marker_unstyled_hint(missing)))
    for key in declared:
        if key not in keys:
            problems.append(markers.warning(msg.marker_absent(markers.field, key), "styles", key, stage=STAGE,
                                            key=True))
    return problems
