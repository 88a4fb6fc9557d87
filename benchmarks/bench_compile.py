"""Figure 2: cold `chartc compile` of seed chart 1 to SVG vs a matplotlib script.

The peer (peers/mpl_seed.py) draws the same chart: five markers with their
own shapes and colours, a fitted dashed linear trend with R² in the legend,
legend at the bottom right, titles, saved as SVG.

    python benchmarks/bench_compile.py [--quick] [--at REV] [--before REV]

`--before REV` adds, in the same interleaved runs, the compile at git
revision REV and the compile with the data engine's import not started
early (`stages.data.engine.preload` a no-op), and prints both as ratios to
this checkout's compile: what a change costs a cold compile, and what the
early import saves.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _common import (HERE, Row, chartc, child_env, compare, failed_row, print_series, python, repeats,
                     run_script, seconds, size, snapshot)

SPEC = "specs/seed_pretraining.yaml"
DATA = "specs/data/attention_variants.csv"
TARGET, LIMIT = "<= 1.2", 1.2


def run(args) -> list[Row]:
    env = child_env(args.repo)
    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as tmp:
        mine, peer = Path(tmp, "chartc.svg"), Path(tmp, "matplotlib.svg")
        commands = {
            "chartc compile -o .svg": dict(cmd=chartc("compile", SPEC, "-o", mine), cwd=args.repo, env=env),
            "matplotlib script": dict(cmd=python(HERE / "peers" / "mpl_seed.py", DATA, peer), cwd=args.repo, env=env),
            "import matplotlib.pyplot": dict(cmd=python("-c", "import matplotlib.pyplot"), cwd=args.repo, env=env),
        }
        if args.before:
            before = snapshot(args.repo, args.before)
            commands[f"chartc compile at {args.before}"] = dict(
                cmd=chartc("compile", SPEC, "-o", Path(tmp, "before.svg")), cwd=args.repo, env=child_env(before))
            commands["chartc compile, engine import not started early"] = dict(
                cmd=python("-c", LATE_IMPORT, "compile", SPEC, "-o", Path(tmp, "late.svg")), cwd=args.repo, env=env)
        series = compare(commands, repeats(args, 5, 3))
        sizes = {name: path.stat().st_size if path.exists() else None for name, path in (("chartc", mine), ("peer", peer))}
    print_series("figure 2: cold compile of seed chart 1 to SVG", series, commands)
    figure = "2 cold compile seed chart -> SVG"
    broken = failed_row(figure, TARGET, {k: series[k] for k in ("chartc compile -o .svg", "matplotlib script")})
    if broken:
        return [broken]
    a, b = series["chartc compile -o .svg"], series["matplotlib script"]
    rows = [Row(figure, seconds(a.median), seconds(b.median), a.median / b.median, TARGET, LIMIT,
                note=f"SVG {size(sizes['chartc'])} vs {size(sizes['peer'])}; peak RSS {a.maxrss_mb:.0f} vs "
                     f"{b.maxrss_mb:.0f} MB; import matplotlib.pyplot alone "
                     f"{seconds(series['import matplotlib.pyplot'].median)}")]
    if args.before:
        then, late = series[f"chartc compile at {args.before}"], series["chartc compile, engine import not started early"]
        rows.append(Row(f"2b cold compile, this checkout vs {args.before}", seconds(a.median), seconds(then.median),
                        a.median / then.median, "<= 1.0", None,
                        note=f"peak RSS {a.maxrss_mb:.0f} vs {then.maxrss_mb:.0f} MB"))
        rows.append(Row("2c engine import started early vs not", seconds(a.median), seconds(late.median),
                        a.median / late.median, "<= 1.0", None))
    return rows


# `chartc compile` with the engine's early import turned off (patched before the pipeline imports it).
LATE_IMPORT = ("import sys; from chartc.stages.data import engine; engine.preload = lambda: None; "
               "from chartc.commands import cli; sys.argv[0] = 'chartc'; cli.run()")


def main(argv=None):
    run_script(run, "figure 2: cold chartc compile vs matplotlib script", argv,
               extra=lambda parser: parser.add_argument(
                   "--before", metavar="REV", help="also measure the compile at git revision REV, and the compile "
                   "without the engine's early import, interleaved"))


if __name__ == "__main__":
    sys.exit(main())
