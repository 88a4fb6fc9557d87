"""The typed chart model: what a schema-valid spec means, as frozen dataclasses that know where they were written.

`ir.source` owns `Source` (a spec file's position index) and `Node` (a spec
path, the source, and `error`/`warning`/`locate` built from them);
`ir.nodes` the chart's nodes (`Chart`, `DataSource`, `Layer`, `Mark`,
`Channel`, `Encoding`, `Markers`, `MarkerStyle`, `Trend`, `Legend`,
`Facet`, `FreeForm`); `ir.transforms` one class per transform kind
(`Filter` with a `FieldPredicate`, an `Expression` or a `SelectionPredicate`, `Calculate`, `Fold`, `Pivot`, `Impute`,
`Aggregate`, `Window`, `JoinAggregate`, `Density`, `Lookup`), each declaring the fields it reads and `fields_after`;
`ir.expressions` the Vega expression language (parse, evaluate). The parse
stage (`stages.parse`) builds the model; every later stage reads it.

May import: `chartc.errors` only (and the standard library).
"""

from .nodes import (Channel, Chart, DataSource, Encoding, Facet, FreeForm, Layer, Legend, Mark, MarkerStyle, Markers,
                    Trend, freeze, thaw)
from .source import Node, Source
from .transforms import (Aggregate, AggregateOp, Calculate, Density, Expression, FieldPredicate, FieldRead, Fields,
                         Filter, Fold, Impute, JoinAggregate, Lookup, Pivot, SelectionPredicate, Transform, Window,
                         WindowOp)

__all__ = [
    "Aggregate", "AggregateOp", "Calculate", "Channel", "Chart", "DataSource", "Density", "Encoding", "Expression",
    "Facet", "FieldPredicate", "FieldRead", "Fields", "Filter", "Fold", "FreeForm", "Impute", "JoinAggregate", "Layer",
    "Legend", "Lookup", "Mark", "MarkerStyle", "Markers", "Node", "Pivot", "SelectionPredicate", "Source", "Transform",
    "Trend", "Window", "WindowOp", "freeze", "thaw",
]
