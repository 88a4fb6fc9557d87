"""A table of Spark's catalog as a chart's data: ``data: {table: logs.runs}``.

The table is made in a local catalog (a database whose files are in a
temporary folder) from the same rows as a Parquet file: each chart drawn
from the table on Spark must be, key for key, the Vega-Lite of the same
chart over the file on the default engine (provenance aside, which names
the source). Then the table's provenance (its rows' hash, computed by
Spark, moves when a row changes) and the diagnostics, each at the spec node
it is about, with its exact words.
"""

from __future__ import annotations

import datetime
import os
import tempfile

import pytest

import chartc
from chartc import errors as msg
from chartc.errors import Location, SpecError
from chartc.stages.data.engine import use_engine
from chartc.stages.data.spark import SparkSettings, spark_session

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")
import pyarrow.parquet  # noqa: E402

pytestmark = pytest.mark.spark

ROWS = 120
# Spark makes its warehouse folder (the default database's) where it starts: not in the work tree.
SETTINGS = SparkSettings(conf=(("spark.sql.warehouse.dir",
                                os.path.join(tempfile.gettempdir(), f"chartc-spark-warehouse-{os.getpid()}")),))
# Each chart is drawn from the table on Spark and from its Parquet file on DuckDB.
CHARTS = {
    # rows drawn one by one: timestamps as dates, a text column as colours, a gap in the y values
    "line": {"mark": "line", "encoding": {"x": "ts", "y": "loss", "color": "run"}},
    # an aggregation the engine computes
    "histogram": {"mark": "bar", "encoding": {"x": {"field": "loss", "bin": {"maxbins": 20}},
                                              "y": {"aggregate": "count"}}},
    # 17-digit ids one apart stay apart
    "ids": {"mark": "bar", "encoding": {"x": {"field": "id", "type": "nominal"}, "y": {"aggregate": "count"}}},
    # a transform the engine runs, booleans as a colour, and a fit
    "filtered": {"transform": [{"filter": "datum.step > 40"}], "encoding": {"x": "step", "y": "loss"},
                 "layers": [{"mark": "point", "encoding": {"color": "kept"}}, {"trend": {"method": "linear"}}]},
}


def arrow_rows() -> pa.Table:
    """Integers, floats with a gap, text, booleans, UTC timestamps and 17-digit ids."""
    start = datetime.datetime(2024, 3, 30, 22, 0, tzinfo=datetime.timezone.utc)
    return pa.table({
        "step": pa.array(range(ROWS), pa.int64()),
        "loss": pa.array([None if i == 5 else round(3.0 / (1 + i / 40) + (i % 7) * 0.01, 6) for i in range(ROWS)],
                         pa.float64()),
        "run": pa.array([f"run-{i % 3}" for i in range(ROWS)]),
        "kept": pa.array([i % 4 != 0 for i in range(ROWS)]),
        "ts": pa.array([start + datetime.timedelta(minutes=7 * i) for i in range(ROWS)], pa.timestamp("us", tz="UTC")),
        "id": pa.array([12345678901234567 + i % 4 for i in range(ROWS)], pa.int64()),
    })


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The database ``logs`` of Spark's catalog, its files in a temporary folder: ``logs.runs`` (the rows of
    ``runs.parquet``, written beside the spec) and ``logs.nested`` (a column of lists)."""
    folder = tmp_path_factory.mktemp("catalog")
    (folder / ".git").mkdir()  # the project the spec's data path stays inside
    pyarrow.parquet.write_table(arrow_rows(), folder / "runs.parquet")
    spark = spark_session(SETTINGS)
    spark.sql(f"CREATE DATABASE logs LOCATION '{(folder / 'logs.db').as_uri()}'")
    try:
        # One file, so that Spark scans the rows in the file's order.
        spark.read.parquet(str(folder / "runs.parquet")).coalesce(1).write.format("parquet").saveAsTable("logs.runs")
        spark.sql("CREATE TABLE logs.nested USING parquet AS SELECT id AS step, array(id, id + 1) AS tags "
                  "FROM range(3)")
        yield folder
    finally:
        spark.sql("DROP DATABASE logs CASCADE")


def without_provenance(vega_lite: dict) -> dict:
    return {key: value for key, value in vega_lite.items() if key != "usermeta"}


def on_spark(spec: str | dict, **kwargs):
    with use_engine(SETTINGS):
        return chartc.from_spec(spec, **kwargs)


@pytest.mark.parametrize("chart", sorted(CHARTS))
def test_a_catalog_table_draws_what_the_same_rows_in_a_parquet_file_draw(catalog, chart):
    from_table = on_spark({"data": {"table": "logs.runs"}, **CHARTS[chart]})
    from_file = chartc.from_spec({"data": {"path": "runs.parquet"}, **CHARTS[chart]}, base_dir=catalog)
    assert without_provenance(from_table.vega_lite) == without_provenance(from_file.vega_lite)
    assert [w.diagnostic() for w in from_table.warnings] == [w.diagnostic() for w in from_file.warnings]


def test_the_rows_drawn_are_the_tables(catalog):
    (rows,) = on_spark({"data": {"table": "logs.runs"}, **CHARTS["line"]}).vega_lite["datasets"].values()
    expected = arrow_rows().to_pylist()
    assert [row["step"] for row in rows] == [row["step"] for row in expected]
    assert [row.get("loss") for row in rows] == [row["loss"] for row in expected]
    assert rows[1]["ts"] == "2024-03-30T22:07:00"  # the UTC wall clock, as a file's zoned timestamps


def test_an_unqualified_name_is_looked_up_in_the_current_database_and_the_hint_qualifies_it(catalog):
    with pytest.raises(SpecError) as raised:
        on_spark("data: {table: runs}\nmark: point\nencoding: {x: step, y: loss}\n")
    assert raised.value.message == msg.catalog_table_missing("runs", "Spark")
    assert raised.value.hint == "did you mean 'logs.runs'?"


def test_the_provenance_is_the_tables_rows_hashed_by_spark_and_a_changed_table_is_stale(catalog):
    spark = spark_session(SETTINGS)
    spark.sql("CREATE TABLE logs.changing USING parquet AS SELECT * FROM logs.runs")
    spec = {"data": {"table": "logs.changing"}, **CHARTS["ids"]}
    try:
        first = on_spark(spec).vega_lite["usermeta"]["chartc"]
        again = on_spark(spec).vega_lite["usermeta"]["chartc"]
        spark.sql("INSERT INTO logs.changing SELECT * FROM logs.runs WHERE step = 7")
        changed = on_spark(spec).vega_lite["usermeta"]["chartc"]
    finally:
        spark.sql("DROP TABLE logs.changing")
    assert first["data"] == "table:logs.changing"
    assert len(first["data_hash"]) == 64
    assert again["data_hash"] == first["data_hash"]  # the same rows: the same hash (the chart is not rebuilt)
    assert changed["data_hash"] != first["data_hash"]  # a row more: stale


def test_the_hash_query_is_spark_sql_of_64_bit_row_hashes():
    from chartc.stages.data.spark import spark_sql

    assert spark_sql('SELECT count(*), bit_xor(h), sum(h::HUGEINT) FROM (SELECT hash("a", "b") AS h FROM "v")') == (
        "SELECT COUNT(*), BIT_XOR(h), SUM(CAST(h AS DECIMAL(38, 0))) FROM (SELECT XXHASH64(`a`, `b`) AS h FROM `v`)")


# ------------------------------------------------------------------ diagnostics

def test_a_table_the_catalog_lacks_names_the_nearest_it_has(catalog):
    with pytest.raises(SpecError) as raised:
        on_spark("data: {table: logs.rnus}\nmark: point\nencoding: {x: step, y: loss}\n")
    error = raised.value
    assert (error.code, error.path) == ("E491", ("data", "table"))
    assert error.message == msg.catalog_table_missing("logs.rnus", "Spark")
    assert error.hint == msg.did_you_mean("logs.rnus", ["logs.runs"]) == "did you mean 'logs.runs'?"
    assert error.location == Location("<spec>", 1, 15)


def test_a_table_of_a_database_the_catalog_lacks_lists_the_tables_there_are(catalog):
    with pytest.raises(SpecError) as raised:
        on_spark("data: {table: nowhere.at_all}\nmark: point\nencoding: {x: step, y: loss}\n")
    assert raised.value.message == "the Spark catalog has no table 'nowhere.at_all'"
    assert raised.value.hint == msg.catalog_tables(["logs.nested", "logs.runs"])
    assert raised.value.hint == "the catalog's tables: 'logs.nested', 'logs.runs'"


def test_a_column_the_table_lacks_is_reported_at_the_field_with_its_columns(catalog):
    with pytest.raises(SpecError) as raised:
        on_spark("data: {table: logs.runs}\nmark: point\nencoding:\n  x: step\n  y: los\n")
    error = raised.value
    columns = arrow_rows().column_names
    assert (error.code, error.path) == ("E451", ("encoding", "y"))
    assert error.message == msg.field_not_found("los", columns)
    assert msg.available_columns(columns) in error.hint
    assert error.location == Location("<spec>", 5, 6)


def test_a_nested_column_is_refused_with_a_flat_view_to_draw_instead(catalog):
    with pytest.raises(SpecError) as raised:
        on_spark("data: {table: logs.nested}\nmark: point\nencoding: {x: step, y: step}\n")
    error = raised.value
    assert (error.code, error.path) == ("E492", ("data", "table"))
    assert error.message == msg.catalog_table_unreadable("logs.nested", msg.data_nested_column("tags"))
    assert error.message == ("the table 'logs.nested' cannot be read: column 'tags' holds lists, structs or maps, "
                             "but chart data are flat rows")
    assert error.hint == "draw a view of its flat columns: CREATE VIEW logs.nested_flat AS SELECT step FROM logs.nested"
    assert error.location == Location("<spec>", 1, 15)


def test_no_java_stack_trace_reaches_a_diagnostic(catalog):
    with pytest.raises(SpecError) as raised:
        on_spark("data: {table: logs.nested}\nmark: point\nencoding: {x: step, y: step}\n")
    text = str(raised.value)
    assert "\tat " not in text and "Exception" not in text and "py4j" not in text.lower()
