"""Theory of m-shot reporting: f(m, r), bound (2), g, c*, m* and the rates of Theorems 6–9."""

import math

import numpy as np
import pytest

from ldp_helpers.bounds import chernoff
from ldp_helpers.bounds import m_shot as ms
from ldp_helpers.bounds.m_shot import (
    MAX_EXPONENT,
    METHODS,
    _argmax_g,
    alpha_at_beta,
    alpha_bound,
    alpha_condition,
    alpha_for_method,
    alpha_t_shot_closed_form,
    alpha_vs_assumption,
    c_star,
    deviation_bound,
    f_decreasing_in_r,
    f_mr,
    g,
    m_star,
    m_star_regime,
    m_star_table,
    method_assumption,
    method_m,
    min_users_for_condition,
    printed_assumption,
    rate_exponent,
)
from ldp_helpers.mechanisms.m_shot import MShotReporting, round_channel_probabilities
from ldp_helpers.mechanisms.randomized_response import q_bin_gap, q_bin_probabilities


@pytest.mark.parametrize(
    "epsilon, T, m, r",
    [(1.0, 100, 1, 0.0), (10.0, 100, 6, 0.0), (3.0, 20, 7, 0.3), (50.0, 30, 30, 0.5)],
)
def test_f_is_the_chernoff_exponent_of_the_round_channel(epsilon, T, m, r):
    """f(m, r)·ε/T = (p − q)²/p with the p, q of §4.1 (appendix 1's last step)."""
    ch = MShotReporting(epsilon, T, m, r).round_channel
    assert f_mr(m, r, epsilon=epsilon, n_rounds=T) * epsilon / T == pytest.approx(
        (ch.p - ch.q) ** 2 / ch.p, rel=1e-12
    )


@pytest.mark.parametrize(
    "epsilon, T, m, r", [(1.0, 100, 1, 0.0), (3.0, 20, 7, 0.3), (50.0, 30, 29, 0.9)]
)
def test_condition_1_is_chernoff_delta_below_one(epsilon, T, m, r):
    """Condition (1)'s bound equals q/(p − q): δ = α(p − q)/q < 1 at Φ0 = 0."""
    ch = MShotReporting(epsilon, T, m, r).round_channel
    assert alpha_condition(m, r, epsilon=epsilon, n_rounds=T) == pytest.approx(
        ch.q / (ch.p - ch.q), rel=1e-12
    )


def test_f_decreases_in_r_except_at_m_equal_T():
    """r* = 0: f strictly decreases in r for m < T and does not depend on r at m = T (Eq. 4)."""
    rs = np.linspace(0, 1, 11)
    for m in (1, 5, 19):
        values = [f_mr(m, r, epsilon=4.0, n_rounds=20) for r in rs]
        assert np.all(np.diff(values) < 0)
    assert len({f_mr(20, r, epsilon=4.0, n_rounds=20) for r in rs}) == 1


def test_f_at_r0_is_g_of_m_over_epsilon():
    """f(m, 0) = g(m/ε) for every m."""
    for m in range(1, 31):
        assert f_mr(m, 0.0, epsilon=7.0, n_rounds=30) == pytest.approx(g(m / 7.0), rel=1e-12)


def test_c_star_maximizes_g():
    """g rises below c* ≈ 0.574 and falls above it: c* is the maximizer (the paper writes argmin)."""
    c = c_star()
    assert c == pytest.approx(0.5743, abs=1e-4)
    left, right = np.linspace(0.01, c, 400), np.linspace(c, 50, 400)
    assert np.all(np.diff(g(left)) > 0) and np.all(np.diff(g(right)) < 0)
    assert g(c) > g(c - 1e-3) and g(c) > g(c + 1e-3)


def test_g_is_stable_at_the_ends():
    """g(x) ≈ x as x → 0 and ≈ 1/(2x) as x → ∞, without overflow."""
    assert g(1e-3) == pytest.approx(1e-3, rel=1e-6)
    assert g(1e6) == pytest.approx(0.5e-6, rel=1e-5)
    with pytest.raises(
        ValueError,
        match=r"x \(m/epsilon\) must be finite values in \(0, inf\); got an array containing 0.0",
    ):
        g(np.array([0.5, 0.0]))
    with pytest.raises(
        ValueError,
        match=r"x \(m/epsilon\) must be a non-empty array of real numbers; got an empty array$",
    ):
        g(np.array([]))  # the description is shown as is, not quoted


def test_m_star_eq7_agrees_with_brute_force():
    """Eq. (7) gives the same m* as maximizing g(m/ε) over all m ∈ [T]."""
    for T in (1, 2, 3, 10, 57, 100, 1000):
        for epsilon in np.geomspace(0.05, 5 * T, 120):
            assert m_star(epsilon, T) == _argmax_g(epsilon, T), (epsilon, T)


def test_m_star_regimes():
    """ε ≤ 1/c*: m* = 1; ε ≥ T/c*: m* = T; the paper's ε = 10, T = 100 gives 6."""
    c = c_star()
    assert m_star(0.99 / c, 100) == 1 and m_star_regime(0.99 / c, 100) == 0
    assert m_star(100 / c, 100) == 100 and m_star_regime(100 / c, 100) == 2
    assert m_star(10.0, 100) == 6 and m_star(1.0, 100) == 1 and m_star(200.0, 100) == 100
    assert m_star(100.0, 100) == 57  # ε = T is the middle regime, not m* = T


def test_alpha_bound_inverts_bound_2():
    """Bound (2) evaluated at alpha_bound(β) equals β."""
    kw = dict(m=6, r=0.0, epsilon=10.0, n_rounds=100, n_users=100_000)
    alpha = alpha_bound(0.05, **kw)
    assert deviation_bound(alpha, **kw) == pytest.approx(0.05, rel=1e-10)


def test_bounds_refuse_arguments_outside_their_assumptions():
    """Condition (1), Theorem 7's ε/T < 1 and the parameter ranges are enforced with clear errors."""
    with pytest.raises(ValueError, match="violates condition"):
        alpha_bound(0.05, m=1, r=0.0, epsilon=1.0, n_rounds=100, n_users=10_000)
    with pytest.raises(ValueError, match=r"alpha must be in \(0, "):
        deviation_bound(0.6, m=1, r=0.0, epsilon=1.0, n_rounds=100, n_users=10_000)
    with pytest.raises(ValueError, match="Theorem 7 assumes"):
        alpha_t_shot_closed_form(0.05, epsilon=100.0, n_rounds=100, n_users=10_000)
    with pytest.raises(ValueError, match=r"m must be an integer in \[1, 10\]"):
        f_mr(11, 0.0, epsilon=1.0, n_rounds=10)
    with pytest.raises(ValueError, match=r"r must be in \[0, 1\]"):
        f_mr(1, 1.5, epsilon=1.0, n_rounds=10)
    with pytest.raises(ValueError, match=r"beta must be in \(0, 1\)"):
        alpha_bound(1.0, m=1, r=0.0, epsilon=1.0, n_rounds=10, n_users=10)
    with pytest.raises(ValueError, match="method must be one of"):
        rate_exponent("2-shot", 0.5)


@pytest.mark.parametrize("epsilon, T", [(0.5, 10), (5.0, 100), (50.0, 1000)])
def test_t_shot_closed_form_upper_bounds_theorem_5(epsilon, T):
    """Appendix 3's explicit α (with e/2) is never below the exact α of bound (2) at m = T."""
    exact = alpha_bound(0.05, m=T, r=0.0, epsilon=epsilon, n_rounds=T, n_users=10**6)
    assert alpha_t_shot_closed_form(0.05, epsilon=epsilon, n_rounds=T, n_users=10**6) >= exact


@pytest.mark.parametrize(
    "method, b",
    [
        ("m*-shot", 0.25),
        ("m*-shot", 0.5),
        ("m*-shot", 0.75),
        ("T-shot", 0.0),
        ("T-shot", 0.5),
        ("1-shot", 0.0),
    ],
)
def test_theorem_9_rates_from_bound_2(method, b):
    """With ε = T^b, α/√log(2T/β) from bound (2) grows like T^e, e from Theorem 9 (fit over 10^3..10^6)."""
    Ts = np.array([10**3, 10**4, 10**5, 10**6])
    alphas = []
    for T in Ts:
        epsilon = 2.0 * T**b  # 2·T^b: keeps 1-shot at ε = 2 > 1/c* and T-shot below ε/T = 1
        m = method_m(method, epsilon, int(T))
        alphas.append(
            alpha_bound(0.05, m=m, r=0.0, epsilon=epsilon, n_rounds=int(T), n_users=10**15)
            / math.sqrt(math.log(2 * T / 0.05))
        )
    slope = np.polyfit(np.log(Ts), np.log(alphas), 1)[0]
    assert slope == pytest.approx(rate_exponent(method, b), abs=0.02)


def test_m_star_shot_is_never_worse_than_1_shot_or_t_shot():
    """Theorem 8 vs 6/7: the certified α of m*-shot is the smallest; 1-shot at large ε is refused."""
    for epsilon in (0.5, 2.0, 5.0):
        alphas = {
            meth: alpha_for_method(meth, 0.05, epsilon=epsilon, n_rounds=200, n_users=10**9)
            for meth in ("1-shot", "m*-shot", "T-shot")
        }
        assert alphas["m*-shot"] <= min(alphas["1-shot"], alphas["T-shot"]) * (1 + 1e-12), (
            epsilon,
            alphas,
        )
    assert alpha_for_method(
        "m*-shot", 0.05, epsilon=400.0, n_rounds=200, n_users=10**9
    ) < alpha_for_method("T-shot", 0.05, epsilon=400.0, n_rounds=200, n_users=10**9) * (1 + 1e-12)
    with pytest.raises(
        ValueError, match="violates condition"
    ):  # Theorem 6's assumption fails as ε grows
        alpha_for_method("1-shot", 0.05, epsilon=100.0, n_rounds=200, n_users=10**9)


def test_method_m_names_the_special_cases():
    """1-shot → 1, T-shot → T, m*-shot → Eq. (7); unknown names are refused."""
    assert [method_m(name, 10.0, 100) for name in METHODS] == [1, 6, 100]
    with pytest.raises(ValueError, match="method must be one of"):
        method_m("2-shot", 10.0, 100)
    with pytest.raises(ValueError, match="method must be one of"):
        alpha_for_method("2-shot", 0.05, epsilon=1.0, n_rounds=10, n_users=10)


@pytest.mark.parametrize("epsilon", [745.0, 1000.0, 1e6])
def test_huge_budget_per_round_does_not_overflow(epsilon):
    """ε/m beyond exp's range: condition (1) is 0 (every α refused with a ValueError), f stays finite."""
    assert alpha_condition(1, 0.0, epsilon=epsilon, n_rounds=10) == 0.0
    assert f_mr(1, 0.0, epsilon=epsilon, n_rounds=10) == pytest.approx(1 / epsilon, rel=1e-12)
    assert alpha_condition(1, 0.5, epsilon=epsilon, n_rounds=10) == pytest.approx(
        9 * 0.5, rel=1e-12
    )
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 0\)"):
        deviation_bound(0.01, m=1, r=0.0, epsilon=epsilon, n_rounds=10, n_users=100)
    with pytest.raises(ValueError, match="violates condition"):
        alpha_bound(0.05, m=1, r=0.0, epsilon=epsilon, n_rounds=10, n_users=100)
    with pytest.raises(ValueError, match="epsilon must be small enough"):
        min_users_for_condition(0.05, m=1, r=0.0, epsilon=epsilon, n_rounds=10)


def test_theorem_6_to_8_assumption_is_condition_1_at_r0():
    """The assumption of Theorems 6–8 is 1/(e^{ε/m} − 1) (Theorem 5 at r = 0), not 1/(e^{ε/m} + 1)."""
    for method in METHODS:
        m = method_m(method, 10.0, 100)
        assert method_assumption(method, epsilon=10.0, n_rounds=100) == pytest.approx(
            1 / math.expm1(10.0 / m), rel=1e-12
        )
    # alpha_for_method certifies α between the two readings: the "+1" reading would refuse it
    alpha = alpha_for_method("1-shot", 0.05, epsilon=1.0, n_rounds=10, n_users=2000)
    assert 1 / (math.e + 1) < alpha < 1 / (math.e - 1)
    assert alpha_vs_assumption("1-shot", 0.05, epsilon=1.0, n_rounds=10, n_users=2000) == (
        1,
        alpha,
        method_assumption("1-shot", epsilon=1.0, n_rounds=10),
    )


def test_t_shot_closed_form_checks_theorem_7_alpha_condition():
    """α_T ≥ 1/(e^{ε/T} − 1) is refused (N too small), even though ε/T < 1 holds."""
    with pytest.raises(ValueError, match="violates Theorem 7's assumption"):
        alpha_t_shot_closed_form(0.05, epsilon=0.5, n_rounds=10, n_users=10)
    assert alpha_t_shot_closed_form(
        0.05, epsilon=0.5, n_rounds=10, n_users=10**4
    ) < method_assumption("T-shot", epsilon=0.5, n_rounds=10)


@pytest.mark.parametrize(
    "epsilon, T, m, r",
    [
        (1.0, 100, 1, 0.0),
        (10.0, 100, 6, 0.0),
        (31.6, 1000, 1, 0.0),
        (3.0, 20, 7, 0.3),
        (300.0, 10, 1, 0.0),
        (1000.0, 10, 1, 0.5),
    ],
)
def test_min_users_for_condition_is_the_threshold(epsilon, T, m, r):
    """At the returned N bound (2)'s α satisfies condition (1); at N − 1 it does not."""
    n = min_users_for_condition(0.05, m=m, r=r, epsilon=epsilon, n_rounds=T)
    limit = alpha_condition(m, r, epsilon=epsilon, n_rounds=T)
    kw = dict(m=m, r=r, epsilon=epsilon, n_rounds=T)
    assert alpha_at_beta(0.05, n_users=n, **kw) < limit * (1 + 1e-12)
    if n > 1:
        assert alpha_at_beta(0.05, n_users=n - 1, **kw) >= limit * (1 - 1e-12)


def test_m_star_table_and_f_decreasing_in_r():
    """The grid helpers agree with their scalar definitions."""
    eq7, brute = m_star_table([1.0, 10.0, 200.0], [10, 100])
    assert eq7.tolist() == [[m_star(e, t) for e in (1.0, 10.0, 200.0)] for t in (10, 100)]
    assert brute.tolist() == [[_argmax_g(e, t) for e in (1.0, 10.0, 200.0)] for t in (10, 100)]
    rs = np.linspace(0, 1, 11)
    dec = f_decreasing_in_r(rs, epsilon=4.0, n_rounds=20)
    expected = [
        bool(np.all(np.diff([f_mr(m, r, epsilon=4.0, n_rounds=20) for r in rs]) < 0))
        for m in range(1, 21)
    ]
    assert dec.tolist() == expected and dec[:-1].all() and not dec[-1]
    with pytest.raises(ValueError, match="rs must be an increasing"):
        f_decreasing_in_r([0.5, 0.1], epsilon=4.0, n_rounds=20)


@pytest.mark.parametrize("epsilon, m", [(355.0, 1), (370.0, 1), (460.0, 1), (740.0, 2), (920.0, 2)])
def test_min_users_for_condition_refuses_an_n_beyond_double_precision(epsilon, m):
    """Where N ~ e^{2ε/m} overflows (ε/m ≳ 355) or c² underflows (ε/m ≈ 460): a ValueError naming epsilon."""
    with pytest.raises(
        ValueError,
        match=rf"epsilon must be small enough .* at m={m}, r=0\) is finite in double precision; got {epsilon}",
    ):
        min_users_for_condition(0.05, m=m, r=0.0, epsilon=epsilon, n_rounds=10)


def test_condition_1_is_built_on_the_one_q_bin_derivation(monkeypatch):
    """The bounds' condition (1) (``_condition``) takes the round channel of mechanisms.m_shot, built on Q_Bin's p, q
    and p − q (doubling its gap halves q/(p − q)); f is Theorem 5's printed formula, so the channel does not enter it."""
    from ldp_helpers.bounds.m_shot import _condition

    kw = dict(epsilon=3.0, n_rounds=20)
    before = _condition(7, 0.3, 3.0, 20), f_mr(7, 0.3, **kw)
    monkeypatch.setattr("ldp_helpers.mechanisms.m_shot.q_bin_gap", lambda eps: 2 * q_bin_gap(eps))
    assert _condition(7, 0.3, 3.0, 20) == before[0] / 2 and f_mr(7, 0.3, **kw) == before[1]
    monkeypatch.setattr(
        "ldp_helpers.mechanisms.m_shot.q_bin_probabilities",
        lambda eps: (q_bin_probabilities(eps)[0], 0.0),
    )
    assert (
        _condition(7, 0.0, 3.0, 20) == 0.0
    )  # q = 0 at r = 0: the channel's q is Q_Bin's flip probability


def test_round_channel_gap_has_no_cancellation_at_tiny_budgets():
    """At u = ε/m = 1e-12 condition (1) is 1/(e^u − 1) = 1/u − 1/2 + O(u) to full precision (p − q = share·tanh(u/2))."""
    assert alpha_condition(1, 0.0, epsilon=1e-12, n_rounds=1) == pytest.approx(
        1e12 - 0.5, rel=1e-14
    )
    assert f_mr(1, 0.0, epsilon=1e-12, n_rounds=1) == pytest.approx(1e-12 / 2, rel=1e-9)


def test_m_star_table_refuses_non_integer_rounds():
    """rounds = [100.7] is refused, not truncated to 100; integral floats are accepted."""
    with pytest.raises(ValueError, match="rounds must be an array of integers"):
        m_star_table([1.0, 10.0], [100.7])
    assert np.array_equal(
        m_star_table([1.0, 10.0], [100.0])[0], m_star_table([1.0, 10.0], [100])[0]
    )


def test_printed_assumptions_of_theorems_6_to_8():
    """Read with the ±1 outside the exponent, Thm 8's is condition (1) and Thms 6/7's are stronger than it;
    read literally, Thm 8's e^{1−ε/m} exceeds condition (1) once ε/m > 1 − ln(e − 1) ≈ 0.459."""
    for epsilon, T in ((0.3, 10), (1.0, 100), (10.0, 100), (200.0, 100), (50.0, 1000)):
        for method in METHODS:
            u = epsilon / method_m(method, epsilon, T)
            read, literal = (
                printed_assumption(method, epsilon=epsilon, n_rounds=T, literal=flag)
                for flag in (False, True)
            )
            needed = method_assumption(method, epsilon=epsilon, n_rounds=T)
            if method == "m*-shot":
                assert read == pytest.approx(needed, rel=1e-12) and (literal > needed) == (
                    u > 1 - math.log(math.e - 1)
                )
            else:
                assert literal < needed and (
                    read < needed if u < 30 else read == pytest.approx(needed, rel=1e-12)
                )
    assert printed_assumption("1-shot", epsilon=1.0, n_rounds=10) == pytest.approx(
        1 / (math.e + 1), rel=1e-15
    )
    assert printed_assumption("1-shot", epsilon=1.0, n_rounds=10, literal=True) == pytest.approx(
        math.exp(-2), rel=1e-15
    )
    assert printed_assumption("1-shot", epsilon=800.0, n_rounds=10) == 0.0  # no overflow


@pytest.mark.parametrize(
    "epsilon, T, m, r", [(10.0, 100, 6, 0.0), (3.0, 20, 7, 0.3), (1.0, 100, 1, 0.0)]
)
def test_bound_2_is_the_union_of_two_sided_chernoff_bounds(epsilon, T, m, r):
    """(2) = T·2exp(−μδ²/3) at μ = Np, δ = (p − q)α/p (A-6); the round with Φ0 = 0 (A-5: μ = Nq) is tighter,
    and condition (1) is δ = α(p − q)/q < 1 there."""
    ch_ = MShotReporting(epsilon, T, m, r).round_channel
    N, limit = 50_000, alpha_condition(m, r, epsilon=epsilon, n_rounds=T)
    for alpha in (0.1 * limit, 0.6 * limit, 0.99 * limit):
        bound = deviation_bound(alpha, m=m, r=r, epsilon=epsilon, n_rounds=T, n_users=N)
        assert bound == pytest.approx(
            T * chernoff.two_sided((ch_.p - ch_.q) * alpha / ch_.p, N * ch_.p), rel=1e-12
        )
        assert T * chernoff.two_sided(alpha * (ch_.p - ch_.q) / ch_.q, N * ch_.q) <= bound
    assert limit * (ch_.p - ch_.q) / ch_.q == pytest.approx(1.0, rel=1e-12)
    alpha = alpha_at_beta(0.05, m=m, r=r, epsilon=epsilon, n_rounds=T, n_users=N)
    assert (ch_.p - ch_.q) * alpha / ch_.p == pytest.approx(
        chernoff.two_sided_delta(0.05 / T, N * ch_.p), rel=1e-12
    )


# ---------------------------------------------------------------- the printed equations against their derived forms


def _g_appendix_1(x):
    """g in appendix 1's form (T/ε)(p − q)²/p at m/T = 1, r = 0: p = 1/(1 + e^{−1/x}), p − q = tanh(1/(2x))."""
    return x * np.tanh(1 / (2 * x)) ** 2 * (1 + np.exp(-1 / x))


def test_g_as_printed_equals_its_overflow_free_form():
    """§4.3's g(x) = x(e^{1/x} − 1)²/(e^{1/x}(e^{1/x} + 1)) equals x tanh²(1/(2x))(1 + e^{−1/x}) (the round channel's
    form) to 1e-12 wherever both are finite, and g switches to that form below x = 1/MAX_EXPONENT without a jump."""
    x = np.geomspace(1 / MAX_EXPONENT, 1e6, 2001)
    np.testing.assert_allclose(g(x), _g_appendix_1(x), rtol=1e-12)
    edge = 1 / MAX_EXPONENT
    assert g(np.nextafter(edge, 0)) == pytest.approx(g(edge), rel=1e-12) and np.isfinite(g(1e-6))
    assert g(np.array([1e-6, 0.5]))[1] == pytest.approx(
        g(0.5), rel=1e-12
    )  # a mixed grid takes the safe form


@pytest.mark.parametrize("T", [1, 7, 100, 1000])
def test_f_as_printed_equals_appendix_1s_channel_form(T):
    """Theorem 5's f(m, r) = (m/ε)(e^{ε/m} − 1)²/(e^{ε/m}(e^{ε/m} + 1) + (e^{ε/m} + 1)²(T/m − 1)r) equals
    (T/ε)(p − q)²/p of the round channel to 1e-12 over a grid of (ε, m, r), on both sides of MAX_EXPONENT."""
    for epsilon in (1e-6, 0.3, 1.0, 10.0, 200.0, 2000.0, 1e5):
        for m in sorted({1, max(1, T // 3), T}):
            for r in (0.0, 0.05, 0.5, 1.0):
                p, _, gap = round_channel_probabilities(epsilon / m, m / T, r)
                assert f_mr(m, r, epsilon=epsilon, n_rounds=T) == pytest.approx(
                    T / epsilon * gap**2 / p, rel=1e-12
                )


def test_bound_2_and_its_alpha_are_the_printed_formulas():
    """Eq. (2) is 2T exp(−f ε N α²/(3T)) and α(β) = √(3T log(2T/β)/(f ε N)) with Theorem 5's f, term by term."""
    kw = dict(m=6, r=0.2, epsilon=10.0, n_rounds=100)
    f = f_mr(6, 0.2, epsilon=10.0, n_rounds=100)
    assert deviation_bound(0.05, n_users=10**5, **kw) == pytest.approx(
        200 * math.exp(-f * 10.0 * 1e5 * 0.05**2 / 300), rel=1e-14
    )
    assert alpha_at_beta(0.01, n_users=10**5, **kw) == pytest.approx(
        math.sqrt(300 * math.log(2e4) / (f * 10.0 * 1e5)), rel=1e-14
    )


def test_c_star_is_the_argmax_of_g_as_printed():
    """c* maximises g; the printed g's numerical argmax agrees to the flatness of g's top (≈ 1e-8), and g'(c*) ≈ 0."""
    from scipy.optimize import minimize_scalar

    c = c_star()
    printed = minimize_scalar(
        lambda x: -g(x), bounds=(0.05, 5.0), method="bounded", options={"xatol": 1e-12}
    ).x
    assert printed == pytest.approx(c, abs=1e-7)
    h = 1e-5
    assert abs(g(c + h) - g(c - h)) / (2 * h) < 1e-8


def test_m_star_reads_eq_7_at_its_boundaries():
    """The cases of Eq. (7) switch exactly at ε = 1/c* and ε = T/c* (closed on the outer side, as printed)."""
    c = c_star()
    assert m_star(1 / c, 100) == 1 and m_star_regime(1 / c, 100) == 0
    assert m_star_regime(np.nextafter(1 / c, 2), 100) == 1
    assert m_star(100 / c, 100) == 100 and m_star_regime(100 / c, 100) == 2
    assert (
        m_star_regime(np.nextafter(100 / c, 0), 100) == 1
        and m_star(np.nextafter(100 / c, 0), 100) == 100
    )


def test_condition_1_as_printed_equals_the_round_channel_form():
    """alpha_condition's printed formula and q/(p − q) of the round channel (what the bounds use) agree to 1e-12."""
    from ldp_helpers.bounds.m_shot import _condition

    for epsilon in (0.01, 1.0, 10.0, 200.0):
        for T in (1, 10, 100):
            for m in sorted({1, max(1, T // 3), T}):
                for r in (0.0, 0.1, 0.5, 1.0):
                    printed = alpha_condition(m, r, epsilon=epsilon, n_rounds=T)
                    assert printed == pytest.approx(
                        _condition(m, r, epsilon, T), rel=1e-12, abs=1e-300
                    )


@pytest.mark.parametrize(
    "call",
    [
        lambda n: ms.deviation_bound(0.01, m=1, r=0.0, epsilon=1.0, n_rounds=10, n_users=n),
        lambda n: ms.alpha_at_beta(0.1, m=1, r=0.0, epsilon=1.0, n_rounds=10, n_users=n),
        lambda n: ms.alpha_t_shot_closed_form(0.1, epsilon=1.0, n_rounds=10, n_users=n),
    ],
)
def test_n_users_beyond_int64_up_to_the_largest_double(call):
    """N may exceed int64 (a formula's N), up to the largest double; 10**400 raised a raw OverflowError
    ("int too large to convert to float") and is refused naming n_users."""
    assert math.isfinite(call(10**300))
    with pytest.raises(
        ValueError, match=r"n_users must be an integer in \[1, 1.7976931348623157e\+308\]"
    ):
        call(10**400)


def test_a_union_bound_at_tiny_beta_and_many_rounds_stays_finite():
    """β = 1e-300 over T = 1e9 rounds: 2T/β overflows, and log(∞) made α ∞; the log is log 2T − log β."""
    T, beta, N = 10**9, 1e-300, 10**15
    alpha = ms.alpha_at_beta(beta, m=1, r=0.0, epsilon=1.0, n_rounds=T, n_users=N)
    f = ms.f_mr(1, 0.0, epsilon=1.0, n_rounds=T)
    assert alpha == pytest.approx(math.sqrt(3 * T * (math.log(2 * T) - math.log(beta)) / (f * N)))
    assert math.isfinite(ms.alpha_t_shot_closed_form(beta, epsilon=1.0, n_rounds=T, n_users=10**40))


@pytest.mark.parametrize(
    "n_rounds, per_round", [(10**9, 50.0), (10**12, 50.0), (10**9, 3.0), (100, 50.0), (100, 3.0)]
)
def test_condition_1_keeps_its_digits_when_m_is_near_t(n_rounds, per_round):
    """T/m − 1 at m = T − 1 cancelled (8e-8 off at T = 1e9, ε/m = 50); as (T − m)/m condition (1) and f(m, r)
    are within 1e-14 of 50-digit mpmath."""
    import mpmath

    m, r = n_rounds - 1, 1.0
    eps = per_round * m
    with mpmath.workdps(50):
        x = mpmath.exp(mpmath.mpf(per_round))
        share = mpmath.mpf(n_rounds - m) / m
        alpha = float((1 + (x + 1) * share * r) / (x - 1))
        f = float(mpmath.mpf(m) / eps * (x - 1) ** 2 / (x * (x + 1) + (x + 1) ** 2 * share * r))
    assert ms.alpha_condition(m, r, epsilon=eps, n_rounds=n_rounds) == pytest.approx(
        alpha, rel=1e-14, abs=0.0
    )
    assert ms.f_mr(m, r, epsilon=eps, n_rounds=n_rounds) == pytest.approx(f, rel=1e-14, abs=0.0)
