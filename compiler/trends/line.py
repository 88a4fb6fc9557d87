"""The result of a fit: `TrendLine`, its numbers and the curve (and band) to draw.

Plain data, no numpy: the fit stage makes it (`trends.fitting.fit_trend`),
the legend and the translator read it.

May import: the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TrendLine:
    """A fitted trend: its numbers, and the curve (and band) to draw.

    ``coefficients`` are named (``intercept``/``slope``; ``c0``..``cK`` for
    polynomials; ``a``/``b`` for log, exp and pow) and refer to the fitting
    space given by ``space``. ``r2``, ``adj_r2`` and ``rse`` are None where
    they are undefined (the smoothers; R² of a constant y; no residual degrees
    of freedom). ``x``/``y`` and ``lower``/``upper`` are in data space.
    ``group`` is the ``by`` value of this fit (None for one overall fit).
    The fit stage fills in ``label`` (the legend text) and ``x_type``
    (``temporal`` when x was dates, fitted and sampled as milliseconds since
    1970-01-01 of their wall-clock time).
    """

    method: str
    group: Any
    n: int
    coefficients: tuple[tuple[str, float], ...]
    r2: float | None
    adj_r2: float | None
    rse: float | None
    equation: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    lower: tuple[float, ...] | None
    upper: tuple[float, ...] | None
    band: float | None
    band_kind: str | None
    space: tuple[str, str]
    label: str | None = None
    x_type: str = "quantitative"
    panel: tuple = ()  # ((facet field, value), ...) of the panel this line was fitted in
    # The label statistics besides r2, adj_r2 and rse, ((name, value), ...): those the method has
    # (`numerics.Ols.statistics`: p, f, slope_ci, aic, bic, rmse); a name left out has no value.
    statistics: tuple = ()
