"""The data engine: one embedded DuckDB database per compile, imported at its first query.

Every read and every transform of a chart's rows runs here, once, as SQL in
DuckDB's dialect (docs/data-engine.md says why DuckDB, and why SQL text: a
Spark backend transpiles the same queries with sqlglot). Nothing imports
`duckdb` at module level: `chartc --version`, `validate`, `schema` and `new`
never load it (tests/test_architecture.py checks).
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

from ...infra.paper import ENGINES
from .settings import DEFAULT_MASTER, DOUBLE_TEXT, EngineUnavailable, SparkSettings

__all__ = ["DEFAULT_MASTER", "ENGINES", "EngineUnavailable", "SparkSettings", "connect", "connect_duckdb",
           "current_engine", "quote_identifier", "quote_text", "use_engine"]
# The engine this compile's queries go to: None for DuckDB, else the Spark settings (`use_engine`).
_engine: contextvars.ContextVar = contextvars.ContextVar("chartc_engine", default=None)


@contextlib.contextmanager
def use_engine(settings):
    """Send the data stage's queries to Spark with these settings (`spark.SparkSettings`), or None for DuckDB."""
    token = _engine.set(settings)
    try:
        yield
    finally:
        _engine.reset(token)


def current_engine() -> str:
    """The name of the engine a new connection is opened on."""
    return "duckdb" if _engine.get() is None else "spark"

# Settings every connection gets, and why.
SETTINGS = {
    # Parquet min/max statistics leave NaN out; without this DuckDB folds `isnan(x)` to false from
    # them and a NaN-polluted column reads as clean (duckdb#25521).
    "parquet_can_have_nan": "true",
    # Timestamps with a zone are shown in UTC, as the renderer is run in UTC (render.export.use_utc):
    # a chart must not depend on the machine's zone.
    "TimeZone": "'UTC'",
    # Results come back in the order the query says, or in the input's order where it says none.
    "preserve_insertion_order": "true",
}


def connect() -> duckdb.DuckDBPyConnection:
    """A new in-memory database with chartc's settings, or a session of Spark when the compile runs there.

    Returns:
        A DuckDB connection (or `spark.SparkConnection`); the caller owns it (close it, or let it go out of scope).
    """
    settings = _engine.get()
    if settings is not None:
        from .spark import connect_spark

        return connect_spark(settings)
    return connect_duckdb()


def connect_duckdb() -> duckdb.DuckDBPyConnection:
    """A new in-memory DuckDB database with chartc's settings, whatever engine the compile runs on."""
    import duckdb  # ~0.15 s: only a compile that reads rows pays it

    connection = duckdb.connect(":memory:")
    for name, value in SETTINGS.items():
        connection.execute(f"SET {name} = {value}")
    # A query past two seconds (a large file's scan) would draw a progress bar on the output. In a
    # notebook the bar starts off, and setting it at all fails there without ipywidgets: only a bar
    # that is on is turned off.
    if connection.execute("SELECT current_setting('enable_progress_bar')").fetchall() == [(True,)]:
        connection.execute("SET enable_progress_bar = false")
    # A double's shortest text, Python's `repr` (DuckDB's cast writes it so; Spark's is a function of ours).
    connection.execute(f"CREATE TEMP MACRO {DOUBLE_TEXT}(x) AS CAST(x AS VARCHAR)")
    return connection


def quote_identifier(name: str) -> str:
    """A column or table name as a SQL identifier, whatever its characters."""
    return '"' + name.replace('"', '""') + '"'


def quote_text(text: str) -> str:
    """A Python string as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
