"""Experiment drivers of the continual-counting notebook (04_glance): parameter grid → arrays.

Each driver takes a mechanism or its class, a :class:`~ldp_helpers.simulate.populations.Population`
and an injected ``rng``, draws ``n_draws`` independent surveys in one
``sample_aggregate(..., n_draws=n_draws)`` call per setting and returns per-survey errors
``Err = max_t |μ̂_t − μ_t|`` (never an N×T matrix).

References
----------
[glance] §3 (Err); [glance] Claim 1; [glance] Claim 2; [glance] §6.
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import Described, check_bool, check_int_array, check_n_draws, check_real_array, check_rng, fail, fail_type
from ldp_helpers.experiments.common import max_error
from ldp_helpers.mechanisms.continual import Glance, _StreamMechanism
from ldp_helpers.simulate.populations import Population, constant_population
from ldp_helpers.simulate.streams import sample_reporters


def _check_mechanism(name, value):
    if not isinstance(value, _StreamMechanism):
        fail_type(name, value, "a stream mechanism (Glance, Harmony, HarmonyNguyen, BasicOneTimeRappor, …)")
    return value


def _check_mechanism_cls(name, value):
    if not (isinstance(value, type) and issubclass(value, _StreamMechanism)):
        fail_type(name, value, "a stream mechanism class (Glance, Harmony, HarmonyNguyen, BasicOneTimeRappor, …)")
    return value


def _check_population(value):
    if not isinstance(value, Population):
        fail_type("population", value, "a Population")
    return value


def error_samples(mechanism, population: Population, *, rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """``Err`` of ``n_draws`` independent surveys of ``mechanism`` on ``population``, shape (n_draws,)."""
    mechanism, population = _check_mechanism("mechanism", mechanism), _check_population(population)
    aggregate = mechanism.sample_aggregate(population, rng=rng, n_draws=check_n_draws(n_draws))
    return max_error(mechanism.estimate(aggregate, population.n_users), population.fractions())


def error_curve(mechanism_cls, population: Population, epsilons, *, rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """``Err`` samples for each ε, shape (len(epsilons), n_draws)."""
    mechanism_cls, population = _check_mechanism_cls("mechanism_cls", mechanism_cls), _check_population(population)
    epsilons = np.atleast_1d(check_real_array("epsilons", epsilons, low=0.0))
    return np.array([error_samples(mechanism_cls(float(e), population.n_rounds), population, rng=rng, n_draws=n_draws) for e in epsilons])


def mean_error_grid(mechanism_cls, epsilon: float, mu: float, n_users, n_rounds, *, rng: np.random.Generator, n_draws: int,
                    with_se: bool = False):
    """Mean ``Err`` on the constant-μ stream for each ``(N, T)`` of ``np.broadcast(n_users, n_rounds)``.

    With ``with_se`` also the Monte-Carlo standard error of each mean, ``sd/√n_draws`` (same draws).
    """
    mechanism_cls = _check_mechanism_cls("mechanism_cls", mechanism_cls)
    with_se = check_bool("with_se", with_se)
    pairs = np.broadcast(check_int_array("n_users", n_users, low=1), check_int_array("n_rounds", n_rounds, low=1))
    samples = [error_samples(mechanism_cls(epsilon, int(T)), constant_population(mu, int(N), int(T)), rng=rng, n_draws=n_draws)
               for N, T in pairs]
    means = np.array([x.mean() for x in samples])
    if not with_se:
        return means
    return means, np.array([x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else np.nan for x in samples])


def exceedance_probabilities(mechanism_cls, population: Population, epsilons, bounds, *, rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """Fraction of ``n_draws`` surveys with ``Err > bounds[i]`` at ``epsilons[i]`` (e.g. Theorem 4's bound), shape (len(epsilons),)."""
    mechanism_cls, population = _check_mechanism_cls("mechanism_cls", mechanism_cls), _check_population(population)
    epsilons = np.atleast_1d(check_real_array("epsilons", epsilons, low=0.0))
    bounds = check_real_array("bounds", bounds, low=0.0, low_open=False)
    if bounds.shape not in ((), epsilons.shape):
        fail("bounds", Described(f"an array of shape {bounds.shape}"), f"a scalar or one value per epsilon ({epsilons.size})")
    errs = error_curve(mechanism_cls, population, epsilons, rng=rng, n_draws=n_draws)
    return np.mean(errs > np.broadcast_to(bounds, epsilons.shape)[:, None], axis=1)


def error_parts(estimates, sampled_fractions, true_fractions) -> dict:
    """Per-survey ``total = max|μ̂−μ|``, ``rr = max|μ̂−μ̃|`` (Claim 1) and ``sampling = max|μ̃−μ|`` (Claim 2)."""
    est, tilde = check_real_array("estimates", estimates), check_real_array("sampled_fractions", sampled_fractions)
    return {
        "total": max_error(est, true_fractions),
        "rr": np.max(np.abs(est - tilde), axis=-1),
        "sampling": max_error(tilde, true_fractions),
    }


def glance_error_parts(glance: Glance, population: Population, *, rng: np.random.Generator, n_draws: int) -> dict:
    """:func:`error_parts` of ``n_draws`` surveys, each entry of shape (n_draws,).

    The surveys are ``glance.sample_aggregate``'s, drawn in two steps to keep the reporters'
    true fraction μ̃_t = K1_t/K_t that the server never sees: (K, K1) by
    :func:`~ldp_helpers.simulate.streams.sample_reporters`, then ``glance.randomize_reporters``.
    """
    if not isinstance(glance, Glance):
        fail_type("glance", glance, "a Glance mechanism")
    population, rng = _check_population(population), check_rng(rng)
    K, K1 = sample_reporters(population, glance.rounds_per_user, rng=rng, n_draws=check_n_draws(n_draws))
    estimates = glance.estimate(glance.randomize_reporters(K, K1, rng=rng), population.n_users)
    return error_parts(estimates, glance.sampled_fraction(K, K1), population.fractions())


def error_parts_curve(population: Population, epsilons, *, rng: np.random.Generator, n_draws: int) -> dict:
    """:func:`glance_error_parts` for each ε (T from the population): entries of shape (len(epsilons), n_draws)."""
    population = _check_population(population)
    epsilons = np.atleast_1d(check_real_array("epsilons", epsilons, low=0.0))
    parts = [glance_error_parts(Glance(float(e), population.n_rounds), population, rng=rng, n_draws=n_draws) for e in epsilons]
    return {key: np.array([p[key] for p in parts]) for key in ("total", "rr", "sampling")}
