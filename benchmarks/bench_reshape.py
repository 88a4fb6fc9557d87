"""``pivot`` and ``impute`` in the engine (issue 16), before and after.

In one process (warm: DuckDB imported first), on generated rows (`--rows`, default 10^6):
`flow_data` of a chart whose only transform is the pivot or the impute, as a compile runs it.

- **before**: what the data stage did until they compiled to SQL: the engine refused the chain, the
  interpreter (`stages/data/interpret.py`) computed the rows in Python, and a pivot's columns were read by
  the interpreter first (`pivot_columns`). Forced here by making the SQL compiler refuse both again.
  A mean in a sliding frame differs in the last bits: the interpreter takes a fresh mean of each frame,
  Vega's window (and the engine) adds and removes rows (tests/test_reshape.py shows Vega's).
- **after**: the pivot as conditional aggregation (its keys read by one query first), the impute as the
  groups × the keys less the pairs present, in DuckDB (`sql._Chain.pivot`, `sql._Chain.impute`).

    python benchmarks/bench_reshape.py [--rows 1000000] [--repeat 1]

Not in run_all.py.
"""

from __future__ import annotations

import argparse
import random

from _common import median_time, parsed_chart

CHAINS = {
    "pivot: 10 keys x 1,000 groups, sum": [{"pivot": "k", "value": "x", "groupby": ["g"]}],
    "pivot: 10 keys x 1,000 groups, mean (Vega's running mean)": [
        {"pivot": "k", "value": "x", "groupby": ["g"], "op": "mean"}],
    "impute: value, 1,000 steps x 1,000 groups (10% missing)": [
        {"impute": "y", "key": "step", "groupby": ["g"], "value": 0}],
    "impute: max over the group": [{"impute": "y", "key": "step", "groupby": ["g"], "method": "max"}],
    "impute: mean over the group (Vega's running mean per group)": [
        {"impute": "y", "key": "step", "groupby": ["g"], "method": "mean"}],
    "impute: mean in a frame [-2, 2] (Vega's window in Python)": [
        {"impute": "y", "key": "step", "groupby": ["g"], "method": "mean", "frame": [-2, 2]}],
}
# The interpreter computes a method's measure over the whole frame for each row: n x (group size) steps.
QUADRATIC = {"impute: max over the group", "impute: mean over the group (Vega's running mean per group)"}


def chart_of(chain: list):
    return parsed_chart({"data": {"values": [{"g": "a", "x": 1.0, "k": "k1", "step": 1, "y": 1.0}]},
                         "mark": "point", "transform": chain}, "bench.json")


def rows(count: int):
    """`count` rows: the pivot's (g, k, x) and the impute's (g, step, y), 10% of the steps of each group left out."""
    from chartc.infra.table import NUMBER, TEXT, Table

    rng = random.Random(7)
    drawn = int(count / 0.9) + 1
    kept = [i for i in range(drawn) if rng.random() >= 0.1]
    spare = random.Random(8)  # a draw short of `count` steps goes on with its own generator: the others' rows stay
    while len(kept) < count:
        if spare.random() >= 0.1:
            kept.append(drawn)
        drawn += 1
    kept = kept[:count]
    return Table({"g": [f"g{i % 1000}" for i in range(count)], "k": [f"k{rng.randrange(10)}" for _ in range(count)],
                  "x": [rng.random() for _ in range(count)],
                  "step": [float((i // 1000) % max(1, count // 1000)) for i in kept],
                  "y": [rng.random() for _ in range(count)]},
                 {"g": TEXT, "k": TEXT, "x": NUMBER, "step": NUMBER, "y": NUMBER})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--quadratic-max", type=int, default=100_000,
                        help="measure 'before' of the chains the interpreter runs in quadratic time up to this many rows")
    parser.add_argument("--only", help="the chains whose name contains this text")
    options = parser.parse_args()
    import duckdb  # noqa: F401 - imported before the clocks start

    from chartc.stages.data import flow_data
    from chartc.stages.data import sql as engine_sql

    table = rows(options.rows)
    print(f"== pivot and impute, {options.rows:,} rows (seconds, median of {options.repeat}; flow_data, warm)")
    print(f"{'chain':<58} {'rows out':>9} {'before':>9} {'after':>9} {'after/before':>13}")
    compiled = engine_sql._Chain.pivot, engine_sql._Chain.impute

    def refuse(self, *args):
        raise engine_sql.NotCompiled("measured before")

    for name, chain in CHAINS.items():
        if options.only and options.only not in name:
            continue
        chart = chart_of(chain)
        out = []

        def run(chart=chart, out=out):
            [layer] = flow_data(chart, table).layers
            assert layer.table is not None and not layer.unknown
            out.append(layer.table)

        run()  # warm
        after = median_time(run, options.repeat)
        if name in QUADRATIC and options.rows > options.quadratic_max:
            print(f"{name:<58} {len(out[0]):>9,} {'not run':>9} {after:>8.2f}s {'-':>13}")
            continue
        engine_sql._Chain.pivot = engine_sql._Chain.impute = refuse
        try:
            before = median_time(run, options.repeat)
        finally:
            engine_sql._Chain.pivot, engine_sql._Chain.impute = compiled
        same = out[0].columns == out[-1].columns or "differ"
        print(f"{name:<58} {len(out[0]):>9,} {before:>8.2f}s {after:>8.2f}s {after / before:>12.2f}x"
              + ("" if same is True else "  (cells differ from before)"))


if __name__ == "__main__":
    main()
