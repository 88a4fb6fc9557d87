"""Columns whose names Vega-Lite would read as paths (``eval.loss``, ``a[0]``, the ``y.1`` of a repeated header).

Each chart is drawn (Vega's scenegraph) and compared with the same chart
over plainly named columns: the same marks at the same positions, the
trend's line drawn, its fit numpy's.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.pipeline import compile_spec
from chartc.stages.translate.fields import escape_field, unescape_field

XS = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
YS = [2.9, 5.2, 6.8, 9.1, 11.2, 12.8, 15.3]
GROUPS = ["a", "b", "a", "b", "a", "b", "c"]


def scene(vega_lite: dict) -> dict:
    import vl_convert

    return vl_convert.vegalite_to_scenegraph(vega_lite)


def items(graph, marktype: str, role: str | None = "mark") -> list[list[dict]]:
    """Per mark of this type Vega drew (in this role: a data mark, or any with None), its items."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("marktype") == marktype and role in (None, node.get("role")):
                found.append(node["items"])
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(graph)
    return found


def texts(graph) -> set[str]:
    """Every text Vega drew (axis and legend titles and labels too)."""
    return {item.get("text") for mark in items(graph, "text", role=None) for item in mark}


def points(graph) -> list[tuple[float, float]]:
    (symbols,) = items(graph, "symbol")
    return [(item["x"], item["y"]) for item in symbols]


def write(tmp_path: Path, spec: dict, name: str = "spec.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def scatter(x: str, y: str, group: str, **extra) -> dict:
    rows = [{x: a, y: b, group: g} for a, b, g in zip(XS, YS, GROUPS)]
    return {"data": {"values": rows},
            "encoding": {"x": {"field": x, "type": "quantitative"}, "y": {"field": y, "type": "quantitative"}},
            "layers": [{"mark": "point", "encoding": {"tooltip": [{"field": group}], "detail": {"field": group}}},
                       {"trend": {"method": "linear"}}], **extra}


def test_escape_field_follows_vega_lite_paths():
    assert escape_field("eval.loss") == "eval\\.loss"
    assert escape_field("a[0]") == "a\\[0\\]"
    assert escape_field("a\\b") == "a\\\\b"
    assert escape_field("plain name") == "plain name"
    for name in ("eval.loss", "a[0].b", "a\\.b", "x"):
        assert unescape_field(escape_field(name)) == name


@pytest.mark.slow
@pytest.mark.parametrize(("x", "y", "group"), [("eval.loss", "y.1", "run.id"), ("a[0]", "b[1].c", "g[0]")])
def test_path_like_names_draw_as_plain_columns(tmp_path, x, y, group):
    plain = compile_spec(write(tmp_path, scatter("x", "y", "g"), "plain.json"))
    compiled = compile_spec(write(tmp_path, scatter(x, y, group)))
    graph = scene(compiled.vega_lite)

    drawn = points(graph)
    assert len(drawn) == len(XS)  # one mark per row
    assert drawn == points(scene(plain.vega_lite))  # where the plain columns put them
    # Left to right in x order, higher for a higher y (a finite position for each).
    assert [px for px, _ in drawn] == sorted(px for px, _ in drawn)
    assert [py for _, py in drawn] == sorted((py for _, py in drawn), reverse=True)
    # The trend line is drawn, over the same fit numpy makes.
    lines = items(graph, "line")
    assert lines and len(lines[0]) > 1
    assert [(i["x"], i["y"]) for i in lines[0]] == [(i["x"], i["y"]) for i in items(scene(plain.vega_lite), "line")[0]]
    (line,) = compiled.fits[("layers", 1)]
    slope, intercept = np.polyfit(XS, YS, 1)
    assert dict(line.coefficients)["slope"] == pytest.approx(slope, rel=1e-12)
    assert dict(line.coefficients)["intercept"] == pytest.approx(intercept, rel=1e-12)
    # The axes are titled with the columns' names, not their escapes.
    assert {x, y} <= texts(graph)


@pytest.mark.slow
def test_a_repeated_csv_header_column_is_drawn(tmp_path):
    rows = "\n".join(f"{x},{y + 100},{y}" for x, y in zip(XS, YS))
    (tmp_path / "data.csv").write_text(f"step,y,y\n{rows}\n", encoding="utf-8")
    spec = {"data": {"path": "data.csv"},
            "encoding": {"x": {"field": "step", "type": "quantitative"}, "y": {"field": "y.1", "type": "quantitative"}},
            "layers": [{"mark": "point"}, {"trend": {"method": "linear"}}]}
    compiled = compile_spec(write(tmp_path, spec))
    graph = scene(compiled.vega_lite)

    reference = scatter("step", "y.1", "g")
    reference["layers"][0] = {"mark": "point"}
    assert points(graph) == points(scene(compile_spec(write(tmp_path, reference, "r.json")).vega_lite))
    assert len(points(graph)) == len(XS)
    (line,) = compiled.fits[("layers", 1)]
    assert dict(line.coefficients)["slope"] == pytest.approx(np.polyfit(XS, YS, 1)[0], rel=1e-12)
    assert len(items(graph, "line")[0]) > 1


@pytest.mark.slow
def test_transforms_and_facet_read_path_like_names(tmp_path):
    rows = [{"eval.loss": y, "run[0]": g, "k.x": x} for x, y, g in zip(XS, YS, GROUPS)]
    spec = {"data": {"values": rows},
            "transform": [{"filter": {"field": "eval.loss", "gte": 5}},
                          {"calculate": "datum['eval.loss'] * 2", "as": "twice.loss"},
                          {"aggregate": [{"op": "sum", "field": "twice.loss", "as": "total.loss"}],
                           "groupby": ["run[0]"]}],
            "mark": "bar",
            "encoding": {"x": {"field": "run[0]", "type": "nominal"},
                         "y": {"field": "total.loss", "type": "quantitative"}}}
    graph = scene(compile_spec(write(tmp_path, spec)).vega_lite)
    (bars,) = items(graph, "rect")
    # Rows with eval.loss >= 5 (all but the first), doubled, summed per run: a 2*(6.8+11.2), b 2*(5.2+9.1+12.8), c 2*15.3.
    totals = {"a": 2 * (6.8 + 11.2), "b": 2 * (5.2 + 9.1 + 12.8), "c": 2 * 15.3}
    assert len(bars) == 3
    heights = [bar["height"] for bar in sorted(bars, key=lambda bar: bar["x"])]
    expected = [totals[run] for run in "abc"]  # in the order of the runs' names
    assert [h / heights[-1] for h in heights] == pytest.approx([t / expected[-1] for t in expected], rel=1e-9)

    faceted = {"data": {"values": rows}, "mark": "point", "facet": {"column": {"field": "run[0]"}},
               "transform": [{"fold": ["eval.loss", "k.x"], "as": ["which.key", "the.value"]}],
               "encoding": {"x": {"field": "the.value", "type": "quantitative"},
                            "y": {"field": "which.key", "type": "nominal"}}}
    graph = scene(compile_spec(write(tmp_path, faceted, "facet.json")).vega_lite)
    panels = items(graph, "symbol")
    assert sorted(len(panel) for panel in panels) == sorted(2 * GROUPS.count(g) for g in "abc")
    assert all(item["x"] is not None for panel in panels for item in panel)


def test_a_backslash_in_a_field_name_is_refused_at_its_channel(tmp_path):
    rows = [{"a\\b": x, "y": y} for x, y in zip(XS, YS)]
    path = tmp_path / "spec.yaml"
    path.write_text("data:\n  values: " + json.dumps(rows) + "\nmark: point\nencoding:\n"
                    "  x: {field: 'a\\b', type: quantitative}\n  y: {field: y, type: quantitative}\n", encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        compile_spec(path)
    problem = caught.value.errors[0]
    assert problem.message == msg.field_backslash("a\\b")
    assert problem.path == ("encoding", "x", "field")
    assert (problem.location.line, problem.location.column) == (5, 14)
