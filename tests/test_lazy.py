"""Rows left in the engine: a large Parquet chart aggregated there compiles without its rows reaching Python.

The data stage keeps a Parquet source as the engine's view (`sources.EngineTable`):
its kinds, length and categories come from queries, and only what a layer
draws row by row is fetched. Each test counts the rows fetched, checks what
Vega draws from the Vega-Lite (one data row per mark), and compares the
Vega-Lite with the compile that materialises every row first (the flow before
the rows were left in the engine): the same bytes.
"""

from __future__ import annotations

import datetime
import json
import math

import duckdb
import numpy as np
import pytest
import vl_convert

from chartc import errors
from chartc.errors import SpecError
from chartc.stages.data import read as read_stage
from chartc.stages.data import sources
from chartc.infra.table import NUMBER, STORED_INTEGER, TEXT
from chartc.stages.data.sources import EngineTable, KeptOrigin, materialise
from chartc.trends.methods.loess import Loess
from conftest import scene_nodes

# Past the mark limit (200,000: these rows cannot be drawn one by one) and past the rows the fit sums in
# memory (100,000): every layer below is computed in the engine or not at all.
ROWS = 300_000
RUNS = 3

pytestmark = pytest.mark.slow  # each compile reads 300,000 rows (the eager one into Python)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lazy")
    connection = duckdb.connect()
    connection.execute(
        f"COPY (SELECT i % {RUNS} AS run, 'run ' || (i % {RUNS}) AS name, i // {RUNS} AS step, "
        f"3.0 - 2e-6 * (i // {RUNS}) + 0.1 * (i % {RUNS}) + 0.05 * sin(i * 12.9898) AS loss "
        f"FROM range({ROWS}) AS t(i)) TO '{folder / 'runs.parquet'}' (FORMAT parquet)")
    connection.close()
    return folder


@pytest.fixture
def fetched(monkeypatch):
    """The number of rows each query over rows left in the engine brought into Python."""
    counts: list[int] = []
    original = EngineTable.fetch

    def counting(self, sql, names, parameters=None):
        cells = original(self, sql, names, parameters)
        counts.append(len(next(iter(cells.values()), [])))
        return cells

    monkeypatch.setattr(EngineTable, "fetch", counting)
    return counts


def write_parquet(path, select: str) -> None:
    """The rows of a DuckDB query, as a Parquet file."""
    connection = duckdb.connect()
    try:
        connection.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet)")
    finally:
        connection.close()


def parquet_folder(tmp_path_factory, name: str, select: str):
    """A folder of its own holding one Parquet file, `name`, of a DuckDB query's rows."""
    folder = tmp_path_factory.mktemp(name.split(".")[0])
    write_parquet(folder / name, select)
    return folder


def compiled(folder, text: str):
    (folder / "chart.yaml").write_text(text)
    from chartc.pipeline import compile_spec

    return compile_spec(folder / "chart.yaml")


def eager(folder, text: str, monkeypatch):
    """The same chart with every row materialised as a Table first, as every compile did before."""
    with monkeypatch.context() as patch:
        patch.setattr(read_stage, "EngineTable",
                      lambda connection, view, numbered=None: materialise(connection, f'SELECT * FROM "{view}"'))
        return compiled(folder, text)


def refused_as_read(folder, text: str, monkeypatch, fetched: list, most: int) -> str:
    """The message a chart over rows left in the engine is refused with, having fetched at most `most` rows at a
    time, which is the message the same chart over the rows read into Python gets."""
    with pytest.raises(SpecError) as raised:
        compiled(folder, text)
    assert max(fetched, default=0) <= most
    with pytest.raises(SpecError) as read:
        eager(folder, text, monkeypatch)
    assert raised.value.errors[0].message == read.value.errors[0].message
    return raised.value.errors[0].message


# A histogram of the loss, and the rows it fetches at most (its bins).
LOSS_HISTOGRAM = ("mark: bar\nencoding:\n  x: {field: loss, bin: {maxbins: 30}}\n  y: {aggregate: count}\n", 30)


def kept_as_read(folder, text: str, monkeypatch, fetched: list, most: int):
    """The chart over rows left in the engine, having fetched at most `most` rows at a time, which is the chart
    over the rows read into Python, byte for byte."""
    chart = compiled(folder, text)
    assert max(fetched, default=0) <= most
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite
    return chart


def data_rows(vega_lite: dict) -> list[dict]:
    """Every row the Vega-Lite carries (its named data sets and inline values)."""
    rows = [row for values in vega_lite.get("datasets", {}).values() for row in values]
    return rows + list(vega_lite.get("data", {}).get("values", []))


def parquet_loss(folder) -> np.ndarray:
    connection = duckdb.connect()
    try:
        return np.array([v for (v,) in connection.execute(
            f"SELECT loss FROM '{folder / 'runs.parquet'}'").fetchall()])
    finally:
        connection.close()


def test_a_histogram_of_a_large_parquet_fetches_no_row_and_draws_one_mark_per_bin(folder, fetched, monkeypatch):
    text = "data: {path: runs.parquet}\nmark: bar\nencoding:\n  x: {field: loss, bin: {maxbins: 40}}\n" \
           "  y: {aggregate: count}\n"
    chart = compiled(folder, text)
    assert sum(fetched) == 0
    rows = data_rows(chart.vega_lite)
    marks = scene_nodes(vl_convert.vegalite_to_scenegraph(chart.vega_lite), "rect", role="mark")
    assert len(marks) == 1 and len(marks[0]["items"]) == len(rows)
    # numpy's histogram on the bins Vega laid (each bin [start, end), the last one closed)
    rows = sorted(rows, key=lambda row: row["loss (binned)"])
    edges = [row["loss (binned)"] for row in rows] + [rows[-1]["loss (binned)_end"]]
    counts, _ = np.histogram(parquet_loss(folder), bins=edges)
    assert [row["Count of Records"] for row in rows] == counts.tolist()
    assert json.dumps(chart.vega_lite, sort_keys=True) == json.dumps(eager(folder, text, monkeypatch).vega_lite,
                                                                     sort_keys=True)


def test_a_binned_heatmap_of_a_large_parquet_fetches_no_row(folder, fetched, monkeypatch):
    text = "data: {path: runs.parquet}\nmark: rect\nencoding:\n  x: {field: step, bin: {maxbins: 20}}\n" \
           "  y: {field: loss, bin: {maxbins: 20}}\n  color: {aggregate: count}\n"
    chart = compiled(folder, text)
    assert sum(fetched) == 0
    rows = data_rows(chart.vega_lite)
    assert sum(row["Count of Records"] for row in rows) == ROWS
    marks = scene_nodes(vl_convert.vegalite_to_scenegraph(chart.vega_lite), "rect", role="mark")
    assert sum(len(mark["items"]) for mark in marks) == len(rows)
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite


def test_a_long_line_fetches_no_row_and_carries_only_the_fields_drawn(folder, fetched, monkeypatch):
    text = "width: 200\ndata: {path: runs.parquet}\nmark: line\nencoding:\n  x: step\n  y: loss\n" \
           "  color: {field: name, type: nominal}\n"
    chart = compiled(folder, text)
    rows = data_rows(chart.vega_lite)
    columns = 200 * 2  # the PNG's pixel columns
    assert len(rows) <= 4 * columns * RUNS
    # no row fetched: M4's pass finds the kept rows' cells (an integer x keys each row) and the colour's
    # categories (asked by the legend and the colour-vision check)
    assert fetched == []
    assert {tuple(sorted(row)) for row in rows} == {("loss", "name", "step")}  # not `run`: nothing draws it
    lines = scene_nodes(vl_convert.vegalite_to_scenegraph(chart.vega_lite), "line", role="mark")
    assert sum(len(line["items"]) for line in lines) == len(rows)
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite


def test_a_long_line_of_one_series_fetches_no_row(folder, fetched, monkeypatch):
    text = "width: 200\ndata: {path: runs.parquet}\nmark: line\nencoding:\n  x: step\n  y: loss\n"
    chart = compiled(folder, text)
    rows = data_rows(chart.vega_lite)
    assert len(rows) <= 4 * 200 * 2 and fetched == []
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite


@pytest.mark.parametrize("mark, tooltip, fields", [
    ("line", "", ("loss", "run", "step")),                                 # a tooltip's field is drawn
    ("{type: line, tooltip: true}", "", ("loss", "name", "run", "step")),  # it may show any field
])
def test_a_long_lines_rows_not_found_by_m4_are_fetched_with_the_fields_drawn(folder, fetched, monkeypatch, mark,
                                                                             tooltip, fields):
    text = f"width: 200\ndata: {{path: runs.parquet}}\nmark: {mark}\nencoding:\n  x: step\n  y: loss\n" \
           f"  tooltip: [{{field: run, type: nominal}}]\n"
    chart = compiled(folder, text)
    rows = data_rows(chart.vega_lite)
    assert fetched == [len(rows)] and {tuple(sorted(row)) for row in rows} == {fields}
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite


@pytest.mark.parametrize("y", ["round(sin(i * 12.9898), 1) * (1 - 2 * (i % 2))",  # ties everywhere, -0 beside 0
                               "CASE WHEN i = 7000 THEN 'NaN'::DOUBLE ELSE sin(i * 12.9898) END",  # a row not drawn
                               "CASE WHEN i = 7000 THEN NULL ELSE sin(i * 12.9898) END",  # a missing cell
                               "CAST(round(100 * sin(i * 12.9898)) AS INTEGER)"])  # integers
def test_a_long_lines_cells_found_by_m4_are_the_cells_read(tmp_path, fetched, monkeypatch, y):
    """The cells M4's pass carries are those of the rows read, on ties (settled by a second pass, -0 kept) and
    integers; a NaN or a missing y (a row not drawn) makes the pass run again with that row apart, and the rows
    kept are fetched."""
    write_parquet(tmp_path / "runs.parquet", f"SELECT i // 3 AS step, (i * 7) % 3 AS run, {y} AS loss "
                                             f"FROM range(30000) AS t(i)")
    text = "width: 200\ndata: {path: runs.parquet}\nmark: line\nencoding:\n  x: step\n  y: loss\n" \
           "  color: {field: run, type: nominal}\n"
    chart = compiled(tmp_path, text)
    rows = data_rows(chart.vega_lite)
    assert len(rows) <= 4 * 400 * 3 + 1
    assert fetched == ([len(rows)] if "NaN" in y or "NULL" in y else [])
    assert chart.vega_lite == eager(tmp_path, text, monkeypatch).vega_lite
    if "-" in y:
        assert any(math.copysign(1.0, row["loss"]) < 0 and row["loss"] == 0 for row in rows)


@pytest.mark.parametrize("field, kind", [("run", int), ("name", str), ("gap", float), ("flag", bool)])
def test_a_long_lines_categories_from_m4_are_those_of_the_rows_read(tmp_path, field, kind, fetched, monkeypatch):
    """The colour's values found by M4's pass (integers, text, integers beside a gap, booleans) are the values of
    the rows read, in the order of their first rows, typed as a column's values are (integers beside a gap as
    floats), and no query but the kept rows' fetches rows."""
    connection = duckdb.connect()
    connection.execute(
        f"COPY (SELECT (i * 7) % 3 AS run, 'run ' || ((i * 7) % 3) AS name, CASE WHEN i % 3 = 1 AND i > 5 THEN 9 "
        f"WHEN i % 3 = 2 THEN i % 4 END AS gap, i % 2 = 1 AS flag, i // 6 AS step, sin(i * 12.9898) AS loss "
        f"FROM range(30000) AS t(i)) TO '{tmp_path / 'runs.parquet'}' (FORMAT parquet)")
    expected = [kind(value) for (value,) in connection.execute(
        f"SELECT {field} FROM (SELECT {field}, min(file_row_number) AS first FROM "
        f"read_parquet('{tmp_path / 'runs.parquet'}', file_row_number = true) WHERE {field} IS NOT NULL "
        f"GROUP BY {field}) ORDER BY first").fetchall()]
    connection.close()
    seen = []
    original = EngineTable.unique
    monkeypatch.setattr(EngineTable, "unique", lambda table, name: seen.append(original(table, name)) or seen[-1])
    text = f"width: 200\ndata: {{path: runs.parquet}}\nmark: line\nencoding:\n  x: step\n  y: loss\n" \
           f"  color: {{field: {field}, type: nominal}}\n"
    chart = compiled(tmp_path, text)
    assert seen and all(values == expected and [type(v) for v in values] == [kind] * len(expected)
                        for values in seen)
    assert fetched == []  # the kept rows' cells too come with M4's pass
    assert chart.vega_lite == eager(tmp_path, text, monkeypatch).vega_lite


def test_a_linear_fit_over_a_large_parquet_is_summed_in_the_engine_as_over_the_rows_read(folder, fetched,
                                                                                         monkeypatch):
    text = "data: {path: runs.parquet}\nencoding:\n  x: step\n  y: loss\n  color: {field: name, type: nominal}\n" \
           "layers:\n  - trend: {method: linear, band: 0.95, by: name}\n"
    chart = compiled(folder, text)
    assert fetched and max(fetched) == RUNS  # only the groups' names (for the fit, the legend, the colours)
    # the same lines, bands and numbers as the sums over the rows read into Python
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite
    fits = chart.fits[chart.chart.layers[0].path]
    assert [line.group for line in fits] == [f"run {run}" for run in range(RUNS)]
    connection = duckdb.connect()
    for run, line in enumerate(fits):  # numpy's least squares on the group's rows
        x, y = np.array(connection.execute(f"SELECT step, loss FROM '{folder / 'runs.parquet'}' "
                                           f"WHERE run = {run}").fetchall(), dtype=float).T
        slope, intercept = np.polyfit(x, y, 1)
        assert dict(line.coefficients)["slope"] == pytest.approx(slope, rel=1e-9)
        assert dict(line.coefficients)["intercept"] == pytest.approx(intercept, rel=1e-9)
        assert line.n == len(x)
    connection.close()


def test_text_left_in_the_engine_is_scrubbed_as_text_read(tmp_path, monkeypatch):
    write_parquet(tmp_path / "runs.parquet", "SELECT i AS x, CASE WHEN i = 7 THEN 'bad' || chr(1) ELSE 'ok' END "
                                             "AS label FROM range(20) AS t(i)")
    text = "data: {path: runs.parquet}\nmark: bar\nencoding:\n  x: {field: label, type: nominal}\n" \
           "  y: {aggregate: count}\n"
    lazy, read = compiled(tmp_path, text), eager(tmp_path, text, monkeypatch)
    assert [str(w) for w in lazy.warnings] == [str(w) for w in read.warnings] and lazy.warnings
    assert lazy.vega_lite == read.vega_lite
    assert "bad\ufffd" in {row["label"] for row in data_rows(lazy.vega_lite)}


@pytest.mark.parametrize("by", [None, "name"])
def test_a_smoother_past_its_row_limit_is_refused_before_a_row_is_fetched(folder, fetched, monkeypatch, by):
    """The rows a smoother fits come back to Python, so it has a limit per group: over rows left in the engine,
    each group's rows are counted there first, and a group past the limit is refused with the message the
    rows read into Python get, having fetched at most the groups' names."""
    monkeypatch.setattr(Loess, "max_rows", 50_000)
    grouped = "  color: {field: name, type: nominal}\n" if by else ""
    text = (f"data: {{path: runs.parquet}}\nencoding:\n  x: step\n  y: loss\n{grouped}"
            f"layers:\n  - trend: {{method: loess{', by: name' if by else ''}}}\n")
    with pytest.raises(SpecError) as raised:
        compiled(folder, text)
    too_many = errors.trend_too_many_rows("loess", ROWS // RUNS if by else ROWS, 50_000)
    assert raised.value.errors[0].message == (errors.trend_in_group("name", "run 0", too_many) if by else too_many)
    assert max(fetched, default=0) <= RUNS
    with pytest.raises(SpecError) as read:
        eager(folder, text, monkeypatch)
    assert read.value.errors[0].message == raised.value.errors[0].message


@pytest.fixture(scope="module")
def panels(tmp_path_factory):
    """300,000 rows in panels: a split (with rows that have none, NaN among them), and a run per row (`name`);
    `part` is the run but in split 2 (a panel without a group)."""
    folder = tmp_path_factory.mktemp("panels")
    write_parquet(folder / "runs.parquet",
                  f"SELECT CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN 'nan'::DOUBLE "
                  f"ELSE (i // 7) % 3 END AS split, i % {RUNS} AS run, 'run ' || (i % {RUNS}) AS name, "
                  f"CASE WHEN i % 11 <> 0 AND i % 13 <> 0 AND (i // 7) % 3 = 2 THEN NULL "
                  f"ELSE 'run ' || (i % {RUNS}) END AS part, "
                  f"i // {RUNS} AS step, 3.0 - 2e-6 * (i // {RUNS}) + 0.1 * (i % {RUNS}) "
                  f"+ 0.01 * ((i // 7) % 3) + 0.05 * sin(i * 12.9898) AS loss FROM range({ROWS}) AS t(i)")
    return folder


FACETED = ("data: {path: runs.parquet}\nencoding:\n  x: step\n  y: loss\n  color: {field: name, type: nominal}\n"
           "facet:\n  column: {field: split}\nlayers:\n  - trend: {method: %s, band: 0.95, by: name}\n")


@pytest.mark.parametrize("method", ["linear", "quad"])
def test_a_faceted_fit_over_a_large_parquet_is_summed_in_the_engine_per_panel(panels, fetched, monkeypatch,
                                                                              method):
    """Each panel's and group's sums come from one query in the engine: only the first row of each part is
    fetched (its panel's and group's values), and the lines are those of the rows read into Python."""
    text = FACETED % method
    chart = compiled(panels, text)
    fits = chart.fits[chart.chart.layers[0].path]
    assert len(fits) == 4 * RUNS  # splits 0, 1, 2 and the missing one (null and NaN), each with every run
    assert fetched and max(fetched) <= len(fits)
    assert chart.vega_lite == eager(panels, text, monkeypatch).vega_lite
    connection = duckdb.connect()
    for line in fits:  # numpy's least squares on the part's rows
        (_, split), = line.panel
        where = "(split IS NULL OR isnan(split))" if split is None else f"split = {split}"
        x, y = np.array(connection.execute(f"SELECT step, loss FROM '{panels / 'runs.parquet'}' "
                                           f"WHERE {where} AND name = '{line.group}'").fetchall(), dtype=float).T
        assert line.n == len(x)
        expected = np.polyfit(x, y, 1 if method == "linear" else 2)[::-1]
        assert [value for _, value in line.coefficients] == pytest.approx(list(expected), rel=1e-6)
    connection.close()


def test_a_faceted_fit_over_a_large_parquet_refuses_a_panel_without_a_group_as_read(panels, fetched, monkeypatch):
    message = refused_as_read(panels, (FACETED % "linear").replace("name", "part"), monkeypatch, fetched, 4 * RUNS)
    assert message == errors.trend_in_panel((("split", 2.0),), errors.trend_too_few_x(0))


def test_a_faceted_smoother_past_its_row_limit_is_refused_in_its_panel_before_a_row_is_fetched(panels, fetched,
                                                                                               monkeypatch):
    monkeypatch.setattr(Loess, "max_rows", 20_000)
    message = refused_as_read(panels, FACETED.replace(", band: 0.95", "") % "loess", monkeypatch, fetched, 4 * RUNS)
    assert message.startswith("in the panel for split ")


def test_a_fit_over_dates_left_in_the_engine_is_summed_there_as_over_the_rows_read(tmp_path, fetched, monkeypatch):
    """A temporal x is the dates' milliseconds since 1970 (whole microseconds, one rounding), in SQL as in
    Python (`infra.table.milliseconds`): the same lines, and no column of every row fetched."""
    write_parquet(tmp_path / "runs.parquet",
                  f"SELECT TIMESTAMP '1969-12-31 23:00:00' + to_microseconds(i * 1000003 + i % 7) AS time, "
                  f"'run ' || (i % {RUNS}) AS name, 3.0 - 1e-6 * i + 0.05 * sin(i * 12.9898) AS loss "
                  f"FROM range({ROWS}) AS t(i)")
    text = ("data: {path: runs.parquet}\nencoding:\n  x: {field: time, type: temporal}\n  y: loss\n"
            "  color: {field: name, type: nominal}\nlayers:\n  - trend: {method: linear, band: 0.95, by: name}\n")
    chart = compiled(tmp_path, text)
    assert fetched and max(fetched) == RUNS  # the groups' names
    assert chart.vega_lite == eager(tmp_path, text, monkeypatch).vega_lite
    connection = duckdb.connect()
    for line in chart.fits[chart.chart.layers[0].path]:
        x, y = np.array(connection.execute(
            f"SELECT epoch_us(time) / 1000, loss FROM '{tmp_path / 'runs.parquet'}' WHERE name = '{line.group}'"
        ).fetchall(), dtype=float).T
        slope, intercept = np.polyfit(x, y, 1)
        assert line.x_type == "temporal" and line.n == len(x)
        assert dict(line.coefficients)["slope"] == pytest.approx(slope, rel=1e-9)
        assert dict(line.coefficients)["intercept"] == pytest.approx(intercept, rel=1e-9)
    connection.close()


@pytest.mark.parametrize("transform", ['filter: "datum.step >= 20000 && datum.loss < 3.05"',
                                       "filter: {field: name, oneOf: [run 0, run 2]}"])
def test_a_fit_after_filters_keeps_their_rows_in_the_engine(folder, fetched, monkeypatch, transform):
    """A trend layer whose transforms only filter: the engine keeps the rows they pass (`EngineTable.derived`)
    and the fit sums them there, as over the rows read into Python."""
    text = (f"data: {{path: runs.parquet}}\ntransform:\n  - {transform}\nencoding:\n  x: step\n  y: loss\n"
            "  color: {field: name, type: nominal}\nlayers:\n  - trend: {method: linear, band: 0.95, by: name}\n")
    chart = compiled(folder, text)
    assert fetched and max(fetched) <= RUNS  # the groups' names
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite
    where = "step >= 20000 AND loss < 3.05" if "step" in transform else "name IN ('run 0', 'run 2')"
    connection = duckdb.connect()
    for line in chart.fits[chart.chart.layers[0].path]:
        x, y = np.array(connection.execute(f"SELECT step, loss FROM '{folder / 'runs.parquet'}' "
                                           f"WHERE {where} AND name = '{line.group}'").fetchall(), dtype=float).T
        slope, intercept = np.polyfit(x, y, 1)
        assert line.n == len(x)
        assert dict(line.coefficients)["slope"] == pytest.approx(slope, rel=1e-9)
    connection.close()


def test_rows_a_query_left_in_the_engine_are_read_in_their_order_and_name_their_data_rows():
    connection = duckdb.connect()
    connection.execute("CREATE VIEW source AS SELECT i AS x FROM range(10) AS t(i)")
    table = EngineTable(connection, "source")
    # numbered with gaps, and returned in no order: read in the order of their numbers
    kept = table.derived(f'SELECT 10 * "__row" AS "__row", "__row" AS "__origin", x FROM "{table.rows_view()}" '
                         f'WHERE x % 3 = 2 ORDER BY "__row" DESC', {"x": (STORED_INTEGER, NUMBER, False, True)})
    origin = KeptOrigin(kept)
    assert (len(kept), kept["x"], [origin[i] for i in range(len(origin))]) == (3, [2, 5, 8], [2, 5, 8])
    assert (kept.places, kept.complete) == (81, {"x"})
    # a row taken by its number, with its column read whole before
    assert kept.take([50])["x"] == [5] and kept.cells("x", [80, 20]) == [8, 2]


@pytest.mark.parametrize("method", ["linear", "loess"])
def test_a_fit_after_filters_reads_the_kept_rows_in_their_order(folder, fetched, monkeypatch, method):
    """Under 100,000 kept rows (a line summed in memory) or a smoother: the kept rows' columns are read, each
    in the rows' order (asked for: a query's rows have none of their own), so each x meets its own y."""
    text = ("data: {path: runs.parquet}\ntransform:\n  - filter: \"datum.step < 20000\"\nencoding:\n  x: step\n"
            f"  y: loss\n  color: {{field: name, type: nominal}}\nlayers:\n  - trend: {{method: {method}, by: name}}\n")
    chart = compiled(folder, text)
    assert max(fetched) == 60_000  # the kept rows, not the 300,000 read
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite



FILTERED = "data: {path: runs.parquet}\ntransform:\n  - filter: \"datum.step >= 20000 && datum.run != 1\"\n"


@pytest.mark.parametrize("drawn, most", [
    LOSS_HISTOGRAM,
    ("width: 200\nmark: line\nencoding:\n  x: step\n  y: loss\n  color: {field: name, type: nominal}\n", 0),
    ("width: 200\nmark: line\nencoding:\n  x: loss\n  y: step\n  color: {field: name, type: nominal}\n", 3 * 4 * 200),
    ("transform:\n  - filter: \"datum.loss > -1000\"\nmark: point\nencoding:\n  x: step\n  y: loss\n", None),
], ids=["histogram", "m4 line", "m4 line over doubles", "points past the limit"])
def test_a_layer_after_filters_is_computed_over_the_rows_they_keep_in_the_engine(folder, fetched, monkeypatch,
                                                                                 drawn, most):
    """A drawn layer whose transforms only filter: its encoding's aggregate or M4 runs over the kept rows where
    they are (at most what is drawn is fetched), and points past the mark limit are refused before a fetch."""
    text = drawn.replace("transform:", "data: {path: runs.parquet}\ntransform:") if most is None else FILTERED + drawn
    if most is None:  # every row passes the filter: more than the marks a chart may draw
        assert "over the limit of 200,000" in refused_as_read(folder, text, monkeypatch, fetched, RUNS)
        return
    chart = compiled(folder, text)
    assert max(fetched, default=0) <= max(most, RUNS)
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite


@pytest.mark.parametrize("transform", [
    'calculate: "datum.loss * 100"\n    as: pct',
    'joinaggregate: [{op: max, field: loss, as: top}]\n    groupby: [name]\n  - calculate: "datum.loss - datum.top"\n'
    '    as: pct',
    'window: [{op: max, field: loss, as: pct}]\n    groupby: [name]\n    sort: [{field: step}]\n    frame: [-50, 50]',
], ids=["calculate", "joinaggregate", "window"])
def test_a_fit_over_computed_values_is_summed_where_they_are_computed(folder, fetched, monkeypatch, transform):
    """A trend over a value a transform computes (a calculate, a group's maximum, a moving one): the engine keeps
    the layer's rows (`EngineTable.derived`), the computed column beside the data's, and sums them there."""
    text = (f"data: {{path: runs.parquet}}\ntransform:\n  - {transform}\nencoding:\n  x: step\n  y: pct\n"
            "  color: {field: name, type: nominal}\nlayers:\n  - trend: {method: linear, by: name}\n")
    chart = compiled(folder, text)
    assert fetched and max(fetched) <= RUNS  # the groups' names
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite
    connection = duckdb.connect()
    for line in chart.fits[chart.chart.layers[0].path]:
        x, y = np.array(connection.execute(f"SELECT step, loss FROM '{folder / 'runs.parquet'}' "
                                           f"WHERE name = '{line.group}' ORDER BY step").fetchall(), dtype=float).T
        y = (y * 100 if "calculate" in transform[:9] else y - y.max() if "joinaggregate" in transform
             else np.lib.stride_tricks.sliding_window_view(np.pad(y, 50, constant_values=-np.inf), 101).max(axis=1))
        slope, intercept = np.polyfit(x, y, 1)
        assert line.n == len(x)
        assert dict(line.coefficients)["slope"] == pytest.approx(slope, rel=1e-9)
        assert dict(line.coefficients)["intercept"] == pytest.approx(intercept, rel=1e-9)
    connection.close()


def test_a_fit_over_looked_up_values_is_summed_where_they_are_joined(folder, fetched, monkeypatch):
    """A lookup in a second file, then a value computed from it: the join runs in the engine, the layer's rows
    stay there, and the fit is summed there, as over the rows read."""
    (folder / "scales.csv").write_text("name,label,scale\nrun 0,zero,1.5\nrun 1,one,2\nrun 2,two,-1\n")
    text = ("data: {path: runs.parquet}\ntransform:\n  - lookup: name\n    from:\n      data: {path: scales.csv}\n"
            "      key: name\n      fields: [label, scale]\n  - calculate: \"datum.loss * datum.scale\"\n    as: scaled\n"
            "encoding:\n  x: step\n  y: scaled\n  color: {field: label, type: nominal}\n"
            "layers:\n  - trend: {method: linear, by: label}\n")
    chart = compiled(folder, text)
    assert fetched and max(fetched) <= RUNS
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite
    scales = {"zero": 1.5, "one": 2.0, "two": -1.0}
    connection = duckdb.connect()
    for line in chart.fits[chart.chart.layers[0].path]:
        x, y = np.array(connection.execute(f"SELECT step, loss FROM '{folder / 'runs.parquet'}' WHERE name = "
                                           f"'run {list(scales).index(line.group)}'").fetchall(), dtype=float).T
        slope, _ = np.polyfit(x, y * scales[line.group], 1)
        assert dict(line.coefficients)["slope"] == pytest.approx(slope, rel=1e-9)
    connection.close()


@pytest.fixture(scope="module")
def metrics(tmp_path_factory):
    """Two losses per step of three runs, in wide form (a column each), as a sweep's logs often are."""
    return parquet_folder(tmp_path_factory, "metrics.parquet",
                          f"SELECT 'run ' || (i % {RUNS}) AS name, i // {RUNS} AS step, 2.0 + 0.2 * sin(i * 1e-4) "
                          f"AS train, CASE WHEN i % 50000 = 7 THEN NULL ELSE 2.1 + 0.3 * cos(i * 3e-4) END AS val, "
                          f"i AS id, i % 5 = 0 AS flag FROM range({ROWS}) AS t(i)")


FOLDED = "data: {path: metrics.parquet}\ntransform:\n  - fold: [train, val]\n"


@pytest.mark.parametrize("drawn, most", [
    ("width: 200\nmark: line\nencoding:\n  x: step\n  y: value\n  color: {field: key, type: nominal}\n"
     "  strokeDash: {field: name, type: nominal}\n", 2 * RUNS * 4 * 400 + 6 * 2),  # (and each gap's ends)
    ("mark: bar\nencoding:\n  x: {field: value, bin: {maxbins: 30}}\n  y: {aggregate: count}\n"
     "  color: {field: key, type: nominal}\n", 60),
    ("encoding:\n  x: step\n  y: value\n  color: {field: key, type: nominal}\n"
     "layers:\n  - trend: {method: quad, by: key}\n", 2),
    ("transform:\n  - calculate: \"datum.flag ? 'a' : 'b'\"\n    as: kind\nmark: point\nencoding:\n  x: step\n"
     "  y: value\n  shape: kind\n", None),
], ids=["m4 lines", "histogram", "fit", "points past the limit"])
def test_a_layer_of_folded_columns_is_computed_where_they_are_folded(metrics, fetched, monkeypatch, drawn, most):
    """A fold of two data columns into long form: its rows (twice the data's) stay in the engine, each value
    cell the data's own, and what the layer draws is computed over them there."""
    text = drawn.replace("transform:", "transform:\n  - fold: [train, val]", 1) if most is None else drawn
    text = ("data: {path: metrics.parquet}\n" + text) if most is None else FOLDED + drawn
    if most is None:  # 600,000 points: refused before one is fetched
        assert "over the limit of 200,000" in refused_as_read(metrics, text, monkeypatch, fetched, 2)
        return
    chart = compiled(metrics, text)
    assert max(fetched, default=0) <= most
    assert chart.vega_lite == eager(metrics, text, monkeypatch).vega_lite


@pytest.mark.parametrize("drawn, most", [
    ("width: 200\nmark: line\nencoding:\n  x: step\n  y: value\n  color: {field: key, type: nominal}\n"
     "  strokeDash: {field: name, type: nominal}\n", 2 * RUNS * 4 * 400 + 6 * 2),
    ("transform:\n  - filter: \"datum.step < 100\"\nmark: point\nencoding:\n  x: step\n  y: value\n"
     "  color: key\n", 600),
], ids=["m4 lines", "points drawn"])
def test_a_fold_of_a_computed_field_is_kept_where_it_is_folded(metrics, fetched, monkeypatch, drawn, most):
    """A computed field folded beside a data column: its cells, held as tagged text by the fold, are decoded in
    SQL (its probe says they are all numbers), so the folded rows stay in the engine."""
    text = ("data: {path: metrics.parquet}\ntransform:\n  - calculate: \"datum.val - datum.train\"\n    as: gap\n"
            "  - fold: [train, gap]\n" + drawn.replace("transform:\n", ""))
    chart = compiled(metrics, text)
    assert max(fetched, default=0) <= most
    assert chart.vega_lite == eager(metrics, text, monkeypatch).vega_lite


@pytest.fixture(scope="module")
def counted(tmp_path_factory):
    """Per step a float loss and an integer count with a gap (read as floats)."""
    return parquet_folder(tmp_path_factory, "counts.parquet",
                          f"SELECT i // {RUNS} AS step, 2.0 + 0.2 * sin(i * 1e-4) AS loss, CASE WHEN i % 50000 = 7 "
                          f"THEN NULL ELSE i % 97 END AS seen FROM range({ROWS}) AS t(i)")


@pytest.mark.parametrize("folded", ["loss, seen", "seen, loss"])
@pytest.mark.parametrize("drawn, most", [
    ("mark: bar\nencoding:\n  x: {field: value, bin: {maxbins: 30}}\n  y: {aggregate: count}\n"
     "  color: {field: key, type: nominal}\n", 60),
    ("transform:\n  - filter: \"datum.step < 100 || datum.step > 99900\"\nmark: point\nencoding:\n  x: step\n"
     "  y: value\n  color: key\n", 2 * 600),
], ids=["histogram", "points drawn"])
def test_a_fold_of_columns_stored_apart_but_read_alike_is_kept_where_it_is_folded(counted, fetched, monkeypatch,
                                                                                 folded, drawn, most):
    """A float column folded with an integer column beside a gap, both read as floats: the folded rows stay in
    the engine (before, the fold's cells were taken for Python's mix of kinds and every row was read), and
    each cell drawn is the one read."""
    text = f"data: {{path: counts.parquet}}\ntransform:\n  - fold: [{folded}]\n" + drawn.replace("transform:\n", "")
    chart = kept_as_read(counted, text, monkeypatch, fetched, most)
    if "point" in drawn:
        rows = data_rows(chart.vega_lite)
        assert len(rows) == 2 * 597 and {type(row["value"]) for row in rows} == {float, type(None)}


@pytest.fixture(scope="module")
def tallied(tmp_path_factory):
    """Per step a float loss and a complete integer count: Python reads the count's cells as integers."""
    return parquet_folder(tmp_path_factory, "tallies.parquet",
                          f"SELECT i // {RUNS} AS step, 2.0 + 0.2 * sin(i * 1e-4) AS loss, i % 97 AS seen "
                          f"FROM range({ROWS}) AS t(i)")


@pytest.mark.parametrize("drawn, most", [
    ("mark: bar\nencoding:\n  x: {field: value, bin: {maxbins: 30}}\n  y: {aggregate: count}\n"
     "  color: {field: key, type: nominal}\n", 60),
    ("transform:\n  - filter: \"datum.step < 100 || datum.step > 99900\"\nmark: point\nencoding:\n  x: step\n"
     "  y: value\n  color: key\n  tooltip: [value]\n", 2 * 600),
    ("transform:\n  - filter: \"datum.step < 300\"\nmark: bar\nencoding:\n  x: {field: value, type: nominal}\n"
     "  y: {aggregate: count}\n", 2 * 900),
    # M4 keeps at most 4 rows per pixel column and line, at the PNG's scale (2): fetched, not read from M4's pass.
    ("width: 300\nmark: line\nencoding:\n  x: step\n  y: value\n  color: key\n", 2 * 4 * 300 * 2),
], ids=["histogram", "points drawn", "values as categories", "lines reduced"])
def test_a_fold_of_a_float_column_and_an_integer_column_is_kept_where_it_is_folded(tallied, fetched, monkeypatch,
                                                                                  drawn, most):
    """A float column folded with a complete integer column: Python holds the fold's cells as a mix, integers
    from the count and floats from the loss (written 3 and 3.0). The rows stay in the engine, which keeps
    beside each cell whether it is an integer (before, every row was read), and each cell drawn is the one
    read."""
    text = "data: {path: tallies.parquet}\ntransform:\n  - fold: [loss, seen]\n" + drawn.replace("transform:\n", "")
    chart = kept_as_read(tallied, text, monkeypatch, fetched, most)
    if "point" in drawn:
        rows = data_rows(chart.vega_lite)
        assert len(rows) == 2 * 597 and {(row["key"], type(row["value"])) for row in rows} == {
            ("loss", float), ("seen", int)}


@pytest.fixture(scope="module")
def identified(tmp_path_factory):
    """Logs with a 64-bit id per row (hashes, snowflake ids): most past 2^53, a few under it, one missing."""
    return parquet_folder(tmp_path_factory, "ids.parquet",
                          f"SELECT i // {RUNS} AS step, 'run ' || (i % {RUNS}) AS name, 2.0 + 0.2 * sin(i * 1e-4) "
                          f"AS loss, CASE WHEN i = 5 THEN NULL WHEN i % 1000 = 1 THEN i - 500 "
                          f"ELSE 9007199254740993 + i * 30000000007 END AS id FROM range({ROWS}) AS t(i)")


@pytest.mark.parametrize("drawn, most", [
    LOSS_HISTOGRAM,
    ("transform:\n  - filter: \"datum.loss > 2.1\"\nencoding:\n  x: step\n  y: loss\n"
     "  color: {field: name, type: nominal}\nlayers:\n  - trend: {method: linear, by: name}\n", RUNS),
    ("transform:\n  - filter: \"datum.step < 200\"\n  - calculate: \"datum.id + 1\"\n    as: next\n"
     "mark: point\nencoding:\n  x: step\n  y: loss\n  tooltip: [id, next, name]\n", 600),
    ("transform:\n  - filter: \"datum.step < 2000\"\nmark: bar\nencoding:\n  x: {field: id, type: nominal}\n"
     "  y: {aggregate: count}\n", 6000),
    ("transform:\n  - filter: \"datum.step < 200\"\n  - {impute: loss, key: step, groupby: [name], value: 0}\n"
     "  - fold: [loss, step]\nmark: point\nencoding:\n  x: key\n  y: value\n  tooltip: [id]\n", 1200),
    ("transform:\n  - filter: \"datum.step < 200\"\n  - fold: [id, name]\nmark: point\nencoding:\n  x: step\n"
     "  y: loss\n  color: key\n  tooltip: [value]\n", 1200),
    ("transform:\n  - filter: \"datum.step < 100\"\n  - fold: [name, id, loss]\nmark: bar\nencoding:\n"
     "  x: {field: value, type: nominal}\n  y: {aggregate: count}\n  color: key\n", 900),
    ("transform:\n  - filter: \"datum.step < 200\"\n  - {impute: id, key: step, groupby: [name], value: 0.5}\n"
     "  - filter: \"datum.step > 2\"\nmark: point\nencoding:\n  x: step\n  y: loss\n  tooltip: [id]\n", 600),
    ("transform:\n  - fold: [id, loss]\nmark: bar\nencoding:\n  x: key\n  y: {aggregate: count}\n", 2),
    ("transform:\n  - filter: \"datum.step < 200\"\n  - fold: [id, loss, step]\nmark: point\nencoding:\n"
     "  x: step\n  y: value\n  color: key\n  tooltip: [value]\n", 1800),
    ("transform:\n  - filter: \"datum.step < 100\"\n  - fold: [loss, id]\nmark: bar\nencoding:\n"
     "  x: {field: value, type: nominal}\n  y: {aggregate: count}\n", 600),
], ids=["histogram", "fit after a filter", "ids drawn and computed", "ids as categories", "a fold after an impute",
        "ids folded beside text", "ids, text and floats folded as categories",
        "ids imputed beside a float", "ids folded beside floats, counted", "ids folded beside floats and integers",
        "ids folded beside floats as categories"])
def test_a_column_of_integers_past_2_53_keeps_the_rows_in_the_engine(identified, fetched, monkeypatch, drawn, most):
    """A column of integers past what a double holds exactly (JavaScript reads those as their decimal text) no
    longer sends every column of every row to Python: the engine holds its JavaScript values beside the
    integers, and the chart is the one over the rows read (an id past 2^53 plus 1 is text joined to '1'). A
    step changing the rows after an impute tags each id from the integers (a number, or none)."""
    text = "data: {path: ids.parquet}\n" + drawn
    chart = kept_as_read(identified, text, monkeypatch, fetched, most)
    if "next" in drawn:
        rows = data_rows(chart.vega_lite)
        big = [2 ** 53 + 1, 2 ** 53 + 1 + 2 * 30000000007]  # written as their text, as JavaScript holds them
        assert [(row["id"], row["next"]) for row in rows[:3] + rows[5:6]] == [
            (str(big[0]), f"{big[0]}1"), (-499, -498), (str(big[1]), f"{big[1]}1"), (None, 1)]


def test_rows_computed_in_the_engine_and_drawn_are_the_cells_the_rows_read_would_give(metrics, fetched,
                                                                                      monkeypatch):
    """A few of the computed rows drawn one by one: the data's integers stay integers, a missing value stays
    missing, booleans and text computed in SQL come back as Python would have them, in the rows' order."""
    text = ("data: {path: metrics.parquet}\ntransform:\n  - filter: \"datum.step < 400\"\n  - fold: [val, train]\n"
            "  - calculate: \"datum.value > 2.2\"\n    as: high\n  - calculate: \"datum.name + '/' + datum.key\"\n"
            "    as: series\n  - window: [{op: row_number, as: rank}]\n    groupby: [series]\n"
            "mark: point\nencoding:\n  x: step\n  y: value\n  color: series\n  shape: high\n"
            "  tooltip: [id, flag, rank]\n")
    chart = compiled(metrics, text)
    assert max(fetched) == 2 * 1200  # the kept rows, column by column
    assert chart.vega_lite == eager(metrics, text, monkeypatch).vega_lite
    rows = data_rows(chart.vega_lite)
    assert len(rows) == 2400 and rows[0]["series"] == "run 0/val" and rows[1]["series"] == "run 0/train"
    assert type(rows[0]["id"]) is int and type(rows[0]["flag"]) is bool and type(rows[1]["high"]) is bool
    assert [row["id"] for row in rows if row["value"] is None] == [7]


@pytest.mark.parametrize("drawn, most", [
    ("mark: point\nencoding:\n  x: {field: at, type: temporal}\n  y: train\n  tooltip: [at, odd]\n", 1200),
    ("mark: bar\nencoding:\n  x: {field: at, timeUnit: hoursminutes}\n  y: {field: train, aggregate: mean}\n", 0),
], ids=["points", "bars by minute"])
def test_computed_dates_are_kept_in_the_engine_as_timestamps(metrics, fetched, monkeypatch, drawn, most):
    """Dates a calculate makes (`datetime`, a Python function per row) are held by the engine as timestamps, not
    read back with every column: the points drawn are the cells the rows read would give (an Invalid Date missing),
    and bars by a time unit of them are grouped there."""
    text = ("data: {path: metrics.parquet}\ntransform:\n  - filter: \"datum.step < 400\"\n"
            "  - calculate: \"datetime(2024, 0, 1, 0, 0, datum.step * 7)\"\n    as: at\n"
            "  - calculate: \"datetime(datum.flag ? NaN : 1999, 11, 31, 23, 59, datum.step)\"\n    as: odd\n" + drawn)
    chart = compiled(metrics, text)
    assert max(fetched, default=0) <= most
    assert chart.vega_lite == eager(metrics, text, monkeypatch).vega_lite
    rows = data_rows(chart.vega_lite)
    if "point" in drawn:
        assert (rows[0]["at"], rows[3]["at"], rows[0]["odd"], rows[3]["odd"]) == (
            "2024-01-01T00:00:00", "2024-01-01T00:00:07", None, "1999-12-31T23:59:01")
    else:  # 400 steps of 7 seconds: 47 minutes, each one's mean of the 3 runs' losses
        assert len(rows) == 47 and rows[1]["at"] == "2012-01-01T00:01:00"


@pytest.mark.parametrize("x, y", [("step", "loss"), ("loss", "step")])
def test_a_log_scale_over_rows_left_in_the_engine_is_checked_there(folder, fetched, monkeypatch, x, y):
    """A long line reduced with M4 on a log y scale: its values at or below zero are counted by the engine (no
    column read whole), the line drawn when there are none, refused as over the rows read when there are."""
    text = (FILTERED + f"width: 200\nmark: line\nencoding:\n  x: {x}\n  y: {{field: {y}, scale: {{type: log}}}}\n"
            "  color: {field: name, type: nominal}\n")
    if y == "step":  # two runs' first steps, 0
        text = text.replace("datum.step >= 20000", "datum.step >= 0")
        assert "2 values" in refused_as_read(folder, text, monkeypatch, fetched, 2 * 4 * 400)
        return
    chart = compiled(folder, text)
    assert max(fetched, default=0) <= RUNS
    assert chart.vega_lite == eager(folder, text, monkeypatch).vega_lite


@pytest.fixture(scope="module")
def stamped(tmp_path_factory):
    """A sweep's logs with a timestamp per row (fractions of a second; one missing), as logs are written."""
    return parquet_folder(tmp_path_factory, "logs.parquet",
                          f"SELECT 'run ' || (i % {RUNS}) AS name, i // {RUNS} AS step, 1 + 0.5 * sin(i * 1e-3) AS "
                          f"loss, CASE WHEN i = 7 THEN NULL ELSE TIMESTAMP '2024-03-01 08:00:00' + "
                          f"to_microseconds(i * 1234567) END AS at FROM range({ROWS}) AS t(i)")


@pytest.mark.parametrize("drawn, most", [
    LOSS_HISTOGRAM,
    ("transform:\n  - filter: \"datum.step > 10\"\nencoding:\n  x: {field: at, type: temporal}\n  y: loss\n"
     "  color: {field: name, type: nominal}\nlayers:\n  - trend: {method: quad, by: name}\n", RUNS),
    ("transform:\n  - filter: \"datum.step < 300\"\n  - calculate: \"datum.loss * 2\"\n    as: double\n"
     "mark: point\nencoding:\n  x: {field: at, type: temporal}\n  y: double\n  tooltip: [at, name, step]\n", 900),
    # grouped by a time unit: before, every row was sent to the renderer, and 300,000 were refused (E501)
    ("mark: bar\nencoding:\n  x: {field: at, timeUnit: yearmonthdatehours}\n  y: {field: loss, aggregate: mean}\n"
     "  color: {field: name, type: nominal}\n", 310),  # the groups' names: 103 hours and a missing date, 3 runs
    ("mark: rect\nencoding:\n  x: {field: at, timeUnit: hours, type: ordinal}\n"
     "  y: {field: at, timeUnit: monthdate, type: ordinal}\n  color: {aggregate: count}\n", 0),
], ids=["histogram", "fit over dates after a filter", "points drawn", "bars by hour", "hours by day"])
def test_rows_with_a_timestamp_column_stay_in_the_engine(stamped, fetched, monkeypatch, drawn, most):
    """A timestamp column no longer brings every row back: the engine holds its JavaScript text (ISO, whole
    seconds) beside the dates themselves, which the rows kept there carry as read."""
    text = "data: {path: logs.parquet}\n" + drawn
    chart = compiled(stamped, text)
    assert max(fetched, default=0) <= most
    assert chart.vega_lite == eager(stamped, text, monkeypatch).vega_lite
    if most == 900:
        rows = data_rows(chart.vega_lite)
        assert (len(rows), rows[0]["at"], rows[7]["at"], rows[8]["at"]) == (
            900, "2024-03-01T08:00:00", None, "2024-03-01T08:00:09")
    if "timeUnit" in drawn:  # one row per group, counted or averaged as the dates floored in DuckDB's own SQL
        floor, measure = (("date_trunc('hour', \"at\")", "avg(loss)") if "bar" in drawn else
                          ("make_timestamp(2012, month(\"at\"), day(\"at\"), hour(\"at\"), 0, 0)", "count(*)"))
        keys = "name, " if "bar" in drawn else ""
        expected = duckdb.connect().execute(
            f"SELECT {keys}strftime({floor}, '%Y-%m-%dT%H:%M:%S'), {measure} FROM '{stamped / 'logs.parquet'}' "
            f"GROUP BY ALL").fetchall()
        measured = "Mean of loss" if "bar" in drawn else "Count of Records"
        got = [(*([row["name"]] if keys else []), row["at"], row[measured]) for row in data_rows(chart.vega_lite)]
        got, expected = sorted(got, key=str), sorted(expected, key=str)
        assert [row[:-1] for row in got] == [row[:-1] for row in expected]
        assert [row[-1] for row in got] == pytest.approx([row[-1] for row in expected], rel=1e-12)


@pytest.fixture(scope="module")
def texted(tmp_path_factory):
    """The same logs with each time as ISO text, as JSON logs and many Parquet writers hold them: fractions of
    a second, a zone's offset on some, one missing."""
    return parquet_folder(tmp_path_factory, "logs.parquet",
                          f"SELECT 'run ' || (i % {RUNS}) AS name, i // {RUNS} AS step, 1 + 0.5 * sin(i * 1e-3) AS "
                          f"loss, CASE WHEN i = 7 THEN NULL ELSE strftime(TIMESTAMP '2024-03-01 08:00:00' + "
                          f"to_microseconds(i * 1234567), '%Y-%m-%dT%H:%M:%S.%f') || "
                          f"CASE WHEN i % 5 = 0 THEN '+01:30' ELSE '' END END AS at FROM range({ROWS}) AS t(i)")


@pytest.mark.parametrize("drawn, most", [
    ("mark: bar\nencoding:\n  x: {field: at, timeUnit: yearmonthdatehours}\n  y: {field: loss, aggregate: mean}\n"
     "  color: {field: name, type: nominal}\n", 320),
    ("transform:\n  - filter: \"datum.step < 300\"\nmark: point\nencoding:\n  x: {field: at, type: temporal}\n"
     "  y: loss\n  tooltip: [at, name]\n", 900),
], ids=["bars by hour", "points drawn"])
def test_a_column_of_iso_date_text_stays_in_the_engine_as_dates(texted, fetched, monkeypatch, drawn, most):
    """ISO date text is parsed in the engine (before, every cell was read into Python to decide that the column
    holds dates): the chart is the one over the rows read and parsed in Python, and only what is drawn is fetched."""
    text = "data: {path: logs.parquet}\n" + drawn
    kept_as_read(texted, text, monkeypatch, fetched, most)


@pytest.fixture(scope="module")
def us_dated(tmp_path_factory):
    """Daily logs with each day as US text (month first, 1,000 days), and one written day first near the end."""
    return parquet_folder(tmp_path_factory, "days.parquet",
                          f"SELECT CASE WHEN i = {ROWS - 1000} THEN '31/12/2020' ELSE strftime(DATE '2020-01-01' + "
                          f"CAST(i % 1000 AS INTEGER), '%m/%d/%Y') END AS day, 1 + 0.5 * sin(i * 1e-3) AS loss "
                          f"FROM range({ROWS}) AS t(i)")


def test_date_text_written_day_first_is_found_in_the_engine(us_dated, fetched, monkeypatch):
    """A temporal channel over date text: the row written day first (which the renderer would drop, reading the
    rest month first) is found by the engine, not by reading the column whole: only that cell is fetched, and
    the diagnostic, naming the cell and its row, is the one the rows read into Python give."""
    text = ("data: {path: days.parquet}\nmark: bar\nencoding:\n  x: {field: day, type: temporal}\n"
            "  y: {field: loss, aggregate: mean}\n")
    message = refused_as_read(us_dated, text, monkeypatch, fetched, 1)
    assert "31/12/2020" in message and f"{ROWS - 1000 + 1}" in message


@pytest.fixture(scope="module")
def us_stamped(tmp_path_factory):
    """Logs with each time as US text to the second (month first: a text of its own on each row, which only the
    loose reading reads), and five cells near the end that are no dates, of four texts, each with a loss of 5."""
    bad = {ROWS - 900: "soon", ROWS - 700: "later", ROWS - 500: "n/a", ROWS - 300: "02/30/2024 10:00:00",
           ROWS - 50: "soon"}
    cases = " ".join(f"WHEN i = {row} THEN '{text}'" for row, text in bad.items())
    rows = ", ".join(map(str, bad))
    return parquet_folder(tmp_path_factory, "stamps.parquet",
                          f"SELECT CASE {cases} ELSE strftime(TIMESTAMP '2024-03-01 08:00:00' + to_seconds(i), "
                          f"'%m/%d/%Y %H:%M:%S') END AS at, CASE WHEN i IN ({rows}) THEN 5 ELSE 1 + 0.5 * "
                          f"sin(i * 1e-3) END AS loss FROM range({ROWS}) AS t(i)")


def test_date_text_no_renderer_reads_is_found_in_the_engine(us_stamped, fetched, monkeypatch):
    """A temporal channel over date text with a time of its own on each row: the texts that are no dates are
    found by the engine (the loose reading run there once per distinct text), not by reading the texts whole:
    the diagnostic is the one the rows read into Python give, counting every such text."""
    text = ("data: {path: stamps.parquet}\nmark: bar\nencoding:\n  x: {field: at, type: temporal, "
            "timeUnit: yearmonthdatehours}\n  y: {field: loss, aggregate: mean}\n")
    message = refused_as_read(us_stamped, text, monkeypatch, fetched, 0)
    assert message == "'at' is temporal, but 4 values are not dates: 'soon', 'later', 'n/a', ... (1 more)"


@pytest.mark.parametrize("transform, most", [('filter: "datum.step < 0"', 0),
                                             ('calculate: "datum.name.foo.bar"\n    as: pct', ROWS)],
                         ids=["no row left", "an expression that throws"])
def test_a_layer_kept_in_the_engine_is_refused_as_over_the_rows_read(folder, fetched, monkeypatch, transform, most):
    """No row left by the filters (nothing fetched), or an expression JavaScript throws on (run in a Python
    function over the engine's rows, then by the interpreter, which says where): the diagnostic is the one the
    rows read into Python give."""
    text = (f"data: {{path: runs.parquet}}\ntransform:\n  - {transform}\nencoding:\n  x: step\n"
            f"  y: {'pct' if 'pct' in transform else 'loss'}\nlayers:\n  - trend: {{method: linear}}\n")
    refused_as_read(folder, text, monkeypatch, fetched, most)


@pytest.fixture(scope="module")
def gapped(tmp_path_factory):
    """Three runs' losses, run 1 missing every tenth step and one loss, with a complete integer count: a line
    per run is drawn with the gaps imputed."""
    return parquet_folder(tmp_path_factory, "gaps.parquet",
                          f"SELECT i // {RUNS} AS step, 'run ' || (i % {RUNS}) AS name, CASE WHEN i = 40 THEN NULL "
                          f"ELSE 3.0 - 2e-6 * (i // {RUNS}) + 0.1 * (i % {RUNS}) END AS loss, i % 97 AS seen, "
                          f"i % 5 = 0 AS flag "
                          f"FROM range({ROWS}) AS t(i) WHERE NOT (i % {RUNS} = 1 AND (i // {RUNS}) % 10 = 4)")


@pytest.mark.parametrize("before, impute, drawn, most", [
    ("", "value: 0", "width: 300\nmark: line\nencoding:\n  x: step\n  y: loss\n  color: name\n", RUNS * 4 * 300 * 2),
    ("", "method: max", "mark: bar\nencoding:\n  x: {field: loss, bin: {maxbins: 30}}\n  y: {aggregate: count}\n"
     "  color: name\n", 3 * 30),
    ('filter: "datum.step < 30"', "value: -1", "mark: point\nencoding:\n  x: step\n  y: loss\n  color: name\n"
     "  tooltip: [seen]\n", 90),
    ("", "method: mean, frame: [-2, 2]", "encoding:\n  x: step\n  y: loss\n  color: {field: name, type: nominal}\n"
     "layers:\n  - trend: {method: linear, by: name}\n", RUNS),
    ('filter: "datum.step > 99960"', "value: 0", "mark: bar\nencoding:\n  x: {field: step, type: nominal}\n"
     "  y: {field: seen, type: quantitative}\n  color: name\n", 120),
], ids=["lines reduced", "histogram of the group's max", "points drawn", "fit of a framed mean", "steps as categories"])
def test_an_imputed_layer_is_computed_where_the_gaps_are_filled(gapped, fetched, monkeypatch, before, impute, drawn,
                                                                most):
    """An impute (a row per step a run lacks, after every row read) keeps its rows in the engine: each field's
    cells are the rows' own, and the fill (or Vega's measure over the group) for the rows it adds; a kind is
    measured there. Before, every row was read, and a line of 300,000 imputed points was refused (E501)."""
    text = (f"data: {{path: gaps.parquet}}\ntransform:\n{f'  - {before}' + chr(10) if before else ''}"
            f"  - {{impute: loss, key: step, groupby: [name], {impute}}}\n{drawn}")
    chart = kept_as_read(gapped, text, monkeypatch, fetched, most)
    rows = data_rows(chart.vega_lite)
    if "tooltip" in drawn:  # the steps read are integers; those the impute adds are its key's JavaScript numbers
        added = [row for row in rows if row["name"] == "run 1" and row["step"] % 10 == 4]
        assert len(rows) == 90 and len(added) == 3 and all(row["loss"] == -1.0 for row in added)
        assert {type(row["step"]) for row in added} == {float} and added[0]["seen"] is None
        assert {type(row["step"]) for row in rows if row not in added} == {int}
    if "mark: line" in drawn:  # the imputed zeros are drawn: M4 keeps each column's least value
        assert min(row["loss"] for row in rows if row["name"] == "run 1" and row["loss"] is not None) == 0.0


def test_an_aggregate_after_an_impute_reads_its_groups_alone(gapped, fetched, monkeypatch):
    """An aggregate after an impute: its groups' fields keep the kinds of the impute's cells (measured on its rows
    in the engine, tags of the data cells and of the values it set), and only the groups are read (before, the
    interpreter read every row)."""
    text = ("data: {path: gaps.parquet}\ntransform:\n  - {impute: loss, key: step, groupby: [name], value: -1}\n"
            "  - aggregate: [{op: sum, field: loss, as: total}, {op: count, as: rows}, {op: argmax, field: loss, "
            "as: top}]\n    groupby: [name]\nmark: bar\nencoding:\n  x: name\n  y: total\n  tooltip: [rows]\n")
    chart = kept_as_read(gapped, text, monkeypatch, fetched, RUNS)
    layer = chart.flow.layers[0].table
    assert layer.kinds == eager(gapped, text, monkeypatch).flow.layers[0].table.kinds
    assert layer.kinds["name"] == TEXT and len(layer) == RUNS


def test_a_lookup_and_a_histogram_after_an_impute_keep_its_rows_in_the_engine(gapped, fetched, monkeypatch):
    """A lookup after an impute (each run's label), then a histogram: the rows stay in the engine, the kinds are
    the impute's cells', and the chart is the one over the rows read."""
    (gapped / "labels.csv").write_text("name,label\nrun 0,first\nrun 1,second\nrun 2,third\n")
    text = ("data: {path: gaps.parquet}\ntransform:\n  - {impute: loss, key: step, groupby: [name], value: -1}\n"
            "  - lookup: name\n    from: {data: {path: labels.csv}, key: name, fields: [label]}\n"
            "mark: bar\nencoding:\n  x: {field: step, bin: {maxbins: 30}}\n  y: {aggregate: count}\n"
            "  color: label\n")
    chart = kept_as_read(gapped, text, monkeypatch, fetched, RUNS * 30)
    kinds = chart.flow.layers[0].table.kinds
    assert kinds == eager(gapped, text, monkeypatch).flow.layers[0].table.kinds
    assert kinds["flag"] is None and kinds["step"] == NUMBER and kinds["label"] == TEXT


@pytest.mark.parametrize("after, drawn, most", [
    ("fold: [loss, step]", "mark: bar\nencoding:\n  x: {field: value, bin: {maxbins: 30}}\n  y: {aggregate: count}\n"
     "  color: key\n", 2 * 30),
    ("pivot: name\n    value: loss\n    op: min", "mark: point\nencoding:\n  x: {field: run 0, type: quantitative}\n"
     "  y: {field: run 1, type: quantitative}\n", 1),
    ("density: loss\n    groupby: [name]", "mark: line\nencoding:\n  x: {field: value, type: quantitative}\n"
     "  y: {field: density, type: quantitative}\n  color: name\n", RUNS * 200),
    ("{impute: loss, key: name, groupby: [step], keyvals: [run 0, run 1, run 2, run 3], value: 0}",
     "mark: bar\nencoding:\n  x: name\n  y: {field: loss, aggregate: sum}\n", RUNS + 1),
], ids=["fold", "pivot", "density", "another impute"])
def test_a_fold_pivot_density_or_impute_after_an_impute_keeps_its_rows_in_the_engine(gapped, fetched, monkeypatch,
                                                                                     after, drawn, most):
    """A step after an impute that makes rows of its own (a fold's, a pivot's, a density's, another impute's):
    the kinds are those of the impute's cells, measured on its rows in the engine (before, the interpreter read
    every row), and the chart is the one over the rows read."""
    text = (f"data: {{path: gaps.parquet}}\ntransform:\n  - {{impute: loss, key: step, groupby: [name], value: -1}}\n"
            f"  - {after}\n{drawn}")
    chart = kept_as_read(gapped, text, monkeypatch, fetched, most)
    assert chart.flow.layers[0].table.kinds == eager(gapped, text, monkeypatch).flow.layers[0].table.kinds


@pytest.mark.parametrize("after, drawn, most", [
    ('filter: "datum.step < 30"', "mark: point\nencoding:\n  x: step\n  y: loss\n  color: name\n  tooltip: [seen]\n",
     90),
    ('filter: "datum.step % 10 !== 4 && datum.step < 30"', "mark: point\nencoding:\n  x: step\n  y: loss\n"
     "  shape: flag\n  tooltip: [flag]\n", 81),
    ('filter: "datum.loss > 3.05"', "mark: bar\nencoding:\n  x: {field: loss, bin: {maxbins: 30}}\n"
     "  y: {aggregate: count}\n  color: name\n", 2 * 30),
    ('filter: "datum.seen !== null && datum.step < 30"', "mark: point\nencoding:\n  x: step\n  y: loss\n"
     "  color: name\n  tooltip: [seen]\n", 90),
], ids=["points drawn", "the added rows filtered out", "histogram", "a field the added rows leave undefined"])
def test_a_filter_after_an_impute_keeps_its_rows_in_the_engine(gapped, fetched, monkeypatch, after, drawn, most):
    """A filter after an impute: its fields' kinds are those of the impute's rows (a boolean column beside the
    rows it adds, where they are undefined, has none, though the filter leaves none of them), measured there;
    the rows stay in the engine (before, the interpreter read every row), and the chart is the one over the
    rows read."""
    text = (f"data: {{path: gaps.parquet}}\ntransform:\n  - {{impute: loss, key: step, groupby: [name], value: -1}}\n"
            f"  - {after}\n{drawn}")
    chart = kept_as_read(gapped, text, monkeypatch, fetched, most)
    kinds = chart.flow.layers[0].table.kinds
    assert kinds == eager(gapped, text, monkeypatch).flow.layers[0].table.kinds
    assert kinds["flag"] is None and kinds["step"] == kinds["seen"] == NUMBER  # (`flag` alone: BOOLEAN)
    if "flag" in drawn:
        rows = data_rows(chart.vega_lite)
        assert len(rows) == 81 and {row["flag"] for row in rows} == {True, False}


def test_a_bin_of_integers_past_2_53_is_drawn_by_the_renderer(tmp_path):
    """A histogram of integers some of which JavaScript holds as their decimal text: the renderer bins them (as
    numbers, `toNumber`), the data stage does not (before, its extent cast the text, an internal error)."""
    (tmp_path / "ids.yaml").write_text(
        "data:\n  values: [{id: 9007199254740993}, {id: 1}, {id: 5}, {id: 9007199254740992}]\nmark: bar\n"
        "encoding:\n  x: {field: id, bin: {maxbins: 30}}\n  y: {aggregate: count}\n", encoding="utf-8")
    chart = compiled(tmp_path, (tmp_path / "ids.yaml").read_text(encoding="utf-8"))
    marks = scene_nodes(vl_convert.vegalite_to_scenegraph(chart.vega_lite), "rect", role="mark")
    # (JavaScript's 9007199254740993 is 9007199254740992: both in one bin)
    assert sorted(item["description"] for item in marks[0]["items"]) == [
        "id (binned): 0 – 5e+14; Count of Records: 2", "id (binned): 9e+15 – 9.5e+15; Count of Records: 2"]
    assert [row["id"] for row in data_rows(chart.vega_lite)] == ["9007199254740993", 1, 5, 9007199254740992]


def test_ids_past_2_53_folded_beside_text_have_the_categories_python_gives_them(identified, fetched, monkeypatch):
    """Ids past 10^16 folded beside text and beside their doubles (many such ids are doubles too, written
    1.2e+16 by Python): in Python's cells an id and the float equal to it are one category, an id and the
    neighbour it rounds to are two; the categories, their first cells and their count are those over the rows
    read."""
    text = ("data: {path: ids.parquet}\ntransform:\n  - filter: \"datum.step >= 40000 && datum.step < 40004\"\n"
            "  - calculate: \"datum.id * 1\"\n    as: twin\n  - fold: [name, id, twin]\nmark: bar\n"
            "encoding:\n  x: {field: value, type: nominal}\n  y: {aggregate: count}\n")
    ours = kept_as_read(identified, text, monkeypatch, fetched, 36).flow.layers[0].table
    theirs = eager(identified, text, monkeypatch).flow.layers[0].table
    assert ours.stored["value"] == "value"
    unique = ours.unique("value")
    assert unique == theirs.unique("value") and [type(value) for value in unique] == [
        type(value) for value in theirs.unique("value")]
    assert float in map(type, unique) and 3 + 12 < len(unique) < 3 + 24  # (some twins merged with their ids)
    assert ours.distinct(["value"]) == theirs.distinct(["value"])


# A calculate whose values are of several kinds: a text for a diverged run's steps, the loss itself otherwise.
MIXED_LABEL = "  - calculate: \"datum.loss > 3.15 ? 'diverged' : datum.run\"\n    as: label\n"


@pytest.mark.parametrize("drawn, most", [
    ("mark: bar\nencoding:\n  x: {field: label, type: nominal}\n  y: {aggregate: count}\n", 4),
    ("mark: line\nwidth: 200\nencoding:\n  x: step\n  y: loss\n  color: {field: label, type: nominal}\n",
     4 * 4 * 200 * 2),
    ("  - filter: \"datum.step < 40\"\nmark: point\nencoding:\n  x: step\n  y: loss\n  tooltip: [label]\n", 120),
], ids=["counted by it", "lines split by it", "drawn"])
def test_a_value_of_several_kinds_keeps_the_rows_in_the_engine(folder, fetched, monkeypatch, drawn, most):
    """A computed field holding numbers and text (no one kind SQL holds as Python would) stays in the engine as
    JavaScript values, each cell Python's when fetched: before, every row was read. Its categories, counts and
    lines are those over the rows read."""
    text = f"data: {{path: runs.parquet}}\ntransform:\n{MIXED_LABEL}{drawn}"
    chart = kept_as_read(folder, text, monkeypatch, fetched, most)
    layer = chart.flow.layers[0].table
    assert layer.kinds["label"] is None and layer.kinds == eager(folder, text, monkeypatch).flow.layers[0].table.kinds
    if "bar" in drawn:
        assert sorted(map(str, layer.unique("label"))) == ["0.0", "1.0", "2.0", "diverged"]


def test_a_value_of_several_kinds_has_the_categories_python_gives_it(tmp_path_factory, fetched, monkeypatch):
    """Values Python's cells take for one (true and 1, false, 0 and -0) are one category, NaN and null none, as
    over the rows read; each cell is Python's (a number's float, a text, a boolean)."""
    folder = parquet_folder(tmp_path_factory, "kinds.parquet", "SELECT i, i % 7 AS k FROM range(70) AS t(i)")
    value = ("datum.k === 0 ? true : datum.k === 1 ? 1 : datum.k === 2 ? -0 : datum.k === 3 ? 'a' : "
             "datum.k === 4 ? 0 / 0 : datum.k === 5 ? false : null")
    text = (f"data: {{path: kinds.parquet}}\ntransform:\n  - calculate: \"{value}\"\n    as: v\nmark: bar\n"
            "encoding:\n  x: {field: v, type: nominal}\n  y: {aggregate: count}\n")
    ours = kept_as_read(folder, text, monkeypatch, fetched, 7).flow.layers[0].table
    theirs = eager(folder, text, monkeypatch).flow.layers[0].table
    assert ours.stored["v"] == "value" and ours.kinds["v"] is None
    assert ours.unique("v") == theirs.unique("v") == [True, -0.0, "a"]
    from chartc.stages.data import present_values

    assert ours.distinct(["v"]) == theirs.distinct(["v"]) == 4  # (the missing ones one more)
    assert {str(value) for value in present_values(ours, "v")} == {str(value) for value in present_values(theirs, "v")}
    assert ours.take([0, 1, 2, 3, 5, 6])["v"] == [True, 1.0, -0.0, "a", False, None]
    assert math.isnan(ours.take([4])["v"][0])


# Steps whose field holds cells stored differently: text and integers, booleans and floats folded into one
# field, a text fill beside a column's integers, the keys an impute adds (Dates' times: numbers) beside the dates
# read.
# Each: its file, its steps and mark, the field, the kinds of its cells, the rows it fetches at most.
STORED_DIFFERENTLY = {
    "fold of text and integers": ("runs.parquet", "  - fold: [name, run]\nmark: bar\nencoding:\n"
                                  "  x: {field: value, type: nominal}\n  y: {aggregate: count}\n",
                                  "value", {int, str}, 6),
    "fold of booleans and floats": ("flags.parquet", "  - fold: [flag, loss]\n  - filter: \"datum.step < 10\"\n"
                                    "mark: point\nencoding:\n  x: key\n  y: {field: value, type: nominal}\n"
                                    "  tooltip: [value]\n", "value", {bool, float}, 60),
    "text fill beside integers": ("gaps.parquet", "  - {impute: seen, key: step, groupby: [name], value: none}\n"
                                  "mark: bar\nencoding:\n  x: {field: seen, type: nominal}\n"
                                  "  y: {aggregate: count}\n", "seen", {int, str}, 98),
    "keys added beside dates": ("dated.parquet", "  - {impute: loss, key: at, groupby: [name], value: 0}\n"
                                "  - filter: \"datum.loss < 1 || datum.loss > 3.0995 && datum.loss < 3.1\"\nmark: point\n"
                                "encoding:\n  x: at\n  y: loss\n  tooltip: [{field: at, type: nominal}]\n",
                                "at", {datetime.datetime, float}, 1300),
    # A value of several kinds among which a date (to the millisecond), counted: held as tagged values too.
    "date beside text and numbers": ("runs.parquet", "  - calculate: \"datum.run === 0 ? datetime(2024, 0, 1 + datum.step "
                                     "% 3, 0, 0, 0, datum.step % 2) : datum.run === 1 ? 'far' : datum.step % 4\"\n"
                                     "    as: when\nmark: bar\nencoding:\n  x: {field: when, type: nominal}\n"
                                     "  y: {aggregate: count}\n", "when", {datetime.datetime, str, float}, 11),
    "date beside an invalid date and text": ("runs.parquet", "  - calculate: \"datum.run ? datetime(datum.run === 1 ? "
                                             "NaN : 2024, 0, 1 + datum.step % 2) : 'none'\"\n    as: when\n"
                                             "mark: bar\nencoding:\n  x: {field: when, type: nominal}\n"
                                             "  y: {aggregate: count}\n", "when", {datetime.datetime, str}, 4),
    "fold of a date beside text": ("runs.parquet", "  - calculate: \"datum.run ? datetime(2024, datum.run, 1) : 'none'\"\n"
                                   "    as: when\n  - fold: [when, name]\nmark: bar\nencoding:\n"
                                   "  x: {field: value, type: nominal}\n  y: {aggregate: count}\n",
                                   "value", {datetime.datetime, str}, 6),
    "impute beside a date among text": ("runs.parquet", "  - filter: \"datum.run != 1 || datum.step % 10 != 4\"\n"
                                        "  - calculate: \"datum.run ? datetime(2024, datum.run, 1) : 'none'\"\n"
                                        "    as: when\n  - {impute: loss, key: step, groupby: [name], value: 0}\n"
                                        "mark: bar\nencoding:\n  x: {field: when, type: nominal}\n"
                                        "  y: {aggregate: count}\n", "when", {datetime.datetime, str}, 4),
}


@pytest.fixture(scope="module")
def dated(tmp_path_factory):
    """Three runs' losses an hour apart (to the microsecond), run 1 missing every tenth hour: 29,000 rows."""
    return parquet_folder(tmp_path_factory, "dated.parquet",
                          f"SELECT TIMESTAMP '2024-01-01' + to_microseconds((i // {RUNS}) * 3600000000 + 123456) AS at, "
                          f"'run ' || (i % {RUNS}) AS name, 3.0 - 2e-6 * (i // {RUNS}) + 0.1 * (i % {RUNS}) AS loss "
                          f"FROM range(30000) AS t(i) WHERE NOT (i % {RUNS} = 1 AND (i // {RUNS}) % 10 = 4)")


@pytest.mark.parametrize("case", STORED_DIFFERENTLY)
def test_cells_stored_differently_keep_the_rows_in_the_engine(folder, flagged, gapped, dated, fetched, monkeypatch,
                                                              case):
    """A field whose cells are stored differently (a text column folded with an integer column, a text fill
    beside integers, the keys an impute adds beside the dates read) is held where the rows are as tagged
    values, each cell Python's when fetched (an integer an integer, a date a datetime): before, every row was
    read. The chart is the one over the rows read, byte for byte."""
    file, steps, field, kinds, most = STORED_DIFFERENTLY[case]
    where = {"runs.parquet": folder, "flags.parquet": flagged, "gaps.parquet": gapped, "dated.parquet": dated}[file]
    text = f"data: {{path: {file}}}\ntransform:\n{steps}"
    chart = kept_as_read(where, text, monkeypatch, fetched, most)
    layer, theirs = chart.flow.layers[0].table, eager(where, text, monkeypatch).flow.layers[0].table
    assert layer.stored[field] == "value" and layer.kinds[field] is None
    values = layer.unique(field)
    assert values == theirs.unique(field) and {type(value) for value in values} == kinds
    if "bar" in steps:  # (the categories drawn: the missing ones, an Invalid Date's or the rows an impute adds, one)
        assert layer.distinct([field]) == theirs.distinct([field]) == most


@pytest.fixture(scope="module")
def flagged(tmp_path_factory):
    """Logs with a nullable boolean (pandas reads booleans beside a gap as a column of no kind) and a text column
    with no value at all."""
    return parquet_folder(tmp_path_factory, "flags.parquet",
                          f"SELECT i // {RUNS} AS step, 2.0 + 0.2 * sin(i * 1e-4) AS loss, CASE WHEN i % 7 = 0 THEN NULL "
                          f"ELSE i % 5 = 0 END AS flag, CAST(NULL AS VARCHAR) AS note FROM range({ROWS}) AS t(i)")


@pytest.mark.parametrize("drawn, most", [
    LOSS_HISTOGRAM,
    ("transform:\n  - filter: \"datum.step < 40 && !datum.flag\"\nmark: point\nencoding:\n  x: step\n  y: loss\n"
     "  shape: {field: flag, type: nominal}\n  tooltip: [flag, note]\n", 120),
    ("transform:\n  - filter: \"datum.flag !== true\"\nencoding:\n  x: step\n  y: loss\n"
     "layers:\n  - trend: {method: linear}\n", 0),
], ids=["histogram", "points drawn", "fit of the rows without a flag"])
def test_booleans_beside_a_gap_keep_the_rows_in_the_engine(flagged, fetched, monkeypatch, drawn, most):
    """A nullable boolean column (and a text column of nulls) is held where the rows are as booleans and nulls:
    before, it made the table one that could not be read in place, and every chart over the file read every
    column of every row first (300,000 rows for a histogram of another column)."""
    chart = kept_as_read(flagged, "data: {path: flags.parquet}\n" + drawn, monkeypatch, fetched, most)
    if "point" in drawn:
        rows = data_rows(chart.vega_lite)
        unflagged = [i for i in range(40 * RUNS) if i % 7 == 0 or i % 5 != 0]  # null or false: not truthy
        assert len(rows) == len(unflagged) and {row["flag"] for row in rows} == {False, None}
        assert {row["note"] for row in rows} == {None}


# ------------------------------------------------------------------ a layer read into Python whole: bounded

@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """2,000 rows of a sweep's logs: few enough to lower the bound on rows read into Python below and above."""
    return parquet_folder(tmp_path_factory, "small.parquet",
                          f"SELECT i % {RUNS} AS run, 'run ' || (i % {RUNS}) AS name, i // {RUNS} AS step, "
                          f"1.0 + (i % 7) / 4 AS loss FROM range(2000) AS t(i)")


# Steps the engine does not compute as Vega does, whose layer's rows come back to Python whole; where E416
# points (line, column, spec path), the rows it counts, and why.
READ_WHOLE = [
    ("transform:\n  - calculate: \"datum.run ? datetime(2024, datum.run, 1) : 'none'\"\n    as: when\n"
     "  - {impute: loss, key: step, groupby: [when], value: 0}\nmark: bar\nencoding:\n"
     "  x: {field: when, type: nominal}\n  y: {aggregate: count}\n",
     (2, 5, ("transform", 0)), len({i // RUNS for i in range(2000)}) * RUNS,
     ("its values are ones only Python holds: an array or another object beside other kinds, a date past the year "
      "9999, Dates as an impute's keys or groups")),
    ("transform:\n  - filter: datum.loss > 1\n  - calculate: \"datum.run ? [datum.step] : datum.name\"\n    as: list\n"
     "mark: bar\nencoding:\n  x: {field: name}\n  y: {aggregate: count}\n",
     (3, 5, ("transform", 1)), sum(1 + (i % 7) / 4 > 1 for i in range(2000)),
     ("its values are ones only Python holds: an array or another object beside other kinds, a date past the year "
      "9999, Dates as an impute's keys or groups")),
    ("transform:\n  - calculate: \"datetime(2024, 0, 1 + datum.step % 3)\"\n    as: day\n"
     "  - pivot: day\n    value: loss\n    groupby: [name]\nmark: bar\nencoding:\n  x: {field: name}\n"
     "  y: {aggregate: count}\n",
     (4, 5, ("transform", 1)), 2000, "the engine does not compute a pivot on objects (equal only to themselves) as "
                                     "Vega does"),
    ("transform:\n  - aggregate: [{op: mean, field: loss, as: mean}]\n    groupby: [step]\nmark: line\n"
     "encoding:\n  x: {field: step, type: quantitative}\n  y: {field: mean, type: quantitative}\n",
     (2, 5, ("transform", 0)), len({i // RUNS for i in range(2000)}), "the rows after its aggregate are read whole"),
]


@pytest.mark.parametrize("drawn, where, count, why", READ_WHOLE,
                         ids=["dates among text as an impute's groups", "an array beside text", "a pivot on dates",
                              "an aggregate's groups"])
def test_a_layer_read_whole_past_the_bound_is_refused_at_its_step(small, fetched, monkeypatch, drawn, where, count,
                                                                  why):
    """Past `MAX_PULLED_ROWS` (lowered here to fewer rows than the layer's), a layer the engine cannot keep is
    refused at the step that makes it so, having fetched at most one row past the bound: what comes back to
    Python, on a cluster its driver, stays bounded. Before, every row came back, whatever their number (the
    counts of the rows come from Python's own arithmetic over the generated rows)."""
    monkeypatch.setattr(sources, "MAX_PULLED_ROWS", 600)
    with pytest.raises(SpecError) as raised:
        compiled(small, "data: {path: small.parquet}\n" + drawn)
    error, = raised.value.errors
    line, column, path = where
    assert (error.code, error.message, error.hint) == ("E416", errors.rows_pulled_past_limit(count, 600, why),
                                                       errors.rows_pulled_past_limit_hint())
    assert (error.location.line, error.location.column, tuple(error.path)) == (line + 1, column, path)
    # (an aggregate's groups are read up to one past the bound, the query run once; other rows counted first)
    assert max(fetched, default=0) == (601 if "- aggregate" in drawn else 0)


@pytest.mark.parametrize("drawn", [case[0] for case in READ_WHOLE[:2] + READ_WHOLE[3:]],
                         ids=["dates among text as an impute's groups", "an array beside text", "an aggregate's groups"])
def test_a_layer_read_whole_within_the_bound_is_the_chart_over_the_rows_read(small, fetched, monkeypatch, drawn):
    """At the bound (the layer's rows exactly), the layer is read as before: the chart over the rows read into
    Python, byte for byte."""
    monkeypatch.setattr(sources, "MAX_PULLED_ROWS", 2000)
    text = "data: {path: small.parquet}\n" + drawn
    assert json.dumps(compiled(small, text).vega_lite) == json.dumps(eager(small, text, monkeypatch).vega_lite)


@pytest.mark.parametrize("steps", [
    "  - calculate: \"datum.step % 2 ? regexp('a+') : 'x'\"\n    as: v\nmark: bar\nencoding:\n"
    "  x: {field: v, type: nominal}\n  y: {aggregate: count}\n",
    "  - calculate: \"datum.run ? datetime(2024, datum.run, 1) : 'none'\"\n    as: when\n"
    "  - filter: \"datum.run != 1 || datum.step % 10 != 4\"\n"
    "  - {impute: loss, key: step, groupby: [when], value: 0}\nmark: bar\nencoding:\n"
    "  x: {field: when, type: nominal}\n  y: {aggregate: count}\n",
    "  - calculate: \"datum.step > 5 ? datetime(20240, 0, 1) : 'x'\"\n    as: when\nmark: bar\nencoding:\n"
    "  x: {field: when, type: nominal}\n  y: {aggregate: count}\n",
], ids=["an object's text beside text", "dates among text as an impute's groups", "a date past Python's years"])
def test_cells_only_python_makes_are_read_as_before(small, monkeypatch, steps):
    """Cells no SQL column holds as Python does are read into Python, as before, and give its chart or its
    refusal: an object's text (a regular expression's, which was drawn as null when held as tagged text), Dates
    as an impute's groups (a Date equals only itself), a date past the year 9999 (E415 at its expression)."""
    text = "data: {path: small.parquet}\ntransform:\n" + steps
    if "20240" in steps:
        assert refused_as_read(small, text, monkeypatch, [], 0) == errors.date_out_of_range(20240)
        return
    chart = compiled(small, text)
    assert json.dumps(chart.vega_lite) == json.dumps(eager(small, text, monkeypatch).vega_lite)
    if "regexp" in steps:
        assert sorted(str(row["v"]) for row in data_rows(chart.vega_lite)) == ["/a+/", "x"]


def test_a_lookup_into_a_second_source_past_the_bound_is_refused_at_its_from(small, fetched, monkeypatch):
    """A lookup's second source is read into Python whole (Vega's index of it): left in the engine past the
    bound (lowered here), it is refused at the lookup's `from` before a row is read; within it, the chart is the
    one over the rows read."""
    text = ("data: {path: small.parquet}\ntransform:\n  - lookup: step\n"
            "    from: {data: {path: small.parquet}, key: step, fields: [name]}\n    as: [named]\n"
            "mark: bar\nencoding:\n  x: {field: named, type: nominal}\n  y: {aggregate: count}\n")
    monkeypatch.setattr(sources, "MAX_PULLED_ROWS", 1999)
    with pytest.raises(SpecError) as raised:
        compiled(small, text)
    error, = raised.value.errors
    assert (error.code, error.message, error.hint) == (
        "E416", errors.rows_pulled_past_limit(2000, 1999, "to index them as Vega's lookup does", "its second source's"),
        errors.lookup_too_many_rows_hint())
    assert (error.location.line, error.location.column, tuple(error.path)) == (4, 11, ("transform", 0, "from"))
    assert max(fetched, default=0) == 0
    monkeypatch.setattr(sources, "MAX_PULLED_ROWS", 2000)
    assert json.dumps(compiled(small, text).vega_lite) == json.dumps(eager(small, text, monkeypatch).vega_lite)
