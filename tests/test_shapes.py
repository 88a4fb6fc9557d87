"""Marker shapes: names, aliases, path geometry and the area Vega renders."""

from __future__ import annotations

import math
import re
import struct
import zlib

import pytest
import vl_convert as vlc

from chartc.errors import SpecError, did_you_mean, known_shapes, unknown_shape
from chartc.infra.shapes import (
    EXTRA_SHAPE_PATHS,
    LINE_GLYPHS,
    LINE_SHAPE_PATHS,
    SHAPE_ALIASES,
    SHAPE_NAMES,
    registered_shapes,
    resolve_shape,
    shape_choices,
)

# Vega scales a custom path by sqrt(size)/2 px per unit and draws its circle
# with radius sqrt(size)/2 px (measured: size 400 gives "M10,0A10,10,..." and
# the path "M-1,-1L1,-1..." becomes "M-10,-10L10,-10..."). So in path units
# the circle is the unit disk and its area is pi.
CIRCLE_PATH_AREA = math.pi

# The -1..1 box Vega suggests cannot hold these: every polygon inside the
# unit disk has area below pi, and the largest triangle in the box has area 2.
# Equal area wins; this bounds how far a spike may reach (thin diamond 1.618).
MAX_EXTENT = 1.65

# Shapes compared by filled area: all but the line/direction glyphs and the line markers.
AREA_SHAPES = [name for name in SHAPE_NAMES if name not in LINE_GLYPHS and name not in LINE_SHAPE_PATHS]


def area_ratio(name: str) -> float:
    """The area a shape is registered to cover, over the circle's (1 but for matplotlib's smaller point)."""
    return registered_shapes()[name].area

# Vega's own symbols, for the record of why they are replaced: filled area
# relative to the circle, from their drawn geometry (see the module docstring).
VEGA_BUILTIN_RATIO = {
    "square": 4 / math.pi,
    "cross": 2.56 / math.pi,
    "diamond": 2 / math.pi,
    "triangle-up": math.sqrt(3) / math.pi,
}

SIZE = 400
CELL = 50  # px per shape; the longest spike is 1.62 * 10 px from the centre

NUMBER = r"-?\d+(?:\.\d{1,4})?"
VERTEX = rf"({NUMBER}),({NUMBER})"
PATH = re.compile(rf"M{VERTEX}(?:L{VERTEX})+Z")


def vertices(path: str) -> list[tuple[float, float]]:
    assert PATH.fullmatch(path), path
    return [(float(x), float(y)) for x, y in re.findall(VERTEX, path)]


def shoelace(points: list[tuple[float, float]]) -> float:
    pairs = zip(points, points[1:] + points[:1])
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in pairs)) / 2


# ---------------------------------------------------------------- PNG

def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def decode_png(data: bytes) -> tuple[int, int, int, list[bytearray]]:
    """8-bit, non-interlaced PNG -> (width, height, channels, rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and interlace == 0, header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = row[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            row[i] = (row[i] + (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]) & 0xFF
        rows.append(row)
        prev = row
    return width, height, channels, rows


def render_row(shapes: dict[str, str]) -> bytes:
    """One filled point per shape, each centred in its own CELL x CELL square."""
    width = CELL * len(shapes)
    values = [{"name": name, "shape": value, "px": CELL * i + CELL / 2}
              for i, (name, value) in enumerate(shapes.items())]
    spec = {
        "width": width, "height": CELL, "padding": 0, "autosize": "none",
        "background": "transparent", "config": {"view": {"stroke": None}},
        "data": {"values": values},
        "mark": {"type": "point", "filled": True, "size": SIZE, "opacity": 1,
                 "color": "black"},
        "encoding": {
            "x": {"field": "px", "type": "quantitative", "axis": None,
                  "scale": {"domain": [0, width], "nice": False, "zero": False}},
            "y": {"value": CELL / 2},
            "shape": {"field": "shape", "type": "nominal", "scale": None},
        },
    }
    return vlc.vegalite_to_png(spec, scale=1)


@pytest.fixture(scope="module")
def rendered_area() -> dict[str, float]:
    """Covered pixels (alpha-weighted, so edges count fractionally) per shape."""
    shapes = {name: resolve_shape(name) for name in AREA_SHAPES}
    shapes.update({f"vega:{name}": name for name in VEGA_BUILTIN_RATIO})
    width, height, channels, rows = decode_png(render_row(shapes))
    assert (width, height, channels) == (CELL * len(shapes), CELL, 4)
    area = {}
    for i, name in enumerate(shapes):
        cells = (row[4 * CELL * i + 3:4 * CELL * (i + 1):4] for row in rows)
        area[name] = sum(sum(alphas) for alphas in cells) / 255
    return area


# ---------------------------------------------------------------- names

def test_aliases_resolve_to_their_canonical_shape():
    for alias, name in SHAPE_ALIASES.items():
        assert name in SHAPE_NAMES
        assert resolve_shape(alias) == resolve_shape(name)
    assert resolve_shape("*") == EXTRA_SHAPE_PATHS["star"]
    assert resolve_shape("D") != resolve_shape("d")


def test_every_name_resolves():
    for name in SHAPE_NAMES:
        assert resolve_shape(name) == EXTRA_SHAPE_PATHS.get(name, LINE_SHAPE_PATHS.get(name, name))
    assert resolve_shape("circle") == "circle"
    assert resolve_shape("wedge") == "wedge"


def test_choices_are_names_then_aliases_without_duplicates():
    choices = shape_choices()
    assert choices[:len(SHAPE_NAMES)] == SHAPE_NAMES
    assert set(choices) == set(SHAPE_NAMES) | set(SHAPE_ALIASES)
    assert len(choices) == len(set(choices))


def test_unknown_shape_has_message_and_did_you_mean():
    with pytest.raises(SpecError) as caught:
        resolve_shape("strar")
    err = caught.value
    assert err.message == unknown_shape("strar") == "unknown marker shape 'strar'"
    assert err.hint == did_you_mean("strar", shape_choices()) == "did you mean 'star'?"
    assert (err.path, err.stage) == ((), "check")


def test_unknown_shape_without_near_miss_lists_shapes():
    with pytest.raises(SpecError) as caught:
        resolve_shape("q")
    assert caught.value.hint == known_shapes(SHAPE_NAMES)


# ---------------------------------------------------------------- geometry

@pytest.mark.parametrize("name", sorted(EXTRA_SHAPE_PATHS))
def test_path_parses_and_stays_near_the_box(name):
    points = vertices(EXTRA_SHAPE_PATHS[name])
    assert max(max(abs(x), abs(y)) for x, y in points) <= MAX_EXTENT
    assert not re.search(r"-0(?![.\d])", EXTRA_SHAPE_PATHS[name])  # no "-0"


@pytest.mark.parametrize("name", sorted(EXTRA_SHAPE_PATHS))
def test_path_area_matches_the_circle(name):
    area = shoelace(vertices(EXTRA_SHAPE_PATHS[name]))
    assert area == pytest.approx(CIRCLE_PATH_AREA * area_ratio(name), rel=0.15)


# ---------------------------------------------------------------- rendering

def test_vega_circle_is_the_inscribed_disk(rendered_area):
    # radius sqrt(size)/2 = 10 px, so pi * 100 px, not `size` px.
    assert rendered_area["circle"] == pytest.approx(math.pi * SIZE / 4, rel=0.02)


@pytest.mark.parametrize("name", AREA_SHAPES)
def test_rendered_area_matches_the_circle(rendered_area, name):
    assert rendered_area[name] == pytest.approx(rendered_area["circle"] * area_ratio(name), rel=0.20)


@pytest.mark.parametrize("name", sorted(VEGA_BUILTIN_RATIO))
def test_vega_builtins_are_off_area(rendered_area, name):
    # Why these names map to paths; fails if Vega changes its symbols.
    ratio = rendered_area[f"vega:{name}"] / rendered_area["circle"]
    assert ratio == pytest.approx(VEGA_BUILTIN_RATIO[name], rel=0.05)
