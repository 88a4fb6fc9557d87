"""Trend layers through the whole pipeline agree with statsmodels.

Specs are compiled end to end; the numbers are read back where users see them
(the label text, the curve and band rows in the compiled Vega-Lite, the fits
sidecar) and compared with statsmodels OLS / get_prediction and lowess on the
vega-datasets cars and Anscombe data. Bad trends must fail with the message
from `chartc.errors` at the file position of the trend key at fault.
"""

from __future__ import annotations

import json
import math
import re
import warnings
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
from statsmodels.nonparametric.smoothers_lowess import lowess
from statsmodels.regression.linear_model import OLS

from chartc import errors
from chartc.commands.cli import main
from chartc.errors import SpecError
from chartc.render.export import render
from chartc.pipeline import compile_spec
from chartc.trends.fitting import TREND_METHODS
from conftest import label

RTOL = 1e-9
LEVEL = 0.95


# ---------------------------------------------------------------- helpers

def _dataset(name: str) -> pd.DataFrame:
    from vega_datasets import local_data

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(local_data, name.replace("-", "_"))()


@pytest.fixture(scope="module")
def cars() -> pd.DataFrame:
    return _dataset("cars")


@pytest.fixture(scope="module")
def anscombe() -> pd.DataFrame:
    return _dataset("anscombe")


def write(tmp_path: Path, spec, name: str = "spec") -> Path:
    """A spec file: a dict as JSON, text as YAML."""
    if isinstance(spec, str):
        path = tmp_path / f"{name}.yaml"
        path.write_text(spec, encoding="utf-8")
    else:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def compile_dict(tmp_path: Path, spec: dict, name: str = "spec"):
    return compile_spec(write(tmp_path, spec, name))


def trend_views(compiled) -> dict[tuple, dict]:
    """Layer path -> {"area": rows, "line": rows, "line_view": view, "text": [views]}.

    Walks the compiled layers in spec order: a mark layer is one view, a trend
    layer is an optional area (band), its line and its text marks.
    """
    vl = compiled.vega_lite
    views = vl["layer"]
    datasets = vl.get("datasets", {})

    def rows(view):
        data = view["data"]
        return data["values"] if "values" in data else datasets[data["name"]]

    found, index = {}, 0
    for layer in compiled.chart.layers:
        if layer.trend is None:
            index += 1
            continue
        entry = {"text": []}
        if views[index]["mark"]["type"] == "area":
            entry["area"] = rows(views[index])
            index += 1
        assert views[index]["mark"]["type"] == "line"
        entry["line"], entry["line_view"] = rows(views[index]), views[index]
        index += 1
        while index < len(views) and views[index]["mark"]["type"] == "text":
            entry["text"].append(views[index])
            index += 1
        found[layer.path] = entry
    assert index == len(views)
    return found


def close(actual, expected, rtol=RTOL):
    """Relative agreement; values that cross zero are held to 1e-12 of the scale."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    np.testing.assert_allclose(actual, expected, rtol=rtol,
                               atol=1e-12 * float(np.max(np.abs(expected))))


def position(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """1-based (line, column) of `needle` (plus `offset` characters) in `text`."""
    at = text.index(needle) + offset
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def label_numbers(label: str) -> dict[str, float]:
    """name=value pairs from a label such as 'r2=0.606 n=392'."""
    return {k: float(v) for k, v in re.findall(r"(\w+)=([-+0-9.e]+)", label)}


# ---------------------------------------------------------------- OLS on cars

# method -> (trend keys, regressors of x, response of y, back to y)
OLS_METHODS = {
    "linear": ({"method": "linear"}, lambda x: np.column_stack([np.ones_like(x), x]),
               lambda y: y, lambda v: v),
    "poly": ({"method": "poly", "order": 3}, lambda x: np.vander(x, 4, increasing=True),
             lambda y: y, lambda v: v),
    "quad": ({"method": "quad"}, lambda x: np.vander(x, 3, increasing=True),
             lambda y: y, lambda v: v),
    "log": ({"method": "log"}, lambda x: np.column_stack([np.ones_like(x), np.log(x)]),
            lambda y: y, lambda v: v),
    "exp": ({"method": "exp"}, lambda x: np.column_stack([np.ones_like(x), x]),
            np.log, np.exp),
    "pow": ({"method": "pow"}, lambda x: np.column_stack([np.ones_like(x), np.log(x)]),
            np.log, np.exp),
}
STATS_LABEL = "r2={r2!r} adj_r2={adj_r2!r} rse={rse!r} n={n}"


def cars_spec(trends: list[dict]) -> dict:
    return {
        "data": {"dataset": "cars"},
        "encoding": {"x": {"field": "Horsepower"}, "y": {"field": "Miles_per_Gallon"}},
        "layers": [{"mark": "point"}] + [{"trend": t} for t in trends],
    }


@pytest.fixture(scope="module")
def cars_compiled(tmp_path_factory):
    """Every OLS method twice on one chart: with a confidence band, with a prediction band."""
    trends = [{**keys, "band": LEVEL, "label": f"{name} band " + STATS_LABEL}
              for name, (keys, *_) in OLS_METHODS.items()]
    trends += [{**keys, "prediction": 0.9, "label": f"{name} prediction " + STATS_LABEL}
               for name, (keys, *_) in OLS_METHODS.items()]
    return compile_dict(tmp_path_factory.mktemp("cars"), cars_spec(trends))


@pytest.mark.parametrize("kind", ["band", "prediction"])
@pytest.mark.parametrize("method", OLS_METHODS)
def test_ols_methods_on_cars_match_statsmodels(cars, cars_compiled, method, kind):
    keys, regressors, response, back = OLS_METHODS[method]
    rows = cars[["Horsepower", "Miles_per_Gallon"]].dropna()
    x, y = rows["Horsepower"].to_numpy(float), rows["Miles_per_Gallon"].to_numpy(float)
    result = OLS(response(y), regressors(x)).fit()

    index = 1 + list(OLS_METHODS).index(method) + (len(OLS_METHODS) if kind == "prediction" else 0)
    path = ("layers", index)
    (line,) = cars_compiled.fits[path]
    params = result.params
    expected = {"exp": [math.exp(params[0]), params[1]],
                "pow": [math.exp(params[0]), params[1]]}.get(method, params)
    close([v for _, v in line.coefficients], expected)

    # The legend label, as compiled, carries the same numbers.
    views = trend_views(cars_compiled)[path]
    label = {row["legend"] for row in views["line"]}
    assert label == {line.label} and line.label.startswith(f"{method} {kind} ")
    numbers = label_numbers(line.label)
    close([numbers["r2"], numbers["adj_r2"], numbers["rse"]],
          [result.rsquared, result.rsquared_adj, math.sqrt(result.scale)])
    assert numbers["n"] == 392 == line.n

    # The curve and the band rows in the Vega-Lite, against get_prediction at their x.
    curve_x = np.array([row["Horsepower"] for row in views["line"]])
    assert (curve_x[0], curve_x[-1]) == (x.min(), x.max()) and len(curve_x) == 100
    close(np.diff(curve_x), np.full(99, (x.max() - x.min()) / 99), rtol=1e-9)
    frame = result.get_prediction(regressors(curve_x)).summary_frame(
        alpha=1 - (LEVEL if kind == "band" else 0.9))
    close([row["Miles_per_Gallon"] for row in views["line"]], back(frame["mean"]))
    band_x = [row["Horsepower"] for row in views["area"]]
    assert band_x == list(curve_x)
    low, high = ("mean_ci_lower", "mean_ci_upper") if kind == "band" else ("obs_ci_lower", "obs_ci_upper")
    close([row["Miles_per_Gallon"] for row in views["area"]], back(frame[low]))
    close([row["trend_upper"] for row in views["area"]], back(frame[high]))
    assert (line.band, line.band_kind) == ((LEVEL, "confidence") if kind == "band" else (0.9, "prediction"))


def test_common_label_format(tmp_path, cars):
    compiled = compile_dict(tmp_path, cars_spec([{"method": "linear", "label": "Trend (R²={r2:.3f})"}]))
    rows = cars[["Horsepower", "Miles_per_Gallon"]].dropna()
    result = OLS(rows["Miles_per_Gallon"], np.column_stack(
        [np.ones(len(rows)), rows["Horsepower"]])).fit()
    line = trend_views(compiled)[("layers", 1)]["line"]
    assert {row["legend"] for row in line} == {f"Trend (R²={result.rsquared:.3f})"} == {"Trend (R²=0.606)"}


@pytest.mark.slow
@pytest.mark.parametrize("label", [None, "{group}: R²={r2:.2f}"])
def test_compiled_trends_are_valid_vega_lite_and_deterministic(tmp_path, label):
    from altair.vegalite.v6.schema import load_schema

    from chartc.infra.jsonout import canonical_json

    # Bands, groups, annotations and (with a label) legend entries, on small data.
    spec = {"data": {"dataset": "anscombe"},
            "encoding": {"x": {"field": "X"}, "y": {"field": "Y", "title": "y"}},
            "layers": [{"mark": "point", "markers": {"field": "Series", "styles": {"I": {"color": "red"}},
                                                     "default": {"shape": "square"}}},
                       {"trend": {"method": "linear", "by": "Series", "prediction": 0.9,
                                  "annotate": "top-left", "extent": [0, 20],
                                  **({"label": label} if label else {})}}]}
    compiled = compile_dict(tmp_path, spec)
    validator = jsonschema.Draft7Validator(load_schema())
    assert not list(validator.iter_errors(compiled.vega_lite))
    assert len(trend_views(compiled)[("layers", 1)]["text"]) == 4
    again = compile_spec(compiled.document.file)
    assert canonical_json(again.vega_lite) == canonical_json(compiled.vega_lite)


# ---------------------------------------------------------------- Anscombe

def test_anscombe_quartet_through_field_predicates(tmp_path, anscombe):
    spec = {
        "data": {"dataset": "anscombe"},
        "encoding": {"x": {"field": "X"}, "y": {"field": "Y"}},
        "layers": [{"mark": "point"}] + [
            {"transform": [{"filter": {"field": "Series", "equal": series}}],
             "trend": {"method": "linear", "prediction": LEVEL,
                       "label": f"{series}: slope={{slope!r}} intercept={{intercept!r}} " + STATS_LABEL}}
            for series in ("I", "II", "III", "IV")],
    }
    compiled = compile_dict(tmp_path, spec)
    views = trend_views(compiled)
    for index, series in enumerate(("I", "II", "III", "IV"), start=1):
        rows = anscombe[anscombe["Series"] == series]
        x, y = rows["X"].to_numpy(float), rows["Y"].to_numpy(float)
        result = OLS(y, np.column_stack([np.ones_like(x), x])).fit()
        (line,) = compiled.fits[("layers", index)]
        numbers = label_numbers(line.label)
        close([numbers["intercept"], numbers["slope"], numbers["r2"], numbers["adj_r2"], numbers["rse"]],
              [*result.params, result.rsquared, result.rsquared_adj, math.sqrt(result.scale)])
        assert line.n == numbers["n"] == 11
        view = views[("layers", index)]
        curve_x = np.array([row["X"] for row in view["line"]])
        limits = result.get_prediction(np.column_stack([np.ones_like(curve_x), curve_x])).conf_int(
            obs=True, alpha=1 - LEVEL)
        close([row["Y"] for row in view["area"]], limits[:, 0])
        close([row["trend_upper"] for row in view["area"]], limits[:, 1])
        # Anscombe's (1973) published values, the same for all four sets.
        assert (f"{numbers['slope']:.3f}", f"{numbers['intercept']:.2f}", f"{numbers['r2']:.2f}") == \
            ("0.500", "3.00", "0.67")


# ---------------------------------------------------------------- smoothers

def test_loess_matches_statsmodels_lowess(tmp_path, cars, anscombe):
    compiled = compile_dict(tmp_path, cars_spec([{"method": "loess", "bandwidth": 0.3}]))
    rows = cars[["Horsepower", "Miles_per_Gallon"]].dropna()
    x, y = rows["Horsepower"].to_numpy(float), rows["Miles_per_Gallon"].to_numpy(float)
    order = np.argsort(x, kind="stable")  # ties in input order, as chartc keeps them
    fitted = np.empty_like(y)
    fitted[order] = lowess(y[order], x[order], frac=0.3, it=0, delta=0.01 * np.ptp(x),
                           is_sorted=True, return_sorted=False)
    unique = np.unique(x)
    expected = [fitted[x == u].mean() for u in unique]
    curve = trend_views(compiled)[("layers", 1)]["line"]
    assert [row["Horsepower"] for row in curve] == list(unique)
    close([row["Miles_per_Gallon"] for row in curve], expected)

    set_one = anscombe[anscombe["Series"] == "I"]
    spec = {"data": {"dataset": "anscombe"},
            "transform": [{"filter": {"field": "Series", "equal": "I"}}],
            "encoding": {"x": {"field": "X"}, "y": {"field": "Y"}},
            "layers": [{"mark": "point"}, {"trend": {"method": "loess", "bandwidth": 0.5}}]}
    curve = trend_views(compile_dict(tmp_path, spec, "anscombe"))[("layers", 1)]["line"]
    reference = lowess(set_one["Y"], set_one["X"], frac=0.5, it=0, delta=0.01 * np.ptp(set_one["X"]))
    close([row["X"] for row in curve], reference[:, 0], rtol=0)
    close([row["Y"] for row in curve], reference[:, 1])


def test_moving_average_matches_pandas(tmp_path, cars):
    compiled = compile_dict(tmp_path, cars_spec([{"method": "moving-average", "window": 7}]))
    rows = cars[["Horsepower", "Miles_per_Gallon"]].dropna()
    ordered = rows.sort_values("Horsepower", kind="stable")
    means = ordered["Miles_per_Gallon"].rolling(7, center=True, min_periods=1).mean()
    expected = means.groupby(ordered["Horsepower"]).mean()
    curve = trend_views(compiled)[("layers", 1)]["line"]
    assert [row["Horsepower"] for row in curve] == list(expected.index)
    close([row["Miles_per_Gallon"] for row in curve], expected.to_numpy())


# ---------------------------------------------------------------- scales, extent

def test_log_x_linear_trend_is_straight_at_1e24(tmp_path):
    x = np.logspace(22, 24, 40)
    y = 3.0 + 2.0 * np.log10(x) + 0.1 * np.sin(np.arange(40))
    spec = {
        "data": {"values": [{"flops": float(a), "score": float(b)} for a, b in zip(x, y)]},
        "encoding": {"x": {"field": "flops", "scale": {"type": "log"}}, "y": {"field": "score"}},
        "layers": [{"mark": "point"}, {"trend": {"method": "linear", "band": LEVEL}}],
    }
    compiled = compile_dict(tmp_path, spec)
    (line,) = compiled.fits[("layers", 1)]
    result = OLS(y, np.column_stack([np.ones_like(x), np.log10(x)])).fit()
    close([v for _, v in line.coefficients], result.params)
    assert line.space == ("log", "linear")
    rows = trend_views(compiled)[("layers", 1)]["line"]
    u = np.log10([row["flops"] for row in rows])
    curve = np.array([row["score"] for row in rows])
    assert np.all(np.isfinite(curve)) and (rows[0]["flops"], rows[-1]["flops"]) == (1e22, 1e24)
    close(np.diff(u), np.full(len(u) - 1, 2 / (len(u) - 1)))       # evenly spaced on the axis
    slopes = np.diff(curve) / np.diff(u)
    close(slopes, np.full_like(slopes, result.params[1]), rtol=1e-9)  # straight in log10(x)


def test_extent_axis_data_and_bounds(tmp_path, cars):
    spec = cars_spec([{"method": "linear", "extent": "axis"},
                      {"method": "linear", "extent": [0, 300]},
                      {"method": "linear", "extent": [None, 250]},
                      {"method": "loess", "extent": [0, 300]}])
    spec["encoding"]["x"]["scale"] = {"domain": [20, 260]}
    views = trend_views(compile_dict(tmp_path, spec))
    hp = cars["Horsepower"].dropna()
    ends = [(views[("layers", i)]["line"][0]["Horsepower"], views[("layers", i)]["line"][-1]["Horsepower"])
            for i in range(1, 5)]
    assert ends == [(20.0, 260.0), (0.0, 300.0), (hp.min(), 250.0), (hp.min(), hp.max())]
    # The line is clipped to the plot where the extent runs past the axis.
    assert views[("layers", 2)]["line_view"]["mark"]["clip"] is True


def test_space_data_on_a_log_axis(tmp_path, cars):
    spec = cars_spec([{"method": "linear", "space": "data"}])
    spec["encoding"]["x"]["scale"] = {"type": "log"}
    compiled = compile_dict(tmp_path, spec)
    rows = cars[["Horsepower", "Miles_per_Gallon"]].dropna()
    result = OLS(rows["Miles_per_Gallon"].to_numpy(), np.column_stack(
        [np.ones(len(rows)), rows["Horsepower"].to_numpy()])).fit()
    (line,) = compiled.fits[("layers", 1)]
    close([v for _, v in line.coefficients], result.params)
    xs = [row["Horsepower"] for row in trend_views(compiled)[("layers", 1)]["line"]]
    close(np.diff(np.log10(xs)), np.full(99, np.log10(xs[-1] / xs[0]) / 99))  # sampled on the axis


def test_temporal_x_is_fitted_in_milliseconds_and_drawn_as_dates(tmp_path):
    spec = {
        "data": {"dataset": "iowa-electricity"},
        "transform": [{"filter": {"field": "source", "equal": "Renewables"}}],
        "encoding": {"x": {"field": "year"}, "y": {"field": "net_generation"}},
        "layers": [{"mark": "point"}, {"trend": {"method": "exp", "band": LEVEL,
                                                 "extent": ["2000-01-01", "2018-06-30"]}}],
    }
    compiled = compile_dict(tmp_path, spec)
    frame = _dataset("iowa-electricity")
    frame = frame[frame["source"] == "Renewables"]
    millis = (frame["year"] - pd.Timestamp("1970-01-01")) / pd.Timedelta(milliseconds=1)
    result = OLS(np.log(frame["net_generation"].to_numpy(float)),
                 np.column_stack([np.ones(len(frame)), millis.to_numpy(float)])).fit()
    (line,) = compiled.fits[("layers", 1)]
    close([v for _, v in line.coefficients], [math.exp(result.params[0]), result.params[1]])
    assert line.x_type == "temporal"
    view = trend_views(compiled)[("layers", 1)]
    assert view["line_view"]["encoding"]["x"]["type"] == "temporal"
    dates = [row["year"] for row in view["line"]]
    assert (dates[0], dates[-1]) == ("2000-01-01T00:00:00.000", "2018-06-30T00:00:00.000")
    drawn = (pd.to_datetime(dates) - pd.Timestamp("1970-01-01")) / pd.Timedelta(milliseconds=1)
    exog = np.column_stack([np.ones(len(drawn)), drawn.to_numpy(float)])
    close([row["net_generation"] for row in view["line"]], np.exp(result.predict(exog)))


# ---------------------------------------------------------------- groups, colours, legend

BY_SPEC = """\
data: {dataset: cars}
encoding:
  x: {field: Horsepower}
  y: {field: Weight_in_lbs}
layers:
  - mark: point
    markers:
      field: Origin
      styles:
        Japan:  {shape: triangle, color: "#2ca02c"}
        USA:    {shape: circle,   color: "#1f77b4"}
        Europe: {shape: square,   color: "#ff7f0e"}
  - trend:
      method: linear
      by: Origin
      band: 0.95
LABEL
      annotate: bottom-right
"""


@pytest.mark.parametrize("label", [None, "{group} (R²={r2:.2f})"])
def test_by_groups_fit_each_group_in_its_colour(tmp_path, cars, label):
    text = BY_SPEC.replace("LABEL\n", f"      label: \"{label}\"\n" if label else "")
    compiled = compile_spec(write(tmp_path, text))
    lines = compiled.fits[("layers", 1)]
    assert [line.group for line in lines] == ["Japan", "USA", "Europe"]  # the markers' order
    colours = {"Japan": "#2ca02c", "USA": "#1f77b4", "Europe": "#ff7f0e"}
    for line in lines:
        rows = cars[cars["Origin"] == line.group][["Horsepower", "Weight_in_lbs"]].dropna()
        result = OLS(rows["Weight_in_lbs"].to_numpy(float), np.column_stack(
            [np.ones(len(rows)), rows["Horsepower"].to_numpy(float)])).fit()
        close([v for _, v in line.coefficients], result.params)
        close([line.r2, line.rse], [result.rsquared, math.sqrt(result.scale)])
    view = trend_views(compiled)[("layers", 1)]
    encoding = view["line_view"]["encoding"]
    assert encoding["detail"]["field"] == "trend_group"
    if label is None:  # no legend entry: each group's rows carry its marker colour
        assert {(row["trend_group"], row["trend_color"]) for row in view["line"]} == set(colours.items())
        assert encoding["color"]["scale"] is None and "stroke" not in encoding
    else:  # legend entries, drawn in the group colours by the legend's scales
        scale = encoding["stroke"]["scale"]
        by_label = dict(zip(scale["domain"], scale["range"]))
        for line in lines:
            assert line.label == f"{line.group} (R²={line.r2:.2f})"
            assert by_label[line.label] == colours[line.group]
    # The band rows are coloured like their line; the annotation lists every group.
    assert {(row["trend_group"], row["trend_color"]) for row in view["area"]} == set(colours.items())
    texts = [(t["mark"]["color"], t["encoding"]["x"]["value"], t["mark"]["align"],
              compiled.vega_lite["datasets"][t["data"]["name"]][0]["trend_text"]) for t in view["text"]]
    expected_texts = [(colours[line.group], "width", "right",
                       line.label if label else f"{line.group}: {line.equation}") for line in lines]
    assert texts == expected_texts


def test_by_group_follows_a_colour_encoding(tmp_path):
    spec = {
        "data": {"dataset": "stocks"},
        "transform": [{"filter": {"field": "symbol", "oneOf": ["AAPL", "IBM"]}}],
        "encoding": {"x": {"field": "date"}, "y": {"field": "price"}, "color": {"field": "symbol"}},
        "layers": [{"mark": "line"}, {"trend": {"method": "moving-average", "window": 5, "by": "symbol"}}],
    }
    compiled = compile_dict(tmp_path, spec)
    view = trend_views(compiled)[("layers", 1)]
    assert view["line_view"]["encoding"]["color"] == {"field": "symbol", "type": "nominal"}
    assert {row["symbol"] for row in view["line"]} == {"AAPL", "IBM"}
    assert [line.group for line in compiled.fits[("layers", 1)]] == ["AAPL", "IBM"]


def test_without_a_legend_plan_the_trend_draws_its_own_style(tmp_path):
    import altair as alt

    from chartc.stages.fit import fit_chart
    from chartc.pipeline import check_spec
    from chartc.stages.data import flow_data, read_rows
    from chartc.stages.translate.trend_layers import translate_trend_layers

    path = write(tmp_path, cars_spec([{"method": "linear", "label": "Trend",
                                       "style": {"color": "red", "dash": [4, 2]}}]))
    spec, document = check_spec(path)
    fits = fit_chart(spec, flow_data(spec, read_rows(spec.data)))
    (chart,) = translate_trend_layers(spec.layers[1], fits[("layers", 1)], alt)
    view = chart.to_dict(validate=False)
    assert set(view["encoding"]) == {"x", "y", "tooltip"}
    assert [tip["field"] for tip in view["encoding"]["tooltip"]] == ["Horsepower", "Miles_per_Gallon"]
    assert (view["mark"]["color"], view["mark"]["strokeDash"]) == ("red", [4, 2])


# ---------------------------------------------------------------- sidecar

def test_fits_sidecar(tmp_path):
    spec = write(tmp_path, BY_SPEC.replace("LABEL\n", '      label: "{group}"\n'))
    fits_file = tmp_path / "fits.json"
    assert main(["compile", str(spec), "-o", str(tmp_path / "out.vl.json"), "--fits", str(fits_file)]) == 0
    document = json.loads(fits_file.read_text(encoding="utf-8"))
    (layer,) = document["trends"]
    assert layer["layer"] == "layers[1]"
    assert [fit["group"] for fit in layer["fits"]] == ["Japan", "USA", "Europe"]
    for fit in layer["fits"]:
        assert {"method", "coefficients", "r2", "adj_r2", "n", "rse", "band", "band_kind",
                "label", "equation", "space", "x_type"} <= set(fit)
        assert (fit["method"], fit["band"], fit["band_kind"], fit["label"]) == \
            ("linear", 0.95, "confidence", fit["group"])
        assert set(fit["coefficients"]) == {"intercept", "slope"}
    compiled = compile_spec(spec)
    usa = compiled.fits[("layers", 1)][1]
    assert layer["fits"][1]["coefficients"]["slope"] == dict(usa.coefficients)["slope"]
    assert layer["fits"][1]["r2"] == usa.r2 and layer["fits"][1]["n"] == usa.n


# ---------------------------------------------------------------- errors

ERROR_BASE = """\
data:
  values:
    - {x: 1, y: 2, g: a}
    - {x: 2, y: 3, g: a}
    - {x: 3, y: 5, g: a}
    - {x: 4, y: -4, g: b}
encoding:
  x: {field: x}
  y: {field: y}
layers:
  - mark: point
  - trend:
TREND"""


def _error_spec(trend_lines: str) -> str:
    text = ERROR_BASE.replace("TREND", "".join(f"      {line}\n" for line in trend_lines.split("|")))
    if trend_lines == "method: log":  # a zero x
        text = text.replace("{x: 1, y: 2, g: a}", "{x: 0, y: 2, g: a}")
    return text


# name -> (trend keys separated by |, message, path under layers[1], needle, offset into it)
ERRORS = {
    "too few x": ("method: linear|by: g", errors.trend_in_group("g", "b", errors.trend_too_few_x(1)),
                  ("trend",), "trend:", 0),
    "order too high": ("method: poly|order: 4", errors.trend_order_too_high(4, 4),
                       ("trend", "order"), "order: 4", 7),
    "log of x <= 0": ("method: log", errors.trend_nonpositive("x", 1, 4, "log"),
                      ("trend", "method"), "method: log", 8),
    "log extent <= 0": ("method: log|extent: [-1, 5]",
                        errors.trend_extent_nonpositive((-1.0, 5.0), "log"), ("trend", "extent"), "[-1, 5]", 0),
    "exp of y <= 0": ("method: exp", errors.trend_nonpositive("y", 1, 4, "exp"),
                      ("trend", "method"), "method: exp", 8),
    "pow of y <= 0": ("method: pow", errors.trend_nonpositive("y", 1, 4, "pow"),
                      ("trend", "method"), "method: pow", 8),
    "unknown placeholder": ('method: linear|label: "R²={rsq:.2f}"', errors.trend_label_placeholder("rsq"),
                            ("trend", "label"), '"R²=', 0),
    "undefined placeholder": ('method: loess|label: "{r2}"', errors.trend_label_undefined("r2", "loess"),
                              ("trend", "label"), '"{r2}"', 0),
    "annotate placeholder": ('method: linear|annotate: {position: top-left, text: "{slop}"}',
                             errors.trend_label_placeholder("slop"), ("trend", "annotate", "text"),
                             '"{slop}"', 0),
    "band on a robust loess": ("method: loess|iterations: 3|band: 0.9", errors.trend_band_unsupported("loess"),
                               ("trend", "band"), "band: 0.9", 6),
    "loess band through every point": ("method: loess|band: 0.9", errors.trend_loess_band_interpolates(4),
                                       ("trend", "band"), "band: 0.9", 6),
    "window too wide": ("method: moving-average|window: 9", errors.trend_window(9, 4),
                        ("trend", "window"), "window: 9", 8),
    "extent axis without domain": ("method: linear|extent: axis", errors.trend_extent_axis(),
                                   ("trend", "extent"), "extent: axis", 8),
}


@pytest.mark.parametrize("case", ERRORS, ids=str)
def test_trend_errors_point_at_the_trend(tmp_path, case):
    keys, message, path, needle, offset = ERRORS[case]
    text = _error_spec(keys)
    spec = write(tmp_path, text)
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    error = caught.value
    assert (error.message, error.path, error.stage) == (message, ("layers", 1, *path), "fit")
    assert (error.location.file, error.location.line, error.location.column) == \
        (str(spec), *position(text, needle, offset))


def test_error_diagnostic_on_the_command_line(tmp_path, capsys):
    text = _error_spec("method: poly|order: 4")
    spec = write(tmp_path, text)
    assert main(["validate", "--full", str(spec)]) == 1  # a fit needs the values: --full
    line, column = position(text, "order: 4", 7)
    assert capsys.readouterr().err == (
        f"{spec}:{line}:{column}: {label(errors.trend_order_too_high(4, 4))}: layers[1].trend.order: "
        f"{errors.trend_order_too_high(4, 4)} ({errors.trend_order_too_high_hint(4)})\n")


@pytest.mark.parametrize("encoding, message, path, needle", [
    ("x: {field: x}|y: {field: when}", errors.trend_channel_type("y", "when", "temporal", ("quantitative",)),
     ("encoding", "y"), "{field: when}"),
    ("x: {field: g}|y: {field: y}",
     errors.trend_channel_type("x", "g", "nominal", ("quantitative", "temporal")),
     ("encoding", "x"), "{field: g}"),
    ("x: {field: x}|y: {field: y, aggregate: mean}", errors.trend_channel_derived("y", "aggregate"),
     ("encoding", "y", "aggregate"), "mean"),
])
def test_channels_a_trend_cannot_fit(tmp_path, encoding, message, path, needle):
    text = (ERROR_BASE.replace("g: a}", "g: a, when: '2020-01-0%d'}")
            .replace("g: b}", "g: b, when: '2020-02-01'}")
            .replace("  x: {field: x}\n  y: {field: y}\n",
                     "".join(f"  {line}\n" for line in encoding.split("|")))
            .replace("TREND", "      method: linear\n"))
    text = text.replace("'2020-01-0%d'", "'2020-01-01'", 1).replace("'2020-01-0%d'", "'2020-01-02'", 1) \
        .replace("'2020-01-0%d'", "'2020-01-03'", 1)
    spec = write(tmp_path, text)
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    assert (caught.value.message, caught.value.path) == (message, path)
    assert (caught.value.location.line, caught.value.location.column) == position(text, needle)


def test_every_method_has_an_example_spec():
    from chartc.pipeline import check_spec

    specs = Path(__file__).parent.parent / "specs"
    used = set()
    for path in specs.glob("trend_*.yaml"):  # tests/test_examples.py compiles them
        spec, _ = check_spec(path)
        used.update(layer.trend.method for layer in spec.layers if layer.trend is not None)
    assert used == set(TREND_METHODS)


# ---------------------------------------------------------------- facets

FACET_SPEC = {
    "data": {"dataset": "iris"},
    "encoding": {"x": {"field": "petalLength"}, "y": {"field": "petalWidth"}},
    "facet": {"column": {"field": "species"}},
    "layers": [{"mark": "circle"}, {"trend": {"method": "linear", "band": LEVEL, "label": "Linear fit"}}],
}


def test_a_faceted_trend_is_fitted_per_panel_and_drawn_in_its_panel(tmp_path):
    compiled = compile_dict(tmp_path, FACET_SPEC)
    iris = _dataset("iris")
    lines = compiled.fits[("layers", 1)]
    assert [line.panel for line in lines] == [(("species", s),) for s in ("setosa", "versicolor", "virginica")]
    for line in lines:
        rows = iris[iris["species"] == line.panel[0][1]]
        ols = OLS(rows["petalWidth"].to_numpy(float), np.column_stack([np.ones(len(rows)), rows["petalLength"]])).fit()
        close([v for _, v in line.coefficients], ols.params)
        assert line.n == 50 and line.r2 == pytest.approx(ols.rsquared, rel=RTOL)
    # The facet splits only its own data: trend rows join it, each layer filters its own rows.
    vl = compiled.vega_lite
    rows = vl["datasets"][vl["data"]["name"]]
    parts = Counter(row.get("trend_part") for row in rows)
    assert parts[None] == 150 and set(parts) == {None, "layer 1", "layer 2"}
    assert {row["species"] for row in rows if row.get("trend_part") == "layer 2"} == {"setosa", "versicolor", "virginica"}
    filters = [view["transform"][0]["filter"] for view in vl["spec"]["layer"]]
    assert filters == ['!isValid(datum["trend_part"])', 'datum["trend_part"] === "layer 1"',
                       'datum["trend_part"] === "layer 2"']
    assert all("data" not in view for view in vl["spec"]["layer"])
    # Hovering a curve (tooltips on gallery pages) shows its x and y, never chartc's own fields.
    tips = [[tip.get("title", tip["field"]) for tip in view["encoding"]["tooltip"]] for view in vl["spec"]["layer"][1:]]
    assert tips == [["petalLength", "petalWidth", "petalWidth (upper)"], ["legend", "petalLength", "petalWidth"]]
    svg = ET.fromstring(render(vl, "svg"))
    lines_drawn = [g for g in svg.iter() if "mark-line" in g.get("class", "").split()]
    assert sum(len(group) for group in lines_drawn) == 3  # one fitted line in each of the three panels


def test_a_label_that_differs_by_panel_is_refused_at_its_key(tmp_path):
    spec = {**FACET_SPEC, "layers": [{"mark": "circle"}, {"trend": {"method": "linear", "label": "R²={r2:.2f}"}}]}
    with pytest.raises(SpecError) as raised:
        compile_dict(tmp_path, spec)
    (problem,) = raised.value.errors
    assert (problem.path, problem.message) == (("layers", 1, "trend", "label"),
                                               errors.trend_label_differs_by_panel("R²={r2:.2f}"))
    assert problem.hint == errors.trend_label_differs_by_panel_hint()


def test_each_panel_annotates_its_own_fit(tmp_path):
    """annotate in a facet: each panel draws its own fit's numbers (OLS per species), in its own corner."""
    import vl_convert

    from conftest import scene_nodes

    trend = {"method": "linear", "annotate": {"position": "top-left", "text": "R² = {r2:.4f}"}}
    spec = {**FACET_SPEC, "layers": [{"mark": "circle"}, {"trend": trend}]}
    compiled = compile_dict(tmp_path, spec)
    iris = _dataset("iris")
    expected = []
    for species in ("setosa", "versicolor", "virginica"):
        rows = iris[iris["species"] == species]
        ols = OLS(rows["petalWidth"].to_numpy(float), np.column_stack([np.ones(len(rows)), rows["petalLength"]])).fit()
        expected.append(f"R² = {ols.rsquared:.4f}")
    scene = vl_convert.vegalite_to_scenegraph(compiled.vega_lite)
    cells = [node for node in scene_nodes(scene, "group") if node.get("name") == "cell"]
    drawn = [[item["text"] for mark in scene_nodes(cell["items"], "text") for item in mark["items"]
              if str(item.get("text", "")).startswith("R²")] for cell in cells[0]["items"]] if cells else []
    assert drawn == [[text] for text in expected]


def test_a_facet_by_time_unit_cannot_carry_a_trend(tmp_path):
    spec = {"data": {"dataset": "seattle-weather"},
            "encoding": {"x": {"field": "temp_min"}, "y": {"field": "temp_max"}},
            "facet": {"column": {"field": "date", "timeUnit": "year"}},
            "layers": [{"mark": "point"}, {"trend": {"method": "linear"}}]}
    with pytest.raises(SpecError) as raised:
        compile_dict(tmp_path, spec)
    (problem,) = raised.value.errors
    assert problem.path == ("facet", "column", "timeUnit")
    assert problem.message == errors.trend_facet_derived("column", "timeUnit")


def test_a_panel_too_small_to_fit_is_named(tmp_path):
    spec = {"data": {"values": [{"g": "a", "x": 1, "y": 1}, {"g": "a", "x": 2, "y": 3},
                                {"g": "b", "x": 1, "y": 2}]},
            "encoding": {"x": {"field": "x"}, "y": {"field": "y"}},
            "facet": {"row": {"field": "g"}},
            "layers": [{"mark": "point"}, {"trend": {"method": "linear"}}]}
    with pytest.raises(SpecError) as raised:
        compile_dict(tmp_path, spec)
    (problem,) = raised.value.errors
    assert problem.message.startswith("in the panel for g 'b': ")
