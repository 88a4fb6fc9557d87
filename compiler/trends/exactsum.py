"""Sums of doubles that every engine computes to the same bits: fixed point in the engine, rounded here.

A plain SQL ``sum`` of doubles adds in the order the engine's threads or tasks finish, so its last bits
change from run to run and from engine to engine; DuckDB's compensated ``fsum`` is its own (Spark has
none). Here each term t, with |t| ≤ P (P a power of two the caller knows bounds the term: from the
data's extremes), is cut into four integer limbs by IEEE operations every engine performs alike and
exactly (a product by a power of two, ``floor``, a number less its floor):

    t ≈ P · (L1·2⁻²⁴ + L2·2⁻⁴⁸ + L3·2⁻⁷² + L4·2⁻⁹⁶),   |L1| ≤ 2²⁴,  0 ≤ L2, L3, L4 < 2²⁴

truncated (toward −∞) below P·2⁻⁹⁶: exact for every term of at least 2⁻⁴⁴·P, and otherwise off by less
than 2⁻⁹⁶·P, far below a double's rounding of the sum. Each limb's sum is a sum of integers, the same
in any order on any engine (a BIGINT: up to 2³⁸ rows on Spark, whose sum of BIGINT is BIGINT; DuckDB's
is HUGEINT). `total` adds the limbs in Python integers and rounds once to the nearest double.

May import: the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

LIMB_BITS = 24
LIMBS = 4
# A bound's power of two is kept within 2^±960, so that it and its reciprocal are finite doubles.
BOUND_LIMIT = 960


def bound(largest: float) -> float | None:
    """The least power of two ≥ `largest` (≥ 0), the P of a term no larger; 1 for 0; None where it is not
    a finite double (then the caller sums another way)."""
    if not math.isfinite(largest) or largest < 0:
        return None
    if largest == 0:
        return 1.0
    mantissa, exponent = math.frexp(largest)
    exponent -= mantissa == 0.5   # a power of two bounds itself
    if not -BOUND_LIMIT <= exponent <= BOUND_LIMIT:
        return None
    return math.ldexp(1.0, exponent)


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
    """The aggregates of each term's limbs (``{term}_1`` .. ``{term}_4``), over a `limbed` relation."""
    return [f"sum(CAST({term}_{k} AS BIGINT)) AS {term}_{k}" for term in terms for k in range(1, LIMBS + 1)]


def limb_columns(terms: Sequence[str]) -> list[str]:
    """The names of `limb_sums`'s columns, in order."""
    return [f"{term}_{k}" for term in terms for k in range(1, LIMBS + 1)]


def total(limbs: Sequence, scale: float) -> float:
    """The sum of a term over a group, rounded once to the nearest double: from its limb sums and bound P."""
    whole = 0
    for limb in limbs:
        whole = (whole << LIMB_BITS) + int(limb or 0)
    # At most 2^38 terms of at most P ≤ 2^960: always a finite double.
    return float(Fraction(whole) * Fraction(scale) / (1 << (LIMB_BITS * LIMBS)))
