"""The numerical fits behind trend layers: pure functions from x and y to a `TrendLine`.

`trends.fitting` fits every method (least squares, smoothers, their bands)
with numpy; `trends.tdist` is chartc's own Student t quantile for the bands.
Nothing here knows specs, documents or Vega-Lite.

May import: `chartc.errors`, numpy and the standard library.
"""
