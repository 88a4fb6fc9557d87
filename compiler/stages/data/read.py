"""Reading a chart's rows: inline values, a file beside the spec, or an offline vega-datasets table.

`read_rows` reads them into a `table.Table` with parsed dates; `read_columns`
reads only the column names (for `chartc validate`), through the same
readers, so both refuse the same files with the same words.
`data_identity` hashes the rows' source (before they are read) for the
chart's provenance. Every failure is a `SpecError` at the spec's `data`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

from ... import errors as msg
from ...errors import SpecError
from ...infra.files import read_bounded
from ...infra.provenance import MAX_INPUT_BYTES, dataset_hash, input_hash, values_hash
from ...infra.table import (Table, TableError, data_row_line, from_records, json_reader_types, parse_dates,
                            read_delimited, read_header, record_names)
from ...ir.nodes import DataSource

# The step of the data stage that finds and reads the rows (the name diagnostics carry).
STAGE = "resolve"
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


def read_rows(data: DataSource) -> Table:
    """Load the chart's rows.

    Args:
        data: the chart's data source (its file's folder is the spec's).

    Returns:
        A table whose date columns are parsed to datetimes.

    Raises:
        SpecError: the file is missing, unreadable, outside the project, or empty.
    """
    limit = MAX_ROWS if data.sample is None else MAX_SAMPLED_ROWS
    if data.values is not None:
        table = _read_values(data, from_records)
    elif data.dataset is not None:
        table = load_dataset(data.dataset)
    else:
        table = _read_data_file(data, lambda path, suffix: READERS[suffix](path, limit + 1))
    if not len(table):
        raise _empty_data(data)
    if len(table) > limit:
        raise data.error(msg.data_too_many_rows(data.file or data.dataset or "values", limit), stage=STAGE,
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


def _in_git(root: Path) -> bool:
    """Whether `project_root` found a git work tree (else the root is the spec's folder)."""
    return (root / ".git").exists()


def spec_file(data: DataSource) -> Path:
    """The spec file the data source was read from (its data paths are relative to its folder)."""
    return Path(data.source.file if data.source is not None else ".")


def _read_data_file(data: DataSource, read):
    """`read(resolved path, suffix)` of the spec's data file, every failure a `SpecError` at `data.path`.

    `read_rows` and `read_columns` both read through here, so a file one
    of them refuses the other refuses with the same words.
    """
    def fail(reason: str, hint=None):
        return data.error(msg.data_unreadable(data.file, reason), "path", stage=STAGE, hint=hint)

    try:
        resolved, suffix = data_file(data)
        return read(resolved, suffix)
    except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop, no permission
        raise fail(getattr(exc, "strerror", None) or str(exc)) from None
    except ValueError as exc:  # TableError, or JSON that is not a list of records
        raise fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                   getattr(exc, "hint", None)) from None


def _read_values(data: DataSource, read):
    """`read(rows)` of inline `data.values`, every failure a `SpecError` at its place in the spec."""
    rows = data.records()
    for index, key in _nested_values(rows):  # a chart reads flat rows; nested ones break grouping
        raise data.error(msg.data_nested(key, index), "values", index, key, stage=STAGE, hint=msg.data_nested_hint())
    try:
        return read(rows)
    except TableError as exc:  # too many keys or cells
        raise data.error(str(exc), "values", stage=STAGE, hint=exc.hint) from None


def _empty_data(data: DataSource) -> SpecError:
    return data.error(msg.empty_data(), stage=STAGE, hint=msg.empty_data_hint())


def data_file(data: DataSource) -> tuple[Path, str]:
    """The data file a spec names, after every safety check, and its format suffix.

    Raises:
        SpecError: a URL, an absolute or escaping path, a missing file or
            directory, an unknown format or a file over the size limit.
    """
    path = data.file

    def fail(message, hint=None):
        return data.error(message, "path", stage=STAGE, hint=hint)

    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", path):
        raise fail(msg.data_url(path), msg.data_url_hint())
    if path.startswith("~") or os.path.isabs(path):
        raise fail(msg.data_path_absolute(path), msg.data_path_hint())
    spec = spec_file(data)
    target = (spec.parent / path)
    resolved = target.resolve()
    root = project_root(spec)
    if not resolved.is_relative_to(root):
        raise fail(msg.data_path_outside(path, root.name), msg.data_path_outside_hint(str(root), _in_git(root)))
    if not resolved.exists():
        raise fail(msg.file_not_found(path), _nearby_files(path, target))
    if not resolved.is_file():
        raise fail(msg.data_not_a_file(path))
    suffix = FORMAT_SUFFIX.get(data.format) or resolved.suffix.lower()
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

def read_columns(data: DataSource) -> list[str]:
    """The data's column names, read from the header alone (for `chartc validate`).

    A CSV/TSV file gives its header (and its first row, to tell it is not
    empty), a JSON file or inline values the keys of their records, a
    vega-datasets table its file in the package. The names are those
    `read_rows` gives (`table.read_header` and `table.record_names` are
    the full readers' own), so the light check and a compile agree.

    Raises:
        SpecError: every problem `read_rows` reports about the file's
            path, its header or keys (too many, too long, not UTF-8), and
            data without rows.
    """
    if data.values is not None:
        names, has_rows = _read_values(data, _json_header)
    elif data.dataset is not None:
        path, suffix = _dataset_file(data.dataset)
        names, has_rows = HEADER_READERS[suffix](path)
    else:
        names, has_rows = _read_data_file(data, lambda path, suffix: HEADER_READERS[suffix](path))
    if not has_rows:
        raise _empty_data(data)
    return names


def _dataset_file(name: str) -> tuple[Path, str]:
    """A vega-datasets table's file, found without importing the package (it imports pandas)."""
    folder = Path(importlib.util.find_spec("vega_datasets").submodule_search_locations[0]) / "_data"
    for suffix in (".csv", ".json"):
        if (folder / f"{name}{suffix}").is_file():
            return folder / f"{name}{suffix}", suffix
    raise FileNotFoundError(name)  # the schema's enum lists only the datasets shipped offline


def row_place(data: DataSource, index: int) -> str:
    """Where data row `index` is, for a message: a line of the data file, else the row's number."""
    if data.file is not None:
        try:
            resolved, suffix = data_file(data)
            line = data_row_line(resolved, DELIMITERS[suffix], index) if suffix in DELIMITERS else None
        except (SpecError, OSError):  # read a moment ago; if it is gone now, the row number still says which
            line = None
        if line is not None:
            return msg.data_file_line(data.file, line)
    return msg.data_row_number(index)


# ----------------------------------------------------------------- identity

def data_source(data: DataSource) -> tuple[str, object]:
    """Where `read_rows` takes the chart's rows from, for provenance hashes.

    Args:
        data: the chart's data source (already read without error).

    Returns:
        ``("values", rows)`` for inline values, ``("dataset", name)`` for a
        vega-datasets table, or ``("path", resolved file path)`` — the same
        file `read_rows` reads.
    """
    if data.values is not None:
        return ("values", data.records())
    if data.dataset is not None:
        return ("dataset", data.dataset)
    return ("path", (spec_file(data).parent / data.file).resolve())


def data_identity(data: DataSource) -> tuple[str, str, Path | None]:
    """Label, hash and (for files) path of the rows a chart is compiled from.

    The pipeline calls this before `read_rows` reads the rows: a data
    file saved in between then differs from the hash recorded, so the chart
    stays stale and the next build renders it again (never the other way
    round: a hash newer than the rows drawn).

    Args:
        data: the chart's data source.

    Returns:
        ``("values", hash, None)``, ``("dataset:NAME", hash, None)`` or
        ``(path as written in the spec, hash, resolved path)``.

    Raises:
        SpecError: the data file fails `data_file`'s checks (outside the
            project, missing, too large, ...) or cannot be read.
    """
    try:
        kind, value = data_source(data)
        if kind == "values":
            return "values", values_hash(value), None
        if kind == "dataset":
            return f"dataset:{value}", dataset_hash(value), None
        resolved, _ = data_file(data)
        return data.file, input_hash(read_bounded(resolved, MAX_INPUT_BYTES)), resolved
    except (OSError, RuntimeError) as error:  # a symlink loop, no permission: as `read_rows` reports them
        raise data.error(msg.data_unreadable(data.file, getattr(error, "strerror", None) or str(error)), "path",
                         stage=STAGE) from None
