"""The chart's rows as plain Python columns, typed the way pandas' readers type them.

A chart has at most `resolve.MAX_ROWS` rows and needs a handful of
operations on them: read a CSV, TSV or JSON file, give each column a kind,
filter by a field predicate, fold, count distinct groups, write JSON rows.
pandas does all of that, but importing it alone costs a cold `chartc
compile` ~0.2 s, so the pipeline works on a `Table` instead.

Columns are typed as `pandas.read_csv` and `pandas.DataFrame.from_records`
type them (tests compare the two on every shipped dataset and on generated
files): pandas' missing-value words (``NA``, ``null``, empty, ...) are None,
a column of integers and floats or missing values is all floats, a column
of ``true``/``false`` is booleans. Text columns whose every value is an ISO
date become dates (naive `datetime`, the wall clock as written).
"""

from __future__ import annotations

import contextlib
import csv
import datetime
import gc
import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

# The kinds of column, and the Vega-Lite measurement type each implies.
NUMBER, BOOLEAN, DATE, TEXT = "number", "boolean", "date", "text"
MEASUREMENT = {NUMBER: "quantitative", DATE: "temporal", BOOLEAN: "nominal", TEXT: "nominal"}

# pandas.read_csv's default missing-value words.
MISSING_WORDS = frozenset([
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
])
TRUE_WORDS = frozenset(["True", "TRUE", "true"])
FALSE_WORDS = frozenset(["False", "FALSE", "false"])
# Numbers as pandas reads them. ASCII digits only: int("١٢") is 12, but to
# pandas (and to Vega) it is text.
INTEGER_TEXT = r"[+-]?\d+"
FLOAT_TEXT = r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf(?:inity)?)"
INTEGER = re.compile(rf"^\s*{INTEGER_TEXT}\s*$", re.ASCII)
FLOAT = re.compile(rf"^\s*{FLOAT_TEXT}\s*$", re.I | re.ASCII)
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$", re.ASCII)


def _column_pattern(body: str, flags: int = 0) -> re.Pattern:
    """A whole column of cells (joined by newlines) that each match `body`, in one scan.

    Each cell is an atomic group, so a cell that does not match fails at once
    instead of trying every way of splitting the cells before it.
    """
    cell = rf"(?>[^\S\n]*{body}[^\S\n]*)"
    return re.compile(rf"(?:{cell}\n)*+{cell}", flags | re.ASCII)


INTEGERS = _column_pattern(INTEGER_TEXT)
FLOATS = _column_pattern(FLOAT_TEXT, re.I)
# The integers pandas holds as numbers (int64 or uint64); past them, Python objects.
INTEGER_RANGE = (-2**63, 2**64 - 1)


class TableError(ValueError):
    """A data file that cannot be read as rows; the message says why, in one line."""


@dataclass(frozen=True)
class Table:
    """Named columns of equal length, each with a kind (NUMBER, BOOLEAN, DATE, TEXT or None).

    A missing value is None. A kind of None means mixed values (numbers and
    text, say): such a column is nominal, and compared value by value.
    """

    columns: dict[str, list]
    kinds: dict[str, str | None]

    @property
    def names(self) -> list[str]:
        return list(self.columns)

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()), ()))

    def __contains__(self, name) -> bool:
        return name in self.columns

    def __getitem__(self, name: str) -> list:
        return self.columns[name]

    def measurement(self, name: str) -> str:
        """The Vega-Lite measurement type the column implies."""
        return MEASUREMENT.get(self.kinds[name], "nominal")

    def select(self, keep: list[bool]) -> "Table":
        """The rows whose flag is true."""
        return Table({name: [v for v, k in zip(values, keep) if k] for name, values in self.columns.items()},
                     self.kinds)

    def replace(self, name: str, values: list) -> "Table":
        """The table with one column's values replaced (its kind kept)."""
        return Table({**self.columns, name: values}, self.kinds)

    def rename(self, names: dict[str, str]) -> "Table":
        return Table({names.get(n, n): v for n, v in self.columns.items()},
                     {names.get(n, n): k for n, k in self.kinds.items()})

    def fold(self, fields: list[str], key: str, value: str) -> "Table":
        """Vega-Lite's fold (pandas' melt): one row per row and folded field, field by field."""
        kept = [n for n in self.columns if n not in fields]
        columns = {n: self.columns[n] * len(fields) for n in kept}
        columns[key] = [f for f in fields for _ in range(len(self))]
        columns[value] = [v for f in fields for v in self.columns[f]]
        kinds = {n: self.kinds[n] for n in kept}
        kinds[key] = TEXT
        folded = {self.kinds[f] for f in fields}
        kinds[value] = folded.pop() if len(folded) == 1 else None
        return Table(columns, kinds)

    def distinct(self, fields: Iterable[str]) -> int:
        """How many distinct combinations of the fields' values the rows hold."""
        fields = list(fields)
        if not fields:
            return 1 if len(self) else 0
        return len(set(zip(*(map(_hashable, self.columns[f]) for f in fields))))

    def unique(self, name: str) -> list:
        """The column's distinct values other than missing ones, in order of first appearance."""
        seen: dict = {}
        for value in self.columns[name]:
            if not is_missing(value):
                seen.setdefault(_hashable(value), value)
        return list(seen.values())

    def records(self) -> list[dict]:
        """JSON-safe rows: non-finite numbers become null, dates zone-free ISO text.

        Dates are written as wall-clock time without an offset, so every
        reader (the renderer, any browser) shows the same calendar values
        whatever its time zone.
        """
        names = list(self.columns)
        columns = [[json_value(v) for v in self.columns[n]] for n in names]
        return [dict(zip(names, row)) for row in zip(*columns)]


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _hashable(value: Any) -> Any:
    """Missing values as one key; lists and mappings (JSON values) as their text."""
    if is_missing(value):
        return None
    if isinstance(value, (list, dict)):
        return repr(value)
    return value


def json_value(value: Any) -> Any:
    """A cell as JSON writes it: dates as wall-clock ISO text, NaN and ±inf as null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, datetime.datetime):
        return value.isoformat(timespec="seconds")  # YYYY-MM-DDTHH:MM:SS, the year always 4 digits
    return value


# ------------------------------------------------------------------ reading

@contextlib.contextmanager
def _without_cycle_collection():
    """Pause Python's cyclic garbage collector.

    Reading a million rows makes millions of lists, and the collector walks
    them again and again as they pile up: half the time of such a read. They
    hold only text, so there are no cycles for it to find.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_delimited(path: str | Path, delimiter: str = ",", max_rows: int | None = None) -> Table:
    """A CSV or TSV file with a header line, typed like `pandas.read_csv` (see `_read_delimited`)."""
    with _without_cycle_collection():
        return _read_delimited(path, delimiter, max_rows)


def _read_delimited(path: str | Path, delimiter: str, max_rows: int | None) -> Table:
    """A CSV or TSV file with a header line, typed like `pandas.read_csv`.

    Reads at most `max_rows` data rows (blank lines skipped). A row with more
    fields than the header is an error; a shorter one is padded with missing
    values. Duplicate names get ``.1``, ``.2``, an empty name ``Unnamed: i``.

    Raises:
        TableError: a row too long, a file that is not UTF-8.
        OSError: the file cannot be opened.
    """
    try:
        with open(path, encoding="utf-8-sig", newline="") as stream:
            reader = csv.reader(stream, delimiter=delimiter, strict=False)
            header = next((row for row in reader if row), None)
            if header is None:  # an empty file: no columns, no rows
                return Table({}, {})
            rows = _data_rows(reader, max_rows)
        width = len(header)
        if rows and max(map(len, rows)) > width:
            raise TableError(_row_too_long(path, delimiter, width))
        if rows and min(map(len, rows)) < width:
            rows = [row + [""] * (width - len(row)) if len(row) < width else row for row in rows]
    except UnicodeDecodeError as error:
        raise TableError(f"the file is not UTF-8 text ({error.reason} at byte {error.start})") from None
    except csv.Error as error:
        raise TableError(str(error)) from None
    names = _column_names(header)
    cells = list(zip(*rows)) if rows else [()] * width
    columns, kinds = {}, {}
    for name, texts in zip(names, cells):
        columns[name], kinds[name] = _typed_text(texts)
    return parse_dates(Table(columns, kinds))


# Rows taken from the reader at a time (blank lines are dropped from each batch).
ROW_BATCH = 65_536


def _data_rows(reader, max_rows: int | None) -> list[list[str]]:
    """The rows after the header, blank lines skipped as pandas skips them, at most `max_rows`."""
    rows: list[list[str]] = []
    while max_rows is None or len(rows) < max_rows:
        wanted = ROW_BATCH if max_rows is None else min(ROW_BATCH, max_rows - len(rows))
        batch = list(itertools.islice(reader, wanted))
        if not batch:
            break
        rows.extend(row for row in batch if row and not (len(row) == 1 and row[0].isspace()))
    return rows


def _row_too_long(path, delimiter: str, width: int) -> str:
    """The message for the first row with more fields than the header, found by reading again."""
    with open(path, encoding="utf-8-sig", newline="") as stream:
        reader = csv.reader(stream, delimiter=delimiter, strict=False)
        next((row for row in reader if row), None)
        for row in reader:
            if len(row) > width:
                return f"line {reader.line_num} has {len(row)} fields, but the header has {width}"
    return f"a row has more than {width} fields"


def _all_match(column: re.Pattern, cell: re.Pattern, texts: list[str]) -> bool:
    """Whether every cell matches: one scan of the joined column, cell by cell if one holds a line break."""
    joined = "\n".join(texts)
    if joined.count("\n") == len(texts) - 1:
        return column.fullmatch(joined) is not None
    return all(cell.match(text) for text in texts)


def _column_names(header: list[str]) -> list[str]:
    """Header names made unique as pandas does: `a, a, a.1` -> `a, a.2, a.1`."""
    given = [name or f"Unnamed: {index}" for index, name in enumerate(header)]
    written, names = set(given), []
    for name in given:
        if name in names:
            suffix = 1
            while f"{name}.{suffix}" in names or f"{name}.{suffix}" in written:
                suffix += 1
            name = f"{name}.{suffix}"
        names.append(name)
    return names


def _typed_text(texts) -> tuple[list, str | None]:
    """One CSV column's cells as typed values, and the column's kind."""
    values = [None if t in MISSING_WORDS else t for t in texts]
    present = [v for v in values if v is not None]
    if not present:  # pandas: float NaN for a column of empty cells, an object column without rows
        return [None] * len(values), NUMBER if values else None
    if _all_match(INTEGERS, INTEGER, present):
        numbers = [None if v is None else int(v) for v in values]
        given = [n for n in numbers if n is not None]
        if INTEGER_RANGE[0] <= min(given) and max(given) <= INTEGER_RANGE[1]:
            return _numbers(numbers), NUMBER
        if len(present) < len(values):
            return [None if n is None else float(n) for n in numbers], NUMBER
        return numbers, None  # past 64 bits and nothing missing: pandas holds Python integers
    if _all_match(FLOATS, FLOAT, present):
        return [None if v is None else float(v) for v in values], NUMBER
    if all(v in TRUE_WORDS or v in FALSE_WORDS for v in present):
        booleans = [None if v is None else v in TRUE_WORDS for v in values]
        return booleans, BOOLEAN if len(present) == len(values) else None  # pandas: object with a gap
    return values, TEXT


def _numbers(values: list) -> list:
    """Integers stay integers unless one is missing, as in pandas (then all are floats)."""
    if any(v is None for v in values):
        return [None if v is None else float(v) for v in values]
    return values


def from_records(rows: list[dict]) -> Table:
    """Records (inline values, a JSON file) as a table: keys in order of first appearance."""
    names = list(dict.fromkeys(key for row in rows for key in row))
    columns, kinds = {}, {}
    for name in names:
        values = [row.get(name) for row in rows]
        columns[name], kinds[name] = _typed_values(values)
    return parse_dates(Table(columns, kinds))


def _typed_values(values: list) -> tuple[list, str | None]:
    """A column of JSON values: its kind, and numbers as pandas would hold them."""
    present = [v for v in values if not is_missing(v)]
    if not present:  # pandas: float NaN makes a number column, None an object one
        return [None] * len(values), NUMBER if any(isinstance(v, float) for v in values) else None
    if all(isinstance(v, bool) for v in present):
        return [None if is_missing(v) else v for v in values], BOOLEAN if len(present) == len(values) else None
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        if any(isinstance(v, float) for v in present) or len(present) < len(values):
            return [None if is_missing(v) else float(v) for v in values], NUMBER
        if all(INTEGER_RANGE[0] <= v <= INTEGER_RANGE[1] for v in present):
            return values, NUMBER
        return values, None  # past 64 bits: pandas holds Python objects
    if all(isinstance(v, str) for v in present):
        return [None if is_missing(v) else v for v in values], TEXT
    return [None if is_missing(v) else v for v in values], None


def json_reader_types(table: Table) -> Table:
    """Columns retyped as `pandas.read_json` types them (for the vega-datasets tables).

    Unlike records, which keep their JSON types, that reader makes text of
    numbers into numbers (wheat's `"1565"`) and whole floats into integers
    (anscombe's `10.0`).
    """
    columns, kinds = dict(table.columns), dict(table.kinds)
    for name, kind in table.kinds.items():
        values = columns[name]
        if kind == TEXT and all(v is None or FLOAT.match(v) for v in values):
            columns[name], kinds[name] = _typed_text(["" if v is None else v for v in values])
        elif kind == NUMBER and all(isinstance(v, float) and v.is_integer() for v in values):
            columns[name] = [int(v) for v in values]
    return Table(columns, kinds)


def parse_dates(table: Table, formats: dict[str, str] | None = None) -> Table:
    """Text columns whose every value is an ISO date (or in `formats[column]`) as dates.

    A column where any value fails to parse (2023-02-30, say) stays text.
    """
    formats = formats or {}
    columns, kinds = dict(table.columns), dict(table.kinds)
    for name, kind in table.kinds.items():
        if kind != TEXT:
            continue
        values = columns[name]
        if not any(v is not None for v in values):
            continue
        pattern = formats.get(name)
        if pattern is None and not all(v is None or ISO_DATE.match(v) for v in values):
            continue
        try:
            columns[name] = [None if v is None else parse_date(v, pattern) for v in values]
        except ValueError:
            continue
        kinds[name] = DATE
    return Table(columns, kinds)


def parse_date(text: str, pattern: str | None = None) -> datetime.datetime:
    """ISO date text (or text in a strptime pattern) as a naive datetime.

    Raises:
        ValueError: the text is not such a date, or no such day exists.
    """
    if pattern is not None:
        return datetime.datetime.strptime(text, pattern)
    if not ISO_DATE.match(text):
        raise ValueError(f"not an ISO date: {text!r}")
    head, _, fraction = text.partition(".")
    stamp = datetime.datetime.fromisoformat(head)
    if fraction:  # any number of digits, as pandas reads them (to the microsecond here)
        stamp = stamp.replace(microsecond=int(fraction[:6].ljust(6, "0")))
    return stamp


# ------------------------------------------------------------------ sampling

SAMPLE_SEED = 0


def sample_rows(table: Table, count: int) -> Table:
    """`count` rows picked at random, the same ones on every run, kept in their order.

    Each row gets a key from `random.Random(SAMPLE_SEED).random()`, the one
    generator Python promises to keep across versions, and the rows with the
    smallest keys are kept. A table of at most `count` rows is returned whole.
    """
    if len(table) <= count:
        return table
    import random

    import numpy as np

    draw = random.Random(SAMPLE_SEED).random
    keys = np.fromiter((draw() for _ in range(len(table))), dtype=float, count=len(table))
    keep = np.zeros(len(table), dtype=bool)
    keep[np.argsort(keys, kind="stable")[:count]] = True
    return table.select(keep.tolist())


# ------------------------------------------------------------------ values

def floats(table: Table, name: str):
    """A column as a numpy float array for fitting: missing as NaN, dates as milliseconds, text via `to_number`."""
    import numpy as np

    values, kind = table[name], table.kinds[name]
    if kind == NUMBER:
        cells = (math.nan if v is None else v for v in values)
    elif kind == DATE:
        cells = (math.nan if v is None else milliseconds(v) for v in values)
    else:
        cells = (math.nan if is_missing(v) else milliseconds(v) if isinstance(v, datetime.datetime)
                 else to_number(v) for v in values)
    return np.fromiter(cells, dtype=float, count=len(values))


def to_number(value: Any) -> float:
    """A cell as a float, NaN when it is none (`pandas.to_numeric(errors="coerce")`)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and (INTEGER.match(value) or FLOAT.match(value)):
        return float(value)
    return math.nan


EPOCH = datetime.datetime(1970, 1, 1)


def milliseconds(value: datetime.datetime) -> float:
    """A naive datetime as milliseconds since 1970-01-01 of the same wall clock."""
    delta = value - EPOCH
    return ((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds) / 1000  # one rounding
