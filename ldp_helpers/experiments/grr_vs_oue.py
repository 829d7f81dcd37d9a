"""Experiment drivers of the GRR vs OUE notebook (01_grr_vs_oue): parameter grid → arrays.

Every simulated survey is drawn by a protocol's exact aggregate sampler
(``sample_aggregate(..., n_draws=R)``: R surveys in one call); only
:func:`per_user_estimates` (the 10-user worked example) runs the clients user by user.  The
theory (exact and approximate MSEs, crossovers) lives in :mod:`ldp_helpers.bounds.grr_vs_oue`.
The thesis' settings are named once, here: its worked examples' inputs and printed constants
(:func:`worked_examples` recomputes both examples), the ε of Figs. 3.3–3.6 and the runs per ε.

References
----------
[grr_vs_oue] §2.2.1; [grr_vs_oue] §2.3.1; [grr_vs_oue] §3.3–3.6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import (
    MAX_N_DRAWS,
    Described,
    check_bool,
    check_choice,
    check_count_vector,
    check_domain_values,
    check_epsilons,
    check_histogram,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_ndim,
    check_real_array,
    check_rng,
    check_true_counts,
    fail,
    fail_shape,
)
from ldp_helpers.bounds.grr_vs_oue import PROTOCOLS, approx_mse, theoretical_mse
from ldp_helpers.estimation.postprocessing import clip_and_renormalize
from ldp_helpers.experiments.common import share_se
from ldp_helpers.mechanisms.base import PureFrequencyOracle
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.pure import expected_support_count, support_count_pmf, unbiased_count
from ldp_helpers.mechanisms.unary_encoding import OUE

# -- the thesis' settings: its worked examples (§2.2.1, §2.3.1) and its experiments (§3.3–3.5) ---------------
#: ε of both worked examples (d = 3 values A, B, C; n = 10 users)
EXAMPLE_EPSILON = 2.0
#: the true counts f_A, f_B, f_C of the worked examples' input {A,A,A,B,B,C,C,C,C,C}
EXAMPLE_COUNTS = (3, 2, 5)
#: the perturbed GRR output §2.2.1 assumes, {A,A,C,B,B,C,C,A,C,C}, 0-based
GRR_EXAMPLE_OUTPUT = (0, 0, 2, 1, 1, 2, 2, 0, 2, 2)
#: the aggregated OUE support counts f'_A, f'_B, f'_C that §2.3.1 assumes
OUE_EXAMPLE_SUPPORT = (6, 4, 7)
#: the rounded p (GRR, §2.2.1) and q (OUE, §2.3.1) the thesis substitutes into its estimators
PRINTED_GRR_P, PRINTED_OUE_Q = 0.737, 0.119
#: the privacy budget of Figs. 3.3–3.6, "ε = log(20)"
FIGURE_EPSILON = math.log(20)
#: perturb-and-estimate runs per ε in Experiment 3 (Figs. 3.7, 3.8)
RUNS_PER_EPSILON = 100


@dataclass(frozen=True, eq=False)
class PerturbedExample:
    """One run of a protocol on a dataset: true counts f, support counts f' and estimates L[f].

    References
    ----------
    [grr_vs_oue] Figs. 3.3–3.6.
    """

    protocol: str
    true_counts: np.ndarray
    perturbed_counts: np.ndarray  # f'_i, the support counts
    estimated_counts: np.ndarray


@dataclass(frozen=True, eq=False)
class WorkedExample:
    """One of the thesis' worked examples, recomputed (d = 3, ε = 2, n = 10).

    References
    ----------
    [grr_vs_oue] §2.2.1 (GRR); [grr_vs_oue] §2.3.1 (OUE).
    """

    protocol: PureFrequencyOracle
    true_counts: np.ndarray  # f_i
    support: np.ndarray  # f'_i: counted from the printed output (GRR), assumed by the thesis (OUE)
    estimates: np.ndarray  # L[f_i] with the exact p and q
    # L[f_i] with the rounded p (GRR) or q (OUE) the thesis substitutes
    printed_estimates: np.ndarray
    expected_support: np.ndarray  # E[f'_i] = f_i p + (n − f_i) q

    @property
    def errors(self) -> np.ndarray:
        """L[f_i] − f_i, the errors of the thesis' tables."""
        return self.estimates - self.true_counts

    @property
    def bias_at_expectation(self) -> np.ndarray:
        """L evaluated at E[f'] minus f: zero, since L is linear (the estimator is unbiased)."""
        p, q, n = self.protocol.p, self.protocol.q, int(self.true_counts.sum())
        return unbiased_count(self.expected_support, n, p, q) - self.true_counts


def worked_examples() -> dict[str, WorkedExample]:
    """The two worked examples of the thesis, GRR's (Algorithms 1–2) and OUE's (Algorithms 3–4).

    GRR's f' is counted (Algorithm 2, line 6) from the perturbed output the thesis prints; OUE's is
    the one it assumes.  Both are debiased with the exact p, q and with the rounded values the
    thesis substitutes (:data:`PRINTED_GRR_P`, with q = (1 − p)/(d − 1); :data:`PRINTED_OUE_Q`).

    References
    ----------
    [grr_vs_oue] §2.2.1; [grr_vs_oue] §2.3.1; [grr_vs_oue] Algorithms 1–4.
    """
    counts = np.array(EXAMPLE_COUNTS)
    n, d = int(counts.sum()), counts.size
    grr, oue = GRR(EXAMPLE_EPSILON, d), OUE(EXAMPLE_EPSILON, d)
    grr_support = grr.aggregate(np.array(GRR_EXAMPLE_OUTPUT))
    oue_support = np.array(OUE_EXAMPLE_SUPPORT)
    printed = {"GRR": (PRINTED_GRR_P, (1 - PRINTED_GRR_P) / (d - 1)), "OUE": (oue.p, PRINTED_OUE_Q)}
    return {
        name: WorkedExample(
            protocol,
            counts,
            support,
            protocol.estimate(support, n),
            unbiased_count(support, n, *printed[name]),
            expected_support_count(counts, n, protocol.p, protocol.q),
        )
        for name, protocol, support in (("GRR", grr, grr_support), ("OUE", oue, oue_support))
    }


def support_tails(protocol, true_counts, support) -> np.ndarray:
    """``P(f'_i ≥ support_i)`` for each value i, from the exact pmf of the support count f'_i.

    How plausible an assumed output is: for OUE the f'_i are independent across i, so the
    product is the probability of reaching all of them at once (not so for GRR, whose f'_i sum to n).

    References
    ----------
    [grr_vs_oue] §2.3.1 (the assumed f' = (6, 4, 7)); [wang2017] Theorem 2 (f'_i's distribution).
    """
    check_instance("protocol", protocol, PureFrequencyOracle)
    counts, n = check_true_counts(true_counts, protocol.d)
    support = check_count_vector("support", support, protocol.d, high=n)
    return np.array(
        [support_count_pmf(f, n, protocol.p, protocol.q)[c:].sum() for f, c in zip(counts, support)]
    )


def perturbed_example(protocol, true_counts, *, rng: np.random.Generator) -> PerturbedExample:
    """Perturb a whole dataset once (exact aggregate sampler) and estimate its counts.

    References
    ----------
    [grr_vs_oue] Figs. 3.3–3.6 (true, perturbed f'_i and estimated L[f_i]); [grr_vs_oue] Algorithm 2, line 6;
    [grr_vs_oue] Algorithm 4, line 7.
    """
    check_instance("protocol", protocol, PureFrequencyOracle)
    counts, n = check_true_counts(true_counts, protocol.d)
    support = protocol.sample_aggregate(counts, rng=check_rng(rng))
    return PerturbedExample(type(protocol).__name__, counts, support, protocol.estimate(support, n))


def perturbed_examples(
    true_counts, epsilon: float, *, rng: np.random.Generator
) -> dict[str, PerturbedExample]:
    """:func:`perturbed_example` for each protocol of :data:`PROTOCOLS` in turn, on one stream.

    References
    ----------
    [grr_vs_oue] Figs. 3.3–3.6.
    """
    counts, rng = check_histogram(true_counts), check_rng(rng)
    return {
        name: perturbed_example(cls(epsilon, counts.size), counts, rng=rng)
        for name, cls in PROTOCOLS.items()
    }


def per_user_estimates(protocol, values, *, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """``n_draws`` estimates L[f] from the per-user pipeline (client, then aggregator), shape (n_draws, d).

    Each survey perturbs every user's value with the reference client (Algorithm 1 or 3), counts
    the support (Algorithm 2 line 6 / Algorithm 4 line 7) and debiases it: the thesis' worked
    examples, repeated, to check E[L[f_i]] = f_i by simulation (small n only: user by user).

    References
    ----------
    [grr_vs_oue] §2.2.1; [grr_vs_oue] §2.3.1 (worked examples); [grr_vs_oue] Algorithms 1–4.
    """
    n_draws = check_n_draws(n_draws)
    check_instance("protocol", protocol, PureFrequencyOracle)
    rng = check_rng(rng)
    values = check_domain_values("values", values, protocol.d)
    return np.array(
        [
            protocol.estimate(protocol.aggregate(protocol.perturb(values, rng=rng)), values.size)
            for _ in range(n_draws)
        ]
    )


def total_variation(frequencies, reference) -> float:
    """Total-variation distance ``½ Σ_i |u_i − v_i|`` between two frequency vectors.

    ``frequencies`` may be *estimated* frequencies L[f_i]/n, which can be negative (then this is
    half their L1 distance to ``reference``).

    References
    ----------
    [grr_vs_oue] §3.6 (how accurately Figs. 3.3–3.6 estimate the distribution).
    """
    u = check_real_array("frequencies", frequencies)
    v = check_real_array("reference", reference)
    if u.ndim != 1:
        fail_shape("frequencies", u.shape, "a 1-D array")
    if u.shape != v.shape:
        fail_shape("reference", v.shape, f"a 1-D array of the shape of frequencies {u.shape}")
    return float(0.5 * np.abs(u - v).sum())


def _squared_errors(
    protocol, true_counts, *, n_draws: int, rng: np.random.Generator, clip: bool = False
) -> np.ndarray:
    """Frequency MSE of each of ``n_draws`` independent perturb-and-estimate surveys (shape (n_draws,)).

    One ``sample_aggregate(..., n_draws)`` call; survey r's MSE is ``mean_i (ĉ_r(i) − f_i)² / n²``,
    with ĉ_r the unbiased estimates, or (``clip=True``) those clipped at 0 and rescaled to n
    (:func:`~ldp_helpers.estimation.postprocessing.clip_and_renormalize`, a common post-processing).

    References
    ----------
    [grr_vs_oue] §3.5 (Experiment 3).
    """
    check_instance("protocol", protocol, PureFrequencyOracle)
    counts, n = check_true_counts(true_counts, protocol.d)
    n_draws, rng, clip = check_n_draws(n_draws), check_rng(rng), check_bool("clip", clip)
    estimates = protocol.estimate(protocol.sample_aggregate(counts, rng=rng, n_draws=n_draws), n)
    if clip:
        estimates = clip_and_renormalize(estimates.reshape(-1, counts.size), n).reshape(
            estimates.shape
        )
    return np.mean(np.square(estimates - counts), axis=-1) / n**2


def _seed_sequence(seed) -> np.random.SeedSequence:
    """``seed`` itself if a SeedSequence, else the SeedSequence of the integer ``seed`` ≥ 0."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(check_int("seed", seed, low=0))


def mse_curves(true_counts, epsilons, *, n_draws: int, seed) -> dict[str, dict[str, np.ndarray]]:
    """Simulated, exact and approximate MSE vs ε for GRR and OUE on one dataset.

    Simulated: the frequency MSE averaged over ``n_draws`` independent perturb-and-estimate surveys.
    Every (protocol, ε) point gets its own random stream, spawned from ``seed`` (an int or a
    SeedSequence), so adding a protocol or appending an ε does not change the other points.

    Returns
    -------
    dict
        ``{"GRR": {"simulated": ..., "exact": ..., "approx": ...}, "OUE": {...}}``, arrays over ε.

    References
    ----------
    [grr_vs_oue] Fig. 3.7; [grr_vs_oue] Fig. 3.8; [grr_vs_oue] §3.5 (Experiment 3: "perturbation to
    aggregation repeated 100 times per ε").
    """
    counts = check_histogram(true_counts)
    n, n_draws = int(counts.sum()), check_n_draws(n_draws)
    epsilons = check_epsilons(epsilons).ravel()
    sequence = _seed_sequence(seed)
    curves = {}
    for (name, cls), child in zip(PROTOCOLS.items(), sequence.spawn(len(PROTOCOLS))):
        protocols = [cls(eps, counts.size) for eps in epsilons]
        streams = [np.random.default_rng(s) for s in child.spawn(len(protocols))]
        curves[name] = {
            "simulated": np.array(
                [
                    np.mean(_squared_errors(p, counts, n_draws=n_draws, rng=r))
                    for p, r in zip(protocols, streams)
                ]
            ),
            "exact": np.array([theoretical_mse(p, counts) for p in protocols]),
            "approx": np.array([approx_mse(p, n) for p in protocols]),
        }
    return curves


def _reversal_frequencies(
    true_counts,
    epsilons,
    *,
    n_draws: int,
    surveys_per_experiment: int = RUNS_PER_EPSILON,
    rng: np.random.Generator,
    clip: bool = False,
) -> np.ndarray:
    """Per ε, the fraction of ``n_draws`` simulated experiments in which OUE's MSE is below GRR's.

    One experiment is the thesis' Experiment 3 at one ε: ``surveys_per_experiment``
    perturb-and-estimate surveys of each protocol, their MSEs averaged (of the unbiased estimates,
    or with ``clip=True`` of the estimates clipped and rescaled: :func:`_squared_errors`).  All experiments of
    one protocol and ε come from one ``sample_aggregate`` call (OUE's, then GRR's, on ``rng``).

    References
    ----------
    [grr_vs_oue] §3.5 (100 runs per ε); [grr_vs_oue] §3.6 ¶4 (OUE "slightly smaller" for ε < 1).
    """
    counts = check_histogram(true_counts)
    epsilons = check_epsilons(epsilons)
    per_experiment = check_int(
        "surveys_per_experiment", surveys_per_experiment, low=1, high=MAX_N_DRAWS
    )
    # the surveys of one protocol and ε are drawn at once: n_draws · surveys_per_experiment ≤ MAX_N_DRAWS
    n_draws = check_int("n_draws", n_draws, low=1, high=MAX_N_DRAWS // per_experiment)
    total = n_draws * per_experiment
    rng, clip = check_rng(rng), check_bool("clip", clip)
    fractions = []
    for eps in epsilons.ravel():
        oue, grr = OUE(eps, counts.size), GRR(eps, counts.size)
        mse_oue, mse_grr = (
            _squared_errors(p, counts, n_draws=total, rng=rng, clip=clip)
            .reshape(n_draws, per_experiment)
            .mean(axis=1)
            for p in (oue, grr)
        )
        fractions.append(np.mean(mse_oue < mse_grr))
    return np.array(fractions)


@dataclass(frozen=True)
class ReversalReadings:
    """How often OUE's MSE falls below GRR's on Dataset 1, under each reading of the thesis' MSE (and one
    control of ours, :func:`reversal_readings`).

    ``shares[reading]`` holds, per ε of ``epsilons``, the share of experiments with OUE below GRR;
    ``experiments[reading]`` the number of experiments behind each share (the brands' pooled).
    """

    epsilons: np.ndarray
    shares: dict
    experiments: dict

    def gap_se(self, first: str, second: str) -> np.ndarray:
        """Binomial standard error of ``shares[first] − shares[second]`` per ε (independent experiments)."""
        first = check_choice("first", first, self.shares)
        second = check_choice("second", second, self.shares)
        return np.hypot(*(share_se(self.shares[r], self.experiments[r]) for r in (second, first)))


def reversal_readings(brand_counts, epsilons, *, n_draws: int, seed) -> ReversalReadings:
    """:func:`_reversal_frequencies` under the readings of the MSE behind §3.6 ¶4 ("OUE slightly below GRR for
    ε < 1" on Dataset 1), whose estimator (the unbiased L[f_i], §2) the thesis names but not its MSE nor n,
    and under one control of ours that separates the two causes the thesis gives (few and skewed answers).

    ``"unbiased"``: L[f_i] as written, on all answers (the rows of ``brand_counts`` summed);
    ``"clipped"``: estimates clipped at 0 and rescaled to n (:func:`_squared_errors`; common implementations'
    default, our hypothesis), on all answers; ``"clipped, per brand"``: the same on each brand's answers
    alone (a row of ``brand_counts`` each), the brands' experiments pooled; ``"clipped, per brand scaled"``
    (the control, not a reading of the thesis): the same on each brand's answers times the number of
    brands b (each brand's shape at the n of all answers when the brands have equal n: n and shape
    apart).  ``n_draws`` is at most MAX_N_DRAWS / (100 b).  Each survey has its own stream: the unbiased
    reading draws from ``seed`` itself (an int or a SeedSequence), the others from its spawned children
    (the clipped reading's first, then one per brand, then one per scaled brand).

    References
    ----------
    [grr_vs_oue] §3.6 ¶4; [grr_vs_oue] §2 (L[f_i], 最尤値); [grr_vs_oue] §3.2 (Dataset 1).
    """
    rows = check_ndim("brand_counts", brand_counts, 2, what="(brands × values)")
    if rows.shape[0] < 1 or rows.shape[1] < 2:
        fail_shape("brand_counts", rows.shape, "counts of at least one brand over d ≥ 2 values")
    groups = check_int_array("brand_counts", rows, low=0, high=2**62)
    b, total = groups.shape[0], int(groups.sum(dtype=object))
    if total * b > 2**62 or not np.all(groups.sum(axis=1) > 0):  # the scaled reading's total
        fail(
            "brand_counts",
            Described(
                f"counts totalling {total}, {np.count_nonzero(groups.sum(axis=1) == 0)} empty rows"
            ),
            f"counts with an answer in every brand, totalling at most 2^62 / {b} (each brand is also "
            f"taken ×{b})",
        )
    epsilons = check_epsilons(epsilons)
    # every brand's experiments are drawn apart: b · n_draws · RUNS_PER_EPSILON surveys per protocol and ε
    n_draws = check_int("n_draws", n_draws, low=1, high=MAX_N_DRAWS // (b * RUNS_PER_EPSILON))
    sequence = _seed_sequence(seed)
    clipped, *per_brand = sequence.spawn(1 + b)
    scaled = b * groups
    surveys = {
        "unbiased": [(groups.sum(axis=0), sequence, False)],
        "clipped": [(groups.sum(axis=0), clipped, True)],
        "clipped, per brand": [(row, s, True) for row, s in zip(groups, per_brand)],
        "clipped, per brand scaled": [(row, s, True) for row, s in zip(scaled, sequence.spawn(b))],
    }
    shares = {
        reading: np.mean(
            [
                _reversal_frequencies(
                    counts, epsilons, n_draws=n_draws, rng=np.random.default_rng(s), clip=clip
                )
                for counts, s, clip in runs
            ],
            axis=0,
        )
        for reading, runs in surveys.items()
    }
    experiments = {reading: n_draws * len(runs) for reading, runs in surveys.items()}
    return ReversalReadings(epsilons.ravel(), shares, experiments)
