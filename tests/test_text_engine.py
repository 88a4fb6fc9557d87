"""CSV and TSV files parsed by the engine: the same rows, values and types as chartc's own reader, and its errors.

Small delimited files are read by `infra.table`'s reader (no engine import);
large ones by DuckDB (`sources.register_text_files`), which types every column
in SQL. Both must agree cell by cell: every delimited file the project ships
(its examples, the corpus, the test cases, vega-datasets) and crafted files
holding each rule of the reader (missing words, integers past 2⁵³ and 64 bits,
floats, booleans beside gaps, ISO dates with zones and impossible ones, a BOM,
blank lines, short rows, quoted line breaks, duplicate names) are read both
ways and compared. A file the engine cannot parse gives chartc's message at
`data.path`, naming the line, never DuckDB's text.
"""

from __future__ import annotations

import datetime
import importlib.util
import math
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.infra.table import DATE, NUMBER, TEXT, TableError, read_delimited_files
from chartc.pipeline import compile_spec
from chartc.stages.data import read as resolve
from chartc.stages.data.engine import connect
from chartc.stages.data.sources import materialise, register_text_files

ROOT = Path(__file__).resolve().parent.parent
DATASETS = Path(importlib.util.find_spec("vega_datasets").submodule_search_locations[0]) / "_data"
# The project's files, and vega-datasets' (the larger ones, slow: each read twice).
SHIPPED = [*sorted([*ROOT.glob("specs/data/*.csv"), *ROOT.glob("tests/corpus/data/*.csv"),
                    *ROOT.glob("tests/cases/invalid/data/*.csv")]),
           *(pytest.param(path, marks=pytest.mark.slow) if path.stat().st_size > 100_000 else path
             for path in sorted([*DATASETS.glob("*.csv"), *DATASETS.glob("*.tsv")]))]
ID = 12345678901234567  # 17 digits: as a double, ID and ID + 1 are one number

# name -> file content: one rule of the reader each.
CRAFTED = {
    "bom_and_zones": "\ufeffid,when,ok\n"
                     f"{ID},2024-01-01T00:00:00Z,true\n{ID + 1},2024-01-01T01:30:00+01:30,false\n",
    "missing_words": "a,b,c,d\n1,NA,,x\nnull,2.5,N/A,#N/A\nnan,-nan,None,<NA>\n4,1e3,NULL,n/a\n",
    "ints_beside_gaps": f"small,big,wide\n1,{ID},18446744073709551616\n,{ID + 1},\n3,,1\n",
    "past_64_bits": "a,b\n18446744073709551616,-9223372036854775809\n1,2\n",
    "uint64": "a\n18446744073709551615\n0\n",
    "floats": "a,b,c\n.5,inf,1e400\n5.,-Infinity,-1E-400\n +7 , INF ,\t3\n",
    "booleans": "a,b,c\nTrue,true,True\nFALSE,,true\nfalse,False,yes\n",
    "dates": "a,b,c,d,e\n2024-01-01,2024-01-01 10:00,2023-02-30,2024-01-01T24:00:00,2024-01-01T10:00:00.1234567Z\n"
             "2024-12-31,2024-01-01T23:59:59.5+0200,2024-01-01,2024-01-01,2024-06-01T00:00-05:00\n",
    "date_overflow": "a\n0001-01-01T00:30+01:00\n",
    "blank_lines_and_short_rows": "\n\na,b,c\n1,2,3\n\n  \n4,5\n6\n,,\n",
    "quoted": 'a,b\n"x, y","multi\r\nline"\n"say ""hi""",""\n',
    "duplicate_names": "a,a,,a.1,Unnamed: 2\n1,2,3,4,5\n",
    "mixed_text": "a,b\n1,x\n2.5,3\ntrue,2024-01-01\n",
    "spaces": "a,b\n 1,' x'\n2 ,y\n",
    "crlf": "a,b\r\n1,2\r\n3,4\r\n",
    "unicode": "名前,値\nα,1\nβ,2\n",
    "all_missing": "a,b\n,1\nNA,2\n",
    "one_column": "a\n1\n\n2\n",
    "quoted_header": '\n"a\r\nb",c\n1,2\n',
}
TSV = {"tabs": "a\tb\tc\n1\tx y\t2024-01-01\n2\t\"q\tr\"\t\n"}


def typed_cells(values: list) -> list:
    """Each cell with its Python type (NaN as a tag: NaN != NaN)."""
    return [(type(v).__name__, "nan" if isinstance(v, float) and math.isnan(v) else v) for v in values]


def assert_same_rows(paths: list[Path], delimiter: str) -> None:
    """The engine's rows of the files equal the Python reader's, cell by cell, with the columns' kinds
    (or both refuse the files' header with the same words)."""
    suffix = ".csv" if delimiter == "," else ".tsv"
    connection = connect()
    try:
        try:
            expected = read_delimited_files(paths, delimiter)
        except TableError as error:
            with pytest.raises(TableError) as raised:
                register_text_files(connection, paths, suffix, paths[0].name)
            assert str(raised.value) == str(error)
            return
        view = register_text_files(connection, paths, suffix, paths[0].name)
        got = materialise(connection, f"SELECT * FROM {view}")
    finally:
        connection.close()
    assert got.names == expected.names
    assert got.kinds == expected.kinds
    for name in expected.names:
        assert typed_cells(got[name]) == typed_cells(expected[name]), name


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}" if isinstance(p, Path) else None)
def test_every_shipped_delimited_file_reads_alike_in_the_engine(path):
    assert_same_rows([path], "\t" if path.suffix == ".tsv" else ",")


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_csv_files_read_alike_in_the_engine(tmp_path, name):
    path = tmp_path / f"{name}.csv"
    path.write_bytes(CRAFTED[name].encode("utf-8"))
    assert_same_rows([path], ",")


def test_a_tsv_file_reads_alike_in_the_engine(tmp_path):
    path = tmp_path / "tabs.tsv"
    path.write_text(TSV["tabs"], encoding="utf-8")
    assert_same_rows([path], "\t")


def test_a_glob_of_files_with_different_columns_reads_alike_in_the_engine(tmp_path):
    paths = [tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"]
    paths[0].write_text("run,step,loss\na,1,0.5\na,2,0.25\n", encoding="utf-8")
    paths[1].write_text("run,loss,note\nb,0.75,x\n", encoding="utf-8")
    paths[2].write_text("step,run\n3,c\n4,c\n", encoding="utf-8")
    assert_same_rows(paths, ",")


def test_the_rules_users_expect_hold_in_the_engine(tmp_path):
    """Independently of the Python reader: Z and offsets are UTC, 17-digit ids distinct, no BOM in a name."""
    path = tmp_path / "ids.csv"
    path.write_bytes(CRAFTED["bom_and_zones"].encode("utf-8"))
    connection = connect()
    view = register_text_files(connection, [path], ".csv", "ids.csv")
    rows = connection.execute(f'SELECT id, "when", ok FROM {view}').fetchall()
    types = [str(t) for t in connection.sql(f"SELECT * FROM {view}").types]
    assert types == ["BIGINT", "TIMESTAMP", "BOOLEAN"]
    assert rows == [(ID, datetime.datetime(2024, 1, 1), True), (ID + 1, datetime.datetime(2024, 1, 1), False)]
    table = materialise(connection, f"SELECT * FROM {view}")
    assert table.kinds == {"id": NUMBER, "when": DATE, "ok": "boolean"}


# ------------------------------------------------------------------ which reader

def spec(folder: Path, data: str) -> Path:
    """A one-layer chart whose `data:` is on line 2, column 7."""
    path = folder / "chart.yaml"
    path.write_text(f"title: t\ndata: {data}\nmark: point\nencoding:\n  x: a\n  y: b\n", encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".git").mkdir()
    return tmp_path


@pytest.mark.slow
def test_a_large_csv_is_parsed_by_the_engine_and_charts_as_a_small_one_does(project, monkeypatch):
    (project / "big.csv").write_text("a,b\n" + "".join(f"{i},{i * i}\n" for i in range(50)), encoding="utf-8")
    small = compile_spec(spec(project, "{path: big.csv}")).vega_lite
    monkeypatch.setattr(resolve, "ENGINE_TEXT_BYTES", 16)
    monkeypatch.setitem(resolve.READERS, ".csv", lambda paths: pytest.fail("the Python reader read a large file"))
    large = compile_spec(spec(project, "{path: big.csv}")).vega_lite
    assert large == small


def test_a_csv_over_the_old_size_limit_is_not_refused(project, monkeypatch):
    """A delimited file has no size limit now: past `ENGINE_TEXT_BYTES` the engine streams it."""
    with (project / "big.csv").open("wb") as stream:
        stream.write(b"a,b\n")
        stream.write(b"1,2\n" * 1000)
    monkeypatch.setattr(resolve, "MAX_FILE_BYTES", 100)
    monkeypatch.setattr(resolve, "ENGINE_TEXT_BYTES", 100)
    compiled = compile_spec(spec(project, "{path: big.csv}"))
    assert len(compiled.flow.table) == 1000


# ------------------------------------------------------------------ errors

def engine_error(project: Path, monkeypatch, content: bytes) -> SpecError:
    (project / "bad.csv").write_bytes(content)
    monkeypatch.setattr(resolve, "ENGINE_TEXT_BYTES", 0)
    with pytest.raises(SpecError) as raised:
        compile_spec(spec(project, "{path: bad.csv}"))
    error = raised.value.errors[0]
    assert error.path == ("data", "path") and (error.location.line, error.location.column) == (2, 14)
    assert "DuckDB" not in error.message and "Error" not in error.message
    return error


def test_a_row_too_long_deep_in_a_large_file_names_its_line(project, monkeypatch):
    rows = b"".join(b"%d,%d\n" % (i, i) for i in range(100_000))
    error = engine_error(project, monkeypatch, b"a,b\n" + rows + b"1,2,3\n4,5\n")
    assert error.message == msg.data_unreadable("bad.csv", msg.data_row_too_long(100_002, 3, 2))
    assert error.code == "E409"


def test_text_that_is_not_utf8_names_its_line(project, monkeypatch):
    rows = b"".join(b"%d,%d\n" % (i, i) for i in range(100_000))  # past the header's read-ahead
    error = engine_error(project, monkeypatch, b"a,b\n" + rows + b"5,\xff\xfe\n")
    assert error.message == msg.data_not_utf8_line("bad.csv", 100_002)
    assert error.hint == msg.data_not_utf8_line_hint() and error.code == "E430"


def test_an_unclosed_quote_names_its_line(project, monkeypatch):
    error = engine_error(project, monkeypatch, b'a,b\n1,2\n3,"four\n5,6\n')
    assert error.message == msg.data_unclosed_quote("bad.csv", 3)
    assert error.hint == msg.data_unclosed_quote_hint() and error.code == "E431"


def test_a_binary_file_named_csv_is_refused_at_the_data_path(project, monkeypatch):
    error = engine_error(project, monkeypatch, b"a,b\n" + bytes(range(256)) * 64)
    assert error.code in ("E409", "E430", "E431", "E432")


def test_a_glob_names_the_file_that_fails(project, monkeypatch):
    (project / "runs").mkdir()
    (project / "runs" / "a.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (project / "runs" / "b.csv").write_bytes(b"a,b\n1,2\n3,4,5\n")
    monkeypatch.setattr(resolve, "ENGINE_TEXT_BYTES", 0)
    with pytest.raises(SpecError) as raised:
        compile_spec(spec(project, "{path: 'runs/*.csv'}"))
    assert raised.value.errors[0].message == msg.data_unreadable("runs/*.csv (b.csv)", msg.data_row_too_long(3, 3, 2))


def test_integers_past_128_bits_are_text_in_the_engine(tmp_path):
    """The one place the engine differs from the Python reader (which keeps Python integers): no SQL type
    holds them, so the view keeps their digits as text (exact, distinct) rather than round them."""
    big = 2**128 + 1
    path = tmp_path / "wide.csv"
    path.write_text(f"a\n1\n{big}\n", encoding="utf-8")
    connection = connect()
    table = materialise(connection, f"SELECT * FROM {register_text_files(connection, [path], '.csv', 'wide.csv')}")
    assert table["a"] == ["1", str(big)] and table.kinds == {"a": TEXT}


def test_text_kinds_are_kept(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a\nx\n", encoding="utf-8")
    connection = connect()
    assert materialise(connection, f"SELECT * FROM {register_text_files(connection, [path], '.csv', 't.csv')}"
                       ).kinds == {"a": TEXT}
