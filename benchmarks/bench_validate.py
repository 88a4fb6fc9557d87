"""Figure 1: cold `chartc validate` on one spec vs the floor of any validator.

The floor is ``python -c "import yaml, jsonschema"``: the cost of starting
Python and importing a YAML parser and a JSON Schema validator, before any
work. Also shown (not judged): bare ``python -c pass`` and chartc's own
loader pair, ``import ruamel.yaml, jsonschema``.

    python benchmarks/bench_validate.py [--quick] [--at REV]
"""

from __future__ import annotations

import sys

from _common import Row, chartc, child_env, compare, failed_row, print_series, python, repeats, run_script, seconds

SPEC = "specs/seed_pretraining.yaml"
TARGET, LIMIT = "<= 1.5", 1.5


def run(args) -> list[Row]:
    env = child_env(args.repo)
    commands = {
        "chartc validate": dict(cmd=chartc("validate", SPEC), cwd=args.repo, env=env),
        "import yaml, jsonschema": dict(cmd=python("-c", "import yaml, jsonschema"), cwd=args.repo, env=env),
        "python -c pass": dict(cmd=python("-c", "pass"), cwd=args.repo, env=env),
        "import ruamel.yaml, jsonschema": dict(cmd=python("-c", "import ruamel.yaml, jsonschema"),
                                               cwd=args.repo, env=env),
    }
    series = compare(commands, repeats(args, 5, 3))
    print_series("figure 1: cold validate", series, commands)
    figure = "1 cold validate, 1 spec"
    broken = failed_row(figure, TARGET, {k: series[k] for k in ("chartc validate", "import yaml, jsonschema")})
    if broken:
        return [broken]
    mine, floor = series["chartc validate"].median, series["import yaml, jsonschema"].median
    return [Row(figure, seconds(mine), seconds(floor), mine / floor, TARGET, LIMIT,
                note=f"peer = python -c 'import yaml, jsonschema'; python alone {seconds(series['python -c pass'].median)}")]


def main(argv=None):
    run_script(run, "figure 1: cold chartc validate vs import floor", argv)


if __name__ == "__main__":
    sys.exit(main())
