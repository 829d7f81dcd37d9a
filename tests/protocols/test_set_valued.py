"""Padding-and-sampling frequency oracles (PSFO): exact amplification, the corrected GRR/OLH rule,
the per-user client and the exact sampler, and bad input."""

import math

import numpy as np
import pytest
from stat_checks import assert_mean_close, assert_variance_close

from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.protocols.set_valued import (
    PSFO,
    amplified_grr_epsilon,
    grr_preferred,
    grr_threshold,
    pad_and_sample,
)


@pytest.mark.parametrize("ell", [1, 2, 3])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_padding_and_sampling_amplifies_grr_exactly(ell, epsilon):
    """Pad-and-sample + GRR at ε' = ln(ℓ(e^ε−1)+1) has privacy loss exactly ε over all sets (d = 4)."""
    assert PSFO(epsilon, 4, ell).privacy_loss() == pytest.approx(epsilon, rel=1e-9)
    assert max_privacy_loss(PSFO(epsilon, 4, ell).output_table()) == pytest.approx(
        epsilon, rel=1e-9
    )


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("ell", [1, 2, 4, 8])
def test_grr_preferred_below_the_threshold(epsilon, ell):
    """GRR beats OLH for |I| just below (4ℓ²−ℓ)e^ε + 1 and loses just above it (the tutorial says '>')."""
    threshold = grr_threshold(epsilon, ell)
    assert grr_preferred(math.ceil(threshold) - 1, epsilon, ell)
    assert not grr_preferred(math.floor(threshold) + 1, epsilon, ell)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_grr_threshold_at_one_item_is_the_de_rule(epsilon):
    """At ℓ = 1, |I| plus the one dummy item < de_threshold(ε): the set-valued rule reduces to d < 3e^ε + 2."""
    from ldp_helpers.bounds.wang2017 import de_threshold

    assert grr_threshold(epsilon, 1) + 1 == pytest.approx(de_threshold(epsilon), rel=1e-14)


def test_pad_and_sample_draws_from_padded_sets(rng):
    """Samples are own items or dummies d..d+ℓ−1; bad items are refused."""
    sets = [[0, 2], [], [1, 2, 3, 4, 5]]
    samples = np.array([pad_and_sample(sets, 6, 3, rng=rng) for _ in range(300)])
    assert set(samples[:, 0]) == {0, 2, 6}
    assert set(samples[:, 1]) == {6, 7, 8}
    assert set(samples[:, 2]) <= {1, 2, 3, 4, 5}
    with pytest.raises(ValueError, match=r"sets\[0\] must be integers in \[0, 6\)"):
        pad_and_sample([[6]], 6, 3, rng=rng)


@pytest.mark.statistical
def test_psfo_estimates_item_counts_with_the_exact_variance(rng):
    """ℓ·ĉ(i) averages ℓ·E[S_i] with the exact sampling-plus-GRR variance, per user and by the sampler (400 surveys)."""
    psfo = PSFO(1.0, 5, 2)
    sets = [np.array([0, 1]) if u % 2 else np.array([0]) for u in range(1000)] + [
        np.array([1, 2, 3])
    ] * 50
    expected, variances = psfo.expected_estimate(sets), psfo.variance(sets)
    per_user = np.array(
        [psfo.estimate(psfo.aggregate(psfo.perturb(sets, rng=rng)), len(sets)) for _ in range(400)]
    )
    fast = psfo.estimate(psfo.sample_aggregate(sets, rng=rng, n_draws=4000), len(sets))
    for draws in (per_user, fast):
        for i in (0, 1, 3, 4):
            assert_mean_close(draws[:, i], expected[i], variances[i])
            assert_variance_close(draws[:, i], variances[i])
    # the 50 three-item sets exceed ℓ: item 3's estimate is ℓ/3 of its 50 holders on average
    assert expected[3] == pytest.approx(50 * 2 / 3) and psfo.estimand(sets)[3] == 50


def test_psfo_variance_formula():
    """At ℓ = 1 there is no sampling noise: PSFO's variance is GRR's over d + 1 values at ε' = ε."""
    grr = GRR(1.0, 6)
    sets = [np.array([0])] * 30 + [np.array([], dtype=int)] * 70
    assert np.allclose(
        PSFO(1.0, 5, 1).variance(sets)[:2], grr.variance(np.r_[30, 0, 0, 0, 0, 70])[:2], rtol=1e-12
    )


@pytest.mark.parametrize("d, ell", [(3, 2), (2, 2), (3, 1), (1, 2)])
def test_psfo_with_olh_keeps_epsilon_and_is_not_amplified(d, ell):
    """PSFO over OLH runs OLH at ε itself: no amplification, the whole report loses exactly ε when d ≥ ℓ
    (a full set against the empty one), less when every two padded sets share a dummy (d < ℓ)."""
    psfo = PSFO(1.0, d, ell, protocol="OLH")
    assert psfo.oracle.epsilon == 1.0 and psfo.tight == (d >= ell)
    if psfo.tight:
        assert psfo.privacy_loss() == pytest.approx(1.0, rel=1e-9)
    else:
        assert psfo.privacy_loss() < 1.0 - 0.1


def test_set_valued_inputs_are_validated(rng):
    """Fractional items, empty populations and huge ε are handled with clear errors or exact values."""
    with pytest.raises(ValueError, match=r"sets\[0\] must be an array of integers in \[0, 4\)"):
        pad_and_sample([[0.5, 1]], 4, 2, rng=rng)
    with pytest.raises(ValueError, match="sets must be at least one user's set; got no sets"):
        pad_and_sample([], 4, 2, rng=rng)
    assert amplified_grr_epsilon(800.0, 2) == pytest.approx(800 + math.log(2), rel=1e-15)
    assert amplified_grr_epsilon(1.0, 3) == pytest.approx(math.log(3 * (math.e - 1) + 1), rel=1e-14)
    assert grr_threshold(800.0, 2) == math.inf
    with pytest.raises(ValueError, match="ell"):
        PSFO(1.0, 4, 0)
    with pytest.raises(ValueError, match="epsilon"):
        PSFO(0.0, 4, 2)
    with pytest.raises(ValueError, match="truth must be at least one user's set"):
        PSFO(1.0, 4, 2).sample_aggregate([], rng=rng)
