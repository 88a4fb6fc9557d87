"""Fits and line reduction at size: chartc's engine queries against statsmodels and pandas, and DuckDB alone.

On a generated, seeded Parquet file of 10^7 rows (``--huge``: 10^8) holding 10
runs (``run``, ``step``, ``loss``: 10^6 steps per run, 10^7 with ``--huge``),
each figure a fresh child process (import included), median of the repeats,
peak RSS of the child:

- a linear fit with its 95% confidence band per run (10 lines): chartc's
  sufficient statistics (`trends.moments`, one DuckDB query) and its fit from
  them (`fitting.fit_sums`: coefficients, R², the band at 100 x), against
  statsmodels' OLS per run on a pandas frame (``get_prediction`` at the same
  100 x), and against DuckDB alone summing the plain (uncompensated) centred
  sums of the same fits;
- the M4 reduction of each run's line to 1,000 pixel columns
  (`stages.data.reduce`: the rows kept), against pandas (group by run and pixel
  column: min, max, first, last) and DuckDB alone (the same aggregates, values
  rather than rows).

    python benchmarks/bench_bigdata.py [--quick] [--repeat N] [--huge] [--timeout S]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _common import arguments, child_env, compare, measure, megabytes, print_machine, python, repeats, seconds, table

RUNS, PIXELS, SAMPLES, LEVEL = 10, 1000, 100, 0.95

GENERATE = """\
import sys
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
n, path, runs = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(16)
chunk = 5_000_000
writer = None
for start in range(0, n, chunk):
    m = min(chunk, n - start)
    idx = np.arange(start, start + m)
    run, step = idx % runs, idx // runs
    loss = 3.0 - 2.0e-7 * step + 0.02 * run + rng.normal(0, 0.05, m)
    table = pa.table({"run": pa.array(run, pa.int64()), "step": pa.array(step, pa.int64()),
                      "loss": pa.array(loss, pa.float64())})
    writer = writer or pq.ParquetWriter(path, table.schema)
    writer.write_table(table)
writer.close()
"""

# argv[1] = the Parquet file; each prints how many lines (or rows) it made.
CHARTC_FIT = f"""\
import sys
from chartc.stages.data.engine import connect, quote_text
from chartc.trends.fitting import fit_sums, plan_trend, sums_sql
from chartc.trends.moments import sums_from_rows
plan = plan_trend("linear", band={LEVEL}, samples={SAMPLES})
source = f"read_parquet({{quote_text(sys.argv[1])}})"
rows = connect().execute(sums_sql(plan, source, "step", "loss", "run")).fetchall()
lines = [fit_sums(plan, sums, run) for run, sums in sums_from_rows(rows, plan.degree).items()]
assert len(lines) == {RUNS} and all(len(line.upper) == {SAMPLES} for line in lines)
print(len(lines))
"""

STATSMODELS_FIT = f"""\
import sys
import numpy as np, pandas as pd
from statsmodels.regression.linear_model import OLS
frame = pd.read_parquet(sys.argv[1], columns=["run", "step", "loss"])
lines = []
for run, rows in frame.groupby("run", sort=True):
    x, y = rows["step"].to_numpy(float), rows["loss"].to_numpy(float)
    result = OLS(y, np.column_stack([np.ones_like(x), x])).fit()
    grid = np.linspace(x.min(), x.max(), {SAMPLES})
    band = result.get_prediction(np.column_stack([np.ones_like(grid), grid])).summary_frame(alpha={1 - LEVEL})
    lines.append((result.params, result.rsquared, band["mean_ci_lower"].to_numpy(), band["mean_ci_upper"].to_numpy()))
assert len(lines) == {RUNS}
print(len(lines))
"""

DUCKDB_FIT = """\
import sys, duckdb
rows = duckdb.connect().execute(f\"\"\"
    WITH v AS (SELECT run, CAST(step AS DOUBLE) AS x, loss AS y FROM read_parquet('{sys.argv[1]}')),
         m AS (SELECT run, avg(x) AS mx, avg(y) AS my FROM v GROUP BY run)
    SELECT v.run, count(*), sum((x - mx) * (x - mx)), sum((x - mx) * (y - my)), sum((y - my) * (y - my))
    FROM v JOIN m ON v.run = m.run GROUP BY v.run ORDER BY v.run\"\"\").fetchall()
print(len(rows))
"""

CHARTC_M4 = f"""\
import sys
from chartc.stages.data.engine import connect, quote_text
from chartc.stages.data.reduce import m4_rows
connection = connect()
source = f"read_parquet({{quote_text(sys.argv[1])}})"
low, high = connection.execute(f"SELECT min(step), max(step) FROM {{source}}").fetchone()
kept = m4_rows(connection, source, x="step", y="loss", order="step * {RUNS} + run", series="run",
               domain=(low, high), width={PIXELS})
assert len(kept) <= 4 * ({PIXELS} + 2) * {RUNS}
print(len(kept))
"""

PANDAS_M4 = f"""\
import sys
import numpy as np, pandas as pd
t = pd.read_parquet(sys.argv[1], columns=["run", "step", "loss"])
a = t["step"].to_numpy("float64")
t = t.assign(px=np.minimum(np.floor((a - a.min()) / (a.max() - a.min()) * {PIXELS}).astype("int64"), {PIXELS - 1}))
t = t.sort_values(["run", "step"])
out = t.groupby(["run", "px"])["loss"].agg(["min", "max", "first", "last"])
print(len(out))
"""

DUCKDB_M4 = f"""\
import sys, duckdb
rows = duckdb.connect().execute(f\"\"\"
    WITH v AS (SELECT run, step, loss FROM read_parquet('{{sys.argv[1]}}')),
         e AS (SELECT min(step) AS x0, max(step) AS x1 FROM v),
         p AS (SELECT run, step, loss,
                      least(CAST(floor((step - x0) / CAST(x1 - x0 AS DOUBLE) * {PIXELS}) AS BIGINT), {PIXELS - 1}) AS px
               FROM v CROSS JOIN e)
    SELECT run, px, min(loss), max(loss), arg_min(loss, step), arg_max(loss, step)
    FROM p GROUP BY run, px ORDER BY run, px\"\"\").fetchall()
print(len(rows))
"""

TASKS = {
    "linear fit + band, 10 runs": {"chartc": CHARTC_FIT, "statsmodels (pandas)": STATSMODELS_FIT,
                                   "DuckDB alone": DUCKDB_FIT},
    f"M4 to {PIXELS} px, 10 runs": {"chartc": CHARTC_M4, "pandas": PANDAS_M4, "DuckDB alone": DUCKDB_M4},
}


def options(parser) -> None:
    parser.add_argument("--huge", action="store_true", help="10^8 rows instead of 10^7 (~1 GB of Parquet)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per child before it is killed")


def cell(series) -> str:
    if not series.ok:
        return f"{series.status}: {series.first_error()[-60:]}"
    return f"{seconds(series.median)} / {megabytes(series.maxrss_mb)}"


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], argv, extra=options)
    runs = repeats(args, 3, 1)
    n = 10 ** 6 if args.quick else 10 ** 8 if args.huge else 10 ** 7
    env = child_env(args.repo)
    with tempfile.TemporaryDirectory(prefix="chartc-bigdata-") as tmp:
        path = Path(tmp) / "runs.parquet"
        made = measure(python("-c", GENERATE, str(n), str(path), str(RUNS)), timeout=3600)
        if not made.ok:
            print(f"generating {n:,} rows failed: {made.status} {made.stderr[-300:]}", file=sys.stderr)
            return 1
        size = path.stat().st_size
        results = {}
        for task, scripts in TASKS.items():
            commands = {name: {"cmd": python("-c", script, str(path)), "cwd": args.repo, "env": env,
                               "timeout": args.timeout} for name, script in scripts.items()}
            results[task] = compare(commands, runs, warmup=1 if n <= 10 ** 7 else 0)

    print_machine(args.repo)
    print(f"\n== {n:,} rows, {RUNS} runs of {n // RUNS:,} steps (Parquet {size / 2**20:.0f} MB): "
          f"wall / peak RSS, median of {runs}, fresh process each, import included")
    for task, series in results.items():
        chartc = series["chartc"]
        rows = [[name, cell(s), f"{chartc.median / s.median:.2f}x" if chartc.ok and s.ok else "n/a"]
                for name, s in series.items()]
        print(f"\n-- {task}")
        print(table(["command", "wall / peak RSS", "chartc / it"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
