"""Messages of the limits stage (stages/limits.py): charts too large for the renderer.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import code


@code("E501")
def too_many_marks(count: int, limit: int, layers: int) -> str:
    """Too many marks to render.

    The chart would draw more marks than the renderer can handle (it runs out of memory). Aggregate,
    bin, sample (`data: {path: ..., sample: N}`) or filter the rows first.
    """
    where = "" if layers <= 1 else f" over {layers} layers"
    return f"the chart would draw {count:,} marks{where}, over the limit of {limit:,}"


def too_many_marks_hint() -> str:
    return ("aggregate, bin or sample the data, or filter it, before charting it: the renderer runs out of "
            "memory and aborts near 10⁶ marks")


@code("E502")
def too_many_panels(panels: int, limit: int) -> str:
    """Too many facet panels.

    A facet makes one panel per value of its field; past the limit the chart cannot be drawn in a
    reasonable size or time. Facet by a field with fewer values, or filter first.
    """
    return f"the facet makes {panels:,} panels, over the limit of {limit:,}"


def too_many_panels_hint() -> str:
    return "facet by a field with fewer distinct values, or filter the rows first"
