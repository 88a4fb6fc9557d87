"""The statistics of the trend layer at size: chartc's fits against the library each is checked against.

In one process (imports done, warm), on seeded data of N rows (10^4, 10^5,
10^6; ``--quick``: up to 10^5), the median of the repeats of each fit:

- ``weight``: weighted least squares (linear) from the engine's weighted sums
  (`stages.fit.fit_statistics` + `fitting.fit_sums`, the path a layer of more
  than 100,000 rows takes) against statsmodels' `WLS` on numpy arrays;
- ``robust``: Huber IRLS (`robust: true`) against statsmodels' `RLM`;
- ``logistic``: the binomial GLM against statsmodels' `GLM`;
- ``quantile``: `quantile: 0.9` against statsmodels' `QuantReg`;
- ``ewm``: `ewm` (span 10) against pandas' ``ewm(span=10).mean()``;
- ``loess band``: degree 2 with its band (n ≤ 2,000: its n × n operator) alone.

Each line prints chartc's time, the peer's and the ratio (lower is better).
The iterative fits run in numpy on the rows; past 10^6 rows per group they
are refused (E639), which is where this benchmark stops.

    python benchmarks/bench_stats.py [--quick] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd
import statsmodels.api as sm

from chartc.stages.fit import fit_statistics
from chartc.trends.fitting import fit_sums, fit_trend, plan_trend


def median_time(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def data(n: int):
    rng = np.random.default_rng(20)
    x = rng.uniform(0, 100, n)
    w = rng.integers(1, 5, n).astype(float)
    y = 2.0 - 0.3 * x + rng.standard_t(3, n) * 3.0 / np.sqrt(w)
    outcome = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-(x - 50.0) / 10.0))).astype(float)
    return x, y, w, outcome


def weighted_in_engine(x, y, w):
    plan = plan_trend("linear", weight="w", band=0.95)
    sums = fit_statistics(plan, [((), None, x, y)], [w])
    return fit_sums(plan, sums[0])


def cases(n: int) -> list:
    """(name, chartc's fit, the peer's, the peer's name) on N seeded rows."""
    x, y, w, outcome = data(n)
    design = sm.add_constant(x)
    return [
        ("weight", lambda: weighted_in_engine(x, y, w), lambda: sm.WLS(y, design, weights=w).fit(), "statsmodels WLS"),
        ("robust", lambda: fit_trend(x, y, "linear", robust=True), lambda: sm.RLM(y, design).fit(), "statsmodels RLM"),
        ("logistic", lambda: fit_trend(x, outcome, "logistic", band=0.95),
         lambda: sm.GLM(outcome, design, family=sm.families.Binomial()).fit(), "statsmodels GLM"),
        ("quantile", lambda: fit_trend(x, y, "quantile", quantile=0.9),
         lambda: sm.QuantReg(y, design).fit(q=0.9), "statsmodels QuantReg"),
        ("ewm", lambda: fit_trend(x, y, "ewm", span=10),
         lambda: pd.Series(y[np.argsort(x, kind="stable")]).ewm(span=10).mean(), "pandas ewm"),
    ]


def loess_band(n: int):
    """A degree-2 loess with its band on N seeded rows, as a call."""
    x, y, _, _ = data(n)
    return lambda: fit_trend(x, y, "loess", degree=2, bandwidth=0.75, band=0.95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    print(f"{'fit':<12} {'rows':>9} {'chartc s':>10} {'peer s':>10} {'ratio':>7}  peer")
    for n in sizes:
        for name, ours, peer, peer_name in cases(n):
            mine, theirs = median_time(ours, args.repeat), median_time(peer, args.repeat)
            print(f"{name:<12} {n:>9,} {mine:>10.3f} {theirs:>10.3f} {mine / theirs:>7.2f}  {peer_name}")
    for n in (500, 2_000):
        took = median_time(loess_band(n), args.repeat)
        print(f"{'loess band':<12} {n:>9,} {took:>10.3f} {'-':>10} {'-':>7}  (n × n operator)")


if __name__ == "__main__":
    main()
