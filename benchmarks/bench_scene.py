"""The scene check's cost: compiling and rendering every example chart with and without it.

The scene check (stages/scene.py) reads the SVG the export just rendered
back into Vega's scenegraph form and checks it in Python: no second run of
the renderer. One child process (warm: the renderer's engine started, each
chart compiled once before it is timed) measures, per spec in specs/, the
median of a few runs of:

- compile: `compile_spec` (load ... translate, verify);
- SVG: `export.render(..., "svg")`, what `chartc compile -o x.svg` renders;
- gallery: what `chartc build` renders per chart (`gallery.chart_outputs`: SVG, PNG from it, HTML, JSON);
- scene: `pipeline.check_drawn(compiled, svg)`, the check as compile and build run it;
- for comparison, `vl_convert.vegalite_to_scenegraph`: what asking the renderer
  for its scenegraph would add instead (a second run of Vega).

It prints the totals over the examples and the scene check as a fraction of
compile + SVG (a `chartc compile -o x.svg`) and of compile + gallery outputs
(a chart of `chartc build`).

    python benchmarks/bench_scene.py [--quick] [--at REV]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from _common import Row, child_env, measure, python, repeats, run_script, seconds

TARGET, LIMIT = "<= 0.05", 0.05  # of compile + render: a small fraction, never what a build waits for

CHILD = r"""
import json, statistics, sys, time
from pathlib import Path
from chartc.commands.gallery import chart_outputs
from chartc.pipeline import check_drawn, compile_spec
from chartc.render import export
import vl_convert

repeat = int(sys.argv[1])
def timed(function):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), value

totals = dict(compile=0.0, svg=0.0, gallery=0.0, scene=0.0, scenegraph=0.0)
specs = sorted(p for p in Path("specs").iterdir() if p.suffix in (".yaml", ".yml", ".json"))
warnings = 0
for spec in specs:
    compiled = compile_spec(spec)  # warm: imports, the engine, the caches
    export.render(compiled.vega_lite, "svg")
    totals["compile"] += timed(lambda: compile_spec(spec))[0]
    totals["svg"] += timed(lambda: export.render(compiled.vega_lite, "svg"))[0]
    totals["gallery"] += timed(lambda: chart_outputs(compiled))[0]
    svg = export.render(compiled.vega_lite, "svg")
    seconds, found = timed(lambda: check_drawn(compiled, svg))
    totals["scene"] += seconds
    warnings += len(found)
    totals["scenegraph"] += timed(lambda: vl_convert.vegalite_to_scenegraph(compiled.vega_lite))[0]
Path(sys.argv[2]).write_text(json.dumps(dict(totals, specs=len(specs), warnings=warnings)))
"""


def run(args) -> list[Row]:
    env = child_env(args.repo)
    figure = "scene check / (compile + render)"
    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as tmp:
        out = Path(tmp, "totals.json")
        result = measure(python("-c", CHILD, str(repeats(args, 5, 2)), str(out)), cwd=args.repo, env=env,
                         timeout=1800)
        if not result.ok:
            return [Row(figure, result.status, "-", None, TARGET, verdict="fail", note=result.stderr[-300:])]
        totals = json.loads(out.read_text())
    compile_, svg, gallery, scene = totals["compile"], totals["svg"], totals["gallery"], totals["scene"]
    print(f"\n{totals['specs']} example specs, warm, medians summed: compile {seconds(compile_)}, "
          f"SVG {seconds(svg)}, gallery outputs {seconds(gallery)}, scene check {seconds(scene)}; "
          f"a vegalite_to_scenegraph call instead would add {seconds(totals['scenegraph'])}; "
          f"{totals['warnings']} warnings")
    return [
        Row("scene check / (compile + SVG)", seconds(scene), seconds(compile_ + svg), scene / (compile_ + svg),
            TARGET, LIMIT, note=f"scene / SVG render alone {scene / svg:.2f}; a scenegraph call / SVG render "
                                f"{totals['scenegraph'] / svg:.2f}"),
        Row("scene check / (compile + gallery outputs)", seconds(scene), seconds(compile_ + gallery),
            scene / (compile_ + gallery), TARGET, LIMIT, note=f"scene / gallery outputs alone {scene / gallery:.2f}"),
    ]


def main(argv=None):
    run_script(run, "the scene check's cost beside compiling and rendering", argv)


if __name__ == "__main__":
    sys.exit(main())
