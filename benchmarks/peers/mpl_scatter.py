"""The matplotlib peer of an N-point scatter with a linear trend, saved as SVG (or PNG, by the suffix).

    python mpl_scatter.py scatter_N.csv out.svg [DPI]

A PNG is 100 dpi unless DPI is given (200: about as many pixels as chartc's PNG at scale 2).
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main(data, out, dpi=None):
    x, y = np.loadtxt(data, delimiter=",", skiprows=1, unpack=True, ndmin=2)
    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    ax.scatter(x, y, s=4, facecolors="none", edgecolors="#4c78a8", linewidths=0.5)
    slope, intercept = np.polyfit(x, y, 1)
    r2 = 1 - np.sum((y - (slope * x + intercept)) ** 2) / np.sum((y - y.mean()) ** 2)
    line_x = np.linspace(x.min(), x.max(), 100)
    ax.plot(line_x, slope * line_x + intercept, linestyle=(0, (3, 2)), color="gray", linewidth=2,
            label=f"Trend (R²={r2:.3f})")
    ax.set_title(f"{len(x)} points and a linear trend")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, format=str(out).rsplit(".", 1)[-1], dpi=dpi)  # svg, or png (100 dpi unless given)
    plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else None)
