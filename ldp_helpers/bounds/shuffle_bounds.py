"""The papers' upper bounds on ε_c, the central ε of n shuffled ε₀-LDP reports, at a given δ.

Closed forms (Erlingsson et al.; Balle et al.'s Hoeffding bound; Feldman, McMillan & Talwar;
Wang et al.; their ranges of validity: :func:`closed_form_ranges`) and the two numerical bounds,
which are the exact profile (:func:`~ldp_helpers.bounds.shuffle.mixture_pair`) of a *reduction*:
a pair of count laws that dominates every ε₀-LDP randomizer's shuffled pair, so that its ε_c(δ) is
an upper bound.  Each
function returns ε₀ outside its bound's stated range of validity (ε₀ always holds: shuffling is
post-processing of n ε₀-LDP reports, and the server's view of user 1 is at most ε₀-DP).  ε₀ is at most
:data:`~ldp_helpers.bounds.shuffle.MAX_EPSILON0` (20) everywhere: beyond it the profiles' 1 − p loses its
digits (and e^ε₀ leaves double range from 710 on).

References
----------
[erlingsson2019]; [balle2019blanket]; [feldman2021clones]; [wang2024shuffle].
"""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers._numeric import union_log  # ln(c/δ), also where c/δ overflows (subnormal δ)
from ldp_helpers._validation import MIN_EPSILON, check_epsilon, check_int, check_probability
from ldp_helpers.bounds.shuffle import MAX_EPSILON0, ShuffleProfile, _check_n_epsilon0, mixture_pair


def _check(n, epsilon0, delta):
    return (
        *_check_n_epsilon0(n, epsilon0, 2),
        check_probability(delta, "delta", open_low=True, open_high=True),
    )


def erlingsson_epsilon(n: int, epsilon0: float, delta: float) -> float:
    """ε_c = 12 ε₀ √(ln(1/δ)/n), valid for ε₀ ≤ 1/2, n ≥ 1000, δ ≤ 1/100 (else ε₀).

    References
    ----------
    [erlingsson2019] the amplification-by-shuffling theorem for ε₀ < 1/2 (the ranges as in
    Balle et al.'s implementation of it).
    """
    n, eps0, delta = _check(n, epsilon0, delta)
    if _erlingsson_outside(n, eps0, delta):
        return eps0
    return min(eps0, 12 * eps0 * math.sqrt(union_log(1, delta) / n))


def _erlingsson_outside(n: int, eps0: float, delta: float) -> str:
    wanted = (("ε₀ ≤ 1/2", eps0 <= 0.5), ("n ≥ 1000", n >= 1000), ("δ ≤ 1/100", delta <= 0.01))
    failed = [text for text, holds in wanted if not holds]
    return "needs " + " and ".join(failed) if failed else ""


def blanket_hoeffding_delta(epsilon: float, n: int, epsilon0: float, k: int | None = None) -> float:
    """δ(ε) of the privacy blanket's Hoeffding bound, generic (``k=None``) or for k-RR.

    ``δ = b²/(4 a γ n) · (1 − γ (1 − e^{−2a²/b²}))^n`` with a = e^ε − 1, the blanket mass γ and
    the range b of the amplification variable: generic γ = e^{−ε₀}, b = (e^ε + 1)(e^ε₀ − e^{−ε₀});
    k-RR γ = k/(e^ε₀ + k − 1), b = (1 − γ) k (e^ε + 1).  Computed in logarithms, with
    e^ε₀ − e^{−ε₀} = 2 sinh ε₀, 1 − γ = β of :func:`grr_blanket_beta` and expm1, log1p: accurate
    down to ε₀ = MIN_EPSILON (the differences of rounded exponentials lost up to 1e-4 there).

    References
    ----------
    [balle2019blanket] §5 (the Hoeffding bound; generic and randomized-response parameters).
    """
    n, eps0 = _check_n_epsilon0(n, epsilon0, 2)
    epsilon = check_epsilon(epsilon)
    if epsilon >= eps0:
        return 0.0
    a = math.expm1(epsilon)
    if k is None:
        gamma, b = math.exp(-eps0), (math.exp(epsilon) + 1) * 2 * math.sinh(eps0)
    else:
        k = check_int("k", k, low=2)
        gamma = k / (math.exp(eps0) + k - 1)
        b = grr_blanket_beta(eps0, k) * k * (math.exp(epsilon) + 1)  # 1 − γ = β
    log_delta = (
        2 * math.log(b)
        - math.log(4 * a * gamma * n)
        + n * math.log1p(-gamma * -math.expm1(-2 * a * a / (b * b)))
    )
    return math.exp(log_delta)


def blanket_hoeffding_epsilon(n: int, epsilon0: float, delta: float, k: int | None = None) -> float:
    """The smallest ε ≥ MIN_EPSILON with :func:`blanket_hoeffding_delta` ≤ δ (ε₀ if none: δ(ε₀) = 0).

    Bisection of ln ε to a relative 1e-13 (at most 48 halvings from [MIN_EPSILON, ε₀]): as precise
    at ε₀ = 1e-10 as at 1 (an absolute 1e-12 from a floor of 1e-9 returned ε₀ itself below 1e-9).
    """
    n, eps0, delta = _check(n, epsilon0, delta)
    low, high = MIN_EPSILON, eps0
    if blanket_hoeffding_delta(low, n, eps0, k) <= delta:
        return low
    while high > low * (1 + 1e-13):  # δ(low) > δ ≥ δ(high)
        mid = math.sqrt(low * high)
        low, high = (low, mid) if blanket_hoeffding_delta(mid, n, eps0, k) <= delta else (mid, high)
    return high


def fmt_closed_epsilon(n: int, epsilon0: float, delta: float) -> float:
    """Feldman–McMillan–Talwar's closed form, for ε₀ ≤ ln(n / (16 ln(4/δ))) (else ε₀)::

        a = 8 √(e^ε₀ ln(4/δ) / n),  c = 8 e^ε₀ / n,  e = ln(1 + a + c),
        ε_c = ln(1 + (1 − e^{−ε₀}) / (1 + e^{−ε₀−e}) · (a + c)).

    References
    ----------
    [feldman2021clones] Theorem 3.1 (in the refined form of the authors' ``closedformanalysis``).
    """
    n, eps0, delta = _check(n, epsilon0, delta)
    if _fmt_outside(n, eps0, delta):
        return eps0
    a = 8 * math.sqrt(math.exp(eps0) * union_log(4, delta) / n)
    c = 8 * math.exp(eps0) / n
    # both logarithms of 1 + (a small number at large n) as log1p: the outer log(1 + x) lost 28 % at
    # n = 1e9, ε₀ = 1e-12
    e = math.log1p(a + c)
    return math.log1p(-math.expm1(-eps0) / (1 + math.exp(-eps0 - e)) * (a + c))


def _fmt_outside(n: int, eps0: float, delta: float) -> str:
    top = math.log(n / (16 * union_log(4, delta)))
    return f"needs ε₀ ≤ ln(n / (16 ln(4/δ))) = {top:.4g}" if eps0 > top else ""


def clone_profile(n: int, epsilon0: float) -> ShuffleProfile:
    """The clone reduction's exact profile: its ε_c(δ) is FMT's numerical bound.

    Each of the n − 1 others is a clone of x₁ = 0 w.p. e^{−ε₀}/2, of x₁ = 1 w.p. e^{−ε₀}/2, else
    neutral; user 1 says 0 w.p. e^ε₀/(e^ε₀ + 1) under P, 1 under Q (categories: 0, 1, neutral).

    References
    ----------
    [feldman2021clones] Theorem 3.2 (the clone pair, computed numerically in §4).
    """
    n, eps0 = _check_n_epsilon0(n, epsilon0, 2)
    alpha, half = 1 / (1 + math.exp(-eps0)), 0.5 * math.exp(-eps0)
    pair = mixture_pair(
        n,
        np.array([alpha, 1 - alpha, 0.0]),
        np.array([1 - alpha, alpha, 0.0]),
        np.array([half, half, -math.expm1(-eps0)]),  # neutral: 1 − e^{−ε₀}
    )
    return ShuffleProfile(n, eps0, (pair,))


def grr_blanket_beta(epsilon0: float, k: int | None = None) -> float:
    """Wang et al.'s total-variation parameter β: (e^ε₀ − 1)/(e^ε₀ + k − 1); k = None: generic (k = 2)."""
    eps0 = check_epsilon(epsilon0, "epsilon0", high=MAX_EPSILON0)
    k = 2 if k is None else check_int("k", k, low=2)
    return math.expm1(eps0) / (math.exp(eps0) + k - 1)


def variation_ratio_profile(n: int, epsilon0: float, k: int | None = None) -> ShuffleProfile:
    """The variation-ratio reduction's exact profile: its ε_c(δ) is Wang et al.'s numerical bound.

    With p = q = e^ε₀ (pure ε₀-LDP), β from :func:`grr_blanket_beta`, α = β/(p − 1), r = α p/q:
    user 1 says 0, 1, neutral w.p. (pα, α, 1 − α − pα) under P and (α, pα, ·) under Q; each
    other says 0, 1 w.p. r each, else neutral.

    References
    ----------
    [wang2024shuffle] the variation-ratio reduction (the authors' ``Delta``).
    """
    n, eps0 = _check_n_epsilon0(n, epsilon0, 2)
    k = 2 if k is None else check_int("k", k, low=2)
    p = math.exp(eps0)
    alpha = grr_blanket_beta(eps0, k) / math.expm1(eps0)  # p − 1 = e^ε₀ − 1 without cancellation
    r = alpha
    neutral = (k - 2) * alpha  # 1 − α − pα = (k − 2)/(e^ε₀ + k − 1)
    pair = mixture_pair(
        n,
        np.array([p * alpha, alpha, neutral]),
        np.array([alpha, p * alpha, neutral]),
        np.array(
            [r, r, (math.expm1(eps0) + k - 2) * r]
        ),  # 1 − 2r = (e^ε₀ + k − 3)r: no cancellation
    )
    return ShuffleProfile(n, eps0, (pair,))


def wang_closed_epsilon(n: int, epsilon0: float, delta: float, k: int | None = None) -> float:
    """Wang et al.'s closed form, for n > 8 ln(4/δ)/r (else ε₀), with p = q = e^ε₀, r = β/(p − 1)::

        c = max(0, 4(1 − 3r) / (9(1 − 2r))),
        ε_c = ln(1 + β / ((1 − c)(1 + p) β/(p − 1) + c) · (√(32 ln(4/δ) / (r(n−1))) + 4/(r(n−1)))).

    References
    ----------
    [wang2024shuffle] the closed-form bound (the authors' ``variation_ratio_closed``).
    """
    n, eps0, delta = _check(n, epsilon0, delta)
    p, beta = math.exp(eps0), grr_blanket_beta(eps0, k)  # checks k
    r, k = beta / math.expm1(eps0), 2 if k is None else k  # p − 1 without cancellation
    if _wang_outside(n, r, delta):
        return eps0
    c = max(
        0.0, 4 * (1 - 3 * r) / (9 * (math.expm1(eps0) + k - 2) * r)
    )  # 1 − 2r, as in the profile
    tail = math.sqrt(32 * union_log(4, delta) / (r * (n - 1))) + 4 / (r * (n - 1))
    return min(eps0, math.log1p(beta / ((1 - c) * (1 + p) * r + c) * tail))


def _wang_outside(n: int, r: float, delta: float) -> str:
    least = 8 * union_log(4, delta) / r
    return f"needs n > 8 ln(4/δ)/r = {least:.4g}" if n <= least else ""


def closed_form_ranges(
    n: int, epsilon0: float, delta: float, k: int | None = None
) -> dict[str, str]:
    """Why each closed form does not apply at (n, ε₀, δ): ``""`` inside its stated range, else what it needs.

    The same tests as :func:`erlingsson_epsilon`, :func:`fmt_closed_epsilon` and
    :func:`wang_closed_epsilon` (each returns ε₀ outside its range); keys ``"Erlingsson"``,
    ``"FMT closed"``, ``"Wang closed"``.

    References
    ----------
    [erlingsson2019]; [feldman2021clones] Theorem 3.1; [wang2024shuffle] (the closed form).
    """
    n, eps0, delta = _check(n, epsilon0, delta)
    r = grr_blanket_beta(eps0, k) / math.expm1(eps0)  # as in wang_closed_epsilon
    return {
        "Erlingsson": _erlingsson_outside(n, eps0, delta),
        "FMT closed": _fmt_outside(n, eps0, delta),
        "Wang closed": _wang_outside(n, r, delta),
    }
