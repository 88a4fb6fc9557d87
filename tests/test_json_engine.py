"""JSON files read by the engine: the same rows, values and types as chartc's own JSON reader, and its errors.

Small JSON files are parsed in Python (`read._read_json_rows`, `table.from_records`); past
`read.ENGINE_JSON_BYTES` DuckDB parses them (`sources.register_json_files`) and types each column
in SQL by the same rules: JSON's own types kept, integers exact to 64 bits, NaN missing, ISO dates
(with ``Z`` or an offset) as dates. What the engine cannot type alike (a column mixing JSON types,
integers past 64 bits) or parse goes to chartc's reader, which reads it or refuses it in its words.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chartc.errors import SpecError
from chartc.pipeline import compile_spec
from chartc.stages.data import read as resolve
from chartc.stages.data.engine import connect
from chartc.stages.data.sources import EngineTable, JsonNotTyped, register_json_files

ID = 12345678901234567  # 17 digits: as a double, ID and ID + 1 are one number


def spec(folder: Path, data: str) -> Path:
    """A one-layer chart whose `data:` is on line 2, column 7."""
    path = folder / "chart.yaml"
    path.write_text(f"title: t\ndata: {data}\nmark: point\nencoding:\n  x: a\n  y: b\n", encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".git").mkdir()
    return tmp_path


def both(path: Path, lines: bool = False):
    """The file read by the engine and by chartc's reader: (engine's table or None if left, Python's)."""
    python = resolve.READERS[".json"]([path])
    connection = connect()
    try:
        engine = EngineTable(connection, register_json_files(connection, [path], [lines]))
        return {name: list(engine[name]) for name in engine.names}, dict(engine.kinds), python
    except JsonNotTyped:
        return None, None, python


def same(a, b) -> bool:
    return type(a) is type(b) and (a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)))


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**63 - 1), st.sampled_from([ID, ID + 1, 2**64, 0]),
                    st.floats(allow_nan=True, allow_infinity=False), st.sampled_from([1.0, -0.0, 1e16, 2.5]),
                    st.text(max_size=5), st.sampled_from(["2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00",
                                                          "2024-02-30", "2024-03-01", ""]))
KEYS = st.sampled_from(["a", "b", "c/d", "e~f", ""])


@settings(max_examples=120, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(st.dictionaries(KEYS, SCALARS, max_size=4), min_size=1, max_size=6),
       column=st.sampled_from([None, "a", "b"]), kind=st.sampled_from(["int", "float", "text", "bool", "date"]))
def test_generated_records_are_read_by_the_engine_as_by_chartcs_reader(tmp_path, records, column, kind):
    if column is not None:  # one column of one JSON type at least, as real files hold
        values = {"int": [ID, ID + 1, None], "float": [0.5, None, 2], "text": ["x", None, "y"],
                  "bool": [True, False, True], "date": ["2024-01-01T00:00:00Z", None, "2024-01-02T00:00:00Z"]}[kind]
        for index, record in enumerate(records):
            record[column] = values[index % 3]
    first: dict = {}  # most columns of one JSON type (a mixed one sends the file to chartc's reader)
    for record in records[:-1]:
        for key, value in record.items():
            kind_of = type(value) if type(value) is not int else float
            if value is not None and first.setdefault(key, kind_of) is not kind_of:
                record[key] = None
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    engine, kinds, python = both(path)
    if engine is None:  # a column of mixed JSON types, or past 64 bits
        return
    assert list(engine) == python.names and kinds == python.kinds
    for name in python.names:
        assert all(same(a, b) for a, b in zip(engine[name], python[name], strict=True)), name


def test_seventeen_digit_ids_and_zoned_timestamps_are_kept_by_the_engine(tmp_path):
    path = tmp_path / "ids.jsonl"
    path.write_text("\ufeff" + "\n".join(json.dumps({"id": ID + i, "t": f"2024-01-0{i + 1}T00:00:00Z"})
                                         for i in range(3)) + "\n\n", encoding="utf-8")
    engine, kinds, python = both(path, lines=True)
    assert engine["id"] == [ID, ID + 1, ID + 2] and kinds == {"id": "number", "t": "date"} == python.kinds
    assert engine["t"] == python["t"]


def test_mixed_columns_and_wide_integers_are_left_to_chartcs_reader(tmp_path):
    for records in ([{"a": 1}, {"a": "x"}], [{"a": 2**64 + 1}], [{"a": 1, "a ": 2}, {"a": True}]):
        path = tmp_path / "mixed.json"
        path.write_text(json.dumps(records), encoding="utf-8")
        assert both(path)[0] is None


@pytest.mark.slow
def test_a_large_json_file_is_read_by_the_engine_and_charts_as_a_small_one_does(project, monkeypatch):
    rows = [{"a": i, "b": i * i / 3, "c": f"run-{i % 3}"} for i in range(50)]
    (project / "big.json").write_text(json.dumps(rows), encoding="utf-8")
    small = compile_spec(spec(project, "{path: big.json}")).vega_lite
    monkeypatch.setattr(resolve, "ENGINE_JSON_BYTES", 16)
    monkeypatch.setitem(resolve.READERS, ".json", lambda paths: pytest.fail("the Python reader read a large file"))
    large = compile_spec(spec(project, "{path: big.json}")).vega_lite
    assert large == small


def test_a_json_file_over_the_python_readers_limit_is_not_refused(project, monkeypatch):
    rows = [{"a": i, "b": 2 * i} for i in range(1000)]
    (project / "big.json").write_text(json.dumps(rows), encoding="utf-8")
    monkeypatch.setattr(resolve, "MAX_FILE_BYTES", 100)
    monkeypatch.setattr(resolve, "ENGINE_JSON_BYTES", 100)
    compiled = compile_spec(spec(project, "{path: big.json}"))
    assert len(compiled.flow.table) == 1000


def python_error(project: Path, content: bytes, name: str) -> SpecError:
    (project / name).write_bytes(content)
    with pytest.raises(SpecError) as raised:
        compile_spec(spec(project, f"{{path: {name}}}"))
    return raised.value.errors[0]


@pytest.mark.parametrize("content, name", [
    (b'[{"a": 1, "b": 2}, {"a": ]', "bad.json"),
    (b'{"a": 1, "b": 2}', "bad.json"),
    (b'[1, 2]', "bad.json"),
    (b'[{"a": 1, "b": [2]}]', "bad.json"),
    (b'[{"a": 1, "b": 2}, {"a": 1, "b": {"c": 2}}]', "bad.json"),
    (b'{"a": 1, "b": 2}\n{"a":\n 2}\n', "bad.jsonl"),
    (b'[{"a": "\xff\xfe", "b": 2}]', "bad.json"),
    (b'\x00' * 64, "bad.json"),
    (b'[]', "bad.json"),
])
def test_bad_json_read_by_the_engine_is_refused_in_the_python_readers_words(project, monkeypatch, content, name):
    expected = python_error(project, content, name)
    monkeypatch.setattr(resolve, "ENGINE_JSON_BYTES", 0)
    error = python_error(project, content, name)
    assert (error.message, error.code, error.hint, error.path) == (expected.message, expected.code, expected.hint,
                                                                   expected.path)
    assert (error.location.line, error.location.column) == (2, 7) or error.location == expected.location
