"""Short experiment drivers for the continual-counting notebook (Glance seed 000).

Each driver takes a mechanism or its class, a :class:`~ldp_helpers.simulate.streams.Population` and an
injected ``rng``, runs the exact fast simulator of :mod:`ldp_helpers.mechanisms.continual` and
returns per-trial errors ``Err = max_t |μ̂_t − μ_t|`` (never an N×T matrix).
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import check_int, check_int_array, check_probability, check_real_array
from ldp_helpers.mechanisms.continual import Glance, StreamReports, max_error
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.simulate.streams import Population


def constant_population(mu: float, n_users: int, n_rounds: int) -> Population:
    """The paper's §6 stream: ``round(μN)`` active users in every round (two distinct rows)."""
    mu = check_probability(mu, "mu")
    n_users = check_int("n_users", n_users, low=1)
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    return Population.nested(np.full(n_rounds, round(mu * n_users), dtype=np.int64), n_users)


def error_samples(mechanism, population: Population, *, rng: np.random.Generator, n_trials: int) -> np.ndarray:
    """``Err`` of ``n_trials`` independent runs of ``mechanism`` on ``population``, shape (n_trials,)."""
    reports = mechanism.simulate(population, rng=rng, n_trials=n_trials)
    return max_error(mechanism.estimate(reports), population)


def error_curve(mechanism_cls, population: Population, epsilons, *, rng: np.random.Generator, n_trials: int) -> np.ndarray:
    """``Err`` samples for each ε, shape (len(epsilons), n_trials)."""
    epsilons = check_real_array("epsilons", epsilons, low=0.0)
    return np.array([error_samples(mechanism_cls(float(e), population.n_rounds), population, rng=rng, n_trials=n_trials)
                     for e in np.atleast_1d(epsilons)])


def mean_error_grid(mechanism_cls, epsilon: float, mu: float, n_users, n_rounds, *, rng: np.random.Generator, n_trials: int) -> np.ndarray:
    """Mean ``Err`` on the constant-μ stream for each ``(N, T)`` of ``np.broadcast(n_users, n_rounds)``."""
    pairs = np.broadcast(check_int_array("n_users", n_users, low=1), check_int_array("n_rounds", n_rounds, low=1))
    return np.array([error_samples(mechanism_cls(epsilon, int(T)), constant_population(mu, int(N), int(T)), rng=rng, n_trials=n_trials).mean()
                     for N, T in pairs])


def exceedance_probabilities(mechanism_cls, population: Population, epsilons, bounds, *, rng: np.random.Generator, n_trials: int) -> np.ndarray:
    """Fraction of ``n_trials`` runs with ``Err > bounds[i]`` at ``epsilons[i]`` (e.g. Theorem 4's bound), shape (len(epsilons),)."""
    epsilons = np.atleast_1d(check_real_array("epsilons", epsilons, low=0.0))
    bounds = check_real_array("bounds", bounds, low=0.0, low_open=False)
    if bounds.shape not in ((), epsilons.shape):
        raise ValueError(f"bounds must be a scalar or have one value per epsilon ({epsilons.size}); got shape {bounds.shape}")
    errs = error_curve(mechanism_cls, population, epsilons, rng=rng, n_trials=n_trials)
    return np.mean(errs > np.broadcast_to(bounds, epsilons.shape)[:, None], axis=1)


def whole_stream_losses(mechanism_classes, settings) -> dict:
    """Exact privacy loss of each mechanism's whole-stream output table: ``{(name, T, ε): loss}`` (Theorem 3)."""
    return {(m.__name__, int(T), float(e)): max_privacy_loss(m(float(e), int(T)).stream_output_table())
            for m in mechanism_classes for T, e in settings}


def error_parts(glance: Glance, reports: StreamReports, population: Population) -> dict:
    """Per-trial ``total = max|μ̂−μ|``, ``rr = max|μ̂−μ̃|`` (Claim 1) and ``sampling = max|μ̃−μ|`` (Claim 2) of given reports."""
    est, tilde = glance.estimate(reports), glance.sampled_fraction(reports)
    return {
        "total": max_error(est, population),
        "rr": np.max(np.abs(est - tilde), axis=-1),
        "sampling": max_error(tilde, population),
    }


def glance_error_parts(glance: Glance, population: Population, *, rng: np.random.Generator, n_trials: int) -> dict:
    """:func:`error_parts` of ``n_trials`` simulated runs, each entry of shape (n_trials,)."""
    return error_parts(glance, glance.simulate(population, rng=rng, n_trials=n_trials), population)


def error_parts_curve(population: Population, epsilons, *, rng: np.random.Generator, n_trials: int) -> dict:
    """:func:`glance_error_parts` for each ε (T from the population): entries of shape (len(epsilons), n_trials)."""
    epsilons = np.atleast_1d(check_real_array("epsilons", epsilons, low=0.0))
    runs = [glance_error_parts(Glance(float(e), population.n_rounds), population, rng=rng, n_trials=n_trials) for e in epsilons]
    return {key: np.array([r[key] for r in runs]) for key in ("total", "rr", "sampling")}


def fitted_slope(x, y, *, log_x: bool = True, log_correction_beta: float | None = None) -> float:
    """Least-squares slope of ``ln y`` against ``ln x`` (``log_x``) or against ``x``.

    Parameters
    ----------
    x, y : array_like
        Positive abscissae and ordinates of the same length ≥ 2.
    log_x : bool
        Fit against ``ln x`` (a power law ``y ∝ x^e``) or against ``x`` (``y ∝ e^{e x}``).
    log_correction_beta : float in (0, 1), optional
        If given, fit ``ln(y / √ln(2x/β))`` instead of ``ln y``. Needs ``x > β/2``.
        The union bound over the 2T one-sided sub-Gaussian tail events puts the factor
        ``√log(2T/β)`` in the high-probability bound on the maximum error over ``x = T`` rounds
        (the value it exceeds with probability ≤ β, the form of the rates cited below): for
        ``y ∝ T^e √log(2T/β)`` the corrected slope is exactly ``e``. For other statistics of the
        maximum it leaves a residual bias: for the maximum of T independent Gaussian errors and
        β = 0.05 over T = 100…1600 the corrected slope is ``e + 0.013`` for the exact (1 − β)-quantile
        (the ``log log`` term of the Gaussian tail) and ``e + 0.041`` for the *mean* maximum, which
        grows like ``√(2 ln T)`` (pinned in ``tests/test_continual_counting.py``).

    References
    ----------
    m-shot reporting (seed 002), Theorem 9 / Eqs. (8)–(10): rates ``O(T^e √(log(T/β)/N))``.
    """
    if log_correction_beta is not None:
        beta = check_probability(log_correction_beta, "log_correction_beta", open_low=True, open_high=True)
        x = check_real_array("x", x, low=beta / 2)
    else:
        x = check_real_array("x", x, low=0.0)
    y = check_real_array("y", y, low=0.0)
    if x.size != y.size or x.size < 2:
        raise ValueError(f"x and y must have the same length ≥ 2; got {x.size} and {y.size}")
    if log_correction_beta is not None:
        y = y / np.sqrt(np.log(2 * x / beta))
    return float(np.polyfit(np.log(x) if log_x else x, np.log(y), 1)[0])
