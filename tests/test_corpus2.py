"""The second corpus: 40+ more charts ported from public galleries, none from tests/corpus/.

Every spec in tests/corpus2/ is a published example from the Vega-Lite examples, the Altair
gallery, seaborn's documentation, matplotlib's gallery or ggplot2's reference, written in
chartc's DSL as a new user would, on local data only (its source is named on its first line;
tests/corpus2/README.md lists them and says which are fully expressible). Each compiles through
the CLI with `--strict`, and what it draws (Vega's scenegraph) is compared with an independent
count from the same data with pandas: its main layer's marks, its facet grid, its legend. A chart
chartc draws wrong is kept and marked `xfail(strict=True)` with the defect.
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

CORPUS = ROOT / "tests" / "corpus2"
SPECS = sorted(CORPUS.glob("*.yaml"))
SOURCE_LINE = re.compile(r"# source: (?P<project>[^·]+) · (?P<example>[^·]+) · (?P<url>https://\S+)$")
COMPILE_ARGS: tuple[str, ...] = ("compile", "--strict")

# Charts chartc draws other than declared, until the defect is fixed.
DEFECTS: dict[str, str] = {}
# Charts whose categories only colour tells apart in the source gallery's own palette: `--strict`
# refuses them with exactly these codes (colour-blind reader W770, greyscale print W771); they are
# then compiled without it and must warn with exactly these and nothing else.
VISION_FINDINGS: dict[str, set[str]] = {
    "alt_bar_rounded": {"W770", "W771"},
    "alt_parallel_coordinates": {"W770", "W771"},
    "alt_grouped_bar_chart2": {"W770", "W771"},
    "alt_interactive_scatter_plot": {"W770", "W771"},
    "alt_layered_area_chart": {"W770", "W771"},
    "alt_layered_bar_chart": {"W770", "W771"},
    "alt_normalized_stacked_area_chart": {"W770", "W771"},
    "alt_normalized_stacked_bar_chart": {"W770", "W771"},
    "alt_scatter_tooltips": {"W770", "W771"},
    "mpl_barchart": {"W770", "W771"},
    "mpl_stackplot_demo": {"W770", "W771"},
    "vl_bar_month_temporal": {"W770", "W771"},
    "vl_line_overlay": {"W770", "W771"},
    "vl_stacked_bar_h": {"W770", "W771"},
}


def param(spec: Path):
    marks = [pytest.mark.xfail(strict=True, reason=DEFECTS[spec.stem])] if spec.stem in DEFECTS else []
    return pytest.param(spec, id=spec.stem, marks=marks)


# ---------------------------------------------------------------- the data, read by pandas


def csv(name: str) -> pd.DataFrame:
    return pd.read_csv(CORPUS / "data" / name)


def inline(stem: str) -> pd.DataFrame:
    return pd.DataFrame(yaml.safe_load((CORPUS / f"{stem}.yaml").read_text(encoding="utf-8"))["data"]["values"])


def weather() -> pd.DataFrame:
    frame = dataset("seattle-weather")
    date = pd.to_datetime(frame.date)
    return frame.assign(month=date.dt.month, day=date.dt.day, year=date.dt.year)


def stocks(symbol: str | None = None, *, without: str | None = None) -> pd.DataFrame:
    frame = dataset("stocks")
    if symbol:
        frame = frame[frame.symbol == symbol]
    if without:
        frame = frame[frame.symbol != without]
    return frame


def cars_points() -> int:
    return valid(dataset("cars"), "Horsepower", "Miles_per_Gallon")


# ---------------------------------------------------------------- what each chart draws


@dataclass(frozen=True)
class Drawn:
    """What one chart must draw: `rows` items of `mark` at finite positions in layer `layer`,
    the facet `grid` as (columns, rows), the `legend` labels in order; `at` names the coordinates an
    item must hold (bars with rounded ends in a stack sit in a group that holds their x)."""

    mark: str
    rows: Callable[[], int]
    layer: str = "marks"
    grid: tuple[int, int] | None = None
    legend: tuple[str, ...] | None = None
    at: tuple[str, ...] = ("x", "y")


ORIGINS = ("Europe", "Japan", "USA")
SITES = ("Crookston", "Duluth", "Grand Rapids", "Morris", "University Farm", "Waseca")
SYMBOLS = ("AAPL", "AMZN", "GOOG", "IBM", "MSFT")
SOURCES = ("Fossil Fuels", "Nuclear Energy", "Renewables")
MTCARS = 32

DRAWN: dict[str, Drawn] = {
    "vl_point_2d": Drawn("symbol", cars_points),
    "vl_circle": Drawn("symbol", cars_points),
    "vl_line": Drawn("line", lambda: len(stocks("GOOG"))),
    "vl_line_monotone": Drawn("line", lambda: len(stocks("GOOG"))),
    "vl_line_step": Drawn("line", lambda: len(stocks("GOOG"))),
    "vl_line_strokedash": Drawn("line", lambda: len(stocks()), legend=SYMBOLS),
    "vl_line_overlay": Drawn("line", lambda: groups(stocks().assign(year=stocks().date.str[-4:]), "symbol", "year"),
                             layer="layer_0_marks", legend=SYMBOLS),
    "vl_trellis_area": Drawn("area", lambda: len(stocks(without="GOOG")), grid=(1, 4)),
    "vl_bar_month_temporal": Drawn("rect", lambda: groups(weather(), "month", "weather"),
                                   legend=("sun", "fog", "drizzle", "rain", "snow")),
    "vl_rect_heatmap_weather": Drawn("rect", lambda: groups(weather(), "month", "day")),
    "vl_layer_precipitation_mean": Drawn("rect", lambda: weather().month.nunique(), layer="layer_0_marks"),
    "vl_layer_dual_axis": Drawn("line", lambda: weather().month.nunique(), layer="layer_1_marks"),
    "vl_layer_point_errorbar_stdev": Drawn("symbol", lambda: dataset("barley").variety.nunique(),
                                           layer="layer_0_marks"),
    "vl_selection_type_interval": Drawn("symbol", cars_points,
                                        legend=tuple(str(c) for c in sorted(dataset("cars").Cylinders.unique()))),
    "vl_interactive_bar_select_highlight": Drawn("rect", lambda: len(inline("vl_interactive_bar_select_highlight"))),
    "vl_layer_bar_labels": Drawn("text", lambda: len(inline("vl_layer_bar_labels")), layer="layer_1_marks"),
    "vl_stacked_bar_h": Drawn("rect", lambda: groups(dataset("barley"), "variety", "site"), legend=SITES),
    "vl_bar_binned_data": Drawn("rect", lambda: len(inline("vl_bar_binned_data"))),
    "alt_trellis_scatter_plot": Drawn("symbol", cars_points, grid=(1, 3)),
    "alt_bar_chart_horizontal": Drawn("rect", lambda: len(dataset("wheat"))),
    "alt_bar_chart_with_labels": Drawn("text", lambda: len(dataset("wheat")), layer="layer_1_marks"),
    "alt_bar_chart_with_mean_line": Drawn("rect", lambda: len(dataset("wheat")), layer="layer_0_marks"),
    "alt_layered_bar_chart": Drawn("rect", lambda: len(dataset("iowa-electricity")), legend=SOURCES),
    "alt_normalized_stacked_bar_chart": Drawn("rect", lambda: groups(dataset("barley"), "variety", "site"),
                                              legend=SITES),
    "alt_normalized_stacked_area_chart": Drawn("area", lambda: len(dataset("iowa-electricity")), legend=SOURCES),
    "alt_layered_area_chart": Drawn("area", lambda: len(dataset("iowa-electricity")), legend=SOURCES),
    "alt_grouped_bar_chart": Drawn("rect", lambda: groups(dataset("barley"), "site", "year"), grid=(6, 1),
                                   legend=("1931", "1932")),
    "alt_grouped_bar_chart2": Drawn("rect", lambda: len(inline("alt_grouped_bar_chart2")), legend=("x", "y", "z")),
    "alt_line_chart_with_points": Drawn("line", lambda: len(csv("line_with_points.csv")), layer="layer_0_marks"),
    "alt_scatter_tooltips": Drawn("symbol", cars_points, legend=ORIGINS),
    "alt_interactive_scatter_plot": Drawn("symbol", cars_points, legend=ORIGINS),
    "alt_scatter_with_rolling_mean": Drawn("symbol", lambda: valid(weather(), "temp_max"), layer="layer_0_marks"),
    "alt_bar_rounded": Drawn("rect", lambda: groups(weather(), "month", "weather"),
                             legend=tuple(sorted(weather().weather.unique())), at=("y",)),
    "alt_simple_heatmap": Drawn("rect", lambda: len(csv("simple_heatmap.csv"))),
    "alt_line_with_ci": Drawn("line", lambda: dataset("cars").Year.nunique(), layer="layer_1_marks"),
    "alt_errorbars_with_ci": Drawn("symbol", lambda: dataset("barley").variety.nunique(), layer="layer_1_marks"),
    "alt_selection_layer_bar_month": Drawn("rect", lambda: weather().month.nunique(), layer="layer_0_marks"),
    "alt_parallel_coordinates": Drawn("line", lambda: 4 * len(dataset("iris")),
                                      legend=tuple(sorted(dataset("iris").species.unique()))),
    "sns_boxplot_iris_wide": Drawn("rect", lambda: 4, layer="layer_1_layer_0_marks"),
    "sns_kdeplot_iris": Drawn("line", lambda: 200 * dataset("iris").species.nunique(), layer=r"layer_\d_marks",
                              legend=tuple(dataset("iris").species.unique())),
    "sns_regplot_ci_none": Drawn("symbol", lambda: valid(dataset("cars"), "Weight_in_lbs", "Horsepower"),
                                 layer="layer_0_marks"),
    "mpl_simple_plot": Drawn("line", lambda: len(csv("simple_plot.csv"))),
    "mpl_two_scales": Drawn("line", lambda: len(csv("two_scales.csv")), layer="layer_0_marks"),
    "mpl_stackplot_demo": Drawn("area", lambda: len(inline("mpl_stackplot_demo")),
                                legend=tuple(inline("mpl_stackplot_demo").continent.unique())),
    "mpl_bar_stacked": Drawn("rect", lambda: len(inline("mpl_bar_stacked")), legend=("Below", "Above")),
    "mpl_pie_features": Drawn("arc", lambda: len(inline("mpl_pie_features")), layer="layer_0_marks"),
    "mpl_barchart": Drawn("rect", lambda: len(inline("mpl_barchart")), layer="layer_0_marks",
                          legend=tuple(sorted(inline("mpl_barchart").attribute.unique()))),
    "gg_geom_point_size": Drawn("symbol", lambda: len(csv("mtcars.csv"))),
    "gg_geom_text": Drawn("text", lambda: len(csv("mtcars.csv"))),
    "gg_geom_hline": Drawn("symbol", lambda: len(csv("mtcars.csv")), layer="layer_0_marks"),
    "gg_geom_abline_lm": Drawn("symbol", lambda: len(csv("mtcars.csv")), layer="layer_0_marks"),
    "gg_stat_summary_median": Drawn("symbol", lambda: csv("mtcars.csv").cyl.nunique(), layer="layer_1_marks"),
    "gg_geom_col_dodge_text": Drawn("rect", lambda: len(inline("gg_geom_col_dodge_text")), layer="layer_0_marks",
                                    legend=("a", "b")),
    "gg_geom_errorbar_dodge": Drawn("rect", lambda: len(inline("gg_geom_errorbar_dodge")), layer="layer_0_marks",
                                    legend=("1", "2")),
}


# ---------------------------------------------------------------- the scene


@functools.cache
def compiled(stem: str):
    return compile_spec(CORPUS / f"{stem}.yaml")


@functools.cache
def scene(stem: str) -> dict:
    return vlc.vegalite_to_scenegraph(compiled(stem).vega_lite)


def placed(item: dict, at: tuple[str, ...] = ("x", "y")) -> bool:
    return all(isinstance(item.get(k), (int, float)) and math.isfinite(item[k]) for k in at)


def texts(graph, role: str) -> list[str]:
    return [item["text"] for node in nodes(graph, "text", role) for item in node["items"]]


# ---------------------------------------------------------------- every chart


def test_the_second_corpus_has_forty_charts_each_with_its_source_and_expectation():
    assert len(SPECS) >= 40
    assert sorted(DRAWN) == sorted(spec.stem for spec in SPECS)
    previous = {spec.stem for spec in (ROOT / "tests" / "corpus").glob("*.yaml")}
    assert previous & set(DRAWN) == set()
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    for spec in SPECS:
        first = spec.read_text(encoding="utf-8").splitlines()[0]
        assert SOURCE_LINE.match(first), f"{spec.name}: first line names no source: {first!r}"
        assert f"`{spec.name}`" in readme


@pytest.mark.slow
@pytest.mark.parametrize("spec", [param(spec) for spec in SPECS])
def test_every_chart_compiles_to_svg_with_strict(spec, tmp_path, monkeypatch, capsys):
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
def test_every_chart_draws_what_it_declares(spec):
    drawn = DRAWN[spec.stem]
    graph = scene(spec.stem)
    marks = items(graph, drawn.mark, drawn.layer)
    assert sum(placed(item, drawn.at) for item in marks) == drawn.rows()
    if drawn.grid:
        assert panels(graph) == drawn.grid
    if drawn.legend is not None:
        assert legend_labels(graph) == list(drawn.legend)


# ---------------------------------------------------------------- what the statistics draw


def pixel_map(points: list[dict], values) -> np.ndarray:
    """The y scale as Vega drew it: pixel = a·value + b, fitted on the points of the data layer."""
    return np.polyfit(np.asarray(values, dtype=float), [p["y"] for p in points], 1)


def test_the_red_medians_sit_at_the_median_mpg_of_each_cylinder_count():
    graph = scene("gg_stat_summary_median")
    mtcars = csv("mtcars.csv")
    points = items(graph, "symbol", "layer_0_marks")
    a, b = pixel_map(points, mtcars.mpg)
    medians = items(graph, "symbol", "layer_1_marks")
    expected = sorted(a * mtcars.groupby("cyl").mpg.median() + b)
    assert sorted(p["y"] for p in medians) == pytest.approx(expected, abs=1e-6)
    assert {p["fill"] for p in medians} == {"red"}


def test_the_rolling_mean_is_pandas_centred_31_day_mean():
    graph = scene("alt_scatter_with_rolling_mean")
    days = weather().sort_values("date")
    a, b = pixel_map(items(graph, "symbol", "layer_0_marks"), days.temp_max)
    line = items(graph, "line", "layer_1_marks")
    rolling = days.temp_max.rolling(31, center=True, min_periods=1).mean()
    assert len(line) == len(days)
    assert [p["y"] for p in line] == pytest.approx(list(a * rolling + b), abs=1e-6)


def test_the_bar_labels_are_the_values_of_the_bars():
    assert texts(scene("vl_layer_bar_labels"), "mark") == [str(v) for v in inline("vl_layer_bar_labels").b]
    assert sorted(texts(scene("gg_geom_text"), "mark")) == sorted(csv("mtcars.csv").model)


def test_the_parallel_coordinates_draw_one_line_per_flower_through_its_four_measures():
    """The window's row index (a running count) tells the flowers apart: one line each, in the data's order,
    through its petal and sepal measures as pandas reads them (y mapped back through the drawn scale)."""
    iris = dataset("iris")
    measures = ["petalLength", "petalWidth", "sepalLength", "sepalWidth"]
    lines = [node["items"] for node in nodes(scene("alt_parallel_coordinates"), "line")]
    assert len(lines) == len(iris)
    points = [item for line in lines for item in line]
    a, b = pixel_map(points, [value for _, row in iris.iterrows() for value in row[measures]])
    drawn = np.array([[(item["y"] - b) / a for item in line] for line in lines])
    assert np.allclose(drawn, iris[measures].to_numpy(), atol=1e-9)


def test_each_y_axis_is_drawn_in_the_colour_of_its_line():
    graph = scene("mpl_two_scales")
    titles = {item["text"]: item["fill"] for node in nodes(graph, "text", "axis-title") for item in node["items"]}
    assert titles == {"time (s)": "#000", "exp": "#d62728", "sin": "#1f77b4"}  # matplotlib's tab:red, tab:blue
    labels = [{item["fill"] for item in node["items"]} for node in nodes(graph, "text", "axis-label")]
    assert sorted(map(sorted, labels)) == [["#000"], ["#1f77b4"], ["#d62728"]]
    graph = scene("vl_layer_dual_axis")
    titles = {item["text"]: item["fill"] for node in nodes(graph, "text", "axis-title") for item in node["items"]}
    assert titles == {"Avg. Temperature (°C)": "#85C5A6", "Precipitation (inches)": "#85A9C5"}


def test_the_barley_error_bars_are_scipys_t_interval_of_each_varietys_mean():
    from scipy import stats

    graph = scene("alt_errorbars_with_ci")
    barley = dataset("barley")
    by_variety = barley.groupby("variety")["yield"]
    means = items(graph, "symbol", "layer_1_marks")
    # the points sit at the means: their x fits the pixel map mean -> x
    expected_means = by_variety.mean()
    a, b = np.polyfit(sorted(expected_means), sorted(p["x"] for p in means), 1)
    half = stats.t.ppf(0.975, by_variety.count() - 1) * by_variety.std(ddof=1) / np.sqrt(by_variety.count())
    bars = items(graph, "rule", "layer_0_marks")
    drawn = sorted((bar["x"], bar["x2"]) for bar in bars)
    expected = sorted(zip(a * (expected_means - half) + b, a * (expected_means + half) + b))
    assert np.allclose(drawn, expected, atol=1e-6)


def axis_map(graph, orient_title: str) -> np.ndarray:
    """The pixel map of the axis titled `orient_title`, from its labels: pixel = a·value + b (independent of the marks)."""
    for axis in nodes(graph, "group", "axis"):
        titles = [item["text"] for node in nodes(axis, "text", "axis-title") for item in node["items"]]
        if titles == [orient_title]:
            labels = [item for node in nodes(axis, "text", "axis-label") for item in node["items"]]
            key = "y" if abs(labels[0]["y"] - labels[-1]["y"]) > abs(labels[0]["x"] - labels[-1]["x"]) else "x"
            return np.polyfit([float(item["text"]) for item in labels], [item[key] for item in labels], 1)
    raise AssertionError(f"no axis titled {orient_title!r}")


def test_the_iris_densities_are_seaborns_scipy_gaussian_kde_per_species():
    """seaborn's kdeplot(hue=species): scipy's Scott bandwidth per species, 200 points from 3 bandwidths below the
    species' data to 3 above, densities times the species' share of the rows (common_norm). The drawn points, read
    back through the axes' labels, match gaussian_kde's to 1e-9 (in the data's units; the scene's coordinates are
    not rounded)."""
    from scipy import stats

    graph = scene("sns_kdeplot_iris")
    iris = dataset("iris")
    ax, bx = axis_map(graph, "petal_length")
    ay, by = axis_map(graph, "Density")
    curves = [node["items"] for node in nodes(graph, "line", "mark")]
    assert len(curves) == iris.species.nunique()
    for curve, (species, values) in zip(curves, iris.groupby("species", sort=False).petalLength):
        kde = stats.gaussian_kde(values)
        bandwidth = math.sqrt(kde.covariance[0, 0])
        grid = np.linspace(values.min() - 3 * bandwidth, values.max() + 3 * bandwidth, 200)
        drawn_x = (np.array([item["x"] for item in curve]) - bx) / ax
        drawn_y = (np.array([item["y"] for item in curve]) - by) / ay
        assert np.allclose(drawn_x, grid, rtol=0, atol=1e-9), species
        assert np.allclose(drawn_y, kde(grid) * len(values) / len(iris), rtol=0, atol=1e-9), species


def test_the_dodged_error_bars_have_ggplots_caps_at_their_bounds():
    """Each error bar's rule runs from `lower` to `upper` at its dodged bar's centre, with a black cap of 11 pixels
    (0.25 / 0.45 of the 20-pixel bar) centred on it at each end."""
    graph = scene("gg_geom_errorbar_dodge")
    frame = inline("gg_geom_errorbar_dodge")
    a, b = axis_map(graph, "resp")
    bars = sorted(items(graph, "rect", "layer_0_marks"), key=lambda bar: bar["x"])
    rules = sorted(items(graph, "rule", r"layer_1_layer_\d_marks"), key=lambda rule: rule["x"])
    caps = [cap for cap in items(graph, "rect", r"layer_1_layer_\d_marks")]
    assert len(rules) == len(bars) == len(frame) and len(caps) == 2 * len(frame)
    ordered = frame.sort_values(["trt", "group"])
    for bar, rule, (_, row) in zip(bars, rules, ordered.iterrows()):
        assert bar["width"] == 20 and rule["x"] == pytest.approx(bar["x"] + 10, abs=1e-9)
        assert sorted((rule["y"], rule["y2"])) == pytest.approx(sorted((a * row.lower + b, a * row.upper + b)), abs=1e-6)
        ends = sorted(cap["y"] + cap["height"] / 2 for cap in caps if cap["x"] == pytest.approx(rule["x"] - 5.5))
        assert ends == pytest.approx(sorted((a * row.lower + b, a * row.upper + b)), abs=1e-6)
    assert {(cap["width"], cap["fill"]) for cap in caps} == {(11, "black")}


def test_the_interactive_average_filters_the_rule_by_the_brush_and_draws_the_overall_mean_unbrushed():
    """The rule layer keeps the rows the brush holds (Vega-Lite's filter by a selection, in the rule's own view);
    the static export's empty brush holds every row, so the rule sits at the mean precipitation of all of them."""
    vega_lite = compiled("alt_selection_layer_bar_month").vega_lite
    assert vega_lite["layer"][1]["transform"] == [{"filter": {"param": "brush"}}]
    assert "transform" not in vega_lite["layer"][0]
    graph = scene("alt_selection_layer_bar_month")
    a, b = axis_map(graph, "Mean of precipitation")
    (rule,) = items(graph, "rule", "layer_1_marks")
    assert rule["y"] == pytest.approx(a * weather().precipitation.mean() + b, abs=1e-6)
    bars = sorted(items(graph, "rect", "layer_0_marks"), key=lambda bar: bar["x"])
    assert [bar["y"] for bar in bars] == pytest.approx(list(a * weather().groupby("month").precipitation.mean() + b),
                                                       abs=1e-6)


def test_the_pie_slices_span_matplotlibs_angles_and_print_its_percentages():
    """Each slice spans its share of the circle, in the data's order, counter-clockwise from 3 o'clock as
    matplotlib draws it: Vega's angles run clockwise from 12 o'clock, so the slice after a cumulative
    share s starts at π/2 − 2π·s (numpy, from the sizes); its percentage is the share as '%1.1f%%'."""
    pie = inline("mpl_pie_features")
    share = pie["size"].to_numpy(dtype=float) / pie["size"].sum()
    bounds = np.pi / 2 - 2 * np.pi * np.concatenate([[0.0], np.cumsum(share)])
    graph = scene("mpl_pie_features")
    slices = items(graph, "arc", "layer_0_marks")
    # Vega-Lite maps the end of a stacked slice to startAngle and its start to endAngle.
    assert [item["endAngle"] for item in slices] == pytest.approx(list(bounds[:-1]), abs=1e-12)
    assert [item["startAngle"] for item in slices] == pytest.approx(list(bounds[1:]), abs=1e-12)
    # matplotlib's colour cycle, C0 to C3, in the data's order (Vega's category10 is the same tab10)
    assert [item["fill"] for item in slices] == ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]
    assert [item["text"] for item in items(graph, "text", "layer_1_marks")] == list(pie["label"])
    assert [item["text"] for item in items(graph, "text", "layer_2_marks")] == ["%1.1f%%" % (100 * s) for s in share]
    assert [re.search(r"label: (\w+)", item["description"]).group(1) for item in slices] == list(pie["label"])
    # the labels at the middle angle of their slices, 1.1 and 0.6 radii (of 110 px) from the centre
    middle = (bounds[:-1] + bounds[1:]) / 2
    for layer, radius in (("layer_1_marks", 121), ("layer_2_marks", 66)):
        drawn = items(graph, "text", layer)
        assert [item["theta"] for item in drawn] == pytest.approx(list(middle), abs=1e-12)
        assert {(item["x"], item["y"], item["radius"]) for item in drawn} == {(slices[0]["x"], slices[0]["y"], radius)}


def test_the_resting_bars_are_selected_by_the_empty_click_selection_and_have_no_outline():
    """Before the reader hovers or clicks, both selections are empty: `select`'s fill opacity condition holds
    (`empty` defaults to true) and both stroke width conditions fail (`empty: false`), so every bar is drawn
    opaque in the mark's own fill with its black outline 0 px wide; the bands keep 20% of their step empty."""
    stem = "vl_interactive_bar_select_highlight"
    rows = inline(stem)
    bars = sorted(items(scene(stem), "rect", "marks"), key=lambda bar: bar["x"])
    assert [bar["description"] for bar in bars] == [f"a: {a}; b: {b}" for a, b in zip(rows.a, rows.b)]
    assert {(bar["fill"], bar["stroke"], bar["fillOpacity"], bar["strokeWidth"]) for bar in bars} == {
        ("#4C78A8", "black", 1, 0)}
    steps = np.diff([bar["x"] for bar in bars])
    assert steps == pytest.approx([steps[0]] * (len(rows) - 1))
    assert [bar["width"] for bar in bars] == pytest.approx([0.8 * steps[0]] * len(rows))
    vega_lite = compiled(stem).vega_lite
    assert vega_lite["mark"]["cursor"] == "pointer"
    assert [condition["param"] for condition in vega_lite["encoding"]["strokeWidth"]["condition"]] == [
        "select", "highlight"]
