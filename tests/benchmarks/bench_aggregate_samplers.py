"""Every exact aggregate sampler against the random draws it needs, timed in alternating runs.

The target of issue 3 is a sampler costing at most 1.3x its draws: the rest (input validation,
the sufficient-statistic bookkeeping, adding the parts) must be negligible.  The "draws alone"
callable makes the very same Generator calls with the very same parameter arrays, precomputed.
"""

from __future__ import annotations

import numpy as np
from timing import Timing, paired_times

from ldp_helpers.mechanisms.count_mean_sketch import CountMeanSketch
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.histogram_encoding import SHE, THE
from ldp_helpers.mechanisms.local_hashing import BLH, OLH
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE

WORKLOADS = ((49_742, 43), (10**6, 1024))
EPSILON = 1.0
CMS_SHAPE = (64, 256)  # k hash functions, sketch width m
BATCH = 100  # surveys per call in the batched rows


def pure_oracle_draws(oracle, true_counts, n, rng, n_draws=None):
    """The draws of a pure oracle's sampler: GRR's keep-binomials and multinomial, or two binomials."""
    size = None if n_draws is None else (n_draws, oracle.d)
    if isinstance(oracle, GRR):
        uniform = np.full(oracle.d, 1.0 / oracle.d)
        kept = rng.binomial(true_counts, oracle.p - oracle.q, size=size)
        rest = n - kept.sum(axis=-1)
        rest = int(rest) if n_draws is None else rest
        return lambda: (
            rng.binomial(true_counts, oracle.p - oracle.q, size=size),
            rng.multinomial(rest, uniform),
        )
    others = n - true_counts
    return lambda: (
        rng.binomial(true_counts, oracle.p, size=size),
        rng.binomial(others, oracle.q, size=size),
    )


def _cms(cms, true_counts, rng):
    """CMS's draws: a k-way multinomial per value, then two binomials per sketch cell (A, n_j fixed)."""
    uniform = np.full(cms.k, 1.0 / cms.k)
    per_row = rng.multinomial(true_counts, uniform)
    hits = np.zeros((cms.k, cms.m), dtype=np.int64)
    np.add.at(
        hits, (np.repeat(np.arange(cms.k), cms.d), cms.hash_table().ravel()), per_row.T.ravel()
    )
    misses = per_row.sum(axis=0)[:, None] - hits
    r = cms.flip_probability
    return lambda: (
        rng.multinomial(true_counts, uniform),
        rng.binomial(hits, 1 - r),
        rng.binomial(misses, r),
    )


def run(rng: np.random.Generator) -> list[Timing]:
    rows = []
    for n, d in WORKLOADS:
        true_counts = np.bincount(rng.integers(0, d, size=n), minlength=d)
        label = f"aggregate samplers, n={n:,}, d={d}"
        cases = [
            (
                o,
                lambda o=o: o.sample_aggregate(true_counts, rng=rng),
                pure_oracle_draws(o, true_counts, n, rng),
            )
            for o in (
                GRR(EPSILON, d),
                SUE(EPSILON, d),
                OUE(EPSILON, d),
                THE(EPSILON, d),
                BLH(EPSILON, d),
                OLH(EPSILON, d),
            )
        ]
        she = SHE(EPSILON, d)
        cases.append(
            (
                she,
                lambda: she.sample_aggregate(true_counts, rng=rng),
                lambda: rng.gamma(n, she.scale, size=(2, d)),
            )
        )
        cms = CountMeanSketch.create(EPSILON, d, *CMS_SHAPE, rng=rng)
        cases.append(
            (cms, lambda: cms.sample_aggregate(true_counts, rng=rng), _cms(cms, true_counts, rng))
        )
        for oracle, sampler, draws in cases:
            name = type(oracle).__name__ + (f" (k={cms.k}, m={cms.m})" if oracle is cms else "")
            number = 5 if oracle is cms else 50
            t_sampler, t_draws, ratio = paired_times(sampler, draws, repeat=21, number=number)
            rows.append(
                Timing(
                    label,
                    f"{name} sampler / its draws",
                    t_sampler,
                    f"{ratio:.2f}x its draws ({t_draws * 1e3:.3f} ms)",
                )
            )
        rows += _batched(label, cases[:-1], true_counts, n, rng)
    return rows


def _batched(label, cases, true_counts, n, rng) -> list[Timing]:
    """The same samplers drawing BATCH surveys per call (``n_draws``): the per-call overhead amortized."""
    rows = []
    for oracle, _, _ in cases:
        if isinstance(oracle, SHE):
            sampler = lambda o=oracle: o.sample_aggregate(true_counts, rng=rng, n_draws=BATCH)  # noqa: E731
            draws = lambda o=oracle: rng.gamma(n, o.scale, size=(2, BATCH, o.d))  # noqa: E731
        else:
            sampler = lambda o=oracle: o.sample_aggregate(true_counts, rng=rng, n_draws=BATCH)  # noqa: E731
            draws = pure_oracle_draws(oracle, true_counts, n, rng, n_draws=BATCH)
        t_sampler, t_draws, ratio = paired_times(sampler, draws, repeat=11, number=3)
        rows.append(
            Timing(
                label,
                f"{type(oracle).__name__}, n_draws={BATCH} (per survey)",
                t_sampler / BATCH,
                f"{ratio:.2f}x its draws ({t_draws / BATCH * 1e3:.3f} ms per survey)",
            )
        )
    return rows
