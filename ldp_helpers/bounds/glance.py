"""The Glance paper's equations on the page ([glance]): θ (Eq. 1), Claim 2, condition (2), Theorems 4–5.

Each named quantity is one short function whose body is the formula its docstring cites.  All share the
logarithmic term of Eq. (1) and Claim 2, defined only for ``N > T·log(4T/β)``::

    L(N, T, β) = log 1 / (1 − (T/N)·log(4T/β))                  (≈ (T/N)·log(4T/β) when N is large)

θ bounds the randomized-response part ``max_t |μ̂_t − μ̃_t|`` (Claim 1) and ``sqrt(L/2)`` the sampling
part ``max_t |μ̃_t − μ_t|`` (Claim 2), each w.p. 1 − β/2.  Two limits matter for Table 1: as ε → 0,
θ ≈ 2√2·sqrt(L)/ε (the O(1/ε) rate); for ``1 ≪ e^ε ≪ 1/L``, θ ≈ 2√2·sqrt(L/e^ε) (the O(1/√e^ε) rate); and
for ``e^ε ≫ 1/L`` at fixed N, T, θ → 4L/3, a positive constant (:func:`theta_large_epsilon_limit`).

The paper omits its proofs; what Eq. (1)'s constants imply (θ/2 is Bernstein's deviation of the RR error
at exponent L, and the right-hand side of (2) is its Bernstein exponent) is checked in
``tests/bounds/test_bounds_glance.py`` against :mod:`ldp_helpers.bounds.chernoff`.  The paper's own settings
(Figures 1–3, §6) are named once here: :data:`FIG1`, :data:`FIG2`, :data:`SEC6`.

Every function accepts numpy arrays of ε (and μ) and validates its arguments once, with a ValueError
naming the parameter.
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import numpy as np

from ldp_helpers._numeric import union_log
from ldp_helpers._validation import (
    check_above,
    check_epsilons,
    check_int,
    check_probabilities,
    check_probability,
    check_real,
    check_real_array,
)
from ldp_helpers.bounds import chernoff


class _SettingFields(NamedTuple):
    n_users: int
    n_rounds: int
    beta: float


class Setting(_SettingFields):
    """One of the paper's settings: N ≥ 1 users, T ≥ 1 rounds, failure probability β ∈ (0, 1), checked when built.

    Unpacks into every bound of this module, in their argument order: ``theta(ε, *FIG2)``.
    """

    __slots__ = ()

    def __new__(cls, n_users: int, n_rounds: int, beta: float):
        return super().__new__(
            cls,
            check_int("n_users", n_users, low=1),
            check_int("n_rounds", n_rounds, low=1),
            check_probability(beta, "beta", open_low=True, open_high=True),
        )

    @property
    def shape(self) -> tuple[int, int]:
        """``(N, T)``, the shape of a stream in this setting: ``constant_population(mu, *setting.shape)``."""
        return self.n_users, self.n_rounds


def theorem4_beta(n_users: int, beta: float = 0.5) -> float:
    """Theorem 4's failure probability β/(N+1)², inside its range 0 < β₄ < 1/(N+1)² for 0 < β < 1.

    The default β = ½ gives Figure 2's β₄ = 1/(2(N+1)²), half the largest value Theorem 4 admits.

    Parameters
    ----------
    n_users : int
        N ≥ 1.
    beta : float
        The share of Theorem 4's largest admissible β₄, in (0, 1).

    References
    ----------
    [glance] Theorem 4 (0 < β < 1/(N+1)²); [glance] Fig. 2 caption (β = 1/(2(N+1)²)).
    """
    n_users = check_int("n_users", n_users, low=1)
    return check_real("beta", beta, low=0.0, high=1.0) / (n_users + 1) ** 2


#: Figure 1 (condition (2) over (ε, μ)): T = 10, β = 0.1; the caption says N = 10,000, the text 100,000.
FIG1 = {"caption": Setting(10_000, 10, 0.1), "text": Setting(100_000, 10, 0.1)}
#: Figure 2 (Theorem 4's bound vs Theorem 5's 2θ): N = 10⁶, T = 10, β = 1/(2(N+1)²).
FIG2 = Setting(1_000_000, 10, theorem4_beta(1_000_000))
#: Figure 2's caption: the two bounds cross ("逆転") at ε = 8.
FIG2_CROSSOVER = 8.0
#: §6 and Figure 3: T = 50, N = 10,000, β = 0.1 (for condition (2)), constant streams.
SEC6 = Setting(10_000, 50, 0.1)
#: §6: condition (2) is checked, and Figure 3 drawn, for 1 ≤ ε ≤ 8.
SEC6_EPSILON_RANGE = (1.0, 8.0)
#: §6's constant streams: the dense μ of the text, the dense μ of Figure 3's caption, the general μ.
SEC6_MU = {"dense": 0.9995, "caption": 0.995, "general": 0.5}
#: §6: "μ_t = 0.5 violates condition (2) for ε ≥ 2.5".
SEC6_GENERAL_FAILS_FROM = 2.5


def _epsilons(epsilon, high: float = 700.0) -> np.ndarray:
    """Budgets up to ``high``: e^ε overflows beyond ~709, and (e^ε)² (Theorem 4, condition (2)) beyond ~354."""
    return check_epsilons(epsilon, "epsilon", high=high)


# ---------------------------------------------------------------- Eq. (1), Claims 1–2, Theorem 5


def log_term(n_users: int, n_rounds: int, beta: float) -> float:
    """``L = log(1/(1 − (T/N) log(4T/β)))``, the logarithmic term of Eq. (1) and Claim 2.

    Raises ValueError outside the domain ``N > T·log(4T/β)`` (where L would be infinite or NaN).

    References
    ----------
    [glance] Eq. (1); [glance] Claim 2.
    """
    T = check_int("n_rounds", n_rounds, low=1)
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    N = check_int("n_users", n_users, low=1)
    check_above(
        "n_users",
        N,
        T * union_log(4 * T, beta),
        what=f"T·log(4T/β) for T={T}, beta={beta:g} (domain of Eq. (1))",
    )
    # log(1/(1 − x)) = −log1p(−x), exact also for small x
    return -math.log1p(-T * union_log(4 * T, beta) / N)


def theta(epsilon, n_users: int, n_rounds: int, beta: float):
    """θ of Eq. (1): Claim 1's bound on the randomized-response error ``max_t |μ̂_t − μ̃_t|``.

    ``θ = 2e^ε L/(3(e^ε − 1)) + 3/(e^ε − 1)·sqrt(a² + 4a)`` with ``a = (2e^ε/9)·L``.

    References
    ----------
    [glance] Eq. (1); [glance] Claim 1 (holds w.p. 1 − β/2 for N > T log(4T/β)).
    """
    eps, L = _epsilons(epsilon), log_term(n_users, n_rounds, beta)
    e, e_minus_1 = np.exp(eps), np.expm1(eps)  # e^ε and e^ε − 1 (expm1: exact also for small ε)
    a = 2 * e / 9 * L
    # hypot(a, 2√a) = sqrt(a² + 4a)
    return 2 * e / (3 * e_minus_1) * L + 3 / e_minus_1 * np.hypot(a, 2 * np.sqrt(a))


def theta_large_epsilon_limit(n_users: int, n_rounds: int, beta: float) -> float:
    """``lim_{ε→∞} θ = 4L/3``: the RR bound does not vanish at fixed N, T (sqrt(a² + 4a) → a + 2).

    References
    ----------
    [glance] Eq. (1) as ε → ∞.
    """
    return 4 * log_term(n_users, n_rounds, beta) / 3


def sampling_bound(n_users: int, n_rounds: int, beta: float) -> float:
    """Claim 2: ``max_t |μ̃_t − μ_t| < sqrt(L/2)`` w.p. 1 − β/2 (independent of ε).

    References
    ----------
    [glance] Claim 2 (Hoeffding over the ≈ N/T users sampled in each round).
    """
    return math.sqrt(log_term(n_users, n_rounds, beta) / 2)


def glance_upper_bound(epsilon, n_users: int, n_rounds: int, beta: float):
    """Theorem 5: under condition (2), Glance's error is below ``2θ`` w.p. 1 − β.

    The paper prints the left-hand side as ``max_t |μ̂_t − μ̃_t|`` (the RR part, already < θ by
    Claim 1); the statement that needs condition (2), and the one Figure 2 compares with
    Harmony, is the total error ``max_t |μ̂_t − μ_t|`` (RR part < θ, sampling part < θ).

    References
    ----------
    [glance] Theorem 5; [glance] Eq. (3).
    """
    return 2 * theta(epsilon, n_users, n_rounds, beta)


# ---------------------------------------------------------------- condition (2)

#: ``D(a‖b)`` as the paper defines it after (2): +∞ whenever a ≤ 0, a ≥ 1, b = 0 or b = 1 (a deviation to or
#: beyond the boundary, or a degenerate round, counts as impossible; at a = 0 the mathematical value is −log(1 − b)).
_kl = partial(chernoff.bernoulli_kl, boundary_infinite=True)


def rr_exponent(epsilon, theta_value):
    """Right-hand side of condition (2): ``((e^ε − 1)²θ²/(2e^ε)) / (1 + (e^ε − 1)θ/3)``.

    Bernstein's exponent per reporter of the randomized-response error (variance e^ε/(e^ε − 1)², range
    e^ε/(e^ε − 1)); ``(e^ε − 1)θ`` is squared as one product, so nothing overflows before the result does.

    References
    ----------
    [glance] condition (2), right-hand side.
    """
    eps, th = _epsilons(epsilon, high=350.0), check_real_array("theta_value", theta_value, low=0.0)
    e, e_minus_1 = np.exp(eps), np.expm1(eps)
    with np.errstate(over="ignore", invalid="ignore"):
        out = ((e_minus_1 * th) ** 2 / (2 * e)) / (1 + e_minus_1 * th / 3)
        if not np.all(np.isfinite(out)):  # x = (e^ε − 1)θ beyond 1e154: x² overflowed
            x = e_minus_1 * th  # out is ∞ or ∞/∞ = NaN; x beyond 1e308: so is the exponent
            split = np.where(np.isfinite(x), (x / (2 * e)) * (x / (1 + x / 3)), np.inf)
            out = np.where(np.isfinite(out), out, split)
    return out


def dense_sparse_condition(mu, epsilon, n_users: int, n_rounds: int, beta: float):
    """Condition (2): ``min{D(μ − θ‖μ), D(μ + θ‖μ)} ≥ RHS(θ)``, broadcast over μ and ε (θ of Eq. (1)).

    True where the sampling error is provably smaller than the randomized-response error (very dense
    or very sparse rounds at moderately large ε): the left-hand side is the Chernoff–Hoeffding exponent
    of the sampling error at θ, the right-hand side (:func:`rr_exponent`) Bernstein's exponent of the
    RR error at θ.

    References
    ----------
    [glance] condition (2); [glance] Fig. 1.
    """
    mu = check_probabilities("mu", mu)
    th = theta(epsilon, n_users, n_rounds, beta)
    return np.minimum(_kl(mu - th, mu), _kl(mu + th, mu)) >= rr_exponent(epsilon, th)


def condition2_bands(mu, epsilon, n_users: int, n_rounds: int, beta: float):
    """Figure 1 read column by column: where on a μ grid condition (2) holds, for each ε.

    Parameters
    ----------
    mu : array_like
        A strictly increasing grid from 0 to 1 (both ends included; (2) always holds there by the
        ``D = +∞`` conventions).
    epsilon : array_like
        Privacy budgets, one column each.

    Returns
    -------
    sparse_edge, dense_edge : ndarray, shape (len(epsilon),)
        The largest grid μ with (2) on all of ``[0, μ]`` and the smallest with (2) on all of ``[μ, 1]``
        (``1`` and ``0`` where (2) holds on the whole grid).
    two_bands : ndarray of bool
        True where (2) fails somewhere and holds exactly on the two bands ``μ ≤ sparse_edge`` and
        ``μ ≥ dense_edge`` (fails at every grid μ in between).

    References
    ----------
    [glance] condition (2); [glance] §5.2; [glance] Fig. 1.
    """
    mu = check_probabilities("mu", mu)
    if mu.ndim != 1 or mu.size < 3 or mu[0] != 0 or mu[-1] != 1 or np.any(np.diff(mu) <= 0):
        raise ValueError(
            "mu must be a strictly increasing 1-D grid from 0 to 1 (≥ 3 points); "
            f"got {mu.size} values in [{mu.min():g}, {mu.max():g}]"
        )
    eps = np.atleast_1d(_epsilons(epsilon, high=350.0))
    fails = ~dense_sparse_condition(mu[:, None], eps[None, :], n_users, n_rounds, beta)
    any_fail = fails.any(axis=0)
    first, last = np.argmax(fails, axis=0), mu.size - 1 - np.argmax(fails[::-1], axis=0)
    sparse_edge = np.where(any_fail, mu[np.maximum(first - 1, 0)], 1.0)
    dense_edge = np.where(any_fail, mu[np.minimum(last + 1, mu.size - 1)], 0.0)
    two_bands = any_fail & (fails.sum(axis=0) == last - first + 1)
    return sparse_edge, dense_edge, two_bands


# ---------------------------------------------------------------- Theorem 4: Harmony's lower bound


def harmony_variance_term(epsilon, n_users: int, n_rounds: int):
    """Theorem 4's variance term ``(T/N)·e^ε(e^ε + 1)/(e^ε − 1)²·(1 − (1/T)·e^ε/(e^ε + 1))``.

    It is the exact variance of the paper's Harmony (0/1 report in the sampled round, 0
    elsewhere; :class:`~ldp_helpers.mechanisms.harmony.Harmony`) on the stream μ_t = 1.

    References
    ----------
    [glance] Theorem 4; [glance] §4.1.
    """
    N, T = check_int("n_users", n_users, low=1), check_int("n_rounds", n_rounds, low=1)
    eps = _epsilons(epsilon, high=350.0)
    e, e_minus_1 = np.exp(eps), np.expm1(eps)
    # 1 − e/(T(e + 1)) = ((T − 1) + 1/(e + 1))/T: a sum of non-negative terms (at T = 1 the difference
    # 1 − e/(e + 1) lost 1.7e-4 at ε = 30 and every digit from ε ≈ 36.7 on); e(e + 1)/(e − 1)² as two
    # ratios near 1 (the product e(e + 1) overflowed T/N times it at ε = 350)
    return (e / e_minus_1) * ((e + 1) / e_minus_1) * ((T - 1) + 1 / (e + 1)) / N


def harmony_lower_bound(epsilon, n_users: int, n_rounds: int, beta):
    """Theorem 4: Harmony's error exceeds this, for some stream, "w.p. at least 1 − β" (0 < β < 1/(N+1)²).

    ``sqrt((T/N)·e^ε(e^ε + 1)/(e^ε − 1)²·(1 − (1/T)·e^ε/(e^ε + 1))·log(1/((N+1)²β)))``, the variance term
    being :func:`harmony_variance_term`.  (The notebook shows by simulation that the printed probability
    1 − β cannot be right.)

    References
    ----------
    [glance] Theorem 4.
    """
    variance = harmony_variance_term(epsilon, n_users, n_rounds)
    beta = check_real_array("beta", beta, low=0.0, high=1.0 / (n_users + 1) ** 2)
    # log(1/x) as −log x: no overflow at tiny β
    return np.sqrt(variance * -np.log((n_users + 1) ** 2 * beta))


# ---------------------------------------------------------------- Table 1 and Figure 2

#: Table 1 as slopes: (d ln Err / d ln ε as ε → 0, d ln Err / dε as ε → ∞).
#: O(1/ε) → −1; O(1) and Θ(1) → 0; O(1/√e^ε) → −1/2.
TABLE1_SLOPES = {
    ("Glance", "general"): (-1.0, 0.0),
    ("Glance", "dense/sparse"): (-1.0, -0.5),
    ("Harmony", "general"): (-1.0, 0.0),
    ("Harmony", "dense/sparse"): (-1.0, 0.0),
}


def bound_crossover(
    n_users: int, n_rounds: int, beta: float, *, low: float = 0.5, high: float = 30.0
) -> float:
    """The ε at which Glance's upper bound 2θ falls below Harmony's lower bound (Figure 2).

    Found by bisection (``scipy.optimize.brentq``) on ``2θ(ε) − LB(ε)`` over [low, high];
    raises ValueError if the two curves do not cross there.

    References
    ----------
    [glance] Fig. 2 (the caption's crossover); [glance] Theorem 4; [glance] Theorem 5.
    """
    from scipy.optimize import brentq

    low = check_real("low", low, low=0.0, high=700.0)
    high = check_real("high", high, low=low, high=700.0)

    def gap(eps):
        return float(
            glance_upper_bound(eps, n_users, n_rounds, beta)
            - harmony_lower_bound(eps, n_users, n_rounds, beta)
        )

    if not gap(low) > 0 > gap(high):
        raise ValueError(
            f"the bounds do not cross for epsilon in [{low:g}, {high:g}] "
            f"(N={n_users}, T={n_rounds}, beta={beta:g})"
        )
    return float(brentq(gap, low, high, xtol=1e-10))
