"""The shuffle model's exact privacy profile (bounds.shuffle) and the papers' bounds (bounds.shuffle_bounds)."""

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from shuffle_reference import shuffle_delta

from ldp_helpers._validation import MIN_EPSILON
from ldp_helpers.bounds import shuffle as S
from ldp_helpers.bounds import shuffle_bounds as B


@pytest.mark.parametrize(
    "k, n, eps0, eps", [(2, 7, 1.0, 0.3), (3, 6, 1.5, 0.4), (4, 5, 2.0, 0.7), (5, 5, 1.0, 0.2)]
)
def test_profile_equals_the_per_user_law(k, n, eps0, eps):
    """δ(ε) of the category-count reduction equals the hockey-stick of the full k-vector of counts, built user by user."""
    cases = {"pair": [0] * (n - 1)} | ({"outside": [2] * (n - 1)} if k > 2 else {})
    for others, rest in cases.items():
        exact = S.grr_profile(n, eps0, k, others=others).delta(eps)
        assert exact == pytest.approx(shuffle_delta(rest, k, eps0, eps), rel=1e-12)
    if k == 2:
        assert S.binary_rr_profile(n, eps0).delta(eps) == pytest.approx(
            shuffle_delta([0] * (n - 1), 2, eps0, eps), rel=1e-12
        )


def test_the_profile_breaks_for_a_wrong_law():
    """The per-user check has power: GRR's profile at k differs from the per-user law at k + 1."""
    assert (
        abs(
            S.grr_profile(6, 1.5, 3, others="outside").delta(0.4)
            - shuffle_delta([2] * 5, 4, 1.5, 0.4)
        )
        > 1e-3
    )


def test_which_datasets_are_worst_exhaustively():
    """Over every dataset at small n: for 3-RR the others-at-a-third-value pair is the worst; for binary RR
    a dataset with dissenters can be up to 19 % worse than the all-alike pair (n = 10, as the docstring says)."""
    n, eps0, eps = 6, 1.5, 0.4
    every = max(
        shuffle_delta([0] * a + [1] * b + [2] * (n - 1 - a - b), 3, eps0, eps)
        for a in range(n)
        for b in range(n - a)
    )
    assert S.grr_profile(n, eps0, 3).delta(eps) == pytest.approx(every, rel=1e-12)
    n, eps0, eps = 10, 1.0, 0.5
    every = max(shuffle_delta([0] * a + [1] * (n - 1 - a), 2, eps0, eps) for a in range(n))
    alike = S.binary_rr_profile(n, eps0).delta(eps)
    assert 1.15 < every / alike < 1.2
    assert S.binary_rr_profile(n, eps0, others="any").delta(eps) == pytest.approx(every, rel=1e-12)


@pytest.mark.parametrize("n, eps0", [(2, 1.0), (3, 0.5), (5, 2.0), (8, 1.0), (8, 3.0)])
def test_binary_worst_case_is_the_brute_force_over_every_dataset(n, eps0):
    """others="any" is the largest δ over all 2^(n−1) datasets of the others, both directions, from
    the per-user law of the counts; it is ≥ the all-alike pair and equal to it at n = 2."""
    profile, alike = S.binary_rr_profile(n, eps0, others="any"), S.binary_rr_profile(n, eps0)
    for eps in (0.0, 0.1, 0.3, 0.5 * eps0, 0.9 * eps0):
        every = max(
            shuffle_delta(list(rest), 2, eps0, eps)
            for rest in itertools.product((0, 1), repeat=n - 1)
        )
        assert profile.delta(eps) == pytest.approx(every, rel=1e-12, abs=1e-300)
        assert profile.delta(eps) >= alike.delta(eps)
        if n == 2:
            assert profile.delta(eps) == alike.delta(eps)
    delta = 0.5 * alike.delta(0.0)
    assert profile.epsilon(delta) >= alike.epsilon(delta) - 1e-9  # bisection to 1e-10


def test_binary_worst_case_at_larger_n():
    """n = 40: equal to the per-user law maximised over j (brute force over j, not over datasets),
    and strictly above the all-alike pair (the gap of the docstring); a dissent pair at n = 10⁵,
    where the 1e-300 tails are cut, is a pair of laws (mass 1 to 1e-13) and at j = 0 equals
    the all-alike pair of the mixture formula."""
    n, eps0, eps = 40, 3.0, 0.6
    every = max(shuffle_delta([1] * j + [0] * (n - 1 - j), 2, eps0, eps) for j in range(n))
    worst = S.binary_rr_profile(n, eps0, others="any").delta(eps)
    assert worst == pytest.approx(every, rel=1e-12)
    assert worst > 1.01 * S.binary_rr_profile(n, eps0).delta(eps)
    p = 1 / (1 + math.exp(-eps0))
    for log_mass in S._dissent_pair(10**5, 30_000, p):
        assert abs(math.fsum(np.exp(log_mass)) - 1.0) < 1e-13
    ((alike_p, alike_q),) = S.binary_rr_profile(10**5, eps0).pairs  # by the count of 0s
    dissent_p, dissent_q = S._dissent_pair(10**5, 0, p)  # by the count of 1s
    assert np.allclose(dissent_p, alike_p[::-1], rtol=0, atol=1e-9)
    assert np.allclose(dissent_q, alike_q[::-1], rtol=0, atol=1e-9)


def test_epsilon_inverts_delta():
    """δ(ε_c(δ)) = δ to 1e-8 relative, and δ(ε) decreases in ε."""
    profile = S.binary_rr_profile(10**5, 3.0)
    eps_c = profile.epsilon(1e-7)
    assert profile.delta(eps_c) == pytest.approx(1e-7, rel=1e-6)
    assert np.all(np.diff(profile.delta(np.linspace(0, 1, 20))) <= 0)
    assert profile.epsilon(0.9) == 0.0 or profile.delta(0.0) > 0.9


def test_large_n_binary_is_exact():
    """n up to 10⁹: both count laws sum to 1 within 1e-13 (the tails left out and the log-pmf's error are
    negligible) and ε_c decreases in n, below ε₀."""
    eps = []
    for n in (10**6, 10**8, 10**9):
        profile = S.binary_rr_profile(n, 4.0)
        for log_mass in profile.pairs[0]:
            assert abs(math.fsum(np.exp(log_mass)) - 1.0) < 1e-13
        eps.append(profile.epsilon(1e-6))
    assert 4.0 > eps[0] > eps[1] > eps[2] > 0


def test_log_binomial_pmf_is_scipys_where_scipy_is_accurate():
    """Loader's saddle-point log-pmf equals scipy's at small n (1e-11), and fails for a wrong p (power)."""
    from scipy import stats

    from ldp_helpers.bounds.shuffle import _log_binom_pmf

    x = np.arange(0, 201)
    for p in (0.01, 0.3, 0.97):
        assert np.allclose(
            _log_binom_pmf(x, 200, p), stats.binom.logpmf(x, 200, p), rtol=0, atol=1e-11
        )
    assert not np.allclose(
        _log_binom_pmf(x, 200, 0.3), stats.binom.logpmf(x, 200, 0.3001), rtol=0, atol=1e-6
    )


SETTINGS = [(1000, 1.0, 1e-6), (5000, 2.0, 1e-6), (5000, 0.5, 1e-5), (2000, 0.4, 1e-3)]


@pytest.mark.parametrize("n, eps0, delta", SETTINGS)
def test_every_bound_lies_above_the_exact_value(n, eps0, delta):
    """Each bound on ε_c (closed forms and numerical reductions) is ≥ the exact ε_c of shuffled binary RR and 2-RR
    (for n ≤ 2000 the exact worst case over all datasets)."""
    exact = S.binary_rr_profile(n, eps0, others="any" if n <= 2000 else "alike").epsilon(delta)
    bounds = {
        "erlingsson": B.erlingsson_epsilon(n, eps0, delta),
        "blanket generic": B.blanket_hoeffding_epsilon(n, eps0, delta),
        "blanket RR": B.blanket_hoeffding_epsilon(n, eps0, delta, k=2),
        "fmt closed": B.fmt_closed_epsilon(n, eps0, delta),
        "fmt numerical": B.clone_profile(n, eps0).epsilon(delta),
        "wang closed": B.wang_closed_epsilon(n, eps0, delta),
        "wang numerical": B.variation_ratio_profile(n, eps0).epsilon(delta),
    }
    below = {name: value for name, value in bounds.items() if value < exact}
    assert not below, f"exact {exact}: {below}"
    assert exact < bounds["wang numerical"] <= bounds["fmt numerical"]


def test_grr_bounds_against_the_exact_value():
    """For 5-RR (n = 200, ε₀ = 2, δ = 1e-4) the blanket's k-RR bound lies above the exact worst pair, but Wang et
    al.'s variation-ratio bound with the k-RR β of their table lies *below* it (0.5711 < 0.5724)."""
    n, eps0, k, delta = 200, 2.0, 5, 1e-4
    exact = S.grr_profile(n, eps0, k).epsilon(delta)
    assert exact < B.blanket_hoeffding_epsilon(n, eps0, delta, k=k)
    assert S.grr_profile(n, eps0, k, others="pair").epsilon(delta) < exact
    assert B.variation_ratio_profile(n, eps0, k).epsilon(delta) < exact - 1e-3


@pytest.mark.parametrize(
    "n, eps0, delta, k, outside",
    [
        (2000, 0.4, 1e-6, None, set()),
        (999, 0.4, 1e-6, None, {"Erlingsson"}),  # n ≥ 1000
        (2000, 0.6, 1e-6, None, {"Erlingsson"}),  # ε₀ ≤ 1/2
        (2000, 0.4, 0.02, None, {"Erlingsson"}),  # δ ≤ 1/100
        (300, 2.0, 1e-6, None, {"Erlingsson", "FMT closed", "Wang closed"}),
        (3000, 2.0, 1e-6, None, {"Erlingsson"}),
        (3000, 2.0, 1e-6, 50, {"Erlingsson", "Wang closed"}),  # r shrinks with k
    ],
)
def test_closed_form_ranges_say_where_each_closed_form_gives_up(n, eps0, delta, k, outside):
    """A closed form is outside its range exactly where the range says so, and there it returns ε₀."""
    ranges = B.closed_form_ranges(n, eps0, delta, k)
    assert {name for name, reason in ranges.items() if reason} == outside
    values = {
        "Erlingsson": B.erlingsson_epsilon(n, eps0, delta),
        "FMT closed": B.fmt_closed_epsilon(n, eps0, delta),
        "Wang closed": B.wang_closed_epsilon(n, eps0, delta, k),
    }
    for name, value in values.items():
        assert (value == eps0) if name in outside else (value < eps0), (name, value)
    if "FMT closed" in outside:
        top = math.log(n / (16 * math.log(4 / delta)))
        assert ranges["FMT closed"] == f"needs ε₀ ≤ ln(n / (16 ln(4/δ))) = {top:.4g}"


def test_the_kRR_variation_ratio_bound_is_refuted_by_the_per_user_law():
    """At n = 6, 5-RR, ε₀ = 2, ε = 1: the per-user law of the counts (others all holding 2) has δ = 0.14812,
    above the variation-ratio reduction's 0.14550 (no reduction of ours is involved in the first number)."""
    brute = shuffle_delta([2] * 5, 5, 2.0, 1.0)
    assert brute == pytest.approx(0.148118754101782, rel=1e-12)
    assert B.variation_ratio_profile(6, 2.0, 5).delta(1.0) == pytest.approx(
        0.145502056565695, rel=1e-12
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: S.binary_rr_profile(0, 1.0), "n must be"),
        (lambda: S.binary_rr_profile(10, -1.0), "epsilon0 must be"),
        (lambda: S.grr_profile(10, 1.0, 2, others="outside"), "others must be"),
        (lambda: S.grr_profile(10, 1.0, 3, others="nobody"), "others must be"),
        (lambda: S.grr_profile(10**5, 1.0, 5), "n must be small enough"),
        (lambda: S.binary_rr_profile(10**5, 1.0, others="any"), "n must be small enough"),
        (lambda: S.binary_rr_profile(10, 1.0, others="all"), "others must be"),
        (lambda: S.binary_rr_profile(10, 1.0).epsilon(0.0), "delta must be"),
        (lambda: S.binary_rr_profile(10, 1.0).delta(-1.0), "epsilon must be"),
        (lambda: S.mixture_pair(10, [0.5, 0.5], [0.5, 0.5], [1.0, 0.0]), "pi must be"),
        (lambda: S.mixture_pair(10, [0.5, 0.6], [0.5, 0.5], [0.5, 0.5]), "user_p must be"),
        (lambda: B.fmt_closed_epsilon(10, 1.0, 1.5), "delta must be"),
    ],
)
def test_bad_input_is_a_clear_error(call, match):
    """Bad parameters raise a ValueError naming the parameter."""
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("epsilon0", [30.0, 40.0, 800.0])
@pytest.mark.parametrize(
    "call",
    [
        lambda e: S.binary_rr_profile(10, e),
        lambda e: S.grr_profile(10, e, 3),
        lambda e: B.clone_profile(10, e),
        lambda e: B.variation_ratio_profile(10, e),
        lambda e: B.blanket_hoeffding_delta(0.5, 1000, e),
        lambda e: B.blanket_hoeffding_epsilon(1000, e, 0.1),
        lambda e: B.grr_blanket_beta(e),
        lambda e: B.wang_closed_epsilon(1000, e, 0.1),
        lambda e: B.closed_form_ranges(1000, e, 0.1),
        lambda e: B.erlingsson_epsilon(1000, e, 0.1),
    ],
)
def test_an_epsilon0_beyond_the_profiles_precision_is_refused_naming_it(call, epsilon0):
    """ε₀ > MAX_EPSILON0 = 20 is refused naming epsilon0: at 40 binary RR's 1 − p rounded to 0 and the profiles
    failed with "pi must be 2 to 4 positive category masses" (a parameter the caller never passed); from 710 on
    e^ε₀ raised a raw OverflowError in the closed forms."""
    with pytest.raises(ValueError, match=r"epsilon0 must be in \[1e-12, 20\]"):
        call(epsilon0)


def test_the_largest_epsilon0_still_gives_a_profile():
    """At ε₀ = MAX_EPSILON0 = 20 the profiles are within their rounding: ε_c(δ) < ε₀ (at 30, ε_c(1e-6) of binary RR
    over n = 10 came out 0.001 above ε₀, which no ε₀-LDP protocol can have)."""
    assert S.MAX_EPSILON0 == 20.0
    for profile in (S.binary_rr_profile(10, 20.0), B.clone_profile(10, 20.0)):
        assert 0 < profile.epsilon(1e-6) < 20.0


def _mp_blanket_delta(epsilon, n, epsilon0, k=None):
    """The blanket's Hoeffding δ(ε) in 80 digits, as [balle2019blanket] §5 writes it."""
    with mp.workdps(80):
        e, e0 = mp.mpf(epsilon), mp.mpf(epsilon0)
        a = mp.expm1(e)
        if k is None:
            gamma, b = mp.exp(-e0), (mp.exp(e) + 1) * (mp.exp(e0) - mp.exp(-e0))
        else:
            gamma = k / (mp.exp(e0) + k - 1)
            b = (1 - gamma) * k * (mp.exp(e) + 1)
        return b**2 / (4 * a * gamma * n) * (1 - gamma * (1 - mp.exp(-2 * a**2 / b**2))) ** n


@pytest.mark.parametrize("k", [None, 2, 5, 100])
@pytest.mark.parametrize(
    "epsilon, n, epsilon0",
    [
        (3e-11, 10**6, 1e-9),
        (1e-7, 1000, 1e-6),
        (1e-12, 1000, 2e-12),
        (0.1, 10**4, 1.0),
        (1.0, 10**5, 5.0),
    ],
)
def test_blanket_delta_is_accurate_down_to_the_smallest_epsilon0(epsilon, n, epsilon0, k):
    """δ to 1e-12 relative against 80 digits: e^ε₀ − e^{−ε₀} and 1 − γ were differences of rounded numbers,
    off by up to 7e-5 relative at ε₀ = 1e-9 (2 sinh ε₀ and β = 1 − γ now)."""
    expected = float(_mp_blanket_delta(epsilon, n, epsilon0, k))
    assert expected > 0
    assert B.blanket_hoeffding_delta(epsilon, n, epsilon0, k) == pytest.approx(
        expected, rel=1e-12, abs=0
    )


@pytest.mark.parametrize("epsilon0, k", [(1.0, 10**17), (2e-12, 10**5)])
def test_blanket_delta_where_one_minus_gamma_rounded_to_zero(epsilon0, k):
    """k-RR's 1 − γ = (e^ε₀ − 1)/(e^ε₀ + k − 1) rounded to 0 here (log(b = 0) once raised "math domain error",
    then k was refused); as β of grr_blanket_beta it is exact, and so is δ."""
    expected = float(_mp_blanket_delta(epsilon0 / 2, 2000, epsilon0, k))
    assert B.blanket_hoeffding_delta(epsilon0 / 2, 2000, epsilon0, k=k) == pytest.approx(
        expected, rel=1e-12, abs=0
    )


@pytest.mark.parametrize("k", [None, 2, 5])
@pytest.mark.parametrize(
    "n, epsilon0, delta", [(1000, 1e-6, 1e-6), (10**4, 0.5, 1e-6), (10**6, 3.0, 1e-8)]
)
def test_blanket_epsilon_is_the_smallest_epsilon_to_1e_12_relative(n, epsilon0, delta, k):
    """ε(δ) against a bisection of ln ε in 80 digits: at ε₀ = 1e-6 the old absolute 1e-12 bisection of a δ off by
    1e-4 was off by 5e-4 relative (and 2e-11 at ε₀ = 0.5)."""
    with mp.workdps(80):
        low, high = mp.mpf(MIN_EPSILON), mp.mpf(epsilon0)
        for _ in range(200):
            mid = mp.sqrt(low * high)
            low, high = (
                (low, mid) if _mp_blanket_delta(mid, n, epsilon0, k) <= delta else (mid, high)
            )
    assert MIN_EPSILON < high < epsilon0
    assert B.blanket_hoeffding_epsilon(n, epsilon0, delta, k=k) == pytest.approx(
        float(high), rel=1e-12, abs=0
    )


@pytest.mark.parametrize("epsilon0", [1e-12, 5e-10])
def test_blanket_epsilon_never_exceeds_epsilon0(epsilon0):
    """ε₀ always holds; below 1e-9 (the old bisection's floor) the bound was ε₀ itself, now the smallest
    ε ≥ MIN_EPSILON whose δ is small enough (MIN_EPSILON here: δ(1e-12) ≤ 0.1 at n = 2000)."""
    for k in (None, 3):
        assert B.blanket_hoeffding_epsilon(2000, epsilon0, 0.1, k=k) == MIN_EPSILON
        assert B.blanket_hoeffding_delta(MIN_EPSILON, 2000, epsilon0, k=k) <= 0.1


def _closed_forms_mp(n, eps0, delta, k):
    """Erlingsson, FMT closed and Wang closed in 50-digit mpmath (inside their ranges)."""
    with mp.workdps(50):
        d, e0 = mp.mpf(delta), mp.mpf(eps0)
        log4 = mp.log(4 / d)
        erl = min(e0, 12 * e0 * mp.sqrt(mp.log(1 / d) / n))
        a, c = 8 * mp.sqrt(mp.e**e0 * log4 / n), 8 * mp.e**e0 / n
        fmt = mp.log(1 + (1 - mp.e**-e0) / (1 + mp.e ** (-e0 - mp.log(1 + a + c))) * (a + c))
        p = mp.e**e0
        beta = (p - 1) / (p + k - 1)
        r = beta / (p - 1)
        cc = max(0, 4 * (1 - 3 * r) / (9 * (p - 1 + k - 2) * r))
        tail = mp.sqrt(32 * log4 / (r * (n - 1))) + 4 / (r * (n - 1))
        wang = min(e0, mp.log(1 + beta / ((1 - cc) * (1 + p) * r + cc) * tail))
        return float(erl), float(fmt), float(wang)


@pytest.mark.parametrize("delta", [5e-324, 1e-310, 1e-300])
def test_closed_forms_at_a_subnormal_delta(delta):
    """4/δ overflows below δ ≈ 2.2e-308: ln(4/δ) = ln 4 − ln δ (≈ 746 at 5e-324) keeps the closed forms
    finite and right (before: 'math domain error' from ln 0, or ε₀ from ln ∞); 50-digit mpmath, rel 1e-12."""
    n, k = 10**6, 3
    erl, fmt, wang = _closed_forms_mp(n, 0.1, delta, k)
    assert B.erlingsson_epsilon(n, 0.1, delta) == pytest.approx(erl, rel=1e-12)
    assert B.fmt_closed_epsilon(n, 1.0, delta) == pytest.approx(
        _closed_forms_mp(n, 1.0, delta, k)[1], rel=1e-12
    )
    assert B.wang_closed_epsilon(n, 1.0, delta, k) == pytest.approx(
        _closed_forms_mp(n, 1.0, delta, k)[2], rel=1e-12
    )
    ranges = B.closed_form_ranges(2000, 1.0, delta, k)
    assert ranges["Erlingsson"] == "needs ε₀ ≤ 1/2"
    assert ranges["FMT closed"].startswith("needs ε₀ ≤ ln(n / (16 ln(4/δ)))")
    assert B.fmt_closed_epsilon(2000, 1.0, delta) == 1.0  # outside its range: ε₀
    assert B.closed_form_ranges(n, 0.1, delta, k) == {
        "Erlingsson": "",
        "FMT closed": "",
        "Wang closed": "",
    }


@pytest.mark.parametrize(
    "n, epsilon0, delta",
    [(10**9, 1e-12, 0.01), (10**6, 1e-12, 0.999999), (1000, 1e-8, 1e-6), (10**4, 1.0, 1e-6)],
)
def test_fmt_closed_form_keeps_its_digits_at_large_n(n, epsilon0, delta):
    """ln(1 + x) of a tiny x lost 28 % at n = 1e9, ε₀ = 1e-12 (2.2e-16 for 3.1e-16); log1p: within 1e-14 of
    50-digit mpmath of the same closed form."""
    with mp.workdps(50):
        e0 = mp.mpf(epsilon0)
        a = 8 * mp.sqrt(mp.exp(e0) * mp.log(4 / mp.mpf(delta)) / n)
        c = 8 * mp.exp(e0) / n
        e = mp.log(1 + a + c)
        exact = float(mp.log(1 + (1 - mp.exp(-e0)) / (1 + mp.exp(-e0 - e)) * (a + c)))
    assert B.fmt_closed_epsilon(n, epsilon0, delta) == pytest.approx(exact, rel=1e-14, abs=0.0)
