"""Figure 4: a no-op `chartc build` (nothing changed since the last build) vs the full build.

Builds 100 generated specs into an empty folder (the full build), then builds
again into the same folder with nothing changed (the no-op build), cold each
time. Also counts the output files the no-op build rewrote (by mtime).

    python benchmarks/bench_noop.py [--quick] [--specs N] [--at REV]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from _common import Row, Series, chartc, child_env, failed_row, measure, print_series, repeats, run_script, seconds
from _workload import write_gallery

TARGET, LIMIT = "<= 0.1", 0.1


def options(parser):
    parser.add_argument("--specs", type=int, help="how many specs to generate (default 100; 40 with --quick)")


def mtimes(folder: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def run(args) -> list[Row]:
    count = args.specs or (40 if args.quick else 100)
    env = child_env(args.repo)
    full, noop = Series(), Series()
    rewritten = []
    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as tmp:
        tmp = Path(tmp)
        specs = write_gallery(tmp / "gallery", count)
        warm = write_gallery(tmp / "warm", 4)
        measure(chartc("build", warm, "--out", tmp / "warm-out"), cwd=args.repo, env=env, timeout=600)
        for i in range(repeats(args, 1, 1)):
            out = tmp / f"out{i}"
            full.runs.append(measure(chartc("build", specs, "--out", out), cwd=args.repo, env=env, timeout=1800))
            if not full.runs[-1].ok:
                break
            for _ in range(repeats(args, 3, 2)):
                before = mtimes(out)
                noop.runs.append(measure(chartc("build", specs, "--out", out), cwd=args.repo, env=env, timeout=1800))
                after = mtimes(out)
                rewritten.append(sum(1 for p, t in after.items() if before.get(p) != t))
            shutil.rmtree(out, ignore_errors=True)
    series = {"chartc build (full)": full, "chartc build (no-op)": noop}
    print_series(f"figure 4: no-op build of {count} specs", series, None)
    figure = f"4 no-op build of {count} specs vs full"
    if not noop.runs:
        return [failed_row(figure, TARGET, series)]
    broken = failed_row(figure, TARGET, series)
    if broken:
        return [broken]
    print(f"   files rewritten by a no-op build: {max(rewritten)}")
    return [Row(figure, seconds(noop.median), seconds(full.median), noop.median / full.median, TARGET, LIMIT,
                note=f"peer = full build into an empty folder; files rewritten by the no-op build: {max(rewritten)}")]


def main(argv=None):
    run_script(run, "figure 4: no-op chartc build vs full build", argv, options)


if __name__ == "__main__":
    sys.exit(main())
