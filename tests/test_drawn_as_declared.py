"""What is drawn is what was declared: facet wrap, per-group trend colours, pow10 labels.

Each of these once compiled with exit 0 to a chart other than the one the
spec declared (6 panels in one row, every group's trend line gray, a blank
axis); the tests look at what Vega draws (its scenegraph), not only at the
Vega-Lite chartc emits.
"""

from __future__ import annotations

import textwrap

import pytest

from chartc.pipeline import compile_spec

# Three groups with their own slopes.
THREE = "data:\n  values:\n" + "".join(f"    - {{x: {i}, y: {(k + 1) * i + (i % 2) / 10}, g: {g}}}\n"
                                       for k, g in enumerate("pqr") for i in range(6))


def compile_text(tmp_path, text: str):
    path = tmp_path / "chart.yaml"
    path.write_text(textwrap.dedent(text))
    return compile_spec(path)


def marks(scenegraph, marktype: str, role: str | None = None) -> list[dict]:
    """Every mark node of a type (and role) in the scenegraph, in drawing order."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("marktype") == marktype and (role is None or node.get("role") == role):
                found.append(node)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(scenegraph)
    return found


@pytest.fixture(scope="module")
def scene():
    return pytest.importorskip("vl_convert").vegalite_to_scenegraph


# ---------------------------------------------------------------- trend.by colours

TREND_BY = THREE + """\
layers:
  - mark: point
    encoding: {x: x, y: y}
  - trend: {method: linear, by: g LABEL}
    encoding: {x: x, y: y}
"""


@pytest.mark.parametrize("label", [None, "{group}"])
def test_trend_lines_by_group_are_drawn_in_distinct_colours_their_legend_shows(tmp_path, scene, label):
    text = TREND_BY.replace(" LABEL", f", label: '{label}'" if label else "")
    graph = scene(compile_text(tmp_path, text).vega_lite)
    lines = marks(graph, "line", "mark")
    strokes = [node["items"][0]["stroke"] for node in lines]
    assert len(lines) == 3 and len(set(strokes)) == 3  # one line per group, each its own colour
    assert all(len({item["stroke"] for item in node["items"]}) == 1 for node in lines)
    assert "gray" not in strokes
    symbols = [node["items"][0] for node in marks(graph, "symbol", "legend-symbol")]
    labels = [node["items"][0]["text"] for node in marks(graph, "text", "legend-label")]
    assert labels == ["p", "q", "r"]
    swatches = [symbol["stroke"] for symbol in symbols]
    assert swatches == strokes  # the legend entry of each group in its line's colour, in group order


def test_one_overall_trend_line_stays_gray(tmp_path, scene):
    text = TREND_BY.replace(", by: g LABEL", ", label: Fit")
    graph = scene(compile_text(tmp_path, text).vega_lite)
    assert [node["items"][0]["stroke"] for node in marks(graph, "line", "mark")] == ["gray"]
