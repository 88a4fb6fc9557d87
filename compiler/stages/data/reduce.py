"""Lines reduced to what their pixels can show: M4, as SQL in the engine.

A line with more points than its plot has pixel columns draws, in each column,
a vertical run from its lowest to its highest point, entered from the left at
its first point and left at its last. M4 (Jugel et al., VLDB 2014) keeps just
those rows: per series and per pixel column of the x scale at the export width,
the rows holding the smallest y, the largest y, the first x and the last x. The
line through them covers the same pixels as the full line (tests/test_reduce.py
renders both and compares them pixel by pixel), with at most 4 rows per column
and series, whatever the number of rows.

The pixel column of x is Vega's: ``floor((x − x0) / (x1 − x0) · width)`` for the
x scale's domain [x0, x1], the position rounded as Vega writes it; rows left or right of the domain fall in columns −1
and ``width`` (so the segments that leave the plot keep their ends). Rows with a
missing or non-finite x or y are all kept (each a group of its own, so the rows
are read once): the renderer breaks the line there.
Ties are broken by the row order column, so the rows kept are the same on
every run, whatever the engine's threads do: the lowest (highest, first,
last) row of a tie, the last of the largest x. One pass over the rows finds each
column's extremes with `arg_min` and `arg_max`, whose choice among equal values
depends on the threads, and the two lowest (highest) values beside them: where
the two differ the extreme is alone and the row found is the only one. The
columns where they are equal (rare in measured data, common in rounded data)
are settled by a second pass over the rows holding those values alone, the
lowest row of each. An x of integers (a step counter: the common case) needs no
second pass: (x − low) times the number of rows, plus the row's place, is a
64-bit key with no two rows alike.

May import: the standard library (a caller passes the connection, from `engine.connect`).
"""

from __future__ import annotations

from .sources import is_spark


# Vega writes a line's coordinates rounded to 0.001 px (its SVG path precision, which vl-convert's PNG is
# drawn from): a row 0.0004 px left of a column's edge is drawn in the next column, so it is placed there.
COORDINATE_DIGITS = 3
# The extremes a pixel column keeps, each the lowest or highest of one value: (name, value, highest). A tie goes to
# the first row, except for the largest x, whose last row the line leaves the column from.
EXTREMES = (("low_y", "y", False), ("high_y", "y", True), ("first_x", "x", False), ("last_x", "x", True))


def m4_rows(connection, source: str, **line) -> list[int]:
    """The `order` values of the rows M4 keeps, ascending (`m4_reduce`'s first result)."""
    return m4_reduce(connection, source, **line)[0]


def m4_reduce(connection, source: str, *, x: str, y: str, order: str, domain: tuple[float, float], width: int,
              series: str | None = None, integers: tuple[int, int, int] | None = None, present: bool = False
              ) -> tuple[list[int], list, dict[int, tuple] | None]:
    """The `order` values of the rows M4 keeps, ascending; the values of `series` other than null in the order
    of their first rows; and, where the pass found them, each kept row's cells. The series' values come with
    the pass that finds the extremes: a legend's categories need no scan of their own. So do the cells where
    x is keyed (`integers`): the key of the row holding a y extreme is its x and its place, and the y of the
    row holding an x extreme is found beside it, so the kept rows need no second read.

    Args:
        connection: the engine's connection, where `source` is.
        source: the relation (a name or a parenthesised query).
        x, y: SQL expressions of the line's x (a number: dates as milliseconds) and y.
        order: the SQL expression of a row's place (an integer from 0 to 2^63 - 1, unique per row): ties
            are broken by it.
        domain: the x scale's domain (x0, x1), x0 < x1.
        width: the plot's width in pixels (its pixel columns).
        series: the SQL expression that splits the rows into lines (the color or detail field), or None
            for one line.
        integers: ``(low, high, places)`` when every x is an integer a double holds exactly, between low
            and high, and every `order` is below `places`: x's extremes are then those of the 64-bit
            ``(x - low) * places + order``, one row each (where it fits in 63 bits).
        present: every x and y is known to be present (not null: the engine's counts): they are not counted.

    Returns:
        The rows, the series' values, and ``{row: (series, x, y)}`` (x an integer, y a double, as the
        expressions give them) or None: the cells of a row not drawn (a missing or non-finite x or y) are
        not found, nor any where x is not keyed.
    """
    line = dict(x=x, y=y, order=order, domain=domain, width=width, series=series)
    columns = f"chartc_m4_{id(connection):x}"
    # First as if every row were drawn (a quarter cheaper: no test per row); where one is not (a missing x or y,
    # NaN, an infinity: the columns' counts and extremes show it), again with each such row a column of its own.
    two_rows = not is_spark(connection)
    every = extremes_query(rows_query(source, **line, alone=False), integers, counted=not present, two_rows=two_rows)
    connection.execute(f"CREATE OR REPLACE TEMP TABLE {columns} AS {every}")
    rows = rows_query(source, **line)
    try:
        undrawn = " OR ".join(["missing > 0", "px IS NULL"] + [
            f"NOT isfinite({name}_value)" for name, value, _ in EXTREMES if value == "y" or not _keyed(integers)])
        carried = _keyed(integers)
        if connection.execute(f"SELECT count(*) FROM {columns} WHERE {undrawn}").fetchall()[0][0]:
            connection.execute(f"CREATE OR REPLACE TEMP TABLE {columns} AS "
                               f"{extremes_query(rows, integers, two_rows=two_rows)}")
            carried = False
        # Each extreme's row (one select per extreme: a union, where one query with several unnests would
        # be DuckDB's alone), with its cells where the pass carried them: one (s, row, x, y) per kept row.
        found = " UNION ALL ".join(
            f"SELECT s, CASE WHEN {name}_tied THEN NULL ELSE {name} END AS r"
            + (f", {name}_x AS x, {name}_y AS y" if carried else "") + f" FROM {columns}" for name, _, _ in EXTREMES)
        if carried:
            # Grouped by row, not DISTINCT over the cells: Spark's DISTINCT makes a -0 y into 0.
            cells = {r: (s, x, y) for s, r, x, y in connection.execute(
                f"SELECT s, r, arg_min(x, r), arg_min(y, r) FROM ({found}) GROUP BY s, r").fetchall()}
        else:
            cells = {r: None for (r,) in connection.execute(f"SELECT DISTINCT r FROM ({found})").fetchall()}
        cells.pop(None, None)
        for value in ("y", "x"):
            cells.update(_first_of_ties(connection, columns, rows, value))
        named = [value for (value,) in connection.execute(
            f"SELECT s FROM {columns} WHERE s IS NOT NULL GROUP BY s ORDER BY min(first)").fetchall()] \
            if series is not None else []
        return sorted(cells), named, cells if carried else None
    finally:
        connection.execute(f"DROP TABLE IF EXISTS {columns}")


def rows_query(source: str, *, x: str, y: str, order: str, domain: tuple[float, float], width: int,
               series: str | None = None, alone: bool = True) -> str:
    """Each row's series `s`, place `r`, x and y as doubles, and pixel column `px`: Vega's for a row drawn, and
    for a row not drawn (a missing or non-finite x or y) ``-2 - r``, a column of its own, unless `alone` is false
    (then such a row has a column of its x: -1 or `width` if x is not finite, null if it is missing). Other
    arguments as `m4_rows`'s."""
    low, high = (float(v) for v in domain)
    if not low < high or width < 1:
        raise ValueError(f"M4 needs a domain low < high and a width >= 1, got {domain} and {width}")
    group = series if series is not None else "NULL"
    # A position t at least 0.001 from a whole number rounds (to 0.001) to a number of the same whole part, so
    # floor(t) is its column; only the few nearer a column's edge are rounded as Vega rounds them:
    # JavaScript's Math.round(t * 1000) / 1000, half up. Written with floor, exact in IEEE arithmetic, not
    # with an engine's `round`: DuckDB's rounds 1.0005 to 1.0 where Vega draws 1.001, and Spark's differs again.
    scaled = f"t * {10 ** COORDINATE_DIGITS}"
    rounded = f"floor({scaled}) + CASE WHEN {scaled} - floor({scaled}) >= 0.5 THEN 1 ELSE 0 END"
    column = (f"CASE WHEN t - floor(t) BETWEEN 0.001 AND 0.999 THEN floor(t) "
              f"WHEN isnan(t) THEN {int(width)} ELSE floor(({rounded}) / {10 ** COORDINATE_DIGITS}) END")
    # Clamped before the cast: a NaN is above every number, so it comes out as `width`, not as an error.
    px = f"CAST(least(greatest({column}, -1), {int(width)}) AS BIGINT)"
    if alone:
        px = f"CASE WHEN isfinite(x) AND isfinite(y) THEN {px} ELSE -2 - r END"
    return f"""SELECT s, r, x, y, {px} AS px
    FROM (SELECT s, r, x, y, (x - {low!r}) / {high - low!r} * {int(width)} AS t
          FROM (SELECT {group} AS s, {order} AS r, CAST({x} AS DOUBLE) AS x, CAST({y} AS DOUBLE) AS y FROM {source}))"""


def extremes_query(rows: str, integers: tuple[int, int, int] | None = None, counted: bool = True,
                   two_rows: bool = True) -> str:
    """The SQL (DuckDB's dialect) of each pixel column of `rows` (`rows_query`): `s`, `px`, its `first` row, its
    `missing` cells of x and y, and for each of `EXTREMES` the row found (``low_y``...), its value
    (``low_y_value``) and whether another row of the column may hold that value (``low_y_tied``). Where x is
    keyed (`m4_reduce`'s `integers`), also the row's x and y (``low_y_x``, ``low_y_y``). A row not drawn is its
    own column and every extreme of it. Not `counted`, `missing` is 0 (x and y are known to be present).
    Not `two_rows`, a tie is found from the extreme's first and last rows (two struct extremes) instead of
    DuckDB's list of the two lowest values, which Spark has no aggregate for: the same flag either way."""
    found, selected = [], []
    if _keyed(integers):  # one row per key, which holds the row's x and place: no tie in x, and the cells
        low, places = int(integers[0]), int(integers[2])
        rows = f"SELECT *, (CAST(x AS BIGINT) - {low}) * {places} + r AS k FROM ({rows})"
    for name, value, highest in EXTREMES:
        pick, top = ("arg_max", "max") if highest else ("arg_min", "min")
        alone = f"CASE WHEN px < -1 THEN -2 - px ELSE {{}} END AS {name}"
        if two_rows:  # the two lowest (highest) values: tied when they are equal
            extreme = f"{top}({value}, 2) AS {name}_two"
            tie = (f"{name}_two[1] AS {name}_value, "
                   f"px >= -1 AND coalesce({name}_two[1] = {name}_two[2], false) AS {name}_tied")
            held = f"{name}_two[1]"
        else:  # the value with its first and last row: tied when two rows hold it
            extreme = f"{top}({{'v': {value}, 'r': r}}) AS {name}_a, {top}({{'v': {value}, 'r': -r}}) AS {name}_b"
            tie = f"{name}_a.v AS {name}_value, px >= -1 AND {name}_a.r <> -{name}_b.r AS {name}_tied"
            held = f"{name}_a.v"
        if not _keyed(integers):
            found.append(f"{pick}(r, {value}) AS {name}, {extreme}")
            selected.append(f"{alone.format(name)}, {tie}")
            continue
        keyed = f"{alone.format(f'{name}_k % {places}')}, {name}_k // {places} + {low} AS {name}_x"
        if value == "y":  # the row holding the lowest (highest) y: its key, and the y
            found.append(f"{pick}(k, y) AS {name}_k, {extreme}")
            selected.append(f"{keyed}, {held} AS {name}_y, {tie}")
        else:  # the row of the lowest (highest) key: the first (last) x, and its y beside it
            found.append(f"{top}(k) AS {name}_k, {pick}(y, k) AS {name}_y")
            selected.append(f"{keyed}, {name}_y, NULL AS {name}_value, false AS {name}_tied")
    missing = "2 * count(*) - count(x) - count(y)" if counted else "0"
    return f"""SELECT s, px, first, missing, {', '.join(selected)} FROM (
    SELECT s, px, min(r) AS first, {missing} AS missing, {', '.join(found)}
    FROM ({rows}) GROUP BY s, px)"""


def _keyed(integers: tuple[int, int, int] | None) -> bool:
    """Whether x's integer key (`m4_rows`'s `integers`) fits in 63 bits."""
    return integers is not None and (integers[1] - integers[0] + 1) * integers[2] < 2**63


def _first_of_ties(connection, columns: str, rows: str, value: str) -> dict[int, tuple]:
    """The row each tied extreme of `value` ("x" or "y") in the table `columns` keeps, with its series, x and y:
    the first holding the extreme's value in its column (the last, for the largest x). One pass over the rows,
    none if no tie."""
    tied = " UNION ALL ".join(f"SELECT s, px, {highest and value == 'x'} AS last, {name}_value + 0.0 AS v "
                              f"FROM {columns} WHERE {name}_tied" for name, axis, highest in EXTREMES if axis == value)
    if not connection.execute(f"SELECT count(*) FROM ({tied})").fetchall()[0][0]:
        return {}
    # -0 and 0 are one value to `=` and to the join's hash alike: `+ 0.0` makes them one value whatever
    # the engine (the row's own cells are kept: its y may be -0).
    settled = connection.execute(f"""SELECT CASE WHEN t.last THEN max(c.r) ELSE min(c.r) END, t.s,
        CASE WHEN t.last THEN arg_max(c.x, c.r) ELSE arg_min(c.x, c.r) END,
        CASE WHEN t.last THEN arg_max(c.y, c.r) ELSE arg_min(c.y, c.r) END
    FROM ({rows}) AS c JOIN ({tied}) AS t ON c.{value} + 0.0 = t.v AND c.px = t.px AND c.s IS NOT DISTINCT FROM t.s
    GROUP BY t.s, t.px, t.last, t.v""")
    return {r: (s, x, y) for r, s, x, y in settled.fetchall()}
