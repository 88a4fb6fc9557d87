"""Generated inputs: a folder of small specs with CSV data, and N-point scatters.

Everything is written to a temporary folder, never into the repository. The
same charts are described in `manifest.json` for the matplotlib peer, which
draws them without reading the specs.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

KINDS = ("scatter+trend", "scatter", "line", "bar")
SIZE = (400, 300)  # plot width, height in px (chartc) == inches * 100 (matplotlib)


def _scatter_rows(rng: random.Random, n: int) -> list[tuple]:
    slope, intercept = rng.uniform(-3, 3), rng.uniform(-10, 10)
    return [(round(x, 3), round(intercept + slope * x + rng.gauss(0, 4), 3), "abc"[i % 3])
            for i, x in enumerate(sorted(rng.uniform(0, 30) for _ in range(n)))]


def write_gallery(folder: Path, count: int = 100, seed: int = 9) -> Path:
    """Write `count` specs (scatter, scatter + linear trend, line, bar) and their CSVs.

    Returns:
        The folder of specs (`folder/specs`); `folder/manifest.json` lists the charts.
    """
    specs = folder / "specs"
    data = specs / "data"
    data.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    manifest = []
    width, height = SIZE
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        name = f"chart_{i:03d}"
        title = f"Generated {kind} chart {i}"
        csv = data / f"{name}.csv"
        header = f"title: {title}\nwidth: {width}\nheight: {height}\n" \
                 f"data: {{path: data/{name}.csv}}\n"
        if kind.startswith("scatter"):
            rows = _scatter_rows(rng, rng.randint(20, 60))
            csv.write_text("x,y,group\n" + "".join(f"{x},{y},{g}\n" for x, y, g in rows))
            body = ("encoding:\n  x: {field: x, title: Dose (mg)}\n  y: {field: y, title: Response}\n"
                    "layers:\n  - mark: point\n    encoding:\n      color: {field: group, title: Group}\n")
            if kind == "scatter+trend":
                body += ('  - trend:\n      method: linear\n      label: "Trend (R²={r2:.3f})"\n'
                         "      style: {dash: [6, 4], color: gray, width: 2}\n"
                         "legend: {position: bottom-right}\n")
        elif kind == "line":
            steps = rng.randint(20, 50)
            lines = []
            for series in ("train", "validation"):
                level = rng.uniform(2, 3)
                for step in range(1, steps + 1):
                    level *= rng.uniform(0.93, 1.0)
                    lines.append(f"{step},{level + (0.1 if series == 'validation' else 0):.4f},{series}\n")
            csv.write_text("step,loss,split\n" + "".join(lines))
            body = ("mark: line\nencoding:\n  x: {field: step, title: Step}\n"
                    "  y: {field: loss, title: Loss, scale: {zero: false}}\n"
                    "  color: {field: split, title: Split}\n")
        else:
            cats = [f"item {c}" for c in "ABCDEFGH"[: rng.randint(4, 8)]]
            csv.write_text("category,amount\n" + "".join(f"{c},{rng.randint(5, 100)}\n" for c in cats))
            body = ("mark: bar\nencoding:\n  x: {field: category, type: nominal, title: Category}\n"
                    "  y: {field: amount, title: Amount}\n")
        (specs / f"{name}.yaml").write_text(header + body, encoding="utf-8")
        manifest.append({"name": name, "kind": kind, "title": title, "csv": str(csv)})
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return specs


def write_scatter(folder: Path, n: int, seed: int = 10, sample: int | None = None) -> Path:
    """An N-point scatter with a linear trend: `folder/scatter_N.yaml` and its CSV.

    With `sample`, the spec draws that many of the rows (`data.sample`) and fits all of them.
    """
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 100, n)
    y = 3.0 + 0.5 * x + rng.normal(0, 8, n)
    csv = folder / f"scatter_{n}.csv"
    with csv.open("w") as stream:
        stream.write("x,y\n")
        np.savetxt(stream, np.column_stack([x, y]), fmt="%.4f", delimiter=",")
    spec = folder / (f"scatter_{n}.yaml" if sample is None else f"scatter_{n}_sample_{sample}.yaml")
    drawn = "" if sample is None else f", sample: {sample}"
    spec.write_text(
        f"title: {n} points and a linear trend\nwidth: 480\nheight: 360\n"
        f"data: {{path: {csv.name}{drawn}}}\n"
        "encoding:\n  x: {field: x, title: x}\n  y: {field: y, title: y}\n"
        "layers:\n  - mark: {type: point, size: 4}\n"
        '  - trend:\n      method: linear\n      label: "Trend (R²={r2:.3f})"\n'
        "      style: {dash: [6, 4], color: gray, width: 2}\n",
        encoding="utf-8")
    return spec
