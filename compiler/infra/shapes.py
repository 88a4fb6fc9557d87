"""Marker shapes: the names users write and what Vega-Lite draws for them, as a registry.

Every shape is a `Shape` added by `register_shape`: the built-in vocabulary
below is declared that way, and a user's shape is one more call. The
validate stage, the marker check and the legend all ask `resolve_shape`,
and the schema's shape vocabulary is written from the registry
(`shape_schema`).

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
* matplotlib's line markers (``x``, ``plus``, ``vline``, ``hline`` and the
  ``tri-*`` spokes: letters ``x + | _ 1 2 3 4``) are strokes, as there: thin
  lines stay apart at small sizes where two fat crosses look alike. A line has
  no area, so these are sized as matplotlib sizes them, in the -1..1 box of
  the circle's diameter: the plus, the lines and the spokes end on the
  circle's edge, the ``x`` on the box's corners. They are drawn with no fill
  (``Shape.filled`` False:
  the mark, the legend and `markers` give them ``filled: false``), so their
  ``color`` is their stroke.
* ``x-filled`` and ``plus-filled`` (``X``, ``P``) are the filled thick crosses
  (Vega's cross proportions), area-normalised like every filled shape;
  ``cross`` draws the same path as ``plus-filled`` (Vega's cross is a filled
  plus) so the two spellings never differ in size.
* ``point`` (``.``) is the one filled shape not at the circle's area: it is
  matplotlib's point, the circle at half the diameter (a quarter of the area).
* ``stroke``, ``arrow`` and ``wedge`` stay Vega's own: they are line and
  direction glyphs meant to be rotated with ``angle``, and blowing them up to
  a circle's area would destroy what makes them readable. A filled ``stroke``
  draws nothing; it needs ``filled: false``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

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

# matplotlib's point (".") is the circle at half the diameter: its area over the circle's.
POINT_AREA_RATIO = 0.25

# Corners of the polygon that draws the point: round at the few pixels it covers.
POINT_CORNERS = 24

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


def _spokes(angles: tuple[float, ...]) -> list[list[Point]]:
    """Lines from the centre to the circle's edge, at `angles` degrees (0 = up, clockwise)."""
    return [[(0.0, 0.0), (math.sin(math.radians(a)), -math.cos(math.radians(a)))] for a in angles]


def _through(angles: tuple[float, ...]) -> list[list[Point]]:
    """Diameters of the unit circle, at `angles` degrees (0 = vertical, clockwise)."""
    return [[(-math.sin(math.radians(a)), math.cos(math.radians(a))),
             (math.sin(math.radians(a)), -math.cos(math.radians(a)))] for a in angles]


def _lines(strokes: list[list[Point]]) -> str:
    """An open SVG path, one ``M x,y L x,y`` per stroke."""
    return "".join("M" + "L".join(f"{_number(x)},{_number(y)}" for x, y in stroke) for stroke in strokes)


def _square() -> list[Point]:
    return [(-1, -1), (1, -1), (1, 1), (-1, 1)]


def _diamond(width: float = 1.0) -> list[Point]:
    return [(0, -1), (width, 0), (0, 1), (-width, 0)]


# ---------------------------------------------------------------- registry

@dataclass(frozen=True, slots=True)
class Shape:
    """A marker shape: the names users write and what Vega draws.

    Exactly one of ``outline``, ``strokes`` and ``symbol``: an outline is a
    polygon (`Point`s in SVG orientation, centred on the data point) that
    becomes an SVG path scaled to ``area`` times the area of Vega's circle, so
    every such shape covers the same pixels at the same `size`; strokes are
    open lines in path units, drawn as written (a line marker, sized by its
    reach); a symbol is one of Vega's own, drawn as Vega draws it.
    ``filled`` is False for a glyph that is only a line (it needs
    ``filled: false`` to show); shapes given by strokes always are.
    """

    name: str
    aliases: tuple[str, ...] = ()
    outline: Callable[[], list[Point]] | None = None
    symbol: str | None = None
    filled: bool = True
    strokes: Callable[[], list[list[Point]]] | None = None
    area: float = 1.0

    def value(self) -> str:
        """What Vega-Lite's ``shape`` takes: the symbol's name, the equal-area SVG path, or the strokes' path."""
        if self.strokes is not None:
            return _lines(self.strokes())
        if self.outline is None:
            return self.symbol
        k = math.sqrt(self.area)
        return _path([(x * k, y * k) for x, y in _equal_area(self.outline())])


@dataclass
class _Registry:
    shapes: dict[str, Shape] = field(default_factory=dict)     # name -> shape, in registration order
    values: dict[str, str] = field(default_factory=dict)       # name -> Vega-Lite `shape` value
    version: int = 0                                           # bumped by every change


_REGISTRY = _Registry()


def register_shape(shape: Shape) -> Shape:
    """Add a marker shape to the vocabulary (one of the same name is replaced).

    Returns:
        The shape.

    Raises:
        ValueError: not exactly one of an outline, strokes and a symbol,
            filled strokes, or a name or alias that already names another shape.
    """
    if sum(given is not None for given in (shape.outline, shape.strokes, shape.symbol)) != 1:
        raise ValueError(f"shape {shape.name!r}: give an outline, strokes or a Vega symbol")
    if shape.strokes is not None and shape.filled:
        raise ValueError(f"shape {shape.name!r}: strokes have no fill (filled=False)")
    others = {spelling: other.name for other in _REGISTRY.shapes.values() if other.name != shape.name
              for spelling in (other.name, *other.aliases)}
    clash = [spelling for spelling in (shape.name, *shape.aliases) if spelling in others]
    if clash:
        raise ValueError(f"shape {shape.name!r}: {clash[0]!r} already names {others[clash[0]]!r}")
    _REGISTRY.shapes[shape.name] = shape
    _REGISTRY.values[shape.name] = shape.value()
    _REGISTRY.version += 1
    return shape


def registered_shapes() -> dict[str, Shape]:
    """Name -> shape, in registration order (a copy: hand it to `restore_shapes` to undo later changes)."""
    return dict(_REGISTRY.shapes)


def restore_shapes(saved: dict[str, Shape]) -> None:
    """Register exactly the shapes of an earlier `registered_shapes` again."""
    _REGISTRY.shapes.clear()
    _REGISTRY.values.clear()
    for shape in saved.values():
        register_shape(shape)


def shapes_version() -> int:
    """A number that changes whenever the vocabulary does."""
    return _REGISTRY.version


def _aliases() -> dict[str, str]:
    return {alias: shape.name for shape in _REGISTRY.shapes.values() for alias in shape.aliases}


# ---------------------------------------------------------------- vocabulary
# The built-in shapes, declared as a user's own would be. Their order is the
# order a schema or an error hint lists them: everyday area markers first,
# then Vega's line and direction glyphs. Aliases are matplotlib's letters.

register_shape(Shape("circle", ("o",), symbol="circle"))
register_shape(Shape("point", (".",), outline=lambda: _regular(POINT_CORNERS), area=POINT_AREA_RATIO))
register_shape(Shape("square", ("s",), outline=_square))
register_shape(Shape("diamond", ("D",), outline=_diamond))
register_shape(Shape("thin-diamond", ("d",), outline=lambda: _diamond(THIN_DIAMOND_WIDTH)))
register_shape(Shape("triangle-up", ("^",), outline=_triangle_up))
register_shape(Shape("triangle-down", ("v",), outline=lambda: _rotate(_triangle_up(), 180)))
register_shape(Shape("triangle-left", ("<",), outline=lambda: _rotate(_triangle_up(), 270)))
register_shape(Shape("triangle-right", (">",), outline=lambda: _rotate(_triangle_up(), 90)))
register_shape(Shape("triangle", outline=_triangle_centroid))
register_shape(Shape("plus", ("+",), strokes=lambda: _through((0, 90)), filled=False))
register_shape(Shape("plus-filled", ("P",), outline=_plus))
register_shape(Shape("cross", outline=_plus))
register_shape(Shape("x", ("x",), strokes=lambda: [[(-1, -1), (1, 1)], [(-1, 1), (1, -1)]], filled=False))
register_shape(Shape("x-filled", ("X",), outline=lambda: _rotate(_plus(), 45)))
register_shape(Shape("star", ("*",), outline=lambda: _regular(5, inner=STAR_INNER_RATIO)))
register_shape(Shape("pentagon", ("p",), outline=lambda: _regular(5)))
register_shape(Shape("hexagon", ("h",), outline=lambda: _regular(6)))
register_shape(Shape("hexagon-flat", ("H",), outline=lambda: _regular(6, start=-60)))
register_shape(Shape("octagon", ("8",), outline=lambda: _regular(8, start=-67.5)))
register_shape(Shape("vline", ("|",), strokes=lambda: _through((0,)), filled=False))
register_shape(Shape("hline", ("_",), strokes=lambda: _through((90,)), filled=False))
register_shape(Shape("tri-down", ("1",), strokes=lambda: _spokes((180, 300, 60)), filled=False))
register_shape(Shape("tri-up", ("2",), strokes=lambda: _spokes((0, 120, 240)), filled=False))
register_shape(Shape("tri-left", ("3",), strokes=lambda: _spokes((270, 30, 150)), filled=False))
register_shape(Shape("tri-right", ("4",), strokes=lambda: _spokes((90, 210, 330)), filled=False))
register_shape(Shape("stroke", symbol="stroke", filled=False))
register_shape(Shape("arrow", symbol="arrow"))
register_shape(Shape("wedge", symbol="wedge"))

# The built-in vocabulary as chartc starts (what is registered later is in
# `registered_shapes`, which `resolve_shape` reads): every canonical name,
# matplotlib's letters, the equal-area path of every outline, the open path
# of every line marker, and what Vega-Lite's `shape` takes.
SHAPE_NAMES: tuple[str, ...] = tuple(_REGISTRY.shapes)
SHAPE_ALIASES: dict[str, str] = _aliases()
EXTRA_SHAPE_PATHS: dict[str, str] = {
    shape.name: _REGISTRY.values[shape.name] for shape in _REGISTRY.shapes.values() if shape.outline is not None}
LINE_SHAPE_PATHS: dict[str, str] = {
    shape.name: _REGISTRY.values[shape.name] for shape in _REGISTRY.shapes.values() if shape.strokes is not None}


def shape_choices() -> tuple[str, ...]:
    """Every spelling `resolve_shape` accepts: canonical names, then aliases.

    Returns:
        The registered names in order followed by their aliases (the
        matplotlib letters), without duplicates (``x`` is both).
    """
    return tuple(dict.fromkeys((*_REGISTRY.shapes, *_aliases())))


def shape_filled(name: str) -> bool:
    """Whether a shape is drawn filled by default: False for line markers (`x`, `+`, ...), which only a stroke shows.

    Args:
        name: A name or alias `resolve_shape` accepts.

    Returns:
        The registered shape's ``filled`` (True for a name it does not know:
        `resolve_shape` refuses that one).
    """
    shape = _REGISTRY.shapes.get(_aliases().get(name, name)) if isinstance(name, str) else None
    return True if shape is None else shape.filled


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
    canonical = _aliases().get(name, name) if isinstance(name, str) else None
    if canonical in _REGISTRY.values:
        return _REGISTRY.values[canonical]
    hint = did_you_mean(name, shape_choices()) or known_shapes(_REGISTRY.shapes)
    raise SpecError(unknown_shape(name), (), stage="check", hint=hint)


def shape_schema(base: dict[str, Any]) -> dict[str, Any]:
    """The marker style's ``shape`` property, its description and examples written from the registry.

    Args:
        base: the property as the schema file has it (its type and default are kept).

    Returns:
        The property: every registered name as an example, the aliases in
        the description. Names are checked by `resolve_shape` (in the
        validate stage), not by an enum, so a near miss gets a did-you-mean.
    """
    letters = " ".join(_aliases())
    unscaled = [s.name for s in _REGISTRY.shapes.values() if s.symbol is not None and s.symbol != "circle"]
    smaller = [s.name for s in _REGISTRY.shapes.values() if s.outline is not None and s.area != 1]
    lines = [s.name for s in _REGISTRY.shapes.values() if s.strokes is not None]
    exceptions = [f"Vega's own {', '.join(f'`{n}`' for n in unscaled)}"] if unscaled else []
    exceptions += [f"the smaller {', '.join(f'`{n}`' for n in smaller)}"] if smaller else []
    text = ("Marker shape: one of the registered shapes (see the examples) or a matplotlib letter "
            f"(`{letters}`). Every shape covers the area of a circle of the same `size`"
            + (f", but {' and '.join(exceptions)}" if exceptions else "") + "."
            + (f" The line markers {', '.join(f'`{n}`' for n in lines)} are thin unfilled strokes "
               "as matplotlib draws them." if lines else ""))
    return {**base, "description": text, "markdownDescription": text, "examples": list(_REGISTRY.shapes)}
