"""A scatter drawn as its density (`mark: {type: point, density: ...}`): every point counted per cell.

The counts are checked against ``numpy.histogram2d`` on the same rows and the
same edges (``numpy.linspace`` over each field's extent), and what Vega draws
(its scenegraph): one rect per non-empty cell, on the plot's pixel grid.
"""

from __future__ import annotations

import json

import numpy
import pytest
from conftest import scene_nodes

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.pipeline import compile_spec


def points(seed: int = 3, size: int = 5000) -> list[dict]:
    """Correlated points with missing cells, repeated values and the extremes repeated (the last edge)."""
    rng = numpy.random.default_rng(seed)
    x = rng.normal(size=size).round(2)
    y = (x * 0.6 + rng.normal(size=size)).round(1)
    rows = [{"x": float(a), "y": float(b), "g": "ab"[index % 2]} for index, (a, b) in enumerate(zip(x, y))]
    rows[10]["x"] = None
    rows[11]["y"] = None
    rows.append({"x": float(x.max()), "y": float(y.max()), "g": "a"})
    return rows


def compile_density(tmp_path, rows: list[dict], density, **more):
    spec = {"data": {"values": rows}, "width": 400, "height": 300, "mark": {"type": "point", "density": density},
            "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}},
            **more}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return compile_spec(path)


def emitted_cells(vega_lite: dict) -> list[dict]:
    data = vega_lite["data"]
    return data["values"] if "values" in data else vega_lite["datasets"][data["name"]]


def numpy_counts(rows: list[dict], columns: int, lines: int):
    kept = [(row["x"], row["y"]) for row in rows if row["x"] is not None and row["y"] is not None]
    x, y = numpy.array(kept).T
    x_edges = numpy.linspace(x.min(), x.max(), columns + 1)
    y_edges = numpy.linspace(y.min(), y.max(), lines + 1)
    counts, _, _ = numpy.histogram2d(x, y, bins=[x_edges, y_edges])
    return counts, x_edges, y_edges


@pytest.mark.parametrize("bins", [[37, 23], [100, 100], [3, 2]])
def test_the_counts_are_numpys_histogram2d_on_the_same_edges(tmp_path, bins):
    rows = points()
    cells = emitted_cells(compile_density(tmp_path, rows, {"bins": bins}).vega_lite)
    counts, x_edges, y_edges = numpy_counts(rows, *bins)
    got = numpy.zeros_like(counts)
    for cell in cells:
        i = int(numpy.flatnonzero(x_edges == cell["x (binned)"])[0])
        j = int(numpy.flatnonzero(y_edges == cell["y (binned)"])[0])
        assert (cell["x (binned)_end"], cell["y (binned)_end"]) == (x_edges[i + 1], y_edges[j + 1])
        got[i, j] = cell["Count of Records"]
    assert (got == counts).all()
    assert len(cells) == numpy.count_nonzero(counts) and counts.sum() == len(rows) - 2


def test_density_true_draws_a_rect_per_cell_of_4_pixels_on_the_plots_grid(tmp_path):
    import vl_convert

    rows = points()
    vega_lite = compile_density(tmp_path, rows, True).vega_lite
    counts, _, _ = numpy_counts(rows, 100, 75)
    (mark,) = scene_nodes(vl_convert.vegalite_to_scenegraph(vega_lite), "rect", "mark")
    items = mark["items"]
    assert len(items) == numpy.count_nonzero(counts)
    drawn = numpy.zeros_like(counts)
    for item in items:
        assert item["width"] == pytest.approx(4, abs=1e-9) and item["height"] == pytest.approx(4, abs=1e-9)
        i, j = round(item["x"] / 4), 74 - round(item["y"] / 4)  # y grows downwards
        assert item["x"] == pytest.approx(4 * i, abs=1e-9)
        drawn[i, j] += 1
    assert ((drawn > 0) == (counts > 0)).all() and drawn.max() == 1


def test_a_log_scale_colours_the_counts_on_a_log_scale(tmp_path):
    import vl_convert

    vega_lite = compile_density(tmp_path, points(), {"bins": 10, "scale": "log"}).vega_lite
    assert vega_lite["encoding"]["color"]["scale"] == {"type": "log"}
    (scale,) = [s for s in vl_convert.vegalite_to_vega(vega_lite)["scales"] if s["name"] == "color"]
    assert scale["type"] == "log"


def test_a_faceted_density_counts_each_panel(tmp_path):
    rows = points()
    cells = emitted_cells(compile_density(tmp_path, rows, {"bins": 8},
                                          facet={"column": {"field": "g", "type": "nominal"}}).vega_lite)
    for panel in "ab":
        mine = [row for row in rows if row["g"] == panel]
        total = sum(cell["Count of Records"] for cell in cells if cell["g"] == panel)
        assert total == sum(1 for row in mine if row["x"] is not None and row["y"] is not None)


def test_density_on_a_mark_without_points_is_refused_by_validate(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text("data: {dataset: cars}\nmark: {type: line, density: true}\nencoding: {x: Horsepower, y: Acceleration}\n")
    with pytest.raises(SpecError) as caught:
        compile_spec(path)
    assert caught.value.message == msg.mark_property_not_for("density", "line")
    assert caught.value.hint == msg.mark_property_hint(["point", "circle", "square"])
    assert caught.value.path == ("mark", "density") and caught.value.location.line == 2


@pytest.mark.parametrize(("mark", "encoding", "reason"), [
    ("point", {"color": {"field": "g"}}, "the colour is the count, so 'color' has no place here"),
    ("point", {"x": {"field": "g"}}, "x must be a quantitative field"),
    ("point", {"y": {"field": "y", "scale": {"type": "log"}}},
     "y has 'scale', but its cells are even steps of the data's extent"),
])
def test_a_density_it_cannot_count_is_refused_at_the_key(tmp_path, mark, encoding, reason):
    spec = tmp_path / "spec.yaml"
    channels = {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"},
                **encoding}
    spec.write_text(json.dumps({"data": {"values": points(size=20)}, "mark": {"type": mark, "density": True},
                                "encoding": channels}, indent=1))
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    error = caught.value.errors[0] if hasattr(caught.value, "errors") and caught.value.errors else caught.value
    assert error.message == msg.density_unsupported(reason) and error.code == "E480"
    assert error.hint == msg.density_unsupported_hint()
    assert error.path == ("mark", "density") and error.location is not None


def test_past_the_mark_limit_the_refusal_names_density_and_density_draws_the_chart(tmp_path, monkeypatch):
    import chartc.stages.limits as limits

    monkeypatch.setattr(limits, "MAX_MARKS", 1000)
    rows = points(size=3000)
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"data": {"values": rows}, "mark": "point", "encoding": {"x": "x", "y": "y"}}))
    with pytest.raises(SpecError) as caught:
        compile_spec(path)
    assert caught.value.hint == msg.too_many_marks_hint() and "density: true" in caught.value.hint
    cells = emitted_cells(compile_density(tmp_path, rows, {"bins": 20}).vega_lite)
    assert len(cells) <= 400


def test_a_color_without_a_field_titles_the_count_and_picks_its_scheme(tmp_path):
    import vl_convert

    vega_lite = compile_density(tmp_path, points(), True,
                                encoding={"x": {"field": "x", "type": "quantitative"},
                                          "y": {"field": "y", "type": "quantitative"},
                                          "color": {"title": "Points", "scale": {"scheme": "viridis"}}}).vega_lite
    graph = vl_convert.vegalite_to_scenegraph(vega_lite)
    titles = [item["text"] for node in scene_nodes(graph, "text", "legend-title") for item in node["items"]]
    assert titles == ["Points"]
    assert vega_lite["encoding"]["color"]["scale"] == {"zero": False, "scheme": "viridis"}


def test_a_density_over_rows_only_vega_knows_is_refused_at_the_key(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"data": {"values": points(size=50)}, "transform": [{"filter": "random() < 2"}],
                                "mark": {"type": "point", "density": True},
                                "encoding": {"x": {"field": "x", "type": "quantitative"},
                                             "y": {"field": "y", "type": "quantitative"}}}, indent=1))
    with pytest.raises(SpecError) as caught:
        compile_spec(path)
    assert caught.value.message == msg.density_unknowable() and caught.value.code == "E481"
    assert caught.value.hint == msg.density_unknowable_hint()
    assert caught.value.path == ("mark", "density") and caught.value.location is not None


def test_a_density_of_more_cells_than_the_mark_limit_is_told_to_use_larger_cells(tmp_path, monkeypatch):
    import chartc.stages.limits as limits

    monkeypatch.setattr(limits, "MAX_MARKS", 50)
    with pytest.raises(SpecError) as caught:
        compile_density(tmp_path, points(size=2000), {"cell": 1})
    assert caught.value.code == "E501" and caught.value.hint == msg.too_many_cells_hint()
    assert caught.value.path == ("mark",)
