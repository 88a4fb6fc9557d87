"""The same chart on Apache Spark: every gallery spec and the big-data charts draw the same Vega-Lite bytes.

The data stage writes its queries once, in DuckDB's dialect; on Spark they are transpiled by sqlglot
and run by a local Spark (`local[2]`). Nothing is rounded: each number Spark computes must be the one
DuckDB computes, bit for bit, or the bytes differ. Each compile on Spark must also have run every query
there (none refused and explained another way: `spark.STATISTICS`).

Those that use the `spark` fixture are marked `spark` (conftest): they start a JVM (Debian's JDK 17, installed by scripts/setup-test-env) and pyspark
(in the test extra); `pytest -m "not spark"` skips them.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import chartc
from chartc.errors import SpecError
from chartc.infra.table import sample_key_sql
from chartc.stages.data import sources
from chartc.stages.data import spark as spark_engine
from chartc.stages.data.sources import EngineTable
from conftest import ROOT, example_specs, label



@pytest.fixture(scope="module")
def spark(spark_session):
    """chartc's local Spark: the tests' session (conftest), which chartc's `getOrCreate` finds running."""
    from chartc.stages.data.engine import SparkSettings

    assert spark_engine.spark_session(SparkSettings()).sparkContext is spark_session.sparkContext
    return spark_session


def both_engines(compile_on) -> tuple[str, str]:
    """The Vega-Lite text a compile gives on DuckDB, then on Spark (which must refuse no query)."""
    duckdb_text = compile_on("duckdb").to_json()
    before = (spark_engine.STATISTICS["queries"], len(spark_engine.STATISTICS["refused"]))
    spark_text = compile_on("spark").to_json()
    refused = spark_engine.STATISTICS["refused"][before[1]:]
    assert not refused, f"Spark refused queries: {refused}"
    return duckdb_text, spark_text


# The gallery's specs, and the charts ported from public galleries (tests/corpus, tests/corpus2).
PORTED = sorted((ROOT / "tests" / "corpus").glob("*.yaml")) + sorted((ROOT / "tests" / "corpus2").glob("*.yaml"))


@pytest.mark.parametrize("spec", example_specs() + PORTED, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_gallery_spec_draws_the_same_bytes_on_spark(spark, spec):
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text


# The benchmark's charts (benchmarks/bench_bigdata_peers.py), on generated runs of a training sweep.
BIG_SPECS = {
    "histogram": "mark: bar\nencoding:\n  x: {field: loss, bin: {maxbins: 40}}\n  y: {aggregate: count}\n",
    "heatmap": "mark: rect\nencoding:\n  x: {field: step, bin: {maxbins: 50}}\n  y: {field: loss, bin: {maxbins: 50}}\n"
               "  color: {aggregate: count}\n",
    "line": "width: 300\nmark: line\nencoding:\n  x: step\n  y: loss\n  color: {field: run, type: nominal}\n",
    "fit": "encoding:\n  x: step\n  y: loss\n  color: {field: run, type: nominal}\n"
           "layers:\n  - trend: {method: linear, band: 0.95, by: run}\n",
}
# A histogram of the loss: its rows stay in the engine, 30 bins come back.
LOSS_HISTOGRAM = "mark: bar\nencoding:\n  x: {field: loss, bin: {maxbins: 30}}\n  y: {aggregate: count}\n"
ROWS = 240_000  # past what the line's 600 pixel columns keep (M4 reduces it), and CSV past the engine's 4 MB


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """A sweep's logs as Parquet and CSV: 4 runs of 60,000 steps each, a loss curve with noise (and ties), and
    a positive weight per row."""
    import duckdb

    folder = tmp_path_factory.mktemp("runs")
    connection = duckdb.connect()
    connection.execute(f"""
        CREATE TABLE runs AS SELECT i % 60000 AS step, 'run-' || (i // 60000) AS run,
               round(2.0 / (1 + (i % 60000) / 500.0) + 0.1 * (i // 60000) + 0.05 * sin(i * 7.3), 6) AS loss,
               0.5 + (i % 7) / 4.0 AS weight
        FROM range({ROWS}) t(i)""")
    connection.execute(f"COPY runs TO '{folder / 'runs.parquet'}' (FORMAT parquet)")
    connection.execute(f"COPY runs TO '{folder / 'runs.csv'}' (FORMAT csv, HEADER)")
    connection.close()
    return folder


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
@pytest.mark.parametrize("chart", BIG_SPECS)
def test_big_data_charts_draw_the_same_bytes_on_spark(spark, runs, chart, suffix):
    spec = runs / f"{chart}_{suffix}.yaml"
    spec.write_text(f"data: {{path: runs.{suffix}}}\n" + BIG_SPECS[chart], encoding="utf-8")
    assert (runs / f"runs.{suffix}").stat().st_size > 4_000_000 or suffix == "parquet"
    staged = []
    original = spark_engine.SparkConnection.staging_file
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spark_engine.SparkConnection, "staging_file",
                      lambda connection: staged.append(original(connection)) or staged[-1])
        duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text
    assert len(staged) == (suffix == "csv")  # a local Spark scans the rows DuckDB typed, as a Parquet file
    if chart == "line":  # reduced by M4 in the engine: far fewer rows drawn than read
        drawn = sum(len(rows) for rows in json.loads(duckdb_text)["datasets"].values())
        assert drawn < ROWS / 10


# Least-squares fits summed over rows left in the engine by the centred query (a polynomial; weights).
ENGINE_FITS = {"poly": "trend: {method: poly, order: 3, band: 0.95, by: run}",
               "weighted": "trend: {method: linear, weight: weight, band: 0.95, by: run}"}


@pytest.mark.parametrize("fit", ENGINE_FITS)
def test_every_least_squares_fit_over_engine_rows_is_the_same_bytes_on_spark(spark, runs, fit):
    spec = runs / f"engine_fit_{fit}.yaml"
    spec.write_text("data: {path: runs.parquet}\nencoding:\n  x: step\n  y: loss\n  color: {field: run, type: nominal}"
                    f"\nlayers:\n  - {ENGINE_FITS[fit]}\n", encoding="utf-8")
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text


@pytest.mark.parametrize("method", ["linear", "quad"])
def test_a_faceted_fit_over_engine_rows_is_summed_on_spark_as_on_duckdb(spark, runs, method, monkeypatch):
    """Each panel's and run's sums in one query, the part a struct of the panel and the group: no column of
    every row comes back to Python, and the bytes are DuckDB's."""
    spec = runs / f"faceted_{method}.yaml"
    spec.write_text("data: {path: runs.parquet}\nencoding:\n  x: step\n  y: loss\n  color: {field: run, type: nominal}"
                    f"\nfacet:\n  column: {{field: weight}}\nlayers:\n  - trend: {{method: {method}, band: 0.95, by: run}}\n",
                    encoding="utf-8")
    monkeypatch.setattr(EngineTable, "__getitem__", lambda table, name: pytest.fail(f"fetched all of {name}"))
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text
    assert len(chartc.load(spec, full=False).fits) == 7 * 4  # 7 weights, each with every run


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_a_fit_after_filters_is_summed_on_spark_over_the_rows_they_keep(spark, runs, suffix, monkeypatch):
    """The filters' query is a view on either engine (`EngineTable.derived`): no column of every row is fetched,
    and the bytes are DuckDB's."""
    spec = runs / f"filtered_fit_{suffix}.yaml"
    spec.write_text(f"data: {{path: runs.{suffix}}}\ntransform:\n  - filter: \"datum.step >= 1000 && datum.loss < 2\"\n"
                    "  - filter: {field: run, oneOf: [run-0, run-2, run-3]}\n" + BIG_SPECS["fit"], encoding="utf-8")
    monkeypatch.setattr(EngineTable, "__getitem__", lambda table, name: pytest.fail(f"fetched all of {name}"))
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text
    assert [fit.group for fit in chartc.load(spec, full=False).fits] == ["run-0", "run-2", "run-3"]


@pytest.mark.parametrize("chart", ["histogram", "heatmap", "line"])
def test_a_chart_after_filters_is_computed_on_spark_over_the_rows_they_keep(spark, runs, chart, monkeypatch):
    """The filters' rows stay in the engine (`EngineTable.derived`): the histogram, heatmap and M4 line over them
    are DuckDB's bytes, and no column of every row is fetched."""
    spec = runs / f"filtered_{chart}.yaml"
    spec.write_text("data: {path: runs.parquet}\ntransform:\n  - filter: \"datum.step >= 1000 && datum.loss < 2\"\n"
                    + BIG_SPECS[chart], encoding="utf-8")
    monkeypatch.setattr(EngineTable, "__getitem__", lambda table, name: pytest.fail(f"fetched all of {name}"))
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text


@pytest.mark.parametrize("method", ["linear", "loess"])
def test_a_fit_after_filters_reads_the_kept_rows_in_their_order_on_spark(spark, runs, method):
    """80,000 kept rows: their columns are read (a line summed in memory, a smoother), each in the rows' order,
    which Spark does not keep unless asked."""
    spec = runs / f"kept_{method}.yaml"
    spec.write_text("data: {path: runs.parquet}\ntransform:\n  - filter: \"datum.step < 20000\"\n"
                    + BIG_SPECS["fit"].replace("linear, band: 0.95", method), encoding="utf-8")
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text


def test_a_fit_over_dates_is_summed_on_spark_as_on_duckdb(spark, tmp_path, monkeypatch):
    """A temporal x is each date's milliseconds since 1970 from its whole microseconds, on either engine."""
    import duckdb

    duckdb.sql(f"COPY (SELECT TIMESTAMP '1969-12-31 23:00:00' + to_microseconds(i * 1000003 + i % 7) AS time, "
               f"'run-' || (i % 4) AS run, 3.0 - 1e-6 * i + 0.05 * sin(i * 12.9898) AS loss FROM range({ROWS}) t(i)) "
               f"TO '{tmp_path / 'times.parquet'}' (FORMAT parquet)")
    spec = tmp_path / "time_fit.yaml"
    spec.write_text("data: {path: times.parquet}\nencoding:\n  x: {field: time, type: temporal}\n  y: loss\n"
                    "  color: {field: run, type: nominal}\nlayers:\n  - trend: {method: quad, band: 0.95, by: run}\n",
                    encoding="utf-8")
    monkeypatch.setattr(EngineTable, "__getitem__", lambda table, name: pytest.fail(f"fetched all of {name}"))
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text


TIME_CHARTS = {
    "fit": "encoding:\n  x: {field: time, type: temporal}\n  y: loss\n  color: {field: run, type: nominal}\n"
           "layers:\n  - trend: {method: linear, band: 0.95, by: run}\n",
    "points": "  - filter: \"datum.step < 200\"\nmark: point\nencoding:\n  x: {field: time, type: temporal}\n  y: loss\n"
              "  tooltip: [time, run]\n",
    "bars by hour": "mark: bar\nencoding:\n  x: {field: time, timeUnit: yearmonthdatehours}\n"
                    "  y: {field: loss, aggregate: mean}\n  color: {field: run, type: nominal}\n",
    "hours by day": "mark: rect\nencoding:\n  x: {field: time, timeUnit: utchoursminutes, type: ordinal}\n"
                    "  y: {field: time, timeUnit: yearmonthdate, type: ordinal}\n  color: {aggregate: count}\n",
    "weekdays by hour": "mark: rect\nencoding:\n  x: {field: time, timeUnit: hours, type: ordinal}\n"
                        "  y: {field: time, timeUnit: day, type: ordinal}\n  color: {field: loss, aggregate: max}\n",
    "weeks by weekday": "mark: rect\nencoding:\n  x: {field: time, timeUnit: week, type: ordinal}\n"
                        "  y: {field: time, timeUnit: day, type: ordinal}\n  color: {aggregate: count}\n",
    "weekdays by month": "mark: rect\nencoding:\n  x: {field: time, timeUnit: yearmonth, type: ordinal}\n"
                         "  y: {field: time, timeUnit: day, type: ordinal}\n  color: {aggregate: count}\n",
    "days of the year": "mark: bar\nencoding:\n  x: {field: time, timeUnit: dayofyear, type: ordinal}\n"
                        "  y: {aggregate: count}\n  color: {field: run, type: nominal}\n",
    "weekdays by date": "mark: rect\nencoding:\n  x: {field: time, timeUnit: date, type: ordinal}\n"
                        "  y: {field: time, timeUnit: day, type: ordinal}\n  color: {aggregate: count}\n",
    "milliseconds": "mark: bar\nencoding:\n  x: {field: time, timeUnit: milliseconds}\n  y: {aggregate: count}\n"
                    "  color: {field: run, type: nominal}\n",
}


@pytest.mark.parametrize("chart", TIME_CHARTS)
def test_rows_with_a_timestamp_column_stay_on_spark(spark, tmp_path, chart, monkeypatch):
    """A timestamp column's JavaScript text (ISO, whole seconds) computed by Spark as by DuckDB, the dates
    themselves kept beside it: a fit after a filter, the points a filter keeps, and bars and cells grouped by
    time units (each date floored by Spark) are DuckDB's bytes."""
    import duckdb

    duckdb.sql(f"COPY (SELECT TIMESTAMP '0999-12-31 23:59:50' + to_microseconds(i * 1000003 + i % 7) AS time, "
               f"'run-' || (i % 4) AS run, i // 4 AS step, 3.0 - 1e-6 * i + 0.05 * sin(i * 12.9898) AS loss "
               f"FROM range({ROWS}) t(i)) TO '{tmp_path / 'times.parquet'}' (FORMAT parquet)")
    spec = tmp_path / "time.yaml"
    spec.write_text("data: {path: times.parquet}\ntransform:\n  - filter: \"datum.step % 2 == 1\"\n" + TIME_CHARTS[chart],
                    encoding="utf-8")
    if chart != "points":
        monkeypatch.setattr(EngineTable, "__getitem__", lambda table, name: pytest.fail(f"fetched all of {name}"))
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text
    rows = [row for rows in json.loads(duckdb_text)["datasets"].values() for row in rows]
    if chart == "points":  # years before 1000 written with four digits, as Python writes them
        assert len(rows) == 400 and rows[0]["time"] == "0999-12-31T23:59:54"
    if chart == "weekdays by hour":  # before 1970: the weekday counted back from a Thursday; 999-12-31 a Tuesday
        assert rows[0]["time"] == "2012-01-03T23:00:00"
    if chart == "weeks by weekday":  # 999's week 52 (in 2012's), then 1000's week 0 (in 2018's: 2012 has none)
        assert [row["time"] for row in rows] == ["2012-12-25T00:00:00", "2018-01-03T00:00:00", "2018-01-04T00:00:00",
                                                 "2018-01-05T00:00:00"]
    if chart == "weekdays by month":  # each weekday's first in its month: 999-12-31 a Tuesday, 1000-01-01 a Wednesday
        assert [row["time"] for row in rows] == ["0999-12-03T00:00:00", "1000-01-01T00:00:00", "1000-01-02T00:00:00",
                                                 "1000-01-03T00:00:00"]
    if chart == "weekdays by date":  # no built date holds both: each pair's first row, as Python reads the rows
        import datetime

        start, days = datetime.datetime(999, 12, 31, 23, 59, 50), {}
        for i in range(ROWS):
            if (i // 4) % 2 == 1:
                time = start + datetime.timedelta(microseconds=i * 1000003 + i % 7)
                days.setdefault(time.date(), [time.replace(microsecond=0).isoformat(), 0])[1] += 1
        assert [[row["time"], row["Count of Records"]] for row in rows] == list(days.values())
        assert rows[0]["time"] == "0999-12-31T23:59:54" and len(rows) == 4
    if chart == "milliseconds":  # Vega groups Dates by their text (whole seconds): one group per run
        assert len(rows) == 4
    if chart == "bars by hour":  # each run's hours, from 23:00 on the last day of 999, as Python floors them
        import datetime

        start = datetime.datetime(999, 12, 31, 23, 59, 50)
        hours = {(f"run-{i % 4}", (start + datetime.timedelta(microseconds=i * 1000003 + i % 7)).replace(
            minute=0, second=0, microsecond=0).isoformat()) for i in range(ROWS) if (i // 4) % 2 == 1}
        assert {(row["run"], row["time"]) for row in rows} == hours and len(rows) == len(hours)
        assert (rows[0]["time"], rows[4]["time"]) == ("0999-12-31T23:00:00", "1000-01-01T00:00:00")


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_a_fit_on_spark_is_the_same_numbers_as_on_duckdb_and_numpys_line(spark, runs, suffix):
    """The sums are fixed point in either engine (`trends.exactsum`): the same bits, whatever order Spark's
    tasks add them in, and the line numpy fits to the same rows."""
    import duckdb

    spec = runs / f"fit_{suffix}.yaml"
    spec.write_text(f"data: {{path: runs.{suffix}}}\n" + BIG_SPECS["fit"], encoding="utf-8")
    on_duckdb, on_spark = (chartc.load(spec, full=False, engine=engine).fits for engine in ("duckdb", "spark"))
    assert [fit.group for fit in on_spark] == [fit.group for fit in on_duckdb] == [f"run-{i}" for i in range(4)]
    rows = duckdb.connect().execute(f"SELECT run, step, loss FROM '{runs / 'runs.parquet'}'").fetchnumpy()
    for ours, theirs in zip(on_duckdb, on_spark):
        assert (theirs.coefficients, theirs.r2, theirs.n) == (ours.coefficients, ours.r2, ours.n)
        mine = rows["run"] == ours.group
        slope, intercept = np.polyfit(rows["step"][mine].astype(float), rows["loss"][mine], 1)
        assert (ours.coefficients["slope"], ours.coefficients["intercept"]) == pytest.approx((slope, intercept),
                                                                                             rel=1e-10)


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_a_sample_on_spark_draws_the_rows_duckdb_draws_and_fetches_only_them(spark, runs, suffix, monkeypatch):
    spec = runs / f"sample_{suffix}.yaml"
    spec.write_text(f"data: {{path: runs.{suffix}, sample: 3000}}\nmark: point\nencoding: {{x: step, y: loss}}\n",
                    encoding="utf-8")
    duckdb_text = json.dumps(chartc.load(spec, full=False, engine="duckdb").vega_lite, sort_keys=True)
    # No column of every row comes back to Python: the engine orders the keys and keeps 3,000 row numbers.
    monkeypatch.setattr(EngineTable, "__getitem__", lambda table, name: pytest.fail(f"fetched all of {name}"))
    spark_text = json.dumps(chartc.load(spec, full=False, engine="spark").vega_lite, sort_keys=True)
    assert spark_text == duckdb_text
    assert len(json.loads(spark_text)["datasets"][json.loads(spark_text)["data"]["name"]]) == 3000


def test_spark_computes_the_sample_keys_duckdb_does(spark):
    """Spark's `^` binds less tightly than `*`: the keys' text must say its parentheses (DuckDB's keys are
    Python's: tests/test_sample.py)."""
    import duckdb

    from chartc.stages.data import engine
    from chartc.stages.data.engine import SparkSettings, use_engine

    rows = {"n": np.array([0, 1, 2, 3, 2 ** 31 - 1, 2 ** 31, 10 ** 11 + 7], dtype=np.int64)}
    query = f"SELECT r, k FROM ({sample_key_sql('sample_rows', 'n')}) ORDER BY r"
    expected = duckdb.connect()
    expected.register("sample_rows", rows)
    with use_engine(SparkSettings()):
        connection = engine.connect()
        connection.register("sample_rows", rows)
        assert connection.execute(query).fetchall() == expected.execute(query).fetchall()


def test_a_smoother_past_its_limit_is_refused_on_spark_before_a_row_is_fetched(spark, runs, monkeypatch):
    from chartc import errors
    from chartc.trends.methods.loess import Loess

    monkeypatch.setattr(Loess, "max_rows", 50_000)
    spec = runs / "loess.yaml"
    spec.write_text("data: {path: runs.parquet}\nencoding:\n  x: step\n  y: loss\n  color: {field: run, type: nominal}"
                    "\nlayers:\n  - trend: {method: loess, by: run}\n", encoding="utf-8")
    monkeypatch.setattr(EngineTable, "__getitem__", lambda table, name: pytest.fail(f"fetched all of {name}"))
    for engine in ("duckdb", "spark"):
        with pytest.raises(SpecError) as raised:
            chartc.load(spec, full=False, engine=engine)
        assert raised.value.errors[0].message == errors.trend_in_group(
            "run", "run-0", errors.trend_too_many_rows("loess", ROWS // 4, 50_000))


@pytest.mark.parametrize("drawn, why", [
    ("transform:\n  - calculate: \"datum.step % 2 ? [datum.step] : 'none'\"\n    as: listed\n"
     "mark: bar\nencoding:\n  x: {field: run, type: nominal}\n  y: {aggregate: count}\n",
     ("its values are ones only Python holds: an array or another object beside other kinds, a date past the year "
      "9999, Dates as an impute's keys or groups")),
    ("transform:\n  - calculate: \"datetime(2024, 0, 1 + datum.step % 3)\"\n    as: day\n"
     "  - pivot: day\n    value: loss\n    groupby: [run]\nmark: bar\nencoding:\n  x: {field: run}\n"
     "  y: {aggregate: count}\n",
     "the engine does not compute a pivot on objects (equal only to themselves) as Vega does"),
], ids=["an array beside text", "a pivot on dates"])
def test_a_layer_read_whole_past_the_bound_is_refused_on_spark_as_on_duckdb(spark, runs, monkeypatch, drawn, why):
    """A layer whose rows the engine cannot keep is refused past `MAX_PULLED_ROWS` (lowered here) at its step,
    with DuckDB's message, having brought no row to the driver (the rows are counted where they are)."""
    from chartc import errors

    monkeypatch.setattr(sources, "MAX_PULLED_ROWS", 5_000)
    spec = runs / "read_whole.yaml"
    spec.write_text("data: {path: runs.parquet}\n" + drawn, encoding="utf-8")
    messages = []
    for engine in ("duckdb", "spark"):
        with counted_fetches() as fetched, pytest.raises(SpecError) as raised:
            chartc.load(spec, full=False, engine=engine)
        error, = raised.value.errors
        messages.append((error.code, error.message, error.location.line, error.location.column))
        assert max(fetched, default=0) == 0  # (counted where the rows are: none read)
    assert messages[0] == messages[1] == ("E416", errors.rows_pulled_past_limit(ROWS, 5_000, why),
                                          *((3, 5) if "pivot" not in drawn else (5, 5)))


def test_project_file_chooses_spark_and_the_command_line_wins(spark, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()  # the project file is looked for up to the work tree's root
    shutil.copy(ROOT / "specs" / "cars_histogram.yaml", project / "chart.yaml")
    (project / "chartc.toml").write_text('engine = "spark"\n[spark]\nmaster = "local[2]"\n', encoding="utf-8")
    before = spark_engine.STATISTICS["queries"]
    on_spark = chartc.load(project / "chart.yaml", full=False).to_json()
    assert spark_engine.STATISTICS["queries"] > before  # the project's engine ran the queries
    before = spark_engine.STATISTICS["queries"]
    on_duckdb = chartc.load(project / "chart.yaml", full=False, engine="duckdb").to_json()
    assert spark_engine.STATISTICS["queries"] == before  # --engine duckdb: none went to Spark
    assert on_spark == on_duckdb


def test_command_line_engine_writes_the_same_file(spark, tmp_path):
    spec = ROOT / "specs" / "barley_pivot.yaml"
    outputs = {}
    for engine in ("duckdb", "spark"):
        out = tmp_path / f"{engine}.vl.json"
        done = subprocess.run([sys.executable, "-m", "chartc", "compile", str(spec), "-o", str(out),
                               "--engine", engine], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""  # no JVM notes, no pyspark warnings, no progress bars
        outputs[engine] = out.read_bytes()
    assert outputs["spark"] == outputs["duckdb"]


def test_a_large_csv_reaches_spark_as_a_parquet_file_removed_when_the_compile_ends(spark, runs, tmp_path):
    """The CLI's compile on Spark of a CSV past the engine's 4 MB: DuckDB types it and writes it as Parquet in a
    folder of its own, which is gone when the command ends, and the file written is DuckDB's bytes."""
    spec = runs / "fit_csv_cli.yaml"
    spec.write_text("data: {path: runs.csv}\n" + BIG_SPECS["fit"], encoding="utf-8")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    outputs = {}
    for engine in ("duckdb", "spark"):
        out = tmp_path / f"{engine}.vl.json"
        done = subprocess.run([sys.executable, "-m", "chartc", "compile", str(spec), "-o", str(out), "--engine",
                               engine], capture_output=True, text=True, timeout=600,
                              env={**os.environ, "TMPDIR": str(temporary)})
        assert done.returncode == 0, done.stderr
        outputs[engine] = out.read_bytes()
    assert outputs["spark"] == outputs["duckdb"]
    assert not list(temporary.glob("chartc-rows-*"))


@pytest.mark.slow
def test_an_unreachable_master_is_a_diagnostic_on_the_project_file_line(spark, tmp_path):
    (tmp_path / ".git").mkdir()
    shutil.copy(ROOT / "specs" / "cars_histogram.yaml", tmp_path / "chart.yaml")
    (tmp_path / "chartc.toml").write_text('engine = "spark"\n\n[spark]\nmaster = "spark://127.0.0.1:9"\n',
                                          encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "chartc", "compile", "chart.yaml", "-o", "x.vl.json"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 1
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'chartc.toml'}:4:1: {label(chartc.errors.engine_unavailable('', ''))}: ")
    assert "Spark could not start at spark://127.0.0.1:9" in first
    assert "\tat " not in done.stderr and "Traceback" not in done.stderr  # no Java or Python stack
    assert not (tmp_path / "x.vl.json").exists()


def test_a_failure_of_spark_connect_while_rows_are_sent_is_its_reason_at_the_data(spark, runs, monkeypatch):
    """On Spark Connect a view's creation sends its rows, and the server may fail there ("Java heap space"): a
    gRPC error, whose own text is "<_InactiveRpcError of RPC that terminated with: ...". Before, it escaped the
    engine's refusal (a 158 MB CSV on a 1 GiB server said the file was damaged); now it is E496 with the
    details the server gave. The failure here is a real gRPC call to a port nobody listens on."""
    import grpc
    from pyspark.sql.classic.dataframe import DataFrame  # a local Spark's; Connect's fails in its own

    with grpc.insecure_channel("127.0.0.1:9") as channel:
        with pytest.raises(grpc.RpcError) as failed:
            channel.unary_unary("/spark.connect.SparkConnectService/ExecutePlan")(b"", timeout=5)
    failure = failed.value
    assert str(failure).startswith("<_InactiveRpcError") and spark_engine.first_line(failure) == failure.details()

    def fail(frame, name):
        raise failure

    started = spark_engine.SparkConnection.__init__

    def elsewhere(connection, *args, **kwargs):  # a Spark that cannot read this machine's files: rows are sent
        started(connection, *args, **kwargs)
        connection.reads_local_files = False

    monkeypatch.setattr(spark_engine.SparkConnection, "__init__", elsewhere)
    monkeypatch.setattr(DataFrame, "createOrReplaceTempView", fail)
    spec = runs / "sent.yaml"
    spec.write_text("data: {path: runs.csv}\nmark: line\nencoding: {x: step, y: loss}\n", encoding="utf-8")
    with pytest.raises(SpecError) as raised:
        chartc.load(spec, full=False, engine="spark")
    error = raised.value.errors[0]
    assert (error.code, error.message) == ("E496", chartc.errors.engine_query_failed("spark", failure.details()))
    assert (error.location.line, error.location.column) == (1, 7) and "_InactiveRpcError" not in error.diagnostic()


@pytest.mark.parametrize("project, line, message, hint", [
    ('preset = "neurips-column"\nengine = "sprak"\n', 2,
     "unknown engine 'sprak'; chartc has 'duckdb' or 'spark'", "did you mean 'spark'?"),
    ('engine = "spark"\n[spark]\nmastr = "local[2]"\n', 3,
     "the project file cannot be used: unknown key 'mastr'", "did you mean 'master'?"),
], ids=["unknown engine", "misspelt Spark setting"])
def test_the_project_file_s_engine_settings_are_checked_on_their_line(tmp_path, project, line, message, hint):
    (tmp_path / ".git").mkdir()
    shutil.copy(ROOT / "specs" / "cars_histogram.yaml", tmp_path / "chart.yaml")
    (tmp_path / "chartc.toml").write_text(project, encoding="utf-8")
    with pytest.raises(SpecError) as raised:
        chartc.load(tmp_path / "chart.yaml", full=False)
    error = raised.value.errors[0]
    assert (str(error.message), error.location.line, error.hint) == (message, line, hint)


def test_a_missing_pyspark_is_a_diagnostic_at_the_data(tmp_path, monkeypatch):
    for module in ("pyspark", "pyspark.sql"):  # importing pyspark fails, as where it is not installed
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setattr(spark_engine, "_sessions", {})
    with pytest.raises(SpecError) as raised:
        chartc.load(ROOT / "specs" / "cars_histogram.yaml", full=False, engine="spark")
    error = raised.value.errors[0]
    assert str(error.message) == "the spark engine cannot run this chart's data: pyspark is not installed"
    text = (ROOT / "specs" / "cars_histogram.yaml").read_text(encoding="utf-8")
    assert error.location.line == text.count("\n", 0, text.index("data:")) + 1
    assert "pip install 'chartc[spark]'" in error.hint


def test_the_default_engine_never_imports_pyspark():
    code = ("import sys, chartc; chartc.load('specs/cars_histogram.yaml', full=False); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j', 'sqlglot')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, timeout=300)
    assert done.stdout.strip() == "[]", done.stderr


@pytest.mark.parametrize("case", ["nested column", "missing column", "far date"])
def test_spark_reports_a_file_s_problems_as_duckdb_does(spark, tmp_path, case):
    """A type no chart can hold (a list column), a field the file lacks and a timestamp past Python's years
    (20240): the same diagnostic, at the same spec node, on both engines (never Spark's analysis error, nor
    Python's "year 20240 is out of range")."""
    import duckdb

    columns = {"nested column": "i AS step, [i, i + 1] AS pair", "missing column": "i AS step, i * 0.5 AS loss",
               "far date": "i AS step, CASE WHEN i = 7 THEN TIMESTAMP '20240-01-05 00:00:00' "
                            "ELSE TIMESTAMP '2024-01-05' + to_days(CAST(i AS INTEGER)) END AS lost"}
    duckdb.sql(f"COPY (SELECT {columns[case]} FROM range(50) t(i)) TO '{tmp_path / 'runs.parquet'}' (FORMAT parquet)")
    spec = tmp_path / "chart.yaml"
    spec.write_text("data: {path: runs.parquet}\nmark: line\nencoding:\n  x: step\n  y: lost\n", encoding="utf-8")
    problems = {}
    for engine in ("duckdb", "spark"):
        with pytest.raises(SpecError) as raised:
            chartc.load(spec, full=False, engine=engine)
        problems[engine] = [error.diagnostic() for error in raised.value.errors]
    assert problems["spark"] == problems["duckdb"]
    expected = {"nested column": "lists, structs or maps", "missing column": "'lost'",
                "far date": "column 'lost' holds a date in the year 20240,"}[case]
    assert expected in problems["spark"][0]


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_rows_numbered_across_partitions_as_duckdb_numbers_them(spark, tmp_path, suffix):
    """A line over a file Spark splits into many partitions (the project file's Spark setting): each row's
    number is its index in the file, no window over every row, and M4 keeps the rows DuckDB keeps, ties
    settled by the same numbers. A large CSV reaches a local Spark as a Parquet file DuckDB writes, its rows
    numbered so too."""
    import duckdb

    (tmp_path / ".git").mkdir()
    rows = 60_000 if suffix == "parquet" else 400_000  # a CSV past the 4 MB the engine parses
    duckdb.sql(f"COPY (SELECT i % 5000 AS step, 'run-' || (i // 5000) AS run, round(sin(i / 300.0), 2) AS loss "
               f"FROM range({rows}) t(i)) TO '{tmp_path / f'runs.{suffix}'}' "
               f"({'FORMAT parquet, ROW_GROUP_SIZE 2048' if suffix == 'parquet' else 'FORMAT csv, HEADER'})")
    (tmp_path / "chartc.toml").write_text('[spark]\nconf = {"spark.sql.files.maxPartitionBytes" = "16384"}\n',
                                          encoding="utf-8")
    spec = tmp_path / "line.yaml"
    spec.write_text(f"width: 200\ndata: {{path: runs.{suffix}}}\nmark: line\n"
                    "encoding:\n  x: step\n  y: loss\n  color: {field: run, type: nominal}\n", encoding="utf-8")
    split = spark.newSession()
    split.conf.set("spark.sql.files.maxPartitionBytes", "16384")
    if suffix == "parquet":
        assert split.read.parquet(str(tmp_path / "runs.parquet")).rdd.getNumPartitions() > 4
    else:
        assert (tmp_path / "runs.csv").stat().st_size > 4_000_000
    with pytest.MonkeyPatch.context() as patch:  # one file (the CSV's typed rows too): its rows' index in it
        patch.setattr(sources, "_spark_row_number", lambda *_: pytest.fail("rows numbered by partition counts"))
        duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text


# Layers whose transforms compute values: their rows stay in the engine (`sql.kept_rows`) on either engine.
# (A window frame widened to its ends' peers: literal frames and the ends' peers read by lag and lead.)
COMPUTED = {
    "calculated fit": "transform:\n  - calculate: \"datum.loss * 100\"\n    as: pct\nencoding:\n  x: step\n  y: pct\n"
                      "  color: {field: run, type: nominal}\nlayers:\n  - trend: {method: linear, band: 0.95, by: run}\n",
    # JavaScript's subtraction of a group's max (undefined for a group without one) runs in Python functions:
    # the rows are computed once and held (a checkpoint on Spark), the values decoded from their text in SQL.
    "held fit": "transform:\n  - joinaggregate: [{op: max, field: loss, as: top}]\n    groupby: [run]\n"
                "  - calculate: \"datum.loss - datum.top\"\n    as: gap\nencoding:\n  x: step\n  y: gap\n"
                "  color: {field: run, type: nominal}\nlayers:\n  - trend: {method: quad, by: run}\n",
    "folded lines": "transform:\n  - calculate: \"datum.step / 1000\"\n    as: k\n  - fold: [loss, weight]\n"
                    "width: 300\nmark: line\nencoding:\n  x: step\n  y: value\n  color: {field: run, type: nominal}\n"
                    "  strokeDash: {field: key, type: nominal}\n",
    "looked-up fit": "transform:\n  - lookup: run\n    from:\n      data: {path: scales.csv}\n      key: run\n"
                     "      fields: [scale]\n  - calculate: \"datum.loss * datum.scale\"\n    as: scaled\n"
                     "encoding:\n  x: step\n  y: scaled\n  color: {field: run, type: nominal}\n"
                     "layers:\n  - trend: {method: linear, by: run}\n",
    "folded computed lines": "transform:\n  - calculate: \"datum.loss * 2\"\n    as: double\n  - fold: [loss, double]\n"
                             "width: 300\nmark: line\nencoding:\n  x: step\n  y: value\n"
                             "  color: {field: run, type: nominal}\n  strokeDash: {field: key, type: nominal}\n",
    "moving max histogram": "transform:\n  - window: [{op: max, field: loss, as: top}]\n    groupby: [run]\n"
                            "    sort: [{field: step}]\n    frame: [-20, 20]\n    ignorePeers: true\nmark: bar\n"
                            "encoding:\n  x: {field: top, bin: {maxbins: 30}}\n  y: {aggregate: count}\n",
    # 20 rows before to 5 after, each end widened to its peers (the 4 runs' rows of a step): before, a frame of
    # variable width, which Spark refused (the rows were read back into Python)
    "moving extremes over peers": "transform:\n  - window: [{op: max, field: loss, as: top}, {op: min, field: loss, "
                                  "as: low}, {op: count, as: seen}, {op: valid, field: loss, as: ok}, "
                                  "{op: first_value, field: loss, as: first}, {op: last_value, field: loss, as: last}, "
                                  "{op: nth_value, field: loss, param: 30, as: nth}]\n"
                                  "    sort: [{field: step}]\n    frame: [-20, 5]\n"
                                  "  - calculate: \"datum.top - datum.low + datum.first - datum.last + datum.seen * "
                                  "datum.ok + (datum.nth || 0)\"\n    as: spread\nmark: bar\n"
                                  "encoding:\n  x: {field: spread, bin: {maxbins: 30}}\n  y: {aggregate: count}\n",
    # Spark has no count(DISTINCT) over a window, nor a frame of variable width: before, the rows of a moving
    # distinct count (over any frame) and of a moving quantile over a frame widened to its ends' peers were
    # read back into Python
    "moving distinct and quantiles": "transform:\n  - window: [{op: distinct, field: loss, as: kinds}]\n"
                                     "    groupby: [run]\n    sort: [{field: step}]\n    frame: [-20, 20]\n"
                                     "    ignorePeers: true\n"
                                     "  - window: [{op: median, field: loss, as: mid}, {op: q1, field: loss, as: low}, "
                                     "{op: q3, field: loss, as: high}, {op: distinct, field: loss, as: seen}]\n"
                                     "    sort: [{field: step}]\n    frame: [-20, 5]\n"
                                     "  - calculate: \"datum.kinds + datum.mid + datum.high - datum.low + datum.seen\"\n"
                                     "    as: spread\nmark: bar\n"
                                     "encoding:\n  x: {field: spread, bin: {maxbins: 30}}\n  y: {aggregate: count}\n",
    # Vega's default frame, to the row and its peers (the 4 runs' rows of a step): a RANGE frame
    "running max and count": "transform:\n  - window: [{op: max, field: loss, as: top}, {op: count, as: seen}]\n"
                             "    sort: [{field: step, order: descending}]\nmark: bar\n"
                             "encoding:\n  x: {field: top, bin: {maxbins: 30}}\n  y: {field: seen, aggregate: max}\n",
    # dates a Python function makes (JavaScript's datetime), held as timestamps, grouped by a time unit
    "computed dates by minute": "transform:\n  - filter: \"datum.step < 2000\"\n"
                                "  - calculate: \"datetime(1969, 11, 31, 23, 30, datum.step)\"\n    as: at\nmark: bar\n"
                                "encoding:\n  x: {field: at, timeUnit: hoursminutes}\n"
                                "  y: {field: loss, aggregate: max}\n  color: {field: run, type: nominal}\n",
    # steps as milliseconds since 1970 (less 10^6 ms: before it, truncated toward zero), floored as dates
    "milliseconds by second": "transform:\n  - calculate: \"datum.step * 7.5 - 1e6\"\n    as: ms\nmark: rect\n"
                              "encoding:\n  x: {field: ms, timeUnit: seconds, type: ordinal}\n"
                              "  y: {field: ms, timeUnit: hoursminutes, type: ordinal}\n"
                              "  color: {field: loss, aggregate: mean}\n",
}


@pytest.mark.parametrize("chart", COMPUTED)
def test_a_chart_over_computed_rows_is_computed_on_spark_where_they_are(spark, runs, chart, monkeypatch):
    """A calculate, a fold, a window, a group's measure or a lookup: the layer's rows stay in the engine, what it draws is
    computed over them there (no column of every row is fetched), and the bytes are DuckDB's."""
    spec = runs / f"computed_{chart.replace(' ', '_')}.yaml"
    (runs / "scales.csv").write_text("run,scale\nrun-0,1.5\nrun-1,2\nrun-2,-1\nrun-3,0.5\n", encoding="utf-8")
    spec.write_text("data: {path: runs.parquet}\n" + COMPUTED[chart], encoding="utf-8")
    monkeypatch.setattr(EngineTable, "__getitem__", lambda table, name: pytest.fail(f"fetched all of {name}"))
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text


def test_distinct_counts_and_quantiles_over_frames_are_duckdb_s_on_spark(spark, tmp_path, monkeypatch):
    """Spark has no count(DISTINCT) over a window and takes no frame of variable width: a frame's values as a
    list. Sort ties, nulls, -0 beside 0, NaN and Infinity among the values; frames literal, widened to their
    ends' peers, unbounded on one side: each row's values are DuckDB's (and so Vega's:
    test_window), computed in SQL on either engine (Vega's window never runs in Python)."""
    import random

    from chartc.stages.data import window

    rng = random.Random(5)
    values = ["1", "2", "2", "3.5", "-1", "0", "-0.0", "", "0.1", "1e16"]
    (tmp_path / "cells.csv").write_text("g,k,n\n" + "".join(
        f"{'ab'[i % 2]},{rng.choice(['1', '2', '2', '3', ''])},{rng.choice(values)}\n" for i in range(60)),
        encoding="utf-8")
    monkeypatch.setattr(window, "window_partition", lambda *_: pytest.fail("Vega's window ran in Python"))
    ops = ("[{op: distinct, field: c, as: d}, {op: distinct, field: n, as: e}, {op: median, field: c, as: m}, "
           "{op: q1, field: n, as: l}, {op: q3, field: c, as: h}]")
    for frame, peers in (("[-2, 1]", "false"), ("[null, 2]", "false"), ("[-3, null]", "false"), ("[0, 0]", "false"),
                         ("[-2, 3]", "true")):
        spec = tmp_path / "cells.yaml"
        spec.write_text("data: {path: cells.csv}\ntransform:\n"
                        "  - calculate: \"datum.n === 2 ? NaN : datum.n === 3.5 ? 1 / 0 : datum.n\"\n    as: c\n"
                        f"  - window: {ops}\n    groupby: [g]\n    sort: [{{field: k}}]\n    frame: {frame}\n"
                        f"    ignorePeers: {peers}\nmark: point\nencoding:\n  x: k\n  y: n\n"
                        "  tooltip: [{field: d}, {field: e}, {field: m}, {field: l}, {field: h}]\n", encoding="utf-8")
        duckdb_text, spark_text = both_engines(lambda engine, spec=spec: chartc.load(spec, full=False, engine=engine))
        assert spark_text == duckdb_text, frame
        rows = [row for rows in json.loads(duckdb_text)["datasets"].values() for row in rows]
        assert len(rows) == 60 and len({row["e"] for row in rows}) > 2, frame


@contextlib.contextmanager
def counted_fetches():
    """The number of rows each fetch from rows left in the engine brings into Python, while the block runs."""
    fetch, fetched = EngineTable.fetch, []

    def counted(table, sql, names, parameters=None):
        cells = fetch(table, sql, names, parameters)
        fetched.append(len(next(iter(cells.values()), [])))
        return cells

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(EngineTable, "fetch", counted)
        yield fetched


def same_bytes_over_a_query(tmp_path, select: str, file: str, drawn: str, most: int = 0) -> str:
    """The Vega-Lite of a chart (`drawn`) over a DuckDB query's rows written as a Parquet file: Spark's is the
    same bytes, and neither engine fetches a whole column of more than `most` rows (those a layer draws)."""
    import duckdb

    duckdb.sql(f"COPY ({select}) TO '{tmp_path / file}' (FORMAT parquet)")
    spec = tmp_path / f"{file.split('.')[0]}.yaml"
    spec.write_text(f"data: {{path: {file}}}\n" + drawn, encoding="utf-8")
    whole = EngineTable.__getitem__
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(EngineTable, "__getitem__", lambda table, name: whole(table, name) if len(table) <= most
                      else pytest.fail(f"fetched all of {name}"))
        duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text
    return duckdb_text


def test_iso_date_text_is_parsed_on_spark_as_the_reader_parses_it(spark, tmp_path):
    """The check and parse that keep a column of ISO date text in the engine as dates, transpiled for Spark:
    the verdict and microsecond of Python's parse at the edges of days, years, offsets and fractions; and a
    chart over such a column is DuckDB's bytes, no cell of it fetched."""
    from chartc.stages.data.engine import SparkSettings
    from test_sources import ISO_EDGES, iso_dates_in_python, iso_dates_in_sql

    assert iso_dates_in_sql(spark_engine.connect_spark(SparkSettings()), ISO_EDGES) == iso_dates_in_python(ISO_EDGES)
    text = same_bytes_over_a_query(
        tmp_path, "SELECT strftime(TIMESTAMP '2024-03-01 08:00:00' + to_microseconds(i * 1234567), "
        "'%Y-%m-%dT%H:%M:%S.%f') || CASE WHEN i % 5 = 0 THEN '+01:30' ELSE '' END AS at, sin(i / 50.0) AS loss "
        "FROM range(20000) t(i)", "logs.parquet",
        "mark: bar\nencoding:\n  x: {field: at, timeUnit: yearmonthdatehours}\n  y: {field: loss, aggregate: mean}\n")
    assert len(json.loads(text)["datasets"]) == 1


def test_day_first_date_text_is_found_on_spark_as_the_check_finds_it(spark):
    """The temporal check's engine predicate, transpiled for Spark (Java's regular expressions): Python's answer."""
    from chartc.stages.check import day_first
    from chartc.stages.data.engine import SparkSettings
    from test_sources import DAY_FIRST_EDGES, day_first_in_sql

    found = day_first_in_sql(spark_engine.connect_spark(SparkSettings()), DAY_FIRST_EDGES)
    assert found == [day_first(text) for text in DAY_FIRST_EDGES]


def test_a_fold_of_a_float_column_and_an_integer_column_beside_a_gap_stays_on_spark(spark, tmp_path):
    """Both columns read as floats: the folded rows stay in the engine, binned there, DuckDB's bytes."""
    same_bytes_over_a_query(
        tmp_path, "SELECT i // 3 AS step, 2.0 + 0.2 * sin(i * 1e-4) AS loss, CASE WHEN i % 5000 = 7 THEN NULL "
        "ELSE i % 97 END AS seen FROM range(30000) t(i)", "counts.parquet",
        "transform:\n  - fold: [loss, seen]\nmark: bar\nencoding:\n  x: {field: value, bin: {maxbins: 30}}\n"
        "  y: {aggregate: count}\n  color: {field: key, type: nominal}\n")


@pytest.mark.parametrize("drawn", [
    "transform:\n  - filter: \"datum.step < 100\"\nmark: point\nencoding:\n  x: step\n  y: value\n  color: key\n"
    "  tooltip: [value]\n",
    "transform:\n  - filter: \"datum.step < 300\"\nmark: bar\nencoding:\n  x: {field: value, type: nominal}\n"
    "  y: {aggregate: count}\n",
], ids=["points drawn", "values as categories"])
def test_a_fold_of_a_float_column_and_a_complete_integer_column_stays_on_spark(spark, tmp_path, drawn):
    """Python's mix of integers and floats, each row's kind marked beside its double in Spark too: DuckDB's
    bytes, with the count's integers written as integers."""
    text = same_bytes_over_a_query(
        tmp_path, "SELECT i // 3 AS step, 2.0 + 0.2 * sin(i * 1e-4) AS loss, i % 97 AS seen FROM range(30000) t(i)",
        "tallies.parquet", "transform:\n  - fold: [loss, seen]\n" + drawn.replace("transform:\n", ""), most=600)
    if "point" in drawn:
        rows = next(iter(json.loads(text)["datasets"].values()))
        assert len(rows) == 600 and {(row["key"], type(row["value"])) for row in rows} == {("loss", float),
                                                                                           ("seen", int)}


def test_an_aggregate_after_an_impute_runs_on_spark(spark, tmp_path):
    """An aggregate after an impute: its groups' kinds measured on the impute's rows by Spark (the data cells'
    tags, NaN among them, carried from the start): DuckDB's bytes."""
    same_bytes_over_a_query(
        tmp_path, "SELECT i // 3 AS step, 'run ' || (i % 3) AS name, CASE WHEN i % 7 = 0 THEN 'NaN'::DOUBLE ELSE "
        "3.0 - 2e-5 * (i // 3) END AS loss FROM range(3000) t(i) WHERE i % 3 <> 1 OR (i // 3) % 10 <> 4", "gaps.parquet",
        "transform:\n  - {impute: loss, key: step, groupby: [name], value: -1}\n"
        "  - aggregate: [{op: sum, field: loss, as: total}, {op: count, as: rows}]\n    groupby: [name]\n"
        "mark: bar\nencoding:\n  x: name\n  y: total\n  tooltip: [rows]\n")


@pytest.mark.parametrize("after, drawn", [
    ("fold: [loss, step]", "mark: bar\nencoding:\n  x: {field: value, bin: {maxbins: 30}}\n  y: {aggregate: count}\n"
     "  color: key\n"),
    ("pivot: name\n    value: loss\n    op: min", "mark: point\nencoding:\n  x: {field: run 0, type: quantitative}\n"
     "  y: {field: run 2, type: quantitative}\n"),
    ("density: loss\n    groupby: [name]", "mark: line\nencoding:\n  x: {field: value, type: quantitative}\n"
     "  y: {field: density, type: quantitative}\n  color: name\n"),
    ("{impute: loss, key: name, groupby: [step], keyvals: [run 0, run 1, run 2, run 3], value: 0}",
     "mark: bar\nencoding:\n  x: name\n  y: {field: loss, aggregate: sum}\n"),
], ids=["fold", "pivot", "density", "another impute"])
def test_a_fold_pivot_density_or_impute_after_an_impute_runs_on_spark(spark, tmp_path, after, drawn):
    """A step making rows of its own after an impute (the impute's fields' kinds measured on its rows by Spark,
    NaN losses among them): DuckDB's bytes, and no column of every row fetched."""
    same_bytes_over_a_query(
        tmp_path, "SELECT i // 3 AS step, 'run ' || (i % 3) AS name, CASE WHEN i % 7 = 0 THEN 'NaN'::DOUBLE ELSE "
        "3.0 - 2e-5 * (i // 3) END AS loss FROM range(3000) t(i) WHERE i % 3 <> 1 OR (i // 3) % 10 <> 4", "gaps.parquet",
        f"transform:\n  - {{impute: loss, key: step, groupby: [name], value: -1}}\n  - {after}\n{drawn}")


@pytest.mark.parametrize("drawn", [
    "mark: bar\nencoding:\n  x: {field: label, type: nominal}\n  y: {aggregate: count}\n",
    "mark: line\nwidth: 200\nencoding:\n  x: step\n  y: loss\n  color: {field: label, type: nominal}\n",
], ids=["counted by it", "lines split by it"])
def test_a_value_of_several_kinds_stays_on_spark(spark, tmp_path, drawn):
    """A computed field of numbers, text and nulls kept in Spark as JavaScript values (each cell Python's when
    fetched): DuckDB's bytes, and no fetch of more rows than drawn."""
    with counted_fetches() as fetched:
        same_bytes_over_a_query(
            tmp_path, "SELECT i // 3 AS step, i % 3 AS run, 3.0 - 2e-5 * (i // 3) + 0.1 * (i % 3) AS loss "
            "FROM range(30000) t(i)", "runs.parquet",
            "transform:\n  - calculate: \"datum.loss > 3.15 ? 'diverged' : datum.run === 1 ? null : datum.run\"\n"
            f"    as: label\n{drawn}")
    assert fetched and max(fetched) <= 3 * 4 * 200 * 2


@pytest.mark.parametrize("steps, drawn, most", [
    ("fold: [name, run]", "mark: bar\nencoding:\n  x: {field: value, type: nominal}\n  y: {aggregate: count}\n", 6),
    ("fold: [flag, odd]}\n  - {filter: \"datum.step < 100 && datum.value !== 1e-5\"", "mark: point\nencoding:\n  x: step\n"
     "  y: {field: value, type: nominal}\n  color: key\n  tooltip: [value]\n", 600),
    ("impute: run, key: step, groupby: [name], value: none", "mark: bar\nencoding:\n"
     "  x: {field: run, type: nominal}\n  y: {aggregate: count}\n", 4),
    ("calculate: \"datum.step % 2 ? 'x' : 1e-5\", as: label}\n  - {fold: [label, odd]",
     "mark: bar\nencoding:\n  x: {field: value, type: nominal}\n  y: {aggregate: count}\n", 7),
    ("impute: odd, key: at, groupby: [name], value: 0}\n  - {filter: \"datum.odd === 0 && datum.name === 'run 1'\"",
     "mark: point\nencoding:\n  x: at\n  y: odd\n  tooltip: [{field: at, type: nominal}]\n", 2286),
    ("calculate: \"datum.run === 0 ? datetime(2024, 0, 1 + datum.step % 3, 0, 0, 0, datum.step % 2) : datum.run === 1 "
     "? 'far' : datum.step % 4\", as: when", "mark: bar\nencoding:\n  x: {field: when, type: nominal}\n"
     "  y: {aggregate: count}\n", 11),
    ("calculate: \"datum.run ? datetime(datum.run === 1 ? NaN : 1969, 11, 31, 23, 59, 59, datum.step % 1000) : "
     "'none'\", as: when}\n  - {fold: [when, name]", "mark: bar\nencoding:\n  x: {field: value, type: nominal}\n"
     "  y: {aggregate: count}\n", 1004),
], ids=["text and integers folded", "booleans and odd floats folded", "text fill beside integers",
        "a computed value and odd floats folded", "keys added beside dates", "a date beside text and numbers",
        "dates to the millisecond, an invalid one and text folded"])
def test_cells_stored_differently_stay_on_spark(spark, tmp_path, steps, drawn, most):
    """A field of cells stored differently, held in Spark as tagged values (a float's text Python's, as DuckDB
    writes it: 1e+20, 1e-05, nan, -0.0, inf; the computed 1e-5 and the data's one category; a date to the
    microsecond; a computed Date beside text, before 1970 too, an Invalid Date none): DuckDB's bytes, and no
    fetch of more rows than drawn."""
    with counted_fetches() as fetched:
        same_bytes_over_a_query(
            tmp_path, "SELECT i // 3 AS step, i % 3 AS run, 'run ' || (i % 3) AS name, i % 5 = 0 AS flag, "
            "TIMESTAMP '2024-01-01' + to_microseconds((i // 3) * 3600000000 + 123456) AS at, "
            "CASE i % 7 WHEN 0 THEN 1e20 WHEN 1 THEN 1e-5 WHEN 2 THEN 'NaN'::DOUBLE WHEN 3 THEN -0.0 "
            "WHEN 4 THEN 'Infinity'::DOUBLE ELSE 0.5 END AS odd FROM range(30000) t(i) "
            "WHERE i % 3 <> 1 OR (i // 3) % 10 <> 4", "mixed.parquet", f"transform:\n  - {{{steps}}}\n{drawn}", most)
    assert fetched and max(fetched) <= most
    if "label" in steps:  # the categories Spark's keys make: the computed 1e-5 and the data's are one
        layers = [chartc.load(tmp_path / "mixed.yaml", full=False, engine=engine).compiled.flow.layers[0].table
                  for engine in ("duckdb", "spark")]
        assert [layer.unique("value") for layer in layers] == 2 * [[1e-05, 1e20, "x", 0.0, math.inf, 0.5]]
        assert [layer.distinct(["value"]) for layer in layers] == [7, 7]  # (NaN and null: one more)


@pytest.mark.parametrize("impute, drawn, most", [
    ("value: 0", "width: 200\nmark: line\nencoding:\n  x: step\n  y: loss\n  color: name\n", 3 * 4 * 200 * 2),
    ("method: mean, frame: [-2, 2]", "mark: bar\nencoding:\n  x: {field: loss, bin: {maxbins: 30}}\n"
     "  y: {aggregate: count}\n  color: name\n", 90),
    ("value: -1}\n  - {filter: \"datum.step < 20\"", "mark: point\nencoding:\n  x: step\n  y: loss\n"
     "  color: name\n  tooltip: [seen]\n", 60),
], ids=["lines reduced", "histogram of a framed mean", "points after a filter"])
def test_an_imputed_layer_stays_on_spark(spark, tmp_path, impute, drawn, most):
    """An impute's rows (the steps a run lacks added, filled with a value or Vega's measure over a frame) kept
    in Spark, each field's kind measured there: DuckDB's bytes, and no query fetching more rows than drawn.
    The steps left out are a remainder's (JavaScript's `%`, the dividend's sign), computed by Spark's SQL."""
    with counted_fetches() as fetched:
        same_bytes_over_a_query(
            tmp_path, "SELECT i // 3 AS step, 'run ' || (i % 3) AS name, 3.0 - 2e-5 * (i // 3) + 0.1 * (i % 3) AS loss, "
            "i % 97 AS seen FROM range(30000) t(i)", "gaps.parquet",
            "transform:\n  - filter: \"datum.name !== 'run 1' || (datum.step - 0.5) % 10 > -5.5 + 10\"\n"
            f"  - {{impute: loss, key: step, groupby: [name], {impute}}}\n{drawn}", most)
    assert fetched and max(fetched) <= most


@pytest.mark.parametrize("drawn", [
    LOSS_HISTOGRAM,
    "transform:\n  - filter: \"datum.step < 40 && !datum.flag\"\nmark: point\nencoding:\n  x: step\n  y: loss\n"
    "  shape: {field: flag, type: nominal}\n  tooltip: [flag, note]\n",
], ids=["histogram", "points drawn"])
def test_booleans_beside_a_gap_keep_the_rows_on_spark(spark, tmp_path, drawn):
    """A nullable boolean column and a text column of nulls held as booleans, text and nulls where the rows
    are: DuckDB's bytes, and no column of every row fetched."""
    same_bytes_over_a_query(
        tmp_path, "SELECT i // 3 AS step, 2.0 + 0.2 * sin(i * 1e-4) AS loss, CASE WHEN i % 7 = 0 THEN NULL "
        "ELSE i % 5 = 0 END AS flag, CAST(NULL AS VARCHAR) AS note FROM range(30000) t(i)", "flags.parquet", drawn,
        most=120)


@pytest.mark.parametrize("drawn, most", [
    (LOSS_HISTOGRAM, 0),
    # (`next` is a number or a text, as `id` is: kept where the rows are, its 600 rows drawn fetched)
    ("transform:\n  - filter: \"datum.step < 200\"\n  - calculate: \"datum.id + 1\"\n    as: next\n"
     "mark: point\nencoding:\n  x: step\n  y: loss\n  tooltip: [id, next]\n", 600),
    # (each id tagged from the integers, for the kinds measured on the impute's rows)
    ("transform:\n  - filter: \"datum.step < 200\"\n  - {impute: loss, key: step, value: 0}\n"
     "  - fold: [loss, step]\nmark: point\nencoding:\n  x: key\n  y: value\n  tooltip: [id]\n", 1200),
    # (ids past 10^16 beside text and beside their doubles, as tagged values: an id and the float equal to it
    # one category, as in Python's cells)
    ("transform:\n  - filter: \"datum.step >= 9000 && datum.step < 9004\"\n  - calculate: \"datum.id * 1\"\n"
     "    as: twin\n  - fold: [name, id, twin]\nmark: bar\nencoding:\n  x: {field: value, type: nominal}\n"
     "  y: {aggregate: count}\n", 36),
    # (ids beside floats and integers: numbers alone, each kept as its tagged value, the ids' exact)
    ("transform:\n  - filter: \"datum.step < 200\"\n  - fold: [id, loss, step]\nmark: point\nencoding:\n"
     "  x: step\n  y: value\n  color: key\n  tooltip: [value]\n", 1800),
    ("transform:\n  - filter: \"datum.step < 200\"\n  - {impute: id, key: step, groupby: [name], value: 0.5}\n"
     "  - filter: \"datum.step > 2\"\nmark: point\nencoding:\n  x: step\n  y: loss\n  tooltip: [id]\n", 600),
], ids=["histogram", "ids drawn and computed", "a fold after an impute", "ids folded beside text",
        "ids folded beside floats and integers", "ids imputed beside a float"])
def test_a_column_of_integers_past_2_53_keeps_the_rows_on_spark(spark, tmp_path, drawn, most):
    """64-bit ids (JavaScript reads those past 2^53 as their decimal text) held as JavaScript values beside the
    integers in Spark too: DuckDB's bytes, and no column of every row fetched but those drawn."""
    same_bytes_over_a_query(
        tmp_path, "SELECT i // 3 AS step, 'run ' || (i % 3) AS name, 2.0 + 0.2 * sin(i * 1e-4) AS loss, "
        "CASE WHEN i = 5 THEN NULL WHEN i % 1000 = 1 THEN i - 500 ELSE 9007199254740993 + i * 300000000007 END "
        "AS id FROM range(30000) t(i)", "ids.parquet", drawn, most)
    if "twin" in drawn:
        layers = [chartc.load(tmp_path / "ids.yaml", full=False, engine=engine).compiled.flow.layers[0].table
                  for engine in ("duckdb", "spark")]
        unique = [layer.unique("value") for layer in layers]
        ids = [i - 500 if i % 1000 == 1 else 9007199254740993 + i * 300000000007 for i in range(27000, 27012)]
        cells = [cell for i, id_ in zip(range(27000, 27012), ids) for cell in (f"run {i % 3}", id_, float(id_))]
        expected = list(dict.fromkeys(cells))  # (Python's first of the values equal to each other)
        assert unique == 2 * [expected] and [type(value) for value in unique[1]] == list(map(type, expected))
        assert float in map(type, expected) and 3 + 12 < len(expected) < 3 + 24
        assert [layer.distinct(["value"]) for layer in layers] == 2 * [len(unique[0])]


def test_computed_rows_drawn_one_by_one_are_the_same_cells_on_spark(spark, runs):
    """A few computed rows, drawn: the data's integers, booleans, text and dates computed in SQL, and values of
    any kind decoded there, come back from Spark as from DuckDB, in the rows' order."""
    spec = runs / "computed_points.yaml"
    spec.write_text("data: {path: runs.parquet}\ntransform:\n  - filter: \"datum.step < 300\"\n"
                    "  - joinaggregate: [{op: max, field: loss, as: top}]\n    groupby: [run]\n"
                    "  - calculate: \"datum.loss - datum.top\"\n    as: gap\n  - fold: [loss, weight]\n"
                    "  - calculate: \"datum.run + ':' + datum.key\"\n    as: series\n"
                    "  - calculate: \"datum.value > 1\"\n    as: high\n"
                    "  - calculate: \"datetime(datum.step % 7 ? 1969 : NaN, 11, 31, 23, 30, datum.step)\"\n    as: at\n"
                    "mark: point\nencoding:\n  x: step\n  y: gap\n  color: series\n  shape: high\n  tooltip: at\n",
                    encoding="utf-8")
    duckdb_text, spark_text = both_engines(lambda engine: chartc.load(spec, full=False, engine=engine))
    assert spark_text == duckdb_text
    rows = [row for rows in json.loads(duckdb_text)["datasets"].values() for row in rows]
    assert len(rows) == 2 * 4 * 300 and type(rows[0]["step"]) is int and type(rows[0]["high"]) is bool
    # a computed Date, held as a timestamp: an Invalid Date missing (steps 0, 7...), the others as Python writes them
    import datetime

    start = datetime.datetime(1969, 12, 31, 23, 30)
    assert [row["at"] for row in rows] == [
        None if row["step"] % 7 == 0 else (start + datetime.timedelta(seconds=row["step"])).isoformat() for row in rows]


def test_date_text_the_check_cannot_read_is_found_on_spark(spark, tmp_path):
    """The temporal check's test of date text, run by Spark's Python workers once per distinct text: the texts
    the check over the texts in Python finds, in their order."""
    from chartc.stages.data.engine import SparkSettings
    from test_sources import DATE_TEXTS, rejected_dates, rejected_in_python

    connection = spark_engine.connect_spark(SparkSettings())
    for limit in (3, 100):
        assert rejected_dates(connection, tmp_path, DATE_TEXTS, limit) == rejected_in_python(DATE_TEXTS, limit)


def test_a_million_rows_taken_on_spark_are_the_cells_duckdb_takes(spark, tmp_path):
    """`EngineTable.take` of 10^6 rows (of a layer read whole: a value of mixed kinds, say): their numbers enter
    Spark as a relation. Written into the query as a list, Spark refused them at this size, and the chart was
    an internal error where DuckDB drew it or said why not."""
    import duckdb
    from chartc.stages.data import register_source
    from chartc.stages.data.engine import SparkSettings
    from test_sources import source

    duckdb.sql(f"COPY (SELECT i AS step, sin(i) AS loss FROM range(2000000) t(i)) TO '{tmp_path / 't.parquet'}' "
               "(FORMAT parquet)")
    wanted = list(range(1, 2000000, 2))
    taken = {}
    for name, connection in (("duckdb", duckdb.connect()), ("spark", spark_engine.connect_spark(SparkSettings()))):
        table = EngineTable(connection, register_source(connection, source(tmp_path, file="t.parquet")))
        taken[name] = table.take(wanted).columns
    assert taken["spark"]["step"] == wanted
    assert taken["spark"] == taken["duckdb"]
