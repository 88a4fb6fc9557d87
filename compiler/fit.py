"""Stage 4: fit every trend layer of a chart on its data.

The numbers come from `trend.fit_trend` (pure numpy); this stage picks the
rows and fields each trend layer sees, one fit per `by` group, and places any
failure at the trend's position in the spec file.
"""

from __future__ import annotations

import pandas as pd

from . import errors as msg
from .errors import SpecError
from .load import Document
from .model import ChartSpec, LayerSpec
from .trend import TrendLine, fit_trend, format_trend_label

# Transforms a trend's rows can pass through, evaluated here in pandas so the
# fitted numbers describe exactly the points drawn.
PREDICATE_TESTS = {
    "equal": lambda s, v: s == v,
    "oneOf": lambda s, v: s.isin(v),
    "range": lambda s, v: (s >= v[0] if v[0] is not None else True) & (s <= v[1] if v[1] is not None else True),
    "lt": lambda s, v: s < v,
    "lte": lambda s, v: s <= v,
    "gt": lambda s, v: s > v,
    "gte": lambda s, v: s >= v,
    "valid": lambda s, v: s.notna() if v else s.isna(),
}


def fit_chart(spec: ChartSpec, frame: pd.DataFrame, doc: Document) -> dict[tuple, list[TrendLine]]:
    """Fit each trend layer.

    Args:
        spec: the checked chart.
        frame: its rows.
        doc: the document, for positions.

    Returns:
        Layer path -> its fitted lines (one per group), in group order.

    Raises:
        SpecError: a fit is impossible (too few points, bad values, bad label).
    """
    fits = {}
    problems = []
    for layer in spec.layers:
        if layer.trend is None:
            continue
        try:
            fits[layer.path] = fit_layer(layer, spec, frame, doc)
        except SpecError as error:
            problems.extend(error.errors)
    if problems:
        raise SpecError.collect(problems)
    return fits


def fit_layer(layer: LayerSpec, spec: ChartSpec, frame: pd.DataFrame, doc: Document) -> list[TrendLine]:
    """The fitted lines of one trend layer (labels checked too)."""
    trend = layer.trend
    where = layer.path + ("trend",)
    if spec.facet is not None:
        raise SpecError(msg.trend_with_facet(), where, location=doc.locate(where, key=True), stage="fit")
    for channel in ("x", "y"):
        if "field" not in layer.encoding.get(channel, {}):
            raise SpecError(msg.trend_needs_xy(channel), where, location=doc.locate(where, key=True), stage="fit")
    rows = _apply_transforms(frame, (*spec.transform, *layer.transform), layer, doc)
    x_field, y_field = layer.encoding["x"]["field"], layer.encoding["y"]["field"]
    x_scale = layer.encoding["x"].get("scale", {}).get("type", "linear")
    y_scale = layer.encoding["y"].get("scale", {}).get("type", "linear")
    groups = [(None, rows)] if trend.by is None else [
        (str(key), part) for key, part in rows.groupby(trend.by, sort=False, dropna=True)]
    options = dict(
        order=trend.order, bandwidth=trend.bandwidth, window=trend.window, band=trend.band,
        prediction=trend.prediction, x_scale=x_scale, y_scale=y_scale, space=trend.space,
        extent=tuple(trend.extent) if trend.extent != "data" else None,
    )
    lines = []
    for group, part in groups:
        x = pd.to_numeric(part[x_field], errors="coerce").to_numpy(dtype=float)
        y = pd.to_numeric(part[y_field], errors="coerce").to_numpy(dtype=float)
        try:
            line = fit_trend(x, y, trend.method, group=group, **options)
            if trend.label is not None:
                format_trend_label(trend.label, line)  # fail here, at the label, not at render
        except SpecError as error:
            key = "label" if trend.label is not None and error.stage == "label" else None
            path = where + ((key,) if key else ())
            raise SpecError(error.message, path, location=doc.locate(path), stage="fit",
                            hint=error.hint) from None
        lines.append(line)
    return lines


def _apply_transforms(frame: pd.DataFrame, transforms, layer: LayerSpec, doc: Document) -> pd.DataFrame:
    for step in transforms:
        if "filter" in step and isinstance(step["filter"], dict):
            predicate = step["filter"]
            column = frame[predicate["field"]]
            keep = pd.Series(True, index=frame.index)
            for test, value in predicate.items():
                if test != "field":
                    keep &= PREDICATE_TESTS[test](column, value)
            frame = frame[keep]
        elif "fold" in step:
            key, value = step.get("as", ["key", "value"])
            frame = frame.melt(id_vars=[c for c in frame.columns if c not in step["fold"]],
                               value_vars=step["fold"], var_name=key, value_name=value)
        else:
            kind = "filter" if "filter" in step else "calculate" if "calculate" in step else "aggregate"
            where = layer.path + ("trend",)
            raise SpecError(msg.trend_unsupported_transform(kind), where,
                            location=doc.locate(where, key=True), stage="fit", hint=msg.trend_transform_hint())
    return frame
