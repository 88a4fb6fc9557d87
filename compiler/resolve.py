"""Stage 3: load the chart's data and check the spec against it.

`resolve_data` reads the rows (inline values, a file beside the spec, or an
offline vega-datasets table) into a pandas frame with parsed dates.
`check_chart` follows the fields through the transforms and reports every
field a channel, marker map, trend or facet names that the data lacks, at the
position where the spec names it.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import errors as msg
from .errors import SpecError, SpecWarning
from .load import Document
from .model import ChartSpec, LayerSpec

MAX_FILE_BYTES = 50 * 1024 * 1024
DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
READERS = {
    ".csv": lambda p: pd.read_csv(p),
    ".tsv": lambda p: pd.read_csv(p, sep="\t"),
    ".json": lambda p: pd.read_json(p, orient="records", convert_dates=False),
}
FORMAT_SUFFIX = {"csv": ".csv", "tsv": ".tsv", "json": ".json"}


def resolve_data(spec: ChartSpec, doc: Document) -> pd.DataFrame:
    """Load the chart's rows.

    Args:
        spec: the parsed chart.
        doc: its document, for positions and the spec file's folder.

    Returns:
        A frame whose date columns are parsed to datetime64.

    Raises:
        SpecError: the file is missing, unreadable, outside the project, or empty.
    """
    data = spec.data
    if data.values is not None:
        frame = pd.DataFrame.from_records(list(data.values))
    elif data.dataset is not None:
        frame = _load_dataset(data.dataset)
    else:
        frame = _load_file(data.path, data.format, doc)
    if frame.empty:
        raise SpecError(msg.empty_data(), ("data",), location=doc.locate(("data",)),
                        stage="resolve", hint=msg.empty_data_hint())
    return _parse_dates(frame)


def _load_dataset(name: str) -> pd.DataFrame:
    from vega_datasets import local_data

    return getattr(local_data, name.replace("-", "_"))()


def project_root(spec_file: Path) -> Path:
    """The folder data paths may not leave: the enclosing git work tree, else the spec's folder."""
    folder = spec_file.resolve().parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def _load_file(path: str, fmt: str | None, doc: Document) -> pd.DataFrame:
    where = ("data", "path")
    location = doc.locate(where)

    def fail(message, hint=None):
        return SpecError(message, where, location=location, stage="resolve", hint=hint)

    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", path):
        raise fail(msg.data_url(path), msg.data_url_hint())
    if path.startswith("~") or os.path.isabs(path):
        raise fail(msg.data_path_absolute(path), msg.data_path_hint())
    spec_file = Path(doc.file)
    target = (spec_file.parent / path)
    resolved = target.resolve()
    root = project_root(spec_file)
    if not resolved.is_relative_to(root):
        raise fail(msg.data_path_outside(path, root.name), msg.data_path_hint())
    if not resolved.exists():
        raise fail(msg.file_not_found(path), _nearby_files(target))
    if not resolved.is_file():
        raise fail(msg.data_not_a_file(path))
    suffix = FORMAT_SUFFIX.get(fmt) or resolved.suffix.lower()
    if suffix not in READERS:
        raise fail(msg.data_unknown_format(path), msg.data_format_hint())
    size = resolved.stat().st_size
    if size > MAX_FILE_BYTES:
        raise fail(msg.data_too_large(path, size, MAX_FILE_BYTES))
    try:
        return READERS[suffix](resolved)
    except pd.errors.EmptyDataError:
        raise fail(msg.empty_data(), msg.empty_data_hint()) from None
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise fail(msg.data_unreadable(path, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)) from None


def _nearby_files(target: Path) -> str | None:
    folder = target.parent
    if not folder.is_dir():
        return None
    names = sorted(p.name for p in folder.iterdir() if p.is_file())
    return msg.did_you_mean(target.name, names)


def _parse_dates(frame: pd.DataFrame) -> pd.DataFrame:
    """Parse text columns that hold ISO dates, so they are temporal and zone-free."""
    frame = frame.copy()
    for column in frame.columns:
        series = frame[column]
        if series.dtype == object or pd.api.types.is_string_dtype(series):
            present = series.dropna()
            if len(present) and all(isinstance(v, str) and DATE_PATTERN.match(v) for v in present):
                parsed = pd.to_datetime(series, errors="coerce")
                if parsed.notna().sum() == len(present):
                    frame[column] = parsed
    return frame


# ----------------------------------------------------------------- types

def infer_type(series: pd.Series) -> str:
    """The Vega-Lite measurement type a column implies."""
    if pd.api.types.is_bool_dtype(series):
        return "nominal"
    if pd.api.types.is_datetime64_any_dtype(series):
        return "temporal"
    if pd.api.types.is_numeric_dtype(series):
        return "quantitative"
    return "nominal"


def field_types(frame: pd.DataFrame) -> dict[str, str]:
    """Column -> inferred measurement type."""
    return {str(c): infer_type(frame[c]) for c in frame.columns}


def transform_fields(fields: dict[str, str], transforms) -> dict[str, str]:
    """The fields (and their types) after a list of transforms."""
    fields = dict(fields)
    for step in transforms:
        if "calculate" in step:
            fields[step["as"]] = "quantitative"
        elif "fold" in step:
            key, value = step.get("as", ["key", "value"])
            folded = {fields.get(f, "quantitative") for f in step["fold"]}
            fields[key] = "nominal"
            fields[value] = folded.pop() if len(folded) == 1 else "nominal"
        elif "aggregate" in step:
            kept = {g: fields.get(g, "nominal") for g in step.get("groupby", [])}
            for agg in step["aggregate"]:
                kept[agg["as"]] = "quantitative"
            fields = kept
    return fields


# ----------------------------------------------------------------- checks

def check_chart(spec: ChartSpec, frame: pd.DataFrame, doc: Document) -> list[SpecError]:
    """Check every field reference against the data, through the transforms.

    Args:
        spec: the parsed chart.
        frame: its rows, from `resolve_data`.
        doc: its document, for positions.

    Returns:
        Errors and `SpecWarning`s, in file order.
    """
    problems: list[SpecError] = []

    def need(field, fields, path, key=False):
        if field not in fields:
            problems.append(SpecError(
                msg.field_not_found(field, fields), path, location=doc.locate(path, key=key),
                stage="check", hint=msg.did_you_mean(field, fields) or msg.available_columns(fields)))

    base = field_types(frame)
    shared = _check_transforms(spec.transform, base, ("transform",), need)
    for layer in spec.layers:
        fields = _check_transforms(layer.transform, shared, layer.path + ("transform",), need)
        _check_layer(layer, fields, frame, doc, need, problems)
    for channel, definition in (spec.facet or {}).items():
        if channel in ("row", "column") and "field" in definition:
            need(definition["field"], shared, ("facet", channel, "field") if "field" in _raw(doc, ("facet", channel)) else ("facet", channel))
    return sorted(problems, key=lambda p: (p.location.line, p.location.column) if p.location else (0, 0))


def _raw(doc: Document, path):
    node = doc.data
    for key in path:
        node = node[key]
    return node if isinstance(node, dict) else {}


def _check_transforms(transforms, fields, path, need) -> dict[str, str]:
    for index, step in enumerate(transforms):
        where = path + (index,)
        if isinstance(step.get("filter"), dict):
            need(step["filter"]["field"], fields, where + ("filter", "field"))
        for agg_index, agg in enumerate(step.get("aggregate", [])):
            if "field" in agg:
                need(agg["field"], fields, where + ("aggregate", agg_index, "field"))
        for group_index, group in enumerate(step.get("groupby", [])):
            need(group, fields, where + ("groupby", group_index))
        for fold_index, folded in enumerate(step.get("fold", [])):
            need(folded, fields, where + ("fold", fold_index))
        fields = transform_fields(fields, [step])
    return fields


def _check_layer(layer: LayerSpec, fields, frame, doc, need, problems) -> None:
    for channel, definition in layer.encoding.items():
        items = definition if isinstance(definition, list) else [definition]
        for index, item in enumerate(items):
            if "field" not in item:
                continue
            where = layer.channel_paths[channel]
            if isinstance(definition, list):
                where = where + (index,)
            # `x: bpb` declares the field as the channel's value itself
            declared_as_object = isinstance(_raw_or_none(doc, where), dict)
            need(item["field"], fields, where + ("field",) if declared_as_object else where)
            if item.get("scale", {}).get("type") == "log" and item["field"] in frame.columns:
                _check_log_scale(frame[item["field"]], item["field"], where + ("scale", "type"), doc, problems)
    if layer.markers:
        need(layer.markers.field, fields, layer.path + ("markers", "field"))
    if layer.trend and layer.trend.by:
        need(layer.trend.by, fields, layer.path + ("trend", "by"))


def _raw_or_none(doc: Document, path):
    node = doc.data
    try:
        for key in path:
            node = node[key]
    except (KeyError, IndexError, TypeError):
        return None
    return node


def _check_log_scale(series: pd.Series, field: str, path, doc, problems) -> None:
    values = pd.to_numeric(series, errors="coerce")
    bad = int((values <= 0).sum())
    if bad:
        problems.append(SpecError(
            msg.log_scale_non_positive(field, bad), path, location=doc.locate(path),
            stage="check", hint=msg.log_scale_hint()))


# ----------------------------------------------------------------- records

def to_records(frame: pd.DataFrame) -> list[dict]:
    """JSON-safe rows: NaN/inf become null, dates become zone-free ISO text.

    Dates are written as wall-clock time without an offset, so every reader
    (the renderer, any browser) shows the same calendar values whatever its
    time zone.
    """
    columns = [str(c) for c in frame.columns]
    converted = []
    for column in frame.columns:
        series = frame[column]
        if pd.api.types.is_datetime64_any_dtype(series):
            converted.append([None if pd.isna(v) else v.strftime("%Y-%m-%dT%H:%M:%S") for v in series])
        else:
            converted.append([_plain(v) for v in series.tolist()])
    return [dict(zip(columns, row)) for row in zip(*converted)]


def _plain(value):
    if value is None:
        return None
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%dT%H:%M:%S")
    return value
