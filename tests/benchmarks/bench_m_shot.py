"""m-shot reporting: exact sampler per survey vs the per-user path vs its random draws alone.

Workload: the paper's Experiment 1/2 data (Φ0 = t/T, T = 100), ε = 10, m = m* = 6, r = 0, at
N = 10^4 and 10^5.  The exact sampler (random active sets) costs a chain of T·min(m, T − m)
binomials, T hypergeometrics and 2T binomials per survey, independent of N; the per-user
path builds the N×T report matrix of Algorithm 1.
"""

import numpy as np
from timing import Timing, median_time

from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.simulate.populations import RandomActiveSets, linear_ramp_counts


def run(rng: np.random.Generator) -> list[Timing]:
    T, m, n_draws = 100, 6, 100
    mech = MShotReporting(10.0, T, m)
    p_rr, q_rr = mech.q_bin_probs
    rows = []
    for n in (10**4, 10**5):
        data = RandomActiveSets(linear_ramp_counts(n, T, rng=rng), n)
        label = f"m-shot T=100 m=6, N=1e{int(np.log10(n))}"
        fast = (
            median_time(lambda: mech.sample_aggregate(data, rng=rng, n_draws=n_draws), repeat=5)
            / n_draws
        )
        rows.append(
            Timing(
                label, "exact sampler (per survey)", fast, f"{n_draws} surveys per call (n_draws)"
            )
        )
        ref = median_time(
            lambda: mech.aggregate(mech.perturb(data.draw_matrix(rng=rng), rng=rng)), repeat=3
        )
        rows.append(Timing(label, "per-user path (per survey)", ref, "N x T matrices"))
        left = np.full((n_draws, 1, m), 0, dtype=np.int64)

        def draws():
            return [rng.binomial(left, 0.5) for _ in range(T)] + [  # noqa: E731
                rng.hypergeometric(
                    np.full((n_draws, T), n // 2),
                    np.full((n_draws, T), n - n // 2),
                    np.full((n_draws, T), n // 20),
                ),
                rng.binomial(np.full((n_draws, T), n // 20), p_rr),
                rng.binomial(np.full((n_draws, T), n // 20), q_rr),
            ]

        rows.append(
            Timing(
                label,
                "random draws alone (per survey)",
                median_time(draws, repeat=5) / n_draws,
                "same draw counts, no bookkeeping",
            )
        )
    return rows
