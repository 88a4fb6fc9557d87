"""``lookup`` and ``argmax`` in the engine (stages/data/sql.py) against the interpreter, pandas and Vega.

A lookup joins a second source (here 1,000 rows, one per key) onto N rows of
the chart's data; an argmax picks, in each of 1,000 groups, the row with the
largest value. This script prints, for N = 10^4 … 10^6 (`--sizes`), warm in
one process, the time of:

- the engine: the layer's one DuckDB query (`sql.evaluate_layers`), the
  second source indexed as Vega indexes it and left-joined; the argmax a
  Python function per group on its values in row order, the row joined back;
- the interpreter (`interpret.py`), the Python reference the tests compare;
- pandas doing the same (``merge(how="left")`` on a de-duplicated index;
  ``groupby().idxmax()`` then ``loc``), for scale, not for exactness: it
  keeps neither Vega's key text nor its picking of the first of ties;
- Vega itself, evaluating the same transform in the renderer (vl-convert's
  scenegraph of the raw form), up to 10^5 rows (`--vega-max`): past that the
  rows inlined in the spec are the cost.

    python benchmarks/bench_lookup.py [--sizes 4,5,6] [--repeat 3] [--vega-max 5]

Not in run_all.py: it says what the engine's lookup and argmax cost.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import tempfile
from pathlib import Path

from _common import median_time, parsed_chart

KEYS = 1000
CHAINS = {
    "lookup": [{"lookup": "k", "from": {"data": {"path": "second.csv"}, "key": "k", "fields": ["label", "w"]}}],
    "argmax by group": [{"aggregate": [{"op": "argmax", "field": "x", "as": "best"}], "groupby": ["k"]}],
    # For reference: two calculates also keep every row and add two fields, which the engine sends back to
    # Python as the lookup's do (that transfer, not the join, is most of a row-keeping transform's time).
    "2 calculates": [{"calculate": "datum.x * 2", "as": "y"}, {"calculate": "datum.k + 1", "as": "z"}],
}


def write_rows(folder: Path, count: int) -> None:
    rng = random.Random(7)
    rows = "".join(f"{rng.randrange(KEYS + 50)},{rng.random()!r}\n" for _ in range(count))  # 5% without a match
    (folder / "rows.csv").write_text("k,x\n" + rows, encoding="utf-8")
    second = "".join(f"{key},name {key},{rng.random()!r}\n" for key in range(KEYS))
    (folder / "second.csv").write_text("k,label,w\n" + second, encoding="utf-8")


def chart_of(chain: list, folder: Path):
    return parsed_chart({"data": {"path": "rows.csv"}, "mark": "point", "transform": chain}, str(folder / "bench.json"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4,5,6", help="powers of ten of the row counts")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--vega-max", type=int, default=5, help="largest power of ten Vega evaluates")
    options = parser.parse_args()

    import pandas as pd
    import vl_convert

    from chartc.stages.data import field_types, flow_data, follow_fields, lookup_types, read_rows
    from chartc.stages.data.engine import connect
    from chartc.stages.data.interpret import interpret_layers
    from chartc.stages.data.sql import evaluate_layers
    from chartc.stages.translate import translate_chart

    folder = Path(tempfile.mkdtemp())
    (folder / ".git").mkdir()
    print(f"{'rows':>8}  {'transform':<16} {'engine':>9} {'interpreter':>12} {'pandas':>9} {'Vega':>9}"
          f"  {'engine/interp':>13} {'engine/pandas':>13} {'engine/Vega':>11}")
    for exponent in (int(part) for part in options.sizes.split(",")):
        count = 10 ** exponent
        write_rows(folder, count)
        frame = pd.read_csv(folder / "rows.csv")
        second = pd.read_csv(folder / "second.csv").drop_duplicates("k", keep="last").set_index("k")
        peers = {"lookup": lambda frame=frame, second=second: frame.merge(second, left_on="k", right_index=True,
                                                                          how="left"),
                 "2 calculates": lambda frame=frame: frame.assign(y=frame.x * 2, z=frame.k + 1),
                 "argmax by group": lambda frame=frame: frame.loc[frame.groupby("k", sort=False)["x"].idxmax()]}
        for name, chain in CHAINS.items():
            chart = chart_of(chain, folder)
            table = read_rows(chart.data)
            fields = follow_fields(chart, field_types(table), None, lookup_types(chart))

            def engine(chart=chart, table=table, fields=fields):
                with contextlib.closing(connect()) as connection:
                    [rows] = evaluate_layers(connection, chart, table, fields.layers, fields.shared)
                    assert rows is not None

            def interpreter(chart=chart, table=table, fields=fields):
                interpret_layers(chart, table, fields.layers, fields.shared)

            engine()  # warm: DuckDB imported, the second source read
            engine_time = median_time(engine, options.repeat)
            python_time = median_time(interpreter, options.repeat)
            pandas_time = median_time(peers[name], options.repeat)
            vega_time = None
            if exponent <= options.vega_max:
                raw = translate_chart(chart, flow_data(chart, table), {}, evaluated=False).vega_lite
                raw = {**raw, "encoding": {"x": {"field": "k", "type": "quantitative"}}}
                vega_time = median_time(lambda raw=raw: vl_convert.vegalite_to_scenegraph(raw), 1)
            vega = f"{vega_time:>8.3f}s" if vega_time is not None else f"{'-':>9}"
            against = f"{engine_time / vega_time:>10.2f}x" if vega_time is not None else f"{'-':>11}"
            print(f"{count:>8}  {name:<16} {engine_time:>8.3f}s {python_time:>11.3f}s {pandas_time:>8.3f}s {vega}"
                  f"  {engine_time / python_time:>12.2f}x {engine_time / pandas_time:>12.2f}x {against}")


if __name__ == "__main__":
    main()
