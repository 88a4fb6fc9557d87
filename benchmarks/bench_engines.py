"""The embedded data engine, chosen by measurement: DuckDB, Polars, DataFusion, pyarrow, pandas.

chartc's data stage (issue 16) needs an engine that reads CSV and Parquet of any
size and aggregates before render. This script measures the candidates on the
work a chart asks of them, each figure a fresh child process (import included,
as a user's first chart pays it), median of the repeats, peak RSS of the child:

- cold import of each engine (and of VegaFusion, Ibis and sqlglot) against
  ``python -c pass``, and a small chart's whole data cost: read a 1,000-row CSV
  and compute a group-by mean;
- on generated, seeded data (10^6 and 10^7 rows; ``--huge`` adds 10^8), a
  Parquet and a CSV file with columns run (20 categories), step, loss (float
  with NaNs), ts (ISO timestamps with Z) and model_id (17-digit integers):
  read + count of each, then on the Parquet file a 40-bin histogram of loss, a
  50x50 binned heatmap of step x loss, per-run M4 of the loss line to 1,000
  pixel columns (min/max/first/last per column), the centred sufficient
  statistics of a linear fit per run, and a filter with a text predicate;
- type inference on a crafted CSV (BOM in the header, ``...Z`` timestamps,
  17-digit integers), checked, not assumed;
- the Spark path: one Ibis expression compiled to DuckDB SQL and to Spark SQL,
  and sqlglot transpiling the DuckDB SQL of the fit to Spark SQL.

    python benchmarks/bench_engines.py [--quick] [--repeat N] [--sizes 6,7] [--huge] [--engines duckdb,polars]

Engines that are not installed are reported ``missing`` (``pip install -e '.[bench]'`` installs them).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import arguments, child_env, compare, measure, megabytes, print_machine, python, repeats, seconds, table

ENGINES = ("duckdb", "polars", "datafusion", "pyarrow", "pandas", "vegafusion")
LAYERS = {"ibis": "ibis", "sqlglot": "sqlglot"}
# What each engine is asked (VegaFusion evaluates Vega transforms: the binned ones here).
ENGINE_TASKS = {"vegafusion": ("histogram 40", "heatmap 50x50")}
TASKS = ("csv count", "parquet count", "histogram 40", "heatmap 50x50", "M4 1000 px", "fit stats", "text filter")
RUNS = 20
BINS, HEAT, PIXELS = 40, 50, 1000

# ------------------------------------------------------------------ data, made in a child (seeded)

GENERATE = """\
import sys
import numpy as np, pyarrow as pa, pyarrow.compute as pc, pyarrow.csv as csv, pyarrow.parquet as pq
n, folder = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(16)
chunk = 2_000_000
pw = cw = None
for start in range(0, n, chunk):
    m = min(chunk, n - start)
    idx = np.arange(start, start + m)
    run = idx % 20
    step = idx // 20
    loss = 3.0 * np.exp(-step / max(n / 20 / 4, 1)) + rng.normal(0, 0.05, m) + run * 0.01
    loss[rng.random(m) < 0.01] = np.nan
    ts = (np.datetime64("2024-01-01T00:00:00", "s") + step.astype("timedelta64[s]")).astype("datetime64[s]")
    names = pa.array([f"run-{i:02d}" for i in range(20)])
    table = pa.table({
        "run": pc.take(names, pa.array(run)),
        "step": pa.array(step, pa.int64()),
        "loss": pa.array(loss, pa.float64()),
        "ts": pa.array(ts, pa.timestamp("s", tz="UTC")),
        "model_id": pa.array(10**16 + 1234567 * idx + run, pa.int64()),
    })
    text = table.set_column(3, "ts", pc.strftime(table["ts"], "%Y-%m-%dT%H:%M:%SZ"))
    if pw is None:
        pw = pq.ParquetWriter(f"{folder}/runs.parquet", table.schema)
        cw = csv.CSVWriter(f"{folder}/runs.csv", text.schema)
    pw.write_table(table)
    cw.write_table(text)
pw.close(); cw.close()
"""

SMALL_CSV = "".join(
    ["run,step,loss\n"] + [f"run-{i % 5},{i},{1.0 / (1 + i):.6f}\n" for i in range(1000)])
# BOM before the header, ISO timestamps with Z, 17-digit integers one apart (a float64 would merge them).
CRAFTED_CSV = "\ufeffts,model_id,x\n2024-01-01T00:00:00Z,12345678901234567,1.5\n2024-01-02T12:30:00Z,12345678901234568,2\n"

# ------------------------------------------------------------------ SQL shared by DuckDB and DataFusion

# The extent comes from the same query, as a chart with an unset domain needs it.
SQL = {
    "count": "SELECT count(*) AS n FROM t",
    "histogram 40": f"""
        WITH v AS (SELECT loss FROM t WHERE loss IS NOT NULL AND NOT isnan(loss)),
             e AS (SELECT min(loss) AS lo, max(loss) AS hi FROM v)
        SELECT least(CAST(floor((loss - lo) / (hi - lo) * {BINS}) AS BIGINT), {BINS - 1}) AS b, count(*) AS n
        FROM v CROSS JOIN e GROUP BY 1 ORDER BY 1""",
    "heatmap 50x50": f"""
        WITH v AS (SELECT step, loss FROM t WHERE loss IS NOT NULL AND NOT isnan(loss)),
             e AS (SELECT min(step) AS x0, max(step) AS x1, min(loss) AS y0, max(loss) AS y1 FROM v)
        SELECT least(CAST(floor((step - x0) / CAST(x1 - x0 AS DOUBLE) * {HEAT}) AS BIGINT), {HEAT - 1}) AS bx,
               least(CAST(floor((loss - y0) / (y1 - y0) * {HEAT}) AS BIGINT), {HEAT - 1}) AS by_, count(*) AS n
        FROM v CROSS JOIN e GROUP BY 1, 2 ORDER BY 1, 2""",
    # first/last by step: the row at the smallest/largest step of the column (first_value over the group).
    "M4 1000 px": f"""
        WITH v AS (SELECT run, step, loss FROM t WHERE loss IS NOT NULL AND NOT isnan(loss)),
             e AS (SELECT min(step) AS x0, max(step) AS x1 FROM v),
             p AS (SELECT run, step, loss,
                          least(CAST(floor((step - x0) / CAST(x1 - x0 AS DOUBLE) * {PIXELS}) AS BIGINT),
                                {PIXELS - 1}) AS px FROM v CROSS JOIN e)
        SELECT run, px, min(loss) AS lo, max(loss) AS hi,
               first_value(loss ORDER BY step) AS first, last_value(loss ORDER BY step) AS last
        FROM p GROUP BY run, px ORDER BY run, px""",
    "fit stats": """
        WITH v AS (SELECT run, CAST(step AS DOUBLE) AS x, loss AS y FROM t WHERE loss IS NOT NULL AND NOT isnan(loss)),
             m AS (SELECT run, avg(x) AS mx, avg(y) AS my FROM v GROUP BY run)
        SELECT v.run, count(*) AS n, sum(x) AS sx, sum(y) AS sy, sum((x - mx) * (x - mx)) AS sxx,
               sum((x - mx) * (y - my)) AS sxy, sum((y - my) * (y - my)) AS syy
        FROM v JOIN m ON v.run = m.run GROUP BY v.run ORDER BY v.run""",
    "text filter": "SELECT count(*) AS n, avg(loss) AS mean FROM t WHERE run LIKE '%-1%' AND NOT isnan(loss)",
}
# DuckDB's own names for first/last by an order (its first_value is a window function only).
DUCKDB_SQL = dict(SQL, **{"M4 1000 px": SQL["M4 1000 px"].replace(
    "first_value(loss ORDER BY step)", "arg_min(loss, step)").replace(
    "last_value(loss ORDER BY step)", "arg_max(loss, step)")})

# ------------------------------------------------------------------ one child per (engine, task)

# Each script: argv[1] = task, argv[2] = data file; prints the result's row count on stdout.
ENGINE_SCRIPTS = {
    "duckdb": """\
import sys, duckdb
task, path = sys.argv[1], sys.argv[2]
reader = "read_csv_auto" if path.endswith(".csv") else "read_parquet"
con = duckdb.connect()
# Parquet min/max statistics leave NaN out; without this DuckDB folds isnan(loss) to false (duckdb#25521).
con.execute("SET parquet_can_have_nan = true")
con.execute(f"CREATE VIEW t AS SELECT * FROM {reader}('{path}')")
print(len(con.execute(SQL[task]).fetchall()))
""",
    "datafusion": """\
import sys, datafusion
task, path = sys.argv[1], sys.argv[2]
ctx = datafusion.SessionContext()
(ctx.register_csv if path.endswith(".csv") else ctx.register_parquet)("t", path)
print(len(ctx.sql(SQL[task]).to_arrow_table()))
""",
    "polars": """\
import sys, polars as pl
task, path = sys.argv[1], sys.argv[2]
t = pl.scan_csv(path) if path.endswith(".csv") else pl.scan_parquet(path)
v = t.filter(pl.col("loss").is_not_nan())
def scaled(col, lo, hi, n):
    return pl.min_horizontal(((pl.col(col) - lo) / (hi - lo) * n).floor().cast(pl.Int64), n - 1)
if task == "count":
    out = t.select(pl.len()).collect()
elif task == "histogram 40":
    e = v.select(lo=pl.col("loss").min(), hi=pl.col("loss").max())
    out = (v.join(e, how="cross").group_by(b=scaled("loss", pl.col("lo"), pl.col("hi"), BINS))
           .agg(n=pl.len()).sort("b").collect())
elif task == "heatmap 50x50":
    e = v.select(x0=pl.col("step").min(), x1=pl.col("step").max(), y0=pl.col("loss").min(), y1=pl.col("loss").max())
    out = (v.join(e, how="cross").group_by(bx=scaled("step", pl.col("x0"), pl.col("x1"), HEAT),
                                           by_=scaled("loss", pl.col("y0"), pl.col("y1"), HEAT))
           .agg(n=pl.len()).sort("bx", "by_").collect())
elif task == "M4 1000 px":
    e = v.select(x0=pl.col("step").min(), x1=pl.col("step").max())
    out = (v.join(e, how="cross").with_columns(px=scaled("step", pl.col("x0"), pl.col("x1"), PIXELS))
           .group_by("run", "px").agg(lo=pl.col("loss").min(), hi=pl.col("loss").max(),
                                      first=pl.col("loss").sort_by("step").first(),
                                      last=pl.col("loss").sort_by("step").last())
           .sort("run", "px").collect())
elif task == "fit stats":
    x, y = pl.col("step").cast(pl.Float64), pl.col("loss")
    m = v.group_by("run").agg(mx=x.mean(), my=y.mean())
    dx, dy = x - pl.col("mx"), y - pl.col("my")
    out = (v.join(m, on="run").group_by("run").agg(n=pl.len(), sx=x.sum(), sy=y.sum(), sxx=(dx * dx).sum(),
                                                   sxy=(dx * dy).sum(), syy=(dy * dy).sum()).sort("run").collect())
elif task == "text filter":
    out = v.filter(pl.col("run").str.contains("-1", literal=True)).select(n=pl.len(), mean=pl.col("loss").mean()).collect()
print(len(out))
""",
    # pyarrow: Arrow's compute kernels and Acero group-by, numpy for the bin arithmetic.
    "pyarrow": """\
import sys, numpy as np, pyarrow as pa, pyarrow.compute as pc, pyarrow.csv as csv, pyarrow.parquet as pq
task, path = sys.argv[1], sys.argv[2]
cols = {"count": None, "histogram 40": ["loss"], "heatmap 50x50": ["step", "loss"], "M4 1000 px": ["run", "step", "loss"],
        "fit stats": ["run", "step", "loss"], "text filter": ["run", "loss"]}[task]
if path.endswith(".csv"):
    t = csv.read_csv(path, convert_options=csv.ConvertOptions(include_columns=cols) if cols else None)
else:
    t = pq.read_table(path, columns=cols)
if task == "count":
    print(1 if t.num_rows >= 0 else 0); sys.exit()
t = t.filter(pc.invert(pc.is_nan(t["loss"])))
def scaled(a, n):
    a = a.to_numpy().astype("float64"); lo, hi = a.min(), a.max()
    return np.minimum(np.floor((a - lo) / (hi - lo) * n).astype("int64"), n - 1)
if task == "histogram 40":
    out = np.bincount(scaled(t["loss"], BINS), minlength=BINS)
elif task == "heatmap 50x50":
    out = np.bincount(scaled(t["step"], HEAT) * HEAT + scaled(t["loss"], HEAT), minlength=HEAT * HEAT)
elif task == "M4 1000 px":
    t = t.append_column("px", pa.array(scaled(t["step"], PIXELS))).sort_by([("run", "ascending"), ("step", "ascending")])
    out = t.group_by(["run", "px"], use_threads=False).aggregate(
        [("loss", "min"), ("loss", "max"), ("loss", "first"), ("loss", "last")])
elif task == "fit stats":
    t = t.set_column(1, "step", pc.cast(t["step"], pa.float64()))
    m = t.group_by("run").aggregate([("step", "mean"), ("loss", "mean")])
    j = t.join(m, "run")
    dx, dy = pc.subtract(j["step"], j["step_mean"]), pc.subtract(j["loss"], j["loss_mean"])
    j = pa.table({"run": j["run"], "x": j["step"], "y": j["loss"], "xx": pc.multiply(dx, dx),
                  "xy": pc.multiply(dx, dy), "yy": pc.multiply(dy, dy)})
    out = j.group_by("run").aggregate([("x", "count"), ("x", "sum"), ("y", "sum"), ("xx", "sum"), ("xy", "sum"),
                                       ("yy", "sum")])
elif task == "text filter":
    f = t.filter(pc.match_substring(t["run"], "-1"))
    out = [f.num_rows, pc.mean(f["loss"]).as_py()]
print(len(out))
""",
    # VegaFusion: Vega-Lite -> Vega (vl-convert) -> its DataFusion runtime, as Altair's "vegafusion"
    # data transformer runs it. NaN goes first: VegaFusion 2.0.3 panics binning a column holding NaN.
    "vegafusion": """\
import sys, json, pyarrow.compute as pc, pyarrow.parquet as pq, vl_convert, vegafusion as vf
task, path = sys.argv[1], sys.argv[2]
t = pq.read_table(path, columns=["step", "loss"])
t = t.filter(pc.invert(pc.is_nan(t["loss"])))
enc = {"x": {"field": "loss", "bin": {"maxbins": BINS}}, "y": {"aggregate": "count"}}
if task == "heatmap 50x50":
    enc = {"x": {"field": "step", "bin": {"maxbins": HEAT}}, "y": {"field": "loss", "bin": {"maxbins": HEAT}},
           "color": {"aggregate": "count"}}
vega = vl_convert.vegalite_to_vega({"data": {"url": "vegafusion+dataset://t"}, "mark": "rect", "encoding": enc})
spec, _ = vf.runtime.pre_transform_spec(json.loads(vega) if isinstance(vega, str) else vega, inline_datasets={"t": t})
print(len(spec["data"][0]["values"]))
""",
    # pandas: what a matplotlib script pays for the same aggregation (pyarrow reads the Parquet).
    "pandas": """\
import sys, numpy as np, pandas as pd
task, path = sys.argv[1], sys.argv[2]
cols = {"count": None, "histogram 40": ["loss"], "heatmap 50x50": ["step", "loss"], "M4 1000 px": ["run", "step", "loss"],
        "fit stats": ["run", "step", "loss"], "text filter": ["run", "loss"]}[task]
t = pd.read_csv(path, usecols=cols) if path.endswith(".csv") else pd.read_parquet(path, columns=cols)
if task == "count":
    print(1 if len(t) >= 0 else 0); sys.exit()
t = t[t["loss"].notna()]
def scaled(s, n):
    a = s.to_numpy("float64"); lo, hi = a.min(), a.max()
    return np.minimum(np.floor((a - lo) / (hi - lo) * n).astype("int64"), n - 1)
if task == "histogram 40":
    out = np.bincount(scaled(t["loss"], BINS), minlength=BINS)
elif task == "heatmap 50x50":
    out = np.bincount(scaled(t["step"], HEAT) * HEAT + scaled(t["loss"], HEAT), minlength=HEAT * HEAT)
elif task == "M4 1000 px":
    t = t.assign(px=scaled(t["step"], PIXELS)).sort_values(["run", "step"])
    out = t.groupby(["run", "px"])["loss"].agg(["min", "max", "first", "last"])
elif task == "fit stats":
    t = t.assign(x=t["step"].astype("float64"), y=t["loss"])
    g = t.groupby("run")
    dx, dy = t["x"] - g["x"].transform("mean"), t["y"] - g["y"].transform("mean")
    out = t.assign(xx=dx * dx, xy=dx * dy, yy=dy * dy).groupby("run")[["x", "y", "xx", "xy", "yy"]].agg(["count", "sum"])
elif task == "text filter":
    f = t[t["run"].str.contains("-1", regex=False)]
    out = [len(f), f["loss"].mean()]
print(len(out))
""",
}

PRELUDE = f"SQL = {SQL!r}\nBINS, HEAT, PIXELS = {BINS}, {HEAT}, {PIXELS}\n"


def engine_script(engine: str) -> str:
    """The child's program: the shared constants, then the engine's code (DuckDB gets its own SQL names)."""
    prelude = PRELUDE if engine != "duckdb" else f"SQL = {DUCKDB_SQL!r}\n"
    return prelude + ENGINE_SCRIPTS[engine]


# What an engine's first use imports (VegaFusion needs Vega, i.e. vl-convert, to run a Vega-Lite spec).
IMPORTS = {"vegafusion": "vegafusion, vl_convert"}

# A small chart's data cost: read 1,000 rows, mean per category.
SMALL = {
    "duckdb": "import duckdb, sys; duckdb.sql(f\"SELECT run, avg(loss) FROM read_csv_auto('{sys.argv[1]}') "
              "GROUP BY run\").fetchall()",
    "polars": "import polars as pl, sys; pl.read_csv(sys.argv[1]).group_by('run').agg(pl.col('loss').mean())",
    "datafusion": "import datafusion, sys; c = datafusion.SessionContext(); c.register_csv('t', sys.argv[1]); "
                  "c.sql('SELECT run, avg(loss) FROM t GROUP BY run').to_arrow_table()",
    "pyarrow": "import pyarrow.csv as c, sys; c.read_csv(sys.argv[1]).group_by('run').aggregate([('loss', 'mean')])",
    "pandas": "import pandas as pd, sys; pd.read_csv(sys.argv[1]).groupby('run')['loss'].mean()",
    "vegafusion": "import pyarrow.csv as c, sys, vl_convert, vegafusion as vf; vf.runtime.pre_transform_spec("
                  "vl_convert.vegalite_to_vega({'data': {'url': 'vegafusion+dataset://t'}, 'mark': 'bar', "
                  "'encoding': {'x': {'field': 'run'}, 'y': {'aggregate': 'mean', 'field': 'loss'}}}), "
                  "inline_datasets={'t': c.read_csv(sys.argv[1])})",
    # chartc today: its own Table reader and a Python mean (the floor an engine is compared with).
    "csv module": "import csv, sys, statistics as s; rows = list(csv.DictReader(open(sys.argv[1]))); "
                  "g = {}; [g.setdefault(r['run'], []).append(float(r['loss'])) for r in rows]; "
                  "{k: s.fmean(v) for k, v in g.items()}",
}

# A small chart's whole cold compile today, and the same with DuckDB reading its CSV first: the cost
# the engine would add to `chartc compile` if it were imported for every chart.
SEED_SPEC, SEED_DATA = "specs/seed_pretraining.yaml", "specs/data/attention_variants.csv"
COMPILE = ("import sys\n{engine}sys.argv = ['chartc', 'compile', sys.argv[1], '-o', sys.argv[2]]\n"
           "from chartc.commands.cli import run\nrun()\n")
WITH_DUCKDB = f"import duckdb\nduckdb.sql(\"SELECT * FROM read_csv_auto('{SEED_DATA}')\").fetchall()\n"


def loaded_by(command: list[str], repo: Path, env: dict) -> list[str]:
    """Which engines (and query layers) a chartc command imports: the light paths must load none."""
    run = subprocess.run(python("-X", "importtime", "-m", "chartc", *command), cwd=repo, env=env,
                         capture_output=True, text=True, timeout=300)
    names = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    return sorted(m for m in ENGINES + tuple(LAYERS) if m in names)


# ------------------------------------------------------------------ type inference, checked

# Each prints JSON {"timestamp": bool, "exact_ids": bool, "bom_stripped": bool, "how": str}.
INFER = {
    "duckdb": """\
import duckdb, sys
r = duckdb.sql(f"SELECT * FROM read_csv_auto('{sys.argv[1]}')")
types = dict(zip(r.columns, map(str, r.dtypes))); rows = r.fetchall()
ids = [row[r.columns.index("model_id")] if "model_id" in r.columns else row[1] for row in rows]
how = "read_csv_auto(path)"
""",
    "polars": """\
import polars as pl, sys
d = pl.read_csv(sys.argv[1]); types = {c: str(t) for c, t in d.schema.items()}
ids = d.to_series(1).to_list(); how = "read_csv(path); try_parse_dates=True parses the Z timestamps"
""",
    "datafusion": """\
import datafusion, sys
c = datafusion.SessionContext(); c.register_csv("t", sys.argv[1]); tab = c.sql("SELECT * FROM t").to_arrow_table()
types = {f.name: str(f.type) for f in tab.schema}; ids = tab.column(1).to_pylist(); how = "register_csv(path)"
""",
    "pyarrow": """\
import pyarrow.csv as csv, sys
tab = csv.read_csv(sys.argv[1]); types = {f.name: str(f.type) for f in tab.schema}
ids = tab.column(1).to_pylist(); how = "pyarrow.csv.read_csv(path)"
""",
    "pandas": """\
import pandas as pd, sys
d = pd.read_csv(sys.argv[1]); types = {c: str(t) for c, t in d.dtypes.items()}
ids = d.iloc[:, 1].tolist(); how = "read_csv(path); parse_dates= needed for timestamps"
""",
}
INFER_CHECK = """
import json
ts_type = list(types.values())[0].lower()
print(json.dumps({"timestamp": "timestamp" in ts_type or "datetime" in ts_type,
                  "exact_ids": [int(i) for i in ids] == [12345678901234567, 12345678901234568]
                               and all(isinstance(i, int) for i in ids),
                  "bom_stripped": list(types)[0] == "ts", "types": types, "how": how}))
"""

# A Parquet file written by pyarrow, x = [1.0, NaN, 2.0]: NaN is left out of its min/max statistics
# (as the Parquet format says); each engine's idiomatic NaN count must still find it (prints the count).
NAN_PARQUET = """\
import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({"x": [1.0, float("nan"), 2.0]}), sys.argv[1])
"""
NAN_COUNT = {
    "duckdb": "import duckdb, sys; print(duckdb.sql(f\"SELECT count(*) FROM read_parquet('{sys.argv[1]}') "
              "WHERE isnan(x)\").fetchone()[0])",
    "polars": "import polars as pl, sys; print(pl.read_parquet(sys.argv[1])['x'].is_nan().sum())",
    "datafusion": "import datafusion, sys; c = datafusion.SessionContext(); c.register_parquet('t', sys.argv[1]); "
                  "print(c.sql('SELECT count(*) AS n FROM t WHERE isnan(x)').to_pydict()['n'][0])",
    "pyarrow": "import pyarrow.compute as pc, pyarrow.parquet as pq, sys; "
               "print(pc.sum(pc.is_nan(pq.read_table(sys.argv[1])['x'])).as_py())",
    "pandas": "import pandas as pd, sys; print(int(pd.read_parquet(sys.argv[1])['x'].isna().sum()))",
}

# ------------------------------------------------------------------ the Spark path

SPARK_PATH = """\
import json, sys, ibis, sqlglot

class SparkOptions(ibis.config.Config):
    # What importing Ibis's pyspark backend registers (it needs pyspark itself); the compiler reads it.
    treat_nan_as_null: bool = False

setattr(ibis.options, "pyspark", SparkOptions())
t = ibis.table({"run": "string", "step": "int64", "loss": "float64"}, name="runs")
v = t.filter(t.loss.notnull() & ~t.loss.isnan()).mutate(x=t.step.cast("float64"), y=t.loss)
m = v.group_by("run").aggregate(mx=v.x.mean(), my=v.y.mean())
j = v.join(m, "run")
dx, dy = j.x - j.mx, j.y - j.my
expr = j.group_by("run").aggregate(n=j.count(), sx=j.x.sum(), sy=j.y.sum(), sxx=(dx * dx).sum(),
                                   sxy=(dx * dy).sum(), syy=(dy * dy).sum()).order_by("run")
pretty = sys.argv[1] == "pretty"
out = {"ibis -> duckdb": ibis.to_sql(expr, dialect="duckdb", pretty=pretty),
       "ibis -> spark": ibis.to_sql(expr, dialect="pyspark", pretty=pretty)}
out["sqlglot: duckdb M4 SQL -> spark"] = sqlglot.transpile(SQL["M4 1000 px"].replace("FROM t ", "FROM runs "),
                                                          read="duckdb", write="spark", pretty=pretty)[0]
print(json.dumps(out))
"""


def options(parser) -> None:
    parser.add_argument("--sizes", default="6,7", help="powers of ten of the generated row counts (default 6,7)")
    parser.add_argument("--huge", action="store_true", help="add 10^8 rows (~5 GB of CSV in the temp folder)")
    parser.add_argument("--engines", default=",".join(ENGINES), help="which engines to measure")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per child before it is killed")
    parser.add_argument("--show-sql", action="store_true", help="print the Spark path's generated SQL in full")


def installed(module: str, env=None) -> bool:
    return measure(python("-c", f"import {module}"), env=env, timeout=300).ok


VERSIONED = ("duckdb", "polars", "datafusion", "pyarrow", "pandas", "vegafusion", "ibis-framework", "sqlglot")


def version(name: str) -> str:
    from importlib import metadata  # reads the installed metadata, imports nothing

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(missing)"


def ratio(results: dict, exp: int, task: str, engine: str) -> str:
    mine, base = results.get((exp, task, engine)), results.get((exp, task, "duckdb"))
    if mine is None:
        return "-"
    if not (mine.ok and base and base.ok):
        return "n/a"
    return f"{mine.median / base.median:.2f}x"


def cell(series) -> str:
    if series is None:
        return "-"
    if not series.ok:
        return series.status
    return f"{seconds(series.median)} / {megabytes(series.maxrss_mb)}"


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], argv, extra=options)
    runs = repeats(args, 3, 1)
    engines = [e for e in args.engines.split(",") if e]
    present = {e: installed(e) for e in engines}
    layers = {name: installed(module) for name, module in LAYERS.items()}
    exps = [int(x) for x in args.sizes.split(",")] + ([8] if args.huge else [])
    if args.quick:
        exps = [e for e in exps if e <= 6] or [6]
    live = [e for e in engines if present[e]]

    with tempfile.TemporaryDirectory(prefix="chartc-engines-") as tmp:
        folder = Path(tmp)
        small, crafted = folder / "small.csv", folder / "crafted.csv"
        small.write_text(SMALL_CSV)
        crafted.write_text(CRAFTED_CSV, encoding="utf-8")

        # 1. Import and a small chart's data cost.
        cold = {"python -c pass": {"cmd": python("-c", "pass"), "timeout": 120}}
        for name in live + [n for n, ok in layers.items() if ok]:
            module = IMPORTS.get(name, name)
            cold[f"import {module}"] = {"cmd": python("-c", f"import {module}"), "timeout": 300}
        for name in [e for e in live if e in SMALL] + ["csv module"]:
            cold[f"small: {name}"] = {"cmd": python("-c", SMALL[name], str(small)), "timeout": 300}
        repo, env = args.repo, child_env(args.repo)
        svg = str(folder / "seed.svg")
        cold["chartc compile seed (today)"] = {"cmd": python("-c", COMPILE.format(engine=""), SEED_SPEC, svg),
                                               "cwd": repo, "env": env, "timeout": 300}
        cold["chartc compile seed + duckdb reads its CSV"] = {
            "cmd": python("-c", COMPILE.format(engine=WITH_DUCKDB), SEED_SPEC, svg), "cwd": repo, "env": env,
            "timeout": 300}
        small_series = compare(cold, repeats(args, 5, 2))
        light = {" ".join(c): loaded_by(c, repo, env) for c in (["--version"], ["validate", SEED_SPEC])}
        base = small_series["python -c pass"].median
        rows1 = [[name, seconds(s.median), seconds(s.median - base) if s.ok else s.status,
                  megabytes(s.maxrss_mb)] for name, s in small_series.items()]

        # 2. Generated data: one child per (engine, task, size), interleaved across engines.
        results: dict[tuple[int, str, str], object] = {}
        files: dict[int, tuple[Path, Path]] = {}
        for exp in exps:
            n = 10 ** exp
            sub = folder / f"e{exp}"
            sub.mkdir()
            made = measure(python("-c", GENERATE, str(n), str(sub)), timeout=3600)
            if not made.ok:
                print(f"generating 10^{exp} rows failed: {made.status} {made.stderr[-300:]}", file=sys.stderr)
                continue
            files[exp] = (sub / "runs.csv", sub / "runs.parquet")
            for task in TASKS:
                path = files[exp][0] if task == "csv count" else files[exp][1]
                key_task = "count" if task.endswith("count") else task
                commands = {e: {"cmd": python("-c", engine_script(e), key_task, str(path)), "timeout": args.timeout}
                            for e in live if task in ENGINE_TASKS.get(e, TASKS)}
                for engine, series in compare(commands, runs, warmup=1 if exp <= 6 else 0).items():
                    results[(exp, task, engine)] = series

        # 3. Type inference on the crafted CSV.
        nan_file = folder / "nan.parquet"
        subprocess.run(python("-c", NAN_PARQUET, str(nan_file)), check=True, timeout=300)
        inference = {}
        for engine in [e for e in live if e in INFER]:
            found = subprocess.run(python("-c", NAN_COUNT[engine], str(nan_file)), capture_output=True, text=True,
                                   timeout=300)
            out = subprocess.run(python("-c", INFER[engine] + INFER_CHECK, str(crafted)), capture_output=True,
                                 text=True, timeout=300)
            inference[engine] = json.loads(out.stdout) if out.returncode == 0 else {
                "error": (out.stderr.strip().splitlines() or ["?"])[-1]}
            inference[engine]["parquet_nan"] = found.stdout.strip() == "1"

        # 4. The Spark path.
        spark = None
        if layers["ibis"] and layers["sqlglot"]:
            done = subprocess.run(python("-c", f"SQL = {DUCKDB_SQL!r}\n" + SPARK_PATH,
                                        "pretty" if args.show_sql else "flat"), capture_output=True,
                                  text=True, timeout=300)
            spark = json.loads(done.stdout) if done.returncode == 0 else {
                "error": (done.stderr.strip().splitlines() or ["?"])[-1]}

        sizes = {exp: (files[exp][0].stat().st_size, files[exp][1].stat().st_size) for exp in files}

    print_machine(args.repo)
    print("engines  ", ", ".join(f"{name} {version(name)}" for name in VERSIONED))
    print(f"\n== 1. cold start (median of {repeats(args, 5, 2)}, fresh process each)")
    print(table(["command", "wall", "over python -c pass", "peak RSS"], rows1))
    today = small_series["chartc compile seed (today)"]
    engine = small_series["chartc compile seed + duckdb reads its CSV"]
    if today.ok and engine.ok:
        print(f"   DuckDB in a small chart's compile: +{seconds(engine.median - today.median)} "
              f"({engine.median / today.median:.2f}x of today's cold compile)")
    for command, found in light.items():
        print(f"   chartc {command} imports: {', '.join(found) or 'no engine'} (must be none)")
    for exp in files:
        csv_size, pq_size = sizes[exp]
        print(f"\n== 2. 10^{exp} rows (CSV {csv_size / 2**20:.0f} MB, Parquet {pq_size / 2**20:.0f} MB): "
              f"wall / peak RSS, median of {runs}, import included")
        print(table(["task"] + live, [[task] + [cell(results.get((exp, task, e))) for e in live] for task in TASKS]))
        if "duckdb" in live:
            others = [e for e in live if e != "duckdb"]
            print(f"\n-- 10^{exp} rows: time as a ratio to DuckDB's (this run)")
            print(table(["task"] + [f"{e} / duckdb" for e in others],
                        [[task] + [ratio(results, exp, task, e) for e in others] for task in TASKS]))
        for (e_, task, engine), series in results.items():
            if e_ == exp and not series.ok:
                print(f"   {engine}, {task}: {series.first_error()}")
    print("\n== 3. type inference on a crafted CSV (BOM, 2024-01-01T00:00:00Z, 17-digit ids one apart)")
    print(table(["engine", "Z timestamp", "17-digit ids exact", "BOM stripped", "Parquet NaN found", "how read"],
                [[e, *("yes" if i.get(k) else "no" for k in ("timestamp", "exact_ids", "bom_stripped", "parquet_nan")),
                  i["how"]] if "error" not in i else [e, "error", "", "", "", i["error"]]
                 for e, i in inference.items()]))
    print("   Parquet NaN: a pyarrow-written [1.0, NaN, 2.0], default settings, the engine's NaN test counts 1")
    print("\n== 4. one query, two engines")
    if spark is None:
        print("ibis or sqlglot missing")
    elif "error" in spark:
        print("failed:", spark["error"])
    else:
        for key, text in spark.items():
            print(f"-- {key}")
            print(text)
    missing = [e for e in engines if not present[e]] + [n for n, ok in layers.items() if not ok]
    if missing:
        print("\nmissing (pip install -e '.[bench]'):", ", ".join(missing))
    print("\ncommands: python -c <engine script> TASK FILE;", shlex.join(python("-c", "pass")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
