"""RAPPOR as a Mechanism: parameters, Bloom hashing, client (stub RNG), exact privacy, sampler and estimator."""

import hashlib
import math

import numpy as np
import pytest
from stat_checks import (
    assert_mean_close,
    assert_variance_close,
    chisquare_pvalue,
    two_sample_pvalue,
)

from ldp_helpers.bounds.rappor import tutorial_printed_epsilon_one_report, tutorial_printed_p_star
from ldp_helpers.experiments.privacy_audit import memoized_limits
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.pure import expected_support_count, support_count_pmf
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams, RapporReports
from ldp_helpers.mechanisms.rappor_client import (
    all_bloom_filters,
    bloom_filters,
    draw_secret,
    hash_index,
    instantaneous_randomized_response,
    permanent_randomized_response,
    report_table,
)

PARAMS = [
    dict(f=0.0, p=0.5, q=0.75),  # seed 001's basic one-time (IRR only)
    dict(f=0.5, p=0.5, q=0.75),  # RAPPOR's default PRR + IRR
    dict(f=0.25, p=0.35, q=0.65),
    dict(f=0.5, p=0.0, q=1.0),  # RAPPOR's one-time (PRR only)
]
TRUTH = np.array([[20, 5, 0, 9, 6], [3, 12, 15, 0, 10]])


def make(params, n_candidates=5, seed=7) -> Rappor:
    return Rappor.create(params, n_candidates, rng=np.random.default_rng(seed))


class StubGenerator(np.random.Generator):
    """A Generator whose ``random`` returns fixed uniforms (rappor's MockRandom): exact client tests."""

    def __init__(self, uniforms):
        super().__init__(np.random.PCG64(0))
        self.uniforms = np.asarray(uniforms, dtype=float)

    def random(self, size=None, dtype=np.float64, out=None):
        return np.broadcast_to(self.uniforms, size).copy()


# ---------------------------------------------------------------- exact: privacy


@pytest.mark.parametrize("kw", PARAMS)
@pytest.mark.parametrize("k,h", [(6, 1), (6, 2), (6, 3), (4, 3), (5, 4)])
def test_privacy_loss_of_the_whole_report_is_epsilon(kw, k, h):
    """max_privacy_loss over every Bloom filter equals Rappor.epsilon, also when 2h > k (no disjoint filters)."""
    mechanism = make(RapporParams(k=k, h=h, m=1, **kw), n_candidates=3)
    assert mechanism.privacy_loss() == pytest.approx(mechanism.epsilon, rel=1e-12)
    par = mechanism.params
    rappor_eps1 = h * math.log(par.q_star * (1 - par.p_star) / (par.p_star * (1 - par.q_star)))
    if 2 * h <= k:
        assert mechanism.epsilon == pytest.approx(rappor_eps1, rel=1e-14)
    else:
        assert mechanism.epsilon < rappor_eps1


@pytest.mark.parametrize("h", [1, 2, 3])
@pytest.mark.parametrize("f", [0.1, 0.5, 0.9])
def test_prr_only_report_has_the_permanent_epsilon(h, f):
    """The memoized B' sent alone (one-time RAPPOR) has exact ε = ε∞ = 2h ln((1−f/2)/(f/2)) (k = 6)."""
    params = RapporParams(k=6, h=h, m=1, f=f, p=0.5, q=0.75)
    assert make(params.prr_only(), 2).privacy_loss() == pytest.approx(
        params.epsilon_permanent, rel=1e-12
    )
    assert max_privacy_loss(
        report_table(all_bloom_filters(6, h), params.prr_bit_table())
    ) == pytest.approx(params.epsilon_permanent, rel=1e-12)
    assert params.epsilon_permanent == pytest.approx(
        2 * h * math.log((1 - f / 2) / (f / 2)), rel=1e-14
    )
    assert make(params, 2).epsilon_permanent == params.epsilon_permanent


def test_basic_one_time_is_h_ln3_and_has_no_permanent_bound():
    """Seed 001's parameters (f=0, p=1/2, q=3/4) give ε = h ln 3 per report and ε∞ = ∞."""
    for h in (1, 2, 4, 8, 16, 32):
        params = RapporParams.basic_one_time(k=128, h=h, m=8)
        assert params.epsilon_one_report == pytest.approx(h * math.log(3), rel=1e-14)
        assert params.epsilon_permanent == math.inf


@pytest.mark.parametrize("epsilon,h", [(0.5, 1), (math.log(3), 2), (4.0, 3)])
def test_basic_one_time_at_epsilon(epsilon, h):
    """The IRR q solved for a target ε gives a whole-report table (k = 6) with exactly that ε."""
    params = RapporParams.basic_one_time_at_epsilon(epsilon, k=6, h=h, m=1)
    assert params.h == h and params.p == 0.5 and params.q > 0.5
    assert make(params, 2).privacy_loss() == pytest.approx(epsilon, rel=1e-10)


def test_basic_one_time_at_epsilon_with_many_hashes():
    """h = 8: two disjoint 8-bit filters are exactly ε apart; h = 32: weaker IRR than h = 1 at the same ε."""
    params = RapporParams.basic_one_time_at_epsilon(4.0, k=16, h=8, m=1)
    disjoint = np.kron(np.eye(2, dtype=np.int8), np.ones((1, 8), dtype=np.int8))
    assert max_privacy_loss(report_table(disjoint, params.bit_table())) == pytest.approx(
        4.0, rel=1e-10
    )
    assert params.q == pytest.approx(1 / (1 + math.exp(-0.5)), rel=1e-14)  # odds e^{ε/h} at p = 1/2
    many = RapporParams.basic_one_time_at_epsilon(4.0, k=128, h=32, m=8)
    assert many.epsilon_one_report == pytest.approx(4.0, rel=1e-12)
    assert 0.5 < many.q < RapporParams.basic_one_time_at_epsilon(4.0, k=128, h=1, m=8).q


def test_basic_one_time_at_epsilon_refuses_q_rounding_to_one():
    """ε/h so large that q rounds to 1 (ε = ∞, not the ε asked for) raises, naming epsilon and its range."""
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 36\.7368\); got 100\.0"):
        RapporParams.basic_one_time_at_epsilon(100.0, 8, 1, 1)
    assert RapporParams.basic_one_time_at_epsilon(
        100.0, 16, 8, 1
    ).epsilon_one_report == pytest.approx(100.0, rel=1e-9)
    with pytest.raises(
        ValueError, match=r"k must be an integer in \[16, inf\]; got 8"
    ):  # 2h > k: ε₁ is not exact
        RapporParams.basic_one_time_at_epsilon(4.0, 8, 8, 1)


def test_p_star_q_star_compose_prr_and_irr():
    """q*, p* equal the PRR table times the IRR table; the tutorial's printed p' does not (f > 0)."""
    params = RapporParams(k=4, h=1, m=1, f=0.4, p=0.3, q=0.8)
    irr = np.array([[1 - params.p, params.p], [1 - params.q, params.q]])
    assert np.allclose(params.prr_bit_table() @ irr, params.bit_table(), atol=1e-15)
    assert tutorial_printed_p_star(params.f, params.p) != pytest.approx(params.p_star)
    assert tutorial_printed_p_star(0.0, 0.3) == pytest.approx(
        RapporParams(k=4, h=1, m=1, f=0.0, p=0.3, q=0.8).p_star
    )


def test_bit_channel_is_the_collections_convention():
    """bit_channel names RAPPOR's (q*, p*) as the collection's p = Pr[1 | 1] > q = Pr[1 | 0]."""
    params = RapporParams(k=4, h=1, m=1, f=0.4, p=0.3, q=0.8)
    channel = params.bit_channel
    assert (channel.p, channel.q) == (params.q_star, params.p_star) and channel.p > channel.q
    assert np.allclose(params.bit_table()[:, 1], [channel.q, channel.p])


def test_tutorial_epsilon_uses_the_printed_p_prime():
    """The tutorial's ε₂ with p' = ½f(p+1) + (1−f)p: f = 0.5, p = 0.5, q = 0.75, h = 2 gives 2 ln(0.6875·0.375/(0.625·0.3125))."""
    params = RapporParams(k=8, h=2, m=1, f=0.5, p=0.5, q=0.75)
    expected = 2 * math.log(0.6875 * 0.375 / (0.625 * 0.3125))
    assert tutorial_printed_epsilon_one_report(params) == pytest.approx(expected, rel=1e-14)
    assert tutorial_printed_epsilon_one_report(params) < params.epsilon_one_report
    no_prr = RapporParams(k=8, h=2, m=1, f=0.0, p=0.5, q=0.75)
    assert tutorial_printed_epsilon_one_report(no_prr) == pytest.approx(
        no_prr.epsilon_one_report, rel=1e-14
    )


def test_output_table_rows_and_size_limit():
    """The table has one row per filter with 1..h ones and 2^k columns; k > 16 is refused, naming k."""
    mechanism = make(RapporParams(k=5, h=2, m=1, f=0.3, p=0.4, q=0.7), 3)
    table = mechanism.output_table()
    assert table.shape == (5 + 10, 32) and np.allclose(table.sum(axis=1), 1.0, atol=1e-14)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 16\]; got 128"):
        make(RapporParams.basic_one_time(k=128, h=2, m=1), 3).output_table()


# ---------------------------------------------------------------- exact: hashing and validation


def test_hash_matches_seed_string_format():
    """hash_index reproduces seed 001's SHA-256 input "secret_cc_jjj_ii" (1-based j and i)."""
    expected = int(hashlib.sha256(b"0.5secret_03_007_02").hexdigest(), 16) % 128
    assert hash_index("0.5secret", 3, 6, 1, 128) == expected


def test_create_hashes_every_candidate_in_every_cohort():
    """Rappor.create's filters set exactly the hash_index bits; same seed, same design; 1..h ones each."""
    params = RapporParams.basic_one_time(k=32, h=4, m=3)
    mechanism = make(params, 6, seed=1)
    for j in range(3):
        for w in range(6):
            ones = {hash_index(mechanism.secret, j, w, i, 32) for i in range(4)}
            assert set(np.flatnonzero(mechanism.blooms[j, w])) == ones
    assert np.array_equal(mechanism.blooms, make(params, 6, seed=1).blooms)
    assert not np.array_equal(mechanism.blooms, make(params, 6, seed=2).blooms)
    assert mechanism.secret == draw_secret(rng=np.random.default_rng(1))
    assert np.array_equal(bloom_filters(mechanism.secret, 3, 6, 4, 32), mechanism.blooms)


def test_design_matrix_stacks_cohort_blocks():
    """X[j·k + i, w] is bit i of candidate w's filter in cohort j."""
    mechanism = make(RapporParams.basic_one_time(k=16, h=3, m=3), 6)
    for j in range(3):
        assert np.array_equal(mechanism.design_matrix[16 * j : 16 * (j + 1)], mechanism.blooms[j].T)


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(k=0, h=1, m=1, f=0, p=0.5, q=0.75), r"k must be an integer in \[1, inf\]"),
        (dict(k=8, h=9, m=1, f=0, p=0.5, q=0.75), r"h must be an integer in \[1, 8\]"),
        (dict(k=8, h=2, m=0, f=0, p=0.5, q=0.75), r"m must be an integer in \[1, inf\]"),
        (dict(k=8, h=2, m=1, f=1.0, p=0.5, q=0.75), r"f must be in \[0, 1\)"),
        (dict(k=8, h=2, m=1, f=0, p=0.75, q=0.5), r"q must be > p = 0\.75; got 0\.5"),
        (dict(k=8, h=2, m=1, f=math.nan, p=0.5, q=0.75), "f must be finite"),
    ],
)
def test_params_reject_bad_values(kw, match):
    """Out-of-range k, h, m, f or q ≤ p raise a ValueError naming the parameter, value and range."""
    with pytest.raises(ValueError, match=match):
        RapporParams(**kw)


def test_mechanism_validates_its_inputs(rng):
    """Bad filters, values, reports, truth and aggregates: ValueErrors naming the parameter."""
    params = RapporParams.basic_one_time(k=8, h=2, m=2)
    mechanism = make(params)
    cases = [
        (
            lambda: Rappor(params, np.zeros((2, 5, 7), np.int8)),
            r"blooms must be a 3-D array \(m × M × k\) whose last axis has length 8",
        ),
        (
            lambda: Rappor(params, np.ones((2, 5, 8), np.int8)),
            r"ones per Bloom filter must be integers in \[1, 2\]",
        ),
        (
            lambda: Rappor(params, mechanism.blooms[:1]),
            r"blooms.shape\[0\] \(cohorts\) must be an integer in \[2, 2\]; got 1",
        ),
        (
            lambda: mechanism.perturb([[0, 5]], rng=rng),
            r"values\[:, 1\] \(candidates\) must be integers in \[0, 4\]",
        ),
        (
            lambda: mechanism.perturb([0, 1], rng=rng),
            r"values must be a 2-D array of \(cohort, candidate\) rows",
        ),
        (
            lambda: mechanism.aggregate(RapporReports(np.array([0, 2]), np.zeros((2, 8)))),
            r"reports.cohorts must be integers in \[0, 1\]",
        ),
        (
            lambda: mechanism.aggregate(RapporReports(np.array([0]), np.zeros((2, 8)))),
            r"len\(reports.bits\) must be an integer in \[1, 1\]",
        ),
        (
            lambda: mechanism.expand(np.ones((3, 5), int)),
            r"truth must be an array of shape \(2, 5\)",
        ),
        (
            lambda: mechanism.estimand(np.zeros((2, 5), int)),
            r"cohort sizes truth.sum\(axis=1\) must be integers in \[1, inf\]",
        ),
        (
            lambda: mechanism.estimate(np.zeros((2, 7), int), [10, 10]),
            r"aggregate must be an array of shape \(2, 8\) or \(n_draws, 2, 8\)",
        ),
        (
            lambda: mechanism.estimate(np.full((2, 8), 11), [10, 12]),
            r"aggregate\[\.\.\., 0, :\] \(cohort 0: at most n\[0\] reports\) must be integers in \[0, 10\]",
        ),
        (
            lambda: mechanism.estimate(np.full((2, 8), 2.5), [10, 10]),
            r"aggregate must be an array of integers",
        ),
        (
            lambda: mechanism.estimate(np.zeros((2, 8), int), [10, -1]),
            r"n \(cohort sizes\) must be integers in \[0, inf\]",
        ),
        (
            lambda: mechanism.estimate(np.ones((2, 8), int), [10, 0]),
            r"aggregate\[\.\.\., 1, :\] \(cohort 1: at most n\[1\] reports\) must be integers in \[0, 0\]",
        ),
        (
            lambda: instantaneous_randomized_response(np.ones(4, dtype=int), 0.6, 0.4, rng=rng),
            r"q must be > p = 0\.6; got 0\.4",
        ),
    ]
    for call, match in cases:
        with pytest.raises(ValueError, match=match):
            call()


# ---------------------------------------------------------------- exact: client (stub RNG) and estimator


def test_prr_follows_the_paper_line_by_line():
    """PRR with uniforms u: 1 if u < f/2, 0 if f/2 ≤ u < f, else B (f = 0.5)."""
    bits = np.array([[0, 1, 0, 1, 0, 1]])
    uniforms = np.array([0.1, 0.1, 0.3, 0.3, 0.9, 0.9])
    assert np.array_equal(
        permanent_randomized_response(bits, 0.5, rng=StubGenerator(uniforms)), [[1, 1, 0, 0, 0, 1]]
    )
    assert np.array_equal(
        permanent_randomized_response(bits, 0.0, rng=StubGenerator(uniforms)), bits
    )


def test_irr_follows_the_paper_line_by_line():
    """IRR with uniforms u: S = 1 iff u < q on a 1 bit, u < p on a 0 bit (RAPPOR's letters, q > p)."""
    bits = np.array([1, 1, 0, 0, 1, 0])
    uniforms = np.array([0.7, 0.8, 0.2, 0.4, 0.0, 0.99])
    assert np.array_equal(
        instantaneous_randomized_response(bits, 0.3, 0.75, rng=StubGenerator(uniforms)),
        [1, 0, 1, 0, 1, 0],
    )
    assert np.array_equal(
        instantaneous_randomized_response(bits, 0.0, 1.0, rng=StubGenerator(uniforms)), bits
    )


def test_perturb_is_bloom_then_prr_then_irr():
    """perturb = the user's filter, PRR, IRR with the same uniforms; aggregate sums bits per cohort."""
    params = RapporParams(k=8, h=2, m=2, f=0.5, p=0.25, q=0.75)
    mechanism = make(params)
    values = np.array([[0, 1], [1, 3], [1, 0]])
    uniforms = np.linspace(0.01, 0.99, 8)
    reports = mechanism.perturb(values, rng=StubGenerator(uniforms))
    memo = permanent_randomized_response(
        mechanism.blooms[values[:, 0], values[:, 1]], 0.5, rng=StubGenerator(uniforms)
    )
    assert np.array_equal(
        reports.bits,
        instantaneous_randomized_response(memo, 0.25, 0.75, rng=StubGenerator(uniforms)),
    )
    assert np.array_equal(reports.cohorts, values[:, 0])
    counts = mechanism.aggregate(reports)
    assert np.array_equal(counts, [reports.bits[0], reports.bits[1] + reports.bits[2]])


def test_expand_estimand_and_n_reports_agree():
    """expand lists counts[j, w] users (j, w); estimand sums their filters per cohort; n_reports = cohort sizes."""
    mechanism = make(RapporParams.basic_one_time(k=8, h=2, m=2))
    values = mechanism.expand(TRUTH)
    assert values.shape == (TRUTH.sum(), 2)
    t = mechanism.estimand(TRUTH)
    for j in range(2):
        assert np.array_equal(t[j], mechanism.blooms[j, values[values[:, 0] == j, 1]].sum(axis=0))
    assert np.array_equal(mechanism.n_reports(TRUTH), TRUTH.sum(axis=1))


def test_estimand_is_exact_beyond_float64():
    """t[j, i] = Σ_w counts[j, w]·B_jw[i] in exact integers, also for 2^61 + 12345 users of one candidate
    (a float64 product rounded it above 2^53)."""
    mechanism = make(RapporParams.basic_one_time(k=8, h=2, m=2))
    truth = TRUTH.copy()
    truth[0, 0] = 2**61 + 12345
    expected = [
        [
            sum(int(c) * int(b) for c, b in zip(truth[j], mechanism.blooms[j][:, i]))
            for i in range(8)
        ]
        for j in range(2)
    ]
    assert mechanism.estimand(truth).tolist() == expected


def test_estimator_is_exactly_unbiased_and_variance_exact():
    """Over the exact pmf of c = Bin(t, q*) + Bin(N−t, p*), Eq. (3) averages t with Var = Rappor.variance."""
    params = RapporParams(k=4, h=1, m=1, f=0.3, p=0.4, q=0.8)
    mechanism = Rappor(params, np.eye(4, dtype=np.int8)[None, :2])  # two candidates, bits 0 and 1
    truth = np.array([[11, 19]])
    t, n = mechanism.estimand(truth)[0, 0], 30
    pmf = support_count_pmf(t, n, params.q_star, params.p_star)
    estimates = np.array(
        [mechanism.estimate(np.array([[c, 0, 0, 0]]), [n])[0, 0] for c in range(n + 1)]
    )
    mean = np.sum(pmf * estimates)
    assert mean == pytest.approx(t, abs=1e-10)
    assert np.sum(pmf * (estimates - mean) ** 2) == pytest.approx(
        mechanism.variance(truth)[0, 0], rel=1e-10
    )


def test_eq3_without_prr_is_the_seed_formula():
    """With f = 0, t̂ = (c − pN)/(q − p) exactly as seed 001 Eq. (3); a batch keeps its leading axis."""
    mechanism = make(RapporParams.basic_one_time(k=4, h=1, m=1), 3)
    c = np.array([[1300, 1250, 1900, 2000]])
    assert np.allclose(mechanism.estimate(c, [2500]), (c - 0.5 * 2500) / 0.25, atol=1e-9)
    assert mechanism.estimate(np.stack([c] * 3), [2500]).shape == (3, 1, 4)


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
@pytest.mark.parametrize("f", [0.0, 0.5])
def test_client_bit_frequencies_match_p_star_q_star(rng, f):
    """Per-user client: set bits report 1 w.p. q*, unset bits w.p. p* (PRR + IRR composed)."""
    mechanism = make(RapporParams(k=16, h=2, m=1, f=f, p=0.5, q=0.75), 1)
    reports = mechanism.perturb(np.zeros((20_000, 2), dtype=int), rng=rng).bits
    bloom = mechanism.blooms[0, 0] == 1
    for bits, prob in (
        (reports[:, bloom], mechanism.params.q_star),
        (reports[:, ~bloom], mechanism.params.p_star),
    ):
        assert_mean_close(bits, prob, prob * (1 - prob))


@pytest.mark.statistical
def test_prr_and_irr_each_match_their_tables(rng):
    """PRR keeps a bit w.p. 1 − f/2; IRR reports 1 w.p. q (bit 1) and p (bit 0)."""
    n = 100_000
    ones, zeros = np.ones(n, dtype=np.int8), np.zeros(n, dtype=np.int8)
    assert_mean_close(permanent_randomized_response(ones, 0.5, rng=rng), 0.75, 0.75 * 0.25)
    assert_mean_close(permanent_randomized_response(zeros, 0.5, rng=rng), 0.25, 0.75 * 0.25)
    assert_mean_close(instantaneous_randomized_response(ones, 0.3, 0.8, rng=rng), 0.8, 0.8 * 0.2)
    assert_mean_close(instantaneous_randomized_response(zeros, 0.3, 0.8, rng=rng), 0.3, 0.3 * 0.7)


@pytest.mark.statistical
@pytest.mark.parametrize("f", [0.0, 0.5])
def test_sampler_matches_per_user_clients(rng, f):
    """sample_aggregate has the law of summed client reports: means, variances, exact pmf, and a joint statistic."""
    mechanism = make(RapporParams(k=8, h=2, m=2, f=f, p=0.5, q=0.75))
    n_draws = 1500
    values = mechanism.expand(TRUTH)
    per_user = np.array(
        [mechanism.aggregate(mechanism.perturb(values, rng=rng)) for _ in range(n_draws)]
    )
    sampled = mechanism.sample_aggregate(TRUTH, rng=rng, n_draws=n_draws)
    t, n_j = mechanism.estimand(TRUTH), TRUTH.sum(axis=1)[:, None]
    q_star, p_star = mechanism.params.q_star, mechanism.params.p_star
    mean = expected_support_count(t, n_j, q_star, p_star)
    var = t * q_star * (1 - q_star) + (n_j - t) * p_star * (1 - p_star)
    for sample in (per_user, sampled):
        for j, i in ((0, 0), (0, 5), (1, 3), (1, 7)):
            assert_mean_close(sample[:, j, i], mean[j, i], var[j, i])
            assert_variance_close(sample[:, j, i], var[j, i])
            assert (
                chisquare_pvalue(
                    sample[:, j, i], support_count_pmf(t[j, i], n_j[j, 0], q_star, p_star)
                )
                > 1e-3
            )
    # sum over a cohort's bits: sensitive to any dependence between bits
    assert two_sample_pvalue(per_user[:, 0].sum(axis=1), sampled[:, 0].sum(axis=1)) > 1e-3
    assert two_sample_pvalue(per_user[:, 1, :2].sum(axis=1), sampled[:, 1, :2].sum(axis=1)) > 1e-3


@pytest.mark.statistical
def test_estimator_mean_and_variance_by_simulation(rng):
    """Over 4000 sampled surveys t̂ averages t and has the exact variance (with PRR)."""
    mechanism = make(RapporParams(k=8, h=2, m=2, f=0.5, p=0.5, q=0.75))
    truth = 10 * TRUTH
    est = mechanism.estimate(
        mechanism.sample_aggregate(truth, rng=rng, n_draws=4000), mechanism.n_reports(truth)
    )
    t, var = mechanism.estimand(truth), mechanism.variance(truth)
    assert est.shape == (4000, 2, 8)
    for j, i in ((0, 1), (1, 6)):
        assert_mean_close(est[:, j, i], t[j, i], var[j, i])
        assert_variance_close(est[:, j, i], var[j, i])


@pytest.mark.parametrize(
    ("f", "exact"),
    # ln((1 − f/2)/(f/2)) of the double f, by mpmath at 200 bits
    [(5e-324, 745.1332191019412), (1e-310, 714.4945260087142), (1e-308, 709.889355822726)],
)
def test_epsilon_permanent_is_finite_and_exact_down_to_the_smallest_f(f, exact):
    """ε∞ = 2h ln((1 − f/2)/(f/2)): f/2 underflows at f = 5e-324 (it divided by zero) and the ratio overflows
    at f = 1e-310 (it read inf); the guarded branch gives 2h(ln 2 − ln f) there, within 2 ulp of mpmath."""
    params = RapporParams(k=8, h=2, m=1, f=f, p=0.25, q=0.75)
    assert params.epsilon_permanent == pytest.approx(4 * exact, rel=4.5e-16)
    assert memoized_limits(f) == (1.0, pytest.approx(exact, rel=4.5e-16))  # the same loss per bit


def test_a_prr_so_close_to_1_that_p_star_and_q_star_meet_is_refused_naming_f():
    params = RapporParams(k=8, h=2, m=1, f=1 - 2**-53, p=0.25, q=0.75)
    with pytest.raises(
        ValueError, match=r"^f must be in \[0, 1\) far enough below 1 that q\* = 0\.5 > p\*"
    ):
        params.bit_channel


@pytest.mark.parametrize("f", [1 - 1e-12, 0.999, 0.5, 0.25, 1e-300, 5e-324, 1.0])
def test_prr_bit_loss_is_within_an_ulp_or_two_of_mpmath_for_every_f(f):
    """ln((1 − f/2)/(f/2)) = log1p(2(1 − f)/f): as the log of a ratio near 1 it lost 1e-4 at f = 1 − 1e-12."""
    import mpmath

    from ldp_helpers.mechanisms.rappor import prr_bit_loss

    with mpmath.workdps(50):
        F = mpmath.mpf(f)
        exact = float(mpmath.log((1 - F / 2) / (F / 2)))
    assert prr_bit_loss(f) == pytest.approx(exact, rel=5e-16, abs=0.0)
