"""A chart's data source as a view in the data engine, and a query's rows as a `Table`.

    DataSource -register_files / register_text_files-> the view ``source`` in a DuckDB connection
               -materialise-> Table

Every source becomes the one view `SOURCE` with chartc's column names and
types (the contract for every query over it): the numbers, booleans, dates
(``TIMESTAMP``, the UTC wall clock) and text a `Table` holds. Parquet and
Arrow IPC files are read by the engine itself (a glob of them as one view);
so are large CSV and TSV files (`register_text_files`), parsed by DuckDB
and typed in SQL by `infra.table`'s rules, no row passing through Python.
Small delimited files, JSON, inline values and vega-datasets tables are
typed by `infra.table`'s readers (pandas' rules, which the tests hold them
to) and registered column by column (`register_table`); both ways give the
same rows and types (tests/test_text_engine.py). `materialise` turns any
query's result back into a `Table` for the stages that read rows in Python;
`EngineTable` is the view's rows left in the engine, a `Table` whose cells
are fetched only where a stage reads them.

A table passed from Python (`register_frame`: a pandas or Polars DataFrame, an
Arrow table scanned where it is; a Polars LazyFrame, a pyarrow Dataset, a
DuckDB relation or an Ibis expression run as a query at each scan; a stream
read once into the engine) is typed the same way, and its rows stay in the
engine as a file's do (`EngineTable`; `view_hash` its provenance).

Nothing here imports duckdb or pyarrow at module level: the connection comes
from `engine.connect()`, and pyarrow is imported only to read an Arrow file
(or an Arrow stream the engine does not scan itself).
"""

from __future__ import annotations

import copy
import csv
import datetime
import itertools
import math
from pathlib import Path
from typing import TYPE_CHECKING

from ... import errors as msg
from ...infra.table import (BOOLEAN, DATE, FALSE_WORDS, INTEGER_RANGE, MISSING_WORDS, NUMBER, STORED_BOOLEAN,
                            STORED_DATE, STORED_FLOAT, STORED_INTEGER, STORED_TEXT, STORED_VALUE, TEXT, TRUE_WORDS,
                            DateOutOfRange,
                            Table, TableError,
                            from_typed_columns, integer_array, json_value, read_header, record_names, sample_key_sql)
from .engine import quote_identifier, quote_text
from .settings import DOUBLE_TEXT

if TYPE_CHECKING:
    import duckdb

# The view every query of a chart's rows reads.
SOURCE = "source"
# The formats the engine reads itself (suffix as `read.data_files` normalises it).
ENGINE_SUFFIXES = (".parquet", ".arrow")
# DuckDB's type (its name before any parameters) -> how the Table stores the column, and the SQL that
# gives the view chartc's type for it ({} is the quoted column). Types not here are nested (refused)
# or kept as their text.
ENGINE_TYPES = {
    **{name: (STORED_INTEGER, "{}") for name in (
        "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
        "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT")},
    "FLOAT": (STORED_FLOAT, "CAST({} AS DOUBLE)"),
    "DOUBLE": (STORED_FLOAT, "{}"),
    "DECIMAL": (STORED_FLOAT, "CAST({} AS DOUBLE)"),
    "BOOLEAN": (STORED_BOOLEAN, "{}"),
    "VARCHAR": (STORED_TEXT, "{}"),
    # Every date becomes a TIMESTAMP: a zoned one as its UTC wall clock (the connection's zone is UTC).
    **{name: (STORED_DATE, "CAST({} AS TIMESTAMP)") for name in (
        "DATE", "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP WITH TIME ZONE")},
}
NESTED_TYPES = ("STRUCT", "LIST", "MAP", "UNION", "ARRAY", "VARIANT")
# A Table's kind -> the view's column type (a mixed column, kind None, is typed by its values).
SQL_TYPES = {NUMBER: "DOUBLE", BOOLEAN: "BOOLEAN", DATE: "TIMESTAMP", TEXT: "VARCHAR"}
INT64 = (-2**63, 2**63 - 1)
INT128 = (-2**127, 2**127 - 1)


def _stored_date(value, column: str) -> datetime.datetime:
    """A date cell as a datetime. DuckDB gives a date past Python's years as its text ('20240-01-05 00:00:00',
    '0005-03-01 (BC) 00:00:00'): refused, with its year as JavaScript counts it (1 BC is year 0)."""
    if isinstance(value, str):
        year = int(value.split("-", 1)[0])
        raise DateOutOfRange(1 - year if "(BC)" in value else year, column)
    return datetime.datetime(value.year, value.month, value.day)


class EngineReadError(TableError):
    """A file the engine cannot read (damaged, not of its format, a nested column); the message is chartc's."""


# ----------------------------------------------------------------- registering

def register_table(connection: duckdb.DuckDBPyConnection, table: Table, name: str = SOURCE) -> str:
    """Put a table's rows in the engine as the view `name`, one typed column per column, in row order.

    Each column is sent as one list (the fastest way in without pandas or
    pyarrow) and the columns are joined by position.

    Returns:
        The view's name.
    """
    parts = []
    for index, column in enumerate(table.names):
        sql_type, values = _sql_column(table[column], table.kinds[column])
        part = f"{name}__{index}"
        connection.execute(f"CREATE OR REPLACE TEMP TABLE {quote_identifier(part)} AS "
                           f"SELECT UNNEST($1::{sql_type}[]) AS value", [values])
        parts.append((part, column))
    if not parts:
        connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS SELECT NULL AS none LIMIT 0")
        return name
    select = ", ".join(f"{quote_identifier(part)}.value AS {quote_identifier(column)}" for part, column in parts)
    joined = " POSITIONAL JOIN ".join(quote_identifier(part) for part, _ in parts)
    connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS SELECT {select} FROM {joined}")
    return name


def register_arrays(connection: duckdb.DuckDBPyConnection, name: str, columns: dict) -> str:
    """Put columns already held as arrays (numpy, built by `infra.table.scannable` or the fits) in the engine
    as the relation `name`, scanned in place, without a copy.

    With `register_table` and the file readers, the only ways rows enter
    the engine: a backend that is not DuckDB replaces these functions.

    Returns:
        The relation's name.
    """
    connection.register(name, columns)
    return name


def _sql_column(values: list, kind: str | None) -> tuple[str, list]:
    """A column's SQL type and its cells as DuckDB takes them."""
    present = [v for v in values if v is not None]
    if kind in (NUMBER, None) and present and all(type(v) is int for v in present):
        low, high = min(present), max(present)
        if INT64[0] <= low and high <= INT64[1]:
            return "BIGINT", values
        if INT128[0] <= low and high <= INT128[1]:
            return "HUGEINT", values
        return "VARCHAR", [None if v is None else str(v) for v in values]
    if kind is None:  # mixed: booleans beside gaps stay booleans, anything else is text as the renderer reads it
        if all(type(v) is bool for v in present):
            return "BOOLEAN", values
        return "VARCHAR", [v if v is None or isinstance(v, str) else _text(v) for v in values]
    if kind == NUMBER:
        return "DOUBLE", [None if v is None else float(v) for v in values]
    return SQL_TYPES[kind], values


def _text(value) -> str:
    """A non-text cell of a mixed column as text, as JSON (and so the renderer) writes it."""
    value = json_value(value)
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    return "null" if value is None else str(value)


def register_files(connection: duckdb.DuckDBPyConnection, paths: list[Path], suffix: str,
                   name: str = SOURCE) -> str:
    """Put Parquet or Arrow IPC files in the engine as the view `name`, typed as chartc types them.

    A glob's files are one view (columns matched by name; a column one file
    lacks is null there). Nothing is read but the files' schemas until a
    query runs.

    Returns:
        The view's name.

    Raises:
        EngineReadError: a file that is damaged or not of its format, or a
            column of nested values (lists, structs, maps).
    """
    import duckdb

    try:
        if suffix == ".parquet" and is_spark(connection):  # Spark reads the files where it runs
            base = quote_identifier(connection.read_parquet(f"{name}__files", [str(path) for path in paths]))
        elif suffix == ".parquet":
            files = "[" + ", ".join(quote_text(str(path)) for path in paths) + "]"
            base = f"read_parquet({files}, union_by_name = true)"
        else:
            base = quote_identifier(_register_arrow(connection, paths, name))
        columns = connection.sql(f"SELECT * FROM {base}")
        described = list(zip(columns.columns, (str(t) for t in columns.types)))
    except duckdb.Error:
        raise EngineReadError(msg.data_damaged(_format_name(suffix))) from None
    return _typed_view(connection, base, described, name)


class CatalogTableMissing(EngineReadError):
    """A table the engine's catalog does not have; `tables` are those it has (for a did-you-mean)."""

    def __init__(self, tables: list[str]):
        super().__init__("no such table")
        self.tables = tables


def register_catalog_table(connection: duckdb.DuckDBPyConnection, table: str, name: str = SOURCE) -> str:
    """Put a table of the engine's catalog (``logs.runs``) in the engine as the view `name`, typed as chartc
    types a file (`register_files`); its rows stay where the catalog keeps them.

    Only Spark has a catalog (`spark.SparkConnection`): the in-memory DuckDB database of a compile has
    no table but those chartc makes (the caller refuses a catalog table there).

    Returns:
        The view's name.

    Raises:
        CatalogTableMissing: the catalog has no such table.
        EngineReadError: a column of nested values, or the engine's refusal of the table (its first line).
    """
    import duckdb

    try:
        if not connection.has_table(table):
            raise CatalogTableMissing(connection.table_names(table))
        base = quote_identifier(connection.table(table, f"{name}__table"))
        columns = connection.sql(f"SELECT * FROM {base}")
        described = list(zip(columns.columns, (str(t) for t in columns.types)))
    except duckdb.Error as error:
        raise EngineReadError(str(error)) from None
    try:
        return _typed_view(connection, base, described, name)
    except EngineReadError as error:  # a nested column: a view of the catalog can leave it out
        flat = [column for column, sql_type in described if not _nested(sql_type)]
        raise EngineReadError(error.args[0], msg.catalog_flat_view_hint(table, flat)) from None


def register_numbered(connection: duckdb.DuckDBPyConnection, paths: list[Path], suffix: str,
                      name: str = SOURCE) -> str | None:
    """For one Parquet file registered as `name` (`register_files`), the view ``NAME__rows``: its rows with
    each one's number as `ROW`, the file's own row number (a Parquet reader knows it in every thread),
    which is what `EngineTable.rows_view` numbers in one thread, `row_number() OVER ()` in the file's order.

    Returns:
        The view's name, or None where the rows are numbered by `EngineTable.rows_view` (several files,
        other formats, a column already named as the number).
    """
    if suffix != ".parquet" or len(paths) != 1:
        return None
    if is_spark(connection):  # the row index Spark's reader gives beside the file's columns (`read_parquet`)
        scanned = numbered = quote_identifier(f"{name}__files__indexed")
        index = "row_index"
    else:
        file = f"[{quote_text(str(paths[0]))}], union_by_name = true"
        scanned, numbered = f"read_parquet({file})", f"read_parquet({file}, file_row_number = true)"
        index = "file_row_number"
    columns = connection.sql(f"SELECT * FROM {scanned}")  # the file's own types, as `register_files`
    described = list(zip(columns.columns, (str(t) for t in columns.types)))
    if is_spark(connection):
        described = described[:-1]  # the index, selected after the file's columns
    if not described or any(column.lower() in (index, ROW) for column, _ in described):
        return None
    return _typed_view(connection, numbered, described, f"{name}__rows", f"{index} AS {quote_identifier(ROW)}")


def is_spark(connection) -> bool:
    """Whether the connection is Spark's (`spark.SparkConnection`), which reads files its own way."""
    return getattr(connection, "engine", "duckdb") == "spark"


def _typed_view(connection: duckdb.DuckDBPyConnection, base: str, described: list, name: str,
                extra: str | None = None) -> str:
    """The view `name` over `base` (the engine's relation), each column cast to the type chartc gives it
    (and `extra`, a column of SQL, last)."""
    select = []
    for column, sql_type in described:
        base_type = sql_type.split("(")[0]
        if base_type in ENGINE_TYPES:
            expression = ENGINE_TYPES[base_type][1]
        elif _nested(sql_type):
            raise EngineReadError(msg.data_nested_column(column), msg.data_nested_hint())
        else:  # ENUM, UUID, TIME, INTERVAL, BLOB, ...: shown as their text
            expression = "CAST({} AS VARCHAR)"
        select.append(f"{expression.format(quote_identifier(column))} AS {quote_identifier(column)}")
    columns = ", ".join(select + ([extra] if extra else [])) if select else "NULL AS none"  # no columns: no rows
    connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS "
                       f"SELECT {columns} FROM {base}{'' if select else ' LIMIT 0'}")
    return name


def _nested(sql_type: str) -> bool:
    """Whether a column of this engine type holds lists, structs or maps (a chart's rows are flat)."""
    return sql_type.split("(")[0].startswith(NESTED_TYPES) or sql_type.endswith("]")


# What a table passed from Python may be, by the top-level package and name of its type or of a base class
# (checked by name, so nothing is imported to tell), and how the engine reads it (`register_frame`):
#   scanned   memory the engine scans in place at every query: pandas and Arrow without a copy, Polars
#             through Arrow's zero-copy export;
#   planned   a query plan the engine runs at every query, the columns (and filters) it reads pushed into
#             it: a Polars LazyFrame, a pyarrow Dataset (files read batch by batch, out of core);
#   relation  a DuckDB relation: its query run by chartc's engine when it reads only what that engine can
#             (files, table functions), else streamed once into the engine;
#   ibis      an Ibis table expression: compiled for its backend and run there (on DuckDB, as a relation);
#   stream    batches that can be read only once (a RecordBatchReader, or any object with only the Arrow
#             PyCapsule interface): read once into a table of the engine, never into Python objects.
TABLE_TYPES = {
    ("pandas", "DataFrame"): "scanned",
    ("polars", "DataFrame"): "scanned",
    ("pyarrow", "Table"): "scanned",
    ("pyarrow", "RecordBatch"): "scanned",
    ("polars", "LazyFrame"): "planned",
    ("pyarrow", "Dataset"): "planned",
    ("duckdb", "DuckDBPyRelation"): "relation",
    ("ibis", "Table"): "ibis",
    ("pyarrow", "RecordBatchReader"): "stream",
}
ARROW_STREAM = "__arrow_c_stream__"
# The kinds whose rows a query computes when read: their failures are the query's (E486).
LAZY_KINDS = ("planned", "relation", "ibis")
# Batches of a relation or an Ibis expression streamed into the engine (rows per Arrow batch).
STREAM_BATCH = 1 << 17


def table_kind(value) -> str | None:
    """How `register_frame` reads a Python object (a `TABLE_TYPES` kind), or None for no table.

    Decided from the object's type, its base classes and its protocols alone: no library is imported.
    """
    if isinstance(value, type):
        return None
    for cls in type(value).__mro__:
        kind = TABLE_TYPES.get((cls.__module__.split(".")[0].lstrip("_"), cls.__name__))
        if kind is not None:
            return kind
    return "stream" if hasattr(value, ARROW_STREAM) else None


def is_table(value) -> bool:
    """Whether a Python object is a table `register_frame` reads (a `TABLE_TYPES` kind, or an Arrow stream)."""
    return table_kind(value) is not None


def register_frame(connection: duckdb.DuckDBPyConnection, frame, name: str = SOURCE) -> str:
    """Put a table passed from Python in the engine as the view `name`, typed as chartc types a file.

    No row is read into Python: every later query reads the object through
    the view (`TABLE_TYPES` says how each kind is read, and what it costs).
    A pandas ``datetime64`` column becomes dates (a zoned one its UTC wall
    clock), a categorical or dictionary one text, integers stay exact
    integers, as they would read from a Parquet file.

    Args:
        connection: the engine.
        frame: a table (`is_table`).

    Returns:
        The view's name.

    Raises:
        EngineReadError: the engine cannot read it (a nested column, a column
            of Python objects of mixed types, pyarrow missing for an Arrow
            object, a stream already read, a lazy query that fails).
    """
    kind = table_kind(frame)
    scanned = f"{name}__frame"
    try:
        base = FRAME_READERS[kind](connection, frame, scanned)
        columns = connection.sql(f"SELECT * FROM {base}")
        described = list(zip(columns.columns, (str(t) for t in columns.types)))
    except EngineReadError:
        raise
    except Exception as error:  # the engine's refusal, or a lazy plan's own library failing as it runs
        raise frame_failure(frame, error) from None
    return _typed_view(connection, base, described, name)


def frame_failure(frame, error: BaseException) -> EngineReadError:
    """Why the engine could not read a table passed from Python, in chartc's words where it knows them.

    Raises:
        BaseException: `error` itself, when it is no failure to read (a bug, an interrupt).
    """
    import duckdb

    kind, reason = table_kind(frame), _first_line(error)
    if kind == "stream" and "consumed" in reason:
        return EngineReadError(msg.table_stream_read(type(frame).__name__), msg.table_stream_read_hint())
    if kind in LAZY_KINDS:
        return EngineReadError(msg.table_plan_failed(type(frame).__name__, reason))
    if isinstance(error, (duckdb.Error, TypeError, ValueError, ImportError)):
        return EngineReadError(reason)
    raise error


def _scan_frame(connection: duckdb.DuckDBPyConnection, frame, scanned: str) -> str:
    """Memory or a query plan the engine reads in place, at every query (`scanned`, `planned`)."""
    connection.register(scanned, frame)
    return quote_identifier(scanned)


def _scan_relation(connection: duckdb.DuckDBPyConnection, relation, scanned: str) -> str:
    """A DuckDB relation: its query run by this engine where it reads nothing but what this engine can
    (files, table functions: the same columns and types bind here), else its rows streamed in once."""
    import duckdb

    sql = relation.sql_query()
    try:
        replayed = connection.sql(sql)
        same = replayed.columns == relation.columns and [str(t) for t in replayed.types] == [
            str(t) for t in relation.types]
    except duckdb.Error:  # it reads a table of its own connection: only that connection can run it
        same = False
    if same:
        connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(scanned)} AS {sql}")
        return quote_identifier(scanned)
    return _copy_stream(connection, relation.to_arrow_reader(STREAM_BATCH), scanned)


def _scan_ibis(connection: duckdb.DuckDBPyConnection, expression, scanned: str) -> str:
    """An Ibis table expression, run by its backend: on DuckDB compiled to a relation, else streamed in once."""
    backend = expression.get_backend()
    if getattr(backend, "name", None) == "duckdb":
        return _scan_relation(connection, backend.con.sql(backend.compile(expression)), scanned)
    return _copy_stream(connection, expression.to_pyarrow_batches(chunk_size=STREAM_BATCH), scanned)


def _read_stream(connection: duckdb.DuckDBPyConnection, stream, scanned: str) -> str:
    """Batches readable once, read into the engine; an object it cannot scan, through pyarrow."""
    import duckdb

    try:
        return _copy_stream(connection, stream, scanned)
    except duckdb.InvalidInputException as error:
        if "consumed" in str(error) or not hasattr(stream, ARROW_STREAM):
            raise
        return _copy_stream(connection, _arrow_stream(stream), scanned)  # a PyCapsule the engine does not take


def _copy_stream(connection: duckdb.DuckDBPyConnection, stream, scanned: str) -> str:
    """A stream's rows as a table of the engine (its memory, spilled to disk past its limit; never Python's)."""
    streamed = f"{scanned}__stream"
    connection.register(streamed, stream)
    try:
        connection.execute(f"CREATE OR REPLACE TEMP TABLE {quote_identifier(scanned)} AS "
                           f"SELECT * FROM {quote_identifier(streamed)}")
    finally:
        connection.unregister(streamed)
    return quote_identifier(scanned)


# How each kind of table (`table_kind`) becomes a relation of the engine: (connection, table, name) -> SQL.
FRAME_READERS = {
    "scanned": _scan_frame,
    "planned": _scan_frame,
    "relation": _scan_relation,
    "ibis": _scan_ibis,
    "stream": _read_stream,
}


def _arrow_stream(frame):
    """An object with the Arrow PyCapsule interface as a pyarrow reader (the engine scans pyarrow's)."""
    try:
        import pyarrow
    except ImportError:
        raise EngineReadError(msg.data_needs_pyarrow(), msg.data_needs_pyarrow_hint()) from None
    return pyarrow.RecordBatchReader.from_stream(frame)


def view_hash(connection: duckdb.DuckDBPyConnection, view: str) -> str:
    """A hash of a view's rows and columns, computed by the engine in one parallel scan (no row leaves it).

    The rows are hashed as a multiset (the count, the XOR and the sum of
    each row's hash): rows reordered hash alike, any changed cell differs.
    """
    import hashlib

    relation = connection.sql(f"SELECT * FROM {quote_identifier(view)}")
    names, types = relation.columns, [str(t) for t in relation.types]
    row = "hash(" + ", ".join(quote_identifier(name) for name in names) + ")" if names else "0"
    (count, xor, total), = connection.execute(
        f"SELECT count(*), bit_xor(h), sum(h::HUGEINT) FROM (SELECT {row} AS h FROM {quote_identifier(view)})"
    ).fetchall()
    text = "\0".join(f"{name}\0{sql_type}" for name, sql_type in zip(names, types))
    return hashlib.sha256(f"{text}\n{count}\n{xor}\n{total}".encode("utf-8", "surrogateescape")).hexdigest()


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _register_arrow(connection: duckdb.DuckDBPyConnection, paths: list[Path], name: str) -> str:
    """Arrow IPC files (file or stream format, Feather v2) read by pyarrow, memory-mapped, handed to the engine.

    DuckDB reads IPC only through an extension it would download; pyarrow
    maps the file and DuckDB scans the Arrow table in place, without a copy.
    """
    tables = [_read_arrow(path) for path in paths]
    import pyarrow

    try:
        table = tables[0] if len(tables) == 1 else pyarrow.concat_tables(tables, promote_options="default")
    except pyarrow.ArrowInvalid:
        raise EngineReadError(msg.data_glob_schemas()) from None
    arrow = f"{name}__arrow"
    connection.register(arrow, table)
    return arrow


def _read_arrow(path: Path):
    try:
        import pyarrow
        import pyarrow.ipc
    except ImportError:
        raise EngineReadError(msg.data_needs_pyarrow(), msg.data_needs_pyarrow_hint()) from None
    try:
        source = pyarrow.memory_map(str(path))
        try:
            return pyarrow.ipc.open_file(source).read_all()
        except pyarrow.ArrowInvalid:  # the stream format (no footer)
            source.seek(0)
            return pyarrow.ipc.open_stream(source).read_all()
    except (pyarrow.ArrowInvalid, OSError):
        raise EngineReadError(msg.data_damaged("Arrow IPC")) from None


def _format_name(suffix: str) -> str:
    return {".parquet": "Parquet", ".arrow": "Arrow IPC"}[suffix]


# ----------------------------------------------------------------- text files, typed in SQL

# The delimited formats the engine parses (suffix -> delimiter).
DELIMITED = {".csv": ",", ".tsv": "\t"}
# infra.table's cell patterns in RE2 (what DuckDB's regexp functions speak): ASCII whitespace around a
# number, as Python's `re.ASCII` `\s` reads it.
SPACE = r"[ \t\n\r\f\v]*"
INTEGER_SQL = SPACE + r"[+-]?[0-9]+" + SPACE
FLOAT_SQL = "(?i)" + SPACE + r"[+-]?(?:[0-9]+\.?[0-9]*(?:e[+-]?[0-9]+)?|\.[0-9]+(?:e[+-]?[0-9]+)?|inf(?:inity)?)" + SPACE
ISO_DATE_SQL = r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?"
# A time past 23:59:59 DuckDB reads as the next day; Python's `fromisoformat` (and so the reader) refuses it.
LATE_HOUR_SQL = r".{10}[T ](?:2[4-9]|[3-9][0-9]).*"
# A value no cell is, for the reader's `nullstr` (every cell is read as text; missing words are decided here).
NO_NULL = "\x00"
# DuckDB's CSV reader cannot pad short rows in parallel when a quoted cell holds a line break.
SERIAL_ONLY = "does not support null_padding in conjunction with quoted new lines"
WHITESPACE = " \t\n\r\f\v"


def register_text_files(connection: duckdb.DuckDBPyConnection, paths: list[Path], suffix: str, written: str,
                        name: str = SOURCE) -> str:
    """Put CSV or TSV files in the engine as the view `name`, typed in SQL exactly as `infra.table` types them.

    No row passes through Python: the header is read as the reader reads it
    (`table.read_header`: BOM dropped, names made unique as pandas makes them),
    every cell is parsed by DuckDB as text, and one query over them decides each
    column's type by the reader's rules (pandas' missing words, integers, floats,
    booleans, ISO dates with their zone as UTC), which the view then casts to.
    The rows are kept in a temporary table, so later queries do not parse the
    files again. A glob's files are matched by name, in path order.

    Args:
        connection: the engine.
        paths: the files (a glob's, in path order).
        suffix: ``.csv`` or ``.tsv``.
        written: the data path as the spec writes it (for messages).
        name: the view's name.

    Returns:
        The view's name.

    Raises:
        TextReadError: a file the engine cannot parse (a row longer than the
            header, text that is not UTF-8, an unclosed quote): the message
            names the file's line.
        TableError, OSError: the header, as `table.read_header` refuses it.
    """
    parts = [_delimited_select(path, DELIMITED[suffix]) for path in paths]
    parts = [part for part in parts if part is not None]
    if not parts:  # files without a header: a view without columns or rows
        connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS SELECT NULL AS none LIMIT 0")
        return name
    names = list(dict.fromkeys(column for path in paths for column in read_header(path, DELIMITED[suffix])[0]))
    union = "(" + " UNION ALL BY NAME ".join(f"SELECT * FROM {part}" for part in parts) + ")"
    union, typed = _typed_columns(connection, union, names, paths, written)
    select = ", ".join(f"{expression} AS {quote_identifier(column)}" for column, expression in typed.items())
    connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS SELECT {select} FROM {union}")
    return name


class JsonNotTyped(Exception):
    """Records the engine does not read as chartc's JSON reader does (`register_json_files`): that reader
    reads them, and refuses them in its own words where they are not a list of flat records."""


def register_json_files(connection: duckdb.DuckDBPyConnection, paths: list[Path], lines: list[bool],
                        name: str = SOURCE) -> str:
    """Put JSON records (a list of them, or one a line) in the engine as the view `name`, typed as
    `infra.table.from_records` types them, no row passing through Python.

    Each record's values keep their JSON types: a column of JSON numbers is a number column (integers
    stay integers, exact to 64 bits: 17-digit ids stay distinct; beside a float, floats; NaN is
    missing), of strings a text column (a column of ISO dates, with ``Z`` or an offset, becomes dates as
    the CSV reader's do: `EngineTable`), of booleans a boolean one. The records are parsed once, into a
    temporary table; a glob's files follow each other in path order.

    Args:
        connection: the engine.
        paths: the files (a glob's, in path order).
        lines: per file, whether it holds one record a line (``.jsonl``, ``.ndjson``).
        name: the view's name.

    Returns:
        The view's name.

    Raises:
        JsonNotTyped: what the engine cannot type as chartc's reader does (a column mixing JSON types,
            an integer past 64 bits, a record with a key twice) or cannot parse, or what is not a
            list of records: read them with chartc's reader.
        ValueError: a value that is a list or an object (`errors.data_nested`, as chartc's reader).
        TableError: more columns than a table holds.
    """
    import duckdb

    records = quote_identifier(f"{name}__records")
    parts = []
    for index, (path, one_a_line) in enumerate(zip(paths, lines)):
        layout = "newline_delimited" if one_a_line else _json_layout(path)
        parts.append(f"SELECT {index} AS f, row_number() OVER () AS r, json AS j "
                     f"FROM read_json_objects({quote_text(str(path))}, format = '{layout}')")
    try:
        connection.execute(f"CREATE OR REPLACE TEMP TABLE {records} AS SELECT j FROM "
                           f"({' UNION ALL '.join(parts)}) ORDER BY f, r")
        rows, flat = connection.execute(
            f"SELECT count(*), count(*) FILTER (WHERE json_type(j) = 'OBJECT' AND len(json_keys(j)) = "
            f"len(list_distinct(json_keys(j)))) FROM {records}").fetchone()
        if rows != flat or (rows == 1 and not any(lines) and len(paths) == 1):
            raise JsonNotTyped  # not records, a key twice; or one record alone, not a list of them
        columns = connection.execute(f"""
            WITH keyed AS (SELECT rowid AS r, unnest(json_keys(j)) AS key, unnest(range(len(json_keys(j)))) AS p, j
                           FROM {records}),
                 extracted AS (SELECT r, p, key, json_extract(j, {_JSON_POINTER}) AS raw FROM keyed),
                 typed AS (SELECT r, p, key, raw, json_type(raw) AS t FROM extracted)
            SELECT key, min(r * 65536 + p) FILTER (WHERE t IN ('ARRAY', 'OBJECT')),
                   count(*) FILTER (WHERE t = 'BOOLEAN'), count(*) FILTER (WHERE t IN ('BIGINT', 'UBIGINT')),
                   count(*) FILTER (WHERE t = 'DOUBLE'), count(*) FILTER (WHERE t = 'VARCHAR'),
                   count(*) FILTER (WHERE (t = 'UBIGINT' AND TRY_CAST(raw AS BIGINT) IS NULL)
                                    OR (t = 'DOUBLE' AND NOT regexp_matches(CAST(raw AS VARCHAR), '[.eEnN]')))
            FROM typed GROUP BY key ORDER BY min(r * 65536 + p)""").fetchall()
    except duckdb.Error:
        raise JsonNotTyped from None
    nested = [(at, key) for key, at, *_ in columns if at is not None]  # at: row * 65536 + place in the row
    if nested:
        at, key = min(nested)
        raise ValueError(msg.data_nested(key, at // 65536))
    if not columns or any(key == "" for key, *_ in columns):
        raise JsonNotTyped  # no column (the reader says so), or one SQL cannot name
    record_names([dict.fromkeys(key for key, *_ in columns)])  # as many columns as a table holds
    select = []
    for key, _, booleans, integers, floats, texts, wide in columns:
        if wide or sum(1 for count in (booleans, integers + floats, texts) if count) > 1:
            raise JsonNotTyped
        pointer = quote_text("/" + key.replace("~", "~0").replace("/", "~1"))
        value = f"json_extract(j, {pointer})"
        if texts:
            expression = f"json_extract_string(j, {pointer})"
        elif booleans:
            expression = f"CAST({value} AS BOOLEAN)"
        elif floats:  # NaN is a missing value, as `from_records` holds it
            expression = f"CASE WHEN isnan(CAST({value} AS DOUBLE)) THEN NULL ELSE CAST({value} AS DOUBLE) END"
        elif integers:
            expression = f"CAST({value} AS BIGINT)"
        else:
            expression = "CAST(NULL AS VARCHAR)"
        select.append(f"{expression} AS {quote_identifier(key)}")
    # Typed once, held: every later query reads the columns, not the JSON text again.
    typed = quote_identifier(f"{name}__typed")
    connection.execute(f"CREATE OR REPLACE TEMP TABLE {typed} AS SELECT {', '.join(select)} FROM {records}")
    connection.execute(f"DROP TABLE {records}")
    connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS SELECT * FROM {typed}")
    return name


# Each key's JSON pointer (RFC 6901: ~ and / escaped), for `register_json_files`.
_JSON_POINTER = "'/' || replace(replace(key, '~', '~0'), '/', '~1')"


def _json_layout(path: Path) -> str:
    """How DuckDB reads a ``.json`` file as chartc's reader does: a list (``[``), else records one a line."""
    with open(path, "rb") as stream:
        start = stream.read(64).lstrip(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    if start[:1] == b"[":
        return "array"
    if start[:1] == b"{":
        return "newline_delimited"
    raise JsonNotTyped


class TextReadError(EngineReadError):
    """A text file the engine cannot parse: `message` is the whole diagnostic (it names the data path and line)."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message, hint)
        self.message = message


def _delimited_select(path: Path, delimiter: str) -> str | None:
    """DuckDB's reader of one delimited file, its cells as text under chartc's column names ({parallel} open)."""
    names, _ = read_header(path, delimiter)
    if not names:
        return None
    skip = _header_lines(path, delimiter)
    columns = "{" + ", ".join(f"{quote_text(f'c{index}')}: 'VARCHAR'" for index in range(len(names))) + "}"
    renamed = ", ".join(f"c{index} AS {quote_identifier(column)}" for index, column in enumerate(names))
    # Padded cells are NULL and empty ones '' (NO_NULL matches no cell), so a blank line the reader skips
    # (one cell of spaces, the rest padded) is told apart from a row of empty cells.
    first, rest = "c0", [f"c{index}" for index in range(1, len(names))]
    blank = f"regexp_full_match({first}, '[ \\t\\n\\r\\f\\v]+')" + "".join(f" AND {c} IS NULL" for c in rest)
    return (f"(SELECT {renamed} FROM read_csv({quote_text(str(path))}, header = false, skip = {skip}, "
            f"delim = {quote_text(delimiter)}, quote = '\"', escape = '\"', columns = {columns}, "
            f"null_padding = true, nullstr = {quote_text(NO_NULL)}, auto_detect = false, "
            f"parallel = {{parallel}}) WHERE NOT coalesce({blank}, false))")


def _header_lines(path: Path, delimiter: str) -> int:
    """How many records DuckDB's reader skips to pass the header: the blank lines before it (which
    `table.open_delimited` skips too), and the header (one record, whatever line breaks its quoted names hold)."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as stream:
        blank = 0
        for row in csv.reader(stream, delimiter=delimiter, strict=False):
            if row:
                break
            blank += 1
    return blank + 1


def _measure(connection, union: str, sql: str, paths: list[Path], written: str) -> tuple[str, tuple]:
    """Run one query over the files' cells: the relation that read them (in parallel where it can) and the row.

    Raises:
        TextReadError: DuckDB's failure in chartc's words, at the file's line.
    """
    import duckdb

    for parallel in ("true", "false"):
        relation = union.replace("{parallel}", parallel)
        try:
            return relation, connection.execute(sql.replace("{relation}", relation)).fetchone()
        except duckdb.Error as error:
            if SERIAL_ONLY in str(error) and parallel == "true":
                continue
            raise _read_failure(str(error), paths, written) from None


def _read_failure(text: str, paths: list[Path], written: str) -> TextReadError:
    """chartc's words for DuckDB's CSV error: what is wrong, on which line of which file, and a hint."""
    import re

    line = re.search(r"CSV Error on Line: (\d+)", text)
    line = int(line.group(1)) if line else None
    file = re.search(r"file = (.*)", text)
    culprit = Path(file.group(1).strip()) if file else None
    # A glob's file is named as well, as the glob's folder holds it.
    where = written if len(paths) == 1 or culprit is None else f"{written} ({culprit.name})"
    columns = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
    if columns:
        return TextReadError(msg.data_unreadable(where, msg.data_row_too_long(line, int(columns.group(2)),
                                                                               int(columns.group(1)))))
    if "unicode" in text.lower():
        return TextReadError(msg.data_not_utf8_line(where, line), msg.data_not_utf8_line_hint())
    if "unterminated quote" in text:
        return TextReadError(msg.data_unclosed_quote(where, line), msg.data_unclosed_quote_hint())
    return TextReadError(msg.data_not_delimited(where, line), msg.data_not_delimited_hint())


def _typed_columns(connection, union: str, names: list[str], paths: list[Path],
                   written: str) -> tuple[str, dict[str, str]]:
    """Each column's SQL over the text cells, typed by `infra.table`'s rules, and the relation reading them.

    One scan of every cell counts, per column, the cells that are present
    (not a missing word), integers, floats, booleans and ISO-date-shaped,
    with the integers' range; a second scan, only for columns of date-shaped
    text, counts the real dates among them.
    """
    if not names:
        return union.replace("{parallel}", "true"), {}
    missing, booleans = _quoted(MISSING_WORDS), _quoted(TRUE_WORDS | FALSE_WORDS)
    present = ", ".join(f"CASE WHEN {quote_identifier(column)} NOT IN {missing} THEN {quote_identifier(column)} END "
                        f"AS v{index}" for index, column in enumerate(names))
    flags, measures = [], []
    for index in range(len(names)):
        cell = f"v{index}"
        # Each test runs only where the ones before it failed (CASE evaluates only the branch taken): an
        # integer is a float too, and a number is no boolean or date; a date is ten characters at least.
        flags += [
            cell,
            f"regexp_full_match({cell}, {quote_text(INTEGER_SQL)}) AS i{index}",
            f"CASE WHEN i{index} THEN true ELSE regexp_full_match({cell}, {quote_text(FLOAT_SQL)}) END AS f{index}",
            f"{cell} IN {booleans} AS b{index}",
            f"CASE WHEN f{index} OR length({cell}) < 10 THEN false "
            f"ELSE regexp_full_match({cell}, {quote_text(ISO_DATE_SQL)}) END AS d{index}",
        ]
        wide = f"try_cast(trim({cell}, {quote_text(WHITESPACE)}) AS HUGEINT)"
        flags.append(f"CASE WHEN i{index} THEN {wide} END AS w{index}")
        measures += [f"count({cell})", f"count_if(i{index})", f"count_if(f{index})", f"count_if(b{index})",
                     f"count_if(d{index})", f"count(w{index})", f"min(w{index})", f"max(w{index})"]
    relation, row = _measure(connection, union, f"SELECT {', '.join(measures)} FROM (SELECT {', '.join(flags)} "
                             f"FROM (SELECT {present} FROM {{relation}}))", paths, written)
    figures = [row[8 * index: 8 * index + 8] for index in range(len(names))]
    shaped = [index for index, (count, *_, shaped, _, _, _) in enumerate(figures)
              if count and shaped == count and count not in figures[index][1:4]]
    dates = {}
    if shaped:
        counts = ", ".join(f"count(*) FILTER (WHERE {_date_test(f'v{index}')})" for index in shaped)
        _, row = _measure(connection, relation, f"SELECT {counts} FROM (SELECT {present} FROM {{relation}})",
                          paths, written)
        dates = dict(zip(shaped, row))
    typed = {}
    for index, column in enumerate(names):
        cell = f"CASE WHEN {quote_identifier(column)} NOT IN {missing} THEN {quote_identifier(column)} END"
        count, integers, floats, booleans_, _, exact, low, high = figures[index]
        typed[column] = _column_sql(f"({cell})", count, integers, floats, booleans_, dates.get(index, -1), exact,
                                    low, high)
    return relation, typed


def _date_test(cell: str) -> str:
    """SQL: the cell is an ISO date `table.parse_date` reads (a real day and time, after its offset in years 1-9999)."""
    stamp = f"try_cast({cell} AS TIMESTAMPTZ)"
    return (f"regexp_full_match({cell}, {quote_text(ISO_DATE_SQL)}) "
            f"AND NOT regexp_full_match({cell}, {quote_text(LATE_HOUR_SQL)}) "
            f"AND {stamp} BETWEEN TIMESTAMPTZ '0001-01-01 00:00:00+00' AND TIMESTAMPTZ '9999-12-31 23:59:59.999999+00'")


def _column_sql(cell: str, present: int, integers: int, floats: int, booleans: int, dates: int, exact: int,
                low, high) -> str:
    """One column's SQL, from what its cells are (the branches of `table._typed_text`, in its order)."""
    trimmed = f"trim({cell}, {quote_text(WHITESPACE)})"
    if not present:
        return "CAST(NULL AS DOUBLE)"
    if integers == present:
        if exact < integers:  # past 128 bits: exact only as text
            return f"CAST({trimmed} AS VARCHAR)"
        if INT64[0] <= low and high <= INT64[1]:
            return f"CAST({trimmed} AS BIGINT)"
        return f"CAST({trimmed} AS HUGEINT)"  # past 64 bits beside no gap: a mixed column (`from_typed_columns`)
    if floats == present:
        return f"CAST({trimmed} AS DOUBLE)"
    if booleans == present:
        return f"({cell} IN {_quoted(TRUE_WORDS)})"
    if dates == present:
        return f"CAST(CAST({cell} AS TIMESTAMPTZ) AS TIMESTAMP)"
    return cell


def _quoted(words) -> str:
    return "(" + ", ".join(quote_text(word) for word in sorted(words)) + ")"


def engine_columns(paths: list[Path], suffix: str) -> tuple[list[str], bool]:
    """Column names and whether there is a row, from the files' metadata alone (for `chartc validate`).

    Raises:
        EngineReadError: as `register_files`.
    """
    if suffix == ".arrow":
        tables = [_read_arrow(path) for path in paths]  # memory-mapped: the rows are not read
        names = list(dict.fromkeys(name for table in tables for name in table.column_names))
        return names, any(table.num_rows for table in tables)
    import duckdb

    from .engine import connect

    files = "[" + ", ".join(quote_text(str(path)) for path in paths) + "]"
    connection = connect()
    try:
        names = connection.sql(f"SELECT * FROM read_parquet({files}, union_by_name = true)").columns
        (rows,), = connection.execute(f"SELECT sum(num_rows) FROM parquet_file_metadata({files})").fetchall()
    except duckdb.Error:
        raise EngineReadError(msg.data_damaged("Parquet")) from None
    finally:
        connection.close()
    return list(names), bool(rows)


# ----------------------------------------------------------------- writing

# The files `write_rows` writes, by suffix.
WRITTEN_SUFFIXES = (".csv", ".parquet")


def write_rows(table: Table, path) -> None:
    """Write a table's rows to a data file a spec can read back: CSV, or Parquet (through the engine).

    CSV cells are written as the readers read them back: numbers exactly
    (``repr``), dates as ISO text, booleans ``true``/``false``, a missing
    value as an empty cell. Parquet keeps every type as it is (text that
    looks like a number stays text).

    Raises:
        ValueError: a suffix other than .csv or .parquet.
        OSError: the file cannot be written.
    """
    import csv
    import io

    from ...infra.files import write_atomic

    suffix = Path(path).suffix.lower()
    if suffix not in WRITTEN_SUFFIXES:
        raise ValueError(f"rows are written as {' or '.join(WRITTEN_SUFFIXES)}, not {suffix or 'a file without suffix'}")
    if suffix == ".parquet":
        from .engine import connect

        connection = connect()
        try:
            view = register_table(connection, table, "written")
            connection.execute(f"COPY (SELECT * FROM {quote_identifier(view)}) TO {quote_text(str(path))} "
                               "(FORMAT parquet)")
        finally:
            connection.close()
        return
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(table.names)
    for row in table.records():
        writer.writerow([_csv_cell(value) for value in row.values()])
    write_atomic(path, stream.getvalue().encode("utf-8"))


def _csv_cell(value) -> str:
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


# ----------------------------------------------------------------- materialising

def materialise(connection: duckdb.DuckDBPyConnection, sql: str) -> Table:
    """A query's rows as a `Table`, typed as chartc's readers type them.

    Integers are exact (a 17-digit id stays itself; beside a missing value
    they become floats only where floats hold them exactly), NaN stays NaN,
    timestamps are naive UTC datetimes, text of ISO dates becomes dates.

    Args:
        connection: the engine.
        sql: a query in DuckDB's dialect (say, ``SELECT * FROM source``).

    Raises:
        EngineReadError: a file behind the query turned out damaged while
            its rows were read, or a column has a type a chart cannot hold.
    """
    import duckdb

    try:
        relation = connection.sql(sql)
        names, types = relation.columns, [str(t) for t in relation.types]
        rows = relation.fetchall()
    except duckdb.Error:
        raise EngineReadError(msg.data_damaged("data")) from None
    cells = list(zip(*rows)) if rows else [()] * len(names)
    columns = {}
    for name, sql_type, values in zip(names, types, cells):
        stored = ENGINE_TYPES.get(sql_type.split("(")[0], (STORED_TEXT,))[0]
        values = list(values)
        if stored == STORED_DATE:
            values = [v if v is None or isinstance(v, datetime.datetime)
                      else datetime.datetime(v.year, v.month, v.day) for v in values]
        elif stored == STORED_FLOAT:
            values = [None if v is None else float(v) for v in values]
        columns[name] = (values, stored)
    return from_typed_columns(columns)


# ----------------------------------------------------------------- rows left in the engine

# Each row's number in a view of rows left in the engine (the `sql.ROW` column its queries read).
ROW = "__row"
# Beside it in a view of rows a layer's transforms made (`EngineTable.derived`), the data row each came from.
ORIGIN = "__origin"
# Numbers the views `EngineTable.derived` makes, their names apart.
_KEPT_VIEWS = itertools.count()
# A derived column's kind known only from its cells (`vega.column_kind`: after an impute), measured by `derived`.
KIND_MEASURED = "measured"
# The most row numbers `EngineTable.take` writes into its query as a list; more enter the engine as a relation.
TAKEN_AS_LIST = 10_000
# Numbers the Python tests `EngineTable.rejected` registers, their names apart.
_TESTS = itertools.count()
# A date column read as text starts so (`table.ISO_DATE`); only then is it parsed (`iso_date_sql`) to decide.
DATE_PREFIX_SQL = "^[0-9]{4}-[0-9]{2}-[0-9]{2}"
MAX_EXACT = 2**53
# The most rows left in the engine that are read into Python whole (a layer's, for a step the engine does not compute
# as Vega does; a lookup's second source): past it they are refused before a row is read (E416), so what comes back
# to Python (on a cluster, its driver) stays bounded.
MAX_PULLED_ROWS = 1_000_000
# `table.ISO_DATE` for both engines' regular expressions (no backslash: Spark's literals read them as escapes).
ISO_DATE_TEXT_SQL = ("^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.][0-9]+)?)?"
                     "(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?")
# Python's datetimes, from 0001-01-01 to 9999-12-31 23:59:59.999999, in microseconds since 1970.
DATETIME_MICROSECONDS = (-62_135_596_800_000_000, 253_402_300_799_999_999)


def iso_date_sql(text: str) -> tuple[str, str]:
    """ISO date text as the reader parses it (`table.parse_date`), in SQL both engines run alike: whether
    it is such a date (the whole text ISO, a day that exists, a time of day, after its offset within
    Python's years), and its time in microseconds since 1970 where it is (a zone's time as UTC).

    Integer arithmetic only: the day count from the civil date (Howard Hinnant's ``days_from_civil``),
    the fraction truncated to microseconds as the reader truncates it."""
    def number(start: int, length: int) -> str:
        return f"CAST(substr({text}, {start}, {length}) AS BIGINT)"

    timed, seconds = f"length({text}) > 10", f"substr({text}, 17, 1) = ':'"
    year, month, day = number(1, 4), number(6, 2), number(9, 2)
    hour, minute = (f"CASE WHEN {timed} THEN {number(start, 2)} ELSE 0 END" for start in (12, 15))
    second = f"CASE WHEN {timed} AND {seconds} THEN {number(18, 2)} ELSE 0 END"
    fraction = f"regexp_extract({text}, '^.{{19}}[.]([0-9]+)', 1)"
    micro = f"CASE WHEN {fraction} = '' THEN 0 ELSE CAST(rpad(substr({fraction}, 1, 6), 6, '0') AS BIGINT) END"
    zone = f"CASE WHEN {timed} THEN regexp_extract({text}, '(Z|[+-][0-9]{{2}}:?[0-9]{{2}})$', 1) ELSE '' END"
    digits = f"replace(substr({zone}, 2), ':', '')"
    offset = (f"CASE WHEN {zone} IN ('', 'Z') THEN 0 ELSE (CASE WHEN substr({zone}, 1, 1) = '+' THEN 1 ELSE -1 END) * "
              f"(CAST(substr({digits}, 1, 2) AS BIGINT) * 3600 + CAST(substr({digits}, 3, 2) AS BIGINT) * 60) END")
    leap = f"({year} % 4 = 0 AND ({year} % 100 <> 0 OR {year} % 400 = 0))"
    days_in_month = (f"CASE WHEN {month} = 2 THEN CASE WHEN {leap} THEN 29 ELSE 28 END "
                     f"WHEN {month} IN (4, 6, 9, 11) THEN 30 ELSE 31 END")
    shifted = f"({year} - CASE WHEN {month} <= 2 THEN 1 ELSE 0 END)"  # a year from March: the leap day last
    era_year = f"({shifted} % 400)"  # years from 1 on: no negative division
    day_of_year = f"((153 * ({month} + CASE WHEN {month} > 2 THEN -3 ELSE 9 END) + 2) // 5 + {day} - 1)"
    days = (f"({shifted} // 400 * 146097 + {era_year} * 365 + {era_year} // 4 - {era_year} // 100 + {day_of_year} "
            f"- 719468)")
    microseconds = (f"(({days} * 86400 + {hour} * 3600 + {minute} * 60 + {second} - {offset}) * 1000000 "
                    f"+ {micro})")
    # (A pattern not found extracts '': the empty text is no date.)
    shaped = f"coalesce({text} <> '' AND regexp_extract({text}, {quote_text(ISO_DATE_TEXT_SQL)}, 0) = {text}, false)"
    valid = (f"CASE WHEN {shaped} THEN {year} >= 1 AND {month} BETWEEN 1 AND 12 AND {day} BETWEEN 1 AND "
             f"{days_in_month} AND {hour} <= 23 AND {minute} <= 59 AND {second} <= 59 AND {microseconds} "
             f"BETWEEN {DATETIME_MICROSECONDS[0]} AND {DATETIME_MICROSECONDS[1]} ELSE false END")
    return valid, microseconds


# monotonically_increasing_id() holds a Spark partition's number above its lowest 33 bits.
PARTITION_SHIFT = 2**33


def _spark_row_number(connection, view: str) -> str:
    """SQL of each row's number in the scan's order on Spark, computed where the row is.

    `row_number() OVER ()` there is one window over every row, in one task: the rows of 10^8 would
    meet on one core. Here each partition counts its rows first (one small aggregate), and a row's number is
    the rows of the partitions before it plus its place in its own (the low bits of
    `monotonically_increasing_id`). The numbers are DuckDB's for one file, or for rows sent from Python.
    """
    counts = dict(connection.execute(f"SELECT spark_partition_id() AS p, count(*) FROM {quote_identifier(view)} "
                                     "GROUP BY spark_partition_id()").fetchall())
    offsets, total = [], 0
    for partition in range(max(counts, default=-1) + 1):
        offsets.append(total)
        total += counts.get(partition, 0)
    starts = ", ".join(map(str, offsets)) or "0"
    return (f"monotonically_increasing_id() - spark_partition_id() * {PARTITION_SHIFT} "
            f"+ [{starts}][spark_partition_id() + 1]")


class KeptOrigin:
    """The data row of each row `EngineTable.derived` left in the engine (as `Rows.origin`): asked of the engine
    only when a diagnostic names a row."""

    def __init__(self, kept: "EngineTable"):
        self.kept = kept

    def __len__(self) -> int:
        return len(self.kept)

    def __getitem__(self, index: int) -> int:
        (found,), = self.kept.connection.execute(
            f"SELECT {quote_identifier(ORIGIN)} FROM {quote_identifier(self.kept.rows_view())} "
            f"ORDER BY {quote_identifier(ROW)} LIMIT 1 OFFSET {int(index)}"
        ).fetchall()
        return found


def _cells_kind(spec: tuple, count: int, present: int, extent: tuple | None) -> str | None:
    """`vega.column_kind` of a derived column's cells (`derived`'s spec of it), from counts: how many rows, how
    many cells are not null (NaN is), and for a column of integers its extent."""
    stored = spec[0]
    if not present:
        return None
    if stored == STORED_INTEGER and not spec[2]:
        return NUMBER if INTEGER_RANGE[0] <= extent[0] and extent[1] <= INTEGER_RANGE[1] else None
    if stored == STORED_BOOLEAN:
        return BOOLEAN if present == count else None
    return {STORED_FLOAT: NUMBER, STORED_INTEGER: NUMBER, STORED_TEXT: TEXT, STORED_DATE: DATE}.get(stored)


class EngineTable(Table):
    """The rows of a view left in the engine: a `Table` whose cells are fetched only when read.

    Its names, kinds, length, distinct counts and categories come from
    queries; a column's cells are fetched the first time it is read (one
    column, not the table), and `take` fetches only some rows. The kinds are
    `materialise`'s, decided from one scan of counts and extremes: a text
    column is read whole only when every cell starts like an ISO date (it
    may be a column of dates). A backend that is not DuckDB replaces this class.

    Attributes:
        connection: the engine that holds the view (kept open while the table lives).
        view: the view's name.
        numbered: the view of the same rows numbered as `ROW` in their order (`register_numbered`), or None:
            `rows_view` makes one.
        complete: the columns with no null cell (their counts from the first scan).
        ordered: whether the rows are a query's (`derived`): numbered by it, perhaps with gaps, and read in
            that order.
        places: an upper bound on the rows' numbers, plus one (the count, but for a query's rows).
    """

    def __init__(self, connection: duckdb.DuckDBPyConnection, view: str, numbered: str | None = None):
        import duckdb

        try:
            relation = connection.sql(f"SELECT * FROM {quote_identifier(view)}")
            names, types = list(relation.columns), [str(t) for t in relation.types]
            stored = {name: ENGINE_TYPES.get(sql_type.split("(")[0], (STORED_TEXT,))[0]
                      for name, sql_type in zip(names, types)}
            measures = ["count(*)"]
            for name in names:
                column = quote_identifier(name)
                measures.append(f"count({column})")
                if stored[name] == STORED_INTEGER:
                    measures += [f"min({column})", f"max({column})"]
                elif stored[name] == STORED_TEXT:
                    measures.append(f"count_if(NOT regexp_matches({column}, {quote_text(DATE_PREFIX_SQL)}))")
            row = connection.execute(f"SELECT {', '.join(measures)} FROM {quote_identifier(view)}").fetchone()
        except duckdb.Error:
            raise EngineReadError(msg.data_damaged("data")) from None
        count, at, kinds, floats, exact, complete, cache, dated = row[0], 1, {}, set(), set(), set(), {}, []
        for name in names:
            present, at = row[at], at + 1
            if present == count:
                complete.add(name)
            if stored[name] == STORED_INTEGER:
                low, high, at = row[at], row[at + 1], at + 2
                wide = bool(count) and present == count and not (INTEGER_RANGE[0] <= low and high <= INTEGER_RANGE[1])
                kinds[name] = None if wide else NUMBER
                if not present or (-MAX_EXACT <= low and high <= MAX_EXACT):
                    exact.add(name)
                    if present < count:
                        floats.add(name)  # integers beside a gap: floats, as `table._numbers` makes them
            elif stored[name] == STORED_FLOAT:
                kinds[name] = NUMBER
            elif stored[name] == STORED_BOOLEAN:
                kinds[name] = BOOLEAN if present == count else None
            elif stored[name] == STORED_DATE:
                kinds[name] = DATE if present else None
            else:
                undated, at = row[at], at + 1
                kinds[name] = TEXT if present else None
                if present and not undated:  # perhaps dates: every cell parsed in the engine, as the reader would
                    dated.append(name)
        if dated:
            view, numbered = self._parse_dates(connection, view, numbered, names, dated, stored, kinds)
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "connection", connection)
        object.__setattr__(self, "view", view)
        object.__setattr__(self, "stored", stored)
        object.__setattr__(self, "floats", floats)
        object.__setattr__(self, "exact", exact)  # integer columns a double holds exactly
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "complete", complete)  # columns with no missing cell (NaN is not missing here)
        object.__setattr__(self, "cache", cache)
        object.__setattr__(self, "numbered", numbered)
        object.__setattr__(self, "uniques", {})  # column -> its categories, asked by several stages: one scan
        object.__setattr__(self, "ordered", False)  # whether a column is read in its rows' numbers' order (`derived`)
        object.__setattr__(self, "places", count)  # an upper bound on the rows' numbers, plus one
        object.__setattr__(self, "integers", {})  # a column of Python's mix of integers and floats (`derived`)

    @staticmethod
    def _parse_dates(connection, view: str, numbered: str | None, names: list[str], dated: list[str], stored: dict,
                     kinds: dict) -> tuple[str, str | None]:
        """Text columns whose every cell starts as a date: those whose every cell is an ISO date the reader
        reads (`iso_date_sql`; else the column stays text, as `table.parse_dates` leaves it) become dates
        in the engine, views over `view` and `numbered` holding their timestamps (no cell leaves the engine).
        Returns the views the table reads."""
        import duckdb

        parsed = {name: iso_date_sql(quote_identifier(name)) for name in dated}
        counts = ", ".join(f"count_if({quote_identifier(name)} IS NOT NULL AND NOT ({valid}))"
                           for name, (valid, _) in parsed.items())
        try:
            failures = connection.execute(f"SELECT {counts} FROM {quote_identifier(view)}").fetchone()
        except duckdb.Error:
            raise EngineReadError(msg.data_damaged("data")) from None
        dates = [name for name, failed in zip(parsed, failures) if not failed]
        if not dates:
            return view, numbered
        for name in dates:
            stored[name], kinds[name] = STORED_DATE, DATE

        def cell(name: str) -> str:
            column = quote_identifier(name)
            return f"CAST(make_timestamp({parsed[name][1]}) AS TIMESTAMP) AS {column}" if name in dates else column

        def parsed_view(base: str, extra: list[str]) -> str:
            selects = ", ".join([*map(cell, names), *map(quote_identifier, extra)])
            connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(base + '__dates')} AS "
                               f"SELECT {selects} FROM {quote_identifier(base)}")
            return base + "__dates"

        return parsed_view(view, []), None if numbered is None else parsed_view(numbered, [ROW])

    @property
    def columns(self) -> dict[str, list]:  # every cell: what a stage reading rows in Python needs
        return {name: self[name] for name in self.names}

    @property
    def names(self) -> list[str]:
        return list(self.kinds)

    def __len__(self) -> int:
        return self.count

    def __contains__(self, name) -> bool:
        return name in self.kinds

    def __getitem__(self, name: str) -> list:
        if name not in self.cache:
            if name not in self.kinds:
                raise KeyError(name)
            column = self.selected([name])
            # A query's rows (`derived`) come in no order of their own (Spark's joins, windows): it is asked for.
            self.cache[name] = self.fetch(
                f"SELECT {column} FROM {quote_identifier(self.numbered)} ORDER BY {quote_identifier(ROW)}"
                if self.ordered else f"SELECT {column} FROM {quote_identifier(self.view)}", [name])[name]
        return self.cache[name]

    def __eq__(self, other) -> bool:
        return self is other

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"EngineTable({self.view!r}, {self.count} rows, {self.kinds!r})"

    def rows_view(self) -> str:
        """The view with each row's number as `ROW` (made at the first call), for queries that keep Vega's order."""
        if self.numbered is None:
            name = f"{self.view}__rows"
            number = (_spark_row_number(self.connection, self.view) if is_spark(self.connection)
                      else "row_number() OVER () - 1")
            self.connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS SELECT *, "
                                    f"{number} AS {quote_identifier(ROW)} FROM {quote_identifier(self.view)}")
            object.__setattr__(self, "numbered", name)
        return self.numbered

    def derived(self, sql: str, columns: dict[str, tuple], held: bool = False,
                integers: dict[str, str] | None = None, kinds_from: str | None = None) -> "EngineTable":
        """Rows a query over this table makes (a layer's transforms, run in the engine), left there.

        Args:
            sql: a query of the rows, each numbered in their order as `ROW` (ascending, perhaps with gaps),
                with the data row it came from as `ORIGIN`, and its columns.
            columns: each column's name -> (its stored type, its table kind, whether its integers are read as
                floats, whether a double holds them exactly): what the rows read in Python would have.
            held: computed once and held by the engine (a temporary table), not run again by each query.
            integers: a column of doubles whose cells Python holds as a mix of integers and floats (a fold's)
                -> the query's column saying whether each row's cell is an integer (`fetch` makes it one).
            kinds_from: a query of the rows whose cells give the columns of kind `KIND_MEASURED` their kinds
                (an impute's, before a filter), with those columns; by default the rows themselves.

        Returns:
            A table over the query, numbered as it numbers its rows: nothing is fetched but the rows'
            count, their largest number and each column's count of cells.
        """
        name = f"{self.view}__kept{next(_KEPT_VIEWS)}"
        numbered, names = f"{name}__rows", list(columns)
        listed = ", ".join(quote_identifier(column) for column in names)
        self.connection.execute(f"CREATE OR REPLACE TEMP {'TABLE' if held else 'VIEW'} {quote_identifier(numbered)} "
                                f"AS {sql}")
        self.connection.execute(f"CREATE OR REPLACE TEMP VIEW {quote_identifier(name)} AS SELECT {listed} "
                                f"FROM {quote_identifier(numbered)}")
        counts = "".join(f", count({quote_identifier(column)})" for column in names)
        (count, last, *present), = self.connection.execute(
            f"SELECT count(*), max({quote_identifier(ROW)}){counts} FROM {quote_identifier(numbered)}").fetchall()
        kinds = {column: spec[1] for column, spec in columns.items()}
        measured = {column: spec for column, spec in columns.items() if spec[1] == KIND_MEASURED}
        if measured:
            kinds.update(self._cells_kinds(kinds_from or f"SELECT * FROM {quote_identifier(numbered)}", measured))
        # A copy, so that an attribute this class gains is carried; what differs is set below.
        table = copy.copy(self)
        for attribute, value in (
                ("view", name), ("numbered", numbered), ("count", count), ("places", 0 if last is None else last + 1),
                ("kinds", kinds),
                ("stored", {column: spec[0] for column, spec in columns.items()}),
                ("floats", {column for column, spec in columns.items() if spec[2]}),
                ("exact", {column for column, spec in columns.items() if spec[3]}),
                ("complete", {column for column, cells in zip(names, present) if cells == count}),
                ("integers", dict(integers or {})), ("cache", {}), ("uniques", {}), ("ordered", True)):
            object.__setattr__(table, attribute, value)
        return table

    def _cells_kinds(self, sql: str, columns: dict[str, tuple]) -> dict[str, str | None]:
        """`vega.column_kind` of each column's cells in a query's rows (`_cells_kind`), from one scan of counts."""
        integers = [column for column, spec in columns.items() if spec[0] == STORED_INTEGER and not spec[2]]
        measures = [f"count({quote_identifier(column)})" for column in columns]
        measures += [f"{extreme}({quote_identifier(column)})" for column in integers for extreme in ("min", "max")]
        (count, *found), = self.connection.execute(f"SELECT count(*), {', '.join(measures)} FROM ({sql}) AS m"
                                                   ).fetchall()
        extents = dict(zip(integers, zip(found[len(columns)::2], found[len(columns) + 1::2])))
        return {column: _cells_kind(spec, count, present, extents.get(column))
                for (column, spec), present in zip(columns.items(), found)}

    def sample(self, count: int) -> Table:
        """`infra.table.sample_rows` drawn in the engine: the numbers of the rows of the `count` smallest sample
        keys come back (Spark keeps `count` per task), then only those rows."""
        row = quote_identifier(ROW)
        keyed = sample_key_sql(quote_identifier(self.rows_view()), row)
        rows = [r for (r,) in self.connection.execute(f"SELECT r FROM ({keyed}) ORDER BY k, r LIMIT {int(count)}"
                                                      ).fetchall()]
        return self.take(rows)

    def take(self, rows: list[int], names: list[str] | None = None) -> Table:
        """Only these rows (numbers in the view's order), as a `Table` with the whole view's kinds: of every
        column, or only of those named (in the view's order)."""
        rows = sorted(set(rows))
        wanted = set(self.names if names is None else names)
        names = [name for name in self.names if name in wanted]
        # A derived table's numbers are its query's (`derived`), not places in its cached columns: it fetches.
        fetched = [name for name in names if name not in self.cache or self.ordered]
        columns = {}
        if fetched and rows:
            numbered, row = quote_identifier(self.rows_view()), quote_identifier(ROW)
            if len(rows) <= TAKEN_AS_LIST:
                wanted, parameters = "SELECT unnest($1::BIGINT[])", [rows]
            else:  # a relation, not a list: Spark's SQL text would carry each number, and refuse a million
                taken = register_arrays(self.connection, f"{self.view}__taken", {"r": integer_array(rows)})
                wanted, parameters = f"SELECT r FROM {quote_identifier(taken)}", None
            columns = self.fetch(f"SELECT {self.selected(fetched)} FROM {numbered} WHERE {row} IN ({wanted}) "
                                 f"ORDER BY {row}", fetched, parameters)
        for name in names:
            if name in columns:
                continue
            if name in self.cache:
                columns[name] = [self.cache[name][row] for row in rows]
            elif not rows:
                columns[name] = []
        return Table({name: columns[name] for name in names}, {name: self.kinds[name] for name in names})

    def cells(self, name: str, rows: list[int]) -> list:
        """One column's cells at these row numbers, in their order."""
        kept = sorted(set(rows))
        taken = self.take(kept)[name]
        at = dict(zip(kept, taken))
        return [at[row] for row in rows]

    def distinct(self, fields) -> int:
        fields = list(fields)
        if not fields:
            return 1 if self.count else 0
        keys = ", ".join(self.key_sql(name) for name in fields)
        (count,), = self.connection.execute(
            f"SELECT count(*) FROM (SELECT DISTINCT {keys} FROM {quote_identifier(self.view)})").fetchall()
        return count

    def unique(self, name: str) -> list:
        if name in self.cache or (self.kinds.get(name) is None
                                  and self.stored[name] not in (STORED_BOOLEAN, STORED_TEXT, STORED_VALUE)):
            # (booleans beside a gap and a text column of nulls have no kind but one type: the engine's)
            return Table({name: self[name]}, {name: self.kinds[name]}).unique(name)
        if name not in self.uniques:
            column, numbered, row = quote_identifier(name), quote_identifier(self.rows_view()), quote_identifier(ROW)
            key = self.key_sql(name)
            firsts = f"SELECT {column}, min({row}) AS first FROM {numbered} WHERE {key} IS NOT NULL GROUP BY {column}"
            if self.stored[name] == STORED_VALUE:  # values Python takes for one (1 and true): the first row's
                firsts = (f"SELECT n.{column}, u.first FROM (SELECT min({row}) AS first FROM {numbered} "
                          f"WHERE {key} IS NOT NULL GROUP BY {key}) AS u JOIN {numbered} AS n ON n.{row} = u.first")
            if name in self.integers:  # each value as its first row holds it (an integer, or a float)
                firsts = (f"SELECT u.{column}, n.{quote_identifier(self.integers[name])}, u.first FROM ({firsts}) AS u "
                          f"JOIN {numbered} AS n ON n.{row} = u.first")
            self.uniques[name] = self.fetch(f"SELECT {self.selected([name])} FROM ({firsts}) ORDER BY first",
                                            [name])[name]
        return list(self.uniques[name])

    def present(self, name: str) -> set:
        """The column's values other than None (NaN is one of them, once), from the engine."""
        values = set(self.unique(name))
        nan = {STORED_FLOAT: "isnan({})", STORED_VALUE: "{} = 'nnan'"}.get(self.stored[name])
        if nan is not None:
            (nan,), = self.connection.execute(f"SELECT count_if({nan.format(quote_identifier(name))}) "
                                              f"FROM {quote_identifier(self.view)}").fetchall()
            values |= {math.nan} if nan else set()
        return values

    def non_positive(self, name: str) -> int:
        """`Table.non_positive`, counted by the engine for numbers and booleans (NaN is above every number)."""
        test = {STORED_INTEGER: "{} <= 0", STORED_FLOAT: "{} <= 0", STORED_BOOLEAN: "NOT {}"}.get(self.stored[name])
        if test is None or name in self.cache:
            return super().non_positive(name)
        (count,), = self.connection.execute(f"SELECT count_if({test.format(quote_identifier(name))}) "
                                            f"FROM {quote_identifier(self.view)}").fetchall()
        return count

    def first_where(self, name: str, predicate) -> tuple[int, object] | None:
        """The first row whose cell of `name` meets an SQL predicate (`predicate(column)`): its place among the
        rows, in their order, and that cell; None where no row does. Two small queries: no column read whole."""
        numbered, row = quote_identifier(self.rows_view()), quote_identifier(ROW)
        (first,), = self.connection.execute(
            f"SELECT min({row}) FROM {numbered} WHERE {predicate(quote_identifier(name))}").fetchall()
        if first is None:
            return None
        (place,), = self.connection.execute(f"SELECT count(*) FROM {numbered} WHERE {row} < {first}").fetchall()
        return place, self.cells(name, [first])[0]

    def rejected(self, name: str, accepts, accepted_sql=None, limit: int = 3) -> tuple[int, list]:
        """The distinct texts of a text column that a Python test rejects, tested where the rows are: how many,
        and the first `limit` of them in the rows' order (only those come back).

        Args:
            name: the column.
            accepts: the test, a function of one text (run by Spark's Python workers on Spark).
            accepted_sql: SQL of texts the test surely accepts (`accepted_sql(column)`), passed untested.
            limit: how many rejected texts to bring back.
        """
        function = f"chartc_test_{next(_TESTS)}"

        def test(text):  # (no type hints: Spark would take them for a pandas function's)
            return accepts(text)

        column, numbered, row = quote_identifier(name), quote_identifier(self.rows_view()), quote_identifier(ROW)
        passed = f" WHERE NOT ({accepted_sql('v')})" if accepted_sql is not None else ""
        # The test is called once per distinct text, after the grouping: a function with side effects is not
        # moved below it (to be called once per row) by either engine's optimiser.
        self.connection.create_function(function, test, ["VARCHAR"], "BOOLEAN", null_handling="special",
                                        side_effects=True)
        try:
            found = self.connection.execute(
                f"WITH d AS (SELECT {column} AS v, min({row}) AS first FROM {numbered} WHERE {column} IS NOT NULL "
                f"GROUP BY {column}), t AS (SELECT v, first, {function}(v) AS ok FROM d{passed}) "
                f"SELECT v, count(*) OVER () FROM t WHERE NOT ok ORDER BY first LIMIT {int(limit)}").fetchall()
        finally:
            self.connection.remove_function(function)
        return (found[0][1] if found else 0), [text for text, _ in found]

    def unsafe_text(self, name: str, pattern: str) -> bool:
        """Whether any cell of a text column matches an RE2 pattern (renderer-unsafe characters)."""
        (found,), = self.connection.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {quote_identifier(self.view)} "
            f"WHERE regexp_matches({quote_identifier(name)}, {quote_text(pattern)}) LIMIT 1)").fetchall()
        return bool(found)

    def key_sql(self, name: str) -> str:
        """A column as a distinct key: NaN is missing, as `Table.distinct` counts it."""
        column = quote_identifier(name)
        if self.stored[name] == STORED_VALUE:  # as Python's cells hash: 1 and true are one, -0 and 0, false and 0
            # (an integer's key is its float's text where a float equals it: its digits and .0 to 2^53, as under
            # 10^16; past it, the text of the double it rounds to where that is the integer; else its own digits)
            digits = f"substr({column}, 2)"
            return (f"CASE WHEN {column} IN ('l', 'u', 'nnan') THEN NULL WHEN {column} = 'b1' THEN 'n1.0' "
                    f"WHEN {column} IN ('b0', 'n-0.0') THEN 'n0.0' WHEN left({column}, 1) <> 'i' THEN {column} "
                    f"WHEN {exact_integer_sql(digits)} THEN 'n' || {digits} || '.0' "
                    f"WHEN CAST(CAST({digits} AS DOUBLE) AS DECIMAL(38, 0)) = CAST({digits} AS DECIMAL(38, 0)) "
                    f"THEN 'n' || {DOUBLE_TEXT}(CAST({digits} AS DOUBLE)) ELSE {column} END")
        return f"CASE WHEN NOT isnan({column}) THEN {column} END" if self.stored[name] == STORED_FLOAT else column

    def selected(self, names: list[str]) -> str:
        """The select list `fetch` reads these columns from: each, then the integer marks of those that have them."""
        return ", ".join(quote_identifier(name) for name in [*names, *(self.integers[name] for name in names
                                                                        if name in self.integers)])

    def fetch(self, sql: str, names: list[str], parameters=None) -> dict[str, list]:
        """The cells of a query over the view (selecting `selected(names)`), typed as the whole view's columns
        are (`materialise`'s rules; a mixed column's cells integers where its mark says so)."""
        marks = [self.integers[name] for name in names if name in self.integers]
        stored = {**self.stored, **dict.fromkeys(marks, STORED_BOOLEAN)}
        cells = self._fetch_into(self.connection, sql, stored, self.floats, [*names, *marks], parameters, query=True)
        for name in names:
            if name in self.integers:
                marked = cells.pop(self.integers[name])
                cells[name] = [int(value) if integer and value is not None else value
                               for value, integer in zip(cells[name], marked)]
        return cells

    @staticmethod
    def _fetch_into(connection, sql: str, stored: dict, floats: set, names: list[str], parameters=None,
                    query: bool = False) -> dict[str, list]:
        import duckdb

        if not query:  # a view's columns
            sql = f"SELECT {', '.join(quote_identifier(name) for name in names)} FROM {quote_identifier(sql)}"
        try:
            rows = connection.execute(sql, parameters).fetchall() if parameters else connection.execute(sql).fetchall()
        except duckdb.Error:
            if is_spark(connection):
                raise  # Spark's own reason (`spark.SparkQueryError`), at the data: not a damaged file
            raise EngineReadError(msg.data_damaged("data")) from None
        cells = list(zip(*rows)) if rows else [()] * len(names)
        out = {}
        for name, values in zip(names, cells):
            values, kind = list(values), stored[name]
            if kind == STORED_DATE:
                values = [v if v is None or isinstance(v, datetime.datetime) else _stored_date(v, name) for v in values]
            elif kind == STORED_VALUE:
                values = [_value_cell(v) for v in values]
            elif kind == STORED_FLOAT or name in floats:
                values = [None if v is None else float(v) for v in values]
            out[name] = values
        return out


def exact_integer_sql(sql: str) -> str:
    """SQL of whether an integer (or its digits, at most 64 bits) is one a double holds exactly: to 2^53."""
    return f"CAST({sql} AS BIGINT) BETWEEN -{MAX_EXACT} AND {MAX_EXACT}"


def _value_cell(text: str | None):
    """The cell of a JavaScript value held as the data stage's tagged text (`STORED_VALUE`, `sql.Codec`'s): a
    number's float, an integer, a text, a boolean, a date, or None for null and undefined."""
    if text is None or text[0] in "lu":
        return None
    tag, body = text[0], text[1:]
    if tag == "n":
        return float(body)
    if tag == "i":  # a complete integer column's cell, held beside cells of other kinds (`sql._value_text`)
        return int(body)
    if tag == "b":
        return body == "1"
    if tag == "D":  # a date cell, held beside cells of other kinds (its ISO text to the microsecond)
        return datetime.datetime.fromisoformat(body)
    return body


def pulled_too_many(table: Table) -> bool:
    """Whether reading every row of `table` into Python would pass `MAX_PULLED_ROWS` (only rows left in the
    engine are read so: others are in Python already)."""
    return isinstance(table, EngineTable) and len(table) > MAX_PULLED_ROWS


def in_engine(table: Table, name: str) -> bool:
    """Whether a column's cells are left in the engine (an `EngineTable`'s, not read into Python yet): a question
    about them is then asked of the engine, not answered by reading the column whole."""
    return isinstance(table, EngineTable) and name not in table.cache
