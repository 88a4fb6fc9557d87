"""Where a cold command's imports go (issue 22): ``python -X importtime``, grouped by package.

Each command runs cold, interleaved, `--repeat` times; every module's own
import time ("self") is summed per group (altair, numpy, jsonschema, ...;
chartc's own modules per layer: chartc.ir, chartc.stages, ...) and the median
over the runs is printed, with the total. With ``--before REV`` the same
commands run at git revision REV too, in the same rounds: the profile before
and after a change.

    python benchmarks/bench_imports.py [--repeat 5] [--before REV] [-- ARGS...]

Default commands: `import chartc`, `chartc validate` and `chartc compile -o
x.vl.json` of seed chart 1 (a compile to SVG imports the same in this process;
the renderer starts in its worker).
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from _common import Row, child_env, python, repeats, run_script, seconds, snapshot, table

SPEC = "specs/seed_pretraining.yaml"
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def group(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "chartc":
        return ".".join(parts[:2])
    return parts[0].lstrip("_") or module


def profile(cmd: list[str], cwd, env) -> dict[str, float]:
    """Seconds of import per group, for one cold run of `cmd` under -X importtime."""
    result = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=600)
    groups: dict[str, float] = defaultdict(float)
    for line in result.stderr.splitlines():
        match = LINE.match(line)
        if match:
            groups[group(match.group(4))] += int(match.group(1)) / 1e6
    return groups


def options(parser):
    parser.add_argument("--before", metavar="REV", help="also profile git revision REV, in the same rounds")


def run(args) -> list[Row]:
    repeat = repeats(args, 5, 3)
    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as tmp:
        commands = {
            "import chartc": python("-c", "import chartc"),
            "chartc validate": python("-m", "chartc", "validate", SPEC),
            "chartc compile -o .vl.json": python("-m", "chartc", "compile", SPEC, "-o", str(Path(tmp, "x.vl.json"))),
        }
        sides = {"now": child_env(args.repo)}
        if args.before:
            sides[args.before] = child_env(snapshot(args.repo, args.before))
        runs: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for round_ in range(repeat + 1):  # the first round warms the disk cache and byte-compiles
            for name, cmd in commands.items():
                for side, env in sides.items():
                    measured = profile(cmd, args.repo, env)
                    if round_:
                        runs[(name, side)].append(measured)
    rows = []
    for name in commands:
        keys = sorted({key for side in sides for run_ in runs[(name, side)] for key in run_})
        medians = {side: {key: statistics.median(r.get(key, 0.0) for r in runs[(name, side)]) for key in keys}
                   for side in sides}
        totals = {side: statistics.median(sum(r.values()) for r in runs[(name, side)]) for side in sides}
        shown = sorted(keys, key=lambda key: -max(medians[side][key] for side in sides))
        shown = [key for key in shown if max(medians[side][key] for side in sides) >= 0.002]
        print(f"\n-- {name}: import time by package (median of {repeat}, self time summed, ms)")
        print(table(["package", *sides], [[key, *(f"{medians[side][key] * 1000:.0f}" for side in sides)]
                                          for key in shown] + [["total", *(f"{totals[side] * 1000:.0f}"
                                                                          for side in sides)]]))
        if args.before:
            now, then = totals["now"], totals[args.before]
            rows.append(Row(f"imports of {name}, now vs {args.before}", seconds(now), seconds(then), now / then,
                            "-", None, note=f"numpy {medians['now'].get('numpy', 0) * 1000:.0f} vs "
                                            f"{medians[args.before].get('numpy', 0) * 1000:.0f} ms"))
        else:
            rows.append(Row(f"imports of {name}", seconds(totals["now"]), "-", None, "-", None,
                            note=f"numpy {medians['now'].get('numpy', 0) * 1000:.0f} ms"))
    return rows


def main(argv=None):
    run_script(run, "imports of a cold chartc command, by package", argv, options)


if __name__ == "__main__":
    sys.exit(main())
