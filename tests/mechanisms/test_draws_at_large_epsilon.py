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
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.hadamard_sketch import HadamardCountMeanSketch
from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.mechanisms.unary_encoding import SUE


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


@pytest.mark.parametrize("case", CASES)
def test_every_binomial_draw_leaves_the_minority_at_least_the_small_probability(case):
    build, d, q = CASES[case]
    rng = _Recording(1)
    build().sample_aggregate(np.full(d, 10**6), rng=rng)
    drawn = np.concatenate(rng.probabilities)
    assert drawn.size
    large = drawn[drawn > 0.5]
    assert np.all(1.0 - large >= q), f"{case}: minority {np.min(1.0 - large)!r} below q = {q!r}"
