"""Every data source through the engine: Parquet, Arrow IPC, JSON Lines, globs, and the types users expect.

The engine's view (`data.SOURCE`) is what the SQL transforms read, and the
`Table` materialised from it what the later stages read: both are checked
here against files written independently (pyarrow, plain text), and every
failure against chartc's own message, never DuckDB's text.
"""

from __future__ import annotations

import datetime
import decimal
import hashlib
import math
from pathlib import Path

import pyarrow as pa
import pyarrow.feather
import pyarrow.ipc
import pyarrow.parquet
import pytest
import vl_convert

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.infra.table import DATE, NUMBER, TEXT, read_delimited
from chartc.ir.nodes import DataSource
from chartc.ir.source import Source
from chartc.errors import Location
from chartc.pipeline import compile_spec, validate_spec
from chartc.stages.data import SOURCE, load_dataset, materialise, read_columns, read_rows, register_source
from chartc.stages.data.engine import connect
from chartc.stages.data.sources import register_table

ID = 12345678901234567  # 17 digits: as a double, ID and ID + 1 are one number


@pytest.fixture
def project(tmp_path):
    """A git work tree (the project root data paths may not leave)."""
    (tmp_path / ".git").mkdir()
    return tmp_path


def write_spec(folder: Path, data: str, *, x: str = "x", y: str = "y", name: str = "chart.yaml") -> Path:
    """A one-layer point chart whose `data:` is on line 1, column 7."""
    path = folder / name
    path.write_text(f"data: {data}\nmark: point\nencoding:\n  x: {x}\n  y: {y}\n", encoding="utf-8")
    return path


def source(folder: Path, **keys) -> DataSource:
    """A data source as the parser makes it, read from `folder`/chart.yaml."""
    spec = folder / "chart.yaml"
    return DataSource(path=("data",), source=Source(str(spec), {("data",): Location(str(spec), 1, 7)}), **keys)


def blake3(content: bytes) -> str:
    """A binary data file's hash: the BLAKE3 of its bytes, as its authors' package computes it."""
    import blake3

    return blake3.blake3(content).hexdigest()


def error_of(spec: Path) -> SpecError:
    with pytest.raises(SpecError) as raised:
        compile_spec(spec)
    return raised.value.errors[0]


def drawn_points(vega_lite: dict) -> list[tuple[float, float]]:
    """The (x, y) of every symbol Vega draws for the chart."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("marktype") == "symbol":
                found.extend((item["x"], item["y"]) for item in node.get("items", []))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(vl_convert.vegalite_to_scenegraph(vega_lite))
    return found


# ------------------------------------------------------------------ Parquet

def write_runs(path: Path, **extra) -> pa.Table:
    table = pa.table({
        "x": pa.array([1.0, math.nan, 2.0, None]),
        "y": pa.array([10, 20, 30, 40], pa.int64()),
        "id": pa.array([ID, ID + 1, ID + 2, ID + 3], pa.int64()),
        "ts": pa.array([0, 3_600_000_000, 7_200_000_000, None], pa.timestamp("us", tz="Europe/Paris")),
        "day": pa.array([datetime.date(2024, 1, 1)] * 4, pa.date32()),
        "ok": pa.array([True, False, True, True]),
        "run": pa.array(["a", "b", "a", "b"]).dictionary_encode(),
        "price": pa.array([decimal.Decimal(v) for v in ("1.00", "2.00", "3.00", "4.00")], pa.decimal128(10, 2)),
        "when": pa.array(["2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00", "2024-01-02", None]),
        **extra,
    })
    pyarrow.parquet.write_table(table, path)
    return table


def test_a_parquet_nan_is_read_as_nan_by_the_engine_and_the_table(project):
    write_runs(project / "runs.parquet")
    connection = connect()
    view = register_source(connection, source(project, file="runs.parquet"))
    # The Parquet statistics leave NaN out; without parquet_can_have_nan DuckDB folds isnan() to false.
    assert connection.execute(f"SELECT count(*) FILTER (WHERE isnan(x)), count(x) FROM {view}").fetchall() == [(1, 3)]
    table = materialise(connection, f"SELECT * FROM {view}")
    assert table["x"][0] == 1.0 and math.isnan(table["x"][1]) and table["x"][2:] == [2.0, None]


def test_parquet_types_are_chartc_types_in_the_view_and_the_table(project):
    write_runs(project / "runs.parquet")
    connection = connect()
    view = register_source(connection, source(project, file="runs.parquet"))
    types = dict(zip(*(connection.sql(f"SELECT * FROM {view}").columns,
                       map(str, connection.sql(f"SELECT * FROM {view}").types))))
    assert types == {"x": "DOUBLE", "y": "BIGINT", "id": "BIGINT", "ts": "TIMESTAMP", "day": "TIMESTAMP",
                     "ok": "BOOLEAN", "run": "VARCHAR", "price": "DOUBLE", "when": "VARCHAR"}
    table = read_rows(source(project, file="runs.parquet"))
    assert table["id"] == [ID, ID + 1, ID + 2, ID + 3]  # exact: four distinct ids
    assert table["y"] == [10, 20, 30, 40] and table.kinds["y"] == NUMBER
    # A zoned timestamp is its UTC wall clock: midnight in Paris is 23:00 UTC the day before.
    assert table["ts"][:3] == [datetime.datetime(1970, 1, 1, 0), datetime.datetime(1970, 1, 1, 1),
                               datetime.datetime(1970, 1, 1, 2)] and table["ts"][3] is None
    assert table["day"] == [datetime.datetime(2024, 1, 1)] * 4 and table.kinds["day"] == DATE
    assert table["ok"] == [True, False, True, True] and table["run"] == ["a", "b", "a", "b"]
    assert table["price"] == [1.0, 2.0, 3.0, 4.0]
    # Text of ISO dates becomes dates, as in a CSV file; Z and offsets are read in UTC.
    assert table.kinds["when"] == DATE
    assert table["when"] == [datetime.datetime(2024, 1, 1), datetime.datetime(2024, 1, 1),
                             datetime.datetime(2024, 1, 2), None]


@pytest.mark.slow
def test_a_parquet_chart_draws_every_row(project):
    pyarrow.parquet.write_table(pa.table({"x": [1.0, 2.0, 3.0], "y": [3.0, 1.0, 2.0]}), project / "p.parquet")
    chart = compile_spec(write_spec(project, "{path: p.parquet}"))
    points = sorted(drawn_points(chart.vega_lite))  # left to right: x = 1, 2, 3
    assert len(points) == 3
    # y = 3, 1, 2: the first point is the highest on screen (smallest y pixel), the second the lowest.
    assert points[0][1] < points[2][1] < points[1][1]
    assert chart.vega_lite["datasets"][chart.vega_lite["data"]["name"]] == [
        {"x": 1.0, "y": 3.0}, {"x": 2.0, "y": 1.0}, {"x": 3.0, "y": 2.0}]


def test_a_truncated_parquet_is_refused_in_chartcs_words(project):
    write_runs(project / "runs.parquet")
    data = (project / "runs.parquet").read_bytes()
    (project / "cut.parquet").write_bytes(data[: len(data) // 2])
    problem = error_of(write_spec(project, "{path: cut.parquet}"))
    assert problem.message == msg.data_unreadable("cut.parquet", msg.data_damaged("Parquet"))
    assert (problem.location.line, problem.location.column) == (1, 14) and problem.path == ("data", "path")
    assert "duckdb" not in problem.diagnostic().lower() and "magic" not in problem.diagnostic().lower()


def test_text_named_parquet_is_refused(project):
    (project / "t.parquet").write_text("x,y\n1,2\n", encoding="utf-8")
    problem = error_of(write_spec(project, "{path: t.parquet}"))
    assert problem.message == msg.data_unreadable("t.parquet", msg.data_damaged("Parquet"))


def test_a_nested_parquet_column_is_refused(project):
    pyarrow.parquet.write_table(pa.table({"x": [1.0], "y": [[1, 2]]}), project / "n.parquet")
    problem = error_of(write_spec(project, "{path: n.parquet}"))
    assert problem.message == msg.data_unreadable("n.parquet", msg.data_nested_column("y"))
    assert problem.hint == msg.data_nested_hint()


@pytest.mark.parametrize("suffix", ["parquet", "arrow"])
def test_a_date_past_pythons_years_in_a_file_is_refused_at_the_data_and_a_filter_can_drop_it(project, suffix):
    """JavaScript's dates reach the year 275,760, Python's 9999: a timestamp of 20240 (a typo) and a date of
    3 BC (year -2 as JavaScript counts it), written by pyarrow. Before, an internal error ('str' object has no
    attribute 'year'); a filter that drops the row in the engine draws the others."""
    # 20240-01-05: 45 Gregorian cycles of 400 years (146,097 days each) after 2240-01-05
    days = (datetime.date(2240, 1, 5) - datetime.date(1970, 1, 1)).days + 45 * 146_097
    micros = days * 86_400_000_000
    for column, values in (("t", pa.array([0, micros, 86_400_000_000], pa.timestamp("us"))),
                           ("d", pa.array([19_000, -720_000, 19_001], pa.date32()))):
        table = pa.table({"x": values, "y": [1.0, 2.0, 3.0]}).rename_columns([column, "y"])
        path = project / f"far.{suffix}"
        (pyarrow.parquet.write_table if suffix == "parquet" else pyarrow.feather.write_feather)(table, path)
        spec = write_spec(project, f"{{path: far.{suffix}}}", x=f"{{field: {column}, type: temporal}}")
        problem = error_of(spec)
        # 720,000 days before 1970: 1,600 years (4 cycles, 584,388 days) before 135,612 days before 1970
        year = 20240 if column == "t" else (datetime.date(1970, 1, 1) - datetime.timedelta(days=135_612)).year - 1600
        assert (problem.code, problem.message, problem.hint) == (
            "E415", msg.date_out_of_range(year, column), msg.date_out_of_range_hint())
        assert (problem.location.line, problem.location.column) == (1, 7)
        assert problem.message.startswith(f"column {column!r} holds a date in the year {year},")
        text = spec.read_text(encoding="utf-8").replace("mark:", "transform:\n  - filter: \"datum.y != 2\"\nmark:")
        spec.write_text(text, encoding="utf-8")
        drawn = compile_spec(spec).vega_lite
        assert [row[column][:10] for rows in drawn["datasets"].values() for row in rows] == (
            ["1970-01-01", "1970-01-02"] if column == "t" else ["2022-01-08", "2022-01-09"])


def test_a_date_an_expression_makes_past_pythons_years_is_refused_at_the_expression(project):
    """`datetime(12345 + datum.y, 0, 1)` is a Date of the year 12346 for Vega, which chartc cannot hold: before,
    an internal error (OverflowError)."""
    spec = project / "chart.yaml"
    spec.write_text("data: {values: [{x: 1, y: 1}]}\ntransform:\n  - calculate: \"datetime(12345 + datum.y, 0, 1)\"\n"
                    "    as: t\nmark: point\nencoding:\n  x: {field: t, type: temporal}\n  y: y\n", encoding="utf-8")
    problem = error_of(spec)
    assert (problem.code, problem.message, problem.hint) == (
        "E415", msg.date_out_of_range(12346), msg.date_out_of_range_hint())
    assert (problem.location.line, problem.location.column) == (3, 16)
    assert problem.message.startswith("this expression makes a date in the year 12346,")


def test_an_empty_parquet_is_data_without_rows(project):
    pyarrow.parquet.write_table(pa.table({"x": pa.array([], pa.float64()), "y": pa.array([], pa.float64())}),
                                project / "e.parquet")
    spec = write_spec(project, "{path: e.parquet}")
    assert error_of(spec).message == msg.empty_data()
    assert [p.message for p in validate_spec(spec)] == [msg.empty_data()]


def test_validate_reads_a_parquet_schema_and_never_its_rows(project, monkeypatch):
    write_runs(project / "runs.parquet")
    from chartc.stages.data import read, sources

    monkeypatch.setattr(sources, "materialise", lambda *a: pytest.fail("validate read the rows"))
    monkeypatch.setattr(read, "EngineTable", lambda *a: pytest.fail("validate read the rows"))
    assert read_columns(source(project, file="runs.parquet")) == [
        "x", "y", "id", "ts", "day", "ok", "run", "price", "when"]
    assert validate_spec(write_spec(project, "{path: runs.parquet}")) == []
    problems = validate_spec(write_spec(project, "{path: runs.parquet}", y="loss"))
    assert [p.path for p in problems] == [("encoding", "y")]


# ------------------------------------------------------------------ Arrow IPC

@pytest.mark.parametrize("write", [
    lambda table, path: pyarrow.feather.write_feather(table, path),
    lambda table, path: _write_stream(table, path),
], ids=["file", "stream"])
def test_an_arrow_file_reads_as_its_parquet_twin(project, write):
    table = write_runs(project / "runs.parquet")
    write(table, project / "runs.arrow")
    arrow = read_rows(source(project, file="runs.arrow"))
    parquet = read_rows(source(project, file="runs.parquet"))
    assert arrow.kinds == parquet.kinds
    assert repr(arrow.columns) == repr(parquet.columns)  # NaN included
    assert read_columns(source(project, file="runs.arrow")) == parquet.names


def _write_stream(table, path):
    with pa.OSFile(str(path), "wb") as sink, pyarrow.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)


def test_a_damaged_arrow_file_is_refused_in_chartcs_words(project):
    (project / "bad.arrow").write_bytes(b"ARROW1\x00\x00not really")
    problem = error_of(write_spec(project, "{path: bad.arrow}"))
    assert problem.message == msg.data_unreadable("bad.arrow", msg.data_damaged("Arrow IPC"))


# ------------------------------------------------------------------ globs

@pytest.mark.slow
def test_a_glob_of_parquet_files_is_one_table_in_path_order(project):
    runs = project / "runs"
    runs.mkdir()
    for index in (2, 1, 10):
        pyarrow.parquet.write_table(pa.table({"x": [float(index)], "y": [index * 10]}), runs / f"r{index}.parquet")
    pyarrow.parquet.write_table(pa.table({"x": [0.5], "y": [5], "extra": ["e"]}), runs / "r0.parquet")
    table = read_rows(source(project, file="runs/*.parquet"))
    assert table["x"] == [0.5, 1.0, 10.0, 2.0]  # r0, r1, r10, r2: path order
    assert table["extra"] == ["e", None, None, None]
    chart = compile_spec(write_spec(project, "{path: runs/*.parquet}"))
    assert len(drawn_points(chart.vega_lite)) == 4


def test_a_glob_of_csv_files_matches_columns_by_name(project):
    (project / "logs" / "b").mkdir(parents=True)
    (project / "logs" / "a.csv").write_text("x,y\n1,2\n", encoding="utf-8")
    (project / "logs" / "b" / "c.csv").write_text("y,x,note\n4,3,hi\n", encoding="utf-8")
    table = read_rows(source(project, file="logs/**/*.csv"))
    assert table.columns == {"x": [1, 3], "y": [2, 4], "note": [None, "hi"]}
    assert read_columns(source(project, file="logs/**/*.csv")) == ["x", "y", "note"]


def test_a_glob_matching_nothing_is_a_positioned_error(project):
    (project / "runs").mkdir()
    (project / "runs" / "a.csv").write_text("x,y\n1,2\n", encoding="utf-8")
    spec = write_spec(project, "{path: runs/*.parquet}")
    problem = error_of(spec)
    assert problem.message == msg.data_glob_no_match("runs/*.parquet")
    assert (problem.location.line, problem.location.column) == (1, 14)
    assert problem.code == "E413"
    assert [p.message for p in validate_spec(spec)] == [msg.data_glob_no_match("runs/*.parquet")]


def test_a_glob_of_two_formats_is_refused(project):
    (project / "runs").mkdir()
    (project / "runs" / "a.csv").write_text("x,y\n1,2\n", encoding="utf-8")
    pyarrow.parquet.write_table(pa.table({"x": [1.0], "y": [2.0]}), project / "runs" / "b.parquet")
    problem = error_of(write_spec(project, "{path: 'runs/*'}"))
    assert problem.message == msg.data_glob_formats("runs/*", [".csv", ".parquet"])
    assert problem.hint == msg.data_glob_formats_hint() and problem.code == "E414"


def test_a_glob_match_leaving_the_project_is_refused(project, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.csv").write_text("x,y\n1,2\n", encoding="utf-8")
    (project / "runs").mkdir()
    (project / "runs" / "a.csv").write_text("x,y\n1,2\n", encoding="utf-8")
    (project / "runs" / "b.csv").symlink_to(outside / "secret.csv")
    problem = error_of(write_spec(project, "{path: runs/*.csv}"))
    assert problem.message == msg.data_path_outside("runs/b.csv", project.name)


def test_a_file_whose_name_looks_like_a_glob_is_itself(project):
    (project / "a[1].csv").write_text("x,y\n1,2\n", encoding="utf-8")
    (project / "a1.csv").write_text("x,y\n5,6\n", encoding="utf-8")
    assert read_rows(source(project, file="a[1].csv"))["x"] == [1]


# ------------------------------------------------------------------ text files: what users expect

def test_a_crafted_csv_bom_zoned_timestamps_and_17_digit_ids(project):
    (project / "c.csv").write_bytes(
        "\ufeffid,ts,y\n"
        f"{ID},2024-01-01T00:00:00Z,1\n"
        f"{ID + 1},2024-01-01T02:30:00+02:00,2\n"
        f"{ID + 2},2024-01-01T00:00:00.5-0130,3\n".encode("utf-8"))
    table = read_rows(source(project, file="c.csv"))
    assert table.names == ["id", "ts", "y"]  # the BOM is not part of the first name
    assert table["id"] == [ID, ID + 1, ID + 2] and len(set(table["id"])) == 3
    assert table.kinds["ts"] == DATE
    assert table["ts"] == [datetime.datetime(2024, 1, 1, 0, 0), datetime.datetime(2024, 1, 1, 0, 30),
                           datetime.datetime(2024, 1, 1, 1, 30, 0, 500_000)]
    # The same in the engine's view, and drawn in UTC: three distinct ids, as text past 2^53.
    connection = connect()
    register_table(connection, table)
    assert connection.execute(f"SELECT count(DISTINCT id), min(ts) FROM {SOURCE}").fetchall() == [
        (3, datetime.datetime(2024, 1, 1))]
    chart = compile_spec(write_spec(project, "{path: c.csv}", x="ts", y="id"))
    rows = chart.vega_lite["datasets"][chart.vega_lite["data"]["name"]]
    assert [row["id"] for row in rows] == [str(ID), str(ID + 1), str(ID + 2)]
    assert [row["ts"] for row in rows] == ["2024-01-01T00:00:00", "2024-01-01T00:30:00", "2024-01-01T01:30:00"]


def test_json_lines_read_as_records(project):
    (project / "r.jsonl").write_text('{"x": 1, "y": 2}\n\n{"x": 3, "y": 4, "z": "a"}\n', encoding="utf-8")
    (project / "r.json").write_text('{"x": 1, "y": 2}\n{"x": 3, "y": 4, "z": "a"}\n', encoding="utf-8")
    for name in ("r.jsonl", "r.json"):
        assert read_rows(source(project, file=name)).columns == {"x": [1, 3], "y": [2, 4], "z": [None, "a"]}
    (project / "bad.jsonl").write_text('{"x": 1}\n[1]\n', encoding="utf-8")
    problem = error_of(write_spec(project, "{path: bad.jsonl}"))
    assert problem.message == msg.data_unreadable("bad.jsonl", 'line 2: expected a record, e.g. {"x": 1, "y": 2}')


@pytest.mark.parametrize("text, reason", [
    ("x,y\n1,2\n3,4,5\n", "line 3 has 3 fields, but the header has 2"),
    ("x,y\n1,\xff\n", None),
])
def test_ragged_and_non_utf8_csv_keep_their_messages(project, text, reason):
    (project / "bad.csv").write_bytes(text.encode("latin-1"))
    problem = error_of(write_spec(project, "{path: bad.csv}"))
    if reason is None:
        with pytest.raises(ValueError) as raised:
            read_delimited(project / "bad.csv")
        reason = str(raised.value)
    assert problem.message == msg.data_unreadable("bad.csv", reason)


# ------------------------------------------------------------------ the view is the Table

@pytest.mark.parametrize("name", ["cars", "stocks", "seattle-weather", "iris", "barley", "sf-temps"])
def test_a_registered_table_materialises_as_itself(name):
    """The engine's view of a table holds its rows exactly: what the SQL transforms read is what the Table holds."""
    table = load_dataset(name)
    connection = connect()
    register_table(connection, table)
    again = materialise(connection, f"SELECT * FROM {SOURCE}")
    assert again.names == table.names and again.kinds == table.kinds
    assert repr(again.columns) == repr(table.columns)


@pytest.mark.slow
def test_reading_a_million_rows_twice_with_two_threads_gives_the_same_bytes(project):
    """DuckDB scans in parallel; the view's rows come back in file order every time."""
    import numpy as np

    rng = np.random.default_rng(1)
    pyarrow.parquet.write_table(pa.table({"x": rng.random(1_000_000), "k": rng.integers(0, 50, 1_000_000)}),
                                project / "m.parquet", row_group_size=50_000)
    results = []
    for _ in range(2):
        connection = connect()
        connection.execute("SET threads = 2")
        view = register_source(connection, source(project, file="m.parquet"))
        results.append(repr(connection.execute(f"SELECT * FROM {view}").fetchall()).encode())
    written = pyarrow.parquet.read_table(project / "m.parquet")
    assert results[0] == results[1]
    assert results[0] == repr(list(zip(written.column("x").to_pylist(), written.column("k").to_pylist()))).encode()


# ------------------------------------------------------------------ identity

@pytest.mark.parametrize("data", [b"", b"a\r\nb", b"\r", b"\r\r\n\r\n", b"x\r" * 7 + b"\n", bytes(range(256)) * 9,
                                  b"\r\nab\r\n\r\ncd\r\r\n\n\r"])
@pytest.mark.parametrize("block", [1, 2, 3, 1 << 20])
def test_a_streamed_hash_is_the_input_hash_whatever_the_blocks(data, block):
    from chartc.infra.provenance import input_blocks_hash, input_hash

    assert input_blocks_hash(data[i:i + block] for i in range(0, len(data), block)) == input_hash(data)


@pytest.mark.parametrize("data", [b"", b"a\r\nb", bytes(range(256)) * 9])
@pytest.mark.parametrize("block", [1, 3, 1 << 20])
def test_a_streamed_binary_hash_is_the_blake3_of_the_bytes_whatever_the_blocks(data, block):
    from chartc.infra.provenance import binary_blocks_hash, binary_hash

    views = (memoryview(data)[i:i + block] for i in range(0, len(data), block))
    assert binary_blocks_hash(views) == binary_hash(data) == blake3(data)


def test_a_binary_hash_is_blake3_as_its_authors_give_it():
    from chartc.infra.provenance import binary_hash

    # The BLAKE3 paper's test vectors (github.com/BLAKE3-team/BLAKE3, test_vectors.json): input i % 251.
    assert binary_hash(b"") == "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
    assert binary_hash(bytes(i % 251 for i in range(1))) == \
        "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"


@pytest.mark.parametrize("block", [1, 7, 1 << 20])
def test_blocks_read_into_one_buffer_are_the_file(tmp_path, block):
    from chartc.infra.files import read_blocks

    path = tmp_path / "bytes.bin"
    path.write_bytes(bytes(range(256)) * 41)
    assert b"".join(bytes(view) for view in read_blocks(path, block, reuse=True)) == path.read_bytes()


def test_a_parquet_identity_is_the_blake3_of_its_bytes(project):
    from chartc.stages.data import data_identity

    write_runs(project / "runs.parquet")
    label, digest, path = data_identity(source(project, file="runs.parquet"))
    assert (label, digest, path) == ("runs.parquet", blake3((project / "runs.parquet").read_bytes()),
                                     (project / "runs.parquet").resolve())
    (project / "runs").mkdir()
    write_runs(project / "runs" / "a.parquet")
    label, digest, path = data_identity(source(project, file="runs/*.parquet"))
    assert label == "runs/*.parquet" and path is None and len(digest) == 64
    write_runs(project / "runs" / "b.parquet")  # one more file matched: another identity
    assert data_identity(source(project, file="runs/*.parquet"))[1] != digest


def test_the_binary_suffixes_are_those_of_the_engine_formats():
    from chartc.infra.provenance import BINARY_SUFFIXES
    from chartc.stages.data.read import SUFFIXES
    from chartc.stages.data.sources import ENGINE_SUFFIXES

    assert sorted(BINARY_SUFFIXES) == sorted(name for name, suffix in SUFFIXES.items() if suffix in ENGINE_SUFFIXES)


@pytest.mark.parametrize("name", ["notes.parquet", "notes.arrow", "notes.feather", "notes.csv", "notes.tsv"])
@pytest.mark.parametrize("aside", [False, True])
def test_a_binary_file_is_hashed_as_its_bytes_a_text_file_blind_to_crlf_as_the_manifest_hashes_them(
        project, monkeypatch, tmp_path, name, aside):
    from chartc.commands.manifest import current_input_hash
    from chartc.infra.provenance import input_hash
    from chartc.stages.data import read, start_identity

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if aside:
        monkeypatch.setattr(read, "HASHED_ASIDE_BYTES", 1)  # streamed, on a thread
        monkeypatch.setattr(read, "ENGINE_TEXT_BYTES", 1)  # the text files too
    path = project / name
    table = pa.table({"x": [1, 2], "note": ["a line\r\nbreak", "b"]})
    if path.suffix == ".parquet":
        pyarrow.parquet.write_table(table, path, compression="none")
    elif path.suffix in (".arrow", ".feather"):
        pyarrow.feather.write_feather(table, path, compression="uncompressed")
    else:
        path.write_bytes(b"x,note\r\n1,a\r\n2,b\r\n".replace(b",", b"\t" if path.suffix == ".tsv" else b","))
    content = path.read_bytes()
    assert b"\r\n" in content and input_hash(content) != hashlib.sha256(content).hexdigest()
    binary = path.suffix not in (".csv", ".tsv")
    digest = start_identity(source(project, file=name))()[1]
    assert digest == (blake3(content) if binary else input_hash(content))
    assert current_input_hash(name, project) == digest  # a chart just built is not stale


@pytest.mark.parametrize("file", ["runs.parquet", "runs/*.parquet"])
def test_a_file_hashed_aside_has_its_identity_unless_saved_meanwhile(project, monkeypatch, file):
    from chartc.stages.data import data_identity, read, start_identity

    monkeypatch.setattr(read, "HASHED_ASIDE_BYTES", 1)  # every file on a thread
    (project / "runs").mkdir()
    for path in (project / "runs.parquet", project / "runs" / "a.parquet", project / "runs" / "b.parquet"):
        write_runs(path)
    data = source(project, file=file)
    pending = start_identity(data)
    assert pending() == data_identity(data)
    pending = start_identity(data)
    saved = project / "runs.parquet" if file == "runs.parquet" else project / "runs" / "b.parquet"
    write_runs(saved, more=pa.array([1, 2, 3, 4]))  # saved while the chart compiles: it must stay stale
    label, digest, path = pending()
    assert (label, digest) == (file, read.CHANGED_WHILE_HASHED) and digest != data_identity(data)[1]


def test_a_missing_file_is_reported_when_its_identity_is_started(project):
    from chartc.stages.data import data_identity, start_identity

    data = source(project, file="absent.parquet")
    with pytest.raises(SpecError) as started:
        start_identity(data)
    with pytest.raises(SpecError) as direct:
        data_identity(data)
    assert str(started.value) == str(direct.value)


def test_a_large_file_hash_is_kept_for_its_state_and_made_again_after_any_write(project, monkeypatch, tmp_path):
    import os
    import time

    from chartc.infra import datahash
    from chartc.stages.data import data_identity, read, start_identity


    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(read, "HASHED_ASIDE_BYTES", 1)  # every file hashed aside ...
    monkeypatch.setattr(datahash, "HASHED_ASIDE_BYTES", 1)  # ... and large enough to be kept
    path = project / "runs.parquet"
    data = source(project, file="runs.parquet")
    write_runs(path)
    assert data_identity(data)[1] == blake3(path.read_bytes())
    assert datahash.cached_hash(path.resolve(), datahash.file_state(path)) is None  # written just now: not kept
    monkeypatch.setattr(datahash, "SETTLED_NS", 0)
    time.sleep(0.05)  # the file's times are now before any hash begins
    assert data_identity(data)[1] == blake3(path.read_bytes())
    entry = datahash.hash_entry_path(path.resolve())
    assert datahash.cached_hash(path.resolve(), datahash.file_state(path)) == blake3(path.read_bytes())
    kept = entry.read_text(encoding="utf-8")
    planted = "0" * 64  # the cache is what answers while the state is the one kept: no byte is read
    entry.write_text(kept.replace(blake3(path.read_bytes()), planted), encoding="utf-8")
    assert data_identity(data)[1] == planted and start_identity(data)()[1] == planted
    # New bytes of the same size, the modification time put back: the status-change time still moved.
    before = os.stat(path)
    content = bytearray(path.read_bytes())
    content[-100] ^= 1
    path.write_bytes(bytes(content))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size and os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert data_identity(data)[1] == blake3(bytes(content)) != planted
    entry.write_text("{not json", encoding="utf-8")  # a damaged entry is a miss, never an error
    assert data_identity(data)[1] == blake3(bytes(content))


@pytest.mark.parametrize("extra", [{}, {"file_row_number": pa.array([7, 7, 7, 7])}])
def test_one_parquet_file_numbers_its_rows_as_the_engine_would_in_one_thread(project, extra):
    table = write_runs(project / "runs.parquet", **extra)
    many = pa.concat_tables([table] * 3000)  # 12,000 rows in 12 row groups, read by both threads
    pyarrow.parquet.write_table(many, project / "big.parquet", row_group_size=1000)
    read = read_rows(source(project, file="big.parquet"))
    # numbered by the file's reader, in a view parsing its column of ISO date text (`when`) as dates
    assert read.numbered == (None if extra else "source__rows__dates")
    view = read.rows_view()
    numbered = read.connection.execute(f'SELECT * EXCLUDE (__row), __row FROM "{view}" ORDER BY __row').fetchall()
    counted = read.connection.execute(f'SELECT *, row_number() OVER () - 1 FROM "{read.view}"').fetchall()
    assert [repr(row) for row in numbered] == [repr(row) for row in counted] and len(counted) == 12_000
    rows = [0, 4_001, 11_999]
    taken = read.take(rows).columns  # fetched by number, before any column is read whole
    assert repr(taken) == repr({name: [read[name][row] for row in rows] for name in read.names})
    (project / "runs").mkdir()
    write_runs(project / "runs" / "a.parquet")
    write_runs(project / "runs" / "b.parquet")
    assert read_rows(source(project, file="runs/*.parquet")).numbered is None  # two files: numbered in one thread


# ISO date text at the edges of what the reader reads (`table.parse_date`): fractions past microseconds, offsets
# across midnight and past the years, leap days, hours, minutes and seconds out of range, trailing text.
ISO_EDGES = ["2024-01-01", "2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29", "2024-04-31", "2024-13-01",
             "2024-00-10", "0000-01-01", "0001-01-01", "9999-12-31T23:59:59.9999999", "2024-01-01T00:00",
             "2024-01-01 23:59:59", "2024-01-01T24:00:00", "2024-01-01T23:60", "2024-01-01T10:00:60",
             "2024-01-01T10:00:00.5", "2024-01-01T10:00:00.1234567", "2024-01-01T10:00:00.000001Z",
             "2024-01-01T00:30+01:00", "2024-01-01T00:30-0130", "2024-12-31T23:00:00-05:99", "2024-01-01T10:00Z",
             "0001-01-01T00:30+01:00", "9999-12-31T23:30-01:00", "2024-01-01T10:00:00.5+02:00", "2024-01-01T10",
             "2024-01-01T10:00:00.", "2024-01-01x", "2024-01-01\n", "2024-01-01T10:00:00Z ", "1970-01-01T00:00:00",
             "1969-12-31T23:59:59.999999", "2024-1-01", "2024-01-01T10:00:00+01", ""]


def iso_dates_in_sql(connection, texts: list[str]) -> list[tuple]:
    """Whether each text is a date to `sources.iso_date_sql`, and its microseconds since 1970 where it is."""
    from chartc.stages.data.engine import quote_text
    from chartc.stages.data.sources import iso_date_sql

    valid, micros = iso_date_sql("t")
    rows = " UNION ALL ".join(f"SELECT {i} AS i, {quote_text(text)} AS t" for i, text in enumerate(texts))
    return [tuple(row) for row in connection.execute(
        f"SELECT {valid}, CASE WHEN {valid} THEN {micros} END FROM ({rows}) ORDER BY i").fetchall()]


def iso_dates_in_python(texts: list[str]) -> list[tuple]:
    """The same, from the reader's own parse."""
    from chartc.infra.table import parse_date

    epoch, out = datetime.datetime(1970, 1, 1), []
    for text in texts:
        try:
            stamp = parse_date(text)
        except ValueError:
            out.append((False, None))
            continue
        out.append((True, (stamp - epoch) // datetime.timedelta(microseconds=1)))
    return out


def test_iso_date_text_is_parsed_in_the_engine_as_the_reader_parses_it():
    """The check and parse that keep a column of ISO date text in the engine as dates: the same verdict and
    the same microsecond as Python's parse, at the edges of days, years, offsets and fractions."""
    assert iso_dates_in_sql(connect(), ISO_EDGES) == iso_dates_in_python(ISO_EDGES)


@pytest.mark.slow
def test_generated_iso_date_text_is_parsed_in_the_engine_as_the_reader_parses_it():
    from hypothesis import given, settings, strategies as st

    digits = lambda n: st.text("0123456789", min_size=n, max_size=n)  # noqa: E731
    date = st.tuples(digits(4), digits(2), digits(2)).map("-".join)
    zone = st.sampled_from(["", "Z", "+", "-"]).flatmap(
        lambda sign: st.just(sign) if sign in ("", "Z") else st.tuples(digits(2), st.sampled_from(["", ":"]), digits(2))
        .map(lambda parts: sign + "".join(parts)))
    time = st.tuples(st.sampled_from(["T", " "]), digits(2), digits(2), st.one_of(st.just(""), digits(2).map(
        lambda s: ":" + s)), st.one_of(st.just(""), st.integers(1, 9).flatmap(digits).map(lambda f: "." + f)), zone)
    texts = st.tuples(date, st.one_of(st.just(""), time.map(
        lambda t: t[0] + t[1] + ":" + t[2] + t[3] + (t[4] if t[3] else "") + t[5]))).map("".join)
    connection = connect()

    @settings(max_examples=300, derandomize=True, deadline=None, database=None)
    @given(st.lists(texts, min_size=1, max_size=20))
    def check(batch):
        assert iso_dates_in_sql(connection, batch) == iso_dates_in_python(batch)

    check()


def test_a_column_of_iso_date_text_is_dates_in_the_engine_and_no_cell_is_fetched(project, monkeypatch):
    """A Parquet column of ISO date text (as JSON and many logs hold dates) is parsed in the engine: the table's
    cells are the reader's dates, and deciding so reads none of them into Python. A column with one text the
    reader cannot read (a day that does not exist) stays text."""
    from chartc.stages.data.sources import EngineTable

    pyarrow.parquet.write_table(pa.table({
        "at": ["2024-01-01T10:00:00.25+01:00", None, "2024-02-29", "2024-03-01 23:59:59.9999999Z"],
        "bad": ["2024-01-01", "2023-02-29", None, "2024-01-02"]}), project / "text.parquet")
    monkeypatch.setattr(EngineTable, "_fetch_into", staticmethod(lambda *_, **__: pytest.fail("a cell was fetched")))
    connection = connect()
    table = EngineTable(connection, register_source(connection, source(project, file="text.parquet")))
    assert table.kinds == {"at": DATE, "bad": TEXT}
    monkeypatch.undo()
    assert table["at"] == [datetime.datetime(2024, 1, 1, 9, 0, 0, 250000), None, datetime.datetime(2024, 2, 29),
                           datetime.datetime(2024, 3, 1, 23, 59, 59, 999999)]
    assert table["bad"] == ["2024-01-01", "2023-02-29", None, "2024-01-02"]


# Date text for the temporal check (`check.readable_date`): ISO and not, loose forms the renderer reads, days that
# do not exist, words, blanks; repeated, and more than the message shows.
DATE_TEXTS = ["2024-01-31", "soon", "01/02/2020 10:00:05", "2023-02-29", "Jan 1 2000", "soon", "02/30/2024", None,
              "", "   ", "31/12/2020", "2024-01-31T25:00", "later", "1 March 2021 4pm", "n/a", "2024-13-01", "2024"]


def rejected_dates(connection, folder, texts: list, limit: int) -> tuple[int, list]:
    """The texts of a Parquet column left in the engine that the check finds are no dates, found there."""
    from chartc.stages.check import readable_date
    from chartc.stages.data.sources import EngineTable, iso_date_sql

    pyarrow.parquet.write_table(pa.table({"at": pa.array(texts, pa.string())}), folder / "texts.parquet")
    table = EngineTable(connection, register_source(connection, source(folder, file="texts.parquet")))
    assert table.kinds == {"at": TEXT}
    return table.rejected("at", readable_date, lambda text: iso_date_sql(text)[0], limit=limit)


def rejected_in_python(texts: list, limit: int) -> tuple[int, list]:
    """The same, from the texts in Python: each distinct one the check cannot read, in their order."""
    from chartc.stages.check import readable_date

    bad = list(dict.fromkeys(text for text in texts if text is not None and not readable_date(text)))
    return len(bad), bad[:limit]


@pytest.mark.parametrize("limit", [3, 100])
def test_date_text_the_check_cannot_read_is_found_in_the_engine(project, monkeypatch, limit):
    """The temporal check's test of date text, run where the rows are (the loose reading once per distinct text
    that is not ISO): the same texts as the check over the texts in Python, in their order, and no cell fetched."""
    from chartc.stages.data.sources import EngineTable

    monkeypatch.setattr(EngineTable, "_fetch_into", staticmethod(lambda *_, **__: pytest.fail("a cell was fetched")))
    found = rejected_dates(connect(), project, DATE_TEXTS, limit)
    assert found == rejected_in_python(DATE_TEXTS, limit)
    assert found[0] >= 8 and (limit > found[0] or len(found[1]) == limit)  # both "more" and "all" are checked


# Numeric date text around what `check.day_first` tells apart: separators alike or not, years of 2, 3, 4 and 5
# digits, leading spaces of every ASCII kind, trailing text, days and months at 12 and 13.
DAY_FIRST_EDGES = ["31/12/2020", "12/31/2020", "13/01/20", "13/01/200", "13/01/20201", "13-01-2020", "13.01.2020",
                   "13/01-2020", "13/1/2020x", "13/1/2020 10:00", "  13/1/2020", "\t\n\r\f\v13/1/2020", "x13/1/2020",
                   "7/13/2020", "99/99/99", "123/4/2020", "13//2020", "13/01/2020\n", "1/2/3", "", "2020-13-01"]


def day_first_in_sql(connection, texts: list[str]) -> list[bool]:
    """Whether the check's engine predicate (`check.day_first_sql`) finds each text written day first."""
    from chartc.stages.check import day_first_sql
    from chartc.stages.data.engine import quote_text

    rows = " UNION ALL ".join(f"SELECT {i} AS i, {quote_text(text)} AS t" for i, text in enumerate(texts))
    return [found for found, in connection.execute(f"SELECT {day_first_sql('t')} FROM ({rows}) ORDER BY i").fetchall()]


def test_day_first_date_text_is_found_in_the_engine_as_the_check_finds_it():
    from chartc.stages.check import day_first

    assert day_first_in_sql(connect(), DAY_FIRST_EDGES) == [day_first(text) for text in DAY_FIRST_EDGES]
    assert sum(day_first(text) for text in DAY_FIRST_EDGES) >= 8  # both answers are checked
