"""Pies and donuts: the `arc` mark and the `theta`, `radius` and `order` channels.

What is drawn is read from Vega's scenegraph and compared with numpy's shares of the data: each
slice's angles, its radii (a donut's hole, a radial chart's square-root scale), the order of the
slices. What an arc cannot draw is refused before any row is read, at the channel or the mark
(E555-E558), by `chartc validate` and by a compile alike; and the scene check counts arcs as it
counts any mark.
"""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
import yaml

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.pipeline import check_drawn, compile_spec, validate_spec

from conftest import ROOT, layer_items

vl_convert = pytest.importorskip("vl_convert")

SPECS = ROOT / "specs"
ROWS = "data:\n  values: [{label: a, size: 1}, {label: b, size: 3}, {label: c, size: 2}]\n"


def write(tmp_path, text: str):
    path = tmp_path / "chart.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def scene_of(compiled) -> dict:
    return vl_convert.vegalite_to_scenegraph(compiled.vega_lite)


def values(name: str) -> list[dict]:
    return yaml.safe_load((SPECS / f"{name}.yaml").read_text(encoding="utf-8"))["data"]["values"]


def labelled(item: dict, title: str) -> str:
    """The category of an item, from its description (`Title: value; ...`, as Vega-Lite writes it)."""
    return re.search(rf"{title}: ([^;]+)", item["description"]).group(1)


def where(problem) -> tuple:
    return problem.code, problem.path, (problem.location.line, problem.location.column)


# ---------------------------------------------------------------- what is drawn


def test_the_donut_draws_each_stage_as_its_share_of_the_ring_largest_first():
    rows = values("donut_legend")
    hours = np.array([row["hours"] for row in rows], dtype=float)
    order = np.argsort(-hours, kind="stable")  # `order: {field: hours, sort: descending}`
    ends = 2 * np.pi * np.cumsum(hours[order]) / hours.sum()
    starts = np.concatenate([[0.0], ends[:-1]])
    slices = layer_items(scene_of(compile_spec(SPECS / "donut_legend.yaml")), "arc", "marks")
    by_label = {labelled(item, "Stage"): item for item in slices}
    drawn = [by_label[rows[i]["stage"]] for i in order]
    # Vega-Lite maps a stacked slice's end to startAngle and its start to endAngle.
    assert [item["endAngle"] for item in drawn] == pytest.approx(list(starts), abs=1e-12)
    assert [item["startAngle"] for item in drawn] == pytest.approx(list(ends), abs=1e-12)
    assert {(item["innerRadius"], item["outerRadius"], item["padAngle"], item["cornerRadius"])
            for item in slices} == {(70, 130, 0.02, 4)}


def test_the_radial_chart_gives_each_slice_an_area_that_grows_with_its_count():
    """The radius on a sqrt scale from zero (range from 10 px): (r − 10)² is proportional to the count."""
    rows = values("radial_sqrt")
    wins = np.array([row["wins"] for row in rows], dtype=float)
    slices = layer_items(scene_of(compile_spec(SPECS / "radial_sqrt.yaml")), "arc", "marks")
    by_label = {labelled(item, "Model family"): item for item in slices}
    drawn = [by_label[row["family"]] for row in rows]
    squared = np.array([(item["outerRadius"] - 10) ** 2 for item in drawn])
    assert squared / squared.max() == pytest.approx(wins / wins.max(), abs=1e-9)
    spans = np.array([abs(item["endAngle"] - item["startAngle"]) for item in drawn])
    assert spans == pytest.approx(2 * np.pi * wins / wins.sum(), abs=1e-12)


def test_the_labelled_pie_prints_each_share_at_the_middle_of_its_slice():
    rows = values("pie_labels")
    ms = np.array([row["ms"] for row in rows], dtype=float)
    bounds = 2 * np.pi * np.concatenate([[0.0], np.cumsum(ms)]) / ms.sum()
    compiled = compile_spec(SPECS / "pie_labels.yaml")
    graph = scene_of(compiled)
    assert [item["text"] for item in layer_items(graph, "text", "layer_1_marks")] == [row["stage"] for row in rows]
    shares = layer_items(graph, "text", "layer_2_marks")
    assert [item["text"] for item in shares] == [f"{round(100 * m / ms.sum())}%" for m in ms]
    assert [item["theta"] for item in shares] == pytest.approx(list((bounds[:-1] + bounds[1:]) / 2), abs=1e-12)
    assert check_drawn(compiled) == []  # the scene check reads every arc and label, and finds nothing amiss


def test_a_pie_slice_the_renderer_cannot_draw_is_reported_at_its_theta_field(tmp_path):
    compiled = compile_spec(write(tmp_path, """\
        data:
          values: [{label: a, size: 15}, {label: b, size: n/a}, {label: c, size: 45}]
        mark: arc
        encoding:
          theta: {field: size, type: quantitative}
          color: {field: label, type: nominal, legend: null}
        """))
    assert len(layer_items(scene_of(compiled), "arc", "marks")) == 2
    warnings = check_drawn(compiled)
    assert [(w.message, w.code, w.path, (w.location.line, w.location.column)) for w in warnings] == [
        (msg.layer_drew_fewer(2, 3), "W760", ("encoding", "theta", "field"), (5, 18))]


def test_a_count_draws_a_slice_per_category_without_a_field(tmp_path):
    compiled = compile_spec(write(tmp_path, """\
        data:
          values: [{label: a}, {label: b}, {label: b}, {label: b}]
        mark: arc
        encoding:
          theta: {aggregate: count, type: quantitative}
          color: {field: label, type: nominal, legend: null}
        """))
    spans = sorted(abs(item["endAngle"] - item["startAngle"]) for item in layer_items(scene_of(compiled), "arc", "marks"))
    assert spans == pytest.approx([2 * np.pi / 4, 2 * np.pi * 3 / 4], abs=1e-12)


# ---------------------------------------------------------------- what an arc cannot draw


@pytest.mark.parametrize(("text", "expected"), [
    (ROWS + "mark: arc\nencoding:\n  y: size\n  theta: size\n",
     (msg.arc_position_channel("y"), msg.arc_position_channel_hint(), "E555", ("encoding", "y"), (5, 3))),
    (ROWS + "mark: arc\nencoding:\n  theta: {type: quantitative, stack: true}\n",
     (msg.polar_channel_without_value("theta"), msg.polar_channel_without_value_hint("theta"), "E556",
      ("encoding", "theta"), (5, 3))),
    (ROWS + "mark: {type: arc, innerRadius: 20}\nencoding:\n  color: label\n",
     (msg.arc_without_theta(), msg.arc_without_theta_hint(), "E557", ("mark",), (3, 7))),
    (ROWS + "mark: point\nencoding:\n  x: label\n  radius: size\n",
     (msg.polar_channel_not_for("radius", "point"), msg.polar_channel_not_for_hint(), "E558",
      ("encoding", "radius"), (6, 3))),
], ids=["E555", "E556", "E557", "E558"])
def test_what_an_arc_cannot_draw_is_refused_at_its_place_by_validate_and_compile(tmp_path, text, expected):
    spec = write(tmp_path, text)
    with pytest.raises(SpecError) as raised:
        compile_spec(spec)
    for problems in (raised.value.errors, validate_spec(spec)):
        assert [(p.message, p.hint, *where(p)) for p in problems] == [expected]


def test_a_channel_shared_by_two_layers_is_refused_once_and_text_takes_theta(tmp_path):
    spec = write(tmp_path, ROWS + textwrap.dedent("""\
        encoding:
          x: label
          theta: {field: size, type: quantitative}
        layers:
          - mark: arc
          - mark: {type: text, radius: 90}
            encoding:
              text: label
        """))
    assert [(p.message, *where(p)) for p in validate_spec(spec)] == [
        (msg.arc_position_channel("x"), "E555", ("encoding", "x"), (4, 3))]
