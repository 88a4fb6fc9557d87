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
    of that many rows is a blot anyway. The options: draw a sample (`data: {path: ..., sample: N}`:
    the checks and the fits still see every row); draw the density instead, binning x and y
    (`mark: rect`, `x: {field: ..., bin: {maxbins: 100}}`, the same for y, `color: {aggregate:
    count}`: the engine counts the cells, the chart holds one mark per cell whatever the rows); or
    aggregate or filter the rows first.
    """
    where = "" if layers <= 1 else f" over {layers} layers"
    return f"the chart would draw {count:,} marks{where}, over the limit of {limit:,}"


def too_many_marks_hint() -> str:
    return ("draw a sample (`data: {..., sample: 20000}`), or the density: `mark: rect` with `bin` on x and on y "
            "and `color: {aggregate: count}` (one mark per cell, counted by the engine), or aggregate or filter "
            "the rows first: the renderer runs out of memory and aborts near 10⁶ marks")


@code("E502")
def too_many_panels(panels: int, limit: int) -> str:
    """Too many facet panels.

    A facet makes one panel per value of its field; past the limit the chart cannot be drawn in a
    reasonable size or time. Facet by a field with fewer values, or filter first.
    """
    return f"the facet makes {panels:,} panels, over the limit of {limit:,}"


def too_many_panels_hint() -> str:
    return "facet by a field with fewer distinct values, or filter the rows first"
