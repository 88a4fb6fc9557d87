"""Fixed-point sums of doubles in the engine (trends/exactsum.py): the same bits in any order.

Each sum is checked against Python's exact rational arithmetic (`fractions.Fraction`) over the same
terms, and against itself with the rows shuffled and a different number of threads.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from chartc.stages.data import engine
from chartc.trends import exactsum


def engine_total(terms: np.ndarray, scale: float, threads: int = 2) -> float:
    connection = engine.connect()
    connection.execute(f"SET threads = {threads}")
    connection.register("terms", {"v": terms})
    limbs = connection.execute(f"SELECT {', '.join(exactsum.limb_sums(['v']))} "
                               f"FROM ({exactsum.limbed('terms', {'v': ('v', scale)})})").fetchone()
    return exactsum.total(limbs, scale)


def exactly_rounded(terms) -> float:
    return float(sum(Fraction(float(t)) for t in terms))


@pytest.mark.parametrize("scale_exponent", [-900, -30, 0, 17, 900])
def test_a_sum_is_the_exactly_rounded_sum_of_its_terms(scale_exponent):
    """Terms of every sign and of sizes from the bound down to 2⁻⁸ of it: the limbs hold them exactly."""
    rng = np.random.default_rng(scale_exponent + 1000)
    scale = math.ldexp(1.0, scale_exponent)
    terms = np.ldexp(rng.choice([-1.0, 1.0], 200_000) * rng.uniform(0.5, 1, 200_000),
                     rng.integers(scale_exponent - 7, scale_exponent + 1, 200_000))
    terms[:3] = [scale, -scale, 0.0]
    assert engine_total(terms, scale) == exactly_rounded(terms)


def test_a_sum_is_the_same_bits_in_any_order_and_on_any_number_of_threads():
    rng = np.random.default_rng(7)
    terms = rng.standard_normal(500_000) * 1e3   # a plain sum of these changes in its last bits with the order
    scale = exactsum.bound(float(np.max(np.abs(terms))))
    totals = {engine_total(rng.permutation(terms), scale, threads) for threads in (1, 2, 4) for _ in range(2)}
    assert totals == {exactly_rounded(terms)}


def test_terms_far_below_the_bound_are_off_by_less_than_the_last_limb():
    rng = np.random.default_rng(3)
    scale = 1.0
    terms = np.concatenate([rng.uniform(-1, 1, 1000), rng.uniform(-1, 1, 1000) * 1e-20, [5e-324, -1e-300]])
    exact = sum(Fraction(float(t)) for t in terms)
    total = engine_total(terms, scale)
    assert abs(Fraction(total) - exact) <= len(terms) * Fraction(scale) / 2 ** 60 + Fraction(math.ulp(total)) / 2


@pytest.mark.parametrize("largest, expected", [(3.0, 4.0), (4.0, 4.0), (0.75, 1.0), (0.0, 1.0),
                                               (5e-324, 2.0 ** -1003), (2.0 ** 960 + 2.0 ** 908, 2.0 ** 961),
                                               (1.7e308, 2.0 ** 1023), (math.inf, None), (math.nan, None)])
def test_a_bound_is_the_least_power_of_two_at_least_the_largest_term(largest, expected):
    assert exactsum.bound(largest) == expected


def test_a_sum_past_the_largest_double_is_infinite_as_fsum_says():
    assert exactsum.total([2.0 ** 21, 0, 0], 2.0 ** 1023) == math.inf
    assert exactsum.total([-(2.0 ** 21), 0, 0], 2.0 ** 1023) == -math.inf


def test_limbs_are_read_back_at_their_place():
    assert exactsum.total([2 ** 20, 0, 0], 2.0 ** 960) == 2.0 ** 960
    assert exactsum.total([-(2 ** 40), 1, 0], 2.0 ** 960) == -(2.0 ** 980) + 2.0 ** 920
    assert exactsum.total([3.0, 2.0 ** 19, 5], 1.0) == 3 * 2.0 ** -20 + 2.0 ** -21 + 5 * 2.0 ** -60
