"""Apache Spark as the data engine: the data stage's queries, written in DuckDB's dialect, run by Spark.

    chartc.toml: engine = "spark", [spark] master / remote / conf  -> SparkSettings
    SparkSettings -spark_session-> one SparkSession per process (a local Spark, a cluster or Spark Connect)
    SparkConnection: the part of a DuckDB connection the data stage uses (execute, sql, register,
        create_function), each query transpiled by sqlglot (`spark_sql`) and run by Spark SQL

The data stage writes one dialect (docs/data-engine.md says why): this module
is the whole backend. Each compile gets a session of its own over the shared
Spark context (`newSession`: its own temporary views and functions). What
DuckDB says differently from Spark is rewritten on the syntax tree before
Spark's text is written (`_rewrite`); a query Spark refuses raises
`SparkQueryError`, a `duckdb.Error`, so every caller's handling of a failed
query holds for both engines. Nothing here imports pyspark or sqlglot at
module level: a chart on the default engine never loads them.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import logging
import math
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
import weakref
from pathlib import Path

import duckdb

from ...infra.table import DateOutOfRange
from .settings import DOUBLE_TEXT, EngineUnavailable, SparkSettings

# The Spark settings every session gets, and why.
SESSION_CONF = {
    # Timestamps read and shown in UTC, as the DuckDB connection's zone (engine.SETTINGS).
    "spark.sql.session.timeZone": "UTC",
    # Vega's arithmetic: a cast that fails or a division by zero is a null, not an error (DuckDB's
    # TRY semantics where the data stage asks for them, its NULL for x / 0).
    "spark.sql.ansi.enabled": "false",
    # The size of a null list is null, as DuckDB's array_length says (Spark's legacy answer is -1).
    "spark.sql.legacy.sizeOfNull": "false",
    # No web UI: nothing listens on a port the user did not ask for.
    "spark.ui.enabled": "false",
    # No progress bar drawn over the command's output.
    "spark.ui.showConsoleProgress": "false",
    # A chart's queries read small relations many times: few shuffle partitions, not Spark's 200.
    "spark.sql.shuffle.partitions": "2",
    # Rows in and out of Python as Arrow batches, not one Python object per cell.
    "spark.sql.execution.arrow.pyspark.enabled": "true",
}


TRACE = os.environ.get("CHARTC_SPARK_TRACE")
# What this process sent to Spark: the queries run, and the first line of each it refused (a refused
# query's rows are then explained the way DuckDB's would be: tests hold both to none).
STATISTICS: dict = {"queries": 0, "refused": []}
# Spark's logging configuration: off (a failure is chartc's diagnostic, never the JVM's log).
LOG_SETTINGS = Path(__file__).with_name("spark-log4j2.properties")


class SparkQueryError(duckdb.Error):
    """A query Spark refused or failed (its first line kept, never a Java stack trace)."""


_sessions: dict = {}
_lock = threading.Lock()
# How long the last `spark_session` call took to start Spark (0 when it was running already).
startup_seconds = 0.0


def spark_session(settings: SparkSettings):
    """The process's Spark session for these settings, started at the first call.

    Raises:
        EngineUnavailable: pyspark is not installed, Java is missing, or the master cannot be reached.
    """
    global startup_seconds
    with _lock:
        if settings in _sessions:
            startup_seconds = 0.0
            return _sessions[settings]
        # pyspark warns, at import and at its first Python function, that it does not fully support the
        # pandas installed: chartc sends it numpy arrays and Arrow tables, never pandas frames.
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise EngineUnavailable("pyspark is not installed") from None
        # pyspark logs a failed query's whole plan as JSON before raising it: the raise is enough.
        logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
        started = time.perf_counter()
        # Python functions a query calls run in Spark's Python workers: this interpreter, which has chartc.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        builder = SparkSession.builder.appName("chartc")
        builder = builder.remote(settings.remote) if settings.remote else builder.master(settings.master)
        quiet = f"-Dlog4j2.configurationFile={LOG_SETTINGS.as_uri()}"
        # A local Spark listens on the loopback interface only: no port open to the network.
        # Its warehouse is a temporary folder: a chart's compile writes nothing into the project.
        local = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
                 "spark.sql.warehouse.dir": os.path.join(tempfile.gettempdir(), "chartc-spark-warehouse")} \
            if settings.master.startswith("local") and not settings.remote else {}
        for key, value in {**SESSION_CONF, **local, "spark.driver.extraJavaOptions": quiet,
                           "spark.executorEnv.PYSPARK_PYTHON": sys.executable, **dict(settings.conf)}.items():
            if settings.remote and key == "spark.ui.enabled":
                continue
            builder = builder.config(key, value)
        # The JVM writes its start-up notes to the standard error it inherits: a file of ours, read only
        # when Spark cannot start (its last line says why: no Java, a port refused).
        notes = tempfile.TemporaryFile()
        try:
            with _stderr_into(notes):
                session = builder.getOrCreate()
        except Exception as error:  # Py4J's and Java's errors: only their first line is the user's business
            where = settings.remote or settings.master
            raise EngineUnavailable(f"Spark could not start at {where}: {first_line(error)}{_last_note(notes)}") from None
        session.sparkContext.setLogLevel("ERROR") if not settings.remote else None
        startup_seconds = time.perf_counter() - started
        _sessions[settings] = session
        return session


@contextlib.contextmanager
def _stderr_into(file):
    """The process's standard error (file descriptor 2, which a child inherits) sent to `file` meanwhile."""
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(file.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _last_note(file) -> str:
    """The JVM's last error among its start-up notes, as a reason's tail ("" when it wrote none)."""
    file.seek(0)
    lines = [line.strip() for line in file.read().decode("utf-8", "replace").splitlines()
             if ("Exception" in line or "Error" in line or "error" in line) and not line.strip().startswith("at ")]
    return f" ({lines[-1][:200]})" if lines else ""


def first_line(error: BaseException) -> str:
    """An error's first meaningful line: Spark's message without its JVM stack trace.

    A Py4J error's own first line only names the Java call; the Java exception's message says why. A gRPC
    error's says why in its details ("Java heap space").
    """
    java = getattr(error, "java_exception", None)
    if type(error).__module__.startswith("grpc"):  # Spark Connect's transport: its text starts "<_InactiveRpcError"
        text = error.details() or str(error)
    elif java is not None:
        try:
            cause = java
            while cause.getCause() is not None:  # the root cause: "Connection refused", not "Failed to start"
                cause = cause.getCause()
            text = f"{cause.getClass().getSimpleName()}: {cause.getMessage()}"
        except Exception:  # the JVM gone: the Python side's text
            text = str(error)
    else:
        text = getattr(error, "getMessage", None)
        text = text() if callable(text) else str(error)
    for line in str(text).strip().splitlines():
        line = line.strip()
        if line and not line.startswith(("at ", "Traceback", "JVM stacktrace")):
            return line[:300]
    return type(error).__name__


# ------------------------------------------------------------------ DuckDB's SQL as Spark's

def spark_sql(sql: str, parameters=None) -> str:
    """A query in DuckDB's dialect (parameters ``$1``... bound to their values) as Spark SQL text."""
    import sqlglot

    return _spark_text(sqlglot.parse_one(sql, read=_duckdb_dialect()), parameters)


def _spark_text(tree, parameters=None) -> str:
    """A parsed DuckDB query, its parameters bound, as Spark SQL text."""
    from sqlglot import exp

    if parameters:
        values = list(parameters)
        tree = tree.transform(lambda node: _literal(values[int(node.this) - 1])
                              if isinstance(node, exp.Placeholder) and str(node.this).isdigit() else node)
    return _rewrite(tree).sql(dialect="spark")


def _duckdb_dialect():
    """DuckDB's dialect, its list indices read as written (from 1).

    sqlglot moves an index to count from 0 only where it can tell the index is an integer, so a tree
    holds some indices from 0 and some from 1; read as written, every one becomes `element_at` (which
    counts from 1, as DuckDB does) in `_rewrite`.
    """
    global _DIALECT
    if _DIALECT is None:
        from sqlglot.dialects.duckdb import DuckDB

        _DIALECT = type("DuckDBIndexedFromOne", (DuckDB,), {"INDEX_OFFSET": 0})
    return _DIALECT


_DIALECT = None


def _literal(value):
    """A Python value as a SQL literal of the tree."""
    from sqlglot import exp

    if isinstance(value, (list, tuple)):
        return exp.Array(expressions=[_literal(item) for item in value])
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int):
        return exp.Literal.number(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return exp.Cast(this=exp.Literal.string(repr(value)), to=exp.DataType.build("DOUBLE"))
        return exp.Cast(this=exp.Literal.string("NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")),
                        to=exp.DataType.build("DOUBLE"))
    return exp.Literal.string(str(value))


def _rewrite(tree):
    """What DuckDB and Spark say differently, said Spark's way (each rewrite keeps the value DuckDB computes)."""
    from sqlglot import exp

    def rewrite(node):
        # isfinite(x): Spark has none; |x| < inf is false for NaN and ±inf and null for null, as DuckDB's.
        if isinstance(node, exp.Anonymous) and node.name.lower() == "isfinite":
            return exp.LT(this=exp.Abs(this=node.expressions[0]),
                          expression=exp.Cast(this=exp.Literal.string("Infinity"), to=exp.DataType.build("DOUBLE")))
        # row_number() OVER (): Spark wants an order; the rows' own order is the scan's.
        if (isinstance(node, exp.Window) and isinstance(node.this, exp.RowNumber) and not node.args.get("order")
                and not node.args.get("partition_by")):
            node.set("order", exp.Order(expressions=[exp.Ordered(this=exp.Anonymous(
                this="monotonically_increasing_id", expressions=[]))]))
            return node
        # list[i]: DuckDB counts from 1, Spark's brackets from 0; element_at counts from 1 and gives null
        # past the end, as DuckDB does. (A struct's field by name, s['a'], stays as it is.)
        if (isinstance(node, exp.Bracket) and len(node.expressions) == 1
                and not (isinstance(node.expressions[0], exp.Literal) and node.expressions[0].is_string)):
            index = exp.Cast(this=node.expressions[0], to=exp.DataType.build("INT"))
            return exp.Anonymous(this="element_at", expressions=[node.this, index])
        # list(x ORDER BY k): Spark's collect_list keeps no order (and drops nulls): the values ride in
        # structs behind their keys, sorted, then taken out. Descending keys are negated (numbers only).
        if isinstance(node, exp.ArrayAgg) and isinstance(node.this, exp.Order):
            keys = []
            for index, ordered in enumerate(node.this.expressions):
                key = ordered.this if not ordered.args.get("desc") else exp.Neg(this=exp.Paren(this=ordered.this))
                keys.append(exp.PropertyEQ(this=exp.to_identifier(f"k{index}"), expression=key))
            value = exp.PropertyEQ(this=exp.to_identifier("v"), expression=node.this.this)
            collected = exp.Anonymous(this="collect_list", expressions=[exp.Struct(expressions=[*keys, value])])
            return exp.Transform(this=exp.Anonymous(this="array_sort", expressions=[collected]),
                                 expression=exp.Lambda(this=exp.column("v", table="e"),
                                                       expressions=[exp.to_identifier("e")]))
        # count(DISTINCT x) over a window: Spark has none; the size of the frame's values (no nulls) made distinct.
        if (isinstance(node, exp.Window) and isinstance(node.this, exp.Count)
                and isinstance(node.this.this, exp.Distinct)):
            window = node.copy()  # (the node itself stays where it is until it is replaced)
            window.set("this", exp.Anonymous(this="collect_list", expressions=window.this.this.expressions))
            return exp.Anonymous(this="size", expressions=[exp.Anonymous(this="array_distinct", expressions=[window])])
        # fsum, DuckDB's compensated sum: Spark has only the plain one (see docs/spark.md on the fits' last bits).
        if isinstance(node, exp.Anonymous) and node.name.lower() == "fsum":
            return exp.Sum(this=node.expressions[0])
        # A CTE's MATERIALIZED hint is DuckDB's (Spark plans each reference itself).
        if isinstance(node, exp.CTE) and node.args.get("materialized") is not None:
            node.set("materialized", None)
            return node
        # arg_min_null(a, b): a at the least b, a kept when NULL: Spark's min_by (as arg_max_null, max_by).
        if isinstance(node, exp.Anonymous) and node.name.lower() in ("arg_min_null", "arg_max_null"):
            return exp.Anonymous(this=node.name.lower()[4:7] + "_by", expressions=node.expressions)
        # hash(row...) (`sources.view_hash`): Spark's hash() is 32 bits, DuckDB's 64; xxhash64 keeps the
        # identity as wide as it is on DuckDB (the values differ: a hash names rows on one engine).
        if isinstance(node, exp.Anonymous) and node.name.lower() == "hash":
            return exp.Anonymous(this="xxhash64", expressions=node.expressions)
        # HUGEINT (a sum of 64-bit hashes): Spark's widest exact number.
        if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.INT128:
            return exp.DataType.build("DECIMAL(38, 0)")
        return node

    # Children first: a rewrite builds its node from its children, so theirs must be done already.
    for node in reversed(list(tree.walk(bfs=True))):
        new = rewrite(node)
        if new is not node:
            if node is tree:
                tree = new
            else:
                node.replace(new)
    return tree


# ------------------------------------------------------------------ the connection

# Spark's types as the DuckDB type names the data stage reads (`sources.ENGINE_TYPES`).
SPARK_TYPES = {
    "StringType": "VARCHAR", "VarcharType": "VARCHAR", "CharType": "VARCHAR",
    "DoubleType": "DOUBLE", "FloatType": "FLOAT", "DecimalType": "DECIMAL",
    "LongType": "BIGINT", "IntegerType": "INTEGER", "ShortType": "SMALLINT", "ByteType": "TINYINT",
    "BooleanType": "BOOLEAN", "DateType": "DATE",
    "TimestampType": "TIMESTAMP WITH TIME ZONE", "TimestampNTZType": "TIMESTAMP",
    "ArrayType": "LIST", "StructType": "STRUCT", "MapType": "MAP", "VariantType": "VARIANT",
    "BinaryType": "BLOB", "NullType": '"NULL"',
}
# A function's DuckDB parameter and return types (`sql._Chain.function`) as Spark's.
UDF_TYPES = {"DOUBLE": "double", "VARCHAR": "string", "BOOLEAN": "boolean", "BIGINT": "bigint"}


def udf_type(duckdb_type: str) -> str:
    """A DuckDB type (``DOUBLE``, ``VARCHAR[][]``) as Spark's DDL (``double``, ``array<array<string>>``)."""
    if duckdb_type.endswith("[]"):
        return f"array<{udf_type(duckdb_type[:-2])}>"
    return UDF_TYPES[duckdb_type]


class _Result:
    """Rows of a query, as a DuckDB cursor or relation gives them."""

    def __init__(self, frame, rows: list | None = None):
        self._frame = frame
        self._rows = rows

    def _fetched(self) -> list:
        if self._rows is None:
            try:
                started = time.perf_counter()
                self._rows = [tuple(_python(value) for value in row) for row in self._frame.collect()]
                if TRACE:
                    print(f"{time.perf_counter() - started:7.3f}s {len(self._rows)} rows", flush=True)
            except ValueError as error:  # Python's datetime refused a cell ("year 20240 is out of range")
                _refuse_far_dates(self._frame)
                raise _refused(error) from None
            except Exception as error:
                raise _refused(error) from None
        return self._rows

    def fetchall(self) -> list:
        return self._fetched()

    def fetchone(self):
        rows = self._fetched()
        return rows[0] if rows else None

    @property
    def columns(self) -> list[str]:
        return [field.name for field in self._fields()]

    @property
    def types(self) -> list[str]:
        return [SPARK_TYPES.get(type(field.dataType).__name__, "VARCHAR") for field in self._fields()]

    def _fields(self) -> list:
        """The result's schema: on Spark Connect a call to the server, which may refuse the query there."""
        if self._frame is None:
            return []
        try:
            return list(self._frame.schema.fields)
        except Exception as error:
            raise _refused(error) from None

    @property
    def description(self) -> list:
        return [(name, sql_type) for name, sql_type in zip(self.columns, self.types)]


def _refuse_far_dates(frame) -> None:
    """Raise `DateOutOfRange` for the first date or timestamp column holding a year Python's datetime does not
    (as DuckDB's client gives such a cell as text, which `sources` refuses); return if there is none."""
    from pyspark.sql import functions

    for field in frame.schema.fields:
        if type(field.dataType).__name__ in ("DateType", "TimestampType", "TimestampNTZType"):
            year = functions.year(functions.col("`" + field.name.replace("`", "``") + "`"))
            far = frame.select(year.alias("year")).where((year < 1) | (year > 9999)).limit(1).collect()
            if far:
                raise DateOutOfRange(far[0]["year"], field.name)


def _refused(error: BaseException) -> SparkQueryError:
    """A query Spark refused or failed, counted, as the engine's error."""
    reason = first_line(error)
    STATISTICS["refused"].append(reason)
    return SparkQueryError(reason)


def _python(value):
    """A cell as DuckDB's Python client gives it: structs as dicts, timestamps naive UTC (decimals stay Decimal)."""
    if isinstance(value, tuple) and hasattr(value, "asDict"):
        return {key: _python(item) for key, item in value.asDict().items()}
    if isinstance(value, list):
        return [_python(item) for item in value]
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


# The bytes of rows sent at a time where `PART_SETTING` cannot be read: its default on Spark 4.3.
PART_SETTING, PART_BYTES = "spark.sql.session.localRelationCacheThreshold", 2**20
# Rows per Arrow batch of a table held in Python, as it is sent (the engine's `sources.STREAM_BATCH`; not
# imported: the sources import the engine, which imports this module).
TABLE_BATCH_ROWS = 1 << 17


def _arrow_reader(value):
    """Rows held in Python as Arrow batches Spark takes: numpy arrays by name, a pandas frame, a pyarrow table,
    batch, reader or dataset, a Polars frame (a lazy one run here), anything with the Arrow stream interface.

    Spark's Arrow reader takes no dictionary-encoded nor view columns: they become their plain values."""
    import pyarrow as pa

    if isinstance(value, dict):
        # A NaN in a float array is a missing cell, as DuckDB scans numpy arrays (`sources.register_arrays`).
        value = pa.table({key: pa.array(values, from_pandas=True) for key, values in value.items()})
    elif type(value).__module__.split(".")[0] == "pandas":
        value = pa.Table.from_pandas(value, preserve_index=False)
    elif isinstance(value, pa.RecordBatch):
        value = pa.Table.from_batches([value])
    elif hasattr(value, "scanner"):  # a pyarrow dataset, read in its files' order
        value = value.scanner().to_reader()
    elif hasattr(value, "collect") and not hasattr(value, "__arrow_c_stream__"):  # a Polars LazyFrame
        value = value.collect()
    if isinstance(value, pa.Table):
        reader = value.to_reader(max_chunksize=TABLE_BATCH_ROWS)
    elif isinstance(value, pa.RecordBatchReader):
        reader = value
    else:
        reader = pa.RecordBatchReader.from_stream(value)
    schema = pa.schema([field.with_type(_spark_arrow_type(field.type)) for field in reader.schema])
    if schema == reader.schema:
        return reader
    return pa.RecordBatchReader.from_batches(schema, (pa.record_batch(
        [_spark_arrow_array(column) for column in batch.columns], schema=schema) for batch in reader))


def _spark_arrow_type(kind):
    """An Arrow type as Spark's Arrow reader takes it: a dictionary's values, a view's plain (large) type."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        return _spark_arrow_type(kind.value_type)
    if pa.types.is_string_view(kind):
        return pa.large_string()
    if pa.types.is_binary_view(kind):
        return pa.large_binary()
    return kind


def _spark_arrow_array(array):
    """An Arrow array of the type `_spark_arrow_type` gives (a dictionary's values made plain first: pyarrow
    cannot decode a dictionary of views)."""
    import pyarrow as pa

    if pa.types.is_dictionary(array.type):
        plain = pa.DictionaryArray.from_arrays(array.indices, _spark_arrow_array(array.dictionary))
        return plain.dictionary_decode()
    wanted = _spark_arrow_type(array.type)
    return array if wanted == array.type else array.cast(wanted)


def _union(frames: list):
    """The DataFrames' rows one after another (`unionAll`), as a balanced tree: a chain of a thousand parts
    would be a plan a thousand deep, past what a plan's recursive walks allow."""
    if len(frames) == 1:
        return frames[0]
    middle = len(frames) // 2
    return _union(frames[:middle]).unionAll(_union(frames[middle:]))


class SparkConnection:
    """A DuckDB connection's surface over a Spark session of its own: what the data stage calls."""

    engine = "spark"

    def __init__(self, session, conf: tuple = ()):
        self.session = session.newSession()
        # A new session starts from the context's settings, not ours nor the project file's.
        for key, value in {**SESSION_CONF, **dict(conf)}.items():
            if key.startswith("spark.sql.") and key != "spark.sql.warehouse.dir":
                self.session.conf.set(key, value)
        # Each temporary view's DataFrame, held while the view lives: on Spark Connect a checkpointed or
        # local relation is released on the server when its Python object goes, and the view with it.
        self.views: dict[str, object] = {}
        self.remote = type(session).__module__.startswith("pyspark.sql.connect")
        # Whether Spark runs where this machine's files are (a local master): rows typed here then reach it
        # as a Parquet file it scans in parallel (`staging_file`), not as Arrow batches held by its driver.
        self.reads_local_files = not self.remote and session.sparkContext.master.startswith("local")
        self.staged: list = []  # the removals of those files' folders
        # A double's text as Python's `repr` writes it (`settings.DOUBLE_TEXT`): Java's Double.toString writes
        # '1.0E20', and before Java 19 not always the shortest digits.
        self.create_function(DOUBLE_TEXT, _double_text, ["DOUBLE"], "VARCHAR")

    # queries
    def execute(self, sql: str, parameters=None) -> _Result:
        from sqlglot import exp

        text = sql.strip()
        if text.upper().startswith("SET "):
            return _Result(None, [])  # DuckDB's settings; Spark's are the session's (SESSION_CONF)
        try:
            import sqlglot

            tree = sqlglot.parse_one(text, read=_duckdb_dialect())
        except Exception as error:
            raise SparkQueryError(f"not a query chartc can send to Spark: {first_line(error)}") from None
        if isinstance(tree, exp.Create) and tree.args.get("kind") in ("TABLE", "VIEW"):
            return self._create(tree, parameters)
        if isinstance(tree, exp.Drop):
            for table in tree.find_all(exp.Table):
                self.drop(table.name)
            return _Result(None, [])
        return self._run(_spark_text(tree, parameters))

    def sql(self, sql: str) -> _Result:
        return self.execute(sql)

    def _run(self, text: str) -> _Result:
        STATISTICS["queries"] += 1
        try:
            frame = self.session.sql(text)
        except Exception as error:
            if TRACE:
                print(f"refused: {text}", flush=True)
            raise _refused(error) from None
        return _Result(frame)

    def _create(self, tree, parameters) -> _Result:
        """A DuckDB temporary view or table as a Spark temporary view (a table is cached: it is read again)."""
        from sqlglot import exp

        name = tree.this.find(exp.Table).name
        frame = self._run(_spark_text(tree.expression, parameters))._frame
        if tree.args.get("kind") == "TABLE":  # computed once, as DuckDB's temporary table
            try:
                if self.remote:  # Spark Connect 4.3 loses a checkpoint made in a `newSession()`; a cache, filled now
                    frame = frame.cache()
                    frame.count()
                else:
                    frame = frame.localCheckpoint(eager=True)
            except Exception as error:
                raise _refused(error) from None
        frame.createOrReplaceTempView(name)
        self.views[name] = frame
        return _Result(None, [])

    def drop(self, name: str) -> None:
        self.session.catalog.dropTempView(name)
        frame = self.views.pop(name, None)
        if self.remote and frame is not None:
            frame.unpersist()

    def unregister(self, name: str) -> None:
        """A view of rows `register` sent, dropped once a table holds them (DuckDB's name for it)."""
        self.drop(name)

    # rows in
    def register(self, name: str, columns) -> None:
        """Rows held in Python as the view `name`, sent in parts (`_send`): numpy arrays by name, or a
        table passed from Python (`sources.TABLE_TYPES`: pandas, Polars, pyarrow, an Arrow stream)."""
        self._send(name, _arrow_reader(columns))

    def _send(self, name: str, batches) -> None:
        """Arrow record batches (a reader) as the view `name`, sent in parts of at least `part_bytes` each, one
        held here at a time: the union of the parts, in order."""
        import pyarrow as pa

        parts, held = [], []

        def send() -> None:
            part = pa.Table.from_batches(held, schema=batches.schema)
            held.clear()
            try:
                parts.append(self.session.createDataFrame(part))
            except Exception as error:
                raise _refused(error) from None
            if TRACE:
                print(f"sent {part.num_rows} rows ({part.nbytes} bytes)", flush=True)

        size = 0
        for batch in batches:
            held.append(batch)
            size += batch.nbytes
            if size >= self.part_bytes:
                send()
                size = 0
        if held or not parts:
            send()
        # Spark's union keeps each part's partitions in order, so rows are numbered as they were read.
        self._as_view(name, lambda: _union(parts))

    @functools.cached_property
    def part_bytes(self) -> int:
        """The bytes of rows sent to Spark at a time (`_send`): Spark Connect's
        `spark.sql.session.localRelationCacheThreshold`, past which a part is kept on the server as an
        artifact, named by its hash in each later query's plan rather than sent again with it."""
        try:
            return max(int(self.session.conf.get(PART_SETTING, str(PART_BYTES))), 1)
        except Exception:  # a Spark without the setting, or a value that is not a number
            return PART_BYTES

    def staging_file(self) -> str:
        """A path for a Parquet file of rows typed here, in a folder of its own removed on `close`."""
        folder = tempfile.mkdtemp(prefix="chartc-rows-")
        # Removed on `close`, or when this connection is collected or the process ends (a chart compiled by the
        # Python API keeps its rows, and their connection, as long as it lives).
        self.staged.append(weakref.finalize(self, shutil.rmtree, folder, True))
        return os.path.join(folder, "rows.parquet")

    def read_parquet(self, name: str, paths: list[str]) -> str:
        """Parquet files as the view `name`, columns matched by name (a column one file lacks is null there)."""
        frame = self._as_view(name, lambda: self.session.read.option("mergeSchema", "true").parquet(*paths))
        # Beside it, each row's place in its file (Parquet's row index, as DuckDB's file_row_number): the
        # file's order, where Spark's partitions go largest split first.
        self._as_view(f"{name}__indexed", lambda: frame.select("*", "_metadata.row_index"))
        return name

    def table(self, name: str, view: str) -> str:
        """A table of Spark's catalog (``logs.runs``) as the view `view`."""
        self._as_view(view, lambda: self.session.table(name))
        return view

    def _as_view(self, name: str, make):
        """The DataFrame `make()` gives as this session's temporary view `name` (Spark's failure, refused: on
        Spark Connect the view's creation sends the rows, where the server may fail)."""
        try:
            frame = make()
            frame.createOrReplaceTempView(name)
        except Exception as error:
            raise _refused(error) from None
        self.views[name] = frame
        return frame

    def has_table(self, name: str) -> bool:
        """Whether the catalog has the table or view `name` (``db.table``, or ``table`` in the current
        database); this session's own temporary views are not the catalog's."""
        try:
            return name not in self.views and self.session.catalog.tableExists(name)
        except Exception as error:  # an unparsable name, a metastore that cannot be reached
            raise SparkQueryError(first_line(error)) from None

    def table_names(self, near: str, databases: int = 50) -> list[str]:
        """The catalog's tables as a spec names them, for a hint about `near` (a name it does not have): those
        of its database when that exists, else of every database (up to `databases` of them); unqualified
        too, for the current database's, when `near` is unqualified."""
        catalog = self.session.catalog
        try:
            known = [database.name for database in catalog.listDatabases()]
            database = near.rpartition(".")[0]
            names = []
            for each in ([database] if database in known else known[:databases]):
                names += [f"{each}.{table.name}" for table in catalog.listTables(each) if not table.isTemporary]
            if "." not in near:
                names += [table.name for table in catalog.listTables(catalog.currentDatabase())
                          if not table.isTemporary]
        except Exception as error:
            raise SparkQueryError(first_line(error)) from None
        return sorted(set(names))

    # functions
    def create_function(self, name: str, function, params, returns, side_effects: bool = False, **_) -> None:
        """A Python function the query calls (run by Spark's Python workers). One with side effects is
        nondeterministic to Spark, which then calls it where the query does (not below a grouping, say)."""
        from pyspark.sql.functions import udf

        called = udf(function, udf_type(str(returns)))
        self.session.udf.register(name, called.asNondeterministic() if side_effects else called)

    def remove_function(self, name: str) -> None:
        pass  # a session's functions go with it; each name is used once (`sql._Chain.function`)

    def close(self) -> None:
        for name in list(self.views):
            try:
                self.drop(name)
            except Exception:  # a session already stopped: nothing left to drop
                pass
        while self.staged:
            self.staged.pop()()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _double_text(value):
    return None if value is None else repr(float(value))


def connect_spark(settings: SparkSettings) -> SparkConnection:
    """A connection to Spark with these settings (starting Spark if this process has not)."""
    return SparkConnection(spark_session(settings), settings.conf)
