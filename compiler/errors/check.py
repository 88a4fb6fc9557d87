"""Messages of the check stage (stages/check.py, stages/markers.py): fields and values the chart needs.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from .registry import code
from .text import did_you_mean, quoted_list


@code("E451", hint="field_hint")
def field_not_found(field: str, available: Iterable[str]) -> str:
    """A field that is not in the data.

    A channel names a field that the data does not have. Usually a typo or a different capitalisation
    (the hint suggests the closest column and lists them all), or a field a transform was meant to add.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepowr
          y: Miles_per_Gallon
    """
    return f"field {field!r} is not in the data"


def available_columns(available: Iterable[str]) -> str:
    return f"available columns: {quoted_list(available)}"


@code("E452", hint="log_scale_hint")
def log_scale_non_positive(field: str, count: int) -> str:
    """A log scale over zero or negative values.

    A log scale cannot show zero or negative values: Vega-Lite would drop those points silently. Filter
    them out, or use a `symlog` scale.

    Example:
        data:
          values: [{x: 0, y: 1}, {x: 1, y: 10}, {x: 2, y: 100}]
        mark: point
        encoding:
          x: x
          y: {field: x, scale: {type: log}}
    """
    values = "value is" if count == 1 else "values are"
    return f"log scale on {field!r}, but {count} {values} zero or negative"


def log_scale_hint() -> str:
    return "filter those rows out, or use scale type 'symlog'"


@code("E457")
def unknown_shape(name: object) -> str:
    """An unknown marker shape.

    A marker shape that chartc does not know. The built-in shapes are listed in the hint (circle,
    square, star, hexagon, triangle-up, x, ...); a misspelling gets a suggestion.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        markers:
          field: Origin
          default: {shape: hexagonn}
    """
    return f"unknown marker shape {name!r}"


def known_shapes(names: Iterable[str]) -> str:
    return f"known shapes: {quoted_list(names, limit=30)}"


def field_hint(field: str, available: Sequence[str]) -> str:
    """The hint for a missing field: a near miss, then every column."""
    guess = did_you_mean(field, available)
    columns = available_columns(available)
    return f"{guess} {columns}" if guess else columns


@code("E453")
def marker_unstyled(field: str, values: Sequence[object]) -> str:
    """A category without a marker style.

    A `markers` map styles some values of its field, but the data has others with no style and no
    `default`: they would be drawn in an arbitrary style. Add a style for each, or a `default`.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        markers:
          field: Origin
          styles:
            USA: {shape: circle}
    """
    noun = "value" if len(values) == 1 else f"{len(values)} values"
    return f"{field!r} has the {noun} {quoted_list(values)} in the data but no style for {'it' if len(values) == 1 else 'them'}"


def marker_unstyled_hint(values: Sequence[object]) -> str:
    return f"add a style for {str(values[0])!r} under 'styles' (e.g. {str(values[0])!r}: {{shape: circle, color: gray}}), or a 'default:' style for every category without one"


@code("W451")
def marker_absent(field: str, value: str) -> str:
    """A marker style for a value not in the data.

    A `markers` map has a style for a value that the data does not have: probably a typo, or the data
    changed. The chart still compiles.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        markers:
          field: Origin
          default: {shape: circle}
          styles:
            Germany: {shape: square}
    """
    return f"style for {value!r}, but {field!r} has no such value in the data"


@code("E454")
def field_dropped(field: str) -> str:
    """A field a transform has dropped.

    The field is in the data, but a transform before the encoding removed it: an aggregate keeps only
    its `groupby` and `as` fields, a fold replaces the folded ones. Encode a field the transforms keep,
    or add it to `groupby`.

    Example:
        data: {dataset: barley}
        transform:
          - aggregate:
              - {op: mean, field: yield, as: mean_yield}
            groupby: [site]
        mark: bar
        encoding:
          x: yield
          y: site
    """
    return f"field {field!r} is in the data, but not after the transforms"


def field_dropped_hint(available: Sequence[str]) -> str:
    return ("an aggregate transform keeps only its groupby and 'as' fields, a fold "
            f"replaces the folded ones; {available_columns(available)}")


@code("E455")
def not_dates(field: str, values: Sequence[object], count: int | None = None) -> str:
    """Values that are not dates on a temporal channel.

    A temporal channel's values do not read as dates. Write dates in ISO form (2020-01-31,
    2020-01-31T12:00), or change the channel's type.
    """
    count = len(values) if count is None else count  # (of which `values` may be the first few)
    noun = "value is not a date" if count == 1 else "values are not dates"
    return f"{field!r} is temporal, but {count} {noun}: {quoted_list(values, limit=3, total=count)}"


def not_dates_hint() -> str:
    return "write dates as ISO text such as 2024-01-31, remove those rows, or use type: nominal"


@code("E456")
def day_first_dates(field: str, value: str, where: str) -> str:
    """Dates written day first.

    The renderer reads 01/02/2020 as January 2; dates written day first would be read wrongly or not at
    all. Write ISO dates (2020-02-01) in the data.
    """
    return (f"{field!r} is temporal, but its dates are day first, which the renderer cannot read: "
            f"{value!r} ({where}) would be dropped from the chart")


def day_first_dates_hint() -> str:
    return ("write dates as ISO text, year first, such as 2020-12-31; "
            "the renderer reads 01/02/2020 as January 2 and drops 31/12/2020")


def expression_throws_hint() -> str:
    return "guard the value first, e.g. isValid(datum.x) ? datum.x.y : null"


# --- facet wrap and pow10 labels (issue 18): what is drawn is what was declared ---

@code("E461", hint="facet_wrap_two_fields_hint")
def facet_wrap_two_fields() -> str:
    """`facet.columns` with both `row` and `column`.

    Only a facet by one field can wrap into rows of `columns` panels: with both a `row` and a `column`
    field the grid already has one row per row value and one column per column value, and the
    renderer would ignore `columns`.

    Example:
        data: {dataset: cars}
        mark: point
        encoding: {x: Horsepower, y: Miles_per_Gallon}
        facet:
          row: Origin
          column: Cylinders
          columns: 3
    """
    return "'columns' wraps a facet by one field, but this facet has both 'row' and 'column'"


def facet_wrap_two_fields_hint() -> str:
    return "remove 'columns' (the grid has a row per 'row' value), or facet by one field: column: FIELD, columns: N"


@code("E462", hint="pow10_linear_hint")
def pow10_linear(channel: str) -> str:
    """`format: pow10` on an axis whose scale is not logarithmic.

    `pow10` labels the exact powers of ten (10³, 10⁴, ...) and leaves every other tick blank. The
    ticks of a linear scale (200, 400, 600, ...) are rarely powers of ten, so all labels but one
    would be blank. Use it on a log scale, or write the numbers with `si` or a d3-format string.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepower
          y:
            field: Weight_in_lbs
            axis: {format: pow10}
    """
    return f"format 'pow10' labels only powers of ten, but the {channel} scale is linear: its ticks would be blank"


def pow10_linear_hint() -> str:
    return "add scale: {type: log} to this channel, or use format: si or a d3-format string such as '.2e'"
