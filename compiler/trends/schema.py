"""The trend parts of the chart JSON Schema, written from the registered methods.

`trend_properties` gives the ``trend`` mapping's properties: the ``method``
enum with each method's documentation, every method's parameters (so
``order``, ``bandwidth`` and ``window`` stay trend keys, documented with the
methods that take them) and the ``label`` key's list of placeholders. The
validate stage composes them into the schema it checks with, so a method
registered by a user's code is accepted; ``scripts/build_schema.py`` writes
the built-in ones into ``schemas/chart.schema.json``.

May import: `chartc.trends` (registry, labels; no numpy) and the standard library.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from . import methods  # noqa: F401  (registers the built-in methods the schema lists)
from .labels import LABEL_MAX_LENGTH, LABEL_MAX_PRECISION, LABEL_MAX_WIDTH
from .registry import TrendMethod, methods_using, parameters, registered, spellings

def _fragment(schema: Mapping[str, Any], description: str) -> dict[str, Any]:
    """A property schema in the chart schema's key order: type, description, markdownDescription, the rest."""
    head = {"type": schema["type"]} if "type" in schema else {}
    rest = {key: value for key, value in schema.items() if key not in ("type", "description")}
    return {**head, "description": description, "markdownDescription": description, **rest}


def method_description(cls: type[TrendMethod]) -> str:
    """One method's documentation: what it fits, its parameters, its placeholders, its bands."""
    parts = [cls.description]
    if cls.aliases:
        parts.append("Also written " + ", ".join(f"`{a}`" for a in cls.aliases) + ".")
    if cls.parameters:
        parts.append("Parameters: " + "; ".join(
            f"`{p.name}` ({p.schema.get('description', '').rstrip('.')}"
            + (f", default {p.default}" if p.default is not None else "") + ")" for p in cls.parameters) + ".")
    if cls.placeholders:
        parts.append("Label placeholders: " + ", ".join(
            f"`{{{p.name}}}` ({p.description})" for p in cls.placeholders) + ".")
    if not cls.has_band:
        parts.append("No `band` or `prediction`.")
    return " ".join(parts)


def trend_properties(base: Mapping[str, Any], fixed: Sequence[str]) -> dict[str, Any]:
    """The trend mapping's properties: the hand-written `fixed` keys of `base`, and every registered method's.

    The ``method`` property's ``enum`` (names, then aliases) and its
    ``enumDescriptions`` come from the registry; each parameter follows
    ``method``, documented with the methods that take it; the label's
    description lists every method's placeholders and the extent's the
    methods whose curve stops at the data.

    Args:
        base: the trend properties as the schema file has them.
        fixed: the keys that are not any method's parameter (the `ir.Trend` node's own).

    Returns:
        The properties, in the file's order.
    """
    properties: dict[str, Any] = {}
    for key, value in base.items():
        if key not in fixed:
            continue  # a parameter: written from the registry below
        if key == "method":
            descriptions = [f"`{name}`: {method_description(cls)}" for name, cls in registered().items()]
            descriptions += [f"`{alias}`: `{name}`." for name, cls in registered().items()
                             for alias in cls.aliases]
            value = {**value, "enum": list(spellings()), "enumDescriptions": descriptions,
                     "markdownEnumDescriptions": descriptions}
        elif key == "label":
            text = label_description()
            value = {**value, "description": text, "markdownDescription": text}
        elif key == "extent":
            text = extent_description()
            value = {**value, "description": text, "markdownDescription": text}
        properties[key] = value
        if key == "method":
            for name, parameter in parameters().items():
                users = ", ".join(f"`{m}`" for m in methods_using(name))
                text = f"{parameter.schema.get('description', '')} Used by {users}."
                properties[name] = _fragment(parameter.schema, text.strip())
    return properties


def extent_description() -> str:
    """The ``extent`` key's documentation, naming the methods whose curve stops at the data."""
    names = [f"`{name}`" for name, cls in registered().items() if not cls.extrapolates]
    listed = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    stop = f" {listed} {'stop' if len(names) > 1 else 'stops'} at the data." if names else ""
    return ("The x range the line covers: `data` (default: the fitted points' range), `axis` (the x scale's "
            "declared `domain`), or `[min, max]` (numbers, or ISO dates on a temporal axis; `null` keeps the "
            "data's end)." + stop)


def label_description() -> str:
    """The ``label`` key's documentation, with every registered method's placeholders."""
    owners: dict[tuple[str, ...], list[str]] = {}
    for name, cls in registered().items():
        if cls.placeholders:
            owners.setdefault(tuple(p.name for p in cls.placeholders), []).append(name)
    own = "; ".join(", ".join(f"`{{{p}}}`" for p in names) + f" ({', '.join(users)})"
                    for names, users in owners.items())
    return ("Legend entry (joins the chart's one legend as a line). Placeholders: `{r2}`, `{adj_r2}`, `{rse}` "
            "(residual standard error √(SSR/(n − k − 1))), the least-squares fit's statistics as statsmodels' OLS "
            "(WLS with `weight`) gives them: `{p}` (the slope's t-test p-value for a straight line, the overall F "
            "test's for a polynomial), `{f}` (F statistic), `{slope_ci}` (the slope's 95% confidence interval, a "
            "pair: `{slope_ci[0]:.2f}`), `{aic}`, `{bic}`, `{rmse}` (√(SSR/n)), `{coef}` (all coefficients, e.g. `{coef[1]:.2f}`), `{n}`, `{equation}`, "
            "`{method}`, `{group}` (with `by`)" + (f", and each method's own: {own}" if own else "")
            + ", with format specs such as `{r2:.3f}`. Without a label the trend has no legend entry. "
            f"A format spec takes a width of at most {LABEL_MAX_WIDTH} and a precision of at most "
            f"{LABEL_MAX_PRECISION}; the label is at most {LABEL_MAX_LENGTH} characters long, before and after its "
            "placeholders are filled in.")
