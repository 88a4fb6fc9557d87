"""Figure 3: `chartc build` of 100 generated specs vs matplotlib drawing the same charts.

100 small specs (scatter, scatter + linear trend, line, bar) with CSV data are
written to a temporary folder. chartc renders each to SVG, PNG, HTML and
Vega-Lite JSON (plus an index page) with ``--jobs 1`` and ``--jobs 2`` and with
its default, when the CLI has ``--jobs``; otherwise the one way it builds. The
peer (peers/mpl_gallery.py) draws the same charts in one process and saves SVG
and PNG (matplotlib has no HTML or Vega-Lite counterpart). Every run is cold,
into a fresh output folder.

    python benchmarks/bench_build.py [--quick] [--specs N] [--at REV]
"""

from __future__ import annotations

import itertools
import os
import shutil
import sys
import tempfile
from pathlib import Path

from _common import (HERE, Row, Series, chartc, chartc_supports, child_env, failed_row, measure, print_series,
                     python, repeats, run_script, seconds)
from _workload import write_gallery

TARGET_MPL, LIMIT_MPL = "<= 1.0 (>= mpl throughput)", 1.0
TARGET_JOBS, LIMIT_JOBS = "<= 0.7", 0.7
TARGET_GALLERY_JOBS, LIMIT_GALLERY_JOBS = "<= 0.6", 0.6  # issue 22, on the project's own specs/


def spec_count(args) -> int:
    return args.specs or (40 if args.quick else 100)


def options(parser):
    parser.add_argument("--specs", type=int, help="how many specs to generate (default 100; 40 with --quick)")


def build_commands(args, specs: Path, manifest: Path) -> dict[str, dict]:
    """name -> measure() keywords; each output folder is made fresh per run by `run_fresh`."""
    env = child_env(args.repo)
    commands = {}
    if chartc_supports(args.repo, "build", "--jobs"):
        commands["chartc build --jobs 1"] = dict(cmd=chartc("build", specs, "--out", "{out}", "--jobs", "1"))
        commands["chartc build --jobs 2"] = dict(cmd=chartc("build", specs, "--out", "{out}", "--jobs", "2"))
        if os.cpu_count() not in (1, 2):
            commands["chartc build (default jobs)"] = dict(cmd=chartc("build", specs, "--out", "{out}"))
    else:
        commands["chartc build"] = dict(cmd=chartc("build", specs, "--out", "{out}"))
    commands["matplotlib, one process"] = dict(cmd=python(HERE / "peers" / "mpl_gallery.py", manifest, "{out}"))
    for spec in commands.values():
        spec.update(cwd=args.repo, env=env, timeout=1800)
    return commands


_RUNS = itertools.count(1)


def run_fresh(spec: dict, out_root: Path):
    """One measured run into a new output folder; the folder is removed afterwards."""
    out = out_root / f"out{next(_RUNS)}"
    cmd = [str(a).replace("{out}", str(out)) for a in spec["cmd"]]
    run = measure(cmd, cwd=spec["cwd"], env=spec["env"], timeout=spec.get("timeout"))
    files = sum(1 for p in out.rglob("*") if p.is_file()) if out.exists() else 0
    shutil.rmtree(out, ignore_errors=True)
    return run, files


def run(args) -> list[Row]:
    count = spec_count(args)
    repeat = repeats(args, 2, 1)
    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as tmp:
        tmp = Path(tmp)
        specs = write_gallery(tmp / "gallery", count)
        warm_specs = write_gallery(tmp / "warm", 4)
        commands = build_commands(args, specs, tmp / "gallery" / "manifest.json")
        warm = build_commands(args, warm_specs, tmp / "warm" / "manifest.json")
        for spec in warm.values():  # byte-compile, font cache, disk cache
            run_fresh(spec, tmp)
        series = {name: Series() for name in commands}
        files = {}
        for _ in range(repeat):
            for name, spec in commands.items():
                result, files[name] = run_fresh(spec, tmp)
                series[name].runs.append(result)
        own = {}
        if "chartc build --jobs 1" in commands:  # 3c: the project's own gallery (specs/), 2 workers vs 1
            env = child_env(args.repo)
            own = {f"specs/ --jobs {n}": dict(cmd=chartc("build", args.repo / "specs", "--out", "{out}", "--jobs", str(n)),
                                              cwd=args.repo, env=env, timeout=1800) for n in (1, 2)}
            own = {name: (spec, Series()) for name, spec in own.items()}
            for _ in range(repeat):
                for spec, measured in own.values():
                    measured.runs.append(run_fresh(spec, tmp)[0])
    print_series(f"figure 3: build of {count} generated specs", series, None)
    for name, n in files.items():
        print(f"   {name}: {n} files written")

    figure = f"3a build {count} specs vs matplotlib"
    jobs = "chartc build --jobs 1" in series
    main_name = ("chartc build (default jobs)" if "chartc build (default jobs)" in series
                 else "chartc build --jobs 2" if jobs else "chartc build")
    mpl = series["matplotlib, one process"]
    rows = []
    broken = failed_row(figure, TARGET_MPL, {main_name: series[main_name], "matplotlib": mpl})
    if broken:
        rows.append(broken)
    else:
        mine = series[main_name]
        rows.append(Row(figure, f"{seconds(mine.median)} ({count / mine.median:.1f}/s)",
                        f"{seconds(mpl.median)} ({count / mpl.median:.1f}/s)", mine.median / mpl.median,
                        TARGET_MPL, LIMIT_MPL,
                        note=f"{main_name}, {files[main_name]} files (svg+png+html+vl.json, fits, index) vs "
                             f"{files['matplotlib, one process']} (svg+png)"))
    figure = f"3b build {count} specs, 2 workers vs 1"
    if not jobs:
        rows.append(Row(figure, "n/a", "n/a", None, TARGET_JOBS, verdict="n/a",
                        note="chartc build has no --jobs option yet"))
    else:
        one, two = series["chartc build --jobs 1"], series["chartc build --jobs 2"]
        broken = failed_row(figure, TARGET_JOBS, {"chartc --jobs 2": two, "chartc --jobs 1": one})
        rows.append(broken or Row(figure, seconds(two.median), seconds(one.median), two.median / one.median,
                                  TARGET_JOBS, LIMIT_JOBS,
                                  note=f"peak RSS {two.maxrss_mb:.0f} vs {one.maxrss_mb:.0f} MB (largest single process)"
                                  + ("" if (os.cpu_count() or 1) >= 2 else "; only 1 core here")))
    if own:
        one, two = (measured for _, measured in own.values())
        print_series("figure 3c: build of the project's specs/", {name: m for name, (_, m) in own.items()}, None)
        figure = "3c build of specs/, 2 workers vs 1"
        broken = failed_row(figure, TARGET_GALLERY_JOBS, {"chartc --jobs 2": two, "chartc --jobs 1": one})
        rows.append(broken or Row(figure, seconds(two.median), seconds(one.median), two.median / one.median,
                                  TARGET_GALLERY_JOBS, LIMIT_GALLERY_JOBS,
                                  note=f"CPU {seconds(two.cpu)} vs {seconds(one.cpu)} ({two.cpu / one.cpu:.2f}x); "
                                       f"peak RSS of the largest process (a worker) {two.maxrss_mb:.0f} vs "
                                       f"{one.maxrss_mb:.0f} MB"))
    return rows


def main(argv=None):
    run_script(run, "figure 3: chartc build vs matplotlib", argv, options)


if __name__ == "__main__":
    sys.exit(main())
