"""chartc.infra.table, the pandas-free data layer, checked against pandas itself.

`Table` is meant to type columns as `pandas.read_csv` (files) and
`pandas.DataFrame.from_records` (records) do, followed by ISO-date parsing of
text columns. Every test here reads the same input both ways and compares the
values, their Python types, the column order and the column kinds; pandas is
the oracle, never `chartc.infra.table`'s own constants or helpers.

The corner cases at the end of the file are the disagreements such
comparisons found, each as a minimal reproduction.
"""

from __future__ import annotations

import csv
import datetime
import json
import math
import re
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import vega_datasets
from pandas._libs.parsers import STR_NA_VALUES  # read_csv's default missing-value words

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from chartc.infra.table import (Table, TableError, from_records, milliseconds, read_delimited,  # noqa: E402
                            to_number)

# Text the pipeline turns into dates: written out here, not imported from chartc.infra.table.
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
NA_WORDS = sorted(STR_NA_VALUES)
TRUE_FALSE_WORDS = ["True", "TRUE", "true", "False", "FALSE", "false"]

CI = settings(max_examples=150, deadline=None, derandomize=True, database=None)


# ------------------------------------------------------------------ the pandas oracle

def plain(value):
    """A pandas cell as a plain Python value: NaN/NaT/None -> None, numpy scalars and Timestamps -> Python."""
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        with warnings.catch_warnings():  # nanoseconds are dropped, as Table drops them
            warnings.simplefilter("ignore", UserWarning)
            return value.to_pydatetime()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def pandas_kind(series: pd.Series) -> str | None:
    """The kind a pandas column implies: float/int -> number, bool -> boolean, datetime -> date, str -> text."""
    if series.dtype == bool:
        return "boolean"
    if pd.api.types.is_datetime64_any_dtype(series):
        return "date"
    if pd.api.types.is_numeric_dtype(series):
        return "number"
    present = series.dropna()
    if len(present) and all(isinstance(v, str) for v in present):
        return "text"
    return None


def with_dates(series: pd.Series) -> pd.Series:
    """A text column whose every present value is ISO date text, as datetimes (else unchanged)."""
    if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_datetime64_any_dtype(series):
        return series
    present = series.dropna()
    if not len(present) or not all(isinstance(v, str) and ISO_DATE.match(v) for v in present):
        return series
    try:
        parsed = pd.to_datetime(series, format="ISO8601")
        [plain(v) for v in parsed]  # year 0 is a Timestamp but no Python datetime
    except ValueError:  # 2023-02-30, year 0: the column stays text
        return series
    return parsed


def frame_view(frame: pd.DataFrame) -> tuple[dict, dict]:
    """A DataFrame (dates parsed) as Table-shaped columns and kinds."""
    columns, kinds = {}, {}
    for name in frame.columns:
        series = with_dates(frame[name])
        columns[name] = [plain(v) for v in series.tolist()]
        kinds[name] = pandas_kind(series)
    return columns, kinds


def pandas_view(path, **read_csv_options) -> tuple[dict, dict]:
    """`pandas.read_csv(path)` as Table-shaped columns and kinds."""
    return frame_view(pd.read_csv(path, **read_csv_options))


def typed(columns: dict) -> list:
    """Columns as (name, [(type, value), ...]) in order, so 1, 1.0 and True differ."""
    return [(name, [(type(v).__name__, v) for v in values]) for name, values in columns.items()]


def assert_like_pandas(path, delimiter=",", max_rows=None) -> Table:
    """read_delimited and read_csv agree on names, order, values, Python types and kinds."""
    table = read_delimited(path, delimiter=delimiter, max_rows=max_rows)
    columns, kinds = pandas_view(path, sep=delimiter, nrows=max_rows)
    assert typed(table.columns) == typed(columns)
    assert table.kinds == kinds
    return table


def write(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_missing_words_are_pandas_defaults():
    """chartc.infra.table's missing words are exactly read_csv's defaults (they drift between pandas versions)."""
    from chartc.infra.table import MISSING_WORDS
    assert set(MISSING_WORDS) == set(STR_NA_VALUES)


# ------------------------------------------------------------------ CSV edge cases

D = datetime.datetime

# name -> (file text, Table's columns as pandas gives them)
CSV_CASES = {
    "empty_cells": ("a,b\n1,\n,x\n", {"a": [1.0, None], "b": [None, "x"]}),
    "int_gap": ("a,b\n1,x\nNA,y\n3,z\n", {"a": [1.0, None, 3.0], "b": ["x", "y", "z"]}),
    "all_missing": ("a,b\n1,\n2,NA\n", {"a": [1, 2], "b": [None, None]}),
    "ints_and_floats": ("a\n1\n2.5\n-3\n", {"a": [1.0, 2.5, -3.0]}),
    "int_signs_zeros_quotes": ('a\n+7\n-0\n007\n"12"\n', {"a": [7, 0, 7, 12]}),
    "int64_bounds": ("a\n9223372036854775807\n-9223372036854775808\n",
                     {"a": [9223372036854775807, -9223372036854775808]}),
    "scientific": ("a\n1e3\n-2.5E-2\n.5\n5.\n+7\n-.5e1\n", {"a": [1000.0, -0.025, 0.5, 5.0, 7.0, -5.0]}),
    "infinities": ("a\ninf\n-inf\nInfinity\n+inf\n-INF\n1\n",
                   {"a": [math.inf, -math.inf, math.inf, math.inf, -math.inf, 1.0]}),
    "overflow": ("a\n1e400\n2\n", {"a": [math.inf, 2.0]}),
    "booleans": ("a\nTrue\nFALSE\ntrue\nfalse\nTRUE\nFalse\n", {"a": [True, False, True, False, True, False]}),
    "booleans_gap": ("a,b\ntrue,1\n,2\nFalse,3\n", {"a": [True, None, False], "b": [1, 2, 3]}),
    "booleans_and_numbers": ("a\n1\nTrue\n", {"a": ["1", "True"]}),
    "duplicate_names": ("a,a,b,a\n1,2,3,4\n", {"a": [1], "a.1": [2], "b": [3], "a.2": [4]}),
    "empty_names": (",b,\n1,2,3\n", {"Unnamed: 0": [1], "b": [2], "Unnamed: 2": [3]}),
    "short_rows": ("a,b,c\n1,2,3\n4\n5,6\n", {"a": [1, 4, 5], "b": [2.0, None, 6.0], "c": [3.0, None, None]}),
    "no_final_newline": ("a,b\n1,2\n3", {"a": [1, 3], "b": [2.0, None]}),
    "blank_lines": ("\na,b\n\n1,2\n\n\n3,4\n\n", {"a": [1, 3], "b": [2, 4]}),
    "crlf": ("a,b\r\n1,2\r\n\r\n3,4\r\n", {"a": [1, 3], "b": [2, 4]}),
    "comma_only_line": ("a,b\n1,2\n,\n3,4\n", {"a": [1.0, None, 3.0], "b": [2.0, None, 4.0]}),
    "single_column_quoted_empty": ('a\n""\n1\n', {"a": [None, 1.0]}),
    "quoted": ('a,b\n"x,y","line\nbreak"\n"say ""hi""",2\n',
               {"a": ["x,y", 'say "hi"'], "b": ["line\nbreak", "2"]}),
    "bom": ("\ufeffa,b\n1,2\n", {"a": [1], "b": [2]}),
    "unicode_text": ("city,n\n東京,1\nZürich,2\n", {"city": ["東京", "Zürich"], "n": [1, 2]}),
    "numbers_and_text": ("a\n1\n2.5\nx\n", {"a": ["1", "2.5", "x"]}),
    "missing_in_text": ("a\nx\nnull\nN/A\n", {"a": ["x", None, None]}),
    "nan_word_case": ("a\nNAN\n1\n", {"a": ["NAN", "1"]}),  # NAN is not a missing word
    "iso_dates": ("d,t\n2024-01-31,2024-01-31T10:20:30.25\n2023-12-01,2023-12-01 08:00\n",
                  {"d": [D(2024, 1, 31), D(2023, 12, 1)],
                   "t": [D(2024, 1, 31, 10, 20, 30, 250000), D(2023, 12, 1, 8, 0)]}),
    "nanosecond_fraction": ("t\n2024-01-31T10:20:30.123456789\n",
                            {"t": [D(2024, 1, 31, 10, 20, 30, 123456)]}),
    "dates_gap": ("d\n2024-01-31\nNA\n", {"d": [D(2024, 1, 31), None]}),
    "invalid_date": ("d\n2023-02-28\n2023-02-30\n", {"d": ["2023-02-28", "2023-02-30"]}),
    "year_zero": ("d\n0000-01-01\n", {"d": ["0000-01-01"]}),
    "dates_and_text": ("d\n2023-02-28\nsoon\n", {"d": ["2023-02-28", "soon"]}),
    "date_and_slash_date": ("d\n2023-02-28\n2023/03/01\n", {"d": ["2023-02-28", "2023/03/01"]}),
}


@pytest.mark.parametrize("text, expected", list(CSV_CASES.values()), ids=list(CSV_CASES))
def test_csv_edge_cases_like_pandas(tmp_path, text, expected):
    """Each edge case reads as read_csv reads it (values, types, order, kinds), and as written down."""
    table = assert_like_pandas(write(tmp_path, text))
    assert typed(table.columns) == typed(expected)


def test_every_missing_word_is_missing(tmp_path):
    """Each of read_csv's missing words is None in a number column and in a text column."""
    text = "n,t\n" + "".join(f'1,x\n"{word}","{word}"\n' for word in NA_WORDS)
    table = assert_like_pandas(write(tmp_path, text))
    assert table.columns == {"n": [1.0, None] * len(NA_WORDS), "t": ["x", None] * len(NA_WORDS)}


def test_tsv_like_pandas(tmp_path):
    """A TSV (delimiter tab) reads as read_csv(sep='\\t'): commas are plain text there."""
    path = write(tmp_path, "a\tb\tc\n1\tx,y\t2024-05-06\n2.5\t\tNA\n", "data.tsv")
    table = assert_like_pandas(path, delimiter="\t")
    assert table.columns == {"a": [1.0, 2.5], "b": ["x,y", None], "c": [D(2024, 5, 6), None]}


def test_empty_file_has_no_columns(tmp_path):
    """An empty file is an empty table (pandas raises EmptyDataError instead: a deliberate difference)."""
    path = write(tmp_path, "")
    assert read_delimited(path) == Table({}, {})
    with pytest.raises(pd.errors.EmptyDataError):
        pd.read_csv(path)


# ------------------------------------------------------------------ malformed rows, max_rows

def test_row_longer_than_header_is_an_error(tmp_path):
    """A row with too many fields raises TableError, as pandas raises ParserError, naming the line."""
    path = write(tmp_path, "a,b\n1,2\n3,4,5\n")
    with pytest.raises(pd.errors.ParserError, match="Expected 2 fields in line 3, saw 3"):
        pd.read_csv(path)
    with pytest.raises(TableError) as table_error:
        read_delimited(path)
    assert str(table_error.value) == "line 3 has 3 fields, but the header has 2"


def test_long_first_row_is_an_error_not_an_index(tmp_path):
    """pandas reads one extra field on every row as an index; Table refuses the file."""
    path = write(tmp_path, "a,b\n1,2,\n3,4,\n")
    assert list(pd.read_csv(path).columns) == ["a", "b"]  # pandas' implicit index column
    with pytest.raises(TableError, match="^line 2 has 3 fields, but the header has 2$"):
        read_delimited(path)


MAX_ROWS_TEXT = "a,b,c\n1,x,2024-01-01\n2,,2024-01-02\n3.5,y,NA\n,z,later\n4,w,2024-01-05\n6,7,8,9\n"


@pytest.mark.parametrize("max_rows", [1, 2, 3, 4, 5])
def test_max_rows_like_nrows(tmp_path, max_rows):
    """max_rows reads the first N data rows and types them alone, as read_csv(nrows=N).

    The long row past them is never read, by either.
    """
    table = assert_like_pandas(write(tmp_path, MAX_ROWS_TEXT), max_rows=max_rows)
    assert len(table) == max_rows


def test_max_rows_skips_blank_lines(tmp_path):
    """Blank lines do not count towards max_rows (nor towards nrows)."""
    table = assert_like_pandas(write(tmp_path, "a\n1\n\n\n2\n3\n"), max_rows=2)
    assert table.columns == {"a": [1, 2]}


# ------------------------------------------------------------------ generated CSV files

def decimal_text(number: int, places: int) -> str:
    """12345, 2 -> '123.45'; -5, 3 -> '-0.005'."""
    digits = str(abs(number)).rjust(places + 1, "0")
    return ("-" if number < 0 else "") + digits[:-places] + "." + digits[-places:]


def datetime_text(stamp: datetime.datetime, separator: str, precision: int) -> str:
    """ISO date-time text to the minute (0), second (1), or a fraction of 1-9 digits (2-10)."""
    text = stamp.strftime(f"%Y-%m-%d{separator}%H:%M")
    if precision >= 1:
        text += stamp.strftime(":%S")
    if precision >= 2:
        text += "." + stamp.strftime("%f").ljust(9, "7")[: precision - 1]
    return text


INTS = st.integers(-10**12, 10**12).map(str)
FLOATS = st.one_of(
    st.builds(decimal_text, st.integers(-10**7, 10**7), st.integers(1, 3)),
    st.builds("{}e{}".format, st.integers(-999, 999), st.integers(-6, 6)),
)
WORDS = st.one_of(
    st.text(alphabet="xyzéø東", min_size=1, max_size=5),
    st.sampled_from(["two words", "x,y", 'say "hi"', "line\nbreak", "x;y"]),
)
BOOLEANS = st.sampled_from(TRUE_FALSE_WORDS)
YEARS = {"min_value": datetime.date(1900, 1, 1), "max_value": datetime.date(2100, 12, 31)}
DATES = st.one_of(
    st.dates(**YEARS).map(datetime.date.isoformat),
    st.builds(datetime_text,
              st.datetimes(datetime.datetime(1900, 1, 1), datetime.datetime(2100, 12, 31)),
              st.sampled_from(["T", " "]), st.integers(0, 10)),
)
CELLS = {"ints": INTS, "floats": FLOATS, "numbers": st.one_of(INTS, FLOATS), "words": WORDS,
         "booleans": BOOLEANS, "dates": DATES}
CELLS["mixed"] = st.one_of(*CELLS.values())


@st.composite
def csv_files(draw):
    """(header, rows, delimiter, max_rows): typical data, one kind of cell per column, with optional gaps."""
    names = draw(st.lists(st.text(alphabet="bcdgk_", min_size=1, max_size=4), min_size=1, max_size=4,
                          unique=True))
    n_rows = draw(st.integers(1, 8))
    columns = []
    for _ in names:
        cells = CELLS[draw(st.sampled_from(sorted(CELLS)))]
        if draw(st.booleans()):
            cells = st.one_of(cells, cells, cells, st.sampled_from(NA_WORDS))
        columns.append(draw(st.lists(cells, min_size=n_rows, max_size=n_rows)))
    delimiter = draw(st.sampled_from([",", "\t"]))
    max_rows = draw(st.none() | st.integers(1, n_rows + 1))
    return names, [list(row) for row in zip(*columns)], delimiter, max_rows


@CI
@given(csv_files())
@pytest.mark.slow
def test_generated_csv_like_pandas(tmp_path_factory, data):
    """Generated typical CSV/TSV files read as read_csv reads them (values, types, order, kinds)."""
    names, rows, delimiter, max_rows = data
    path = tmp_path_factory.getbasetemp() / "generated.csv"
    with open(path, "w", encoding="utf-8", newline="") as stream:
        writer = csv.writer(stream, delimiter=delimiter, lineterminator="\n")
        writer.writerow(names)
        writer.writerows(rows)
    assert_like_pandas(path, delimiter=delimiter, max_rows=max_rows)


# ------------------------------------------------------------------ records

RECORD_CASES = {
    "ints": [{"a": 1}, {"a": -2}],
    "ints_with_none": [{"a": 1}, {"a": None}],
    "ints_with_nan": [{"a": float("nan")}, {"a": 1}],
    "floats": [{"a": 1.5}, {"a": 2}],
    "bools": [{"a": True}, {"a": False}],
    "bools_with_none": [{"a": True}, {"a": None}, {"a": False}],
    "bools_and_ints": [{"a": True}, {"a": 1}],
    "strings": [{"a": "x"}, {"a": None}, {"a": "y"}],
    "strings_with_nan": [{"a": "x"}, {"a": float("nan")}],
    "all_nan": [{"a": float("nan")}, {"a": float("nan")}],
    "numbers_and_strings": [{"a": 1}, {"a": "x"}, {"a": 2.5}, {"a": None}],
    "missing_keys": [{"a": 1}, {"b": "x", "a": 2}, {"c": True}],
    "iso_dates": [{"d": "2024-01-02"}, {"d": "2024-01-03T04:05:06.5"}, {"d": None}],
    "invalid_date": [{"d": "2024-02-30"}, {"d": "2024-01-01"}],
    "dates_and_numbers": [{"d": "2024-01-02"}, {"d": 3}],
    "big_ints": [{"a": 2**70}, {"a": 1}],
}


@pytest.mark.parametrize("rows", list(RECORD_CASES.values()), ids=list(RECORD_CASES))
def test_from_records_like_pandas(rows):
    """from_records types columns as DataFrame.from_records does (order of first appearance, gaps, mixes)."""
    table = from_records(rows)
    columns, kinds = frame_view(pd.DataFrame.from_records(rows))
    assert typed(table.columns) == typed(columns)
    assert table.kinds == kinds


def test_from_records_exact_values():
    """A spot check written out by hand: gaps make floats, ISO text makes dates, mixed columns have no kind."""
    table = from_records([{"n": 1, "d": "2024-01-02", "m": 1}, {"n": None, "d": "2024-01-03 04:05", "m": "x"}])
    assert typed(table.columns) == typed({"n": [1.0, None], "d": [D(2024, 1, 2), D(2024, 1, 3, 4, 5)],
                                          "m": [1, "x"]})
    assert table.kinds == {"n": "number", "d": "date", "m": None}


# ------------------------------------------------------------------ fold, distinct, unique, records

FOLD_ROWS = [
    {"id": "a", "x": 1, "y": 2.5, "g": 4, "s": "u", "when": "2024-01-01", "end": "2024-02-01"},
    {"id": "b", "x": None, "y": 3.0, "g": 5, "s": None, "when": "2024-01-02", "end": "2024-02-02"},
    {"id": "c", "x": 7, "y": None, "g": 6, "s": "w", "when": None, "end": "2024-02-03"},
]


@pytest.mark.parametrize("fields", [["x", "y"], ["y", "x"], ["y"], ["g", "y"], ["x", "s"], ["when", "end"],
                                    ["id", "when"], ["x", "y", "g", "s"]])
def test_fold_like_melt(fields):
    """fold is melt: kept columns in table order, then key and value, field by field; the value kind is melt's."""
    table = from_records(FOLD_ROWS).fold(fields, "key", "value")
    frame = pd.DataFrame.from_records(FOLD_ROWS)
    frame = pd.DataFrame({name: with_dates(frame[name]) for name in frame.columns})
    kept = [name for name in frame.columns if name not in fields]
    melted = frame.melt(id_vars=kept, value_vars=fields, var_name="key", value_name="value")
    columns, kinds = frame_view(melted)
    assert list(table.columns) == list(columns)
    assert table.columns == columns  # ==: an int folded with floats stays an int (melt gives 4.0)
    assert table.kinds == kinds


SMALL_VALUES = {
    "ints": st.sampled_from([0, 1, 2, None]),
    "floats": st.sampled_from([0.5, 1.5, -0.0, 0.0, float("nan"), None]),
    "words": st.sampled_from(["x", "y", "é", None]),
    "bools": st.sampled_from([True, False, None]),
    "dates": st.sampled_from(["2024-01-01", "2024-01-02", "2024-01-01T00:00", None]),
}


@st.composite
def record_lists(draw):
    kinds = draw(st.lists(st.sampled_from(sorted(SMALL_VALUES)), min_size=1, max_size=3))
    n_rows = draw(st.integers(0, 8))
    return [{f"c{i}": draw(SMALL_VALUES[kind]) for i, kind in enumerate(kinds)} for _ in range(n_rows)]


@CI
@given(record_lists())
@pytest.mark.slow
def test_generated_records_like_pandas(rows):
    """Generated records type as DataFrame.from_records types them (values, types, order, kinds)."""
    table = from_records(rows)
    columns, kinds = frame_view(pd.DataFrame.from_records(rows))
    assert typed(table.columns) == typed(columns)
    # An all-None column's kind differs (test_all_missing_record_column_kind): compared there, not here.
    assert ({name: kind for name, kind in table.kinds.items() if any(v is not None for v in columns[name])}
            == {name: kind for name, kind in kinds.items() if any(v is not None for v in columns[name])})


@CI
@given(record_lists())
@pytest.mark.slow
def test_distinct_and_unique_like_pandas(rows):
    """distinct counts drop_duplicates' rows for every set of fields; unique is dropna().unique(), in order."""
    table = from_records(rows)
    frame = pd.DataFrame.from_records(rows)
    frame = pd.DataFrame({name: with_dates(frame[name]) for name in frame.columns})
    names = list(frame.columns)
    for size in range(1, len(names) + 1):
        for start in range(len(names) - size + 1):
            fields = names[start:start + size]
            assert table.distinct(fields) == len(frame.drop_duplicates(subset=fields))
    assert table.distinct([]) == (1 if rows else 0)
    for name in names:
        assert typed({name: table.unique(name)}) == typed({name: [plain(v) for v in
                                                                   frame[name].dropna().unique().tolist()]})


def test_distinct_and_unique_of_nan_cells():
    """NaN and None cells (a Table built directly, not read) are one missing value, as in drop_duplicates."""
    values = [math.nan, float("nan"), None, 1.0, 1.0]
    table = Table({"a": values}, {"a": "number"})
    frame = pd.DataFrame({"a": values})
    assert table.distinct(["a"]) == len(frame.drop_duplicates(subset=["a"])) == 2
    assert table.unique("a") == frame["a"].dropna().unique().tolist() == [1.0]


def test_records_like_pandas_json():
    """records() is JSON as pandas writes it: NaN and ±inf null, dates YYYY-MM-DDTHH:MM:SS (fraction dropped)."""
    values = {
        "f": [1.5, math.nan, math.inf, -math.inf],
        "d": [D(2020, 1, 2, 3, 4, 5, 678000), None, D(1960, 5, 6), D(2099, 12, 31, 23, 59, 59, 999999)],
        "b": [True, False, True, False],
        "s": ["x", None, "y", "z"],
        "i": [1, 2, 3, -4],
    }
    table = Table(values, {"f": "number", "d": "date", "b": "boolean", "s": "text", "i": "number"})
    frame = pd.DataFrame({"f": values["f"], "d": pd.Series(values["d"], dtype="datetime64[us]"),
                          "b": values["b"], "s": values["s"], "i": values["i"]})
    expected = json.loads(frame.to_json(orient="records", date_format="iso", date_unit="s"))
    records = table.records()
    assert records == expected
    assert json.loads(json.dumps(records, allow_nan=False)) == records


@pytest.mark.parametrize("text, dates", [
    ("a,b,c,d\n1,x,2024-01-02T03:04:05.9,true\nNA,,2024-01-03,false\ninf,z,,true\n", "c"),
    ("d\n0999-01-01\n2020-01-01\n", "d"),  # an early year is written 0999-..., as pandas writes it
], ids=["mixed", "early_year"])
def test_records_of_read_file(tmp_path, text, dates):
    """A read file's records are the JSON of the same file read by pandas."""
    path = write(tmp_path, text)
    frame = pd.read_csv(path)
    frame[dates] = with_dates(frame[dates])
    expected = json.loads(frame.to_json(orient="records", date_format="iso", date_unit="s"))
    assert read_delimited(path).records() == expected


# ------------------------------------------------------------------ single values

NUMBER_INPUTS = [1, -2, 2.5, math.inf, math.nan, "3", " 7 ", "-4.5", "+5", ".5", "5.", "1e3", "2E-2", "inf",
                 "-Infinity", "x", "", "nan", "NA", "1_000", "0x10", "1,5", None, True, False]


def test_to_number_like_to_numeric():
    """to_number is pandas.to_numeric(errors='coerce') on an object column, value by value."""
    expected = pd.to_numeric(pd.Series(NUMBER_INPUTS, dtype=object), errors="coerce").tolist()
    got = [to_number(v) for v in NUMBER_INPUTS]
    assert all(isinstance(v, float) for v in got)
    assert [None if math.isnan(v) else v for v in got] == [None if math.isnan(v) else v for v in expected]


def pandas_milliseconds(stamp: datetime.datetime) -> float:
    return (pd.Timestamp(stamp) - pd.Timestamp("1970-01-01")) / pd.Timedelta(milliseconds=1)


@pytest.mark.parametrize("stamp", [D(1970, 1, 1), D(1970, 1, 1, 0, 0, 0, 1), D(2024, 2, 29, 12, 30, 15, 250000),
                                   D(1901, 3, 4, 5, 6, 7, 123457), D(1969, 7, 20, 20, 17, 40),
                                   D(2099, 1, 1, 0, 0, 0, 1)])
def test_milliseconds_exact(stamp):
    """milliseconds matches pandas' Timedelta arithmetic exactly on these dates, before and after 1970."""
    assert milliseconds(stamp) == pandas_milliseconds(stamp)


@CI
@given(st.datetimes(datetime.datetime(1678, 1, 1), datetime.datetime(2261, 12, 31)))
def test_milliseconds_like_pandas(stamp):
    """milliseconds is the exact quotient, correctly rounded; pandas' float division agrees to 1e-15.

    (pandas divides a float count of nanoseconds, which past 2⁵³ ns is itself
    rounded, so it can be an ulp off at dates far from 1970.)
    """
    exact = Fraction((stamp - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1), 1000)
    assert milliseconds(stamp) == float(exact)
    assert milliseconds(stamp) == pytest.approx(pandas_milliseconds(stamp), rel=1e-15, abs=1e-9)


# ------------------------------------------------------------------ corner cases found by comparison

CORNER_CASES = {
    # pandas skips a line of only spaces/tabs as blank (else a number column would become text).
    "whitespace_only_line": "a,b\n1,2\n   \n3,4\n",
    # pandas reads a quoted empty line as a row of missing values.
    "quoted_empty_line": 'a,b\n1,2\n""\n3,4\n',
    # pandas names the second `a` a.2 because a.1 is taken further on.
    "duplicate_name_clash": "a,a,a.1\n1,2,3\n",
    # pandas renames empty names last: the written `Unnamed: 0` keeps its name, the empty one is .1.
    "unnamed_name_clash": ",Unnamed: 0,b\n1,2,3\n",
    # Arabic-Indic ١٢ is text to pandas, though int() reads it as 12.
    "non_ascii_digits": "a\n١٢\n3\n",
    # Past int64 but within uint64, pandas has a uint64 (number) column.
    "uint64": "a\n9223372036854775808\n1\n",
    # A header and no rows: pandas has object columns (no kind).
    "header_only": "a,b\n",
}


@pytest.mark.parametrize("text", list(CORNER_CASES.values()), ids=list(CORNER_CASES))
def test_corner_cases_like_pandas(tmp_path, text):
    """Minimal files where read_delimited once disagreed with read_csv."""
    assert_like_pandas(write(tmp_path, text))


def test_max_rows_zero_reads_no_rows(tmp_path):
    """read_csv(nrows=0) reads no rows; read_delimited(max_rows=0) neither."""
    assert len(read_delimited(write(tmp_path, "a\n1\n2\n"), max_rows=0)) == 0


def test_long_row_message_names_the_physical_line(tmp_path):
    """Past a quoted line break the message names the line an editor shows (pandas counts records)."""
    path = write(tmp_path, 'a,b\n"1\n2",2\n3,4,5\n')
    with pytest.raises(pd.errors.ParserError):
        pd.read_csv(path)
    with pytest.raises(TableError) as table_error:
        read_delimited(path)
    assert str(table_error.value) == "line 4 has 3 fields, but the header has 2"


def test_all_missing_record_column_kind():
    """DataFrame.from_records gives an all-None column object dtype (nominal)."""
    rows = [{"a": None}, {"a": None}]
    assert from_records(rows).kinds == frame_view(pd.DataFrame.from_records(rows))[1]


def test_to_number_non_ascii_digits():
    """pandas.to_numeric does not read Arabic-Indic digits."""
    assert math.isnan(to_number("١٢"))
    assert math.isnan(pd.to_numeric(pd.Series(["١٢"], dtype=object), errors="coerce")[0])


def test_milliseconds_exact_before_1970():
    """1969-12-31T23:59:59.999999 is exactly -0.001 ms, as in pandas."""
    stamp = D(1969, 12, 31, 23, 59, 59, 999999)
    assert milliseconds(stamp) == pandas_milliseconds(stamp) == -0.001


# ------------------------------------------------------------------ vega-datasets

@pytest.mark.parametrize("name", json.loads(
    (Path(vega_datasets.__file__).parent / "local_datasets.json").read_text(encoding="utf-8")))
def test_datasets_like_their_pandas_loaders(name):
    """Every offline vega-datasets table, as `vega_datasets.local_data` loads it with pandas.

    pandas' JSON reader parses decimals imprecisely (0.6 as 0.6000000000000001),
    so floats agree to 1 ulp-ish; everything else exactly.
    """
    from chartc.stages.data import load_dataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = getattr(vega_datasets.local_data, name.replace("-", "_"))()
    columns, kinds = frame_view(frame)
    table = load_dataset(name)
    assert table.kinds == kinds
    assert table.names == list(columns)
    for column, expected in columns.items():
        got = table[column]
        assert [type(v) for v in got] == [type(v) for v in expected], column
        if kinds[column] != "number":
            assert got == expected, column
            continue
        # Missing numbers (None) are compared as themselves: approx() takes numbers only.
        assert [v is None for v in got] == [v is None for v in expected], column
        numbers = [(g, e) for g, e in zip(got, expected) if e is not None]
        assert [g for g, _ in numbers] == pytest.approx([e for _, e in numbers], rel=1e-15, abs=0), column


@given(st.lists(st.one_of(st.floats(), st.integers(-2**60, 2**60), st.booleans(), st.none(), st.text(max_size=3),
                          st.datetimes(min_value=datetime.datetime(1900, 1, 1))), max_size=12),
       st.sampled_from([float, int, str, None]))
@settings(max_examples=300, deadline=None)
def test_a_columns_json_cells_are_each_cells_json_value(cells, only):
    """`json_column`'s shortcut (a column of finite floats, text, or integers a double holds, as it is) gives
    what `json_value` gives cell by cell, on columns of one kind and of many."""
    from chartc.infra.table import json_column, json_value

    if only is not None:
        cells = [cell for cell in cells if type(cell) is only]
    got = json_column(cells)
    expected = [json_value(cell) for cell in cells]
    assert [repr(v) for v in got] == [repr(v) for v in expected]
