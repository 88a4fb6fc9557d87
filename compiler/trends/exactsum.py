"""Sums of doubles that every engine computes to the same bits: fixed point in the engine, rounded here.

A plain SQL ``sum`` of doubles adds in the order the engine's threads or tasks finish, so its last bits
change from run to run and from engine to engine; DuckDB's compensated ``fsum`` is its own (Spark has
none). Here each term t, with |t| ≤ P (P a power of two the caller knows bounds the term: from the
data's extremes), is cut into three integer limbs by IEEE operations every engine performs alike and
exactly (a product by a power of two, ``floor``, a number less its floor):

    t ≈ P · (L1·2⁻²⁰ + L2·2⁻⁴⁰ + L3·2⁻⁶⁰),   |L1| ≤ 2²⁰,  0 ≤ L2, L3 < 2²⁰

truncated (toward −∞) below P·2⁻⁶⁰: exact for every term of at least 2⁻⁸·P, and otherwise off by less
than 2⁻⁶⁰·P, far below a double's rounding of a sum of such terms. Each limb's sum is a sum of whole
numbers, the same in any order: DuckDB adds them as doubles, exactly while a group has fewer than 2³³
rows (every partial sum under 2⁵³); Spark's ``floor`` is a BIGINT, whose sum is exact to 2⁴³ rows.
Integer columns cost DuckDB a cast per limb and a 128-bit sum, twice the time of the doubles. `total`
adds the limbs in Python integers and rounds once to the nearest double.

May import: the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

LIMB_BITS = 20
LIMBS = 3
# A bound's power of two is kept within [2^-1003, 2^1023], so that it and 2^20 over it are finite doubles;
# a term past 2^1023 (finite) then has an L1 of up to 2^21, still a whole number summed exactly.
BOUND_LIMITS = (-1003, 1023)


def bound(largest: float) -> float | None:
    """The least power of two ≥ `largest` (≥ 0) within `BOUND_LIMITS`, the P of a term no larger; None where
    `largest` is not finite (then the caller sums another way)."""
    if not math.isfinite(largest) or largest < 0:
        return None
    if largest == 0:
        return 1.0
    mantissa, exponent = math.frexp(largest)
    exponent -= mantissa == 0.5   # a power of two bounds itself
    return math.ldexp(1.0, min(max(exponent, BOUND_LIMITS[0]), BOUND_LIMITS[1]))


def mean(name: str, scale: float, count: str) -> str:
    """The SQL of a group's mean of a `limbed` term from its limbs' sums: not rounded once, as `total` is, but
    by a fixed sequence of IEEE operations, so the same bits on every engine (for a centre the query uses)."""
    parts = " + ".join(f"sum({name}_{k}) * CAST('{scale * 2.0 ** (-LIMB_BITS * k)!r}' AS DOUBLE)"
                       for k in range(1, LIMBS + 1))
    return f"({parts}) / {count}"


def limbed(relation: str, terms: Mapping[str, tuple[str, float]]) -> str:
    """The SQL (DuckDB's dialect, Spark's after translation) of `relation` with each term's limbs.

    Args:
        relation: a name or parenthesised query.
        terms: name -> (its SQL expression over the relation's columns, its bound P from `bound`): every
            value of the expression is NULL (its sums leave it out) or at most P in size.
    """
    radix = f"CAST('{float(2 ** LIMB_BITS)!r}' AS DOUBLE)"

    def layer(inner: str, columns: Sequence[str]) -> str:
        return f"SELECT *, {', '.join(columns)} FROM ({inner})"

    query = layer(f"SELECT * FROM {relation}", [
        f"{sql} * CAST('{2.0 ** LIMB_BITS / scale!r}' AS DOUBLE) AS {name}__r1"
        for name, (sql, scale) in terms.items()])
    for k in range(1, LIMBS):
        query = layer(query, [f"floor({name}__r{k}) AS {name}_{k}" for name in terms]
                      + [f"({name}__r{k} - floor({name}__r{k})) * {radix} AS {name}__r{k + 1}" for name in terms])
    return layer(query, [f"floor({name}__r{LIMBS}) AS {name}_{LIMBS}" for name in terms])


def limb_sums(terms: Sequence[str]) -> list[str]:
    """The aggregates of each term's limbs (``{term}_1`` .. ``{term}_3``), over a `limbed` relation."""
    return [f"sum({term}_{k}) AS {term}_{k}" for term in terms for k in range(1, LIMBS + 1)]


def limb_columns(terms: Sequence[str]) -> list[str]:
    """The names of `limb_sums`'s columns, in order."""
    return [f"{term}_{k}" for term in terms for k in range(1, LIMBS + 1)]


def total(limbs: Sequence, scale: float) -> float:
    """The sum of a term over a group, rounded once to the nearest double: from its limb sums and bound P."""
    if any(isinstance(limb, float) and math.isnan(limb) for limb in limbs):
        return math.nan   # a term that is not a number (DuckDB's floor keeps it): as `math.fsum` would say
    whole = 0
    for limb in limbs:
        whole = (whole << LIMB_BITS) + int(limb or 0)
    exact = Fraction(whole) * Fraction(scale) / (1 << (LIMB_BITS * LIMBS))
    try:
        return float(exact)
    except OverflowError:  # terms near the largest double whose sum is past it, as `math.fsum` would say
        return math.inf if exact > 0 else -math.inf


def totals(limbs: Sequence, bounds: Mapping[str, float]) -> dict[str, float]:
    """Each term's sum (`total`), from a result row's limb sums in `limb_columns`'s order and each term's bound,
    the terms in `bounds`'s order."""
    return {name: total(limbs[i * LIMBS:(i + 1) * LIMBS], scale) for i, (name, scale) in enumerate(bounds.items())}
