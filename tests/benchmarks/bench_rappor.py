"""RAPPOR: exact aggregate bit counts vs per-report clients, the draws alone, and the decoder's cost."""

import numpy as np

from ldp_helpers.mechanisms.rappor import RapporParams
from ldp_helpers.estimation.rappor_decoding import (
    decode,
    design_matrix,
    estimate_bit_counts,
    simulate_bit_counts,
    simulate_bit_counts_per_report,
    true_bit_counts,
)
from ldp_helpers.experiments.rappor import cohort_counts, zipf_weights
from timing import Timing, median_time, paired_times


def run(rng: np.random.Generator) -> list[Timing]:
    params = RapporParams.basic_one_time(k=128, h=8, m=8)  # seed 001 §3
    weights = zipf_weights(200, 100, 0.7)
    design = design_matrix(params, 200, rng=rng)
    counts = cohort_counts(weights, 20_000, 8, rng=rng)
    label = "RAPPOR bit counts, N=2e4, k=128, m=8"
    t, n_j = true_bit_counts(design, counts), counts.sum(axis=1)[:, None]
    draws = lambda: (rng.binomial(t, params.q_star), rng.binomial(n_j - t, params.p_star))  # noqa: E731
    t_sampler, t_draws, ratio = paired_times(lambda: simulate_bit_counts(design, counts, rng=rng), draws, repeat=21, number=20)
    rows = [
        Timing(label, "aggregate sampler", t_sampler, f"{ratio:.2f}x its draws (median of paired runs)"),
        Timing(label, "aggregate, n_draws=100 (each)",
               median_time(lambda: simulate_bit_counts(design, counts, rng=rng, n_draws=100), number=5) / 100),
        Timing(label, "per-report reference", median_time(lambda: simulate_bit_counts_per_report(design, counts, rng=rng), repeat=3)),
        Timing(label, "draws alone (2 binomials/bit)", t_draws, "Bin(t_ij, q*) and Bin(N_j − t_ij, p*), t precomputed"),
    ]
    y = estimate_bit_counts(simulate_bit_counts(design, counts, rng=rng), counts.sum(axis=1), params).ravel()
    rows.append(Timing("RAPPOR decode, 1024 x 200", "LASSO -> OLS -> t-test",
                       median_time(lambda: decode(design.matrix, y, params=params), repeat=3)))
    rows.append(Timing("RAPPOR decode, 1024 x 200", "design matrix (SHA-256)", median_time(lambda: design_matrix(params, 200, rng=rng), repeat=3)))
    return rows
