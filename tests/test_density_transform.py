"""The ``density`` transform: Vega's kernel density estimate, evaluated once by the data stage.

Its rows against Vega's own evaluation of the transform (the text marks
vl-convert draws, each a row's numbers as JavaScript prints them), against
scipy's ``gaussian_kde`` and the normal CDF, and what the chart draws.
Vega's bandwidth is the Gaussian kernel's standard deviation; scipy's
``bw_method`` is a factor of the data's standard deviation (ddof 1), so the
same kernel is ``bw_method = bandwidth / std``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import compile_text, layer_items, vega_dataset

from chartc import errors as msg
from chartc.errors import SpecError

CHART = """
data: {dataset: cars}
transform:
  - %s
mark: line
encoding:
  x: {field: value, type: quantitative}
  y: {field: density, type: quantitative}
  color: {field: Origin, type: nominal}
"""


def chartc_rows(tmp_path, density: dict) -> list[dict]:
    """The rows the compiled Vega-Lite carries for a density of cars' Horsepower by Origin."""
    vega_lite = compile_text(tmp_path, CHART % json.dumps(density)).vega_lite
    assert "transform" not in vega_lite  # evaluated once: the rows, not the transform
    (rows,) = vega_lite["datasets"].values()
    return rows


def vega_rows(density: dict) -> list[tuple[str, float, float]]:
    """(Origin, value, density) as Vega computes them for the same transform of the same rows."""
    import vl_convert

    spec = {"data": {"values": json.loads(vega_dataset("cars").to_json(orient="records"))},
            "transform": [density, {"calculate": "datum.Origin + ';' + datum.value + ';' + datum.density", "as": "t"}],
            "mark": "text", "encoding": {"text": {"field": "t"}}}
    texts = [item["text"] for item in layer_items(vl_convert.vegalite_to_scenegraph(spec), "text", "marks")]
    return [(origin, float(x), float(y)) for origin, x, y in (text.split(";") for text in texts)]


OPTIONS = [
    {},
    {"resolve": "independent"},
    {"resolve": "independent", "cumulative": True},
    {"counts": True, "steps": 40},
    {"resolve": "independent", "extent": [0, 300], "minsteps": 10, "maxsteps": 90, "bandwidth": 7},
]


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_the_rows_are_the_ones_vega_computes(tmp_path, options):
    """Groups in order of first appearance, Vega's samples exactly, its densities to 1e-12."""
    density = {"density": "Horsepower", "groupby": ["Origin"], **options}
    ours = chartc_rows(tmp_path, density)
    theirs = vega_rows(density)
    assert len(ours) == len(theirs) > 0
    assert [row["Origin"] for row in ours] == [origin for origin, _, _ in theirs]
    assert [row["value"] for row in ours] == [x for _, x, _ in theirs]
    for row, (_, _, y) in zip(ours, theirs):
        assert math.isclose(row["density"], y, rel_tol=1e-12, abs_tol=1e-300)


def horsepower(origin: str) -> np.ndarray:
    frame = vega_dataset("cars")
    return frame.loc[frame["Origin"] == origin, "Horsepower"].dropna().to_numpy(dtype=float)


def scott(values: np.ndarray) -> float:
    """Scott's rule as Vega writes it, computed independently: 1.06 min(sd, IQR / 1.34) n^-0.2."""
    q1, q3 = np.percentile(values, [25, 75])  # numpy's linear interpolation is d3's quantile
    return 1.06 * min(np.std(values, ddof=1), (q3 - q1) / 1.34) * len(values) ** -0.2


def test_the_density_is_scipys_gaussian_kde_with_scotts_bandwidth(tmp_path):
    scipy_stats = pytest.importorskip("scipy.stats")
    # Vega counts a null as a value at 0 (x - null is x): the cars with no horsepower are filtered first.
    vega_lite = compile_text(tmp_path, CHART % '{filter: {field: Horsepower, valid: true}}\n  - '
                             '{density: Horsepower, groupby: [Origin], resolve: independent}').vega_lite
    (rows,) = vega_lite["datasets"].values()
    for origin in ("USA", "Europe", "Japan"):
        values = horsepower(origin)
        points = [row for row in rows if row["Origin"] == origin]
        x = np.array([row["value"] for row in points])
        kde = scipy_stats.gaussian_kde(values, bw_method=scott(values) / np.std(values, ddof=1))
        np.testing.assert_allclose([row["density"] for row in points], kde(x), rtol=1e-12)
        assert x[0] == values.min() and x[-1] == values.max()  # independent: each group's own extent


def test_cumulative_is_the_mean_normal_cdf_and_counts_scale_by_the_group_size(tmp_path):
    scipy_stats = pytest.importorskip("scipy.stats")
    bandwidth = 6.5
    head = '{filter: {field: Horsepower, valid: true}}\n  - '
    cumulative = compile_text(tmp_path, CHART % (head + f'{{density: Horsepower, groupby: [Origin], cumulative: true, '
                                                 f'bandwidth: {bandwidth}, steps: 50}}')).vega_lite
    counts = compile_text(tmp_path, CHART % (head + f'{{density: Horsepower, groupby: [Origin], counts: true, '
                                             f'bandwidth: {bandwidth}, steps: 50}}')).vega_lite
    (cumulative_rows,) = cumulative["datasets"].values()
    (count_rows,) = counts["datasets"].values()
    every = vega_dataset("cars")["Horsepower"].dropna()
    for origin in ("USA", "Europe", "Japan"):
        values = horsepower(origin)
        points = [row for row in cumulative_rows if row["Origin"] == origin]
        x = np.array([row["value"] for row in points])
        assert len(x) == 51 and x[0] == every.min() and x[-1] == every.max()  # shared: one extent, steps + 1
        expected = scipy_stats.norm.cdf((x[:, None] - values[None, :]) / bandwidth).mean(axis=1)
        np.testing.assert_allclose([row["density"] for row in points], expected, rtol=1e-12, atol=1e-15)
        smoothed = np.array([row["density"] for row in count_rows if row["Origin"] == origin])
        pdf = scipy_stats.norm.pdf((x[:, None] - values[None, :]) / bandwidth).sum(axis=1) / bandwidth
        np.testing.assert_allclose(smoothed, pdf, rtol=1e-12)  # density times n: the kernels' sum


@pytest.mark.slow
def test_the_line_drawn_is_the_one_vega_draws_from_the_transform(tmp_path, monkeypatch):
    """The evaluated chart and the one where Vega runs the density draw the same line, point for point."""
    import vl_convert

    import chartc.stages.translate as translate

    text = CHART % "{density: Horsepower, groupby: [Origin], resolve: independent}"
    evaluated = compile_text(tmp_path, text).vega_lite
    original = translate.translate_chart
    monkeypatch.setattr(translate, "translate_chart",
                        lambda chart, data, fits, **kwargs: original(chart, data, fits, evaluated=False))
    raw = compile_text(tmp_path, text).vega_lite
    assert raw["transform"][0]["density"] == "Horsepower"
    ours = layer_items(vl_convert.vegalite_to_scenegraph(evaluated), "line", "marks")
    theirs = layer_items(vl_convert.vegalite_to_scenegraph(raw), "line", "marks")
    assert len(ours) == len(theirs) > 0
    assert [(round(a["x"], 6), round(a["y"], 6)) for a in ours] == [(round(b["x"], 6), round(b["y"], 6))
                                                                      for b in theirs]


@pytest.mark.parametrize("step, path, message", [
    ("{density: Origin}", "transform[0].density", msg.density_not_numeric("Origin")),
    ("{density: Horsepower, extent: [250, 0]}", "transform[0].extent", msg.density_extent_empty(250, 0)),
    ("{density: Horsepower, bandwidth: -5}", "transform[0].bandwidth", msg.density_bandwidth_negative(-5)),
])
def test_a_bad_density_is_a_positioned_diagnostic(tmp_path, step, path, message):
    with pytest.raises(SpecError) as raised:
        compile_text(tmp_path, CHART % step)
    (error,) = [error for error in raised.value.errors if error.message == message]
    assert ".".join(str(key) for key in error.path).replace(".0.", "[0].") == path
    assert (error.location.line, error.location.column) > (3, 0)
