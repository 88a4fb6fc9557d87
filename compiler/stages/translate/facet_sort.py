"""A facet sorted by an aggregate of a field (`facet.row.sort: {op: median, field: yield}`), made to hold.

Vega-Lite computes the order of a facet's panels from the rows its panels
see after their own aggregates: when the one view inside aggregates in its
encoding (`x: {field: yield, aggregate: median}`), Vega-Lite moves that
aggregate above the facet, `yield` is gone by the time the panels are
ordered, and they come out in the data's order, silently (measured with
Vega-Lite 6.4). So chartc computes the aggregate once per panel value with
a `joinaggregate` beside the facet (on every row, before any view
aggregates), carries it through each view's aggregate as a `detail` (one
value per panel, so it splits nothing), and sorts the panels by it.
When the Vega-Lite carries the engine's rows instead (their encoding
aggregates computed), the order is measured on the rows the data stage
computed and written as the panels' list (`order_facets`).
"""

from __future__ import annotations

import functools

# The field the panel order is carried in, per facet channel.
SORT_FIELD = "chartc_facet_sort_{}"


def hold_facet_sorts(vega_lite: dict, origins, facet) -> None:
    """Rewrite each facet channel's aggregate sort as a field every view keeps (see the module's docstring).

    Args:
        vega_lite: the compiled chart, changed in place.
        origins: the translator's `Origins`: the added transform is the facet channel's.
        facet: the chart's `ir.nodes.Facet`.
    """
    channels = vega_lite.get("facet")
    if not isinstance(channels, dict):
        return
    wrapped = "field" in channels  # a wrapped facet is the channel itself
    for name, channel in ([("facet", channels)] if wrapped else list(channels.items())):
        sort = channel.get("sort") if isinstance(channel, dict) else None
        if not isinstance(sort, dict) or "op" not in sort:
            continue
        views = list(_units(vega_lite.get("spec", {})))
        if not any(_aggregates(view) for view in views):
            continue  # the panels see every row: Vega-Lite orders them right
        carried = SORT_FIELD.format(name)
        step = {"joinaggregate": [{"op": sort["op"], **({"field": sort["field"]} if "field" in sort else {}),
                                   "as": carried}], "groupby": [channel["field"]]}
        transforms = vega_lite.setdefault("transform", [])
        node = facet.row if name == "row" else facet.column if name == "column" else facet.channels()[0]
        origins.record(("transform", len(transforms)), node, "sort")
        transforms.append(step)
        for view in views:
            if _aggregates(view):
                detail = view["encoding"].get("detail")
                details = detail if isinstance(detail, list) else [detail] if detail else []
                view["encoding"]["detail"] = [*details, {"field": carried, "type": "quantitative"}]
        channel["sort"] = {"field": carried, "op": "max", **({"order": sort["order"]} if "order" in sort else {})}


def _units(spec: dict):
    """The unit views of a facet's inner spec: itself, or its layers."""
    if "layer" in spec:
        for layer in spec["layer"]:
            yield from _units(layer)
    elif "mark" in spec:
        yield spec


def _aggregates(view: dict) -> bool:
    return any(isinstance(definition, dict) and "aggregate" in definition
               for definition in view.get("encoding", {}).values())


def order_facets(vega_lite: dict, tables) -> None:
    """Each facet channel's aggregate sort as the panels' explicit order, from the rows the engine computed.

    When the Vega-Lite carries rows the data stage has already aggregated,
    the sort's field may be gone from them (the measure of `x: {field: yield,
    aggregate: median}` is a column of its own), so no sort Vega-Lite computes
    can hold: the order is measured here, by Vega's op over each panel's rows
    before any encoding aggregated them, and written as the list of panel values.

    Args:
        vega_lite: the compiled chart, changed in place.
        tables: the mark layers' rows through their transforms (`Rows.table`), before any encoding aggregate.
    """
    from ..data.vega import js_cell, js_less, measure

    channels = vega_lite.get("facet")
    if not isinstance(channels, dict):
        return
    for channel in [channels] if "field" in channels else list(channels.values()):
        sort = channel.get("sort") if isinstance(channel, dict) else None
        if not isinstance(sort, dict) or "op" not in sort or "field" not in channel:
            continue
        groups: dict = {}  # panel value -> the sort field's JavaScript values, in row order
        for table in tables:
            if channel["field"] not in table.names:
                continue
            for record in table.records():
                cell = js_cell(record.get(sort.get("field"))) if "field" in sort else None
                groups.setdefault(record.get(channel["field"]), []).append(cell)
        if not groups:
            continue
        measured = [(measure(sort["op"], values, list(range(len(values))), lambda row: {}), panel)
                    for panel, values in groups.items()]
        descending = sort.get("order") == "descending"
        order = _stable_sort(measured, descending, js_less)
        channel["sort"] = [panel for _, panel in order]


def _stable_sort(measured: list, descending: bool, less) -> list:
    """Panels by their measure (Vega's comparison), ties in the order the rows first name them."""
    def compare(a, b) -> int:
        if less(a[0], b[0]):
            return 1 if descending else -1
        if less(b[0], a[0]):
            return -1 if descending else 1
        return 0

    return sorted(measured, key=functools.cmp_to_key(compare))
