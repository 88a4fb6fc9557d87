"""Stage 3: loading the rows, and checking every field the spec names against them."""

from __future__ import annotations

import datetime
import math

import pytest

from chartc import errors as msg
from chartc.errors import Location, SpecError
from chartc.stages.load import load_spec, load_text
from chartc.stages.parse import parse_chart
from chartc.stages.check import check_chart
from chartc.stages.data import field_types, flow_data, read_rows
from chartc.ir import Aggregate, AggregateOp, Calculate, Fold
from chartc.infra.table import from_records

CARS_COLUMNS = ["Name", "Miles_per_Gallon", "Cylinders", "Displacement", "Horsepower",
                "Weight_in_lbs", "Acceleration", "Year", "Origin"]


@pytest.fixture
def project(tmp_path):
    """A project folder (a git work tree) with a data folder."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "runs.csv").write_text("run,step,loss,day\na,1,2.5,2024-01-01\nb,2,0,2024-01-02\n")
    return tmp_path


def write_spec(folder, text, name="spec.yaml"):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def resolved(folder, text):
    doc = load_spec(write_spec(folder, text))
    chart, _ = parse_chart(doc)
    return chart, read_rows(chart.data), doc


def data_error(folder, data_line) -> SpecError:
    with pytest.raises(SpecError) as caught:
        resolved(folder, f"data: {data_line}\nmark: point\n")
    return caught.value


def checked(folder, text):
    chart, table, _ = resolved(folder, text)
    flow = flow_data(chart, table)
    return check_chart(chart, flow.fields, flow)


# ------------------------------------------------------------------ data sources

def test_inline_values(project):
    _, table, _ = resolved(project, "data:\n  values:\n    - {a: 1, d: '2024-03-01'}\n    - {a: 2}\nmark: point\n")
    assert table.names == ["a", "d"]
    assert field_types(table)["d"] == "temporal"  # ISO dates become datetimes
    assert table["d"] == [datetime.datetime(2024, 3, 1), None]


def test_dataset(project):
    _, table, _ = resolved(project, "data: {dataset: cars}\nmark: point\n")
    assert table.names == CARS_COLUMNS and len(table) == 406


def test_csv_file_relative_to_the_spec(project):
    _, table, _ = resolved(project, "data: {path: data/runs.csv}\nmark: point\n")
    assert field_types(table) == {"run": "nominal", "step": "quantitative", "loss": "quantitative",
                                  "day": "temporal"}


def test_tsv_and_json_files(project):
    (project / "data" / "t.tsv").write_text("a\tb\n1\tx\n")
    (project / "data" / "j.data").write_text('[{"a": 1, "b": "x"}]')
    _, table, _ = resolved(project, "data: {path: data/t.tsv}\nmark: point\n")
    assert table.records() == [{"a": 1, "b": "x"}]
    _, table, _ = resolved(project, "data: {path: data/j.data, format: json}\nmark: point\n")
    assert table.records() == [{"a": 1, "b": "x"}]


def test_missing_file_suggests_the_path_as_written(project):
    error = data_error(project, "{path: data/run.csv}")
    assert error.path == ("data", "path")
    assert error.message == msg.file_not_found("data/run.csv")
    assert error.hint == "did you mean 'data/runs.csv'?"
    assert error.location.line == 1 and error.stage == "resolve"


def test_missing_file_without_a_near_miss_lists_the_folder(project):
    error = data_error(project, "{path: data/zzz.csv}")
    assert error.hint == msg.files_in_folder("data", ["runs.csv"])


def test_missing_folder(project):
    assert data_error(project, "{path: nope/x.csv}").hint is None


@pytest.mark.parametrize("path, message", [
    ("https://example.com/a.csv", msg.data_url("https://example.com/a.csv")),
    ("/etc/passwd", msg.data_path_absolute("/etc/passwd")),
    ("../../outside.csv", None),
    ("data", msg.data_not_a_file("data")),
])
def test_paths_that_are_refused(project, path, message):
    error = data_error(project, f"{{path: '{path}'}}")
    if message:
        assert error.message == message
    assert error.path == ("data", "path")


def test_unknown_format(project):
    (project / "data" / "x.xlsx").write_text("")
    assert data_error(project, "{path: data/x.xlsx}").message == msg.data_unknown_format("data/x.xlsx")


def test_a_catalog_table_on_the_duckdb_engine_says_which_engine_has_one(project):
    error = data_error(project, "{table: logs.runs}")
    assert (error.code, error.path, error.stage) == ("E490", ("data", "table"), "resolve")
    assert error.message == msg.catalog_no_engine("logs.runs")
    assert error.message == "the DuckDB engine has no table 'logs.runs': it reads files, and has no catalog of tables"
    assert error.hint == msg.catalog_no_engine_hint()
    assert 'engine = "spark"' in error.hint and "--engine spark" in error.hint
    assert error.location == Location(str(project / "spec.yaml"), 1, 15)


def test_a_catalog_tables_provenance_is_refused_as_its_rows_are(project):
    from chartc.pipeline import compile_spec

    with pytest.raises(SpecError) as caught:  # the data's identity is taken first: the same error, once
        compile_spec(write_spec(project, "data: {table: logs.runs}\nmark: point\nencoding: {x: a, y: b}\n"))
    assert [e.code for e in caught.value.errors] == ["E490"]


def test_validate_leaves_the_fields_of_a_catalog_table_to_the_compile(project):
    from chartc.pipeline import validate_spec

    spec = ("data: {table: logs.runs}\nmark: point\ntransform: [{filter: 'datum.los > 0'}]\n"
            "encoding: {x: step, y: {field: lost, type: quantitative}}\n")
    assert validate_spec(write_spec(project, spec)) == []  # its columns are the engine's: none is known here
    bad = validate_spec(write_spec(project, "data: {table: 'logs runs'}\nmark: point\nencoding: {x: a, y: b}\n"))
    assert [(p.code, p.path) for p in bad] == [("E208", ("data", "table"))]


def test_empty_data(project):
    (project / "data" / "empty.csv").write_text("a,b\n")
    assert data_error(project, "{path: data/empty.csv}").message == msg.empty_data()
    assert data_error(project, "{values: []}").message == msg.empty_data()


# ------------------------------------------------------------------ types

@pytest.mark.parametrize("values, kind", [
    ([1, 2], "quantitative"), ([1.5, None], "quantitative"), (["a", "b"], "nominal"),
    ([True, False], "nominal"), (["2024-01-01", "2024-01-02T10:00"], "temporal"),
    ([1, "a"], "nominal"), (["2024-01-01", "2024-02-30"], "nominal"),
])
def test_field_types(values, kind):
    assert field_types(from_records([{"v": value} for value in values])) == {"v": kind}


def test_transform_fields():
    """Each transform node declares the fields after it (`fields_after`, read by every stage)."""
    fields = {"a": "quantitative", "b": "quantitative", "g": "nominal"}
    assert Calculate(None, "c").fields_after(fields)["c"] == "quantitative"
    folded = Fold(("a", "b"), ("k", "v")).fields_after(fields)
    assert (folded["k"], folded["v"]) == ("nominal", "quantitative")
    assert Fold(("a", "g")).fields_after(fields)["value"] == "nominal"
    aggregated = Aggregate((AggregateOp("mean", "m", "a"),), ("g",)).fields_after(fields)
    assert aggregated == {"g": "nominal", "m": "quantitative"}


# ------------------------------------------------------------------ field checks

def test_missing_field_as_shorthand_and_as_object(project):
    found = checked(project, "data: {dataset: cars}\nmark: point\nencoding:\n  x: Horsepowr\n  y: {field: mpg}\n")
    assert [p.path for p in found] == [("encoding", "x"), ("encoding", "y", "field")]
    assert [p.location for p in found] == [Location(found[0].location.file, 4, 6),
                                           Location(found[0].location.file, 5, 14)]
    assert found[0].message == msg.field_not_found("Horsepowr", CARS_COLUMNS)
    assert found[0].hint == msg.field_hint("Horsepowr", CARS_COLUMNS)
    assert found[0].hint.startswith("did you mean 'Horsepower'? available columns: 'Name'")
    assert found[1].hint == msg.available_columns(CARS_COLUMNS)
    assert all(p.stage == "check" for p in found)


def test_fields_follow_the_transforms(project):
    text = """\
data: {dataset: cars}
transform:
  - calculate: datum.Horsepower / 2
    as: half
  - fold: [half, Acceleration]
    as: [measure, amount]
mark: point
encoding:
  x: amount
  color: measure
  y: Horsepower
"""
    assert checked(project, text) == []


def test_field_dropped_by_an_aggregate(project):
    text = """\
data: {dataset: barley}
transform:
  - aggregate: [{op: mean, field: yield, as: mean_yield}]
    groupby: [site]
mark: bar
encoding: {x: yield, y: site}
"""
    [error] = checked(project, text)
    assert error.message == msg.field_dropped("yield")
    assert error.hint == msg.field_dropped_hint(["site", "mean_yield"])


def test_fields_in_transforms_lists_layers_and_facets(project):
    text = """\
data: {dataset: cars}
transform:
  - filter: {field: Hp, gt: 100}
  - aggregate: [{op: mean, field: Weight, as: w}]
    groupby: [Origin, Yr]
encoding:
  tooltip: [Origin, Nme]
layers:
  - mark: point
    encoding: {x: w, y: {field: ww}}
facet: {column: Orign}
"""
    found = checked(project, text)
    assert [p.path for p in found] == [
        ("transform", 0, "filter", "field"), ("transform", 1, "aggregate", 0, "field"),
        ("transform", 1, "groupby", 1), ("encoding", "tooltip", 1),
        ("layers", 0, "encoding", "y", "field"), ("facet", "column")]


def test_layer_encoding_overrides_the_shared_one(project):
    text = "data: {dataset: cars}\nencoding: {x: Nope}\nlayers:\n  - mark: point\n    encoding: {x: Horsepower}\n"
    assert checked(project, text) == []


# ------------------------------------------------------------------ log scales

LOG_SPEC = """\
data: {{path: data/runs.csv}}
{transform}mark: line
encoding:
  x: step
  y: {{field: loss, scale: {{type: log}}}}
"""


def test_log_scale_over_zero(project):
    [error] = checked(project, LOG_SPEC.format(transform=""))
    assert error.path == ("encoding", "y", "scale", "type")
    assert error.message == msg.log_scale_non_positive("loss", 1)
    assert error.hint == msg.log_scale_hint()
    assert (error.location.line, error.location.column) == (5, 34)


def test_log_scale_after_filtering_the_zeros_out(project):
    """The hint says to filter the rows out: doing so must satisfy the check."""
    transform = "transform:\n  - filter: {field: loss, gt: 0}\n"
    assert checked(project, LOG_SPEC.format(transform=transform)) == []


def test_log_scale_after_an_expression_filter_is_left_to_vega(project):
    transform = "transform:\n  - filter: datum.loss > 0\n"
    assert checked(project, LOG_SPEC.format(transform=transform)) == []


def through(table, transform: str):
    """The rows a one-layer chart with these transforms draws (the data stage's interpreter)."""
    chart, _ = parse_chart(load_text(f"data: {{values: [{{a: 1}}]}}\ntransform: {transform}\nmark: point\n",
                                     "spec.yaml"))
    return flow_data(chart, table).layers[0]


def test_rows_through():
    table = from_records([{"a": a, "b": b} for a, b in zip([0, 1, 2, None], "wxyz")])
    assert list(through(table, "[{filter: {field: a, gt: 0}}]").table["b"]) == ["x", "y"]
    # Vega-Lite compiles a range with no lower bound to `datum.a <= 1`, and null <= 1 holds in JavaScript.
    assert list(through(table, "[{filter: {field: a, range: [null, 1]}}]").table["b"]) == ["w", "x", "z"]
    assert list(through(table, "[{filter: {field: b, oneOf: [w, z]}}, {calculate: '1', as: c}]").table["b"]) == [
        "w", "z"]
    # Expression filters and folds are interpreted too (they were left to Vega before).
    assert list(through(table, '[{filter: "datum.a > 0"}]').table["b"]) == ["x", "y"]
    assert len(through(table, "[{fold: [a]}]").table) == 4


# ------------------------------------------------------------------ records

def test_records_are_json_safe():
    table = from_records([
        {"f": 1.5, "i": 1, "b": True, "d": "2024-01-02 03:04:05", "s": "x", "n": math.inf},
        {"f": math.nan, "i": 2, "b": False, "d": None, "s": None, "n": -1.5},
    ])
    assert table.records() == [
        {"f": 1.5, "i": 1, "b": True, "d": "2024-01-02T03:04:05", "s": "x", "n": None},
        {"f": None, "i": 2, "b": False, "d": None, "s": None, "n": -1.5},
    ]
    assert [type(v) for v in table.records()[0].values()] == [float, int, bool, str, str, type(None)]
