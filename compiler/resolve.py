"""Stage 3: load the chart's data and check the spec against it.

`resolve_data` reads the rows (inline values, a file beside the spec, or an
offline vega-datasets table) into a pandas frame with parsed dates.
`check_chart` follows the fields through the transforms and reports every
field a channel, marker map, trend or facet names that the data lacks, at the
position where the spec names it.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import warnings
from pathlib import Path

from . import errors as msg
from .errors import SpecError, SpecWarning
from .load import Document
from .model import ChartSpec, LayerSpec

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_ROWS = 100_000  # far more marks than a chart can show; ~10⁶ points abort the renderer (vl-convert#210)
DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
# pandas is imported where rows are read, never at import: `chartc validate`
# checks specs against column names alone and stays light.
READERS = {
    ".csv": lambda p: _pandas().read_csv(p, nrows=MAX_ROWS + 1),  # stop reading past the row limit
    ".tsv": lambda p: _pandas().read_csv(p, sep="\t", nrows=MAX_ROWS + 1),
    ".json": lambda p: _read_json_records(p),
}
FORMAT_SUFFIX = {"csv": ".csv", "tsv": ".tsv", "json": ".json"}


def _pandas():
    import pandas

    return pandas


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
    pd = _pandas()
    data = spec.data
    if data.values is not None:
        for index, key in _nested_values(data.values):  # a chart reads flat rows; nested ones break grouping
            where = ("data", "values", index, key)
            raise SpecError(msg.data_nested(key, index), where, location=doc.locate(where), stage="resolve",
                            hint=msg.data_nested_hint())
        frame = pd.DataFrame.from_records(list(data.values))
    elif data.dataset is not None:
        frame = _load_dataset(data.dataset)
    else:
        try:
            frame = _load_file(data.path, data.format, doc)
        except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop, no permission
            raise SpecError(msg.data_unreadable(data.path, getattr(exc, "strerror", None) or str(exc)),
                            ("data", "path"), location=doc.locate(("data", "path")), stage="resolve") from None
    if frame.empty:
        raise SpecError(msg.empty_data(), ("data",), location=doc.locate(("data",)),
                        stage="resolve", hint=msg.empty_data_hint())
    if len(frame) > MAX_ROWS:
        raise SpecError(msg.data_too_many_rows(data.path or data.dataset or "values", MAX_ROWS), ("data",),
                        location=doc.locate(("data",)), stage="resolve", hint=msg.data_too_many_rows_hint())
    return _parse_dates(frame)


def _load_dataset(name: str) -> pd.DataFrame:
    from vega_datasets import local_data

    with warnings.catch_warnings():
        # vega_datasets passes pandas a deprecated read_json argument; not the user's concern.
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="vega_datasets")
        warnings.filterwarnings("ignore", message=".*convert_dates", category=DeprecationWarning)
        return getattr(local_data, name.replace("-", "_"))()


def project_root(spec_file: Path) -> Path:
    """The folder data paths may not leave: the enclosing git work tree, else the spec's folder."""
    folder = spec_file.resolve().parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def _load_file(path: str, fmt: str | None, doc: Document) -> pd.DataFrame:
    pd = _pandas()
    resolved, suffix = data_file(path, fmt, doc)
    where = ("data", "path")
    location = doc.locate(where)

    def fail(message, hint=None):
        return SpecError(message, where, location=location, stage="resolve", hint=hint)

    try:
        return READERS[suffix](resolved)
    except pd.errors.EmptyDataError:
        raise fail(msg.empty_data(), msg.empty_data_hint()) from None
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise fail(msg.data_unreadable(path, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)) from None


def data_file(path: str, fmt: str | None, doc: Document) -> tuple[Path, str]:
    """The data file a spec names, after every safety check, and its format suffix.

    Raises:
        SpecError: a URL, an absolute or escaping path, a missing file or
            directory, an unknown format or a file over the size limit.
    """
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
        raise fail(msg.file_not_found(path), _nearby_files(path, target))
    if not resolved.is_file():
        raise fail(msg.data_not_a_file(path))
    suffix = FORMAT_SUFFIX.get(fmt) or resolved.suffix.lower()
    if suffix not in READERS:
        raise fail(msg.data_unknown_format(path), msg.data_format_hint())
    size = resolved.stat().st_size
    if size > MAX_FILE_BYTES:
        raise fail(msg.data_too_large(path, size, MAX_FILE_BYTES))
    return resolved, suffix


def _read_json_records(path: Path) -> pd.DataFrame:
    """A JSON list of records; anything else (a number, a mapping, a list of lists) is refused."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise ValueError('expected a JSON list of records, e.g. [{"x": 1, "y": 2}]')
    for index, key in _nested_values(rows):
        raise ValueError(msg.data_nested(key, index))
    return _pandas().DataFrame.from_records(rows)


def _nested_values(rows):
    """(row index, key) of every value that is a list or a mapping."""
    for index, row in enumerate(rows):
        for key, value in row.items():
            if isinstance(value, (dict, list)):
                yield index, key


def _nearby_files(path: str, target: Path) -> str | None:
    """A near miss in the folder the path names, as the user would write it; else its files."""
    folder = target.parent
    if not folder.is_dir():
        return None
    names = sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    prefix = path[: len(path) - len(Path(path).name)]  # "data/" of "data/result.csv", as written
    close = msg.closest(target.name, names)
    return msg.did_you_mean(path, [prefix + close]) if close else msg.files_in_folder(prefix.rstrip("/\\") or ".", names)


def _parse_dates(frame: pd.DataFrame) -> pd.DataFrame:
    """Parse text columns that hold ISO dates, so they are temporal and zone-free."""
    pd = _pandas()
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


# ----------------------------------------------------------------- columns

def read_columns(spec: ChartSpec, doc: Document) -> list[str]:
    """The data's column names, read without pandas (for `chartc validate`).

    A CSV/TSV file gives its header line, a JSON file or inline values the
    keys of their records, a vega-datasets table its file in the package.

    Raises:
        SpecError: the same path problems `resolve_data` reports.
    """
    data = spec.data
    if data.values is not None:
        return list(dict.fromkeys(key for row in data.values for key in row))
    if data.dataset is not None:
        path, suffix = _dataset_file(data.dataset)
    else:
        path, suffix = data_file(data.path, data.format, doc)
    try:
        if suffix == ".json":
            rows = json.loads(path.read_text(encoding="utf-8"))
            return list(dict.fromkeys(k for row in rows if isinstance(row, dict) for k in row))
        with open(path, encoding="utf-8", newline="") as stream:
            return next(csv.reader(stream, delimiter="\t" if suffix == ".tsv" else ","), [])
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return _pandas_columns(spec, doc)  # let the full reader say what is wrong


def _pandas_columns(spec: ChartSpec, doc: Document) -> list[str]:
    return [str(c) for c in resolve_data(spec, doc).columns]


def _dataset_file(name: str) -> tuple[Path, str]:
    """A vega-datasets table's file, found without importing the package (it imports pandas)."""
    import importlib.util

    folder = Path(importlib.util.find_spec("vega_datasets").submodule_search_locations[0]) / "_data"
    for suffix in (".csv", ".json"):
        if (folder / f"{name}{suffix}").is_file():
            return folder / f"{name}{suffix}", suffix
    raise FileNotFoundError(name)  # the schema's enum lists only the datasets shipped offline


# ----------------------------------------------------------------- types

def infer_type(series: pd.Series) -> str:
    """The Vega-Lite measurement type a column implies."""
    pd = _pandas()
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

def check_chart(spec: ChartSpec, frame: pd.DataFrame | None, doc: Document,
                *, columns: list[str] | None = None) -> list[SpecError]:
    """Check every field reference against the data, through the transforms.

    Args:
        spec: the parsed chart.
        frame: its rows, from `resolve_data`; None to check field names only.
        doc: its document, for positions.
        columns: the data's column names, when `frame` is None (`read_columns`).

    Returns:
        Errors and `SpecWarning`s, in file order. Checks of the values
        themselves (log scales, dates, marker categories) need `frame`.
    """
    problems: list[SpecError] = []

    base = field_types(frame) if frame is not None else {c: "nominal" for c in columns}

    def need(field, fields, path, key=False):
        if field in fields:
            return
        if field in base:  # dropped by an aggregate or fold on the way
            message, hint = msg.field_dropped(field), msg.field_dropped_hint(list(fields))
        else:
            message, hint = msg.field_not_found(field, fields), msg.field_hint(field, list(fields))
        problems.append(SpecError(message, path, location=doc.locate(path, key=key), stage="check", hint=hint))

    shared = _check_transforms(spec.transform, base, ("transform",), need)
    for layer in spec.layers:
        fields = _check_transforms(layer.transform, shared, layer.path + ("transform",), need)
        _check_layer(layer, fields, frame, doc, need, problems, spec.transform)
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


def _check_layer(layer: LayerSpec, fields, frame, doc, need, problems, transforms=()) -> None:
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
            if frame is None:
                continue
            if item.get("scale", {}).get("type") == "log":
                rows = rows_through(frame, (*transforms, *layer.transform))
                if rows is not None and item["field"] in rows.columns and not item.get("aggregate"):
                    _check_log_scale(rows[item["field"]], item["field"], where + ("scale", "type"), doc, problems)
            if item.get("type") == "temporal" and item["field"] in frame.columns:
                _check_dates(frame[item["field"]], item["field"], where + ("type",), doc, problems)
    if layer.markers:
        need(layer.markers.field, fields, layer.path + ("markers", "field"))
        if layer.markers.field in fields and frame is not None:
            from .markers import check_markers  # styles vs the categories in the data

            problems.extend(check_markers(layer, frame, doc))
    if layer.trend and layer.trend.by is not None:
        need(layer.trend.by, fields, layer.path + ("trend", "by"))


# Field predicates of a filter transform, evaluated in pandas.
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


def rows_through(frame: pd.DataFrame, transforms) -> pd.DataFrame | None:
    """The rows that reach the marks, when the transforms only filter by field predicates.

    Args:
        frame: the chart's rows.
        transforms: the chart's and the layer's transforms, in order.

    Returns:
        The filtered rows (calculated fields are not added), or None when a
        transform (an expression filter, aggregate or fold) makes the rows
        unknowable without running Vega.
    """
    for step in transforms:
        if "calculate" in step:
            continue
        predicate = step.get("filter")
        if not isinstance(predicate, dict) or predicate.get("field") not in frame.columns:
            return None
        try:
            keep = predicate_mask(frame, predicate)
        except (TypeError, ValueError):  # e.g. a number compared with text: leave it to Vega
            return None
        frame = frame[keep]
    return frame


class IncomparableFilter(TypeError):
    """A predicate value that cannot be compared with the field's values."""

    def __init__(self, test: str, value):
        super().__init__(test, value)
        self.test, self.value = test, value


def predicate_mask(frame: pd.DataFrame, predicate: dict) -> pd.Series:
    """Which rows pass a field predicate.

    Raises:
        IncomparableFilter: the values cannot be compared (numbers against text).
    """
    column = frame[predicate["field"]]
    keep = _pandas().Series(True, index=frame.index)
    for test, value in predicate.items():
        if test != "field":
            try:
                keep &= PREDICATE_TESTS[test](column, value)
            except (TypeError, ValueError) as error:  # text against numbers, lists among values
                raise IncomparableFilter(test, value) from error
    return keep


def _raw_or_none(doc: Document, path):
    node = doc.data
    try:
        for key in path:
            node = node[key]
    except (KeyError, IndexError, TypeError):
        return None
    return node


def _check_log_scale(series: pd.Series, field: str, path, doc, problems) -> None:
    values = _pandas().to_numeric(series, errors="coerce")
    bad = int((values <= 0).sum())
    if bad:
        problems.append(SpecError(
            msg.log_scale_non_positive(field, bad), path, location=doc.locate(path),
            stage="check", hint=msg.log_scale_hint()))


def _check_dates(series: pd.Series, field: str, path, doc, problems) -> None:
    """Text a temporal channel cannot place would silently drop or misplace its marks."""
    pd = _pandas()
    bad = []
    text = series.dtype == object or pd.api.types.is_string_dtype(series)
    for value in series.dropna().unique() if text else ():
        try:
            pd.Timestamp(value) if isinstance(value, str) else None
        except (ValueError, TypeError, OverflowError):
            bad.append(value)
    if bad:
        problems.append(SpecError(msg.not_dates(field, bad), path, location=doc.locate(path),
                                  stage="check", hint=msg.not_dates_hint()))


# ----------------------------------------------------------------- records

def to_records(frame: pd.DataFrame) -> list[dict]:
    """JSON-safe rows: NaN/inf become null, dates become zone-free ISO text.

    Dates are written as wall-clock time without an offset, so every reader
    (the renderer, any browser) shows the same calendar values whatever its
    time zone.
    """
    pd = _pandas()
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
    import numpy as np

    pd = _pandas()
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


# ----------------------------------------------------------------- identity

def data_source(spec: ChartSpec, doc: Document) -> tuple[str, object]:
    """Where `resolve_data` takes the chart's rows from, for provenance hashes.

    Args:
        spec: the parsed chart (its data already resolved without error).
        doc: its document, for the spec file's folder.

    Returns:
        ``("values", rows)`` for inline values, ``("dataset", name)`` for a
        vega-datasets table, or ``("path", resolved file path)`` — the same
        file `resolve_data` reads.
    """
    data = spec.data
    if data.values is not None:
        return ("values", data.values)
    if data.dataset is not None:
        return ("dataset", data.dataset)
    return ("path", (Path(doc.file).parent / data.path).resolve())
