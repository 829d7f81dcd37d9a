"""Error bounds of the Glance paper ([glance]): θ, the sampling bound, condition (2), Theorems 4–5.

All bounds share the logarithmic term of [glance] Eq. (1)::

    L(N, T, β) = log 1 / (1 − (T/N)·log(4T/β)),    defined only for N > T·log(4T/β),

which is ≈ (T/N)·log(4T/β) when N is large.  With ``a = (2e^ε/9)·L``::

    θ = 2e^ε L / (3(e^ε − 1)) + 3/(e^ε − 1) · sqrt(a² + 4a)                       (Eq. 1)

bounds the randomized-response part ``max_t |μ̂_t − μ̃_t|`` (Claim 1) and
``sqrt(L/2)`` bounds the sampling part ``max_t |μ̃_t − μ_t|`` (Claim 2), each w.p. 1 − β/2.
Two limits matter for Table 1: as ε → 0, θ ≈ 2√2·sqrt(L)/ε (the O(1/ε) rate); for
``1 ≪ e^ε ≪ 1/L``, θ ≈ 2√2·sqrt(L/e^ε) (the O(1/√e^ε) rate); and for ``e^ε ≫ 1/L`` at fixed N, T,
θ → 4L/3, a positive constant (see :func:`theta_large_epsilon_limit`).

Every function accepts numpy arrays of ε (and μ) and validates its domain with a ValueError.
"""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers._validation import check_above, check_int, check_probability, check_real_array
from ldp_helpers.bounds import chernoff

# ---------------------------------------------------------------- domain and Eq. (1)


def log_term(n_users: int, n_rounds: int, beta: float) -> float:
    """``L = log(1/(1 − (T/N) log(4T/β)))``, the logarithmic term of Eq. (1) and Claim 2.

    Raises ValueError outside the domain ``N > T·log(4T/β)`` (where L would be infinite or NaN).
    """
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    n_users = check_int("n_users", n_users, low=1)
    need = n_rounds * math.log(4 * n_rounds / beta)
    check_above("n_users", n_users, need, what=f"T·log(4T/β) for T={n_rounds}, beta={beta:g} (domain of Eq. (1))")
    return -math.log1p(-need / n_users)


def _epsilons(epsilon) -> np.ndarray:
    return check_real_array("epsilon", epsilon, low=0.0, high=700.0)  # e^ε overflows beyond ~709


def theta(epsilon, n_users: int, n_rounds: int, beta: float):
    """θ of Eq. (1): Claim 1's bound on the randomized-response error ``max_t |μ̂_t − μ̃_t|``.

    Eq. (1) in Bernstein's form: θ/2 is the deviation at which the RR error's Bernstein exponent
    (:func:`rr_exponent`) equals L, ``θ = 2·bernstein_deviation(L, e^ε, e^ε)/(e^ε − 1)`` — the two
    expressions agree term by term (with ``a = 2e^εL/9``, ``3 sqrt(a² + 4a) = 2 sqrt((e^εL/3)² + 2e^εL)``).
    The proof is omitted in the paper; this is what Eq. (1)'s constants imply.

    References
    ----------
    [glance] Claim 1 (holds w.p. 1 − β/2 for N > T log(4T/β)); [glance] Eq. (1).
    """
    L = log_term(n_users, n_rounds, beta)
    eps = _epsilons(epsilon)
    e = np.exp(eps)
    return 2 * chernoff.bernstein_deviation(L, e, e) / np.expm1(eps)


def theta_large_epsilon_limit(n_users: int, n_rounds: int, beta: float) -> float:
    """``lim_{ε→∞} θ = 4L/3``: the RR bound does not vanish at fixed N, T (sqrt(a²+4a) → a + 2)."""
    return 4 * log_term(n_users, n_rounds, beta) / 3


def sampling_bound(n_users: int, n_rounds: int, beta: float) -> float:
    """Claim 2: ``max_t |μ̃_t − μ_t| < sqrt(L/2)`` w.p. 1 − β/2 (independent of ε).

    References
    ----------
    [glance] Claim 2 (Hoeffding over the ≈ N/T users sampled in each round).
    """
    return math.sqrt(0.5 * log_term(n_users, n_rounds, beta))


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


def bernoulli_kl(a, b):
    """``D(a‖b)`` with the paper's conventions: ``+∞`` whenever ``a ≤ 0``, ``a ≥ 1``, ``b = 0`` or ``b = 1``.

    :func:`ldp_helpers.bounds.chernoff.bernoulli_kl` with ``boundary_infinite=True`` (a deviation to or
    beyond the boundary, or a degenerate round, is treated as impossible; note that at ``a = 0`` this
    differs from the mathematical value ``−log(1 − b)``).

    References
    ----------
    [glance] text after condition (2).
    """
    return chernoff.bernoulli_kl(a, b, boundary_infinite=True)


def rr_exponent(epsilon, theta_value):
    """Right-hand side of condition (2): ``((e^ε−1)²θ²/(2e^ε)) / (1 + (e^ε−1)θ/3)``.

    Bernstein's exponent (:func:`~ldp_helpers.bounds.chernoff.bernstein_exponent`) of one reporter's error
    ``w − v`` of the unbiased RR estimate ``w = ((e^ε+1)y − 1)/(e^ε−1)``: its variance is ``e^ε/(e^ε−1)²``
    whatever v, and ``|w − v| ≤ e^ε/(e^ε−1)``.  Scaled by ``e^ε − 1`` (t = (e^ε−1)θ, σ² = M = e^ε) so that
    nothing overflows before the result does.

    References
    ----------
    [glance] condition (2), right-hand side.
    """
    eps = _epsilons(epsilon)
    th = check_real_array("theta_value", theta_value, low=0.0)
    e = np.exp(eps)
    return chernoff.bernstein_exponent(np.expm1(eps) * th, e, e)


def dense_sparse_condition(mu, epsilon, n_users: int, n_rounds: int, beta: float):
    """Condition (2): ``min{D(μ−θ‖μ), D(μ+θ‖μ)} ≥ RHS(θ)``, broadcast over μ and ε.

    True where the sampling error is provably smaller than the randomized-response error
    (very dense or very sparse rounds at moderately large ε): the Chernoff–Hoeffding exponent of the
    sampling error at θ (:func:`~ldp_helpers.bounds.chernoff.kl_upper`, ``kl_lower``) is at least the
    Bernstein exponent of the RR error at θ (:func:`rr_exponent`).

    References
    ----------
    [glance] condition (2); [glance] Fig. 1.
    """
    mu = check_real_array("mu", mu, low=0.0, high=1.0, low_open=False, high_open=False)
    th = theta(epsilon, n_users, n_rounds, beta)
    mu, th = np.broadcast_arrays(mu, th)
    lhs = np.minimum(bernoulli_kl(mu - th, mu), bernoulli_kl(mu + th, mu))
    return lhs >= rr_exponent(np.broadcast_to(_epsilons(epsilon), th.shape), th)


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
    mu = check_real_array("mu", mu, low=0.0, high=1.0, low_open=False, high_open=False)
    if mu.ndim != 1 or mu.size < 3 or mu[0] != 0 or mu[-1] != 1 or np.any(np.diff(mu) <= 0):
        raise ValueError(f"mu must be a strictly increasing 1-D grid from 0 to 1 (≥ 3 points); got {mu.size} values in [{mu.min():g}, {mu.max():g}]")
    eps = np.atleast_1d(_epsilons(epsilon))
    fails = ~dense_sparse_condition(mu[:, None], eps[None, :], n_users, n_rounds, beta)
    any_fail = fails.any(axis=0)
    first, last = np.argmax(fails, axis=0), mu.size - 1 - np.argmax(fails[::-1], axis=0)
    sparse_edge = np.where(any_fail, mu[np.maximum(first - 1, 0)], 1.0)
    dense_edge = np.where(any_fail, mu[np.minimum(last + 1, mu.size - 1)], 0.0)
    two_bands = any_fail & (fails.sum(axis=0) == last - first + 1)
    return sparse_edge, dense_edge, two_bands


# ---------------------------------------------------------------- Harmony's lower bound


def harmony_variance_term(epsilon, n_users: int, n_rounds: int):
    """Theorem 4's variance term ``(T/N)·e^ε(e^ε+1)/(e^ε−1)²·(1 − e^ε/(T(e^ε+1)))``.

    It is the exact variance of the paper's Harmony (0/1 report in the sampled round, 0
    elsewhere; :class:`~ldp_helpers.mechanisms.harmony.Harmony`) on the stream μ_t = 1.

    References
    ----------
    [glance] Theorem 4; [glance] §4.1.
    """
    n_users = check_int("n_users", n_users, low=1)
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    eps = _epsilons(epsilon)
    e, em1 = np.exp(eps), np.expm1(eps)
    return n_rounds / n_users * e * (e + 1) / em1**2 * (1 - e / (n_rounds * (e + 1)))


def harmony_lower_bound(epsilon, n_users: int, n_rounds: int, beta: float):
    """Theorem 4: Harmony's error exceeds this, for some stream, "w.p. at least 1 − β".

    ``sqrt((T/N)·e^ε(e^ε+1)/(e^ε−1)²·(1 − e^ε/(T(e^ε+1)))·log(1/((N+1)²β)))``, for
    ``0 < β < 1/(N+1)²``.  (The notebook shows by simulation that the printed probability
    1 − β cannot be right.)

    References
    ----------
    [glance] Theorem 4.
    """
    n_users = check_int("n_users", n_users, low=1)
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    beta = check_real_array("beta", beta, low=0.0, high=1.0 / (n_users + 1) ** 2)
    if beta.ndim == 0:
        beta = float(beta)
    log_factor = -2 * math.log(n_users + 1) - np.log(beta)
    return np.sqrt(harmony_variance_term(epsilon, n_users, n_rounds) * log_factor)


# ---------------------------------------------------------------- Corollaries 1–5 and Table 1

#: Table 1 as slopes: (d ln Err / d ln ε as ε → 0, d ln Err / dε as ε → ∞).
#: O(1/ε) → −1; O(1) and Θ(1) → 0; O(1/√e^ε) → −1/2.
TABLE1_SLOPES = {
    ("Glance", "general"): (-1.0, 0.0),
    ("Glance", "dense/sparse"): (-1.0, -0.5),
    ("Harmony", "general"): (-1.0, 0.0),
    ("Harmony", "dense/sparse"): (-1.0, 0.0),
}


def corollary_rate(corollary: int, epsilon, n_users: int, n_rounds: int, beta: float):
    """The rate of Corollary 1–5 (no constants), interpolated smoothly between its two limits.

    Scale: ``sqrt(T log(T/β)/N)`` (Corollaries 1, 3, 5) or ``sqrt((T/N) log(1/((N+1)²β)))``
    (Corollaries 2, 4).  ε-factor: ``coth(ε/2)`` (→ 2/ε as ε → 0, → 1 as ε → ∞) for 1–4 and
    ``1/(2 sinh(ε/2))`` (→ 1/ε, → e^{−ε/2}) for Corollary 5's dense/sparse Glance.

    References
    ----------
    [glance] Corollaries 1–5; [glance] Table 1.
    """
    corollary = check_int("corollary", corollary, low=1, high=5)
    n_users = check_int("n_users", n_users, low=1)
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    eps = _epsilons(epsilon)
    if corollary in (2, 4):
        beta = check_real_array("beta", beta, low=0.0, high=1.0 / (n_users + 1) ** 2)
        scale = np.sqrt(n_rounds / n_users * (-2 * math.log(n_users + 1) - np.log(beta)))
    else:
        beta = check_probability(beta, "beta", open_low=True, open_high=True)
        scale = math.sqrt(n_rounds * math.log(n_rounds / beta) / n_users)
    factor = 1 / (2 * np.sinh(eps / 2)) if corollary == 5 else 1 / np.tanh(eps / 2)
    return scale * factor


def bound_crossover(n_users: int, n_rounds: int, beta: float, *, low: float = 0.5, high: float = 30.0) -> float:
    """The ε at which Glance's upper bound 2θ falls below Harmony's lower bound (Figure 2).

    Found by bisection (``scipy.optimize.brentq``) on ``2θ(ε) − LB(ε)`` over [low, high];
    raises ValueError if the two curves do not cross there.
    """
    from scipy.optimize import brentq

    def gap(eps):
        return float(glance_upper_bound(eps, n_users, n_rounds, beta) - harmony_lower_bound(eps, n_users, n_rounds, beta))

    if not gap(low) > 0 > gap(high):
        raise ValueError(f"the bounds do not cross for epsilon in [{low:g}, {high:g}] (N={n_users}, T={n_rounds}, beta={beta:g})")
    return float(brentq(gap, low, high, xtol=1e-10))
