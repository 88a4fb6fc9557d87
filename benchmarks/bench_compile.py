"""Figure 2: cold `chartc compile` of seed chart 1 to SVG vs a matplotlib script, and to .vl.json vs Altair.

The peer (peers/mpl_seed.py) draws the same chart: five markers with their
own shapes and colours, a fitted dashed linear trend with R² in the legend,
legend at the bottom right, titles, saved as SVG. The Altair peer
(peers/altair_seed.py) builds the same chart with Altair and saves it as
Vega-Lite JSON (2d: what `chartc compile -o x.vl.json` replaces) and as SVG
through vl-convert (2e). Wall time and CPU time (user + system of every
process a command starts: chartc's renderer worker included) are both reported.

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
CPU_TARGET, CPU_LIMIT = "<= 1.0", 1.0       # issue 22: SVG in CPU time against matplotlib
JSON_TARGET, JSON_LIMIT = "<= 1.2", 1.2     # issue 22: .vl.json against the Altair script


def run(args) -> list[Row]:
    env = child_env(args.repo)
    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as tmp:
        mine, peer = Path(tmp, "chartc.svg"), Path(tmp, "matplotlib.svg")
        altair = HERE / "peers" / "altair_seed.py"
        commands = {
            "chartc compile -o .svg": dict(cmd=chartc("compile", SPEC, "-o", mine), cwd=args.repo, env=env),
            "matplotlib script": dict(cmd=python(HERE / "peers" / "mpl_seed.py", DATA, peer), cwd=args.repo, env=env),
            "chartc compile -o .vl.json": dict(cmd=chartc("compile", SPEC, "-o", Path(tmp, "chartc.vl.json")),
                                               cwd=args.repo, env=env),
            "Altair script -> .vl.json": dict(cmd=python(altair, DATA, Path(tmp, "altair.vl.json")),
                                              cwd=args.repo, env=env),
            "Altair script -> .svg": dict(cmd=python(altair, DATA, Path(tmp, "altair.svg")), cwd=args.repo, env=env),
            "import matplotlib.pyplot": dict(cmd=python("-c", "import matplotlib.pyplot"), cwd=args.repo, env=env),
            "import altair, vl_convert": dict(cmd=python("-c", "import altair, vl_convert"), cwd=args.repo, env=env),
        }
        if args.before:
            before = snapshot(args.repo, args.before)
            commands[f"chartc compile at {args.before}"] = dict(
                cmd=chartc("compile", SPEC, "-o", Path(tmp, "before.svg")), cwd=args.repo, env=child_env(before))
            commands[f"chartc compile -o .vl.json at {args.before}"] = dict(
                cmd=chartc("compile", SPEC, "-o", Path(tmp, "before.vl.json")), cwd=args.repo, env=child_env(before))
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
                     f"{seconds(series['import matplotlib.pyplot'].median)}"),
            Row("2 (CPU) the same, in CPU time", seconds(a.cpu), seconds(b.cpu), a.cpu / b.cpu, CPU_TARGET, CPU_LIMIT,
                note="user + system of every process, chartc's renderer worker included")]
    others = {k: series[k] for k in ("chartc compile -o .vl.json", "Altair script -> .vl.json", "Altair script -> .svg")}
    broken = failed_row("2d cold compile -> .vl.json vs Altair", JSON_TARGET, others)
    if broken:
        return rows + [broken]
    j, alt, alt_svg = others.values()
    floor = series["import altair, vl_convert"]
    rows += [Row("2d cold compile -> .vl.json vs Altair script", seconds(j.median), seconds(alt.median),
                 j.median / alt.median, JSON_TARGET, JSON_LIMIT,
                 note=f"CPU {seconds(j.cpu)} vs {seconds(alt.cpu)} ({j.cpu / alt.cpu:.2f}x); peak RSS "
                      f"{j.maxrss_mb:.0f} vs {alt.maxrss_mb:.0f} MB; import altair, vl_convert alone "
                      f"{seconds(floor.median)}"),
             Row("2e cold compile -> .svg vs Altair script", seconds(a.median), seconds(alt_svg.median),
                 a.median / alt_svg.median, "-", None,
                 note=f"CPU {seconds(a.cpu)} vs {seconds(alt_svg.cpu)} ({a.cpu / alt_svg.cpu:.2f}x)")]
    if args.before:
        then, late = series[f"chartc compile at {args.before}"], series["chartc compile, engine import not started early"]
        rows.append(Row(f"2b cold compile, this checkout vs {args.before}", seconds(a.median), seconds(then.median),
                        a.median / then.median, "<= 1.0", None,
                        note=f"peak RSS {a.maxrss_mb:.0f} vs {then.maxrss_mb:.0f} MB"))
        rows.append(Row("2c engine import started early vs not", seconds(a.median), seconds(late.median),
                        a.median / late.median, "<= 1.0", None))
        then_json = series[f"chartc compile -o .vl.json at {args.before}"]
        if then_json.ok:
            rows.append(Row(f"2f cold compile -> .vl.json, this checkout vs {args.before}", seconds(j.median),
                            seconds(then_json.median), j.median / then_json.median, "-", None,
                            note=f"CPU {seconds(j.cpu)} vs {seconds(then_json.cpu)} ({j.cpu / then_json.cpu:.2f}x); "
                                 f"peak RSS {j.maxrss_mb:.0f} vs {then_json.maxrss_mb:.0f} MB; {args.before} vs "
                                 f"the Altair script: {then_json.median / alt.median:.2f}x wall, "
                                 f"{then_json.cpu / alt.cpu:.2f}x CPU"))
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
