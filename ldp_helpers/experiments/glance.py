"""Experiment drivers of the continual-counting notebook (04_glance): parameter grid → arrays.

Each driver takes a mechanism or its class, a :class:`~ldp_helpers.simulate.populations.Population`
and an injected ``rng``, draws ``n_draws`` independent surveys in one
``sample_aggregate(..., n_draws=n_draws)`` call per setting and returns per-survey errors
``Err = max_t |μ̂_t − μ_t|`` (never an N×T matrix).  Public drivers check their arguments once; the
private ``_helpers`` trust their callers.

References
----------
[glance] §3 (Err); [glance] Claim 1; [glance] Claim 2; [glance] §6.
"""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers._validation import (
    check_bool,
    check_epsilon,
    check_epsilons,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_real_array,
    check_rng,
    fail,
    fail_shape,
    fail_type,
)
from ldp_helpers.bounds.chernoff import TailCheck, tail_check
from ldp_helpers.experiments.common import fitted_slope, fitted_slope_se, max_error, mean_and_se
from ldp_helpers.mechanisms.continual import Glance, StreamMechanism
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities
from ldp_helpers.simulate.populations import Population, constant_population
from ldp_helpers.simulate.streams import sample_reporters

_MECHANISMS = "(Glance, Harmony, HarmonyNguyen, BasicOneTimeRappor, …)"


def _check_mechanism_cls(mechanism_cls):
    if not (isinstance(mechanism_cls, type) and issubclass(mechanism_cls, StreamMechanism)):
        fail_type("mechanism_cls", mechanism_cls, f"a stream mechanism class {_MECHANISMS}")
    return mechanism_cls


def _epsilons(epsilons):
    return np.atleast_1d(check_epsilons(epsilons))


def _errors(mechanism, population, rng, n_draws) -> np.ndarray:
    aggregate = mechanism.sample_aggregate(population, rng=rng, n_draws=n_draws)
    return max_error(mechanism.estimate(aggregate, population.n_users), population.fractions())


def error_curve(
    mechanism_cls, population: Population, epsilons, *, rng: np.random.Generator, n_draws: int
) -> np.ndarray:
    """``Err`` samples for each ε, shape (len(epsilons), n_draws)."""
    mechanism_cls = _check_mechanism_cls(mechanism_cls)
    population = check_instance("population", population, Population)
    n_draws = check_n_draws(n_draws)
    return np.array(
        [
            _errors(mechanism_cls(float(e), population.n_rounds), population, rng, n_draws)
            for e in _epsilons(epsilons)
        ]
    )


def mean_error_grid(
    mechanism_cls,
    epsilon: float,
    mu: float,
    n_users,
    n_rounds,
    *,
    rng: np.random.Generator,
    n_draws: int,
    with_se: bool = False,
):
    """Mean ``Err`` on the constant-μ stream for each ``(N, T)`` of ``np.broadcast(n_users, n_rounds)``.

    With ``with_se`` (then ``n_draws`` ≥ 2) also the Monte-Carlo standard error of each mean,
    ``sd/√n_draws`` (same draws, :func:`~ldp_helpers.experiments.common.mean_and_se`).
    """
    mechanism_cls = _check_mechanism_cls(mechanism_cls)
    with_se, n_draws = check_bool("with_se", with_se), check_n_draws(n_draws)
    if with_se and n_draws < 2:
        fail(
            "n_draws", n_draws, "at least 2 with with_se=True (a standard error needs two surveys)"
        )
    pairs = np.broadcast(
        check_int_array("n_users", n_users, low=1), check_int_array("n_rounds", n_rounds, low=1)
    )
    samples = [
        _errors(
            mechanism_cls(epsilon, int(T)), constant_population(mu, int(N), int(T)), rng, n_draws
        )
        for N, T in pairs
    ]
    if not with_se:
        return np.array([s.mean(axis=-1) for s in samples])
    means, ses = zip(*(mean_and_se(s) for s in samples))
    return np.array(means), np.array(ses)


def exceedance_probabilities(
    mechanism_cls,
    population: Population,
    epsilons,
    bounds,
    *,
    rng: np.random.Generator,
    n_draws: int,
) -> np.ndarray:
    """Fraction of ``n_draws`` surveys with ``Err > bounds[i]`` at ``epsilons[i]`` (e.g. Theorem 4's bound).

    Shape (len(epsilons),).
    """
    mechanism_cls = _check_mechanism_cls(mechanism_cls)
    population = check_instance("population", population, Population)
    epsilons = _epsilons(epsilons)
    bounds = check_real_array("bounds", bounds, low=0.0, low_open=False)
    if bounds.shape not in ((), epsilons.shape):
        fail_shape("bounds", bounds.shape, f"a scalar or one value per epsilon ({epsilons.size})")
    errs = error_curve(mechanism_cls, population, epsilons, rng=rng, n_draws=n_draws)
    return np.mean(errs > np.broadcast_to(bounds, epsilons.shape)[:, None], axis=1)


def rate_fit(x, mean, se, *, log_x: bool = True) -> tuple[float, float]:
    """A rate of Table 1 or a corollary: the slope of ``ln mean`` against ``ln x`` (``log_x``) or ``x``, and its MC SE.

    :func:`~ldp_helpers.experiments.common.fitted_slope` and
    :func:`~ldp_helpers.experiments.common.fitted_slope_se` of means with standard errors ``se``
    (:func:`~ldp_helpers.experiments.common.mean_and_se`).

    References
    ----------
    [glance] Table 1; [glance] Corollaries 1–5.
    """
    mean = check_real_array("mean", mean, low=0.0)
    se = check_real_array("se", se, low=0.0, low_open=False)
    if mean.shape != se.shape:
        fail_shape("se", se.shape, f"one standard error per mean ({mean.shape})")
    return fitted_slope(x, mean, log_x=log_x), fitted_slope_se(x, mean, se, log_x=log_x)


def sparse_round_tail(epsilon: float, n_reporters: int, deviations) -> TailCheck:
    """Claim 1's Bernstein bound and the Chernoff–Hoeffding bound beside the exact tail of one sparse round's RR error.

    In a round with ``μ̃_t = 0`` and K reporters, ``X_t ~ Bin(K, q)`` exactly, and ``μ̂_t − μ̃_t ≥ s`` is
    ``X_t ≥ K(q + s(p − q))``: a relative deviation ``δ = s(e^ε − 1)`` of ``Kq``.  The bounds are
    ``exp(−K R(s))`` with R the right-hand side of (2) (``"bernstein_upper"``, the ratio's) and
    ``exp(−K D(q + s(p − q)‖q))`` (``"kl_upper"``), each at every deviation s.

    References
    ----------
    [glance] Claim 1; [glance] Eq. (1); [glance] condition (2).
    """
    # beyond 300, q = 1/(e^ε + 1) and the exact tail underflow
    epsilon = check_epsilon(epsilon, high=300.0)
    n_reporters = check_int("n_reporters", n_reporters, low=1)
    s = check_real_array("deviations", deviations, low=0.0)
    q = q_bin_probabilities(epsilon)[1]  # Pr[report 1 | v = 0]
    return tail_check(("bernstein_upper", "kl_upper"), n_reporters, q, s * math.expm1(epsilon))


def _error_parts(estimates, sampled_fractions, true_fractions) -> dict:
    """Per-survey ``total = max|μ̂−μ|``, ``rr = max|μ̂−μ̃|`` (Claim 1) and ``sampling = max|μ̃−μ|`` (Claim 2)."""
    return {
        "total": max_error(estimates, true_fractions),
        "rr": np.max(np.abs(estimates - sampled_fractions), axis=-1),
        "sampling": max_error(sampled_fractions, true_fractions),
    }


def _glance_error_parts(
    glance: Glance, population: Population, *, rng: np.random.Generator, n_draws: int
) -> dict:
    """:func:`_error_parts` of ``n_draws`` surveys, each entry of shape (n_draws,).

    The surveys are ``glance.sample_aggregate``'s, drawn in two steps to keep the reporters'
    true fraction μ̃_t = K1_t/K_t that the server never sees: (K, K1) by
    :func:`~ldp_helpers.simulate.streams.sample_reporters`, then ``glance.randomize_reporters``.
    """
    K, K1 = sample_reporters(population, glance.rounds_per_user, rng=rng, n_draws=n_draws)
    estimates = glance.estimate(glance.randomize_reporters(K, K1, rng=rng), population.n_users)
    return _error_parts(estimates, glance.sampled_fraction(K, K1), population.fractions())


def error_parts_curve(
    population: Population, epsilons, *, rng: np.random.Generator, n_draws: int
) -> dict:
    """:func:`_glance_error_parts` for each ε (T from the population): entries of shape (len(epsilons), n_draws)."""
    population = check_instance("population", population, Population)
    rng, n_draws = check_rng(rng), check_n_draws(n_draws)
    parts = [
        _glance_error_parts(
            Glance(float(e), population.n_rounds), population, rng=rng, n_draws=n_draws
        )
        for e in _epsilons(epsilons)
    ]
    return {key: np.array([p[key] for p in parts]) for key in ("total", "rr", "sampling")}
