"""The exact samplers' draws at large accepted ε describe the same mechanism as its table (review r48).

numpy draws ``Binomial(n, p)`` with p > 1/2 as n − Binomial(n, 1 − p): a large probability rounded up
leaves the minority 1 − fl(p) below the mechanism's small probability q, and the survey loses more
than ε while the table reads ε (BinaryRR at ε = 36: 1 − fl(p) = 2·2⁻⁵³ for q = 2.09·2⁻⁵³).  Every
probability a sampler hands numpy here must leave its minority at least q.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp_helpers.mechanisms.count_mean_sketch import CountMeanSketch
from ldp_helpers.mechanisms.duchi_mean import DuchiMean
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.hadamard_response import HadamardResponse
from ldp_helpers.mechanisms.hadamard_sketch import HadamardCountMeanSketch
from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.mechanisms.unary_encoding import SUE
from ldp_helpers.simulate.populations import Population


class _Recording(np.random.Generator):
    """A PCG64 generator that records the probabilities of its binomial draws."""

    def __init__(self, seed: int):
        super().__init__(np.random.PCG64(seed))
        self.probabilities = []

    def binomial(self, n, p, size=None):
        self.probabilities.append(np.asarray(p, dtype=float).ravel())
        return super().binomial(n, p, size)


def _q_bin(epsilon: float) -> float:
    """1/(1 + e^ε), the flip probability of a bit at ε."""
    return 1.0 / (1.0 + math.exp(epsilon))


CASES = {
    "BinaryRR(36)": (lambda: BinaryRR.from_epsilon(36.0), 2, _q_bin(36.0)),
    "GRR(36, d=4)": (lambda: GRR(36.0, 4), 4, 1.0 / (math.exp(36.0) + 3)),
    "SUE(72)": (lambda: SUE(72.0, 4), 4, _q_bin(36.0)),
    "CMS(72)": (
        lambda: CountMeanSketch.create(72.0, 5, 2, 8, rng=np.random.default_rng(0)),
        5,
        _q_bin(36.0),
    ),
    "HCMS(35.9)": (
        lambda: HadamardCountMeanSketch.create(35.9, 5, 2, 8, rng=np.random.default_rng(0)),
        5,
        _q_bin(35.9),
    ),
}


#: (mechanism, its truth, its small probability): the samplers whose truth is not a count vector.  HR
#: leaves C_x w.p. 2B/E (E = e^ε + 2B − 1; B = 2 blocks at d = 2); Duchi's user at x = ±r reports ∓B w.p.
#: 1/(e^ε + 1); m-shot's reporter flips her bit w.p. 1/(e^{ε/m} + 1) (its draws given the reporters: who
#: reports is drawn with probabilities that may be exactly 1, a round every remaining user must take).
OTHERS = {
    "HR(30.02, d=2)": (  # (e^ε − 1)/E rounded alone is too close to 1 here
        lambda: HadamardResponse(30.02, 2),
        np.full(2, 10**6),
        lambda m: 2 * m.B / (math.exp(30.02) + 2 * m.B - 1),
    ),
    "DuchiMean(30)": (  # its ceiling
        lambda: DuchiMean(30.0),
        np.repeat([-1.0, 0.25, 1.0], 1000),
        lambda m: _q_bin(30.0),
    ),
    "MShot(72, T=4, m=2)": (
        lambda: MShotReporting(72.0, 4, 2),
        Population.nested(np.full(4, 10**6), 2 * 10**6),
        lambda m: _q_bin(36.0),
    ),
}
_GIVEN = np.full((1, 4), 10**6)  # m-shot: K_t reporters per round, A_t = K_t of them holding a 1


@pytest.mark.parametrize("case", OTHERS)
def test_the_other_samplers_binomials_leave_the_minority_at_least_the_small_probability(case):
    """Every probability in (0, 1) these samplers hand numpy, either side of 1/2, is at least q from 0 and 1."""
    build, truth, small = OTHERS[case]
    rng, mechanism = _Recording(1), build()
    if isinstance(mechanism, MShotReporting):
        mechanism.sample_given_reporters(truth, _GIVEN, _GIVEN, rng=rng)
    else:
        mechanism.sample_aggregate(truth, rng=rng)
    drawn, q = np.concatenate(rng.probabilities), small(mechanism)
    minority = np.minimum(drawn, 1.0 - drawn)[(drawn > 0) & (drawn < 1)]
    assert minority.size, f"{case}: no binomial draw"
    assert np.all(minority >= q), f"{case}: minority {np.min(minority)!r} below q = {q!r}"


@pytest.mark.parametrize("case", CASES)
def test_every_binomial_draw_leaves_the_minority_at_least_the_small_probability(case):
    build, d, q = CASES[case]
    rng = _Recording(1)
    build().sample_aggregate(np.full(d, 10**6), rng=rng)
    drawn = np.concatenate(rng.probabilities)
    assert drawn.size
    large = drawn[drawn > 0.5]
    assert np.all(1.0 - large >= q), f"{case}: minority {np.min(1.0 - large)!r} below q = {q!r}"
