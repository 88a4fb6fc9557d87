"""Tables passed from Python, every kind: what Vega draws from each is what it draws from the same rows in a file.

pandas, Polars (eager and lazy), pyarrow (Table, RecordBatch, Dataset,
RecordBatchReader), DuckDB relations (over a file, over a table of their own
connection), an Ibis expression and a bare Arrow stream: each is read by the
engine where it is (`sources.register_frame`) and must draw, item for item,
the scenegraph of the same chart over a CSV file of the same rows. Then: no
row reaches Python (the materialising paths patched to fail; a 10⁷-row table's
peak memory), and the diagnostics of what cannot be read.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset
import pyarrow.parquet
import pytest
import vl_convert

import chartc
from chartc import errors as msg
from chartc.errors import Location, SpecError
from chartc.stages.data import sources

from conftest import ROOT

# Ibis 12's DuckDB backend calls DuckDB's deprecated `fetch_arrow_table`: its warning is not chartc's.
pytestmark = pytest.mark.filterwarnings("ignore:fetch_arrow_table.*:DeprecationWarning")
ROWS = 300
ZONE = "Europe/Paris"
# Vega's scenegraph of these charts, from the CSV and from every kind of table.
CHARTS = {
    # rows drawn one by one: zoned timestamps as dates, a dictionary/categorical column as colours
    "line": {"mark": "line", "encoding": {"x": "ts", "y": "loss", "color": "run"}},
    # an aggregation the engine computes (the layer carries its bins)
    "histogram": {"mark": "bar", "encoding": {"x": {"field": "loss", "bin": {"maxbins": 20}},
                                              "y": {"aggregate": "count"}}},
    # 17-digit ids one apart stay apart: one bar each, labelled with every digit
    "ids": {"mark": "bar", "encoding": {"x": {"field": "id", "type": "nominal"}, "y": {"aggregate": "count"}}},
    # a transform run by the engine, and a fit
    "filtered": {"transform": [{"filter": "datum.step > 40"}], "encoding": {"x": "step", "y": "loss"},
                 "layers": [{"mark": "point"}, {"trend": {"method": "linear"}}]},
}


def arrow_rows() -> pa.Table:
    """The rows every kind is made from: integers, floats with a gap, a dictionary text column, zoned
    timestamps, 17-digit ids."""
    rng = np.random.default_rng(16)
    step = np.arange(ROWS, dtype="int64")
    loss = np.round(3.0 * np.exp(-step / 120) + rng.normal(scale=0.05, size=ROWS), 6)
    start = datetime.datetime(2024, 3, 30, 22, 0, tzinfo=datetime.timezone.utc)  # across Paris' change of zone
    stamps = [start + datetime.timedelta(minutes=7 * int(i)) for i in step]
    return pa.table({
        "step": pa.array(step),
        "loss": pa.array([None if i == 5 else float(v) for i, v in enumerate(loss)], pa.float64()),
        "run": pa.array([f"run-{i % 3}" for i in step]).dictionary_encode(),
        "ts": pa.array(stamps, pa.timestamp("us", tz="UTC")).cast(pa.timestamp("us", tz=ZONE)),
        "id": pa.array([12345678901234567 + i % 4 for i in step], pa.int64()),
    })


def write_csv(table: pa.Table, path) -> None:
    """The rows as a CSV file a spec reads: timestamps as ISO text in UTC with ``Z``, a gap as an empty cell."""
    lines = [",".join(table.column_names)]
    for row in table.to_pylist():
        cells = []
        for name in table.column_names:
            value = row[name]
            if value is None:
                cells.append("")
            elif isinstance(value, datetime.datetime):
                cells.append(value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
            else:
                cells.append(repr(value) if isinstance(value, float) else str(value))
        lines.append(",".join(cells))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


class ArrowStream:
    """An object with the Arrow PyCapsule interface alone, handing out its stream once (as a reader does)."""

    def __init__(self, table: pa.Table):
        self.reader = table.to_reader()

    def __arrow_c_stream__(self, requested_schema=None):
        return self.reader.__arrow_c_stream__(requested_schema)


def ibis_table(parquet):
    ibis = pytest.importorskip("ibis")
    connection = ibis.duckdb.connect()
    connection.raw_sql(f"CREATE TABLE runs AS SELECT * FROM read_parquet('{parquet}')")
    runs = connection.table("runs")
    return runs.filter(runs.step >= 0)


def duckdb_table(parquet):
    connection = duckdb.connect()
    connection.execute(f"CREATE TABLE runs AS SELECT * FROM read_parquet('{parquet}')")
    return connection.table("runs")


# kind -> the table, made from the Arrow rows and their Parquet file
KINDS = {
    "pandas": lambda table, parquet: table.to_pandas(),
    "polars": lambda table, parquet: pl.from_arrow(table),
    "polars-lazy": lambda table, parquet: pl.from_arrow(table).lazy().filter(pl.col("step") >= 0),
    "polars-scan": lambda table, parquet: pl.scan_parquet(parquet),
    "arrow-table": lambda table, parquet: table,
    "arrow-batch": lambda table, parquet: table.combine_chunks().to_batches()[0],
    "arrow-dataset": lambda table, parquet: pyarrow.dataset.dataset(parquet),
    "arrow-reader": lambda table, parquet: table.to_reader(max_chunksize=64),
    "arrow-stream": lambda table, parquet: ArrowStream(table),
    "duckdb-file": lambda table, parquet: duckdb.read_parquet(str(parquet)),
    "duckdb-table": lambda table, parquet: duckdb_table(parquet),
    "ibis": lambda table, parquet: ibis_table(parquet),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("frames")
    (folder / ".git").mkdir()  # the project the spec's data path stays inside
    table = arrow_rows()
    write_csv(table, folder / "runs.csv")
    pyarrow.parquet.write_table(table, folder / "runs.parquet")
    return folder, table


def drawn(vega_lite: dict) -> str:
    """What Vega draws of a chart, as JSON (provenance, which names the data's source, left out)."""
    vega_lite = {key: value for key, value in vega_lite.items() if key != "usermeta"}
    return json.dumps(vl_convert.vegalite_to_scenegraph(vega_lite), sort_keys=True)


@pytest.fixture(scope="module")
def from_csv(files):
    folder, _ = files
    return {name: drawn(chartc.from_spec({"data": {"path": "runs.csv"}, **spec}, base_dir=folder).vega_lite)
            for name, spec in CHARTS.items()}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("chart", CHARTS)
def test_every_kind_of_table_draws_what_its_csv_file_draws(files, from_csv, kind, chart):
    folder, table = files
    frame = KINDS[kind](table, folder / "runs.parquet")
    compiled = chartc.from_spec(CHARTS[chart], data=frame)
    assert drawn(compiled.vega_lite) == from_csv[chart]
    assert compiled.vega_lite["usermeta"]["chartc"]["data"] == "frame:table"


@pytest.mark.spark
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_table_is_the_same_chart_on_spark(spark_session, files, kind):
    """`engine="spark"`: the table's rows are sent to Spark as Arrow batches, in parts. Before, only a pandas frame
    and a pyarrow table were: every other kind was refused (E486, "the LazyFrame failed when its query ran:
    'list' object has no attribute 'is_unique'"; a reader, a dataset, a relation: no attribute 'columns'). Each chart is
    DuckDB's, byte for byte, but for the hash of the table's rows, which each engine computes its own way
    (docs/spark.md: a hash names rows on one engine)."""
    folder, table = files

    def unhashed(chart) -> str:
        text = json.dumps(chart.vega_lite)
        hashed = chart.vega_lite["usermeta"]["chartc"]["data_hash"]
        assert text.count(hashed) == 1 and chart.vega_lite["usermeta"]["chartc"]["data"] == "frame:table"
        return text.replace(hashed, "")

    for chart, spec in CHARTS.items():
        on_duckdb = chartc.from_spec(spec, data=KINDS[kind](table, folder / "runs.parquet"), full=False)
        on_spark = chartc.from_spec(spec, data=KINDS[kind](table, folder / "runs.parquet"), full=False,
                                    engine="spark")
        assert unhashed(on_spark) == unhashed(on_duckdb), chart


def test_the_charts_compared_draw_what_the_rows_hold(files, from_csv):
    """The comparison above is not of two empty charts: the ids' bars are four, labelled with every digit."""
    graph = json.loads(from_csv["ids"])
    labels = [item["text"] for item in _items(graph, "text") if str(item.get("text", "")).startswith("1234")]
    assert sorted(labels) == [str(12345678901234567 + i) for i in range(4)]
    assert sum(1 for _ in _items(graph, "rect")) >= 4


def _items(node, mark_type):
    if isinstance(node, dict):
        if node.get("marktype") == mark_type:
            yield from node.get("items", [])
        for value in node.values():
            yield from _items(value, mark_type)
    elif isinstance(node, list):
        for value in node:
            yield from _items(value, mark_type)


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow-table", "polars-lazy", "duckdb-file"])
def test_column_types_follow_the_file_rules(files, kind):
    folder, table = files
    frame = KINDS[kind](table, folder / "runs.parquet")
    rows = sources.EngineTable(*_registered(frame))
    assert rows.kinds == {"step": "number", "loss": "number", "run": "text", "ts": "date", "id": "number"}
    assert rows["id"][:4] == [12345678901234567 + i for i in range(4)]  # exact, not rounded to a double
    utc = table.column("ts").cast(pa.timestamp("us", tz="UTC")).to_pylist()
    assert rows["ts"][:3] == [stamp.replace(tzinfo=None) for stamp in utc[:3]]  # the UTC wall clock


def _registered(frame):
    from chartc.stages.data.engine import connect

    connection = connect()
    return connection, sources.register_frame(connection, frame)


def test_a_frame_and_its_file_have_the_same_provenance_hash_whatever_the_kind(files):
    folder, table = files
    hashes = {kind: chartc.from_spec(CHARTS["histogram"], data=KINDS[kind](table, folder / "runs.parquet"))
              .vega_lite["usermeta"]["chartc"]["data_hash"] for kind in ("arrow-table", "polars", "duckdb-file")}
    assert len(set(hashes.values())) == 1, hashes
    changed = table.set_column(1, "loss", pa.array([1.0] * ROWS))
    other = chartc.from_spec(CHARTS["histogram"], data=changed).vega_lite["usermeta"]["chartc"]["data_hash"]
    assert other != hashes["arrow-table"]


# ------------------------------------------------------------------ no row copied into Python

def test_no_row_of_a_large_table_is_materialised_in_python(monkeypatch):
    """A histogram, a bar of means and a linear fit over 200,000 rows: the paths that turn rows into
    Python objects are patched to fail (but for a group's first row), and the charts still compile."""
    def refuse(*args, **kwargs):
        raise AssertionError("rows were materialised in Python")

    monkeypatch.setattr(sources, "materialise", refuse)
    monkeypatch.setattr(sources.EngineTable, "__getitem__", refuse)
    take = sources.EngineTable.take  # the few rows an aggregate draws (each group's first) may come out; no more
    monkeypatch.setattr(sources.EngineTable, "take",
                        lambda self, rows: refuse() if len(rows) > 100 else take(self, rows))
    monkeypatch.setattr(sources.EngineTable, "records", refuse)
    monkeypatch.setattr(sources.EngineTable, "columns", property(refuse))
    rng = np.random.default_rng(3)
    n = 200_000
    x = rng.normal(size=n)
    table = pa.table({"x": x, "y": 2 * x + rng.normal(size=n), "g": pa.array(np.array(list("abcd"))[
        rng.integers(0, 4, n)]).dictionary_encode()})
    histogram = chartc.from_spec(CHARTS["histogram"] | {"encoding": {"x": {"field": "x", "bin": True},
                                                                      "y": {"aggregate": "count"}}}, data=table)
    (bins,) = histogram.vega_lite["datasets"].values()
    assert sum(row["Count of Records"] for row in bins) == n
    means = chartc.from_spec({"mark": "bar", "encoding": {"x": "g", "y": {"field": "y", "aggregate": "mean"}}},
                             data=pl.from_arrow(table).lazy())
    (groups,) = means.vega_lite["datasets"].values()
    expected = pd.DataFrame({"g": np.asarray(table.column("g").cast(pa.string())), "y": table.column("y")}).groupby(
        "g")["y"].mean()
    assert {row["g"]: row["Mean of y"] for row in groups} == pytest.approx(expected.to_dict(), rel=1e-12)
    (fit,) = chartc.from_spec({"encoding": {"x": "x", "y": "y"}, "layers": [{"trend": {"method": "linear"}}]},
                              data=table).fits
    slope, intercept = np.polyfit(x, table.column("y").to_numpy(), 1)
    assert fit.n == n
    assert fit.coefficients["slope"] == pytest.approx(slope, rel=1e-9)
    assert fit.coefficients["intercept"] == pytest.approx(intercept, rel=1e-9, abs=1e-12)


MEMORY_PROBE = """
import resource, sys
import numpy as np, pyarrow as pa, polars as pl
import chartc

kind, n = sys.argv[1], 10**7
spec = {"mark": "bar", "encoding": {"x": {"field": "x", "bin": True}, "y": {"aggregate": "count"}}}
rng = np.random.default_rng(1)
table = pa.table({name: rng.normal(size=n) for name in "xyzuvw"})
chartc.from_spec(spec, data=table.slice(0, 10))  # imports and the engine's start, outside the figure
frame = {"arrow": table, "polars": pl.from_arrow(table)}[kind]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
chart = chartc.from_spec(spec, data=frame)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
(bins,) = chart.vega_lite["datasets"].values()
print(grown * 1024, table.nbytes, int(sum(row["Count of Records"] for row in bins)))
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["arrow", "polars"])
def test_a_ten_million_row_table_is_drawn_without_a_copy_of_it(kind):
    """Peak memory grows by far less than the table: a copy (Arrow) would double it, Python objects
    take ~8x its size; what grows is the engine's query over the one column drawn."""
    out = subprocess.run([sys.executable, "-c", MEMORY_PROBE, kind], capture_output=True, text=True, cwd=ROOT,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    grown, size, counted = map(int, out.stdout.split())
    print(f"{kind}: peak RSS grew {grown >> 20} MB for a table of {size >> 20} MB")
    assert counted == 10**7
    assert grown < size / 2, (grown, size)


# ------------------------------------------------------------------ what cannot be read

@pytest.mark.parametrize("value, type_name", [
    ([{"a": 1}], "list"),
    (np.zeros((2, 2)), "ndarray"),
    (42, "int"),
    ("runs.csv", "str"),
])
def test_an_object_that_is_no_table_names_its_type_and_what_is_accepted(value, type_name):
    with pytest.raises(SpecError) as raised:
        chartc.from_spec("data: {frame: runs}\nmark: point\nencoding: {x: a, y: b}\n", data={"runs": value})
    assert raised.value.message == msg.table_type("runs", type_name)
    assert raised.value.code == "E828"
    assert raised.value.hint == msg.table_type_hint()
    assert raised.value.location == Location("<spec>", 1, 15)
    for kind in ("pandas DataFrame", "LazyFrame", "Dataset", "RecordBatchReader", "DuckDB relation", "Ibis"):
        assert kind in raised.value.hint


def test_a_stream_already_read_is_its_own_diagnostic():
    reader = pa.table({"a": [1, 2]}).to_reader()
    (rows,) = chartc.from_spec("mark: point\nencoding: {x: a, y: a}\n", data=reader).vega_lite["datasets"].values()
    assert rows == [{"a": 1}, {"a": 2}]
    with pytest.raises(SpecError) as raised:  # a second chart of the same reader
        chartc.from_spec("mark: point\nencoding: {x: a, y: a}\n", data=reader)
    assert raised.value.message == msg.table_stream_read("RecordBatchReader")
    assert raised.value.code == "E485"
    assert raised.value.hint == msg.table_stream_read_hint()
    assert raised.value.path == ("data", "frame")


def test_a_lazy_query_that_fails_says_which_and_why(tmp_path):
    missing = tmp_path / "missing.parquet"
    with pytest.raises(SpecError) as raised:
        chartc.from_spec("data: {frame: runs}\nmark: point\nencoding: {x: a, y: a}\n",
                         data={"runs": pl.scan_parquet(missing)})
    assert raised.value.code == "E486"
    assert raised.value.message.startswith(msg.table_plan_failed("LazyFrame", ""))
    assert "missing.parquet" in raised.value.message
    assert raised.value.location == Location("<spec>", 1, 15)


@pytest.mark.parametrize("kind", ["polars-lazy", "arrow-dataset", "duckdb-file"])
def test_an_unknown_column_of_a_lazy_table_lists_its_columns_at_the_field(files, kind):
    folder, table = files
    with pytest.raises(SpecError) as raised:
        chartc.from_spec("mark: point\nencoding:\n  x: step\n  y: los\n",
                         data=KINDS[kind](table, folder / "runs.parquet"))
    assert raised.value.code == "E451"
    assert raised.value.message == msg.field_not_found("los", table.column_names)
    assert raised.value.location == Location("<spec>", 4, 6)
    assert msg.available_columns(table.column_names) in raised.value.hint
