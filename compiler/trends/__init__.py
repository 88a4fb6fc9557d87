"""The numerical fits behind trend layers: pure functions from x and y to a `TrendLine`.

A trend method is one registered class (`trends.registry.TrendMethod`; the
built-ins, one file each, in `trends.methods`). `trends.fitting.fit_trend`
runs what every method shares (scale transforms, bands, extent, the curve)
with numpy; `trends.numerics` is least squares and its bands,
`trends.tdist` chartc's own Student t quantile, `trends.labels` the label
templates, `trends.schema` the JSON Schema's trend part written from the
registry. Nothing here knows specs, documents or Vega-Lite.

May import: `chartc.errors`, numpy and the standard library.
"""
