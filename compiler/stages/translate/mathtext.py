"""Math in the chart's labels: every text chartc draws, its ``$...$`` written as Unicode (`infra.mathtext`).

Before anything measures or emits text, `typeset_chart` gives back the chart
with its math written out: the title and subtitle; every channel's title and
its axis', legend's and header's; a text mark's or text channel's constant;
a marker map's title and its labels; the legend's title; a trend's annotation
text; and the fitted lines' labels (the fit stage filled their placeholders
in, so a placeholder's value is never read as math). Math that has no Unicode
form is an error at the text that holds it (E725-E728).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ...errors import SpecError
from ...infra.mathtext import MathProblem, render_math
from ...ir.nodes import Channel, Chart, FreeForm, Layer, Markers, MarkerStyle, freeze, thaw
from ...ir.source import Node

STAGE = "translate"
# Keys of a channel that hold drawn text (below the channel), and the channel constants that do.
CHANNEL_TEXT = (("title",), ("axis", "title"), ("legend", "title"), ("header", "title"))
TEXT_CHANNELS = ("text",)


class _Typesetter:
    """Writes each node's text once (a channel shared by layers is one node), collecting the problems."""

    def __init__(self):
        self.problems: list[SpecError] = []
        self.done: dict[int, object] = {}

    def text(self, value, node: Node, *child):
        """A string (or a list of lines) with its math written out; unchanged (and reported) when it fails."""
        if isinstance(value, (list, tuple)):
            return type(value)(self.text(line, node, *child, index) for index, line in enumerate(value))
        if not isinstance(value, str):
            return value
        try:
            return render_math(value)
        except MathProblem as problem:
            self.problems.append(node.error(problem.message, *node.within(child), stage=STAGE, hint=problem.hint))
            return value

    def free(self, free: FreeForm, node: Node, keys: tuple, *prefix) -> FreeForm:
        """A free-form mapping (a channel's, a mark's) with the text at each of `keys` written out."""
        plain = free.plain()
        changed = False
        for key in keys:
            holder = plain
            for part in key[:-1]:
                holder = holder.get(part) if isinstance(holder, dict) else None
            if isinstance(holder, dict) and key[-1] in holder:
                new = self.text(holder[key[-1]], node, *prefix, *key)
                changed |= new != holder[key[-1]]
                holder[key[-1]] = new
        return dataclasses.replace(free, value=freeze(plain)) if changed else free

    def channel(self, channel: Channel) -> Channel:
        if id(channel) not in self.done:
            keys = CHANNEL_TEXT + ((("value",),) if channel.name in TEXT_CHANNELS else ())
            properties = self.free(channel.properties, channel, keys)
            self.done[id(channel)] = (channel if properties is channel.properties
                                      else dataclasses.replace(channel, properties=properties))
        return self.done[id(channel)]

    def style(self, style: MarkerStyle | None) -> MarkerStyle | None:
        if style is None or style.label is None:
            return style
        return dataclasses.replace(style, label=self.text(style.label, style, "label"))

    def markers(self, markers: Markers | None) -> Markers | None:
        if markers is None:
            return None
        return dataclasses.replace(
            markers, styles=tuple((key, self.style(style)) for key, style in markers.styles),
            default=self.style(markers.default), title=self.text(markers.title, markers, "title"))

    def layer(self, layer: Layer) -> Layer:
        encoding = dataclasses.replace(layer.encoding, channels=tuple(
            (name, tuple(self.channel(item) for item in value) if isinstance(value, tuple) else self.channel(value))
            for name, value in layer.encoding.channels))
        mark = layer.mark
        if mark is not None and "text" in mark.properties:
            mark = dataclasses.replace(mark, properties=self.free(mark.properties, mark, (("text",),)))
        trend = layer.trend
        if trend is not None and isinstance(trend.annotate, Mapping) and "text" in trend.annotate:
            annotate = thaw(trend.annotate)
            annotate["text"] = self.text(annotate["text"], trend, "annotate", "text")
            trend = dataclasses.replace(trend, annotate=freeze(annotate))
        return dataclasses.replace(layer, encoding=encoding, mark=mark, trend=trend,
                                   markers=self.markers(layer.markers))


def typeset_chart(chart: Chart, fits: dict) -> tuple[Chart, dict]:
    """The chart and its fits with the math of every drawn text written as Unicode.

    Args:
        chart: the checked chart.
        fits: layer path -> fitted `TrendLine`s, their labels filled in.

    Returns:
        A new chart and fits (the same objects where no text changes).

    Raises:
        SpecError: every text whose math has no Unicode form (E725-E728), at the text.
    """
    setter = _Typesetter()
    facet = chart.facet
    if facet is not None:
        facet = dataclasses.replace(facet, row=facet.row and setter.channel(facet.row),
                                    column=facet.column and setter.channel(facet.column))
    legend = chart.legend
    if legend.title is not None:
        legend = dataclasses.replace(legend, title=setter.text(legend.title, legend, "title"))
    typeset = dataclasses.replace(
        chart, title=setter.text(chart.title, chart, "title"), subtitle=setter.text(chart.subtitle, chart, "subtitle"),
        layers=tuple(setter.layer(layer) for layer in chart.layers), facet=facet, legend=legend)
    lines = {}
    for layer in chart.layers:
        if layer.path in fits:
            lines[layer.path] = [line if line.label is None else dataclasses.replace(
                line, label=setter.text(line.label, layer.trend, "label")) for line in fits[layer.path]]
    if setter.problems:
        raise SpecError.collect(setter.problems)
    return typeset, {**fits, **lines}
