"""Vega's ``window`` and ``joinaggregate`` over one partition's JavaScript values, as vega-transforms computes them.

What the engine runs per partition (`sql`, one Python call per partition
over its rows in order) and the interpreter per partition too, so both give
Vega's values, bit for bit:

- the partition is sorted by the window's ``sort`` with vega-util's
  ``compare`` (null and undefined first, NaN next, dates as numbers; a
  descending key reversed), stably: rows of equal keys keep their order
  (Vega breaks ties by tuple id, the order the rows arrived in); no sort
  keeps the rows' order, and every row is its own peer;
- each row's frame is ``[i - |before|, i + |after|]`` clipped to the
  partition (Vega takes the offsets' absolute values; the schema wants
  ``before <= 0 <= after``), widened to the peers of its two ends unless
  ``ignorePeers`` (Vega's ``adjustRange``, d3's bisector);
- the aggregate ops follow the frame as Vega's window cell does, adding the
  rows that enter and removing those that leave (a sliding sum is Vega's
  ``sum += v; sum -= v``, not a fresh sum), the value-based ones (quantiles,
  distinct, extremes) read from the frame's values;
- the ranking and value ops are Vega's ``WindowOps``.

`joinaggregate` is the aggregate of each group (`vega.measure`) given to
every row of the group.
"""

from __future__ import annotations

import functools
import math

from ...ir import expressions as ex
from .vega import group_key, is_nan, js_less, measure



def _missing(value) -> bool:
    """Vega's measures count a value as missing when it is null, undefined or ''."""
    return value is None or value is ex.UNDEFINED or (type(value) is str and value == "")


# Ops read from the frame's values (Vega's `cell.data`), not streamed through add/remove.
FRAME_VALUE_OPS = frozenset({"count", "distinct", "median", "q1", "q3", "min", "max"})
STREAMED_OPS = frozenset({"valid", "missing", "sum", "product", "mean", "average", "variance", "variancep",
                          "stdev", "stdevp", "stderr"})


def ascending(u, v) -> int:
    """vega-util's ``ascending``: null and undefined first, then NaN, dates by their time."""
    u_null, v_null = u is None or u is ex.UNDEFINED, v is None or v is ex.UNDEFINED
    if (u_null or js_less(u, v)) and not v_null:
        return -1
    if (v_null or js_less(v, u)) and not u_null:
        return 1
    u = u.time if type(u) is ex.JSDate else u
    v = v.time if type(v) is ex.JSDate else v
    if is_nan(u) and not is_nan(v):
        return -1
    if is_nan(v) and not is_nan(u):
        return 1
    return 0


def comparator(keys: list[list], orders: list[str]):
    """vega-util's ``compare`` of rows (indexes into `keys`' columns): the first key that differs decides.

    Returns None for no keys (Vega then compares every row as before the next).
    """
    if not keys:
        return None
    signs = [-1 if order == "descending" else 1 for order in orders]

    def compare(a: int, b: int) -> int:
        for column, sign in zip(keys, signs):
            result = ascending(column[a], column[b])
            if result:
                return result * sign
        return 0

    return compare


def _bisect(data: list, x: int, compare, right: bool) -> int:
    """d3-array's ``bisector(compare).left`` / ``.right`` over the whole list."""
    lo, hi = 0, len(data)
    if lo < hi:
        if compare(x, x) != 0:
            return hi
        while lo < hi:
            mid = (lo + hi) >> 1
            result = compare(data[mid], x)
            if result < 0 or (right and result == 0):
                lo = mid + 1
            else:
                hi = mid
    return lo


class _Cell:
    """Vega's window cell for one field: the streamed measures, added and removed as the frame moves."""

    def __init__(self):
        self.valid = self.missing = 0
        self.sum, self.product, self.mean, self.dev = 0.0, 1.0, 0.0, 0.0

    def add(self, value) -> None:
        if _missing(value):
            self.missing += 1
            return
        if is_nan(value):
            return
        self.valid += 1
        number = ex.to_number(value)
        self.sum += number
        self.product *= number
        d = number - self.mean
        self.mean += d / self.valid
        self.dev += d * (number - self.mean)

    def remove(self, value) -> None:
        if _missing(value):
            self.missing -= 1
            return
        if is_nan(value):
            return
        self.valid -= 1
        number = ex.to_number(value)
        self.sum -= number
        self.product = _divide(self.product, number)
        d = number - self.mean
        self.mean -= d / self.valid if self.valid else self.mean
        self.dev -= d * (number - self.mean)

    def value(self, op: str):
        valid = self.valid
        if op == "valid":
            return float(valid)
        if op == "missing":
            return float(self.missing)
        if op == "sum":
            return self.sum
        if op == "product":
            return self.product if valid else ex.UNDEFINED
        if op in ("mean", "average"):
            return self.mean if valid else ex.UNDEFINED
        if valid <= 1:
            return ex.UNDEFINED
        divisor = {"variance": valid - 1, "stdev": valid - 1, "variancep": valid, "stdevp": valid,
                   "stderr": valid * (valid - 1)}[op]
        quotient = self.dev / divisor
        if op.startswith("std"):
            return math.sqrt(quotient) if quotient >= 0 else math.nan
        return quotient


def _divide(a: float, b: float) -> float:
    """JavaScript's ``a / b`` (0 / 0 is NaN, x / 0 is ±Infinity)."""
    if b:
        return a / b
    if a != a or a == 0:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def window_partition(rows: list[int], ops: list[tuple], keys: list[list], orders: list[str],
                     frame: tuple, ignore_peers: bool) -> dict[int, list]:
    """Vega's window over one partition.

    Args:
        rows: the partition's rows (indexes), in the order they arrived.
        ops: per op, (op, the field's values per row or None, param).
        keys: per sort key, its values per row.
        orders: per sort key, "ascending" or "descending".
        frame: (before, after), None for unbounded.
        ignore_peers: whether the frame's ends stop at the row.

    Returns:
        row -> each op's JavaScript value for it (the schema and the check stage
        refused the ops Vega throws on: a ``ntile`` or ``nth_value`` without a
        positive ``param``, an aggregate op without a field).
    """
    compare = comparator(keys, orders)
    data = sorted(rows, key=functools.cmp_to_key(compare)) if compare else list(rows)
    n = len(data)
    peers = compare is not None and not ignore_peers
    same = compare or (lambda a, b: -1)
    before, after = frame
    streamed = {op for op, _, _ in ops if op in STREAMED_OPS}
    fields = {id(values): values for op, values, _ in ops if op in streamed and values is not None}
    cells = {key: _Cell() for key in fields}
    out: dict[int, list] = {}
    rank = dense = 1
    cume = 0
    i0 = i1 = 0
    for i, row in enumerate(data):
        p0, p1 = i0, i1
        i0 = 0 if before is None else max(0, i - abs(before))
        i1 = n if after is None else min(n, i + abs(after) + 1)
        if peers:
            r0, r1 = i0, i1 - 1
            if r0 > 0 and not compare(data[r0], data[r0 - 1]):
                i0 = _bisect(data, data[r0], compare, False)
            if r1 < n - 1 and not compare(data[r1], data[r1 + 1]):
                i1 = _bisect(data, data[r1], compare, True)
        for key, values in fields.items():
            for j in range(p0, i0):
                cells[key].remove(values[data[j]])
            for j in range(p1, i1):
                cells[key].add(values[data[j]])
        if i and same(data[i - 1], data[i]):
            rank = i + 1
            dense += 1
        if cume < i:  # Vega's cume_dist: the last peer of the row, looked for past the first row only
            cume = _last_peer(data, i, same)
        out[row] = [_window_value(op, values, param, data, i, (i0, i1), (rank, dense, cume), cells)
                    for op, values, param in ops]
    return out


def _last_peer(data: list, i: int, same) -> int:
    while i + 1 < len(data) and not same(data[i], data[i + 1]):
        i += 1
    return i


def _window_value(op, values, param, data, i, frame, ranks, cells):
    """One op's value at row `i` of the sorted partition: its frame [i0, i1), its (rank, dense rank, last peer)."""
    n, (i0, i1), (rank, dense, cume) = len(data), frame, ranks
    if op == "row_number":
        return float(i + 1)
    if op == "rank":
        return float(rank)
    if op == "dense_rank":
        return float(dense)
    if op == "percent_rank":
        return _divide(float(rank - 1), float(n - 1))
    if op == "cume_dist":
        return (1 + cume) / n
    if op == "ntile":
        return float(math.ceil(float(param) * ((1 + cume) / n)))
    if op in ("lag", "lead"):
        offset = int(param) if param else 1  # Vega's `+offset || 1`; the schema wants a whole number
        j = i - offset if op == "lag" else i + offset
        if 0 <= j < n:
            return _value(values, data[j])
        return None
    if op == "first_value":
        return _value(values, data[i0])
    if op == "last_value":
        return _value(values, data[i1 - 1])
    if op == "nth_value":
        j = i0 + int(param) - 1
        return _value(values, data[j]) if j < i1 else None
    if op in STREAMED_OPS and values is not None:
        return cells[id(values)].value(op)
    frame = data[i0:i1]
    return measure(op, [_value(values, row) for row in frame], list(range(len(frame))), None)


def _value(values, row):
    return ex.UNDEFINED if values is None else values[row]


def partitions(keys: list[list], count: int) -> dict[str, list[int]]:
    """Rows by Vega's group key of their `keys` values, each group's rows in order (Vega's `groupkey`)."""
    groups: dict[str, list[int]] = {}
    for row in range(count):
        groups.setdefault(group_key([values[row] for values in keys]), []).append(row)
    return groups
