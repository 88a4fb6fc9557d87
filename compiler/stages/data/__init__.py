"""Stage 4: the chart's rows: read, scrubbed, sampled, and through every layer's transforms as Vega computes them.

    DataSource -read_rows-> the engine's view `SOURCE` + Table -scrub_table-> Table (+ warnings)
               -sample_rows-> the rows drawn
    Chart + Table -follow_fields-> FieldFlow (the fields before and after each transform)
    Chart + Tables -flow_data-> DataFlow (per layer: the rows its marks get, or why they cannot be known)

`read` finds and reads the rows (inline values, files beside the spec, an
offline vega-datasets table) and hashes their source for provenance;
`sources` registers them in the data engine (`engine`, DuckDB) as one view
and turns a query's rows into a `Table`;
`scrub` replaces text that would abort the renderer; `sql` compiles each
layer's transforms to one query run in the engine, once, with
what Vega-Lite and Vega do to rows on the way (`vega`: field predicates,
implicit parsing, aggregate ops); `interpret` runs them in Python where
only Vega knows the rows, to say why. Every later stage (the checks, the
mark limits, the fits, the translator's field types) reads the `DataFlow`
and nothing else about rows.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass

from ...infra.table import Table
from ...ir.nodes import Chart
from ...ir.transforms import Lookup, Pivot
from .interpret import INTERPRETERS, Rows, Unknowable, interpret_layers
from .read import (DELIMITERS, MAX_FILE_BYTES, READERS, BoundTable, bind_table, data_file, data_files, data_identity,
                   data_source, load_dataset, project_root, read_columns, read_rows, read_table, register_source,
                   row_place, start_identity)
from .encoded import Encoded, aggregate_encoding, binnable, line_columns, reduce_line, vega_bins
from .intervals import interval_encoding, wants_interval
from .lookup import chart_lookups, lookup_identities, lookup_table, lookup_types, lookup_warnings
from .engine import connect
from .sql import evaluate_layers
from .sql import pivot_columns as engine_pivot_columns
from .scrub import MAX_SAFE_INTEGER, RENDERER_UNSAFE, scrub_table, scrub_text
from .sources import SOURCE, EngineTable, in_engine, is_table, materialise, pulled_too_many, register_frame, write_rows
from .vega import channel_type, emitted_predicate

__all__ = [
    "DELIMITERS", "DataFlow", "Encoded", "FieldFlow", "INTERPRETERS", "OpenFields", "MAX_FILE_BYTES", "MAX_SAFE_INTEGER", "READERS",
    "RENDERER_UNSAFE", "Rows", "SOURCE", "Unknowable", "channel_type", "data_file", "data_files",
    "BoundTable", "EngineTable", "bind_table", "is_table", "read_table", "register_frame", "write_rows",
    "data_identity", "data_source", "emitted_predicate", "field_types", "present_values", "flow_data", "follow_fields",
    "load_dataset", "materialise", "pivot_columns", "project_root", "read_columns", "read_rows", "register_source",
    "row_place", "start_identity", "vega_bins",
    "scrub_table", "scrub_text",
    "chart_lookups", "lookup_identities", "lookup_table", "lookup_types", "lookup_warnings",
]


def present_values(table: Table, name: str) -> set:
    """A column's values other than None (a colour's categories): asked of the engine for rows left there."""
    if in_engine(table, name):
        return table.present(name)
    return {value for value in table[name] if value is not None}


def field_types(table: Table) -> dict[str, str]:
    """Column -> the measurement type its values imply."""
    return {name: table.measurement(name) for name in table.names}


@dataclass(frozen=True)
class FieldFlow:
    """The fields (name -> measurement type) along the transforms, from each node's `fields_after`.

    Known without the rows (`chartc validate` follows it from the column
    names alone), and the same for every stage.

    Attributes:
        base: the data's columns.
        shared: after the chart's transforms.
        layers: per layer, after the chart's and its own transforms.
        before: transform path -> the fields just before it.
    """

    base: dict
    shared: dict
    layers: tuple
    before: dict


def follow_fields(chart: Chart, base: dict[str, str], pivots: dict | None = None,
                  lookups: dict | None = None) -> FieldFlow:
    """Follow the fields through every transform of a chart.

    A pivot's columns are its rows' values: `pivots` (pivot path -> its
    columns, `pivot_columns`) names them; without it (`chartc validate`
    reads no rows) the fields after a pivot are open (`OpenFields`): any
    name may be one of its columns, so no read past it is reported.

    Args:
        chart: the chart.
        base: the data's columns and their measurement types (`OpenFields` when they are not known).
        pivots: each pivot's columns, when the rows are known.
        lookups: each lookup's field types (lookup path -> field -> type, `lookup_types`), when its
            second source is read; without them its fields are nominal.

    Returns:
        The fields before each transform and after each layer's.
    """
    before: dict = {}

    def through(steps, fields):
        for step in steps:
            before[step.path] = fields
            if isinstance(step, Pivot) and pivots is not None and step.path in pivots:
                step = dataclasses.replace(step, columns=pivots[step.path])
            if isinstance(step, Lookup) and lookups is not None and step.path in lookups:
                step = dataclasses.replace(step, types=tuple(lookups[step.path].items()))
            after = step.fields_after(fields)
            open_ = isinstance(fields, OpenFields) or (isinstance(step, Pivot) and step.columns is None)
            fields = OpenFields(after) if open_ else after
        return fields

    start = OpenFields(base) if isinstance(base, OpenFields) else dict(base)
    shared = through(chart.transform, start)
    layers = tuple(through(layer.transform, shared) for layer in chart.layers)
    return FieldFlow(start, shared, layers, before)


class OpenFields(dict):
    """The fields after a pivot whose columns are not known (no rows), or of a data source whose columns only
    its engine knows (`read_columns`): every name may be there."""

    def __contains__(self, name) -> bool:
        return True


def pivot_columns(chart: Chart, table: Table) -> dict | None:
    """Each pivot's columns (pivot path -> names), from the rows through the transforms before it; None without a pivot."""
    if not any(isinstance(step, Pivot) for layer in chart.layers for step in chart.transforms(layer)):
        return None
    fields = follow_fields(chart, field_types(table))
    # The keys are the rows' values: the engine reads them (`sql.pivot_columns`), the interpreter where it cannot.
    lazy = isinstance(table, EngineTable)
    with contextlib.nullcontext(table.connection) if lazy else contextlib.closing(connect()) as connection:
        pivots = engine_pivot_columns(connection, chart, table, fields.layers, fields.shared)
    if pivots is not None or pulled_too_many(table):  # (past the bound the layers are refused: `evaluate_layers`)
        return pivots or {}
    pivots = {}
    interpret_layers(chart, table, fields.layers, fields.shared, pivots)
    return pivots


@dataclass(frozen=True)
class DataFlow:
    """A chart's rows, and what each layer gets of them.

    Attributes:
        table: every row read (scrubbed): what the checks and the fits see.
        drawn: the rows the chart draws (a `data.sample` of `table`, or all of it).
        fields: the fields along the transforms.
        layers: per layer, every row through its transforms (checks, fits).
        drawn_layers: per layer, the drawn rows through them (mark limits).
        encoded: per layer, its drawn rows aggregated as its encoding asks
            (`encoded.Encoded`), or a long line's reduced to its pixels (M4,
            `encoded.reduce_line`), or None where Vega-Lite aggregates them (or
            nothing does); empty when no layer's encoding aggregates.
    """

    table: Table
    drawn: Table
    fields: FieldFlow
    layers: tuple
    drawn_layers: tuple
    encoded: tuple = ()


def flow_data(chart: Chart, table: Table, drawn: Table | None = None) -> DataFlow:
    """Run every layer's transforms on the rows, as Vega will.

    Args:
        chart: the chart.
        table: every row read (scrubbed).
        drawn: the rows drawn, when a sample is (default: `table`).

    Returns:
        The flow: the field types, and each layer's rows (or why they
        cannot be known).
    """
    drawn = table if drawn is None else drawn
    fields = follow_fields(chart, field_types(table), pivot_columns(chart, drawn), lookup_types(chart))
    if (not any(chart.transforms(layer) for layer in chart.layers) and not any(map(binnable, chart.layers))
            and not _long_line(chart, drawn, fields) and not any(map(wants_interval, chart.layers))):
        # Nothing to compute: the rows are the data's (only the fields the layers' parses leave unknowable
        # to note), and a chart without transforms never starts the engine.
        layers = interpret_layers(chart, table, fields.layers, fields.shared)
        drawn_layers = layers if drawn is table else interpret_layers(chart, drawn, fields.layers, fields.shared)
        return DataFlow(table, drawn, fields, layers, drawn_layers)
    # Rows left in the engine are queried where they are, on its connection (open while the table lives).
    lazy = isinstance(table, EngineTable)
    with contextlib.nullcontext(table.connection) if lazy else contextlib.closing(connect()) as connection:
        layers = _evaluate(connection, chart, table, fields)
        drawn_layers = layers if drawn is table else _evaluate(connection, chart, drawn, fields)
        encoded = tuple(_encode(connection, chart, layer, every, sampled, types) for layer, every, sampled, types
                        in zip(chart.layers, layers, drawn_layers, fields.layers))
    return DataFlow(table, drawn, fields, layers, drawn_layers, encoded if any(encoded) else ())


def _encode(connection, chart: Chart, layer, every: Rows | None, drawn: Rows | None, types: dict) -> Encoded | None:
    """A layer's encoding done in the engine: an `extent: ci` over every row (an interval is of
    all the rows' mean, never of a sample), an aggregation over the rows drawn."""
    interval = wants_interval(layer)
    rows = every if interval else drawn
    if rows is None or rows.table is None or rows.unknown:
        return None
    if interval:
        return interval_encoding(chart, layer, rows.table, types)
    return (aggregate_encoding(connection, chart, layer, rows.table, types)
            or reduce_line(connection, chart, layer, rows.table, types))


def _long_line(chart: Chart, drawn: Table, fields: FieldFlow) -> bool:
    """Whether a line layer may have rows for M4 to reduce (`encoded.reduce_line`): then the engine is started."""
    return any(columns is not None and len(drawn) > columns
               for columns in (line_columns(chart, layer, types) for layer, types in zip(chart.layers, fields.layers)))


def _evaluate(connection, chart: Chart, table: Table, fields: FieldFlow) -> tuple:
    """Each layer's rows from the engine; where Vega alone knows them, the interpreter says why.

    Rows left in the engine (`EngineTable`) that no transform changes stay there: each layer's are
    the table itself, nothing is fetched."""
    if isinstance(table, EngineTable) and not any(chart.transforms(layer) for layer in chart.layers):
        return interpret_layers(chart, table, fields.layers, fields.shared)
    layers = evaluate_layers(connection, chart, table, fields.layers, fields.shared)
    if all(rows is not None for rows in layers):
        return layers
    explained = interpret_layers(chart, table, fields.layers, fields.shared)
    return tuple(explained[index] if rows is None else rows for index, rows in enumerate(layers))
