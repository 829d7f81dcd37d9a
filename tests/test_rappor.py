"""RAPPOR parameters, client and exact privacy (tables on small k)."""

import hashlib
import math

import numpy as np
import pytest

from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.mechanisms.rappor import (
    RapporParams,
    all_bloom_filters,
    bloom_filter,
    draw_secret,
    exact_privacy,
    hash_index,
    hash_indices,
    instantaneous_randomized_response,
    permanent_randomized_response,
    report_table,
    tutorial_printed_epsilon_one_report,
    tutorial_printed_p_star,
)
from stat_checks import assert_mean_close

PARAMS = [
    dict(f=0.0, p=0.5, q=0.75),  # seed 001's basic one-time (IRR only)
    dict(f=0.5, p=0.5, q=0.75),  # RAPPOR's default PRR + IRR
    dict(f=0.25, p=0.35, q=0.65),
    dict(f=0.5, p=0.0, q=1.0),  # RAPPOR's one-time (PRR only)
]

# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("kw", PARAMS)
@pytest.mark.parametrize("h", [1, 2, 3])
def test_whole_report_table_gives_epsilon_one_report(kw, h):
    """max_privacy_loss over all Bloom filters of a k=6 report equals h ln(q*(1−p*)/(p*(1−q*)))."""
    params = RapporParams(k=6, h=h, m=1, **kw)
    loss = max_privacy_loss(report_table(all_bloom_filters(6, h), params.bit_table()))
    assert loss == pytest.approx(params.epsilon_one_report, rel=1e-12)


@pytest.mark.parametrize("h", [1, 2, 3])
@pytest.mark.parametrize("f", [0.1, 0.5, 0.9])
def test_prr_table_gives_epsilon_permanent(h, f):
    """The memoized B' of k=6 filters has privacy loss exactly ε∞ = 2h ln((1−f/2)/(f/2))."""
    params = RapporParams(k=6, h=h, m=1, f=f, p=0.5, q=0.75)
    loss = max_privacy_loss(report_table(all_bloom_filters(6, h), params.prr_bit_table()))
    assert loss == pytest.approx(params.epsilon_permanent, rel=1e-12)
    assert params.epsilon_permanent == pytest.approx(2 * h * math.log((1 - f / 2) / (f / 2)), rel=1e-14)


def test_basic_one_time_is_h_ln3_and_has_no_permanent_bound():
    """Seed 001's parameters (f=0, p=1/2, q=3/4) give ε = h ln 3 per report and ε∞ = ∞."""
    for h in (1, 2, 4, 8, 16, 32):
        params = RapporParams.basic_one_time(k=128, h=h, m=8)
        assert params.epsilon_one_report == pytest.approx(h * math.log(3), rel=1e-14)
        assert params.epsilon_permanent == math.inf


def test_one_time_rappor_one_report_equals_permanent_bound():
    """PRR only (p=0, q=1): the report is B' itself, so ε(one report) = ε∞."""
    params = RapporParams(k=8, h=2, m=1, f=0.5, p=0.0, q=1.0)
    assert params.epsilon_one_report == pytest.approx(params.epsilon_permanent, rel=1e-14)


@pytest.mark.parametrize("epsilon,h", [(0.5, 1), (math.log(3), 2), (4.0, 3)])
def test_basic_one_time_at_epsilon(epsilon, h):
    """The IRR q solved for a target ε gives a report table (all k=6 filters) with exactly that ε."""
    params = RapporParams.basic_one_time_at_epsilon(epsilon, k=6, h=h, m=1)
    assert params.h == h and params.p == 0.5 and params.q > 0.5
    loss = max_privacy_loss(report_table(all_bloom_filters(6, h), params.bit_table()))
    assert loss == pytest.approx(epsilon, rel=1e-10)


def test_basic_one_time_at_epsilon_with_eight_hashes():
    """At h = 8 the solved q makes two disjoint 8-bit filters (k = 16, the worst pair) exactly ε apart."""
    params = RapporParams.basic_one_time_at_epsilon(4.0, k=16, h=8, m=1)
    disjoint = np.kron(np.eye(2, dtype=np.int8), np.ones((1, 8), dtype=np.int8))
    assert max_privacy_loss(report_table(disjoint, params.bit_table())) == pytest.approx(4.0, rel=1e-10)
    assert params.q == pytest.approx(1 / (1 + math.exp(-0.5)), rel=1e-14)  # odds e^{ε/h} at p = 1/2


def test_basic_one_time_at_epsilon_with_32_hashes():
    """At h = 32 (k = 128) the solved q gives ε₁ = ε; a weaker IRR than at h = 1 (q closer to 1/2)."""
    params = RapporParams.basic_one_time_at_epsilon(4.0, k=128, h=32, m=8)
    assert params.epsilon_one_report == pytest.approx(4.0, rel=1e-12)
    assert 0.5 < params.q < RapporParams.basic_one_time_at_epsilon(4.0, k=128, h=1, m=8).q


def test_basic_one_time_at_epsilon_refuses_q_rounding_to_one():
    """ε/h so large that q rounds to 1 (ε = ∞, not the ε asked for) raises instead of returning q = 1."""
    with pytest.raises(ValueError, match=r"epsilon must be below about 36\.74 for h=1, p=0\.5.*got 100\.0"):
        RapporParams.basic_one_time_at_epsilon(100.0, 8, 1, 1)
    assert RapporParams.basic_one_time_at_epsilon(100.0, 8, 8, 1).epsilon_one_report == pytest.approx(100.0, rel=1e-9)


def test_p_star_q_star_compose_prr_and_irr():
    """q*, p* equal the PRR table times the IRR table; the tutorial's printed p' does not (f > 0)."""
    params = RapporParams(k=4, h=1, m=1, f=0.4, p=0.3, q=0.8)
    irr = np.array([[1 - params.p, params.p], [1 - params.q, params.q]])
    composed = params.prr_bit_table() @ irr
    assert np.allclose(composed, params.bit_table(), atol=1e-15)
    assert tutorial_printed_p_star(params.f, params.p) != pytest.approx(params.p_star)
    no_prr = RapporParams(k=4, h=1, m=1, f=0.0, p=0.3, q=0.8)
    assert tutorial_printed_p_star(0.0, no_prr.p) == pytest.approx(no_prr.p_star, abs=1e-15)


def test_tutorial_epsilon_uses_the_printed_p_prime():
    """The tutorial's ε₂ with p' = ½f(p+1) + (1−f)p: f = 0.5, p = 0.5, q = 0.75, h = 2 gives 2 ln(0.6875·0.375/(0.625·0.3125))."""
    params = RapporParams(k=8, h=2, m=1, f=0.5, p=0.5, q=0.75)
    expected = 2 * math.log(0.6875 * 0.375 / (0.625 * 0.3125))
    assert tutorial_printed_epsilon_one_report(params) == pytest.approx(expected, rel=1e-14)
    assert tutorial_printed_epsilon_one_report(params) < params.epsilon_one_report
    no_prr = RapporParams(k=8, h=2, m=1, f=0.0, p=0.5, q=0.75)
    assert tutorial_printed_epsilon_one_report(no_prr) == pytest.approx(no_prr.epsilon_one_report, rel=1e-14)


@pytest.mark.parametrize("kw", PARAMS)
def test_exact_privacy_matches_the_closed_forms(kw):
    """exact_privacy (all k=6 filters with h=2) equals ε₁ and ε∞ (both ∞ when f = 0 for ε∞)."""
    params = RapporParams(k=6, h=2, m=1, **kw)
    exact = exact_privacy(params)
    assert exact.one_report == pytest.approx(params.epsilon_one_report, rel=1e-12)
    assert exact.permanent == pytest.approx(params.epsilon_permanent, rel=1e-12)


def test_report_table_rows_are_distributions():
    """Every row of a report table sums to 1 and has 2^k outputs."""
    table = report_table(all_bloom_filters(5, 2), RapporParams(k=5, h=2, m=1, f=0.3, p=0.4, q=0.7).bit_table())
    assert table.shape == (5 + 10, 32)
    assert np.allclose(table.sum(axis=1), 1.0, atol=1e-14)


def test_hash_matches_seed_string_format():
    """hash_index reproduces seed 001's SHA-256 input "secret_cc_jjj_ii" (1-based j and i)."""
    expected = int(hashlib.sha256(b"0.5secret_03_007_02").hexdigest(), 16) % 128
    assert hash_index("0.5secret", 3, 6, 1, 128) == expected


@pytest.mark.parametrize("k", [1, 7, 128, 1000])
def test_vectorized_hash_indices_equal_the_literal_hash(k):
    """hash_indices (numpy mod of the digest bytes) equals int(hexdigest, 16) % k for every (candidate, hash)."""
    params = RapporParams.basic_one_time(k=k, h=min(k, 5), m=3)
    got = hash_indices("0.25secret", 2, 12, params)
    expected = [[hash_index("0.25secret", 2, w, i, k) for i in range(params.h)] for w in range(12)]
    assert np.array_equal(got, expected)


def test_bloom_filter_sets_at_most_h_bits_and_is_deterministic(rng):
    """A Bloom filter has 1..h ones and depends only on (secret, cohort, candidate)."""
    params = RapporParams.basic_one_time(k=32, h=4, m=3)
    secret = draw_secret(rng=rng)
    a = bloom_filter(secret, 2, 17, params)
    assert 1 <= a.sum() <= 4
    assert np.array_equal(a, bloom_filter(secret, 2, 17, params))
    assert draw_secret(rng=np.random.default_rng(3)) == draw_secret(rng=np.random.default_rng(3))


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(k=0, h=1, m=1, f=0, p=0.5, q=0.75), r"k must be an integer in \[1, inf\]"),
        (dict(k=8, h=9, m=1, f=0, p=0.5, q=0.75), r"h must be an integer in \[1, 8\]"),
        (dict(k=8, h=2, m=0, f=0, p=0.5, q=0.75), r"m must be an integer in \[1, inf\]"),
        (dict(k=8, h=2, m=1, f=1.0, p=0.5, q=0.75), r"f must be in \[0, 1\)"),
        (dict(k=8, h=2, m=1, f=0, p=0.75, q=0.5), "q must be greater than p"),
        (dict(k=8, h=2, m=1, f=math.nan, p=0.5, q=0.75), "f must be finite"),
    ],
)
def test_params_reject_bad_values(kw, match):
    """Out-of-range k, h, m, f or q ≤ p raise a ValueError naming the parameter."""
    with pytest.raises(ValueError, match=match):
        RapporParams(**kw)


def test_client_validates_shapes(rng):
    """Reports need an (n, k) array of 0/1 Bloom bits."""
    params = RapporParams.basic_one_time(k=8, h=2, m=1)
    with pytest.raises(ValueError, match=r"blooms must have shape \(n_reports, k=8\)"):
        params.report(np.zeros((3, 7), dtype=int), rng=rng)
    with pytest.raises(ValueError, match="blooms must be an array of 0/1 values"):
        params.report(np.full((3, 8), 2), rng=rng)
    with pytest.raises(ValueError, match=r"q must be greater than p=0\.6"):
        instantaneous_randomized_response(np.ones(4, dtype=int), 0.6, 0.4, rng=rng)


def test_prr_and_irr_are_binary_rr(rng):
    """PRR is BinaryRR(1 − f/2, f/2) and IRR is BinaryRR(q, p): same draws from the same stream."""
    bits = np.random.default_rng(1).integers(0, 2, size=(50, 16))
    for seed in (2, 3):
        prr = permanent_randomized_response(bits, 0.4, rng=np.random.default_rng(seed))
        assert np.array_equal(prr, BinaryRR(p=0.8, q=0.2).perturb(bits, rng=np.random.default_rng(seed)))
        irr = instantaneous_randomized_response(bits, 0.3, 0.7, rng=np.random.default_rng(seed))
        assert np.array_equal(irr, BinaryRR(p=0.7, q=0.3).perturb(bits, rng=np.random.default_rng(seed)))


def test_degenerate_prr_and_irr_sides_are_exact(rng):
    """f = 0 PRR and p = 0, q = 1 IRR are the identity; p = 0 never reports 1 for an unset bit."""
    bits = np.random.default_rng(1).integers(0, 2, size=(200, 16))
    assert np.array_equal(permanent_randomized_response(bits, 0.0, rng=rng), bits)
    assert np.array_equal(instantaneous_randomized_response(bits, 0.0, 1.0, rng=rng), bits)
    assert np.all(instantaneous_randomized_response(bits, 0.0, 0.8, rng=rng)[bits == 0] == 0)
    assert np.all(instantaneous_randomized_response(bits, 0.3, 1.0, rng=rng)[bits == 1] == 1)


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
@pytest.mark.parametrize("f", [0.0, 0.5])
def test_client_bit_frequencies_match_p_star_q_star(rng, f):
    """Per-report client: set bits report 1 w.p. q*, unset bits w.p. p* (PRR + IRR composed)."""
    params = RapporParams(k=16, h=2, m=1, f=f, p=0.5, q=0.75)
    n = 20_000
    blooms = np.zeros((n, 16), dtype=np.int8)
    blooms[:, :4] = 1
    reports = params.report(blooms, rng=rng)
    for bit, prob in ((slice(0, 4), params.q_star), (slice(4, 16), params.p_star)):
        assert_mean_close(reports[:, bit], prob, prob * (1 - prob))


@pytest.mark.statistical
def test_prr_and_irr_each_match_their_tables(rng):
    """PRR keeps a bit w.p. 1 − f/2; IRR reports 1 w.p. q (bit 1) and p (bit 0)."""
    n = 100_000
    ones, zeros = np.ones(n, dtype=np.int8), np.zeros(n, dtype=np.int8)
    assert_mean_close(permanent_randomized_response(ones, 0.5, rng=rng), 0.75, 0.75 * 0.25)
    assert_mean_close(permanent_randomized_response(zeros, 0.5, rng=rng), 0.25, 0.75 * 0.25)
    assert_mean_close(instantaneous_randomized_response(ones, 0.3, 0.8, rng=rng), 0.8, 0.8 * 0.2)
    assert_mean_close(instantaneous_randomized_response(zeros, 0.3, 0.8, rng=rng), 0.3, 0.3 * 0.7)
    assert_mean_close(instantaneous_randomized_response(ones, 0.0, 0.8, rng=rng), 0.8, 0.8 * 0.2)
    assert_mean_close(instantaneous_randomized_response(zeros, 0.3, 1.0, rng=rng), 0.3, 0.3 * 0.7)
