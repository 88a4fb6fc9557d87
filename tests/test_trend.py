"""Trend fits agree with statsmodels and pandas on real data.

OLS methods are compared with ``statsmodels`` OLS (coefficients, R², adjusted
R², residual standard error, confidence and prediction limits at the sample
points), loess with ``statsmodels`` lowess, and the moving average with pandas'
rolling mean, on the vega-datasets cars and Anscombe data.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from statsmodels.nonparametric.smoothers_lowess import lowess
from statsmodels.regression.linear_model import OLS
from vega_datasets import data

from chartc import errors
from chartc.errors import SpecError, did_you_mean
from chartc.trends.fitting import (
    BAND_METHODS,
    LABEL_PLACEHOLDERS,
    SCALE_TRANSFORMS,
    SPACES,
    TREND_METHODS,
    TrendLine,
    fit_trend,
    format_trend_label,
    smooth_loess,
    smooth_moving_average,
    trend_summary,
)

RTOL = 1e-9
LEVEL = 0.95


def _load(name: str) -> pd.DataFrame:
    # vega_datasets passes a pandas keyword that newer pandas deprecates.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return getattr(data, name)()


@pytest.fixture(scope="module")
def cars() -> tuple[np.ndarray, np.ndarray]:
    frame = _load("cars")[["Horsepower", "Miles_per_Gallon"]].dropna()
    return (frame["Horsepower"].to_numpy(float),
            frame["Miles_per_Gallon"].to_numpy(float))


@pytest.fixture(scope="module")
def anscombe() -> pd.DataFrame:
    return _load("anscombe")


def close(actual, expected, rtol=RTOL):
    np.testing.assert_allclose(np.asarray(actual, float), np.asarray(expected, float),
                               rtol=rtol, atol=0)


# ---------------------------------------------------------------- OLS methods

def _log10(a):
    return np.log10(a)


def _symlog(a):
    return np.sign(a) * np.log10(1 + np.abs(a))


def _symlog_inverse(a):
    return np.sign(a) * (10 ** np.abs(a) - 1)


# id: (fit_trend keywords, x -> regressor, y -> response, response -> y,
#      polynomial degree, params -> coefficients as TrendLine names them)
OLS_CASES = {
    "linear": (dict(method="linear"), None, None, None, 1,
               lambda p: {"intercept": p[0], "slope": p[1]}),
    "poly3": (dict(method="poly", order=3), None, None, None, 3,
              lambda p: {f"c{k}": v for k, v in enumerate(p)}),
    "quad": (dict(method="quad"), None, None, None, 2,
             lambda p: {f"c{k}": v for k, v in enumerate(p)}),
    "log": (dict(method="log"), np.log, None, None, 1,
            lambda p: {"a": p[0], "b": p[1]}),
    "exp": (dict(method="exp"), None, np.log, np.exp, 1,
            lambda p: {"a": math.exp(p[0]), "b": p[1]}),
    "pow": (dict(method="pow"), np.log, np.log, np.exp, 1,
            lambda p: {"a": math.exp(p[0]), "b": p[1]}),
    "linear-logx": (dict(method="linear", x_scale="log"), _log10, None, None, 1,
                    lambda p: {"intercept": p[0], "slope": p[1]}),
    "linear-loglog": (dict(method="linear", x_scale="log", y_scale="log"),
                      _log10, _log10, lambda v: 10 ** v, 1,
                      lambda p: {"intercept": p[0], "slope": p[1]}),
    "quad-sqrtx": (dict(method="quad", x_scale="sqrt"), np.sqrt, None, None, 2,
                   lambda p: {f"c{k}": v for k, v in enumerate(p)}),
    "linear-symlogy": (dict(method="linear", y_scale="symlog"), None, _symlog,
                       _symlog_inverse, 1,
                       lambda p: {"intercept": p[0], "slope": p[1]}),
}


def _identity(a):
    return a


@pytest.mark.parametrize("case", OLS_CASES, ids=str)
def test_ols_methods_match_statsmodels_on_cars(cars, case):
    kwargs, fx, fy, fy_inverse, degree, named = OLS_CASES[case]
    fx, fy, fy_inverse = fx or _identity, fy or _identity, fy_inverse or _identity
    x, y = cars
    result = OLS(fy(y), np.vander(fx(x), degree + 1, increasing=True)).fit()

    line = fit_trend(x, y, band=LEVEL, **kwargs)
    assert line.n == len(x) == 392
    assert [name for name, _ in line.coefficients] == list(named(result.params))
    close([v for _, v in line.coefficients], list(named(result.params).values()))
    close(line.r2, result.rsquared)
    close(line.adj_r2, result.rsquared_adj)
    close(line.rse, math.sqrt(result.scale))

    # Statsmodels at the same sample points: evenly spaced in the x scale's space.
    scale_x = SCALE_TRANSFORMS[kwargs.get("x_scale", "linear")].forward
    grid = np.linspace(scale_x(x.min()), scale_x(x.max()), 100)
    grid_x = SCALE_TRANSFORMS[kwargs.get("x_scale", "linear")].inverse(grid)
    exog = np.vander(fx(grid_x), degree + 1, increasing=True)
    frame = result.get_prediction(exog).summary_frame(alpha=1 - LEVEL)
    close(line.x, grid_x, rtol=1e-12)
    close(line.y, fy_inverse(frame["mean"]))
    close(line.lower, fy_inverse(frame["mean_ci_lower"]))
    close(line.upper, fy_inverse(frame["mean_ci_upper"]))
    assert (line.band, line.band_kind) == (LEVEL, "confidence")

    predicted = fit_trend(x, y, prediction=0.9, **kwargs)
    limits = result.get_prediction(exog).conf_int(obs=True, alpha=0.1)
    close(predicted.lower, fy_inverse(limits[:, 0]))
    close(predicted.upper, fy_inverse(limits[:, 1]))
    assert (predicted.band, predicted.band_kind) == (0.9, "prediction")


@pytest.mark.parametrize("series", ["I", "II", "III", "IV"])
def test_anscombe_quartet(anscombe, series):
    rows = anscombe[anscombe["Series"] == series]
    x, y = rows["X"].to_numpy(float), rows["Y"].to_numpy(float)
    result = OLS(y, np.column_stack([np.ones_like(x), x])).fit()
    line = fit_trend(x, y, prediction=LEVEL, group=series)
    close([v for _, v in line.coefficients], result.params)
    close([line.r2, line.adj_r2, line.rse],
          [result.rsquared, result.rsquared_adj, math.sqrt(result.scale)])
    grid = np.linspace(x.min(), x.max(), 100)
    limits = result.get_prediction(np.column_stack([np.ones(100), grid])).conf_int(
        obs=True, alpha=1 - LEVEL)
    close(line.lower, limits[:, 0])
    close(line.upper, limits[:, 1])
    # Anscombe's (1973) published values, the same for all four sets.
    coefficients = dict(line.coefficients)
    assert f"{coefficients['slope']:.3f}" == "0.500"
    assert f"{coefficients['intercept']:.2f}" == "3.00"
    assert f"{line.r2:.2f}" == "0.67"
    assert line.group == series


# ---------------------------------------------------------------- smoothers

def _stable_order(x):
    return np.argsort(x, kind="stable")


# At 0.05 some windows hold one x value; statsmodels divides 0 by 0 there
# (and, like smooth_loess, falls back to the point's own y).
@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")
@pytest.mark.parametrize("bandwidth", [0.05, 0.1, 0.3, 2 / 3, 1.0])
def test_loess_matches_statsmodels_lowess(cars, bandwidth):
    x, y = cars
    # Horsepower has ties; statsmodels keeps tied points in its sort's order,
    # so give it the input order (which smooth_loess keeps) ready sorted.
    order = _stable_order(x)
    expected = np.empty_like(y)
    expected[order] = lowess(y[order], x[order], frac=bandwidth, it=0, delta=0,
                             is_sorted=True, return_sorted=False)
    close(smooth_loess(x, y, bandwidth), expected)


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")
@pytest.mark.parametrize("delta", [0.01, 0.05, 0.3])
@pytest.mark.parametrize("bandwidth", [0.05, 0.3, 1.0])
def test_loess_with_delta_matches_statsmodels_lowess(cars, bandwidth, delta):
    """Fits delta·range apart, interpolated in between (ties included), as statsmodels makes them."""
    x, y = cars
    order = _stable_order(x)
    expected = np.empty_like(y)
    expected[order] = lowess(y[order], x[order], frac=bandwidth, it=0, delta=delta * np.ptp(x),
                             is_sorted=True, return_sorted=False)
    close(smooth_loess(x, y, bandwidth, delta=delta * np.ptp(x)), expected)


def test_loess_on_many_points_is_statsmodels_fit():
    """10⁵ points with ties (a local fit per point took ~90 s): the curve drawn is statsmodels' fit."""
    rng = np.random.default_rng(3)
    x = np.round(rng.random(100_000), 4)
    y = np.sin(6 * x) + rng.normal(0, 0.1, x.size)
    line = fit_trend(x, y, "loess", bandwidth=0.3)
    order = _stable_order(x)
    fitted = np.empty_like(y)
    fitted[order] = lowess(y[order], x[order], frac=0.3, it=0, delta=0.01 * np.ptp(x),
                           is_sorted=True, return_sorted=False)
    unique, inverse = np.unique(x, return_inverse=True)
    means = np.bincount(inverse, weights=fitted) / np.bincount(inverse)
    close(line.y, np.interp(line.x, unique, means))


def test_loess_without_ties_matches_plain_lowess(anscombe):
    rows = anscombe[anscombe["Series"] == "I"]
    x, y = rows["X"].to_numpy(float), rows["Y"].to_numpy(float)
    expected = lowess(y, x, frac=0.5, it=0, delta=0, return_sorted=False)
    close(smooth_loess(x, y, 0.5), expected)


def test_loess_curve_interpolates_the_fit_and_stays_inside_the_data(cars):
    x, y = cars
    line = fit_trend(x, y, "loess", bandwidth=0.3, extent=(0, 1000), samples=60)
    fitted = smooth_loess(x, y, 0.3)
    unique = np.unique(x)
    at_unique = np.array([fitted[x == u][0] for u in unique])
    # The curve is the exact polyline through the fitted value at every distinct x.
    assert line.x == tuple(unique)
    close(line.y, at_unique, rtol=1e-14)
    assert (line.r2, line.adj_r2, line.rse, line.lower, line.band) == (None,) * 5
    assert line.coefficients == ()
    inside = fit_trend(x, y, "loess", bandwidth=0.3, extent=(100.5, 150))
    kept = unique[(unique > 100.5) & (unique < 150)]
    assert inside.x == (100.5, *kept, 150.0)
    close(inside.y, np.interp(inside.x, unique, at_unique))


def test_smoother_on_a_log_axis_in_data_space_is_sampled_on_the_axis(cars):
    x, y = cars
    line = fit_trend(x, y, "loess", bandwidth=0.3, x_scale="log", space="data", samples=50)
    grid = 10 ** np.linspace(np.log10(x.min()), np.log10(x.max()), 50)
    grid[0], grid[-1] = x.min(), x.max()
    expected_x = np.union1d(np.unique(x), grid)
    close(line.x, expected_x, rtol=1e-12)
    fitted = smooth_loess(x, y, 0.3)
    unique = np.unique(x)
    at_unique = np.array([fitted[x == u][0] for u in unique])
    close(line.y, np.interp(expected_x, unique, at_unique))  # fitted on raw x
    assert line.space == ("linear", "linear")


@pytest.mark.parametrize("window", [1, 2, 3, 4, 5, 10, 392])
def test_moving_average_matches_pandas_rolling_mean(cars, window):
    x, y = cars
    order = _stable_order(x)
    expected = np.empty_like(y)
    expected[order] = (pd.Series(y[order])
                       .rolling(window, center=True, min_periods=1).mean())
    averaged = smooth_moving_average(x, y, window)
    close(averaged, expected)
    line = fit_trend(x, y, "moving-average", window=window, samples=50)
    unique = np.unique(x)
    per_x = np.array([averaged[x == u].mean() for u in unique])
    assert line.x == tuple(unique)
    close(line.y, per_x)


# ---------------------------------------------------------------- scales, extent

def test_log_scale_at_1e24_is_a_finite_straight_line():
    x = np.logspace(22, 24, 40)
    y = 3.0 + 2.0 * np.log10(x) + 0.1 * np.sin(np.arange(40))
    line = fit_trend(x, y, "linear", x_scale="log", band=LEVEL)
    curve = np.array(line.y)
    assert np.all(np.isfinite(line.x + line.y + line.lower + line.upper))
    assert (line.x[0], line.x[-1]) == (1e22, 1e24)
    close(np.diff(np.log10(line.x)), np.full(99, 2 / 99), rtol=1e-9)
    assert np.max(np.abs(np.diff(curve, 2))) < 1e-12 * np.ptp(curve)
    assert abs(dict(line.coefficients)["slope"] - 2.0) < 0.05
    assert line.space == ("log", "linear")
    assert "log10(x)" in line.equation


def test_space_data_fits_untransformed_values(cars):
    x, y = cars
    axis = fit_trend(x, y, "log", x_scale="log", space="data")
    plain = fit_trend(x, y, "log")
    assert axis.coefficients == plain.coefficients
    assert axis.space == ("linear", "linear")
    # ... but is still sampled evenly on the log axis it is drawn on.
    close(np.diff(np.log10(axis.x)), np.full(99, np.log10(x.max() / x.min()) / 99), rtol=1e-9)
    a, b = (v for _, v in axis.coefficients)
    close(axis.y, a + b * np.log(axis.x))


def test_pow_scale_follows_its_exponent(cars):
    x, y = cars
    line = fit_trend(x, y, "linear", x_scale="pow", x_exponent=0.5, band=LEVEL)
    result = OLS(y, np.column_stack([np.ones_like(x), np.sqrt(x)])).fit()
    close([v for _, v in line.coefficients], result.params)
    grid = np.linspace(np.sqrt(x.min()), np.sqrt(x.max()), 100)
    close(line.x, grid ** 2, rtol=1e-12)
    frame = result.get_prediction(np.column_stack([np.ones(100), grid])).summary_frame(
        alpha=1 - LEVEL)
    close(line.lower, frame["mean_ci_lower"])
    assert line.space == ("pow", "linear") and "x^0.5" in line.equation
    assert fit_trend(x, y, x_scale="pow").space == ("linear", "linear")  # exponent 1
    with pytest.raises(SpecError) as caught:
        fit_trend(x, y, x_scale="pow", x_exponent=0)
    assert caught.value.message == errors.trend_scale_exponent("x", 0)


def test_extent_and_samples(cars):
    x, y = cars
    line = fit_trend(x, y, extent=(0, 300), samples=7)
    assert line.x == (0.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0)
    intercept, slope = (v for _, v in line.coefficients)
    close(line.y, intercept + slope * np.array(line.x), rtol=1e-12)
    half_open = fit_trend(x, y, extent=(None, 300), samples=3)
    assert half_open.x == (x.min(), (x.min() + 300) / 2, 300.0)


def test_missing_rows_are_dropped():
    x = [1, 2, None, 4, float("nan"), 6, float("inf"), 8]
    y = [2, 4, 6, None, 10, 12, 14, 16.5]
    line = fit_trend(x, y)
    assert line.n == 4
    reference = fit_trend([1, 2, 6, 8], [2, 4, 12, 16.5])
    assert line == reference


def test_fits_are_deterministic(cars):
    x, y = cars
    for method, options in [("poly", {"order": 3}), ("loess", {}),
                            ("moving-average", {"window": 6})]:
        assert fit_trend(x, y, method, **options) == fit_trend(x, y, method, **options)


# ---------------------------------------------------------------- labels, summary

@pytest.fixture(scope="module")
def car_line(cars) -> TrendLine:
    x, y = cars
    return fit_trend(x, y, band=LEVEL, group="USA")


def test_label_placeholders(car_line):
    r2, (intercept, slope) = car_line.r2, (v for _, v in car_line.coefficients)
    assert format_trend_label("Trend (R²={r2:.3f})", car_line) == f"Trend (R²={r2:.3f})"
    assert format_trend_label("Trend (R²={r2:.3f})", car_line) == "Trend (R²=0.606)"
    assert (format_trend_label("{method} {group} n={n}: {slope:.4f}, {intercept:.2f}",
                               car_line)
            == f"linear USA n=392: {slope:.4f}, {intercept:.2f}")
    assert format_trend_label("{coef[1]:.2f} {adj_r2:.2f} {rse:.2f}", car_line) == \
        f"{slope:.2f} {car_line.adj_r2:.2f} {car_line.rse:.2f}"
    assert format_trend_label("{equation}", car_line) == "y = 39.94 − 0.1578·x"
    # A nested spec is filled in, then bounded: n = 392 is no precision (tests/test_bounds.py).
    assert format_trend_label("{{literal}} {r2:.{n}}", dataclasses.replace(car_line, n=5)) == f"{{literal}} {car_line.r2:.5}"
    with pytest.raises(SpecError) as caught:
        format_trend_label("{{literal}} {r2:.{n}}", car_line)
    assert caught.value.message == errors.trend_label_spec_too_large("{r2:.{n}}", "precision", "392", 20)


def test_equations(cars):
    x, y = cars
    equations = {
        "quad": "y = 56.9 − 0.4662·x + 0.001231·x²",
        "log": "y = 108.7 − 18.58·ln(x)",
        "exp": "y = 47.68·e^(−0.007334·x)",
        "pow": "y = 1054·x^(−0.8418)",
        "loess": "y = loess(x, bandwidth=0.3)",
    }
    for method, equation in equations.items():
        assert fit_trend(x, y, method).equation == equation
    assert fit_trend(x, y, "poly", order=3).equation.endswith("− 2.147×10⁻⁶·x³")
    assert fit_trend(x, y, y_scale="log").equation.startswith("log10(y) = ")


def test_summary_is_json_ready(car_line):
    summary = trend_summary(car_line)
    assert json.loads(json.dumps(summary, allow_nan=False)) == summary
    assert summary["coefficients"] == dict(car_line.coefficients)
    assert summary["band"] == LEVEL and summary["band_kind"] == "confidence"
    assert summary["space"] == {"x": "linear", "y": "linear"}
    assert set(summary) == {"method", "group", "label", "n", "coefficients", "r2", "adj_r2",
                            "rse", "statistics", "band", "band_kind", "space", "x_type", "equation"}
    assert set(summary["statistics"]) == {"p", "f", "slope_ci", "aic", "bic", "rmse"}
    assert summary["statistics"]["slope_ci"] == list(dict(car_line.statistics)["slope_ci"])
    assert (summary["label"], summary["x_type"]) == (None, "quantitative")


# ---------------------------------------------------------------- errors

X4 = [1.0, 2.0, 3.0, 4.0]
Y4 = [2.0, 3.0, 5.0, 4.0]

ERROR_CASES = {
    "unknown method": (
        dict(method="lineer"),
        errors.trend_unknown_method("lineer", TREND_METHODS), "did you mean 'linear'?"),
    "unknown scale": (
        dict(x_scale="logg"),
        errors.trend_unknown_scale("x", "logg", (*SCALE_TRANSFORMS, "pow")),
        "did you mean 'log'?"),
    "unknown space": (
        dict(space="axes"),
        errors.trend_unknown_space("axes", SPACES), "did you mean 'axis'?"),
    "one distinct x": (
        dict(x=[2, 2, 2, None], y=[1, 2, 3, 4]),
        errors.trend_too_few_x(1), errors.trend_too_few_x_hint()),
    "no rows": (
        dict(x=[None, float("nan")], y=[1, 2]),
        errors.trend_too_few_x(0), errors.trend_too_few_x_hint()),
    "not numeric": (
        dict(x=[1, "ten", 3], y=[1, 2, 3]),
        errors.trend_not_numeric("x", "ten"), errors.trend_not_numeric_hint()),
    "poly without order": (
        dict(method="poly"), errors.trend_poly_order(None), errors.trend_poly_order_hint()),
    "poly order 0": (
        dict(method="poly", order=0), errors.trend_poly_order(0),
        errors.trend_poly_order_hint()),
    "poly order 2.5": (
        dict(method="poly", order=2.5), errors.trend_poly_order(2.5),
        errors.trend_poly_order_hint()),
    "quad order 3": (
        dict(method="quad", order=3), errors.trend_quad_order(3),
        errors.trend_quad_order_hint(3)),
    "order too high": (
        dict(method="poly", order=4), errors.trend_order_too_high(4, 4),
        errors.trend_order_too_high_hint(4)),
    "log of x <= 0": (
        dict(method="log", x=[-1, 0, 1, 2]), errors.trend_nonpositive("x", 2, 4, "log"),
        errors.trend_nonpositive_hint("x", "log")),
    "pow of x <= 0": (
        dict(method="pow", x=[0, 1, 2, 3]), errors.trend_nonpositive("x", 1, 4, "pow"),
        errors.trend_nonpositive_hint("x", "pow")),
    "pow of y <= 0": (
        dict(method="pow", y=[-1, 1, 2, 3]), errors.trend_nonpositive("y", 1, 4, "pow"),
        errors.trend_nonpositive_hint("y", "pow")),
    "exp of y <= 0": (
        dict(method="exp", y=[-1, -2, 0, 3]), errors.trend_nonpositive("y", 3, 4, "exp"),
        errors.trend_nonpositive_hint("y", "exp")),
    "log x scale": (
        dict(x_scale="log", x=[0, 1, 2, 3]), errors.trend_nonpositive("x", 1, 4),
        errors.trend_nonpositive_hint("x")),
    "log y scale": (
        dict(y_scale="log", y=[0, -1, 2, 3]), errors.trend_nonpositive("y", 2, 4),
        errors.trend_nonpositive_hint("y")),
    "log on log x": (
        dict(method="log", x_scale="log"),
        errors.trend_log_on_log_axis("log", ["x"], ["x"]),
        errors.trend_log_on_log_axis_hint("linear")),
    "exp on log y": (
        dict(method="exp", y_scale="log"),
        errors.trend_log_on_log_axis("exp", ["y"], ["y"]),
        errors.trend_log_on_log_axis_hint("linear")),
    "pow on log x": (
        dict(method="pow", x_scale="log"),
        errors.trend_log_on_log_axis("pow", ["x", "y"], ["x"]),
        errors.trend_log_on_log_axis_hint("exp")),
    "pow on log-log": (
        dict(method="pow", x_scale="log", y_scale="log"),
        errors.trend_log_on_log_axis("pow", ["x", "y"], ["x", "y"]),
        errors.trend_log_on_log_axis_hint("linear")),
    "window missing": (
        dict(method="moving-average"), errors.trend_window(None, 4),
        errors.trend_window_hint()),
    "window 0": (
        dict(method="moving-average", window=0), errors.trend_window(0, 4),
        errors.trend_window_hint()),
    "window > n": (
        dict(method="moving-average", window=5), errors.trend_window(5, 4),
        errors.trend_window_hint()),
    "bandwidth 0": (
        dict(method="loess", bandwidth=0), errors.trend_bandwidth(0),
        errors.trend_bandwidth_hint()),
    "bandwidth 1.5": (
        dict(method="loess", bandwidth=1.5), errors.trend_bandwidth(1.5),
        errors.trend_bandwidth_hint()),
    "prediction on loess": (
        dict(method="loess", prediction=0.95), errors.trend_band_unsupported("loess"),
        errors.trend_band_unsupported_hint(BAND_METHODS)),
    "band on moving-average": (
        dict(method="moving-average", window=3, prediction=0.9),
        errors.trend_band_unsupported("moving-average"),
        errors.trend_band_unsupported_hint(BAND_METHODS)),
    "band level 95": (
        dict(band=95), errors.trend_band_level("confidence", 95),
        errors.trend_band_level_hint()),
    "prediction level 0": (
        dict(prediction=0), errors.trend_band_level("prediction", 0),
        errors.trend_band_level_hint()),
    "band and prediction": (
        dict(band=0.9, prediction=0.9), errors.trend_band_conflict(),
        errors.trend_band_conflict_hint()),
    "band on two points": (
        dict(x=[1, 2], y=[1, 3], band=0.95), errors.trend_band_too_few_points(2, 2),
        errors.trend_band_too_few_points_hint()),
    "extent reversed": (
        dict(extent=(5, 1)), errors.trend_extent((5, 1)), errors.trend_extent_hint()),
    "extent not a pair": (
        dict(extent=(1,)), errors.trend_extent((1,)), errors.trend_extent_hint()),
    "extent on log scale": (
        dict(x_scale="log", extent=(0, 10)), errors.trend_extent_nonpositive((0, 10)),
        errors.trend_extent_nonpositive_hint()),
    "extent for log method": (
        dict(method="log", extent=(-1, 10)),
        errors.trend_extent_nonpositive((-1, 10), "log"),
        errors.trend_extent_nonpositive_hint()),
    "extent misses data": (
        dict(method="loess", bandwidth=1, extent=(10, 20)),
        errors.trend_extent_misses_data((10, 20), "loess", 1, 4),
        errors.trend_extent_misses_data_hint()),
    "samples 1": (dict(samples=1), errors.trend_samples(1), None),
    "overflow": (
        dict(method="exp", y=[1, 20, 400, 8000], extent=(1, 1000)),
        errors.trend_not_finite("exp"), errors.trend_not_finite_hint()),
    # x over a span of ~4e-301: the curve is finite, but c2 is not.
    "coefficient overflow": (
        dict(method="poly", order=2, x=[1e-301, 2e-301, 3e-301, 5e-301], y=[1.0, 2.0, 2.9, 4.2]),
        errors.trend_not_finite("poly"), errors.trend_not_finite_hint()),
}


# The trend key each error concerns, relative to the trend (the fit stage
# puts it after the layer's path); () when the data is at fault.
ERROR_PATHS = {
    "unknown method": ("method",), "unknown space": ("space",),
    "poly without order": ("order",), "poly order 0": ("order",),
    "poly order 2.5": ("order",), "quad order 3": ("order",), "order too high": ("order",),
    "log of x <= 0": ("method",), "pow of x <= 0": ("method",), "pow of y <= 0": ("method",),
    "exp of y <= 0": ("method",), "log on log x": ("method",), "exp on log y": ("method",),
    "pow on log x": ("method",), "pow on log-log": ("method",),
    "window missing": ("window",), "window 0": ("window",), "window > n": ("window",),
    "bandwidth 0": ("bandwidth",), "bandwidth 1.5": ("bandwidth",),
    "prediction on loess": ("prediction",), "band on moving-average": ("prediction",),
    "band level 95": ("band",), "prediction level 0": ("prediction",),
    "band and prediction": ("prediction",), "band on two points": ("band",),
    "extent reversed": ("extent",), "extent not a pair": ("extent",),
    "extent on log scale": ("extent",), "extent for log method": ("extent",),
    "extent misses data": ("extent",),
}


@pytest.mark.parametrize("case", ERROR_CASES, ids=str)
def test_fit_errors(case):
    kwargs, message, hint = ERROR_CASES[case]
    kwargs = {"x": X4, "y": Y4, **kwargs}
    with pytest.raises(SpecError) as caught:
        fit_trend(kwargs.pop("x"), kwargs.pop("y"), **kwargs)
    assert (caught.value.message, caught.value.hint) == (message, hint)
    assert caught.value.stage == "fit"
    assert caught.value.path == ERROR_PATHS.get(case, ())


def test_log_method_on_log_axis_is_allowed_in_data_space():
    line = fit_trend(X4, Y4, "log", x_scale="log", space="data")
    assert line.space == ("linear", "linear")


@pytest.mark.parametrize("template, line_kind, message, hint", [
    ("R²={r2:.3f} {rsq}", "linear", errors.trend_label_placeholder("rsq"),
     errors.trend_label_placeholder_hint(LABEL_PLACEHOLDERS)),
    ("{} trend", "linear", errors.trend_label_placeholder(""),
     errors.trend_label_placeholder_hint(LABEL_PLACEHOLDERS)),
    ("{r2:.3q}", "linear", errors.trend_label_format(
        "{r2:.3q}", "Unknown format code 'q' for object of type 'float'"),
     errors.trend_label_format_hint()),
    ("R²={r2", "linear", errors.trend_label_format(
        "R²={r2", "expected '}' before end of string"), errors.trend_label_format_hint()),
    ("{coef[5]}", "linear", errors.trend_label_format(
        "{coef[5]}", "tuple index out of range"), errors.trend_label_format_hint()),
    ("R²={r2:.2f}", "loess", errors.trend_label_undefined("r2", "loess"),
     errors.trend_label_undefined_hint()),
    ("{slope}", "quad", errors.trend_label_undefined("slope", "quad"),
     errors.trend_label_undefined_hint()),
    ("{group}", "linear", errors.trend_label_undefined("group", "linear"),
     errors.trend_label_undefined_hint()),
])
def test_label_errors(template, line_kind, message, hint):
    line = fit_trend(X4, Y4, line_kind)
    with pytest.raises(SpecError) as caught:
        format_trend_label(template, line)
    assert (caught.value.message, caught.value.hint) == (message, hint)
    assert caught.value.path == ("label",)


def test_method_table_and_unknown_hint():
    assert set(TREND_METHODS) == {"linear", "poly", "quad", "log", "exp", "pow",
                                  "loess", "moving-average", "ewm", "expanding", "logistic", "quantile"}
    assert did_you_mean("cubic", TREND_METHODS) is None
    with pytest.raises(SpecError) as caught:
        fit_trend(X4, Y4, "cubic")
    assert caught.value.hint is None
