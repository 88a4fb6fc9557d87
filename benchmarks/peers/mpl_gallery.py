"""The matplotlib peer of a generated gallery: every chart of a manifest, in one process.

Draws each chart of `manifest.json` (written by benchmarks/_workload.py) and
saves it as SVG and PNG (2x). matplotlib has no counterpart of chartc's HTML
page or Vega-Lite JSON, so it writes two files per chart where chartc writes four
(plus a fits file per trend chart and an index page).

    python mpl_gallery.py manifest.json OUT_DIR
"""

import csv
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

COLORS = ["#4c78a8", "#f58518", "#e45756", "#72b7b2"]


def read(path):
    with open(path, newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


def draw(chart, rows):
    fig, ax = plt.subplots(figsize=(4.8, 3.8))
    kind = chart["kind"]
    if kind.startswith("scatter"):
        groups = sorted({r["group"] for r in rows})
        for color, group in zip(COLORS, groups):
            pts = [r for r in rows if r["group"] == group]
            ax.scatter([float(r["x"]) for r in pts], [float(r["y"]) for r in pts],
                       s=30, facecolors="none", edgecolors=color, alpha=0.7, label=group)
        if kind == "scatter+trend":
            x = np.array([float(r["x"]) for r in rows])
            y = np.array([float(r["y"]) for r in rows])
            slope, intercept = np.polyfit(x, y, 1)
            r2 = 1 - np.sum((y - (slope * x + intercept)) ** 2) / np.sum((y - y.mean()) ** 2)
            line_x = np.linspace(x.min(), x.max(), 100)
            ax.plot(line_x, slope * line_x + intercept, linestyle=(0, (3, 2)), color="gray", linewidth=2,
                    label=f"Trend (R²={r2:.3f})")
        ax.legend(loc="lower right", title="Group")
        ax.set_xlabel("Dose (mg)")
        ax.set_ylabel("Response")
    elif kind == "line":
        for color, split in zip(COLORS, ("train", "validation")):
            pts = [r for r in rows if r["split"] == split]
            ax.plot([int(r["step"]) for r in pts], [float(r["loss"]) for r in pts], color=color, label=split)
        ax.legend(title="Split")
        ax.set_xlabel("Step")
        ax.set_ylabel("Loss")
    else:
        ax.bar([r["category"] for r in rows], [int(r["amount"]) for r in rows], color=COLORS[0])
        ax.set_xlabel("Category")
        ax.set_ylabel("Amount")
    ax.set_title(chart["title"])
    ax.grid(True, color="#ddd")
    fig.tight_layout()
    return fig


def main(manifest, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for chart in json.loads(Path(manifest).read_text(encoding="utf-8")):
        fig = draw(chart, read(chart["csv"]))
        fig.savefig(out / f"{chart['name']}.svg", format="svg")
        fig.savefig(out / f"{chart['name']}.png", format="png", dpi=200)
        plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
