"""Reading a chart's rows: inline values, files beside the spec (one, or a glob), an offline vega-datasets table,
a table passed from Python (`bind_table`, `read_table`: a DataFrame, a lazy frame or a stream, read by the
engine where it is, its rows left there), or a table of the engine's catalog (`read_catalog`: ``logs.runs``
on Spark, its rows left there).

`read_rows` reads every row of them into a `table.Table` with parsed dates
(no row is left unread: only the marks drawn are limited, by the limits
stage), Parquet and Arrow files, large CSV and TSV files (`engine_reads`) and
tables passed from Python through the data engine, where their rows stay
(`sources.EngineTable`);
`register_source` makes them the engine's view `sources.SOURCE` for the
queries over them; `read_columns` reads only the column names (for `chartc validate`:
a CSV's header, a Parquet file's schema), through the same readers, so both
refuse the same files with the same words. `data_identity` hashes the rows'
source (before they are read) for the chart's provenance. Every failure is a
`SpecError` at the spec's `data`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ... import errors as msg
from ...errors import SpecError
from ...infra import datahash
from ...infra.provenance import dataset_hash, values_hash
from ...infra.table import (Table, TableError, data_row_line, from_records, json_reader_types, parse_dates,
                            read_delimited_files, read_header, record_names)
from ...ir.nodes import Chart, DataSource
from .engine import EngineUnavailable, connect, connect_duckdb, current_engine, quote_identifier, quote_text
from .sources import (DELIMITED, ENGINE_SUFFIXES, SOURCE, CatalogTableMissing, EngineReadError, EngineTable,
                      JsonNotTyped, TextReadError, engine_columns, frame_failure, is_spark, is_table,
                      register_catalog_table, register_files, register_frame, register_json_files, register_numbered,
                      register_table, register_text_files, view_hash, STREAM_BATCH)

if TYPE_CHECKING:
    import duckdb

# The step of the data stage that finds and reads the rows (the name diagnostics carry).
STAGE = "resolve"
# JSON parsed in Python (every byte of it held at once) is limited to this size a file: small files, and
# records the engine does not type as that reader does (`sources.register_json_files`). Parquet, Arrow and
# the text files the engine parses (`ENGINE_TEXT_BYTES`) have no size limit.
MAX_FILE_BYTES = 50 * 1024 * 1024
# CSV, TSV and JSON files (a glob's, together) up to this size are parsed by chartc's reader, which starts in
# milliseconds; larger ones by the engine, which pays its import once (~0.2 s), was level with the reader
# at 5.5 MB and 1.6x faster at 56 MB, and has no size limit (docs/data-engine.md). Both type every cell
# alike (tests/test_text_engine.py).
ENGINE_TEXT_BYTES = 4 * 1024 * 1024
# JSON files (a glob's, together) up to this size are parsed by chartc's reader; larger ones by the engine,
# which has no size limit. Not at ENGINE_TEXT_BYTES: the engine parses and types a JSON file in SQL at about
# half the speed of Python's json module (a 116 MB file: 14.7 s against 8.0 s, benchmarks/bench_window_json.py),
# so it takes only what the Python reader refuses.
ENGINE_JSON_BYTES = MAX_FILE_BYTES
DELIMITERS = {".csv": ",", ".tsv": "\t"}
# Readers of the text formats: every row of the files (a glob's, in path order) as one table.
READERS = {
    ".csv": lambda paths: read_delimited_files(paths, ","),
    ".tsv": lambda paths: read_delimited_files(paths, "\t"),
    ".json": lambda paths: from_records([row for path in paths for row in _read_json_rows(path)]),
}
# The same files' column names, and whether a row follows, for `read_columns`:
# the readers above name columns with the same functions.
HEADER_READERS = {
    ".csv": lambda paths: _union_header([read_header(path, ",") for path in paths]),
    ".tsv": lambda paths: _union_header([read_header(path, "\t") for path in paths]),
    ".json": lambda paths: _json_columns(paths),
    ".parquet": lambda paths: engine_columns(paths, ".parquet"),
    ".arrow": lambda paths: engine_columns(paths, ".arrow"),
}
FORMAT_SUFFIX = {"csv": ".csv", "tsv": ".tsv", "json": ".json", "parquet": ".parquet", "arrow": ".arrow"}
# A file's suffix -> its format's (`.jsonl` holds JSON records one a line, read by the JSON reader).
SUFFIXES = {".csv": ".csv", ".tsv": ".tsv", ".json": ".json", ".jsonl": ".json", ".ndjson": ".json",
            ".parquet": ".parquet", ".arrow": ".arrow", ".feather": ".arrow", ".ipc": ".arrow"}
JSON_LINES = (".jsonl", ".ndjson")
GLOB_CHARACTERS = datahash.GLOB_CHARACTERS
# Date columns of the vega-datasets tables not written as ISO dates (as the
# package's own pandas loaders parse them).
DATASET_DATES = {
    "seattle-temps": {"date": "%Y/%m/%d %H:%M"},
    "seattle-weather": {"date": "%Y/%m/%d"},
    "sf-temps": {"date": "%Y/%m/%d %H:%M:%S"},
    "stocks": {"date": "%b %d %Y"},
}


def read_rows(data: DataSource, connection: duckdb.DuckDBPyConnection | None = None) -> Table:
    """Load every row of the chart's data.

    Parquet and Arrow files, and CSV and TSV files past `ENGINE_TEXT_BYTES`,
    are read by the engine: they become its view `sources.SOURCE`
    (`register_source`) and the table is that view's rows. The other
    sources are read by chartc's readers and not registered: the
    transforms' query registers the rows it runs on (`sql.register_table`).

    Args:
        data: the chart's data source (its file's folder is the spec's).
        connection: the engine Parquet and Arrow files are read in
            (default: a connection of their own).

    Returns:
        A table whose date columns are parsed to datetimes.

    Raises:
        SpecError: the file is missing, unreadable, outside the project, or empty.
    """
    if data.frame is not None:
        table = read_table(data)
    elif data.catalog is not None:
        table = read_catalog(data)
    elif data.file is None:
        table = _read_values(data, from_records) if data.values is not None else load_dataset(data.dataset)
    else:
        table = _read_data_file(data, lambda paths, suffix: _read_files(connection, paths, suffix, data.file))
    if not len(table):
        raise _empty_data(data)
    return table


def _read_files(connection: duckdb.DuckDBPyConnection | None, paths: list[Path], suffix: str,
                written: str) -> Table:
    """Data files' rows: the engine's formats (and large delimited files) read by it, the rest by chartc."""
    if engine_reads(paths, suffix):
        connection = connect() if connection is None else connection
        try:
            # The rows stay in the engine: a stage reads what it needs of them (`sources.EngineTable`).
            view, scanned, format = _register_scanned(connection, paths, suffix, written)
            return EngineTable(connection, view, register_numbered(connection, scanned, format, view))
        except JsonNotTyped:
            return _read_json_in_python(paths, written)
    return READERS[suffix](paths)


def engine_reads(paths: list[Path], suffix: str) -> bool:
    """Whether the engine parses these files: Parquet and Arrow always, CSV and TSV past `ENGINE_TEXT_BYTES`,
    JSON past `ENGINE_JSON_BYTES`."""
    if suffix in ENGINE_SUFFIXES:
        return True
    limit = ENGINE_TEXT_BYTES if suffix in DELIMITED else ENGINE_JSON_BYTES if suffix == ".json" else None
    return limit is not None and sum(path.stat().st_size for path in paths) > limit


def _register_files(connection: duckdb.DuckDBPyConnection, paths: list[Path], suffix: str, written: str) -> str:
    """The one way files the engine reads become the view `SOURCE` (`_register_scanned`)."""
    return _register_scanned(connection, paths, suffix, written)[0]


def _register_scanned(connection: duckdb.DuckDBPyConnection, paths: list[Path], suffix: str,
                      written: str) -> tuple[str, list[Path], str]:
    """Files the engine reads as the view `SOURCE`: its name, and the files it scans and their format (a
    Parquet file of their typed rows, for Spark's reader), whose rows `register_numbered` may number.

    Raises:
        JsonNotTyped: JSON records for chartc's reader (`_read_json_in_python`).
    """
    if (suffix in DELIMITED or suffix == ".json") and is_spark(connection):
        return _register_through_duckdb(connection, paths, suffix, written)
    if suffix in DELIMITED:
        return register_text_files(connection, paths, suffix, written), paths, suffix
    if suffix == ".json":
        lines = [path.suffix.lower() in JSON_LINES for path in paths]
        return register_json_files(connection, paths, lines), paths, suffix
    return register_files(connection, paths, suffix), paths, suffix


def _register_through_duckdb(connection, paths: list[Path], suffix: str, written: str) -> tuple[str, list[Path], str]:
    """Large CSV, TSV and JSON files for Spark: parsed and typed on this machine by chartc's rules, as on
    DuckDB, their typed rows given to Spark as a Parquet file (a local Spark), else as Arrow batches.

    Spark's own readers type text otherwise (no pandas missing words, other date and integer rules):
    the same file must draw the same chart on every engine. DuckDB writes the Parquet file as it parses,
    so no more than a row group is held here, and Spark scans it as it scans a user's Parquet (in parallel,
    each row numbered in the file's order). A Spark elsewhere (a cluster, Spark Connect) cannot read this
    machine's files: the rows are sent, in parts. Data that outgrows this machine is Parquet or a table of the engine
    (`data: {table: ...}`), which Spark reads where it runs.
    """
    local = connect_duckdb()
    try:
        view = _register_files(local, paths, suffix, written)
        if connection.reads_local_files:
            staged = [Path(connection.staging_file())]
            local.execute(f"COPY (SELECT * FROM {quote_identifier(view)}) TO {quote_text(str(staged[0]))} "
                          "(FORMAT parquet)")
            return register_files(connection, staged, ".parquet"), staged, ".parquet"
        # Streamed as DuckDB parses: one part of the rows held here at a time (`SparkConnection.register`).
        connection.register(SOURCE, local.sql(f"SELECT * FROM {quote_identifier(view)}").to_arrow_reader(STREAM_BATCH))
    finally:
        local.close()
    return SOURCE, paths, suffix


def _read_json_in_python(paths: list[Path], written: str) -> Table:
    """Large JSON files the engine left to chartc's reader, which holds every byte: up to `MAX_FILE_BYTES` each.

    Raises:
        TextReadError: a file over that size.
        ValueError: what the reader refuses (not a list of flat records, not JSON, not UTF-8).
    """
    for path in paths:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            shown = written if len(paths) == 1 else f"{written} ({path.name})"
            raise TextReadError(msg.data_too_large(shown, size, MAX_FILE_BYTES))
    return READERS[".json"](paths)


def register_source(connection: duckdb.DuckDBPyConnection, data: DataSource) -> str:
    """The chart's data as a view in the engine, typed and named as chartc reads it.

    Parquet and Arrow files (one, or a glob's) are registered as they are:
    nothing but their schemas is read until a query runs; large CSV and TSV
    files are parsed and typed by the engine (`sources.register_text_files`).
    Small text files, inline values and vega-datasets tables are read and
    typed by chartc's readers first (`read_rows` gives the same table), then
    registered as it is.

    Args:
        connection: the engine (`engine.connect()`).
        data: the chart's data source.

    Returns:
        The view's name, `sources.SOURCE`.

    Raises:
        SpecError: as `read_rows` (but for data without rows, which only a
            query can tell of an engine file).
    """
    if data.frame is not None:
        rows = read_table(data)
        return register_table(connection, rows) if connection is not rows.connection else rows.view
    if data.catalog is not None:
        if not is_spark(connection):
            raise _no_catalog(data)
        return _register_catalog(connection, data)
    if data.file is None:
        return register_table(connection, _read_values(data, from_records) if data.values is not None
                              else load_dataset(data.dataset))
    def register(paths: list[Path], suffix: str) -> str:
        if engine_reads(paths, suffix):
            try:
                return _register_files(connection, paths, suffix, data.file)
            except JsonNotTyped:
                return register_table(connection, _read_json_in_python(paths, data.file))
        return register_table(connection, READERS[suffix](paths))

    return _read_data_file(data, register)


# ----------------------------------------------------------------- tables passed from Python

class BoundTable:
    """A table passed from Python for a chart's `frame` source, and its rows once read (read once per compile).

    Attributes:
        value: the object passed (a DataFrame, a lazy frame, a stream: `sources.is_table`).
        rows: its rows left in the engine (an `EngineTable` on a connection of its own), after
            `read_table`; None before.
    """

    __slots__ = ("value", "rows")

    def __init__(self, value) -> None:
        self.value = value
        self.rows: Table | None = None


def bind_table(chart: Chart, tables) -> Chart:
    """The chart with the table passed from Python bound to its ``data: {frame: NAME}`` source.

    Args:
        chart: the parsed chart.
        tables: one table (whatever name the spec gives it), or tables by name
            (the spec's `frame` picks one).

    Returns:
        The chart whose `data.table` holds the table (read by `read_rows`).

    Raises:
        SpecError: the spec reads its rows from elsewhere (a `path`, `values`
            or a `dataset`), names a table not passed, or the object is no table.
    """
    data = chart.data
    if data.frame is None:
        raise data.error(msg.table_and_source(data.key), data.key, stage=STAGE, key=True,
                         hint=msg.table_and_source_hint())
    if isinstance(tables, Mapping):
        if data.frame not in tables:
            names = [str(name) for name in tables]
            raise data.error(msg.table_not_named(data.frame, names), "frame", stage=STAGE,
                             hint=msg.did_you_mean(data.frame, names))
        tables = tables[data.frame]
    if not is_table(tables):
        raise data.error(msg.table_type(data.frame, type(tables).__name__), "frame", stage=STAGE,
                         hint=msg.table_type_hint())
    return replace(chart, data=replace(data, table=BoundTable(tables)))


def read_table(data: DataSource) -> EngineTable:
    """The rows of the table bound to a `frame` source, left in the engine (registered once: they are kept).

    The object is the engine's view `sources.SOURCE` on a connection of
    its own (`sources.register_frame`); a stage fetches only what it reads
    of it (`sources.EngineTable`): no row is copied into Python to read it.

    Raises:
        SpecError: no table was bound (a spec naming a frame, compiled from a
            file), or the engine cannot read it.
    """
    bound = data.table
    if bound is None:
        raise data.error(msg.table_not_passed(data.frame), "frame", stage=STAGE,
                         hint=msg.table_not_passed_hint(data.frame))
    if bound.rows is None:
        connection = connect()
        try:
            try:
                bound.rows = EngineTable(connection, register_frame(connection, bound.value))
            except EngineReadError as error:
                # A lazy query fails when first run (the table's scan): its own reason, kept as the context.
                cause = error.__context__
                if cause is None or isinstance(cause, EngineReadError):
                    raise
                raise frame_failure(bound.value, cause) from None
        except EngineReadError as error:
            connection.close()
            raise _frame_unreadable(data, error) from None
    return bound.rows


def _frame_unreadable(data: DataSource, error: EngineReadError) -> SpecError:
    """A table passed from Python that the engine cannot read, at the spec's ``frame``."""
    reason = _reason(error)
    if getattr(reason, "code", None):  # chartc's own words, with their own code (a stream already read)
        return data.error(reason, "frame", stage=STAGE, hint=error.hint)
    return data.error(msg.table_unreadable(data.frame, str(error)), "frame", stage=STAGE, hint=error.hint)


def _reason(error: EngineReadError):
    """Why the engine could not read the rows: the error's message (chartc's own words)."""
    return error.args[0] if error.args else str(error) or type(error).__name__


# ----------------------------------------------------------------- tables of the engine's catalog

# An engine's name as a message says it.
ENGINE_NAMES = {"duckdb": "DuckDB", "spark": "Spark"}


def read_catalog(data: DataSource) -> EngineTable:
    """The rows of a table of the engine's catalog (``data: {table: logs.runs}``), left in the engine.

    The table is the view `sources.SOURCE` on a connection of its own
    (`sources.register_catalog_table`), typed as a file's columns are; a
    stage fetches only what it reads of it (`sources.EngineTable`).

    Raises:
        SpecError: at ``data.table``: the engine has no catalog (DuckDB), cannot start, has no such table
            (with the nearest it has), or cannot read it (a nested column, a refused scan).
    """
    connection = _connect_catalog(data)
    try:
        view = _register_catalog(connection, data)
        try:
            return EngineTable(connection, view)
        except EngineReadError as error:  # the table's first scan failed (files behind it gone, damaged)
            raise _catalog_unreadable(data, error) from None
    except SpecError:
        connection.close()
        raise


def _catalog_hash(data: DataSource) -> str:
    """The hash of a catalog table's rows (`sources.view_hash`), computed where they live: one scan, no row
    leaving the engine (the rows are read again for the chart, as a file is hashed, then read)."""
    import duckdb

    connection = _connect_catalog(data)
    try:
        return view_hash(connection, _register_catalog(connection, data))
    except duckdb.Error as error:  # the scan failed (a Spark query error is a duckdb.Error too)
        raise _catalog_unreadable(data, EngineReadError(str(error))) from None
    finally:
        connection.close()


def _connect_catalog(data: DataSource) -> duckdb.DuckDBPyConnection:
    """A connection to the engine whose catalog holds the table: refused on DuckDB, which has none."""
    if current_engine() != "spark":
        raise _no_catalog(data)
    try:
        return connect()
    except EngineUnavailable as error:
        raise data.error(msg.catalog_table_unreadable(data.catalog, str(error)), "table", stage=STAGE,
                         hint=msg.engine_unavailable_hint()) from None


def _register_catalog(connection: duckdb.DuckDBPyConnection, data: DataSource) -> str:
    """The catalog table `data` names as the view `sources.SOURCE`; every failure a `SpecError` at ``data.table``."""
    try:
        return register_catalog_table(connection, data.catalog)
    except CatalogTableMissing as missing:
        engine = ENGINE_NAMES.get(getattr(connection, "engine", "duckdb"), "engine's")
        hint = msg.did_you_mean(data.catalog, missing.tables) or msg.catalog_tables(missing.tables)
        raise data.error(msg.catalog_table_missing(data.catalog, engine), "table", stage=STAGE, hint=hint) from None
    except EngineReadError as error:
        raise _catalog_unreadable(data, error) from None


def rows_unreadable(data: DataSource, error: EngineReadError) -> SpecError:
    """The engine failing on the data's rows once they were opened (a file truncated or replaced while the
    chart compiled): at the data's path, frame or table, as the failure would be had it come first."""
    if data.frame is not None:
        return _frame_unreadable(data, error)
    if data.catalog is not None:
        return _catalog_unreadable(data, error)
    if data.file is not None:
        return _file_unreadable(data, _reason(error), error.hint or msg.data_changed_while_read_hint())
    return data.error(msg.data_unreadable("data", _reason(error)), stage=STAGE, hint=error.hint)


def _catalog_unreadable(data: DataSource, error: EngineReadError) -> SpecError:
    return data.error(msg.catalog_table_unreadable(data.catalog, _reason(error)), "table", stage=STAGE,
                      hint=error.hint)


def _no_catalog(data: DataSource) -> SpecError:
    """A catalog table on the DuckDB engine: its database is in memory, made for each compile, and holds no tables."""
    return data.error(msg.catalog_no_engine(data.catalog), "table", stage=STAGE, hint=msg.catalog_no_engine_hint())


def load_dataset(name: str) -> Table:
    """A vega-datasets table shipped with the package, typed as its pandas loader types it."""
    path, suffix = _dataset_file(name)
    table = READERS[suffix]([path])
    if suffix == ".json":
        table = json_reader_types(table)
    return parse_dates(table, DATASET_DATES.get(name))


def project_root(spec_file: Path) -> Path:
    """The folder data paths may not leave: the enclosing git work tree, else the spec's folder."""
    folder = spec_file.resolve().parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def _in_git(root: Path) -> bool:
    """Whether `project_root` found a git work tree (else the root is the spec's folder)."""
    return (root / ".git").exists()


def spec_file(data: DataSource) -> Path:
    """The spec file the data source was read from (its data paths are relative to its folder)."""
    return Path(data.source.file if data.source is not None else ".")


def _file_unreadable(data: DataSource, reason: str, hint: str | None = None) -> SpecError:
    """A data file that cannot be read as rows, at ``data.path``."""
    return data.error(msg.data_unreadable(data.file, reason), "path", stage=STAGE, hint=hint)


def _read_data_file(data: DataSource, read):
    """`read(resolved paths, suffix)` of the spec's data files, every failure a `SpecError` at `data.path`.

    `read_rows` and `read_columns` both read through here, so a file one
    of them refuses the other refuses with the same words.
    """
    try:
        resolved, suffix = data_files(data)
        return read(resolved, suffix)
    except TextReadError as exc:  # the engine's parse failure, in words that already name the file and line
        raise data.error(exc.message, "path", stage=STAGE, hint=exc.hint) from None
    except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop, no permission
        raise _file_unreadable(data, getattr(exc, "strerror", None) or str(exc)) from None
    except ValueError as exc:  # TableError, or JSON that is not a list of records
        raise _file_unreadable(data, str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                               getattr(exc, "hint", None)) from None


def _read_values(data: DataSource, read):
    """`read(rows)` of inline `data.values`, every failure a `SpecError` at its place in the spec."""
    rows = data.records()
    for index, key in _nested_values(rows):  # a chart reads flat rows; nested ones break grouping
        raise data.error(msg.data_nested(key, index), "values", index, key, stage=STAGE, hint=msg.data_nested_hint())
    try:
        return read(rows)
    except TableError as exc:  # too many keys or cells
        raise data.error(str(exc), "values", stage=STAGE, hint=exc.hint) from None


def _empty_data(data: DataSource) -> SpecError:
    return data.error(msg.empty_data(), stage=STAGE, hint=msg.empty_data_hint())


def data_file(data: DataSource) -> tuple[Path, str]:
    """The data file a spec names (a glob's first match), after every safety check, and its format suffix.

    Raises:
        SpecError: see `data_files`.
    """
    resolved, suffix = data_files(data)
    return resolved[0], suffix


def data_files(data: DataSource) -> tuple[list[Path], str]:
    """The data files a spec names (one path, or every match of a glob in path order), checked, and their format.

    A glob (``runs/*.parquet``, ``logs/**/*.csv``) is matched relative to the
    spec's folder; every file it matches must be inside the project, and all
    of them of one format.

    Raises:
        SpecError: a URL, an absolute or escaping path, a missing file or
            directory, a glob matching no file or files of different formats,
            an unknown format or a text file over the size limit.
    """
    path = data.file

    def fail(message, hint=None):
        return data.error(message, "path", stage=STAGE, hint=hint)

    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", path):
        raise fail(msg.data_url(path), msg.data_url_hint())
    if path.startswith("~") or os.path.isabs(path):
        raise fail(msg.data_path_absolute(path), msg.data_path_hint())
    spec = spec_file(data)
    root = project_root(spec)
    if is_glob(data):
        matches = datahash.glob_matches(spec.parent, path)
        if not matches:
            raise fail(msg.data_glob_no_match(path), _nearby_files(path, spec.parent / path))
        targets = [(match, (spec.parent / match).resolve()) for match in matches]
    else:
        targets = [(path, (spec.parent / path).resolve())]
    for written, resolved in targets:
        if not resolved.is_relative_to(root):
            raise fail(msg.data_path_outside(written, root.name), msg.data_path_outside_hint(str(root), _in_git(root)))
        if not resolved.exists():
            raise fail(msg.file_not_found(written), _nearby_files(written, spec.parent / written))
        if not resolved.is_file():
            raise fail(msg.data_not_a_file(written))
    suffixes = {FORMAT_SUFFIX.get(data.format) or SUFFIXES.get(resolved.suffix.lower()) for _, resolved in targets}
    if len(suffixes) > 1:
        raise fail(msg.data_glob_formats(path, sorted(s or "?" for s in suffixes)), msg.data_glob_formats_hint())
    suffix = suffixes.pop()
    if suffix is None:
        raise fail(msg.data_unknown_format(path), msg.data_format_hint())
    if suffix not in ENGINE_SUFFIXES and suffix not in DELIMITED and not engine_reads([r for _, r in targets], suffix):
        for written, resolved in targets:
            size = resolved.stat().st_size
            if size > MAX_FILE_BYTES:
                raise fail(msg.data_too_large(written, size, MAX_FILE_BYTES))
    return [resolved for _, resolved in targets], suffix


def is_glob(data: DataSource) -> bool:
    """Whether the data path is a glob: it holds ``*``, ``?`` or ``[`` (and no file has that very name)."""
    return bool(GLOB_CHARACTERS.search(data.file)) and not (spec_file(data).parent / data.file).exists()


def _read_json_rows(path: Path) -> list[dict]:
    """A JSON list of flat records, or records one a line (JSON Lines); anything else is refused.

    A byte order mark is skipped, as in a CSV file (Windows editors write one).
    A ``.jsonl`` or ``.ndjson`` file, or a ``.json`` file holding more than
    one JSON value, is read as JSON Lines (blank lines skipped), each line
    one record.
    """
    text = path.read_text(encoding="utf-8-sig")
    try:
        try:
            if path.suffix.lower() in JSON_LINES:
                raise json.JSONDecodeError("Extra data", text, 0)
            rows = json.loads(text)
        except json.JSONDecodeError as error:
            if error.msg != "Extra data":
                raise
            rows = [_json_line(line, number) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise ValueError('expected a JSON list of records, e.g. [{"x": 1, "y": 2}], or one record a line')
    for index, key in _nested_values(rows):
        raise ValueError(msg.data_nested(key, index))
    return rows


def _json_line(line: str, number: int) -> dict:
    """One record of a JSON Lines file; a line that is not one names its number."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"line {number}: {error.msg} (column {error.colno})") from None
    if not isinstance(row, dict):
        raise ValueError(f'line {number}: expected a record, e.g. {{"x": 1, "y": 2}}')
    return row


def _json_columns(paths: list[Path]) -> tuple[list[str], bool]:
    """JSON files' column names and whether there is a row: read by the engine past `ENGINE_JSON_BYTES`."""
    if engine_reads(paths, ".json"):
        connection = connect()
        try:
            table = EngineTable(connection, _register_files(connection, paths, ".json", ""))
            return table.names, bool(len(table))
        except JsonNotTyped:
            table = _read_json_in_python(paths, "")
            return table.names, bool(len(table))
        finally:
            connection.close()
    return _json_header([row for path in paths for row in _read_json_rows(path)])


def _json_header(rows: list[dict]) -> tuple[list[str], bool]:
    """Records' column names (as `from_records` names them) and whether there is a row."""
    return record_names(rows), bool(rows)


def _union_header(headers: list[tuple[list[str], bool]]) -> tuple[list[str], bool]:
    """Several files' column names (in order of first appearance), and whether any has a row."""
    return list(dict.fromkeys(name for names, _ in headers for name in names)), any(rows for _, rows in headers)


def _nested_values(rows):
    """(row index, key) of every value that is a list or a mapping."""
    for index, row in enumerate(rows):
        for key, value in row.items():
            if isinstance(value, (dict, list)):
                yield index, key


def _nearby_files(path: str, target: Path) -> str | None:
    """A near miss in the folder the path names, as the user would write it; else its files."""
    folder = target.parent
    if not folder.is_dir():
        return None
    names = sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    prefix = path[: len(path) - len(Path(path).name)]  # "data/" of "data/result.csv", as written
    close = msg.closest(target.name, names)
    return msg.did_you_mean(path, [prefix + close]) if close else msg.files_in_folder(prefix.rstrip("/\\") or ".", names)


# ----------------------------------------------------------------- columns

def read_columns(data: DataSource) -> list[str] | None:
    """The data's column names, read from the header alone (for `chartc validate`); None when only the
    engine knows them (a table of its catalog: `chartc validate` reads no rows and starts no engine).

    A CSV/TSV file gives its header (and its first row, to tell it is not
    empty), a JSON file or inline values the keys of their records, a
    Parquet or Arrow file its schema (and its row count from the metadata:
    no row is read), a vega-datasets table its file in the package. Only
    Parquet and Arrow files import the engine. The names are those
    `read_rows` gives (`table.read_header` and `table.record_names` are
    the full readers' own), so the light check and a compile agree.

    Raises:
        SpecError: every problem `read_rows` reports about the file's
            path, its header or keys (too many, too long, not UTF-8), and
            data without rows.
    """
    if data.catalog is not None:
        return None
    if data.frame is not None:
        table = read_table(data)
        names, has_rows = table.names, bool(len(table))
    elif data.values is not None:
        names, has_rows = _read_values(data, _json_header)
    elif data.dataset is not None:
        path, suffix = _dataset_file(data.dataset)
        names, has_rows = HEADER_READERS[suffix]([path])
    else:
        names, has_rows = _read_data_file(data, lambda paths, suffix: HEADER_READERS[suffix](paths))
    if not has_rows:
        raise _empty_data(data)
    return names


def _dataset_file(name: str) -> tuple[Path, str]:
    """A vega-datasets table's file, found without importing the package (it imports pandas)."""
    folder = Path(importlib.util.find_spec("vega_datasets").submodule_search_locations[0]) / "_data"
    for suffix in (".csv", ".json"):
        if (folder / f"{name}{suffix}").is_file():
            return folder / f"{name}{suffix}", suffix
    raise FileNotFoundError(name)  # the schema's enum lists only the datasets shipped offline


def row_place(data: DataSource, index: int) -> str:
    """Where data row `index` is, for a message: a line of the data file, else the row's number."""
    if data.file is not None:
        try:
            resolved, suffix = data_files(data)
            line = (data_row_line(resolved[0], DELIMITERS[suffix], index)
                    if suffix in DELIMITERS and len(resolved) == 1 else None)
        except (SpecError, OSError):  # read a moment ago; if it is gone now, the row number still says which
            line = None
        if line is not None:
            return msg.data_file_line(data.file, line)
    return msg.data_row_number(index)


# ----------------------------------------------------------------- identity

def data_source(data: DataSource) -> tuple[str, object]:
    """Where `read_rows` takes the chart's rows from, for provenance hashes.

    Args:
        data: the chart's data source (already read without error).

    Returns:
        ``("frame", name)`` for a table passed from Python, ``("table", name)`` for a table of the
        engine's catalog,
        ``("values", rows)`` for inline values, ``("dataset", name)`` for a
        vega-datasets table, ``("path", resolved file path)`` — the same
        file `read_rows` reads — or ``("glob", pattern)`` for a glob.
    """
    if data.frame is not None:
        return ("frame", data.frame)
    if data.catalog is not None:
        return ("table", data.catalog)
    if data.values is not None:
        return ("values", data.records())
    if data.dataset is not None:
        return ("dataset", data.dataset)
    if is_glob(data):
        return ("glob", data.file)
    return ("path", (spec_file(data).parent / data.file).resolve())


def data_identity(data: DataSource, stop: threading.Event | None = None) -> tuple[str, str, Path | None]:
    """Label, hash and (for files) path of the rows a chart is compiled from.

    The pipeline calls this (through `start_identity`) before `read_rows`
    reads the rows: a data file saved in between then differs from the hash
    recorded, so the chart stays stale and the next build renders it again
    (never the other way round: a hash newer than the rows drawn).

    Args:
        data: the chart's data source.
        stop: set, a file being hashed is left unfinished (`start_identity`'s thread: the result is no
            longer wanted).

    Returns:
        ``("values", hash, None)``, ``("dataset:NAME", hash, None)``,
        ``("frame:NAME", hash of its rows, None)`` (computed by the engine: `sources.view_hash`),
        ``("table:NAME", hash of its rows, None)`` for a table of the engine's catalog (the same, on
        the engine that holds it: a table changed since makes the chart stale),
        ``(path as written in the spec, hash, resolved path)`` or, for a
        glob, ``(the glob, hash of every file it matches and its name, None)``.
        A file is hashed as the gallery's manifest hashes its data inputs
        (`datahash.data_file_hash`): a Parquet or Arrow file as its exact
        bytes, a text file blind to line endings, every one streamed and a
        large one's hash kept for its state.

    Raises:
        SpecError: the data file fails `data_file`'s checks (outside the
            project, missing, too large, ...) or cannot be read.
    """
    try:
        kind, value = data_source(data)
        if kind == "frame":  # the rows themselves: an object in memory has no other identity
            rows = read_table(data)
            return f"frame:{value}", view_hash(rows.connection, rows.view), None
        if kind == "table":
            return f"table:{value}", _catalog_hash(data), None
        if kind == "values":
            return "values", values_hash(value), None
        if kind == "dataset":
            return f"dataset:{value}", dataset_hash(value), None
        resolved, suffix = data_files(data)
        hashes = [datahash.data_file_hash(path, stop) for path in resolved]
        if kind == "glob":
            return data.file, datahash.glob_hash(spec_file(data).parent.resolve(), resolved, hashes), None
        return data.file, hashes[0], resolved[0]
    except (OSError, RuntimeError) as error:  # a symlink loop, no permission: as `read_rows` reports them
        raise data.error(msg.data_unreadable(data.file, getattr(error, "strerror", None) or str(error)), "path",
                         stage=STAGE) from None


# Data files (together) of `datahash.HASHED_ASIDE_BYTES` or more are hashed on a thread of their own while the
# engine reads them.
HASHED_ASIDE_BYTES = datahash.HASHED_ASIDE_BYTES
# The hash recorded for data saved while it was hashed: no file has it, so the chart stays stale.
CHANGED_WHILE_HASHED = hashlib.sha256(b"chartc: the data changed while it was hashed").hexdigest()


def start_identity(data: DataSource) -> Callable[[], tuple[str, str, Path | None]]:
    """`data_identity`, a large file's hash computed on a thread while the rows are read: call the result for it.

    Hashing 1.7 GB of Parquet costs seconds of one core that the engine's queries, reading the same file,
    leave partly idle. The checks run now (a missing or refused file is reported here, as `data_identity`
    reports it); a file of `HASHED_ASIDE_BYTES` or more is hashed on a thread, and when the result is asked
    for, each file's size, modification time and inode are compared with what they were before it was
    hashed: a file saved meanwhile is recorded as `CHANGED_WHILE_HASHED`, so that the chart stays stale,
    as hashing before reading guarantees (`data_identity`). Smaller data is hashed now, and so is a large file
    whose hash the cache holds for its state (`datahash.cached_hash`): then nothing is read to hash it.

    Args:
        data: the chart's data source.

    Returns:
        A function of no arguments returning `data_identity(data)` (raising what it raises).

    Raises:
        SpecError: the data file fails `data_file`'s checks.
    """
    try:
        kind, _ = data_source(data)
        resolved, suffix = data_files(data) if kind in ("path", "glob") else ([], None)
        before = [datahash.file_state(path) for path in resolved]
    except (OSError, RuntimeError):
        resolved, before = [], []  # reported by `data_identity`, now
    if (not resolved or (suffix not in ENGINE_SUFFIXES and suffix not in DELIMITED)
            or sum(state[0] for state in before) < HASHED_ASIDE_BYTES
            or all(datahash.cached_hash(path, state) is not None for path, state in zip(resolved, before))):
        identity = data_identity(data)
        return lambda: identity
    stop, outcome = threading.Event(), {}

    def run() -> None:
        try:
            outcome["identity"] = data_identity(data, stop)
        except datahash.HashAbandoned:
            pass
        except BaseException as error:  # raised where the identity is asked for
            outcome["error"] = error

    thread = threading.Thread(target=run, name="chartc-data-hash", daemon=True)
    thread.start()
    return _HashedAside(thread, stop, outcome, resolved, before)


class _HashedAside:
    """`start_identity`'s pending result; dropped unasked (a compile that failed), it stops the hash."""

    def __init__(self, thread: threading.Thread, stop: threading.Event, outcome: dict, paths: list, before: list):
        self.thread, self.stop, self.outcome, self.paths, self.before = thread, stop, outcome, paths, before

    def __call__(self) -> tuple[str, str, Path | None]:
        self.thread.join()
        if "error" in self.outcome:
            raise self.outcome["error"]
        label, digest, path = self.outcome["identity"]
        try:
            unchanged = [datahash.file_state(path) for path in self.paths] == self.before
        except OSError:
            unchanged = False
        return label, digest if unchanged else CHANGED_WHILE_HASHED, path

    def __del__(self):
        self.stop.set()
