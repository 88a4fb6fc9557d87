"""Least squares from sufficient statistics: the SQL that sums them in the engine, and the algebra after it.

A polynomial fit of degree k of t on w (``linear``, ``poly``, ``quad``; ``log``,
``exp`` and ``pow`` on ln x and/or ln y) needs only a few numbers per group,
whatever the number of rows: n, the centre and spread of w and of t, and the
sums of powers and cross-products of the centred values

    z = (w − w̄) / s_w,   τ = (t − t̄) / s_t       (|z| ≤ 1, |τ| ≤ 1)
    Σ z^j (j = 0 .. 2k),   Σ z^j·τ (j = 0 .. k),   Σ τ²

From these, `solve` gets the coefficients, R², the residual variance and the
Cholesky factor of XᵀX, so the confidence and prediction bands at any x are
exact (`numerics.Ols`). Centring on the means (from the first level of the
query) keeps the sums well conditioned: x around 1e9 with a spread of 1 fits as
well as x on [0, 1], where the raw sums Σx, Σx² cancel to noise.

`sums_query` is that computation as one DuckDB-dialect SQL statement over any
relation (a registered table, the data engine's view of a file), one result
row per group. Its sums are fixed point (`exactsum`): a plain `sum` of doubles
over several threads or tasks adds in the order they finish and its last bits
change from run to run and from engine to engine; whole-number limbs add alike
in any order, so DuckDB and Spark find the same bits (tests/test_moments.py
runs one on 1 and 2 threads; tests/test_spark.py compares the engines). Each
term's bound comes from `extent_query`; the centres are the means of
fixed-point sums. `sums_from_arrays` is the same computation on numpy arrays,
with `math.fsum`, for `fitting.fit_trend` on values in memory.

A straight line without weights (degree 1: ``linear``, ``log``, ``exp``,
``pow``) is first summed in one pass (`shifted_query`): about a shift (w₀, t₀),
the middle of the data's extent (`extent_query`, a scan of four aggregates),
rather than the means, which would take a pass of their own, and a join of
every row to its group's means. Any centre gives the same fit; the shift only
has to be near enough to each group's mean for its spread, which the sums
themselves tell: Σd² − (Σd)²/n (d = w − w₀) is the centred Σ(w − w̄)²,
computed with a rounding of ε·Σd², so a group is kept when Σd² is within
`CONDITION` times the centred sum (and the same for t), and otherwise every
group is summed centred (`sums_query`). On data such as training runs (x a
step) Σd² is ~1–2 times the centred sum. Its five sums are fixed point
(`exactsum`), each term bounded by the extent: the same bits on every engine,
in any order of rows or tasks, and the correctly rounded sum of the terms
where no term is below 2⁻⁴⁴ of its bound.

Weighted least squares (a trend's ``weight`` field) is the same computation
with every sum but the centres' weighted: Σ ω·z^j, Σ ω·z^j·τ, Σ ω·τ² (ω the
row's weight; `powers[0]` is then Σ ω). The centres stay the plain means: any
centre gives the same fit, the mean only keeps the sums well conditioned. A
row whose weight is missing or not finite is left out, as one whose x or y
is; the count of weights ≤ 0 comes back with the sums, and the fit refuses
them.

Values a logarithm cannot take are NULL in the query, never an error: the
counts of values ≤ 0 come back with the sums, and the fit refuses them
(`numerics.refuse_nonpositive`) before using a sum.

May import: `chartc.errors`, numpy and the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from . import exactsum
from .numerics import Ols, back_substitute, count_distinct, forward_substitute

# Distinct values of w are counted exactly up to this many by peeling the two smallest and the two largest
# (cheap: two more aggregates); a higher polynomial degree counts them all (count(DISTINCT), a hash of every
# value), as it needs degree + 1 of them.
PEELED_DISTINCT = 4

# The most a straight line's one-pass sums may lose to their shift (`sums_from_shifted`): Σd² at most this
# many times the centred Σ(w − w̄)², so its rounding at most ~2¹⁰ ε (~2e-13) of it.
CONDITION = 2.0 ** 10

# Result columns of `shifted_query`, after the group key.
SHIFTED_COLUMNS = ("n", "x_low", "x_high", "x_bad", "y_bad", "u_bad", "v_bad", "w_low", "w_high", "t_low", "t_high")
# The terms a straight line's one-pass query sums, as SQL over its shifted rows (d = w − w₀, e = t − t₀).
SHIFTED_TERMS = {"d": "d", "dd": "d * d", "e": "e", "de": "d * e", "ee": "e * e"}

# Result columns of `sums_query`, after the group key.
BOUND_COLUMNS = ("n", "x_low", "x_high", "x_bad", "y_bad", "u_bad", "v_bad", "w_centre", "w_scale", "t_centre",
                 "t_scale", "distinct", "w_low", "w_high", "w_second", "w_penultimate")


@dataclass(frozen=True, slots=True)
class Sums:
    """The sufficient statistics of one group's fit (see the module docstring).

    Attributes:
        n: rows with a finite x and y.
        x_range: the smallest and largest x as read (data space), None when n is 0.
        nonpositive: how many values are ≤ 0: ``x``/``y`` as read (for a log axis),
            ``u``/``v`` in fitting space (for a method's logarithm); the one-pass sums count only
            those the fit refuses.
        distinct: how many distinct w values, exact below `PEELED_DISTINCT`
            (or when the query counted them all), else at least that many; a straight line's
            one-pass sums count 1, or 2 for at least 2.
        w_centre, w_scale: z = (w − w_centre) / w_scale (the centre is the mean, or the one-pass shift).
        t_centre, t_scale: τ = (t − t_centre) / t_scale.
        powers: Σ z^j for j = 0 .. 2k (powers[0] = n; weighted: Σ ω·z^j, powers[0] = Σ ω).
        cross: Σ z^j·τ for j = 0 .. k (weighted: Σ ω·z^j·τ).
        squares: Σ τ² (weighted: Σ ω·τ²).
        log_weights: Σ ln ω of a weighted fit (0 without weights).
    """

    n: int
    x_range: tuple[float, float] | None
    nonpositive: Mapping[str, int]
    distinct: int
    w_centre: float
    w_scale: float
    t_centre: float
    t_scale: float
    powers: tuple[float, ...]
    cross: tuple[float, ...]
    squares: float
    log_weights: float = 0.0

    @property
    def distinct_x(self) -> int:
        """Distinct x values as read, as far as a fit needs them: 0, 1, or 2 for two or more."""
        if self.x_range is None:
            return 0
        return 1 if self.x_range[0] == self.x_range[1] else 2


# ---------------------------------------------------------------- in the engine

def sums_query(source: str, x: str, y: str, part: str, degree: int, *, x_map: str = "{0}", y_map: str = "{0}",
               log_x: bool = False, log_y: bool = False, weight: str | None = None,
               bounds: Mapping[str, float] | None = None) -> str:
    """The SQL that computes every group's `Sums` in one statement (DuckDB's dialect).

    The centres are the means, each from a fixed-point sum (`exactsum.mean`); every sum is fixed point
    (`exactsum`): z and τ are at most 1 in size, and a weight at most its bound. So every engine finds the
    same bits, in any order of rows.

    Args:
        source: the relation the rows come from (a name or a parenthesised query).
        x, y: SQL expressions of the x and y values as read.
        part: the SQL expression of a row's group (a column, or a struct of the panel and `by` values);
            NULL is a group of its own.
        degree: the polynomial's degree k.
        x_map, y_map: the axis transforms into fitting space (`numerics.Transform.sql`; ``{0}`` is the value).
        log_x, log_y: whether the method fits on ln of the fitting-space x (``log``, ``pow``) or y
            (``exp``, ``pow``).
        weight: the SQL expression of a row's weight, for weighted least squares (None: unweighted).
        bounds: `centred_bounds`'s, from `extent_query`'s row (None: no row has a finite w and t).

    Returns:
        A query with one row per group, ordered by it: the group (``part``), `BOUND_COLUMNS`, weighted
        ``omega_bad`` (weights ≤ 0), then the limbs' sums (`exactsum.limb_columns`) of `centred_terms`.
    """
    bounds = centred_bounds(None, weight is not None) if bounds is None else bounds
    if degree < PEELED_DISTINCT:
        peel = ("NULL AS distinct, min(w) FILTER (WHERE w > w_low) AS w_second, "
                "max(w) FILTER (WHERE w < w_high) AS w_penultimate")
    else:
        peel = "count(DISTINCT w) AS distinct, NULL AS w_second, NULL AS w_penultimate"
    terms = centred_terms(degree, weight is not None, bounds)
    centres = {"cw": ("w", bounds["w"]), "ct": ("t", bounds["t"])}
    return f"""{_features(source, x, y, part, x_map, y_map, log_x, log_y, weight)}, bounds AS (
    SELECT part, count(*) AS n, min(x) AS x_low, max(x) AS x_high,
           count(*) FILTER (WHERE x <= 0) AS x_bad, count(*) FILTER (WHERE y <= 0) AS y_bad,
           count(*) FILTER (WHERE u <= 0) AS u_bad, count(*) FILTER (WHERE v <= 0) AS v_bad,
           min(w) AS w_low, max(w) AS w_high, {exactsum.mean("cw", bounds["w"], "count(w)")} AS w_centre,
           min(t) AS t_low, max(t) AS t_high, {exactsum.mean("ct", bounds["t"], "count(t)")} AS t_centre
    FROM ({exactsum.limbed("features", centres)}) GROUP BY part
), centres AS (
    SELECT *, greatest(w_high - w_centre, w_centre - w_low) AS w_scale,
           greatest(t_high - t_centre, t_centre - t_low) AS t_scale
    FROM bounds
), mapped AS (
    SELECT c.part, f.w, f.omega, c.w_low, c.w_high,
           CASE WHEN c.w_scale > 0 THEN (f.w - c.w_centre) / c.w_scale ELSE 0.0 END AS z,
           CASE WHEN c.t_scale > 0 THEN (f.t - c.t_centre) / c.t_scale ELSE 0.0 END AS tau
    FROM features f JOIN centres c ON f.part IS NOT DISTINCT FROM c.part
), sums AS (
    SELECT part, {peel}{", count(*) FILTER (WHERE omega <= 0) AS omega_bad" if weight is not None else ""},
           {", ".join(exactsum.limb_sums(list(terms)))}
    FROM ({exactsum.limbed("mapped", terms)}) GROUP BY part
)
SELECT c.part, c.n, c.x_low, c.x_high, c.x_bad, c.y_bad, c.u_bad, c.v_bad, c.w_centre, c.w_scale, c.t_centre,
       c.t_scale, s.distinct, c.w_low, c.w_high, s.w_second, s.w_penultimate{", s.omega_bad" if weight else ""},
       {", ".join(f"s.{column}" for column in exactsum.limb_columns(list(terms)))}
FROM centres c JOIN sums s ON c.part IS NOT DISTINCT FROM s.part
ORDER BY c.part"""


def centred_terms(degree: int, weighted: bool, bounds: Mapping[str, float]) -> dict[str, tuple[str, float]]:
    """The sums of `sums_query`, in its order: name -> (the SQL of a row's term, its bound): Σ z^j (``p1`` ..
    ``p{2k}``), Σ z^j·τ (``c0`` .. ``c{k}``), Σ τ² (``squares``), each times ω where weighted, then Σ ω (``p0``)
    and Σ ln ω (``log_weights``)."""
    times, scale = ("omega * ", bounds["omega"]) if weighted else ("", 1.0)
    terms = {f"p{j}": (times + " * ".join(["z"] * j), scale) for j in range(1, 2 * degree + 1)}
    terms |= {f"c{j}": (times + " * ".join(["z"] * j + ["tau"]), scale) for j in range(degree + 1)}
    terms["squares"] = (f"{times}tau * tau", scale)
    if weighted:
        terms["p0"] = ("omega", scale)
        terms["log_weights"] = ("CASE WHEN omega > 0 THEN ln(omega) END", bounds["log"])
    return terms


def centred_bounds(extent: tuple | None, weighted: bool) -> dict[str, float]:
    """The bounds `sums_query` sums with, from `extent_query`'s row: of w and t (their means' sums), and
    weighted, of |ω| and of |ln ω| over the weights > 0 (|z|, |τ| ≤ 1: every other term is at most |ω|)."""
    values = [None if value is None else float(value) for value in (extent or ())]

    def largest(*ends):
        found = [abs(end) for end in ends if end is not None and math.isfinite(end)]
        return exactsum.bound(max(found, default=0.0)) or 1.0

    bounds = {"w": largest(*values[0:2]), "t": largest(*values[2:4])}
    if weighted:
        low, high, positive = values[4:7] if len(values) >= 7 else (None, None, None)
        # ln as the engine takes it may be an ulp from Python's: a bound a little above either.
        logs = [math.log(end) * (1 + 2.0 ** -40) for end in (positive, high) if end is not None and end > 0]
        bounds |= {"omega": largest(low, high), "log": largest(*logs)}
    return bounds


def _features(source: str, x: str, y: str, part: str, x_map: str, y_map: str, log_x: bool, log_y: bool,
              weight: str | None) -> str:
    """The CTEs both queries start from: each row's group, x and y as read, u and v in fitting space, w and t."""
    w = "CASE WHEN u > 0 THEN ln(u) END" if log_x else "u"
    t = "CASE WHEN v > 0 THEN ln(v) END" if log_y else "v"
    omega = "1.0" if weight is None else f"CAST({weight} AS DOUBLE)"
    return f"""WITH source_rows AS (
    SELECT {part} AS part, CAST({x} AS DOUBLE) AS x, CAST({y} AS DOUBLE) AS y, {omega} AS omega FROM {source}
), fitted AS (
    SELECT part, x, y, omega, {x_map.format("x")} AS u, {y_map.format("y")} AS v
    FROM source_rows WHERE isfinite(x) AND isfinite(y) AND isfinite(omega)
), features AS (
    SELECT part, x, y, u, v, omega, {w} AS w, {t} AS t FROM fitted
)"""


def extent_query(source: str, x: str, y: str, part: str, *, x_map: str = "{0}", y_map: str = "{0}",
                 log_x: bool = False, log_y: bool = False, weight: str | None = None) -> str:
    """The SQL of the smallest and largest w and t over every group (one row), and with a weight its
    smallest, its largest, and its smallest above 0: what bounds every term a fit sums."""
    weights = (", min(omega), max(omega), min(omega) FILTER (WHERE omega > 0)" if weight is not None else "")
    return (f"{_features(source, x, y, part, x_map, y_map, log_x, log_y, weight)}\n"
            f"SELECT min(w), max(w), min(t), max(t){weights} FROM features")


def shift_and_bounds(extent: tuple) -> tuple[tuple[float, float], dict[str, float]] | None:
    """The shift (w₀, t₀) of `shifted_query`, and each of its sums' terms -> a power of two no term is larger
    than (`exactsum.bound`), from `extent_query`'s row; None where there is no row or a bound is not a finite
    double (the caller sums centred).

    The shift is the middle of each extent: found alike on every engine, whatever the rows' order (a first
    row is not), and never further than half the extent from the mean.
    """
    w_low, w_high, t_low, t_high = (None if value is None else float(value) for value in extent)
    if w_low is None or t_low is None:
        return None
    w0, t0 = w_low / 2 + w_high / 2, t_low / 2 + t_high / 2
    # Rounding is monotonic, so no row's w − w₀ is further from 0 than the extremes' are.
    d = exactsum.bound(max(w_high - w0, w0 - w_low))
    e = exactsum.bound(max(t_high - t0, t0 - t_low))
    if d is None or e is None:
        return None
    bounds = {"d": d, "dd": exactsum.bound(d * d), "e": e, "de": exactsum.bound(d * e), "ee": exactsum.bound(e * e)}
    return ((w0, t0), bounds) if None not in bounds.values() else None


def shifted_query(source: str, x: str, y: str, part: str, shift: tuple[float, float], bounds: Mapping[str, float],
                  *, x_map: str = "{0}", y_map: str = "{0}", log_x: bool = False, log_y: bool = False,
                  counted: Iterable[str] = "xyuv") -> str:
    """The SQL of a straight line's sums in one pass, shifted by a constant rather than centred on the means.

    Every aggregate costs a share of the scan, so only what the fit reads is asked for: the values ≤ 0 of
    the ``counted`` channels (NULL for the others), and the extents of w and t as those of x and y where
    they are the same values (no transform, no logarithm). The sums are in fixed point (`exactsum`), so
    they are the same bits on every engine, in any order of rows.

    Args:
        source, x, y, part, x_map, y_map, log_x, log_y: as for `sums_query`.
        shift, bounds: (w₀, t₀), subtracted from every w and t, and each term's bound (`shift_and_bounds`).
        counted: the channels (of ``x``, ``y``, ``u``, ``v``) whose values ≤ 0 the fit refuses.

    Returns:
        A query with one row per group, ordered by it: the group, then `SHIFTED_COLUMNS`, then the limb sums
        of d, dd, e, de and ee (`exactsum.limb_columns`).
    """
    w0, t0 = (f"CAST('{value!r}' AS DOUBLE)" for value in shift)   # text: every double, exactly
    counts = ", ".join(f"count(*) FILTER (WHERE {c} <= 0)" if c in counted else "NULL" for c in "xyuv")
    w = "x" if x_map == "{0}" and not log_x else "w"
    t = "y" if y_map == "{0}" and not log_y else "t"
    terms = {name: (sql, bounds[name]) for name, sql in SHIFTED_TERMS.items()}
    return f"""{_features(source, x, y, part, x_map, y_map, log_x, log_y, None)}, shifted AS (
    SELECT part, x, y, u, v, w, t, w - {w0} AS d, t - {t0} AS e FROM features
), limbs AS (
    {exactsum.limbed("shifted", terms)}
)
SELECT part, count(*) AS n, min(x) AS x_low, max(x) AS x_high, {counts},
       min({w}) AS w_low, max({w}) AS w_high, min({t}) AS t_low, max({t}) AS t_high,
       {", ".join(exactsum.limb_sums(list(terms)))}
FROM limbs GROUP BY part ORDER BY part"""


def sums_from_shifted(rows: Iterable[tuple], shift: tuple[float, float], bounds: Mapping[str, float]) -> dict | None:
    """Group -> `Sums`, from the rows `shifted_query` returns; None where a group's shifted sums lose digits.

    A group's Σd² − (Σd)²/n is its centred Σ(w − w̄)²; its rounding is ε·Σd², which is more than
    ε·`CONDITION` of the centred sum when the shift is far from the group's mean for its spread (a group
    far from the others, or an outlier far from most rows). Then, or where a sum is not finite, the caller sums them centred (`sums_query`).
    """
    found = {}
    w0, t0 = shift
    for row in rows:
        part, values = row[0], dict(zip(SHIFTED_COLUMNS, row[1:]))
        n = int(values["n"])
        d, dd, e, de, ee = exactsum.totals(row[1 + len(SHIFTED_COLUMNS):],
                                           {name: bounds[name] for name in SHIFTED_TERMS}).values()
        if not (_conditioned(n, d, dd) and _conditioned(n, e, ee) and math.isfinite(de)):
            return None
        # z = d / w_scale and τ = e / t_scale, the centred query's scales about the shift (|z|, |τ| ≤ 1).
        w_scale = max(float(values["w_high"]) - w0, w0 - float(values["w_low"]))
        t_scale = max(float(values["t_high"]) - t0, t0 - float(values["t_low"]))
        values.update(distinct=2 if values["w_low"] != values["w_high"] else 1, w_second=None, w_penultimate=None,
                      w_centre=w0, w_scale=w_scale, t_centre=t0, t_scale=t_scale)
        found[part] = _sums(values, (_scaled(d, w_scale), _scaled(_scaled(dd, w_scale), w_scale)),
                            (_scaled(e, t_scale), _scaled(_scaled(de, w_scale), t_scale)),
                            _scaled(_scaled(ee, t_scale), t_scale))
    return found


def _scaled(total: float, scale: float) -> float:
    """A sum of d (or e) as a sum of z (τ): 0 where the values are all the shift, as the centred query's are."""
    return total / scale if scale > 0 else 0.0


def _conditioned(n: int, first: float, second: float) -> bool:
    """Whether Σd² − (Σd)²/n, from these sums, is within ε·`CONDITION` of the exact centred sum."""
    if not (math.isfinite(first) and math.isfinite(second)):
        return False
    offset = first * first / n
    return offset <= CONDITION * (second - offset)


def sums_from_rows(rows: Iterable[tuple], degree: int, weighted: bool = False,
                   bounds: Mapping[str, float] | None = None) -> dict:
    """Group -> `Sums`, from the rows `sums_query` returns (group first, then its columns in order)."""
    bounds = centred_bounds(None, weighted) if bounds is None else bounds
    terms = centred_terms(degree, weighted, bounds)
    found = {}
    for row in rows:
        part, values = row[0], dict(zip(BOUND_COLUMNS, row[1:]))
        rest = row[1 + len(BOUND_COLUMNS):]
        bad, rest = (rest[0], rest[1:]) if weighted else (None, rest)
        totals = exactsum.totals(rest, {name: scale for name, (_, scale) in terms.items()})
        if not all(values[k] is None or math.isfinite(values[k]) for k in ("w_centre", "w_scale", "t_centre", "t_scale")):
            # A centre or spread past double precision: z and τ are not numbers, whatever an engine's
            # floor makes of them (Spark's gives 0); `solve` refuses the fit.
            totals = dict.fromkeys(totals, math.nan)
        powers = [totals[f"p{j}"] for j in range(1, 2 * degree + 1)]
        cross = [totals[f"c{j}"] for j in range(degree + 1)]
        weights = (totals["p0"], bad, totals["log_weights"]) if weighted else None
        found[part] = _sums(values, powers, cross, totals["squares"], weights)
    return found


def _sums(values: Mapping, powers, cross, squares, weights=None) -> Sums:
    n = int(values["n"])

    def number(value):
        return math.nan if value is None else float(value)

    nonpositive = {channel: int(values[f"{channel}_bad"]) for channel in "xyuv" if values[f"{channel}_bad"] is not None}
    total, log_weights = float(n), 0.0
    if weights is not None:
        total, bad, log_weights = number(weights[0]), int(weights[1] or 0), number(weights[2] or 0.0)
        nonpositive["weight"] = bad
    return Sums(
        n=n, x_range=(float(values["x_low"]), float(values["x_high"])) if n else None,
        nonpositive=nonpositive,
        distinct=_distinct(values),
        w_centre=number(values["w_centre"]), w_scale=number(values["w_scale"]),
        t_centre=number(values["t_centre"]), t_scale=number(values["t_scale"]),
        powers=(total, *(number(p) for p in powers)), cross=tuple(number(c) for c in cross),
        squares=number(squares), log_weights=log_weights)


def _distinct(values: Mapping) -> int:
    """The distinct w the query counted, or peeled: the smallest two and the largest two (exact below 4)."""
    if values["distinct"] is not None:
        return int(values["distinct"])
    return len({values[k] for k in ("w_low", "w_high", "w_second", "w_penultimate")} - {None})


# ---------------------------------------------------------------- in memory

def sums_from_arrays(x: np.ndarray, y: np.ndarray, u: np.ndarray, v: np.ndarray, degree: int, *,
                     log_x: bool = False, log_y: bool = False, weights: np.ndarray | None = None) -> Sums:
    """The `Sums` of finite values in memory, computed as `sums_query` computes them.

    Args:
        x, y: the values as read (finite).
        u, v: the same values in fitting space.
        degree, log_x, log_y: as for `sums_query`.
        weights: each row's weight (finite), for weighted least squares; None: unweighted.
    """
    n = len(x)
    bad = {"x": int(np.count_nonzero(x <= 0)), "y": int(np.count_nonzero(y <= 0)),
           "u": int(np.count_nonzero(u <= 0)), "v": int(np.count_nonzero(v <= 0))}
    if weights is not None:
        bad["weight"] = int(np.count_nonzero(weights <= 0))
    if not n or (log_x and bad["u"]) or (log_y and bad["v"]) or bad.get("weight"):  # refused before any sum is read
        x_range = (float(x.min()), float(x.max())) if n else None
        return Sums(n, x_range, bad, 0, math.nan, math.nan, math.nan, math.nan, (float(n),), (), math.nan)
    with np.errstate(all="ignore"):  # values past double precision give inf and NaN: `solve` refuses them
        w = np.log(u) if log_x else u
        t = np.log(v) if log_y else v
        w_centre, t_centre = _fsum(w) / n, _fsum(t) / n
        w_scale = max(float(w.max()) - w_centre, w_centre - float(w.min()))
        t_scale = max(float(t.max()) - t_centre, t_centre - float(t.min()))
        z = (w - w_centre) / w_scale if w_scale > 0 else np.zeros(n)
        tau = (t - t_centre) / t_scale if t_scale > 0 else np.zeros(n)
        omega = np.ones(n) if weights is None else weights
        powers, power = [float(n) if weights is None else _fsum(omega)], omega
        for _ in range(2 * degree):
            power = power * z
            powers.append(_fsum(power))
        cross, power = [_fsum(omega * tau)], omega
        for _ in range(degree):
            power = power * z
            cross.append(_fsum(power * tau))
        squares = _fsum(omega * tau * tau)
        log_weights = 0.0 if weights is None else _fsum(np.log(weights))
    return Sums(n, (float(x.min()), float(x.max())), bad, count_distinct(w), w_centre, w_scale, t_centre,
                t_scale, tuple(powers), tuple(cross), squares, log_weights)


def _fsum(values: np.ndarray) -> float:
    """`math.fsum`, with NaN where it overflows (as the engine's sum gives inf or NaN there)."""
    try:
        return math.fsum(values)
    except (OverflowError, ValueError):
        return math.nan


# ---------------------------------------------------------------- the algebra

def solve(sums: Sums) -> Ols:
    """The least-squares fit the sums stand for.

    XᵀX in the centred basis 1, z, .., z^k is the matrix of Σ z^(i+j); its
    Cholesky factor L gives the coefficients (L Lᵀ β = Xᵀτ), the residual sum
    of squares (Σ τ² − |L⁻¹ Xᵀτ|²) and, as `Ols.r` = Lᵀ, the bands.

    Raises:
        FloatingPointError: a sum is not finite (values near the limits of double precision), or XᵀX is
            not positive definite in double precision.
    """
    numbers = (sums.w_centre, sums.w_scale, sums.t_centre, sums.t_scale, *sums.powers, *sums.cross, sums.squares)
    if not all(math.isfinite(number) for number in numbers):
        raise FloatingPointError("a sufficient statistic is not finite")
    degree = len(sums.cross) - 1
    gram = np.array([[sums.powers[i + j] for j in range(degree + 1)] for i in range(degree + 1)])
    try:
        lower = np.linalg.cholesky(gram)
    except np.linalg.LinAlgError:
        raise FloatingPointError("X'X is not positive definite in double precision") from None
    projected = forward_substitute(lower, np.array(sums.cross))
    beta = back_substitute(lower.T, projected) * sums.t_scale
    beta[0] += sums.t_centre
    scale2 = sums.t_scale * sums.t_scale
    ssr = max(sums.squares - float(projected @ projected), 0.0) * scale2
    sst = max(sums.squares - sums.cross[0] * sums.cross[0] / sums.powers[0], 0.0) * scale2
    return Ols(sums.w_centre, sums.w_scale, beta, lower.T, sums.n, ssr, sst, sums.log_weights)
