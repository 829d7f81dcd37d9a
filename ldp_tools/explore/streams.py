"""Pure computations behind the continual-counting and m-shot panels (no widgets, no per-user simulation).

Every survey is an exact draw of sufficient statistics, never a per-user simulation.  Continual
counting: the per-round reporters (K, K1) of ``n_draws`` surveys come from the chain of binomials
(:func:`~ldp_helpers.simulate.streams.sample_reporters`) once per (μ, N, T, rounds per user) —
they do not depend on ε — and each (mechanism, ε) randomizes them
(``randomize_reporters``): for each (mechanism, ε) the same law as ``sample_aggregate``
(:func:`~ldp_helpers.experiments.glance.error_curve`), with common random numbers across ε and
between Glance and Harmony (their curves compare without reporter noise).  m-shot: Experiment 1
on :func:`~ldp_helpers.experiments.m_shot.ramp_data` the same way — who reports
(:meth:`~ldp_helpers.mechanisms.m_shot.MShotReporting.sample_who_reports`) is drawn once per
(T, m, N), the reports per ε (``sample_given_reporters``); the estimates are cached per
(ε, T, m, N), and the F-measure at θ is computed from them, so moving θ or β only recomputes
bounds and scores.

References
----------
[glance] §3 (Err), Eq. (1), condition (2), Theorems 4–5; [m_shot] Eq. (7), §4.3 (g), §6 (F-measure).
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    MAX_N_ROUNDS,
    MIN_EPSILON,
    check_epsilon,
    check_int,
    check_probability,
    check_real,
    fail,
)
from ldp_helpers.bounds import glance as gb
from ldp_helpers.bounds.m_shot import c_star, g, m_star
from ldp_helpers.experiments.common import max_error, mean_and_se
from ldp_helpers.experiments.m_shot import ramp_data
from ldp_helpers.mechanisms.continual import BasicOneTimeRappor, Glance
from ldp_helpers.mechanisms.harmony import Harmony
from ldp_helpers.mechanisms.m_shot import MShotReporting, detection_scores
from ldp_helpers.simulate.populations import constant_population
from ldp_helpers.simulate.streams import sample_reporters

#: the continual-counting panel's mechanisms: label -> class
STREAM_MECHANISMS = {"Glance": Glance, "Harmony": Harmony, "T-shot": BasicOneTimeRappor}
#: size of the panels' grids (ε for continual counting, m for m-shot): small enough for ≤ 200 ms at T = 1000
N_EPSILONS, N_MS = 10, 7
#: the panels' work ceilings, sized by time (an interaction within a second on 2 idle cores; measured 12 µs per
#: unit of T·n_draws at N = 10¹⁰): continual counting draws T·n_draws reporters per ε and mechanism (the chain of
#: binomials loops over T); m-shot's work is :func:`_m_shot_work`, in binomial draws of the chain
MAX_CONTINUAL_WORK, MAX_M_SHOT_ROUNDS, MAX_M_SHOT_WORK = 50_000, 5_000, 8_000_000
#: m-shot's cost per round of the chain's loop (numpy's call overhead) and per report (K_t, A_t and X_t of one
#: survey, round and m), in draws of the chain: fitted 19 µs, 0.2 µs and 54 ns of CPU per draw (12 settings on
#: the 2 shared cores), so :data:`MAX_M_SHOT_WORK` is about 0.45 s (0.6 s with the figure's redraw)
M_SHOT_ROUND_WORK, M_SHOT_REPORT_WORK = 350, 4
#: who reports is drawn with numpy's hypergeometric sampler, which takes fewer than 10⁹ users
MAX_M_SHOT_USERS = 10**9 - 1
#: the m-shot panel's surveys per m (its widget's range)
MAX_M_SHOT_DRAWS = 1000


def _check_work(n_rounds: int, n_draws: int, ceiling: int) -> None:
    """Refuse T·n_draws over ``ceiling`` before any simulation, naming T's allowed range at this n_draws."""
    if n_rounds * n_draws > ceiling:
        fail(
            "n_rounds",
            n_rounds,
            f"an integer in [1, {max(ceiling // n_draws, 1)}] with n_draws = {n_draws} (the panel's "
            f"work T·n_draws is at most {ceiling:,}, about a second; lower n_draws for a longer stream)",
        )


class ContinualCurves(NamedTuple):
    """Mean Err per ε (and its Monte-Carlo SE) of each mechanism, with the bounds of [glance]."""

    epsilons: np.ndarray
    mean_error: dict  # label -> mean of Err = max_t |μ̂_t − μ_t| over n_draws surveys, per ε
    se: dict  # label -> SE of that mean (sd/√n_draws)
    theta: np.ndarray  # Eq. (1): Claim 1's bound on Glance's randomized-response error
    glance_upper: np.ndarray  # Theorem 5: 2θ (holds where condition (2) does)
    harmony_lower: np.ndarray  # Theorem 4 at β₄ = β/(N+1)² (gb.theorem4_beta; for some stream)
    condition2: np.ndarray  # condition (2) at the chosen μ, per ε


@functools.lru_cache(maxsize=8)
def _reporters(
    mu: float, n_users: int, n_rounds: int, rounds_per_user: int, n_draws: int, seed: int
):
    """(K, K1) of ``n_draws`` surveys: the chain of binomials, drawn once per setting (it does not depend on ε)."""
    population = constant_population(mu, n_users, n_rounds)
    return sample_reporters(
        population,
        rounds_per_user,
        rng=np.random.default_rng([seed, rounds_per_user]),
        n_draws=n_draws,
    )


@functools.lru_cache(maxsize=16)
def _error_means(mu: float, n_users: int, n_rounds: int, epsilons: tuple, n_draws: int, seed: int):
    """Mean Err and its SE per mechanism and ε, from the cached reporters (common random numbers).

    Not :func:`~ldp_helpers.experiments.glance.mean_error_grid`: that draws reporters and reports
    together per (N, T) at one ε, so its curves would not share reporters across ε and mechanisms.
    """
    truth = constant_population(mu, n_users, n_rounds).fractions()
    rng = np.random.default_rng([seed, 1])
    means, se = {}, {}
    for label, cls in STREAM_MECHANISMS.items():
        errs = []
        for e in epsilons:
            mechanism = cls(e, n_rounds)
            K, K1 = _reporters(mu, n_users, n_rounds, mechanism.rounds_per_user, n_draws, seed)
            errs.append(
                max_error(
                    mechanism.estimate(mechanism.randomize_reporters(K, K1, rng=rng), n_users),
                    truth,
                )
            )
        means[label], se[label] = _survey_mean(np.array(errs))  # errs: (ε, survey)
    return means, se


def _survey_mean(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over the surveys (last axis) and its SE (:func:`mean_and_se`); one survey has none: NaN."""
    if samples.shape[-1] > 1:
        return mean_and_se(samples)
    return samples.mean(axis=-1), np.full(samples.shape[:-1], np.nan)


def continual_counting_curves(
    *, mu, n_users, n_rounds, beta, epsilon_max=8.0, n_draws=5, seed=0
) -> ContinualCurves:
    """Glance vs Harmony vs T-shot: mean Err over ε on the constant-μ stream, with θ, condition (2) and Theorem 4.

    The ε grid has :data:`N_EPSILONS` points from ε_max/N_EPSILONS to ε_max (ε_max in [T·1e-11, 30]:
    T-shot's per-round budget ε/T at least 1e-12 at every ε of the grid).  θ and Theorem 5
    use β (each claim w.p. 1 − β/2; domain N > T log(4T/β), refused outside); Theorem 4 needs
    0 < β₄ < 1/(N+1)² and is drawn at β₄ = β/(N+1)²
    (:func:`~ldp_helpers.bounds.glance.theorem4_beta`; β = ½ is Figure 2's choice).  A setting whose
    work T·n_draws exceeds :data:`MAX_CONTINUAL_WORK` is refused before any simulation.

    References
    ----------
    [glance] §3, §6 (Err on constant streams); Eq. (1); condition (2); Theorem 4; Theorem 5.
    """
    mu = check_probability(mu, "mu")
    n_users = check_int("n_users", n_users, low=1)
    n_rounds = check_int("n_rounds", n_rounds, low=1, high=MAX_N_ROUNDS)
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    epsilon_max = check_real("epsilon_max", epsilon_max, low=0.0, high=30.0, high_open=False)
    # the grid starts at ε_max/N_EPSILONS, which T-shot splits over the T rounds: a budget's floor for each
    if epsilon_max / N_EPSILONS / n_rounds < MIN_EPSILON:
        fail(
            "epsilon_max",
            epsilon_max,
            f"in [{N_EPSILONS * MIN_EPSILON * n_rounds:g}, 30] with n_rounds = {n_rounds} (the ε grid "
            f"starts at epsilon_max/{N_EPSILONS}, T-shot spends ε/n_rounds per round, and a budget is "
            f"at least {MIN_EPSILON:g})",
        )
    n_draws = check_int("n_draws", n_draws, low=1, high=MAX_CONTINUAL_WORK)
    seed = check_int("seed", seed, low=0)
    _check_work(n_rounds, n_draws, MAX_CONTINUAL_WORK)
    eps = np.linspace(epsilon_max / N_EPSILONS, epsilon_max, N_EPSILONS)
    theta = gb.theta(eps, n_users, n_rounds, beta)  # refuses N ≤ T log(4T/β) before any simulation
    means, se = _error_means(mu, n_users, n_rounds, tuple(float(e) for e in eps), n_draws, seed)
    return ContinualCurves(
        eps,
        means,
        se,
        theta,
        gb.glance_upper_bound(eps, n_users, n_rounds, beta),
        gb.harmony_lower_bound(eps, n_users, n_rounds, gb.theorem4_beta(n_users, beta)),
        np.asarray(gb.dense_sparse_condition(mu, eps, n_users, n_rounds, beta)),
    )


class MShotCurves(NamedTuple):
    """Mean F-measure (and SE) over a grid of m, with m* of Eq. (7) and g(m/ε)."""

    ms: np.ndarray
    mean_f: np.ndarray
    se: np.ndarray
    g: np.ndarray  # g(m/ε) = f(m, 0) of Theorem 5 at each m
    m_star: int  # Eq. (7)
    c_star: float  # argmax g ≈ 0.574


def _m_grid(epsilon, n_rounds) -> np.ndarray:
    """About :data:`N_MS` values of m in [1, T], log-spaced, always with 1, T, m* and its neighbours."""
    star = m_star(epsilon, n_rounds)
    ms = np.concatenate(
        [np.geomspace(1, n_rounds, N_MS).round(), [star - 1, star, star + 1]]
    ).astype(np.int64)
    return np.unique(np.clip(ms, 1, n_rounds))


def _chain_draws(n_rounds: int, m: int, n_users: int, n_draws: int) -> float:
    """Binomials :func:`~ldp_helpers.simulate.streams.sample_reporter_counts` draws for one m (a model).

    Its window at round t spans the picks left that some user holds: about ±z standard deviations
    of the hypergeometric picks left (z = √(2 ln(N·n_draws)), the reach of the largest of N·n_draws
    normal draws), within the picks that still fit, and at most N·n_draws values.
    """
    picks = min(m, n_rounds - m)
    t = np.arange(n_rounds)
    share = picks / n_rounds
    sd = np.sqrt(t * share * (1 - share) * (n_rounds - t) / max(n_rounds - 1, 1))
    support = np.minimum(picks, n_rounds - t) - np.maximum(1, picks - t) + 1
    reach = 1 + 2 * math.sqrt(2 * math.log(max(n_users * n_draws, 2))) * sd
    width = np.minimum(np.minimum(support, reach), n_users * n_draws)
    return n_draws * float(np.clip(width, 0, None).sum()) if picks else 0.0


def _m_shot_work(epsilon, n_rounds, n_users, n_draws) -> float:
    """The m-shot panel's work in binomial draws of the chain, for validated arguments (a cost model).

    Per m of :func:`_m_grid` below T: T rounds of the chain's loop (:data:`M_SHOT_ROUND_WORK` each)
    and its binomials (:func:`_chain_draws`, which widen with N, T and m); per m: T·n_draws reports
    (:data:`M_SHOT_REPORT_WORK` each).  Within 20 % of the measured CPU time from T = 200 to 5000,
    N = 10 to 10⁹ and 1 to 1000 surveys (above it, by up to 60 %, at N·n_draws below 10⁴).
    """
    ms = _m_grid(epsilon, n_rounds)
    chain = sum(
        M_SHOT_ROUND_WORK * n_rounds + _chain_draws(n_rounds, int(m), n_users, n_draws)
        for m in ms
        if m < n_rounds
    )
    return chain + M_SHOT_REPORT_WORK * ms.size * n_rounds * n_draws


def _check_m_shot_work(epsilon, n_rounds, n_users, n_draws) -> None:
    """Refuse an m-shot setting over :data:`MAX_M_SHOT_WORK`, naming T's allowed range at the others."""
    if _m_shot_work(epsilon, n_rounds, n_users, n_draws) <= MAX_M_SHOT_WORK:
        return
    low, high = 1, n_rounds - 1  # the largest T within the ceiling, by bisection (T = 1 always is)
    while low < high:
        mid = (low + high + 1) // 2
        within = _m_shot_work(epsilon, mid, n_users, n_draws) <= MAX_M_SHOT_WORK
        low, high = (mid, high) if within else (low, mid - 1)
    fail(
        "n_rounds",
        n_rounds,
        f"an integer in [1, {low}] with n_draws = {n_draws}, n_users = {n_users:,} and "
        f"epsilon = {epsilon:g} (the panel's work is at most {MAX_M_SHOT_WORK:,} binomial draws, "
        "about 0.6 s with the figure; lower n_draws or n_users for a longer stream)",
    )


@functools.lru_cache(maxsize=8)
def _ramp(n_users: int, n_rounds: int, seed: int):
    return ramp_data(n_users, n_rounds, rng=np.random.default_rng([seed, 0]))


@functools.lru_cache(maxsize=64)
def _who_reports(
    n_rounds: int, m: int, n_users: int, n_draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """K_t and A_t of ``n_draws`` surveys at this m: they do not depend on ε, so moving ε reuses them."""
    return MShotReporting(1.0, n_rounds, m).sample_who_reports(
        _ramp(n_users, n_rounds, seed), n_draws=n_draws, rng=np.random.default_rng([seed, m, 0])
    )


@functools.lru_cache(maxsize=256)
def _estimates(
    epsilon: float, n_rounds: int, m: int, n_users: int, n_draws: int, seed: int
) -> np.ndarray:
    """Φ(Y) of ``n_draws`` exact surveys of Algorithm 1 at this m (independent of θ: moving θ costs no simulation);
    who reports comes from :func:`_who_reports`, the reports from a fixed stream per m (common random numbers)."""
    mech = MShotReporting(epsilon, n_rounds, m)
    ones = mech.sample_given_reporters(
        _ramp(n_users, n_rounds, seed),
        *_who_reports(n_rounds, m, n_users, n_draws, seed),
        rng=np.random.default_rng([seed, m, 1]),
    )
    est = mech.estimate(ones, n_users)
    est.setflags(write=False)
    return est


def m_shot_curves(*, epsilon, n_rounds, n_users, theta, n_draws=3, seed=0) -> MShotCurves:
    """F-measure vs m (Experiment 1: r = 0, the shuffled ramp Φ0 = t/T) with m* (Eq. 7) and g(m/ε).

    T is at most :data:`MAX_M_SHOT_ROUNDS` and the work (:func:`_m_shot_work`) at most
    :data:`MAX_M_SHOT_WORK` (about 0.45 s); larger settings are refused with T's allowed range
    before any simulation.

    References
    ----------
    [m_shot] §6.2, Fig. 2a–c (Experiment 1); Eq. (7) (m*); §4.3 (g); Eq. (11) (F-measure).
    """
    epsilon = check_epsilon(epsilon)
    n_rounds = check_int("n_rounds", n_rounds, low=1, high=MAX_M_SHOT_ROUNDS)
    n_users = check_int("n_users", n_users, low=1, high=MAX_M_SHOT_USERS)
    theta = check_real("theta", theta, low=0.0, high=1.0, high_open=False)
    n_draws = check_int("n_draws", n_draws, low=1, high=MAX_M_SHOT_DRAWS)
    seed = check_int("seed", seed, low=0)
    _check_m_shot_work(epsilon, n_rounds, n_users, n_draws)
    ms = _m_grid(epsilon, n_rounds)
    truth = _ramp(n_users, n_rounds, seed).fractions()
    f = np.array(
        [
            detection_scores(
                truth, _estimates(epsilon, n_rounds, int(m), n_users, n_draws, seed), theta
            ).f_measure
            for m in ms
        ]
    )
    mean, se = _survey_mean(f)
    return MShotCurves(
        ms, mean, se, np.asarray(g(ms / epsilon)), m_star(epsilon, n_rounds), c_star()
    )
