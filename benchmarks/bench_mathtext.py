#!/usr/bin/env python3
"""Math in labels: chartc's Unicode text against typeset math (matplotlib's mathtext, MathJax) per label.

Decides how `$R^2$` is drawn (infra/mathtext.py). For each way, per label of
a paper figure's set: the time to write it, its size in the SVG, whether two
runs give the same bytes, and whether Vega can draw it where labels go (a
legend label, an axis title and a text mark are text: an SVG fragment would
be an image mark, which a legend cannot hold).

    python benchmarks/bench_mathtext.py [--repeat N] [--mathjax DIR]

`--mathjax DIR` names a folder where `npm install mathjax-full@3` was run
(MathJax is not a dependency of chartc, and chartc never fetches it); without
it MathJax is reported as not measured.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import time
from pathlib import Path

LABELS = [r"$R^2$", r"$\alpha = 0.05$", r"$10^{-3}$", r"$x_i$", r"$\sigma \times 10^3$",
          r"$\mu \pm \sigma$", r"$\eta \leq 10^{-4}$", r"$\frac{1}{2}$", r"$\lambda_{max}$", r"$T = 90^\circ$"]

MATHJAX_SCRIPT = r"""
const dir = process.argv[1];
const req = (p) => require(dir + '/node_modules/mathjax-full/js/' + p);
const {mathjax} = req('mathjax.js'); const {TeX} = req('input/tex.js'); const {SVG} = req('output/svg.js');
const {AllPackages} = req('input/tex/AllPackages.js'); const {liteAdaptor} = req('adaptors/liteAdaptor.js');
const {RegisterHTMLHandler} = req('handlers/html.js');
const adaptor = liteAdaptor(); RegisterHTMLHandler(adaptor);
const doc = mathjax.document('', {InputJax: new TeX({packages: AllPackages}), OutputJax: new SVG({fontCache: 'none'})});
const labels = JSON.parse(process.argv[2]); const n = parseInt(process.argv[3]);
const render = () => labels.map((l) => adaptor.outerHTML(doc.convert(l, {display: false})));
const first = render(); const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) render();
const t1 = process.hrtime.bigint();
console.log(JSON.stringify({us: Number(t1 - t0) / 1000 / (n * labels.length),
  bytes: first.join('').length / labels.length, same: JSON.stringify(first) === JSON.stringify(render())}));
"""


def per_label_us(function, repeat: int) -> float:
    """Median over `repeat` rounds of the time to write every label once, per label, in µs."""
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for label in LABELS:
            function(label)
        rounds.append((time.perf_counter() - start) / len(LABELS) * 1e6)
    return statistics.median(rounds)


def unicode_figures(repeat: int) -> dict:
    from chartc.infra.mathtext import render_math

    out = [render_math(label) for label in LABELS]
    return {"us": per_label_us(render_math, repeat), "bytes": sum(len(t.encode()) for t in out) / len(LABELS),
            "same": out == [render_math(label) for label in LABELS], "text": out}


def matplotlib_figures(repeat: int) -> dict:
    import matplotlib

    matplotlib.use("svg")
    matplotlib.rcParams["svg.hashsalt"] = "chartc"  # ids from a fixed salt: comparable bytes
    from matplotlib.figure import Figure

    def svg(label: str) -> bytes:
        figure = Figure(figsize=(1, 0.3))
        figure.text(0, 0, label)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
        return buffer.getvalue()

    first = [svg(label) for label in LABELS]
    return {"us": per_label_us(svg, max(1, repeat // 20)), "bytes": sum(map(len, first)) / len(LABELS),
            "same": first == [svg(label) for label in LABELS]}


def mathjax_figures(folder: Path | None, repeat: int) -> dict | None:
    if folder is None or not (folder / "node_modules" / "mathjax-full").is_dir():
        return None
    labels = json.dumps([label.strip("$") for label in LABELS])
    started = time.perf_counter()
    done = subprocess.run(["node", "-e", MATHJAX_SCRIPT, str(folder.resolve()), labels, str(repeat)],
                          capture_output=True, text=True, check=True)
    figures = json.loads(done.stdout)
    figures["process_s"] = time.perf_counter() - started
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--mathjax", type=Path, default=None, help="folder with node_modules/mathjax-full")
    args = parser.parse_args()
    ours = unicode_figures(args.repeat)
    print(f"labels: {len(LABELS)}, e.g. {LABELS[2]} -> {ours['text'][2]}")
    print(f"{'way':<28}{'µs/label':>12}{'bytes/label':>14}{'same bytes':>12}  drawn by Vega as")
    print(f"{'chartc Unicode text':<28}{ours['us']:>12.1f}{ours['bytes']:>14.1f}{str(ours['same']):>12}  text (legend, axis, mark)")
    mpl = matplotlib_figures(args.repeat)
    print(f"{'matplotlib mathtext -> SVG':<28}{mpl['us']:>12.1f}{mpl['bytes']:>14.1f}{str(mpl['same']):>12}  "
          "an image mark only (no legend label)")
    jax = mathjax_figures(args.mathjax, args.repeat)
    if jax is None:
        print(f"{'MathJax 3 tex -> SVG':<28}{'not measured: pass --mathjax DIR (npm install mathjax-full@3 there)':>40}")
    else:
        print(f"{'MathJax 3 tex -> SVG (node)':<28}{jax['us']:>12.1f}{jax['bytes']:>14.1f}{str(jax['same']):>12}  "
              f"an image mark only (no legend label); node process {jax['process_s']:.2f} s")
    print(f"ratio chartc / matplotlib: {ours['us'] / mpl['us']:.5f} (target: <= 1)")


if __name__ == "__main__":
    main()
