"""The conformance suite's power: deliberately wrong samplers and variances, each caught by the check
the suite runs on every registered mechanism (tests/mechanisms/test_conformance.py), at the suite's own sizes and seeds.

Kept as tests so that a faster or lighter suite cannot silently lose the power it has today:
* GRR with independent support counts (the per-user counts share one multinomial: their total is n);
* Glance with independent reporters per round (each user reports in exactly one round);
* a variance 15 % too large (every registered kind: frequency oracle, sketch, RAPPOR, stream);
* unary encoding with each count Binomial(n, mean p): the right mean, the wrong spread.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from test_conformance import (
    N_SAMPLER_DRAWS,
    _assert_mean_and_variance,
    _assert_same_law,
    _estimates,
    _example,
    _per_user_aggregates,
)

from ldp_helpers.mechanisms.base import _draw_support_counts
from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.unary_encoding import SUE
from ldp_helpers.protocols.registry import ALL_MECHANISMS


@dataclass(frozen=True)
class IndependentCountsGRR(GRR):
    def _draw_support(self, counts, n, *, rng, size=None):
        return _draw_support_counts(
            counts, n, self.p, self.q, rng=rng, size=size
        )  # no shared multinomial


@dataclass(frozen=True)
class IndependentReportersGlance(Glance):
    def sample_aggregate(self, truth, *, rng, n_draws=None):
        population = self._population(truth)
        draws = 1 if n_draws is None else n_draws
        K = rng.binomial(
            population.n_users, 1.0 / self.n_rounds, size=(draws, self.n_rounds)
        )  # not one round each
        K1 = rng.binomial(K, population.fractions())
        out = self._randomize(K, K1, rng)
        return out if n_draws is not None else out[0]


@dataclass(frozen=True)
class MeanShapedSUE(SUE):
    def _draw_support(self, counts, n, *, rng, size=None):
        mean_p = (counts * self.p + (n - counts) * self.q) / n  # right mean, Binomial(n, ·) spread
        return rng.binomial(n, mean_p, size=size)


def _wrong_law_is_rejected(mechanism, truth):
    user_rng, fast_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(11).spawn(2))
    per_user = _per_user_aggregates(mechanism, truth, user_rng)
    with pytest.raises(AssertionError, match="KS rejects|means differ"):
        _assert_same_law(
            per_user,
            np.asarray(mechanism.sample_aggregate(truth, rng=fast_rng, n_draws=N_SAMPLER_DRAWS)),
            "wrong sampler",
        )


@pytest.mark.statistical
def test_grr_with_independent_counts_is_caught():
    mechanism, truth = _example("grr")
    _wrong_law_is_rejected(IndependentCountsGRR(mechanism.epsilon, mechanism.d), truth)


@pytest.mark.statistical
def test_glance_with_independent_reporters_is_caught():
    mechanism, truth = _example("glance")
    _wrong_law_is_rejected(IndependentReportersGlance(mechanism.epsilon, mechanism.n_rounds), truth)


@pytest.mark.statistical
def test_unary_encoding_with_the_wrong_spread_is_caught():
    mechanism, truth = _example("sue")
    wrong = MeanShapedSUE(mechanism.epsilon, mechanism.d)
    batch = wrong.sample_aggregate(truth, rng=np.random.default_rng(12), n_draws=N_SAMPLER_DRAWS)
    with pytest.raises(AssertionError, match="variance off"):
        _assert_mean_and_variance(
            _estimates(mechanism, truth, batch), mechanism, truth, "wrong sampler"
        )


class _InflatedVariance:
    """A mechanism whose claimed variance is 1.15 times the exact one (everything else delegated)."""

    def __init__(self, mechanism):
        self._m = mechanism

    def __getattr__(self, name):
        return getattr(self._m, name)

    def variance(self, truth):
        return 1.15 * np.asarray(self._m.variance(truth))


@pytest.mark.statistical
@pytest.mark.parametrize("key", ["grr", "oue", "olh", "cms", "rappor", "glance"])
def test_a_variance_fifteen_percent_too_large_is_caught(key):
    mechanism, truth = _example(key)
    assert key in ALL_MECHANISMS
    batch = mechanism.sample_aggregate(
        truth, rng=np.random.default_rng(12), n_draws=N_SAMPLER_DRAWS
    )
    wrong = _InflatedVariance(mechanism)
    with pytest.raises(AssertionError, match="variance off"):
        _assert_mean_and_variance(
            _estimates(mechanism, truth, batch), wrong, truth, "inflated variance"
        )
