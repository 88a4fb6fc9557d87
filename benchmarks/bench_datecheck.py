"""The temporal check over date text that is not ISO, on DuckDB and on Spark: time and memory of the refusal.

A generated, seeded Parquet file of 10^6 rows (``--huge``: 10^7; ``--quick``:
10^5), kept in a data folder between runs (``--data``), holds a time as US text
to the second on each row (``03/01/2024 08:00:05``: month first, which only the
loose reading reads, a text of its own per row) and a loss; five cells near the
end are no dates (four texts). The spec draws the mean loss by hour, so the
check refuses it (E455) naming the four texts.

Each engine compiles it in fresh processes (``chartc compile SPEC -o x.vl.json``,
``--engine spark`` for Spark, its master ``local[2]`` and no UI in a
``chartc.toml`` beside the spec): wall time, peak RSS of the Python process and
of the JVM, and the diagnostic's first line, which must be the same on both.
``--at REV`` measures a revision (before the check ran in the engine, every
distinct text was read into Python and tested there).

    python benchmarks/bench_datecheck.py [--quick] [--huge] [--repeat N] [--at REV] [--data DIR]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from _common import arguments, chartc, child_env, megabytes, print_machine, repeats, seconds, table
from bench_spark import DATA_FOLDER, generated_chart, measure_tree

# The rows: each a time to the second as US text, the five cells that are no dates at fixed places near the end.
GENERATE = """\
import sys, duckdb
n, path = int(sys.argv[1]), sys.argv[2]
bad = {n - 900: "soon", n - 700: "later", n - 500: "n/a", n - 300: "02/30/2024 10:00:00", n - 50: "soon"}
cases = " ".join(f"WHEN i = {row} THEN '{text}'" for row, text in bad.items())
duckdb.sql(f"COPY (SELECT CASE {cases} ELSE strftime(TIMESTAMP '2024-03-01 08:00:00' + to_seconds(i), "
           f"'%m/%d/%Y %H:%M:%S') END AS at, 1 + 0.5 * sin(i * 1e-3) AS loss FROM range({n}) AS t(i)) "
           f"TO '{path}' (FORMAT parquet)")
"""
SPEC = ("data: {path: FILE}\nmark: bar\nencoding:\n  x: {field: at, type: temporal, timeUnit: yearmonthdatehours}\n"
        "  y: {field: loss, aggregate: mean}\n")


def options(parser) -> None:
    parser.add_argument("--huge", action="store_true", help="10^7 rows instead of 10^6")
    parser.add_argument("--data", type=Path, default=DATA_FOLDER, help="where the generated Parquet files are kept between runs")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per child before it is killed")


def diagnostic(stderr: str) -> str:
    """The refusal's message: the line naming E455 (or, failing that, the last line written)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    return next((line.split("] ", 1)[-1] for line in lines if "E455" in line), lines[-1] if lines else "")


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], argv, extra=options)
    runs = repeats(args, 3, 1)
    n = 10 ** 5 if args.quick else 10 ** 7 if args.huge else 10 ** 6
    env = child_env(args.repo)
    path, spec, settings, engines = generated_chart(args, env, GENERATE, "us-stamps", SPEC, n)
    results: dict = {engine: [] for engine in engines}
    with tempfile.TemporaryDirectory(prefix="chartc-datecheck-") as tmp:
        env = {**env, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        for _ in range(runs):
            for engine in engines:
                extra = ("--engine", "spark") if engine == "spark" else ()
                results[engine].append(measure_tree(chartc("compile", str(spec), "-o", str(Path(tmp) / "x.vl.json"),
                                                           *extra), cwd=args.repo, env=env, timeout=args.timeout))
    settings.unlink()
    print_machine(args.repo)
    print(f"\n== {n:,} rows of US text times (Parquet {path.stat().st_size / 1e6:.1f} MB), "
          f"`chartc compile` refused by the temporal check, median of {runs}, fresh process each")
    rows, said = [], {}
    for engine, tracked in results.items():
        said[engine] = {diagnostic(t.run.stderr) for t in tracked}
        status = ", ".join(sorted({t.run.status for t in tracked}))
        rows.append([engine, seconds(statistics.median(t.run.wall for t in tracked)),
                     megabytes(max(t.peaks["python"] for t in tracked)),
                     megabytes(max(t.peaks["jvm"] for t in tracked)) if engine == "spark" else "-", status])
    print(table(["engine", "wall", "peak python", "peak JVM", "exit"], rows))
    for engine, messages in said.items():
        print(f"{engine}: {' | '.join(sorted(messages))}")
    if len({frozenset(messages) for messages in said.values()}) > 1:
        print("DIFFERENT diagnostics across engines")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
