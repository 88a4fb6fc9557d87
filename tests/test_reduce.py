"""M4 line reduction in the engine (stages/data/reduce.py): which rows it keeps, and what they draw.

The rows kept are checked against an independent numpy M4 on 10⁶ rows, the
same on every run with two threads, at most 4 per pixel column and series;
and the line through them is rendered by vl-convert beside the full line at
the export size (2·10⁵ points: the full line's render takes ~20 s) and the
two PNGs compared pixel by pixel. Wired (`encoded.reduce_line`): a compiled
line's rows are numpy's M4 at its PNG's columns of Vega's niced x domain, a
10⁶-point line compiles, and its PNG is the full line's within a pixel.
"""

from __future__ import annotations

import io
import json
import math
import re

import numpy as np
import pytest
import vl_convert

from chartc.stages.data import engine
from chartc.stages.data.reduce import extremes_query, m4_reduce, m4_rows, rows_query

WIDTH, HEIGHT = 400, 200


def walk(n: int, series: int = 2, seed: int = 4):
    """n steps of `series` random walks, interleaved (row i belongs to series i % series), apart in y."""
    rng = np.random.default_rng(seed)
    s = np.arange(n) % series
    y = np.cumsum(rng.normal(size=n)) + 400.0 * s
    return np.arange(n, dtype=float), y, s


def reduce(x, y, s, threads: int | None = None, width: int = WIDTH) -> list[int]:
    connection = engine.connect()
    if threads is not None:
        connection.execute(f"SET threads = {threads}")
    connection.register("line", {"r": np.arange(len(x)), "s": s, "x": x, "y": y})
    return m4_rows(connection, "line", x="x", y="y", order="r", series="s",
                   domain=(float(x.min()), float(x.max())), width=width)


def numpy_m4(x, y, s, width: int) -> list[int]:
    """M4 by hand: per series and pixel column, the first row of min y, of max y, of min x, the last of max x."""
    t = np.round((x - x.min()) / (x.max() - x.min()) * width, 3)
    column = np.clip(np.floor(t), -1, width).astype(int)
    kept = set()
    for key in set(zip(s.tolist(), column.tolist())):
        rows = np.flatnonzero((s == key[0]) & (column == key[1]))
        kept.add(int(rows[np.argmin(y[rows])]))
        kept.add(int(rows[np.argmax(y[rows])]))
        kept.add(int(rows[np.argmin(x[rows])]))
        kept.add(int(rows[::-1][np.argmax(x[rows][::-1])]))
    return sorted(kept)


def test_m4_keeps_the_extremes_of_every_column_and_series():
    x, y, s = walk(20_000, series=3)
    assert reduce(x, y, s, width=50) == numpy_m4(x, y, s, 50)


def test_m4_keeps_rows_the_renderer_breaks_the_line_at():
    x, y, s = walk(1_000, series=1)
    y[[10, 500]] = np.nan
    kept = reduce(x, y, s, width=10)
    assert {10, 500} <= set(kept)
    assert len(kept) <= 4 * 12 + 2


def test_m4_refuses_an_empty_domain():
    with pytest.raises(ValueError):
        rows_query("line", x="x", y="y", order="r", domain=(1.0, 1.0), width=10)


@pytest.mark.slow
def test_m4_of_a_million_rows_is_deterministic_and_at_most_four_rows_a_column():
    x, y, s = walk(1_000_000)
    first = reduce(x, y, s, threads=2)
    assert all(reduce(x, y, s, threads=2) == first for _ in range(2))
    assert reduce(x, y, s, threads=1) == first
    for series in (0, 1):
        assert np.count_nonzero(s[first] == series) <= 4 * WIDTH
    assert first == numpy_m4(x, y, s, WIDTH)


def _line_png(x, y, s, rows, crisp: bool) -> np.ndarray:
    import vl_convert
    from PIL import Image

    values = [{"x": float(x[i]), "y": float(y[i]), "s": int(s[i])} for i in rows]
    spec = {
        "width": WIDTH, "height": HEIGHT, "padding": 0, "autosize": "none", "background": "white",
        "config": {"view": {"stroke": None}, "aria": False},
        "data": {"values": values},
        "mark": {"type": "line", "strokeWidth": 1, "strokeJoin": "round"},
        "encoding": {
            "x": {"field": "x", "type": "quantitative", "axis": None,
                  "scale": {"domain": [float(x.min()), float(x.max())], "nice": False, "zero": False}},
            "y": {"field": "y", "type": "quantitative", "axis": None,
                  "scale": {"domain": [float(y.min()), float(y.max())], "nice": False, "zero": False}},
            "color": {"field": "s", "type": "nominal", "legend": None},
        },
    }
    svg = vl_convert.vegalite_to_svg(spec)
    if crisp:  # no antialiasing: each pixel is drawn or not
        svg = svg.replace("<svg ", '<svg shape-rendering="crispEdges" ', 1)
    return np.asarray(Image.open(io.BytesIO(vl_convert.svg_to_png(svg, scale=1))).convert("RGB")).astype(int)


def _near(mask: np.ndarray) -> np.ndarray:
    """The pixels within one pixel (8-neighbours) of the mask's."""
    padded = np.pad(mask, 1)
    return np.any([padded[1 + dy:1 + dy + mask.shape[0], 1 + dx:1 + dx + mask.shape[1]]
                   for dy in (-1, 0, 1) for dx in (-1, 0, 1)], axis=0)


@pytest.mark.slow
def test_m4_line_draws_the_full_lines_pixels():
    pytest.importorskip("PIL")
    x, y, s = walk(200_000)
    kept = reduce(x, y, s)
    assert len(kept) <= 4 * WIDTH * 2
    for crisp in (True, False):
        full, reduced = _line_png(x, y, s, range(len(x)), crisp), _line_png(x, y, s, kept, crisp)
        drawn_full, drawn_reduced = (full != 255).any(-1), (reduced != 255).any(-1)
        # Every pixel either line draws is at most one pixel from one the other draws ...
        assert not (drawn_full & ~_near(drawn_reduced)).any()
        assert not (drawn_reduced & ~_near(drawn_full)).any()
        if crisp:
            # ... and without antialiasing all but a few isolated pixels are the same: a width-1 stroke is a
            # polygon, and the full line's many short segments graze a pixel centre the 4 rows' joins miss.
            differ = (full != reduced).any(-1)
            assert differ.sum() <= 0.01 * drawn_full.sum()
            assert not (differ & (np.roll(differ, 1, 0) | np.roll(differ, 1, 1))).any()


# ------------------------------------------------------------------ wired: a long line's rows reduced as it compiles

def _line_chart(x, y, s, width: int = WIDTH, **more):
    import pandas as pd

    from chartc.api import from_spec

    frame = pd.DataFrame({"x": x, "y": y, "s": np.where(s == 1, "b", "a")})
    spec = {"mark": "line", "width": width, "height": HEIGHT,
            "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"},
                         "color": {"field": "s", "type": "nominal"}}, **more}
    return frame, from_spec(spec, frame).vega_lite


def _rows(vega_lite) -> list:
    (rows,) = vega_lite["datasets"].values()
    return rows


@pytest.mark.parametrize("extent", [(3.1, 37002.73), (-0.0123, 0.0981), (17.0, 17.5), (-250.0, 1e6 + 3)])
def test_nice_linear_is_the_domain_vega_draws(extent):
    import vl_convert

    from chartc.stages.data.encoded import nice_linear

    low, high = extent
    spec = {"width": WIDTH, "height": HEIGHT, "data": {"values": [{"x": low, "y": 0}, {"x": high, "y": 1}]},
            "mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative", "scale": {"zero": False}},
                                          "y": {"field": "y", "type": "quantitative"}}}
    graph = vl_convert.vegalite_to_scenegraph(spec)
    points = []

    def walk_items(node):
        if isinstance(node, dict):
            if node.get("marktype") == "symbol":
                points.extend(item["x"] for item in node["items"])
            for value in node.values():
                walk_items(value)
        elif isinstance(node, list):
            for value in node:
                walk_items(value)

    walk_items(graph)
    d0, d1 = nice_linear(low, high)
    assert sorted(points) == pytest.approx([(low - d0) / (d1 - d0) * WIDTH, (high - d0) / (d1 - d0) * WIDTH])


def test_a_short_line_keeps_every_row():
    x, y, s = walk(4 * WIDTH * 2)  # 4 rows per raster column (PNG scale 2): not reduced
    _, vega_lite = _line_chart(x + 3.1, y, s)
    assert len(_rows(vega_lite)) == len(x)
    x, y, s = walk(4 * WIDTH * 2 + 1)
    _, vega_lite = _line_chart(x + 3.1, y, s)
    assert len(_rows(vega_lite)) < len(x)


@pytest.mark.parametrize("zoom", [{"interactive": True},
                                  {"params": [{"name": "zoom", "select": "interval", "bind": "scales"}]}])
def test_a_line_a_reader_can_zoom_keeps_every_row(zoom):
    """Zoomed in, the reduced line would show a pixel column's four rows across many pixels: not reduced."""
    x, y, s = walk(4 * WIDTH * 2 * 3)
    _, vega_lite = _line_chart(x + 3.1, y, s)
    assert len(_rows(vega_lite)) < len(x)
    _, vega_lite = _line_chart(x + 3.1, y, s, **zoom)
    assert len(_rows(vega_lite)) == len(x)


@pytest.mark.slow
def test_a_million_point_line_compiles_reduced_to_its_raster_columns():
    from chartc.stages.data.encoded import nice_linear

    x, y, s = walk(1_000_000)
    x = x * 0.3712345 + 3.1  # no position on a half of Vega's 0.001 px rounding (DuckDB and numpy round halves apart)
    frame, vega_lite = _line_chart(x, y, s)  # no E501: the marks counted are the rows kept
    rows = _rows(vega_lite)
    columns = 2 * WIDTH  # the PNG's (scale 2)
    for name in ("a", "b"):
        assert sum(row["s"] == name for row in rows) <= 4 * columns
    # The rows kept are numpy's M4 at the raster's columns of Vega's niced x domain, series by series.
    d0, d1 = nice_linear(float(x.min()), float(x.max()))
    t = np.round((x - d0) / (d1 - d0) * columns, 3)
    column = np.floor(t).astype(int)
    expected = set()
    for series in (0, 1):
        for key in np.unique(column[s == series]):
            index = np.flatnonzero((s == series) & (column == key))
            expected |= {int(index[np.argmin(y[index])]), int(index[np.argmax(y[index])]), int(index[0]),
                         int(index[-1])}
    assert [(row["x"], row["y"]) for row in rows] == [(float(x[i]), float(y[i])) for i in sorted(expected)]


@pytest.mark.slow
def test_a_reduced_line_draws_the_full_lines_pixels():
    import vl_convert
    from PIL import Image

    x, y, s = walk(40_000)
    frame, vega_lite = _line_chart(x * 0.37 + 3.1, y, s)
    assert len(_rows(vega_lite)) < len(x) // 4
    full = {**vega_lite, "datasets": {key: frame.to_dict("records") for key in vega_lite["datasets"]}}
    drawn = []
    for chart in (vega_lite, full):
        # Round joins: Vega's default miter joins draw a spike at each of the full line's sharp turns.
        chart = {**chart, "mark": {"type": "line", "strokeJoin": "round"}}
        png = vl_convert.vegalite_to_png(chart, scale=2)
        drawn.append((np.asarray(Image.open(io.BytesIO(png)).convert("RGB")) != 255).any(-1))
    reduced, whole = drawn
    assert not (whole & ~_near(reduced)).any() and not (reduced & ~_near(whole)).any()
    assert (whole != reduced).sum() <= 0.02 * whole.sum()


@pytest.mark.parametrize("threads", [1, 2])
def test_m4_breaks_ties_by_the_row_order_on_any_values(threads):
    """Few distinct x and y (ties everywhere), -0 beside 0, negative, subnormal and huge values, and rows
    with a missing or non-finite x or y (each kept alone): numpy's M4 of the rest, by the first row of a tie
    (the last for the largest x), plus every row not drawn."""
    rng = np.random.default_rng(7)
    n = 30_000
    values = np.array([-0.0, 0.0, -1.5, 1.5, 5e-324, -5e-324, 1e300, -1e300, 2.0, -2.0])
    x = np.floor(rng.uniform(0, 60, n))
    s = rng.integers(0, 3, n)
    # Series 0's lowest y is a zero of either sign, series 1's highest; series 2 has every value.
    zeros = np.array([-0.0, 0.0, 1.5, 5e-324])
    y = np.where(s == 0, zeros[rng.integers(0, 4, n)], np.where(s == 1, -zeros[rng.integers(0, 4, n)],
                                                                 values[rng.integers(0, len(values), n)]))
    odd = rng.choice(n, 300, replace=False)
    x[odd[:100]] = np.nan
    y[odd[100:200]] = np.inf
    y[odd[200:]] = -np.inf
    connection = engine.connect()
    connection.execute(f"SET threads = {threads}")
    connection.register("line", {"r": np.arange(n), "s": s, "x": x, "y": y})
    kept = m4_rows(connection, "line", x="x", y="y", order="r", series="s", domain=(0.0, 59.0), width=17)
    drawn = np.isfinite(x) & np.isfinite(y)
    index = np.flatnonzero(drawn)
    expected = sorted({int(index[i]) for i in numpy_m4(x[drawn], y[drawn], s[drawn], 17)} | set(odd.tolist()))
    assert kept == expected


@pytest.mark.parametrize("threads", [1, 2])
def test_m4_of_integer_x_keeps_the_same_rows_without_the_bits(threads):
    """An x of integers (ties everywhere, missing cells, negatives) keyed as (x - low) * rows + row keeps the
    rows the key of x's IEEE bits keeps, and numpy's M4 of the drawn rows plus every row not drawn."""
    rng = np.random.default_rng(11)
    n = 30_000
    x = rng.integers(-40, 41, n)
    s = rng.integers(0, 3, n)
    y = np.floor(rng.normal(0, 3, n))
    missing = rng.choice(n, 200, replace=False)
    connection = engine.connect()
    connection.execute(f"SET threads = {threads}")
    connection.register("raw", {"r": np.arange(n), "s": s, "x": x, "y": y})
    # A column of integers with gaps, as a Parquet file's would be.
    connection.execute("CREATE TABLE line AS SELECT r, s, CASE WHEN r IN (SELECT unnest($1::BIGINT[])) THEN NULL "
                       "ELSE x END AS x, y FROM raw", [missing.tolist()])
    options = dict(x="x", y="y", order="r", series="s", domain=(-40.0, 40.0), width=23)
    kept = m4_rows(connection, "line", integers=(-40, 40, n), **options)
    assert "arg_min(r, x)" not in extremes_query(rows_query("line", **options), integers=(-40, 40, n))
    assert kept == m4_rows(connection, "line", **options)
    drawn = np.ones(n, bool)
    drawn[missing] = False
    index = np.flatnonzero(drawn)
    expected = {int(index[i]) for i in numpy_m4(x[drawn].astype(float), y[drawn], s[drawn], 23)}
    assert kept == sorted(expected | set(missing.tolist()))


@pytest.mark.parametrize("present", [False, True])
def test_m4_of_integer_x_finds_each_kept_rows_cells(present):
    """With x keyed, the pass returns each kept row's series, x and y (ties settled by the second pass keep
    their row's own, -0 among them), whether or not it counts missing cells: numpy's M4, and the rows' cells."""
    rng = np.random.default_rng(12)
    n = 30_000
    x = rng.integers(0, 900, n)
    s = rng.integers(0, 3, n)
    y = np.round(rng.normal(0, 1, n), 1) * rng.choice([-1.0, 1.0], n)  # ties, and -0 beside 0
    connection = engine.connect()
    connection.register("line", {"r": np.arange(n), "s": s, "x": x, "y": y})
    kept, named, cells = m4_reduce(connection, "line", x="x", y="y", order="r", series="s", domain=(0.0, 899.0),
                                   width=31, integers=(0, 899, n), present=present)
    assert kept == numpy_m4(x.astype(float), y, s, 31) and sorted(cells) == kept
    assert named == list(dict.fromkeys(s.tolist()))
    for row in kept:
        series, at, value = cells[row]
        assert (series, int(at), math.copysign(1, value), value) == (s[row], x[row], math.copysign(1, y[row]), y[row])


def test_m4_finds_x_by_its_values_where_the_integer_key_would_not_fit():
    rows = rows_query("line", x="x", y="y", order="r", domain=(0.0, 1.0), width=10)
    assert "arg_min(r, x)" in extremes_query(rows, integers=(0, 2**40, 2**23))
    assert "arg_min(r, x)" not in extremes_query(rows, integers=(0, 2**39, 2**23))


def test_pixel_columns_are_the_floors_of_the_positions_rounded_to_a_thousandth():
    """The column of a row far from a column's edge is taken without rounding: the same columns as rounding
    every position to 0.001 px (Vega's precision) for positions on, beside and halfway to each edge."""
    rng = np.random.default_rng(5)
    edges = np.arange(-3.0, 104.0)
    t = np.concatenate([rng.uniform(-3, 104, 100_000), edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf),
                        edges - 0.0005, edges + 0.0005, edges - 0.0004999, edges - 0.0005001, edges + 0.001,
                        edges - 0.001, np.round(rng.uniform(0, 100, 100_000), 3) + 0.0005])
    x = t / 100 * 7 + 2  # positions on a 100-pixel plot of the domain [2, 9]
    connection = engine.connect()
    connection.register("line", {"r": np.arange(len(x)), "x": x, "y": np.zeros(len(x))})
    rows = rows_query("line", x="x", y="y", order="r", domain=(2.0, 9.0), width=100)
    got = connection.execute(f"SELECT px, (x - 2.0) / 7.0 * 100 AS t FROM ({rows}) ORDER BY r").fetchall()
    drawn = np.array([t_ for _, t_ in got]) * 1000
    vega = np.floor(drawn) + (drawn - np.floor(drawn) >= 0.5)   # JavaScript's Math.round: half up
    assert [px for px, _ in got] == np.clip(np.floor(vega / 1000), -1, 100).astype(int).tolist()
    assert sum(px != np.floor(np.clip(t_, -1, 100)) for px, t_ in got) > 100  # the edges' rounding was exercised


def test_pixel_columns_near_an_edge_are_those_vega_draws_the_row_in():
    """Halfway between two thousandths Vega rounds up: 3.9995 px is drawn at 4 (column 4), where DuckDB's
    `round(3.9995, 3)` gives 3.999. Each row's column is read from the path Vega writes."""
    positions = sorted(k + d for k in range(1, 40) for d in (-0.0005, 0.0005, -0.0015, -0.0004999, -0.0005001))
    spec = {"width": 100, "height": 10, "autosize": "none", "padding": 0,
            "data": {"values": [{"x": p, "y": 0} for p in positions]},
            "mark": "line", "encoding": {"x": {"field": "x", "type": "quantitative", "axis": None,
                                               "scale": {"domain": [0, 100], "nice": False, "zero": False}},
                                         "y": {"field": "y", "type": "quantitative", "axis": None}}}
    path = re.findall(r'd="M([^"]*)"', vl_convert.vegalite_to_svg(json.dumps(spec)))[-1]
    drawn = [math.floor(float(point.split(",")[0])) for point in path.split("L")]
    connection = engine.connect()
    connection.register("line", {"r": np.arange(len(positions)), "x": np.array(positions),
                                 "y": np.zeros(len(positions))})
    rows = rows_query("line", x="x", y="y", order="r", domain=(0.0, 100.0), width=100)
    assert [px for (px,) in connection.execute(f"SELECT px FROM ({rows}) ORDER BY r").fetchall()] == drawn
    rounded = [int(v) for (v,) in connection.execute("SELECT floor(round(x, 3)) FROM line ORDER BY r").fetchall()]
    assert sum(a != b for a, b in zip(rounded, drawn)) > 10   # where the engine's own rounding would misplace rows


@pytest.mark.parametrize("axis, cell", [("x", None), ("y", None), ("x", np.nan), ("y", np.nan), ("x", np.inf),
                                        ("y", np.inf), ("x", -np.inf), ("y", -np.inf)])
def test_m4_keeps_a_single_row_not_drawn_whatever_its_cell(axis, cell):
    """One missing, NaN or infinite cell among clean rows (M4's first pass assumes every row drawn, and must
    notice this one): numpy's M4 of the others, plus that row, on a double x and an integer x alike."""
    x, y, s = walk(5_000, series=2)
    odd = 1234
    connection = engine.connect()
    values = {"r": np.arange(len(x)), "s": s, "x": x.copy(), "y": y.copy()}
    if cell is None:
        values[axis] = np.ma.masked_array(values[axis], mask=np.arange(len(x)) == odd)
    else:
        values[axis][odd] = cell
    connection.register("raw", values)
    connection.execute("CREATE TABLE line AS SELECT * FROM raw")
    drawn = np.arange(len(x)) != odd
    index = np.flatnonzero(drawn)
    expected = sorted({int(index[i]) for i in numpy_m4(x[drawn], y[drawn], s[drawn], 37)} | {odd})
    options = dict(x="x", y="y", order="r", series="s", domain=(0.0, float(len(x) - 1)), width=37)
    assert m4_rows(connection, "line", **options) == expected
    if axis == "y" or cell is None:  # x integers (or missing): its integer key
        assert m4_rows(connection, "line", integers=(0, len(x) - 1, len(x)), **options) == expected


@pytest.mark.parametrize("integers", [None, (0, 59, 30_000)])
def test_the_tie_test_spark_runs_finds_the_ties_duckdb_finds(integers):
    """Spark has no min(y, 2): its pass finds a tie from the extreme's first and last rows (`two_rows=False`).
    On the same rows in DuckDB, both forms give every column the same extremes, values and tie flags."""
    rng = np.random.default_rng(5)
    n = 30_000
    x = np.floor(rng.uniform(0, 60, n))
    s = rng.integers(0, 3, n)
    y = np.array([-0.0, 0.0, 1.5, -1.5, np.nan, 7.0])[rng.integers(0, 6, n)]
    y[rng.choice(n, 40, replace=False)] = rng.normal(0, 1, 40)  # columns whose extreme is held once
    connection = engine.connect()
    connection.register("line", {"r": np.arange(n), "s": s, "x": x, "y": y})
    rows = rows_query("line", x="x", y="y", order="r", series="s", domain=(0.0, 59.0), width=17)
    found = []
    for two in (True, False):
        cursor = connection.execute(extremes_query(rows, integers, two_rows=two))
        names = [column[0] for column in cursor.description]
        found.append(sorted((dict(zip(names, row)) for row in cursor.fetchall()), key=repr))
    assert found[0] == found[1]
    tied = [column for column in found[0] if column["low_y_tied"]]
    assert 0 < len(tied) < len(found[0])  # both kinds of column are there
