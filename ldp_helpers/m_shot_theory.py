"""The accuracy theory of m-shot reporting (seed 002, Theorems 5–9 and Eq. 7).

Theorem 5 bounds the probability that some round's estimate is off by α or more::

    Pr[∃t: |Φ(Y_{:,t}) − Φ0(V_{:,t})| ≥ α] ≤ 2T exp(−f(m, r) ε N α² / (3T)),        (2)

valid when α < (1 + (e^{ε/m}+1)(T/m − 1) r)/(e^{ε/m} − 1)                         (1)

(condition (1) is the Chernoff bound's δ < 1 at Φ0 = 0).  With r* = 0, f(m, 0) = g(m/ε) where
``g(x) = x (e^{1/x} − 1)² / (e^{1/x}(e^{1/x} + 1))``; g rises then falls, so its **maximizer**
c* ≈ 0.574 (§5.3 writes argmin: a slip, the text and Eq. (7) use it as the maximizer) gives m*.
Solving (2) = β for α gives the accuracy α of Theorems 6–8; Theorem 9 reads off their rates.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.optimize import minimize_scalar

from ._validation import _fail, check_epsilon, check_int, check_probability, check_real

# Rates of Theorem 9 (ε = Θ(T^b)): α ∝ T^{exponent} √(log(T/β)/N).
RATE_EXPONENTS = {"1-shot": lambda b: 0.5, "m*-shot": lambda b: (1 - b) / 2, "T-shot": lambda b: 1 - b}


def _check_setting(m, r, epsilon, n_rounds):
    epsilon = check_epsilon(epsilon)
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    m = check_int("m", m, low=1, high=n_rounds)
    r = check_probability(r, "r")
    return m, r, epsilon, n_rounds


def f_mr(m: int, r: float, *, epsilon: float, n_rounds: int) -> float:
    """f(m, r) of Theorem 5 (larger is better: it multiplies the exponent of bound (2)).

    ``f = (m/ε)(e^{ε/m} − 1)² / (e^{ε/m}(e^{ε/m} + 1) + (e^{ε/m} + 1)²(T/m − 1) r)``.

    References
    ----------
    m-shot seed (002), Theorem 5; appendix 1 derives it as (T/ε)(p − q)²/p.
    """
    m, r, epsilon, T = _check_setting(m, r, epsilon, n_rounds)
    u = epsilon / m
    # divide numerator and denominator by e^{2u}: stable for large ε/m
    em = math.exp(-u)
    num = (-math.expm1(-u)) ** 2
    den = (1 + em) + (1 + em) ** 2 * (T / m - 1) * r
    return (m / epsilon) * num / den


def alpha_condition(m: int, r: float, *, epsilon: float, n_rounds: int) -> float:
    """The right-hand side of condition (1): bound (2) holds for α below it."""
    m, r, epsilon, T = _check_setting(m, r, epsilon, n_rounds)
    u = epsilon / m
    return (1 + (math.exp(u) + 1) * (T / m - 1) * r) / math.expm1(u)


def deviation_bound(alpha: float, *, m: int, r: float, epsilon: float, n_rounds: int, n_users: int) -> float:
    """Right-hand side of (2): ``2T exp(−f(m, r) ε N α²/(3T))``; refuses α outside condition (1)."""
    alpha = check_real("alpha", alpha, low=0.0)
    n_users = check_int("n_users", n_users, low=1)
    limit = alpha_condition(m, r, epsilon=epsilon, n_rounds=n_rounds)
    if alpha >= limit:
        _fail("alpha", alpha, f"in (0, {limit:.6g}) (condition (1) of Theorem 5 at m={m}, r={r:g}, epsilon={epsilon:g})")
    f = f_mr(m, r, epsilon=epsilon, n_rounds=n_rounds)
    return 2 * n_rounds * math.exp(-f * epsilon * n_users * alpha**2 / (3 * n_rounds))


def alpha_at_beta(beta: float, *, m: int, r: float, epsilon: float, n_rounds: int, n_users: int) -> float:
    """The α at which the right-hand side of (2) equals β: ``√(3T log(2T/β) / (f ε N))``.

    No check of condition (1): use :func:`alpha_bound` for a certified accuracy; this function
    lets a notebook show *how far* outside condition (1) a setting is.
    """
    beta = check_real("beta", beta, low=0.0, high=1.0)
    n_users = check_int("n_users", n_users, low=1)
    f = f_mr(m, r, epsilon=epsilon, n_rounds=n_rounds)
    return math.sqrt(3 * n_rounds * math.log(2 * n_rounds / beta) / (f * epsilon * n_users))


def alpha_bound(beta: float, *, m: int, r: float, epsilon: float, n_rounds: int, n_users: int) -> float:
    """The certified α of (α, β)-accuracy from bound (2) (:func:`alpha_at_beta`).

    Raises ValueError when that α violates condition (1): the bound then says nothing.

    References
    ----------
    m-shot seed (002), Theorem 5 solved for α, as in the proofs of Theorems 6–8 (appendix 2–4).
    """
    alpha = alpha_at_beta(beta, m=m, r=r, epsilon=epsilon, n_rounds=n_rounds, n_users=n_users)
    limit = alpha_condition(m, r, epsilon=epsilon, n_rounds=n_rounds)
    if alpha >= limit:
        raise ValueError(
            f"alpha = {alpha:.6g} from beta={beta:g}, N={n_users} violates condition (1) of Theorem 5 "
            f"(alpha must be < {limit:.6g}); the bound is vacuous here: increase n_users"
        )
    return alpha


def alpha_t_shot_closed_form(beta: float, *, epsilon: float, n_rounds: int, n_users: int) -> float:
    """Appendix 3's explicit T-shot α: √(3(T/ε + 1 + (e/2)ε/T)(2T/ε + 1 + (e/2)ε/T) log(2T/β)/N).

    Requires ε/T < 1 (Theorem 7's assumption, used by e^x ≤ 1 + x + (e/2)x² on [0, 1]).

    References
    ----------
    m-shot seed (002), Theorem 7 and (A.8).
    """
    epsilon = check_epsilon(epsilon)
    T = check_int("n_rounds", n_rounds, low=1)
    if epsilon / T >= 1:
        _fail("epsilon", epsilon, f"below n_rounds = {T} (Theorem 7 assumes epsilon/T < 1)")
    beta = check_real("beta", beta, low=0.0, high=1.0)
    n_users = check_int("n_users", n_users, low=1)
    x, c = epsilon / T, math.e / 2
    return math.sqrt(3 * (1 / x + 1 + c * x) * (2 / x + 1 + c * x) * math.log(2 * T / beta) / n_users)


def g(x):
    """``g(x) = x (e^{1/x} − 1)² / (e^{1/x}(e^{1/x} + 1)) = f(m, 0)`` at x = m/ε (x > 0).

    Evaluated as ``x (1 − e^{−1/x})² / (1 + e^{−1/x})`` (no overflow at small x).

    References
    ----------
    m-shot seed (002), §4.3, the definition of g and Figure 1.
    """
    arr = np.asarray(x, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        bad = arr[~(np.isfinite(arr) & (arr > 0))] if arr.size else arr
        _fail("x", bad.flat[0].item() if bad.size else "an empty array", "finite and > 0 (x = m/epsilon)")
    emu = np.exp(-1 / arr)
    out = arr * np.expm1(-1 / arr) ** 2 / (1 + emu)
    return float(out) if np.ndim(x) == 0 else out


@lru_cache(maxsize=None)
def c_star() -> float:
    """c* = argmax_{x>0} g(x) ≈ 0.574, found numerically (no closed form; §5.3)."""
    res = minimize_scalar(lambda x: -g(x), bounds=(0.05, 5.0), method="bounded", options={"xatol": 1e-12})
    return float(res.x)


def m_star_regime(epsilon: float, n_rounds: int) -> int:
    """Which case of Eq. (7) applies: 0 (ε ≤ 1/c*, 1-shot), 1 (middle), 2 (ε ≥ T/c*, T-shot)."""
    epsilon = check_epsilon(epsilon)
    T = check_int("n_rounds", n_rounds, low=1)
    c = c_star()
    if epsilon * c <= 1:
        return 0
    return 2 if epsilon * c >= T else 1


def m_star(epsilon: float, n_rounds: int) -> int:
    """m* by Eq. (7): 1, the better of ⌊εc*⌋ and ⌈εc*⌉, or T.

    References
    ----------
    m-shot seed (002), Eq. (7).
    """
    regime = m_star_regime(epsilon, n_rounds)
    if regime == 0:
        return 1
    if regime == 2:
        return int(n_rounds)
    x = epsilon * c_star()
    lo, hi = math.floor(x), math.ceil(x)
    return lo if g(lo / epsilon) >= g(hi / epsilon) else hi


def m_star_brute_force(epsilon: float, n_rounds: int) -> int:
    """m* = argmax_{m ∈ [T]} g(m/ε) by evaluating every m (the smallest on ties)."""
    epsilon = check_epsilon(epsilon)
    T = check_int("n_rounds", n_rounds, low=1)
    return int(np.argmax(g(np.arange(1, T + 1) / epsilon))) + 1


def rate_exponent(method: str, b: float) -> float:
    """Theorem 9: the exponent e with α = O(T^e √(log(T/β)/N)) when ε = Θ(T^b), b ∈ [0, 1].

    References
    ----------
    m-shot seed (002), Theorem 9, Eqs. (8)–(10).
    """
    b = check_real("b", b, low=0.0, high=1.0, low_open=False, high_open=False)
    if method not in RATE_EXPONENTS:
        raise ValueError(f"method must be one of {sorted(RATE_EXPONENTS)}; got {method!r}")
    return float(RATE_EXPONENTS[method](b))


def alpha_for_method(method: str, beta: float, *, epsilon: float, n_rounds: int, n_users: int) -> float:
    """Certified α of Theorem 6 ("1-shot"), Theorem 8 ("m*-shot") or Theorem 7 ("T-shot").

    All three are bound (2) solved at m = 1, m* (Eq. 7) or T, under condition (1) (r = 0);
    see :func:`alpha_bound` for the errors raised outside it.
    """
    if method not in RATE_EXPONENTS:
        raise ValueError(f"method must be one of {sorted(RATE_EXPONENTS)}; got {method!r}")
    m = {"1-shot": 1, "m*-shot": m_star(epsilon, n_rounds), "T-shot": int(n_rounds)}[method]
    return alpha_bound(beta, m=m, r=0.0, epsilon=epsilon, n_rounds=n_rounds, n_users=n_users)
