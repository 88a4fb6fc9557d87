"""The chart's rows as plain Python columns, typed the way pandas' readers type them.

A chart has at most `stages.data.MAX_ROWS` rows and needs a handful of
operations on them: read a CSV, TSV or JSON file, give each column a kind,
filter by a field predicate, fold, count distinct groups, write JSON rows.
pandas does all of that, but importing it alone costs a cold `chartc
compile` ~0.2 s, so the pipeline works on a `Table` instead.

Columns are typed as `pandas.read_csv` and `pandas.DataFrame.from_records`
type them (tests compare the two on every shipped dataset and on generated
files): pandas' missing-value words (``NA``, ``null``, empty, ...) are None,
a column of integers and floats or missing values is all floats, a column
of ``true``/``false`` is booleans. Text columns whose every value is an ISO
date become dates (naive `datetime`, the wall clock as written; a time with
a zone, ``Z`` or ``+02:00``, as its UTC wall clock).

Where pandas would lose information or time, a Table does not follow it: a
column of integers beyond ±2⁵³ with a missing value keeps exact integers
(pandas makes them floats, so IDs that differ in the 17th digit become equal),
and a file past the limits below (columns, header cell length, cells) is
refused with a message naming its line and column rather than read slowly.
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

from .. import errors as msg

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
# A time may end with a zone, `Z` or an offset (`+02:00`, `+0200`): such a date is read as the UTC
# wall clock it names, as the renderer runs in UTC (render.export.use_utc).
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$", re.ASCII)
ISO_ZONE = re.compile(r"(Z|[+-]\d{2}:?\d{2})$", re.ASCII)


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
# The largest integers a float (and so the renderer, in JavaScript) holds exactly.
MAX_EXACT_INTEGER = 2**53

# Limits of a data file. A chart reads a handful of named columns; past these
# a file is refused with the limit in the message instead of being read.
MAX_COLUMNS = 16_384          # the widest sheet Excel writes (column XFD)
MAX_NAME_LENGTH = 4_096       # characters in one header cell: a label, not a document
# Cells of the table built from a file (short rows padded to the header's
# width, records to every key): about the cells of the largest file resolve
# accepts, 50 MiB of one-digit fields, so no small file can cost more.
MAX_CELLS = 25_000_000


class TableError(ValueError):
    """A data file that cannot be read as rows; the message says why, in one line.

    `hint`, when given, says what to do about it.
    """

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


class DateOutOfRange(ValueError):
    """A date no Python datetime holds, in a column or made by an expression: JavaScript's years reach
    275,760, Python's 1 to 9999. `year` as JavaScript counts it (1 BC is year 0); `column`, None for an
    expression's."""

    def __init__(self, year: int, column: str | None = None):
        super().__init__(year, column)
        self.year, self.column = year, column


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

    def only(self, names) -> "Table":
        """Only the columns named, in the table's order."""
        names = set(names)
        return Table({n: v for n, v in self.columns.items() if n in names},
                     {n: k for n, k in self.kinds.items() if n in names})

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

    def non_positive(self, name: str) -> int:
        """How many of the column's cells are numbers (or number text, or booleans) at or below zero."""
        return sum(1 for value in self.columns[name] if to_number(value) <= 0)

    def records(self) -> list[dict]:
        """JSON-safe rows: non-finite numbers become null, dates zone-free ISO text.

        Dates are written as wall-clock time without an offset, so every
        reader (the renderer, any browser) shows the same calendar values
        whatever its time zone.
        """
        names = list(self.columns)
        columns = [json_column(self.columns[n]) for n in names]
        return [dict(zip(names, row)) for row in zip(*columns)]


def json_column(values: list) -> list:
    """`json_value` of each cell: a column of finite floats, of text, or of integers a double holds, as it is."""
    kinds = set(map(type, values))
    if kinds == {float} and math.isfinite(sum(values)):  # a NaN or an infinity makes the sum one
        return values
    if kinds <= {str, type(None)} or (kinds == {int} and -MAX_EXACT_INTEGER <= min(values)
                                       and max(values) <= MAX_EXACT_INTEGER):
        return values
    return [json_value(v) for v in values]


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
    """A cell as JSON writes it: dates as wall-clock ISO text, NaN and ±inf as null.

    An integer beyond ±2⁵³ is written as its decimal text: the renderer reads
    JSON numbers as doubles, so 12345678901234567 and 12345678901234568 would
    both become ...568 and two categories one. Vega reads the text as the same
    number wherever it needs one (scales, aggregates, bins).
    """
    kind = type(value)  # the exact types first: this runs once per cell of every chart
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        return value if -MAX_EXACT_INTEGER <= value <= MAX_EXACT_INTEGER else str(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat(timespec="seconds")  # YYYY-MM-DDTHH:MM:SS, the year always 4 digits
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_EXACT_INTEGER:
        return str(value)
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


def read_header(path: str | Path, delimiter: str = ",") -> tuple[list[str], bool]:
    """The column names `read_delimited` gives a file, and whether a data row follows, from its first rows.

    The light check (`chartc validate`) and the full read go through the same
    `open_delimited`, so they name columns alike (BOM dropped, duplicates and
    empty names renamed as pandas renames them) and refuse the same headers.

    Args:
        path: a CSV or TSV file.
        delimiter: ``","`` or ``"\\t"``.

    Returns:
        The column names (none for an empty file) and whether the file has a
        row after the header (blank lines do not count).

    Raises:
        TableError: a header past `MAX_COLUMNS` or `MAX_NAME_LENGTH`, text
            that is not UTF-8, a cell the csv module refuses.
        OSError: the file cannot be opened.
    """
    with open_delimited(path, delimiter) as (names, reader):
        return names, any(not _is_blank(row) for row in reader)


@contextlib.contextmanager
def open_delimited(path: str | Path, delimiter: str):
    """Open a delimited file and read its header: yields (column names, csv reader at the first data row).

    Problems while the caller reads on (text that is not UTF-8, a cell past
    the csv module's limit) become `TableError`s naming their line.

    Raises:
        TableError: see `read_header`.
        OSError: the file cannot be opened.
    """
    with open(path, encoding="utf-8-sig", newline="") as stream:
        reader = csv.reader(stream, delimiter=delimiter, strict=False)
        header_line, in_header = 1, True
        try:
            for header in reader:
                if header:
                    break
                header_line = reader.line_num + 1  # a blank line before the header
            else:
                header = []
            if len(header) > MAX_COLUMNS:
                raise TableError(msg.data_header_too_wide(header_line, len(header), MAX_COLUMNS),
                                 msg.data_header_too_wide_hint())
            if header and max(map(len, header)) > MAX_NAME_LENGTH:
                raise _long_cell_error(path, delimiter, header_line, MAX_NAME_LENGTH, header=True)
            in_header = False
            yield column_names(header), reader
        except UnicodeDecodeError as error:
            raise TableError(f"the file is not UTF-8 text ({error.reason} at byte {error.start})") from None
        except csv.Error as error:
            if not str(error).startswith("field larger than field limit"):
                raise TableError(f"line {reader.line_num}: {error}") from None
            if in_header:
                raise _long_cell_error(path, delimiter, header_line, MAX_NAME_LENGTH, header=True) from None
            raise _long_cell_error(path, delimiter, _failing_record_line(path, delimiter),
                                   csv.field_size_limit()) from None


def _read_delimited(path: str | Path, delimiter: str, max_rows: int | None) -> Table:
    """A CSV or TSV file with a header line, typed like `pandas.read_csv`.

    Reads at most `max_rows` data rows (blank lines skipped). A row with more
    fields than the header is an error; a shorter one is padded with missing
    values. Duplicate names get ``.1``, ``.2``, an empty name ``Unnamed: i``
    (see `column_names`).

    Raises:
        TableError: a row too long, a file that is not UTF-8, a file past
            `MAX_COLUMNS`, `MAX_NAME_LENGTH` or `MAX_CELLS`.
        OSError: the file cannot be opened.
    """
    names, cells = _delimited_cells(path, delimiter, max_rows, 0)
    return _typed_table(names, cells)


def read_delimited_files(paths: list[Path], delimiter: str = ",") -> Table:
    """Every row of CSV or TSV files (a glob's matches) as one table, typed like `read_delimited`.

    Columns are matched by name, in order of first appearance; a column a
    file lacks is missing in its rows. The cell limit counts every file.

    Raises:
        TableError: as `read_delimited`, for the first file that fails.
    """
    if len(paths) == 1:
        return read_delimited(paths[0], delimiter)
    with _without_cycle_collection():
        files, cells_read = [], 0
        for path in paths:
            names, cells = _delimited_cells(path, delimiter, None, cells_read)
            files.append((names, cells))
            cells_read += len(names) * (len(cells[0]) if cells else 0)
        every = list(dict.fromkeys(name for names, _ in files for name in names))
        merged = []
        for name in every:
            column: list[str] = []
            for names, cells in files:
                length = len(cells[0]) if cells else 0
                column.extend(cells[names.index(name)] if name in names else [""] * length)
            merged.append(column)
        return _typed_table(every, merged)


def _delimited_cells(path: str | Path, delimiter: str, max_rows: int | None, cells_before: int):
    """A delimited file's column names and its cells as text, column by column (short rows padded)."""
    with open_delimited(path, delimiter) as (names, reader):
        if not names:  # an empty file: no columns, no rows
            return [], []
        rows = _data_rows(reader, max_rows)
    width = len(names)
    if rows and max(map(len, rows)) > width:
        raise TableError(_row_too_long(path, delimiter, width))
    if cells_before + len(rows) * width > MAX_CELLS:  # before padding: short rows would cost the header's width
        rows_before = cells_before // width
        raise TableError(msg.data_too_many_cells(rows_before + len(rows), width, MAX_CELLS),
                         msg.data_too_many_cells_hint())
    if rows and min(map(len, rows)) < width:
        rows = [row + [""] * (width - len(row)) if len(row) < width else row for row in rows]
    return names, list(zip(*rows)) if rows else [()] * width


def _typed_table(names: list[str], cells: list) -> Table:
    """Columns of text cells typed like `pandas.read_csv`, ISO dates parsed."""
    columns, kinds = {}, {}
    for name, texts in zip(names, cells):
        columns[name], kinds[name] = _typed_text(texts)
    return parse_dates(Table(columns, kinds))


# Rows taken from the reader at a time (blank lines are dropped from each batch).
ROW_BATCH = 65_536


def _is_blank(row: list[str]) -> bool:
    """A row pandas skips: an empty line, or one of spaces and tabs only."""
    return not row or (len(row) == 1 and row[0].isspace())


def _data_rows(reader, max_rows: int | None) -> list[list[str]]:
    """The rows after the header, blank lines skipped as pandas skips them, at most `max_rows`."""
    rows: list[list[str]] = []
    while max_rows is None or len(rows) < max_rows:
        wanted = ROW_BATCH if max_rows is None else min(ROW_BATCH, max_rows - len(rows))
        batch = list(itertools.islice(reader, wanted))
        if not batch:
            break
        rows.extend(row for row in batch if not _is_blank(row))
    return rows


def _row_too_long(path, delimiter: str, width: int) -> str:
    """The message for the first row with more fields than the header, found by reading again."""
    with open(path, encoding="utf-8-sig", newline="") as stream:
        reader = csv.reader(stream, delimiter=delimiter, strict=False)
        next((row for row in reader if row), None)
        for row in reader:
            if len(row) > width:
                return msg.data_row_too_long(reader.line_num, len(row), width)
    return msg.data_row_too_long(None, width + 1, width)


def data_row_line(path: str | Path, delimiter: str, index: int) -> int | None:
    """The line of a delimited file on which data row `index` (0-based, as `read_delimited` counts) starts.

    Returns:
        The 1-based line, or None if the file has no such row.
    """
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as stream:
        reader = csv.reader(stream, delimiter=delimiter, strict=False)
        next((row for row in reader if row), None)
        start = reader.line_num + 1
        for row in reader:
            if not _is_blank(row):
                if index == 0:
                    return start
                index -= 1
            start = reader.line_num + 1
    return None


# ------------------------------------------------------------------ cells past a limit

def _failing_record_line(path, delimiter: str) -> int:
    """The line on which the record the csv module refuses starts (read again, up to it)."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as stream:
        reader = csv.reader(stream, delimiter=delimiter, strict=False)
        end = 0
        try:
            for _ in reader:
                end = reader.line_num
        except csv.Error:
            pass
    return end + 1


def _long_cell_error(path, delimiter: str, line: int, limit: int, *, header: bool = False) -> TableError:
    """The error for the first cell over `limit` characters in the record starting on `line`."""
    found = _long_cell(path, delimiter, line, limit)
    if found is None:  # not found again: name the record alone
        found = (line, None, None, False)
    message = msg.data_header_cell_too_long if header else msg.data_cell_too_long
    return TableError(message(*found[:3], limit), msg.data_long_cell_hint(found[3], header))


def _long_cell(path, delimiter: str, line: int, limit: int) -> tuple[int, int, int, bool] | None:
    """Where the first cell over `limit` characters is in the record starting on `line`.

    The csv module gives up on a cell past its own limit without saying which
    cell, so the record is tokenised again the way it reads one: a field that
    opens with a double quote runs to the closing quote (``""`` inside is one
    quote, and text after the closing quote is kept), any other field to the
    next delimiter or line break. Blank lines before the record are skipped.

    Returns:
        (line, column, characters, whether a quote opens the cell and never
        closes), or None if no cell of the record is that long.
    """
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as stream:
        for _ in itertools.islice(stream, line - 1):
            pass
        text = stream.read()
    stop = re.escape(delimiter)
    quoted = re.compile(rf'"((?:[^"]|"")*+)("?)([^{stop}\r\n]*+)')
    plain = re.compile(rf"[^{stop}\r\n]*+")
    position = BLANK_LINES.match(text).end()
    column = 1
    while True:
        start = position
        unclosed = False
        if text.startswith('"', position):
            match = quoted.match(text, position)
            inside, closing, after = match.groups()
            length, unclosed = len(inside) - inside.count('""') + len(after), not closing
        else:
            match = plain.match(text, position)
            length = match.end() - position
        if length > limit:
            return line + len(LINE_BREAKS.findall(text, 0, start)), column, length, unclosed
        position = match.end()
        if not text.startswith(delimiter, position):  # a line break or the end: the record is over
            return None
        position += len(delimiter)
        column += 1


LINE_BREAKS = re.compile(r"\r\n|\r|\n")  # how a file read with newline="" splits lines
BLANK_LINES = re.compile(r"[\r\n]*+")


def column_names(header: list[str]) -> list[str]:
    """Header names made unique as pandas' readers make them, in time linear in the header.

    Empty names become ``Unnamed: i`` (i the column's index). A repeated name
    gets ``.1``, ``.2``, ... skipping any name the header holds: `a, a, a.1`
    -> `a, a.2, a.1`. Named columns are renamed before unnamed ones, so a
    written ``Unnamed: 0`` keeps its name. (pandas' `mangle_dupe_names`,
    with a count of each name held instead of a search of the list.)
    """
    names = [name or f"Unnamed: {index}" for index, name in enumerate(header)]
    order = [i for i, name in enumerate(header) if name] + [i for i, name in enumerate(header) if not name]
    held: dict[str, int] = {}  # how many columns hold each name right now
    for name in names:
        held[name] = held.get(name, 0) + 1
    counts: dict[str, int] = {}  # the next suffix to try for each name
    for index in order:
        name = given = names[index]
        count = counts.get(name, 0)
        while count > 0:
            counts[given] = count + 1
            name = f"{given}.{count}"
            count = count + 1 if held.get(name) else counts.get(name, 0)
        if name != given:
            held[given] -= 1
            held[name] = held.get(name, 0) + 1
            names[index] = name
        counts[name] = count + 1
    return names


def _all_match(column: re.Pattern, cell: re.Pattern, texts: list[str]) -> bool:
    """Whether every cell matches: one scan of the joined column, cell by cell if one holds a line break."""
    joined = "\n".join(texts)
    if joined.count("\n") == len(texts) - 1:
        return column.fullmatch(joined) is not None
    return all(cell.match(text) for text in texts)


def _typed_text(texts) -> tuple[list, str | None]:
    """One CSV column's cells as typed values, and the column's kind."""
    values = [None if t in MISSING_WORDS else t for t in texts]
    present = [v for v in values if v is not None]
    if not present:  # pandas: float NaN for a column of empty cells, an object column without rows
        return [None] * len(values), NUMBER if values else None
    if _all_match(INTEGERS, INTEGER, present):
        numbers = [None if v is None else int(v) for v in values]
        given = [n for n in numbers if n is not None]
        if INTEGER_RANGE[0] <= min(given) and max(given) <= INTEGER_RANGE[1] or len(present) < len(values):
            return _numbers(numbers), NUMBER
        return numbers, None  # past 64 bits and nothing missing: pandas holds Python integers
    if _all_match(FLOATS, FLOAT, present):
        return [None if v is None else float(v) for v in values], NUMBER
    if all(v in TRUE_WORDS or v in FALSE_WORDS for v in present):
        booleans = [None if v is None else v in TRUE_WORDS for v in values]
        return booleans, BOOLEAN if len(present) == len(values) else None  # pandas: object with a gap
    return values, TEXT


def _numbers(values: list) -> list:
    """Integers stay integers unless one is missing, as in pandas (then all are floats).

    Unlike pandas, integers a float cannot hold exactly (beyond ±2⁵³) stay
    integers beside a missing value: as floats, IDs such as 12345678901234567
    and 12345678901234568 would become one value.
    """
    if any(v is None for v in values) and _all_exact_as_floats(values):
        return [None if v is None else float(v) for v in values]
    return values


def _all_exact_as_floats(values: list) -> bool:
    return all(v is None or -MAX_EXACT_INTEGER <= v <= MAX_EXACT_INTEGER for v in values)


def record_names(rows: list[dict]) -> list[str]:
    """The columns of records (inline values, a JSON file): their keys in order of first appearance.

    `from_records` and the light check (`stages.data.read_columns`) both name
    columns with this, so they agree.

    Raises:
        TableError: more than `MAX_COLUMNS` keys, or more than `MAX_CELLS`
            cells in the table the records would make.
    """
    names = list(dict.fromkeys(key for row in rows for key in row))
    if len(names) > MAX_COLUMNS:
        raise TableError(msg.data_records_too_wide(len(names), MAX_COLUMNS), msg.data_header_too_wide_hint())
    if len(rows) * len(names) > MAX_CELLS:  # sparse records: each row holds every key's cell
        raise TableError(msg.data_too_many_cells(len(rows), len(names), MAX_CELLS), msg.data_too_many_cells_hint())
    return names


def from_records(rows: list[dict]) -> Table:
    """Records (inline values, a JSON file) as a table: keys in order of first appearance.

    Raises:
        TableError: see `record_names`.
    """
    names = record_names(rows)
    columns, kinds = {}, {}
    for name in names:
        values = [row.get(name) for row in rows]
        columns[name], kinds[name] = _typed_values(values)
    return parse_dates(Table(columns, kinds))


# How an engine holds a column, for `from_typed_columns`.
STORED_INTEGER, STORED_FLOAT, STORED_BOOLEAN, STORED_TEXT, STORED_DATE = "integer", "float", "boolean", "text", "date"
# A computed column of several kinds of value, held by the engine as JavaScript values in the data stage's tagged
# text (numbers, text, booleans and nulls).
STORED_VALUE = "value"


def from_typed_columns(columns: dict[str, tuple[list, str]]) -> Table:
    """Columns an engine has typed (name -> (values, how it stores them)) as a table, kinds as pandas gives them.

    The engine's values are kept (NaN stays NaN: it is a value of a float
    column, not a missing one), with the Table's rules for what pandas
    changes: integers beside a missing value become floats where floats hold
    them exactly, booleans beside one make a mixed column, and text columns of
    ISO dates become dates.

    Args:
        columns: per column, its cells (None for SQL's NULL) and one of
            STORED_INTEGER, STORED_FLOAT, STORED_BOOLEAN, STORED_TEXT, STORED_DATE.
    """
    typed, kinds = {}, {}
    for name, (values, stored) in columns.items():
        present = sum(v is not None for v in values)
        if stored == STORED_INTEGER:  # past 64 bits beside no gap: Python integers, a mixed column (`_typed_text`)
            wide = present == len(values) and values and not (
                INTEGER_RANGE[0] <= min(values) and max(values) <= INTEGER_RANGE[1])
            typed[name], kinds[name] = _numbers(values), None if wide else NUMBER
        elif stored == STORED_FLOAT:
            typed[name], kinds[name] = values, NUMBER
        elif stored == STORED_BOOLEAN:
            typed[name], kinds[name] = values, BOOLEAN if present == len(values) else None
        elif stored == STORED_DATE:
            typed[name], kinds[name] = values, DATE if present else None
        else:
            typed[name], kinds[name] = values, TEXT if present else None
    return parse_dates(Table(typed, kinds))


def _typed_values(values: list) -> tuple[list, str | None]:
    """A column of JSON values: its kind, and numbers as pandas would hold them."""
    present = [v for v in values if not is_missing(v)]
    if not present:  # pandas: float NaN makes a number column, None an object one
        return [None] * len(values), NUMBER if any(isinstance(v, float) for v in values) else None
    if all(isinstance(v, bool) for v in present):
        return [None if is_missing(v) else v for v in values], BOOLEAN if len(present) == len(values) else None
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        if any(isinstance(v, float) for v in present):
            return [None if is_missing(v) else float(v) for v in values], NUMBER
        if len(present) < len(values):  # integers beside gaps: floats, where floats hold them exactly
            return _numbers([None if is_missing(v) else v for v in values]), NUMBER
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
    """ISO date text (or text in a strptime pattern) as a naive datetime (a zone's time as UTC).

    Raises:
        ValueError: the text is not such a date, or no such day exists.
    """
    if pattern is not None:
        return datetime.datetime.strptime(text, pattern)
    if not ISO_DATE.match(text):
        raise ValueError(f"not an ISO date: {text!r}")
    zone = ISO_ZONE.search(text) if len(text) > 10 else None
    if zone is not None:
        text = text[:zone.start()]
    head, _, fraction = text.partition(".")
    stamp = datetime.datetime.fromisoformat(head)
    if fraction:  # any number of digits, as pandas reads them (to the microsecond here)
        stamp = stamp.replace(microsecond=int(fraction[:6].ljust(6, "0")))
    if zone is not None and zone.group() != "Z":  # the UTC wall clock of a time at an offset
        sign, digits = zone.group()[0], zone.group()[1:].replace(":", "")
        offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        try:
            stamp = stamp - offset if sign == "+" else stamp + offset
        except OverflowError:  # 0001-01-01T00:00+01:00 is in year 0
            raise ValueError(f"not a date after its offset: {text!r}") from None
    return stamp


# ------------------------------------------------------------------ sampling

# A row's sample key is its number (from 0) hashed to 31 bits: Thomas Mueller's integer hash (a shift, an
# exclusive or and a product modulo 2³¹, twice, then a shift and an exclusive or) of the number's low 31
# bits xor a seed, and again of that xor its next 31 bits. Integer arithmetic under 2⁶³ that Python, DuckDB
# and Spark compute alike: the rows an engine draws are the ones drawn in memory, and a table left in the
# engine is sampled there (`sample_key_sql`).
SAMPLE_SEED = 0x2545F491   # not 0: row 0 would have key 0 and be in every sample
SAMPLE_MODULUS = 2 ** 31
SAMPLE_MULTIPLIER = 0x45D9F3B


def sample_keys(count: int):
    """The sample keys of rows 0 .. count − 1 (a numpy array)."""
    import numpy as np  # ~0.1 s: the light `chartc validate` reads tables too, and never samples

    rows = np.arange(count, dtype=np.int64)
    return _mixed(_mixed((rows % SAMPLE_MODULUS) ^ SAMPLE_SEED) ^ (rows // SAMPLE_MODULUS % SAMPLE_MODULUS))


def _mixed(h):
    h = ((h ^ (h >> 16)) * SAMPLE_MULTIPLIER) % SAMPLE_MODULUS
    h = ((h ^ (h >> 16)) * SAMPLE_MULTIPLIER) % SAMPLE_MODULUS
    return h ^ (h >> 16)


def sample_key_sql(relation: str, row: str) -> str:
    """The SQL (DuckDB's dialect) of `relation`'s `row` numbers with their sample key ``k``, as `sample_keys`
    computes it; each step a subquery, so no engine evaluates a step twice."""
    query = f"SELECT {row} AS r, xor({row} % {SAMPLE_MODULUS}, {SAMPLE_SEED}) AS h FROM {relation}"
    for high in (False, True):
        for _ in range(2):
            # The exclusive or in parentheses of its own: Spark's `^` binds less tightly than `*`.
            query = f"SELECT r, ((xor(h, h >> 16)) * {SAMPLE_MULTIPLIER}) % {SAMPLE_MODULUS} AS h FROM ({query})"
        query = (f"SELECT r, xor(xor(h, h >> 16), (r // {SAMPLE_MODULUS}) % {SAMPLE_MODULUS}) AS h FROM ({query})"
                 if not high else f"SELECT r, xor(h, h >> 16) AS k FROM ({query})")
    return query


def sample_rows(table: Table, count: int) -> Table:
    """`count` rows picked at random, the same ones on every run and engine, kept in their order.

    The rows of the `count` smallest sample keys are kept (of two alike, the earlier row); a table left in
    the engine draws them there (its `sample`), so only they are fetched. A table of at most `count` rows
    is returned whole.
    """
    if len(table) <= count:
        return table
    drawn = getattr(table, "sample", None)
    if drawn is not None:
        return drawn(count)
    import numpy as np  # as in `sample_keys`

    keep = np.zeros(len(table), dtype=bool)
    keep[np.argsort(sample_keys(len(table)), kind="stable")[:count]] = True
    return table.select(keep.tolist())


# ------------------------------------------------------------------ values

def floats(table: Table, name: str):
    """A column as a numpy float array for fitting: missing as NaN, dates as milliseconds, text via `to_number`."""
    import numpy as np  # as in `sample_rows`: only the fit stage calls this

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


def integer_array(values):
    """Integers (row numbers) as a numpy int64 array a connection scans in place, no float on the way."""
    import numpy as np  # only a compile whose rows go through the engine calls this

    return np.fromiter(values, dtype=np.int64, count=len(values))


def scannable(columns: dict[str, list], numbers: set[str]):
    """Columns as numpy arrays a DuckDB connection scans in place (`stages.data.sql.register_table`).

    Args:
        columns: name -> cells (floats or None for the names in `numbers`; any Python value otherwise).
        numbers: the columns of floats (None is written as NaN).

    Returns:
        name -> numpy array (float, or object).
    """
    import numpy as np  # only a compile whose rows go through the engine calls this

    return {name: np.fromiter((math.nan if v is None else v for v in cells), dtype=float, count=len(cells))
            if name in numbers else np.array(cells, dtype=object) for name, cells in columns.items()}
