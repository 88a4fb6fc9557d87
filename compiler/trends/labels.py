"""Trend labels: a legend text such as ``"Trend (R²={r2:.3f})"`` filled in from a fitted line, within bounds.

The placeholders are the common ones (`registry.STATISTICS_PLACEHOLDERS`,
`registry.COMMON_PLACEHOLDERS`) and each method's own (``{slope}`` of
``linear``); a method's `TrendMethod.label_values` says what they are worth.
The syntax is `str.format`, with every format spec's width and precision
bounded. Plain Python: no numpy.

May import: `chartc.errors`, `chartc.trends` (registry, line) and the standard library.
"""

from __future__ import annotations

import re
import string
from typing import TYPE_CHECKING, Any

from .. import errors
from ..errors import SpecError
from .registry import STAGE, find_method, label_placeholders

if TYPE_CHECKING:
    from .line import TrendLine

# Bounds on what a label template may ask for. A format spec's width and
# precision are counts of characters to write, so a 16-byte label such as
# ``{r2:>100000000}`` would otherwise write 100 MB into every export. A
# double has 17 significant digits (d3-format stops at 20, as here): more
# digits are noise or zeros.
LABEL_MAX_WIDTH = 50
LABEL_MAX_PRECISION = 20
LABEL_MAX_LENGTH = 500  # characters of the filled-in label (and of its template, in the schema)

# Python's format-spec mini-language, which every label value (a number, text,
# the coefficient tuple, None) formats with:
# [[fill]align][sign][z][#][0][width][grouping][.precision][type].
FORMAT_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?z?#?0?(?P<width>\d+)?[,_]?"
    r"(?:\.(?P<precision>\d+))?(?P<type>[a-zA-Z%])?", re.DOTALL)


def format_trend_label(template: str, line: TrendLine) -> str:
    """Fill a legend label such as ``"Trend (R²={r2:.3f})"`` from a fit.

    Placeholders (`registry.label_placeholders`): r2, adj_r2, rse, coef (the
    coefficient values, e.g. ``{coef[1]:.2f}``), n, equation, method, group,
    and each method's own (slope and intercept of linear, ...). The syntax is
    `str.format`.

    Args:
        template: the label with placeholders.
        line: the fitted trend.

    Returns:
        The label text.

    Raises:
        SpecError: for an unknown placeholder, one without a value for this
            trend (e.g. ``{r2}`` of a loess), a malformed template or format
            spec, a width or precision over `LABEL_MAX_WIDTH` or
            `LABEL_MAX_PRECISION`, or a label longer than `LABEL_MAX_LENGTH`.
    """
    values = label_values(line)
    try:
        names = _placeholders(template)
    except ValueError as exc:
        raise SpecError(errors.trend_label_format(template, str(exc)), ("label",),
                        stage=STAGE, hint=errors.trend_label_format_hint()) from None
    for name in names:
        if name not in values:
            raise SpecError(errors.trend_label_placeholder(name), ("label",), stage=STAGE,
                            hint=errors.trend_label_placeholder_hint(label_placeholders()))
        if values[name] is None:
            raise SpecError(errors.trend_label_undefined(name, line.method), ("label",),
                            stage=STAGE, hint=errors.trend_label_undefined_hint())
    try:
        text = _fill_label(template, values)
    except (ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
        raise SpecError(errors.trend_label_format(template, str(exc)), ("label",),
                        stage=STAGE, hint=errors.trend_label_format_hint()) from None
    if len(text) > LABEL_MAX_LENGTH:
        raise SpecError(errors.trend_label_too_long(len(text), LABEL_MAX_LENGTH), ("label",),
                        stage=STAGE, hint=errors.trend_label_too_long_hint())
    return text


_FORMATTER = string.Formatter()


def _fill_label(template: str, values: dict, nested: bool = False) -> str:
    """What `str.format_map` makes of `template`, each format spec checked before it is applied.

    A spec may hold placeholders itself (``{r2:.{n}}``), one level deep as in
    `str.format`; its bounds are checked once they are filled in.

    Raises:
        SpecError: a width or precision over its limit.
        ValueError, TypeError, IndexError, KeyError, AttributeError: what
            `str.format` raises for the same template.
    """
    parts = []
    for literal, field, spec, conversion in _FORMATTER.parse(template):
        parts.append(literal)
        if field is None:
            continue
        value = _FORMATTER.convert_field(_FORMATTER.get_field(field, (), values)[0], conversion)
        if spec and nested:
            raise ValueError("Max string recursion exceeded")
        written = "{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        spec = _fill_label(spec, values, nested=True) if spec else spec
        _check_format_spec(written, spec)
        parts.append(format(value, spec))
    return "".join(parts)


def _check_format_spec(placeholder: str, spec: str) -> None:
    """Refuse a width or precision past `LABEL_MAX_WIDTH` / `LABEL_MAX_PRECISION`.

    A spec the mini-language pattern does not match is left to `format`,
    which refuses it for every value a label can hold.

    Args:
        placeholder: the placeholder as the template writes it, for the message.
        spec: its format spec, nested placeholders filled in.
    """
    match = FORMAT_SPEC.fullmatch(spec)
    if match is None:
        return
    for part, limit in (("width", LABEL_MAX_WIDTH), ("precision", LABEL_MAX_PRECISION)):
        digits = match[part]
        # Compared as text first: int() refuses numbers of over 4,300 digits.
        if digits is not None and (len(digits.lstrip("0")) > len(str(limit)) or int(digits) > limit):
            raise SpecError(errors.trend_label_spec_too_large(placeholder, part, digits.lstrip("0"), limit),
                            ("label",), stage=STAGE,
                            hint=errors.trend_label_spec_too_large_hint(LABEL_MAX_WIDTH, LABEL_MAX_PRECISION))


def _placeholders(template: str) -> list[str]:
    """The names a format template refers to, nested format specs included."""
    names = []
    for _, field, spec, _ in string.Formatter().parse(template):
        if field is None:
            continue
        names.append(re.match(r"[^.\[]*", field).group())
        if spec:
            names.extend(_placeholders(spec))
    return names


def label_values(line: TrendLine) -> dict[str, Any]:
    """Every placeholder's value for a fitted line; None where the line's method has none.

    Args:
        line: the fitted trend.

    Returns:
        Placeholder name -> value, for every name `registry.label_placeholders` lists.
    """
    values = dict.fromkeys(label_placeholders())
    values.update(find_method(line.method).label_values(dict(line.coefficients)))
    values.update(dict(line.statistics))
    values.update({
        "r2": line.r2,
        "adj_r2": line.adj_r2,
        "rse": line.rse,
        "coef": tuple(value for _, value in line.coefficients) or None,
        "n": line.n,
        "equation": line.equation,
        "method": line.method,
        "group": line.group,
    })
    return values
