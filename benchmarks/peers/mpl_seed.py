"""The matplotlib peer of seed chart 1 (specs/seed_pretraining.yaml), saved as SVG.

What a user would write instead of the spec: five markers with their own shape
and colour, a fitted dashed linear trend with R² in the legend, the legend at
the bottom right, titles and axis ranges.

    python mpl_seed.py specs/data/attention_variants.csv out.svg
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

STYLES = {  # model -> (marker, colour, size in pt²)
    "MLA": ("D", "#d62728", 60),
    "MQA": ("^", "#2ca02c", 60),
    "GQA": ("s", "#ff7f0e", 60),
    "Standard MHA": ("o", "#1f77b4", 60),
    "LRKV": ("*", "#9467bd", 140),
}


def main(data: str, out: str) -> None:
    with open(data, newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    x = np.array([float(r["bpb"]) for r in rows])
    y = np.array([float(r["downstream"]) for r in rows])

    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    for row, xi, yi in zip(rows, x, y):
        marker, color, size = STYLES[row["model"]]
        ax.scatter([xi], [yi], marker=marker, color=color, s=size, label=row["model"], zorder=3)
    slope, intercept = np.polyfit(x, y, 1)
    fitted = slope * x + intercept
    r2 = 1 - np.sum((y - fitted) ** 2) / np.sum((y - y.mean()) ** 2)
    line_x = np.linspace(x.min(), x.max(), 100)
    ax.plot(line_x, slope * line_x + intercept, linestyle=(0, (3, 2)), color="gray", linewidth=2,
            label=f"Trend (R²={r2:.3f})")
    ax.set_xlim(0.719, 0.729)
    ax.set_ylim(33, 38.5)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.3f"))
    ax.set_xlabel("Pretraining BPB (lower is better)")
    ax.set_ylabel("Downstream Performance (%)")
    ax.set_title("Pretraining vs Downstream Performance")
    ax.grid(True, color="#ddd")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, format="svg")
    plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
