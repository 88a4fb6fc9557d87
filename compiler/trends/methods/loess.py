"""The ``loess`` trend: local linear or quadratic regression with tricube weights, robustness iterations, a band.

Each local fit uses the nearest ``bandwidth`` fraction of the points. Local
fits are made at points 1% of the x range apart and interpolated linearly in
between (R's default for ``lowess``), so its cost grows with the data, not
with its square; it equals ``statsmodels.nonparametric.lowess(y, x,
frac=bandwidth, it=0, delta=0.01·range(x))`` at the data x. Tied x values
are ordered as in the input. A smoother: no bands, and its curve stops at
the data.

``iterations`` (default 0) adds Cleveland's robustness iterations: each
refits with every point's tricube weight multiplied by the bisquare of its
residual over six times the median absolute residual, as
``statsmodels.nonparametric.lowess(..., it=iterations)``. The default 0 is
the gaussian family of R's ``loess`` (no iterations) with its local linear
fit (R's ``loess`` defaults to ``degree = 2, span = 0.75``; its
``family = "symmetric"`` iterates 4 times); ``iterations: 3`` with
``bandwidth: 0.67`` is R's and statsmodels' ``lowess`` (``iter = 3``,
``f = 2/3``).

``degree: 2`` fits a local quadratic, as R's ``loess`` does by default
(``degree: 2, bandwidth: 0.75`` is R's ``loess(y ~ x)``; the neighbourhood is
the same: the q = ⌊n·span⌋ nearest points, tricube weights over the q-th
distance). R interpolates its local fits over a k-d tree (``surface =
"interpolate"``) where chartc interpolates linearly between fits 1% of the
range apart: both equal the exact fit (R's ``surface = "direct"``) at the
points where they fit, and differ slightly in between.

``band: 0.95`` (no iterations) draws R's pointwise confidence band of the
fitted curve, ``predict(loess(...), se = TRUE)`` with ``statistics =
"exact"``: the fit is then exact at every point (no interpolation), the
operator L (fit = L·y) is formed, s² = RSS/δ₁ with δ₁ = tr((I−L)ᵀ(I−L)),
se(x) = s·|l(x)| and the band fit ± t·se, t on δ₁²/δ₂ degrees of freedom
(δ₂ = tr(((I−L)ᵀ(I−L))²)). L has n² entries, so a band takes at most
`LOESS_BAND_MAX_ROWS` points per group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ... import errors
from ...errors import SpecError
from ..registry import SMOOTHER_MAX_ROWS, STAGE, Options, Parameter, TrendMethod

if TYPE_CHECKING:
    import numpy as np

# Local fits with at most this many weights are computed in one block.
LOESS_BLOCK = 1 << 20
# Loess fits locally at points this fraction of the x range apart and
# interpolates between them. Every point's own fit cost O(n²): 88 s at 10⁵
# points on the benchmark machine.
LOESS_DELTA = 0.01
# The most robustness iterations a loess takes (R's `lowess` uses 3, its `loess` family "symmetric" 4).
MAX_ITERATIONS = 20
# The most points a loess with a band fits in one group: its operator L is n × n doubles and δ₂ an n³ product
# (2,000 points: 32 MB, ~5 s on a 2-core machine, benchmarks/bench_stats.py).
LOESS_BAND_MAX_ROWS = 2_000


class Loess(TrendMethod):
    """Local linear regression (see the module docstring)."""

    name = "loess"
    description = ("Local linear (or, with `degree: 2`, quadratic) regression with tricube weights over the nearest "
                   "`bandwidth` fraction of the points, with optional robustness `iterations`; `band` draws R's "
                   "pointwise confidence band (without iterations, up to 2,000 points); the curve stops at the "
                   "data.")
    parameters = (Parameter("bandwidth", {
        "type": "number",
        "description": ("Fraction of points in each local `loess` fit. Local fits are made 1% of the x range "
                        "apart and joined by straight lines, as R's `lowess` does."),
        "examples": [0.3, 0.5], "default": 0.3, "exclusiveMinimum": 0, "maximum": 1}),
        Parameter("iterations", {
            "type": "integer",
            "description": ("Robustness iterations of a `loess` (0: none, R's `loess` gaussian family; 3: R's and "
                            "statsmodels' `lowess`): each refit down-weights points by the bisquare of their "
                            "residual over six median absolute residuals."),
            "examples": [3], "default": 0, "minimum": 0, "maximum": 20}),
        Parameter("degree", {
            "type": "integer", "enum": [1, 2],
            "description": ("Degree of the local polynomial of a `loess`: 1 (local linear, as `lowess`) or 2 (local "
                            "quadratic, as R's `loess`)."),
            "examples": [2], "default": 1}))
    has_band = False
    extrapolates = False
    max_rows = SMOOTHER_MAX_ROWS

    def draws_band(self, options: Options, kind: str) -> bool:
        return kind == "confidence" and not options["iterations"]

    def check(self, options: Options) -> None:
        from ..numerics import is_whole

        check_bandwidth(options["bandwidth"])
        if options["degree"] not in (1, 2) or isinstance(options["degree"], bool):
            raise SpecError(errors.trend_parameter_choice("degree", options["degree"], (1, 2)), ("degree",),
                            stage=STAGE)
        iterations = options["iterations"]
        if not is_whole(iterations) or not 0 <= iterations <= MAX_ITERATIONS:
            raise SpecError(errors.trend_parameter_bound("iterations", iterations, f"0 ≤ iterations ≤ {MAX_ITERATIONS}"),
                            ("iterations",), stage=STAGE)

    def fit(self, u, v, options: Options):
        import numpy as np

        from .. import numerics

        bandwidth, iterations, degree = options["bandwidth"], int(options["iterations"]), int(options["degree"])
        shown = (f", iterations={iterations}" if iterations else "") + (f", degree={degree}" if degree != 1 else "")
        equation = f"{options.y_name} = loess({options.x_name}, bandwidth={bandwidth:g}{shown})"
        if options.band is not None:
            if len(u) > LOESS_BAND_MAX_ROWS:
                raise SpecError(errors.trend_loess_band_rows(len(u), LOESS_BAND_MAX_ROWS), ("band",), stage=STAGE,
                                hint=errors.trend_loess_band_rows_hint())
            return loess_band_model(u, v, bandwidth, degree, equation)
        fitted = smooth_loess(u, v, bandwidth, delta=LOESS_DELTA * float(np.ptp(u)), iterations=iterations,
                              degree=degree)
        return numerics.smoother_model(u, fitted, equation)


def smooth_loess(x: Sequence[float], y: Sequence[float], bandwidth: float,
                 delta: float = 0.0, iterations: int = 0, degree: int = 1) -> np.ndarray:
    """Loess fitted values at the data x: local linear, tricube, no robustness.

    Equal to ``statsmodels.nonparametric.lowess(y, x, frac=bandwidth, it=0,
    delta=delta, return_sorted=False)`` when tied x values are in input order.
    A local fit uses the ``int(bandwidth·n)`` (at least 2) points nearest in
    x; when fewer than two of them have weight, the fit is the point's own y.
    With `delta` 0 every distinct x gets its own fit; otherwise fits are made
    at x values about `delta` apart and interpolated linearly in between.

    Args:
        x: finite x values.
        y: finite y values, same length.
        bandwidth: fraction of the points in each local fit, in (0, 1].
        delta: the x distance within which fits are interpolated (≥ 0).
        iterations: robustness iterations (statsmodels' ``it``).
        degree: the local polynomial's degree, 1 or 2.

    Returns:
        The fitted values, in the order of the input.

    Raises:
        SpecError: if `bandwidth` is not in (0, 1].
    """
    import numpy as np

    check_bandwidth(bandwidth)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    n = len(xs)
    k = min(max(int(bandwidth * n + 1e-10), 2), n)
    # The window [left, left + k) moves right while the point lies beyond the
    # midpoint of its first point and the next point outside it; those
    # midpoints never decrease, so a search finds every window at once.
    midpoints = (xs[: n - k] + xs[k:]) / 2.0
    anchors = _loess_anchors(xs, delta)
    robustness = None
    for iteration in range(iterations + 1):
        fitted_sorted = _loess_pass(xs, ys, anchors, midpoints, k, robustness, degree)
        if iteration < iterations:
            robustness = _robustness_weights(ys - fitted_sorted)
    fitted = np.empty(n)
    fitted[order] = fitted_sorted
    return fitted


def _robustness_weights(residuals: np.ndarray) -> np.ndarray:
    """Cleveland's robustness weights: the bisquare of |r| / (6·median |r|), as statsmodels computes them."""
    import numpy as np

    size = np.abs(residuals)
    median = float(np.median(size))
    scaled = np.where(size > 0, 1.0, 0.0) if median == 0 else size / (6.0 * median)
    return np.where(scaled < 1.0, (1.0 - scaled * scaled) ** 2, 0.0)


def _loess_pass(xs, ys, anchors, midpoints, k, robustness, degree=1) -> np.ndarray:
    """One loess pass on sorted x: the fits at the anchors, interpolated to every x (sorted order)."""
    import numpy as np

    fitted_anchors = np.empty(len(anchors))
    step = max(1, LOESS_BLOCK // k)
    for start in range(0, len(anchors), step):
        rows = anchors[start:start + step]
        if degree == 1:
            fitted_anchors[start:start + step] = _loess_block(xs, ys, rows, midpoints, k, robustness)
        else:
            window, operator = _local_operator(xs, xs[rows], midpoints, k, degree, robustness)
            fitted_anchors[start:start + step] = np.sum(operator * ys[window], axis=1)
    # Tied x share their anchor's fit; x between two anchors are interpolated
    # as statsmodels does (a·right + (1 - a)·left, left = the earlier anchor).
    right = np.searchsorted(xs[anchors], xs, side="left")
    tied = xs[anchors[np.minimum(right, len(anchors) - 1)]] == xs
    right = np.minimum(right, len(anchors) - 1)
    left = np.maximum(right - 1, 0)
    x_left, x_right = xs[anchors[left]], xs[anchors[right]]
    with np.errstate(invalid="ignore", divide="ignore"):
        a = (xs - x_left) / (x_right - x_left)
    between = a * fitted_anchors[right] + (1.0 - a) * fitted_anchors[left]
    return np.where(tied, fitted_anchors[right], between)


def _loess_anchors(xs: np.ndarray, delta: float) -> np.ndarray:
    """Indexes (into sorted x) where loess fits locally: statsmodels' ``update_indices``.

    From a fit at i, the next is at the last point within `delta` of x[i]
    (at least the point after x[i]'s ties, which share its fit).
    """
    import numpy as np

    n = len(xs)
    anchors = []
    i = 0
    while True:
        anchors.append(i)
        last = int(np.searchsorted(xs, xs[i], side="right")) - 1  # x[i]'s ties share its fit
        if last >= n - 1:
            return np.array(anchors)
        beyond = int(np.searchsorted(xs, xs[i] + delta, side="right"))  # first x past the cut
        k = beyond if beyond < n else n - 1  # statsmodels' loop ends on the last point
        i = max(k - 1, last + 1)


def check_bandwidth(bandwidth: Any) -> None:
    """Refuse a bandwidth outside (0, 1].

    Raises:
        SpecError: at the ``bandwidth`` key.
    """
    from ..numerics import is_number  # numpy: only once a chart is fitted

    if not is_number(bandwidth) or not 0 < bandwidth <= 1:
        raise SpecError(errors.trend_bandwidth(bandwidth), ("bandwidth",), stage=STAGE,
                        hint=errors.trend_bandwidth_hint())


def _loess_block(xs, ys, rows, midpoints, k, robustness=None) -> np.ndarray:
    import numpy as np

    centre = xs[rows]
    left = np.searchsorted(midpoints, centre, side="left")
    window = left[:, None] + np.arange(k)
    xw, yw = xs[window], ys[window]
    radius = np.maximum(centre - xs[left], xs[left + k - 1] - centre)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = (1.0 - (np.abs(xw - centre[:, None]) / radius) ** 3) ** 3
    # A window of one x value has radius 0 (weights 0/0); it and any window
    # with fewer than two weighted points keeps the point's own y, and the
    # 1e-12 floors are statsmodels' own, so the two agree.
    weights = np.nan_to_num(weights, nan=0.0)
    if robustness is not None:
        weights = weights * robustness[window]
    usable = np.count_nonzero(weights > 1e-12, axis=1) >= 2
    weights = weights / np.where(usable, weights.sum(axis=1), 1.0)[:, None]
    mean_x = np.sum(weights * xw, axis=1, keepdims=True)
    spread = np.maximum(np.sum(weights * (xw - mean_x) ** 2, axis=1, keepdims=True),
                        1e-12)
    projection = weights * (1.0 + (centre[:, None] - mean_x) * (xw - mean_x) / spread)
    return np.where(usable, np.sum(projection * yw, axis=1), ys[rows])


def _local_operator(xs, centre, midpoints, k, degree, robustness=None):
    """The local fits at `centre` as weights on the data: (window indexes, l) with fit = Σ l·y over the window.

    A local polynomial of `degree` in (x − centre)/radius, tricube weights over the k nearest sorted x (the
    same windows as `_loess_block`); a window with fewer than two weighted points keeps the nearest point's y.
    The normal equations are solved by pseudo-inverse, so a window of too few distinct x for a quadratic
    gets the least-norm local fit rather than an error.
    """
    import numpy as np

    left = np.searchsorted(midpoints, centre, side="left")
    window = left[:, None] + np.arange(k)
    xw = xs[window]
    radius = np.maximum(centre - xs[left], xs[left + k - 1] - centre)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        offset = np.nan_to_num((xw - centre[:, None]) / radius, nan=0.0)
    size = np.abs(offset)
    cube = 1.0 - size * size * size
    weights = np.where(size < 1.0, cube * cube * cube, 0.0)   # tricube, by products: ** is slow on arrays
    if robustness is not None:
        weights = weights * robustness[window]
    usable = np.count_nonzero(weights > 1e-12, axis=1) >= 2
    powers = [np.ones_like(offset)]
    for _ in range(2 * degree):
        powers.append(powers[-1] * offset)
    moments = np.stack([np.sum(weights * power, axis=1) for power in powers], axis=1)   # Σ w·z^j
    gram = moments[:, np.add.outer(np.arange(degree + 1), np.arange(degree + 1))]        # XᵀWX = [Σ w·z^(i+j)]
    first = np.linalg.pinv(gram, hermitian=True)[:, :, 0]         # (XᵀWX)⁻¹ e₁, XᵀWX symmetric
    operator = weights * sum(first[:, [j]] * powers[j] for j in range(degree + 1))
    nearest = np.argmin(np.abs(xw - centre[:, None]), axis=1)
    own = np.zeros_like(operator)
    own[np.arange(len(centre)), nearest] = 1.0
    return window, np.where(usable[:, None], operator, own)


def loess_operator(x: np.ndarray, at: np.ndarray, bandwidth: float, degree: int) -> np.ndarray:
    """The exact loess fit at `at` as a matrix on y (fit = L·y), L of shape (len(at), len(x)), no interpolation."""
    import numpy as np

    order = np.argsort(x, kind="stable")
    xs = x[order]
    n = len(xs)
    k = min(max(int(bandwidth * n + 1e-10), 2), n)
    midpoints = (xs[: n - k] + xs[k:]) / 2.0
    window, operator = _local_operator(xs, np.asarray(at, dtype=float), midpoints, k, degree)
    dense = np.zeros((len(at), n))
    np.add.at(dense, (np.arange(len(at))[:, None], order[window]), operator)
    return dense


def loess_band_model(x: np.ndarray, y: np.ndarray, bandwidth: float, degree: int, equation: str):
    """A loess with R's pointwise confidence band (see the module docstring): a `numerics.Model`."""
    import numpy as np

    from .. import numerics
    from ..tdist import student_t_quantile

    residual = np.eye(len(x)) - loess_operator(x, x, bandwidth, degree)   # I − L at the data
    delta1 = float(np.sum(residual * residual))                           # tr((I−L)ᵀ(I−L))
    gram = residual.T @ residual
    delta2 = float(np.sum(gram * gram))                                   # tr(((I−L)ᵀ(I−L))²)
    rss = float(np.sum((residual @ y) ** 2))
    if not delta1 > 1e-9 * len(x) or not rss > 0:   # the smoother interpolates the points: no residual to scale by
        raise SpecError(errors.trend_loess_band_interpolates(len(x)), ("band",), stage=STAGE,
                        hint=errors.trend_loess_band_interpolates_hint())
    scale = np.sqrt(rss / delta1)
    df = delta1 * delta1 / delta2

    made: dict = {}

    def operator(at):  # the curve and the band ask for the same points: L at them once
        key = np.asarray(at, dtype=float).tobytes()
        if key not in made:
            made.clear()
            made[key] = loess_operator(x, at, bandwidth, degree)
        return made[key]

    def curve(at):
        return operator(at) @ y

    def band(at, level, prediction):
        rows = operator(at)
        half = -student_t_quantile((1.0 - level) / 2.0, df) * scale * np.linalg.norm(rows, axis=1)
        fit = rows @ y
        return fit - half, fit + half

    return numerics.Model((), equation, curve, band, rse=float(scale))
