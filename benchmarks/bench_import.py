"""The Python API's cold start: `import chartc` against `import altair`, and a first chart from a DataFrame.

`import chartc` must stay light (issue 19): the pipeline, NumPy, pandas,
Altair and DuckDB load on the first compile, not on import. Shown: cold
``import chartc``, ``from chartc import load`` (the API module and the
pipeline's modules, with the YAML loader: still no NumPy, pandas or Altair),
``import altair`` (the peer a notebook user would import instead), bare
Python; then, not judged, a script's whole first chart: ``import chartc,
pandas`` + `from_spec` of the seed chart from a DataFrame + its SVG.

    python benchmarks/bench_import.py [--quick] [--at REV]
"""

from __future__ import annotations

import sys

from _common import Row, child_env, compare, failed_row, print_series, python, repeats, run_script, seconds

TARGET, LIMIT = "<= 0.5", 0.5
FIRST_CHART = """\
import chartc, pandas as pd
runs = pd.read_csv("specs/data/attention_variants.csv")
chart = chartc.from_spec("mark: point\\nencoding: {x: bpb, y: downstream, color: model}\\n", data=runs)
chart.render("svg")
"""


def run(args) -> list[Row]:
    env = child_env(args.repo)
    commands = {
        "import chartc": dict(cmd=python("-c", "import chartc"), cwd=args.repo, env=env),
        "from chartc import load": dict(cmd=python("-c", "from chartc import load"), cwd=args.repo, env=env),
        "import altair": dict(cmd=python("-c", "import altair"), cwd=args.repo, env=env),
        "python -c pass": dict(cmd=python("-c", "pass"), cwd=args.repo, env=env),
        "first chart from a DataFrame": dict(cmd=python("-c", FIRST_CHART), cwd=args.repo, env=env),
    }
    series = compare(commands, repeats(args, 7, 3))
    print_series("cold import: chartc vs altair", series, commands)
    figure = "import chartc / import altair"
    broken = failed_row(figure, TARGET, {k: series[k] for k in ("import chartc", "import altair")})
    if broken:
        return [broken]
    mine, peer = series["import chartc"].median, series["import altair"].median
    return [Row(figure, seconds(mine), seconds(peer), mine / peer, TARGET, LIMIT,
                note=f"python alone {seconds(series['python -c pass'].median)}; "
                     f"from chartc import load {seconds(series['from chartc import load'].median)}; first chart from a DataFrame "
                     f"(import, compile, SVG) {seconds(series['first chart from a DataFrame'].median)}")]


def main(argv=None):
    run_script(run, "cold import chartc vs import altair", argv)


if __name__ == "__main__":
    sys.exit(main())
