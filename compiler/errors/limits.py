"""Messages of the limits stage (stages/limits.py): charts too large for the renderer.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import code


@code("E501")
def too_many_marks(count: int, limit: int, layers: int) -> str:
    """Too many marks to render.

    The chart would draw more marks than the renderer can handle (it runs out of memory). A scatter
    of that many rows is a blot anyway. The options: draw the scatter as its density
    (`mark: {type: point, density: true}`: the engine counts every point in cells of 4 × 4 pixels,
    exactly, and the chart holds one rect per cell whatever the rows; `density: {cell: 1}` per pixel,
    `{scale: log}` for sparse tails); draw a sample (`data: {path: ..., sample: N}`: the checks and
    the fits still see every row); bin x and y yourself (`mark: rect`, `bin` on x and on y, `color:
    {aggregate: count}`); or aggregate or filter the rows first.
    """
    where = "" if layers <= 1 else f" over {layers} layers"
    return f"the chart would draw {count:,} marks{where}, over the limit of {limit:,}"


def too_many_marks_hint() -> str:
    return ("draw the points as their density (`mark: {type: point, density: true}`: every point counted per "
            "cell, one mark per cell), or a sample (`data: {..., sample: 20000}`), or aggregate or filter the rows "
            "first: the renderer runs out of memory and aborts near 10⁶ marks")


def too_many_cells_hint() -> str:
    return ("draw larger cells (`density: {cell: 4}` is 4 × 4 pixels) or fewer (`density: {bins: [200, 100]}`): "
            "a density draws one mark per non-empty cell")


@code("E502")
def too_many_panels(panels: int, limit: int) -> str:
    """Too many facet panels.

    A facet makes one panel per value of its field; past the limit the chart cannot be drawn in a
    reasonable size or time. Facet by a field with fewer values, or filter first.
    """
    return f"the facet makes {panels:,} panels, over the limit of {limit:,}"


def too_many_panels_hint() -> str:
    return "facet by a field with fewer distinct values, or filter the rows first"
