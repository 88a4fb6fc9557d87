"""Least-squares fits from sufficient statistics summed in the engine (trends/moments.py, stages/fit.py).

Every least-squares method is fitted on 10⁶ generated rows through the
engine's query and compared with statsmodels' OLS on the same rows
(coefficients, R², residual error, confidence and prediction limits); an
ill-conditioned x (around 1e9, a spread of 1) still agrees, where the raw
sums Σx, Σx² do not; the sums come out with the same bytes on every run with
two threads; and the checks the counts make (values ≤ 0, too few distinct x)
say what the in-memory fit says.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from statsmodels.regression.linear_model import OLS

from chartc import errors
from chartc.errors import SpecError
from chartc.stages import fit as fit_stage
from chartc.stages.data import engine
from chartc.trends.fitting import fit_sums, fit_trend, fit_values, plan_trend
from chartc.trends.methods.loess import Loess
from chartc.trends.methods.moving_average import MovingAverage
from chartc.trends.moments import sums_from_arrays
from chartc.trends.numerics import count_distinct

LEVEL = 0.95
N = 1_000_000


def close(actual, expected, rtol=1e-9, atol=0.0):
    np.testing.assert_allclose(np.asarray(actual, float), np.asarray(expected, float), rtol=rtol, atol=atol)


def assert_is_ols(line, result, origin: float, intercept_atol: float) -> None:
    """A fitted line is statsmodels' OLS `result` of y on x - origin: coefficients, R², RSE and the band, to 1e-9."""
    coefficients = dict(line.coefficients)
    close(coefficients["slope"], result.params[1])
    close(coefficients["intercept"], result.params[0] - result.params[1] * origin, atol=intercept_atol)
    close([line.r2, line.rse], [result.rsquared, math.sqrt(result.scale)])
    prediction = result.get_prediction(np.column_stack([np.ones(len(line.x)), np.asarray(line.x) - origin]))
    frame = prediction.summary_frame(alpha=1 - LEVEL)
    close(line.y, frame["mean"])
    close(line.lower, frame["mean_ci_lower"])
    close(line.upper, frame["mean_ci_upper"])


def engine_fit(x, y, method, **options):
    """One line fitted through the engine's query, as the fit stage does it."""
    plan = plan_trend(method, **options)
    sums = fit_stage.fit_statistics(plan, [((), None, np.asarray(x, float), np.asarray(y, float))])
    return fit_sums(plan, sums[0])


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(16)
    x = rng.uniform(0.5, 10.0, N)
    noise = rng.normal(0.0, 1.0, N)
    return x, noise


def _log(v):
    return np.log(v)


def _identity(v):
    return v


# method, options, y from (x, noise), regressor of x, response of y, its inverse, degree, coefficient names
CASES = {
    "linear": ("linear", {}, lambda x, e: 3.0 + 2.0 * x + e, _identity, _identity, _identity, 1,
               ("intercept", "slope")),
    "quad": ("quad", {}, lambda x, e: 1.0 - 0.5 * x + 0.25 * x * x + e, _identity, _identity, _identity, 2,
             ("c0", "c1", "c2")),
    "poly3": ("poly", {"order": 3}, lambda x, e: 1.0 + x - 0.3 * x ** 2 + 0.02 * x ** 3 + e, _identity, _identity,
              _identity, 3, ("c0", "c1", "c2", "c3")),
    "log": ("log", {}, lambda x, e: 2.0 + 1.5 * np.log(x) + 0.3 * e, _log, _identity, _identity, 1, ("a", "b")),
    "exp": ("exp", {}, lambda x, e: 2.0 * np.exp(0.3 * x + 0.1 * e), _identity, _log, np.exp, 1, ("a", "b")),
    "pow": ("pow", {}, lambda x, e: 1.5 * x ** 0.7 * np.exp(0.1 * e), _log, _log, np.exp, 1, ("a", "b")),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=str)
def test_engine_fit_of_a_million_rows_is_statsmodels_ols(rows, case):
    method, options, make_y, fx, fy, fy_inverse, degree, names = CASES[case]
    x, noise = rows
    y = make_y(x, noise)
    result = OLS(fy(y), np.vander(fx(x), degree + 1, increasing=True)).fit()
    params = list(result.params)
    if method in ("exp", "pow"):  # a = e^(ln a)
        params[0] = math.exp(params[0])

    line = engine_fit(x, y, method, band=LEVEL, **options)
    assert line.n == N
    assert [name for name, _ in line.coefficients] == list(names)
    close([value for _, value in line.coefficients], params)
    close([line.r2, line.adj_r2, line.rse], [result.rsquared, result.rsquared_adj, math.sqrt(result.scale)])
    exog = np.vander(fx(np.asarray(line.x)), degree + 1, increasing=True)
    frame = result.get_prediction(exog).summary_frame(alpha=1 - LEVEL)
    close(line.y, fy_inverse(frame["mean"]))
    close(line.lower, fy_inverse(frame["mean_ci_lower"]))
    close(line.upper, fy_inverse(frame["mean_ci_upper"]))

    predicted = engine_fit(x, y, method, prediction=LEVEL, **options)
    limits = result.get_prediction(exog).conf_int(obs=True, alpha=1 - LEVEL)
    close(predicted.lower, fy_inverse(limits[:, 0]))
    close(predicted.upper, fy_inverse(limits[:, 1]))


@pytest.mark.slow
def test_ill_conditioned_x_agrees_where_raw_sums_do_not(rows):
    # x around 1e9 with a spread of 1: x - 1e9 is exact, so statsmodels on it is the reference.
    shift = 1e9
    x = shift + (rows[0] - 0.5) / 9.5
    y = 3.0 + 2.0 * (x - shift) + 0.1 * rows[1]
    result = OLS(y, np.column_stack([np.ones(N), x - shift])).fit()
    line = engine_fit(x, y, "linear", band=LEVEL)
    # The intercept at x = 0 is b0 - b1·1e9: it carries the rounding of a number 1e9 times larger.
    assert_is_ols(line, result, shift, intercept_atol=1e-9 * 2.0 * shift)

    # The same line from uncentred sums (normal equations on Σx, Σx², Σy, Σxy): the slope is noise.
    gram = np.array([[N, x.sum()], [x.sum(), (x * x).sum()]])
    raw = np.linalg.solve(gram, np.array([y.sum(), (x * y).sum()]))
    assert abs(raw[1] - result.params[1]) > 1e-3 * abs(result.params[1])


@pytest.mark.slow
@pytest.mark.parametrize("method, options", [("poly", {"order": 3}), ("linear", {})], ids=["centred", "one pass"])
def test_sums_are_the_same_bytes_on_every_run_with_two_threads(rows, monkeypatch, method, options):
    # A plain sum() of doubles here gives a different last bit on nearly every run with two threads (the
    # threads' partial sums are added in the order they finish); fixed-point sums (trends/exactsum.py) do not.
    x, noise = rows
    y = 3.0 + 2.0 * x + noise
    parts = [((), g, x[g::3], y[g::3]) for g in range(3)]   # three groups, GROUP BY in one query
    plan = plan_trend(method, band=LEVEL, **options)

    def image(threads):
        def connect():
            connection = engine.connect()
            connection.execute(f"SET threads = {threads}")
            return connection

        monkeypatch.setattr(fit_stage, "connect", connect)
        sums = fit_stage.fit_statistics(plan, parts)
        numbers = [v for s in sums.values() for v in (s.w_centre, s.w_scale, s.t_centre, s.t_scale, *s.powers,
                                                       *s.cross, s.squares)]
        return struct.pack(f"{len(numbers)}d", *numbers)

    first = image(2)
    assert all(image(2) == first for _ in range(3))
    assert image(1) == first   # one thread, rows in order: the same bytes


def passes(monkeypatch) -> list:
    """Which query each `fit_statistics` call ended with: "one pass" (shifted sums) or "centred"."""
    taken = []
    centred = fit_stage.sums_from_rows

    def two_pass(*args, **kwargs):
        taken[-1] = "centred"
        return centred(*args, **kwargs)

    real = fit_stage.query_sums
    monkeypatch.setattr(fit_stage, "sums_from_rows", two_pass)
    monkeypatch.setattr(fit_stage, "query_sums", lambda *args, **kwargs: taken.append("one pass") or real(*args, **kwargs))
    return taken


STEPS = np.arange(0.0, 1e8, 100.0)   # 10⁶ steps of a run 10⁸ long: integers, exact in a double
ADVERSARIAL = {
    # x around 1e9, a spread of 1, and y around 1e6: the shift (the first row) is near both means.
    "large offsets": ([lambda u: 1e9 + u / 10.0], lambda x, u, e: 1e6 + 2.0 * (x - 1e9) + 0.01 * e, "one pass"),
    "steps to 1e8": ([lambda u: STEPS], lambda x, u, e: 3.0 - 2e-8 * x + 0.05 * e, "one pass"),
    # a group far from the first row for its spread: the centred query, for every group
    "groups far apart": ([lambda u: u, lambda u: 1e12 + u / 1e3], lambda x, u, e: 1.0 + u + e, "centred"),
    # the first row an outlier 10⁹ away from the others: the mean is far from it for the spread
    "first row far out": ([lambda u: np.r_[1e9, u[1:]]], lambda x, u, e: 2.0 + 0.5 * u + e, "centred"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", ADVERSARIAL, ids=str)
def test_line_sums_agree_with_statsmodels_on_adversarial_data(rows, monkeypatch, case):
    # Each group's x is shifted onto a small exact range first, so statsmodels fits values it can represent;
    # the slope, R², residual error and band are compared to 1e-9 (the intercept at x = 0 carries the rounding
    # of the offset, as in the test above).
    makers, make_y, expected = ADVERSARIAL[case]
    u, noise = rows[0], rows[1]
    parts = []
    for g, make_x in enumerate(makers):
        x = make_x(u)
        parts.append(((), g, x, make_y(x, u, noise)))
    taken = passes(monkeypatch)
    plan = plan_trend("linear", band=LEVEL)
    sums = fit_stage.fit_statistics(plan, parts)
    assert taken == [expected]
    for g, (_, _, x, y) in enumerate(parts):
        origin = float(np.min(x))
        result = OLS(y, np.column_stack([np.ones(len(x)), x - origin])).fit()
        line = fit_sums(plan, sums[g])
        assert_is_ols(line, result, origin, intercept_atol=1e-9 * abs(result.params[1] * origin))


def test_a_constant_y_fits_a_flat_line_in_one_pass(monkeypatch):
    # every τ is 0 about a shift that is the constant itself, as about the mean: slope 0, no band
    x = np.arange(200_000, dtype=float)
    taken = passes(monkeypatch)
    line = engine_fit(x, np.full(len(x), 7.25), "linear", band=LEVEL)
    assert taken == ["one pass"]
    assert dict(line.coefficients) == {"intercept": 7.25, "slope": 0.0}
    assert set(line.y) == set(line.lower) == set(line.upper) == {7.25}


@pytest.mark.slow
def test_engine_sums_are_fixed_point_sums_of_the_terms(rows):
    # The query's sums of powers are fixed point (trends/exactsum.py): |z^j| ≤ 1, so each term is truncated
    # below 2⁻⁶⁰, and the sum is within n·2⁻⁶⁰ and half an ulp of the exactly rounded sum of the same terms.
    x, noise = rows
    plan = plan_trend("poly", order=2)
    sums = fit_stage.fit_statistics(plan, [((), None, x, 1.0 + x + noise)])[0]
    z = (x - sums.w_centre) / sums.w_scale
    for power in range(1, 5):
        exact = math.fsum(np.prod([z] * power, axis=0))
        assert abs(sums.powers[power] - exact) <= len(x) * 2.0 ** -60 + math.ulp(exact)


def test_engine_and_in_memory_fits_agree():
    x = np.array([1.0, 2.0, 3.0, 4.5, 6.0, 7.0, 9.0])
    y = np.array([2.1, 3.9, 6.2, 8.8, 12.5, 13.9, 18.4])
    for method, options in (("linear", {}), ("poly", {"order": 3}), ("log", {}), ("exp", {}), ("pow", {})):
        memory = fit_trend(x, y, method, band=LEVEL, **options)
        engine_line = engine_fit(x, y, method, band=LEVEL, **options)
        close([v for _, v in engine_line.coefficients], [v for _, v in memory.coefficients], rtol=1e-12)
        close(engine_line.upper, memory.upper, rtol=1e-12)
        assert engine_line.equation == memory.equation


def test_sums_of_arrays_count_what_the_query_counts():
    x = np.array([1.0, 1.0, 2.0, 2.0, 3.0])
    sums = sums_from_arrays(x, x, x, x, 2)
    engine_sums = fit_stage.fit_statistics(plan_trend("quad"), [((), None, x, x)])[0]
    assert sums.distinct == engine_sums.distinct == 3
    assert sums.n == engine_sums.n == 5
    close(engine_sums.powers, sums.powers, rtol=1e-15)


@pytest.mark.parametrize("x, method, order, message", [
    # A log of values <= 0, counted by the query (never a DuckDB error).
    ([0.0, 1.0, 2.0, -3.0], "log", None, errors.trend_nonpositive("x", 2, 4, "log")),
    # Distinct x peeled from both ends: exact below four...
    ([1.0, 1.0, 2.0, 3.0, 3.0], "poly", 3, errors.trend_order_too_high(3, 3)),
    ([1.0, 2.0], "quad", None, errors.trend_order_too_high(2, 2)),
    # ... and counted in full for a degree past that.
    ([1.0, 2.0, 3.0, 4.0, 5.0, 5.0], "poly", 5, errors.trend_order_too_high(5, 5)),
    ([2.0, 2.0, 2.0], "linear", None, errors.trend_too_few_x(1)),
])
def test_engine_checks_say_what_the_in_memory_fit_says(x, method, order, message):
    y = [1.0 + v for v in x]
    options = {"order": order} if order else {}
    for fit in (lambda: fit_trend(x, y, method, **options), lambda: engine_fit(x, y, method, **options)):
        with pytest.raises(SpecError) as raised:
            fit()
        assert raised.value.message == message


def test_a_group_without_finite_values_has_no_sums():
    plan = plan_trend("linear")
    sums = fit_stage.fit_statistics(plan, [((), "a", np.array([math.nan]), np.array([1.0])),
                                           ((), "b", np.array([1.0, 2.0]), np.array([1.0, 3.0]))])
    assert list(sums) == [1]
    with pytest.raises(SpecError) as raised:
        fit_values(plan, [math.nan], [1.0])
    assert raised.value.message == errors.trend_too_few_x(0)


@pytest.mark.parametrize("method, cls, options", [("loess", Loess, {"bandwidth": 0.5}),
                                                  ("moving-average", MovingAverage, {"window": 3})])
def test_a_smoother_over_more_rows_than_it_fits_is_refused(monkeypatch, method, cls, options):
    x = np.arange(10.0)
    monkeypatch.setattr(cls, "max_rows", 10)
    assert fit_trend(x, x * 2, method, **options).n == 10
    monkeypatch.setattr(cls, "max_rows", 9)
    with pytest.raises(SpecError) as raised:
        fit_trend(x, x * 2, method, **options)
    assert raised.value.message == errors.trend_too_many_rows(method, 10, 9)
    assert raised.value.hint == errors.trend_too_many_rows_hint()
    assert raised.value.path == ("method",)


@pytest.mark.parametrize("x, y", [
    ([1e308, 1.5e308, 1.7e308], [1.0, 2.0, 3.0]),      # Σx overflows: the centre is inf
    ([-1.7e308, 0.0, 1.7e308], [1.0, 2.0, 3.0]),       # the spread overflows
    ([1.0, 2.0, 3.0], [1e308, 1.5e308, 1.7e308]),
])
def test_sums_past_double_precision_are_a_diagnostic(x, y):
    for fit in (lambda: fit_trend(x, y, "linear", band=LEVEL), lambda: engine_fit(x, y, "linear", band=LEVEL)):
        with pytest.raises(SpecError) as raised:
            fit()
        assert raised.value.message == errors.trend_not_finite("linear")


@pytest.mark.parametrize("spec", ["trend_linear", "trend_poly", "trend_log", "trend_by"])
def test_a_compile_fits_the_same_lines_in_memory_and_in_the_engine(spec, monkeypatch):
    """The fit stage sums small layers in memory and large ones in the engine: the same lines either way."""
    from chartc.pipeline import compile_spec

    from conftest import ROOT

    def lines(compiled):
        return [(line.group, line.n, *(value for _, value in line.coefficients), *line.y, *(line.upper or ()))
                for path in sorted(compiled.fits) for line in compiled.fits[path]]

    in_memory = lines(compile_spec(ROOT / "specs" / f"{spec}.yaml"))
    monkeypatch.setattr(fit_stage, "IN_MEMORY_ROWS", 0)
    in_engine = lines(compile_spec(ROOT / "specs" / f"{spec}.yaml"))
    assert len(in_memory) == len(in_engine) > 0
    for mine, theirs in zip(in_memory, in_engine):
        assert mine[:2] == theirs[:2]
        assert np.allclose(mine[2:], theirs[2:], rtol=1e-12, atol=1e-12)  # coefficients, curve, band


@pytest.mark.parametrize("values", [
    [], [1.0], [0.0, -0.0], [3.0, 1.0, 3.0, 2.0], [math.nan, math.nan, 1.0], [math.inf, -math.inf, math.inf],
    [5e-324, 0.0, -5e-324], list(np.random.default_rng(7).integers(0, 50, 1000).astype(float)),
])
def test_count_distinct_counts_as_np_unique(values):
    # The fit counts distinct x with a set (np.unique imports numpy.ma on its first call): the same count.
    array = np.array(values, dtype=float)
    assert count_distinct(array) == len(np.unique(array))
