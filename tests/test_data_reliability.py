"""Reading data reliably: wide and odd files, `validate` agreeing with `compile`, silent data problems.

One section per finding of the data-reliability review:

1. wide or odd CSV files: linear-time readers, positioned errors for the limits;
2. `chartc validate` (header only) and `compile` (every row) name columns alike;
3. unknown marker shapes are refused by `validate`, as by `compile`;
4. day-first dates and integers past 2⁵³ no longer lose rows or categories silently;
5. subnormal x values give a positioned diagnostic at the trend, not a crash.

Messages are compared through the functions in `chartc.errors`; outputs
through the compiled Vega-Lite and the fitted numbers.
"""

from __future__ import annotations

import csv
import json
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from chartc.commands import cli
from chartc.infra import table
from chartc import errors as msg
from chartc.errors import Location, SpecError
from chartc.stages.load import load_spec
from chartc.stages.parse import parse_chart
from chartc.pipeline import compile_spec, validate_spec
from chartc.stages.data import read_columns, read_rows
from chartc.infra.shapes import SHAPE_NAMES, shape_choices
from chartc.infra.table import (MAX_CELLS, MAX_COLUMNS, MAX_NAME_LENGTH, TableError, column_names, from_records,
                                read_delimited, read_header)

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

CI = settings(max_examples=100, deadline=None, derandomize=True, database=None)


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def write_spec(folder: Path, text: str, name: str = "chart.yaml") -> Path:
    return write(folder, name, textwrap.dedent(text))


def compile_problems(path: Path) -> list[str]:
    """Every diagnostic `compile` gives: its errors, else its warnings."""
    try:
        return [w.diagnostic() for w in compile_spec(path).warnings]
    except SpecError as error:
        return [e.diagnostic() for e in error.errors]


def validate_problems(path: Path) -> list[str]:
    return [p.diagnostic() for p in validate_spec(path)]


def columns_both_ways(spec_path: Path) -> tuple[list[str], list[str]]:
    """(the light check's column names, the full read's column names) of a spec's data."""
    chart, _ = parse_chart(load_spec(spec_path))
    return read_columns(chart.data), read_rows(chart.data).names


# ================================================================== 1. wide or odd files

class Counted(str):
    """Text that counts the hashing and comparing done on it: a measure of work that no load can skew."""

    calls = 0

    def __hash__(self):
        Counted.calls += 1
        return str.__hash__(self)

    def __eq__(self, other):
        Counted.calls += 1
        return str.__eq__(self, other)


def naming_work(header: list[str]) -> int:
    Counted.calls = 0
    column_names([Counted(name) for name in header])
    return Counted.calls


@pytest.mark.parametrize("make", [
    lambda n: ["a"] * n,                      # every name repeated: was cubic (47 s at 10⁵ distinct)
    lambda n: [f"c{i}" for i in range(n)],
    lambda n: ["a", "a.1"] * (n // 2),        # renamed columns clash with written ones
    lambda n: ["a", ""] * (n // 2),           # empty names, renamed last
], ids=["repeated", "distinct", "clashing", "unnamed"])
@pytest.mark.slow
def test_naming_columns_takes_work_linear_in_the_header(make):
    """Doubling the header doubles the work (counted, not timed, so no load skews it).

    The count is exact at any width; the old search of the list made it 4x.
    """
    once, twice = naming_work(make(20_000)), naming_work(make(40_000))
    assert once <= 20 * 20_000
    assert twice <= 2 * once + 100


@pytest.mark.slow
@pytest.mark.parametrize("width", [100_000, 200_000])
def test_naming_columns_is_fast_at_any_width(width):
    """A generous wall-clock bound on top of the count: 10⁵ repeated names took 47 s and more."""
    started = time.perf_counter()
    names = column_names(["a"] * width)
    assert time.perf_counter() - started < 10
    assert len(set(names)) == len(names) == width and names[-1] == f"a.{width - 1}"


@pytest.mark.parametrize("width", [100_000, 200_000])
def test_a_header_past_the_column_limit_is_refused_quickly_by_validate_and_compile(tmp_path, width):
    """10⁵ columns took 47 s to name (a 4.5 M-column header hung); now both checks refuse them at once."""
    write(tmp_path, "wide.csv", ",".join(f"c{i}" for i in range(width)) + "\n" + ",".join(["1"] * width) + "\n")
    spec = write_spec(tmp_path, "data: {path: wide.csv}\nmark: point\nencoding: {x: c1, y: c2}\n")
    expected = SpecError(msg.data_unreadable("wide.csv", msg.data_header_too_wide(1, width, MAX_COLUMNS)),
                         ("data", "path"), location=Location(str(spec), 1, 14),
                         hint=msg.data_header_too_wide_hint()).diagnostic()
    started = time.perf_counter()
    assert validate_problems(spec) == [expected]
    assert compile_problems(spec) == [expected]
    assert time.perf_counter() - started < 10


def test_an_empty_header_of_millions_of_columns_is_refused_quickly(tmp_path):
    """The review's 4.5 M-column header (commas only) hung past 300 s."""
    path = write(tmp_path, "commas.csv", "," * 4_500_000 + "\n")
    started = time.perf_counter()
    with pytest.raises(TableError) as caught:
        read_header(path)
    assert time.perf_counter() - started < 10
    assert (str(caught.value), caught.value.hint) == (msg.data_header_too_wide(1, 4_500_001, MAX_COLUMNS),
                                                      msg.data_header_too_wide_hint())


def test_the_widest_header_allowed_is_read_and_named(tmp_path):
    path = write(tmp_path, "widest.csv", ",".join(["a"] * MAX_COLUMNS) + "\n" + ",".join(["1"] * MAX_COLUMNS) + "\n")
    started = time.perf_counter()
    table = read_delimited(path)
    assert time.perf_counter() - started < 10
    assert table.names[:3] == ["a", "a.1", "a.2"] and table.names[-1] == f"a.{MAX_COLUMNS - 1}"
    assert read_header(path) == (table.names, True)


@pytest.mark.parametrize("text, found, unclosed", [
    # one character past the limit
    ("a,b," + "c" * (MAX_NAME_LENGTH + 1) + "\n1,2,3\n", (1, 3, MAX_NAME_LENGTH + 1), False),
    # past the csv module's own limit (131,072): was an internal error in validate
    ("a,b," + "c" * 140_000 + "\n1,2,3\n", (1, 3, 140_000), False),
    # a quote never closed swallows the file into one header cell
    ('a,"b\n1,2\n3,4\n' + "x" * 200_000 + "\n", (1, 2, 200_011), True),
    # blank lines before the header, a quoted line break inside it: the cell's own line
    ('\n\r\na,"x\ny",' + "c" * (MAX_NAME_LENGTH + 5) + "\n1,2,3\n", (4, 3, MAX_NAME_LENGTH + 5), False),
], ids=["just_over", "past_csv_limit", "open_quote", "after_blank_lines"])
def test_a_header_cell_past_the_limit_names_its_line_and_column(tmp_path, text, found, unclosed):
    write(tmp_path, "long.csv", text)
    spec = write_spec(tmp_path, "data: {path: long.csv}\nmark: point\nencoding: {x: a, y: a}\n")
    expected = SpecError(msg.data_unreadable("long.csv", msg.data_header_cell_too_long(*found, MAX_NAME_LENGTH)),
                         ("data", "path"), location=Location(str(spec), 1, 14),
                         hint=msg.data_long_cell_hint(unclosed, header=True)).diagnostic()
    assert validate_problems(spec) == [expected]
    assert compile_problems(spec) == [expected]


def test_a_header_cell_at_the_limit_is_a_name(tmp_path):
    name = "é" * MAX_NAME_LENGTH  # characters, not bytes
    path = write(tmp_path, "ok.csv", f"a,{name}\n1,2\n")
    assert read_header(path) == (["a", name], True) and read_delimited(path).names == ["a", name]


def test_a_data_cell_past_the_csv_limit_names_its_line_and_column(tmp_path):
    """A quote left open in row 3 used to give "field larger than field limit (131072)", with no place."""
    write(tmp_path, "open.csv", 'a,b\n1,2\n\n3,"' + "z" * 140_000 + "\n4,5\n")
    spec = write_spec(tmp_path, "data: {path: open.csv}\nmark: point\nencoding: {x: a, y: b}\n")
    reason = msg.data_cell_too_long(4, 2, 140_005, csv.field_size_limit())
    [problem] = compile_problems(spec)
    assert problem == SpecError(msg.data_unreadable("open.csv", reason), ("data", "path"),
                                location=Location(str(spec), 1, 14),
                                hint=msg.data_long_cell_hint(True, header=False)).diagnostic()


def test_short_rows_are_not_padded_past_the_cell_limit(tmp_path):
    """200 KB of one-field rows under a 5,000-column header made 10⁸ cells (over 60 s); now refused at once."""
    path = write(tmp_path, "short.csv", ",".join(f"c{i}" for i in range(5000)) + "\n" + "1\n" * 20_000)
    started = time.perf_counter()
    with pytest.raises(TableError) as caught:
        read_delimited(path)
    assert time.perf_counter() - started < 10
    assert (str(caught.value), caught.value.hint) == (msg.data_too_many_cells(20_000, 5000, MAX_CELLS),
                                                      msg.data_too_many_cells_hint())


def test_sparse_records_are_refused_past_the_limits():
    """Records with a key each would make a table of rows x keys cells."""
    with pytest.raises(TableError) as caught:
        from_records([{f"k{i}": 1} for i in range(6000)])
    assert str(caught.value) == msg.data_too_many_cells(6000, 6000, MAX_CELLS)
    with pytest.raises(TableError) as caught:
        from_records([{f"k{i}": 1 for i in range(MAX_COLUMNS + 1)}])
    assert str(caught.value) == msg.data_records_too_wide(MAX_COLUMNS + 1, MAX_COLUMNS)


def test_too_many_inline_keys_are_placed_at_data_values(tmp_path, monkeypatch):
    monkeypatch.setattr(table, "MAX_COLUMNS", 3)  # a spec of 16,385 keys is slow to load, not to check
    spec = write_spec(tmp_path, "data:\n  values:\n    - {k0: 1, k1: 2, k2: 3, k3: 4}\nmark: point\n"
                                "encoding: {x: k1, y: k2}\n")
    expected = SpecError(msg.data_records_too_wide(4, 3), ("data", "values"),
                         location=Location(str(spec), 3, 5), hint=msg.data_header_too_wide_hint()).diagnostic()
    assert validate_problems(spec) == compile_problems(spec) == [expected]


# ================================================================== 2. validate and compile agree

HEADER_CASES = {
    # Excel's "CSV UTF-8" starts with a byte order mark: validate saw a column '\ufeffa'.
    "bom": ("data.csv", "\ufeffa,b\n1,2\n3,4\n", ["a", "b"]),
    "bom_tsv": ("data.tsv", "\ufeffa\tb\n1\t2\n", ["a", "b"]),
    # validate saw two columns named a, compile a and a.1.
    "duplicate": ("data.csv", "a,b,a\n1,2,3\n", ["a", "b", "a.1"]),
    # validate saw '', compile 'Unnamed: 2'.
    "empty_name": ("data.csv", "a,b,\n1,2,3\n", ["a", "b", "Unnamed: 2"]),
    # pandas renames the unnamed column, not the written one.
    "unnamed_clash": ("data.csv", ",Unnamed: 0,b\n1,2,3\n", ["Unnamed: 0.1", "Unnamed: 0", "b"]),
    "renamed_clash": ("data.csv", "a,a,a.1\n1,2,3\n", ["a", "a.2", "a.1"]),
    "blank_lines_first": ("data.csv", "\n\na,b\n1,2\n", ["a", "b"]),
    # A JSON file with a byte order mark was unreadable to both.
    "bom_json": ("data.json", '\ufeff[{"a": 1, "b": 2}, {"a": 3, "c": 4}]', ["a", "b", "c"]),
}


@pytest.mark.parametrize("name", list(HEADER_CASES))
def test_validate_and_compile_name_columns_alike(tmp_path, name):
    data_name, text, names = HEADER_CASES[name]
    write(tmp_path, data_name, text)
    fields = "".join(f"\n    - {{field: {json.dumps(n)}}}" for n in names)
    spec = write_spec(tmp_path, f"data: {{path: {data_name}}}\nmark: point\nencoding:\n  x: {json.dumps(names[-1])}\n"
                                f"  y: {json.dumps(names[0])}\n  tooltip:{fields}\n")
    assert columns_both_ways(spec) == (names, names)
    assert validate_problems(spec) == compile_problems(spec) == []


ERROR_CASES = {
    # validate passed a header without rows (or named no columns of an empty file); compile refused it.
    "header_only": ("data.csv", "a,b\n"),
    "empty_file": ("data.csv", ""),
    "blank_lines_only": ("data.csv", "a,b\n\n  \n"),
    "empty_json": ("data.json", "[]"),
    # validate listed no columns; compile said what is wrong.
    "json_not_records": ("data.json", '{"a": 1, "b": 2}'),
    "not_utf8": ("data.csv", b"a,b\n\xff,2\n"),
    "not_utf8_header": ("data.csv", b"\xffa,b\n1,2\n"),
    # a field missing from the renamed columns lists the same columns in both.
    "missing_renamed_field": ("data.csv", "a,a\n1,2\n"),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_validate_and_compile_refuse_the_same_data(tmp_path, name):
    data_name, text = ERROR_CASES[name]
    write(tmp_path, data_name, text)
    spec = write_spec(tmp_path, f"data: {{path: {data_name}}}\nmark: point\nencoding: {{x: a, y: a.2}}\n")
    found = validate_problems(spec)
    assert found and found == compile_problems(spec)


def test_no_rows_is_the_same_error_in_both(tmp_path):
    write(tmp_path, "data.csv", "a,b\n")
    spec = write_spec(tmp_path, "data: {path: data.csv}\nmark: point\nencoding: {x: a, y: b}\n")
    expected = SpecError(msg.empty_data(), ("data",), location=Location(str(spec), 1, 7),
                         hint=msg.empty_data_hint()).diagnostic()
    assert validate_problems(spec) == compile_problems(spec) == [expected]


HEADER_WORDS = ["a", "a.1", "a.2", "a.1.1", "", "Unnamed: 0", "Unnamed: 1", "Unnamed: 0.1", "b", " a"]


@CI
@given(st.lists(st.sampled_from(HEADER_WORDS), min_size=1, max_size=8))
@pytest.mark.slow
def test_generated_headers_are_named_as_pandas_names_them_by_both_readers(tmp_path_factory, header):
    """read_header (validate) and read_delimited (compile) give pandas.read_csv's names, whatever the header."""
    path = tmp_path_factory.mktemp("header") / "data.csv"
    with open(path, "w", encoding="utf-8", newline="") as stream:
        csv.writer(stream).writerows([header, ["1"] * len(header)])
    expected = [str(name) for name in pd.read_csv(path).columns]
    assert read_header(path) == (expected, True)
    assert read_delimited(path).names == expected


# ================================================================== 3. unknown marker shapes

MARKER_DATA = "a,b,c\n1,2,x\n3,4,y\n"
SHAPE_SPECS = {
    "styles": ("mark: point\nencoding: {x: a, y: b}\nmarkers:\n  field: c\n  styles:\n"
               "    x: {shape: starr}\n    y: {shape: circle}\n", "starr", ("markers", "styles", "x", "shape")),
    "default": ("mark: point\nencoding: {x: a, y: b}\nmarkers:\n  field: c\n  default: {shape: diamnd}\n"
                "  styles: {x: {shape: square}}\n", "diamnd", ("markers", "default", "shape")),
    "layer_styles": ("layers:\n  - mark: point\n    encoding: {x: a, y: b}\n    markers:\n      field: c\n"
                     "      styles: {x: {shape: hexagonn}, y: {}}\n", "hexagonn",
                     ("layers", 0, "markers", "styles", "x", "shape")),
    # the marker field is missing too: both report the shape and stop there
    "field_missing": ("mark: point\nencoding: {x: a, y: b}\nmarkers:\n  field: nope\n  styles:\n"
                      "    x: {shape: tirangle}\n", "tirangle", ("markers", "styles", "x", "shape")),
    "mark": ("mark: {type: point, shape: starr}\nencoding: {x: a, y: b}\n", "starr", ("mark", "shape")),
    "channel_value": ("mark: point\nencoding: {x: a, y: b, shape: {value: squar}}\n", "squar",
                      ("encoding", "shape", "value")),
    "no_near_miss": ("mark: point\nencoding: {x: a, y: b}\nmarkers:\n  field: c\n  styles:\n"
                     "    x: {shape: blob}\n", "blob", ("markers", "styles", "x", "shape")),
}


@pytest.mark.parametrize("name", list(SHAPE_SPECS))
def test_validate_refuses_an_unknown_shape_as_compile_does(tmp_path, name):
    text, shape, path = SHAPE_SPECS[name]
    write(tmp_path, "data.csv", MARKER_DATA)
    spec = write_spec(tmp_path, "data: {path: data.csv}\n" + text)
    source = spec.read_text()
    at = source.index(f" {shape}") + 1
    location = Location(str(spec), source.count("\n", 0, at) + 1, at - source.rfind("\n", 0, at))
    hint = msg.did_you_mean(shape, shape_choices()) or msg.known_shapes(SHAPE_NAMES)
    [problem] = validate_spec(spec)
    assert (problem.path, problem.message, problem.hint, problem.location) == (
        path, msg.unknown_shape(shape), hint, location)
    assert [problem.diagnostic()] == compile_problems(spec)


# ================================================================== 4a. day-first dates

def test_day_first_dates_are_an_error_naming_the_column_value_and_line(tmp_path):
    """31/12/2020 is no date to the renderer: the rows vanished from the chart without a word."""
    write(tmp_path, "dates.csv", 'd,y\n2020-12-30,1\n\n"31/12/2020",2\n01/02/2021,3\n')
    spec = write_spec(tmp_path, "data: {path: dates.csv}\nmark: point\nencoding:\n"
                                "  x: {field: d, type: temporal}\n  y: y\n")
    expected = SpecError(msg.day_first_dates("d", "31/12/2020", msg.data_file_line("dates.csv", 4)),
                         ("encoding", "x", "type"), location=Location(str(spec), 4, 23),
                         hint=msg.day_first_dates_hint()).diagnostic()
    assert compile_problems(spec) == [expected]


def test_validate_full_and_compile_give_the_same_day_first_diagnostic(tmp_path, capsys):
    write(tmp_path, "dates.csv", "d,y\n30/12/2020,1\n31/12/2020,2\n")
    spec = write_spec(tmp_path, "data: {path: dates.csv}\nmark: line\nencoding:\n"
                                "  x: {field: d, type: temporal}\n  y: y\n")
    assert cli.main(["validate", "--full", str(spec)]) == cli.EXIT_INVALID
    full = capsys.readouterr().err
    assert cli.main(["compile", str(spec), "-o", str(tmp_path / "out.svg")]) == cli.EXIT_INVALID
    compiled = capsys.readouterr().err
    expected = SpecError(msg.day_first_dates("d", "30/12/2020", msg.data_file_line("dates.csv", 2)),
                         ("encoding", "x", "type"), location=Location(str(spec), 4, 23),
                         hint=msg.day_first_dates_hint()).diagnostic()
    assert full == compiled == expected + "\n"
    assert not (tmp_path / "out.svg").exists()


def test_inline_day_first_dates_name_the_row(tmp_path):
    spec = write_spec(tmp_path, "data:\n  values: [{d: 2020-12-30, y: 1}, {d: 13.01.2021, y: 2}]\nmark: point\n"
                                "encoding:\n  x: {field: d, type: temporal}\n  y: y\n")
    [problem] = compile_problems(spec)
    assert msg.day_first_dates("d", "13.01.2021", msg.data_row_number(1)) in problem


@pytest.mark.parametrize("dates", [["12/30/2020", "12/31/2020"], ["2020-12-30", "2020-12-31"],
                                   ["Dec 30 2020", "Dec 31 2020"]], ids=["month_first", "iso", "words"])
def test_dates_the_renderer_reads_keep_every_row(tmp_path, dates):
    write(tmp_path, "dates.csv", "d,y\n" + "".join(f"{d},{i}\n" for i, d in enumerate(dates)))
    spec = write_spec(tmp_path, "data: {path: dates.csv}\nmark: point\nencoding:\n"
                                "  x: {field: d, type: temporal}\n  y: y\n")
    [rows] = compile_spec(spec).vega_lite["datasets"].values()
    assert len(rows) == len(dates)


# ================================================================== 4b. integers past 2⁵³ as categories

IDS = (12345678901234567, 12345678901234568)  # one number to a JavaScript reader


def markers_spec(folder: Path, data: str) -> Path:
    return write_spec(folder, f"data: {data}\nmark: point\nencoding: {{x: x, y: y}}\nmarkers:\n  field: id\n"
                              f"  styles:\n    '{IDS[0]}': {{shape: circle}}\n    '{IDS[1]}': {{shape: square}}\n")


def as_javascript_reads(vega_lite: dict):
    """The compiled chart as the renderer parses it: every JSON number a double."""
    return json.loads(json.dumps(vega_lite), parse_int=float)


def shape_domain(vega_lite: dict) -> list:
    return vega_lite["encoding"]["shape"]["scale"]["domain"]


@pytest.mark.parametrize("data", [
    "id,x,y\n12345678901234567,1,2\n12345678901234568,2,3\n",
    "id,x,y\n12345678901234567,1,2\n12345678901234568,2,3\n,3,4\n",  # a gap made them floats: one value
    '[{"id": 12345678901234567, "x": 1, "y": 2}, {"id": 12345678901234568, "x": 2, "y": 3}, {"x": 3, "y": 4}]',
], ids=["csv", "csv_with_gap", "json_with_gap"])
def test_two_ids_past_2_53_stay_two_categories(tmp_path, data):
    name = "ids.json" if data.startswith("[") else "ids.csv"
    write(tmp_path, name, data)
    compiled = compile_spec(markers_spec(tmp_path, f"{{path: {name}}}"))
    assert compiled.warnings == ()  # no "styled value absent from the data"
    seen = as_javascript_reads(compiled.vega_lite)
    [rows] = seen["datasets"].values()
    assert [row["id"] for row in rows[:2]] == [str(IDS[0]), str(IDS[1])]
    assert shape_domain(seen) == [str(IDS[0]), str(IDS[1])]  # two legend entries


def test_small_integers_stay_numbers_and_big_ones_are_exact_text():
    table = from_records([{"id": IDS[0]}, {"id": None}, {"id": 7}])
    assert table["id"] == [IDS[0], None, 7]
    assert table.records() == [{"id": "12345678901234567"}, {"id": None}, {"id": 7}]


@pytest.mark.slow
def test_the_renderer_draws_two_legend_entries_for_two_ids(tmp_path):
    """What the renderer draws: two legend labels (before, one: both IDs read as ...568)."""
    import vl_convert

    write(tmp_path, "ids.csv", "id,x,y\n12345678901234567,1,2\n12345678901234568,2,3\n")
    spec = write_spec(tmp_path, "data: {path: ids.csv}\nmark: point\n"
                                "encoding: {x: x, y: y, color: {field: id, type: nominal}}\n")
    labels = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("role") == "legend-label":
                labels.extend(item.get("text") for item in node.get("items", []))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(vl_convert.vegalite_to_scenegraph(compile_spec(spec).vega_lite))
    assert labels == [str(IDS[0]), str(IDS[1])]


# ================================================================== 5. subnormal x values

TREND_SPEC = """\
data: {{path: x.csv}}
layers:
  - mark: point
    encoding: {{x: x, y: y}}
  - trend: {trend}
    encoding: {{x: {x}, y: y}}
"""


def trend_chart(folder: Path, xs, trend: str = "{method: linear}", x: str = "x") -> Path:
    write(folder, "x.csv", "x,y\n" + "".join(f"{v!r},{2 * i + 1}\n" for i, v in enumerate(xs)))
    return write_spec(folder, TREND_SPEC.format(trend=trend, x=x))


@pytest.mark.parametrize("trend, method", [("{method: linear}", "linear"), ("{method: poly, order: 2}", "poly"),
                                           ("{method: exp}", "exp"), ("{method: linear, band: 0.95}", "linear")])
def test_subnormal_x_values_are_a_diagnostic_at_the_trend(tmp_path, trend, method):
    """5e-324 .. 2e-310 was 'internal error: ValueError: index can't contain negative values'."""
    spec = trend_chart(tmp_path, [5e-324, 1e-310, 2e-310], trend)
    expected = SpecError(msg.trend_x_span_subnormal(method, 5e-324, 2e-310, sys.float_info.min),
                         ("layers", 1, "trend"), location=Location(str(spec), 5, 5),
                         hint=msg.trend_x_span_subnormal_hint()).diagnostic()
    assert compile_problems(spec) == [expected]


def coefficients(compiled) -> dict:
    [line] = compiled.fits[("layers", 1)]
    return dict(line.coefficients)


def test_a_subnormal_x_beside_normal_ones_is_fitted_correctly(tmp_path):
    xs = [0.0, 5e-324, 1.0, 2.0]
    fitted = coefficients(compile_spec(trend_chart(tmp_path, xs)))
    slope, intercept = np.polyfit(xs, [1, 3, 5, 7], 1)
    assert fitted == pytest.approx({"intercept": intercept, "slope": slope}, rel=1e-12)


def test_subnormal_x_on_a_log_axis_is_fitted_in_log_space(tmp_path):
    xs = [5e-324, 1e-310, 2e-310]
    fitted = coefficients(compile_spec(trend_chart(tmp_path, xs, x="{field: x, scale: {type: log}}")))
    slope, intercept = np.polyfit(np.log10(xs), [1, 3, 5], 1)
    assert fitted == pytest.approx({"intercept": intercept, "slope": slope}, rel=1e-12)


def test_a_smoother_draws_subnormal_x_values(tmp_path):
    compiled = compile_spec(trend_chart(tmp_path, [5e-324, 1e-310, 2e-310, 3e-310], "{method: loess}"))
    [line] = compiled.fits[("layers", 1)]
    assert (line.x[0], line.x[-1]) == (5e-324, 3e-310)


def test_a_parquet_file_damaged_while_the_chart_compiles_is_refused_at_its_path(tmp_path, monkeypatch):
    """The engine opens a Parquet file when the chart's data is read and reads it again for the layer's rows: a
    file overwritten in between (a writer that failed) is refused at the data's path, as when it fails first,
    not as an internal error."""
    import pyarrow as pa
    import pyarrow.parquet
    import chartc.pipeline as pipeline

    (tmp_path / ".git").mkdir()
    pyarrow.parquet.write_table(pa.table({"a": list(range(1000)), "b": [i * 0.5 for i in range(1000)]}),
                                tmp_path / "rows.parquet")
    spec = write_spec(tmp_path, "data: {path: rows.parquet}\nmark: point\nencoding: {x: a, y: b}\n")
    flow = pipeline.flow_data

    def damaged_first(chart, table, drawn):
        (tmp_path / "rows.parquet").write_bytes(b"PAR1" + b"\0" * 100)
        return flow(chart, table, drawn)

    monkeypatch.setattr(pipeline, "flow_data", damaged_first)
    [problem] = compile_problems(spec)
    assert problem == SpecError(msg.data_unreadable("rows.parquet", msg.data_damaged("data")), ("data", "path"),
                                location=Location(str(spec), 1, 14), hint=msg.data_changed_while_read_hint()).diagnostic()
