"""An error bar's or band's ``extent: ci``: each group's mean with its Student t confidence interval.

Vega-Lite's own ``ci`` is a bootstrap drawn at random on every render; chartc
computes the interval once, here, so the same spec draws the same bars:

    mean ± t(0.975, n − 1) · s / √n

with ``s`` the sample standard deviation (n − 1 in the denominator) of the
group's numbers (missing and NaN cells left out, as Vega's aggregate leaves
them), and ``t`` Student's quantile (`trends.tdist.student_t_quantile`). A
group of one number has no interval and draws no bar. The layer then carries
one row per group and its continuous channel becomes the interval's two ends
(``y``/``y2`` or ``x``/``x2``), which Vega-Lite draws as pre-aggregated error
bars, with no ``extent`` of its own.

Groups are every other field the encoding reads (the category on the other
axis, a colour, a detail) and the facet's, in the order they first appear.
A layer whose shape this does not cover (`interval_encoding` returns None) is
refused by the translate stage rather than left to the bootstrap.
"""

from __future__ import annotations

import math

from ...infra.table import NUMBER, Table
from ...ir.nodes import Channel, Chart, Layer
from ...trends.tdist import student_t_quantile
from .encoded import Encoded
from .vega import channel_type

# The interval's confidence level: a 95% interval, the level Vega-Lite's bootstrap `ci` draws.
LEVEL = 0.95
INTERVAL_MARKS = frozenset({"errorbar", "errorband"})
SECONDARY = {"x": "x2", "y": "y2"}


def wants_interval(layer: Layer) -> bool:
    """Whether the layer is an error bar or band whose extent is a confidence interval (`extent: ci`)."""
    return (layer.trend is None and layer.mark is not None and layer.mark.type in INTERVAL_MARKS
            and layer.mark.properties.get("extent") == "ci")


def t_interval(values: list[float], level: float = LEVEL) -> tuple[float, float, float] | None:
    """(mean, lower, upper): the Student t confidence interval of the values' mean; None for fewer than two.

    Args:
        values: the group's numbers (no missing ones).
        level: the confidence level, 0 < level < 1.
    """
    count = len(values)
    if count < 2:
        return None
    mean = math.fsum(values) / count
    deviation = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / (count - 1))
    half = student_t_quantile(0.5 + level / 2, count - 1) * deviation / math.sqrt(count)
    return mean, mean - half, mean + half


def interval_encoding(chart: Chart, layer: Layer, table: Table, types: dict) -> Encoded | None:
    """The layer's groups with their t-intervals, and the channels that draw them as pre-aggregated bars.

    Args:
        chart: the chart (its facet's fields group the rows too).
        layer: an error bar or band with `extent: ci` (`wants_interval`).
        table: the rows the layer draws, its transforms done.
        types: field -> measurement type after the layer's transforms.

    Returns:
        One row per group (its fields, the interval's two ends) and the
        rewritten channels, or None where the encoding is not one measure
        over groups (both or neither position quantitative, a written
        ``x2``/``y2``, an aggregate, a field that is not in the rows).
    """
    channels = dict(layer.encoding.items())
    measured = [name for name in SECONDARY if isinstance(channels.get(name), Channel)
                and channels[name].field is not None
                and channel_type(channels[name].definition(), types) == "quantitative"]
    if len(measured) == 2:  # both continuous: Vega-Lite's default orientation measures along y
        measured = ["x" if layer.mark.properties.get("orient") == "horizontal" else "y"]
    if len(measured) != 1 or any(name in channels for name in SECONDARY.values()):
        return None
    axis = measured[0]
    measure = channels[axis]
    field = measure.field
    if table.kinds.get(field) != NUMBER:
        return None
    groupby: list[str] = []
    for name, value in channels.items():
        for channel in value if isinstance(value, tuple) else (value,):
            if not isinstance(channel, Channel) or name == axis or channel.field is None:
                continue
            props = channel.definition()
            if props.get("aggregate") or props.get("bin") or "timeUnit" in props or "condition" in props:
                return None
            if channel_type(props, types) == "temporal":
                return None  # Vega-Lite groups the Date objects it parsed, not the cells' text
            if channel.field not in groupby:
                groupby.append(channel.field)
    for channel in (chart.facet.channels() if chart.facet is not None else ()):
        if channel.field is not None and channel.field not in groupby:
            groupby.append(channel.field)
    props = measure.definition()
    if props.get("aggregate") or props.get("bin") or "timeUnit" in props or any(g not in table for g in groupby):
        return None
    groups: dict[tuple, list[float]] = {}
    keys = [table[name] for name in groupby]
    for index, value in enumerate(table[field]):
        key = tuple(column[index] for column in keys)
        numbers = groups.setdefault(key, [])
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            numbers.append(float(value))
    lower, upper = f"Lower of {field}", f"Upper of {field}"
    if lower in groupby or upper in groupby:
        return None
    rows = {name: [] for name in (*groupby, lower, upper)}
    for key, numbers in groups.items():
        interval = t_interval(numbers)
        if interval is None:
            continue  # no interval of one number: Vega-Lite draws no bar for a missing extent either
        for name, cell in zip(groupby, key):
            rows[name].append(cell)
        rows[lower].append(interval[1])
        rows[upper].append(interval[2])
    kinds = {**{name: table.kinds.get(name) for name in groupby}, lower: NUMBER, upper: NUMBER}
    title = props.get("title", f"Mean of {field}")  # the interval is of the mean, as a mean layer's axis says
    rewritten = {
        axis: {**{k: v for k, v in props.items() if k != "field"}, "field": lower, "type": "quantitative",
               "title": title},
        SECONDARY[axis]: {"field": upper},
    }
    return Encoded(Table(rows, kinds), rewritten, {"extent": None})
