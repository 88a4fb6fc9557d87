"""Stage 7: fit every trend layer of a chart on its data.

The least-squares methods fit from sufficient statistics summed by one
query in the engine per layer, every group and panel at once (`query_sums`,
`trends.moments`: a straight line's in one pass where its digits allow, else
centred in two); the smoothers fit in numpy on the
values (`trends.fitting.fit_values`). The rows each
trend layer sees come from the data stage's interpreter (every row, through
the chart's and the layer's transforms, as Vega computes them: a trend after
a `calculate` fits the calculated field). This stage fits one line per `by`
group and facet panel, follows the x
and y scales the chart declares (on any layer: layers share their axes),
turns dates into numbers and back, and places any failure at the trend's
position in the spec file.

Dates on x are fitted as milliseconds since 1970-01-01 of their wall-clock
time (the same zone-free reading `Table.records` gives the renderer), so
the coefficients of a temporal trend are per millisecond.
"""

from __future__ import annotations

import dataclasses
import datetime
import string
import sys
from collections.abc import Mapping

import numpy as np

from .. import errors as msg
from ..errors import SpecError
from ..infra.table import BOOLEAN, DATE, NUMBER, TEXT, Table, floats, json_value, milliseconds, parse_date
from ..ir.nodes import Chart, Layer, thaw
from ..trends.fitting import (TrendLine, TrendPlan, extent_sql, fit_sums, fit_values, format_trend_label, plan_trend,
                              shifted_sql, sums_sql)
from ..trends.moments import Sums, centred_bounds, shift_and_bounds, sums_from_rows, sums_from_shifted
from .data import DataFlow, Rows
from .data.engine import connect, quote_identifier
from .data.sources import ROW, STORED_DATE, EngineTable, register_arrays
from .markers import category_key

STAGE = "fit"
# Rows of a trend layer up to which the least-squares sums are taken in memory, not in the engine.
IN_MEMORY_ROWS = 100_000
# A part's values when they stay in the engine (its fit comes from its sums alone).
NO_VALUES = np.empty(0)

# Encoding properties that make a channel show something other than the rows'
# own values; a trend is fitted to the rows, so it cannot follow them.
DERIVED_PROPERTIES = ("aggregate", "bin", "timeUnit")

# Measurement types a trend can fit on, per channel.
FIT_TYPES = {"x": ("quantitative", "temporal"), "y": ("quantitative",)}

# The scale a channel has when the chart declares no type.
DEFAULT_SCALE = {"quantitative": "linear", "temporal": "time"}

def fit_chart(chart: Chart, data: DataFlow) -> dict[tuple, list[TrendLine]]:
    """Fit each trend layer on the rows it gets (every row, through its transforms).

    Args:
        chart: the checked chart.
        data: its rows through every layer's transforms (`data.flow_data`).

    Returns:
        Layer path -> its fitted lines (one per group), in group order.

    Raises:
        SpecError: a fit is impossible (too few points, bad values, bad label,
            rows that cannot be known before rendering).
    """
    fits = {}
    problems = []
    for layer, rows in zip(chart.layers, data.layers):
        if layer.trend is None:
            continue
        try:
            fits[layer.path] = fit_layer(layer, chart, rows)
        except SpecError as error:
            problems.extend(error.errors)
    if problems:
        raise SpecError.collect(problems)
    return fits


def fit_layer(layer: Layer, chart: Chart, rows: Rows) -> list[TrendLine]:
    """The fitted lines of one trend layer, labels filled in.

    Args:
        layer: a layer with a `trend`.
        chart: the chart (for its facet and the other layers' scales).
        rows: the layer's rows, from the data stage's interpreter.

    Returns:
        One `TrendLine` per `by` group (one in all without `by`): groups that a
        marker map on the same field declares come first, in its order, then
        the rest in sorted order.

    Raises:
        SpecError: the first problem, at the trend key it concerns; rows that
            cannot be known, at the transform that makes them so.
    """
    trend = layer.trend

    def fail(message, relative=(), hint=None, group=None, panel=()):
        relative = tuple(relative)
        # The key at fault if the file has it, else the trend's own key.
        written = trend.source.positions.get(trend.at(*relative)) if relative and trend.source else None
        if trend.by is not None and group is not None:
            message = msg.trend_in_group(trend.by, group, message)
        if panel:
            message = msg.trend_in_panel(panel, message)
        return trend.error(message, *relative, stage=STAGE, hint=hint, location=written or trend.locate(key=True))

    facet_fields = _facet_fields(chart)
    channels = {}
    for name in ("x", "y"):
        channel = layer.encoding.get(name)
        if channel is None or isinstance(channel, tuple) or channel.field is None:
            raise fail(msg.trend_needs_xy(name))
        for prop in DERIVED_PROPERTIES:
            if channel.get(prop):
                raise channel.error(msg.trend_channel_derived(name, prop), prop, stage=STAGE,
                                    hint=msg.trend_channel_derived_hint(name, prop))
        channels[name] = channel
    if rows.table is None:  # a transform the fit cannot follow: say which
        raise rows.unknowable.error(msg.trend_rows_unknown(rows.unknowable.reason), stage=STAGE,
                                    hint=msg.trend_rows_unknown_hint())
    x_field, y_field = channels["x"].field, channels["y"].field
    for field in (x_field, y_field, trend.by, *facet_fields):
        if field in rows.unknown:
            why = rows.unknown[field]
            raise why.error(msg.trend_rows_unknown(why.reason), stage=STAGE, hint=msg.trend_rows_unknown_hint())
    table = rows.table
    kinds = {}
    for name, field in (("x", x_field), ("y", y_field)):
        kind = channels[name].type or table.measurement(field)
        if table.kinds[field] == DATE:
            kind = "temporal"
        if kind not in FIT_TYPES[name]:
            raise channels[name].error(msg.trend_channel_type(name, field, kind, FIT_TYPES[name]), stage=STAGE,
                                       hint=msg.trend_channel_type_hint())
        kinds[name] = kind
    temporal = table.kinds[x_field] == DATE
    scales = {name: _axis_scale(chart, layer, name) for name in ("x", "y")}
    try:
        extent = _extent(trend.extent, scales["x"], temporal)
    except SpecError as error:
        raise fail(error.message, ("extent",), error.hint) from None
    options = dict(
        **trend.parameters.plain(), band=trend.band, prediction=trend.prediction, space=trend.space, extent=extent,
        x_scale=scales["x"].get("type", DEFAULT_SCALE[kinds["x"]]),
        y_scale=scales["y"].get("type", DEFAULT_SCALE[kinds["y"]]),
        x_exponent=scales["x"].get("exponent", 1.0), y_exponent=scales["y"].get("exponent", 1.0),
    )
    try:
        plan, refused = plan_trend(trend.method, **options), None
    except SpecError as error:  # reported at the first group, as its fit would
        plan, refused = None, error
    weight = plan.options.parameters.get("weight") if plan is not None else None
    if weight is not None and weight not in table.kinds:
        raise fail(msg.trend_weight_not_found(weight, list(table.kinds)), ("weight",))
    parts, weights = [], []
    in_engine = refused is None and _numbers_in_engine(table, facet_fields, (x_field, y_field, weight), trend.by)
    lazy = in_engine and plan.fitter.fits_from_moments(plan.options) and len(table) > IN_MEMORY_ROWS
    if in_engine and not lazy:
        limited = _group_past_limit(plan, table, (x_field, y_field, weight), trend.by, facet_fields, chart)
        if limited is not None:
            panel, group, count, limit = limited
            raise fail(msg.trend_too_many_rows(plan.method, count, limit), ("method",),
                       msg.trend_too_many_rows_hint(), group, panel)
    # Rows left in the engine are summed there, per panel and group: only their values are read.
    for panel, panel_rows in [] if lazy else _panels(table, facet_fields):
        groups = _groups(panel_rows, trend.by, chart)
        if not groups:  # every row's `by` value is missing
            raise fail(msg.trend_too_few_x(0), ("by",), msg.trend_too_few_x_hint(), panel=panel)
        for group, part in groups:
            if refused is not None:
                raise fail(refused.message, refused.path, refused.hint, group, panel)
            parts.append((panel, group, floats(part, x_field), floats(part, y_field)))
            weights.append(None if weight is None else floats(part, weight))
    # Rows already in memory are summed there (`math.fsum`, exactly rounded) up to a size where the
    # engine is faster; a chart with a few thousand points then never imports the engine for its fit.
    if lazy:
        keys = []
        for panel, groups in _engine_parts(table, facet_fields, trend.by, chart):
            if not groups:  # every row's `by` value is missing
                raise fail(msg.trend_too_few_x(0), ("by",), msg.trend_too_few_x_hint(), panel=panel)
            parts += [(panel, group, NO_VALUES, NO_VALUES) for group, _ in groups]
            keys += [key for _, key in groups]
        weights = [None for _ in parts]
        sums = engine_statistics(plan, table, x_field, y_field, trend.by, facet_fields, keys, weight)
    else:
        in_engine = (plan.fitter.fits_from_moments(plan.options)
                     and sum(len(x) for _, _, x, _ in parts) > IN_MEMORY_ROWS)
        sums = fit_statistics(plan, parts, weights if weight is not None else None) if in_engine else {}
    lines = []
    for index, (panel, group, x, y) in enumerate(parts):
        corner, text = annotation(trend)
        try:
            line = _fit(plan, x, y, group, sums.get(index), weights[index])
            label = format_trend_label(trend.label, line) if trend.label is not None else None
        except SpecError as error:
            raise fail(error.message, error.path, error.hint, group, panel) from None
        if corner is not None and text is not None:
            try:  # fail here, at the text, not when drawing
                format_trend_label(text, line)
            except SpecError as error:
                raise fail(error.message, ("annotate", "text"), error.hint, group, panel) from None
        lines.append(dataclasses.replace(
            line, label=label, x_type="temporal" if temporal else "quantitative", panel=panel))
    if facet_fields and trend.label is not None:
        # One legend for every panel: a label must read the same in each of them.
        labels: dict = {}
        for line in lines:
            labels.setdefault(category_key(line.group), set()).add(line.label)
        if any(len(texts) > 1 for texts in labels.values()):
            raise fail(msg.trend_label_differs_by_panel(trend.label), ("label",),
                       msg.trend_label_differs_by_panel_hint())
    return lines


# What numpy raises when numbers leave double precision mid-fit (a scale that
# overflows, a padding width that comes out negative).
ARITHMETIC_ERRORS = (ArithmeticError, ValueError)


def _fit(plan: TrendPlan, x, y, group, sums: Sums | None, weights=None) -> TrendLine:
    """`fit_sums` (or `fit_values` without sums), with x values too close together for double precision
    reported as a `SpecError`.

    The polynomial fits scale x's spread onto [-1, 1]: when that spread is
    below the smallest normal double (~2.2e-308, e.g. x values such as 5e-324
    and 1e-310) the scale overflows and the fit breaks. A fit that succeeds
    all the same (on a log axis, a smoother) is kept.

    Raises:
        SpecError: from the fit, or for x values whose span is subnormal.
    """
    def subnormal(low, high):
        return SpecError(msg.trend_x_span_subnormal(plan.method, low, high, sys.float_info.min), stage="fit",
                         hint=msg.trend_x_span_subnormal_hint())

    # In fitting space: x that is subnormal as read can be fitted on a log axis.
    if sums is not None and sums.x_range is not None and 0 < sums.w_scale < sys.float_info.min:
        raise subnormal(*sums.x_range)
    try:
        with np.errstate(all="ignore"):  # a failure is reported below, not warned about on stderr
            return fit_values(plan, x, y, group, weights) if sums is None else fit_sums(plan, sums, group)
    except ARITHMETIC_ERRORS:
        kept = x[np.isfinite(x) & np.isfinite(y)]
        low, high = (float(kept.min()), float(kept.max())) if len(kept) else (0.0, 0.0)
        if not 0 < high - low < sys.float_info.min:
            raise  # not this data's precision: a fault to report as such
        raise subnormal(low, high) from None


def fit_statistics(plan: TrendPlan, parts: list[tuple], weights: list | None = None) -> dict[int, Sums]:
    """Every part's sufficient statistics, from one query in the engine (`trends.moments.sums_query`).

    Args:
        plan: a least-squares request.
        parts: (panel, group, x, y) per line to fit, x and y float arrays.
        weights: each part's weights (float arrays), for a weighted fit; None: unweighted.

    Returns:
        Part index -> its `Sums` (a part without a finite x and y has none).
    """
    connection = connect()
    try:
        source = register_rows(connection, parts, weights)
        return query_sums(connection, plan, source, "x", "y", "part", None if weights is None else "w")
    finally:
        connection.close()


def query_sums(connection, plan: TrendPlan, source: str, x: str, y: str, part: str,
               weight: str | None = None) -> dict:
    """Every group's `Sums` over a relation in the engine.

    A straight line without weights is summed in one pass about the middle of the data's extent
    (`moments.shifted_query`, after `moments.extent_query`), in fixed point, so every engine finds the
    same bits; a group whose mean lies too far from that shift for its spread (`moments.CONDITION`), and
    every other fit, takes the centred two-pass query (`moments.sums_query`).

    Args:
        connection: the engine's connection.
        plan: a least-squares request.
        source, x, y, part, weight: the relation, and the SQL of a row's x, y, group and weight.

    Returns:
        Group (``part``'s value) -> its `Sums`; a group without a finite x and y has none.
    """
    extent = connection.execute(extent_sql(plan, source, x, y, part, weight)).fetchone()
    shifted = shift_and_bounds(extent) if plan.degree == 1 and weight is None else None
    if shifted is not None:
        shift, bounds = shifted
        found = sums_from_shifted(_keyed(connection.execute(shifted_sql(plan, source, x, y, part, shift, bounds)
                                                            ).fetchall()), shift, bounds)
        if found is not None:
            return found
    bounds = centred_bounds(extent, weight is not None)
    rows = _keyed(connection.execute(sums_sql(plan, source, x, y, part, weight, bounds)).fetchall())
    return sums_from_rows(rows, plan.degree, weighted=weight is not None, bounds=bounds)


def engine_statistics(plan: TrendPlan, table: EngineTable, x: str, y: str, by: str | None, facet_fields: tuple,
                      keys: list, weight: str | None = None) -> dict[int, Sums]:
    """Every part's sufficient statistics from one query over rows left in the engine (no row leaves it).

    Args:
        plan: a least-squares request.
        table: the rows, in the engine (`data.EngineTable`).
        x, y, by, weight: the columns (numbers; `by` a column of numbers, text or booleans, or None).
        facet_fields: the chart's facet fields (`_part_sql`).
        keys: each part's key as the engine gives it (`_engine_parts`), in the order of the parts.

    Returns:
        Part index -> its `Sums`, as `fit_statistics` gives them for the same rows.
    """
    part, present = _part_sql(table, facet_fields, by)
    extra = f", {_number_sql(table, weight)} AS w" if weight is not None else ""
    connection = table.connection
    connection.execute(f"CREATE OR REPLACE TEMP VIEW trend_rows AS SELECT {part} AS part, {_number_sql(table, x)} "
                       f"AS x, {_number_sql(table, y)} AS y{extra} FROM {quote_identifier(table.view)} WHERE {present}")
    found = query_sums(connection, plan, "trend_rows", "x", "y", "part", None if weight is None else "w")
    index = {key: i for i, key in enumerate(keys)}
    return {index[key]: sums for key, sums in found.items() if key in index}


def _number_sql(table: EngineTable, field: str) -> str:
    """The SQL of a column as the fit reads it (`floats`): numbers as doubles, dates as milliseconds since
    1970-01-01 of their wall clock, from their whole microseconds with one rounding (`milliseconds`)."""
    column = quote_identifier(field)
    if table.kinds[field] == DATE:
        return f"CAST(date_diff('microsecond', TIMESTAMP '1970-01-01 00:00:00', {column}) AS DOUBLE) / 1000"
    return f"CAST({column} AS DOUBLE)"


def _part_sql(table: EngineTable, facet_fields: tuple, by: str | None) -> tuple[str, str]:
    """The SQL of a row's part (its panel and `by` group) over rows left in the engine, and of the condition that
    it has a group.

    Grouped by the columns' own values (numbers as doubles, -0 with 0, as `unique` groups them) and matched to
    the parts afterwards: a lookup of each row's value in the list of groups cost a quarter of the scan. With
    facets, a struct of each facet field (NaN missing: a panel of its own with the nulls, as `_panels` keys
    them) and the group.
    """
    if by is None:
        group, present = "0", "true"
    elif table.kinds[by] == NUMBER:
        group = f"CAST({quote_identifier(by)} AS DOUBLE)"
        present = f"{group} IS NOT NULL AND NOT isnan({group})"
    else:
        group, present = quote_identifier(by), f"{quote_identifier(by)} IS NOT NULL"
    if not facet_fields:
        return group, present
    fields = ", ".join(f"'p{i}': {table.key_sql(field)}" for i, field in enumerate(facet_fields))
    return f"{{{fields}, 'g': {group}}}", present


def _keyed(rows: list) -> list:
    """Rows whose first cell is a part's key, a struct (a dict, from either engine) made a tuple of its values."""
    return [(tuple(row[0].values()), *row[1:]) if isinstance(row[0], dict) else row for row in rows]


def _engine_parts(table: EngineTable, facet_fields: tuple, by: str | None, chart: Chart) -> list[tuple]:
    """(panel, [(group, the part's key in the engine), ...]) per panel of rows left in the engine, in the order of
    `_panels` and `_groups` (a panel whose rows lack a `by` value has no group).

    The engine finds each part's first row; only those rows' facet and `by` values are read (as many rows as
    lines to fit), and ordered as the rows read into Python would be.
    """
    if not facet_fields:  # the groups are the column's categories, which other stages ask for too
        if by is None:
            return [((), [(None, 0)])]
        ordered = _groups(Table({by: table.unique(by)}, {by: table.kinds[by]}), by, chart)
        return [((), [(group, float(group) if table.kinds[by] == NUMBER else group) for group, _ in ordered])]
    part, _ = _part_sql(table, facet_fields, by)
    row = quote_identifier(ROW)
    firsts = dict((first, key) for key, first in _keyed(table.connection.execute(
        f"SELECT part, min({row}) FROM (SELECT {part} AS part, {row} FROM {quote_identifier(table.rows_view())}) "
        f"GROUP BY part").fetchall()))
    numbers = sorted(firsts)
    names = list(dict.fromkeys([*facet_fields, *([by] if by is not None else [])]))
    firsts_read = table.take(numbers, names)  # in row order: panels and groups ordered as `_panels`, `_groups`
    key = "#" + "".join(names)  # the parts' keys beside them, under a name no field has (longer than each)
    parts = Table({**firsts_read.columns, key: [firsts[number] for number in numbers]},
                  {**firsts_read.kinds, key: None})
    return [(panel, [(group, first) for group, rows in _groups(panel_rows, by, chart) for first in rows[key]])
            for panel, panel_rows in _panels(parts, facet_fields)]


def register_rows(connection, parts: list[tuple], weights: list | None = None) -> str:
    """The parts' rows as one relation (``part``, ``x``, ``y``, and ``w`` with weights) in the engine; returns its name.

    The rows enter the engine as every row does, through
    `sources.register_arrays`; the data stage's own relation of a layer's
    rows, with the group and panel as columns, can take its place.
    """
    lengths = [len(x) for _, _, x, _ in parts]
    columns = {
        "part": np.repeat(np.arange(len(parts), dtype=np.int64), lengths),
        "x": np.concatenate([x for _, _, x, _ in parts]),
        "y": np.concatenate([y for _, _, _, y in parts]),
    }
    if weights is not None:
        columns["w"] = np.concatenate(weights)
    return register_arrays(connection, "trend_rows", columns)


def _facet_fields(chart: Chart) -> tuple[str, ...]:
    """The fields the chart is faceted by (row, then column); a trend is fitted once per panel.

    Raises:
        SpecError: a facet channel that bins, aggregates or takes a time unit:
            its panels are not the rows' own values, so no fit can follow them.
    """
    fields = []
    for channel in (chart.facet.channels() if chart.facet is not None else ()):
        for prop in DERIVED_PROPERTIES:
            if channel.get(prop):
                raise channel.error(msg.trend_facet_derived(channel.name, prop), prop, stage=STAGE,
                                    hint=msg.trend_facet_derived_hint())
        fields.append(channel.field)
    return tuple(fields)


def _panels(rows: Table, fields: tuple[str, ...]) -> list[tuple[tuple, Table]]:
    """((field, value) pairs of a panel, its rows) per facet panel, in order of first appearance.

    One panel, ``()``, without a facet. A missing value is a panel of its own,
    as Vega-Lite draws it.
    """
    if not fields:
        return [((), rows)]
    keys = list(zip(*(map(json_value, rows[field]) for field in fields)))
    return [(tuple(zip(fields, key)), rows.select([k == key for k in keys])) for key in dict.fromkeys(keys)]


def annotation(trend) -> tuple[str | None, str | None]:
    """A trend's `annotate` as (corner, text template): (None, None) for none;
    a text of None prints each line's label, else its equation."""
    value = trend.annotate
    if isinstance(value, Mapping):
        corner, text = value.get("position"), value.get("text")
    else:
        corner, text = value, None
    return (None, None) if corner in (None, "none") else (corner, text)


def label_uses_group(template: str | None) -> bool:
    """Whether a label template names the `{group}` placeholder."""
    if template is None:
        return False
    try:
        return any(name is not None and name.split(".")[0].split("[")[0] == "group"
                   for _, name, _, _ in string.Formatter().parse(template))
    except ValueError:
        return False


def _axis_scale(chart: Chart, layer: Layer, channel: str) -> dict:
    """The scale a layer's channel is drawn with: its own declaration first,
    then the other layers' (Vega-Lite shares one x and one y scale)."""
    own = layer.encoding.get(channel)
    scale = dict(own.get("scale") or {}) if own is not None and not isinstance(own, tuple) else {}
    for other in chart.layers:
        theirs = other.encoding.get(channel)
        if other is not layer and theirs is not None and not isinstance(theirs, tuple):
            for key, value in (theirs.get("scale") or {}).items():
                scale.setdefault(key, value)
    return scale


def _extent(extent, scale: dict, temporal: bool):
    """`extent` as fit_trend takes it: None for the data, else (low, high) numbers."""
    if extent == "data":
        return None
    if extent == "axis":
        domain = scale.get("domain")
        if not isinstance(domain, (list, tuple)) or len(domain) < 2:
            raise SpecError(msg.trend_extent_axis(), hint=msg.trend_extent_axis_hint())
        values = [_bound(v, temporal) for v in domain]
        if any(v is None for v in values):
            raise SpecError(msg.trend_extent_axis(), hint=msg.trend_extent_axis_hint())
        return (min(values), max(values))
    return tuple(_bound(v, temporal) for v in extent)


def _bound(value, temporal: bool):
    """One extent or domain value in fitting units (dates as milliseconds)."""
    value = thaw(value)
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not temporal:
        raise SpecError(msg.trend_extent_text(value), hint=msg.trend_extent_text_hint())
    try:
        stamp = datetime.datetime(**_datetime_parts(value)) if isinstance(value, dict) else parse_date(value)
    except (ValueError, TypeError, OverflowError):
        raise SpecError(msg.trend_extent_date(value), hint=msg.trend_extent_text_hint()) from None
    return milliseconds(stamp)


def _datetime_parts(value: dict) -> dict:
    """A Vega-Lite DateTime object (`{year: 2020, month: 3}`) as datetime arguments."""
    keys = {"year": "year", "month": "month", "date": "day", "hours": "hour",
            "minutes": "minute", "seconds": "second"}
    parts = {"year": 2012, "month": 1, "day": 1}  # Vega-Lite's defaults
    for key, name in keys.items():
        if key in value:
            parts[name] = value[key]
    if "milliseconds" in value:
        parts["microsecond"] = int(value["milliseconds"]) * 1000
    unknown = set(value) - set(keys) - {"milliseconds", "utc"}
    if unknown:
        raise ValueError(f"unknown DateTime keys {sorted(unknown)}")
    return parts


def _numbers_in_engine(table, facet_fields, fields: tuple, by: str | None) -> bool:
    """Whether a fit's rows can be counted or summed where they are: rows left in the engine, whose x, y (and
    weight) are numbers (x may be dates the engine stores as dates; text is made a number in Python), and
    whose `by` and facet fields are columns the engine groups alike (numbers, text, booleans, such dates)."""
    def stored_dates(field):
        return table.kinds.get(field) == DATE and table.stored.get(field) == STORED_DATE

    x, *numbers = fields
    return (isinstance(table, EngineTable)
            and (table.kinds.get(x) == NUMBER or stored_dates(x))
            and all(table.kinds.get(field) == NUMBER for field in numbers if field is not None)
            and (by is None or table.kinds.get(by) in (NUMBER, TEXT, BOOLEAN))
            and all(table.kinds.get(field) in (NUMBER, TEXT, BOOLEAN) or stored_dates(field)
                    for field in facet_fields))


def _group_past_limit(plan: TrendPlan, table: EngineTable, fields: tuple, by: str | None, facet_fields: tuple,
                      chart: Chart) -> tuple | None:
    """The first part (in `_engine_parts`'s order) with more rows than the method fits, as (panel, group, its
    count, the limit), for rows the engine can count (`_numbers_in_engine`): counted there, so a fit that would be
    refused fetches no row (what comes back to Python is bounded by the limit); None where none is past it.
    """
    limit = plan.fitter.row_limit(plan.options)
    if limit is None or len(table) <= limit:
        return None
    finite = " AND ".join(f"isfinite({_number_sql(table, field)})" for field in fields if field is not None)
    part, present = _part_sql(table, facet_fields, by)
    counts = dict(_keyed(table.connection.execute(
        f"SELECT part, count(*) FROM (SELECT {part} AS part FROM {quote_identifier(table.view)} "
        f"WHERE {finite} AND {present}) GROUP BY part").fetchall()))
    if not any(count > limit for count in counts.values()):
        return None
    return next((panel, group, counts[key], limit) for panel, groups in _engine_parts(table, facet_fields, by, chart)
                for group, key in groups if counts.get(key, 0) > limit)


def _groups(rows: Table, by: str | None, chart: Chart) -> list[tuple]:
    """(group value, its rows) pairs: one pair of (None, all rows) without `by`."""
    if by is None:
        return [(None, rows)]
    keys = [json_value(v) for v in rows[by]]  # dates as text, NaN as None
    present = list(dict.fromkeys(k for k in keys if k is not None))
    declared = [value for layer in chart.layers if layer.markers is not None
                and layer.markers.field == by for value, _ in layer.markers.styles]
    rank = {key: index for index, key in enumerate(dict.fromkeys(declared))}

    def order(value, text=False):
        return (rank.get(category_key(value), len(rank)), str(value) if text else value)

    try:
        present.sort(key=order)
    except TypeError:  # a column of mixed types: compare their text
        present.sort(key=lambda v: order(v, text=True))
    return [(value, rows.select([k == value for k in keys])) for value in present]
