"""Marker maps: per-category styles -> scales that share one legend.

Colour, shape and size are encoded from the same field with the same domain
(the declared order) and the same title, so Vega-Lite draws one legend.
"""

from __future__ import annotations

from .model import LayerSpec, MarkerStyle
from .shapes import resolve_shape

DEFAULT_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
DEFAULT_SHAPE = "circle"
DEFAULT_SIZE = 64


def translate_markers(layer: LayerSpec, types: dict, alt) -> dict:
    """The colour/shape/size encodings of a layer's marker map."""
    markers = layer.markers
    domain = [value for value, _ in markers.styles]
    styles = [style for _, style in markers.styles]
    title = markers.title if markers.has_title else markers.field
    legend = alt.Legend(title=title)
    common = dict(field=markers.field, type="nominal", legend=legend)
    encodings = {
        "color": alt.Color(**common, scale=alt.Scale(domain=domain, range=[
            s.color or DEFAULT_COLORS[i % len(DEFAULT_COLORS)] for i, s in enumerate(styles)])),
        "shape": alt.Shape(**common, scale=alt.Scale(domain=domain, range=[
            resolve_shape(s.shape or DEFAULT_SHAPE) for s in styles])),
    }
    if any(s.size is not None for s in styles):
        encodings["size"] = alt.Size(**common, scale=alt.Scale(domain=domain, range=[
            s.size if s.size is not None else DEFAULT_SIZE for s in styles]))
    return encodings
