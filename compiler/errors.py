"""One error type for every stage, and the messages users read.

A `SpecError` carries the spec path (``layers[1].trend.method``) and, where
known, the file position, so a problem found late in the pipeline still points
at the exact spot in the user's file. Messages live here as functions so tests
compare against the same wording the code produces.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable, Sequence, Union

PathKey = Union[str, int]
SpecPath = tuple  # tuple[PathKey, ...]: ("layers", 1, "trend", "method")

# How many diagnostics an aggregated error prints before "... and N more".
SHOWN_ERRORS = 3


def format_path(path: Sequence[PathKey]) -> str:
    """Render a spec path the way users write it: ``layers[1].trend.method``.

    The root is ``$``, as in JSON Path.
    """
    text = ""
    for key in path:
        if isinstance(key, int):
            text += f"[{key}]"
        else:
            key = str(key)
            plain = key.replace("_", "").replace("$", "").isalnum()
            text += (f".{key}" if text else key) if plain else f"[{key!r}]"
    return text or "$"


@dataclass(frozen=True, slots=True)
class Location:
    """A 1-based position in a spec file."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class SpecError(Exception):
    """A problem with a chart spec: its message, spec path and file position.

    An aggregate error (from `SpecError.collect`) keeps every problem in
    ``.errors`` and prints the first few.
    """

    def __init__(
        self,
        message: str,
        path: Sequence[PathKey] = (),
        *,
        location: Location | None = None,
        stage: str = "",
        hint: str | None = None,
        severity: str = "error",
    ):
        self.message = message
        self.path = tuple(path)
        self.location = location
        self.stage = stage
        self.hint = hint
        self.severity = severity
        self.errors: list[SpecError] = [self]
        super().__init__(self.diagnostic())

    def diagnostic(self) -> str:
        """One line: ``FILE:LINE:COL: error: PATH: message (hint)``."""
        where = f"{self.location}: " if self.location else ""
        text = f"{where}{self.severity}: {format_path(self.path)}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text

    def __str__(self) -> str:
        lines = [e.diagnostic() for e in self.errors[:SHOWN_ERRORS]]
        if len(self.errors) > SHOWN_ERRORS:
            lines.append(f"... and {len(self.errors) - SHOWN_ERRORS} more")
        return "\n".join(lines)

    @classmethod
    def collect(cls, errors: Sequence["SpecError"]) -> "SpecError":
        """Fold several problems into one raisable error (order kept)."""
        if len(errors) == 1:
            return errors[0]
        first = errors[0]
        combined = cls(
            first.message, first.path, location=first.location,
            stage=first.stage, hint=first.hint,
        )
        combined.errors = list(errors)
        return combined


class SpecWarning(SpecError):
    """A problem that does not stop compilation (printed as ``warning:``)."""

    def __init__(self, message: str, path: Sequence[PathKey] = (), **kwargs):
        kwargs.setdefault("severity", "warning")
        super().__init__(message, path, **kwargs)


# ---------------------------------------------------------------- hints

def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """A "did you mean 'x'?" hint for a near miss, or None."""
    choices = [str(c) for c in choices]
    close = difflib.get_close_matches(str(word), choices, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in choices}
        if str(word).lower() in lowered:
            close = [lowered[str(word).lower()]]
    return f"did you mean {close[0]!r}?" if close else None


def quoted_list(values: Iterable[object], limit: int = 12) -> str:
    """``'a', 'b', 'c'`` with an ellipsis past `limit` items."""
    values = [str(v) for v in values]
    text = ", ".join(repr(v) for v in values[:limit])
    return text + (f", ... ({len(values) - limit} more)" if len(values) > limit else "")


# ---------------------------------------------------------------- messages
# Every user-facing message is built here; tests import these functions.

def unknown_key(key: str) -> str:
    return f"unknown key {key!r}"


def not_one_of(value: object, allowed: Sequence[object]) -> str:
    return f"{value!r} is not one of {quoted_list(allowed, limit=20)}"


def field_not_found(field: str, available: Iterable[str]) -> str:
    return f"field {field!r} is not in the data"


def available_columns(available: Iterable[str]) -> str:
    return f"available columns: {quoted_list(available)}"


def file_not_found(path: str) -> str:
    return f"data file {path!r} does not exist"


# schema (validate stage)

def missing_key(key: str) -> str:
    return f"missing required key {key!r}"


def allowed_keys(keys: Sequence[str]) -> str:
    return f"allowed keys: {quoted_list(keys, limit=20)}"


def _describe_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value!r}"
    return repr(value)


def wrong_type(value: object, wanted: Sequence[str]) -> str:
    wanted = list(dict.fromkeys(wanted))
    if len(wanted) > 1 and "true or false" in wanted:  # "true, false or a mapping"
        at = wanted.index("true or false")
        wanted[at:at + 1] = ["true", "false"]
    expected = " or ".join(wanted) if len(wanted) < 3 else ", ".join(wanted[:-1]) + " or " + wanted[-1]
    return f"expected {expected}, got {_describe_value(value)}"


def out_of_bounds(value: object, relation: str, bound: object) -> str:
    return f"{value!r} is out of range: it must be {relation} {bound!r}"


def wrong_size(rule: str, bound: int) -> str:
    return {
        "minItems": f"needs at least {bound} item{'s' if bound != 1 else ''}",
        "maxItems": f"takes at most {bound} item{'s' if bound != 1 else ''}",
        "minProperties": f"needs at least {bound} entr{'ies' if bound != 1 else 'y'}",
        "maxProperties": f"takes at most {bound} entr{'ies' if bound != 1 else 'y'}",
        "minLength": "must not be empty",
    }[rule]


def text_too_long(length: int, limit: int) -> str:
    return f"text of {length:,} characters is over the limit of {limit:,}"


def text_too_long_hint() -> str:
    return "shorten it; the limits keep rendering fast and are listed in docs/reference.md"


def bad_pattern(value: object) -> str:
    return f"{value!r} is not a valid value here"


def data_one_source() -> str:
    return "data needs exactly one of 'values', 'path' or 'dataset'"


def data_hint() -> str:
    return "e.g. data: {path: results.csv} or data: {dataset: cars}"


def mark_and_layers() -> str:
    return "a chart has either 'mark' or 'layers', not both"


def mark_and_layers_hint() -> str:
    return "move the mark into a layer: layers: [{mark: point}, ...]"


def no_mark() -> str:
    return "missing 'mark' or 'layers'"


def no_mark_hint() -> str:
    return "add e.g. mark: point"


def markers_with_layers() -> str:
    return "top-level 'markers' is for single-mark charts; put it in the layer it styles"


def mark_and_trend() -> str:
    return "a layer has either 'mark' or 'trend', not both"


def layer_needs_mark() -> str:
    return "a layer needs 'mark' or 'trend'"


def layer_needs_mark_hint() -> str:
    return "add e.g. mark: point, or trend: {method: linear}"


def markers_on_trend() -> str:
    return "'markers' styles a mark layer, not a trend layer"


# data (resolve and check stages)

def empty_data() -> str:
    return "the data has no rows"


def empty_data_hint() -> str:
    return "a chart needs at least one row of data"


def data_url(path: str) -> str:
    return f"data is never fetched from a URL: {path!r}"


def data_url_hint() -> str:
    return "download the file next to the spec and give its relative path"


def image_url(value: object) -> str:
    return f"images are never fetched from a URL: {value!r}"


def image_url_hint() -> str:
    return "charts are drawn offline and the same on every machine; draw the picture with marks instead"


def data_path_absolute(path: str) -> str:
    return f"data path {path!r} must be relative to the spec file"


def data_path_hint() -> str:
    return "keep data files inside the project, e.g. path: data/results.csv"


def data_path_outside(path: str, root: str) -> str:
    return f"data path {path!r} leaves the project folder {root!r}"


def data_not_a_file(path: str) -> str:
    return f"data path {path!r} is not a file"


def data_unknown_format(path: str) -> str:
    return f"cannot tell the format of {path!r}"


def data_format_hint() -> str:
    return "use a .csv, .tsv or .json file, or set data.format"


def data_too_large(path: str, size: int, limit: int) -> str:
    return f"data file {path!r} is {size:,} bytes, over the limit of {limit:,}"


def data_unreadable(path: str, reason: str) -> str:
    return f"cannot read data file {path!r}: {reason}"


# ---- data file limits (table.py; each a reason inside data_unreadable)

def data_header_too_wide(line: int, count: int, limit: int) -> str:
    return f"line {line}: the header has {count:,} columns, over the limit of {limit:,}"


def data_records_too_wide(count: int, limit: int) -> str:
    return f"the records have {count:,} different keys, over the limit of {limit:,} columns"


def data_header_too_wide_hint() -> str:
    return "a chart reads a few columns: keep only those it uses in the file"


def data_header_cell_too_long(line: int, column: int | None, length: int | None, limit: int) -> str:
    return _cell_too_long("header cell", line, column, length, limit)


def data_cell_too_long(line: int, column: int | None, length: int | None, limit: int) -> str:
    return _cell_too_long("cell", line, column, length, limit)


def _cell_too_long(what: str, line: int, column: int | None, length: int | None, limit: int) -> str:
    if column is None:  # the record was found, not the cell
        return f"line {line}: a {what} is longer than the limit of {limit:,} characters"
    return f"line {line}, column {column}: a {what} of {length:,} characters, over the limit of {limit:,}"


def data_long_cell_hint(unclosed: bool, header: bool) -> str:
    if unclosed:
        return 'the cell opens with a quote (") that is never closed, which makes the rest of the file one cell'
    if header:
        return "a column name is a short label: shorten it in the file"
    return "charts show short values: move long text out of the data file"


def data_too_many_cells(rows: int, columns: int, limit: int) -> str:
    return f"{rows:,} rows of {columns:,} columns make {rows * columns:,} cells, over the limit of {limit:,}"


def data_too_many_cells_hint() -> str:
    return "every row has a cell for every column; keep only the columns the chart uses in the file"


def log_scale_non_positive(field: str, count: int) -> str:
    values = "value is" if count == 1 else "values are"
    return f"log scale on {field!r}, but {count} {values} zero or negative"


def log_scale_hint() -> str:
    return "filter those rows out, or use scale type 'symlog'"


def unknown_type_for(field: str) -> str:
    return f"cannot infer the type of {field!r}"


def vega_lite_invalid(reason: str) -> str:
    return f"the merged Vega-Lite is invalid: {reason}"


def trend_needs_xy(channel: str) -> str:
    return f"a trend needs a field on '{channel}'"


def trend_rows_unknown(reason: str) -> str:
    return f"a trend cannot be fitted on rows chartc cannot compute before rendering: {reason}"


def trend_rows_unknown_hint() -> str:
    return "compute the field in the data file, or fit after transforms chartc evaluates"


def trend_in_panel(panel, message: str) -> str:
    where = ", ".join(f"{field} {value!r}" for field, value in panel)
    return f"in the panel for {where}: {message}"


def trend_annotate_with_facet() -> str:
    return "annotate cannot place a trend's numbers in a faceted chart"


def trend_annotate_with_facet_hint() -> str:
    return "each panel has its own fit; remove annotate (the fits are in the chart's .fits.json)"


def trend_label_differs_by_panel(template: str) -> str:
    return f"the label {template!r} reads differently in each panel, but the panels share one legend"


def trend_label_differs_by_panel_hint() -> str:
    return "use a label without the fit's numbers, such as 'Linear fit'; each panel's numbers are in the .fits.json"


def trend_facet_derived(channel: str, prop: str) -> str:
    return f"trends are fitted per facet panel, so facet {channel} cannot use {prop!r}"


def trend_facet_derived_hint() -> str:
    return "facet by a field's own values, such as a column holding the year"


# ---- shape messages

def unknown_shape(name: object) -> str:
    return f"unknown marker shape {name!r}"


def known_shapes(names: Iterable[str]) -> str:
    return f"known shapes: {quoted_list(names, limit=30)}"


# ---- colour messages (colors.py)

def _clipped(text: object, limit: int = 60) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def not_a_color(value: object) -> str:
    if isinstance(value, str):
        return f"{_clipped(value)!r} is not a colour"
    return f"expected a colour, got {_describe_value(value)}"


COLOR_FORM_RULES = {
    "rgb": "rgb() and rgba() take red, green and blue (all 0-255 or all 0%-100%) and an optional alpha "
           "(0-1 or 0%-100%)",
    "hsl": "hsl() and hsla() take a hue in degrees, a saturation and a lightness (0%-100%) and an optional "
           "alpha (0-1 or 0%-100%)",
    "grey": "a grey level is a number from 0 (black) to 1 (white)",
}
COLOR_FORM_EXAMPLES = {
    "rgb": "e.g. rgb(214, 39, 40) or rgba(214, 39, 40, 0.5)",
    "hsl": "e.g. hsl(359, 69%, 50%) or hsla(359, 69%, 50%, 0.5)",
    "grey": "e.g. '.3' for dark grey, '0.75' for light grey",
}


def color_arguments(value: str, form: str) -> str:
    return f"{_clipped(value)!r} is not a colour: {COLOR_FORM_RULES[form]}"


def color_form_hint(form: str) -> str:
    return COLOR_FORM_EXAMPLES[form]


def color_hint(suggestion: str | None) -> str:
    forms = ("a colour is a CSS name ('steelblue', 'transparent'), hex ('#1f77b4', '#rgb', '#rrggbbaa'), "
             "rgb()/rgba()/hsl()/hsla(), or matplotlib's 'tab:blue'...'tab:cyan', 'C0'...'C9', a grey level "
             "from '0' (black) to '1' (white) such as '.3', or one of 'b g r c m y k w'")
    return f"{suggestion} {forms}" if suggestion else forms


def unsafe_text(value: str, marker: str) -> str:
    return f"{_clipped(value)!r} contains {marker!r}, which would make a viewer of the chart load or run something"


def unsafe_text_hint() -> str:
    return "charts load nothing and run nothing: write a colour, a font name or plain text"


def unsafe_font(value: str, characters: Sequence[str]) -> str:
    return f"font {_clipped(value)!r} has characters a font name cannot have: {quoted_list(characters)}"


def unsafe_font_hint() -> str:
    return ("write font families as names separated by commas, e.g. 'Helvetica Neue, Arial, sans-serif': "
            "letters, digits, spaces and - _ . , ' only")


def computed_style(key: str) -> str:
    return f"{key!r} must be written out here, not computed by an expression"


def computed_style_hint() -> str:
    return "colours and fonts are checked before the chart is drawn; write the colour or font itself"


def unscaled_colors(channel: str) -> str:
    return f"the {channel!r} channel would draw the data's own values as colours, unchecked"


def unscaled_colors_hint() -> str:
    return "map the values to colours with a scale, e.g. scale: {range: ['#1f77b4', '#ff7f0e']}, or with markers"


# ---- fit messages

def trend_unknown_method(method: object, methods: Iterable[str]) -> str:
    return not_one_of(method, list(methods))


def trend_unknown_scale(channel: str, scale: object, scales: Iterable[str]) -> str:
    return (f"a trend cannot follow {channel} scale {scale!r}; "
            f"it follows {quoted_list(scales)}")


def trend_unknown_space(space: object, spaces: Iterable[str]) -> str:
    return not_one_of(space, list(spaces))


def trend_not_numeric(channel: str, example: object) -> str:
    return f"{channel} values must be numbers for a trend, but {example!r} is not"


def trend_not_numeric_hint() -> str:
    return "fit trends on quantitative fields"


def trend_too_few_x(count: int) -> str:
    return f"a trend needs at least 2 distinct x values, but the data has {count}"


def trend_too_few_x_hint() -> str:
    return ("check the x field and any filter; rows with a missing or "
            "non-finite x or y are dropped before fitting")


def trend_poly_order(order: object) -> str:
    return f"method 'poly' needs a whole-number order of at least 1, got {order!r}"


def trend_poly_order_hint() -> str:
    return "set order: 2 for a quadratic or 3 for a cubic"


def trend_quad_order(order: object) -> str:
    return f"method 'quad' is the polynomial of order 2, but order is {order!r}"


def trend_quad_order_hint(order: object) -> str:
    return f"remove order, or use method 'poly' with order {order!r}"


def trend_order_too_high(order: int, distinct: int) -> str:
    return (f"poly order {order} needs at least {order + 1} distinct x values, "
            f"but the data has {distinct}")


def trend_order_too_high_hint(distinct: int) -> str:
    return f"use an order of at most {distinct - 1}"


def trend_nonpositive(channel: str, count: int, total: int,
                      method: str | None = None) -> str:
    needed_by = f"method {method!r}" if method else f"a log {channel} scale"
    verb = "is" if count == 1 else "are"
    return (f"{needed_by} needs positive {channel} values, but {count} of "
            f"{total} {verb} zero or negative")


def trend_nonpositive_hint(channel: str, method: str | None = None) -> str:
    if method:
        return ("filter out those rows, or use a method without a logarithm, "
                "such as 'linear' or 'poly'")
    return f"filter out those rows, or use a linear {channel} scale"


def trend_log_on_log_axis(method: str, logged: Sequence[str],
                          axes: Sequence[str]) -> str:
    noun = "axis is" if len(axes) == 1 else "axes are"
    return (f"method {method!r} fits the logarithm of {' and '.join(logged)}, "
            f"but the {' and '.join(axes)} {noun} already logarithmic")


def trend_log_on_log_axis_hint(same_fit: str) -> str:
    return (f"use method {same_fit!r}, which on these axes is the same fit, "
            "or set space: data to fit the untransformed values")


def trend_window(window: object, n: int) -> str:
    return (f"moving-average window must be a whole number from 1 to {n} "
            f"(the number of points), got {window!r}")


def trend_window_hint() -> str:
    return ("the window is how many neighbouring points, in x order, each mean "
            "takes, e.g. window: 5")


def trend_bandwidth(bandwidth: object) -> str:
    return (f"loess bandwidth must be a number greater than 0 and at most 1, "
            f"got {bandwidth!r}")


def trend_bandwidth_hint() -> str:
    return "it is the fraction of the points each local fit uses; 0.3 is a common choice"


def trend_band_unsupported(method: str) -> str:
    return f"method {method!r} has no confidence or prediction band"


def trend_band_unsupported_hint(methods: Iterable[str]) -> str:
    return f"remove band and prediction, or use one of {quoted_list(methods)}"


def trend_band_level(kind: str, level: object) -> str:
    return f"{kind} level must be a number between 0 and 1, got {level!r}"


def trend_band_level_hint() -> str:
    return "e.g. 0.95 for a 95% band"


def trend_band_conflict() -> str:
    return "band and prediction are both set, but a trend draws one band"


def trend_band_conflict_hint() -> str:
    return ("keep band for the confidence band of the fitted mean, or "
            "prediction for the band where new points are expected")


def trend_band_too_few_points(n: int, coefficients: int) -> str:
    points = "is 1 point" if n == 1 else f"are {n} points"
    return (f"a band needs more points than fitted coefficients, but there "
            f"{points} for {coefficients} coefficients")


def trend_band_too_few_points_hint() -> str:
    return "add data, use a method with fewer coefficients, or remove the band"


def trend_extent(extent: object) -> str:
    return f"extent {extent!r} must be two finite numbers [low, high] with low < high"


def trend_extent_hint() -> str:
    return "leave a bound empty (null) to use the data's own minimum or maximum"


def trend_extent_nonpositive(extent: object, method: str | None = None) -> str:
    needed_by = f"method {method!r}" if method else "a log x scale"
    return (f"extent {extent!r} reaches x values of zero or below, where "
            f"{needed_by} is undefined")


def trend_extent_nonpositive_hint() -> str:
    return "start the extent above 0"


def trend_extent_misses_data(extent: object, method: str,
                             low: float, high: float) -> str:
    return (f"extent {extent!r} does not overlap the data's x range "
            f"[{low:g}, {high:g}], and method {method!r} cannot extrapolate")


def trend_extent_misses_data_hint() -> str:
    return "widen the extent to include the data"


def trend_samples(samples: object) -> str:
    return f"samples must be a whole number of at least 2, got {samples!r}"


def trend_not_finite(method: str) -> str:
    return f"the {method} curve overflows over the chosen x range"


def trend_not_finite_hint() -> str:
    return "narrow the extent, or fit on a log y scale"


def trend_x_span_subnormal(method: str, low: float, high: float, limit: float) -> str:
    return (f"the {method} fit cannot be computed in double precision: x runs from {low!r} to {high!r}, "
            f"a span under {limit!r} (the smallest full-precision number), so its coefficients overflow")


def trend_x_span_subnormal_hint() -> str:
    return "give x in a smaller unit in the data, so that its values differ by more than 1e-300, or fit with method 'loess'"


def trend_label_placeholder(name: str) -> str:
    return f"label placeholder {{{name}}} is unknown"


def trend_label_placeholder_hint(names: Iterable[str]) -> str:
    return "valid placeholders: " + ", ".join("{" + n + "}" for n in names)


def trend_label_format(template: str, detail: str) -> str:
    return f"label {template!r} cannot be formatted: {detail}"


def trend_label_format_hint() -> str:
    return ("use str.format syntax, e.g. 'R²={r2:.3f}' or '{coef[1]:.2f}'; "
            "write {{ and }} for literal braces")


def trend_label_spec_too_large(placeholder: str, part: str, asked: str, limit: int) -> str:
    return f"label placeholder {placeholder} asks for a {part} of {asked}, over the limit of {limit}"


def trend_label_spec_too_large_hint(width: int, precision: int) -> str:
    return (f"a width (e.g. '{{n:>4}}') may be at most {width} and a precision (e.g. '{{r2:.3f}}') "
            f"at most {precision}")


def trend_label_too_long(length: int, limit: int) -> str:
    return f"the label would be {length:,} characters long, over the limit of {limit:,}"


def trend_label_too_long_hint() -> str:
    return "shorten the text, or use narrower widths and fewer digits in its placeholders"


def trend_label_undefined(name: str, method: str) -> str:
    return f"label placeholder {{{name}}} has no value for this {method} trend"


def trend_label_undefined_hint() -> str:
    return "remove it from the label, or use a method that defines it"


# ---- load messages
# Stage 1 (stages/load.py): reading the file and parsing YAML / JSON.

def spec_not_found(path: str) -> str:
    return f"spec file {path!r} does not exist"


def spec_is_directory(path: str) -> str:
    return f"{path!r} is a directory, not a spec file"


def spec_unreadable(path: str, reason: str) -> str:
    return f"cannot read spec file {path!r}: {reason}"


def spec_too_large(limit: int) -> str:
    return f"the spec is larger than {limit // (1024 * 1024)} MiB"


def spec_too_large_hint() -> str:
    return "keep large data in a separate file and point the spec at it"


def invalid_utf8(byte: int) -> str:
    return f"the file is not valid UTF-8 (byte 0x{byte:02X})"


def invalid_utf8_hint() -> str:
    return "save the file as UTF-8"


def forbidden_character(char: str) -> str:
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        kind = "unpaired surrogate"
    elif code < 0x20 or 0x7F <= code <= 0x9F:
        kind = "control character"
    else:
        kind = "non-character"
    return f"{kind} U+{code:04X} is not allowed"


def forbidden_character_hint() -> str:
    return "remove it; tab, newline and carriage return are the only control characters allowed"


def tab_indentation() -> str:
    return "tab character used for indentation"


def tab_indentation_hint() -> str:
    return "indent with spaces"


def tab_not_allowed() -> str:
    return "tab character is not allowed here"


def tab_not_allowed_hint() -> str:
    return "use spaces instead of tabs"


def invalid_yaml(problem: str) -> str:
    return f"invalid YAML: {problem}"


def invalid_json(problem: str) -> str:
    return f"invalid JSON: {problem}"


def syntax_context_hint(context: str, line: int, column: int) -> str:
    """Where the construct that the parser was reading began."""
    return f"in {context} that starts at line {line}, column {column}"


def multiple_documents() -> str:
    return "the file holds more than one YAML document"


def multiple_documents_hint() -> str:
    return "a spec file holds one chart: remove the extra '---' or split the file"


def unsupported_yaml_version(version: str) -> str:
    return f"YAML {version} is not supported; specs are read as YAML 1.2"


def unsupported_yaml_version_hint() -> str:
    return "remove the %YAML line"


def not_a_mapping(kind: str) -> str:
    return f"a chart spec must be a mapping of keys to values, not {kind}"


def not_a_mapping_hint(spec_format: str) -> str:
    if spec_format == "json":
        return 'write the spec as a JSON object, e.g. {"title": "My chart"}'
    return "start the file with top-level keys, e.g. 'title: My chart'"


def duplicate_key(key: str, first_line: int) -> str:
    return f"duplicate key {key!r} (first defined on line {first_line})"


def duplicate_key_hint() -> str:
    return "a key may appear only once in a mapping; remove or rename one"


def key_not_string(kind: str, text: str | None = None) -> str:
    if text is None:
        return f"a mapping key must be a string, not {kind}"
    return f"mapping key {text!r} is {kind}, not a string"


def key_not_string_hint() -> str:
    return "quote the key"


def unsupported_tag(tag: str) -> str:
    return f"the tag {tag} is not supported"


def unsupported_tag_hint() -> str:
    return "remove the tag; a spec holds only mappings, lists, strings, numbers, booleans and null"


def bad_tagged_scalar(value: str, tag: str) -> str:
    return f"{value!r} is not a valid {tag} value"


def bad_merge() -> str:
    return "a merge key '<<' must be followed by a mapping or a list of mappings"


def non_finite_number(text: str) -> str:
    return f"{text} is not allowed: numbers in a spec must be finite"


def non_finite_number_hint() -> str:
    return "JSON has no NaN or infinity; use null, or quote the value if it is text"


def number_out_of_range(text: str) -> str:
    shown = text if len(text) <= 24 else text[:20] + "..."
    return f"the number {shown} is out of range"


def undefined_alias(name: str) -> str:
    return f"alias *{name} refers to an undefined anchor"


def undefined_alias_hint(name: str) -> str:
    return f"define the anchor with &{name} before the alias"


def recursive_alias(name: str) -> str:
    return f"recursive alias *{name}: it refers to a node that contains it"


def alias_bomb(limit: int) -> str:
    return f"aliases expand to more than {limit:,} nodes"


def alias_bomb_hint() -> str:
    return "use fewer aliases (*name), or write the repeated values out"


def too_deeply_nested(limit: int) -> str:
    return f"the spec is nested more than {limit} levels deep"


# ---- validate / resolve messages (core compiler)

def data_two_sources(keys: Sequence[str]) -> str:
    names = [repr(k) for k in keys]
    listed = ", ".join(names[:-1]) + " and " + names[-1]
    return f"data has {'both' if len(keys) == 2 else 'all of'} {listed}, but takes exactly one source"


def data_two_sources_hint() -> str:
    return "keep one of 'values', 'path' or 'dataset' and remove the others"


def or_list(values: Sequence[object]) -> str:
    """``'a', 'b' or 'c'``."""
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def needs_one_of_keys(keys: Sequence[str]) -> str:
    return f"expected a mapping with one of the keys {or_list(keys)}"


def files_in_folder(folder: str, names: Sequence[str]) -> str:
    where = f"in {folder!r}" if folder not in ("", ".") else "next to the spec"
    return f"files {where}: {quoted_list(names)}" if names else f"there are no files {where}"


def field_hint(field: str, available: Sequence[str]) -> str:
    """The hint for a missing field: a near miss, then every column."""
    guess = did_you_mean(field, available)
    columns = available_columns(available)
    return f"{guess} {columns}" if guess else columns


# ---- marker maps (check stage)

def marker_unstyled(field: str, values: Sequence[object]) -> str:
    noun = "value" if len(values) == 1 else f"{len(values)} values"
    return f"{field!r} has the {noun} {quoted_list(values)} in the data but no style for {'it' if len(values) == 1 else 'them'}"


def marker_unstyled_hint(values: Sequence[object]) -> str:
    return f"add a style for {str(values[0])!r} under 'styles' (e.g. {str(values[0])!r}: {{shape: circle, color: gray}}), or a 'default:' style for every category without one"


def marker_absent(field: str, value: str) -> str:
    return f"style for {value!r}, but {field!r} has no such value in the data"


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice `did_you_mean` would suggest, or None."""
    choices = [str(c) for c in choices]
    hint = did_you_mean(word, choices)
    return next((c for c in choices if hint == f"did you mean {c!r}?"), None)


# ---- trend layers (fit stage)

def trend_in_group(by: str, group: object, message: str) -> str:
    return f"for {by} {group!r}: {message}"


def trend_channel_derived(channel: str, prop: str) -> str:
    return f"a trend is fitted to the rows themselves, so its {channel} cannot use {prop!r}"


def trend_channel_derived_hint(channel: str, prop: str) -> str:
    return (f"give the trend layer its own {channel} encoding without {prop}, "
            "or put the summarised values in the data")


def trend_channel_type(channel: str, field: str, kind: str, allowed: Sequence[str]) -> str:
    wanted = " or ".join(allowed)
    return f"a trend needs {wanted} values on {channel}, but {field!r} is {kind}"


def trend_channel_type_hint() -> str:
    return "fit trends on numbers (and dates on x); declare type: quantitative for numbers stored as text"


def trend_extent_axis() -> str:
    return "extent 'axis' needs the x scale's domain, but no layer declares one as [low, high]"


def trend_extent_axis_hint() -> str:
    return "declare encoding.x.scale.domain: [low, high], or use extent: data or extent: [low, high]"


def trend_extent_text(value: object) -> str:
    return f"extent bound {value!r} is text, but the x axis is not temporal"


def trend_extent_date(value: object) -> str:
    return f"extent bound {value!r} is not a date"


def trend_extent_text_hint() -> str:
    return "give numbers on a quantitative x axis, ISO dates such as '2020-01-31' on a temporal one, or null for the data's own end"


def trend_scale_exponent(channel: str, exponent: object) -> str:
    return f"the {channel} pow scale needs a non-zero exponent for a trend to follow it, got {exponent!r}"


# ---- gallery builds and `chartc build --check` (gallery.py)

def duplicate_output_stem(stem: str, other: str) -> str:
    return f"its outputs would be named {stem!r}, like those of {other}; rename one of the two specs"


def reserved_output_stem(stem: str, page: str) -> str:
    return f"its chart page would be {page}, the gallery's own {stem} page; rename the spec"


def chart_not_built() -> str:
    return "not built yet"


def chart_forced() -> str:
    return "--force"


def chart_spec_moved(old: str) -> str:
    return f"built from {old}"


def chart_tools_changed(change: str) -> str:
    return f"built with {change}"


def toolchain_differs(folder: str, differences: Sequence[tuple[str, str, str]]) -> str:
    listed = ", ".join(f"{tool} {old} (installed: {new})" for tool, old, new in differences)
    return (f"{folder}: rendered by another toolchain than the one installed: {listed}; every output's bytes "
            "depend on these versions: install the versions that rendered it, or run `chartc build` to "
            "render it again with yours")


def chart_input_changed(path: str) -> str:
    return f"{path} changed"


def chart_input_missing(path: str) -> str:
    return f"{path} is gone"


def chart_rendered(spec: str, reason: str) -> str:
    return f"{spec}: rendered ({reason})"


def output_missing() -> str:
    return "missing"


def output_modified() -> str:
    return "stale (changed since it was built)"


def output_stale(reason: str) -> str:
    return f"stale ({reason})"


def output_not_built(spec: str) -> str:
    return f"missing ({spec} is not built)"


def output_untracked(spec: str) -> str:
    return f"stale ({spec} is not in the manifest)"


def output_orphaned(spec: str) -> str:
    return f"orphaned ({spec} was deleted)"


def output_leftover() -> str:
    return "orphaned (left by an interrupted build)"


def output_removed(path: str) -> str:
    return f"{path}: removed"


def leftover_removed(path: str) -> str:
    return f"{path}: removed (left by an interrupted build)"


def index_charts_changed() -> str:
    return "the list of charts changed"


def check_failed(count: int, folder: str) -> str:
    noun = "output is" if count == 1 else "outputs are"
    return f"{folder}: {count} {noun} out of date; run `chartc build` and commit the result"


def check_passed(charts: int, folder: str) -> str:
    return f"{folder}: {charts} chart{'' if charts == 1 else 's'} up to date"


def build_summary(folder: str, rendered: int, unchanged: int, removed: int) -> str:
    text = f"{folder}: {rendered} chart{'' if rendered == 1 else 's'} rendered, {unchanged} up to date"
    return text + (f", {removed} removed" if removed else "")


def chart_input_unreadable(path: str, reason: str) -> str:
    return f"{path} cannot be read ({reason})"


def build_locked(folder: str, pid: str) -> str:
    return (f"another chartc build is writing {folder}/ (pid {pid}); this build stopped without writing "
            "anything: run it again once that one has finished")


def gallery_unwritable(path: str, reason: str) -> str:
    return f"cannot write {path}: {reason}; no output was changed"


def gallery_partly_written(path: str, reason: str) -> str:
    return (f"cannot write {path}: {reason}; the outputs before it were replaced, the manifest was not: "
            "build again once it can be written")


def compile_unwritable(path: str, reason: str) -> str:
    return f"cannot write {path}: {reason}; no output was written"


# ---- the gallery manifest read back (manifest.py): it arrives through pull requests

def manifest_refused_hint(manifest: str) -> str:
    return (f"chartc reads only files inside the project and removes only the outputs it wrote; restore "
            f"{manifest} from git, or delete it to render every chart again")


def manifest_unreadable(reason: str) -> str:
    return f"the manifest cannot be read: {reason}"


def manifest_expected(what: str, got: str) -> str:
    return f"expected {what}, not {got}"


def manifest_key_missing(key: str) -> str:
    return f"the entry has no {key!r}"


def manifest_duplicate_key(key: str) -> str:
    return f"the key {key[:80]!r} appears twice"


def manifest_too_many(count: int, limit: int) -> str:
    return f"{count:,} entries, more than the {limit:,} a manifest may list here"


def manifest_text_too_long(length: int, limit: int) -> str:
    return f"a string of {length:,} characters, longer than the {limit:,} a manifest may hold"


def manifest_hash_refused(value: str) -> str:
    return f"expected a SHA-256 hash (64 lowercase hex digits), not {value}"


def manifest_stem_refused(stem: str) -> str:
    return f"{stem[:80]!r} is not a chart name (a spec file's name up to its first '.')"


def manifest_dataset_refused(key: str) -> str:
    return f"{key[:80]!r} does not name a dataset"


def manifest_output_refused(name: str, owner: str) -> str:
    return (f"{name[:200]!r} is not a file chartc writes for {owner!r}; a manifest lists only its own outputs "
            "inside the gallery folder")


def manifest_path_absolute(path: str) -> str:
    return f"{path[:200]!r} is an absolute path; a manifest names files relative to the gallery folder"


def manifest_path_not_normal(path: str, normal: str) -> str:
    return f"{path[:200]!r} is not a normalised path (chartc writes it {normal[:200]!r})"


def manifest_path_outside(path: str, target: str) -> str:
    return f"{path[:200]!r} leads outside the project (to {target[:200]})"


def manifest_path_not_regular(path: str, kind: str) -> str:
    return f"{path[:200]!r} is {kind}, not a regular file"


# ---- `chartc diff` (diff.py)

def diff_no_git() -> str:
    return "chartc diff needs git, and no `git` command was found"


def diff_not_a_repository(folder: str) -> str:
    return f"{folder} is not inside a git work tree"


def diff_unknown_revision(rev: str) -> str:
    return f"{rev!r} names no commit"


def diff_git_failed(command: str, reason: str) -> str:
    return f"`git {command}` failed: {reason}" if reason else f"`git {command}` failed"


def diff_path_outside_repository(path: str, root: str) -> str:
    return f"{path} is outside the repository at {root}: only files inside it can be compared"


def diff_no_specs_folder(folder: str) -> str:
    return (f"no specs/ folder in {folder} (what `chartc diff` compares by default): "
            f"pass the spec files or folders to compare, for example `chartc diff .`")


def diff_value_changed(path: str, before: str, after: str) -> str:
    return f"{path}: {before} -> {after}"


def diff_value_added(path: str, value: str) -> str:
    return f"{path}: added {value}"


def diff_value_removed(path: str, value: str) -> str:
    return f"{path}: removed {value}"


def diff_rows(changed: int, added: int, removed: int, before: int, after: int) -> str:
    counts = [(n, label) for n, label in ((changed, "changed"), (added, "added"), (removed, "removed")) if n]
    words = [f"{n} {'row' if n == 1 else 'rows'} {label}" if i == 0 else f"{n} {label}"
             for i, (n, label) in enumerate(counts)]
    return f"{', '.join(words)} ({before} -> {after} rows)"


def diff_columns(change: str, columns: Sequence[str]) -> str:
    noun = "column" if len(columns) == 1 else "columns"
    return f"{noun} {quoted_list(columns)} {change}"


def diff_fit_value(name: str, before: str, after: str) -> str:
    return f"{name} {before} -> {after}"


def diff_fit_changed(layer: str, changes: Sequence[str]) -> str:
    return f"fit {layer}: {', '.join(changes)}"


def diff_fit_presence(layer: str, status: str, method: str, r2: str) -> str:
    return f"fit {layer}: {status} ({method}, r2 {r2})"


def diff_error(side: str, diagnostic: str) -> str:
    return f"does not compile at {side}: {diagnostic}"


def diff_spec_unreadable() -> str:
    return "spec: changed (one side does not load)"


def diff_data_unreadable() -> str:
    return "data: changed (one side does not load)"


def diff_output_only() -> str:
    return "output: the compiled Vega-Lite changed"


def diff_text_only() -> str:
    return "text changed, the chart did not (comments or formatting)"


def diff_summary(before: str, after: str, changed: int, added: int, removed: int, unchanged: int,
                 renamed: int = 0) -> str:
    moved = f", {renamed} renamed" if renamed else ""
    return (f"{before} -> {after}: {changed} changed, {added} added, {removed} removed{moved}, "
            f"{unchanged} unchanged")


def diff_renamed_from(old: str) -> str:
    return f"renamed from {old}"


def mark_property_not_for(prop: str, kind: str) -> str:
    return f"{prop!r} does not apply to {kind!r} marks"


def mark_property_hint(kinds: Sequence[str]) -> str:
    return f"it applies to {or_list(kinds)} marks"


def field_dropped(field: str) -> str:
    return f"field {field!r} is in the data, but not after the transforms"


def field_dropped_hint(available: Sequence[str]) -> str:
    return ("an aggregate transform keeps only its groupby and 'as' fields, a fold "
            f"replaces the folded ones; {available_columns(available)}")


# serve and new (chartc serve, chartc new)

def serve_listening(url: str) -> str:
    return f"chartc serve: {url}"


def serve_changed(paths: Sequence[str]) -> str:
    return f"chartc serve: changed: {', '.join(paths)}"


def serve_built(specs: int, failing: int, seconds: float) -> str:
    problems = f"; {failing} with problems" if failing else ""
    return f"chartc serve: built {specs} spec{'s' if specs != 1 else ''} in {seconds:.2f} s{problems}"


def serve_build_crashed(reason: str) -> str:
    return f"chartc serve: the build failed: {reason}; still serving the last good gallery"


def serve_stopped() -> str:
    return "chartc serve: stopped"


def serve_problem_count(count: int) -> str:
    return f"{count} problem{'s' if count != 1 else ''}"


def serve_port_unavailable(port: int, reason: str) -> str:
    return f"cannot listen on 127.0.0.1:{port}: {reason}"


def serve_watch_failed(reason: str) -> str:
    return f"chartc serve: could not check the spec files: {reason}; trying again"


def serve_request_failed(reason: str) -> str:
    return f"chartc serve: a request failed: {reason}; still serving"


def serve_http_error(code: int, phrase: str, reason: str) -> str:
    """The plain-text body of every error response of `chartc serve`."""
    return f"{code} {phrase}: {reason}"


def serve_host_refused(port: int) -> str:
    return (f"this server answers only requests for 127.0.0.1:{port}, localhost:{port} or [::1]:{port} "
            "(the Host header)")


def serve_host_missing() -> str:
    return "a request needs exactly one Host header"


def serve_bad_request_line() -> str:
    return "a request line is: METHOD /path HTTP/1.x"


def serve_head_too_large(limit: int) -> str:
    return f"the request line and headers are over {limit} bytes"


def serve_target_too_long(limit: int) -> str:
    return f"the request target is over {limit} characters"


def serve_target_not_a_path() -> str:
    return "the request target must be a path starting with '/' (not a full URL)"


def serve_target_not_ascii() -> str:
    return "the request target may hold only printable ASCII (percent-encode the rest)"


def serve_target_bad_escape() -> str:
    return "'%' in a path must be followed by two hex digits"


def serve_target_not_utf8() -> str:
    return "the path is not UTF-8 once percent-decoded"


def serve_target_control() -> str:
    return "the path holds a control character"


def serve_target_dot_segment() -> str:
    return "'.' and '..' path segments are not served"


def new_file_exists(path: str) -> str:
    return f"{path} already exists; choose another name (chartc new never overwrites a file)"


def new_written(path: str, template: str) -> str:
    return f"wrote {path} from the {template} template; preview it with: chartc serve {path}"


def new_schema_written(path: str) -> str:
    return f"wrote {path}, the chart schema the new spec's $schema points at (commit it with your specs)"


def project_file_unwritable(path: str, reason: str) -> str:
    return f"cannot write {path}: {reason}"


def init_not_a_folder(path: str) -> str:
    return f"{path} is a file; chartc init takes the project's folder"


def init_schema_written(path: str) -> str:
    return f"wrote {path}: the chart schema, for a spec's $schema and editor completion"


def init_schema_updated(path: str) -> str:
    return f"updated {path} from another chartc version"


def init_schema_current(path: str) -> str:
    return f"{path} is up to date"


def init_schema_is_source(path: str) -> str:
    return f"{path} is the schema chartc itself reads (a chartc checkout): left alone"


def init_settings_written(path: str) -> str:
    return f"wrote {path}: VS Code's YAML extension checks specs against the schema"


def init_settings_configured(path: str) -> str:
    return f"{path} already names the schema: left alone"


def init_settings_exists(path: str, snippet: str) -> str:
    return f"{path} exists and is left alone; for completion in VS Code, add to it:\n{snippet}"


def schema_copy_stale(reference: str) -> str:
    return f"{reference} is another chartc version's chart schema: editors check this spec against other rules"


def schema_copy_stale_hint() -> str:
    return "update the copy with: chartc init"


def facet_channel_hint(channel: str) -> str:
    return f"small multiples are declared under facet, e.g. facet: {{{channel}: Origin}}"


def facet_property_not_allowed(prop: str, channel: str) -> str:
    return f"{prop!r} does not apply to a facet {channel}"


def channel_takes_no(prop: str, channel: str) -> str:
    return f"the {channel!r} channel takes no {prop!r}"


def channel_takes_no_hint() -> str:
    return "give it a field, e.g. {field: Origin}"


def constant_channel_with(prop: str, constant: str) -> str:
    return f"{prop!r} does not apply to a channel with a constant {constant!r}"


def constant_channel_hint(constant: str) -> str:
    return f"keep either {constant!r} alone, or a 'field' with its settings"


# ---- hardening: data the renderer cannot survive, Vega-Lite it refuses (stages/verify.py, stages/data, fit.py)

def data_text_scrubbed(field: str, count: int) -> str:
    noun = "character" if count == 1 else "characters"
    return f"data field {field!r}: replaced {count} control {noun} or Unicode non-{noun} with U+FFFD"


def data_column_scrubbed(name: str, clean: str, count: int) -> str:
    noun = "character" if count == 1 else "characters"
    return (f"data column {name!r}: replaced {count} control {noun} or Unicode non-{noun} in its name "
            f"with U+FFFD; it is now {clean!r}")


def data_scrubbed_hint() -> str:
    return ("the renderer aborts on them; clean the data file (tab, newline and carriage return are "
            "the only control characters allowed)")


def data_integers_rounded(field: str, count: int) -> str:
    noun = "integer" if count == 1 else "integers"
    return f"data field {field!r}: {count} {noun} beyond ±2⁵³ made floating-point"


def data_integers_hint() -> str:
    return "charts are drawn with JavaScript numbers, exact only up to 2⁵³ = 9007199254740992"


def integer_range_hint() -> str:
    return "use a number of at most 2⁵³ = 9007199254740992"


def data_too_many_rows(path: str, limit: int) -> str:
    return f"data {path!r} has more than {limit:,} rows"


def data_too_many_rows_hint(sampled: bool = False) -> str:
    if sampled:
        return "aggregate the data before charting it"
    return ("set data.sample to draw that many rows (trends are still fitted on every row), "
            "or aggregate the data before charting it")


def not_dates(field: str, values: Sequence[object]) -> str:
    noun = "value is not a date" if len(values) == 1 else "values are not dates"
    return f"{field!r} is temporal, but {len(values)} {noun}: {quoted_list(values, limit=3)}"


def not_dates_hint() -> str:
    return "write dates as ISO text such as 2024-01-31, remove those rows, or use type: nominal"


def day_first_dates(field: str, value: str, where: str) -> str:
    return (f"{field!r} is temporal, but its dates are day first, which the renderer cannot read: "
            f"{value!r} ({where}) would be dropped from the chart")


def day_first_dates_hint() -> str:
    return ("write dates as ISO text, year first, such as 2020-12-31; "
            "the renderer reads 01/02/2020 as January 2 and drops 31/12/2020")


def data_file_line(path: str, line: int) -> str:
    return f"line {line} of {path!r}"


def data_row_number(index: int) -> str:
    return f"row {index + 1} of the data"


def rows_unknowable_unsupported(what: str) -> str:
    return f"chartc cannot reproduce what Vega computes here ({what})"


def rows_unknowable_random(op: str) -> str:
    return f"the aggregate op {op!r} draws a random bootstrap sample"


def rows_unknowable_nested(field: str) -> str:
    return f"Vega reads the field name {field!r} as a nested path ('.', '[' or '\\' in it), not as a column"


def rows_unknowable_parse_conflict(field: str) -> str:
    return f"Vega-Lite parses field {field!r} as a different type in different layers"


def rows_unknowable_unparsed() -> str:
    return "the expression does not parse"


def expression_throws(error: str) -> str:
    return f"Vega stops at this expression ({error}) and draws nothing from these rows"


def expression_throws_hint() -> str:
    return "guard the value first, e.g. isValid(datum.x) ? datum.x.y : null"


def data_nested(field: str, index: int) -> str:
    return f"field {field!r} of row {index + 1} holds a list or mapping, but chart data are flat rows"


def data_nested_hint() -> str:
    return "give each value its own field, e.g. {x: 1, y: 2} rather than {point: [1, 2]}"


def vega_lite_invalid_hint(vl_path: str) -> str:
    return f"Vega-Lite rejects this value (at {vl_path} in the compiled chart)"


def vega_lite_refused(reason: str) -> str:
    return f"Vega-Lite cannot compile this chart: {reason}"


def render_limit(key: str, value: object, limit: int) -> str:
    return f"{key} {value!r} is over the limit of {limit:,}"


def render_limit_hint() -> str:
    return "the renderer hangs or runs out of memory on larger values"


def render_text_too_long(key: str, length: int, limit: int) -> str:
    return f"{key} of {length:,} characters is over the limit of {limit:,}"


def too_many_bins(step: object, bins: float, limit: int) -> str:
    return f"bin step {step!r} makes {bins:,.0f} bins over the data, over the limit of {limit:,}"


def bad_number_format(text: str) -> str:
    return f"{text!r} is not a number format"


def bad_number_format_hint() -> str:
    return "use a d3-format string such as '.2f', ',d', '.0%' or '~s', or a preset: pow10, si, percent"


def number_format_too_large(text: str, part: str, digits: str, limit: int) -> str:
    return f"number format {text!r} asks for a {part} of {digits}, over the limit of {limit}"


def number_format_too_large_hint(width: int, precision: int) -> str:
    return f"a d3-format width may be at most {width} and a precision at most {precision}, e.g. '>8.2f'"


# ---- mark limits (limits.py) and renderer workers (workers.py, gallery builds, compile)

def too_many_marks(count: int, limit: int, layers: int) -> str:
    where = "" if layers <= 1 else f" over {layers} layers"
    return f"the chart would draw {count:,} marks{where}, over the limit of {limit:,}"


def too_many_marks_hint() -> str:
    return ("aggregate, bin or sample the data, or filter it, before charting it: the renderer runs out of "
            "memory and aborts near 10⁶ marks")


def render_crashed(how: str) -> str:
    return f"the renderer crashed while rendering this chart ({how}); no output was written"


def render_timed_out(seconds: float) -> str:
    return f"rendering this chart took longer than {seconds:g} s and was stopped; no output was written"


def render_raised(description: str) -> str:
    return f"internal error while rendering this chart: {description} (please report this as a chartc bug)"


def render_failed_hint() -> str:
    return "its previous outputs are kept; the other charts are built"


def render_timeout_hint() -> str:
    return "raise --timeout if the chart is just large; a regular expression in a filter can also hang the renderer"


def bundle_failed(reason: str) -> str:
    return f"could not make the Vega bundle every chart page loads: {reason}"


def pdf_not_reproducible(reason: str) -> str:
    return f"the renderer's PDF could not be read to write it reproducibly ({reason}); no PDF was written"


# ---- render messages

def render_refused(reason: str) -> str:
    return f"the renderer refused this chart: {reason}"


def render_refused_hint() -> str:
    return ("check the expressions in filter and calculate: fields are written datum.NAME, "
            "text is quoted ('text')")


def render_refused_other_hint() -> str:
    return "values passed through 'config' and 'vega_lite' reach the renderer unchecked; check those first"


def too_many_panels(panels: int, limit: int) -> str:
    return f"the facet makes {panels:,} panels, over the limit of {limit:,}"


def too_many_panels_hint() -> str:
    return "facet by a field with fewer distinct values, or filter the rows first"
