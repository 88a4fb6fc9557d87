"""A chart over a Parquet file holding a nullable boolean column, on DuckDB and on Spark: time and memory.

A generated, seeded Parquet file of 10^6 rows (``--huge``: 10^7; ``--quick``:
10^5), kept in a data folder between runs (``--data``), holds a step, a loss
and a boolean flag missing on every seventh row (pandas reads such a column
without a kind). The spec draws a 30-bin histogram of the loss, which the
flag does not enter.

Each engine compiles it in fresh processes (``chartc compile SPEC -o x.vl.json``,
``--engine spark`` for Spark, its master ``local[2]`` and no UI in a
``chartc.toml`` beside the spec): wall time, peak RSS of the Python process and
of the JVM, and whether the two Vega-Lite files are the same bytes. ``--at REV``
measures a revision (before the flag was held in the engine as booleans and
nulls, every column of every row was read into Python first).

    python benchmarks/bench_nullable.py [--quick] [--huge] [--repeat N] [--at REV] [--data DIR]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from _common import arguments, chartc, child_env, megabytes, print_machine, repeats, seconds, table
from bench_spark import DATA_FOLDER, generated_chart, measure_tree

GENERATE = """\
import sys, duckdb
n, path = int(sys.argv[1]), sys.argv[2]
duckdb.sql(f"COPY (SELECT i // 10 AS step, 2.0 + 0.2 * sin(i * 1e-4) AS loss, CASE WHEN i % 7 = 0 THEN NULL "
           f"ELSE i % 5 = 0 END AS flag FROM range({n}) AS t(i)) TO '{path}' (FORMAT parquet)")
"""
SPEC = "data: {path: FILE}\nmark: bar\nencoding:\n  x: {field: loss, bin: {maxbins: 30}}\n  y: {aggregate: count}\n"


def options(parser) -> None:
    parser.add_argument("--huge", action="store_true", help="10^7 rows instead of 10^6")
    parser.add_argument("--data", type=Path, default=DATA_FOLDER, help="where the generated Parquet files are kept between runs")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per child before it is killed")


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], argv, extra=options)
    runs = repeats(args, 3, 1)
    n = 10 ** 5 if args.quick else 10 ** 7 if args.huge else 10 ** 6
    env = child_env(args.repo)
    path, spec, settings, engines = generated_chart(args, env, GENERATE, "flags", SPEC, n)
    results: dict = {engine: [] for engine in engines}
    written: dict = {}
    with tempfile.TemporaryDirectory(prefix="chartc-nullable-") as tmp:
        env = {**env, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        for _ in range(runs):
            for engine in engines:
                extra = ("--engine", "spark") if engine == "spark" else ()
                out = Path(tmp) / f"{engine}.vl.json"
                results[engine].append(measure_tree(chartc("compile", str(spec), "-o", str(out), *extra),
                                                    cwd=args.repo, env=env, timeout=args.timeout))
                written[engine] = out.read_bytes() if out.exists() else None
    settings.unlink()
    print_machine(args.repo)
    print(f"\n== {n:,} rows with a nullable boolean (Parquet {path.stat().st_size / 1e6:.1f} MB), a histogram of "
          f"another column, median of {runs}, fresh process each")
    rows = []
    for engine, tracked in results.items():
        status = ", ".join(sorted({t.run.status for t in tracked}))
        rows.append([engine, seconds(statistics.median(t.run.wall for t in tracked)),
                     megabytes(max(t.peaks["python"] for t in tracked)),
                     megabytes(max(t.peaks["jvm"] for t in tracked)) if engine == "spark" else "-", status])
    print(table(["engine", "wall", "peak python", "peak JVM", "exit"], rows))
    outputs = set(written.values())
    if len(written) > 1:
        print("the Vega-Lite files: " + ("identical" if len(outputs) == 1 and None not in outputs else "DIFFERENT"))
    return 0 if len(outputs) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
