"""The data stage on Spark against DuckDB: the same charts compiled on each engine, and each engine's scan rate.

On a generated, seeded Parquet file of 10^7 rows (``--huge``: 10^8), the one
`bench_bigdata_peers.py` writes (10 runs of ``run``, ``step``, ``loss``, ``lr``),
kept in a data folder between runs (``--data``; default
``$XDG_CACHE_HOME/chartc-benchmarks``, ``~/.cache/chartc-benchmarks``), eight charts
(`CHARTS`: `bench_bigdata_peers.SPECS`, a 40-bin histogram, a 50x50 binned heatmap, each
run's line reduced by M4 to 1,000 px, a linear fit per run with its 95% band, and the
same fits one facet panel per run, and the fits of a calculated value; and here the
best loss so far by step, a window over every row, each run's moving median and
distinct count binned, a frame's list of values per row, the loss and step folded and binned, and each
run's line with a gap imputed, and each run's total over the imputed steps, the imputed rows folded and
binned, a label of several kinds (a text or a number) counted, one of a text or a date, one of a text or an
array (read into Python, refused past the bound on such rows), and the fits over the
same rows as a CSV file, written once beside the Parquet file: chart `sent`),
each compiled in fresh processes, interleaved:

- ``duckdb``: ``chartc compile SPEC -o out.vl.json`` (the default engine);
- ``spark``: the same with ``--engine spark``, the master (``--master``, default
  ``local[2]``; a Spark Connect URL, ``sc://HOST:PORT``, names a server already
  running, whose JVM is not followed) and the Spark UI off set in a ``chartc.toml`` beside the specs
  (``[spark]``, written only for this path); where ``compile`` has no
  ``--engine`` yet, ``chartc.load`` inside the data stage's own switch,
  ``engine.use_engine(spark.SparkSettings(master=...))``, in a script.

For each: wall time; peak RSS of the Python process and of the JVM (every process
the command starts is followed through /proc: the largest ``VmHWM`` of a
``python`` and of a ``java`` process); then, in one more fresh process per
engine through the Python API, the time to import chartc, to start the Spark
session (for ``spark``), to compile (`chartc.load`) and to write the Vega-Lite
(chartc has no per-stage timing of its own). The two Vega-Lite files must be the
same bytes: "identical" or "DIFFERENT" is printed per chart.

Without a Spark engine in chartc (or without pyspark or java), the Spark half
prints "spark engine not available" with the reason, and the DuckDB half still
runs.

``--scan`` measures, instead, what the design note's estimates start from
(docs/spark.md): rows per CPU second of one DuckDB thread and of plain Spark SQL
on ``local[1]`` over the same file, for one column summed, three columns summed,
a 40-bin histogram, M4's aggregates per run and pixel column, and a fit's sums per
run (DuckDB SQL, transpiled by sqlglot for Spark). CPU seconds, not wall time: on
a shared machine they say what a core does, whatever share of it the process got.
Each query runs ``--repeat`` times in one process per engine (the JVM compiles its
code in the first runs: the run with the least CPU time is reported, every run in
the notes).

    python benchmarks/bench_spark.py [--quick] [--repeat N] [--huge] [--charts NAME ...] [--master URL]
        [--data DIR] [--timeout S] [--scan]
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

from _common import (Run, arguments, chartc, chartc_supports, child_env, measure, megabytes, print_machine, python,
                     repeats, seconds, table)
from bench_bigdata_peers import GENERATE, M4_PIXELS, PRIME_HASH, RUNS, SPECS as PEER_SPECS

# The best loss so far over every run, by step: Vega's default window frame, to the step's 10 rows (its peers), a RANGE
# frame in SQL (before, a frame of variable width, which Spark refuses: Vega's window then ran in Python).
# Each run's loss as a moving median and distinct count over 10 steps before to 10 after, binned: each row's frame
# as a list (Spark has no count(DISTINCT) over a window: before, the rows were read back into Vega's window in Python).
# The loss (floats) and the step (a complete integer column) folded, binned: Python holds the fold's cells as a mix of
# integers and floats (before, the rows were read back whole; now each kept row marks whether its cell is an integer).
# One run's every tenth step left out, then imputed (each step a run lacks, filled with 0), each run's line reduced by
# M4: before, the impute's rows were read back whole (and the line, past the mark limit, refused).
# The same impute, then each run's total and count of steps (an aggregate after it): before, the interpreter read
# every row; now only the runs are read, the kinds measured on the impute's rows.
CHARTS = {**PEER_SPECS, "running": "data: {path: runs.parquet}\ntransform:\n  - window: [{op: min, field: loss, as: best}]\n"
                             "    sort: [{field: step}]\nwidth: 500\nmark: line\nencoding:\n  x: step\n  y: best\n",
          "moving": "data: {path: runs.parquet}\ntransform:\n  - window: [{op: median, field: loss, as: mid}, "
                    "{op: distinct, field: loss, as: kinds}]\n    groupby: [run]\n    sort: [{field: step}]\n"
                    "    frame: [-10, 10]\nmark: rect\nencoding:\n  x: {field: mid, bin: {maxbins: 40}}\n"
                    "  y: {field: kinds, bin: {maxbins: 20}}\n  color: {aggregate: count}\n",
          "folded": "data: {path: runs.parquet}\ntransform:\n  - fold: [loss, step]\nmark: bar\nencoding:\n"
                    "  x: {field: value, bin: {maxbins: 40}}\n  y: {aggregate: count}\n  color: {field: key}\n",
          "imputed": "data: {path: runs.parquet}\ntransform:\n  - filter: \"datum.run != 3 || datum.step % 10 != 4\"\n"
                     "  - {impute: loss, key: step, groupby: [run], value: 0}\nwidth: 500\nmark: line\nencoding:\n"
                     "  x: step\n  y: loss\n  color: {field: run, type: nominal}\n",
          "imputed_totals": "data: {path: runs.parquet}\ntransform:\n"
                            "  - filter: \"datum.run != 3 || datum.step % 10 != 4\"\n"
                            "  - {impute: loss, key: step, groupby: [run], value: 0}\n"
                            "  - aggregate: [{op: sum, field: loss, as: total}, {op: count, as: steps}]\n"
                            "    groupby: [run]\nmark: bar\nencoding:\n  x: {field: run, type: ordinal}\n"
                            "  y: total\n  tooltip: [steps]\n",
          # The same impute, then the loss and step folded and binned: before, the interpreter read every row.
          "imputed_folded": "data: {path: runs.parquet}\ntransform:\n"
                            "  - filter: \"datum.run != 3 || datum.step % 10 != 4\"\n"
                            "  - {impute: loss, key: step, groupby: [run], value: 0}\n  - fold: [loss, step]\n"
                            "mark: bar\nencoding:\n  x: {field: value, bin: {maxbins: 40}}\n  y: {aggregate: count}\n"
                            "  color: {field: key}\n",
          # A label of several kinds (a text for the high losses, the run's number otherwise), counted: before, every
          # row was read back; now the label is kept as JavaScript values where the rows are. (The losses run from
          # 2.76 to 3.39: until the threshold was 3.0, every label was the text, a value of one kind.)
          "labelled": "data: {path: runs.parquet}\ntransform:\n"
                      "  - calculate: \"datum.loss > 3.0 ? 'high' : datum.run\"\n    as: label\nmark: bar\n"
                      "encoding:\n  x: {field: label, type: nominal}\n  y: {aggregate: count}\n",
          # A run's name (text) and its loss folded into one field, the names and the lowest losses counted: before,
          # a field of cells stored differently read every row back; now each cell is kept as its tagged text.
          "folded_kinds": "data: {path: runs.parquet}\ntransform:\n"
                          "  - calculate: \"'run ' + datum.run\"\n    as: name\n  - fold: [name, loss]\n"
                          "  - filter: \"datum.key === 'name' || datum.value < 2.8\"\nmark: bar\n"
                          "encoding:\n  x: {field: value, type: nominal}\n  y: {aggregate: count}\n",
          # A label of several kinds among which a date (a text for the high losses, a day per run otherwise),
          # counted: before, every row was read back; now each cell is kept as tagged values, a date as its ISO text.
          "dated_labels": "data: {path: runs.parquet}\ntransform:\n"
                          "  - calculate: \"datum.loss > 3.0 ? 'high' : datetime(2024, 0, 1 + datum.run)\"\n"
                          "    as: label\nmark: bar\nencoding:\n  x: {field: label, type: nominal}\n"
                          "  y: {aggregate: count}\n",
          # A label of a text or an array (a cell only Python makes), counted: the rows are read into Python whole,
          # up to the bound on such rows (10^6); past it the chart is refused (E416) once the engine has counted them.
          # Before, every row came back, whatever their number.
          "listed_labels": "data: {path: runs.parquet}\ntransform:\n"
                           "  - calculate: \"datum.loss > 3.0 ? 'high' : [datum.run]\"\n"
                           "    as: label\nmark: bar\nencoding:\n  x: {field: run, type: nominal}\n"
                           "  y: {aggregate: count}\n",
          # The fits over the same rows as a CSV file (written once beside the Parquet), which DuckDB types here: a
          # local Spark scans them as a Parquet file DuckDB writes; one that cannot read this machine's files (a
          # Spark Connect URL as `--master`) is sent the rows, in parts (before, as one Arrow table held whole).
          "sent": PEER_SPECS["fit"].replace("runs.parquet", "runs.csv")}

# Where generated data files are kept between runs (`--data`).
DATA_FOLDER = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "chartc-benchmarks"


def spark_settings(master: str) -> str:
    """The project file beside the specs that runs them on Spark: the master (or Spark Connect's URL), no Spark UI."""
    return f'[spark]\n{"remote" if master.startswith("sc://") else "master"} = "{master}"\n\n' \
           '[spark.conf]\n"spark.ui.enabled" = "false"\n'


def generated_chart(args, env: dict, generate: str, stem: str, spec_text: str, n: int) -> tuple[Path, Path, Path, list]:
    """A benchmark's data and spec in the data folder: the Parquet file `generate` writes for `n` rows (kept between
    runs), the spec over it (its ``FILE``), the Spark project file beside it, and the engines this revision runs."""
    folder = args.data.expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".git").mkdir(exist_ok=True)  # a project root: the spec beside the file may read it
    path = folder / f"{stem}-{n}.parquet"
    if not path.exists():
        made = measure(python("-c", generate, str(n), str(path)), timeout=args.timeout)
        if not made.ok:
            raise SystemExit(f"generating {n:,} rows failed: {made.status} {made.stderr[-300:]}")
    mode, missing = spark_mode(args.repo, env)
    spec = folder / f"{stem}-{n}.yaml"
    spec.write_text(spec_text.replace("FILE", path.name), encoding="utf-8")
    settings = folder / "chartc.toml"
    settings.write_text(spark_settings("local[2]"), encoding="utf-8")
    if missing or mode != CLI:
        print(f"spark not run: {missing or 'no compile --engine at this revision'}")
    return path, spec, settings, ["duckdb"] + ([] if missing or mode != CLI else ["spark"])


# The generated file is named by its size and by the generator's text: a changed generator writes a new file.
GENERATOR = hashlib.sha256(GENERATE.encode()).hexdigest()[:8]

# ------------------------------------------------------------------ following a command's processes

# How often the process tree is read: VmHWM is each process's own peak, so only growth in the last interval
# before a process ends can be missed.
SAMPLE_SECONDS = 0.05


def _descendants(root: int) -> list[int]:
    """Every process below `root` (orphans this process adopted as subreaper included)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                ppid = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _peak_kb(pid: int) -> tuple[str, int] | None:
    """A process's name and its peak resident set (VmHWM, kB), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
        return fields["Name"].strip(), int(fields.get("VmHWM", "0 kB").split()[0])
    except (OSError, KeyError, ValueError):
        return None


def kind_of(name: str) -> str | None:
    return "jvm" if name == "java" else "python" if name.startswith("python") else None


class Tracked:
    """A run and the peak RSS (MB) of its largest Python and JVM processes."""

    def __init__(self, run: Run, peaks: dict[str, float]):
        self.run, self.peaks = run, peaks


def measure_tree(cmd: list[str], *, cwd=None, env=None, timeout: float | None = None) -> Tracked:
    """`_common.measure`, with every process the command starts followed through /proc meanwhile."""
    peaks = {"python": 0.0, "jvm": 0.0}
    done = threading.Event()

    def follow():
        while not done.is_set():
            for pid in _descendants(os.getpid()):
                found = _peak_kb(pid)
                kind = found and kind_of(found[0])
                if kind:
                    peaks[kind] = max(peaks[kind], found[1] / 1024)
            done.wait(SAMPLE_SECONDS)

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    try:
        run = measure(cmd, cwd=cwd, env=env, timeout=timeout)
    finally:
        done.set()
        follower.join()
    return Tracked(run, peaks)


# ------------------------------------------------------------------ the data file

TEXT_COPY = """\
import sys, duckdb
duckdb.sql(f"COPY (SELECT * FROM read_parquet('{sys.argv[1]}')) TO '{sys.argv[2]}' (HEADER)")
"""


def text_copy(path: Path, timeout: float) -> Path:
    """The generated Parquet file's rows as a CSV file beside it, written once."""
    copy = path.with_suffix(".csv")
    if not copy.exists():
        part = copy.with_suffix(".csv.part")
        made = measure(python("-c", TEXT_COPY, str(path), str(part)), timeout=timeout)
        if not made.ok:
            part.unlink(missing_ok=True)
            raise SystemExit(f"writing {copy} failed: {made.status} {made.stderr[-300:]}")
        part.rename(copy)
    return copy


def data_file(folder: Path, n: int, timeout: float) -> Path:
    """The generated Parquet file of `n` rows in `folder`, written once (seeded: the same bytes every time).

    The folder is made a project root (a `.git` marker) so that the specs written beside the file may read it.
    """
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".git").mkdir(exist_ok=True)
    path = folder / f"runs-{n}-{GENERATOR}.parquet"
    if not path.exists():
        part = path.with_suffix(".part")
        print(f"generating {n:,} rows into {path} ...", file=sys.stderr)
        made = measure(python("-c", GENERATE, str(n), str(part), str(RUNS)), timeout=timeout)
        if not made.ok:
            part.unlink(missing_ok=True)
            raise SystemExit(f"generating {n:,} rows failed: {made.status} {made.stderr[-300:]}")
        part.rename(path)
    return path


# ------------------------------------------------------------------ the Spark half's availability

# How the Spark half runs: `chartc compile --engine spark`, or (before the command has the option) the data
# stage's own switch, `engine.use_engine(spark.SparkSettings(...))`, around `chartc.load` in a script.
CLI, API = "chartc compile --engine spark", "the Python API (engine.use_engine)"
HAS_API = "from chartc.stages.data.engine import use_engine; from chartc.stages.data.spark import SparkSettings"


def spark_mode(repo: Path, env: dict) -> tuple[str | None, str | None]:
    """How `chartc` runs a compile on Spark here (`CLI` or `API`), or None and why it cannot."""
    if not measure(python("-c", "import pyspark"), env=env, timeout=120).ok:
        return None, "pyspark is not installed (pip install pyspark)"
    if not shutil.which("java", path=env.get("PATH")):
        return None, "no java on PATH (Spark needs a JDK 17 or 21)"
    if chartc_supports(repo, "compile", "--engine"):
        return CLI, None
    if measure(python("-c", HAS_API), cwd=repo, env=env, timeout=120).ok:
        return API, None
    return None, "chartc has neither `compile --engine` nor a Spark engine in its data stage at this revision"


# One fresh process per engine through the Python API: how long each step takes (chartc has no per-stage timing
# of its own). The Spark session is started first, as the compile would start it, so that its start is timed
# apart; the compile then finds it running. Without `compile --engine`, this is also the Spark half's command.
PHASES = """\
import json, sys, time
spec, out, engine, master = sys.argv[1:5]
t = [time.perf_counter()]
import chartc
try:
    from chartc.stages.data.engine import use_engine
except ImportError:  # a revision before the Spark engine: DuckDB only
    from contextlib import nullcontext as use_engine
t.append(time.perf_counter())
settings = None
if engine == "spark":
    from chartc.stages.data.spark import SparkSettings, spark_session
    settings = SparkSettings(**{"remote" if master.startswith("sc://") else "master": master})
    spark_session(settings)
t.append(time.perf_counter())
with use_engine(settings):
    chart = chartc.load(spec, full=False)  # full=False: as `chartc compile -o x.vl.json`, no renderer started
t.append(time.perf_counter())
chart.save(out)
t.append(time.perf_counter())
steps = dict(zip(["import chartc", "Spark session", "compile (load)", "write"], [b - a for a, b in zip(t, t[1:])]))
if engine != "spark":
    del steps["Spark session"]
print(json.dumps(steps))
"""


def last_line(run: Run) -> str:
    """The last line a failed child wrote to stderr (the error, under its traceback)."""
    lines = run.stderr.strip().splitlines()
    return lines[-1][-160:] if lines else run.status


def phases(run: Run) -> dict[str, float] | None:
    try:
        return json.loads(run.stdout.strip().splitlines()[-1]) if run.ok else None
    except (ValueError, IndexError):
        return None


# ------------------------------------------------------------------ per-core scan rates (--scan)

# Portable between the two dialects: `isfinite` is DuckDB's, and NaN sorts above infinity in both engines.
FINITE = "abs(loss) < CAST('Infinity' AS DOUBLE)"
SCANS = {
    "1 column: count, sum(loss)": (["loss"], "SELECT count(*), sum(loss) FROM {source}"),
    "3 columns: sum(run), sum(step), sum(loss)": (["run", "step", "loss"],
                                                  "SELECT sum(run), sum(step), sum(loss) FROM {source}"),
    "histogram, 40 bins (extent, then bins)": (["loss"], f"""
        WITH e AS (SELECT min(loss) AS lo, max(loss) AS hi FROM {{source}} WHERE {FINITE})
        SELECT least(CAST(floor((loss - lo) / (hi - lo) * 40) AS BIGINT), 39) AS b, count(*)
        FROM {{source}} CROSS JOIN e WHERE {FINITE} GROUP BY b ORDER BY b"""),
    # What M4 keeps per run and pixel column (bench_bigdata_peers' second M4 peer; Spark spells arg_min min_by).
    "M4 aggregates, 10 runs x 1,000 px (extent, then groups)": (["run", "step", "loss"], M4_PIXELS + """
        SELECT run, px, min(loss), arg_min(step, loss), max(loss), arg_max(step, loss),
               min(step), arg_min(loss, step), max(step), arg_max(loss, step)
        FROM p GROUP BY run, px ORDER BY run, px"""),
    # A linear fit's sums per run about a fixed point (as chartc's fit where the digits allow).
    "fit sums per run": (["run", "step", "loss"], """
        SELECT run, count(*), sum(d), sum(d * d), sum(e), sum(d * e), sum(e * e)
        FROM (SELECT run, CAST(step AS DOUBLE) AS d, loss - 3.0 AS e FROM {source}) GROUP BY run ORDER BY run"""),
}

# Each query's wall time and CPU time (of the process, every thread: DuckDB's and, below, the JVM's): on a shared
# machine the CPU seconds say what a core does, whatever share of it the process got.
TREE_CPU = """\
import os
TICK = os.sysconf("SC_CLK_TCK")
def tree_cpu():
    \"\"\"User + system seconds of this process and of every process below it (the JVM), live ones.\"\"\"
    children, total = {}, 0.0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append((int(name), int(fields[11]) + int(fields[12])))
            except (OSError, IndexError, ValueError):
                pass
    todo = [os.getpid()]
    with open(f"/proc/{os.getpid()}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    total = int(fields[11]) + int(fields[12])
    while todo:
        for pid, ticks in children.get(todo.pop(), []):
            total += ticks
            todo.append(pid)
    return total / TICK
"""

SCAN_DUCKDB = TREE_CPU + """\
import json, sys, time, duckdb
path, threads, repeat, queries = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
connection = duckdb.connect()
connection.execute(f"SET threads = {threads}")
source = "read_parquet('" + path.replace("'", "''") + "')"
times = {}
for name, sql in queries.items():
    times[name] = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), tree_cpu()
        connection.execute(sql.format(source=source)).fetchall()
        times[name].append((time.perf_counter() - start, tree_cpu() - cpu))
print(json.dumps(times))
"""

SCAN_SPARK = TREE_CPU + """\
import json, sys, time
import sqlglot
from pyspark.sql import SparkSession
path, master, repeat, queries = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
start = time.perf_counter()
spark = SparkSession.builder.master(master).config("spark.ui.enabled", "false").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
times = {"Spark session": [(time.perf_counter() - start, 0.0)]}
spark.read.parquet(path).createOrReplaceTempView("source")
for name, sql in queries.items():
    text = sqlglot.transpile(sql.format(source="source"), read="duckdb", write="spark")[0]
    times[name] = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), tree_cpu()
        spark.sql(text).collect()
        times[name].append((time.perf_counter() - start, tree_cpu() - cpu))
spark.stop()
print(json.dumps(times))
"""


def column_bytes(path: Path) -> dict[str, int]:
    """Each column's compressed bytes in the file (what a scan of it reads)."""
    import pyarrow.parquet as pq

    metadata, sizes = pq.ParquetFile(path).metadata, {}
    for group in range(metadata.num_row_groups):
        for index in range(metadata.num_columns):
            column = metadata.row_group(group).column(index)
            sizes[column.path_in_schema] = sizes.get(column.path_in_schema, 0) + column.total_compressed_size
    return sizes


def scan(args, path: Path, n: int, env: dict, runs: int) -> int:
    """Rows per second per core of each engine on each scan: the anchor of docs/spark.md's estimates."""
    queries = {name: sql for name, (_, sql) in SCANS.items()}
    # One thread each: a core's rate, what a cluster of cores multiplies.
    engines = {"DuckDB, threads 1": python("-c", SCAN_DUCKDB, str(path), "1", str(runs), json.dumps(queries))}
    if measure(python("-c", "import pyspark"), env=env, timeout=120).ok and shutil.which("java"):
        engines["Spark SQL, local[1]"] = python("-c", SCAN_SPARK, str(path), "local[1]", str(runs), json.dumps(queries))
    else:
        print("spark engine not available: pyspark or java is missing; DuckDB alone", file=sys.stderr)
    sizes = column_bytes(path)
    found, loads = {}, []
    for name, cmd in engines.items():
        loads.append(os.getloadavg()[0])
        tracked = measure_tree(cmd, cwd=args.repo, env=env, timeout=args.timeout)
        found[name] = (tracked, phases(tracked.run) if tracked.run.ok else None)
    print_machine(args.repo)
    print(f"\n== per-core scan rates, {n:,} rows (Parquet {path.stat().st_size / 1e9:.2f} GB, "
          f"{path.stat().st_size / n:.2f} bytes a row), best of {runs} in one process per engine, rows per second "
          f"of wall time and per CPU second (the process's threads and the JVM's, GC and compiler included); "
          f"load average {min(loads):.1f}-{max(loads):.1f} during the runs")
    rows, notes = [], []
    for query, (columns, _) in SCANS.items():
        read = sum(sizes[c] for c in columns)
        for name, (tracked, times) in found.items():
            if times is None:
                rows.append([query, name, f"{tracked.run.status}: {last_line(tracked.run)}", "", "", "", ""])
                continue
            wall = min(t for t, _ in times[query])
            cpu = min(c for _, c in times[query])  # the run after the JVM compiled its code
            rows.append([query, name, seconds(wall), f"{n / wall / 1e6:,.1f} M", seconds(cpu),
                         f"{n / cpu / 1e6:,.1f} M", f"{read / cpu / 1e6:,.0f} MB/s"])
            notes.append(f"{query}, {name}: runs {', '.join(f'{seconds(t)} ({seconds(c)} CPU)' for t, c in times[query])}")
    print(table(["query", "engine", "best wall", "rows/s", "least CPU", "rows per CPU second",
                 "Parquet per CPU second"], rows))
    for name, (tracked, times) in found.items():
        start = f"; Spark session {seconds(times['Spark session'][0][0])}" if times and "Spark session" in times else ""
        notes.append(f"{name}: peak RSS python {megabytes(tracked.peaks['python'])}, "
                     f"JVM {megabytes(tracked.peaks['jvm'])}{start}")
    print("notes:\n  " + "\n  ".join(notes))
    return 0


# ------------------------------------------------------------------ the charts on both engines

def options(parser) -> None:
    parser.add_argument("--huge", action="store_true", help="10^8 rows instead of 10^7 (~1.7 GB of Parquet)")
    parser.add_argument("--charts", nargs="+", default=list(CHARTS), choices=list(CHARTS),
                        help="only these charts (default: all four)")
    parser.add_argument("--master", default="local[2]",
                        help="Spark's master URL, or a Spark Connect server's (sc://HOST:PORT) (default: local[2])")
    parser.add_argument("--data", type=Path, default=DATA_FOLDER, help="where the generated Parquet files are kept between runs")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per child before it is killed")
    parser.add_argument("--scan", action="store_true",
                        help="measure each engine's per-core scan rate instead of compiling the charts")


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], argv, extra=options)
    runs = repeats(args, 3, 1)
    n = 10 ** 6 if args.quick else 10 ** 8 if args.huge else 10 ** 7
    env = child_env(args.repo)
    path = data_file(args.data.expanduser().resolve(), n, timeout=3600)
    if args.scan:
        return scan(args, path, n, env, runs)
    mode, missing = spark_mode(args.repo, env)
    if missing:
        print(f"spark engine not available: {missing}; the DuckDB half alone", file=sys.stderr)
    engines = ["duckdb"] + ([] if missing else ["spark"])
    with tempfile.TemporaryDirectory(prefix="chartc-spark-") as tmp:
        out = Path(tmp)
        env = {**env, "XDG_CACHE_HOME": str(out / "cache")}
        # The project's settings beside the specs: the master, no Spark UI (read only by the Spark engine).
        settings = path.parent / "chartc.toml"
        settings.unlink(missing_ok=True)
        if mode == CLI:
            settings.write_text(spark_settings(args.master), encoding="utf-8")
        specs = {}
        for chart in args.charts:
            spec = path.parent / f"spark-{chart}-{n}.yaml"
            if "runs.csv" in CHARTS[chart]:
                text_copy(path, timeout=3600)
            spec.write_text(CHARTS[chart].replace("runs.parquet", path.name)
                            .replace("runs.csv", path.with_suffix(".csv").name), encoding="utf-8")
            specs[chart] = spec
        # The data file's hash, kept in the run's cache folder, as every compile of a file after its first finds it.
        primed = measure(python("-c", PRIME_HASH, str(next(iter(specs.values())))), cwd=args.repo, env=env,
                         timeout=args.timeout)
        if not primed.ok:
            print(f"hashing the data file failed: {primed.status} {primed.stderr[-300:]}", file=sys.stderr)
            return 1
        commands = {}
        for chart, spec in specs.items():
            for engine in engines:
                written = out / f"{chart}.{engine}.vl.json"
                commands[chart, engine] = (
                    chartc("compile", str(spec), "-o", str(written)) if engine == "duckdb" else
                    chartc("compile", str(spec), "-o", str(written), "--engine", "spark") if mode == CLI else
                    python("-c", PHASES, str(spec), str(written), "spark", args.master))
        results: dict = {key: [] for key in commands}
        loads = []
        for round_ in range(runs + (1 if n <= 10 ** 7 else 0)):  # one unmeasured round first, but at 10^8
            for key, cmd in commands.items():
                loads.append(os.getloadavg()[0])
                tracked = measure_tree(cmd, cwd=args.repo, env=env, timeout=args.timeout)
                if round_ < runs:
                    results[key].append(tracked)
        timed = {}
        for chart, spec in specs.items():
            for engine in engines:
                timed[chart, engine] = measure_tree(
                    python("-c", PHASES, str(spec), str(out / f"{chart}.{engine}.api.vl.json"), engine, args.master),
                    cwd=args.repo, env=env, timeout=args.timeout)
        same = {}
        for chart in specs:
            a, b = out / f"{chart}.duckdb.vl.json", out / f"{chart}.spark.vl.json"
            if "spark" in engines:
                same[chart] = ("identical" if a.read_bytes() == b.read_bytes() else "DIFFERENT") \
                    if a.exists() and b.exists() else "not compared (a compile failed)"
            sizes = {engine: (out / f"{chart}.{engine}.vl.json").stat().st_size
                     for engine in engines if (out / f"{chart}.{engine}.vl.json").exists()}
            same[chart] = (same.get(chart, "spark not run"), sizes)

    print_machine(args.repo)
    print(f"\n== {n:,} rows (Parquet {path.stat().st_size / 1e9:.2f} GB), `chartc compile -o x.vl.json`, "
          f"median of {runs}, fresh process each; Spark master {args.master}; "
          f"load average {min(loads):.1f}-{max(loads):.1f} during the runs")
    if missing:
        print(f"spark engine not available: {missing}")
    else:
        print(f"duckdb: `chartc compile -o x.vl.json`; spark: {mode}")
    for chart in specs:
        verdict, sizes = same[chart]
        print(f"\n-- {chart}: the two Vega-Lite files {verdict} "
              f"({', '.join(f'{e} {s / 1000:,.1f} kB' for e, s in sizes.items())})")
        rows = []
        for engine in engines:
            series = results[chart, engine]
            ok = [t for t in series if t.run.ok]
            if len(ok) < len(series):
                bad = next(t.run for t in series if not t.run.ok)
                rows.append([engine, f"{bad.status}: {last_line(bad)}", "", "", ""])
                continue
            walls = sorted(t.run.wall for t in ok)
            rows.append([engine, seconds(walls[len(walls) // 2]), seconds(sum(t.run.cpu for t in ok) / len(ok)),
                         megabytes(max(t.peaks["python"] for t in ok)),
                         megabytes(max(t.peaks["jvm"] for t in ok)) if engine == "spark" else "-"])
        print(table(["engine", "wall", "CPU (mean)", "peak RSS python", "peak RSS JVM"], rows))
        for engine in engines:
            steps = phases(timed[chart, engine].run)
            text = ", ".join(f"{step} {seconds(t)}" for step, t in steps.items()) if steps else \
                f"{timed[chart, engine].run.status}: {last_line(timed[chart, engine].run)}"
            print(f"   {engine}, one process through the Python API: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
