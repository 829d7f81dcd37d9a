"""Continual counting (Figure 3 workload, T = 50, N = 10,000): exact simulator vs per-user reference vs draws alone."""

import numpy as np

from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.experiments.glance import constant_population
from timing import Timing, median_time


def run(rng: np.random.Generator) -> list[Timing]:
    T, N, trials = 50, 10_000, 10_000
    glance, pop = Glance(4.0, T), constant_population(0.9995, N, T)
    label = f"Glance Err, T={T}, N=1e4 (per trial)"
    fast = median_time(lambda: glance.estimate(glance.simulate(pop, rng=rng, n_trials=trials)), repeat=5) / trials
    reference = median_time(lambda: glance.estimate(glance.reference(pop, rng=rng)), repeat=5)
    # The random numbers alone: T chain-of-binomials steps for G = 2 groups plus two RR binomials per round.
    draws = median_time(lambda: ([rng.binomial(100, 0.02, size=(trials, 2, 1)) for _ in range(T)],
                                 rng.binomial(200, 0.9, size=(trials, T)), rng.binomial(1, 0.1, size=(trials, T))), repeat=5) / trials
    return [
        Timing(label, "exact fast simulator", fast, f"{trials:,} trials vectorized"),
        Timing(label, "per-user reference", reference, "N x T matrices"),
        Timing(label, "draws alone", draws, "same number of binomial draws"),
    ]
