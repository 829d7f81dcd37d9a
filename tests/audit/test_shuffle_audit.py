"""The shuffled view audited: exact count sampler vs the per-user protocol, ε_lb ≤ exact ε_c, a leaky shuffler flagged."""

import math

import numpy as np
import pytest
from scipy import stats
from shuffle_reference import sample_per_user

from ldp_helpers.audit.auditor import run_audit
from ldp_helpers.audit.shuffle import ShuffledGRRClient, epsilon_lower_bound_at_delta
from ldp_helpers.bounds.shuffle import grr_profile
from ldp_helpers.mechanisms.grr import grr_probabilities


def _chi2_p(samples, pmf):
    """p-value of a χ² goodness-of-fit of integer samples to a pmf (cells with expected count < 5 pooled at the ends)."""
    observed = np.bincount(samples, minlength=pmf.size).astype(float)
    expected = pmf * samples.size
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    obs, exp = (
        (obs, exp) if exp[-1] >= 5 else (obs[:-1], exp[:-1] * obs[:-1].sum() / exp[:-1].sum())
    )
    return stats.chisquare(obs, exp).pvalue


@pytest.mark.parametrize(
    "sampler", [ShuffledGRRClient.sample, sample_per_user], ids=["sample", "sample_per_user"]
)
def test_count_samplers_follow_the_exact_law(sampler):
    """Counts of value 0 when x₁ = 0 and the others hold 0 are Binomial(n, p) (all n reports alike): χ² at seed 38."""
    client = ShuffledGRRClient(n=30, epsilon0=1.5, k=4, others=0)
    views = sampler(client, 0, 4000, rng=np.random.default_rng(38))
    assert views.shape == (4000, 4) and np.all(views.sum(axis=1) == 30)
    p = grr_probabilities(1.5, 4)[0]
    assert _chi2_p(views[:, 0], stats.binom.pmf(np.arange(31), 30, p)) > 1e-3


def test_a_wrong_sampler_is_caught():
    """The same χ² test rejects the law with user 1's report wrong (x₁ = 1 drawn where x₁ = 0 was asked): one
    report out of 30 is enough."""
    p = grr_probabilities(1.5, 4)[0]
    wrong = ShuffledGRRClient(n=30, epsilon0=1.5, k=4, others=0).sample(
        1, 4000, rng=np.random.default_rng(38)
    )
    assert _chi2_p(wrong[:, 0], stats.binom.pmf(np.arange(31), 30, p)) < 1e-3


def test_audit_of_the_shuffled_view_stays_below_the_exact_epsilon():
    """Binary RR shuffled among n = 100 users (others at 0), ε₀ = 2: the audit's δ-aware bound at δ = 1e-3 is ≤ the
    exact ε_c(1e-3), and its plain ε_lb is ≤ the largest privacy loss of the view (both at 95 %)."""
    client, delta = ShuffledGRRClient(n=100, epsilon0=2.0, k=2, others=0), 1e-3
    result = run_audit(client, 0, 1, n_trials=200_000, seed=38, confidence=0.95)
    profile = grr_profile(100, 2.0, 2)
    eps_c = profile.epsilon(delta)
    assert epsilon_lower_bound_at_delta(result.p0_low, result.p1_high, delta) <= eps_c
    top_loss = max(float(np.max(np.abs(lp - lq))) for lp, lq in profile.pairs)
    assert 0 < result.epsilon_lb <= top_loss < 2.0 + 1e-12


def test_a_shuffler_that_leaks_the_order_is_flagged():
    """With user 1's report left first, the audit finds ε_lb above the exact ε_c(1e-3) of the shuffled view
    (a violation of that claim at 95 %), close to ε₀ = 2."""
    delta = 1e-3
    eps_c = grr_profile(100, 2.0, 2).epsilon(delta)
    leaky = ShuffledGRRClient(n=100, epsilon0=2.0, k=2, others=0, leak_order=True)
    result = run_audit(
        leaky, 0, 1, n_trials=200_000, seed=38, confidence=0.95, claimed_epsilon=eps_c
    )
    assert result.violation and result.epsilon_lb > eps_c + 0.5
    assert epsilon_lower_bound_at_delta(result.p0_low, result.p1_high, delta) > eps_c


def test_leaky_per_user_reference_puts_user_one_first():
    """The per-user reference of the leaky shuffler keeps user 1's report in front (ε₀ = 20: always her value)."""
    leaky = ShuffledGRRClient(n=5, epsilon0=20.0, k=3, others=2, leak_order=True)
    views = sample_per_user(leaky, 1, 50, rng=np.random.default_rng(1))
    assert np.all(views[:, 0] == 1) and np.all(views[:, 1:].sum(axis=1) == 5)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n": 1}, "n must be"),
        ({"k": 1}, "k must be"),
        ({"others": 3}, "others must be"),
        ({"epsilon0": 0.0}, "epsilon0"),
    ],
)
def test_bad_client_parameters(kwargs, match):
    """A bad client parameter is a ValueError naming it."""
    with pytest.raises(ValueError, match=match):
        ShuffledGRRClient(**({"n": 10, "epsilon0": 1.0, "k": 3} | kwargs))


def test_delta_aware_bound():
    """ln((P₀ − δ)/P₁), clipped at 0, and 0 when P₀ ≤ δ."""
    assert epsilon_lower_bound_at_delta(0.5, 0.1, 0.1) == pytest.approx(math.log(4))
    assert epsilon_lower_bound_at_delta(0.05, 0.1, 0.1) == 0.0


def test_lower_bound_at_delta_of_a_subnormal_p1_high_is_finite():
    """(P₀,low − δ)/P₁,high beyond 1e308 made ln ∞ = ∞; the bound is ln(P₀,low − δ) − ln P₁,high (744.4 here)."""
    assert epsilon_lower_bound_at_delta(1.0, 5e-324, 0.0) == pytest.approx(
        -math.log(5e-324), rel=1e-15
    )
    assert epsilon_lower_bound_at_delta(0.5, 0.25, 0.1) == math.log(0.4 / 0.25)
