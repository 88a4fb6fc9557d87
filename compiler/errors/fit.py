"""Messages of the fit stage (stages/fit.py, trends/): trend layers and their fits.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from .registry import code, keep_code
from .text import quoted_list
from .validate import not_one_of


@code("E601")
def trend_needs_xy(channel: str) -> str:
    """A trend without a field on x or y.

    A trend is fitted to x and y fields; the trend layer (or the chart it inherits from) has no field on
    one of them.

    Example:
        data: {dataset: cars}
        encoding:
          x: Horsepower
        layers:
          - mark: tick
          - trend: {method: linear}
    """
    return f"a trend needs a field on '{channel}'"


@code("E602")
def trend_rows_unknown(reason: str) -> str:
    """A trend over rows chartc cannot compute.

    A trend is fitted in chartc before rendering, on the rows after the transforms; a transform chartc
    cannot evaluate exactly as Vega would (the reason says which) leaves the rows unknown. Compute the
    field in the data file instead.
    """
    return f"a trend cannot be fitted on rows chartc cannot compute before rendering: {reason}"


def trend_rows_unknown_hint() -> str:
    return "compute the field in the data file, or fit after transforms chartc evaluates"


def trend_in_panel(panel, message: str) -> str:
    where = ", ".join(f"{field} {value!r}" for field, value in panel)
    return keep_code(f"in the panel for {where}: {message}", message)


@code("E604")
def trend_label_differs_by_panel(template: str) -> str:
    """A trend label that differs between panels.

    A trend label with the fit's numbers ({r2}, {equation}) reads differently in each panel, but the
    panels share one legend entry. Use a label without numbers, and `annotate` to print each panel's own
    numbers in a corner of that panel.
    """
    return f"the label {template!r} reads differently in each panel, but the panels share one legend"


def trend_label_differs_by_panel_hint() -> str:
    return ("use a label without the fit's numbers, such as 'Linear fit', and annotate: {position: top-left, "
            "text: 'R² = {r2:.3f}'} to print each panel's numbers in that panel")


@code("E605")
def trend_facet_derived(channel: str, prop: str) -> str:
    """A facet channel a fit cannot follow.

    Trends are fitted per facet panel on the rows of that panel; a facet field that is binned,
    aggregated or time-unit'd makes panels chartc cannot match rows to. Facet by a column holding the
    value itself.
    """
    return f"trends are fitted per facet panel, so facet {channel} cannot use {prop!r}"


def trend_facet_derived_hint() -> str:
    return "facet by a field's own values, such as a column holding the year"


@code("E606")
def trend_unknown_method(method: object, methods: Iterable[str]) -> str:
    """An unknown trend method.

    The trend method is not one chartc fits; the message lists the methods (linear, poly, quad, log,
    exp, pow, loess, moving average...).
    """
    return not_one_of(method, list(methods))


@code("E607")
def trend_unknown_scale(channel: str, scale: object, scales: Iterable[str]) -> str:
    """A scale type a trend cannot follow.

    A trend is drawn to follow the axis scale; this scale type is not one a trend can follow.
    """
    return (f"a trend cannot follow {channel} scale {scale!r}; "
            f"it follows {quoted_list(scales)}")


@code("E608")
def trend_unknown_space(space: object, spaces: Iterable[str]) -> str:
    """An unknown trend space.

    The trend's `space` (the scale the fit is made in) is not one chartc knows.
    """
    return not_one_of(space, list(spaces))


@code("E609")
def trend_not_numeric(channel: str, example: object) -> str:
    """A trend over values that are not numbers.

    A trend fits numbers (and dates on x); a value of the channel is text. Declare the field
    quantitative if the numbers are stored as text, or fit another field.
    """
    return f"{channel} values must be numbers for a trend, but {example!r} is not"


def trend_not_numeric_hint() -> str:
    return "fit trends on quantitative fields"


@code("E610")
def trend_too_few_x(count: int) -> str:
    """Too few distinct x values for the fit.

    The fit needs more distinct x values than the data (or a group of it) has: a line needs two, a
    polynomial one more than its order.

    Example:
        data:
          values: [{x: 1, y: 1}, {x: 1, y: 2}]
        encoding:
          x: x
          y: y
        layers:
          - mark: point
          - trend: {method: linear}
    """
    return f"a trend needs at least 2 distinct x values, but the data has {count}"


def trend_too_few_x_hint() -> str:
    return ("check the x field and any filter; rows with a missing or "
            "non-finite x or y are dropped before fitting")


@code("E611")
def trend_poly_order(order: object) -> str:
    """A polynomial order out of range.

    A polynomial trend needs a whole-number order of at least 1.
    """
    return f"method 'poly' needs a whole-number order of at least 1, got {order!r}"


def trend_poly_order_hint() -> str:
    return "set order: 2 for a quadratic or 3 for a cubic"


@code("E612")
def trend_quad_order(order: object) -> str:
    """An order on a quad trend.

    `quad` is the polynomial of order 2; an `order` other than 2 contradicts it. Use method: poly for
    other orders.
    """
    return f"method 'quad' is the polynomial of order 2, but order is {order!r}"


def trend_quad_order_hint(order: object) -> str:
    return f"remove order, or use method 'poly' with order {order!r}"


@code("E613")
def trend_order_too_high(order: int, distinct: int) -> str:
    """A polynomial order too high for the data.

    A polynomial of order k needs at least k + 1 distinct x values; the data (or the group being fitted)
    has fewer. Lower the order or fit on more data.

    Example:
        data:
          values: [{x: 1, y: 1}, {x: 2, y: 4}, {x: 3, y: 9}]
        encoding:
          x: x
          y: y
        layers:
          - mark: point
          - trend: {method: poly, order: 3}
    """
    return (f"poly order {order} needs at least {order + 1} distinct x values, "
            f"but the data has {distinct}")


def trend_order_too_high_hint(distinct: int) -> str:
    return f"use an order of at most {distinct - 1}"


@code("E614")
def trend_nonpositive(channel: str, count: int, total: int,
                      method: str | None = None) -> str:
    """A log-space fit over zero or negative values.

    A fit in log space (log, exp, pow) needs positive values on the channel it takes the logarithm of;
    some are zero or negative. Filter them out or choose another method.

    Example:
        data:
          values: [{x: 0, y: 1}, {x: 1, y: 2}, {x: 2, y: 3}]
        encoding:
          x: x
          y: y
        layers:
          - mark: point
          - trend: {method: log}
    """
    needed_by = f"method {method!r}" if method else f"a log {channel} scale"
    verb = "is" if count == 1 else "are"
    return (f"{needed_by} needs positive {channel} values, but {count} of "
            f"{total} {verb} zero or negative")


def trend_nonpositive_hint(channel: str, method: str | None = None) -> str:
    if method:
        return ("filter out those rows, or use a method without a logarithm, "
                "such as 'linear' or 'poly'")
    return f"filter out those rows, or use a linear {channel} scale"


@code("E615")
def trend_log_on_log_axis(method: str, logged: Sequence[str],
                          axes: Sequence[str]) -> str:
    """A log fit drawn on a log axis.

    The fit takes the logarithm of an axis that is already drawn on a log scale, so the curve would be
    the fit of a logarithm twice over. The hint names the method that fits what the axis shows.
    """
    noun = "axis is" if len(axes) == 1 else "axes are"
    return (f"method {method!r} fits the logarithm of {' and '.join(logged)}, "
            f"but the {' and '.join(axes)} {noun} already logarithmic")


def trend_log_on_log_axis_hint(same_fit: str) -> str:
    return (f"use method {same_fit!r}, which on these axes is the same fit, "
            "or set space: data to fit the untransformed values")


@code("E616")
def trend_window(window: object, n: int) -> str:
    """A moving-average window out of range.

    A moving average averages `window` consecutive points: a whole number from 1 to the number of
    points.

    Example:
        data:
          values: [{x: 1, y: 1}, {x: 2, y: 3}, {x: 3, y: 2}]
        encoding:
          x: x
          y: y
        layers:
          - mark: point
          - trend: {method: moving-average, window: 10}
    """
    return (f"moving-average window must be a whole number from 1 to {n} "
            f"(the number of points), got {window!r}")


def trend_window_hint() -> str:
    return ("the window is how many neighbouring points, in x order, each mean "
            "takes, e.g. window: 5")


@code("E617")
def trend_bandwidth(bandwidth: object) -> str:
    """A loess bandwidth out of range.

    Loess fits each point on the fraction `bandwidth` of the data nearest to it: a number above 0 and at
    most 1.
    """
    return (f"loess bandwidth must be a number greater than 0 and at most 1, "
            f"got {bandwidth!r}")


def trend_bandwidth_hint() -> str:
    return "it is the fraction of the points each local fit uses; 0.3 is a common choice"


@code("E618")
def trend_band_unsupported(method: str) -> str:
    """A band the trend method cannot draw.

    Only some methods have a confidence or prediction band (the hint lists them); this one does not.
    Remove the band or choose one of those methods.
    """
    return f"method {method!r} has no confidence or prediction band"


def trend_band_unsupported_hint(methods: Iterable[str]) -> str:
    return f"remove band and prediction, or use one of {quoted_list(methods)}"


@code("E619")
def trend_band_level(kind: str, level: object) -> str:
    """A band level out of range.

    A band's level is a probability such as 0.95: a number between 0 and 1.
    """
    return f"{kind} level must be a number between 0 and 1, got {level!r}"


def trend_band_level_hint() -> str:
    return "e.g. 0.95 for a 95% band"


@code("E620")
def trend_band_conflict() -> str:
    """Both confidence and prediction bands.

    A trend draws one band: either the confidence band of the mean (`band`) or the prediction band
    (`prediction`). Keep one.
    """
    return "band and prediction are both set, but a trend draws one band"


def trend_band_conflict_hint() -> str:
    return ("keep band for the confidence band of the fitted mean, or "
            "prediction for the band where new points are expected")


@code("E621")
def trend_band_too_few_points(n: int, coefficients: int) -> str:
    """Too few points for a band.

    A band's width comes from the scatter of the points around the fit, which needs more points than the
    fit has coefficients.
    """
    points = "is 1 point" if n == 1 else f"are {n} points"
    return (f"a band needs more points than fitted coefficients, but there "
            f"{points} for {coefficients} coefficients")


def trend_band_too_few_points_hint() -> str:
    return "add data, use a method with fewer coefficients, or remove the band"


@code("E622")
def trend_extent(extent: object) -> str:
    """A malformed trend extent.

    `extent` is where the trend line is drawn: `data`, `axis`, or two finite numbers [low, high] with
    low < high.
    """
    return f"extent {extent!r} must be two finite numbers [low, high] with low < high"


def trend_extent_hint() -> str:
    return "leave a bound empty (null) to use the data's own minimum or maximum"


@code("E623")
def trend_extent_nonpositive(extent: object, method: str | None = None) -> str:
    """A trend extent the fit cannot reach.

    The extent reaches x values where the method is undefined (a log or pow fit at x <= 0). Start the
    extent above zero.
    """
    needed_by = f"method {method!r}" if method else "a log x scale"
    return (f"extent {extent!r} reaches x values of zero or below, where "
            f"{needed_by} is undefined")


def trend_extent_nonpositive_hint() -> str:
    return "start the extent above 0"


@code("E624")
def trend_extent_misses_data(extent: object, method: str,
                             low: float, high: float) -> str:
    """A trend extent outside the data.

    The extent does not overlap the data's x range, so the whole line would be an extrapolation of a
    method that does not extrapolate. Move the extent over the data.
    """
    return (f"extent {extent!r} does not overlap the data's x range "
            f"[{low:g}, {high:g}], and method {method!r} cannot extrapolate")


def trend_extent_misses_data_hint() -> str:
    return "widen the extent to include the data"


@code("E625")
def trend_samples(samples: object) -> str:
    """A samples count out of range.

    `samples` is the number of points the line is drawn with: a whole number of at least 2.
    """
    return f"samples must be a whole number of at least 2, got {samples!r}"


@code("E626")
def trend_not_finite(method: str) -> str:
    """A fit without finite numbers.

    The fitted curve overflows (becomes infinite) over the x range drawn, usually an exp fit over large
    x. Narrow the extent, or fit another method.
    """
    return f"the {method} curve overflows over the chosen x range"


def trend_not_finite_hint() -> str:
    return "narrow the extent, or fit on a log y scale"


@code("E627")
def trend_x_span_subnormal(method: str, low: float, high: float, limit: float) -> str:
    """An x span too small to fit.

    The x values span so little that the fit cannot be computed in double precision. Rescale x (say, to
    other units).
    """
    return (f"the {method} fit cannot be computed in double precision: x runs from {low!r} to {high!r}, "
            f"a span under {limit!r} (the smallest full-precision number), so its coefficients overflow")


def trend_x_span_subnormal_hint() -> str:
    return "give x in a smaller unit in the data, so that its values differ by more than 1e-300, or fit with method 'loess'"


@code("E628")
def trend_label_placeholder(name: str) -> str:
    """An unknown placeholder in a trend label.

    A trend label or annotation uses a placeholder chartc does not fill (the hint lists those it does,
    such as {r2}, {n}, {equation}).

    Example:
        data: {dataset: cars}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        layers:
          - mark: point
          - trend: {method: linear, label: "R2={rsquared}"}
    """
    return f"label placeholder {{{name}}} is unknown"


def trend_label_placeholder_hint(names: Iterable[str]) -> str:
    return "valid placeholders: " + ", ".join("{" + n + "}" for n in names)


@code("E629")
def trend_label_format(template: str, detail: str) -> str:
    """A malformed trend label format.

    A label placeholder has a format Python cannot apply (such as `{r2:.3d}`); the detail says why.
    """
    return f"label {template!r} cannot be formatted: {detail}"


def trend_label_format_hint() -> str:
    return ("use str.format syntax, e.g. 'R²={r2:.3f}' or '{coef[1]:.2f}'; "
            "write {{ and }} for literal braces")


@code("E630")
def trend_label_spec_too_large(placeholder: str, part: str, asked: str, limit: int) -> str:
    """A trend label format too large.

    A placeholder asks for a width or precision over the limit, which would make a huge label.
    """
    return f"label placeholder {placeholder} asks for a {part} of {asked}, over the limit of {limit}"


def trend_label_spec_too_large_hint(width: int, precision: int) -> str:
    return (f"a width (e.g. '{{n:>4}}') may be at most {width} and a precision (e.g. '{{r2:.3f}}') "
            f"at most {precision}")


@code("E631")
def trend_label_too_long(length: int, limit: int) -> str:
    """A trend label too long.

    The formatted label is over the length limit.
    """
    return f"the label would be {length:,} characters long, over the limit of {limit:,}"


def trend_label_too_long_hint() -> str:
    return "shorten the text, or use narrower widths and fewer digits in its placeholders"


@code("E632")
def trend_label_undefined(name: str, method: str) -> str:
    """A trend label placeholder the method does not define.

    The placeholder is one chartc fills, but not for this method (a loess fit has no {equation}). Remove
    it from the label.
    """
    return f"label placeholder {{{name}}} has no value for this {method} trend"


def trend_label_undefined_hint() -> str:
    return "remove it from the label, or use a method that defines it"


def trend_in_group(by: str, group: object, message: str) -> str:
    return keep_code(f"for {by} {group!r}: {message}", message)


@code("E633")
def trend_channel_derived(channel: str, prop: str) -> str:
    """A trend channel with a derived property.

    A trend is fitted to the rows themselves, so its x or y cannot be binned, aggregated or time-unit'd.
    Give the trend layer its own encoding without them.
    """
    return f"a trend is fitted to the rows themselves, so its {channel} cannot use {prop!r}"


def trend_channel_derived_hint(channel: str, prop: str) -> str:
    return (f"give the trend layer its own {channel} encoding without {prop}, "
            "or put the summarised values in the data")


@code("E634")
def trend_channel_type(channel: str, field: str, kind: str, allowed: Sequence[str]) -> str:
    """A trend channel of the wrong type.

    A trend needs numbers (or dates on x) on its channels; the field is declared nominal or ordinal.
    """
    wanted = " or ".join(allowed)
    return f"a trend needs {wanted} values on {channel}, but {field!r} is {kind}"


def trend_channel_type_hint() -> str:
    return "fit trends on numbers (and dates on x); declare type: quantitative for numbers stored as text"


@code("E635")
def trend_extent_axis() -> str:
    """extent 'axis' without an x domain.

    `extent: axis` draws the line across the x scale's domain, which no layer declares. Declare `scale:
    {domain: [low, high]}` on x, or use another extent.
    """
    return "extent 'axis' needs the x scale's domain, but no layer declares one as [low, high]"


def trend_extent_axis_hint() -> str:
    return "declare encoding.x.scale.domain: [low, high], or use extent: data or extent: [low, high]"


@code("E636")
def trend_extent_text(value: object) -> str:
    """A text extent bound on a non-temporal axis.

    An extent bound is text, but the x axis is not temporal. Give numbers.
    """
    return f"extent bound {value!r} is text, but the x axis is not temporal"


@code("E637", hint="trend_extent_text_hint")
def trend_extent_date(value: object) -> str:
    """An extent bound that is not a date.

    An extent bound on a temporal axis is not a date chartc can read. Write an ISO date.
    """
    return f"extent bound {value!r} is not a date"


def trend_extent_text_hint() -> str:
    return "give numbers on a quantitative x axis, ISO dates such as '2020-01-31' on a temporal one, or null for the data's own end"


@code("E638")
def trend_scale_exponent(channel: str, exponent: object) -> str:
    """A pow scale exponent of zero under a trend.

    A pow scale with exponent 0 maps every value to 1; a trend cannot follow it. Give a non-zero
    exponent.
    """
    return f"the {channel} pow scale needs a non-zero exponent for a trend to follow it, got {exponent!r}"


@code("E639", hint="trend_too_many_rows_hint")
def trend_too_many_rows(method: str, count: int, limit: int) -> str:
    """A smoother over more rows than it fits.

    `loess` and `moving-average` are fitted on every row of a group in memory (their time and memory grow
    with the rows: about 100 bytes a row); past the limit they are refused rather than exhaust the machine.
    The least-squares methods (`linear`, `poly`, `quad`, `log`, `exp`, `pow`) fit from sums the engine
    computes, at any number of rows. Fit one of them, or aggregate or bin the rows first (a smoother over
    the means per x bin), or filter them.
    """
    return f"a '{method}' trend fits at most {limit:,} rows per group, and this one has {count:,}"


def trend_too_many_rows_hint() -> str:
    return ("fit a least-squares method ('linear', 'poly', 'log', 'exp', 'pow'), which takes any number of rows, "
            "or aggregate, bin or filter the rows first")


@code("E640")
def trend_parameter_choice(key: str, value: object, choices: Sequence[object]) -> str:
    """A trend parameter that is not one of its choices.

    Some trend parameters take one of a few values (`align: centered|trailing` of a `moving-average`,
    `adjust: true|false` of an `ewm`, `robust: true|huber|bisquare` of a least-squares fit). The
    schema refuses anything else in a spec; this message is for a fit asked for through the Python API.
    """
    return f"{key} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}"


@code("E641")
def trend_ewm_decay(written: Sequence[str]) -> str:
    """An `ewm` trend without exactly one decay.

    An exponentially weighted mean takes its decay from exactly one of `alpha`, `com`, `span` or
    `halflife` (pandas' definitions: α = 1/(1 + com) = 2/(span + 1) = 1 − exp(−ln 2/halflife)).

    Example:
        data: {dataset: stocks}
        encoding:
          x: {field: date, type: temporal}
          y: price
        layers:
          - mark: line
          - trend: {method: ewm, span: 10, alpha: 0.2}
    """
    if not written:
        return "an 'ewm' trend needs one of alpha, com, span or halflife"
    return f"an 'ewm' trend takes exactly one of alpha, com, span or halflife, got {' and '.join(written)}"


def trend_ewm_decay_hint() -> str:
    return "write one of them, e.g. span: 10 (α = 2/(span + 1)) or halflife: 5 (points)"


@code("E642")
def trend_parameter_bound(key: str, value: object, bound: str) -> str:
    """A trend parameter outside its bounds.

    The schema refuses a value out of bounds in a spec; this message is for a fit asked for through the
    Python API, and for bounds the schema cannot state.
    """
    return f"{key} must be a number with {bound}, got {value!r}"


@code("E643")
def trend_weight_field(weight: object) -> str:
    """A trend `weight` that is not a field name.

    `weight` names the field that holds each row's weight for weighted least squares.
    """
    return f"weight names a field of weights, got {weight!r}"


@code("E644")
def trend_robust_weighted() -> str:
    """A robust fit with weights.

    `robust` reweights the rows itself, from their residuals (statsmodels' `RLM` takes no weights); a
    `weight` field beside it has no defined meaning. Fit one or the other.
    """
    return "robust and weight cannot be combined: a robust fit sets each row's weight from its residual"


def trend_robust_weighted_hint() -> str:
    return "remove weight for a robust fit, or robust for a weighted least-squares fit"


@code("E645")
def trend_weight_nonpositive(bad: int, total: int) -> str:
    """Trend weights that are zero or negative.

    A weight ω says a row's variance is σ²/ω: it must be positive. A row without a weight (missing, or
    not a number) is left out of the fit, as one without x or y.
    """
    return f"{bad:,} of {total:,} weights are zero or negative; weights must be positive"


def trend_weight_nonpositive_hint() -> str:
    return "filter those rows out first, e.g. filter: 'datum.count > 0'"


@code("E646")
def trend_weight_not_found(field: str, available: Sequence[str]) -> str:
    """A trend `weight` field the trend layer's rows do not have.

    The weights are read from the rows the trend is fitted on, after the layer's transforms.
    """
    return f"the weight field {field!r} is not in the trend's rows (fields: {quoted_list(list(available))})"


@code("E647")
def trend_parameter_unused(key: str, method: str, users: Sequence[str]) -> str:
    """A trend key the method does not take.

    Each method takes its own keys (`order` for `poly`, `window` for `moving-average`, `weight` for the
    least-squares methods...); a key another method takes is refused rather than ignored.
    """
    return f"{key!r} is not a parameter of '{method}' (it is of {', '.join(repr(u) for u in users)})"


@code("E648")
def trend_logistic_values(bad: int, total: int) -> str:
    """A logistic trend on y outside 0..1.

    `method: logistic` fits a binomial GLM: y is an outcome 0 or 1, or a proportion between them.
    """
    return f"a 'logistic' trend fits y from 0 to 1 (outcomes or proportions), and {bad:,} of {total:,} values are outside"


def trend_logistic_values_hint() -> str:
    return "encode y as 0/1 (e.g. calculate: \"datum.passed ? 1 : 0\") or as a proportion"


@code("E649")
def trend_not_converged(method: str) -> str:
    """An iterative fit that does not converge.

    A `logistic` fit whose classes x separates completely has no finite maximum-likelihood slope: the
    iterations grow it without bound. Fit a smoother, or check the data.
    """
    return f"the '{method}' fit does not converge (the y classes are separated by x: no finite fit exists)"


@code("E650")
def trend_loess_band_rows(count: int, limit: int) -> str:
    """A loess band over too many points.

    A loess confidence band needs the smoother's operator L (fit = L·y), n × n numbers: past the limit it
    would take gigabytes. Draw the loess without a band, or bin the rows first (a loess over the means).
    """
    return f"a 'loess' band fits at most {limit:,} points per group, and this one has {count:,}"


def trend_loess_band_rows_hint() -> str:
    return "remove band, or aggregate or bin the rows first"


@code("E651")
def trend_loess_band_interpolates(count: int) -> str:
    """A loess band where the smoother runs through every point.

    A loess over so few points, or with so small a `bandwidth`, that each local fit passes through its
    point leaves no residuals: the band's scale (RSS over the residual degrees of freedom) is 0/0. Widen
    the `bandwidth`.
    """
    return f"a 'loess' band needs residuals, and this loess runs through all {count:,} points"


def trend_loess_band_interpolates_hint() -> str:
    return "widen the bandwidth (e.g. 0.75, R's default span), or remove band"
