"""Every number a panel shows is the mechanism's exact quantity, held against the papers' formulas and Monte-Carlo.

The playground and privacy–utility panels call the one copy of the science
(:mod:`ldp_helpers.experiments.field_oracles`, which notebook 07 also calls; its privacy–utility
curves are held in ``tests/experiments/test_field_oracles_curves.py``); here the playground's
numbers are held against [wang2017]'s exact variance of a pure oracle (proof of Theorem 2) written
out from p* and q*, the exact sampler's draw, the output table's ε, and — for **every registered
frequency oracle** (new registry entries join automatically) — Monte-Carlo surveys of the
**per-user client** (``perturb`` → ``aggregate`` → ``estimate``) within 5 standard errors from the
theoretical variance.  The RAPPOR, continual-counting and
m-shot panels' numbers are checked the same way below.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ldp_helpers.experiments import field_oracles as fo
from ldp_helpers.mechanisms.base import PureFrequencyOracle
from ldp_helpers.simulate.populations import flat_counts
from ldp_tools.explore.oracles import (
    UNAVAILABLE,
    _panel_keys,
    check_structure,
    playground_state,
    population_counts,
)
from ldp_tools.explore.utility import oracle_ranking

oracle_keys = _panel_keys
DS, EPSILONS, NS = (5, 257), (0.3, 4.0), (1, 10**6)
SEED = 11


def panel_oracle(key, epsilon, d, seed=SEED, structure=None):
    """The oracle the panel shows: the one factory with the panels' structure."""
    return fo.build_oracle(key, epsilon, d, structure=check_structure(structure, d), seed=seed)


def wang_variance(p, q, counts):
    """[wang2017] proof of Theorem 2: Var[ĉ(i)] = (f_i p*(1−p*) + (n − f_i) q*(1−q*)) / (p* − q*)²."""
    n = counts.sum()
    return (counts * p * (1 - p) + (n - counts) * q * (1 - q)) / (p - q) ** 2


GRID = list(itertools.product(oracle_keys(), DS, EPSILONS))


@pytest.mark.parametrize("key, d, epsilon", GRID, ids=[f"{k}-d{d}-eps{e}" for k, d, e in GRID])
def test_the_playground_shows_one_exact_survey_and_the_papers_moments(key, d, epsilon):
    oracle = panel_oracle(key, epsilon, d)
    assert (oracle.epsilon, oracle.d) == (
        epsilon,
        d,
    )  # built for this (ε, d), never a registry example
    for n, population in itertools.product(NS, ("uniform", "zipf")):
        state = playground_state(key, epsilon, d, n, population, zipf_s=1.3, seed=SEED)
        truth = state.true_counts
        assert truth.sum() == n and truth.size == d and truth.min() >= 0
        if population == "uniform":
            np.testing.assert_array_equal(truth, flat_counts(n, d))
        else:  # shares ∝ (i+1)^−s, rounded by at most one user
            share = np.arange(1, d + 1) ** -1.3
            assert np.all(np.abs(truth - n * share / share.sum()) < 1)
        survey = oracle.estimate(oracle.sample_aggregate(truth, rng=np.random.default_rng(SEED)), n)
        np.testing.assert_array_equal(
            state.estimate, survey
        )  # one draw of the exact aggregate sampler
        bias = state.expected - truth
        assert state.mse == pytest.approx(float(np.mean(bias**2 + state.sigma**2)), rel=1e-12)
        np.testing.assert_allclose(state.mse_per_value, bias**2 + state.sigma**2, rtol=1e-12)
        assert state.bias_sq == pytest.approx(float(np.mean(bias**2)), rel=1e-12, abs=1e-9)
        if isinstance(oracle, PureFrequencyOracle):  # Wang's exact variance, unbiased
            np.testing.assert_allclose(
                state.sigma**2, wang_variance(oracle.p, oracle.q, truth), rtol=1e-12
            )
            assert state.bias_sq == 0
        loss = state.whole_report_epsilon
        assert loss == UNAVAILABLE or loss <= epsilon + 1e-9
        if key == "grr":  # the d × d table's loss is ln(p*/q*) = ε
            assert loss == pytest.approx(epsilon, abs=1e-9)


@pytest.mark.parametrize("d, n, population", [(5, 1000, "uniform"), (43, 10**5, "zipf")])
def test_the_ranking_is_of_exact_mses(d, n, population):
    truth = population_counts(population, n, d, zipf_s=1.1)
    for epsilon in (0.3, 4.0):
        ranking = oracle_ranking(epsilon, d, n, population, zipf_s=1.1, seed=0)
        assert {k for k, _ in ranking} == set(oracle_keys())
        values = [mse for _, mse in ranking]
        tied = [mse for mse in values if mse <= min(values) * (1 + fo.TIE_RTOL)]
        assert values[len(tied) :] == sorted(values[len(tied) :]) and min(
            values[len(tied) :]
        ) > max(tied)
        for key, mse in ranking:
            oracle = panel_oracle(key, epsilon, d, seed=0)
            if isinstance(oracle, PureFrequencyOracle):
                assert mse == pytest.approx(
                    float(np.mean(wang_variance(oracle.p, oracle.q, truth))), rel=1e-12
                )


def test_the_grid_covers_every_listed_frequency_oracle():
    assert {k for k, _, _ in GRID} == set(oracle_keys()) and len(oracle_keys()) >= 8


# ------------------------------------------------------------------------------------ Monte Carlo: the per-user client

MC_SURVEYS = 400
MC_STRUCTURE = {"k": 4, "m": 16}  # a small sketch: its bias shows, its per-user reports stay cheap


def client_surveys(oracle, truth, n_surveys: int, rng) -> np.ndarray:
    """``n_surveys`` surveys of the per-user client: perturb each user's value, aggregate, estimate."""
    values, n = oracle.expand(truth), int(truth.sum())
    return np.array(
        [
            oracle.estimate(oracle.aggregate(oracle.perturb(values, rng=rng)), n)
            for _ in range(n_surveys)
        ]
    )


@pytest.mark.statistical
@pytest.mark.parametrize("key", oracle_keys())
def test_the_playgrounds_mse_matches_the_per_user_client(key):
    """Mean, variance and MSE of the client's estimates agree with what the panel shows, within 5 SE."""
    state = playground_state(key, 1.0, 6, 2000, "zipf", zipf_s=1.1, seed=3, structure=MC_STRUCTURE)
    oracle = panel_oracle(key, 1.0, 6, structure=MC_STRUCTURE, seed=3)
    estimates = client_surveys(
        oracle, state.true_counts, MC_SURVEYS, np.random.default_rng([30, len(key)])
    )
    sigma, bias = state.sigma, state.expected - state.true_counts
    se_mean = sigma / np.sqrt(MC_SURVEYS)
    assert np.all(np.abs(estimates.mean(axis=0) - state.expected) < 5 * se_mean), (
        key,
        estimates.mean(axis=0),
        state.expected,
    )
    squared = (estimates - state.true_counts) ** 2
    sd_squared = np.sqrt(
        2 * sigma**4 + 4 * sigma**2 * bias**2
    )  # Var[(X − f)²] for X ~ N(f + b, σ²)
    per_value = state.mse_per_value
    assert np.all(
        np.abs(squared.mean(axis=0) - per_value) < 5 * sd_squared / np.sqrt(MC_SURVEYS)
    ), key
    tolerance = (
        5 * sd_squared.mean() / np.sqrt(MC_SURVEYS)
    )  # sd of a mean of dependent terms ≤ mean of their sds
    assert abs(squared.mean() - state.mse) < tolerance, (key, squared.mean(), state.mse)


# ------------------------------------------------------------------------------------ RAPPOR, continual counting, m-shot

from ldp_helpers.mechanisms.rappor import Rappor, RapporParams  # noqa: E402
from ldp_tools.explore.rappor import _design, rappor_guide  # noqa: E402
from ldp_tools.explore.rappor_sim import simulated_survey, user_report  # noqa: E402


@pytest.mark.parametrize(
    "f, p, q, h", [(0.0, 0.5, 0.75, 2), (0.5, 0.25, 0.75, 1), (0.25, 0.4, 0.9, 3)]
)
def test_the_rappor_panels_privacy_numbers_are_the_mechanisms_exact_loss(f, p, q, h):
    guide = rappor_guide(k=8, h=h, m=2, f=f, p=p, q=q, n_reports=1000, n_candidates=6, n_true=3)
    mechanism = Rappor.create(
        RapporParams(k=8, h=h, m=2, f=f, p=p, q=q), 4, rng=np.random.default_rng(0)
    )
    assert guide.epsilon_one_report == pytest.approx(
        mechanism.privacy_loss(), rel=1e-9
    )  # the 2^8-report table
    params = mechanism.params
    assert guide.epsilon_permanent == params.epsilon_permanent and (guide.q_star, guide.p_star) == (
        params.q_star,
        params.p_star,
    )


def test_the_simulated_survey_is_the_samplers_draw_decoded():
    from ldp_helpers.estimation.rappor_decoding import decode
    from ldp_helpers.simulate.populations import cohort_counts

    setting = dict(
        k=32,
        h=2,
        m=4,
        f=0.25,
        p=0.5,
        q=0.75,
        n_reports=50_000,
        n_candidates=30,
        n_true=8,
        zipf_s=1.0,
    )
    survey = simulated_survey(**setting, alpha=0.05, correction="bh", seed=2)
    params = RapporParams(k=32, h=2, m=4, f=0.25, p=0.5, q=0.75)
    mechanism = Rappor(params, _design(32, 2, 4, 30, 2)[0].blooms)
    rng = np.random.default_rng([2, 2])
    truth = cohort_counts(rappor_guide(**setting).frequencies, 50_000, 4, rng=rng)
    counts = mechanism.sample_aggregate(truth, rng=rng)
    decoded = decode(
        mechanism.design_matrix,
        mechanism.estimate(counts, truth.sum(axis=1)).ravel(),
        correction="bh",
    )
    np.testing.assert_array_equal(survey.true_counts, truth.sum(axis=0))
    np.testing.assert_allclose(survey.decoded.estimate[decoded.candidates], 4 * decoded.estimates)
    np.testing.assert_array_equal(
        np.flatnonzero(survey.decoded.detected), decoded.detected_candidates
    )


@pytest.mark.statistical
def test_one_users_report_has_the_clients_law():
    """B is the design's filter; over users B′ is 1 w.p. f/2 + (1 − f)·B; over one user's reports S is 1 w.p. q on B′'s ones, p elsewhere."""
    params = dict(k=16, h=2, m=4, f=0.5, p=0.25, q=0.75)
    one = dict(params, candidate=3, cohort=1, n_candidates=20, seed=0)
    bloom = _design(16, 2, 4, 20, 0)[0].blooms[1, 3]
    assert np.array_equal(user_report(**one).bloom, bloom)
    n = 3000
    prr = np.mean([user_report(**one, user=u).prr for u in range(n)], axis=0)
    expected = 0.25 + 0.5 * bloom
    assert np.all(np.abs(prr - expected) < 5 * np.sqrt(expected * (1 - expected) / n))
    memo = user_report(**one, user=7).prr
    assert all(
        np.array_equal(user_report(**one, user=7, report=r).prr, memo) for r in range(5)
    )  # memoized
    irr = np.mean([user_report(**one, user=7, report=r).irr for r in range(n)], axis=0)
    expected = np.where(memo == 1, 0.75, 0.25)
    assert np.all(np.abs(irr - expected) < 5 * np.sqrt(expected * (1 - expected) / n))


@pytest.mark.statistical
def test_the_m_shot_panels_f_measure_has_the_samplers_law():
    from ldp_helpers.experiments.m_shot import ramp_data
    from ldp_helpers.mechanisms.m_shot import MShotReporting, detection_scores
    from ldp_tools.explore.streams import m_shot_curves

    curves = m_shot_curves(epsilon=6.0, n_rounds=30, n_users=2000, theta=0.5, n_draws=300, seed=4)
    rng = np.random.default_rng(9)
    for j in (0, len(curves.ms) // 2, len(curves.ms) - 1):
        mech = MShotReporting(6.0, 30, int(curves.ms[j]))
        data = ramp_data(2000, 30, rng=rng)
        estimates = mech.estimate(mech.sample_aggregate(data, rng=rng, n_draws=300), 2000)
        f = detection_scores(data.fractions(), estimates, 0.5).f_measure
        se = np.hypot(curves.se[j], f.std(ddof=1) / np.sqrt(300))
        assert abs(curves.mean_f[j] - f.mean()) < 5 * se, (curves.ms[j], curves.mean_f[j], f.mean())
