"""One conformance suite, parameterized over the registry: every mechanism keeps the contract.

For each registered mechanism (a small example instance and population):

* its whole-report ε, computed exactly, equals the ε it claims (or is bounded by it);
* the exact aggregate sampler has the law of the per-user path (means, variances and a
  two-sample Anderson–Darling test of every coordinate of the estimate);
* the estimate's mean is the exact ``expected_estimate`` (the estimand when unbiased) and its
  variance is the exact ``variance``: tolerances 5 standard errors, from the exact variance;
* ``n_draws`` batches independent surveys; bad ``n_draws`` and ``rng`` are refused.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from scipy import stats

import ldp_helpers.mechanisms as mechanisms_package
from ldp_helpers.mechanisms.base import Mechanism
from ldp_helpers.mechanisms.registry import REGISTRY

KEYS = sorted(REGISTRY)
N_USER_RUNS = 400  # per-user surveys (the reference path)
N_FAST_RUNS = 20_000  # sampler surveys
N_SE = 5.0  # tolerance in standard errors


def _example(key):
    entry = REGISTRY[key]
    mechanism = entry.example()
    return mechanism, entry.example_truth(mechanism)


def _flat_estimates(mechanism, aggregates, n, runs: int) -> np.ndarray:
    """Estimates of ``runs`` surveys as a (runs, n_coordinates) array."""
    return np.array([np.ravel(mechanism.estimate(aggregates[r], n)) for r in range(runs)], dtype=float)


def _per_user_estimates(mechanism, truth, rng, runs: int = N_USER_RUNS) -> np.ndarray:
    values, n = mechanism.expand(truth), mechanism.n_reports(truth)
    return np.array([np.ravel(mechanism.estimate(mechanism.aggregate(mechanism.perturb(values, rng=rng)), n))
                     for _ in range(runs)], dtype=float)


def _fast_estimates(mechanism, truth, rng, runs: int = N_FAST_RUNS) -> np.ndarray:
    batch = mechanism.sample_aggregate(truth, rng=rng, n_draws=runs)
    return _flat_estimates(mechanism, batch, mechanism.n_reports(truth), runs)


def _assert_mean_and_variance(samples, mechanism, truth, what: str):
    expected = np.ravel(mechanism.expected_estimate(truth)).astype(float)
    variance = np.ravel(mechanism.variance(truth)).astype(float)
    runs = samples.shape[0]
    se = np.sqrt(variance / runs)
    gap = np.abs(samples.mean(axis=0) - expected)
    random = variance > 0
    assert np.all(gap[random] < N_SE * se[random]), f"{what}: mean off by {np.max(gap[random] / se[random]):.1f} SE"
    assert np.allclose(samples[:, ~random], expected[~random]), f"{what}: a zero-variance coordinate varies"
    # SE of a sample variance: sqrt((μ4 − σ⁴(R−3)/(R−1))/R), estimated with the sample fourth moment
    centred = samples[:, random] - expected[random]
    fourth = np.mean(centred**4, axis=0)
    var_se = np.sqrt(np.maximum(fourth - variance[random] ** 2 * (runs - 3) / (runs - 1), 0) / runs)
    sample_var = samples[:, random].var(axis=0, ddof=1)
    off = np.abs(sample_var - variance[random]) / var_se
    assert np.all(off < N_SE), f"{what}: variance off by {off.max():.1f} SE (sample {sample_var}, exact {variance[random]})"


def test_every_mechanism_class_is_registered():
    """Each concrete Mechanism class of ldp_helpers.mechanisms has an entry in the registry."""
    import pkgutil
    import importlib

    classes = set()
    for info in pkgutil.iter_modules(mechanisms_package.__path__):
        module = importlib.import_module(f"ldp_helpers.mechanisms.{info.name}")
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, Mechanism) and not inspect.isabstract(obj) and obj.__module__ == module.__name__:
                classes.add(obj)
    registered = {type(REGISTRY[key].example()) for key in KEYS}
    # a base class is covered when one of its subclasses is registered
    missing = {c for c in classes if not any(issubclass(r, c) for r in registered)}
    assert not missing, f"mechanisms without a registry entry: {sorted(c.__name__ for c in missing)}"


@pytest.mark.parametrize("key", KEYS)
def test_is_a_mechanism(key):
    """Every entry builds a Mechanism with a finite positive ε."""
    mechanism, _ = _example(key)
    assert isinstance(mechanism, Mechanism)
    assert np.isfinite(mechanism.epsilon) and mechanism.epsilon > 0


@pytest.mark.parametrize("key", KEYS)
def test_whole_report_privacy_loss(key):
    """The exact whole-report ε equals the claimed ε (tight mechanisms) or is at most it."""
    mechanism, _ = _example(key)
    loss = mechanism.privacy_loss()
    if type(mechanism).tight:
        assert loss == pytest.approx(mechanism.epsilon, rel=1e-9, abs=1e-12)
    else:
        assert loss <= mechanism.epsilon * (1 + 1e-12)


@pytest.mark.parametrize("key", KEYS)
def test_output_table_rows_are_distributions(key):
    """The whole-report table (when the outputs are discrete) has one distribution per input."""
    mechanism, _ = _example(key)
    try:
        table = mechanism.output_table()
    except NotImplementedError:
        assert key in {"she", "the"}, "only continuous-output mechanisms may lack a table"
        return
    assert table.ndim == 2 and table.shape[0] >= 2
    assert np.all(table >= 0)
    np.testing.assert_allclose(table.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@pytest.mark.statistical
@pytest.mark.parametrize("key", KEYS)
def test_sampler_has_the_law_of_the_per_user_path(key):
    """aggregate(perturb(expand(truth))) and sample_aggregate(truth): same means, variances and distribution."""
    mechanism, truth = _example(key)
    user_rng, fast_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(11).spawn(2))
    per_user = _per_user_estimates(mechanism, truth, user_rng)
    fast = _fast_estimates(mechanism, truth, fast_rng, runs=4 * N_USER_RUNS)
    _assert_mean_and_variance(per_user, mechanism, truth, "per-user path")
    varying = [j for j in range(per_user.shape[1]) if np.ptp(per_user[:, j]) > 0 or np.ptp(fast[:, j]) > 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # anderson_ksamp caps p-values to [0.001, 0.25] with a warning
        pvalues = [stats.anderson_ksamp([per_user[:, j], fast[:, j]]).pvalue for j in varying]
    assert min(pvalues) * len(pvalues) > 1e-3, f"two-sample AD test rejects: p-values {np.round(pvalues, 4)}"


@pytest.mark.statistical
@pytest.mark.parametrize("key", KEYS)
def test_estimator_mean_and_exact_variance(key):
    """The estimate averages to expected_estimate (the estimand if unbiased) with the exact variance."""
    mechanism, truth = _example(key)
    samples = _fast_estimates(mechanism, truth, np.random.default_rng(12))
    _assert_mean_and_variance(samples, mechanism, truth, "sampler")
    if type(mechanism).unbiased:
        np.testing.assert_allclose(mechanism.expected_estimate(truth), mechanism.estimand(truth), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("key", KEYS)
def test_n_draws_adds_a_leading_axis_and_is_deterministic(key):
    """sample_aggregate(n_draws=R) has a leading axis R; the same seed gives the same draws."""
    mechanism, truth = _example(key)
    one = np.asarray(mechanism.sample_aggregate(truth, rng=np.random.default_rng(3)))
    batch = np.asarray(mechanism.sample_aggregate(truth, rng=np.random.default_rng(3), n_draws=7))
    again = np.asarray(mechanism.sample_aggregate(truth, rng=np.random.default_rng(3), n_draws=7))
    assert batch.shape == (7, *one.shape)
    np.testing.assert_array_equal(batch, again)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("bad", [0, -1, 2.5, "3", 10**12])
def test_bad_n_draws_is_refused(key, bad):
    """n_draws outside [1, 10^7] or not an integer: ValueError naming n_draws."""
    mechanism, truth = _example(key)
    with pytest.raises(ValueError, match="n_draws"):
        mechanism.sample_aggregate(truth, rng=np.random.default_rng(0), n_draws=bad)


@pytest.mark.parametrize("key", KEYS)
def test_rng_must_be_a_generator(key):
    """A seed or the global numpy state is refused: rng must be a numpy Generator."""
    mechanism, truth = _example(key)
    with pytest.raises(ValueError, match="rng"):
        mechanism.sample_aggregate(truth, rng=42)
    with pytest.raises(ValueError, match="rng"):
        mechanism.perturb(mechanism.expand(truth), rng=None)
