"""Bars by month over a large timestamped Parquet file: the engine floors the dates, as against DuckDB alone.

A sweep's log of N rows (`--rows`, default 10^7: a timestamp every few
seconds over two years, 3 runs, a loss) is written once to
``~/.cache/chartc-benchmarks``. The chart draws each run's count of rows per
month (`timeUnit: yearmonth`) stacked: 72 bars, whatever N. This script prints, in
one run, cold processes, the median of `--repeat`:

- ``chartc compile`` of that chart to Vega-Lite (the engine groups the rows
  by the dates' floor, `stages/data/sql.TimeUnitStep`);
- DuckDB alone, in a child process, computing the same 72 counts with
  ``date_trunc('month', stamp)``: the floor of what any tool reading the file
  must pay;
- with ``--before REV``, ``chartc compile`` at git revision REV (before the
  engine grouped time units, the renderer did: every row was written into
  the Vega-Lite, and more than 200,000 were refused with E501).

    python benchmarks/bench_timeunit.py [--rows N] [--repeat 3] [--before REV]

Not in run_all.py: it says what a time unit over big data costs.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from _common import arguments, chartc, child_env, measure, megabytes, python, seconds, snapshot, table

CACHE = Path.home() / ".cache" / "chartc-benchmarks"
CHART = ("data: {path: stamped.parquet}\nmark: bar\nencoding:\n  x: {field: stamp, timeUnit: yearmonth}\n"
         "  y: {aggregate: count}\n  color: {field: run, type: nominal}\n")
DUCKDB_ALONE = """
import duckdb, sys
rows = duckdb.connect().execute(
    "SELECT run, date_trunc('month', stamp) AS m, count(*) FROM read_parquet($1) GROUP BY ALL", [sys.argv[1]]).fetchall()
assert len(rows) == 72, len(rows)
"""


def stamped(rows: int) -> Path:
    """N rows over two years from 2024-01-01, run i % 3, a loss that falls with time."""
    import duckdb

    path = CACHE / f"timeunit-{rows}" / "stamped.parquet"  # the chart beside it: data may not leave its folder
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        step = 2 * 365 * 86400 * 1_000_000 // rows  # microseconds between rows
        duckdb.connect().execute(
            f"COPY (SELECT TIMESTAMP '2024-01-01 00:00:00' + to_microseconds(i * {step}) AS stamp, 'run ' || (i % 3) "
            f"AS run, 3.0 - 2.0 * i / {rows} + 0.1 * sin(i * 12.9898) AS loss FROM range({rows}) AS t(i)) "
            f"TO '{path}' (FORMAT parquet)")
    return path


def main(argv=None) -> None:
    def extra(parser):
        parser.add_argument("--rows", type=int, default=10_000_000)
        parser.add_argument("--before", metavar="REV", help="also run `chartc compile` at git revision REV")
        parser.add_argument("--timeout", type=float, default=1800, help="seconds per child before it is killed")

    args = arguments(__doc__.splitlines()[0], argv, extra)
    repeat = args.repeat or (1 if args.quick else 3)
    data = stamped(args.rows)
    folder = data.parent
    with tempfile.TemporaryDirectory() as scratch:
        (folder / "chart.yaml").write_text(CHART)
        out = Path(scratch)
        (out / "alone.py").write_text(DUCKDB_ALONE)
        commands = {"chartc compile": (chartc("compile", "chart.yaml", "-o", out / "now.vl.json"), child_env(args.repo)),
                    "DuckDB alone": (python(out / "alone.py", data), child_env(args.repo))}
        if args.before:
            commands[f"chartc compile at {args.before}"] = (
                chartc("compile", "chart.yaml", "-o", out / "before.vl.json"), child_env(snapshot(args.repo, args.before)))
        results = {name: [] for name in commands}
        for _ in range(repeat):  # interleaved: the machine's load falls on every command alike
            for name, (cmd, env) in commands.items():
                results[name].append(measure(cmd, cwd=folder, env=env, timeout=args.timeout))
        now = json.loads((out / "now.vl.json").read_text())
        bars = sum(len(rows) for rows in now.get("datasets", {}).values())
        print(f"# bars by month over {args.rows:,} timestamped rows ({bars} bars drawn, "
              f"Vega-Lite {(out / 'now.vl.json').stat().st_size:,} bytes)\n")
        alone = sorted(run.wall for run in results["DuckDB alone"])[repeat // 2]
        lines = []
        for name, runs in results.items():
            ok = [run for run in runs if run.ok]
            if not ok:
                refused = re.search(r"error\[(E\d+)\]: [^:]*: (.{0,60})", runs[-1].stderr)
                lines.append([name, f"refused ({refused[1]}: {refused[2]}...)" if refused else
                              "failed: " + runs[-1].stderr[-80:].replace("\n", " "), "", ""])
                continue
            wall = sorted(run.wall for run in ok)[len(ok) // 2]
            rss = max(run.maxrss_kb for run in ok) / 1024
            lines.append([name, seconds(wall), megabytes(rss), f"{wall / alone:.2f}×"])
        print(table(["command", "wall (median)", "peak RSS", "÷ DuckDB alone"], lines))


if __name__ == "__main__":
    main()
