"""Frozen spec types for a schema-valid chart, and the normalisation into them.

`parse_chart` turns the validated document into a `ChartSpec`: shorthand
channels (`x: bpb`) become mappings, a single `mark` becomes one layer, and
each layer's encoding is the chart's encoding overridden channel by channel.
Python field names match the schema keys, so spec paths read like the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import SpecPath

Mapping = dict  # plain JSON-like mappings, never mutated after parsing


@dataclass(frozen=True, slots=True)
class DataSpec:
    """Exactly one of `values`, `path` or `dataset`."""

    values: tuple | None = None
    path: str | None = None
    dataset: str | None = None
    format: str | None = None
    sample: int | None = None  # rows to draw (all are fitted); None draws every row


@dataclass(frozen=True, slots=True)
class MarkerStyle:
    """How one category is drawn; None means "not declared"."""

    shape: str | None = None
    color: str | None = None
    size: float | None = None
    filled: bool | None = None
    opacity: float | None = None
    stroke: str | None = None
    strokeWidth: float | None = None
    dash: tuple | None = None
    width: float | None = None
    label: str | None = None


@dataclass(frozen=True, slots=True)
class MarkersSpec:
    """Per-category styles, in the declared (legend) order."""

    field: str
    styles: tuple[tuple[str, MarkerStyle], ...]
    default: MarkerStyle | None = None
    title: str | None = None
    has_title: bool = False  # `title: null` hides the title; absent uses the field name


@dataclass(frozen=True, slots=True)
class TrendSpec:
    """A fitted trend line (see schemas/ for each key)."""

    method: str = "linear"
    order: int | None = None
    bandwidth: float = 0.3
    window: int | None = None
    by: str | None = None
    band: float | None = None
    prediction: float | None = None
    label: str | None = None
    annotate: Any = None               # a corner, or {position, text}
    extent: Any = "data"
    space: str = "axis"
    style: Mapping = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LayerSpec:
    """One layer with its effective encoding (chart encoding + layer overrides)."""

    path: SpecPath                      # where the layer is in the file: ("layers", 1) or ()
    mark: Mapping | None                # {"type": "point", ...}; None for a trend layer
    encoding: Mapping                   # channel -> channel mapping (or list for tooltip/detail)
    channel_paths: Mapping              # channel -> spec path of its declaration
    markers: MarkersSpec | None = None
    trend: TrendSpec | None = None
    transform: tuple = ()
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ChartSpec:
    """A whole chart, normalised."""

    data: DataSpec
    layers: tuple[LayerSpec, ...]
    title: str | None = None
    subtitle: str | None = None
    description: str | None = None
    width: Any = None
    height: Any = None
    transform: tuple = ()
    legend: Mapping = field(default_factory=dict)
    facet: Mapping | None = None
    config: Mapping = field(default_factory=dict)
    theme: str = "default"
    vega_lite: Mapping = field(default_factory=dict)


def parse_chart(data: Mapping) -> ChartSpec:
    """Normalise a schema-valid spec mapping into a `ChartSpec`.

    Args:
        data: the document's data, already valid against the chart schema.

    Returns:
        The chart with shorthand expanded and one `LayerSpec` per layer.
    """
    shared = _parse_encoding(data.get("encoding", {}), ("encoding",))
    if "layers" in data:
        layers = tuple(
            _parse_layer(layer, ("layers", i), shared) for i, layer in enumerate(data["layers"])
        )
    else:  # a single-mark chart is one layer declared at the top level
        layers = (_parse_layer(
            {"mark": data["mark"], **({"markers": data["markers"]} if "markers" in data else {})},
            (), shared),)
    return ChartSpec(
        data=DataSpec(
            values=tuple(data["data"]["values"]) if "values" in data["data"] else None,
            path=data["data"].get("path"),
            dataset=data["data"].get("dataset"),
            format=data["data"].get("format"),
            sample=data["data"].get("sample"),
        ),
        layers=layers,
        title=data.get("title"),
        subtitle=data.get("subtitle"),
        description=data.get("description"),
        width=data.get("width"),
        height=data.get("height"),
        transform=tuple(data.get("transform", ())),
        legend=dict(data.get("legend", {})),
        facet={k: (_channel(v) if k in ("row", "column") else v) for k, v in data["facet"].items()}
        if "facet" in data else None,
        config=dict(data.get("config", {})),
        theme=data.get("theme", "default"),
        vega_lite=dict(data.get("vega_lite", {})),
    )


def _channel(value):
    """`bpb` -> {"field": "bpb"}; lists (tooltip, detail) element-wise."""
    if isinstance(value, str):
        return {"field": value}
    if isinstance(value, list):
        return [_channel(v) for v in value]
    return dict(value)


def _parse_encoding(encoding: Mapping, path: SpecPath) -> dict[str, tuple]:
    """channel -> (normalised channel, spec path of its declaration)."""
    return {ch: (_channel(value), path + (ch,)) for ch, value in encoding.items()}


def _parse_layer(layer: Mapping, path: SpecPath, shared: dict) -> LayerSpec:
    own = _parse_encoding(layer.get("encoding", {}), path + ("encoding",))
    merged = {**shared, **own}
    mark = layer.get("mark")
    if isinstance(mark, str):
        mark = {"type": mark}
    return LayerSpec(
        path=path,
        mark=dict(mark) if mark is not None else None,
        encoding={ch: value for ch, (value, _) in merged.items()},
        channel_paths={ch: where for ch, (_, where) in merged.items()},
        markers=_parse_markers(layer["markers"]) if "markers" in layer else None,
        trend=_parse_trend(layer["trend"]) if "trend" in layer else None,
        transform=tuple(layer.get("transform", ())),
        name=layer.get("name"),
    )


def _parse_style(style: Mapping) -> MarkerStyle:
    values = dict(style)
    if "dash" in values:
        values["dash"] = tuple(values["dash"])
    return MarkerStyle(**values)


def _parse_markers(markers: Mapping) -> MarkersSpec:
    return MarkersSpec(
        field=markers["field"],
        styles=tuple((str(k), _parse_style(v)) for k, v in markers["styles"].items()),
        default=_parse_style(markers["default"]) if "default" in markers else None,
        title=markers.get("title"),
        has_title="title" in markers,
    )


def _parse_trend(trend: Mapping) -> TrendSpec:
    values = dict(trend)
    if isinstance(values.get("extent"), list):
        values["extent"] = tuple(values["extent"])
    values["style"] = dict(values.get("style", {}))
    return TrendSpec(**values)
