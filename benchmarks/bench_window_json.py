"""Window ops as SQL window functions, and JSON read by the engine (issue 16), each before and after.

In one process (warm: DuckDB imported first), on generated rows (`--rows`, default 10^6):

- **window**: each layer's chain through the engine (`sql.evaluate_layers`), the window's ops as SQL
  window functions (after) against the same ops run by Vega's window in Python once per partition
  (before: what the engine did for every window op; forced here by declaring no op native);
  a running sum is Python both times (Vega's streamed sums: `sql._Chain.native_window_op` says why);
- **joinaggregate median**: d3's quantile over each group's sorted list, in SQL (no Python either way);
- **JSON**: a file of records (run, step, loss, a `Z` timestamp, a 17-digit id) read by chartc's
  reader (before: parsed whole in Python, and refused past 50 MB) against the engine
  (`sources.register_json_files`): the view and its row count (what a chart that aggregates pays),
  and every cell fetched as a `Table`.

    python benchmarks/bench_window_json.py [--rows 1000000] [--repeat 1]

Not in run_all.py.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import tempfile
from pathlib import Path

from _common import median_time, parsed_chart

WINDOWS = {
    "rank + lag + sliding max, 10 groups": [{"window": [
        {"op": "rank", "as": "r"}, {"op": "lag", "field": "x", "as": "p"}, {"op": "max", "field": "x", "as": "top"}],
        "groupby": ["g"], "sort": [{"field": "x", "order": "descending"}], "frame": [-2, 2]}],
    "row_number + cume_dist + first_value, one partition": [{"window": [
        {"op": "row_number", "as": "n"}, {"op": "cume_dist", "as": "c"}, {"op": "first_value", "field": "x", "as": "f"}],
        "sort": [{"field": "k"}]}],
    "running sum (Python both times)": [{"window": [{"op": "sum", "field": "x", "as": "s"}], "groupby": ["g"]}],
    "joinaggregate median by group (SQL both times)": [
        {"joinaggregate": [{"op": "median", "field": "x", "as": "m"}], "groupby": ["g"]}],
}


def chart_of(chain: list):
    return parsed_chart({"data": {"values": [{"g": "a", "x": 1.0, "k": 1}]}, "mark": "point", "transform": chain},
                        "bench.json")


def windows(count: int, repeat: int) -> None:
    from chartc.infra.table import NUMBER, TEXT, Table
    from chartc.stages.data import follow_fields
    from chartc.stages.data import sql as engine_sql
    from chartc.stages.data.engine import connect

    rng = random.Random(7)
    table = Table({"g": [f"g{i % 10}" for i in range(count)], "x": [rng.random() for _ in range(count)],
                   "k": [float(rng.randrange(1000)) for _ in range(count)]}, {"g": TEXT, "x": NUMBER, "k": NUMBER})
    native = engine_sql._Chain.native_window_op
    print(f"== window, {count:,} rows (seconds, median of {repeat})")
    print(f"{'chain':<52} {'before':>9} {'after':>9} {'after/before':>13}")
    for name, chain in WINDOWS.items():
        chart = chart_of(chain)
        fields = follow_fields(chart, {"g": "nominal", "x": "quantitative", "k": "quantitative"})

        def run(chart=chart, fields=fields):
            with contextlib.closing(connect()) as connection:
                [rows] = engine_sql.evaluate_layers(connection, chart, table, fields.layers, fields.shared)
                assert rows is not None and len(rows.table) == count

        run()  # warm
        after = median_time(run, repeat)
        engine_sql._Chain.native_window_op = lambda self, op: False  # every op in Python: the engine before
        try:
            before = median_time(run, repeat)
        finally:
            engine_sql._Chain.native_window_op = native
        print(f"{name:<52} {before:>8.2f}s {after:>8.2f}s {after / before:>12.2f}x")


def json_reads(count: int, repeat: int) -> None:
    from chartc.stages.data import read as resolve
    from chartc.stages.data.engine import connect
    from chartc.stages.data.sources import EngineTable, register_json_files

    rng = random.Random(7)
    folder = Path(tempfile.mkdtemp())
    path = folder / "runs.json"
    with path.open("w", encoding="utf-8") as stream:
        stream.write("[")
        for i in range(count):
            record = {"run": f"run-{i % 20}", "step": i // 20, "loss": rng.random(),
                      "ts": f"2024-01-{1 + i % 28:02d}T{i % 24:02d}:00:00Z", "id": 12345678901234567 + i}
            stream.write(("," if i else "") + json.dumps(record))
        stream.write("]")
    size = path.stat().st_size

    def python():
        assert len(resolve.READERS[".json"]([path])) == count

    def engine_count():
        with contextlib.closing(connect()) as connection:
            assert len(EngineTable(connection, register_json_files(connection, [path], [False]))) == count

    def engine_cells():
        with contextlib.closing(connect()) as connection:
            table = EngineTable(connection, register_json_files(connection, [path], [False]))
            assert all(len(table[name]) == count for name in table.names)

    print(f"\n== JSON read, {count:,} records, {size / 1e6:.0f} MB (seconds, median of {repeat})")
    figures = {"chartc's reader (before; refused past 50 MB)": median_time(python, repeat),
               "engine: view + row count": median_time(engine_count, repeat),
               "engine: view + every cell as a Table": median_time(engine_cells, repeat)}
    base = figures["chartc's reader (before; refused past 50 MB)"]
    for name, value in figures.items():
        print(f"{name:<46} {value:>8.2f}s {value / base:>6.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", choices=["window", "json"])
    options = parser.parse_args()
    import duckdb  # noqa: F401 - imported before the clocks start

    if options.only != "json":
        windows(options.rows, options.repeat)
    if options.only != "window":
        json_reads(options.rows, options.repeat)


if __name__ == "__main__":
    main()
