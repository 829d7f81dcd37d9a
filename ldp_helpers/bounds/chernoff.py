"""Chernoff bounds shared by the papers' theorems: multiplicative, Chernoff–Hoeffding (KL) and Bernstein.

Throughout, ``X = Σ X_i`` is a sum of independent Bernoulli (Poisson) trials with ``μ = E[X]``; for a
binomial ``X ~ Bin(n, p)``, ``μ = np`` and ``X̄ = X/n``.  Each bound is a function of the deviation and
returns the probability bound (``exp(−exponent)``); the exponents nest, for ``0 < δ ≤ 1``::

    n·D((1+δ)p ‖ p)  ≥  μ((1+δ)log(1+δ) − δ)  ≥  δ²μ/(2 + 2δ/3)  ≥  δ²μ/3          (upper tail)
    n·D((1−δ)p ‖ p)  ≥  μ(δ + (1−δ)log(1−δ))  ≥  δ²μ/2                            (lower tail)

Who uses what: [m_shot] Theorem 5 is the two-sided ``2exp(−μδ²/3)`` (:func:`two_sided`, its Eq. (A-3)) with a
union bound over T rounds, and condition (1) is that bound's ``δ < 1``; θ of [glance] Eq. (1) and the
right-hand side of its condition (2) are Bernstein's exponent for the randomized-response error
(:func:`bernstein_exponent`), and the left-hand side of (2) is the Chernoff–Hoeffding exponent
``D(μ ± θ‖μ)`` of the sampling error (:func:`bernoulli_kl`).  :func:`tail_comparison` sets any of them
beside the exact binomial tail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from ldp_helpers._validation import (
    check_bool,
    check_int,
    check_int_array,
    check_probabilities,
    check_probability,
    check_real_array,
)


def _out(x):
    return float(x) if np.ndim(x) == 0 else x


def _deltas(delta, high=None):
    return check_real_array("delta", delta, low=0.0, high=high, low_open=False, high_open=False)


def _mus(mu):
    return check_real_array("mu", mu, low=0.0, low_open=False)


# ---------------------------------------------------------------- multiplicative forms

#: below this |x|, (1 + x)·log(1 + x) − x is summed from its Taylor series (the two terms cancel to x²/2)
_SERIES_BELOW = 0.1


def _poisson_rate_near_0(x: np.ndarray) -> np.ndarray:
    """``(1 + x)·log(1 + x) − x = Σ_{k≥2} (−x)^k/(k(k−1))`` for |x| < :data:`_SERIES_BELOW` (0 elsewhere):
    16 terms, within 1e-18 relative; the closed form loses every digit as x → 0 (δ = 1e-9: 1.5e-7)."""
    s = np.where(np.abs(x) < _SERIES_BELOW, x, 0.0)
    total = np.zeros_like(s)
    for j in range(15, -1, -1):
        total = total * -s + 1.0 / ((j + 2) * (j + 1))
    return total * s * s


def upper(delta, mu):
    """``Pr[X ≥ (1+δ)μ] ≤ (e^δ/(1+δ)^{1+δ})^μ = exp(−μ((1+δ)log(1+δ) − δ))`` for every δ ≥ 0.

    The tightest multiplicative form: the Chernoff–Hoeffding bound with ``D`` replaced by its Poisson limit.

    References
    ----------
    [mitzenmacher2005] Theorem 4.4; [mitzenmacher2005] Eq. (4.1) (the m-shot paper's ref. [9]).
    """
    delta, mu = np.broadcast_arrays(_deltas(delta), _mus(mu))
    # δ ≳ 1e306: the exponent overflows (e^−∞ = 0), and 0·∞ at μ = 0, where the bound is e^0 = 1
    with np.errstate(over="ignore", invalid="ignore"):
        rate = (1 + delta) * np.log1p(delta) - delta
        rate = np.where(delta < _SERIES_BELOW, _poisson_rate_near_0(delta), rate)
        bound = np.exp(-mu * rate)
    return _out(np.where(mu > 0, bound, 1.0))


def upper_simple(delta, mu):
    """``Pr[X ≥ (1+δ)μ] ≤ exp(−δ²μ/3)`` for 0 ≤ δ ≤ 1 (from :func:`upper`).

    References
    ----------
    [mitzenmacher2005] Theorem 4.4; [mitzenmacher2005] Eq. (4.2).
    """
    delta, mu = np.broadcast_arrays(_deltas(delta, high=1.0), _mus(mu))
    return _out(np.exp(-mu * delta**2 / 3))


def lower(delta, mu):
    """``Pr[X ≤ (1−δ)μ] ≤ (e^{−δ}/(1−δ)^{1−δ})^μ = exp(−μ(δ + (1−δ)log(1−δ)))`` for 0 ≤ δ ≤ 1 (0·log 0 = 0).

    References
    ----------
    [mitzenmacher2005] Theorem 4.5; [mitzenmacher2005] Eq. (4.4).
    """
    delta, mu = np.broadcast_arrays(_deltas(delta, high=1.0), _mus(mu))
    below_one = np.where(delta < 1, delta, 0.0)  # (1−δ)log(1−δ) → 0 at δ = 1
    rate = delta + np.where(delta < 1, (1 - delta) * np.log1p(-below_one), 0.0)
    rate = np.where(delta < _SERIES_BELOW, _poisson_rate_near_0(-delta), rate)  # cancels near 0
    return _out(np.exp(-mu * rate))


def lower_simple(delta, mu):
    """``Pr[X ≤ (1−δ)μ] ≤ exp(−δ²μ/2)`` for 0 ≤ δ ≤ 1 (from :func:`lower`).

    References
    ----------
    [mitzenmacher2005] Theorem 4.5; [mitzenmacher2005] Eq. (4.5).
    """
    delta, mu = np.broadcast_arrays(_deltas(delta, high=1.0), _mus(mu))
    return _out(np.exp(-mu * delta**2 / 2))


def two_sided(delta, mu):
    """``Pr[|X − μ| ≥ δμ] ≤ 2exp(−δ²μ/3)`` for 0 ≤ δ ≤ 1: :func:`upper_simple` + :func:`lower_simple`.

    [m_shot] Theorem 5 applies it to the count of reported ones in a round; its condition (1) is δ < 1
    at the largest δ (the round with Φ0 = 0).

    References
    ----------
    [mitzenmacher2005] Corollary 4.6; [m_shot] Eq. (A-3); [m_shot] Theorem 5, condition (1).
    """
    delta, mu = np.broadcast_arrays(_deltas(delta, high=1.0), _mus(mu))
    return _out(2 * np.exp(-mu * delta**2 / 3))


def two_sided_delta(probability, mu):
    """The δ at which :func:`two_sided` equals ``probability``: ``δ = sqrt(3 log(2/probability)/μ)``.

    Can exceed 1, where :func:`two_sided` no longer applies (m-shot's condition (1) fails).

    References
    ----------
    [m_shot] Theorem 5 solved for α (appendix 2–4).
    """
    prob = check_real_array("probability", probability, low=0.0, high=1.0, high_open=False)
    mu = check_real_array("mu", mu, low=0.0)
    with np.errstate(over="ignore"):
        delta = np.sqrt(3 * np.log(2 / prob) / mu)
    # 2/p or the quotient beyond 1e308 (a subnormal p or μ): in logs
    if not np.all(np.isfinite(delta)):
        exponent = 3 * (math.log(2) - np.log(prob))  # the log of 2/p, finite for every p > 0
        delta = np.where(np.isfinite(delta), delta, np.sqrt(exponent) / np.sqrt(mu))
    return _out(delta)


# ---------------------------------------------------------------- Chernoff–Hoeffding (KL) form


def bernoulli_kl(a, b, *, boundary_infinite: bool = False):
    """``D(a‖b) = a log(a/b) + (1−a) log((1−a)/(1−b))``, the KL divergence of Bernoulli(a) from Bernoulli(b).

    ``a`` may be any real: ``D = +∞`` for ``a ∉ [0, 1]`` (a mean the sample cannot reach), and for
    ``b ∈ {0, 1}``, ``a ≠ b``; ``D(0‖b) = −log(1−b)`` and ``D(1‖b) = −log b`` (0·log 0 = 0), so that
    ``exp(−nD)`` is exact at the ends.  ``boundary_infinite=True`` applies the Glance paper's convention
    instead: ``D = +∞`` whenever ``a ≤ 0``, ``a ≥ 1``, ``b = 0`` or ``b = 1``.

    References
    ----------
    [glance] text after condition (2) (definition and its +∞ conventions); [hoeffding1963] Theorem 1.
    """
    a = check_real_array("a", a)
    b = check_probabilities("b", b)
    a, b = np.broadcast_arrays(a, b)
    inside = (a > 0) & (a < 1) & (b > 0) & (b < 1)
    sa, sb = np.where(inside, a, 0.5), np.where(inside, b, 0.5)  # safe values: no log(0) warnings
    with np.errstate(over="ignore"):
        ratio = sa / sb
    log_ratio = np.log(ratio)
    if not np.all(np.isfinite(ratio)):  # a/b beyond 1e308 (a subnormal b): its log as a difference
        log_ratio = np.where(np.isfinite(ratio), log_ratio, np.log(sa) - np.log(sb))
    h = sa - sb
    # a/b = 1 + h/b and (1 − a)/(1 − b) = 1 − h/(1 − b): where a ratio is near 1, its log as log1p (at b =
    # 1e-20, a = 2b the second rounded to 1 and D came out 3.6 times its value; b and a near 1 alike)
    close = np.abs(h) < 0.5 * sb
    log_ratio = np.where(close, np.log1p(np.where(close, h, 0.0) / sb), log_ratio)
    close = np.abs(h) < 0.5 * (1 - sb)
    log_rest = np.where(
        close, np.log1p(np.where(close, -h, 0.0) / (1 - sb)), np.log((1 - sa) / (1 - sb))
    )
    d = np.maximum(sa * log_ratio + (1 - sa) * log_rest, 0.0)
    # a near b: the two terms cancel to (a − b)²/(2b(1 − b)); D = b·φ(h/b) + (1 − b)·φ(−h/(1 − b)) with
    # φ(x) = (1 + x)log(1 + x) − x, each φ from its series (two non-negative terms)
    near = np.abs(h) < _SERIES_BELOW * np.minimum(sb, 1 - sb)
    if np.any(near):
        hn = np.where(near, h, 0.0)  # no division elsewhere: h/b overflows at a subnormal b
        near_d = sb * _poisson_rate_near_0(hn / sb) + (1 - sb) * _poisson_rate_near_0(
            -hn / (1 - sb)
        )
        d = np.where(near, near_d, d)
    if check_bool("boundary_infinite", boundary_infinite):
        return _out(np.where(inside, d, np.inf))
    with np.errstate(divide="ignore"):
        ends = np.where(a == 0, -np.log1p(-b), -np.log(b))  # D(0‖b), D(1‖b); +∞ at b = 1 resp. 0
    ends = np.where(a == b, 0.0, ends)
    return _out(np.where(inside, d, np.where((a == 0) | (a == 1), ends, np.inf)))


def _kl_args(t, n, p):
    t = check_real_array("t", t, low=0.0, low_open=False)
    return np.broadcast_arrays(t, check_int_array("n", n, low=1), check_probabilities("p", p))


def kl_upper(t, n, p):
    """Chernoff–Hoeffding: ``Pr[X̄ ≥ p + t] ≤ exp(−n D(p + t‖p))`` for t ≥ 0 (0 beyond X̄ = 1).

    Holds for the mean of n independent [0, 1] variables with mean p (Glance's sampling error, too).

    References
    ----------
    [hoeffding1963] Theorem 1; [glance] condition (2), left-hand side D(μ + θ‖μ).
    """
    t, n, p = _kl_args(t, n, p)
    return _out(np.exp(-n * bernoulli_kl(p + t, p)))


def kl_lower(t, n, p):
    """Chernoff–Hoeffding: ``Pr[X̄ ≤ p − t] ≤ exp(−n D(p − t‖p))`` for t ≥ 0.

    References
    ----------
    [hoeffding1963] Theorem 1 (applied to 1 − X_i); [glance] condition (2), left-hand side D(μ − θ‖μ).
    """
    t, n, p = _kl_args(t, n, p)
    return _out(np.exp(-n * bernoulli_kl(p - t, p)))


# ---------------------------------------------------------------- Bernstein form (Glance's exponent)


def bernstein_exponent(t, variance, bound):
    """Bernstein's exponent per summand, ``t²/(2(σ² + M t/3))``: ``Pr[S̄ − E S̄ ≥ t] ≤ exp(−n·exponent)``.

    For the mean S̄ of n independent variables with mean variance ≤ σ² and ``X_i − E X_i ≤ M``.  With
    ``σ² = p``, ``M = 1``, ``t = δp`` (Bernoulli(p) summands) it is the multiplicative ``δ²μ/(2 + 2δ/3)``.

    References
    ----------
    [boucheron2013] §2.8 (Bernstein's inequality); [glance] condition (2), right-hand side.
    """
    t = check_real_array("t", t, low=0.0, low_open=False)
    variance = check_real_array("variance", variance, low=0.0)
    bound = check_real_array("bound", bound, low=0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        exponent = t**2 / (2 * (variance + bound * t / 3))
    if not np.all(np.isfinite(exponent)):  # t² (or M t) beyond 1e308: divided through by t
        with np.errstate(over="ignore"):
            exponent = np.where(
                np.isfinite(exponent), exponent, t / (2 * (variance / t + bound / 3))
            )
    return _out(exponent)


def bernstein_deviation(exponent, variance, bound):
    """The t at which :func:`bernstein_exponent` equals ``exponent``: ``Mx/3 + sqrt((Mx/3)² + 2σ²x)``.

    References
    ----------
    [glance] Eq. (1) (θ is twice this deviation of the randomized-response error at x = L).
    """
    x = check_real_array("exponent", exponent, low=0.0, low_open=False)
    var = check_real_array("variance", variance, low=0.0)
    c = check_real_array("bound", bound, low=0.0) * x / 3
    with np.errstate(over="ignore"):
        t = c + np.hypot(c, np.sqrt(2 * var * x))  # hypot: no overflow of c² at large e^ε
        if not np.all(np.isfinite(t)):  # 2σ²x beyond 1e308: its root as a product of roots
            t = np.where(
                np.isfinite(t), t, c + np.hypot(c, math.sqrt(2) * np.sqrt(var) * np.sqrt(x))
            )
    return _out(t)


# ---------------------------------------------------------------- beside the exact binomial tail


_BINOMIAL_BOUNDS = {  # name → (bound(δ, n, p) for X ~ Bin(n, p), which tail it bounds)
    "upper": (lambda d, n, p: upper(d, n * p), "upper"),
    "upper_simple": (lambda d, n, p: upper_simple(d, n * p), "upper"),
    "lower": (lambda d, n, p: lower(d, n * p), "lower"),
    "lower_simple": (lambda d, n, p: lower_simple(d, n * p), "lower"),
    "two_sided": (lambda d, n, p: two_sided(d, n * p), "two-sided"),
    "kl_upper": (lambda d, n, p: kl_upper(d * p, n, p), "upper"),  # t = δp
    "kl_lower": (lambda d, n, p: kl_lower(d * p, n, p), "lower"),
    "kl_two_sided": (lambda d, n, p: kl_upper(d * p, n, p) + kl_lower(d * p, n, p), "two-sided"),
    # Bernstein for Bin(n, p): σ² = p(1 − p), X_i − p ≤ 1 − p
    "bernstein_upper": (
        lambda d, n, p: np.exp(-n * bernstein_exponent(d * p, p * (1 - p), 1 - p)),
        "upper",
    ),
}
BOUNDS = tuple(_BINOMIAL_BOUNDS)


def _binomial(n, p):
    return check_int("n", n, low=1), check_probability(p, "p", open_low=True, open_high=True)


def _count_cut(x, rounding):
    """⌈x⌉ or ⌊x⌋ (``rounding``) of a threshold x = (1 ± δ)μ computed in floating point, where an x
    within 1e-12 relative of a whole number is that number: (1 + 0.1)·100 = 110.00000000000001
    counts X ≥ 110, not X ≥ 111 (which held 0.135 instead of 0.158 at Bin(1000, 0.1))."""
    whole = np.rint(x)
    return np.where(np.abs(x - whole) <= 1e-12 * np.maximum(np.abs(x), 1.0), whole, rounding(x))


def _binomial_tail(n, p, d, tail):
    mu = n * p
    up = binom.sf(_count_cut((1 + d) * mu, np.ceil) - 1, n, p)
    down = np.where(d <= 1, binom.cdf(_count_cut((1 - d) * mu, np.floor), n, p), 0.0)
    # disjoint for δ > 0; |X − μ| ≥ 0 always
    both = np.where(d > 0, np.minimum(up + down, 1.0), 1.0)
    return {"upper": up, "lower": down, "two-sided": both}[tail]


def _compare(bound, n, p, d):
    """(bound values, exact tail, bound/exact) for validated arguments."""
    fn, tail = _BINOMIAL_BOUNDS[bound]
    values = np.asarray(fn(d, n, p), dtype=float)
    exact = np.asarray(_binomial_tail(n, p, d, tail), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.where(exact > 0, values / np.where(exact > 0, exact, 1.0), np.inf)
    return values, exact, ratio


def _bound_names(bounds) -> tuple:
    names = (bounds,) if isinstance(bounds, str) else bounds
    if not isinstance(names, (tuple, list)) or not all(isinstance(b, str) for b in names):
        raise ValueError(
            f"bounds must be a tuple of names among {', '.join(BOUNDS)}; got {bounds!r:.80}"
        )
    if not names:
        raise ValueError("bounds must name at least one of " + ", ".join(BOUNDS))
    unknown = [b for b in names if b not in BOUNDS]
    if unknown:
        raise ValueError(f"bounds must be names among {', '.join(BOUNDS)}; got {unknown[0]!r}")
    return tuple(names)


def tail_comparison(bound: str, n: int, p: float, delta):
    """A named bound beside the exact tail of X ~ Bin(n, p) over a grid of relative deviations δ.

    Returns ``(bound_values, exact, ratio)``, arrays shaped like ``delta``; ``ratio = bound/exact`` is the
    looseness factor (``inf`` where the exact tail is 0).  ``bound`` is one of :data:`BOUNDS`.
    """
    if not isinstance(bound, str) or bound not in BOUNDS:
        raise ValueError(f"bound must be one of {BOUNDS}; got {bound!r}")
    n, p = _binomial(n, p)
    return _compare(bound, n, p, _deltas(delta))


@dataclass(frozen=True)
class TailCheck:
    """Named bounds beside the exact binomial tail over one grid of δ (see :func:`tail_check`)."""

    values: dict  # bound name -> its values over the grid
    exact: np.ndarray  # the exact tail over the grid
    ratio: np.ndarray  # the first bound over the exact tail (looseness; inf where the tail is 0)

    @property
    def holds(self) -> bool:
        """Every bound is at least the exact tail at every point of the grid."""
        return bool(all(np.all(v >= self.exact) for v in self.values.values()))


def tail_check(bounds, n: int, p: float, delta) -> TailCheck:
    """Each bound named in ``bounds`` (all of one tail) beside the exact tail of X ~ Bin(n, p) over δ.

    References
    ----------
    [m_shot] Eq. (A-3); [glance] Claim 1.
    """
    n, p = _binomial(n, p)
    names, d = _bound_names(bounds), _deltas(delta)
    compared = [_compare(name, n, p, d) for name in names]
    return TailCheck(
        {name: c[0] for name, c in zip(names, compared)}, compared[0][1], compared[0][2]
    )
