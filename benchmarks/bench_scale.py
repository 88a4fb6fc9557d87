"""Figure 5: a scatter + linear trend at N = 10³ … 10⁶ points vs matplotlib.

For each N, a spec with N rows of CSV data and a linear trend layer is
compiled to SVG in a fresh child process with a timeout, once; the peer
(peers/mpl_scatter.py) draws the same scatter and fitted line to SVG. Reported:
time, peak RSS, SVG size and how the process ended. A crash or an abort (e.g.
vl-convert's V8 running out of heap near 10⁶ points) is a figure, not a script
failure. The target is that large data never aborts the process: chartc must
either render or exit with an error message (no signal, no timeout, no
traceback).

    python benchmarks/bench_scale.py [--quick] [--max-exp K] [--timeout S] [--at REV]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _common import HERE, Row, chartc, child_env, measure, megabytes, python, run_script, seconds, size, table
from _workload import write_scatter

TARGET = "no abort"
SAMPLE = 20_000  # rows drawn by the `data.sample` variant at the largest N
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def options(parser):
    parser.add_argument("--max-exp", type=int, help="largest N is 10^K (default 6; 5 with --quick)")
    parser.add_argument("--timeout", type=float, help="seconds per render (default 180; 120 with --quick)")


def describe(run, out: Path) -> str:
    if run.ok:
        return f"{seconds(run.wall)}, {megabytes(run.maxrss_kb / 1024)}, {size(out.stat().st_size)}"
    return f"{run.status} after {seconds(run.wall)}, {megabytes(run.maxrss_kb / 1024)}"


def clean_exit(run) -> bool:
    """Rendered, or refused with a message: no signal, no timeout, no traceback."""
    return run.returncode is not None and "Traceback (most recent call last)" not in run.stderr


def run(args) -> list[Row]:
    top = args.max_exp or (5 if args.quick else 6)
    timeout = args.timeout or (120 if args.quick else 180)
    env = child_env(args.repo)
    rows, detail = [], []
    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as tmp:
        tmp = Path(tmp)
        warm = write_scatter(tmp / "warm", 10)
        measure(chartc("compile", warm, "-o", tmp / "warm.svg"), cwd=args.repo, env=env, timeout=timeout)
        measure(python(HERE / "peers" / "mpl_scatter.py", warm.with_suffix(".csv"), tmp / "warm-mpl.svg"),
                cwd=args.repo, env=env, timeout=timeout)
        for exp in range(3, top + 1):
            n = 10 ** exp
            spec = write_scatter(tmp / f"n{n}", n)
            mine_out, peer_out = tmp / f"chartc_{n}.svg", tmp / f"mpl_{n}.svg"
            mine = measure(chartc("compile", spec, "-o", mine_out), cwd=args.repo, env=env, timeout=timeout)
            peer = measure(python(HERE / "peers" / "mpl_scatter.py", spec.with_suffix(".csv"), peer_out),
                           cwd=args.repo, env=env, timeout=timeout)
            label = f"10{str(exp).translate(SUPERSCRIPT)}"
            detail.append([label, "chartc", mine.status, seconds(mine.wall), megabytes(mine.maxrss_kb / 1024),
                           size(mine_out.stat().st_size) if mine.ok else "-"])
            detail.append(["", "matplotlib", peer.status, seconds(peer.wall), megabytes(peer.maxrss_kb / 1024),
                           size(peer_out.stat().st_size) if peer.ok else "-"])
            note = f"chartc {mine.status}"
            if not mine.ok and mine.stderr.strip():
                note += ": " + mine.stderr.strip().splitlines()[-1][:160]
            if mine.ok and peer.ok:
                note += (f"; memory {mine.maxrss_kb / max(peer.maxrss_kb, 1):.1f}x, "
                         f"size {mine_out.stat().st_size / max(peer_out.stat().st_size, 1):.1f}x of matplotlib")
            peer_text = describe(peer, peer_out)
            rows.append(Row(f"5 scatter+trend N={label} -> SVG", describe(mine, mine_out), peer_text,
                            mine.wall / peer.wall if mine.ok and peer.ok else None, TARGET,
                            verdict="pass" if clean_exit(mine) else "fail", note=note))
            for path in (mine_out, peer_out):
                path.unlink(missing_ok=True)
        if top >= 6:  # past the row limit, the spec can draw a sample (and fit every row)
            n = 10 ** top
            spec = write_scatter(tmp / f"n{n}", n, sample=SAMPLE)
            out = tmp / f"chartc_{n}_sample.svg"
            mine = measure(chartc("compile", spec, "-o", out), cwd=args.repo, env=env, timeout=timeout)
            label = f"10{str(top).translate(SUPERSCRIPT)}"
            detail.append([f"{label} sample", "chartc", mine.status, seconds(mine.wall),
                           megabytes(mine.maxrss_kb / 1024), size(out.stat().st_size) if mine.ok else "-"])
            rows.append(Row(f"5 N={label}, data.sample {SAMPLE:,} -> SVG", describe(mine, out),
                            peer_text,
                            mine.wall / peer.wall if mine.ok and peer.ok else None, TARGET,
                            verdict="pass" if mine.ok else "fail",
                            note=f"chartc {mine.status}: draws {SAMPLE:,} of the {n:,} rows and fits all of them; "
                                 f"the peer draws every row"))
    print("\n-- figure 5: scatter + trend by N (time, peak RSS, SVG size)")
    print(table(["N", "tool", "status", "time", "peak RSS", "SVG"], detail))
    print(f"   timeout {seconds(timeout)} per render; ratio = chartc time / matplotlib time")
    return rows


def main(argv=None):
    run_script(run, "figure 5: large data, chartc vs matplotlib", argv, options)


if __name__ == "__main__":
    sys.exit(main())
