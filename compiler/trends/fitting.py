"""Trend layers: fit a curve through x/y data, in numpy.

Every function here is pure: plain arrays in, a frozen `TrendLine` out, with no
randomness, so the same data always gives the same floats.

Fitting happens in *fitting space*. When ``space="axis"`` (the default) x and
y are first put through the transform of their axis scale, so that a trend
looks the way its method promises on the chart as drawn: a linear trend on a
log x axis is a straight line on that axis (``y = b0 + b1·log10(x)``), and it
stays well conditioned for x around 1e24. ``space="data"`` fits the raw values.

Scale transforms (``space="axis"``):

- ``linear``, ``time``, ``utc``: none.
- ``pow`` (with its exponent e): ``sign(v)·|v|^e``, as Vega's pow scale.
- ``log``: ``log10(v)``; values must be positive.
- ``sqrt``: ``sign(v)·sqrt(|v|)``, as Vega's sqrt scale, so negatives are kept.
- ``symlog``: ``sign(v)·log10(1 + |v|)``. Vega's symlog uses the natural log;
  the two differ by a constant factor, which changes the printed coefficients
  but not the fitted curve or its band.

Methods are registered classes (`trends.registry`; the built-ins, one file
each, in `trends.methods`): each says how it fits, what its parameters are,
whether it draws bands, whether its curve extends past the data and which
variables it takes the logarithm of. This module runs what every method
shares: the scale transforms, the band request, the extent, the curve's
sampling and the checks that the result is finite.

A request is checked before any data is read (`plan_trend`), then fitted on
values in memory (`fit_values`) or, for the least-squares methods
(`TrendMethod.from_moments`), on a group's sufficient statistics (`fit_sums`),
which the engine sums in one query for every group of a layer (`sums_sql`,
`trends.moments`): the fit stage takes that path, so a fit's cost in Python
does not grow with its rows. `fit_trend` is both steps on arrays.

Curves are sampled evenly on the x axis as drawn. The smoothers (methods
whose `TrendMethod.extrapolates` is False) are drawn as the polyline through
their fitted value at each distinct x; they do not extrapolate, so an
`extent` wider than the data is cut to the data's x range.
Bands (``band`` for the confidence band of the mean, ``prediction`` for the
prediction band) use Student's t and exist for the methods that declare
`TrendMethod.has_band` (the least-squares ones).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .. import errors
from ..errors import SpecError, did_you_mean
from . import registry
from .labels import LABEL_MAX_LENGTH, LABEL_MAX_PRECISION, LABEL_MAX_WIDTH, format_trend_label, label_values
from .line import TrendLine
from .methods import TrendMethod
from .methods.loess import smooth_loess
from .methods.moving_average import smooth_moving_average
from .moments import Sums, extent_query, shifted_query, sums_query
from .numerics import (IDENTITY, SCALE_TRANSFORMS, Transform, count_distinct, is_number, is_whole, pow_transform,
                       refuse_nonpositive, require_positive)

__all__ = [
    "BAND_METHODS", "LABEL_MAX_LENGTH", "LABEL_MAX_PRECISION", "LABEL_MAX_WIDTH", "LABEL_PLACEHOLDERS",
    "SCALE_TRANSFORMS", "SPACES", "TREND_METHODS", "TrendLine", "TrendPlan", "extent_sql", "fit_sums", "fit_trend",
    "fit_values", "format_trend_label", "line_subset", "plan_trend", "shifted_sql", "smooth_loess",
    "smooth_moving_average", "sums_sql",
    "trend_summary",
]

STAGE = "fit"

# Keys a method that does not declare them refuses rather than ignores (older keys, such as a `window` beside a
# `linear`, are still ignored: specs written before them keep compiling).
NEW_PARAMETERS = frozenset({"weight", "robust", "align", "alpha", "com", "span", "halflife", "adjust", "quantile",
                            "iterations"})

# The built-in methods' names, those with bands, and every label placeholder,
# as registered when chartc starts (a method registered later is in
# `trends.registry`, which every stage asks).
TREND_METHODS: tuple[str, ...] = registry.method_names()
BAND_METHODS: tuple[str, ...] = registry.band_methods()
LABEL_PLACEHOLDERS: tuple[str, ...] = registry.label_placeholders()

# `label_values` under the name tests and tools have long used.
_label_values = label_values

SPACES = ("axis", "data")


# ---------------------------------------------------------------- fit_trend

def fit_trend(
    x: Sequence[Any],
    y: Sequence[Any],
    method: str = "linear",
    *,
    band: float | None = None,
    prediction: float | None = None,
    x_scale: str = "linear",
    y_scale: str = "linear",
    x_exponent: float = 1.0,
    y_exponent: float = 1.0,
    space: str = "axis",
    extent: tuple[float | None, float | None] | None = None,
    samples: int = 100,
    group: Any = None,
    weights: Sequence[Any] | None = None,
    **parameters: Any,
) -> TrendLine:
    """Fit a trend through (x, y) and sample its curve for drawing.

    The curve is sampled at `samples` points evenly spaced on the x axis as
    drawn (in the x scale's space, whatever `space` is), so it is smooth on a
    log axis too. A smoother's curve instead passes through its fitted value
    at every distinct x inside the extent (plus the ends), which is the exact
    polyline it stands for; with ``space="data"`` on a non-linear x axis the
    evenly spaced points are added as well.

    Args:
        x: x values; None, NaN and infinite rows (in x or y) are dropped.
        y: y values, same length as x.
        method: a registered method's name or alias (`registry.find_method`).
        band: level of the confidence band of the mean, e.g. 0.95.
        prediction: level of the prediction band, e.g. 0.95.
        x_scale: the x axis scale (a key of `SCALE_TRANSFORMS`, or ``pow``).
        y_scale: the y axis scale.
        x_exponent: the exponent of a ``pow`` x scale.
        y_exponent: the exponent of a ``pow`` y scale.
        space: ``"axis"`` fits in the axis scales' space, ``"data"`` fits raw
            values.
        extent: x range of the curve, in data units; None is the data's range,
            and a None bound is the data's minimum or maximum.
        samples: number of curve points, evenly spaced on the x axis.
        group: the ``by`` group this fit belongs to (its value), None for one
            overall fit.
        weights: a weight per row, for weighted least squares (a method that
            declares ``weight``); rows without one are dropped.
        **parameters: the method's own parameters (``order=2`` for ``poly``,
            ``bandwidth``, ``window``); one the method does not declare is
            ignored, one no method declares is a `TypeError`. A parameter
            left out takes the method's default.

    Returns:
        The fitted `TrendLine`.

    Raises:
        SpecError: for an unknown method, scale or space; bad parameters; data
            the method cannot fit (too few distinct x, values outside the
            domain of a logarithm); or a curve that overflows. The error has
            stage ``"fit"`` and a path relative to the trend that names the
            parameter at fault (``("order",)``), or ``()`` when the data is;
            callers prefix the layer's path.
    """
    plan = plan_trend(method, band=band, prediction=prediction, x_scale=x_scale, y_scale=y_scale,
                      x_exponent=x_exponent, y_exponent=y_exponent, space=space, extent=extent, samples=samples,
                      **parameters)
    return fit_values(plan, x, y, group, weights)


@dataclass(frozen=True)
class TrendPlan:
    """A trend request checked before any data is read: the method, its options, the spaces, the band.

    `fit_values` fits it on values in memory, `fit_sums` on a group's
    sufficient statistics (`sums_sql` is the query that computes them).
    """

    fitter: TrendMethod
    method: str
    options: registry.Options
    x_axis: Transform          # the axis scales' transforms
    y_axis: Transform
    x_transform: Transform     # into fitting space: the axes', or none in data space
    y_transform: Transform
    level: float | None
    band_kind: str | None
    band_key: str
    extent: Any
    samples: int

    @property
    def degree(self) -> int:
        """The polynomial degree of a least-squares method (`TrendMethod.from_moments`)."""
        return self.fitter.degree(self.options)


def plan_trend(method: str = "linear", *, band: float | None = None, prediction: float | None = None,
               x_scale: str = "linear", y_scale: str = "linear", x_exponent: float = 1.0,
               y_exponent: float = 1.0, space: str = "axis",
               extent: tuple[float | None, float | None] | None = None, samples: int = 100,
               **parameters: Any) -> TrendPlan:
    """Check a trend request (the arguments of `fit_trend` but the data) before reading any data.

    Raises:
        SpecError: as `fit_trend`, for everything but the data.
    """
    fitter = registry.find_method(method)
    unknown = sorted(set(parameters) - set(registry.parameters()))
    if unknown:
        raise TypeError(f"fit_trend() got an unexpected keyword argument {unknown[0]!r}")
    if space not in SPACES:
        raise SpecError(errors.trend_unknown_space(space, SPACES), ("space",), stage=STAGE,
                        hint=did_you_mean(str(space), SPACES))
    x_axis = _scale_transform("x", x_scale, x_exponent)
    y_axis = _scale_transform("y", y_scale, y_exponent)
    x_transform = x_axis if space == "axis" else IDENTITY
    y_transform = y_axis if space == "axis" else IDENTITY
    own = {p.name for p in fitter.parameters}
    for key, value in parameters.items():
        if value is not None and key not in own and key in NEW_PARAMETERS:
            raise SpecError(errors.trend_parameter_unused(key, method, registry.methods_using(key)), (key,),
                            stage=STAGE)
    band_key = "band" if band is not None else "prediction"
    options = registry.Options(method, {p.name: parameters.get(p.name, p.default) for p in fitter.parameters},
                               x_transform.variable.format("x"), y_transform.variable.format("y"))
    fitter.check(options)
    level, band_kind = _band_request(fitter, method, band, prediction, options)
    options = dataclasses.replace(options, band=band_kind)
    if not is_whole(samples) or samples < 2:
        raise SpecError(errors.trend_samples(samples), (), stage=STAGE)
    _check_log_axes(fitter, method, x_transform, y_transform)
    return TrendPlan(fitter, method, options, x_axis, y_axis, x_transform, y_transform, level, band_kind,
                     band_key, extent, int(samples))


def fit_values(plan: TrendPlan, x: Sequence[Any], y: Sequence[Any], group: Any = None,
               weights: Sequence[Any] | None = None) -> TrendLine:
    """Fit a checked request on values in memory (see `fit_trend`).

    Args:
        weights: each row's weight, for a request with a ``weight`` field (rows without one are left out).

    Raises:
        SpecError: data the method cannot fit; a smoother over more than its `max_rows`.
    """
    xv, yv = _as_numbers(x, "x"), _as_numbers(y, "y")
    if len(xv) != len(yv):
        raise ValueError(f"x and y differ in length: {len(xv)} != {len(yv)}")
    keep = np.isfinite(xv) & np.isfinite(yv)
    wv = None
    if weights is not None and not any(p.name == "weight" for p in plan.fitter.parameters):
        raise SpecError(errors.trend_parameter_unused("weight", plan.method, registry.methods_using("weight")),
                        ("weight",), stage=STAGE)
    if weights is not None:
        wv = _as_numbers(weights, "weight")
        keep &= np.isfinite(wv)
        wv = wv[keep]
    xv, yv = xv[keep], yv[keep]
    distinct = count_distinct(xv)
    if distinct < 2:
        raise SpecError(errors.trend_too_few_x(distinct), (), stage=STAGE,
                        hint=errors.trend_too_few_x_hint())
    for channel, values, transform in (("x", xv, plan.x_axis), ("y", yv, plan.y_axis)):
        if transform.positive:
            require_positive(values, channel, None)
    limit = plan.fitter.row_limit(plan.options)
    if limit is not None and len(xv) > limit:
        raise SpecError(errors.trend_too_many_rows(plan.method, len(xv), limit), ("method",), stage=STAGE,
                        hint=errors.trend_too_many_rows_hint())
    u, v = plan.x_transform.forward(xv), plan.y_transform.forward(yv)
    model = plan.fitter.fit(u, v, plan.options) if wv is None else plan.fitter.fit(u, v, plan.options, weights=wv)
    return _draw(plan, model, len(xv), (float(xv.min()), float(xv.max())), xv, group)


def sums_sql(plan: TrendPlan, source: str, x: str, y: str, part: str, weight: str | None = None,
             bounds: dict[str, float] | None = None) -> str:
    """The query of every group's sufficient statistics for a least-squares request (`moments.sums_query`).

    Args:
        plan: a request whose method fits from moments.
        source, x, y, part: the relation, the SQL of x and y as read, and of a row's group.
        weight: the SQL of a row's weight, for a weighted fit.
        bounds: the terms' bounds (`moments.centred_bounds`).
    """
    return sums_query(source, x, y, part, plan.degree, **_fitting_space(plan), weight=weight, bounds=bounds)


def extent_sql(plan: TrendPlan, source: str, x: str, y: str, part: str, weight: str | None = None) -> str:
    """The query of every row's extremes in fitting space (and of the weights), which bound the terms of
    `shifted_sql` and `sums_sql` and give the first its shift (`moments.extent_query`)."""
    return extent_query(source, x, y, part, **_fitting_space(plan), weight=weight)


def shifted_sql(plan: TrendPlan, source: str, x: str, y: str, part: str, shift: tuple[float, float],
                bounds: dict[str, float]) -> str:
    """The one-pass query of a straight line's sums about a shift (`moments.shifted_query`; degree 1, unweighted)."""
    logged = plan.fitter.logarithm_of
    counted = [c for c, needed in (("x", plan.x_axis.positive), ("y", plan.y_axis.positive),
                                   ("u", "x" in logged), ("v", "y" in logged)) if needed]
    return shifted_query(source, x, y, part, shift, bounds, **_fitting_space(plan), counted=counted)


def _fitting_space(plan: TrendPlan) -> dict:
    """The arguments that map x and y as read into the fitting space of `plan`'s method."""
    logged = plan.fitter.logarithm_of
    return {"x_map": plan.x_transform.sql, "y_map": plan.y_transform.sql,
            "log_x": "x" in logged, "log_y": "y" in logged}


def fit_sums(plan: TrendPlan, sums: Sums, group: Any = None) -> TrendLine:
    """Fit a checked least-squares request from one group's sufficient statistics.

    The same line as `fit_values` on the group's values, to rounding: the
    checks read the counts the query makes (rows, distinct x, values ≤ 0).

    Raises:
        SpecError: as `fit_values`.
    """
    if sums.distinct_x < 2:
        raise SpecError(errors.trend_too_few_x(sums.distinct_x), (), stage=STAGE,
                        hint=errors.trend_too_few_x_hint())
    for channel, transform in (("x", plan.x_axis), ("y", plan.y_axis)):
        if transform.positive:
            refuse_nonpositive(sums.nonpositive[channel], sums.n, channel, None)
    model = plan.fitter.fit_sums(sums, plan.options)
    return _draw(plan, model, sums.n, sums.x_range, None, group)


def _draw(plan: TrendPlan, model, n: int, x_range: tuple[float, float], xv: np.ndarray | None,
          group: Any) -> TrendLine:
    """The fitted model's curve and band, sampled for drawing (`xv`: the x values, for a smoother's knots)."""
    fitter, method, x_axis, x_transform, y_transform = (plan.fitter, plan.method, plan.x_axis, plan.x_transform,
                                                        plan.y_transform)
    level, band_kind, band_key = plan.level, plan.band_kind, plan.band_key
    low, high = _extent(plan.extent, x_range, x_axis, fitter, method)
    lower = upper = None
    # Overflow (an exp fit far out) is reported below, not warned about.
    with np.errstate(over="ignore", invalid="ignore"):
        grid = np.linspace(float(x_axis.forward(np.float64(low))),
                           float(x_axis.forward(np.float64(high))), plan.samples)
        curve_x = x_axis.inverse(grid)
        # The ends are the requested values, not their round trip through a scale.
        curve_x[0], curve_x[-1] = low, high
        if fitter.extrapolates:
            # In axis space the grid is the fitting space's own: use it as is.
            at = grid if x_transform is x_axis else x_transform.forward(curve_x)
        else:
            distinct_x = np.unique(xv)
            knots = _thin(np.r_[low, distinct_x[(distinct_x > low) & (distinct_x < high)], high])
            curve_x = knots if x_transform is x_axis else np.union1d(knots, curve_x)
            at = x_transform.forward(curve_x)
        curve_y = y_transform.inverse(model.curve(at))
        if level is not None:
            coefficients = len(model.coefficients)
            if n <= coefficients:
                raise SpecError(errors.trend_band_too_few_points(n, coefficients),
                                (band_key,), stage=STAGE,
                                hint=errors.trend_band_too_few_points_hint())
            low_band, high_band = model.band(at, level, band_kind == "prediction")
            lower, upper = y_transform.inverse(low_band), y_transform.inverse(high_band)
    # The coefficients too: x over a tiny span can give a drawable curve from an infinite c2.
    arrays = [curve_x, curve_y, [value for _, value in model.coefficients]] + (
        [lower, upper] if level is not None else [])
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise SpecError(errors.trend_not_finite(method), (), stage=STAGE,
                        hint=errors.trend_not_finite_hint())

    return TrendLine(
        method=method,
        group=group,
        n=int(n),
        coefficients=model.coefficients,
        r2=model.r2,
        adj_r2=model.adj_r2,
        rse=model.rse,
        equation=model.equation,
        x=_floats(curve_x),
        y=_floats(curve_y),
        lower=None if lower is None else _floats(lower),
        upper=None if upper is None else _floats(upper),
        band=level,
        band_kind=band_kind,
        space=(x_transform.name, y_transform.name),
        statistics=model.statistics,
    )


def _scale_transform(channel: str, scale: str, exponent: Any = 1.0) -> Transform:
    """The transform of an axis scale (a ``pow`` scale takes its exponent)."""
    if scale == "pow":
        if not is_number(exponent) or exponent == 0:
            raise SpecError(errors.trend_scale_exponent(channel, exponent), (), stage=STAGE)
        return pow_transform(float(exponent))
    transform = SCALE_TRANSFORMS.get(scale) if isinstance(scale, str) else None
    if transform is None:
        scales = (*SCALE_TRANSFORMS, "pow")
        raise SpecError(errors.trend_unknown_scale(channel, scale, scales),
                        (), stage=STAGE, hint=did_you_mean(str(scale), scales))
    return transform


def _band_request(fitter: TrendMethod, method: str, band: Any, prediction: Any,
                  options: registry.Options) -> tuple[float | None, str | None]:
    if band is None and prediction is None:
        return None, None
    if band is not None and prediction is not None:
        raise SpecError(errors.trend_band_conflict(), ("prediction",), stage=STAGE,
                        hint=errors.trend_band_conflict_hint())
    band_key = "band" if band is not None else "prediction"
    if not fitter.draws_band(options, "confidence" if band is not None else "prediction"):
        raise SpecError(errors.trend_band_unsupported(method), (band_key,), stage=STAGE,
                        hint=errors.trend_band_unsupported_hint(registry.band_methods()))
    kind, level = ("confidence", band) if band is not None else ("prediction", prediction)
    if not is_number(level) or not 0 < level < 1:
        raise SpecError(errors.trend_band_level(kind, level), (band_key,), stage=STAGE,
                        hint=errors.trend_band_level_hint())
    return float(level), kind


def _check_log_axes(fitter: TrendMethod, method: str, x_transform: Transform, y_transform: Transform) -> None:
    logged = fitter.logarithm_of
    log_axes = {c for c, t in (("x", x_transform), ("y", y_transform)) if t.name == "log"}
    clash = sorted(logged & log_axes)
    if clash:
        raise SpecError(
            errors.trend_log_on_log_axis(method, sorted(logged), clash), ("method",),
            stage=STAGE,
            hint=errors.trend_log_on_log_axis_hint(registry.linearising(logged - log_axes)))


def _extent(extent: Any, x_range: tuple[float, float], x_axis: Transform, fitter: TrendMethod,
            method: str) -> tuple[float, float]:
    """The curve's ends in data space (a smoother's cut to the data's x range)."""
    low, high = x_range
    if extent is not None:
        bounds = tuple(extent) if isinstance(extent, (tuple, list)) else None
        if (bounds is None or len(bounds) != 2
                or not all(b is None or is_number(b) for b in bounds)):
            raise SpecError(errors.trend_extent(extent), ("extent",), stage=STAGE,
                            hint=errors.trend_extent_hint())
        low = low if bounds[0] is None else float(bounds[0])
        high = high if bounds[1] is None else float(bounds[1])
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise SpecError(errors.trend_extent(extent), ("extent",), stage=STAGE,
                            hint=errors.trend_extent_hint())
        if low <= 0 and (x_axis.positive or "x" in fitter.logarithm_of):
            needed_by = None if x_axis.positive else method
            raise SpecError(errors.trend_extent_nonpositive(extent, needed_by), ("extent",),
                            stage=STAGE, hint=errors.trend_extent_nonpositive_hint())
    if not fitter.extrapolates:
        first, last = x_range
        if high <= first or low >= last:
            raise SpecError(errors.trend_extent_misses_data(extent, method, first, last),
                            ("extent",), stage=STAGE, hint=errors.trend_extent_misses_data_hint())
        low, high = max(low, first), min(high, last)
    return low, high


# A smoother's curve runs through its fitted values at the data's distinct x;
# past this many it is thinned to this many, evenly spread (ends kept), so a
# chart's size does not grow with its rows: no plot is that many pixels wide.
MAX_CURVE_POINTS = 2_000


def _thin(knots: np.ndarray) -> np.ndarray:
    if len(knots) <= MAX_CURVE_POINTS:
        return knots
    keep = np.unique(np.round(np.linspace(0, len(knots) - 1, MAX_CURVE_POINTS)).astype(int))
    return knots[keep]


def _as_numbers(values: Sequence[Any], channel: str) -> np.ndarray:
    """A float array, with None as NaN; anything else non-numeric is an error."""
    try:
        return np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        pass
    numbers = []
    for value in values:
        try:
            numbers.append(math.nan if value is None else float(value))
        except (TypeError, ValueError):
            raise SpecError(errors.trend_not_numeric(channel, value), (), stage=STAGE,
                            hint=errors.trend_not_numeric_hint()) from None
    return np.asarray(numbers, dtype=float)


def _floats(values: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


# ---------------------------------------------------------------- summary

def line_subset(line: TrendLine) -> str | None:
    """Which rows a line was fitted on, as people read it: ``species = setosa, g = a``; None for all."""
    parts = [f"{field} = {value}" for field, value in line.panel]
    if line.group is not None:
        parts.append(str(line.group))
    return ", ".join(parts) or None


def trend_summary(line: TrendLine) -> dict[str, Any]:
    """The fit's results as a JSON-ready dict, without the curve arrays.

    Args:
        line: the fitted trend.

    Returns:
        ``{"method", "group", "label", "n", "coefficients": {name: value},
        "r2", "adj_r2", "rse", "statistics": {name: value}, "band",
        "band_kind", "space": {"x", "y"}, "x_type", "equation"}``;
        ``statistics`` holds the test statistics the method has (``p``,
        ``f``, ``slope_ci`` as [low, high], ``aic``, ``bic``, ``rmse``, as
        the trend labels use them); undefined statistics, absent bands and
        labels are None. A line fitted in a facet panel adds ``"panel":
        {field: value}``.
    """
    panel = {"panel": dict(line.panel)} if line.panel else {}
    return {
        **panel,
        "method": line.method,
        "group": line.group,
        "label": line.label,
        "n": line.n,
        "coefficients": {name: value for name, value in line.coefficients},
        "r2": line.r2,
        "adj_r2": line.adj_r2,
        "rse": line.rse,
        "statistics": {name: list(value) if isinstance(value, tuple) else value for name, value in line.statistics},
        "band": line.band,
        "band_kind": line.band_kind,
        "space": {"x": line.space[0], "y": line.space[1]},
        "x_type": line.x_type,
        "equation": line.equation,
    }
