"""Experiment drivers of the m-shot notebook (03_m_shot): parameter grid → arrays.

Short parameterized functions, one per measured quantity; the notebook calls them per arm with
its own random stream.  Every setting draws its ``n_draws`` surveys in one
``MShotReporting.sample_aggregate(..., n_draws=n_draws)`` call.

References
----------
[m_shot] §6 (Experiments 1 and 2); [m_shot] Theorem 3; [m_shot] Theorem 9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import MAX_N_ROUNDS, check_instance, check_int, check_int_array, check_n_draws, check_real, check_real_array
from ldp_helpers.bounds.m_shot import method_m
from ldp_helpers.experiments.common import max_error
from ldp_helpers.mechanisms.m_shot import MShotReporting, detection_scores
from ldp_helpers.simulate.populations import Population, RandomActiveSets, linear_ramp_counts


def ramp_data(n_users: int, n_rounds: int, *, rng: np.random.Generator) -> RandomActiveSets:
    """§6.2's data: Φ0 = t/T, rounds shuffled, active users drawn afresh in every survey."""
    return RandomActiveSets(linear_ramp_counts(n_users, n_rounds, rng=rng), n_users)


def estimates(mech: MShotReporting, data, *, rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """Φ(Y_{:,t}) of ``n_draws`` independent surveys of Algorithm 1 on ``data``, shape (n_draws, T)."""
    check_instance("mech", mech, MShotReporting)
    check_instance("data", data, (Population, RandomActiveSets))
    ones = mech.sample_aggregate(data, rng=rng, n_draws=check_n_draws(n_draws))
    return mech.estimate(ones, data.n_users)


def f_measures(mech: MShotReporting, data, theta: float, *, rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """The F-measure (Eq. (11)) of ``n_draws`` independent surveys of Algorithm 1 on ``data``."""
    est = estimates(mech, data, rng=rng, n_draws=n_draws)
    return detection_scores(data.fractions(), est, theta).f_measure


def max_errors(mech: MShotReporting, data, *, rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """max_t |Φ(Y_{:,t}) − Φ0(V_{:,t})| of each of ``n_draws`` surveys (the α of Definition 3.1)."""
    return max_error(estimates(mech, data, rng=rng, n_draws=n_draws), data.fractions())


@dataclass(frozen=True)
class UnbiasednessCheck:
    """Per-round z-scores of the mean estimate and ratios of sample to exact variance."""

    z: np.ndarray  # (mean Φ − Φ0)/√(Var Φ / n_draws), ≈ N(0, 1) per round if unbiased with that variance
    variance_ratio: np.ndarray  # sample variance / exact variance, ≈ 1 ± √(2/n_draws)


def unbiasedness_check(mech: MShotReporting, data, *, rng: np.random.Generator, n_draws: int) -> UnbiasednessCheck:
    """Theorem 3 by simulation: z-scores of the mean error and variance ratios in every round (``n_draws`` ≥ 2)."""
    est = estimates(mech, data, rng=rng, n_draws=check_int("n_draws", n_draws, low=2))
    truth, var = mech.estimand(data), mech.variance(data)
    return UnbiasednessCheck((est.mean(axis=0) - truth) / np.sqrt(var / n_draws), est.var(axis=0, ddof=1) / var)


def f_measure_vs_m(epsilon: float, n_rounds: int, ms, *, n_users: int, theta: float, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Experiment 1 (Fig. 2a–c): F-measures of shape (len(ms), n_draws), r = 0, one shuffled ramp."""
    ms = check_int_array("ms", ms, low=1).ravel()
    data = ramp_data(n_users, n_rounds, rng=rng)
    return np.array([f_measures(MShotReporting(epsilon, n_rounds, int(m)), data, theta, rng=rng, n_draws=n_draws) for m in ms])


@dataclass(frozen=True)
class PeakWindow:
    """Where the mean F-measure peaks within a window of m, and which m are statistically tied."""

    ms: np.ndarray  # the window
    mean: np.ndarray  # mean F per m
    se: np.ndarray  # its standard error
    best_m: int  # argmax of the mean
    best_sd: float  # survey-to-survey standard deviation of F at best_m
    tied: np.ndarray  # the m whose mean is within 2 SE (of the difference) of the best


def tied_with_best(ms, mean, se) -> np.ndarray:
    """The m whose mean is within 2 SE of the difference, ``2√(se² + se_best²)``, of the largest mean."""
    ms = check_int_array("ms", ms, low=1).ravel()
    mean = check_real_array("mean", mean).ravel()
    se = check_real_array("se", se, low=0.0, low_open=False).ravel()
    if not ms.size == mean.size == se.size:
        raise ValueError(f"ms, mean and se must have the same length; got {ms.size}, {mean.size}, {se.size}")
    best = int(np.argmax(mean))
    return np.asarray(ms)[mean >= mean[best] - 2 * np.hypot(se, se[best])]


def peak_window(epsilon: float, n_rounds: int, ms, *, n_users: int, theta: float, n_draws: int, rng: np.random.Generator) -> PeakWindow:
    """Rerun Experiment 1 on a window of m with ``n_draws`` ≥ 2 surveys each and locate the peak of the mean F."""
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    ms = check_int_array("ms", ms, low=1, high=n_rounds).ravel()
    n_draws = check_int("n_draws", n_draws, low=2)
    f = f_measure_vs_m(epsilon, n_rounds, ms, n_users=n_users, theta=theta, n_draws=n_draws, rng=rng)
    mean, se = f.mean(axis=1), f.std(axis=1, ddof=1) / math.sqrt(n_draws)
    best = int(mean.argmax())
    return PeakWindow(ms, mean, se, int(ms[best]), float(f[best].std(ddof=1)), tied_with_best(ms, mean, se))


def data_model_gap(mech: MShotReporting, ones_per_round, n_users: int, *, theta: float, n_draws: int,
                   rng: np.random.Generator) -> tuple[float, float, float]:
    """Mean F under a fixed nested V and under random active sets with the same k_t, and their gap in SE.

    ``n_draws`` ≥ 2 surveys per model (the SE needs a spread).
    """
    n_draws = check_int("n_draws", n_draws, low=2)
    check_instance("mech", mech, MShotReporting)
    f_fixed = f_measures(mech, Population.nested(ones_per_round, n_users), theta, rng=rng, n_draws=n_draws)
    f_random = f_measures(mech, RandomActiveSets(ones_per_round, n_users), theta, rng=rng, n_draws=n_draws)
    gap = float(f_fixed.mean() - f_random.mean())
    se = math.hypot(f_fixed.std(ddof=1), f_random.std(ddof=1)) / math.sqrt(n_draws)
    z = gap / se if se > 0 else (0.0 if gap == 0 else math.copysign(math.inf, gap))  # noise-free surveys: no spread
    return float(f_fixed.mean()), float(f_random.mean()), z


def f_measure_vs_rounds(epsilon: float, rounds, method: str, *, n_users: int, theta: float, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Experiment 2 (Fig. 2d–f): F-measures of shape (len(rounds), n_draws) for one method, r = 0."""
    out = []
    for T in check_int_array("rounds", rounds, low=1, high=MAX_N_ROUNDS).ravel():
        data = ramp_data(n_users, int(T), rng=rng)
        mech = MShotReporting(epsilon, int(T), method_m(method, epsilon, int(T)))
        out.append(f_measures(mech, data, theta, rng=rng, n_draws=n_draws))
    return np.array(out)


def max_error_vs_rounds(scale: float, b: float, rounds, method: str, *, n_users: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Theorem 9 made visible: max errors of shape (len(rounds), n_draws) with ε = scale·T^b."""
    scale, b = check_real("scale", scale, low=0.0), check_real("b", b)
    out = []
    for T in check_int_array("rounds", rounds, low=1, high=MAX_N_ROUNDS).ravel():
        epsilon = scale * float(T) ** b
        mech = MShotReporting(epsilon, int(T), method_m(method, epsilon, int(T)))
        out.append(max_errors(mech, ramp_data(n_users, int(T), rng=rng), rng=rng, n_draws=n_draws))
    return np.array(out)
