"""Aggregate before render (issue 16): a histogram, a binned heatmap, a line and a box plot of N rows, to SVG.

For each N (10⁴ … 10⁶), a CSV of N rows is charted as a 30-bin histogram and
as a 40×40 binned heatmap (`color: {aggregate: count}`), each compiled to SVG
in a fresh child process: once as chartc compiles it (the engine bins and
counts; the Vega-Lite carries one row per bin), once with the rows read and
the encoding left for Vega to aggregate (`translate_chart(..., evaluated=False)`,
what chartc emitted before). The line (x the row's number, 400 px wide) is
reduced with M4 to its PNG's 800 pixel columns past 3,200 rows; emitted whole
the other way (its SVG differs: see docs/data-engine.md). The box plot (5
groups, 1.5 IQR whiskers) carries the engine's quartiles and whiskers as a few
rows per group, and its outliers (`stages/data/boxes.py`). Reported: wall time, peak RSS, the Vega-Lite's
size, and the ratio of the two times (lower is better).

    python benchmarks/bench_aggregate.py [--quick] [--max-exp K] [--timeout S] [--charts line,...]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from _common import Row, child_env, measure, megabytes, run_script, seconds, size, table

TARGET = "size flat in N; time ≤ 1.0×"
CHARTS = {
    "histogram": "mark: bar\nencoding:\n  x: {field: v, bin: {maxbins: 30}}\n  y: {aggregate: count}\n",
    "heatmap": ("mark: rect\nencoding:\n  x: {field: v, bin: {maxbins: 40}}\n  y: {field: w, bin: {maxbins: 40}}\n"
                "  color: {aggregate: count}\n"),
    "boxplot": "mark: boxplot\nencoding:\n  x: {field: k, type: nominal}\n  y: {field: v, type: quantitative}\n",
    "line": "width: 400\nmark: line\nencoding:\n  x: {field: t, type: quantitative}\n  y: {field: v, type: quantitative}\n",
}
# The child: compile (either way), write the Vega-Lite and the SVG.
CHILD = """
import sys
from pathlib import Path
import chartc.stages.translate as translate
if sys.argv[3] == "raw":
    original = translate.translate_chart
    translate.translate_chart = lambda chart, data, fits, **k: original(chart, data, fits, evaluated=False)
from chartc.pipeline import compile_spec, export_chart
compiled = compile_spec(sys.argv[1])
export_chart(compiled, sys.argv[2])
export_chart(compiled, sys.argv[2] + ".vl.json")
"""


def options(parser):
    parser.add_argument("--max-exp", type=int, help="largest N is 10^K (default 6; 5 with --quick)")
    parser.add_argument("--min-exp", type=int, help="smallest N is 10^K (default 4)")
    parser.add_argument("--timeout", type=float, help="seconds per render (default 300)")
    parser.add_argument("--charts", help="which charts, comma-separated (default: all)")


def write_rows(path: Path, n: int) -> None:
    rng = random.Random(16)
    with path.open("w") as out:
        out.write("v,w,t,k\n")
        for t in range(n):
            out.write(f"{rng.gauss(50, 12):.3f},{rng.gammavariate(2, 2):.3f},{t},k{t % 5}\n")


def run(args) -> list[Row]:
    top = args.max_exp or (5 if args.quick else 6)
    timeout = args.timeout or 300
    env = child_env(args.repo)
    rows, detail = [], []
    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as tmp:
        tmp = Path(tmp)
        for exp in range(args.min_exp or 4, top + 1):
            n = 10 ** exp
            write_rows(tmp / "rows.csv", n)
            for name, encoding in CHARTS.items():
                if args.charts and name not in args.charts.split(","):
                    continue
                spec = tmp / f"{name}_{n}.yaml"
                spec.write_text("data: {path: rows.csv}\n" + encoding)
                figures = {}
                for how in ("engine", "raw"):
                    out = tmp / f"{name}_{n}_{how}.svg"
                    result = measure([sys.executable, "-c", CHILD, str(spec), str(out), how], cwd=tmp, env=env,
                                     timeout=timeout)
                    vl = Path(f"{out}.vl.json")
                    figures[how] = (result, vl.stat().st_size if result.ok and vl.exists() else None,
                                    out.read_bytes() if result.ok else None)
                (mine, mine_size, mine_svg), (peer, peer_size, peer_svg) = figures["engine"], figures["raw"]
                same = "-" if mine_svg is None or peer_svg is None else (
                    "yes" if _without_ids(mine_svg) == _without_ids(peer_svg) else "no")
                detail.append([f"{name}, N = {n:,}",
                               f"{seconds(mine.wall)}, {megabytes(mine.maxrss_kb / 1024)}, {size(mine_size)}"
                               if mine.ok else mine.status,
                               f"{seconds(peer.wall)}, {megabytes(peer.maxrss_kb / 1024)}, {size(peer_size)}"
                               if peer.ok else peer.status, same])
                ratio = mine.wall / peer.wall if mine.ok and peer.ok else None
                rows.append(Row(f"{name} of 10^{exp} rows to SVG", seconds(mine.wall) if mine.ok else mine.status,
                                seconds(peer.wall) if peer.ok else peer.status, ratio, TARGET, limit=1.0,
                                note=f"Vega-Lite {size(mine_size)} vs {size(peer_size)}; same SVG: {same}"))
    print(table(["chart", "engine aggregates (wall, peak RSS, Vega-Lite)", "Vega aggregates", "same SVG"], detail))
    return rows


def _without_ids(svg: bytes) -> bytes:
    import re

    return re.sub(rb"\b(clip|gradient_|pattern_)\d+", rb"\1N", svg)


if __name__ == "__main__":
    run_script(run, "Aggregate before render: chartc (engine) vs Vega aggregating every row", extra=options)
