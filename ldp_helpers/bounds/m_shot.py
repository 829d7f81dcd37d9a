"""The accuracy theory of m-shot reporting ([m_shot] Theorems 5–9; [m_shot] Eq. (7)).

Theorem 5 bounds the probability that some round's estimate is off by α or more::

    Pr[∃t: |Φ(Y_{:,t}) − Φ0(V_{:,t})| ≥ α] ≤ 2T exp(−f(m, r) ε N α² / (3T)),        (2)

valid when α < (1 + (e^{ε/m}+1)(T/m − 1) r)/(e^{ε/m} − 1)                         (1)

(a union bound over rounds of the two-sided Chernoff bound (A-3), whose δ < 1 at Φ0 = 0 is condition (1)).
With r* = 0, f(m, 0) = g(m/ε); g rises then falls, so its **maximizer** c* ≈ 0.574 (§5.3 writes argmin: a
slip, Eq. (7) uses the maximizer) gives m*.  Solving (2) = β for α gives Theorems 6–8, Theorem 9 their rates.

:func:`f_mr`, :func:`g`, :func:`m_star`, :func:`deviation_bound` and :func:`alpha_at_beta` are written as
printed.  Above ε/m = :data:`MAX_EXPONENT` (e^{2ε/m} overflows) they take the same value from appendix 1's
(T/ε)(p − q)²/p of the round channel (``_f``), also the grid helpers' vectorised path; tests hold them equal.
"""

from __future__ import annotations

import math
import sys
from functools import cache

import numpy as np
from scipy.optimize import minimize_scalar

from ldp_helpers._numeric import union_log
from ldp_helpers._validation import (
    MAX_N_ROUNDS,
    check_bool,
    check_epsilon,
    check_epsilons,
    check_int,
    check_int_array,
    check_probabilities,
    check_probability,
    check_real,
    check_real_array,
    fail,
    fail_shape,
)
from ldp_helpers.mechanisms.m_shot import round_channel_probabilities

# Rates of Theorem 9 (ε = Θ(T^b)): α ∝ T^{exponent} √(log(T/β)/N).
RATE_EXPONENTS = {
    "1-shot": lambda b: 0.5,
    "m*-shot": lambda b: (1 - b) / 2,
    "T-shot": lambda b: 1 - b,
}
METHODS = tuple(RATE_EXPONENTS)  # ("1-shot", "m*-shot", "T-shot")
#: the largest ε/m (1/x for g) at which the printed formulas are evaluated: (e^{ε/m})²·T/m stays finite
MAX_EXPONENT = 300.0


def _check_n_users(n_users) -> int:
    """N ≥ 1 of a formula (any size beyond int64, e.g. :func:`min_users_for_condition`'s): up to the largest
    double, which the formulas turn it into (10**400 raised a raw OverflowError)."""
    return check_int("n_users", n_users, low=1, high=sys.float_info.max, any_size=True)


def _check_setting(m, r, epsilon, n_rounds):
    epsilon = check_epsilon(epsilon)
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    return check_int("m", m, low=1, high=n_rounds), check_probability(r, "r"), epsilon, n_rounds


def _f(x, share, r):
    """f = (T/ε)(p − q)²/p (appendix 1) at x = m/ε, share = m/T: vectorised and overflow-free."""
    p, _, gap = round_channel_probabilities(1.0 / x, share, r)
    return x / share * gap**2 / p


def _condition(m, r, epsilon, n_rounds) -> float:
    """Condition (1)'s bound as q/(p − q) of the round channel, for a validated setting."""
    _, q, gap = round_channel_probabilities(epsilon / m, m / n_rounds, r)
    return float(q / gap)


def f_mr(m: int, r: float, *, epsilon: float, n_rounds: int) -> float:
    """f(m, r) of Theorem 5 (larger is better: it multiplies the exponent of bound (2))::

        f(m, r) = (m/ε) (e^{ε/m} − 1)² / (e^{ε/m}(e^{ε/m} + 1) + (e^{ε/m} + 1)²(T/m − 1) r)

    (e^{ε/m} − 1 is computed with ``expm1``: no cancellation at small ε/m).  Above ε/m =
    :data:`MAX_EXPONENT` the same value as appendix 1's (T/ε)(p − q)²/p of the round channel.

    References
    ----------
    [m_shot] Theorem 5; [m_shot] Eq. (2); [m_shot] appendix 1 (derives it as (T/ε)(p − q)²/p).
    """
    m, r, epsilon, T = _check_setting(m, r, epsilon, n_rounds)
    if epsilon / m > MAX_EXPONENT:
        return float(_f(m / epsilon, m / T, r))
    e = math.exp(epsilon / m)  # e^{ε/m}
    return (
        m
        / epsilon
        * math.expm1(epsilon / m) ** 2
        / (e * (e + 1) + (e + 1) ** 2 * ((T - m) / m) * r)
    )


def alpha_condition(m: int, r: float, *, epsilon: float, n_rounds: int) -> float:
    """Condition (1)'s bound: bound (2) holds for α below ::

        (1 + (e^{ε/m} + 1)(T/m − 1) r) / (e^{ε/m} − 1)

    the δ < 1 of (A-3) at Φ0 = 0.  Above ε/m = :data:`MAX_EXPONENT` the same value as q/(p − q) of the round
    channel (the form the other bounds use, ``_condition``; a test holds the two equal).

    References
    ----------
    [m_shot] Theorem 5, condition (1); [m_shot] appendix 1.
    """
    m, r, epsilon, T = _check_setting(m, r, epsilon, n_rounds)
    if epsilon / m > MAX_EXPONENT:
        return _condition(m, r, epsilon, T)
    # T/m − 1 as (T − m)/m: exact integers first (T/m − 1 lost 8e-8 at m = T − 1 = 1e9)
    return (1 + (math.exp(epsilon / m) + 1) * ((T - m) / m) * r) / math.expm1(epsilon / m)


def method_m(method: str, epsilon: float, n_rounds: int) -> int:
    """The m of a named method: "1-shot" → 1, "m*-shot" → m* of Eq. (7), "T-shot" → T."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if method == "m*-shot":
        return m_star(epsilon, n_rounds)
    check_epsilon(epsilon)
    T = check_int("n_rounds", n_rounds, low=1)
    return 1 if method == "1-shot" else T


def method_assumption(method: str, *, epsilon: float, n_rounds: int) -> float:
    """The bound α must stay below in Theorem 6 ("1-shot"), 8 ("m*-shot") or 7 ("T-shot"): condition (1) at r = 0,
    ``α < 1/(e^{ε/m} − 1)``, as all three proofs apply Theorem 5 with r = 0 ([m_shot] Theorems 5–8, appendix 2–4;
    the printed assumptions: :func:`printed_assumption`)."""
    return _condition(method_m(method, epsilon, n_rounds), 0.0, epsilon, n_rounds)


# The ±1 each theorem prints in its assumption 1/(e^{ε/m ± 1}): Theorem 6 (m = 1), 7 (m = T), 8 (m = m*).
PRINTED_ASSUMPTION_SIGN = {"1-shot": 1, "T-shot": 1, "m*-shot": -1}


def printed_assumption(
    method: str, *, epsilon: float, n_rounds: int, literal: bool = False
) -> float:
    """The assumption on α as Theorem 6, 7 or 8 prints it, ``1/(e^{ε/m ± 1})``, under one of two readings.

    ``literal``: the ±1 inside the exponent, ``e^{−(ε/m ± 1)}``.  Otherwise (the default) outside it,
    ``1/(e^{ε/m} ± 1)``: the only reading under which Theorem 8's "−1" is condition (1) at r = 0
    (:func:`method_assumption`); read literally, Theorem 8's e^{1−ε/m} exceeds condition (1) once
    ε/m > 1 − ln(e − 1) ≈ 0.46 and would not suffice for its own proof.  [m_shot] Theorems 6, 7 and 8
    print 1/(e^{ε+1}), 1/(e^{ε/T+1}), 1/(e^{ε/m*−1}).
    """
    m = method_m(method, epsilon, n_rounds)
    u, sign = epsilon / m, PRINTED_ASSUMPTION_SIGN[method]
    if check_bool("literal", literal):
        return math.exp(-(u + sign))
    w = math.exp(-u)  # 1/(e^u ± 1) = w/(1 ± w), no overflow at large u
    return w / (1.0 + w) if sign > 0 else w / -math.expm1(-u)


def deviation_bound(
    alpha: float, *, m: int, r: float, epsilon: float, n_rounds: int, n_users: int
) -> float:
    """Right-hand side of (2), ``2T exp(−f(m, r) ε N α²/(3T))``; refuses α outside condition (1).

    Appendix 1: T times (A-6) ``2exp(−N(p − q)²α²/(3p))``, the two-sided Chernoff bound (A-3) at
    μ = Np ≥ E X and δ = (p − q)α/p (|Φ − Φ0| ≥ α is |X − E X| ≥ N(p − q)α), over the T rounds (A-2).

    References
    ----------
    [m_shot] Theorem 5; [m_shot] Eq. (2); [m_shot] appendix 1, Eqs. (A-2)–(A-6).
    """
    alpha = check_real("alpha", alpha, low=0.0)
    n_users = _check_n_users(n_users)
    f = f_mr(m, r, epsilon=epsilon, n_rounds=n_rounds)
    limit = _condition(m, r, epsilon, n_rounds)
    if alpha >= limit:
        fail(
            "alpha",
            alpha,
            f"in (0, {limit:.6g}) (condition (1) of Theorem 5 at m={m}, r={r:g}, "
            f"epsilon={epsilon:g})",
        )
    T, N = n_rounds, n_users
    return 2 * T * math.exp(-f * epsilon * N * alpha**2 / (3 * T))


def alpha_at_beta(
    beta: float, *, m: int, r: float, epsilon: float, n_rounds: int, n_users: int
) -> float:
    """The α at which the right-hand side of (2) equals β, ``α = √(3T log(2T/β) / (f(m, r) ε N))``.

    No check of condition (1) (:func:`alpha_bound` certifies it): shows *how far* outside it a setting is.

    References
    ----------
    [m_shot] Eq. (2) solved for α (appendix 2–4).
    """
    beta = check_real("beta", beta, low=0.0, high=1.0)
    n_users = _check_n_users(n_users)
    f = f_mr(m, r, epsilon=epsilon, n_rounds=n_rounds)
    T, N = n_rounds, n_users
    return math.sqrt(3 * T * union_log(2 * T, beta) / (f * epsilon * N))


def alpha_bound(
    beta: float, *, m: int, r: float, epsilon: float, n_rounds: int, n_users: int
) -> float:
    """The certified α of (α, β)-accuracy from bound (2) (:func:`alpha_at_beta`; [m_shot] Theorem 5 solved for α, as in
    the proofs of Theorems 6–8), refused (ValueError) outside condition (1)."""
    alpha = alpha_at_beta(beta, m=m, r=r, epsilon=epsilon, n_rounds=n_rounds, n_users=n_users)
    limit = _condition(m, r, epsilon, n_rounds)
    if alpha >= limit:
        raise ValueError(
            f"alpha = {alpha:.6g} from beta={beta:g}, N={n_users}, epsilon={epsilon:g} violates condition (1) of Theorem 5 "
            f"(alpha must be < {limit:.6g}); the bound is vacuous here: increase n_users"
        )
    return alpha


def min_users_for_condition(beta: float, *, m: int, r: float, epsilon: float, n_rounds: int) -> int:
    """The smallest N at which :func:`alpha_at_beta` satisfies condition (1), i.e. bound (2) certifies.

    ``N > 3T log(2T/β) / (f ε c²)`` with c the bound of condition (1), divided by c twice so that
    c² cannot underflow.  Raises ValueError when that N is not finite in double precision (from
    ε/m ≈ 355 on at r = 0: c ≈ e^{−ε/m}, so N grows like e^{2ε/m}).
    """
    beta = check_real("beta", beta, low=0.0, high=1.0)
    f = f_mr(m, r, epsilon=epsilon, n_rounds=n_rounds)
    limit = _condition(m, r, epsilon, n_rounds)
    needed = (
        3 * n_rounds * union_log(2 * n_rounds, beta) / (f * epsilon) / limit / limit
        if limit > 0
        else math.inf
    )
    if not math.isfinite(needed):
        fail(
            "epsilon",
            epsilon,
            f"small enough that the N of condition (1) (alpha < 1/(e^(epsilon/m) - 1) at "
            f"m={m}, r={r:g}) is finite in double precision",
        )
    return math.floor(needed) + 1


def alpha_t_shot_closed_form(beta: float, *, epsilon: float, n_rounds: int, n_users: int) -> float:
    """[m_shot] Theorem 7, Eq. (A.8): √(3(T/ε + 1 + (e/2)ε/T)(2T/ε + 1 + (e/2)ε/T) log(2T/β)/N), appendix 3's α.

    Requires Theorem 7's assumptions: ε/T < 1 (used by e^x ≤ 1 + x + (e/2)x² on [0, 1]) and α_T below
    :func:`method_assumption` for "T-shot" (condition (1) at m = T, r = 0).
    """
    epsilon = check_epsilon(epsilon)
    T = check_int("n_rounds", n_rounds, low=1)
    if epsilon / T >= 1:
        fail("epsilon", epsilon, f"below n_rounds = {T} (Theorem 7 assumes epsilon/T < 1)")
    beta = check_real("beta", beta, low=0.0, high=1.0)
    n_users = _check_n_users(n_users)
    x, c = epsilon / T, math.e / 2
    alpha = math.sqrt(
        3 * (1 / x + 1 + c * x) * (2 / x + 1 + c * x) * union_log(2 * T, beta) / n_users
    )
    limit = _condition(T, 0.0, epsilon, T)
    if alpha >= limit:
        raise ValueError(
            f"alpha_T = {alpha:.6g} from beta={beta:g}, N={n_users} violates Theorem 7's assumption "
            f"alpha_T < 1/(e^(epsilon/T) - 1) = {limit:.6g}; increase n_users"
        )
    return alpha


def g(x):
    """``g(x) = x (e^{1/x} − 1)² / (e^{1/x}(e^{1/x} + 1))``, so that f(m, 0) = g(m/ε) (x > 0).

    Below x = 1/:data:`MAX_EXPONENT` (e^{2/x} overflows) the same value in appendix 1's form
    (``_f(x, 1, 0)``: f at m = T, r = 0).

    References
    ----------
    [m_shot] §4.3 (the definition of g); [m_shot] Fig. 1.
    """
    x = check_real_array("x (m/epsilon)", x, low=0.0)
    if np.any(x < 1 / MAX_EXPONENT):
        out = _f(x, 1.0, 0.0)
    else:
        e = np.exp(1 / x)  # e^{1/x}
        out = x * np.expm1(1 / x) ** 2 / (e * (e + 1))
    return float(out) if np.ndim(out) == 0 else out


@cache
def c_star() -> float:
    """``c* = argmax_{x>0} g(x) ≈ 0.574``, found numerically (no closed form; §5.3 prints argmin, a slip).

    g is flat at its top (g(c* + h) − g(c*) ∝ h²), so the last digits of a numerical argmax depend on how
    g is rounded; c* maximises appendix 1's form of g (``_f(x, 1, 0)``: f at m = T, r = 0), whose
    c* the committed results record.

    References
    ----------
    [m_shot] §5.3; [m_shot] Fig. 1.
    """
    return float(
        minimize_scalar(
            lambda x: -_f(x, 1.0, 0.0),
            bounds=(0.05, 5.0),
            method="bounded",
            options={"xatol": 1e-12},
        ).x
    )


def m_star_regime(epsilon: float, n_rounds: int) -> int:
    """Which case of [m_shot] Eq. (7) applies: 0 (ε ≤ 1/c*, 1-shot), 1 (middle), 2 (ε ≥ T/c*, T-shot)."""
    epsilon = check_epsilon(epsilon)
    T = check_int("n_rounds", n_rounds, low=1)
    c = c_star()
    return 0 if epsilon <= 1 / c else 2 if epsilon >= T / c else 1


def m_star(epsilon: float, n_rounds: int) -> int:
    """m* by Eq. (7)::

        m* = 1                                              if ε ≤ 1/c*
             argmax_{m' ∈ {⌊εc*⌋, ⌈εc*⌉}} g(m'/ε)           if 1/c* < ε < T/c*   (the smaller m' on a tie)
             T                                              if ε ≥ T/c*

    References
    ----------
    [m_shot] Eq. (7).
    """
    epsilon = check_epsilon(epsilon)
    T = check_int("n_rounds", n_rounds, low=1)
    c = c_star()
    if epsilon <= 1 / c:
        return 1
    if epsilon >= T / c:
        return T
    return max((math.floor(epsilon * c), math.ceil(epsilon * c)), key=lambda m: g(m / epsilon))


def _argmax_g(epsilon, n_rounds) -> int:
    """m* = argmax_{m ∈ [T]} g(m/ε) of [m_shot] §4.3 by evaluating every m (the smallest on ties)."""
    return int(np.argmax(_f(np.arange(1, n_rounds + 1) / epsilon, 1.0, 0.0))) + 1


def rate_exponent(method: str, b: float) -> float:
    """[m_shot] Theorem 9, Eqs. (8)–(10): the e with α = O(T^e √(log(T/β)/N)) when ε = Θ(T^b), b ∈ [0, 1]."""
    b = check_real("b", b, low=0.0, high=1.0, low_open=False, high_open=False)
    if method not in RATE_EXPONENTS:
        raise ValueError(f"method must be one of {sorted(RATE_EXPONENTS)}; got {method!r}")
    return float(RATE_EXPONENTS[method](b))


def alpha_for_method(
    method: str, beta: float, *, epsilon: float, n_rounds: int, n_users: int
) -> float:
    """Certified α of Theorem 6 ("1-shot"), 8 ("m*-shot") or 7 ("T-shot"): bound (2) solved at m = :func:`method_m`
    under condition (1) at r = 0 (:func:`method_assumption`); :func:`alpha_bound` raises outside it."""
    m = method_m(method, epsilon, n_rounds)
    return alpha_bound(beta, m=m, r=0.0, epsilon=epsilon, n_rounds=n_rounds, n_users=n_users)


def alpha_vs_assumption(
    method: str, beta: float, *, epsilon: float, n_rounds: int, n_users: int
) -> tuple[int, float, float]:
    """(m, α at which bound (2) equals β, the assumption's bound on α) for a named method: unlike
    :func:`alpha_for_method` it does not refuse a vacuous setting, it shows how far off it is."""
    m = method_m(method, epsilon, n_rounds)
    alpha = alpha_at_beta(beta, m=m, r=0.0, epsilon=epsilon, n_rounds=n_rounds, n_users=n_users)
    return m, alpha, _condition(m, 0.0, epsilon, n_rounds)


def m_star_table(epsilons, rounds) -> tuple[np.ndarray, np.ndarray]:
    """m* by Eq. (7) and by brute force over m ∈ [T], each of shape (len(rounds), len(epsilons))."""
    eps = check_epsilons(epsilons).ravel()
    ts = check_int_array("rounds", rounds, low=1, high=MAX_N_ROUNDS).ravel().tolist()
    eq7 = np.array([[m_star(e, t) for e in eps] for t in ts])
    brute = np.array([[_argmax_g(e, t) for e in eps] for t in ts])
    return eq7, brute


def f_decreasing_in_r(rs, *, epsilon: float, n_rounds: int) -> np.ndarray:
    """For m = 1..T: whether f(m, r) strictly decreases along the increasing grid ``rs`` (Eq. (4), r* = 0; on f's
    vectorised path)."""
    epsilon = check_epsilon(epsilon)
    T = check_int("n_rounds", n_rounds, low=1, high=MAX_N_ROUNDS)
    rs = check_probabilities("rs", rs)
    if rs.ndim != 1 or rs.size < 2 or np.any(np.diff(rs) <= 0):
        fail_shape("rs", rs.shape, "an increasing 1-D grid of at least 2 values in [0, 1]")
    m = np.arange(1, T + 1)[:, None]
    return np.all(np.diff(_f(m / epsilon, m / T, rs[None, :]), axis=1) < 0, axis=1)
