"""Student's t quantile in pure Python: what trend bands needed scipy for.

`fitting` draws a confidence or prediction band as the fit ± t·se, with t the
Student's t quantile at the band's level. That one number was all chartc used
scipy for, and scipy is a 100 MB install whose ``import scipy.stats`` costs
~0.9 s; this module computes it with `math` alone.

How: closed forms for df = 1 and df = 2; for df ≥ 1e7 the Cornish–Fisher
expansion in 1/df, whose omitted terms are below double precision there;
otherwise Newton's method on the tail probability, a regularized incomplete
beta function computed by continued fractions, started from Hill's
approximation (ACM Algorithm 396, as R's ``qt`` uses). Against a 60-digit
mpmath reference, for df from 1 to 1e9 the relative error is below 3e-15 on
the grid tests/test_tdist.py checks and below 1e-14 for p from 1e-15 to
1 - 1e-15; far out in the tails, p = 1e-300, it grows to 1e-13 for df < 3
(x^(df/2) is then e^-700, and the rounding of its exponent shows).

Near p = 0.5 this is more accurate than ``scipy.stats.t.ppf`` itself, which
loses digits there (a relative 4e-4 at df = 4, p = 0.5000001).
"""

from __future__ import annotations

import math

# From this df on, the Cornish–Fisher expansion is exact to double precision:
# its first omitted term is about 1e-4·z¹¹/df⁵ (measured at df = 1e3, 1e4),
# below 1e-23·z even for the largest z a double p can reach (38.5).
_EXPANSION_DF = 1e7

# Newton from Hill's start takes 2 to 5 steps, from the start used for df < 1
# a few more; both stop long before this.
_MAX_STEPS = 100
# The continued fractions take under 130 terms for df ≥ 0.01; one still
# moving after this many moves by rounding alone.
_MAX_TERMS = 1000
_EPSILON = 2.0 ** -52
_TINY = 1e-300


def student_t_quantile(p: float, df: float) -> float:
    """The quantile of Student's t distribution: t with P(T ≤ t) = p.

    Args:
        p: the probability, 0 < p < 1.
        df: the degrees of freedom, a positive number, not necessarily an
            integer.

    Returns:
        The quantile: 0.0 for p = 0.5, and -t(1 - p) for p < 0.5. Infinite
        when it is beyond the largest float (df well below 1, p near 0 or 1).

    Raises:
        ValueError: p is not strictly between 0 and 1, or df is not a
            positive number.
    """
    p = float(p)
    df = float(df)
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be between 0 and 1 (exclusive), got {p!r}")
    if not df > 0.0:
        raise ValueError(f"df must be a positive number, got {df!r}")
    if p == 0.5:
        return 0.0
    # q, the smaller tail, and centre = P(|T| < t) = 1 - 2q are both exact in
    # floating point (Sterbenz), which keeps p near 0.5 and near 1 accurate.
    q = min(p, 1.0 - p)
    centre = 2.0 * abs(p - 0.5) if p >= 0.25 else 1.0 - 2.0 * p
    t = _upper_quantile(q, centre, df)
    return t if p > 0.5 else -t


def _upper_quantile(q: float, centre: float, df: float) -> float:
    """t > 0 with P(T > t) = q, where centre = 1 - 2q."""
    if df == 1.0:
        # Cauchy: tan(π(p - ½)), written per side so that neither loses digits.
        return 1.0 / math.tan(math.pi * q) if q < 0.25 else math.tan(math.pi / 2.0 * centre)
    if df == 2.0:
        return centre / math.sqrt(2.0 * q * (1.0 - q))
    if df >= _EXPANSION_DF:
        return _cornish_fisher(_normal_upper_quantile(q), df)
    return _newton(q, centre, df)


def _normal_upper_quantile(q: float) -> float:
    # statistics pulls in random, fractions and decimal (~4 ms): only bands pay it.
    from statistics import NormalDist

    return -NormalDist().inv_cdf(q)


def _cornish_fisher(z: float, df: float) -> float:
    """The t quantile from the normal one, z: Abramowitz & Stegun 26.7.5."""
    z2 = z * z
    g1 = (z2 + 1.0) * z / 4.0
    g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
    g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
    g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


def _newton(q: float, centre: float, df: float) -> float:
    """Solve P(T > t) = q by Newton's method in log t, kept in a bracket.

    For q < 1/4 the equation is log P(|T| > t) = log 2q, well scaled however
    far out the tail is; otherwise P(|T| < t) = centre, which keeps the
    digits of a p near 0.5. Steps are taken in log t because the tail is
    close to a power of t: for df < 1 the root can be 1e100 or more.
    """
    tail = q < 0.25
    two_q = 2.0 * q
    t = _hill_start(q, df) if df >= 1.0 else _asymptotic_start(q, centre, df)
    low, high = 0.0, math.inf
    for _ in range(_MAX_STEPS):
        if t == math.inf:
            return t
        upper, log_upper, central, log_density2 = _t_probabilities(t, df)
        log_scale = -log_density2 - math.log(t)  # log(1 / (t·2·pdf(t)))
        if tail:
            # log(P/2q) from the ratio while P is a normal float: a
            # difference of logs would cost digits. d log P/d log t = -t·2·pdf/P.
            excess = math.log(upper / two_q) if upper > 1e-290 else log_upper - math.log(two_q)
            step = excess * _exp(log_upper + log_scale) if excess else 0.0
        else:
            excess = centre - central
            step = excess * _exp(log_scale) if excess else 0.0
        if step > 0.0:
            low = t
        else:
            high = t
        if abs(step) <= 1e-10:
            # Quadratic convergence: what is left is of order step².
            return t + t * step
        t *= math.exp(min(step, 50.0))
        if not low < t < high:
            # Newton left the bracket: bisect it, geometrically once closed.
            if high == math.inf:
                t = 2.0 * low
            elif low == 0.0:
                t = high / 2.0
            else:
                t = math.sqrt(low) * math.sqrt(high)
    return t


def _exp(x: float) -> float:
    """e^x, infinite where math.exp would raise OverflowError."""
    return math.exp(x) if x < 709.0 else math.inf


def _hill_start(q: float, df: float) -> float:
    """Hill's approximation of the upper quantile (ACM Algorithm 396), df ≥ 1.

    Relative error at most ~2e-4, which Newton then removes.
    """
    two_q = 2.0 * q
    a = 1.0 / (df - 0.5)
    b = 48.0 / (a * a)
    c = ((20700.0 * a / b - 98.0) * a - 16.0) * a + 96.36
    d = ((94.5 / (b + c) - 3.0) / b + 1.0) * math.sqrt(a * math.pi / 2.0) * df
    log_y = 2.0 / df * (math.log(d) + math.log(two_q))
    if (df < 2.1 and two_q > 0.5) or log_y > math.log(0.05 + a):
        # Near the normal: a series in the normal deviate.
        x = -_normal_upper_quantile(q)
        if df < 5.0:
            c += 0.3 * (df - 4.5) * (x + 0.6)
        c = (((0.05 * d * x - 5.0) * x - 7.0) * x - 2.0) * x + b + c
        y = x * x
        y = (((((0.4 * y + 6.3) * y + 36.0) * y + 94.5) / c - y - 3.0) / b + 1.0) * x
        return math.sqrt(df * math.expm1(a * y * y))
    # Far tail: a series in the tail probability. Where y underflows, its
    # leading term t = sqrt(df/y) is all there is.
    if log_y < -300.0:
        return math.sqrt(df) * _exp(-log_y / 2.0)
    y = math.exp(log_y)
    y = ((1.0 / (((df + 6.0) / (df * y) - 0.089 * d - 0.822) * (df + 2.0) * 3.0)
          + 0.5 / (df + 4.0)) * y - 1.0) * (df + 1.0) / (df + 2.0) + 1.0 / y
    return math.sqrt(df * y)


def _asymptotic_start(q: float, centre: float, df: float) -> float:
    """A start for df < 1, where Hill's approximation does not hold.

    The leading term of P(T > t) in the far tail, or of P(|T| < t) near 0.
    """
    log_beta = math.log(math.sqrt(math.pi) / _gamma_half_ratio(df / 2.0))  # B(df/2, ½)
    if q < 0.25:
        # P(T > t) ≈ (df/t²)^(df/2) / (df·B), solved for t.
        log_t = 0.5 * math.log(df) - (math.log(q) + math.log(df) + log_beta) / df
    else:
        # P(|T| < t) ≈ 2·pdf(0)·t, with pdf(0) = 1/(√df·B).
        log_t = math.log(centre * math.sqrt(df) / 2.0) + log_beta
    return _exp(log_t)


def _t_probabilities(t: float, df: float) -> tuple[float, float, float, float]:
    """(P(|T| > t), its log, P(|T| < t), log 2·pdf(t)) for t > 0.

    With x = df/(df + t²) and y = 1 - x, P(|T| > t) = I_x(df/2, ½) and
    P(|T| < t) = I_y(½, df/2), regularized incomplete beta functions. One of
    the two comes from a continued fraction, the other is 1 minus it. y is
    computed from s = t/√df, not as 1 - x: for large df, x is within 1e-6 of
    1 and would keep only 10 of y's digits.

    P(|T| > t) underflows to 0 far out in the tail; its log does not.
    """
    a = df / 2.0
    s = t / math.sqrt(df)
    s2 = s * s
    log1s2 = 2.0 * math.log(s) if s > 1e100 else math.log1p(s2)  # log(1 + s²)
    x = 1.0 / (1.0 + s2)
    y = s2 / (1.0 + s2) if s < 1e150 else 1.0
    # x^a·y^½ / B(a, ½), the factor both fractions share: as a product, since
    # a sum of logs would cost digits, and as a log, which cannot underflow.
    ratio = _gamma_half_ratio(a) / math.sqrt(math.pi)
    front = math.exp(-a * log1s2) * math.sqrt(y) * ratio
    log_front = -a * log1s2 + 0.5 * math.log(y) + math.log(ratio)
    lam = (a + 0.5) * y - 0.5  # ≥ 0 beyond the mean of x's beta distribution
    if lam < min(0.25, a / 2.0):
        # Up to t ≈ 1.2 (for df < 1, whose λ stays below df/2, somewhat
        # less): near the mean the tail's fraction converges slowly and
        # gathers rounding, and here P(|T| > t) ≥ 0.2 keeps 1 - P(|T| < t)
        # accurate.
        central = front * _lentz_fraction(0.5, a, y) / 0.5
        upper = 1.0 - central
        log_upper = math.log1p(-central)
    else:
        fraction = _bfrac_fraction(a, 0.5, x, y, lam)
        upper = front * fraction
        log_upper = log_front + math.log(fraction)
        central = 1.0 - upper
    # pdf(t) = x^(a+½) / (√df·B(a, ½))
    log_density2 = -(a + 0.5) * log1s2 + math.log(2.0 * ratio / math.sqrt(df))
    return upper, log_upper, central, log_density2


def _lentz_fraction(a: float, b: float, x: float) -> float:
    """h with I_x(a, b) = x^a (1-x)^b / (a·B(a, b)) · h, for x below the mean.

    The continued fraction of Numerical Recipes' betacf, by the modified
    Lentz method. Its terms use x alone, so it is accurate for small x.
    """
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        # The even and the odd term of the fraction.
        for coefficient in (m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
                            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))):
            d = 1.0 + coefficient * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + coefficient / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) <= _EPSILON:
            break
    return h


def _bfrac_fraction(a: float, b: float, x: float, y: float, lam: float) -> float:
    """r with I_x(a, b) = x^a·y^b / B(a, b) · r, for y = 1 - x, λ = (a+b)·y - b ≥ 0.

    The continued fraction BFRAC of Didonato and Morris (ACM TOMS 708). It
    takes y and λ from the caller, which keeps the digits that 1 - x would
    lose for x near 1, and converges in a few hundred terms at most for any
    a (to 5e7 tried).
    """
    c = 1.0 + lam
    c0 = b / a
    c1 = 1.0 + 1.0 / a
    yp1 = y + 1.0
    p = 1.0
    s = a + 1.0
    an, bn, anp1, bnp1 = 0.0, 1.0, 1.0, c / c1
    r = c1 / c
    for n in range(1, _MAX_TERMS):
        t = n / a
        w = n * (b - n) * x
        e = a / s
        alpha = (p * (p + c0) * e * e) * (w * x)
        e = (1.0 + t) / (c1 + t + t)
        beta = n + w / s + e * (c + n * yp1)
        p = 1.0 + t
        s += 2.0
        an, anp1 = anp1, alpha * an + beta * anp1
        bn, bnp1 = bnp1, alpha * bn + beta * bnp1
        previous, r = r, anp1 / bnp1
        if abs(r - previous) <= _EPSILON * r:
            break
        # Rescaled, the convergents neither overflow nor underflow.
        an, bn, anp1, bnp1 = an / bnp1, bn / bnp1, r, 1.0
    return r


# log(Γ(a+½) / (Γ(a)·√a)) = Σ c_k / a^(2k-1) for large a; c_k comes from the
# Bernoulli numbers and polynomials: (B_2k(½) - B_2k) / (2k(2k-1)).
_HALF_RATIO_SERIES = (-1.0 / 8.0, 1.0 / 192.0, -1.0 / 640.0, 17.0 / 14336.0,
                      -31.0 / 18432.0, 691.0 / 180224.0)


def _gamma_half_ratio(a: float) -> float:
    """Γ(a + ½)/Γ(a), to a few ulps for any a > 0.

    A difference of lgamma values would lose ~1e-11 at a = 5e4, and
    math.gamma overflows past a = 171. Instead: the asymptotic series above
    from a = 20 on, where its first omitted term is below 1e-19, and below
    that the recurrence Γ(a+½)/Γ(a) = Γ(a+1+½)/Γ(a+1) · a/(a+½).
    """
    product = 1.0
    while a < 20.0:
        product *= a / (a + 0.5)
        a += 1.0
    inverse_square = 1.0 / (a * a)
    series = 0.0
    for coefficient in reversed(_HALF_RATIO_SERIES):
        series = series * inverse_square + coefficient
    return product * math.sqrt(a) * math.exp(series / a)


# ---------------------------------------------------------------- tail probabilities (the label statistics)

def student_t_two_sided(t: float, df: float) -> float:
    """P(|T| > |t|) for Student's t with `df` degrees of freedom: a t test's two-sided p-value.

    Args:
        t: the statistic (any sign; infinite gives 0).
        df: the degrees of freedom, a positive number.
    """
    t = abs(float(t))
    if t == 0.0:
        return 1.0
    if t == math.inf:
        return 0.0
    return _t_probabilities(t, float(df))[0]


def f_upper(f: float, d1: float, d2: float) -> float:
    """P(F > f) for the F distribution with (d1, d2) degrees of freedom: an F test's p-value.

    P(F > f) = I_x(d2/2, d1/2) with x = d2/(d2 + d1·f), a regularized incomplete
    beta function (`regularized_beta`); y = 1 − x is computed as d1·f/(d2 + d1·f),
    not by subtraction, so a small p keeps its digits.
    """
    f, d1, d2 = float(f), float(d1), float(d2)
    if f <= 0.0:
        return 1.0
    if f == math.inf:
        return 0.0
    total = d2 + d1 * f
    return regularized_beta(d2 / total, d1 * f / total, d2 / 2.0, d1 / 2.0)


def regularized_beta(x: float, y: float, a: float, b: float) -> float:
    """I_x(a, b), for y = 1 − x given by the caller, by TOMS 708's continued fraction (`_bfrac_fraction`).

    Below the mean of the beta distribution (λ < 0) it is 1 − I_y(b, a).
    """
    lam = (a + b) * y - b
    if lam < 0.0:
        return 1.0 - regularized_beta(y, x, b, a)
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    front = math.exp(a * math.log(x) + b * math.log(y) - log_beta)
    return front * _bfrac_fraction(a, b, x, y, lam)
