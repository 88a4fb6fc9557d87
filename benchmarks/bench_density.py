#!/usr/bin/env python3
"""The density transform at 10^6 rows: the data stage's rows (engine grouping + numpy curve) against Vega's own.

Prints, for N rows of normal values in three groups, the seconds the data
stage takes to evaluate ``density`` (Vega-Lite's default sampling: 200
uniform steps over the shared extent) and, at N <= --vega-max, the seconds
vl-convert's Vega takes to evaluate the same transform on the same rows,
as a ratio chartc / Vega (lower is better). Not in `run_all.py`.

    python benchmarks/bench_density.py --max-exp 6
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path


def write_data(folder: Path, rows: int) -> list[dict]:
    """N normal values in three groups, as a CSV beside the spec; returns them as records too."""
    import numpy as np

    values = np.random.default_rng(20).normal(size=rows)
    records = [{"x": float(x), "g": "abc"[index % 3]} for index, x in enumerate(values)]
    with open(folder / "rows.csv", "w", encoding="utf-8") as out:
        out.write("x,g\n" + "".join(f"{row['x']!r},{row['g']}\n" for row in records))
    return records


SPEC = {"data": {"path": "rows.csv"}, "transform": [{"density": "x", "groupby": ["g"]}], "mark": "line",
        "encoding": {"x": {"field": "value", "type": "quantitative"},
                     "y": {"field": "density", "type": "quantitative"}, "color": {"field": "g", "type": "nominal"}}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-exp", type=int, default=6)
    parser.add_argument("--vega-max", type=int, default=5, help="largest exponent Vega is timed at")
    args = parser.parse_args()
    import vl_convert

    from chartc.pipeline import compile_spec

    for exponent in range(3, args.max_exp + 1):
        with tempfile.TemporaryDirectory() as folder:
            records = write_data(Path(folder), 10 ** exponent)
            spec = Path(folder) / "density.json"
            spec.write_text(json.dumps(SPEC), encoding="utf-8")
            start = time.perf_counter()
            compiled = compile_spec(spec)
            ours = time.perf_counter() - start
        line = f"N=10^{exponent}: chartc compile, the density evaluated once: {ours:.2f} s"
        if exponent <= args.vega_max:
            start = time.perf_counter()
            vl_convert.vegalite_to_scenegraph({**SPEC, "data": {"values": records}})
            theirs = time.perf_counter() - start
            line += f"; Vega evaluating it in the renderer: {theirs:.2f} s; chartc / Vega {ours / theirs:.2f}"
        drawn = sum(len(rows) for rows in compiled.vega_lite.get("datasets", {}).values())
        print(f"{line} ({drawn} rows drawn)", flush=True)


if __name__ == "__main__":
    main()
