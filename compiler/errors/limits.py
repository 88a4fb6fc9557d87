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


# --- arcs (issue 20): a pie is placed by its angle, not by x and y ---

@code("E555")
def arc_position_channel(channel: str) -> str:
    """An x or y channel on an arc mark.

    An arc (a pie or donut slice) is placed by its angle (`theta`) and its distance from the centre
    (`radius`), around the middle of the plot: there is no x or y axis to put it on. Remove the x or y
    channel, or draw the values as bars.

    Example:
        data:
          values: [{label: a, size: 1}, {label: b, size: 2}]
        mark: arc
        encoding:
          x: label
          theta: {field: size, type: quantitative}
          color: label
    """
    return f"an arc mark has no {channel} channel: a slice is placed by its angle (theta) and radius"


def arc_position_channel_hint() -> str:
    return "encode the value as theta, the slice's angle, and the category as color; or draw bars with x and y"


@code("E556")
def polar_channel_without_value(channel: str) -> str:
    """A theta or radius channel with neither a field nor a value.

    `theta` and `radius` draw a field (`theta: {field: size, type: quantitative}`, or `theta: size`)
    or a constant (`radius: {value: 80}`); one with neither would draw every slice alike, from
    nothing. Name the field whose values the slices show.

    Example:
        data:
          values: [{label: a, size: 1}, {label: b, size: 2}]
        mark: arc
        encoding:
          theta: {type: quantitative, stack: true}
          color: label
    """
    return f"{channel} has neither a field nor a value"


def polar_channel_without_value_hint(channel: str) -> str:
    return f"name the field the slices show, e.g. {channel}: {{field: size, type: quantitative}}"


@code("E557")
def arc_without_theta() -> str:
    """An arc mark without a theta channel.

    Every arc would span the whole circle, each drawn over the one before: a pie needs the angle of
    each slice. Encode the quantity each slice shows as `theta` (stacked, the slices fill the circle).

    Example:
        data:
          values: [{label: a, size: 1}, {label: b, size: 2}]
        mark: arc
        encoding:
          color: label
    """
    return "an arc mark needs a theta channel: without it every slice is the whole circle"


def arc_without_theta_hint() -> str:
    return "add theta: {field: FIELD, type: quantitative}, the quantity each slice shows"


@code("E558")
def polar_channel_not_for(channel: str, mark: str) -> str:
    """A theta or radius channel on a mark it does not place.

    `theta` and `radius` place arcs, and text around a pie (its labels); any other mark is placed by x
    and y, and the renderer would ignore the channel silently. Put the channel on an arc or text
    layer, or use x and y.

    Example:
        data:
          values: [{label: a, size: 1}, {label: b, size: 2}]
        mark: bar
        encoding:
          x: label
          y: size
          theta: size
    """
    return f"a {mark} mark is not placed by {channel}: only arc and text marks are"


def polar_channel_not_for_hint() -> str:
    return "draw the layer as mark: arc (or text, for labels around a pie), or remove the channel"
