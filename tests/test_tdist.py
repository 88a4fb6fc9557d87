"""The Student's t quantile agrees with scipy and with high-precision values.

`chartc.trends.tdist` replaces ``scipy.stats.t.ppf`` for trend bands. scipy stays in
the test environment (statsmodels needs it) as the reference.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from scipy import special, stats

from chartc.trends.tdist import student_t_quantile

P_GRID = (0.5000001, 0.51, 0.6, 0.75, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 0.9995, 0.99999)
DF_GRID = (1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50, 100, 300, 1000,
           1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 2.5, 7.3)

# Against scipy over the grid; the largest difference, 1.3e-14 at p = 0.8,
# df = 2.5, is scipy's own error (see REFERENCE for this module's).
SCIPY_RTOL = 2e-14

# t quantiles to 21 digits from mpmath (the incomplete beta function inverted
# at 50 digits), a sample of the grid; over all of it, this module is within
# 2.1e-15 of mpmath.
REFERENCE = (
    (0.975, 3.0, "3.18244630528370864297"),
    (0.975, 10.0, "2.22813885198627437134"),
    (0.975, 30.0, "2.04227245630123777076"),
    (0.5000001, 4.0, "2.66666666526309077721e-7"),
    (0.51, 4.0, "0.026670618302639028524"),
    (0.99999, 7.3, "9.68799880520719902677"),
    (0.9, 100000.0, "1.28156003144936114779"),
    (0.95, 2.5, "2.55821861413593554246"),
    (0.999, 1000000.0, "3.09024045631651933519"),
    (0.995, 1000000000.0, "2.57582930846544799763"),
    (0.8, 15.0, "0.866244973194951750628"),
    (0.75, 300.0, "0.675308416307365821929"),
    (0.9995, 5.0, "6.86882662588127512748"),
)
REFERENCE_RTOL = 3e-15


def scipy_quantile(p: float, df: float) -> float:
    """scipy's t quantile, from a function that keeps its digits at p.

    ``stats.t.ppf`` loses digits just above p = 0.5 (a relative 4e-4 at
    df = 4, p = 0.5000001). There the quantile comes from the central
    probability instead: P(|T| < t) = 2p - 1 = I_y(1/2, df/2) with
    y = t²/(df + t²), inverted by ``special.betaincinv``.
    """
    if p < 0.6:
        y = special.betaincinv(0.5, df / 2.0, 2.0 * p - 1.0)
        return math.sqrt(df * y / (1.0 - y))
    return float(stats.t.ppf(p, df))


@pytest.mark.parametrize("df", DF_GRID, ids=str)
def test_matches_scipy_over_the_grid(df):
    for p in P_GRID:
        assert student_t_quantile(p, df) == pytest.approx(scipy_quantile(p, df), rel=SCIPY_RTOL), p


@pytest.mark.parametrize(("p", "df", "expected"), REFERENCE, ids=lambda v: str(v)[:12])
def test_matches_high_precision_values(p, df, expected):
    assert student_t_quantile(p, df) == pytest.approx(float(expected), rel=REFERENCE_RTOL)


@pytest.mark.parametrize("df", DF_GRID, ids=str)
def test_is_symmetric_and_zero_at_one_half(df):
    assert student_t_quantile(0.5, df) == 0.0
    for p in P_GRID:
        # 1 - p is exact for p in [0.5, 1], so the two sides are the same problem.
        assert student_t_quantile(1.0 - p, df) == -student_t_quantile(p, df)


def test_df_1_is_the_cauchy_tangent():
    for p in P_GRID:
        textbook = math.tan(math.pi * (p - 0.5))
        # tan near π/2 magnifies the rounding of its argument about t-fold.
        assert student_t_quantile(p, 1) == pytest.approx(textbook, rel=1e-15 * max(1.0, textbook))


def test_df_2_is_its_closed_form():
    for p in P_GRID:
        textbook = (2.0 * p - 1.0) / math.sqrt(2.0 * p * (1.0 - p))
        assert student_t_quantile(p, 2) == pytest.approx(textbook, rel=1e-15)


@pytest.mark.parametrize("df", (1.0, 2.0, 1e7), ids=str)
def test_is_continuous_where_the_method_changes(df):
    """df = 1 and 2 have closed forms, from 1e7 on an expansion: their neighbours use Newton."""
    for p in P_GRID:
        here = student_t_quantile(p, df)
        for nearby in (df * (1 - 1e-13), df * (1 + 1e-13)):
            # The quantile itself moves by up to ~1e-12 (at p = 0.99999, df = 1).
            assert student_t_quantile(p, nearby) == pytest.approx(here, rel=1e-11), (p, nearby)


@pytest.mark.parametrize("df", (0.5, 1.5, 3, 30, 1e4, 1e8), ids=str)
def test_far_tails_are_ordered(df):
    ps = (5e-324, 1e-300, 1e-100, 1e-20, 1e-10, 0.25, 0.5 - 2 ** -54, 0.5 + 2 ** -53, 0.75, 1 - 2 ** -53)
    quantiles = [student_t_quantile(p, df) for p in ps]
    assert quantiles == sorted(quantiles)
    assert all(not math.isnan(t) for t in quantiles)


def test_far_tails_of_small_df_are_infinite():
    # P(T < t) ~ |t|^-df: for df = 0.5 and p = 1e-300 the quantile is near -1e600.
    assert student_t_quantile(1e-300, 0.5) == -math.inf
    assert student_t_quantile(1e-300, 3) == pytest.approx(-1.0331108360446802e100, rel=1e-13)


@pytest.mark.parametrize("p", (0.0, 1.0, -0.5, 1.5, math.nan, math.inf))
def test_p_outside_0_1_is_a_value_error(p):
    with pytest.raises(ValueError, match=r"^p must be between 0 and 1 \(exclusive\), got "):
        student_t_quantile(p, 10)


@pytest.mark.parametrize("df", (0, -1, math.nan, -math.inf))
def test_df_not_positive_is_a_value_error(df):
    with pytest.raises(ValueError, match=r"^df must be a positive number, got "):
        student_t_quantile(0.975, df)


def test_bands_do_not_import_scipy():
    probe = ("import sys, chartc.trends.fitting; "
             "assert not any(m.startswith('scipy') for m in sys.modules), 'import'; "
             "line = chartc.trends.fitting.fit_trend([1, 2, 3, 4, 5], [1, 3, 2, 5, 4], band=0.95); "
             "assert line.lower is not None, 'no band'; "
             "assert not any(m.startswith('scipy') for m in sys.modules), 'band'")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
