"""Marker shapes: the names users write and what Vega-Lite draws for them.

Vega-Lite knows a dozen symbol names; papers want more (star, a diagonal x,
pentagon, ...) and people coming from matplotlib write one-letter markers. A
shape that Vega lacks becomes an SVG path, which Vega accepts as a ``shape``.

Equal area. Vega scales a custom path by ``sqrt(size) / 2`` pixels per path
unit, and draws its circle with radius ``sqrt(size) / 2``: in path units the
circle is the unit disk, of area pi. Vega's other built-ins are not
equal-area with it (square 4 = +27%, cross 2.56 = -19%, diamond 2 = -36%,
triangles 1.73 = -45%), so at one `size` a triangle looks half the size of a
circle. Every filled shape here is a polygon scaled to area pi, so at the same
`size` all of them cover the same number of pixels as Vega's circle.

Consequences worth knowing:

* Only the square fits Vega's suggested -1..1 box at area pi: any polygon
  inside the unit disk is smaller, and the largest triangle in the box has
  area 2. So paths reach past it: hexagon 1.10, plus 1.11, star 1.46,
  triangles 1.35 (1.56 for the centroid-centred ``triangle``), thin diamond
  1.62. Vega bounds and lays out legends by the drawn path, so nothing clips.
* ``plus`` and ``x`` are filled thick crosses (Vega's cross proportions), not
  strokes: a stroked line has no fill, so it would ignore ``color`` and its
  area would depend on the stroke width rather than on ``size``.
* ``cross`` draws the same path as ``plus`` (Vega's cross is a plus) so the
  two spellings never differ in size.
* ``stroke``, ``arrow`` and ``wedge`` stay Vega's own: they are line and
  direction glyphs meant to be rotated with ``angle``, and blowing them up to
  a circle's area would destroy what makes them readable. A filled ``stroke``
  draws nothing; it needs ``filled: false``.
"""

from __future__ import annotations

import math

from ..errors import SpecError, did_you_mean, known_shapes, unknown_shape

# Area of Vega's circle in path units: the unit disk (see module docstring).
TARGET_AREA = math.pi

# Decimals kept in path coordinates: sub-pixel even at size 10^6 (1000 px).
PATH_DECIMALS = 4

# Vega's line and direction glyphs, passed through unscaled (see above).
LINE_GLYPHS: tuple[str, ...] = ("stroke", "arrow", "wedge")

# Arm half-width over arm length of a thick cross, as in Vega's own cross.
CROSS_ARM_RATIO = 0.4

# Inner over outer radius of the star; the regular pentagram's 0.382 reads as
# a thin asterisk at small sizes, so the star is a little fuller.
STAR_INNER_RATIO = 0.5

# matplotlib's thin diamond ("d") is 0.6 times as wide as it is high.
THIN_DIAMOND_WIDTH = 0.6

Point = tuple[float, float]


# ---------------------------------------------------------------- geometry
# Outlines at any size, in SVG orientation (y grows downwards), centred where
# the data point should sit; `_equal_area` scales them afterwards.

def _regular(corners: int, radius: float = 1.0, start: float = -90.0,
             inner: float | None = None) -> list[Point]:
    """A regular polygon (or star, given an inner radius), first corner at `start` degrees."""
    radii = [radius] if inner is None else [radius, inner]
    steps = corners * len(radii)
    return [
        (radii[i % len(radii)] * math.cos(math.radians(start + 360.0 * i / steps)),
         radii[i % len(radii)] * math.sin(math.radians(start + 360.0 * i / steps)))
        for i in range(steps)
    ]


def _rotate(points: list[Point], degrees: float) -> list[Point]:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return [(x * c - y * s, x * s + y * c) for x, y in points]


def _plus() -> list[Point]:
    w = CROSS_ARM_RATIO
    return [(-1, -w), (-w, -w), (-w, -1), (w, -1), (w, -w), (1, -w),
            (1, w), (w, w), (w, 1), (-w, 1), (-w, w), (-1, w)]


def _triangle_up() -> list[Point]:
    # Equilateral, centred on its bounding box like Vega's and matplotlib's.
    h = math.sqrt(3) / 2
    return [(0, -h), (1, h), (-1, h)]


def _triangle_centroid() -> list[Point]:
    # Vega's "triangle" turns about its centroid, for use with `angle`.
    return _regular(3)


def _area(points: list[Point]) -> float:
    """Shoelace area of a simple polygon."""
    pairs = zip(points, points[1:] + points[:1])
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in pairs)) / 2


def _equal_area(points: list[Point]) -> list[Point]:
    k = math.sqrt(TARGET_AREA / _area(points))
    return [(x * k, y * k) for x, y in points]


def _number(value: float) -> str:
    text = f"{value:.{PATH_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _path(points: list[Point]) -> str:
    """A closed SVG path, ``M x,y L x,y ... Z``, with short numbers."""
    coords = [f"{_number(x)},{_number(y)}" for x, y in points]
    return "M" + "L".join(coords) + "Z"


_OUTLINES = {
    "square": lambda: [(-1, -1), (1, -1), (1, 1), (-1, 1)],
    "diamond": lambda: [(0, -1), (1, 0), (0, 1), (-1, 0)],
    "thin-diamond": lambda: [(0, -1), (THIN_DIAMOND_WIDTH, 0), (0, 1), (-THIN_DIAMOND_WIDTH, 0)],
    "triangle-up": _triangle_up,
    "triangle-right": lambda: _rotate(_triangle_up(), 90),
    "triangle-down": lambda: _rotate(_triangle_up(), 180),
    "triangle-left": lambda: _rotate(_triangle_up(), 270),
    "triangle": _triangle_centroid,
    "cross": _plus,
    "plus": _plus,
    "x": lambda: _rotate(_plus(), 45),
    "star": lambda: _regular(5, inner=STAR_INNER_RATIO),
    "pentagon": lambda: _regular(5),
    "hexagon": lambda: _regular(6),
}

# ---------------------------------------------------------------- vocabulary

# Every canonical name, in the order a schema or an error hint lists them:
# everyday area markers first, then the line/direction glyphs.
SHAPE_NAMES: tuple[str, ...] = (
    "circle", "square", "diamond", "thin-diamond",
    "triangle-up", "triangle-down", "triangle-left", "triangle-right", "triangle",
    "plus", "cross", "x", "star", "pentagon", "hexagon",
    "stroke", "arrow", "wedge",
)

# matplotlib's one-letter markers.
SHAPE_ALIASES: dict[str, str] = {
    "o": "circle",
    "s": "square",
    "^": "triangle-up",
    "v": "triangle-down",
    "<": "triangle-left",
    ">": "triangle-right",
    "D": "diamond",
    "d": "thin-diamond",
    "*": "star",
    "x": "x",
    "+": "plus",
    "p": "pentagon",
    "h": "hexagon",
    "H": "hexagon",
}

# Canonical name -> equal-area SVG path, for every shape not drawn by Vega's
# own symbol of that name (including the built-ins Vega draws off-area).
EXTRA_SHAPE_PATHS: dict[str, str] = {
    name: _path(_equal_area(outline())) for name, outline in _OUTLINES.items()
}

# Canonical name -> the value Vega-Lite's `shape` takes.
SHAPE_VALUES: dict[str, str] = {
    name: EXTRA_SHAPE_PATHS.get(name, name) for name in SHAPE_NAMES
}


def shape_choices() -> tuple[str, ...]:
    """Every spelling `resolve_shape` accepts: canonical names, then aliases.

    Returns:
        The names in `SHAPE_NAMES` order followed by the matplotlib letters,
        without duplicates (``x`` is both).
    """
    return tuple(dict.fromkeys(SHAPE_NAMES + tuple(SHAPE_ALIASES)))


def resolve_shape(name: str) -> str:
    """Translate a marker name or matplotlib letter to Vega-Lite's `shape`.

    Args:
        name: A canonical name (``"star"``) or an alias (``"*"``); case matters,
            since ``"D"`` and ``"d"`` are different diamonds.

    Returns:
        A Vega built-in symbol name or an SVG path string in path units, scaled
        so the shape covers the same area as Vega's circle at the same `size`.

    Raises:
        SpecError: The name is neither a canonical shape nor an alias (stage
            ``check``, with a did-you-mean hint or the list of shapes).
    """
    canonical = SHAPE_ALIASES.get(name, name) if isinstance(name, str) else None
    if canonical in SHAPE_VALUES:
        return SHAPE_VALUES[canonical]
    hint = did_you_mean(name, shape_choices()) or known_shapes(SHAPE_NAMES)
    raise SpecError(unknown_shape(name), (), stage="check", hint=hint)
