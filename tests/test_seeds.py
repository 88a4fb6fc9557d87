"""The two seed charts, checked point by point against their descriptions.

shared seeds 000 (Pretraining vs Downstream Performance) and 001 (Model
Accuracy vs Training FLOPs) are the charts chartc was made for. Each item of
their descriptions is asserted from the compiled Vega-Lite and from the
rendered SVG; the trend's R² is recomputed independently with scipy.
"""

from __future__ import annotations

import colorsys
import csv
import re
import xml.etree.ElementTree as ET

import pytest
from scipy import stats

from chartc import compile_spec
from chartc.render.export import render
from chartc.infra.shapes import resolve_shape

from conftest import ROOT

SPECS = ROOT / "specs"

PRETRAINING = {  # model: (shape, colour name, bpb, downstream) as described
    "MLA": ("diamond", "red", 0.724, 36.9),
    "MQA": ("triangle-up", "green", 0.728, 33.5),
    "GQA": ("square", "orange", 0.726, 35.8),
    "Standard MHA": ("circle", "blue", 0.722, 35.3),
    "LRKV": ("star", "purple", 0.720, 38.0),
}
FLOPS = {  # model: (shape, colour name, log10 FLOPs, accuracy) as described
    "finch": ("circle", "red", 22, 0.62),
    "eagle": ("x", "blue", 22.5, 0.62),
    "pythia": ("plus", "orange", 21, 0.58),
    "mamba": ("triangle-up", "black", 21.5, 0.62),
    "stablelm": ("star", "brown", 23, 0.65),
    "btlm-3b-8k-base": ("triangle-up", "cyan", 23, 0.67),
    "falcon-7b": ("triangle-up", "green", 23.5, 0.70),
    "Llama-2-7b": ("diamond", "yellow", 24, 0.70),
}


def colour_name(hex_colour: str) -> str:
    """A plain colour word for a hex colour, by hue, saturation and value."""
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    hue, saturation, value = colorsys.rgb_to_hsv(r, g, b)
    hue *= 360
    if value < 0.15:
        return "black"
    if saturation < 0.15:
        return "gray"
    if hue < 45 and value < 0.6:
        return "brown"
    for limit, name in ((15, "red"), (40, "orange"), (70, "yellow"), (160, "green"),
                        (200, "cyan"), (250, "blue"), (320, "purple"), (360, "red")):
        if hue < limit:
            return name
    raise AssertionError(hex_colour)


@pytest.fixture(scope="module")
def pretraining():
    compiled = compile_spec(SPECS / "seed_pretraining.yaml")
    return compiled, render(compiled.vega_lite, "svg").decode("utf-8")


@pytest.fixture(scope="module")
def flops():
    compiled = compile_spec(SPECS / "seed_flops.yaml")
    return compiled, render(compiled.vega_lite, "svg").decode("utf-8")


def views(vega_lite: dict) -> list[dict]:
    return vega_lite.get("layer", [vega_lite])


def scale_map(vega_lite: dict, channel: str) -> dict:
    """Category -> range value of a channel's scale in the first view that encodes it."""
    for view in views(vega_lite):
        encoding = view.get("encoding", {}).get(channel)
        if encoding and "scale" in encoding:
            return dict(zip(encoding["scale"]["domain"], encoding["scale"]["range"]))
    raise AssertionError(f"no {channel} scale")


def rows(vega_lite: dict, csv_name: str) -> list[dict]:
    """The inlined rows of the points, and the CSV they came from, as read by csv."""
    datasets = vega_lite["datasets"]
    name = vega_lite["data"]["name"]
    with open(SPECS / "data" / csv_name, newline="") as stream:
        return datasets[name], list(csv.DictReader(stream))


def legend_box(svg: str) -> tuple[float, float, float, float]:
    """(x, y, width, height) of the legend, relative to the plot area."""
    match = re.search(r'role-legend"[^>]*><g transform="translate\(([-\d.]+),([-\d.]+)\)">'
                      r'<path class="background"[^>]*d="M[\d.]+,[\d.]+L([\d.]+),[\d.]+.*?L[\d.]+,([\d.]+)', svg)
    assert match, "no legend in the SVG"
    x, y, right, bottom = (float(g) for g in match.groups())
    return x, y, right, bottom


def legend_labels(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    labels = []
    for group in root.iter("{http://www.w3.org/2000/svg}g"):
        if "role-legend-label" in group.get("class", ""):
            labels.extend("".join(text.itertext()) for text in group.iter("{http://www.w3.org/2000/svg}text"))
    return labels


def axis_titles(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return ["".join(text.itertext()) for group in root.iter("{http://www.w3.org/2000/svg}g")
            if "role-axis-title" in group.get("class", "")
            for text in group.iter("{http://www.w3.org/2000/svg}text")]


# ------------------------------------------------------------------ seed 000

def test_pretraining_titles(pretraining):
    compiled, svg = pretraining
    vl = compiled.vega_lite
    assert vl["title"]["text"] == "Pretraining vs Downstream Performance"
    x = views(vl)[0]["encoding"]["x"]
    y = views(vl)[0]["encoding"]["y"]
    assert x["title"] == "Pretraining BPB (lower is better)"
    assert y["title"] == "Downstream Performance (%)"
    assert x["scale"].get("type", "linear") == "linear" and y["scale"].get("type", "linear") == "linear"
    assert ">Pretraining vs Downstream Performance</text>" in svg
    assert sorted(axis_titles(svg)) == ["Downstream Performance (%)", "Pretraining BPB (lower is better)"]


def test_pretraining_points_are_the_listed_coordinates(pretraining):
    compiled, _ = pretraining
    inlined, from_csv = rows(compiled.vega_lite, "attention_variants.csv")
    assert {r["model"]: (r["bpb"], r["downstream"]) for r in inlined} == {
        model: (bpb, y) for model, (_, _, bpb, y) in PRETRAINING.items()}
    assert len(from_csv) == len(PRETRAINING)


def test_pretraining_axes_cover_every_point(pretraining):
    compiled, _ = pretraining
    encoding = views(compiled.vega_lite)[0]["encoding"]
    (x_lo, x_hi), (y_lo, y_hi) = encoding["x"]["scale"]["domain"], encoding["y"]["scale"]["domain"]
    for _, _, bpb, downstream in PRETRAINING.values():
        assert x_lo <= bpb <= x_hi and y_lo <= downstream <= y_hi
    assert x_lo <= 0.720 and x_hi >= 0.728 and y_lo <= 33.5 and y_hi >= 38.0


def test_pretraining_marker_per_model(pretraining):
    compiled, _ = pretraining
    shapes = scale_map(compiled.vega_lite, "shape")
    fills = scale_map(compiled.vega_lite, "fill")
    for model, (shape, colour, _, _) in PRETRAINING.items():
        assert shapes[model] == resolve_shape(shape), model
        assert colour_name(fills[model]) == colour, model


def test_pretraining_trend_reports_r2_of_the_listed_points(pretraining):
    compiled, svg = pretraining
    fit = stats.linregress([p[2] for p in PRETRAINING.values()], [p[3] for p in PRETRAINING.values()])
    label = f"Trend (R²={fit.rvalue ** 2:.3f})"
    assert label == "Trend (R²=0.626)"  # the description quotes 0.786; the points give this
    (line,) = compiled.fits[("layers", 1)]
    assert line.r2 == pytest.approx(fit.rvalue ** 2, rel=1e-12)
    assert dict(line.coefficients)["slope"] == pytest.approx(fit.slope, rel=1e-12)
    assert fit.slope < 0  # lower BPB, better downstream: the line falls from left to right
    trend_view = views(compiled.vega_lite)[1]
    assert trend_view["mark"]["type"] == "line" and trend_view["mark"]["strokeDash"] == [6, 4]
    assert scale_map(compiled.vega_lite, "strokeDash")[label] == [6, 4]
    assert scale_map(compiled.vega_lite, "shape")[label] == "stroke"
    assert legend_labels(svg) == list(PRETRAINING) + [label]


def test_pretraining_legend_in_the_bottom_right_corner(pretraining):
    compiled, svg = pretraining
    vl = compiled.vega_lite
    assert vl["config"]["legend"]["orient"] == "bottom-right"
    x, y, right, bottom = legend_box(svg)
    assert x > vl["width"] / 2 and y > vl["height"] / 2
    assert x + right <= vl["width"] and y + bottom <= vl["height"]


# ------------------------------------------------------------------ seed 001

def test_flops_axes(flops):
    compiled, svg = flops
    vl = compiled.vega_lite
    encoding = views(vl)[0]["encoding"]
    assert vl["title"]["text"] == "Model Accuracy vs. Training FLOPs"
    assert encoding["x"]["scale"]["type"] == "log"
    assert encoding["y"]["scale"].get("type", "linear") == "linear"
    assert encoding["y"]["title"] == "Accuracy"
    assert sorted(axis_titles(svg)) == ["Accuracy", "Training FLOPs"]
    tick_labels = re.findall(r">(10[⁰¹²³⁴⁵⁶⁷⁸⁹]+)</text>", svg)
    assert tick_labels == ["10²¹", "10²²", "10²³", "10²⁴"]


def test_flops_points_and_ranges(flops):
    compiled, _ = flops
    inlined, _ = rows(compiled.vega_lite, "model_scaling.csv")
    by_model = {r["model"]: r for r in inlined}
    assert set(by_model) == set(FLOPS)
    encoding = views(compiled.vega_lite)[0]["encoding"]
    (x_lo, x_hi), (y_lo, y_hi) = encoding["x"]["scale"]["domain"], encoding["y"]["scale"]["domain"]
    for model, (_, _, log_flops, accuracy) in FLOPS.items():
        assert by_model[model]["accuracy"] == accuracy
        assert by_model[model]["flops"] == pytest.approx(10 ** log_flops, rel=0.01)
        assert x_lo <= by_model[model]["flops"] <= x_hi and y_lo <= accuracy <= y_hi
    assert y_lo <= 0.58 and y_hi >= 0.70


def test_flops_marker_per_model(flops):
    compiled, svg = flops
    shapes = scale_map(compiled.vega_lite, "shape")
    fills = scale_map(compiled.vega_lite, "fill")
    strokes = scale_map(compiled.vega_lite, "stroke")
    for model, (shape, colour, _, _) in FLOPS.items():
        assert shapes[model] == resolve_shape(shape), model
        # matplotlib's thin `x` and `+` are drawn by their stroke alone: no fill
        drawn = strokes[model] if fills[model] == "transparent" else fills[model]
        assert colour_name(drawn) == colour, model
        assert (fills[model] == "transparent") == (shape in ("x", "plus")), model
    assert resolve_shape("x") != resolve_shape("plus")  # eagle's diagonal cross is not pythia's plus
    assert legend_labels(svg) == list(FLOPS)


def test_flops_legend_in_the_top_left_corner(flops):
    compiled, svg = flops
    vl = compiled.vega_lite
    assert vl["config"]["legend"]["orient"] == "top-left"
    x, y, right, bottom = legend_box(svg)
    assert 0 <= x < vl["width"] / 2 and 0 <= y < vl["height"] / 2
