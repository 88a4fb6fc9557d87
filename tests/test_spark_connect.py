"""The data stage on a Spark Connect server (`[spark] remote` in the project file), through the command line.

A real server (conftest's `spark_connect_server`: pyspark's own SparkConnectServer on local[2]) is named by
the project's chartc.toml; `chartc compile`, in a process of its own as a user runs it, writes the same
Vega-Lite bytes as on DuckDB: a line M4 reduces in the engine, a linear fit summed there per run, a sample
drawn there, and gallery charts. A remote nobody listens on is a diagnostic on the file's `remote` line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import duckdb
import pytest

import chartc.stages.data.read
import chartc.stages.data.sources
from conftest import ROOT

pytestmark = pytest.mark.spark

ROWS = 120_000  # past what M4 keeps at 300 px and past the rows a fit sums in memory (100,000)
CHARTS = {
    "line": "data: {path: runs.parquet}\nwidth: 300\nmark: line\n"
            "encoding:\n  x: step\n  y: loss\n  color: {field: run, type: nominal}\n",
    "fit": "data: {path: runs.parquet}\nencoding:\n  x: step\n  y: loss\n  color: {field: run, type: nominal}\n"
           "layers:\n  - trend: {method: linear, band: 0.95, by: run}\n",
    "sample": "data: {path: runs.parquet, sample: 2000}\nmark: point\nencoding: {x: step, y: loss}\n",
    # A layer's computed rows left on the server: a view of its query, or (Python functions: JavaScript's
    # subtraction, which may meet undefined) a table cached there.
    "computed": "data: {path: runs.parquet}\ntransform:\n  - joinaggregate: [{op: max, field: loss, as: top}]\n"
                "    groupby: [run]\n  - calculate: \"datum.loss - datum.top\"\n    as: gap\n  - fold: [loss, gap]\n"
                "width: 300\nmark: line\nencoding:\n  x: step\n  y: value\n  color: {field: run, type: nominal}\n"
                "  strokeDash: {field: key, type: nominal}\n",
    "cars_histogram": (ROOT / "specs" / "cars_histogram.yaml").read_text(encoding="utf-8"),
    "barley_pivot": (ROOT / "specs" / "barley_pivot.yaml").read_text(encoding="utf-8"),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory, spark_connect_server):
    """A project whose chartc.toml runs every spec on the Connect server, and two runs of a loss curve."""
    folder = tmp_path_factory.mktemp("connect")
    (folder / ".git").mkdir()  # the project file is looked for up to the work tree's root
    (folder / "chartc.toml").write_text(f'engine = "spark"\n[spark]\nremote = "{spark_connect_server}"\n',
                                        encoding="utf-8")
    connection = duckdb.connect()
    connection.execute(f"""
        COPY (SELECT i % 60000 AS step, 'run-' || (i // 60000) AS run,
                     round(2.0 / (1 + (i % 60000) / 500.0) + 0.1 * (i // 60000) + 0.05 * sin(i * 7.3), 6) AS loss
              FROM range({ROWS}) t(i)) TO '{folder / 'runs.parquet'}' (FORMAT parquet)""")
    connection.close()
    for name, text in CHARTS.items():  # the gallery's charts without their `$schema` (a path from specs/)
        lines = [line for line in text.splitlines() if not line.startswith("$schema:")]
        (folder / f"{name}.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def compile_in(project, name: str, *engine: str) -> subprocess.CompletedProcess:
    # CHARTC_SPARK_TRACE: the Spark backend prints each result it fetches ("0.123s 17 rows") on stdout.
    return subprocess.run([sys.executable, "-m", "chartc", "compile", f"{name}.yaml", "-o",
                           f"{name}.{'-'.join(engine) or 'connect'}.vl.json", *engine],
                          cwd=project, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "CHARTC_SPARK_TRACE": "1"})


@pytest.mark.parametrize("name", CHARTS)
def test_a_chart_on_a_spark_connect_server_is_the_same_bytes_as_on_duckdb(project, name):
    on_connect = compile_in(project, name)
    assert on_connect.returncode == 0, on_connect.stderr
    assert on_connect.stderr == ""  # no JVM notes, no pyspark warnings
    assert re.search(r"^ *[0-9.]+s [0-9]+ rows$", on_connect.stdout, re.M)  # the queries ran on the server
    on_duckdb = compile_in(project, name, "--engine", "duckdb")
    assert on_duckdb.returncode == 0, on_duckdb.stderr
    assert " rows" not in on_duckdb.stdout
    assert (project / f"{name}.connect.vl.json").read_bytes() == \
        (project / f"{name}.--engine-duckdb.vl.json").read_bytes()


# A CSV past what chartc's reader takes (`read.ENGINE_TEXT_BYTES`): DuckDB types it here, and its rows are sent.
SENT_ROWS = 300_000
# Each row's number in the file, every 10,000th kept: the rows must reach Spark in the file's order.
NUMBERED = ("data: {path: sent.csv}\ntransform:\n  - window: [{op: row_number, as: n}]\n"
            "  - filter: \"datum.n % 10000 == 1\"\nmark: point\nencoding: {x: n, y: loss, color: run}\n")


def test_a_large_csv_reaches_spark_connect_in_parts_one_held_at_a_time(tmp_path, spark_connect_server):
    """Spark Connect cannot read this machine's files: a large CSV's typed rows are sent. Before, they were
    collected into one Arrow table, the whole file's rows held in Python and sent as one relation. Now they are
    streamed as DuckDB parses them, in parts of the server's `localRelationCacheThreshold` (1 MiB, set in the
    project file; past it a part is kept on the server, named by its hash in later plans), one held at a time,
    and the chart is DuckDB's bytes: each row numbered as in the file."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "chartc.toml").write_text(
        f'engine = "spark"\n[spark]\nremote = "{spark_connect_server}"\n'
        f'[spark.conf]\n"spark.sql.session.localRelationCacheThreshold" = "1048576"\n', encoding="utf-8")
    connection = duckdb.connect()
    connection.execute(f"""
        COPY (SELECT i AS step, 'run-' || (i % 3) AS run, round(1.0 / (1 + i / 1000.0) + 0.01 * sin(i), 6) AS loss
              FROM range({SENT_ROWS}) t(i)) TO '{tmp_path / 'sent.csv'}' (HEADER)""")
    connection.close()
    assert (tmp_path / "sent.csv").stat().st_size > chartc.stages.data.read.ENGINE_TEXT_BYTES
    (tmp_path / "numbered.yaml").write_text(NUMBERED, encoding="utf-8")
    on_connect = compile_in(tmp_path, "numbered")
    assert on_connect.returncode == 0, on_connect.stderr
    parts = [int(rows) for rows in re.findall(r"^sent ([0-9]+) rows", on_connect.stdout, re.M)]
    assert sum(parts) == SENT_ROWS and len(parts) >= 3
    assert max(parts) <= chartc.stages.data.sources.STREAM_BATCH  # a batch's bytes are past the 1 MiB
    on_duckdb = compile_in(tmp_path, "numbered", "--engine", "duckdb")
    assert on_duckdb.returncode == 0, on_duckdb.stderr
    drawn = json.loads((tmp_path / "numbered.--engine-duckdb.vl.json").read_bytes())
    assert [row["n"] for row in next(iter(drawn["datasets"].values()))] == list(range(1, SENT_ROWS, 10_000))
    assert (tmp_path / "numbered.connect.vl.json").read_bytes() == \
        (tmp_path / "numbered.--engine-duckdb.vl.json").read_bytes()
