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
every run, whatever the engine's threads do: each extreme is the row of the
smallest (or largest) one 128-bit integer per row, an order-preserving
integer of the value's IEEE bits (-0 taken as 0) above the row's place, which
DuckDB compares 1.5–2× faster than the pair (value, place) it stands for. An x
of integers (a step counter: the common case) needs no bits: (x − low) times
the number of rows, plus the row's place, is the same order in 64 bits.

May import: the standard library (a caller passes the connection, from `engine.connect`).
"""

from __future__ import annotations


# Vega writes a line's coordinates rounded to 0.001 px (its SVG path precision, which vl-convert's PNG is
# drawn from): a row 0.0004 px left of a column's edge is drawn in the next column, so it is placed there.
COORDINATE_DIGITS = 3
# Room for a row's place below a value's ordered bits in one HUGEINT (`_ordered`).
PLACES = 2**64


def m4_query(source: str, *, x: str, y: str, order: str, domain: tuple[float, float], width: int,
             series: str | None = None, integers: tuple[int, int, int] | None = None) -> str:
    """The SQL of the rows M4 keeps (DuckDB's dialect): their `order` values, ascending.

    Args:
        source: the relation (a name or a parenthesised query).
        x, y: SQL expressions of the line's x (a number: dates as milliseconds) and y.
        order: the SQL expression of a row's place (an integer from 0 to 2^63 - 1, unique per row): ties
            are broken by it, and the result is in its order.
        domain: the x scale's domain (x0, x1), x0 < x1.
        width: the plot's width in pixels (its pixel columns).
        series: the SQL expression that splits the rows into lines (the color or detail field), or None
            for one line.
        integers: ``(low, high, places)`` when every x is an integer a double holds exactly, between low
            and high, and every `order` is below `places`: x's key is then the 64-bit
            ``(x - low) * places + order``, which orders the rows as the 128-bit key of x's bits does,
            without the bits (where it fits in 63 bits).

    Returns:
        A query with one column, ``r``: the `order` of each row kept.
    """
    low, high = (float(v) for v in domain)
    if not low < high or width < 1:
        raise ValueError(f"M4 needs a domain low < high and a width >= 1, got {domain} and {width}")
    group = series if series is not None else "NULL"
    if integers is not None and (integers[1] - integers[0] + 1) * integers[2] < 2**63:
        x_bits, x_key = "", f"(CAST(x AS BIGINT) - {int(integers[0])}) * {int(integers[2])}"
    else:
        x_bits, x_key = "CASE WHEN drawn THEN CAST(CAST(x + 0.0 AS BIT) AS BIGINT) ELSE 0 END AS x_bits,", \
            _ordered("x_bits")
    return f"""WITH line AS (
    SELECT {group} AS s, {order} AS r, CAST({x} AS DOUBLE) AS x, CAST({y} AS DOUBLE) AS y FROM {source}
), placed AS (
    SELECT s, r, x, y, isfinite(x) AND isfinite(y) AS drawn FROM line
), columns AS (
    SELECT s, r, x, drawn,
           CASE WHEN drawn THEN least(greatest(CAST(floor(round((x - {low!r}) / {high - low!r} * {int(width)},
                                                                {COORDINATE_DIGITS})) AS BIGINT), -1), {int(width)})
           END AS px,
           CASE WHEN drawn THEN NULL ELSE r END AS alone, {x_bits}
           CASE WHEN drawn THEN CAST(CAST(y + 0.0 AS BIT) AS BIGINT) ELSE 0 END AS y_bits
    FROM placed
), keyed AS (
    SELECT s, r, px, alone, CASE WHEN drawn THEN {x_key} ELSE 0 END AS xk, {_ordered("y_bits")} AS yk FROM columns
), kept AS (
    SELECT arg_min(r, yk + r) AS low_y, arg_max(r, yk + ({PLACES - 1} - r)) AS high_y,
           arg_min(r, xk + r) AS first_x, arg_max(r, xk + r) AS last_x
    FROM keyed GROUP BY s, px, alone
)
SELECT DISTINCT unnest([low_y, high_y, first_x, last_x]) AS r FROM kept ORDER BY r"""


def _ordered(bits: str) -> str:
    """A double's bits (as a BIGINT) as an integer in the double's order, times `PLACES`: a row's place added
    to it orders the rows by (value, place). A negative double's bits grow with its magnitude: flipped."""
    return f"CAST(CASE WHEN {bits} < 0 THEN xor({bits}, {2**63 - 1}) ELSE {bits} END AS HUGEINT) * {PLACES}"


def m4_rows(connection, source: str, *, x: str, y: str, order: str, domain: tuple[float, float], width: int,
            series: str | None = None, integers: tuple[int, int, int] | None = None) -> list:
    """Run `m4_query` on a connection (`engine.connect()`): the `order` values of the rows kept, ascending."""
    query = m4_query(source, x=x, y=y, order=order, domain=domain, width=width, series=series, integers=integers)
    return [row[0] for row in connection.execute(query).fetchall()]
