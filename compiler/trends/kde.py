"""Vega's kernel density estimate (vega-transforms' ``KDE``, vega-statistics' ``randomKDE`` and ``sampleCurve``) in numpy.

What Vega-Lite's ``density`` transform compiles to, value for value:

- the bandwidth, when none is given (0), is Scott's rule as Vega's
  ``estimateBandwidth`` computes it: ``1.06 * v * n ** -0.2`` with ``v`` the
  smaller of the sample standard deviation and the interquartile range over
  1.34 (d3's quantiles), or the first of them that is not 0 or NaN, or
  ``|q1|``, or 1; ``n`` counts every value of the group, the deviation and
  quartiles only its numbers;
- the bandwidth is the Gaussian kernel's standard deviation (scipy's
  ``gaussian_kde`` takes a factor of the data's standard deviation instead);
- the density at ``x`` sums the kernel over every value of the group (a
  null is JavaScript's 0 there) and divides by the bandwidth and the count;
  the cumulative one sums Vega's West (2009) approximation of the normal CDF;
- the curve is sampled by ``sampleCurve``: `steps` points on a uniform grid
  (plus the end), or from `minsteps` uniform points refined by halving
  wherever the scaled curve turns by more than half a degree, down to a
  spacing of the extent over `maxsteps`.

Where it runs: the data stage's engine gathers each group's values in row
order (`stages.data.sql`), and calls this module on them. The sums over the
values are numpy's, and numpy's exp is not V8's: a density may differ from
Vega's in its last bits (relative 1e-13); the samples are Vega's exactly.
Nothing here knows specs or rows: lists of numbers in, points out.
"""

from __future__ import annotations

import math

import numpy as np

SQRT2PI = math.sqrt(2 * math.pi)
MIN_RADIANS = 0.5 * math.pi / 180  # sampleCurve subdivides up to 0.5 degrees
DEFAULT_MINSTEPS = 25
DEFAULT_MAXSTEPS = 200


def numbers(values: np.ndarray) -> np.ndarray:
    """vega-statistics' ``numbers``: the values that are neither null (NaN here) nor NaN."""
    return values[~np.isnan(values)]


def quantile_sorted(values: np.ndarray, p: float) -> float:
    """d3-array's ``quantileSorted`` (NaN for no values)."""
    n = len(values)
    if not n:
        return math.nan
    if p <= 0 or n < 2:
        return float(values[0])
    if p >= 1:
        return float(values[-1])
    i = (n - 1) * p
    i0 = math.floor(i)
    value0, value1 = float(values[i0]), float(values[i0 + 1])
    return value0 + (value1 - value0) * (i - i0)


def estimate_bandwidth(count: int, valid: np.ndarray) -> float:
    """vega-statistics' ``estimateBandwidth``: Scott's rule over a group of `count` values whose numbers are `valid`.

    Args:
        count: every value of the group (nulls too: ``array.length``).
        valid: the group's numbers.

    Returns:
        The kernel's standard deviation.
    """
    deviation = float(np.std(valid, ddof=1)) if len(valid) > 1 else math.nan  # d3's deviation: undefined below 2
    ordered = np.sort(valid)
    q1, q3 = quantile_sorted(ordered, 0.25), quantile_sorted(ordered, 0.75)
    spread = (q3 - q1) / 1.34
    smaller = math.nan if math.isnan(deviation) or math.isnan(spread) else min(deviation, spread)
    scale = next((value for value in (smaller, deviation, abs(q1)) if value and not math.isnan(value)), 1.0)
    return 1.06 * scale * count ** -0.2 if count else math.inf


def cumulative_normal(z: np.ndarray) -> np.ndarray:
    """vega-statistics' ``cumulativeNormal`` (West 2009) of standard scores."""
    big = np.abs(z)
    exp = np.exp(-big * big / 2)
    upper = 3.52624965998911e-02 * big + 0.700383064443688
    for coefficient in (6.37396220353165, 33.912866078383, 112.079291497871, 221.213596169931, 220.206867912376):
        upper = upper * big + coefficient
    lower = 8.83883476483184e-02 * big + 1.75566716318264
    for coefficient in (16.064177579207, 86.7807322029461, 296.564248779674, 637.333633378831, 793.826512519948,
                        440.413735824752):
        lower = lower * big + coefficient
    near = exp * upper / lower
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = big + 0.65
        for numerator in (4, 3, 2, 1):
            tail = big + numerator / tail
        far = exp / tail / 2.506628274631
    cd = np.where(big > 37, 0.0, np.where(big < 7.07106781186547, near, far))
    return np.where(z > 0, 1 - cd, cd)


def kernel_density(support: np.ndarray, bandwidth: float, cumulative: bool):
    """``randomKDE(support, bandwidth)``'s pdf (or cdf) as a function of one x."""
    n = len(support)
    buffer = np.empty_like(support)  # one buffer, in place: a million values are 8 MB per temporary

    def pdf(x: float) -> float:
        z = np.subtract(x, support, out=buffer)
        z /= bandwidth
        np.multiply(z, z, out=z)
        z *= -0.5
        np.exp(z, out=z)
        z /= SQRT2PI
        return float(np.sum(z)) / bandwidth / n

    def cdf(x: float) -> float:
        return float(np.sum(cumulative_normal((x - support) / bandwidth))) / n

    return cdf if cumulative else pdf


def sample_curve(f, extent: tuple[float, float], minsteps: int, maxsteps: int) -> list[tuple[float, float]]:
    """vega-statistics' ``sampleCurve``: points of `f` over `extent`, uniform or adaptively refined."""
    minsteps = minsteps or DEFAULT_MINSTEPS
    maxsteps = max(minsteps, maxsteps or DEFAULT_MAXSTEPS)
    low, high = extent
    span = high - low
    stop = span / maxsteps
    prev = [(low, f(low))]
    if minsteps == maxsteps:
        prev.extend((x, f(x)) for x in (low + (i / minsteps) * span for i in range(1, maxsteps)))
        prev.append((high, f(high)))
        return prev
    pending = [(high, f(high))]
    pending.extend((x, f(x)) for x in (low + (i / minsteps) * span for i in range(minsteps - 1, 0, -1)))
    p0 = prev[0]
    ys = [p0[1], *(point[1] for point in pending)]
    sx = 1 / span if span else math.inf
    spread = max(ys) - min(ys) if not any(math.isnan(y) for y in ys) else math.nan
    sy = 1 / spread if spread else math.inf
    while pending:
        p1 = pending[-1]
        x = (p0[0] + p1[0]) / 2
        pm = (x, f(x))
        if pm[0] - p0[0] >= stop and _angle_delta(p0, pm, p1, sx, sy) > MIN_RADIANS:
            pending.append(pm)
        else:
            p0 = p1
            prev.append(p1)
            pending.pop()
    return prev


def _angle_delta(p, q, r, sx: float, sy: float) -> float:
    a0 = math.atan2(_times(sy, r[1] - p[1]), _times(sx, r[0] - p[0]))
    a1 = math.atan2(_times(sy, q[1] - p[1]), _times(sx, q[0] - p[0]))
    return abs(a0 - a1)


def _times(a: float, b: float) -> float:
    """JavaScript's product (Infinity * 0 is NaN, which Python's float product also gives)."""
    return a * b


def sampling(*, resolve: str = "shared", extent: tuple[float, float] | None = None, steps: int | None = None,
             minsteps: int | None = None, maxsteps: int | None = None,
             shared: tuple[float, float] | None = None) -> tuple[tuple[float, float] | None, int, int]:
    """vega-transforms' ``KDE``: the extent and steps every group is sampled with.

    Args:
        resolve: ``shared`` (what Vega-Lite emits unless told): every group
            over one extent (default: the field's over all rows, `shared`)
            and exactly `steps` (default: `maxsteps`, 200) uniform steps;
            ``independent``: each group over its own extent (unless
            `extent`), refined adaptively from `minsteps` to `maxsteps`.
        extent, steps, minsteps, maxsteps: the transform's parameters.
        shared: the field's smallest and largest number over every row.

    Returns:
        (extent, or None for each group's own; minsteps; maxsteps).
    """
    low = steps or minsteps or DEFAULT_MINSTEPS
    high = steps or maxsteps or DEFAULT_MAXSTEPS
    if resolve == "shared":
        extent = extent if extent is not None else shared
        low = high = steps or high
    return extent, low, high


def value_extent(values) -> tuple[float, float]:
    """vega-util's ``extent``: the smallest and largest number, null and NaN skipped (NaN for none)."""
    raw = numbers(np.array([math.nan if value is None else value for value in values], dtype=float))
    return (float(raw.min()), float(raw.max())) if len(raw) else (math.nan, math.nan)


def density_curve(values: list, *, bandwidth: float = 0, cumulative: bool = False, counts: bool = False,
                  extent: tuple[float, float] | None = None, minsteps: int = DEFAULT_MINSTEPS,
                  maxsteps: int = DEFAULT_MAXSTEPS) -> list[tuple[float, float]]:
    """One group's curve as Vega's ``KDE`` samples it: [(value, density)].

    Args:
        values: the group's values in row order (numbers, None for null).
        bandwidth: the kernel's standard deviation; 0 for Scott's rule (`estimate_bandwidth`).
        cumulative: the cumulative distribution rather than the density.
        counts: densities times the group's size (smoothed counts).
        extent: the curve's domain (None: the group's smallest and largest number).
        minsteps, maxsteps: `sample_curve`'s steps, as `sampling` resolves them.

    Returns:
        The sampled points.
    """
    raw = np.array([math.nan if value is None else value for value in values], dtype=float)
    valid = numbers(raw)
    # x - null is x in JavaScript: a null adds the kernel at 0 (a NaN makes every density NaN).
    support = np.array([0.0 if value is None else value for value in values], dtype=float)
    width = bandwidth or estimate_bandwidth(len(raw), valid)
    domain = extent if extent is not None else value_extent(values)
    scale = len(raw) if counts else 1
    curve = sample_curve(kernel_density(support, width, cumulative), domain, minsteps, maxsteps)
    return [(x, y * scale) for x, y in curve]


def step_options(step, shared: tuple[float, float] | None) -> dict:
    """`density_curve`'s keywords for a ``density`` transform node (`ir.transforms.Density`).

    Args:
        step: the node.
        shared: the field's extent over every row before it (`value_extent`).
    """
    extent, low, high = sampling(resolve=step.resolve or "shared", extent=step.extent, steps=step.steps,
                                 minsteps=step.minsteps, maxsteps=step.maxsteps, shared=shared)
    return {"bandwidth": step.bandwidth, "cumulative": step.cumulative, "counts": step.counts, "extent": extent,
            "minsteps": low, "maxsteps": high}
