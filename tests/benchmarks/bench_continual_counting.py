"""Continual counting (Figure 3 workload, T = 50, N = 10,000): exact sampler vs per-user path vs draws alone."""

import numpy as np
from timing import Timing, median_time

from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.simulate.populations import constant_population


def run(rng: np.random.Generator) -> list[Timing]:
    T, N, n_draws = 50, 10_000, 10_000
    glance, pop = Glance(4.0, T), constant_population(0.9995, N, T)
    V = glance.expand(pop)
    label = f"Glance Err, T={T}, N=1e4 (per survey)"
    fast = (
        median_time(
            lambda: glance.estimate(glance.sample_aggregate(pop, rng=rng, n_draws=n_draws), N),
            repeat=5,
        )
        / n_draws
    )
    reference = median_time(
        lambda: glance.estimate(glance.aggregate(glance.perturb(V, rng=rng)), N), repeat=5
    )
    # The random numbers alone: T chain-of-binomials steps for G = 2 groups plus two RR binomials per round.
    draws = (
        median_time(
            lambda: (
                [rng.binomial(100, 0.02, size=(n_draws, 2, 1)) for _ in range(T)],
                rng.binomial(200, 0.9, size=(n_draws, T)),
                rng.binomial(1, 0.1, size=(n_draws, T)),
            ),
            repeat=5,
        )
        / n_draws
    )
    return [
        Timing(
            label,
            "exact sampler (sample_aggregate)",
            fast,
            f"{n_draws:,} surveys per call (n_draws)",
        ),
        Timing(label, "per-user path (perturb + aggregate)", reference, "N x T matrices"),
        Timing(label, "draws alone", draws, "same number of binomial draws"),
    ]
