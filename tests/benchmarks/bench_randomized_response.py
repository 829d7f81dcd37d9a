"""Randomized response: exact aggregate sampler vs per-user reference vs the draws alone."""

import numpy as np
from timing import Timing, median_time

from ldp_helpers.mechanisms.randomized_response import BinaryRR


def run(rng: np.random.Generator) -> list[Timing]:
    rr = BinaryRR.from_epsilon(1.0)
    rows = []
    for n in (10**4, 10**6):
        values = (np.arange(n) < 0.3 * n).astype(np.int8)
        n_ones = int(values.sum())
        truth = np.array([n - n_ones, n_ones], dtype=np.int64)
        label = f"RR count, n=1e{int(np.log10(n))}"
        rows.append(
            Timing(
                label,
                "aggregate sampler",
                median_time(lambda: rr.sample_aggregate(truth, rng=rng), number=100),
            )
        )
        rows.append(
            Timing(
                label,
                "per-user reference",
                median_time(lambda: rr.aggregate(rr.perturb(values, rng=rng))),
            )
        )
        rows.append(
            Timing(
                label,
                "draws alone (2 binomials)",
                median_time(
                    lambda: (rng.binomial(n_ones, 0.7), rng.binomial(n - n_ones, 0.3)), number=100
                ),
            )
        )
    return rows
