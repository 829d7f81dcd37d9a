"""RAPPOR: exact aggregate sampler vs per-user clients, the draws alone, and the decoder's cost."""

import numpy as np
from timing import Timing, median_time, paired_times

from ldp_helpers.estimation.rappor_decoding import decode
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.simulate.populations import cohort_counts, zipf_weights


def run(rng: np.random.Generator) -> list[Timing]:
    params = RapporParams.basic_one_time(k=128, h=8, m=8)  # seed 001 §3
    mechanism = Rappor.create(params, 200, rng=rng)
    truth = cohort_counts(zipf_weights(200, 100, 0.7), 20_000, 8, rng=rng)
    label = "RAPPOR bit counts, N=2e4, k=128, m=8"
    t, n_j = mechanism.estimand(truth), mechanism.n_reports(truth)[:, None]
    draws = lambda: (rng.binomial(t, params.q_star), rng.binomial(n_j - t, params.p_star))  # noqa: E731
    t_sampler, t_draws, ratio = paired_times(
        lambda: mechanism.sample_aggregate(truth, rng=rng), draws, repeat=21, number=20
    )
    values = mechanism.expand(truth)
    rows = [
        Timing(
            label, "sample_aggregate", t_sampler, f"{ratio:.2f}x its draws (median of paired runs)"
        ),
        Timing(
            label,
            "sample_aggregate, n_draws=100 (each)",
            median_time(lambda: mechanism.sample_aggregate(truth, rng=rng, n_draws=100), number=5)
            / 100,
        ),
        Timing(
            label,
            "per-user reference (perturb + aggregate)",
            median_time(lambda: mechanism.aggregate(mechanism.perturb(values, rng=rng)), repeat=3),
        ),
        Timing(
            label,
            "draws alone (2 binomials/bit)",
            t_draws,
            "Bin(t_ij, q*) and Bin(N_j − t_ij, p*), t precomputed",
        ),
    ]
    y = mechanism.estimate(
        mechanism.sample_aggregate(truth, rng=rng), mechanism.n_reports(truth)
    ).ravel()
    rows.append(
        Timing(
            "RAPPOR decode, 1024 x 200",
            "LASSO -> OLS -> t-test",
            median_time(lambda: decode(mechanism.design_matrix, y), repeat=3),
        )
    )
    rows.append(
        Timing(
            "RAPPOR decode, 1024 x 200",
            "Rappor.create (SHA-256 design)",
            median_time(lambda: Rappor.create(params, 200, rng=rng), repeat=3),
        )
    )
    return rows
