"""Stage 3: a schema-valid `Document` -> the typed chart model (`ir.Chart`), every node placed in the file.

`parse_chart` normalises as the rest of the compiler expects: shorthand
channels (`x: bpb`) become mappings (the `Channel` remembers it was
shorthand), a single `mark` becomes one layer, and each layer's encoding
is the chart's encoding overridden channel by channel. Every node gets its
spec path and the file's position index (`ir.Source`), so no later stage
needs the document.

Every Vega expression (`calculate`, an expression `filter`) is parsed here,
once; one that Vega would refuse is a diagnostic at its exact column, before
any data is read.
"""

from __future__ import annotations

import math

from collections.abc import Callable, Mapping
from dataclasses import fields, replace

from ..errors import SpecError, SpecPath
from ..ir import expressions
from ..ir.nodes import (Channel, Chart, DataSource, Encoding, Facet, FreeForm, Layer, Legend, Mark, MarkerStyle,
                        Markers, Param, Trend, freeze)
from ..ir.source import Source
from ..ir.transforms import (Aggregate, AggregateOp, Calculate, Expression, FieldPredicate, Filter, Fold, Impute,
                             JoinAggregate, Lookup, Pivot, Transform, Window, WindowOp)
from ..ir.transforms import Density
from ..ir.transforms import SelectionPredicate
from .load import Document

STAGE = "parse"
# The keys a `Trend` node has a field for; the rest are the method's own parameters.
TREND_FIELDS = frozenset(f.name for f in fields(Trend)) - {"path", "source", "parameters"}
# Channels whose value may be a list of channels.
LIST_CHANNELS = ("tooltip", "detail")


class _Parser:
    """One document's parse: the shared `Source`, and the expression problems found on the way."""

    def __init__(self, document: Document):
        self.source = Source(document.file, document.positions, document.key_positions, document.text_starts)
        self.problems: list[SpecError] = []

    def free(self, value: Mapping | None, path: SpecPath) -> FreeForm:
        return FreeForm(freeze(value or {}), path=path, source=self.source)

    # -------------------------------------------------------------- chart

    def chart(self, data: Mapping) -> Chart:
        shared = self.encoding(data.get("encoding", {}), ("encoding",))
        # The chart's own selections belong to a mark view (Vega-Lite selects on a unit): the first mark layer's.
        chart_params = self.params(data.get("params", ()), ("params",))
        if "layers" in data:
            layers = tuple(self.layer(layer, ("layers", index), index, shared)
                           for index, layer in enumerate(data["layers"]))
            first = next((layer for layer in layers if layer.mark is not None), None)
            if chart_params and first is not None:
                layers = tuple(replace(layer, params=chart_params + layer.params) if layer is first else layer
                               for layer in layers)
        else:  # a single-mark chart is one layer declared at the top level
            own = {"mark": data["mark"], **({"markers": data["markers"]} if "markers" in data else {})}
            layers = (replace(self.layer(own, (), 0, shared), params=chart_params),)
        legend = data.get("legend", {})
        return Chart(
            data=self.data_source(data["data"]),
            layers=layers,
            transform=self.transforms(data.get("transform", ()), ("transform",)),
            title=data.get("title"),
            subtitle=data.get("subtitle"),
            description=data.get("description"),
            width=data.get("width"),
            height=data.get("height"),
            preset=data.get("preset"),
            font_directory=data.get("font_directory"),
            legend=Legend(position=legend.get("position"), title=legend.get("title"), has_title="title" in legend,
                          columns=legend.get("columns"), path=("legend",), source=self.source),
            facet=self.facet(data["facet"]) if "facet" in data else None,
            resolve=self.free(data.get("resolve"), ("resolve",)),
            interactive=data.get("interactive", False),
            config=self.free(data.get("config"), ("config",)),
            theme=data.get("theme", "default"),
            vega_lite=self.free(data.get("vega_lite"), ("vega_lite",)),
            layered="layers" in data,
            path=(), source=self.source,
        )

    def data_source(self, data: Mapping, path: SpecPath = ("data",)) -> DataSource:
        return DataSource(
            values=freeze(data["values"]) if "values" in data else None,
            file=data.get("path"), dataset=data.get("dataset"), format=data.get("format"), sample=data.get("sample"),
            frame=data.get("frame"), catalog=data.get("table"),
            path=path, source=self.source)

    def facet(self, facet: Mapping) -> Facet:
        channels = {name: self.channel(name, facet[name], ("facet", name)) for name in ("row", "column")
                    if name in facet}
        return Facet(row=channels.get("row"), column=channels.get("column"), columns=facet.get("columns"),
                     path=("facet",), source=self.source)

    # -------------------------------------------------------------- layers

    def layer(self, layer: Mapping, path: SpecPath, index: int, shared: dict) -> Layer:
        own = self.encoding(layer.get("encoding", {}), path + ("encoding",))
        return Layer(
            index=index,
            mark=self.mark(layer["mark"], path + ("mark",)) if layer.get("mark") is not None else None,
            encoding=Encoding(tuple({**shared, **own}.items())),
            markers=self.markers(layer["markers"], path + ("markers",)) if "markers" in layer else None,
            trend=self.trend(layer["trend"], path + ("trend",)) if "trend" in layer else None,
            transform=self.transforms(layer.get("transform", ()), path + ("transform",)),
            name=layer.get("name"),
            params=self.params(layer.get("params", ()), path + ("params",)),
            vega_lite=self.free(layer.get("vega_lite"), path + ("vega_lite",)),
            path=path, source=self.source,
        )

    def params(self, params, path: SpecPath) -> tuple[Param, ...]:
        result = []
        for index, param in enumerate(params):
            where = path + (index,)
            select = param["select"]
            options = {} if isinstance(select, str) else {k: v for k, v in select.items() if k != "type"}
            result.append(Param(
                name=param["name"], select=select if isinstance(select, str) else select["type"],
                options=self.free(options, where + ("select",)), bind=param.get("bind"),
                value=freeze(param["value"]) if "value" in param else None,
                path=where, source=self.source))
        return tuple(result)

    def mark(self, mark, path: SpecPath) -> Mark:
        if isinstance(mark, str):
            return Mark(mark, self.free({}, path), shorthand=True, path=path, source=self.source)
        properties = {key: value for key, value in mark.items() if key != "type"}
        return Mark(mark["type"], self.free(properties, path), path=path, source=self.source)

    def encoding(self, encoding: Mapping, path: SpecPath) -> dict:
        """channel name -> Channel (or a tuple of them), in written order."""
        return {name: self.channel(name, value, path + (name,)) for name, value in encoding.items()}

    def channel(self, name: str, value, path: SpecPath):
        if isinstance(value, list):
            return tuple(self.channel(name, item, path + (index,)) for index, item in enumerate(value))
        if isinstance(value, str):  # `x: bpb` names the field
            return Channel(name, self.free({"field": value}, path), shorthand=True, path=path, source=self.source)
        condition = value.get("condition")
        if isinstance(condition, Mapping) and isinstance(condition.get("test"), str):
            self.expression(condition["test"], path + ("condition", "test"))  # refused here, at its column
        for index, item in enumerate(condition if isinstance(condition, list) else ()):  # a list, tried in order
            if isinstance(item, Mapping) and isinstance(item.get("test"), str):
                self.expression(item["test"], path + ("condition", index, "test"))
        return Channel(name, self.free(value, path), path=path, source=self.source)

    def style(self, style: Mapping, path: SpecPath) -> MarkerStyle:
        values = dict(style)
        if "dash" in values:
            values["dash"] = tuple(values["dash"])
        return MarkerStyle(**values, path=path, source=self.source)

    def markers(self, markers: Mapping, path: SpecPath) -> Markers:
        return Markers(
            field=markers["field"],
            styles=tuple((str(key), self.style(value, path + ("styles", key)))
                         for key, value in markers["styles"].items()),
            default=self.style(markers["default"], path + ("default",)) if "default" in markers else None,
            title=markers.get("title"),
            has_title="title" in markers,
            path=path, source=self.source,
        )

    def trend(self, trend: Mapping, path: SpecPath) -> Trend:
        values = dict(trend)
        if isinstance(values.get("extent"), list):
            values["extent"] = tuple(values["extent"])
        if isinstance(values.get("annotate"), Mapping):
            values["annotate"] = freeze(values["annotate"])
        values["style"] = self.free(values.get("style"), path + ("style",))
        # Every key the node has no field for is a method's own (the schema allows only registered ones).
        own = {key: values.pop(key) for key in list(values) if key not in TREND_FIELDS}
        return Trend(**values, parameters=self.free(own, path), path=path, source=self.source)

    # -------------------------------------------------------------- transforms

    def transforms(self, steps, path: SpecPath) -> tuple[Transform, ...]:
        result = []
        for index, step in enumerate(steps):
            kind = next(key for key in TRANSFORM_PARSERS if key in step)  # the schema admits exactly one
            result.append(TRANSFORM_PARSERS[kind](self, step, path + (index,)))
        return tuple(result)

    def expression(self, text: str, path: SpecPath) -> Expression:
        """An expression string, parsed; one Vega would refuse is reported at its column (its tree is then None)."""
        try:
            tree = expressions.parse(text)
        except expressions.ExpressionError as error:
            node = Expression(text, None, path=path, source=self.source)
            self.problems.append(node.error(error.message, stage=STAGE, hint=error.hint,
                                            location=node.locate_offset(min(error.offset, len(text)))))
            return node
        return Expression(text, tree, path=path, source=self.source)

    def filter(self, step: Mapping, path: SpecPath) -> Filter:
        predicate = step["filter"]
        if isinstance(predicate, str):
            node = self.expression(predicate, path + ("filter",))
        elif "param" in predicate:
            node = SelectionPredicate(predicate["param"], bool(predicate.get("empty", True)),
                                      path=path + ("filter",), source=self.source)
        else:
            node = FieldPredicate(predicate["field"], tuple((key, freeze(value)) for key, value in predicate.items()
                                                            if key != "field"),
                                  path=path + ("filter",), source=self.source)
        return Filter(node, path=path, source=self.source)

    def calculate(self, step: Mapping, path: SpecPath) -> Calculate:
        return Calculate(self.expression(step["calculate"], path + ("calculate",)), step["as"],
                         path=path, source=self.source)

    def fold(self, step: Mapping, path: SpecPath) -> Fold:
        return Fold(tuple(step["fold"]), tuple(step.get("as", ("key", "value"))), path=path, source=self.source)

    def aggregate(self, step: Mapping, path: SpecPath) -> Aggregate:
        ops = tuple(AggregateOp(op["op"], op["as"], op.get("field"), path=path + ("aggregate", index),
                                source=self.source) for index, op in enumerate(step["aggregate"]))
        return Aggregate(ops, tuple(step.get("groupby", ())), path=path, source=self.source)

    def pivot(self, step: Mapping, path: SpecPath) -> Pivot:
        return Pivot(step["pivot"], step["value"], tuple(step.get("groupby", ())), step.get("limit", 0),
                     step.get("op", "sum"), path=path, source=self.source)

    def impute(self, step: Mapping, path: SpecPath) -> Impute:
        keyvals = step.get("keyvals")
        if isinstance(keyvals, Mapping):  # Vega-Lite's sequence: Vega's `sequence(start, stop, step)`
            start, step_ = keyvals.get("start", 0), keyvals.get("step") or 1
            count = max(0, math.ceil((keyvals["stop"] - start) / step_))
            keyvals = [float(start + index * step_) for index in range(count)]
        return Impute(step["impute"], step["key"], None if keyvals is None else tuple(freeze(keyvals)),
                      tuple(step.get("groupby", ())), step.get("method", "value"),
                      freeze(step["value"]) if "value" in step else expressions.UNDEFINED,
                      tuple(step.get("frame", (None, None))), path=path, source=self.source)

    def window(self, step: Mapping, path: SpecPath) -> Window:
        ops = tuple(WindowOp(op["op"], op["as"], op.get("field"), op.get("param"), path=path + ("window", index),
                             source=self.source) for index, op in enumerate(step["window"]))
        sort = tuple((item["field"], item.get("order", "ascending")) for item in step.get("sort", ()))
        frame = tuple(step.get("frame", (None, 0)))
        return Window(ops, tuple(step.get("groupby", ())), sort, frame, bool(step.get("ignorePeers", False)),
                      path=path, source=self.source)

    def joinaggregate(self, step: Mapping, path: SpecPath) -> JoinAggregate:
        ops = tuple(AggregateOp(op["op"], op["as"], op.get("field"), path=path + ("joinaggregate", index),
                                source=self.source) for index, op in enumerate(step["joinaggregate"]))
        return JoinAggregate(ops, tuple(step.get("groupby", ())), path=path, source=self.source)

    def density(self, step: Mapping, path: SpecPath) -> Density:
        extent = step.get("extent")
        return Density(step["density"], tuple(step.get("groupby", ())), bool(step.get("cumulative", False)),
                       bool(step.get("counts", False)), float(step.get("bandwidth", 0)),
                       tuple(map(float, extent)) if extent is not None else None, step.get("minsteps"), step.get("maxsteps"),
                       step.get("steps"), tuple(step.get("as", ("value", "density"))), step.get("resolve"),
                       path=path, source=self.source)

    def lookup(self, step: Mapping, path: SpecPath) -> Lookup:
        where = step["from"]
        fields = tuple(where["fields"])
        names = step.get("as", fields)
        names = (names,) if isinstance(names, str) else tuple(names)
        return Lookup(step["lookup"], self.data_source(where["data"], path + ("from", "data")), where["key"], fields,
                      names, freeze(step.get("default")), path=path, source=self.source)


# The key that names a transform's kind -> how to parse it (one entry per `ir.transforms` class).
TRANSFORM_PARSERS: dict[str, Callable[[_Parser, Mapping, SpecPath], Transform]] = {
    "filter": _Parser.filter,
    "calculate": _Parser.calculate,
    "fold": _Parser.fold,
    "aggregate": _Parser.aggregate,
    "pivot": _Parser.pivot,
    "impute": _Parser.impute,
    "window": _Parser.window,
    "joinaggregate": _Parser.joinaggregate,
    "density": _Parser.density,
    "lookup": _Parser.lookup,
}


def parse_chart(document: Document) -> tuple[Chart, list[SpecError]]:
    """Build the chart model of a schema-valid document.

    Args:
        document: the loaded spec, already valid against the chart schema.

    Returns:
        The chart, and the problems of its expressions (each at its exact
        column; such an expression keeps its text, with no tree), in file order.
    """
    parser = _Parser(document)
    chart = parser.chart(document.data)
    problems = sorted(parser.problems, key=lambda p: (p.location.line, p.location.column) if p.location else (0, 0))
    return chart, problems
