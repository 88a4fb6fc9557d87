"""The Altair peer of seed chart 1 (specs/seed_pretraining.yaml): Vega-Lite JSON, or SVG through vl-convert.

What a user of Altair would write instead of the spec: five markers with
their own shape and colour, a dashed linear trend (Vega-Lite's regression
transform, R² in the legend computed in the script), the legend at the bottom
right, titles and axis ranges. The rows are read with the csv module (no
pandas), the chart saved as `alt.Chart.save` writes it (``.json``: Vega-Lite
JSON, validated against Vega-Lite's schema; ``.svg``: rendered by vl-convert).

    python altair_seed.py specs/data/attention_variants.csv out.vl.json
    python altair_seed.py specs/data/attention_variants.csv out.svg
"""

import csv
import sys

import altair as alt

STYLES = {  # model -> (shape, colour, size)
    "MLA": ("diamond", "#d62728", 110),
    "MQA": ("triangle-up", "#2ca02c", 110),
    "GQA": ("square", "#ff7f0e", 110),
    "Standard MHA": ("circle", "#1f77b4", 110),
    "LRKV": ("M0,-1L0.22,-0.31L0.95,-0.31L0.36,0.12L0.59,0.81L0,0.38L-0.59,0.81L-0.36,0.12L-0.95,-0.31L-0.22,-0.31Z",
             "#9467bd", 220),
}


def r_squared(x: list[float], y: list[float]) -> float:
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy * sxy / (sxx * syy)


def main(data: str, out: str) -> None:
    with open(data, newline="", encoding="utf-8") as stream:
        rows = [{**r, "bpb": float(r["bpb"]), "downstream": float(r["downstream"])} for r in csv.DictReader(stream)]
    r2 = r_squared([r["bpb"] for r in rows], [r["downstream"] for r in rows])
    names = list(STYLES)
    x = alt.X("bpb:Q", title="Pretraining BPB (lower is better)", scale=alt.Scale(domain=[0.719, 0.732], zero=False),
              axis=alt.Axis(format=".3f"))
    y = alt.Y("downstream:Q", title="Downstream Performance (%)", scale=alt.Scale(domain=[33, 38.5], zero=False))
    points = alt.Chart().mark_point(filled=True).encode(
        x=x, y=y,
        color=alt.Color("model:N", scale=alt.Scale(domain=names, range=[s[1] for s in STYLES.values()]), title=None),
        shape=alt.Shape("model:N", scale=alt.Scale(domain=names, range=[s[0] for s in STYLES.values()]), title=None),
        size=alt.Size("model:N", scale=alt.Scale(domain=names, range=[s[2] for s in STYLES.values()]), legend=None),
    )
    trend = alt.Chart().transform_regression("bpb", "downstream").transform_calculate(
        series=f"'Trend (R²={r2:.3f})'").mark_line(strokeDash=[6, 4], color="gray", strokeWidth=2).encode(
        x="bpb:Q", y="downstream:Q", strokeDash=alt.StrokeDash("series:N", title=None))
    chart = alt.layer(points, trend, data=alt.Data(values=rows)).properties(
        title="Pretraining vs Downstream Performance", width=560, height=360,
    ).configure_legend(orient="bottom-right")
    chart.save(out)  # the format follows the suffix: .json (x.vl.json too) or .svg


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
