"""Charts of big data: chartc's engine against Altair + VegaFusion, matplotlib + pandas, and DuckDB alone.

On a generated, seeded Parquet file of 10^7 rows (``--huge``: 10^8) holding 10
runs (``run``, ``step``, ``loss``, ``lr``), six charts, each figure a fresh
child process (import included), median of the repeats, peak RSS of the child:

- a histogram of ``loss`` (40 bins, count);
- a binned heatmap of ``step`` x ``loss`` (50 x 50 bins, count);
- each run's line (10^6 steps a run; 10^7 with ``--huge``) reduced with M4 to 1,000 pixel columns;
- a linear fit of ``loss`` on ``step`` per run with its 95% confidence band;
- the same fits, one facet panel per run (``facet``: the same sums, the panel as their group;
  only ``chartc compile`` differs from the fit's figures, the peers are the fit's);
- the same fits of a value a transform computes, ``loss * 100`` (``computed``: the layer's rows stay
  in the engine as a view of its query, and the fit is summed over it; the peers are the fit's).

Competitors, each computing what its chart draws:

- ``chartc engine``: the file registered as the engine's view `SOURCE` (chartc's
  types, its connection settings) and the aggregate queried from it (`stages.data.reduce`
  for M4, `stages.fit.query_sums` (`trends.moments`) and `fitting.fit_sums` for the fit);
- ``chartc compile``: ``chartc compile spec.yaml -o out.vl.json`` on a spec the
  benchmark writes (the whole compile: the rows stay in the engine, each layer's
  aggregate is queried there, only the rows M4 keeps are fetched); its Vega-Lite's
  size is printed too;
- ``Altair + VegaFusion``: the Altair chart of a pyarrow table, compiled to Vega
  with the ``vegafusion`` data transformer (its transforms evaluated in DataFusion);
  Vega has no M4 and no confidence band, so the line is all of its rows and the
  fit a ``transform_regression`` line alone, both with every row inlined (not run
  past 10^6 rows: 18 GB at 10^7);
- ``matplotlib + pandas``: pandas reads the file and aggregates (``np.histogram``,
  ``np.histogram2d``, a group-by for M4, statsmodels OLS for the fit), matplotlib
  draws to SVG;
- ``DuckDB alone``: the same aggregates in plain DuckDB SQL over ``read_parquet``
  (the bound the issue sets: chartc at most 2x of it at 10^8 rows); for the line,
  the min and max of loss and the loss at the first and last step per pixel
  column, and (``DuckDB alone, M4's aggregates``) what M4 keeps: the steps of
  the lowest and highest loss and the first and last step with their loss; for
  the fit, the means, then the centred sums joined to them (two passes), and
  ``DuckDB alone, one pass`` the same line's sums about the first row's values
  (as chartc's fit sums a line where the digits allow), plain sums, no check of
  the digits.

The data file's hash (the chart's provenance) is kept in chartc's cache folder once computed
(`stages.data.read`, "the hash cache"): ``chartc compile`` is measured with the hash there, as
every compile of a file after its first finds it (the benchmark computes it once, in a child, after
generating the file), and ``chartc compile, hash not cached`` with a cache folder that cannot be
used, as a file's first compile. The children's cache folder is the run's temporary one.

``--engines`` runs only chartc and DuckDB alone (at 10^8 rows matplotlib + pandas needs
~15 GB). ``--before REV`` adds ``chartc compile`` at git revision REV to the same run, and
says whether its Vega-Lite is byte for byte this checkout's (or differs in the provenance block's
``data_hash`` alone, as across a change to how a data file is hashed).

``--charts`` runs only some of the six (histogram, heatmap, line, fit, facet, computed).

    python benchmarks/bench_bigdata_peers.py [--quick] [--repeat N] [--huge] [--engines] [--before REV]
        [--charts NAME ...] [--timeout S]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from _common import arguments, chartc, child_env, compare, measure, megabytes, print_machine, python, repeats, \
    seconds, snapshot, table

RUNS, PIXELS, SAMPLES, LEVEL, BINS, GRID = 10, 1000, 100, 0.95, 40, 50

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
                      "loss": pa.array(loss, pa.float64()), "lr": pa.array(rng.uniform(0, 1, m), pa.float64())})
    writer = writer or pq.ParquetWriter(path, table.schema)
    writer.write_table(table)
writer.close()
"""

# ------------------------------------------------------------------ the aggregates in SQL (chartc's view, or the file)

HISTOGRAM_SQL = f"""
    WITH e AS (SELECT min(loss) AS lo, max(loss) AS hi FROM {{source}} WHERE isfinite(loss))
    SELECT least(CAST(floor((loss - lo) / (hi - lo) * {BINS}) AS BIGINT), {BINS - 1}) AS b, count(*)
    FROM {{source}} CROSS JOIN e WHERE isfinite(loss) GROUP BY b ORDER BY b"""
HEATMAP_SQL = f"""
    WITH e AS (SELECT min(step) AS x0, max(step) AS x1, min(loss) AS y0, max(loss) AS y1
               FROM {{source}} WHERE isfinite(loss))
    SELECT least(CAST(floor((step - x0) / CAST(x1 - x0 AS DOUBLE) * {GRID}) AS BIGINT), {GRID - 1}) AS bx,
           least(CAST(floor((loss - y0) / (y1 - y0) * {GRID}) AS BIGINT), {GRID - 1}) AS b_y, count(*)
    FROM {{source}} CROSS JOIN e WHERE isfinite(loss) GROUP BY bx, b_y ORDER BY bx, b_y"""

# The data file's hash, computed as a compile does and kept in the cache folder (`--huge`: ~2 s of a core).
PRIME_HASH = """\
import sys
from chartc.pipeline import check_spec
from chartc.stages.data import data_identity
chart, _ = check_spec(sys.argv[1])
print(data_identity(chart.data)[1])
"""

CHARTC_SETUP = """\
import sys
from pathlib import Path
from chartc.stages.data.engine import connect
from chartc.stages.data.sources import register_files
connection = connect()
source = register_files(connection, [Path(sys.argv[1])], ".parquet")
"""

CHARTC_HISTOGRAM = CHARTC_SETUP + f"""\
rows = connection.execute(\"\"\"{HISTOGRAM_SQL}\"\"\".format(source=source)).fetchall()
assert sum(count for _, count in rows) > 0
print(len(rows))
"""
CHARTC_HEATMAP = CHARTC_SETUP + f"""\
rows = connection.execute(\"\"\"{HEATMAP_SQL}\"\"\".format(source=source)).fetchall()
print(len(rows))
"""
CHARTC_M4 = CHARTC_SETUP + f"""\
from chartc.stages.data.reduce import m4_rows
low, high = connection.execute(f"SELECT min(step), max(step) FROM {{source}}").fetchone()
n, = connection.execute(f"SELECT count(*) FROM {{source}}").fetchone()
kept = m4_rows(connection, source, x="step", y="loss", order="step * {RUNS} + run", series="run",
               domain=(low, high), width={PIXELS}, integers=(low, high, n))  # as a compile keys integer steps
assert len(kept) <= 4 * ({PIXELS} + 2) * {RUNS}
print(len(kept))
"""
CHARTC_FIT = CHARTC_SETUP + f"""\
from chartc.stages.fit import query_sums
from chartc.trends.fitting import fit_sums, plan_trend
plan = plan_trend("linear", band={LEVEL}, samples={SAMPLES})
lines = [fit_sums(plan, sums, run) for run, sums in query_sums(connection, plan, source, "step", "loss", "run").items()]
assert len(lines) == {RUNS} and all(len(line.upper) == {SAMPLES} for line in lines)
print(len(lines))
"""

DUCKDB_SETUP = """\
import sys, duckdb
connection = duckdb.connect()
connection.execute("SET parquet_can_have_nan = true")
source = "read_parquet('" + sys.argv[1].replace("'", "''") + "')"
"""
DUCKDB_HISTOGRAM = DUCKDB_SETUP + f"""\
print(len(connection.execute(\"\"\"{HISTOGRAM_SQL}\"\"\".format(source=source)).fetchall()))
"""
DUCKDB_HEATMAP = DUCKDB_SETUP + f"""\
print(len(connection.execute(\"\"\"{HEATMAP_SQL}\"\"\".format(source=source)).fetchall()))
"""
# Each row's pixel column (px) of the x scale over the steps' extent: what both M4 peers group by.
M4_PIXELS = f"""\
    WITH e AS (SELECT min(step) AS x0, max(step) AS x1 FROM {{source}}),
         p AS (SELECT run, step, loss,
                      least(CAST(floor((step - x0) / CAST(x1 - x0 AS DOUBLE) * {PIXELS}) AS BIGINT), {PIXELS - 1}) AS px
               FROM {{source}} CROSS JOIN e)
"""
DUCKDB_M4 = DUCKDB_SETUP + f"""\
rows = connection.execute(f\"\"\"
{M4_PIXELS}    SELECT run, px, min(loss), max(loss), arg_min(loss, step), arg_max(loss, step)
    FROM p GROUP BY run, px ORDER BY run, px\"\"\").fetchall()
print(len(rows))
"""
# M4 as chartc computes it: per run and pixel column the rows of the lowest and highest loss and of the first
# and last step, each with its step and loss (the points the line is drawn through), ties left to the engine.
DUCKDB_M4_SAME = DUCKDB_SETUP + f"""\
rows = connection.execute(f\"\"\"
{M4_PIXELS}    SELECT run, px, min(loss), arg_min(step, loss), max(loss), arg_max(step, loss),
           min(step), arg_min(loss, step), max(step), arg_max(loss, step)
    FROM p GROUP BY run, px ORDER BY run, px\"\"\").fetchall()
print(len(rows))
"""
DUCKDB_FIT = DUCKDB_SETUP + """\
rows = connection.execute(f\"\"\"
    WITH v AS (SELECT run, CAST(step AS DOUBLE) AS x, loss AS y FROM {source}),
         m AS (SELECT run, avg(x) AS mx, avg(y) AS my FROM v GROUP BY run)
    SELECT v.run, count(*), sum((x - mx) * (x - mx)), sum((x - mx) * (y - my)), sum((y - my) * (y - my))
    FROM v JOIN m ON v.run = m.run GROUP BY v.run ORDER BY v.run\"\"\").fetchall()
print(len(rows))
"""
# The same line in one pass about the first row's values, plain sums (chartc's fit takes one pass where its
# digits allow): the lower bound of DuckDB alone, with no check that the shift keeps the digits, and sums whose
# last bits change with the threads.
DUCKDB_FIT_ONE_PASS = DUCKDB_SETUP + """\
x0, y0 = connection.execute(f"SELECT CAST(step AS DOUBLE), loss FROM {source} LIMIT 1").fetchone()
rows = connection.execute(f\"\"\"
    SELECT run, count(*), sum(d), sum(d * d), sum(e), sum(d * e), sum(e * e)
    FROM (SELECT run, CAST(step AS DOUBLE) - {x0!r} AS d, loss - {y0!r} AS e FROM {source})
    GROUP BY run ORDER BY run\"\"\").fetchall()
print(len(rows))
"""

# ------------------------------------------------------------------ Altair + VegaFusion

ALTAIR_SETUP = """\
import sys
import altair as alt, pyarrow.parquet as pq
alt.data_transformers.enable("vegafusion")
data = pq.read_table(sys.argv[1])
"""
ALTAIR_HISTOGRAM = ALTAIR_SETUP + f"""\
chart = alt.Chart(data).mark_bar().encode(alt.X("loss:Q", bin=alt.Bin(maxbins={BINS})), alt.Y("count()"))
spec = chart.to_dict(format="vega")
print(len(str(spec)))
"""
ALTAIR_HEATMAP = ALTAIR_SETUP + f"""\
chart = alt.Chart(data).mark_rect().encode(alt.X("step:Q", bin=alt.Bin(maxbins={GRID})),
                                           alt.Y("loss:Q", bin=alt.Bin(maxbins={GRID})), alt.Color("count()"))
spec = chart.to_dict(format="vega")
print(len(str(spec)))
"""
# VegaFusion evaluates no M4 and no regression band: the line's rows and the regression's input are
# inlined whole (2.7 GB at 10^6 rows, 18 GB at 10^7 before it was stopped), so past 10^6 it is not run.
INLINED_LIMIT = 10 ** 6
ALTAIR_INLINED = f"""\
if data.num_rows > {INLINED_LIMIT}:
    sys.exit(f"not run: VegaFusion would inline {{data.num_rows:,}} rows")
"""
ALTAIR_LINE = ALTAIR_SETUP + ALTAIR_INLINED + """\
chart = alt.Chart(data).mark_line().encode(alt.X("step:Q"), alt.Y("loss:Q"), alt.Color("run:N"))
spec = chart.to_dict(format="vega")
print(len(str(spec)))
"""
ALTAIR_FIT = ALTAIR_SETUP + ALTAIR_INLINED + """\
chart = alt.Chart(data).mark_line().encode(alt.X("step:Q"), alt.Y("loss:Q"), alt.Color("run:N")).transform_regression(
    "step", "loss", groupby=["run"])
spec = chart.to_dict(format="vega")
print(len(str(spec)))
"""

# ------------------------------------------------------------------ matplotlib + pandas

MPL_SETUP = """\
import sys, io
import numpy as np, pandas as pd
import matplotlib
matplotlib.use("svg")
import matplotlib.pyplot as plt
frame = pd.read_parquet(sys.argv[1], columns=COLUMNS)
figure, axes = plt.subplots()
"""
MPL_HISTOGRAM = MPL_SETUP.replace("COLUMNS", '["loss"]') + f"""\
loss = frame["loss"].to_numpy()
counts, edges = np.histogram(loss[np.isfinite(loss)], bins={BINS})
axes.stairs(counts, edges, fill=True)
figure.savefig(io.BytesIO(), format="svg")
print(len(counts))
"""
MPL_HEATMAP = MPL_SETUP.replace("COLUMNS", '["step", "loss"]') + f"""\
counts, xs, ys = np.histogram2d(frame["step"].to_numpy(float), frame["loss"].to_numpy(), bins={GRID})
axes.pcolormesh(xs, ys, counts.T)
figure.savefig(io.BytesIO(), format="svg")
print(counts.size)
"""
MPL_M4 = MPL_SETUP.replace("COLUMNS", '["run", "step", "loss"]') + f"""\
a = frame["step"].to_numpy("float64")
frame = frame.assign(px=np.minimum(np.floor((a - a.min()) / (a.max() - a.min()) * {PIXELS}).astype("int64"),
                                   {PIXELS - 1}))
frame = frame.sort_values(["run", "step"])
out = frame.groupby(["run", "px"])["loss"].agg(["min", "max", "first", "last"])
for run, rows in out.groupby(level="run"):
    axes.plot(rows.index.get_level_values("px"), rows["first"].to_numpy())
figure.savefig(io.BytesIO(), format="svg")
print(len(out))
"""
MPL_FIT = MPL_SETUP.replace("COLUMNS", '["run", "step", "loss"]') + f"""\
from statsmodels.regression.linear_model import OLS
for run, rows in frame.groupby("run", sort=True):
    x, y = rows["step"].to_numpy(float), rows["loss"].to_numpy(float)
    result = OLS(y, np.column_stack([np.ones_like(x), x])).fit()
    grid = np.linspace(x.min(), x.max(), {SAMPLES})
    band = result.get_prediction(np.column_stack([np.ones_like(grid), grid])).summary_frame(alpha={1 - LEVEL})
    axes.plot(grid, band["mean"].to_numpy())
    axes.fill_between(grid, band["mean_ci_lower"].to_numpy(), band["mean_ci_upper"].to_numpy(), alpha=0.2)
figure.savefig(io.BytesIO(), format="svg")
print({RUNS})
"""

# ------------------------------------------------------------------ chartc compile (a spec per chart)

SPECS = {
    "histogram": f"data: {{path: runs.parquet}}\nmark: bar\nencoding:\n  x: {{field: loss, bin: {{maxbins: {BINS}}}}}\n"
                 "  y: {aggregate: count}\n",
    "heatmap": f"data: {{path: runs.parquet}}\nmark: rect\nencoding:\n  x: {{field: step, bin: {{maxbins: {GRID}}}}}\n"
               f"  y: {{field: loss, bin: {{maxbins: {GRID}}}}}\n  color: {{aggregate: count}}\n",
    # 1,000 pixel columns: the PNG's, at twice the width
    "line": f"width: {PIXELS // 2}\ndata: {{path: runs.parquet}}\nmark: line\nencoding:\n  x: step\n  y: loss\n"
            "  color: {field: run, type: nominal}\n",
    "fit": "data: {path: runs.parquet}\nencoding:\n  x: step\n  y: loss\n  color: {field: run, type: nominal}\n"
           f"layers:\n  - trend: {{method: linear, band: {LEVEL}, by: run}}\n",
    # The same lines, one panel per run: the fit's part is the panel.
    "facet": "data: {path: runs.parquet}\nwidth: 120\nencoding:\n  x: step\n  y: loss\nfacet:\n  column: {field: run}\n"
             f"layers:\n  - trend: {{method: linear, band: {LEVEL}}}\n",
    # The same lines of a value a transform computes: the layer's rows are a query's, left in the engine.
    "computed": "data: {path: runs.parquet}\ntransform:\n  - calculate: \"datum.loss * 100\"\n    as: percent\n"
                "encoding:\n  x: step\n  y: percent\n  color: {field: run, type: nominal}\n"
                f"layers:\n  - trend: {{method: linear, band: {LEVEL}, by: run}}\n",
}

# DuckDB alone's M4 above is min/max of loss and the loss at the first and last step: not the first and last
# rows' steps, nor the rows of the extremes. This one computes all that M4 keeps (the line's second peer).
SAME_PEER = "DuckDB alone, M4's aggregates"
ALONE = ("DuckDB alone", SAME_PEER, "DuckDB alone, one pass")

TASKS = {
    f"histogram, {BINS} bins": ("histogram", {"chartc engine": CHARTC_HISTOGRAM, "Altair + VegaFusion": ALTAIR_HISTOGRAM,
                                               "matplotlib + pandas": MPL_HISTOGRAM, "DuckDB alone": DUCKDB_HISTOGRAM}),
    f"heatmap, {GRID}x{GRID} bins": ("heatmap", {"chartc engine": CHARTC_HEATMAP, "Altair + VegaFusion": ALTAIR_HEATMAP,
                                                 "matplotlib + pandas": MPL_HEATMAP, "DuckDB alone": DUCKDB_HEATMAP}),
    f"line, {RUNS} runs, M4 to {PIXELS} px": ("line", {
        "chartc engine": CHARTC_M4, "Altair + VegaFusion": ALTAIR_LINE, "matplotlib + pandas": MPL_M4,
        "DuckDB alone": DUCKDB_M4, SAME_PEER: DUCKDB_M4_SAME}),
    f"linear fit + {LEVEL:.0%} band, {RUNS} runs": ("fit", {
        "chartc engine": CHARTC_FIT, "Altair + VegaFusion": ALTAIR_FIT, "matplotlib + pandas": MPL_FIT,
        "DuckDB alone": DUCKDB_FIT, "DuckDB alone, one pass": DUCKDB_FIT_ONE_PASS}),
    f"linear fit + {LEVEL:.0%} band, a panel per run": ("facet", {
        "chartc engine": CHARTC_FIT, "DuckDB alone": DUCKDB_FIT, "DuckDB alone, one pass": DUCKDB_FIT_ONE_PASS}),
    f"linear fit + {LEVEL:.0%} band of a calculated value, {RUNS} runs": ("computed", {
        "chartc engine": CHARTC_FIT, "DuckDB alone": DUCKDB_FIT, "DuckDB alone, one pass": DUCKDB_FIT_ONE_PASS}),
}


def options(parser) -> None:
    parser.add_argument("--huge", action="store_true", help="10^8 rows instead of 10^7 (~1.5 GB of Parquet)")
    parser.add_argument("--engines", action="store_true",
                        help="only chartc (its engine, its compile) and DuckDB alone: no Altair, no matplotlib")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per child before it is killed")
    parser.add_argument("--before", metavar="REV", help="also run `chartc compile` at git revision REV")
    parser.add_argument("--charts", nargs="+", default=list(SPECS), choices=list(SPECS),
                        help="only these charts (default: all six)")


def cell(series) -> str:
    if not series.ok:
        return f"{series.status}: {series.first_error()[-60:]}"
    return f"{seconds(series.median)} / {megabytes(series.maxrss_mb)}"


def ratio(a, b) -> str:
    return f"{a.median / b.median:.2f}x" if a.ok and b.ok else "n/a"


def sameness(now: bytes, then: bytes) -> str:
    """Whether two compiles of a chart are the same bytes: 'yes', 'yes but the data hash' (the provenance
    block's `data_hash` alone differs: a revision that hashes the file another way), 'the same rows drawn'
    (`then` also carried fields no mark reads, which `now` leaves out), or 'NO'."""
    if now == then:
        return "yes"
    import json

    def unhashed(text: bytes) -> dict:
        chart = json.loads(text)
        chart.get("usermeta", {}).get("chartc", {}).pop("data_hash", None)
        return chart

    def drawn(chart: dict, fields: set | None = None) -> tuple[dict, list]:
        """The chart without its data sets (named by their content) and their rows, only `fields` of them."""
        rows = [row for values in chart.pop("datasets", {}).values() for row in values]
        chart.pop("data", None)
        fields = fields if fields is not None else {name for row in rows for name in row}
        return chart, [{name: value for name, value in row.items() if name in fields} for row in rows]

    if unhashed(now) == unhashed(then):
        return "yes but the data hash"
    chart, rows = drawn(unhashed(now))
    fields = {name for row in rows for name in row}
    return "the same rows drawn, without fields no mark reads" if (chart, rows) == drawn(unhashed(then), fields) \
        else "NO"


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], argv, extra=options)
    runs = repeats(args, 3, 1)
    n = 10 ** 6 if args.quick else 10 ** 8 if args.huge else 10 ** 7
    env = child_env(args.repo)
    before = f"chartc compile at {args.before}" if args.before else None
    env_before = child_env(snapshot(args.repo, args.before)) if args.before else None
    same, alike = {}, {}  # the same bytes as at --before; as with the hash not cached
    with tempfile.TemporaryDirectory(prefix="chartc-aggregate-") as tmp:
        folder = Path(tmp)
        (folder / ".git").mkdir()  # the project root chartc's data paths may not leave
        path = folder / "runs.parquet"
        made = measure(python("-c", GENERATE, str(n), str(path), str(RUNS)), timeout=3600)
        if not made.ok:
            print(f"generating {n:,} rows failed: {made.status} {made.stderr[-300:]}", file=sys.stderr)
            return 1
        size = path.stat().st_size
        cache, unusable = folder / "cache", folder / "no-cache"
        unusable.write_text("a file where the cache folder would be: nothing is kept, nothing found\n")
        env, uncached = {**env, "XDG_CACHE_HOME": str(cache)}, {**env, "XDG_CACHE_HOME": str(unusable)}
        env_before = env_before and {**env_before, "XDG_CACHE_HOME": str(cache)}
        primer = folder / "prime.yaml"
        primer.write_text(SPECS["histogram"], encoding="utf-8")
        time.sleep(max(0.0, path.stat().st_mtime + 2.5 - time.time()))  # a file written just now is not kept
        primed = measure(python("-c", PRIME_HASH, str(primer)), cwd=args.repo, env=env, timeout=args.timeout)
        if not primed.ok:
            print(f"hashing the data file failed: {primed.status} {primed.stderr[-300:]}", file=sys.stderr)
            return 1
        results, sizes = {}, {}
        for task, (chart, scripts) in TASKS.items():
            commands = {name: {"cmd": python("-c", script, str(path)), "cwd": args.repo, "env": env,
                               "timeout": args.timeout} for name, script in scripts.items()
                        if (not args.engines or name in ("chartc engine", *ALONE)) and chart in args.charts}
            if not commands:
                continue
            spec = folder / f"{chart}.yaml"
            spec.write_text(SPECS[chart], encoding="utf-8")
            commands["chartc compile"] = {"cmd": chartc("compile", str(spec), "-o", str(folder / f"{chart}.vl.json")),
                                          "cwd": args.repo, "env": env, "timeout": args.timeout}
            commands["chartc compile, hash not cached"] = {
                "cmd": chartc("compile", str(spec), "-o", str(folder / f"{chart}.uncached.vl.json")),
                "cwd": args.repo, "env": uncached, "timeout": args.timeout}
            if before:
                commands[before] = {"cmd": chartc("compile", str(spec), "-o", str(folder / f"{chart}.before.vl.json")),
                                    "cwd": args.repo, "env": env_before, "timeout": args.timeout}
            results[task] = compare(commands, runs, warmup=1 if n <= 10 ** 7 else 0)
            written = folder / f"{chart}.vl.json"
            sizes[task] = written.stat().st_size if written.exists() else None
            then, cold = folder / f"{chart}.before.vl.json", folder / f"{chart}.uncached.vl.json"
            if before and written.exists() and then.exists():
                same[task] = sameness(written.read_bytes(), then.read_bytes())
            if written.exists() and cold.exists():
                alike[task] = written.read_bytes() == cold.read_bytes()

    print_machine(args.repo)
    print(f"\n== {n:,} rows, {RUNS} runs of {n // RUNS:,} steps (Parquet {size / 2**20:.0f} MB): "
          f"wall / peak RSS, median of {runs}, fresh process each, import included")
    for task, series in results.items():
        engine, peers = series["chartc engine"], [series[name] for name in ALONE if name in series]
        rows = [[name, cell(s), ratio(engine, s)] + [ratio(s, peer) for peer in peers] for name, s in series.items()]
        size = f"{sizes[task] / 1000:,.1f} kB" if sizes.get(task) is not None else "not written"
        then = "" if task not in same else f"; the same bytes at {args.before}: {same[task]}"
        then += "" if task not in alike else f"; the same bytes, hash not cached: {'yes' if alike[task] else 'NO'}"
        print(f"\n-- {task} (chartc compile's Vega-Lite: {size}{then})")
        print(table(["command", "wall / peak RSS", "chartc engine / it"]
                    + [f"it / {name}" for name in ALONE if name in series], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
