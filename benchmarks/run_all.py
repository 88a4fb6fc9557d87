"""Run every benchmark and print one table of figures, plus the machine.

    python benchmarks/run_all.py [--quick] [--only 1,3] [--at REV] [--json FILE]

Each figure is chartc against its peer measured in the same run, as a ratio
(chartc / peer; lower is better) with its target. Not part of the test suite.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

import bench_build
import bench_compile
import bench_noop
import bench_scale
import bench_validate
from _common import Row, arguments, machine, print_rows, ratio_text, seconds, table

FIGURES = {  # number -> (module, what)
    1: (bench_validate, "cold validate vs import floor"),
    2: (bench_compile, "cold compile to SVG vs matplotlib script"),
    3: (bench_build, "gallery build vs matplotlib, --jobs"),
    4: (bench_noop, "no-op build vs full build"),
    5: (bench_scale, "large data vs matplotlib"),
}


def options(parser):
    parser.add_argument("--only", help="comma-separated figure numbers (default: all)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--specs", type=int, help="specs generated for figures 3 and 4 (default 100; 40 quick)")
    parser.add_argument("--max-exp", type=int, help="figure 5: largest N is 10^K (default 6; 5 quick)")
    parser.add_argument("--timeout", type=float, help="figure 5: seconds per render (default 180; 120 quick)")


def main(argv=None) -> int:
    args = arguments("Run every chartc benchmark and print one table.", argv, options)
    wanted = [int(n) for n in args.only.split(",")] if args.only else list(FIGURES)
    started = time.perf_counter()
    load_start = os.getloadavg()
    rows: list[Row] = []
    for number in wanted:
        module, what = FIGURES[number]
        print(f"\n######## figure {number}: {what}", flush=True)
        t0 = time.perf_counter()
        try:
            got = module.run(args)
        except Exception:  # one broken figure must not lose the others
            traceback.print_exc()
            got = [Row(f"{number} {what}", "error", "-", None, "-", verdict="error",
                       note="the benchmark script failed; see the traceback above")]
        print_rows(f"figure {number} ({seconds(time.perf_counter() - t0)})", got)
        rows.extend(got)
        sys.stdout.flush()

    print("\n\n======== chartc benchmarks" + (" (quick)" if args.quick else ""))
    print(table(["figure", "chartc", "peer", "ratio", "target", "result"],
                [[r.figure, r.chartc, r.peer, ratio_text(r.ratio), r.target, r.result] for r in rows]))
    notes = [f"  {r.figure}: {r.note}" for r in rows if r.note]
    if notes:
        print("notes:\n" + "\n".join(notes))
    info = machine(args.repo)
    print()
    for key, value in info:
        print(f"{key:9} {value}")
    print("load at start %.2f %.2f %.2f" % load_start)
    total = time.perf_counter() - started
    print(f"total     {seconds(total)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump({"quick": args.quick, "rows": [r.as_dict() for r in rows], "machine": dict(info),
                       "seconds": total}, stream, indent=2, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
