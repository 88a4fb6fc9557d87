"""Messages of the scene stage (stages/scene.py): what the renderer drew differs from what the spec declared.

These are warnings (`W7xx`): the chart renders, but wrongly. ``--strict``
(`chartc compile --strict`, `chartc build --strict`) reports them as errors,
code unchanged, and writes nothing for the chart. Each message is a
function; its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations

from .registry import code


@code("W760")
def layer_drew_fewer(drawn: int, rows: int) -> str:
    """A layer drew fewer marks than it has rows.

    The renderer drew fewer marks at a finite position than the rows the layer was given that have
    a value in every encoded field: the rest were dropped, usually because a position field is
    text on a quantitative axis, or is not the column the spec meant. Rows with an empty (null)
    value are left out as Vega-Lite documents, and count only when the layer drew nothing at
    all: a blank layer is a blank chart that still exits 0.
    """
    return f"the renderer drew {drawn:,} of this layer's {rows:,} rows at a finite position"


def layer_drew_fewer_hint() -> str:
    return ("rows with an empty or non-numeric position are not drawn; filter them out "
            "(filter: {field: NAME, valid: true}) or check the field names")


@code("W761")
def trend_over_nothing(layer: str) -> str:
    """A trend drawn over a layer that drew nothing.

    The trend was fitted and drawn, but the data layer it summarises drew no mark: the chart shows
    a fit of points nobody can see.
    """
    return f"this trend is drawn, but the data it is fitted to ({layer}) drew nothing"


def trend_over_nothing_hint() -> str:
    return "check the data layer's transforms and position fields: the fit summarises rows nobody sees"


@code("W762")
def facet_panel_empty(panel: str, panels: int) -> str:
    """An empty facet panel.

    A facet panel has no mark in it: its rows were all filtered out (by a transform that runs after
    the facet splits the data) or not drawn.
    """
    return f"facet panel {panel} (of {panels}) draws nothing"


def facet_panel_empty_hint() -> str:
    return "every row of this panel was filtered out or has no position; filter on the facet field to drop the panel"


@code("W763")
def axis_labels_blank(axis: str, labelled: int, ticks: int) -> str:
    """An axis whose tick labels are blank.

    The axis draws ticks, but fewer than two of them carry a label, so its scale cannot be read
    (a label format or label expression that yields empty text, such as `format: pow10` on a
    linear axis).
    """
    return f"the {axis} axis labels {labelled} of its {ticks} ticks"


def axis_labels_blank_hint() -> str:
    return "check the axis's format and labelExpr; pow10 labels only powers of ten (use it on a log scale)"


@code("W764")
def axis_labels_overlap(axis: str, first: str, second: str) -> str:
    """Axis labels drawn over each other.

    Two tick labels of the axis overlap (their text runs into each other, e.g. '200300'), usually
    because the labels are long or large for the space between ticks.
    """
    return f"the {axis} axis labels {first!r} and {second!r} overlap"


def axis_labels_overlap_hint() -> str:
    return "use fewer ticks (tickCount), a smaller labelFontSize, a shorter format or labelAngle"


@code("W765")
def text_truncated(shown: str) -> str:
    """Text cut short by the renderer.

    A legend label is longer than the space the renderer gives it (Vega's `limit`, the legend's
    `labelLimit`), so it is drawn cut off with an ellipsis.
    """
    return f"the renderer cut this legend label short: it reads {shown!r}"


def text_truncated_hint() -> str:
    return "shorten the text, or raise the limit (legend labelLimit; 0 means no limit)"


@code("W766")
def text_outside_view(text: str, side: str) -> str:
    """Text that leaves the plot.

    An annotation is drawn partly outside the plot area (past its `side` edge), over the axis, the
    legend or off the image.
    """
    return f"{text!r} runs past the {side} edge of the plot"


def text_outside_view_hint() -> str:
    return "shorten the text, or place it in another corner"


@code("W767")
def legend_entries_identical(first: str, second: str) -> str:
    """Two legend entries drawn alike.

    Two categories of one legend are drawn with the same shape, colour, size and dash, so a
    reader cannot tell them apart.
    """
    return f"legend entries {first!r} and {second!r} are drawn identically"


def legend_entries_identical_hint() -> str:
    return "give each category its own colour, shape or dash (a marker map, or a colour channel on the field)"
