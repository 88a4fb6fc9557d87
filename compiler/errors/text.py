"""Wording shared by the messages of every stage: near-miss hints and quoted lists."""

from __future__ import annotations

import difflib
import re
from typing import Iterable, Mapping, Sequence


def did_you_mean(word: str, choices: Iterable[str], *,
                 synonyms: Mapping[str, Sequence[str]] | None = None) -> str | None:
    """A "did you mean 'x'?" hint for a near miss, or None.

    Args:
        word: what was written.
        choices: what is allowed there.
        synonyms: other libraries' words for the choices (`VALUE_SYNONYMS`,
            `KEY_SYNONYMS`), tried first: ``scatter`` is no near miss of
            ``point``, yet it is what a matplotlib user means. Only a synonym
            among `choices` is suggested.

    Returns:
        The hint, or None when nothing is close.
    """
    choices = [str(c) for c in choices]
    meant = _synonym(str(word), choices, synonyms) if synonyms else None
    if meant is not None:
        note = SYNONYM_NOTES.get(_squashed(str(word)))
        return f"did you mean {meant!r}? {note}" if note else f"did you mean {meant!r}?"
    close = difflib.get_close_matches(str(word), choices, n=1, cutoff=0.6)
    if not close:  # the same word in another case or with other separators: 'Top_Left' for 'top-left'
        squashed = {_squashed(c): c for c in choices}
        if _squashed(str(word)) in squashed:
            close = [squashed[_squashed(str(word))]]
    return f"did you mean {close[0]!r}?" if close else None


def _squashed(word: str) -> str:
    """A word without case, spaces, '_' or '-': 'Upper_Left' and 'upper left' are one word."""
    return re.sub(r"[\s_-]+", "", word.lower())


def _synonym(word: str, choices: Sequence[str], synonyms: Mapping[str, Sequence[str]]) -> str | None:
    candidates = {_squashed(k): v for k, v in synonyms.items()}.get(_squashed(word), ())
    return next((c for c in candidates if c in choices and c != word), None)


# What matplotlib, seaborn, pandas, Plotly and ggplot2 call the values chartc
# (and Vega-Lite) names otherwise, each with the choices it may mean, most likely
# first; a synonym is suggested only where one of them is allowed. Case, spaces,
# '_' and '-' do not count ('upper_left' is 'upper left').
VALUE_SYNONYMS: dict[str, tuple[str, ...]] = {
    # marks: plt.scatter, sns.scatterplot, plt.plot, sns.lineplot, plt.barh, plt.hist, ...
    "scatter": ("point",), "scatterplot": ("point",), "stripplot": ("point",), "dot": ("point",),
    "dots": ("point",), "marker": ("point",), "markers": ("point",), "geom point": ("point",),
    "plot": ("line",), "lineplot": ("line",), "lines": ("line",), "geom line": ("line",),
    "barh": ("bar",), "barplot": ("bar",), "bars": ("bar",), "hist": ("bar",), "histogram": ("bar",),
    "histplot": ("bar",), "countplot": ("bar",), "column": ("bar",), "geom bar": ("bar",), "geom col": ("bar",),
    "fill between": ("area",), "fill betweenx": ("area",), "stackplot": ("area",), "areaplot": ("area",),
    "axhline": ("rule",), "axvline": ("rule",), "hlines": ("rule",), "vlines": ("rule",), "hline": ("rule",),
    "vline": ("rule",), "abline": ("rule",),
    "heatmap": ("rect",), "imshow": ("rect",), "pcolormesh": ("rect",), "tile": ("rect",), "geom tile": ("rect",),
    "annotate": ("text",), "annotation": ("text",), "label": ("text",),
    "rugplot": ("tick",), "rug": ("tick",), "pie": ("arc",), "donut": ("arc",),
    "errorbars": ("errorbar",), "geom boxplot": ("boxplot",), "box": ("boxplot",),
    # legend places: matplotlib's legend(loc=...)
    "upper left": ("top-left",), "upper right": ("top-right",), "lower left": ("bottom-left",),
    "lower right": ("bottom-right",), "center left": ("left",), "center right": ("right",),
    "upper center": ("top",), "lower center": ("bottom",), "best": ("right",),
    # trend methods: statsmodels, R, pandas
    "lowess": ("loess",), "ols": ("linear",), "lm": ("linear",), "regression": ("linear",),
    "linregress": ("linear",), "polynomial": ("poly",), "polyfit": ("poly",), "quadratic": ("quad",),
    "exponential": ("exp",), "logarithmic": ("log",), "power": ("pow",), "rolling": ("moving-average",),
    "rolling mean": ("moving-average",), "sma": ("moving-average",),
    # channel types: Altair's shorthand letters, pandas' dtypes
    "q": ("quantitative",), "n": ("nominal",), "o": ("ordinal",), "t": ("temporal",),
    "numeric": ("quantitative",), "number": ("quantitative",), "continuous": ("quantitative",),
    "float": ("quantitative",), "categorical": ("nominal",), "category": ("nominal",), "string": ("nominal",),
    "datetime": ("temporal",), "date": ("temporal",), "time": ("temporal",),
    # aggregates: pandas and numpy
    "avg": ("mean",), "std": ("stdev",), "var": ("variance",), "sem": ("stderr",), "nunique": ("distinct",),
    "size": ("count",),
    # line interpolation: matplotlib's drawstyle
    "steps": ("step",), "steps mid": ("step",), "steps pre": ("step-before",), "steps post": ("step-after",),
}
# A synonym whose suggestion needs a word of why.
SYNONYM_NOTES = {"best": "it is the default; chartc does not look for the emptiest corner"}

# Keys other libraries use for chartc's keys (seaborn's `hue`, matplotlib's `loc`, `alpha`).
KEY_SYNONYMS: dict[str, tuple[str, ...]] = {
    "hue": ("color",), "colour": ("color",), "c": ("color",), "col": ("column",), "style": ("shape", "strokeDash"),
    "alpha": ("opacity",), "loc": ("position", "orient"), "location": ("position", "orient"),
    "position": ("orient",), "orient": ("position",), "linestyle": ("strokeDash",), "ls": ("strokeDash",),
    "linewidth": ("strokeWidth", "size"), "lw": ("strokeWidth", "size"),
    "markersize": ("size",), "ms": ("size",), "s": ("size",), "label": ("title",), "xlabel": ("title",),
    "ylabel": ("title",), "ncol": ("columns",), "ncols": ("columns",), "col wrap": ("columns",),
}


def quoted_list(values: Iterable[object], limit: int = 12, total: int | None = None) -> str:
    """``'a', 'b', 'c'`` with an ellipsis past `limit` items (of `total`, where `values` are only the first)."""
    values = [str(v) for v in values]
    total = len(values) if total is None else total
    text = ", ".join(repr(v) for v in values[:limit])
    return text + (f", ... ({total - limit} more)" if total > limit else "")


def or_list(values: Sequence[object]) -> str:
    """``'a', 'b' or 'c'``."""
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
