"""The statistics of the trend layer against independent implementations.

Each method or statistic is checked against the library people compare with,
with the tolerance stated beside it:

- `moving-average` (centred and trailing), `ewm` and `expanding` against pandas' rolling, ewm and expanding means;
- weighted least squares (coefficients, R², statistics, bands) against statsmodels' `WLS`, in memory and
  from the engine's weighted sums above 100,000 rows;
- `robust` against statsmodels' `RLM` (HuberT, TukeyBiweight), `logistic` (and its band) against `GLM`
  (Binomial), `quantile` against `QuantReg`;
- `loess` robustness iterations against statsmodels' `lowess(it=...)`;
- the label statistics `{p}`, `{f}`, `{slope_ci}`, `{adj_r2}`, `{aic}`, `{bic}`, `{rmse}` against OLS results,
  the F and t tail probabilities against scipy, and the label as the renderer draws it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.nonparametric.smoothers_lowess import lowess

from chartc import errors
from chartc.errors import SpecError
from chartc.trends.fitting import fit_trend, plan_trend
from chartc.trends.tdist import f_upper, student_t_two_sided
from conftest import compile_text


def sample(n: int = 80, seed: int = 7):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, n)
    y = 2.0 + 3.0 * x + rng.standard_t(3, n) * 2.0
    return x, y


def at(line, xs):
    """The drawn curve (and band) of a line at the sampled x (`extent` and `samples` chose them)."""
    np.testing.assert_allclose(line.x, xs)
    return np.array(line.y)


# ---------------------------------------------------------------- smoothers vs pandas (rtol 1e-12)

@pytest.mark.parametrize("align", ["centered", "trailing"])
@pytest.mark.parametrize("window", [1, 4, 5])
def test_moving_average_matches_pandas_rolling(align, window):
    x, y = sample(60)
    order = np.argsort(x, kind="stable")
    expected = pd.Series(y[order]).rolling(window, center=align == "centered", min_periods=1).mean().to_numpy()
    line = fit_trend(x, y, "moving-average", window=window, align=align)
    np.testing.assert_allclose(line.y, expected, rtol=1e-12)


@pytest.mark.parametrize("decay", [{"alpha": 0.3}, {"com": 4}, {"span": 10}, {"halflife": 2.5}])
@pytest.mark.parametrize("adjust", [True, False])
def test_ewm_matches_pandas(decay, adjust):
    x, y = sample(60)
    order = np.argsort(x, kind="stable")
    expected = pd.Series(y[order]).ewm(**decay, adjust=adjust).mean().to_numpy()
    line = fit_trend(x, y, "ewm", adjust=adjust, **decay)
    np.testing.assert_allclose(line.y, expected, rtol=1e-12)


def test_expanding_matches_pandas():
    x, y = sample(60)
    order = np.argsort(x, kind="stable")
    line = fit_trend(x, y, "expanding")
    np.testing.assert_allclose(line.y, pd.Series(y[order]).expanding().mean().to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("decay, key, message", [
    ({}, "method", errors.trend_ewm_decay([])),
    ({"span": 5, "alpha": 0.2}, "span", errors.trend_ewm_decay(["alpha", "span"])),
    ({"alpha": 1.5}, "alpha", errors.trend_parameter_bound("alpha", 1.5, "0 < alpha ≤ 1")),
])
def test_ewm_needs_exactly_one_decay(decay, key, message):
    with pytest.raises(SpecError) as caught:
        plan_trend("ewm", **decay)
    assert caught.value.message == message
    assert caught.value.path == (key,)


def test_a_key_of_another_method_is_refused():
    with pytest.raises(SpecError) as caught:
        plan_trend("loess", weight="n")
    assert caught.value.message == errors.trend_parameter_unused("weight", "loess", ("linear", "poly", "quad", "log",
                                                                                     "exp", "pow"))


# ---------------------------------------------------------------- loess iterations vs statsmodels (atol 1e-12)

@pytest.mark.parametrize("iterations", [1, 3])
def test_loess_iterations_match_statsmodels_lowess(iterations):
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 10, 300)
    y = np.sin(x) + rng.standard_t(2, 300) * 0.3
    line = fit_trend(x, y, "loess", bandwidth=0.3, iterations=iterations)
    expected = lowess(y, x, frac=0.3, it=iterations, delta=0.01 * np.ptp(x))
    # The curve runs through the fitted value at each distinct x (all distinct here).
    np.testing.assert_allclose(line.y, expected[:, 1], rtol=0, atol=1e-12)
    assert line.equation == f"y = loess(x, bandwidth=0.3, iterations={iterations})"


# ---------------------------------------------------------------- weighted least squares vs WLS (rtol 1e-9)

@pytest.mark.parametrize("method, design", [
    ("linear", lambda x: sm.add_constant(x)),
    ("poly", lambda x: np.column_stack([np.ones_like(x), x, x * x])),
])
def test_weighted_fit_matches_wls(method, design):
    x, y = sample()
    w = np.random.default_rng(1).uniform(0.2, 3.0, len(x))
    grid = np.array([1.0, 5.0, 9.0])
    result = sm.WLS(y, design(x), weights=w).fit()
    params = {"order": 2} if method == "poly" else {}
    for kind in ("band", "prediction"):
        line = fit_trend(x, y, method, weights=w, weight="w", extent=(1, 9), samples=3, **{kind: 0.9}, **params)
        frame = result.get_prediction(design(grid)).summary_frame(alpha=0.1)
        np.testing.assert_allclose(at(line, grid), frame["mean"], rtol=1e-9)
        low, high = ("mean_ci_lower", "mean_ci_upper") if kind == "band" else ("obs_ci_lower", "obs_ci_upper")
        # statsmodels' prediction interval is for a new point of weight 1, as chartc's.
        np.testing.assert_allclose(line.lower, frame[low], rtol=1e-9)
        np.testing.assert_allclose(line.upper, frame[high], rtol=1e-9)
    np.testing.assert_allclose([v for _, v in line.coefficients], result.params, rtol=1e-9)
    np.testing.assert_allclose([line.r2, line.adj_r2, line.rse],
                               [result.rsquared, result.rsquared_adj, np.sqrt(result.mse_resid)], rtol=1e-9)
    statistics = dict(line.statistics)
    np.testing.assert_allclose([statistics[k] for k in ("f", "aic", "bic")],
                               [result.fvalue, result.aic, result.bic], rtol=1e-9)


@pytest.mark.slow
def test_weighted_fit_in_the_engine_matches_wls(tmp_path):
    """Above 100,000 rows the weighted sums come from the engine: the same fit as WLS, to 1e-9."""
    rng = np.random.default_rng(5)
    n = 120_000
    x = rng.uniform(0, 100, n)
    w = rng.integers(1, 5, n).astype(float)
    y = 1.5 - 0.25 * x + rng.normal(0, 3, n) / np.sqrt(w)
    pd.DataFrame({"x": x, "y": y, "w": w}).to_csv(tmp_path / "rows.csv", index=False)
    compiled = compile_text(tmp_path, """
        data: {path: rows.csv, sample: 1000}
        encoding: {x: x, y: y}
        layers:
          - mark: point
          - trend: {method: linear, weight: w, label: "slope {slope:.9f}, R² {r2:.9f}, AIC {aic:.6f}"}
    """)
    result = sm.WLS(y, sm.add_constant(x), weights=w).fit()
    (line,) = compiled.fits[("layers", 1)]
    assert line.label == f"slope {result.params[1]:.9f}, R² {result.rsquared:.9f}, AIC {result.aic:.6f}"


def test_weights_must_be_positive():
    x, y = sample(20)
    w = np.ones(20)
    w[3] = 0.0
    with pytest.raises(SpecError) as caught:
        fit_trend(x, y, "linear", weights=w, weight="w")
    assert caught.value.message == errors.trend_weight_nonpositive(1, 20)
    assert caught.value.path == ("weight",)


def test_weight_field_must_exist(tmp_path):
    with pytest.raises(SpecError) as caught:
        compile_text(tmp_path, """
            data: {values: [{x: 1, y: 2}, {x: 2, y: 3}, {x: 3, y: 5}]}
            encoding: {x: x, y: y}
            layers:
              - mark: point
              - trend: {method: linear, weight: count}
        """)
    assert caught.value.message == errors.trend_weight_not_found("count", ["x", "y"])
    assert str(caught.value.location).endswith(":6:37")  # the field name written


# ---------------------------------------------------------------- robust vs RLM (rtol 1e-9)

@pytest.mark.parametrize("robust, norm", [(True, sm.robust.norms.HuberT()), ("huber", sm.robust.norms.HuberT()),
                                          ("bisquare", sm.robust.norms.TukeyBiweight())])
@pytest.mark.parametrize("order", [1, 2])
def test_robust_fit_matches_rlm(robust, norm, order):
    x, y = sample(120)
    y[:6] += 40.0   # outliers
    design = np.vander(x, order + 1, increasing=True)
    # statsmodels stops when the deviance moves by less than `tol`; held to 1e-14 it reaches the fixed point.
    result = sm.RLM(y, design, M=norm).fit(tol=1e-14, maxiter=500)
    line = (fit_trend(x, y, "linear", robust=robust) if order == 1
            else fit_trend(x, y, "poly", order=2, robust=robust))
    np.testing.assert_allclose([v for _, v in line.coefficients], result.params, rtol=1e-9)
    assert line.r2 is None and line.statistics == ()


def test_robust_draws_no_band():
    with pytest.raises(SpecError) as caught:
        plan_trend("linear", robust=True, band=0.95)
    assert caught.value.path == ("band",)


# ---------------------------------------------------------------- logistic vs GLM (rtol 1e-9)

def test_logistic_matches_glm_with_its_band():
    rng = np.random.default_rng(11)
    x = rng.uniform(0, 10, 150)
    y = (rng.uniform(size=150) < 1.0 / (1.0 + np.exp(-(x - 5.0)))).astype(float)
    grid = np.array([1.0, 5.0, 9.0])
    line = fit_trend(x, y, "logistic", band=0.95, extent=(1, 9), samples=3)
    result = sm.GLM(y, sm.add_constant(x), family=sm.families.Binomial()).fit(tol=1e-14)
    frame = result.get_prediction(sm.add_constant(grid)).summary_frame(alpha=0.05)
    np.testing.assert_allclose([v for _, v in line.coefficients], result.params, rtol=1e-9)
    np.testing.assert_allclose(at(line, grid), frame["mean"], rtol=1e-9)
    np.testing.assert_allclose(line.lower, frame["mean_ci_lower"], rtol=1e-9)
    np.testing.assert_allclose(line.upper, frame["mean_ci_upper"], rtol=1e-9)


def test_logistic_takes_proportions_and_refuses_other_values():
    x = np.arange(10.0)
    p = np.array([0.05, 0.1, 0.1, 0.3, 0.4, 0.6, 0.7, 0.85, 0.9, 0.95])
    line = fit_trend(x, p, "logistic")
    result = sm.GLM(p, sm.add_constant(x), family=sm.families.Binomial()).fit(tol=1e-14)
    np.testing.assert_allclose([v for _, v in line.coefficients], result.params, rtol=1e-9)
    with pytest.raises(SpecError) as caught:
        fit_trend(x, p * 2, "logistic")
    assert caught.value.message == errors.trend_logistic_values(5, 10)


def test_logistic_refuses_a_prediction_band_and_separated_classes():
    with pytest.raises(SpecError) as caught:
        plan_trend("logistic", prediction=0.95)
    assert caught.value.path == ("prediction",)
    with pytest.raises(SpecError) as caught:
        fit_trend(np.arange(10.0), (np.arange(10) > 4).astype(float), "logistic")
    assert caught.value.message == errors.trend_not_converged("logistic")


# ---------------------------------------------------------------- quantile vs QuantReg (rtol 1e-5)

@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
def test_quantile_matches_quantreg(q):
    """Both iterate to a step below 1e-6 (chartc in its centred basis): they agree to about that."""
    x, y = sample(200)
    line = fit_trend(x, y, "quantile", quantile=q)
    result = sm.QuantReg(y, sm.add_constant(x)).fit(q=q)
    np.testing.assert_allclose([v for _, v in line.coefficients], result.params, rtol=1e-5)
    # And about the share q of the points lies below the line.
    below = np.mean(y < line.coefficients[0][1] + line.coefficients[1][1] * x)
    assert abs(below - q) < 0.02


# ---------------------------------------------------------------- label statistics vs OLS (rtol 1e-9)

@pytest.mark.parametrize("method, order", [("linear", 1), ("poly", 3)])
def test_label_statistics_match_ols(method, order):
    x, y = sample()
    result = sm.OLS(y, np.vander(x, order + 1, increasing=True)).fit()
    line = fit_trend(x, y, method, **({"order": order} if method == "poly" else {}))
    statistics = dict(line.statistics)
    p = result.pvalues[1] if order == 1 else result.f_pvalue   # a line's slope; otherwise the F test
    np.testing.assert_allclose(
        [statistics["p"], statistics["f"], statistics["aic"], statistics["bic"], statistics["rmse"], line.adj_r2],
        [p, result.fvalue, result.aic, result.bic, np.sqrt(result.ssr / result.nobs), result.rsquared_adj],
        rtol=1e-9)
    if order == 1:
        np.testing.assert_allclose(statistics["slope_ci"], result.conf_int(alpha=0.05)[1], rtol=1e-12)
        assert result.f_pvalue == pytest.approx(statistics["p"], rel=1e-9)  # F = t² for one slope
    else:
        assert "slope_ci" not in statistics


def test_statistics_in_a_log_space_are_the_straightened_fit():
    x, y = sample()
    y = np.exp(y / 10.0)
    result = sm.OLS(np.log(y), sm.add_constant(x)).fit()
    statistics = dict(fit_trend(x, y, "exp").statistics)
    np.testing.assert_allclose([statistics["p"], statistics["aic"]], [result.pvalues[1], result.aic], rtol=1e-9)


@pytest.mark.parametrize("t, df", [(0.3, 3), (2.5, 10), (8.0, 40), (40.0, 7.5), (1e-3, 1000)])
def test_t_tail_matches_scipy(t, df):
    assert student_t_two_sided(t, df) == pytest.approx(2 * stats.t.sf(t, df), rel=1e-12)


@pytest.mark.parametrize("f, d1, d2", [(0.5, 2, 10), (3.0, 3, 50), (300.0, 1, 78), (1223.0, 2, 7), (1e-4, 5, 5)])
def test_f_tail_matches_scipy(f, d1, d2):
    assert f_upper(f, d1, d2) == pytest.approx(stats.f.sf(f, d1, d2), rel=1e-11)


def test_smoothers_have_no_statistics():
    x, y = sample()
    with pytest.raises(SpecError) as caught:
        from chartc.trends.labels import format_trend_label

        format_trend_label("{p}", fit_trend(x, y, "loess"))
    assert caught.value.message == errors.trend_label_undefined("p", "loess")


def test_label_statistics_as_drawn(tmp_path):
    """The legend label with {p}, {slope_ci}, {rmse}, read from what the renderer draws."""
    import vl_convert

    from conftest import scene_nodes

    rows = [{"x": float(i), "y": float(v)} for i, v in enumerate([2.1, 3.9, 6.2, 8.1, 9.7, 12.4, 13.8, 16.1])]
    values = ", ".join(f"{{x: {r['x']}, y: {r['y']}}}" for r in rows)
    compiled = compile_text(tmp_path, f"""
        data: {{values: [{values}]}}
        encoding: {{x: x, y: y}}
        layers:
          - mark: point
          - trend: {{method: linear, label: "p={{p:.2e}} CI=[{{slope_ci[0]:.3f}}, {{slope_ci[1]:.3f}}] rmse={{rmse:.3f}}"}}
    """)
    x = np.array([r["x"] for r in rows])
    result = sm.OLS(np.array([r["y"] for r in rows]), sm.add_constant(x)).fit()
    low, high = result.conf_int(alpha=0.05)[1]
    expected = f"p={result.pvalues[1]:.2e} CI=[{low:.3f}, {high:.3f}] rmse={np.sqrt(result.ssr / 8):.3f}"
    texts = [item.get("text") for node in scene_nodes(vl_convert.vegalite_to_scenegraph(compiled.vega_lite), "text")
             for item in node["items"]]
    assert expected in texts


# ---------------------------------------------------------------- loess degree 2 and its band vs R

# R's `cars` data (?cars: speed in mph, stopping distance in ft, 50 rows, from Ezekiel 1930).
CARS_SPEED = [4, 4, 7, 7, 8, 9, 10, 10, 10, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 16,
              16, 17, 17, 17, 18, 18, 18, 18, 19, 19, 19, 20, 20, 20, 20, 20, 22, 23, 24, 24, 24, 24, 25]
CARS_DIST = [2, 10, 4, 22, 16, 10, 18, 26, 34, 17, 28, 14, 20, 24, 28, 26, 34, 34, 46, 26, 36, 60, 80, 20, 26, 54,
             32, 40, 32, 40, 50, 42, 56, 76, 84, 36, 46, 68, 32, 48, 52, 56, 64, 66, 54, 70, 92, 93, 120, 85]
# ?predict.loess: predict(loess(dist ~ speed, cars), data.frame(speed = seq(5, 30, 1)), se = TRUE)$fit, as R's
# documentation prints it (6 decimals; NA past 25). R interpolates over a k-d tree: at its vertices the fit is
# the exact local fit.
R_PUBLISHED_FIT = [7.797353, 10.002308, 12.499786, 15.281082, 18.446568, 21.865315, 25.517015, 29.350386, 33.230660,
                   37.167935, 41.205226, 45.055736, 48.355889, 49.824812, 51.986702, 56.461318, 61.959729, 68.569313,
                   76.316068, 85.212121, 95.324047]
R_VERTICES = [8, 10, 12, 13, 14, 15, 17, 19, 22]
# The same with control = loess.control(surface = "direct", statistics = "exact"): fit and se.fit at speed 5..25
# and the t quantile's degrees of freedom, from Cleveland's netlib loess (the Fortran R's loess is built on,
# here through scikit-misc 0.5.3), printed to 8 decimals.
R_DIRECT_FIT = [7.74100583, 9.92659562, 12.44242380, 15.28108222, 18.42571151, 21.86531537, 25.71341287, 29.35038588,
                33.23066035, 37.16793518, 41.20522620, 45.78154389, 48.35588898, 50.06714779, 51.98670217,
                56.44526335, 62.02540397, 68.56931291, 76.19311112, 85.05336365, 95.30052251]
R_DIRECT_SE = [7.55971427, 5.95415285, 5.00785483, 4.54623841, 4.31801087, 4.11591332, 3.93653544, 3.71701205,
               3.77774021, 4.09260610, 4.71055724, 4.39528590, 4.03677708, 4.18078558, 4.00554659, 4.05849479,
               4.03065107, 4.07551947, 4.58080214, 5.94754191, 8.30000879]
R_DIRECT_DF = 44.6454586716


def test_loess_degree_2_matches_r_cars():
    """R's defaults (span 0.75, degree 2): the exact fit to 1e-8 (8 decimals printed), R's published interpolated
    fit at its k-d tree vertices to 1e-6 (6 decimals printed), and the 95% band fit ± t(0.975, df)·se."""
    speed, dist = np.array(CARS_SPEED, float), np.array(CARS_DIST, float)
    grid = np.arange(5.0, 26.0)
    line = fit_trend(speed, dist, "loess", bandwidth=0.75, degree=2, band=0.95, extent=(5, 25))
    # With a band the curve runs through the exact fit at every distinct x (and the extent's ends).
    drawn = dict(zip(line.x, line.y))
    shown = [x for x in grid if x in drawn]
    assert len(shown) == 19   # 5 (the extent), then every speed from 7 to 25 but 21
    np.testing.assert_allclose([drawn[x] for x in shown], [R_DIRECT_FIT[int(x) - 5] for x in shown], rtol=0, atol=1e-8)
    np.testing.assert_allclose([drawn[x] for x in R_VERTICES], [R_PUBLISHED_FIT[x - 5] for x in R_VERTICES],
                               rtol=0, atol=1e-6)
    half = stats.t.ppf(0.975, R_DIRECT_DF) * np.array([R_DIRECT_SE[int(x) - 5] for x in shown])
    lower = dict(zip(line.x, line.lower))
    np.testing.assert_allclose([lower[x] for x in shown], [R_DIRECT_FIT[int(x) - 5] for x in shown] - half,
                               rtol=0, atol=1e-7)


def test_loess_degree_2_interpolates_between_exact_fits():
    """Without a band, a degree-2 loess fits 1% of the range apart and interpolates: exact at its fits."""
    from chartc.trends.methods.loess import loess_operator, smooth_loess

    x, y = sample(400)
    exact = loess_operator(x, x, 0.75, 2) @ y
    fitted = smooth_loess(x, y, 0.75, degree=2)
    np.testing.assert_allclose(fitted, exact, rtol=1e-12, atol=1e-12)
    interpolated = smooth_loess(x, y, 0.75, delta=0.01 * np.ptp(x), degree=2)
    assert np.max(np.abs(interpolated - exact)) < 1e-3 * np.ptp(y)


def test_loess_band_refuses_iterations_and_too_many_points():
    with pytest.raises(SpecError) as caught:
        plan_trend("loess", iterations=3, band=0.95)
    assert caught.value.path == ("band",)
    x = np.arange(2001.0)
    with pytest.raises(SpecError) as caught:
        fit_trend(x, x, "loess", band=0.95)
    assert caught.value.message == errors.trend_loess_band_rows(2001, 2000)
