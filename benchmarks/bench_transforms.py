"""Transforms in the engine (stages/data/sql.py) against the Python interpreter they replace (interpret.py).

A chart's transforms compile to one DuckDB query; what SQL cannot say exactly
runs as a Python function in the query calling chartc's own expression
evaluator. This script prints, for 10^4 and 10^5 rows (the read cap today),
the time of each path on the same rows, in one process (warm: the first
query of a process also pays ~0.2 s to import DuckDB, printed apart), and
the cost per row of an expression left to the evaluator:

- a filter SQL says natively (``datum.x > 0.5``);
- a filter only the evaluator runs (a regular expression test);
- a calculate and a per-group mean (Welford's running mean, in row order, in
  Python over each group's list);
- a per-group median (DuckDB's ``quantile_cont``).

    python benchmarks/bench_transforms.py [--sizes 4,5] [--repeat 3]

Not in run_all.py: it decides how much of an expression to compile natively.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import median_time, parsed_chart

CHAINS = {
    "native filter": [{"filter": "datum.x > 0.5"}],
    "evaluator filter": [{"filter": "test(/^a[0-9]$/, datum.t)"}],
    "calculate + mean by group": [{"calculate": "datum.x * 2", "as": "y"},
                                  {"aggregate": [{"op": "mean", "field": "y", "as": "m"}], "groupby": ["t"]}],
    "median by group": [{"aggregate": [{"op": "median", "field": "x", "as": "m"}], "groupby": ["t"]}],
}


def chart_of(chain: list, count: int, folder: Path):
    rng = random.Random(7)
    rows = "".join(f"{rng.random()!r},{'ab'[i % 2]}{i % 13}\n" for i in range(count))
    (folder / "rows.csv").write_text("x,t\n" + rows, encoding="utf-8")
    return parsed_chart({"data": {"path": "rows.csv"}, "mark": "point", "transform": chain}, str(folder / "bench.json"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4,5", help="powers of ten of the row counts")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()

    cold = subprocess.run([sys.executable, "-X", "importtime", "-c", "import duckdb"], capture_output=True, text=True)
    total = sum(int(line.split("|")[1]) for line in cold.stderr.splitlines()[1:] if line.count("|") == 2
                and line.split("|")[2].strip() == "duckdb")
    print(f"cold `import duckdb`: {total / 1e6:.2f} s (paid once per process, only by a chart with transforms)\n")

    from chartc.stages.data import field_types, follow_fields, read_rows
    from chartc.stages.data.engine import connect
    from chartc.stages.data.interpret import interpret_layers
    from chartc.stages.data.sql import evaluate_layers

    folder = Path(tempfile.mkdtemp())
    (folder / ".git").mkdir()
    print(f"{'rows':>8}  {'chain':<28} {'interpreter':>12} {'engine':>10} {'ratio':>7}  engine per row")
    for exponent in (int(part) for part in options.sizes.split(",")):
        count = 10 ** exponent
        for name, chain in CHAINS.items():
            chart = chart_of(chain, count, folder)
            table = read_rows(chart.data)
            fields = follow_fields(chart, field_types(table))

            def interpreter(chart=chart, table=table, fields=fields):
                interpret_layers(chart, table, fields.layers, fields.shared)

            def engine(chart=chart, table=table, fields=fields):
                with contextlib.closing(connect()) as connection:
                    [rows] = evaluate_layers(connection, chart, table, fields.layers, fields.shared)
                    assert rows is not None

            engine()  # warm: DuckDB imported, functions compiled
            python_time, engine_time = median_time(interpreter, options.repeat), median_time(engine, options.repeat)
            print(f"{count:>8}  {name:<28} {python_time:>11.3f}s {engine_time:>9.3f}s {engine_time / python_time:>6.2f}x"
                  f"  {engine_time / count * 1e6:.2f} µs")


if __name__ == "__main__":
    main()
