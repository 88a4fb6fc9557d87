"""Trend layers: fitted lines (and bands) as Vega-Lite layers over inline data."""

from __future__ import annotations

from .model import LayerSpec

DEFAULT_STYLE = {"color": "gray", "width": 2}


def translate_trend_layers(layer: LayerSpec, lines, alt) -> list:
    """Line (and band) charts for the fitted lines of one trend layer."""
    style = {**DEFAULT_STYLE, **layer.trend.style}
    x_field = layer.encoding["x"]["field"]
    y_field = layer.encoding["y"]["field"]
    rows = [
        {x_field: x, y_field: y, "trend_group": line.group or ""}
        for line in lines for x, y in zip(line.x, line.y)
    ]
    mark = {"color": style["color"], "strokeWidth": style["width"]}
    if "dash" in style:
        mark["strokeDash"] = list(style["dash"])
    if "opacity" in style:
        mark["opacity"] = style["opacity"]
    chart = alt.Chart(alt.InlineData(values=rows)).mark_line(**mark).encode(
        x=alt.X(field=x_field, type="quantitative"),
        y=alt.Y(field=y_field, type="quantitative"),
        detail=alt.Detail(field="trend_group", type="nominal"),
    )
    return [chart]
