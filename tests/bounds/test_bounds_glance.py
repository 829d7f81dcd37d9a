"""Bounds of the Glance paper: Eq. (1), Claim 2, D(a‖b), condition (2), Theorems 4–5, the paper's settings.

Each bound is the formula as printed; its derived forms (Bernstein's deviation and exponent, the
Chernoff–Hoeffding exponent, the expanded logarithms) are kept here as equality tests."""

import math
import warnings

import numpy as np
import pytest
from scipy.special import rel_entr

from ldp_helpers.bounds import chernoff as ch
from ldp_helpers.bounds import glance as gb


def test_log_term_domain_is_a_clear_error():
    """N ≤ T log(4T/β) raises a ValueError naming n_users and the bound, never NaN or inf."""
    need = 10 * math.log(400)  # T = 10, β = 0.1: 59.9
    with pytest.raises(ValueError, match=r"n_users must be > T·log\(4T/β\) .* = 59.9"):
        gb.theta(1.0, 59, 10, 0.1)
    with pytest.raises(ValueError, match="n_users must be"):
        gb.sampling_bound(59, 10, 0.1)
    assert gb.log_term(60, 10, 0.1) == pytest.approx(-math.log(1 - need / 60))
    assert math.isfinite(gb.theta(1.0, 60, 10, 0.1))


@pytest.mark.parametrize(
    "kwargs, name",
    [(dict(beta=0.0), "beta"), (dict(beta=1.0), "beta"), (dict(n_rounds=0), "n_rounds")],
)
def test_log_term_rejects_bad_parameters(kwargs, name):
    """β outside (0, 1) and T < 1 are refused with the parameter's name."""
    args = dict(n_users=10_000, n_rounds=10, beta=0.1) | kwargs
    with pytest.raises(ValueError, match=name):
        gb.log_term(**args)


def test_theta_matches_eq1_written_out():
    """θ equals Eq. (1) evaluated term by term at one point."""
    eps, N, T, beta = 2.0, 10_000, 50, 0.1
    L = math.log(1 / (1 - T / N * math.log(4 * T / beta)))
    e = math.e**eps
    a = 2 * e / 9 * L
    expected = 2 * e / (3 * (e - 1)) * L + 3 / (e - 1) * math.sqrt(a**2 + 4 * a)
    assert gb.theta(eps, N, T, beta) == pytest.approx(expected, rel=1e-12)
    assert gb.glance_upper_bound(eps, N, T, beta) == pytest.approx(2 * expected, rel=1e-12)


def test_theta_limits():
    """θ·ε tends to 2L/3 + sqrt(4L²/9 + 8L) as ε → 0 and θ → 4L/3 as ε → ∞; θ decreases in ε."""
    N, T, beta = 10**6, 10, 0.1
    L = gb.log_term(N, T, beta)
    assert gb.theta(1e-6, N, T, beta) * 1e-6 == pytest.approx(
        2 * L / 3 + math.sqrt(4 * L**2 / 9 + 8 * L), rel=1e-5
    )
    assert gb.theta(300.0, N, T, beta) == pytest.approx(
        gb.theta_large_epsilon_limit(N, T, beta), rel=1e-9
    )
    assert np.all(np.diff(gb.theta(np.linspace(0.1, 30, 200), N, T, beta)) < 0)


def test_sampling_bound_is_sqrt_half_log_term():
    """Claim 2's bound is sqrt(L/2), ≈ sqrt(T log(4T/β)/(2N)) for large N."""
    N, T, beta = 10**7, 20, 0.05
    assert gb.sampling_bound(N, T, beta) == pytest.approx(
        math.sqrt(gb.log_term(N, T, beta) / 2), rel=1e-12
    )
    assert gb.sampling_bound(N, T, beta) == pytest.approx(
        math.sqrt(T * math.log(4 * T / beta) / (2 * N)), rel=1e-4
    )


def test_papers_kl_values_and_conventions():
    """The D(a‖b) of (2) (chernoff.bernoulli_kl with the paper's conventions) is the KL of Bernoullis inside (0,1)
    and +∞ for a ≤ 0, a ≥ 1, b ∈ {0, 1}; condition (2) uses exactly it."""
    a, b = np.array([0.1, 0.5, 0.9, 0.3]), np.array([0.2, 0.5, 0.4, 0.7])
    assert np.allclose(gb._kl(a, b), rel_entr(a, b) + rel_entr(1 - a, 1 - b), atol=1e-15)
    assert gb._kl(0.5, 0.5) == 0.0
    for a_, b_ in [(0.0, 0.3), (-0.1, 0.3), (1.0, 0.3), (1.2, 0.3), (0.4, 0.0), (0.4, 1.0)]:
        assert gb._kl(a_, b_) == np.inf == ch.bernoulli_kl(a_, b_, boundary_infinite=True)
    with pytest.raises(ValueError, match=r"b must be finite values in \[0, 1\]"):
        gb._kl(0.5, 1.5)


def test_condition2_edges_and_paper_statements():
    """Degenerate rounds satisfy (2); μ = 0.5 holds at ε = 2 and fails at ε = 2.5 (T=50, N=1e4, β=0.1)."""
    assert np.all(gb.dense_sparse_condition([0.0, 1.0], 3.0, 10_000, 50, 0.1))
    cond = gb.dense_sparse_condition(0.5, np.array([2.0, 2.5, 8.0]), 10_000, 50, 0.1)
    assert cond.tolist() == [True, False, False]
    assert np.all(gb.dense_sparse_condition(0.9995, np.linspace(1, 8, 29), 10_000, 50, 0.1))


def test_rr_exponent_is_the_printed_rhs():
    """The right-hand side of (2) is ((e^ε−1)²θ²/(2e^ε))/(1 + (e^ε−1)θ/3)."""
    eps, th = 1.7, 0.2
    e = math.exp(eps)
    assert gb.rr_exponent(eps, th) == pytest.approx(
        ((e - 1) ** 2 * th**2 / (2 * e)) / (1 + (e - 1) * th / 3), rel=1e-12
    )


def test_harmony_lower_bound_formula_limit_and_domain():
    """Theorem 4 as printed; → sqrt((T−1)/N · log(1/((N+1)²β))) as ε → ∞; β ≥ 1/(N+1)² refused."""
    N, T = 10**6, 10
    beta = 1 / (2 * (N + 1) ** 2)
    e = math.exp(3.0)
    direct = math.sqrt(T / N * e * (e + 1) / (e - 1) ** 2 * (1 - e / (T * (e + 1))) * math.log(2))
    assert gb.harmony_lower_bound(3.0, N, T, beta) == pytest.approx(direct, rel=1e-9)
    assert gb.harmony_lower_bound(60.0, N, T, beta) == pytest.approx(
        math.sqrt((T - 1) / N * math.log(2)), rel=1e-9
    )
    with pytest.raises(ValueError, match="beta must be finite values in"):
        gb.harmony_lower_bound(1.0, N, T, 1 / (N + 1) ** 2)


@pytest.mark.parametrize("epsilon", [0.0, -1.0, np.inf, np.nan, [1.0, np.nan]])
def test_bounds_reject_bad_epsilon(epsilon):
    """ε ≤ 0 or non-finite (also inside an array) is a clear error, never NaN."""
    with pytest.raises(ValueError, match="epsilon must be"):
        gb.theta(epsilon, 10_000, 10, 0.1)


def test_condition2_bands_match_a_brute_force_scan_of_each_column():
    """Edges and two_bands agree with scanning dense_sparse_condition column by column; (2) everywhere → (1, 0, False)."""
    mu, eps = np.linspace(0, 1, 201), np.array([0.5, 2.0, 3.0, 8.0])
    sparse, dense, two = gb.condition2_bands(mu, eps, 10_000, 10, 0.1)
    for j, e in enumerate(eps):
        holds = gb.dense_sparse_condition(mu, e, 10_000, 10, 0.1)
        if holds.all():
            assert (sparse[j], dense[j], two[j]) == (1.0, 0.0, False)
            continue
        bad = np.flatnonzero(~holds)
        assert sparse[j] == mu[bad[0] - 1] and dense[j] == mu[bad[-1] + 1]
        assert two[j] == (bad.size == bad[-1] - bad[0] + 1)
    assert two[1:].all() and sparse[-1] < 0.01 and dense[-1] > 0.99  # only thin bands at eps = 8
    with pytest.raises(ValueError, match="mu must be a strictly increasing 1-D grid from 0 to 1"):
        gb.condition2_bands(np.linspace(0.1, 1, 10), eps, 10_000, 10, 0.1)


def test_theta_and_condition2_rhs_are_bernstein_for_the_rr_error():
    """One reporter's RR error w − v has variance e^ε/(e^ε−1)² and |w − v| ≤ e^ε/(e^ε−1) (exact, both v);
    θ/2 is Bernstein's deviation at exponent L (Eq. 1) and (2)'s right-hand side is Bernstein's exponent."""
    eps = np.array([1e-3, 0.3, 1.0, 4.0, 12.0, 300.0])
    e, em1 = np.exp(eps), np.expm1(eps)
    p, w1, w0 = (
        e / (e + 1),
        e / em1,
        -1 / em1,
    )  # Pr[y=1 | v=1]; the unbiased estimate w for y = 1, 0
    var, bound = e / em1**2, e / em1
    for v, py in ((1, p), (0, 1 - p)):
        assert np.allclose(py * w1 + (1 - py) * w0, v, rtol=1e-12, atol=1e-12)
        assert np.allclose(py * (w1 - v) ** 2 + (1 - py) * (w0 - v) ** 2, var, rtol=1e-9)
        assert np.all(np.maximum(abs(w1 - v), abs(w0 - v)) <= bound * (1 + 1e-15))
    N, T, beta = 10_000, 50, 0.1
    L = gb.log_term(N, T, beta)
    assert np.allclose(
        gb.theta(eps, N, T, beta) / 2, ch.bernstein_deviation(L, var, bound), rtol=1e-12
    )
    assert np.allclose(
        gb.rr_exponent(eps[:-1], 0.05),
        ch.bernstein_exponent(0.05, var[:-1], bound[:-1]),
        rtol=1e-12,
    )


def test_sparse_round_rr_tail_is_the_binomial_bernstein_bound():
    """In a round with μ̃ = 0 and K reporters, exp(−K·RHS(2)(s)) is tail_comparison's Bernstein bound for Bin(K, q) at δ = s(e^ε − 1)."""
    eps, K, s = 2.0, 200, np.linspace(0.01, 0.5, 50)
    q = 1 / (math.exp(eps) + 1)
    bound, exact, _ = ch.tail_comparison("bernstein_upper", K, q, s * math.expm1(eps))
    assert np.allclose(bound, np.exp(-K * gb.rr_exponent(eps, s)), rtol=1e-12) and np.all(
        bound >= exact
    )


def test_condition2_lhs_is_the_chernoff_hoeffding_exponent():
    """exp(−n·D(μ ± θ‖μ)) is the Chernoff–Hoeffding bound on the sampling error (kl_upper / kl_lower)."""
    mu, th, n = 0.3, 0.1, 200
    assert ch.kl_upper(th, n, mu) == pytest.approx(math.exp(-n * gb._kl(mu + th, mu)), rel=1e-14)
    assert ch.kl_lower(th, n, mu) == pytest.approx(math.exp(-n * gb._kl(mu - th, mu)), rel=1e-14)


def test_harmony_variance_term_is_the_papers_harmony_at_mu_one():
    """Theorem 4's variance term equals the exact variance of §4.1's Harmony on μ_t = 1; the lower bound uses it."""
    from ldp_helpers.bounds.glance import harmony_lower_bound, harmony_variance_term
    from ldp_helpers.mechanisms.harmony import Harmony
    from ldp_helpers.simulate.populations import constant_population

    for eps, T in ((0.3, 5), (4.0, 10), (9.0, 40)):
        assert harmony_variance_term(eps, 500, T) == pytest.approx(
            Harmony(eps, T).variance(constant_population(1.0, 500, T))[0], rel=1e-12
        )
    beta = 1 / (2 * 501**2)
    assert harmony_lower_bound(2.0, 500, 10, beta) == pytest.approx(
        math.sqrt(harmony_variance_term(2.0, 500, 10) * math.log(2)), rel=1e-12
    )


# ---------------------------------------------------------------- the derived forms, kept as equality tests

EPS_WIDE = np.r_[1e-6, 1e-3, np.linspace(0.05, 30, 300), 100.0, 300.0, 699.0]


@pytest.mark.parametrize(
    "N, T, beta", [(10_000, 50, 0.1), (10**6, 10, gb.theorem4_beta(10**6)), (61, 10, 0.1)]
)
def test_theta_is_twice_bernsteins_deviation_at_exponent_l(N, T, beta):
    """Eq. (1) as printed equals the Bernstein form θ = 2·bernstein_deviation(L, e^ε, e^ε)/(e^ε − 1) (the form the
    module used before), to 1e-12 relative, from ε = 1e-6 to 699 and with L large (N just above T log(4T/β))."""
    L, e = gb.log_term(N, T, beta), np.exp(EPS_WIDE)
    derived = 2 * ch.bernstein_deviation(L, e, e) / np.expm1(EPS_WIDE)
    np.testing.assert_allclose(gb.theta(EPS_WIDE, N, T, beta), derived, rtol=1e-12)
    assert np.all(np.isfinite(gb.theta(EPS_WIDE, N, T, beta)))


def test_condition2_rhs_and_lhs_are_the_derived_exponents():
    """RHS of (2) = Bernstein's exponent at t = (e^ε − 1)θ with σ² = M = e^ε; the whole condition equals the form
    built from chernoff's bernstein_exponent and the KL divergence, point by point on Figure 1's grid."""
    eps, mu = np.linspace(0.05, 10, 80), np.linspace(0, 1, 161)
    for N, T, beta in gb.FIG1.values():
        th = gb.theta(eps, N, T, beta)
        e = np.exp(eps)
        rhs = ch.bernstein_exponent(np.expm1(eps) * th, e, e)
        np.testing.assert_allclose(gb.rr_exponent(eps, th), rhs, rtol=1e-12)
        lhs = np.minimum(
            ch.bernoulli_kl(mu[:, None] - th, mu[:, None], boundary_infinite=True),
            ch.bernoulli_kl(mu[:, None] + th, mu[:, None], boundary_infinite=True),
        )
        np.testing.assert_array_equal(
            gb.dense_sparse_condition(mu[:, None], eps[None, :], N, T, beta), lhs >= rhs
        )


def test_log_term_and_harmony_bound_equal_their_expanded_logarithms():
    """L = −log1p(−x) equals log(1/(1 − x)); Theorem 4's log(1/((N+1)²β)) equals −2 log(N+1) − log β (the
    former form) to 1e-12 relative."""
    for N, T, beta in (gb.SEC6, *gb.FIG1.values(), gb.FIG2):
        x = T * math.log(4 * T / beta) / N
        assert gb.log_term(N, T, beta) == pytest.approx(math.log(1 / (1 - x)), rel=1e-9)
    N, T = gb.FIG2.n_users, gb.FIG2.n_rounds
    eps = np.linspace(0.5, 50, 200)
    for beta in (gb.FIG2.beta, 1e-30, 1e-300):
        former = np.sqrt(
            gb.harmony_variance_term(eps, N, T) * (-2 * math.log(N + 1) - np.log(beta))
        )
        np.testing.assert_allclose(gb.harmony_lower_bound(eps, N, T, beta), former, rtol=1e-12)


@pytest.mark.parametrize("N, beta", [(10**6, 0.5), (10_000, 0.25), (100, 0.999)])
def test_theorem4_beta_is_a_share_of_the_largest_admissible_value(N, beta):
    """β₄ = β/(N+1)², so (N+1)²β₄ = β: inside Theorem 4's 0 < β₄ < 1/(N+1)², and log(1/((N+1)²β₄)) = log(1/β)."""
    beta4 = gb.theorem4_beta(N, beta)
    assert 0 < beta4 < 1 / (N + 1) ** 2
    assert (N + 1) ** 2 * beta4 == pytest.approx(beta, rel=1e-15)
    eps = np.array([1.0, 4.0])
    np.testing.assert_allclose(
        gb.harmony_lower_bound(eps, N, 10, beta4) ** 2,
        gb.harmony_variance_term(eps, N, 10) * math.log(1 / beta),
        rtol=1e-12,
    )


def test_the_papers_settings():
    """Figure 1: T = 10, β = 0.1, N = 10⁴ (caption) and 10⁵ (text); Figure 2: N = 10⁶, T = 10, β = 1/(2(N+1)²);
    §6: T = 50, N = 10⁴, β = 0.1; each unpacks into the bounds in their argument order."""
    assert gb.FIG1 == {"caption": (10_000, 10, 0.1), "text": (100_000, 10, 0.1)}
    assert gb.FIG2 == (10**6, 10, 1 / (2 * (10**6 + 1) ** 2)) and gb.FIG2.beta == gb.theorem4_beta(
        10**6
    )
    assert gb.SEC6 == (10_000, 50, 0.1) and gb.SEC6.shape == (10_000, 50)
    assert gb.theta(2.0, *gb.SEC6) == gb.theta(2.0, n_users=10_000, n_rounds=50, beta=0.1)
    assert gb.bound_crossover(*gb.FIG2) == pytest.approx(7.8217, abs=1e-4)  # the caption says 8
    with pytest.raises(ValueError, match="n_users"):
        gb.theorem4_beta(0)
    with pytest.raises(ValueError, match="high"):
        gb.bound_crossover(*gb.FIG2, low=5.0, high=2.0)


def test_glance_domain_at_tiny_beta_and_many_rounds_is_finite():
    """β = 1e-300, T = 1e8: 4T/β overflows; log_term refused N = 1e12 as "n_users must be > ... = inf" though the
    domain is N > T·(log 4T − log β) ≈ 7.1e10."""
    T, beta = 10**8, 1e-300
    x = T * (math.log(4 * T) - math.log(beta)) / 10**12
    assert gb.log_term(10**12, T, beta) == pytest.approx(-math.log1p(-x), rel=1e-12)


@pytest.mark.parametrize("epsilon, theta", [(10.0, 1e200), (350.0, 1e50)])
def test_rr_exponent_of_a_huge_theta_is_its_finite_limit(epsilon, theta):
    """(e^ε − 1)θ beyond 1e154: its square overflowed, giving ∞ (ε = 10) or ∞/∞ = NaN (ε = 350) where the exponent
    is about 3(e^ε − 1)θ/(2e^ε), finite; beyond 1e308 it is ∞."""
    x = math.expm1(epsilon) * theta
    expected = (x / (2 * math.exp(epsilon))) * (x / (1 + x / 3))
    assert gb.rr_exponent(epsilon, theta) == pytest.approx(expected, rel=1e-12)
    assert np.isposinf(gb.rr_exponent(350.0, 1e300))
    assert gb.rr_exponent([1.0, 2.0], 0.5).tolist() == pytest.approx(
        [
            ((math.expm1(e) * 0.5) ** 2 / (2 * math.exp(e))) / (1 + math.expm1(e) * 0.5 / 3)
            for e in (1, 2)
        ]
    )


@pytest.mark.parametrize("mu", [5e-324, 1e-310])
def test_condition2_at_a_subnormal_mu_holds_without_overflow(mu):
    """D(μ + θ‖μ) at a subnormal μ: (μ + θ)/μ overflowed (a warning) where D ≈ θ·log(θ/μ) is finite;
    D(μ − θ‖μ) = ∞ (μ − θ < 0), so (2) holds, as at μ = 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gb.dense_sparse_condition(mu, 1.0, 1000, 10, 0.1)
        assert gb.dense_sparse_condition(0.0, 1.0, 1000, 10, 0.1)


@pytest.mark.parametrize(
    "epsilon, n_users, n_rounds",
    [(30.0, 1000, 1), (36.0, 1000, 1), (40.0, 1000, 1), (1.0, 1000, 1), (1.0, 1000, 50)]
    + [(40.0, 1000, 3), (350.0, 1, 10**6), (1e-12, 10**9, 7)],
)
def test_harmony_variance_term_is_within_1e_14_of_mpmath_at_any_budget(epsilon, n_users, n_rounds):
    """The factor 1 − e^ε/(T(e^ε + 1)) is 1/(e^ε + 1) at T = 1: as a difference it was 1.7e-4 off at ε = 30 and
    0 at ε = 40 (against 4.2e-21); now a sum of positive terms.  e^ε(e^ε + 1) overflowed at ε = 350 (inf for
    1e6): now two ratios near 1."""
    import mpmath

    with mpmath.workdps(50):
        e, T, N = mpmath.exp(mpmath.mpf(epsilon)), n_rounds, n_users
        exact = float(T / mpmath.mpf(N) * e * (e + 1) / (e - 1) ** 2 * (1 - e / (T * (e + 1))))
    assert float(gb.harmony_variance_term(epsilon, n_users, n_rounds)) == pytest.approx(
        exact, rel=1e-14, abs=0.0
    )
