"""The corpus: charts ported from public galleries, compiled and checked for what Vega draws.

Every spec in tests/corpus/ is a chart from the Vega-Lite examples, the Altair
gallery, seaborn's, Plotly's, ggplot2's, ggpmisc's, matplotlib's or R's
documentation, written in chartc's DSL as a new user would (its source is named
on its first line; tests/corpus/README.md lists them). Each one compiles to SVG
through the CLI, and what it draws (Vega's scenegraph) is compared with what the
spec declares: the marks of its main layer against the rows pandas counts from
the same data, its facet grid, its legend, its distinct shapes. A chart chartc
draws wrong is kept and marked `xfail(strict=True)` with the defect, so the day
it is fixed the mark has to go.

The second half holds one regression test per class of silently wrong chart
(issue 18), each on a corpus chart and each asserting on the scene.
"""

from __future__ import annotations

import functools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import vl_convert as vlc
import yaml

from chartc.commands import cli
from chartc.pipeline import compile_spec

from conftest import (ROOT, facet_panels as panels, group_count as groups, layer_items as items, legend_labels,
                      scene_nodes as nodes, valid_rows as valid, vega_dataset as dataset)

CORPUS = ROOT / "tests" / "corpus"
SPECS = sorted(CORPUS.glob("*.yaml"))
SOURCE_LINE = re.compile(r"# source: (?P<project>[^·]+) · (?P<example>[^·]+) · (?P<url>https://\S+)$")

# How the CLI compiles a corpus spec. The scene check's strict mode joins these arguments
# (`("compile", "--strict")`): every corpus chart must then pass it.
COMPILE_ARGS: tuple[str, ...] = ("compile", "--strict")

# Corpus charts chartc draws other than declared, until the defect is fixed.
DEFECTS: dict[str, str] = {}
# Corpus charts whose categories only colour tells apart, and a greyscale print (W771) or a
# colour-blind reader (W770) cannot: the palettes of the galleries they come from. `--strict`
# refuses them with exactly these codes; they are then checked compiled without it.
VISION_FINDINGS: dict[str, set[str]] = {
    "alt_iowa_electricity": {"W770", "W771"},
    "alt_layer_line_color_rule": {"W770", "W771"},
    "alt_multifeature_scatter_plot": {"W770", "W771"},
    "alt_poly_fit_regression": {"W770", "W771"},
    "alt_scatter_with_loess": {"W770", "W771"},
    "alt_slope_graph": {"W770", "W771"},
    "alt_stacked_bar_chart": {"W770", "W771"},
    "gg_geom_point_colour": {"W770", "W771"},
    "mpl_scatter_tab_colors": {"W770", "W771"},
    "px_marker_style": {"W771"},
    "r_iris_pairs": {"W770"},
    "sns_jitter_stripplot": {"W770", "W771"},
    "sns_scatter_bubbles": {"W770", "W771"},
    "vl_line_color": {"W770", "W771"},
    "vl_stacked_bar_weather": {"W770", "W771"},
    "vl_text_scatter_colored": {"W770", "W771"},
}


def param(spec: Path, *, checked: bool = True):
    """A corpus spec as a test case: expected to fail, with its defect, when what it draws is `checked`."""
    known = checked and spec.stem in DEFECTS
    marks = [pytest.mark.xfail(strict=True, reason=DEFECTS[spec.stem])] if known else []
    return pytest.param(spec, id=spec.stem, marks=marks)


# ---------------------------------------------------------------- the data, read by pandas


def csv(name: str) -> pd.DataFrame:
    return pd.read_csv(CORPUS / "data" / name)


def inline(stem: str) -> pd.DataFrame:
    """The rows written in a corpus spec's `data.values`."""
    return pd.DataFrame(yaml.safe_load((CORPUS / f"{stem}.yaml").read_text(encoding="utf-8"))["data"]["values"])


def cars_bins_per_origin() -> int:
    """Non-empty bars of cars' Horsepower histogram per origin (Vega's bins: 40, 60, ..., 240)."""
    cars = dataset("cars").dropna(subset=["Horsepower"])
    return groups(cars.assign(bin=(cars.Horsepower // 20)), "Origin", "bin")


def r_cars_label() -> str:
    """r_cars_lm's trend label, from numpy's least squares (R: dist = -17.58 + 3.932 speed, R² = 0.6511)."""
    cars = csv("r_cars.csv")
    slope, intercept = np.polyfit(cars.speed, cars.dist, 1)
    r2 = np.corrcoef(cars.speed, cars.dist)[0, 1] ** 2
    return f"dist = {intercept:.2f} + {slope:.3f} speed, R² = {r2:.4f}"


# ---------------------------------------------------------------- what each chart draws


@dataclass(frozen=True)
class Drawn:
    """What one corpus chart must draw.

    mark: the main layer's mark type in Vega's scenegraph (symbol, rect, line, area, text).
    rows: how many items it draws at finite positions, counted from the data with pandas.
    layer: the main layer's mark name (`marks`, `layer_1_marks`; a facet's `child_` prefix is implied).
    grid: the facet panels as (columns, rows).
    legend: every legend label, in order.
    shapes: distinct symbol shapes in the main layer.
    """

    mark: str
    rows: Callable[[], int]
    layer: str = "marks"
    grid: tuple[int, int] | None = None
    legend: tuple[str, ...] | None = None
    shapes: int | None = None


ORIGINS = ("Europe", "Japan", "USA")
SITES = ("Crookston", "Duluth", "Grand Rapids", "Morris", "University Farm", "Waseca")
SPECIES = ("setosa", "versicolor", "virginica")
SYMBOLS = ("AAPL", "AMZN", "GOOG", "IBM", "MSFT")
CYL = ("4", "6", "8")

DRAWN: dict[str, Drawn] = {
    "vl_bar": Drawn("rect", lambda: len(inline("vl_bar"))),
    "vl_point_color_with_shape": Drawn("symbol", lambda: valid(dataset("cars"), "Horsepower", "Miles_per_Gallon"),
                                       legend=ORIGINS, shapes=3),
    "vl_trellis_anscombe": Drawn("symbol", lambda: len(dataset("anscombe")), grid=(4, 1)),
    "vl_tick_dot": Drawn("rect", lambda: valid(dataset("seattle-weather"), "precipitation")),
    "vl_tick_strip": Drawn("rect", lambda: valid(dataset("cars"), "Horsepower", "Cylinders")),
    "vl_point_bubble": Drawn("symbol", lambda: valid(dataset("cars"), "Horsepower", "Miles_per_Gallon",
                                                     "Acceleration")),
    "vl_line_color": Drawn("line", lambda: len(dataset("stocks")), legend=SYMBOLS),
    "vl_trellis_barley": Drawn("symbol", lambda: groups(dataset("barley"), "site", "variety", "year"), grid=(1, 6),
                               legend=("1931", "1932")),
    "vl_stacked_bar_weather": Drawn("rect", lambda: groups(dataset("seattle-weather").assign(
        month=pd.to_datetime(dataset("seattle-weather").date).dt.month), "month", "weather"),
        legend=("sun", "fog", "drizzle", "rain", "snow")),
    "vl_text_scatter_colored": Drawn("text", lambda: valid(dataset("cars"), "Horsepower", "Miles_per_Gallon"),
                                     legend=ORIGINS),
    "alt_anscombe_plot": Drawn("symbol", lambda: len(dataset("anscombe")), grid=(2, 2)),
    "alt_beckers_barley_wrapped_facet": Drawn("symbol", lambda: groups(dataset("barley"), "site", "variety", "year"),
                                              grid=(2, 3), legend=("1931", "1932")),
    "alt_poly_fit_regression": Drawn("symbol", lambda: len(csv("poly_fit.csv")), layer="layer_0_marks",
                                     legend=("1", "3", "5")),
    "alt_multifeature_scatter_plot": Drawn("symbol", lambda: len(dataset("iris"))),
    "alt_candlestick_chart": Drawn("rect", lambda: valid(dataset("ohlc"), "open", "close"), layer="layer_1_marks"),
    "alt_iowa_electricity": Drawn("area", lambda: len(dataset("iowa-electricity")),
                                  legend=tuple(sorted(dataset("iowa-electricity").source.unique()))),
    "alt_errorbars_with_std": Drawn("symbol", lambda: dataset("barley").variety.nunique(), layer="layer_1_marks"),
    "alt_bar_chart_with_highlighted_bar": Drawn("rect", lambda: valid(dataset("wheat"), "wheat")),
    "alt_bar_chart_with_negatives": Drawn("rect", lambda: valid(dataset("us-employment"), "nonfarm_change")),
    "alt_slope_graph": Drawn("line", lambda: groups(dataset("barley"), "site", "year"), legend=SITES),
    "alt_trellis_histogram": Drawn("rect", cars_bins_per_origin, grid=(1, 3)),
    "alt_stacked_bar_chart": Drawn("rect", lambda: groups(dataset("barley"), "variety", "site"), legend=SITES),
    "alt_layer_line_color_rule": Drawn("line", lambda: len(dataset("stocks")), layer="layer_0_marks", legend=SYMBOLS),
    "alt_bar_chart_sorted": Drawn("rect", lambda: dataset("barley").site.nunique()),
    "alt_simple_line_chart": Drawn("line", lambda: valid(csv("simple_line.csv"), "f(x)")),
    "alt_scatter_with_loess": Drawn("symbol", lambda: 3 * len(csv("loess_walks.csv")), layer="layer_0_marks",
                                    legend=("A", "B", "C")),
    "sns_anscombes_quartet": Drawn("symbol", lambda: len(dataset("anscombe")), layer="layer_0_marks", grid=(2, 2),
                                   legend=("I", "II", "III", "IV")),
    "sns_many_facets": Drawn("line", lambda: len(csv("random_walks.csv")), layer="layer_1_layer_0_marks", grid=(4, 5)),
    "sns_scatter_bubbles": Drawn("symbol", lambda: valid(dataset("cars"), "Horsepower", "Miles_per_Gallon",
                                                         "Weight_in_lbs")),
    "sns_regplot": Drawn("symbol", lambda: valid(dataset("cars"), "Weight_in_lbs", "Acceleration"),
                         layer="layer_0_marks", shapes=1),
    "sns_regplot_order2": Drawn("symbol", lambda: valid(dataset("cars"), "Weight_in_lbs", "Miles_per_Gallon"),
                                layer="layer_0_marks"),
    "sns_regplot_logx": Drawn("symbol", lambda: valid(dataset("cars"), "Displacement", "Miles_per_Gallon"),
                              layer="layer_0_marks"),
    "sns_regplot_lowess": Drawn("symbol", lambda: valid(dataset("cars"), "Horsepower", "Miles_per_Gallon"),
                                layer="layer_0_marks"),
    "sns_regplot_styled": Drawn("symbol", lambda: valid(dataset("cars"), "Weight_in_lbs", "Horsepower"),
                                layer="layer_0_marks", shapes=1),
    "sns_jitter_stripplot": Drawn("symbol", lambda: 4 * len(dataset("iris")), layer="layer_0_marks",
                                  legend=SPECIES),
    "px_scatter_basic": Drawn("symbol", lambda: len(inline("px_scatter_basic"))),
    "px_bar_basic": Drawn("rect", lambda: len(inline("px_bar_basic"))),
    "px_line_symbols": Drawn("symbol", lambda: len(inline("px_line_symbols")), layer="layer_1_marks",
                             legend=("Australia", "New Zealand"), shapes=2),
    "px_marker_style": Drawn("symbol", lambda: len(dataset("iris")), legend=SPECIES),
    "gg_geom_point_shape": Drawn("symbol", lambda: len(csv("mtcars.csv")), legend=CYL, shapes=3),
    "gg_geom_point_layers": Drawn("symbol", lambda: len(csv("mtcars.csv")), layer="layer_2_marks", legend=CYL,
                                  shapes=3),
    "gg_geom_point_colour": Drawn("symbol", lambda: len(csv("mtcars.csv")), legend=CYL),
    "ggpmisc_stat_poly_eq": Drawn("symbol", lambda: len(csv("poly_eq.csv")), layer="layer_0_marks"),
    "mpl_marker_reference_filled": Drawn("symbol", lambda: 3 * 15, layer="layer_1_marks", shapes=15),
    "mpl_marker_reference_unfilled": Drawn("symbol", lambda: 3 * 9, layer="layer_1_marks", shapes=9),
    "mpl_log_demo": Drawn("line", lambda: valid(csv("log_demo.csv"), "t", "exp(-t/5)")),
    "mpl_color_demo": Drawn("line", lambda: len(csv("color_demo.csv")), layer="layer_1_marks"),
    "mpl_scatter_tab_colors": Drawn("rect", lambda: len(inline("mpl_scatter_tab_colors")), layer="layer_0_marks"),
    "r_cars_lowess": Drawn("symbol", lambda: len(csv("r_cars.csv")), layer="layer_0_marks"),
    "r_cars_lm": Drawn("symbol", lambda: len(csv("r_cars.csv")), layer="layer_0_marks", legend=(r_cars_label(),)),
    "r_iris_pairs": Drawn("symbol", lambda: len(csv("r_iris.csv")), legend=SPECIES),
}


# ---------------------------------------------------------------- the scene


@functools.cache
def compiled(stem: str):
    return compile_spec(CORPUS / f"{stem}.yaml")


@functools.cache
def scene(stem: str) -> dict:
    """Vega's scenegraph of a corpus chart."""
    return vlc.vegalite_to_scenegraph(compiled(stem).vega_lite)


def placed(item: dict) -> bool:
    """Drawn at a finite position."""
    return all(isinstance(item.get(k), (int, float)) and math.isfinite(item[k]) for k in ("x", "y"))


# Vega's own symbol names; any other shape must be an SVG path, or Vega draws nothing.
VEGA_SYMBOLS = {"circle", "square", "cross", "diamond", "triangle-up", "triangle-down", "triangle-right",
                "triangle-left", "triangle", "stroke", "arrow", "wedge"}


def drawable(shape: str) -> bool:
    """A symbol shape Vega draws: one of its names or a path (`x` or `star` passed raw draws nothing)."""
    return shape in VEGA_SYMBOLS or re.fullmatch(r"[Mm][-\d.,\sMmLlHhVvCcSsQqTtAaZz]+", shape) is not None


# ---------------------------------------------------------------- every corpus chart


def test_the_corpus_has_forty_charts_each_with_its_source_and_expectation():
    assert len(SPECS) >= 40
    assert sorted(DRAWN) == sorted(spec.stem for spec in SPECS)
    for spec in SPECS:
        first = spec.read_text(encoding="utf-8").splitlines()[0]
        assert SOURCE_LINE.match(first), f"{spec.name}: first line names no source: {first!r}"
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    assert [spec.name for spec in SPECS if f"`{spec.name}`" not in readme] == []


@pytest.mark.slow
@pytest.mark.parametrize("spec", [param(spec, checked="--strict" in COMPILE_ARGS) for spec in SPECS])
def test_every_corpus_chart_compiles_to_svg(spec, tmp_path, monkeypatch, capsys):
    """Through the CLI, as CI runs it: exit 0, no diagnostic, an SVG that parses and draws."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / f"{spec.stem}.svg"
    code = cli.main([*COMPILE_ARGS, str(spec.relative_to(ROOT)), "-o", str(out)])
    if spec.stem in VISION_FINDINGS:
        refused = capsys.readouterr().err
        assert (code, set(re.findall(r"error\[(\w+)\]", refused))) == (1, VISION_FINDINGS[spec.stem])
        code = cli.main([*(a for a in COMPILE_ARGS if a != "--strict"), str(spec.relative_to(ROOT)), "-o", str(out)])
        assert (code, set(re.findall(r"warning\[(\w+)\]", capsys.readouterr().err))) == (
            0, VISION_FINDINGS[spec.stem])
    assert (code, capsys.readouterr().err) == (0, "")
    svg = ET.fromstring(out.read_bytes())
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(list(svg.iter())) > 20


@pytest.mark.parametrize("spec", [param(spec) for spec in SPECS])
def test_every_corpus_chart_draws_what_it_declares(spec):
    drawn = DRAWN[spec.stem]
    graph = scene(spec.stem)
    marks = items(graph, drawn.mark, drawn.layer)
    assert sum(placed(item) for item in marks) == drawn.rows()
    if drawn.grid:
        assert panels(graph) == drawn.grid
    if drawn.legend is not None:
        assert legend_labels(graph) == list(drawn.legend)
    every_symbol = items(graph, "symbol", r".*marks")
    assert sorted({item["shape"] for item in every_symbol if not drawable(item["shape"])}) == []
    if drawn.shapes:
        assert len({item["shape"] for item in marks}) == drawn.shapes


# ---------------------------------------------------------------- one regression test per silent class (issue 18)


def hex_of(color: str) -> str:
    """A drawn or declared colour as matplotlib's hex (CSS names, hex, 'tab:blue', 'C0', '.3', 'r').

    A channel is rounded to the nearer of 0..255, halves up: matplotlib's `to_hex` rounds 0.3 · 255 =
    76.5 half to even (#4c4c4c) where the CSS colour chartc writes for '.3' rounds up (#4d4d4d),
    as Agg does when it draws. matplotlib is in the test extra.
    """
    to_rgb = pytest.importorskip("matplotlib.colors").to_rgb
    return "#" + "".join(f"{math.floor(channel * 255 + 0.5):02x}" for channel in to_rgb(color))


def test_a_shape_on_the_mark_itself_draws_that_shape():
    """`mark: {type: point, shape: x}` (seaborn's marker="x"): every point is the stroked x, not an empty path."""
    points = items(scene("sns_regplot_styled"), "symbol", "layer_0_marks")
    reference = items(scene("mpl_marker_reference_unfilled"), "symbol", "layer_1_marks")
    x_path = {item["shape"] for item in reference if item["shape"] != "circle"}
    drawn = {item["shape"] for item in points}
    assert len(drawn) == 1 and drawn < x_path  # the x a marker map draws for 'x'
    (shape,) = drawn
    assert re.fullmatch(r"M[-\d.,]+L[-\d.,]+M[-\d.,]+L[-\d.,]+", shape)  # two strokes crossing
    assert {(hex_of(item["stroke"]), item.get("fill") in (None, "none", "transparent")) for item in points} == {
        (hex_of(".3"), True)}
    diamonds = items(scene("sns_jitter_stripplot"), "symbol", "layer_1_marks")  # markers="d"
    assert len(diamonds) == 12 and len({item["shape"] for item in diamonds}) == 1
    assert diamonds[0]["shape"].startswith("M") and diamonds[0]["shape"] != "diamond"


def test_facet_columns_wrap_the_panels_row_by_row():
    """alt.Facet('site:O', columns=2): six sites in three rows of two, each panel with its own points."""
    graph = scene("alt_beckers_barley_wrapped_facet")
    (cells,) = [node["items"] for node in nodes(graph, "group") if node.get("name") == "cell"]
    places = [(cell["x"], cell["y"]) for cell in cells]
    xs, ys = sorted({x for x, _ in places}), sorted({y for _, y in places})
    assert (len(xs), len(ys)) == (2, 3)
    assert places == [(x, y) for y in ys for x in xs]
    assert xs[1] - xs[0] > 200 and all(b - a > 100 for a, b in zip(ys, ys[1:]))  # side by side, not overlapping
    per_panel = dataset("barley").groupby("site").apply(lambda site: groups(site, "variety", "year"))
    assert [sum(placed(item) for item in node["items"]) for node in nodes(graph, "symbol", "mark")] == list(per_panel)


def test_field_names_with_dots_and_parentheses_are_drawn_as_columns():
    """R's iris (Petal.Length, Petal.Width), Altair's `f(x)`: every row drawn where its values put it."""
    iris = csv("r_iris.csv")
    points = items(scene("r_iris_pairs"), "symbol", "marks")
    assert len(points) == len(iris) and all(placed(item) for item in points)
    # Vega's scale is linear: pixels are an affine image of the data, exactly.
    for field, axis in (("Petal.Length", "x"), ("Petal.Width", "y")):
        pixels = np.array([item[axis] for item in points])
        slope, intercept = np.polyfit(iris[field], pixels, 1)
        assert np.allclose(slope * iris[field] + intercept, pixels, atol=1e-6) and slope != 0
    line = items(scene("alt_simple_line_chart"), "line", "marks")
    pixels = np.array([item["y"] for item in line])
    values = csv("simple_line.csv")["f(x)"]
    assert np.corrcoef(values, pixels)[0, 1] == pytest.approx(-1)


def test_a_dotted_field_draws_every_point_and_its_fit(tmp_path):
    """`eval.loss`, as a training log names it: N points at finite positions, and the trend over them."""
    rows = "".join(f"    - {{step: {i}, eval.loss: {3 - 0.1 * i + 0.01 * (i % 3)}}}\n" for i in range(12))
    spec = tmp_path / "loss.yaml"
    spec.write_text(f"data:\n  values:\n{rows}encoding: {{x: step, y: eval.loss}}\n"
                    "layers:\n  - mark: point\n  - trend: {method: linear, label: 'fit'}\n", encoding="utf-8")
    graph = vlc.vegalite_to_scenegraph(compile_spec(spec).vega_lite)
    points = items(graph, "symbol", "layer_0_marks")
    assert len(points) == 12 and all(placed(item) for item in points)
    assert len({round(item["y"], 6) for item in points}) == 12  # each at its own loss, not all at one place
    (fit,) = nodes(graph, "line", "mark")
    assert len(fit["items"]) >= 2 and all(placed(item) for item in fit["items"])


def test_matplotlib_and_seaborn_colours_are_drawn_as_matplotlib_draws_them():
    """'tab:blue' ... 'tab:cyan', 'C0' ... 'C9', '.3', '0.8', 'r': each drawn in matplotlib's own colour."""
    graph = scene("mpl_scatter_tab_colors")
    table = inline("mpl_scatter_tab_colors")
    bars = items(graph, "rect", "layer_0_marks")
    assert [hex_of(bar["fill"]) for bar in bars] == [hex_of(name) for name in table.name]
    squares = items(graph, "symbol", "layer_1_marks")
    assert [hex_of(square["stroke"]) for square in squares] == [hex_of(cycle) for cycle in table.cycle]
    assert [hex_of(square["stroke"]) for square in squares] == [hex_of(bar["fill"]) for bar in bars]  # C0 is tab:blue
    styled = scene("sns_regplot_styled")
    assert {hex_of(item["stroke"]) for item in items(styled, "symbol", "layer_0_marks")} == {hex_of(".3")}
    assert {hex_of(node["items"][0]["stroke"]) for node in nodes(styled, "line", "mark")} == {hex_of("r")}
    rules = items(scene("mpl_color_demo"), "rule", "layer_0_marks")  # y = 0, once per row
    assert {hex_of(rule["stroke"]) for rule in rules} == {hex_of("0.7")}


def test_trend_lines_by_group_take_their_groups_colours():
    """Altair's LOESS per category: three lines, each in the colour of its category's points."""
    graph = scene("alt_scatter_with_loess")
    points = items(graph, "symbol", "layer_0_marks")
    colour_of = {}
    for item, category in zip(points, ["A", "B", "C"] * len(csv("loess_walks.csv"))):  # fold: row by row
        colour_of.setdefault(category, set()).add(item["fill"])
    assert all(len(colours) == 1 for colours in colour_of.values())
    lines = nodes(graph, "line", "mark")
    strokes = [node["items"][0]["stroke"] for node in lines]
    assert strokes == [colour_of[c].copy().pop() for c in ("A", "B", "C")]
    assert len(set(strokes)) == 3


def test_trend_lines_by_group_without_a_colour_map_are_told_apart(tmp_path):
    """`trend.by` on a field no colour or marker map draws: still one colour per group, in the legend too."""
    walks = csv("loess_walks.csv").melt("x", var_name="category", value_name="y")
    spec = tmp_path / "walks.yaml"
    rows = "".join(f"    - {{x: {r.x}, y: {r.y}, category: {r.category}}}\n" for r in walks.itertuples())
    spec.write_text(f"data:\n  values:\n{rows}encoding: {{x: x, y: y}}\n"
                    "layers:\n  - mark: {type: circle, color: gray}\n"
                    "  - trend: {method: linear, by: category, label: '{group}'}\n", encoding="utf-8")
    graph = vlc.vegalite_to_scenegraph(compile_spec(spec).vega_lite)
    strokes = [node["items"][0]["stroke"] for node in nodes(graph, "line", "mark")]
    assert len(strokes) == 3 and len(set(strokes)) == 3
    swatches = [item["stroke"] for node in nodes(graph, "symbol", "legend-symbol") for item in node["items"]]
    assert legend_labels(graph) == ["A", "B", "C"] and swatches == strokes


def test_every_matplotlib_marker_letter_draws_its_own_shape():
    """The marker reference: 15 filled and 9 line markers, 24 shapes, none alike, none empty."""
    filled = items(scene("mpl_marker_reference_filled"), "symbol", "layer_1_marks")
    lines = items(scene("mpl_marker_reference_unfilled"), "symbol", "layer_1_marks")
    shapes = [item["shape"] for item in filled[::3] + lines[::3]]  # one per row
    assert len(shapes) == 24 and len(set(shapes)) == 24 and all(shapes)
    assert {hex_of(item["fill"]) for item in filled} == {hex_of("tab:blue")}
    strokes_only = [item for item in lines[3:]]  # all but '.', which matplotlib fills
    assert all(item.get("fill") in (None, "none", "transparent") for item in strokes_only)
    assert {hex_of(item["stroke"]) for item in strokes_only} == {hex_of("tab:blue")}


def label_extents(graph, axis: int) -> list[tuple[float, float]]:
    """Horizontal extents of the non-empty tick labels of the `axis`-th axis (Helvetica digits: 0.556 em)."""
    labels = nodes(graph, "text", "axis-label")[axis]["items"]
    return [(item["x"] - 0.278 * item["fontSize"] * len(item["text"]),
             item["x"] + 0.278 * item["fontSize"] * len(item["text"])) for item in labels if item["text"]]


def test_a_log_axis_draws_every_point_and_labels_that_do_not_overlap():
    """matplotlib's semilogy: exp(-t/5) is a straight line on a log axis; R's log-log cars: readable ticks."""
    line = items(scene("mpl_log_demo"), "line", "marks")
    data = csv("log_demo.csv")
    assert len(line) == len(data) and all(placed(item) for item in line)
    slope, intercept = np.polyfit(data.t, [item["y"] for item in line], 1)
    assert np.allclose(slope * data.t + intercept, [item["y"] for item in line], atol=1e-3)  # 6-digit data
    extents = label_extents(scene("r_cars_lowess"), 0)
    assert len(extents) >= 5
    assert all(right + 2 <= left for (_, right), (left, _) in zip(extents, extents[1:]))


def svg_legend_labels(stem: str) -> list:
    """The legend labels of the chart's SVG, as a reader sees them: a wrapped label as its lines."""
    svg = ET.fromstring(vlc.vegalite_to_svg(compiled(stem).vega_lite))
    labels = []
    for group in svg.iter("{http://www.w3.org/2000/svg}g"):
        if "role-legend-label" in group.get("class", ""):
            for text in group.iter("{http://www.w3.org/2000/svg}text"):
                lines = [span.text or "" for span in text.iter("{http://www.w3.org/2000/svg}tspan")]
                labels.append(lines or "".join(text.itertext()))
    return labels


@pytest.mark.parametrize("stem", ["r_cars_lm", "ggpmisc_stat_poly_eq"])
def test_a_long_legend_label_is_drawn_whole(stem):
    """The fit's label (R's summary(lm), ggpmisc's equation and R²) as written, not cut at Vega's 160 px.

    In chartc Sans ggpmisc's label is wider than a legend label may be: it is wrapped, and each line is drawn whole
    (the SVG, where Vega writes a cut text with its ellipsis, holds the scenegraph's lines).
    """
    labels = legend_labels(scene(stem))
    assert len(labels) == 1
    assert svg_legend_labels(stem) == labels


def test_a_faceted_trend_legend_entry_is_a_line_swatch(tmp_path):
    """seaborn's Anscombe quartet with one labelled fit per panel: its legend entry is a line, not a circle."""
    text = (CORPUS / "sns_anscombes_quartet.yaml").read_text(encoding="utf-8")
    spec = tmp_path / "quartet.yaml"
    spec.write_text(text.replace("  - trend: {method: linear, by: Series}",
                                 "  - trend: {method: linear, label: 'fit', style: {color: C7}}"), encoding="utf-8")
    graph = vlc.vegalite_to_scenegraph(compile_spec(spec).vega_lite)
    swatches = [item for node in nodes(graph, "symbol", "legend-symbol") for item in node["items"]]
    assert legend_labels(graph) == ["I", "II", "III", "IV", "fit"]
    assert [item["shape"] for item in swatches] == ["circle"] * 4 + ["stroke"]
    line = swatches[-1]
    assert line.get("fill") in (None, "none", "transparent") and hex_of(line["stroke"]) == hex_of("C7")
    assert [hex_of(node["items"][0]["stroke"]) for node in nodes(graph, "line", "mark")] == [hex_of("C7")] * 4


# ---------------------------------------------------------------- what issue 20's grammar let the ports say


def test_the_trellis_rows_are_in_the_order_of_the_sites_median_yields():
    """vl_trellis_barley: `sort: {op: median, field: yield}` on the rows, checked against pandas' medians."""
    graph = scene("vl_trellis_barley")
    headers = [(item["y"], text["text"]) for node in nodes(graph, "group", name="row_header")
               for item in node["items"] for mark in nodes(item, "text", "title-text") for text in mark["items"]]
    medians = dataset("barley").groupby("site")["yield"].median()
    assert [text for _, text in sorted(headers)] == list(medians.sort_values().index)


def test_the_strips_are_dodged_one_species_apart():
    """sns_jitter_stripplot: `yOffset: species` puts each species on a line of its own within its measurement."""
    graph = scene("sns_jitter_stripplot")
    points = items(graph, "symbol", "layer_0_marks")
    lines: dict = {}
    for item in points:
        lines.setdefault(item["y"], set()).add(item["fill"])
    assert len(lines) == 4 * 3 and all(len(fills) == 1 for fills in lines.values())
    means = items(graph, "symbol", "layer_1_marks")  # each species' mean on its own strip
    assert {item["y"] for item in means} == set(lines)


@pytest.mark.parametrize("stem, rows, test, yes, no", [
    ("alt_bar_chart_with_highlighted_bar", lambda: dataset("wheat"), lambda r: pd.to_numeric(r.year) == 1810, "orange", "steelblue"),
    ("alt_bar_chart_with_negatives", lambda: dataset("us-employment"), lambda r: r.nonfarm_change > 0,
     "steelblue", "orange"),
])
def test_a_condition_colours_the_bars_the_example_colours(stem, rows, test, yes, no):
    drawn = [item["fill"] for item in items(scene(stem), "rect", "marks")]
    frame = rows()
    assert drawn.count(yes) == int(test(frame).sum()) > 0
    assert drawn.count(no) == len(frame) - int(test(frame).sum())
