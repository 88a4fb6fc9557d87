"""Marker shapes wherever a shape is written, and matplotlib's whole letter set, checked on what Vega draws."""

from __future__ import annotations

import math
import re
import textwrap

import pytest
import vl_convert as vlc

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.infra.shapes import LINE_SHAPE_PATHS, registered_shapes, resolve_shape, shape_choices
from chartc.pipeline import compile_spec, validate_spec

# matplotlib's marker letters (matplotlib.markers.MarkerStyle.markers, the one-character ones but ",").
MATPLOTLIB_LETTERS = (".", "o", "v", "^", "<", ">", "1", "2", "3", "4", "8", "s", "p", "P", "*",
                      "h", "H", "+", "x", "X", "D", "d", "|", "_")
# The ones matplotlib draws as lines (its `filled_markers` lack them).
LINE_LETTERS = ("1", "2", "3", "4", "+", "x", "|", "_")

ROWS = """\
data:
  values:
    - {x: 1, y: 1, k: a}
    - {x: 2, y: 3, k: b}
    - {x: 3, y: 2, k: c}
"""

NUMBER = r"-?\d+(?:\.\d+)?"


def compile_text(tmp_path, body: str):
    path = tmp_path / "chart.yaml"
    path.write_text(ROWS + textwrap.dedent(body), encoding="utf-8")
    return compile_spec(path)


def symbols(vega_lite: dict) -> list[dict]:
    """The symbol items Vega draws for the data (legend symbols excluded), from its scenegraph."""
    found = []

    def walk(node, in_legend=False):
        if isinstance(node, dict):
            in_legend = in_legend or "legend" in str(node.get("role", ""))
            if node.get("marktype") == "symbol" and node.get("role") == "mark" and not in_legend:
                found.extend(node["items"])
            for child in node.values():
                walk(child, in_legend)
        elif isinstance(node, list):
            for child in node:
                walk(child, in_legend)

    walk(vlc.vegalite_to_scenegraph(vega_lite))
    return found


def segments(path: str) -> list[list[tuple[float, float]]]:
    """An open path's strokes as point lists."""
    return [[(float(x), float(y)) for x, y in re.findall(rf"({NUMBER}),({NUMBER})", part)]
            for part in path.split("M")[1:]]


# ---------------------------------------------------------------- the letter set

def test_every_matplotlib_letter_resolves_to_a_distinct_shape():
    values = {letter: resolve_shape(letter) for letter in MATPLOTLIB_LETTERS}
    assert len(set(values.values())) == len(MATPLOTLIB_LETTERS)
    assert set(MATPLOTLIB_LETTERS) <= set(shape_choices())


def test_h_and_big_h_are_hexagons_turned_by_thirty_degrees():
    def corners(letter):
        return [(float(x), float(y)) for x, y in re.findall(rf"({NUMBER}),({NUMBER})", resolve_shape(letter))]

    small, big = corners("h"), corners("H")
    assert len(small) == len(big) == 6
    angle = {letter: min(math.degrees(math.atan2(y, x)) % 60 for x, y in pts)
             for letter, pts in (("h", small), ("H", big))}
    assert angle["h"] == pytest.approx(30, abs=0.01)   # a corner straight up (-90 deg)
    assert angle["H"] == pytest.approx(0, abs=0.01)    # a corner to the right: flat top


def test_big_p_is_the_filled_plus_not_a_near_miss_of_p():
    assert resolve_shape("P") == resolve_shape("plus-filled") != resolve_shape("p")
    assert resolve_shape("X") == resolve_shape("x-filled") != resolve_shape("x")


@pytest.mark.parametrize("letter", LINE_LETTERS)
def test_line_letters_are_open_strokes_as_matplotlib_sizes_them(letter):
    path = resolve_shape(letter)
    assert "Z" not in path and path in LINE_SHAPE_PATHS.values()
    ends = [point for stroke in segments(path) for point in stroke]
    # matplotlib draws its line markers in the box of the circle's diameter (-1..1 in path units) and reaches its edge
    assert max(max(abs(x), abs(y)) for x, y in ends) == pytest.approx(1, abs=1e-3)
    # a plus, a line or a spoke ends on the circle; only the x reaches the corners
    reach = {round(math.hypot(x, y), 3) for x, y in ends} - {0}
    assert reach == ({round(math.sqrt(2), 3)} if letter == "x" else {1})
    assert not registered_shapes()[resolve_name(letter)].filled


def resolve_name(letter: str) -> str:
    return next(name for name, shape in registered_shapes().items() if letter in (name, *shape.aliases))


def test_filled_letters_stay_filled():
    for letter in set(MATPLOTLIB_LETTERS) - set(LINE_LETTERS):
        assert registered_shapes()[resolve_name(letter)].filled, letter


# ---------------------------------------------------------------- wherever a shape is written

PLACES = {
    "mark": "mark: {{type: point, shape: '{s}', size: 100}}\nencoding: {{x: x, y: y}}\n",
    "layer mark": "encoding: {{x: x, y: y}}\nlayers:\n  - mark: {{type: point, shape: '{s}'}}\n",
    "channel value": "mark: point\nencoding: {{x: x, y: y, shape: {{value: '{s}'}}}}\n",
    "channel range": ("mark: point\nencoding:\n  x: x\n  y: y\n"
                      "  shape: {{field: k, scale: {{domain: [a, b, c], range: ['{s}', '{s}', '{s}']}}}}\n"),
    "markers": ("mark: point\nencoding: {{x: x, y: y}}\n"
                "markers: {{field: k, styles: {{a: {{shape: '{s}'}}}}, default: {{shape: '{s}'}}}}\n"),
}


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("shape", ["x", "star", "^", "D", "P", "1"])
def test_a_written_shape_draws_the_registry_path(tmp_path, place, shape):
    compiled = compile_text(tmp_path, PLACES[place].format(s=shape))
    drawn = symbols(compiled.vega_lite)
    assert len(drawn) == 3
    assert {item["shape"] for item in drawn} == {resolve_shape(shape)}


@pytest.mark.parametrize("place", ["mark", "layer mark", "channel value", "markers"])
def test_a_line_marker_is_drawn_by_its_stroke_with_no_fill(tmp_path, place):
    compiled = compile_text(tmp_path, PLACES[place].format(s="x"))
    for item in symbols(compiled.vega_lite):
        assert item.get("fill") in (None, "transparent") and item.get("stroke") not in (None, "transparent")
    svg = vlc.vegalite_to_svg(compiled.vega_lite)
    marks = re.search(r'<g class="mark-symbol role-mark[^>]*>(.*?)</g>', svg).group(1)
    drawn = re.findall(r"<path[^>]*>", marks)
    # no fill attribute: the SVG's root group has fill="none"
    assert len(drawn) == 3 and not any("fill=" in tag for tag in drawn) and all("stroke=" in tag for tag in drawn)


def test_an_explicit_fill_on_a_line_marker_is_kept(tmp_path):
    compiled = compile_text(tmp_path, PLACES["mark"].format(s="x").replace("size: 100", "size: 100, filled: true"))
    assert compiled.vega_lite["mark"]["filled"] is True


@pytest.mark.parametrize("place", ["mark", "layer mark", "channel value", "channel range"])
def test_an_unknown_shape_is_a_positioned_error_with_did_you_mean(tmp_path, place):
    path = tmp_path / "chart.yaml"
    path.write_text(ROWS + PLACES[place].format(s="strar"), encoding="utf-8")
    problems = validate_spec(path)
    assert {p.message for p in problems} == {msg.unknown_shape("strar")}  # a range: one per item
    assert problems[0].hint == msg.did_you_mean("strar", shape_choices()) == "did you mean 'star'?"
    assert problems[0].location is not None
    with pytest.raises(SpecError) as raised:
        compile_spec(path)
    assert raised.value.message == msg.unknown_shape("strar")
