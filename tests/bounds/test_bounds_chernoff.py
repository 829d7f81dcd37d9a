"""Chernoff bounds (bounds/chernoff.py): exact checks against the binomial tail, orderings, validation."""

import math
import warnings

import numpy as np
import pytest
from scipy.special import rel_entr
from scipy.stats import binom

from ldp_helpers.bounds import chernoff as ch

NS = (1, 2, 5, 20, 100, 1000, 10_000)
PS = (0.001, 0.01, 0.1, 0.3, 0.5, 0.9, 0.999)
DELTA_ALL = np.linspace(0.0, 5.0, 101)  # forms valid for every δ ≥ 0
DELTA_UNIT = np.linspace(0.0, 1.0, 101)  # forms valid for 0 ≤ δ ≤ 1
REL = 1e-12  # the KL bound is exact at X̄ = 1 (p^n); allow rounding there


def _exact_upper(n, p, d):  # thresholds rounded to 9 decimals: the grids' (1 ± δ)μ meant exactly
    return binom.sf(np.ceil(np.round((1 + d) * (n * p), 9)) - 1, n, p)


def _exact_lower(n, p, d):
    return binom.cdf(np.floor(np.round((1 - d) * (n * p), 9)), n, p)


def test_a_threshold_one_ulp_above_a_whole_count_counts_from_that_count():
    """(1 + 0.1)·100 = 110.00000000000001 in floating point: the exact tail is Pr[X ≥ 110] = 0.158 at
    Bin(1000, 0.1), not Pr[X ≥ 111] = 0.135 (what ⌈(1 + δ)μ⌉ gave), and (1 − 0.1)·100 = 90 counts X ≤ 90."""
    (_, up, _), (_, down, _) = (ch.tail_comparison(b, 1000, 0.1, 0.1) for b in ("upper", "lower"))
    assert up == binom.sf(109, 1000, 0.1) and up > binom.sf(110, 1000, 0.1) + 0.02
    assert down == binom.cdf(90, 1000, 0.1)
    # a threshold 1e-9 above a whole count is not one: it counts from the next
    assert ch.tail_comparison("upper", 1000, 0.1, 0.1 + 1e-11)[1] == binom.sf(110, 1000, 0.1)


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("p", PS)
def test_every_bound_holds_against_the_exact_binomial_tail(n, p):
    """Each form ≥ the exact tail of Bin(n, p) from scipy over its whole δ range (no sampling)."""
    mu = n * p
    up_all, up_unit, low_unit = (
        _exact_upper(n, p, DELTA_ALL),
        _exact_upper(n, p, DELTA_UNIT),
        _exact_lower(n, p, DELTA_UNIT),
    )
    checks = [
        (ch.upper(DELTA_ALL, mu), up_all),
        (ch.kl_upper(DELTA_ALL * p, n, p), up_all),
        (np.exp(-n * ch.bernstein_exponent(DELTA_ALL * p, p * (1 - p), 1 - p)), up_all),
        (ch.upper_simple(DELTA_UNIT, mu), up_unit),
        (ch.lower(DELTA_UNIT, mu), low_unit),
        (ch.lower_simple(DELTA_UNIT, mu), low_unit),
        (ch.kl_lower(DELTA_UNIT * p, n, p), low_unit),
        (ch.two_sided(DELTA_UNIT[1:], mu), up_unit[1:] + low_unit[1:]),
    ]
    for bound, exact in checks:
        assert np.all(bound >= exact * (1 - REL))


@pytest.mark.parametrize("bound", ch.BOUNDS)
def test_tail_comparison_matches_scipy_and_its_ratio(bound):
    """tail_comparison returns the bound, the exact scipy tail and bound/exact, and the bound holds."""
    n, p = 200, 0.07
    d = (
        DELTA_UNIT
        if bound in ("upper_simple", "lower", "lower_simple", "two_sided", "kl_lower")
        else DELTA_ALL
    )
    values, exact, ratio = ch.tail_comparison(bound, n, p, d)
    side = "upper" if "upper" in bound else "lower" if "lower" in bound else "two"
    expected = {"upper": _exact_upper(n, p, d), "lower": _exact_lower(n, p, d)}.get(side)
    if expected is None:
        expected = np.where(d > 0, _exact_upper(n, p, d) + _exact_lower(n, p, d), 1.0)
    assert np.array_equal(exact, expected)
    assert np.all(values >= exact * (1 - REL))
    finite = exact > 0
    assert np.allclose(ratio[finite], values[finite] / exact[finite], rtol=1e-15) and np.all(
        np.isinf(ratio[~finite])
    )


def test_kl_form_is_tightest_then_the_nested_multiplicative_forms():
    """For Bin(n, p): n·D((1±δ)p‖p) ≥ Chernoff's exponent ≥ Bernstein's (σ² = p, M = 1) ≥ δ²μ/3 (resp. δ²μ/2)."""
    for n in (10, 1000):
        for p in (0.01, 0.2, 0.5, 0.8):
            mu = n * p
            d = DELTA_UNIT[1:]
            bern_mult = np.exp(-n * ch.bernstein_exponent(d * p, p, 1.0))  # δ²μ/(2 + 2δ/3)
            assert np.all(ch.kl_upper(d * p, n, p) <= ch.upper(d, mu) * (1 + REL))
            assert np.all(ch.upper(d, mu) <= bern_mult * (1 + REL))
            assert np.all(bern_mult <= ch.upper_simple(d, mu) * (1 + REL))
            assert np.all(ch.kl_lower(d * p, n, p) <= ch.lower(d, mu) * (1 + REL))
            assert np.all(ch.lower(d, mu) <= ch.lower_simple(d, mu) * (1 + REL))
            assert np.all(
                ch.lower_simple(d, mu) <= ch.upper_simple(d, mu)
            )  # so two_sided bounds both tails
    # strictly tighter somewhere: KL beats the multiplicative form by orders of magnitude at large p
    assert ch.kl_upper(0.15, 100, 0.8) < 1e-3 * ch.upper(0.15 / 0.8, 80.0)


def test_closed_forms_and_exact_ends():
    """Values from the printed formulas; KL is exact at X̄ = 1 and 0 beyond it."""
    assert ch.upper(1.0, 5.0) == pytest.approx((math.e / 4) ** 5, rel=1e-14)
    assert ch.lower(0.5, 4.0) == pytest.approx((math.exp(-0.5) / 0.5**0.5) ** 4, rel=1e-14)
    assert ch.lower(1.0, 3.0) == pytest.approx(math.exp(-3.0), rel=1e-15)  # Pr[X = 0] ≤ e^{−μ}
    assert ch.two_sided(0.5, 30.0) == pytest.approx(2 * math.exp(-0.25 * 30 / 3), rel=1e-15)
    assert ch.kl_upper(0.7, 12, 0.3) == pytest.approx(0.3**12, rel=1e-12)
    assert ch.kl_upper(0.8, 12, 0.3) == 0.0 and ch.kl_lower(0.3, 12, 0.3) == pytest.approx(
        0.7**12, rel=1e-12
    )
    assert ch.two_sided_delta(ch.two_sided(0.4, 50.0), 50.0) == pytest.approx(0.4, rel=1e-13)
    t = ch.bernstein_deviation(0.3, 2.0, 1.5)
    assert ch.bernstein_exponent(t, 2.0, 1.5) == pytest.approx(0.3, rel=1e-14)
    assert ch.bernstein_deviation(1.0, 1e300, 1e300) == pytest.approx(
        1e300 * (1 / 3 + math.sqrt(1 / 9 + 2e-300)), rel=1e-12
    )


def test_bernoulli_kl_values_and_both_conventions():
    """D(a‖b) is the Bernoulli KL inside (0, 1); the ends are exact by default and +∞ under Glance's convention."""
    a, b = np.array([0.1, 0.5, 0.9, 0.3]), np.array([0.2, 0.5, 0.4, 0.7])
    assert np.allclose(ch.bernoulli_kl(a, b), rel_entr(a, b) + rel_entr(1 - a, 1 - b), atol=1e-15)
    ends = ch.bernoulli_kl(
        [0.0, 1.0, 0.0, 1.0, 0.0, 0.4, -0.1, 1.2], [0.3, 0.3, 0.0, 1.0, 1.0, 0.0, 0.3, 0.3]
    )
    assert np.allclose(ends[:2], [-math.log(0.7), -math.log(0.3)], rtol=1e-15)
    assert ends[2:4].tolist() == [0.0, 0.0] and np.all(np.isinf(ends[4:]))
    paper = ch.bernoulli_kl(
        [0.0, 1.0, 0.0, 0.4, 0.5], [0.3, 0.3, 0.0, 1.0, 0.5], boundary_infinite=True
    )
    assert np.all(np.isinf(paper[:4])) and paper[4] == 0.0


def test_vectorized_with_broadcasting_and_scalars_stay_scalars():
    """Array inputs broadcast element by element; scalar inputs give Python floats."""
    d, mu = np.array([[0.1], [0.5]]), np.array([10.0, 100.0, 1000.0])
    out = ch.upper_simple(d, mu)
    assert out.shape == (2, 3) and out[1, 2] == ch.upper_simple(0.5, 1000.0)
    assert isinstance(ch.two_sided(0.5, 10.0), float) and isinstance(
        ch.bernoulli_kl(0.2, 0.4), float
    )
    kl = ch.kl_upper(np.array([0.05, 0.1]), np.array([[10], [100]]), 0.3)
    assert kl.shape == (2, 2) and kl[1, 0] == ch.kl_upper(0.05, 100, 0.3)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: ch.upper_simple(1.5, 10.0),
            r"delta must be finite values in \[0, 1\]; got an array containing 1.5",
        ),
        (
            lambda: ch.upper(-0.1, 10.0),
            r"delta must be finite values in \[0, inf\); got an array containing -0.1",
        ),
        (
            lambda: ch.two_sided(0.5, -1.0),
            r"mu must be finite values in \[0, inf\); got an array containing -1.0",
        ),
        (lambda: ch.kl_upper(0.1, 0, 0.3), r"n must be integers in \[1, inf\]"),
        (lambda: ch.kl_upper(0.1, 2.5, 0.3), r"n must be an array of integers"),
        (
            lambda: ch.kl_lower(0.1, 10, 1.3),
            r"p must be finite values in \[0, 1\]; got an array containing 1.3",
        ),
        (lambda: ch.bernoulli_kl(0.5, np.nan), r"b must be finite values in \[0, 1\]"),
        (
            lambda: ch.bernstein_exponent(0.1, 0.0, 1.0),
            r"variance must be finite values in \(0, inf\)",
        ),
        (lambda: ch.two_sided_delta(0.0, 10.0), r"probability must be finite values in \(0, 1\]"),
        (lambda: ch.tail_comparison("hoeffding", 10, 0.3, 0.1), r"bound must be one of \("),
    ],
)
def test_validation_names_parameter_value_and_range(call, message):
    """A bad argument raises ValueError naming the parameter, the value and the allowed range."""
    with pytest.raises(ValueError, match=message):
        call()


def test_tail_check_collects_bounds_and_decides_whether_all_hold():
    """tail_check: every named bound beside one exact tail; holds is False as soon as one bound dips below it."""
    from ldp_helpers.bounds.chernoff import tail_check, tail_comparison

    delta = np.linspace(0.05, 0.9, 30)
    check = tail_check(("two_sided", "kl_two_sided"), 500, 0.3, delta)
    bound, exact, ratio = tail_comparison("two_sided", 500, 0.3, delta)
    np.testing.assert_array_equal(check.values["two_sided"], bound)
    np.testing.assert_array_equal(check.exact, exact)
    np.testing.assert_array_equal(check.ratio, ratio)
    assert check.holds
    broken = type(check)({"too small": exact / 2}, exact, ratio)
    assert not broken.holds
    with pytest.raises(ValueError, match="bounds must name"):
        tail_check((), 500, 0.3, delta)


# ---------------------------------------------------------------- the printed forms against their derived forms


def test_multiplicative_bounds_equal_their_printed_products():
    """Thms 4.4/4.5: exp(−μ((1+δ)log(1+δ) − δ)) = (e^δ/(1+δ)^{1+δ})^μ and exp(−μ(δ + (1−δ)log(1−δ))) =
    (e^{−δ}/(1−δ)^{1−δ})^μ to 1e-12 where the products are finite; (A-3) is twice the upper simple form."""
    d, mu = np.linspace(0.0, 5.0, 51)[:, None], np.array([0.5, 3.0, 40.0])
    np.testing.assert_allclose(ch.upper(d, mu), (np.exp(d) / (1 + d) ** (1 + d)) ** mu, rtol=1e-12)
    d_unit = DELTA_UNIT[
        :-1, None
    ]  # (1 − δ)^{1−δ} → 1 at δ = 1 (0^0), checked in test_closed_forms_and_exact_ends
    np.testing.assert_allclose(
        ch.lower(d_unit, mu), (np.exp(-d_unit) / (1 - d_unit) ** (1 - d_unit)) ** mu, rtol=1e-12
    )
    assert np.array_equal(ch.two_sided(DELTA_UNIT, 7.0), 2 * ch.upper_simple(DELTA_UNIT, 7.0))


def test_kl_tails_are_exp_of_minus_n_times_the_bernoulli_kl():
    """exp(−n D(p ± t‖p)) with D from scipy's rel_entr, to 1e-12 inside (0, 1)."""
    t, p = np.linspace(0.0, 0.25, 26), 0.4

    def kl(a):
        return rel_entr(a, p) + rel_entr(1 - a, 1 - p)

    np.testing.assert_allclose(ch.kl_upper(t, 30, p), np.exp(-30 * kl(p + t)), rtol=1e-12)
    np.testing.assert_allclose(ch.kl_lower(t, 30, p), np.exp(-30 * kl(p - t)), rtol=1e-12)


def test_bernstein_exponent_as_printed_equals_its_scaled_form():
    """t²/(2(σ² + Mt/3)) equals (t²/(2σ²))/(1 + (M/σ²)t/3), the form [glance]'s condition (2) prints, to 1e-12,
    from tiny to huge scales (Glance's e^ε up to 1e150)."""
    t = np.geomspace(1e-8, 1e150, 60)
    for var, bound in ((2.0, 1.5), (1e-6, 1.0), (1e150, 1e150), (0.3, 1e-3)):
        np.testing.assert_allclose(
            ch.bernstein_exponent(t, var, bound),
            (t**2 / (2 * var)) / (1 + (bound / var) * t / 3),
            rtol=1e-12,
        )


def test_tail_check_refuses_an_unknown_bound_naming_bounds():
    """A name outside BOUNDS is refused before any work, naming the parameter ``bounds``."""
    with pytest.raises(ValueError, match="bounds must be names among"):
        ch.tail_check(("two_sided", "hoeffding"), 500, 0.3, 0.2)
    with pytest.raises(
        ValueError, match=r"p must be finite values in \(0, 1\)|p must be in \(0, 1\)"
    ):
        ch.tail_comparison("two_sided", 500, 0.0, 0.2)


def test_upper_at_mu_zero_is_one_even_where_the_exponent_overflows():
    """μ = 0: the bound is e^0 = 1 for every δ; at δ = 1e308 the exponent (1+δ)log(1+δ) − δ overflows and
    0·∞ gave NaN."""
    assert ch.upper(1e308, 0.0) == 1.0
    assert ch.upper([1.0, 1e200, 1e308], 0.0).tolist() == [1.0, 1.0, 1.0]
    assert ch.upper(1e308, 1.0) == 0.0


def test_two_sided_delta_at_subnormal_probability_or_mu_is_finite():
    """2/p or 3·log(2/p)/μ beyond 1e308 gave δ = ∞; δ = √(3 log(2/p)/μ) is finite for every p, μ > 0."""
    assert ch.two_sided_delta(0.5, 5e-324) == pytest.approx(
        math.sqrt(3 * math.log(4)) / math.sqrt(5e-324)
    )
    assert ch.two_sided_delta(5e-324, 1.0) == pytest.approx(
        math.sqrt(3 * (math.log(2) - math.log(5e-324)))
    )
    assert ch.two_sided_delta([0.1, 0.5], 2.0).tolist() == [
        math.sqrt(3 * math.log(2 / p) / 2.0) for p in (0.1, 0.5)
    ]


def test_bernstein_exponent_and_deviation_beyond_double_squares_are_finite():
    """t² or 2σ²x beyond 1e308 gave ∞ where the exponent (≈ 3t/(2M)) and the deviation are finite; the two stay
    inverse to each other there."""
    assert ch.bernstein_exponent(1e300, 1.0, 1.0) == pytest.approx(1e300 / (2 * (1e-300 + 1 / 3)))
    assert ch.bernstein_deviation(1e300, 1e300, 1e-300) == pytest.approx(math.sqrt(2) * 1e300)
    t = ch.bernstein_deviation(1e200, 1e200, 1.0)
    assert ch.bernstein_exponent(t, 1e200, 1.0) == pytest.approx(1e200, rel=1e-12)


@pytest.mark.parametrize("a, b", [(0.3, 5e-324), (0.1, 1e-310), (0.1, 5e-324), (0.5, 1e-300)])
def test_bernoulli_kl_at_a_subnormal_b_is_finite_and_exact(a, b):
    """a/b beyond 1e308 (b subnormal): a·log(a/b) overflowed (a warning, D = ∞) where D is about
    a·(log a − log b), finite; now within 4 ulp of 50-digit mpmath, and so is kl_upper's exponent."""
    import mpmath

    with mpmath.workdps(50):
        A, B = mpmath.mpf(a), mpmath.mpf(b)
        exact = float(A * mpmath.log(A / B) + (1 - A) * mpmath.log((1 - A) / (1 - B)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ch.bernoulli_kl(a, b) == pytest.approx(exact, rel=1e-15)
        assert ch.bernoulli_kl(a, b, boundary_infinite=True) == pytest.approx(exact, rel=1e-15)
        # p + t = a: e^{−n D} with D ≈ 70, so 0 at n = 100 and e^{−D} at n = 1
        assert ch.kl_upper(a - b, 1, b) == pytest.approx(math.exp(-exact), rel=1e-13)
        assert ch.kl_upper(a - b, 100, b) == 0.0


@pytest.mark.parametrize(
    "delta, mu",
    [(1e-9, 2e18), (1e-6, 2e12), (1e-3, 2e6), (0.0999, 100.0), (0.1, 100.0), (0.5, 10.0)],
)
def test_multiplicative_exponents_keep_their_digits_as_delta_goes_to_0(delta, mu):
    """(1 + δ)log(1 + δ) − δ and δ + (1 − δ)log(1 − δ) cancel to ±δ²/2 + …: at δ = 1e-9 the closed forms were
    1.5e-7 and 2.6e-7 off; each bound within 1e-13 of 50-digit mpmath (the series below δ = 0.1, the closed form
    above it)."""
    import mpmath

    with mpmath.workdps(50):
        d, m = mpmath.mpf(delta), mpmath.mpf(mu)
        up = float(mpmath.exp(-m * ((1 + d) * mpmath.log1p(d) - d)))
        low = float(mpmath.exp(-m * (d + (1 - d) * mpmath.log1p(-d))))
    assert float(ch.upper(delta, mu)) == pytest.approx(up, rel=1e-13, abs=0.0)
    assert float(ch.lower(delta, mu)) == pytest.approx(low, rel=1e-13, abs=0.0)


@pytest.mark.parametrize(
    "a, b",
    [(0.300000001, 0.3), (0.3 - 1e-12, 0.3), (1e-6 + 1e-15, 1e-6), (0.99, 0.95), (0.2, 0.5)]
    + [(2e-20, 1e-20), (2e-10, 1e-10), (1 - 4e-9, 1 - 2e-9), (0.5, 1e-300)],
)
def test_bernoulli_kl_near_its_zero_is_within_1e_13_of_mpmath(a, b):
    """D(a‖b) ≈ (a − b)²/(2b(1 − b)) for a near b, where a·log(a/b) + (1−a)·log((1−a)/(1−b)) cancelled: it
    read 5.8e-17 for D(0.300000001‖0.3) = 2.4e-18, and kl_upper(1e-9, 4.2e17, 0.3) = 2.8e-11 for 0.368; and a
    ratio near 1 of a small b (or of a b near 1) rounded to 1: D(2e-20‖1e-20) read 3.6 times its value."""
    import mpmath

    with mpmath.workdps(80):  # the ratios as log1p's: 1 − 1e-20 needs no 80-digit 1
        A, B = mpmath.mpf(a), mpmath.mpf(b)
        exact = float(A * mpmath.log(A / B) + (1 - A) * mpmath.log1p((B - A) / (1 - B)))
    assert float(ch.bernoulli_kl(a, b)) == pytest.approx(exact, rel=1e-13, abs=0.0)
    assert float(ch.bernoulli_kl(a, b, boundary_infinite=True)) == pytest.approx(
        exact, rel=1e-13, abs=0.0
    )
    n, t = 420_000_000_000_000_000, 1e-9
    with mpmath.workdps(50):
        A, B = mpmath.mpf(0.3) + mpmath.mpf(t), mpmath.mpf(0.3)
        tail = float(
            mpmath.exp(-n * (A * mpmath.log(A / B) + (1 - A) * mpmath.log((1 - A) / (1 - B))))
        )
    assert float(ch.kl_upper(t, n, 0.3)) == pytest.approx(tail, rel=1e-6)  # p + t rounds by 1e-17
