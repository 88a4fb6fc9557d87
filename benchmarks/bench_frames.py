"""Tables passed from Python (issue 16, item 2): a chart of 10⁷ rows from each kind of table, time and peak memory.

A generated Parquet file (10⁷ rows: `run` text of 20 values, `step`, `loss`,
`ts` a UTC timestamp, `model_id` 17-digit integers) is made into each kind of
table `data=` takes, in a fresh process each, and compiled to Vega-Lite: a
40-bin histogram of `loss`, and a linear fit of `loss` on `step` with its band.
The peer is the same chart from the Parquet file itself (`chartc.load` of a
spec naming it), which reads nothing into Python either.

Printed per kind and chart: the time to make the table, the compile's time,
the process's memory before the compile (the table held, chartc imported and
warmed on three inline rows) and its peak after, the growth, and the Vega-Lite's
size. With ``--at REV`` it measures another
revision (before this change, tables were materialised as Python rows).

    python benchmarks/bench_frames.py [--rows N] [--kinds pandas,lazy] [--repeat R] [--at REV]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

from _common import Row, child_env, measure, megabytes, python, run_script, seconds, table

ROWS = 10**7
CHARTS = {
    "histogram": {"mark": "bar", "encoding": {"x": {"field": "loss", "bin": {"maxbins": 40}},
                                              "y": {"aggregate": "count"}}},
    "linear fit": {"encoding": {"x": "step", "y": "loss"},
                   "layers": [{"trend": {"method": "linear", "band": 0.95}}]},
}
# kind -> the Python that makes the table from the Parquet file `path` (as a user's script would).
KINDS = {
    "pandas": "import pandas as pd; frame = pd.read_parquet(path)",
    "polars": "import polars as pl; frame = pl.read_parquet(path)",
    "polars lazy": "import polars as pl; frame = pl.scan_parquet(path)",
    "arrow table": "import pyarrow.parquet as pq; frame = pq.read_table(path)",
    "arrow dataset": "import pyarrow.dataset as ds; frame = ds.dataset(path)",
    "duckdb relation": "import duckdb; frame = duckdb.read_parquet(str(path))",
    "parquet file (spec)": "frame = None",
}
CHILD = """
import json, resource, sys, time
from pathlib import Path
import chartc
path, kind_code, chart = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
# The imports and the engine's start, outside the figures: the same chart over three inline rows.
warm = [{"run": "a", "step": i, "loss": 1.0 / (i + 1), "ts": "2024-01-01", "model_id": i} for i in range(3)]
chartc.from_spec({"data": {"values": warm}, **chart}, full=False)
start = time.perf_counter()
exec(kind_code)
made = time.perf_counter() - start
held = rss()
start = time.perf_counter()
if frame is None:
    spec = path.with_suffix(".json")
    spec.write_text(json.dumps({"data": {"path": path.name}, **chart}))
    compiled = chartc.load(spec, full=False)
else:
    compiled = chartc.from_spec(chart, data=frame, full=False)
took = time.perf_counter() - start
print(json.dumps({"made": made, "compile": took, "held": held, "peak": rss(), "bytes": len(compiled.to_json())}))
"""


def write_parquet(folder: Path, rows: int) -> Path:
    """The generated runs, written by DuckDB in row groups (seeded: the same file every run)."""
    import duckdb

    path = folder / "runs.parquet"
    duckdb.sql(f"""COPY (SELECT 'run-' || (i % 20) AS run, i // 20 AS step,
                          exp(-(i // 20) / 1e5) + 0.01 * sin(i) AS loss,
                          TIMESTAMP '2024-01-01' + to_seconds(i // 20) AS ts,
                          12345678901234567 + (i % 20) AS model_id
                   FROM range({rows}) t(i)) TO '{path}' (FORMAT parquet)""")
    return path


def run(args) -> list[Row]:
    env = child_env(args.repo)
    kinds = [k.strip() for k in args.kinds.split(",")] if args.kinds else list(KINDS)
    repeat = args.repeat or 1
    with tempfile.TemporaryDirectory(prefix="chartc-frames-") as folder:
        (Path(folder) / ".git").mkdir()  # the spec's project: its data path stays inside
        path = write_parquet(Path(folder), args.rows)
        print(f"== {args.rows:,} rows, Parquet {mb(path.stat().st_size)}; "
              f"median of {repeat} fresh process(es), compile to Vega-Lite")
        lines, figures = [], {}
        for chart_name, chart in CHARTS.items():
            for kind in kinds:
                results, failure = [], None
                for _ in range(repeat):
                    done = measure(python("-c", CHILD, path, KINDS[kind], json.dumps(chart)), cwd=args.repo,
                                   env=env, timeout=args.timeout)
                    if not done.ok:
                        failure = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:80]
                        break
                    results.append(json.loads(done.stdout.strip().splitlines()[-1]))
                if failure:
                    lines.append([chart_name, kind, "failed", failure, "", "", "", ""])
                    continue
                figure = {key: statistics.median(r[key] for r in results) for key in results[0]}
                figures[chart_name, kind] = figure
                lines.append([chart_name, kind, seconds(figure["made"]), seconds(figure["compile"]),
                              mb(figure["held"]), mb(figure["peak"]),
                              mb(figure["peak"] - figure["held"]), f"{figure['bytes'] / 1e3:.1f} kB"])
        print(table(["chart", "table", "make table", "compile", "RSS held", "peak RSS", "growth", "Vega-Lite"], lines))
    rows = []
    for chart_name in CHARTS:
        peer = figures.get((chart_name, "parquet file (spec)"))
        for kind in kinds:
            mine = figures.get((chart_name, kind))
            if kind == "parquet file (spec)" or mine is None or peer is None:
                continue
            rows.append(Row(f"{chart_name}: {kind} / Parquet file, compile time", seconds(mine["compile"]),
                            seconds(peer["compile"]), mine["compile"] / peer["compile"], "-", None, verdict="n/a",
                            note=f"growth {mb(mine['peak'] - mine['held'])} vs "
                                 f"{mb(peer['peak'] - peer['held'])}"))
    return rows


def mb(n_bytes: float) -> str:
    return megabytes(n_bytes / 2**20)


def options(parser) -> None:
    parser.add_argument("--rows", type=int, default=ROWS, help=f"rows of the generated file (default {ROWS:,})")
    parser.add_argument("--kinds", help=f"comma-separated kinds (default all: {', '.join(KINDS)})")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per child process")


def main(argv=None):
    run_script(run, "charts of 10^7 rows from each kind of table passed from Python", argv, options)


if __name__ == "__main__":
    sys.exit(main())
