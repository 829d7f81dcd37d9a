"""Experiment drivers of the m-shot notebook (03_m_shot): the paper's settings, parameter grid → arrays.

Short parameterized functions, one per measured quantity; the notebook calls them per arm with
its own random stream.  Every setting draws its ``n_draws`` surveys in one
``MShotReporting.sample_aggregate(..., n_draws=n_draws)`` call.  Public drivers check their
arguments once; the private ``_`` helpers they share trust them.

References
----------
[m_shot] §6 (Experiments 1 and 2); [m_shot] Theorem 3; [m_shot] Theorem 9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import (
    MAX_N_ROUNDS,
    Described,
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_probability,
    check_real,
    check_real_array,
    fail,
)
from ldp_helpers.bounds.extremes import max_abs_normal
from ldp_helpers.bounds.m_shot import METHODS, method_m
from ldp_helpers.experiments.common import (
    EstimatorCheck,
    fitted_slope,
    fitted_slope_se,
    in_se,
    max_error,
    mean_and_se,
    mean_gap,
    versus_exact,
)
from ldp_helpers.mechanisms.m_shot import MShotReporting, detection_scores
from ldp_helpers.simulate.populations import Population, RandomActiveSets, linear_ramp_counts

# ---------------------------------------------------------------- the paper's settings (§6), named once
N_ROUNDS = 100  # T of Experiment 1 (§6.2), the first T of Experiment 2
N_USERS = 10_000  # N of Experiment 1
N_USERS_EXP2 = 100_000  # N of Experiment 2 (§6.3)
THETA = 0.8  # the heavy-hitter threshold θ of both experiments
EPSILONS = (1.0, 10.0, 200.0)  # the budgets of both experiments: Fig. 2a–c and Fig. 2d–f
ROUNDS_EXP2 = np.arange(100, 1001, 100)  # Experiment 2's T = 100, 200, …, 1000
# §6.2: the m where F peaks, and the peak F
PAPER_PEAKS = dict(zip(EPSILONS, ((1, 0.71), (6, 0.91), (100, 0.99))))

# ---------------------------------------------------------------- our settings (the paper fixes none of these)
BETA = 0.05  # β of the certified α: bound (2) = β
#: Theorem 3's check: (ε, m, r, data model) on Experiment 1's data
THEOREM3_SETTINGS = (
    (EPSILONS[1], 6, 0.0, "random sets"),
    (EPSILONS[1], 6, 0.3, "random sets"),
    (EPSILONS[0], 1, 0.0, "fixed V"),
    (EPSILONS[1], N_ROUNDS, 0.0, "fixed V"),
)
#: the windows of m rerun around each peak of Fig. 2a–c
PEAK_WINDOWS = dict(
    zip(EPSILONS, (np.arange(1, 5), np.arange(3, 13), np.array([60, 70, 80, 90, 95, 99, 100])))
)
RATE_SETTINGS = ((0.0, 2.0), (0.5, 2.0), (1.0, 0.4))  # Theorem 9: (b, scale) with ε = scale·T^b
MODELS = ("fixed V", "random sets")  # the two data models of the Theorem 3 check


def ramp_data(n_users: int, n_rounds: int, *, rng: np.random.Generator) -> RandomActiveSets:
    """§6.2's data: Φ0 = t/T, rounds shuffled, active users drawn afresh in every survey."""
    return RandomActiveSets(linear_ramp_counts(n_users, n_rounds, rng=rng), n_users)


def _check_survey(mech, data, n_draws) -> int:
    check_instance("mech", mech, MShotReporting)
    check_instance("data", data, (Population, RandomActiveSets))
    return check_n_draws(n_draws)


def estimates(mech: MShotReporting, data, *, rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """Φ(Y_{:,t}) of ``n_draws`` independent surveys of Algorithm 1 on ``data``, shape (n_draws, T)."""
    n_draws = _check_survey(mech, data, n_draws)
    return mech.estimate(mech.sample_aggregate(data, rng=rng, n_draws=n_draws), data.n_users)


def _f_measures(
    mech: MShotReporting, data, theta: float, *, rng: np.random.Generator, n_draws: int
) -> np.ndarray:
    """The F-measure (Eq. (11)) of ``n_draws`` independent surveys of Algorithm 1 on ``data``."""
    survey = estimates(mech, data, rng=rng, n_draws=n_draws)
    return detection_scores(data.fractions(), survey, theta).f_measure


def max_errors(mech: MShotReporting, data, *, rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """max_t |Φ(Y_{:,t}) − Φ0(V_{:,t})| of each of ``n_draws`` surveys (the α of Definition 3.1)."""
    return max_error(estimates(mech, data, rng=rng, n_draws=n_draws), data.fractions())


def _unbiasedness_check(
    mech: MShotReporting, data, *, rng: np.random.Generator, n_draws: int
) -> EstimatorCheck:
    """Theorem 3 by simulation: z-scores of the mean error and variance ratios in every round (``n_draws`` ≥ 2)."""
    est = estimates(mech, data, rng=rng, n_draws=n_draws)
    return versus_exact(est, mech.estimand(data), mech.variance(data))


def theorem3_checks(
    settings, *, n_users: int, n_rounds: int, rng: np.random.Generator, n_draws: int
) -> dict:
    """:func:`_unbiasedness_check` of each (ε, m, r, data model) of ``settings`` on one shuffled ramp.

    The data models are a fixed nested V ("fixed V") and fresh random active sets per survey ("random
    sets") with the same counts k_t; the result maps each setting to its :class:`~ldp_helpers.experiments.common.EstimatorCheck`.
    """
    if (
        not isinstance(settings, (tuple, list))
        or not settings
        or not all(isinstance(s, tuple) and len(s) == 4 and s[3] in MODELS for s in settings)
    ):
        fail(
            "settings",
            Described(f"{settings!r:.80}"),
            f"a non-empty sequence of (epsilon, m, r, model), model in {MODELS}",
        )
    n_draws = check_n_draws(n_draws, low=2)
    mechs = [MShotReporting(eps, n_rounds, m, r) for eps, m, r, _ in settings]
    ramp = linear_ramp_counts(n_users, n_rounds, rng=rng)
    models = dict(zip(MODELS, (Population.nested(ramp, n_users), RandomActiveSets(ramp, n_users))))
    return {
        s: _unbiasedness_check(mech, models[s[3]], rng=rng, n_draws=n_draws)
        for s, mech in zip(settings, mechs)
    }


def f_measure_vs_m(
    epsilon: float,
    n_rounds: int,
    ms,
    *,
    n_users: int,
    theta: float,
    n_draws: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Experiment 1 (Fig. 2a–c): F-measures of shape (len(ms), n_draws), r = 0, one shuffled ramp."""
    ms, n_draws = check_int_array("ms", ms, low=1).ravel(), check_n_draws(n_draws)
    data = ramp_data(n_users, n_rounds, rng=rng)
    return np.array(
        [
            _f_measures(
                MShotReporting(epsilon, n_rounds, int(m)), data, theta, rng=rng, n_draws=n_draws
            )
            for m in ms
        ]
    )


@dataclass(frozen=True)
class PeakWindow:
    """Where the mean F-measure peaks within a window of m, and which m are statistically tied."""

    ms: np.ndarray  # the window
    mean: np.ndarray  # mean F per m
    se: np.ndarray  # its standard error
    best_m: int  # argmax of the mean
    best_sd: float  # survey-to-survey standard deviation of F at best_m
    tied: np.ndarray  # the m whose mean is within 2 SE (of the difference) of the best


def _two_se_of_difference(se, se_best):
    return 2 * np.hypot(se, se_best)


def _tied_with_best(ms, mean, se) -> np.ndarray:
    """The m whose mean is within 2 SE of the difference, ``2√(se² + se_best²)``, of the largest mean."""
    best = int(np.argmax(mean))
    return np.asarray(ms)[mean >= mean[best] - _two_se_of_difference(se, se[best])]


def peak_window(
    epsilon: float,
    n_rounds: int,
    ms,
    *,
    n_users: int,
    theta: float,
    n_draws: int,
    rng: np.random.Generator,
) -> PeakWindow:
    """Rerun Experiment 1 on a window of m with ``n_draws`` ≥ 2 surveys each and locate the peak of the mean F."""
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    ms = check_int_array("ms", ms, low=1, high=n_rounds).ravel()
    n_draws = check_n_draws(n_draws, low=2)
    f = f_measure_vs_m(
        epsilon, n_rounds, ms, n_users=n_users, theta=theta, n_draws=n_draws, rng=rng
    )
    mean, se = mean_and_se(f)
    best = int(mean.argmax())
    return PeakWindow(
        ms, mean, se, int(ms[best]), float(f[best].std(ddof=1)), _tied_with_best(ms, mean, se)
    )


def gap_to_best(window: PeakWindow, m: int) -> tuple[float, float]:
    """The best mean F of a :class:`PeakWindow` minus its mean F at ``m``, and 2 SE of that difference."""
    check_instance("window", window, PeakWindow)
    m = check_int("m", m, low=1)
    if m not in window.ms:
        fail("m", m, f"one of the window's m ({window.ms.tolist()})")
    i, best = int(np.flatnonzero(window.ms == m)[0]), int(np.argmax(window.mean))
    return float(window.mean[best] - window.mean[i]), float(
        _two_se_of_difference(window.se[i], window.se[best])
    )


def data_model_gap(
    mech: MShotReporting,
    ones_per_round,
    n_users: int,
    *,
    theta: float,
    n_draws: int,
    rng: np.random.Generator,
) -> tuple[float, float, float]:
    """Mean F under a fixed nested V and under random active sets with the same k_t, and their gap in SE.

    ``n_draws`` ≥ 2 surveys per model (the SE needs a spread).
    """
    n_draws = check_n_draws(n_draws, low=2)
    check_instance("mech", mech, MShotReporting)
    f_fixed, f_random = (
        _f_measures(mech, data(ones_per_round, n_users), theta, rng=rng, n_draws=n_draws)
        for data in (Population.nested, RandomActiveSets)
    )
    return float(f_fixed.mean()), float(f_random.mean()), in_se(*mean_gap(f_fixed, f_random))


def f_measure_vs_rounds(
    epsilon: float,
    rounds,
    method: str,
    *,
    n_users: int,
    theta: float,
    n_draws: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Experiment 2 (Fig. 2d–f): F-measures of shape (len(rounds), n_draws) for one method, r = 0."""
    rounds = check_int_array("rounds", rounds, low=1, high=MAX_N_ROUNDS).ravel()
    n_draws, out = check_n_draws(n_draws), []
    for T in rounds:
        data = ramp_data(n_users, int(T), rng=rng)
        mech = MShotReporting(epsilon, int(T), method_m(method, epsilon, int(T)))
        out.append(_f_measures(mech, data, theta, rng=rng, n_draws=n_draws))
    return np.array(out)


def max_error_vs_rounds(
    scale: float,
    b: float,
    rounds,
    method: str,
    *,
    n_users: int,
    n_draws: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Theorem 9 made visible: max errors of shape (len(rounds), n_draws) with ε = scale·T^b.

    ``scale`` and ``b`` must give every T of ``rounds`` a budget ε = scale·T^b that the method's
    :class:`~ldp_helpers.mechanisms.m_shot.MShotReporting` accepts (ε ≥ 1e-12 and ε/m at most Q_Bin's ceiling 36.74
    or 700): else ValueError naming scale and b, before any simulation.
    """
    scale, b = check_real("scale", scale, low=0.0), check_real("b", b)
    method = check_choice(
        "method", method, METHODS
    )  # before _rounds_mech, which blames scale and b
    rounds = check_int_array("rounds", rounds, low=1, high=MAX_N_ROUNDS).ravel()
    n_draws, out = check_n_draws(n_draws), []
    mechs = [_rounds_mech(scale, b, int(T), method) for T in rounds]
    for T, mech in zip(rounds, mechs):
        data = ramp_data(n_users, int(T), rng=rng)
        out.append(max_errors(mech, data, rng=rng, n_draws=n_draws))
    return np.array(out)


def _rounds_mech(scale: float, b: float, T: int, method: str) -> MShotReporting:
    """The mechanism of ``method`` at ε = scale·T^b; an ε it refuses (or T^b beyond double range) is
    refused naming scale and b."""
    try:
        epsilon = scale * float(T) ** b
    except OverflowError:  # T^b beyond 1.8e308 (b = 1e300)
        epsilon = math.inf
    try:
        return MShotReporting(epsilon, T, method_m(method, epsilon, T))
    except ValueError as err:
        fail(
            "scale and b",
            Described(f"scale={scale!r}, b={b!r} (ε = scale·T^b = {epsilon!r} at T={T})"),
            f"such that every round's budget ε = scale·T^b is one the {method} method accepts (its check: {err})",
        )


@dataclass(frozen=True)
class RateFit:
    """Fitted exponents of T in the mean maximum error (Theorem 9), and the bias the log correction leaves."""

    slopes: dict  # (b, method) -> fitted slope of ln(mean max error / √log(2T/β)) against ln T
    se: dict  # (b, method) -> Monte-Carlo SE of that slope
    # the slope √log(2T/β) leaves for the mean max of T Gaussians (a bias of the fit)
    residual_mean: float
    residual_quantile: float  # the same for their (1 − β)-quantile


def log_correction_residual(rounds, beta: float, *, quantile: bool) -> float:
    """Slope of ``ln(M_T/√log(2T/β))`` against ``ln T`` for M_T = :func:`~ldp_helpers.bounds.extremes.max_abs_normal`
    (mean, or (1−β)-quantile): :func:`fitted_slope` with the log correction.

    The bias that dividing a maximum error by √log(2T/β) leaves in a fitted exponent when the T round
    errors are independent Gaussians of equal variance: the fitted slope is then the true exponent plus this.
    """
    t = check_int_array("rounds", rounds, low=1).ravel()
    if np.all(t == t[0]):  # no slope: polyfit returned a number anyway (with a RankWarning)
        fail("rounds", Described(f"all rounds equal to {t[0]}"), "at least two distinct T")
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    tail = beta if check_bool("quantile", quantile) else None
    return fitted_slope(t, [max_abs_normal(int(T), tail) for T in t], log_correction_beta=beta)


def fit_rates(rounds, errors, beta: float) -> RateFit:
    """Theorem 9's exponents fitted to ``errors`` ((b, method) → max errors of shape (len(rounds), n_draws))."""
    rounds = check_int_array("rounds", rounds, low=1).ravel()
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    if not isinstance(errors, dict) or not errors:
        fail(
            "errors",
            Described(f"{errors!r:.80}"),
            "a non-empty dict of (b, method) -> max errors (rounds × n_draws)",
        )
    errors = {
        key: check_real_array(f"errors[{key!r}]", err, low=0.0, low_open=False)
        for key, err in errors.items()
    }
    if any(
        err.ndim != 2 or err.shape[0] != rounds.size or err.shape[1] < 2 for err in errors.values()
    ):
        fail(
            "errors",
            Described("arrays of other shapes"),
            f"arrays of shape ({rounds.size}, n_draws ≥ 2)",
        )
    slopes = {
        key: fitted_slope(rounds, err.mean(axis=1), log_correction_beta=beta)
        for key, err in errors.items()
    }
    # the log correction does not change the SE
    se = {key: fitted_slope_se(rounds, *mean_and_se(err)) for key, err in errors.items()}
    residual_mean, residual_quantile = (
        log_correction_residual(rounds, beta, quantile=q) for q in (False, True)
    )
    return RateFit(slopes, se, residual_mean, residual_quantile)
