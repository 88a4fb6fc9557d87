"""Stage 8: the checked chart model (plus its rows and fits) -> Altair -> Vega-Lite, and where each part came from.

Only this package knows Altair: `legend` plans the chart's one legend,
`trend_layers` draws the fitted lines, `interaction` adds selections,
`resolve` and each layer's escape hatch to the built views, `facet_sort`
keeps a facet's order by an aggregate, `vega` holds the channel and
expression helpers all of them share. `mathtext` first writes the math of
every label as Unicode; `vision` checks the categories only colour tells
apart. `TRANSFORMS` emits each transform
kind (one function per `ir.transforms` class). The result is a plain dict:
the same spec and data always give the same bytes from
`infra.jsonout.canonical_json`.

Beside the dict, `translate_chart` returns an `Origins` map, recorded while
emitting: every Vega-Lite node it writes (each view and layer, its mark,
each encoding channel, each transform, the title, the config subtrees, the
escape hatch's merged keys) -> the IR node that caused it. The verify stage
places every problem the renderer's schema or compiler finds through it.
Altair's own errors (it checks some objects as it builds them) are placed
at the node being emitted. Altair is imported when a chart is translated,
never when this module is.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from ... import errors as msg
from ...errors import SpecPath
from ...infra.colors import resolve_color, resolve_free_form
from ...infra.fonts import FAMILY
from ...infra.paper import Paper, paper_layout, screen_pixels
from ...infra.shapes import resolve_shape, shape_filled
from ...ir.nodes import Channel, Chart, FreeForm, Layer, channel_definition
from ...ir.source import Node
from ...ir.transforms import (ARG_OPS, DENSITY_AS, Aggregate, Calculate, Density, Expression, FieldPredicate, Filter,
                              Fold, Impute, JoinAggregate, Lookup, Pivot, SelectionPredicate, Window, arg_field)
from ...render.export import vega_themes
from ..data import DataFlow, Encoded, emitted_predicate
from ..data.lookup import lookup_table
from ..data.density import CELL_MARK_KEYS
from .fields import escape_fields
from .facet_sort import hold_facet_sorts, order_facets
from .interaction import emit_interaction, merge_layer_escapes
from .legend import KIND_CHANNELS, fit_legend_columns, legend_config, plan_legend, wrap_legend_labels
from .mathtext import typeset_chart
from .text import TextStyle, label_style
from .trend_layers import translate_trend_layers
from .vega import channel_type, deep_merge, expression_string, translate_channel
from .vision import check_vision

STAGE = "translate"


class Origins:
    """Vega-Lite path -> (IR node, child path below it) that caused it, recorded as the translator emits.

    `place` finds the longest recorded prefix of a path, then resolves the
    rest inside the node as far as the file writes it (a key of `config` or
    `vega_lite`, a channel's ``scale.range``).
    """

    def __init__(self):
        self.entries: dict[tuple, tuple[Node, SpecPath]] = {}

    def record(self, vl_path: tuple, node: Node | None, *child) -> None:
        if node is not None:
            self.entries[tuple(vl_path)] = (node, tuple(child))

    def record_free_form(self, vl_path: tuple, free: FreeForm) -> None:
        """Every key of a free-form mapping merged at `vl_path` (and the mapping itself, when written below the root)."""
        if vl_path and free.source is not None and free.source.has(free.path):
            self.record(vl_path, free)
        for relative, _ in free.entries():
            self.record(tuple(vl_path) + relative, free, *relative)

    def place(self, vl_path) -> tuple[Node, SpecPath] | None:
        """The node and the child path under it that a Vega-Lite path came from; None when nothing was recorded."""
        vl_path = tuple(vl_path)
        for end in range(len(vl_path), -1, -1):
            found = self.entries.get(vl_path[:end])
            if found is not None:
                node, child = found
                return node, node.within(child + vl_path[end:])
        return None


@dataclass(frozen=True)
class Translation:
    """The chart's Vega-Lite, the origin of each of its nodes, and what a reader may not tell apart in it.

    `warnings` are the `vision` check's: categories told apart by colour alone
    that a greyscale print or a colour-blind reader merges.
    """

    vega_lite: dict
    origins: Origins = field(default_factory=Origins)
    warnings: tuple = ()


def translate_chart(chart: Chart, data: DataFlow, fits: dict, *, evaluated: bool = True) -> Translation:
    """Build the Altair chart for a chart model and return its Vega-Lite dict and origins.

    Args:
        chart: the checked chart.
        data: its rows (`data.flow_data`): the rows drawn, and the field types.
        fits: layer path -> list of fitted `TrendLine` (from the fit stage).
        evaluated: each layer carries the rows the data stage computed, its
            transforms done (`evaluated_rows`); False emits the rows read and
            every transform, for Vega to evaluate (what the tests compare the
            engine with).

    Returns:
        The Vega-Lite specification as a plain dict, where each part came from,
        and the warnings of the colour-vision and greyscale check (`vision`).

    Raises:
        SpecError: Altair refused an object as it built it (a scale, an
            axis), at the node being emitted; math in a label that has no
            Unicode form (`mathtext`), at the text.
    """
    import altair as alt  # ~0.3 s: only when a chart is compiled

    origins = Origins()
    chart, fits = typeset_chart(chart, fits)  # `$R^2$` as R²: before any text is measured or emitted
    vega_lite, plan = _translate(chart, data, fits, alt, origins, evaluated)
    return Translation(vega_lite, origins, tuple(check_vision(chart, plan, data, fits)))


@contextlib.contextmanager
def emitting(node: Node, *child):
    """Place an error Altair raises while building part of `node` (at the key its path names, below `child`)."""
    from altair.utils.schemapi import SchemaValidationError

    try:
        yield
    except SchemaValidationError as error:
        relative = (*child, *getattr(error, "chartc_key", ()), *error.absolute_path)
        reason = str(getattr(error, "_original_message", "") or error.message).splitlines()[0]
        raise node.error(msg.vega_lite_invalid(reason[:160]), *node.within(relative), stage=STAGE,
                         hint=msg.vega_lite_invalid_hint(msg.format_path(tuple(error.absolute_path)))) from None


def _translate(chart: Chart, data: DataFlow, fits: dict, alt, origins: Origins, evaluated: bool = True) -> tuple:
    table = data.drawn
    paper = paper_layout(chart.preset, chart.width, chart.height)  # None for a screen chart
    config = _config(chart, {}, paper)  # the theme's and the user's: how text will be drawn, how wide the plot is
    text = _text_style(chart, config, paper)
    plan = plan_legend(chart, table, fits, text)  # one legend across every layer
    computed = evaluated_rows(chart, data) if evaluated else None
    encoded = data.encoded if computed is not None and data.encoded else (None,) * len(chart.layers)
    lifted = _facet_filters(chart, data.fields.layers) if computed is None else ()
    views, trend_views, sources = [], [], []
    for index, layer in enumerate(chart.layers):
        if layer.trend is not None:
            with emitting(layer.trend):
                charts = translate_trend_layers(layer, fits.get(layer.path, []), alt, plan=plan,
                                                text=text, plot_width=_plot_width(chart, config, paper))
            views.extend(charts)
            trend_views.extend(charts)
            sources.extend(layer for _ in charts)
        else:
            views.append(translate_layer(layer, chart, data.fields.layers[index], alt, plan, skip=len(lifted),
                                         transforms=computed is None, encoded=encoded[index]))
            sources.append(layer)
    if computed is None:
        # The rows read are written only where they are drawn: a chart of trends alone carries its curves,
        # and its rows may be many, left in the engine. (Faceted, its panels are those of the curves: every
        # panel with rows has a fitted line, or the fit fails.)
        drawn = any(layer.trend is None for layer in chart.layers)
        rows, tagged = table.records() if drawn else [], set()
    else:
        keep = drawn_fields(chart, plan)
        if keep is not None:
            computed = tuple(table if table is None or aggregated is not None else table.only(keep)
                             for table, aggregated in zip(computed, encoded))
        views, rows, tagged = _place_rows(chart, views, sources, computed, alt)
    faceted_trends = chart.facet is not None and bool(trend_views)
    if faceted_trends:
        views, rows = _facet_trend_rows(views, trend_views, rows, alt, tagged)
    inline = inline_data(alt, rows)
    top = views[0] if len(views) == 1 else alt.LayerChart(layer=[_shared(view) for view in views])
    # A facet carries the data itself; trend layers carry their own curves, so
    # a chart of trends alone embeds no raw rows (its size does not grow with them).
    if chart.facet is None and rows is not None and any(layer.trend is None for layer in chart.layers):
        top.data = inline
    sized = paper
    if paper is not None and chart.facet is not None:  # Vega-Lite fits no facet: each panel gets its share
        sized = _panel_share(paper, chart, table)
    top = _decorate(top, chart, inline, alt, data.fields.shared, sized)
    for step in lifted:
        with emitting(step):
            top = emit_facet_filter(top, step, alt, data.fields.layers[0], faceted_trends)
    vega_lite = top.to_dict(validate=False)
    wrap_legend_labels(vega_lite, table, text, plan.field if plan is not None else None)
    _record(origins, chart, sources, len(views), faceted_trends, len(lifted), computed is None, bool(tagged))
    emit_interaction(vega_lite, chart, sources, origins)
    if chart.facet is not None and computed is None:
        hold_facet_sorts(vega_lite, origins, chart.facet)
    elif chart.facet is not None:  # the rows are the engine's: the panels' order is measured on them
        order_facets(vega_lite, [rows.table for layer, rows in zip(chart.layers, data.drawn_layers)
                                 if layer.trend is None and rows is not None and rows.table is not None])
    for vl_path, name in escape_fields(vega_lite):  # before the override: that is the user's own Vega-Lite
        node, child = origins.place(vl_path)
        raise node.error(msg.field_backslash(name), *child, stage=STAGE, hint=msg.field_backslash_hint())
    vega_lite["config"] = _config(chart, vega_lite.get("config", {}), paper)
    fit_legend_columns(vega_lite, chart.legend, table, text, _plot_width(chart, config, paper))
    if paper is not None:
        vega_lite = on_paper(vega_lite, paper, chart.facet is not None)
    vega_lite = merge_layer_escapes(vega_lite, chart, sources, origins)
    vega_lite = deep_merge(vega_lite, resolve_free_form(chart.vega_lite.plain()))
    return vega_lite, plan


def evaluated_rows(chart: Chart, data: DataFlow) -> tuple | None:
    """Per layer, the rows its marks draw with its transforms done (None for a trend layer), or None to emit them.

    A chart without transforms draws the rows read (emitted as they are, so
    such a chart never needs the engine); a chart where Vega alone knows a
    layer's rows (or some of their values: `Rows.unknowable`, `Rows.unknown`)
    keeps every transform for Vega to evaluate. A layer whose encoding the
    engine aggregated (`DataFlow.encoded`) draws the groups' rows.
    """
    encoded = data.encoded or (None,) * len(chart.layers)
    if not any(chart.transforms(layer) for layer in chart.layers if layer.trend is None) and not any(encoded):
        return None
    out = []
    for layer, rows, aggregated in zip(chart.layers, data.drawn_layers, encoded):
        if layer.trend is not None:
            out.append(None)
            continue
        if rows is None or rows.table is None or rows.unknown:
            return None
        out.append(rows.table if aggregated is None else aggregated.table)
    return tuple(out)


def drawn_fields(chart: Chart, plan=None) -> set | None:
    """The fields the chart's marks read (`Chart.drawn_fields`) and the legend's, or None when that is not sure.

    A layer's computed rows keep only these: a fold or a calculate writes a
    column Vega-Lite never draws on every row.
    """
    found = chart.drawn_fields()
    if found is not None and plan is not None:
        found.add(plan.field)
    return found


def _place_rows(chart: Chart, views: list, sources: list, computed: tuple, alt) -> tuple[list, list | None, set]:
    """Where each layer's computed rows go: the chart's data when every layer draws the same, else each its own.

    Identical rows are written once (Altair names each distinct inline data set by
    its content, under ``datasets``). A facet splits only the top-level data
    (vega-lite#8157): there, layers with rows of their own join it tagged with
    `PART_FIELD`, each view keeping its own with a filter, as trend curves do.

    Returns:
        The views, the rows for the chart's data (None when every view has its own),
        and the ids of the views that filter their tag.
    """
    drawing = [layer for layer in sources if layer.trend is None]
    if len(drawing) <= 1:  # one layer's rows, nothing to compare them with (the key is a dump of every row)
        return views, (computed[drawing[0].index].records() if drawing else []), set()
    records: dict[str, list[dict]] = {}
    keys = []
    for layer in sources:
        if layer.trend is not None:
            keys.append(None)
            continue
        table = computed[layer.index]
        rows = table.records()
        key = json.dumps(rows, sort_keys=True, default=str)
        records.setdefault(key, rows)
        keys.append(key)
    distinct = list(records)
    if len(distinct) <= 1:
        return views, (records[distinct[0]] if distinct else []), set()
    if chart.facet is None:
        out = []
        for view, key in zip(views, keys):
            if key is not None:
                view = view.copy(deep=False)
                view.data = inline_data(alt, records[key])
            out.append(view)
        return out, None, set()
    merged, out, tagged = [], [], set()
    for number, key in enumerate(distinct):
        merged.extend({**row, PART_FIELD: f"rows {number}"} for row in records[key])
    for view, key in zip(views, keys):
        if key is not None:
            view = view.copy(deep=False)
            keep = f"datum[{expression_string(PART_FIELD)}] === {expression_string(f'rows {distinct.index(key)}')}"
            earlier = [] if view.transform is alt.Undefined else list(view.transform)
            view.transform = [alt.FilterTransform(filter=keep), *earlier]
            tagged.add(id(view))
        out.append(view)
    return out, merged, tagged


def _facet_filters(chart: Chart, layer_types: tuple) -> tuple:
    """The chart's leading filters, when a facet must see them: emitted beside the facet, not in each panel's view.

    Vega-Lite facets the rows before the views' own transforms (unless a
    single view's can move up): a chart-level filter inside the panels
    leaves the facet a panel for the rows it drops (an empty ``null``
    panel). A filter is lifted where every layer emits it alike (its field
    of one type in every layer); beside trend curves, which share the
    facet's data, it keeps the curves' rows too (`emit_facet_filter`).
    """
    if chart.facet is None:
        return ()
    lifted = []
    for step in chart.transform:
        if not isinstance(step, Filter) or isinstance(step.predicate, SelectionPredicate):
            break  # a selection is the panels' own: it filters inside them
        if isinstance(step.predicate, FieldPredicate):
            if len({types.get(step.predicate.field) == "temporal" for types in layer_types}) != 1:
                break
        lifted.append(step)
    return tuple(lifted)


def emit_facet_filter(view, step: Filter, alt, types: dict, trends: bool):
    """A lifted filter beside the facet; beside trend curves, ``or`` a row of theirs (Vega-Lite parses the leaves alike)."""
    if not trends:
        return emit_filter(view, step, alt, types)
    predicate = step.predicate
    kept = predicate.text if isinstance(predicate, Expression) else emitted_predicate(
        predicate, types.get(predicate.field) == "temporal")
    return view.transform_filter({"or": [f"isValid(datum[{expression_string(PART_FIELD)}])", kept]})


def _record(origins: Origins, chart: Chart, sources: list, count: int, faceted_trends: bool, lifted: int = 0,
            transforms: bool = True, tagged: bool = False) -> None:
    """Where each part of the Vega-Lite came from: views, marks, channels, transforms, title, config, escape hatch."""
    origins.record((), chart)
    for index, step in enumerate(chart.transform[:lifted]):
        origins.record(("transform", index), step)
    for key in ("data", "datasets"):
        origins.record((key,), chart.data)
    origins.record(("title",), chart, "title")
    origins.record(("title", "text"), chart, "title")
    origins.record(("title", "subtitle"), chart, "subtitle")
    outer = ("spec",) if chart.facet is not None else ()
    for key in ("description", "width", "height"):
        origins.record((key,), chart, key)
        origins.record(outer + (key,), chart, key)
    if chart.facet is not None:
        origins.record(("facet",), chart.facet)
        for channel in chart.facet.channels():
            origins.record(("facet", channel.name), channel)
        if chart.facet.columns is not None and len(chart.facet.channels()) == 1:
            origins.record(("facet",), chart.facet.channels()[0])  # wrapped: the channel is the facet itself
        origins.record(("columns",), chart.facet, "columns")
    offset = 1 if faceted_trends or tagged else 0
    for index, layer in enumerate(sources):
        prefix = outer + (("layer", index) if count > 1 else ())
        if layer.trend is not None:
            _record_trend(origins, prefix, layer)
        else:
            _record_layer(origins, prefix, chart, layer, offset, lifted, transforms)
            origins.record(prefix + ("data",), chart.data)
        if faceted_trends or tagged:
            origins.record(prefix + ("transform", 0), chart.facet)
    if chart.theme != "default":
        origins.record(("config",), chart, "theme")
    if chart.legend:
        origins.record(("config", "legend"), chart.legend)
    origins.record_free_form(("config",), chart.config)
    origins.record_free_form((), chart.vega_lite)


def _record_layer(origins: Origins, prefix: tuple, chart: Chart, layer: Layer, offset: int, lifted: int = 0,
                  transforms: bool = True) -> None:
    origins.record(prefix, layer)
    origins.record(prefix + ("mark",), layer.mark)
    if layer.markers is not None:  # the legend plan's channels on the marker field
        for name in {name for names in KIND_CHANNELS.values() for name in names}:
            origins.record(prefix + ("encoding", name), layer.markers)
    for name, value in layer.encoding.items():
        if isinstance(value, tuple):
            origins.record(prefix + ("encoding", name), value[0] if value else layer)
            for index, item in enumerate(value):
                origins.record(prefix + ("encoding", name, index), item)
        else:
            origins.record(prefix + ("encoding", name), value)
    if not transforms:  # done by the data stage: the layer carries their rows
        return
    for index, step in enumerate(chart.transforms(layer)[lifted:]):
        origins.record(prefix + ("transform", index + offset), step)


def _record_trend(origins: Origins, prefix: tuple, layer: Layer) -> None:
    origins.record(prefix, layer.trend)
    for name in ("x", "y"):
        channel = layer.encoding.get(name)
        if isinstance(channel, Channel):
            origins.record(prefix + ("encoding", name), channel)


# In a faceted chart, which layer a row of the shared data belongs to (absent on data rows).
PART_FIELD = "trend_part"


def _facet_trend_rows(views: list, trend_views: list, rows: list[dict], alt, tagged: frozenset = frozenset()
                      ) -> tuple[list, list[dict]]:
    """Trend curves moved into the facet's data, so the facet splits them into panels too.

    Vega-Lite facets only the top-level data (vega-lite#8157): a layer with
    data of its own would draw every panel's curve in every panel. So each
    trend view's rows join the data, tagged with their view in `PART_FIELD`,
    and every view keeps its own rows with a filter, first of its transforms
    (a view in `tagged` (ids) filters its own tag already).
    """
    trend_ids = {id(view) for view in trend_views}
    merged, out = list(rows), []
    for index, view in enumerate(views):
        if id(view) in tagged:
            out.append(view)
            continue
        view, trend = view.copy(deep=False), id(view) in trend_ids
        if trend:
            part = f"layer {index}"
            merged.extend({**row, PART_FIELD: part} for row in view.data.values)
            view.data = alt.Undefined
            keep = f"datum[{expression_string(PART_FIELD)}] === {expression_string(part)}"
        else:
            keep = f"!isValid(datum[{expression_string(PART_FIELD)}])"
        earlier = [] if view.transform is alt.Undefined else list(view.transform)
        view.transform = [alt.FilterTransform(filter=keep), *earlier]
        out.append(view)
    return out, merged


def inline_data(alt, rows: list[dict]):
    """Rows as Altair inline data, without Altair checking each row against Vega-Lite's schema.

    The rows are flat JSON records already (the data stage refuses nested
    values), and that check cost 2.7 s for 20,000 rows, 40% of a compile of
    a few hundred.
    """
    with alt.utils.schemapi.debug_mode(False):
        return alt.InlineData(values=rows)


# The colour Vega-Lite draws an error bar's rule in unless told (its `rule` mark's default stroke).
ERRORBAR_COLOR = "black"


def translate_layer(layer: Layer, chart: Chart, types: dict, alt, plan=None, skip: int = 0, transforms: bool = True,
                    encoded: Encoded | None = None):
    """One mark layer: mark, encodings, marker styles and transforms.

    Args:
        layer: the layer.
        chart: the chart (its transforms come first).
        types: field -> measurement type after the layer's transforms.
        alt: the altair module.
        plan: the chart's `legend.LegendPlan`: a layer with `markers` takes
            the encodings that draw its categories and join the one legend.
        skip: how many of the chart's transforms are emitted beside the facet instead.
        transforms: False when the layer carries its rows with the transforms done.
        encoded: the encoding's aggregation done by the engine (`data.Encoded`):
            the channels that replace the written ones, the mark's defaults.
    """
    styled = layer.markers is not None and plan is not None
    mark = {**(plan.mark_properties(layer) if styled else {}), **(encoded.mark if encoded is not None else {}),
            **layer.mark.definition()}
    if mark.pop("density", False) not in (False, None) and (encoded is None or encoded.kind is None):
        raise layer.mark.error(msg.density_unknowable(), "density", stage=STAGE, hint=msg.density_unknowable_hint())
    if encoded is not None and encoded.kind is not None:  # drawn as other marks (a density's cells)
        mark = {"type": encoded.kind, **{key: mark[key] for key in CELL_MARK_KEYS if key in mark}, **encoded.mark}
    if mark.get("extent") == "ci":  # never Vega-Lite's bootstrap: the data stage's t-interval, or refused
        if encoded is None:
            raise layer.mark.error(msg.extent_ci_unsupported(), "extent", stage=STAGE,
                                   hint=msg.extent_ci_unsupported_hint())
        mark.pop("extent")
    kind = mark.pop("type")
    if "strokeDash" in mark:
        mark["strokeDash"] = list(mark["strokeDash"])
    for key in ("color", "fill", "stroke"):  # matplotlib's names (`k`, `tab:orange`) as the renderer reads them
        if isinstance(mark.get(key), str):
            mark[key] = resolve_color(mark[key])
    if mark.get("ticks"):  # an error bar's caps, drawn like its bar: Vega-Lite draws the bar black, the caps blue
        ticks = {} if mark["ticks"] is True else dict(mark["ticks"])
        ticks["color"] = resolve_color(ticks["color"]) if "color" in ticks else mark.get("color", ERRORBAR_COLOR)
        mark["ticks"] = ticks
    constant = layer.encoding.get("shape")
    shape = mark.get("shape", constant.properties.get("value") if isinstance(constant, Channel) else None)
    if kind == "point" and isinstance(shape, str) and not shape_filled(shape):
        mark.setdefault("filled", False)  # a line marker (`x`, `+`): only its stroke shows
    if isinstance(mark.get("shape"), str):  # the `markers` vocabulary: Vega reads an unknown name as a path
        mark["shape"] = resolve_shape(mark["shape"])
    with emitting(layer.mark):
        view = getattr(alt.Chart(), f"mark_{kind}")(**mark)
    encodings = {}
    channels = encoded.channels if encoded is not None else {}
    for name, value in layer.encoding.items():
        with emitting(value[0] if isinstance(value, tuple) else value):
            encodings[name] = translate_channel(name, channels.get(name, channel_definition(value)), types, alt)
    for name in channels.keys() - dict(layer.encoding.items()).keys():  # a bin's end
        encodings[name] = translate_channel(name, channels[name], types, alt)
    if styled:
        with emitting(layer.markers):
            encodings.update(plan.mark_encodings(layer, types, alt))
    view = view.encode(**encodings)
    for step in chart.transforms(layer)[skip:] if transforms else ():
        with emitting(step):
            view = TRANSFORMS[type(step)](view, step, alt, types)
    return view


# ------------------------------------------------------------------ one function per transform kind

def emit_filter(view, step: Filter, alt, types: dict):
    """``filter``: the expression text unchanged, the field predicate (dates as DateTime on a temporal field), or
    the selection's name (``empty`` only when false, as Vega-Lite's default is true)."""
    predicate = step.predicate
    if isinstance(predicate, SelectionPredicate):
        return view.transform_filter({"param": predicate.param, **({} if predicate.empty else {"empty": False})})
    if isinstance(predicate, Expression):
        return view.transform_filter(predicate.text)
    return view.transform_filter(emitted_predicate(predicate, types.get(predicate.field) == "temporal"))


def emit_calculate(view, step: Calculate, alt, types: dict):
    """``calculate``: the expression text unchanged."""
    return view.transform_calculate(**{step.as_: step.expression.text})


def emit_fold(view, step: Fold, alt, types: dict):
    """``fold``: the folded fields and the key and value names."""
    return view.transform_fold(list(step.fields), as_=list(step.as_))


def emit_aggregate(view, step: Aggregate, alt, types: dict):
    """``aggregate``: each op as Vega-Lite's ``{op, field, as}``, and the groupby fields.

    Vega holds the row an ``argmin``/``argmax`` picks as an object; chartc's
    rows hold its fields flat (`transforms.arg_field`): each such field the
    layer has is copied out of the object by a calculate, so the raw form
    draws what the computed rows draw.
    """
    ops = [alt.AggregatedFieldDef(**{"op": op.op, **({"field": op.field} if op.field is not None else {}),
                                     "as": op.as_}) for op in step.ops]
    view = view.transform_aggregate(ops, groupby=list(step.groupby))
    for op in step.ops:
        if op.op in ARG_OPS:
            for name in (name for name in types if name.startswith(arg_field(op.as_, ""))):
                picked = f"datum[{expression_string(op.as_)}][{expression_string(name[len(op.as_) + 1:])}]"
                view = view.transform_calculate(**{name: picked})
    return view


def emit_pivot(view, step: Pivot, alt, types: dict):
    """``pivot``: the field, the value, and the groupby, limit and op given."""
    return view.transform_pivot(step.pivot, step.value, groupby=list(step.groupby), limit=step.limit, op=step.op)


def emit_impute(view, step: Impute, alt, types: dict):
    """``impute``: the field and key, and each option the spec gives (Vega-Lite's defaults otherwise)."""
    options = {"groupby": list(step.groupby) or alt.Undefined, "method": step.method,
               "keyvals": list(step.keyvals) if step.keyvals is not None else alt.Undefined,
               "value": step.value if step.has_value else alt.Undefined,
               "frame": list(step.frame) if step.frame != (None, None) else alt.Undefined}
    return view.transform_impute(step.impute, step.key, **options)


def emit_window(view, step: Window, alt, types: dict):
    """``window``: each op as Vega-Lite's ``{op, field, param, as}``, and the frame, peers, groupby and sort as written."""
    ops = [{"op": op.op, **({"field": op.field} if op.field is not None else {}),
            **({"param": op.param} if op.param is not None else {}), "as": op.as_} for op in step.ops]
    window = {"window": ops, "frame": list(step.frame)}
    if step.ignorePeers:
        window["ignorePeers"] = True
    if step.groupby:
        window["groupby"] = list(step.groupby)
    if step.sort:
        window["sort"] = [{"field": name, "order": order} for name, order in step.sort]
    return view.transform_window(**{key: value for key, value in window.items() if key != "window"},
                                 window=[alt.WindowFieldDef(**op) for op in ops])


def emit_joinaggregate(view, step: JoinAggregate, alt, types: dict):
    """``joinaggregate``: each op as Vega-Lite's ``{op, field, as}``, and the groupby fields."""
    ops = [alt.JoinAggregateFieldDef(**{"op": op.op, **({"field": op.field} if op.field is not None else {}),
                                        "as": op.as_}) for op in step.ops]
    return view.transform_joinaggregate(ops, groupby=list(step.groupby)) if step.groupby else \
        view.transform_joinaggregate(ops)


def emit_density(view, step: Density, alt, types: dict):
    """``density``: what the spec says, the defaults left to Vega-Lite (they are Vega's)."""
    options = {"groupby": list(step.groupby) or None, "cumulative": step.cumulative or None,
               "counts": step.counts or None, "bandwidth": step.bandwidth or None,
               "extent": list(step.extent) if step.extent is not None else None, "minsteps": step.minsteps,
               "maxsteps": step.maxsteps, "steps": step.steps,
               "as_": list(step.as_) if step.as_ != DENSITY_AS else None, "resolve": step.resolve}
    return view.transform_density(step.density, **{key: value for key, value in options.items() if value is not None})


def emit_lookup(view, step: Lookup, alt, types: dict):
    """``lookup``: the second source's rows inlined (chartc never has Vega fetch anything), its key, the fields
    and their names, and the default (Vega-Lite 6 drops a default that is 0, '' or false: null instead)."""
    source = alt.LookupData(data=inline_data(alt, lookup_table(step).records()), key=step.key,
                            fields=list(step.fields))
    options = {"as_": list(step.as_) if step.as_ != step.fields else alt.Undefined,
               "default": step.default if step.default is not None else alt.Undefined}
    return view.transform_lookup(lookup=step.lookup, from_=source, **options)


# Transform class -> how it is emitted (one entry per `ir.transforms` kind).
TRANSFORMS: dict[type, Callable[..., object]] = {
    Filter: emit_filter,
    Calculate: emit_calculate,
    Fold: emit_fold,
    Aggregate: emit_aggregate,
    Pivot: emit_pivot,
    Impute: emit_impute,
    Window: emit_window,
    JoinAggregate: emit_joinaggregate,
    Density: emit_density,
    Lookup: emit_lookup,
}


def _decorate(view, chart: Chart, data, alt, types: dict | None = None, paper: Paper | None = None):
    """Title, size and facet: properties of the whole chart."""
    if chart.facet is not None:
        facet_args = {}
        for channel in chart.facet.channels():
            props = channel.definition()
            if "type" not in props:  # inferred from the data, as for every other channel
                props["type"] = channel_type(props, types or {})
            with emitting(channel):
                facet_args[channel.name] = getattr(alt, channel.name.capitalize())(**props)
        if chart.width is not None or chart.height is not None or paper is not None:
            view = _set_properties(view, **_size(chart, paper))
        if chart.facet.columns is not None and len(facet_args) == 1:
            # Vega-Lite wraps only a facet by one field ({field, columns}); a
            # `column` or `row` channel with `columns` would stay one line of panels.
            (wrapped,) = (alt.Facet(**channel.to_dict(validate=False)) for channel in facet_args.values())
            view = view.facet(wrapped, data=data, columns=chart.facet.columns)
        else:
            view = view.facet(data=data, **facet_args)
    else:
        view = _set_properties(view, **_size(chart, paper))
    if chart.title is not None:
        with emitting(chart, "title"):
            view = _set_properties(view, title=alt.TitleParams(
                text=chart.title, **({"subtitle": chart.subtitle} if chart.subtitle else {})))
    if chart.description is not None:
        view = _set_properties(view, description=chart.description)
    return view


def _set_properties(view, **properties):
    """Altair's ``view.properties(**properties)``, in place: each value validated the same way, no copy.

    Altair's method returns a copy, and a copy of a layered chart deep-copies
    every layer and its rows again (~20 ms of a cold compile for a trend's
    100 points, per call). `view` is this translation's own, held by nothing else.
    """
    for key, value in properties.items():
        view.validate_property(key, value)
        setattr(view, key, value)
    return view


def _shared(view):
    """`view`, made its own deep copy: a `LayerChart` over it holds it as it is.

    Altair's LayerChart deep-copies every layer twice as it is built, and its
    `to_dict` builds it again (two more copies of each): ~20 ms of a ~70 ms
    compile of seed_pretraining, the editor's preview of a save. The views are
    this translation's own, held by nothing else once layered, so the layer
    may keep them; what the copies would have had changed is changed in them.
    """
    object.__setattr__(view, "__deepcopy__", lambda memo=None: view)  # Altair's `_deep_copy` asks the object first
    return view


def _size(chart: Chart, paper: Paper | None = None) -> dict:
    sizes = {"width": screen_pixels(chart.width), "height": screen_pixels(chart.height)}
    if paper is not None:  # the whole figure, in points (`on_paper` fits the chart into it)
        for key in sizes:
            if getattr(paper, key) is not None:
                sizes[key] = round(getattr(paper, key), 3)
    return {k: v for k, v in sizes.items() if v is not None}


# A faceted paper figure: room for the y axis and its title, the titles above (pt), and Vega-Lite's gap between
# panels; each panel gets an equal share of the rest (an estimate: the figure comes out about its size).
FACET_ROOM, FACET_SPACING = 60, 20


def _panel_share(paper: Paper, chart: Chart, table) -> Paper:
    """The size of one panel of a faceted paper figure: the figure's, less the room around, over columns and rows."""
    def distinct(channel) -> int:
        name = channel.properties.get("field") if channel is not None else None
        return len({str(value) for value in table[name]}) if isinstance(name, str) and name in table else 1

    facet = chart.facet
    if facet.columns is not None and len(facet.channels()) == 1:
        count = distinct(facet.channels()[0])
        columns = max(1, min(facet.columns, count))
        rows = -(-count // columns)
    else:
        columns, rows = distinct(facet.column), distinct(facet.row)

    def share(total: float | None, parts: int) -> float | None:
        return None if total is None else max((total - FACET_ROOM) / parts - FACET_SPACING, FACET_SPACING)

    return dataclasses.replace(paper, width=share(paper.width, columns), height=share(paper.height, rows))


# Room around a paper figure (pt): enough for a label's last pixel, no more.
PAPER_PADDING = 2
AUTOSIZE = {(True, True): "fit", (True, False): "fit-x", (False, True): "fit-y"}


def on_paper(vega_lite: dict, paper: Paper, faceted: bool) -> dict:
    """A physical chart's Vega-Lite: fitted to the figure's size, marks scaled to it, the PNG's DPI in `usermeta`.

    Vega-Lite fits a single or layered view into `width` x `height` with
    everything around it (``autosize: fit``); a facet's size stays each
    panel's (Vega-Lite cannot fit one). Sizes and line widths the chart sets
    (the markers' sizes, a trend's width and dash) and Vega's defaults for
    them are scaled by `Paper.mark_scale`; `render.export` reads
    ``usermeta.chartc_paper`` for the DPI.

    Args:
        vega_lite: the translated chart (before the spec's own `vega_lite` is merged).
        paper: how it is drawn on paper.
        faceted: the chart is a facet.

    Returns:
        A new dict.
    """
    out = copy.deepcopy(vega_lite)
    fit = AUTOSIZE.get((paper.width is not None, paper.height is not None))
    if fit is not None and not faceted:
        out["autosize"] = {"type": fit, "contains": "padding"}
        out["padding"] = PAPER_PADDING
    scale = paper.mark_scale
    _scale_marks(out, scale)
    defaults = {"point": {"size": 30 * scale ** 2, "strokeWidth": 2 * scale},
                "line": {"strokeWidth": 2 * scale}, "rule": {"strokeWidth": scale},
                "axis": {width: max(scale, 0.5) for width in ("domainWidth", "tickWidth", "gridWidth")}}
    out["config"] = deep_merge(_rounded(defaults), out.get("config", {}))
    usermeta = dict(out.get("usermeta") or {})
    usermeta["chartc_paper"] = {"dpi": paper.dpi}
    out["usermeta"] = usermeta
    return out


# Mark properties and channels that are lengths (scaled by k) or areas (by k²).
LENGTHS, AREAS = ("strokeWidth", "strokeDash"), ("size",)


def _scale_marks(node, scale: float) -> None:
    """Every mark's and channel's sizes and line widths in a view tree, scaled in place."""
    if isinstance(node, list):
        for item in node:
            _scale_marks(item, scale)
        return
    if not isinstance(node, dict):
        return
    mark = node.get("mark")
    if isinstance(mark, dict):
        for key in LENGTHS + AREAS:
            if key in mark:
                mark[key] = _scaled(mark[key], scale ** (2 if key in AREAS else 1))
    encoding = node.get("encoding")
    if isinstance(encoding, dict):
        for key in LENGTHS + AREAS:
            channel = encoding.get(key)
            factor = scale ** (2 if key in AREAS else 1)
            if isinstance(channel, dict):
                if "value" in channel:
                    channel["value"] = _scaled(channel["value"], factor)
                scale_def = channel.get("scale")
                if isinstance(scale_def, dict) and isinstance(scale_def.get("range"), list):
                    scale_def["range"] = _scaled(scale_def["range"], factor)
    for key in ("layer", "spec"):
        _scale_marks(node.get(key), scale)


def _scaled(value, factor: float):
    if isinstance(value, list):
        return [_scaled(item, factor) for item in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return round(value * factor, 3)
    return value


def _rounded(config: dict) -> dict:
    return {key: _rounded(value) if isinstance(value, dict) else round(value, 3) for key, value in config.items()}


# Vega config keys in the renderer's themes that Vega-Lite's schema has no place
# for. Vega's `group` marks are Vega-Lite's views (so ggplot2's grey panels show);
# `path`, `shape` and `symbol` style marks that Vega-Lite always styles itself.
VEGA_THEME_KEYS = {"group": "view", "path": None, "shape": None, "symbol": None}


def _text_style(chart: Chart, config: dict, paper: Paper | None = None) -> TextStyle:
    """How the chart's legend labels will be drawn: its theme, legend settings and config (the escape hatch's too)."""
    override = resolve_free_form(chart.vega_lite.plain()).get("config")
    style = label_style(deep_merge(config, override) if isinstance(override, dict) else config)
    if paper is not None and paper.preset is not None:  # annotations at the venue's label size
        style = dataclasses.replace(style, text_size=paper.preset.label)
    return style


# Vega-Lite's width of a plot with a continuous x scale (`config.view.continuousWidth`).
CONTINUOUS_WIDTH = 300


def _plot_width(chart: Chart, config: dict, paper: Paper | None = None) -> float:
    """The plot's width in px, as a trend layer's x (continuous) lays it out (`container`: the default).

    On paper, the figure's width less the room its y axis takes (an estimate, as for a facet's panels).
    """
    if paper is not None and paper.width is not None:
        return max(paper.width - FACET_ROOM, FACET_SPACING)
    width = screen_pixels(chart.width)
    if isinstance(width, (int, float)) and not isinstance(width, bool):
        return width
    view = config.get("view")
    width = view.get("continuousWidth") if isinstance(view, dict) else None
    return width if isinstance(width, (int, float)) and width > 0 else CONTINUOUS_WIDTH


def _config(chart: Chart, altair_config: dict, paper: Paper | None = None) -> dict:
    """chartc's font, then the theme, then a paper preset's fonts, then the chart's legend settings, then the user's config.

    Every text is drawn in chartc's font (it has every glyph chartc writes, `10⁻³` too) unless a
    theme or the spec's config names another: a theme's fonts are part of the look it was chosen for.
    """
    # The themes come from a disk cache: no renderer engine is started to compile.
    config = {"font": FAMILY}
    if chart.theme != "default":
        config = deep_merge(config, copy.deepcopy(vega_themes()[chart.theme]))
    for key, target in VEGA_THEME_KEYS.items():  # keep the output valid Vega-Lite
        value = config.pop(key, None)
        if target and value:
            config[target] = deep_merge(value, config.get(target, {}))
    config = deep_merge(altair_config, config)
    if paper is not None:
        config = deep_merge(config, paper.config())
    if chart.legend:
        config = deep_merge(config, {"legend": legend_config(chart.legend)})
    return deep_merge(config, resolve_free_form(chart.config.plain()))


# ------------------------------------------------------------------ Vega-Lite's schema

@functools.cache
def vega_lite_schema() -> dict:
    """Vega-Lite's JSON schema, of the version this stage compiles to: Altair's, shared (read it, never change it).

    The verify stage checks every compiled chart against it. Altair parses
    its schema file when it is imported; parsing it a second time took
    ~20 ms of a cold compile.
    """
    import altair  # imported already: the chart was translated with it

    return altair.VegaLiteSchema._rootschema


