"""Exports at 10⁵ points (issue 22): SVG, PNG and .vl.json vs matplotlib, and what the renderer itself costs.

Cold processes, interleaved: `chartc compile` of an N-point scatter with a
linear trend (`_workload.write_scatter`) to .svg, .png and .vl.json, and the
matplotlib peer (peers/mpl_scatter.py) to .svg and .png at 100 dpi (the target's
peer) and at 200 dpi (like for like: 1120x880 px against chartc's 1330x848 at
scale 2; a row of its own, no target). Wall and
CPU time (chartc's renderer worker included) are reported; on a shared
machine the CPU ratio is the steadier one.

Then, warm in this one child process (the engine started, the chart compiled
once), the renderer alone on the same chart: `vegalite_to_svg`, the SVG
rasterised at PNG scale 1 and 2 (chartc writes 2), the rewrite a chart of many
marks is rasterised from (`export.svg_for_raster`) and its rasterisation at
scale 2, `vegalite_to_png` straight
from Vega-Lite, and Vega-Lite JSON written by the standard library's indented
encoder, by orjson (what `infra.jsonout.canonical_json` uses when the bytes are
the same) and compact: what each step of an export costs and what the
options would save.

    python benchmarks/bench_exports.py [--quick] [--n N] [--repeat R]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from _common import HERE, Row, chartc, child_env, compare, failed_row, print_series, python, repeats, run_script, \
    seconds, size, table
from _workload import write_scatter

SVG_TARGET, SVG_LIMIT = "<= 1.0", 1.0
PNG_TARGET, PNG_LIMIT = "<= 2.0", 2.0

# Run in a child with chartc installed: the renderer's own cost, warm. Prints one JSON object.
RENDERER_PROBE = r"""
import json, sys, time
from chartc.pipeline import compile_spec
from chartc.render import export
from chartc.infra.jsonout import canonical_json, _finite

def timed(function, repeat=2):
    best = None
    for _ in range(repeat):
        start = time.process_time()
        value = function()
        spent = time.process_time() - start
        best = spent if best is None else min(best, spent)
    return best, value

compiled = compile_spec(sys.argv[1], full=False)
vl = compiled.vega_lite
engine = export.engine()
engine.get_themes()
out = {}
out["vegalite_to_svg"], svg = timed(lambda: engine.vegalite_to_svg(vl, allowed_base_urls=[]))
out["svg_bytes"] = len(svg)
out["symbols"] = svg.count("<path")
for scale in (1, 2):
    out[f"svg_to_png scale {scale}"], png = timed(lambda: engine.svg_to_png(svg, scale=scale))
    out[f"png_bytes scale {scale}"] = len(png)
out["svg_for_raster"], rewritten = timed(lambda: export.svg_for_raster(svg))
out["svg_to_png of svg_for_raster, scale 2"], _ = timed(lambda: engine.svg_to_png(rewritten, scale=2))
out["vegalite_to_png scale 2"], _ = timed(lambda: engine.vegalite_to_png(vl, scale=2, allowed_base_urls=[]), 1)
out["json.dumps indent=2"], text = timed(
    lambda: json.dumps(_finite(vl), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
out["json_bytes"] = len(text.encode())
out["canonical_json (orjson)"], same = timed(lambda: canonical_json(vl))
out["orjson_same_bytes"] = same == text
out["json.dumps compact"], compact = timed(
    lambda: json.dumps(_finite(vl), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False))
out["compact_bytes"] = len(compact.encode())
print(json.dumps(out))
"""


def options(parser):
    parser.add_argument("--n", type=int, help="points (default 100000; 20000 with --quick)")


def run(args) -> list[Row]:
    n = args.n or (20_000 if args.quick else 100_000)
    env = child_env(args.repo)
    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as tmp:
        tmp = Path(tmp)
        spec = write_scatter(tmp, n)
        data = spec.with_suffix(".csv")
        peer = HERE / "peers" / "mpl_scatter.py"
        commands = {
            "chartc compile -o .svg": dict(cmd=chartc("compile", spec, "-o", tmp / "c.svg"), cwd=args.repo, env=env),
            "matplotlib -> .svg": dict(cmd=python(peer, data, tmp / "m.svg"), cwd=args.repo, env=env),
            "chartc compile -o .png": dict(cmd=chartc("compile", spec, "-o", tmp / "c.png"), cwd=args.repo, env=env),
            "matplotlib -> .png": dict(cmd=python(peer, data, tmp / "m.png"), cwd=args.repo, env=env),
            "matplotlib -> .png 200 dpi": dict(cmd=python(peer, data, tmp / "m200.png", "200"), cwd=args.repo,
                                               env=env),
            "chartc compile -o .vl.json": dict(cmd=chartc("compile", spec, "-o", tmp / "c.vl.json"), cwd=args.repo,
                                               env=env),
        }
        series = compare(commands, repeats(args, 3, 1), warmup=0)
        sizes = {name: (tmp / name).stat().st_size if (tmp / name).exists() else None
                 for name in ("c.svg", "m.svg", "c.png", "m.png", "m200.png", "c.vl.json")}
        probe = compare({"renderer": dict(cmd=python("-c", RENDERER_PROBE, spec), cwd=args.repo, env=env)}, 1, 0)
    print_series(f"exports of a {n:,}-point scatter + linear trend", series, commands)
    rows = []
    for fmt, target, limit in (("svg", SVG_TARGET, SVG_LIMIT), ("png", PNG_TARGET, PNG_LIMIT)):
        figure = f"6 N={n:,} -> .{fmt} vs matplotlib"
        mine, theirs = series[f"chartc compile -o .{fmt}"], series[f"matplotlib -> .{fmt}"]
        broken = failed_row(figure, target, {f"chartc .{fmt}": mine, f"matplotlib .{fmt}": theirs})
        if broken:
            rows.append(broken)
            continue
        rows.append(Row(f"{figure} (CPU)", seconds(mine.cpu), seconds(theirs.cpu), mine.cpu / theirs.cpu, target, limit,
                        note=f"wall {seconds(mine.median)} vs {seconds(theirs.median)} "
                             f"({mine.median / theirs.median:.2f}x); {size(sizes[f'c.{fmt}'])} vs "
                             f"{size(sizes[f'm.{fmt}'])}; peak RSS {mine.maxrss_mb:.0f} vs {theirs.maxrss_mb:.0f} MB"))
    png, peer200 = series["chartc compile -o .png"], series["matplotlib -> .png 200 dpi"]
    if png.ok and peer200.ok:
        rows.append(Row(f"6 N={n:,} -> .png vs matplotlib at 200 dpi (CPU)", seconds(png.cpu), seconds(peer200.cpu),
                        png.cpu / peer200.cpu, "-", None,
                        note=f"like for like in pixels; wall {seconds(png.median)} vs {seconds(peer200.median)}; "
                             f"{size(sizes['m200.png'])}"))
    j = series["chartc compile -o .vl.json"]
    svg = series["chartc compile -o .svg"]
    if j.ok and svg.ok:
        rows.append(Row(f"6 N={n:,} -> .vl.json vs -> .svg (CPU)", seconds(j.cpu), seconds(svg.cpu), j.cpu / svg.cpu,
                        "-", None, note=f"{size(sizes['c.vl.json'])}; the compile alone, no renderer"))
    run_ = probe["renderer"].runs[0]
    if run_.ok:
        print_renderer(json.loads(run_.stdout.strip().splitlines()[-1]))
    else:
        print(f"\nrenderer probe: {run_.status}: {run_.stderr.strip()[-400:]}")
    return rows


def print_renderer(measured: dict) -> None:
    print("\n-- the renderer alone, warm, CPU seconds (best of 2)")
    steps = [key for key, value in measured.items() if isinstance(value, float)]
    print(table(["step", "CPU"], [[key, seconds(measured[key])] for key in steps]))
    print(f"   SVG {size(measured['svg_bytes'])}, {measured['symbols']:,} paths; PNG scale 1 "
          f"{size(measured['png_bytes scale 1'])}, scale 2 {size(measured['png_bytes scale 2'])}; Vega-Lite JSON "
          f"{size(measured['json_bytes'])} indented, {size(measured['compact_bytes'])} compact; orjson's bytes the "
          f"same: {measured['orjson_same_bytes']}")


def main(argv=None):
    run_script(run, "figure 6: exports at 10^5 points vs matplotlib", argv, options)


if __name__ == "__main__":
    sys.exit(main())
