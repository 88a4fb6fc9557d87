"""Stage 3: load the chart's data, check the spec against it, and say what the rows were.

`resolve_data` reads the rows (inline values, a file beside the spec, or an
offline vega-datasets table) into a `table.Table` with parsed dates.
`check_chart` follows the fields through the transforms and reports every
field a channel, marker map, trend or facet names that the data lacks, at the
position where the spec names it. `data_identity` hashes the rows' source
(before they are read) for the chart's provenance.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

from .. import errors as msg
from ..errors import SpecError
from ..infra.files import read_bounded
from ..infra.provenance import MAX_INPUT_BYTES, dataset_hash, input_hash, values_hash
from ..infra.table import (DATE, TEXT, Table, TableError, data_row_line, from_records, is_missing,
                           json_reader_types, parse_date, parse_dates, read_delimited, read_header, record_names,
                           to_number)
from ..ir.model import ChartSpec, LayerSpec
from .load import Document
from .markers import check_markers

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_ROWS = 100_000  # far more marks than a chart can show; ~10⁶ points abort the renderer (vl-convert#210)
# Rows a chart may read when it draws a `sample` of them (and fits every one).
MAX_SAMPLED_ROWS = 2_000_000
DELIMITERS = {".csv": ",", ".tsv": "\t"}
# Readers of a data file; past `max_rows` rows they stop reading (one more is read, to tell).
READERS = {
    ".csv": lambda path, max_rows: read_delimited(path, ",", max_rows=max_rows),
    ".tsv": lambda path, max_rows: read_delimited(path, "\t", max_rows=max_rows),
    ".json": lambda path, max_rows: from_records(_read_json_rows(path)),
}
# The same files' column names, and whether a row follows, for `read_columns`:
# the readers above name columns with the same functions.
HEADER_READERS = {
    ".csv": lambda path: read_header(path, ","),
    ".tsv": lambda path: read_header(path, "\t"),
    ".json": lambda path: _json_header(_read_json_rows(path)),
}
FORMAT_SUFFIX = {"csv": ".csv", "tsv": ".tsv", "json": ".json"}
# Date columns of the vega-datasets tables not written as ISO dates (as the
# package's own pandas loaders parse them).
DATASET_DATES = {
    "seattle-temps": {"date": "%Y/%m/%d %H:%M"},
    "seattle-weather": {"date": "%Y/%m/%d"},
    "sf-temps": {"date": "%Y/%m/%d %H:%M:%S"},
    "stocks": {"date": "%b %d %Y"},
}


def resolve_data(spec: ChartSpec, doc: Document) -> Table:
    """Load the chart's rows.

    Args:
        spec: the parsed chart.
        doc: its document, for positions and the spec file's folder.

    Returns:
        A table whose date columns are parsed to datetimes.

    Raises:
        SpecError: the file is missing, unreadable, outside the project, or empty.
    """
    data = spec.data
    limit = MAX_ROWS if data.sample is None else MAX_SAMPLED_ROWS
    if data.values is not None:
        table = _read_values(data.values, doc, from_records)
    elif data.dataset is not None:
        table = load_dataset(data.dataset)
    else:
        table = _read_data_file(data.path, data.format, doc, lambda path, suffix: READERS[suffix](path, limit + 1))
    if not len(table):
        raise _empty_data(doc)
    if len(table) > limit:
        raise SpecError(msg.data_too_many_rows(data.path or data.dataset or "values", limit), ("data",),
                        location=doc.locate(("data",)), stage="resolve",
                        hint=msg.data_too_many_rows_hint(sampled=data.sample is not None))
    return table


def load_dataset(name: str) -> Table:
    """A vega-datasets table shipped with the package, typed as its pandas loader types it."""
    path, suffix = _dataset_file(name)
    table = READERS[suffix](path, None)
    if suffix == ".json":
        table = json_reader_types(table)
    return parse_dates(table, DATASET_DATES.get(name))


def project_root(spec_file: Path) -> Path:
    """The folder data paths may not leave: the enclosing git work tree, else the spec's folder."""
    folder = spec_file.resolve().parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def _read_data_file(path: str, fmt: str | None, doc: Document, read):
    """`read(resolved path, suffix)` of the spec's data file, every failure a `SpecError` at `data.path`.

    `resolve_data` and `read_columns` both read through here, so a file one
    of them refuses the other refuses with the same words.
    """
    where = ("data", "path")

    def fail(reason: str, hint=None):
        return SpecError(msg.data_unreadable(path, reason), where, location=doc.locate(where), stage="resolve",
                         hint=hint)

    try:
        resolved, suffix = data_file(path, fmt, doc)
        return read(resolved, suffix)
    except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop, no permission
        raise fail(getattr(exc, "strerror", None) or str(exc)) from None
    except ValueError as exc:  # TableError, or JSON that is not a list of records
        raise fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                   getattr(exc, "hint", None)) from None


def _read_values(values, doc: Document, read):
    """`read(rows)` of inline `data.values`, every failure a `SpecError` at its place in the spec."""
    for index, key in _nested_values(values):  # a chart reads flat rows; nested ones break grouping
        where = ("data", "values", index, key)
        raise SpecError(msg.data_nested(key, index), where, location=doc.locate(where), stage="resolve",
                        hint=msg.data_nested_hint())
    try:
        return read(list(values))
    except TableError as exc:  # too many keys or cells
        where = ("data", "values")
        raise SpecError(str(exc), where, location=doc.locate(where), stage="resolve", hint=exc.hint) from None


def _empty_data(doc: Document) -> SpecError:
    return SpecError(msg.empty_data(), ("data",), location=doc.locate(("data",)),
                     stage="resolve", hint=msg.empty_data_hint())


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


def _read_json_rows(path: Path) -> list[dict]:
    """A JSON list of flat records; anything else (a number, a mapping, a list of lists) is refused.

    A byte order mark is skipped, as in a CSV file (Windows editors write one).
    """
    try:
        rows = json.loads(path.read_text(encoding="utf-8-sig"))
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise ValueError('expected a JSON list of records, e.g. [{"x": 1, "y": 2}]')
    for index, key in _nested_values(rows):
        raise ValueError(msg.data_nested(key, index))
    return rows


def _json_header(rows: list[dict]) -> tuple[list[str], bool]:
    """Records' column names (as `from_records` names them) and whether there is a row."""
    return record_names(rows), bool(rows)


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


# ----------------------------------------------------------------- columns

def read_columns(spec: ChartSpec, doc: Document) -> list[str]:
    """The data's column names, read from the header alone (for `chartc validate`).

    A CSV/TSV file gives its header (and its first row, to tell it is not
    empty), a JSON file or inline values the keys of their records, a
    vega-datasets table its file in the package. The names are those
    `resolve_data` gives (`table.read_header` and `table.record_names` are
    the full readers' own), so the light check and a compile agree.

    Raises:
        SpecError: every problem `resolve_data` reports about the file's
            path, its header or keys (too many, too long, not UTF-8), and
            data without rows.
    """
    data = spec.data
    if data.values is not None:
        names, has_rows = _read_values(data.values, doc, _json_header)
    elif data.dataset is not None:
        path, suffix = _dataset_file(data.dataset)
        names, has_rows = HEADER_READERS[suffix](path)
    else:
        names, has_rows = _read_data_file(data.path, data.format, doc,
                                          lambda path, suffix: HEADER_READERS[suffix](path))
    if not has_rows:
        raise _empty_data(doc)
    return names


def _dataset_file(name: str) -> tuple[Path, str]:
    """A vega-datasets table's file, found without importing the package (it imports pandas)."""
    folder = Path(importlib.util.find_spec("vega_datasets").submodule_search_locations[0]) / "_data"
    for suffix in (".csv", ".json"):
        if (folder / f"{name}{suffix}").is_file():
            return folder / f"{name}{suffix}", suffix
    raise FileNotFoundError(name)  # the schema's enum lists only the datasets shipped offline


# ----------------------------------------------------------------- types

def field_types(table: Table) -> dict[str, str]:
    """Column -> inferred measurement type."""
    return {name: table.measurement(name) for name in table.names}


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

def check_chart(spec: ChartSpec, table: Table | None, doc: Document,
                *, columns: list[str] | None = None) -> list[SpecError]:
    """Check every field reference against the data, through the transforms.

    Args:
        spec: the parsed chart.
        table: its rows, from `resolve_data`; None to check field names only.
        doc: its document, for positions.
        columns: the data's column names, when `table` is None (`read_columns`).

    Returns:
        Errors and `SpecWarning`s, in file order. Checks of the values
        themselves (log scales, dates, marker categories) need `table`.
    """
    problems: list[SpecError] = []

    base = field_types(table) if table is not None else {c: "nominal" for c in columns}

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
        _check_layer(layer, fields, table, doc, need, problems, spec.transform, spec)
    for channel, definition in (spec.facet or {}).items():
        if channel in ("row", "column") and "field" in definition:
            written_as_object = "field" in _raw(doc, ("facet", channel))  # not `column: species`
            need(definition["field"], shared, ("facet", channel) + (("field",) if written_as_object else ()))
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


def _check_layer(layer: LayerSpec, fields, table, doc, need, problems, transforms=(), spec=None) -> None:
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
            if table is None:
                continue
            if item.get("scale", {}).get("type") == "log":
                rows = rows_through(table, (*transforms, *layer.transform))
                if rows is not None and item["field"] in rows and not item.get("aggregate"):
                    _check_log_scale(rows[item["field"]], item["field"], where + ("scale", "type"), doc, problems)
            if item.get("type") == "temporal" and item["field"] in table:
                _check_dates(table, item["field"], where + ("type",), doc, problems, spec)
    if layer.markers:
        need(layer.markers.field, fields, layer.path + ("markers", "field"))
        if layer.markers.field in fields and table is not None:
            problems.extend(check_markers(layer, table, doc))
    if layer.trend and layer.trend.by is not None:
        need(layer.trend.by, fields, layer.path + ("trend", "by"))


# Field predicates of a filter transform, one cell at a time. A missing cell
# passes only `valid: false`; comparing numbers with text raises TypeError.
PREDICATE_TESTS = {
    "equal": lambda x, v: x == v,
    "oneOf": lambda x, v: x in v,  # v: a frozenset (a list among the values cannot be one)
    "range": lambda x, v: (v[0] is None or x >= v[0]) and (v[1] is None or x <= v[1]),
    "lt": lambda x, v: x < v,
    "lte": lambda x, v: x <= v,
    "gt": lambda x, v: x > v,
    "gte": lambda x, v: x >= v,
}


def rows_through(table: Table, transforms) -> Table | None:
    """The rows that reach the marks, when the transforms only filter by field predicates.

    Args:
        table: the chart's rows.
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
        if not isinstance(predicate, dict) or predicate.get("field") not in table:
            return None
        try:
            keep = predicate_mask(table, predicate)
        except IncomparableFilter:  # e.g. a number compared with text: leave it to Vega
            return None
        table = table.select(keep)
    return table


class IncomparableFilter(TypeError):
    """A predicate value that cannot be compared with the field's values."""

    def __init__(self, test: str, value):
        super().__init__(test, value)
        self.test, self.value = test, value


def predicate_mask(table: Table, predicate: dict) -> list[bool]:
    """Which rows pass a field predicate (date text compares as a date on a date column).

    Raises:
        IncomparableFilter: the values cannot be compared (numbers against text).
    """
    column = table[predicate["field"]]
    dates = table.kinds.get(predicate["field"]) == DATE
    keep = [True] * len(column)
    for test, value in predicate.items():
        if test == "field":
            continue
        if test == "valid":
            keep = [k and (is_missing(x) != bool(value)) for k, x in zip(keep, column)]
            continue
        wanted = _as_dates(value) if dates else value
        try:
            if test == "oneOf":
                wanted = frozenset(wanted)
            keep = [k and not is_missing(x) and bool(PREDICATE_TESTS[test](x, wanted)) for k, x in zip(keep, column)]
        except (TypeError, ValueError) as error:  # text against numbers, lists among values
            raise IncomparableFilter(test, value) from error
    return keep


def _as_dates(value):
    """Predicate values as dates where they are date text (others stay as they are)."""
    if isinstance(value, list):
        return [_as_dates(item) for item in value]
    if isinstance(value, str):
        try:
            return parse_date(value)
        except ValueError:
            return value
    return value


def _raw_or_none(doc: Document, path):
    node = doc.data
    try:
        for key in path:
            node = node[key]
    except (KeyError, IndexError, TypeError):
        return None
    return node


def _check_log_scale(values: list, field: str, path, doc, problems) -> None:
    bad = sum(1 for value in values if to_number(value) <= 0)
    if bad:
        problems.append(SpecError(
            msg.log_scale_non_positive(field, bad), path, location=doc.locate(path),
            stage="check", hint=msg.log_scale_hint()))


def _check_dates(table: Table, field: str, path, doc, problems, spec=None) -> None:
    """Text a temporal channel cannot place would silently drop or misplace its marks."""
    if table.kinds[field] not in (TEXT, None):  # numbers are timestamps; dates are parsed
        return
    values = table[field]
    first = next((index for index, value in enumerate(values) if isinstance(value, str) and day_first(value)), None)
    if first is not None:  # the renderer drops these, and reads the rest month first
        where = _row_place(spec, doc, first)
        problems.append(SpecError(msg.day_first_dates(field, values[first], where), path, location=doc.locate(path),
                                  stage="check", hint=msg.day_first_dates_hint()))
        return
    bad = [value for value in table.unique(field) if isinstance(value, str) and not readable_date(value)]
    if bad:
        problems.append(SpecError(msg.not_dates(field, bad), path, location=doc.locate(path),
                                  stage="check", hint=msg.not_dates_hint()))


# A date written with numbers, day or month first: 31/12/2020, 12.31.20, 1-2-2020.
NUMERIC_DATE = re.compile(r"^\s*(\d{1,2})([/.-])(\d{1,2})\2(?:\d{4}|\d{2})(?!\d)", re.ASCII)


def day_first(text: str) -> bool:
    """Whether date text is written day first, which the renderer (JavaScript's Date) cannot read.

    It reads a numeric date month first: 12/31/2020 is a day, 31/12/2020 is
    no date at all (and 01/02/2020 is January 2).
    """
    match = NUMERIC_DATE.match(text)
    return match is not None and int(match.group(1)) > 12


def _row_place(spec, doc: Document, index: int) -> str:
    """Where data row `index` is, for a message: a line of the data file, else the row's number."""
    data = spec.data if spec is not None else None
    if data is not None and data.path is not None:
        try:
            resolved, suffix = data_file(data.path, data.format, doc)
            line = data_row_line(resolved, DELIMITERS[suffix], index) if suffix in DELIMITERS else None
        except (SpecError, OSError):  # read a moment ago; if it is gone now, the row number still says which
            line = None
        if line is not None:
            return msg.data_file_line(data.path, line)
    return msg.data_row_number(index)


def readable_date(text: str) -> bool:
    """Whether date text reads as a day that exists: ISO, or a common form such as "Jan 1 2000"."""
    try:
        parse_date(text)
        return True
    except ValueError:
        pass
    from dateutil import parser  # the loose reading, only for the rare text column on a time axis

    try:
        parser.parse(text)
    except (ValueError, OverflowError):
        return False
    return True


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


def data_identity(spec: ChartSpec, doc: Document) -> tuple[str, str, Path | None]:
    """Label, hash and (for files) path of the rows a chart is compiled from.

    The pipeline calls this before `resolve_data` reads the rows: a data
    file saved in between then differs from the hash recorded, so the chart
    stays stale and the next build renders it again (never the other way
    round: a hash newer than the rows drawn).

    Args:
        spec: the parsed chart.
        doc: its document.

    Returns:
        ``("values", hash, None)``, ``("dataset:NAME", hash, None)`` or
        ``(path as written in the spec, hash, resolved path)``.

    Raises:
        SpecError: the data file fails `data_file`'s checks (outside the
            project, missing, too large, ...) or cannot be read.
    """
    try:
        kind, value = data_source(spec, doc)
        if kind == "values":
            return "values", values_hash(value), None
        if kind == "dataset":
            return f"dataset:{value}", dataset_hash(value), None
        resolved, _ = data_file(spec.data.path, spec.data.format, doc)
        return spec.data.path, input_hash(read_bounded(resolved, MAX_INPUT_BYTES)), resolved
    except (OSError, RuntimeError) as error:  # a symlink loop, no permission: as `resolve_data` reports them
        where = ("data", "path")
        raise SpecError(msg.data_unreadable(spec.data.path, getattr(error, "strerror", None) or str(error)),
                        where, location=doc.locate(where), stage="resolve") from None
