"""What a reader does with an interactive export, and each layer's own escape hatch: emitted into the compiled views.

The chart's selections (`ir.nodes.Param`) go on the Vega-Lite view of the
layer that declares them (Vega-Lite selects on a unit view; a condition in
any layer or facet panel may name them), `interactive: true` adds a
scale-bound interval (drag pans, the wheel zooms), `resolve` goes on the
outermost view, and a layer's ``vega_lite`` is merged into its own view
alone, extending the lists that view has (`params`, `transform`) rather
than replacing them.

Every function works on the plain Vega-Lite dict after Altair built it, and
records what it wrote in the translator's origins, so a problem the
renderer finds there is placed at the spec's node. A static export draws a
selection empty (or at its `value`): the SVG, PNG and PDF of a chart do not
change with its selections.
"""

from __future__ import annotations

import copy

from ...infra.colors import resolve_free_form
from ...ir.nodes import Chart, Layer

# The selection `interactive: true` adds: Vega-Lite's pan and zoom, bound to the x and y scales.
PAN_ZOOM = {"name": "chartc_pan_zoom", "select": {"type": "interval"}, "bind": "scales"}


def view_paths(chart: Chart, sources: list[Layer]) -> list[tuple]:
    """The Vega-Lite path of each view the translator built (one per entry of `sources`, in order)."""
    outer = ("spec",) if chart.facet is not None else ()
    if len(sources) == 1:
        return [outer]
    return [outer + ("layer", index) for index in range(len(sources))]


def _at(vega_lite: dict, path: tuple) -> dict:
    node = vega_lite
    for key in path:
        node = node[key]
    return node


def emit_interaction(vega_lite: dict, chart: Chart, sources: list[Layer], origins) -> None:
    """Selections on the views of the layers that declare them, pan and zoom, and `resolve`.

    Args:
        vega_lite: the compiled chart, changed in place.
        chart: the chart model.
        sources: the layer each view of the chart was built from, in view order.
        origins: the translator's `Origins`, to record what was written.
    """
    paths = view_paths(chart, sources)
    first_mark = next((index for index, layer in enumerate(sources) if layer.mark is not None), None)
    done = set()
    for index, layer in enumerate(sources):
        if layer.mark is None or id(layer) in done:  # a layer's params go on its (first) view only
            continue
        done.add(id(layer))
        params = [param.definition() for param in layer.params]
        if chart.interactive and index == first_mark:
            params.append(copy.deepcopy(PAN_ZOOM))
        if not params:
            continue
        view = _at(vega_lite, paths[index])
        existing = view.setdefault("params", [])
        for param, node in zip(params, (*layer.params, chart)):
            origins.record(paths[index] + ("params", len(existing)), node,
                           *(() if node is not chart else ("interactive",)))
            existing.append(param)
    if chart.resolve:
        vega_lite["resolve"] = chart.resolve.plain()
        origins.record_free_form(("resolve",), chart.resolve)


def merge_extending(base: dict, override: dict) -> dict:
    """`override` merged into a copy of `base`: mappings recursively, a list `base` has extended, the rest replaced."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_extending(merged[key], value)
        elif isinstance(value, list) and isinstance(merged.get(key), list):
            merged[key] = merged[key] + copy.deepcopy(value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def merge_layer_escapes(vega_lite: dict, chart: Chart, sources: list[Layer], origins) -> dict:
    """Each layer's ``vega_lite`` merged into its own view(s) (`merge_extending`); the chart's is merged after.

    Args:
        vega_lite: the compiled chart (not changed).
        chart: the chart model.
        sources: the layer each view was built from, in view order.
        origins: the translator's `Origins`: each merged key is recorded at the layer's escape hatch.

    Returns:
        The chart with every layer's escape hatch merged in.
    """
    if not any(layer.vega_lite for layer in chart.layers):
        return vega_lite
    result = copy.deepcopy(vega_lite)
    for path, layer in zip(view_paths(chart, sources), sources):
        if not layer.vega_lite:
            continue
        merged = merge_extending(_at(result, path), resolve_free_form(layer.vega_lite.plain()))
        if path:
            _at(result, path[:-1])[path[-1]] = merged
        else:
            result = merged
        _record_merged(origins, path, _at(vega_lite, path), layer)
    return result


def _record_merged(origins, path: tuple, before: dict, layer: Layer) -> None:
    """Each key of the layer's escape hatch at the place it lands (list items after the view's own)."""
    for relative, _ in layer.vega_lite.entries():
        landed, node = list(relative), before
        for position, key in enumerate(relative):
            if isinstance(key, int) and isinstance(node, list):  # an appended item: after the view's own
                landed[position] = key + len(node)
                break
            node = node.get(key) if isinstance(node, dict) else None
            if node is None:
                break
        origins.record(path + tuple(landed), layer.vega_lite, *relative)
