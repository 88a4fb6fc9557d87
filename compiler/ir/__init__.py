"""The typed chart model: what a schema-valid spec means, as frozen dataclasses.

`ir.model` owns `ChartSpec`, `LayerSpec`, `MarkerStyle` and the parse from a
checked document's data. Every stage reads it; it knows nothing of them.

May import: `chartc.errors` only (and the standard library).
"""
