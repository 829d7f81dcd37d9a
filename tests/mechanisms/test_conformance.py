"""One conformance suite, parameterized over the registry: every mechanism keeps the contract.

For each registered mechanism (a small example instance and population):

* its whole-report ε, computed exactly, equals the ε it claims (or is bounded by it);
* the exact aggregate sampler has the joint law of the per-user path (two-sample means and
  Kolmogorov–Smirnov tests of every coordinate, the total and two random projections);
* the estimate's mean is the exact ``expected_estimate`` (the estimand when unbiased) and its
  variance is the exact ``variance``: tolerances 5 standard errors, from the exact variance;
* ``n_draws`` batches independent surveys; bad ``n_draws`` and ``rng`` are refused.
"""

from __future__ import annotations

import inspect
from functools import cache

import numpy as np
import pytest
from scipy import stats

import ldp_helpers.mechanisms as mechanisms_package
import ldp_helpers.protocols as protocols_package
from ldp_helpers.mechanisms.base import Mechanism
from ldp_helpers.mechanisms.continual import BasicOneTimeRappor, Glance
from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.protocols.registry import ALL_MECHANISMS
from ldp_helpers.simulate.populations import Population, RandomActiveSets

KEYS = sorted(ALL_MECHANISMS)  # the mechanisms and the protocols registered under the contract
N_USER_DRAWS = 4000  # per-user surveys (the reference path)
N_SAMPLER_DRAWS = 20_000  # sampler surveys
N_SE = 5.0  # tolerance in standard errors
ALPHA = 1e-3  # family-wise level of the two-sample tests of one mechanism (Bonferroni)


def _example(key):
    entry = ALL_MECHANISMS[key]
    mechanism = entry.example()
    return mechanism, entry.example_truth(mechanism)


def _per_user_aggregates(mechanism, truth, rng, n_draws: int = N_USER_DRAWS) -> np.ndarray:
    """``n_draws`` surveys through the per-user path, stacked: shape (n_draws, *aggregate shape)."""
    values = mechanism.expand(truth)
    return np.stack(
        [
            np.asarray(mechanism.aggregate(mechanism.perturb(values, rng=rng)))
            for _ in range(n_draws)
        ]
    )


def _estimates(mechanism, truth, aggregates) -> np.ndarray:
    """The estimate of every survey, flattened: shape (n_draws, n_coordinates).  One call on the whole batch
    (``estimate`` maps the leading axis), checked equal, bit for bit, to survey-by-survey calls on the first ten."""
    n, aggregates = mechanism.n_reports(truth), np.asarray(aggregates)
    out = np.asarray(mechanism.estimate(aggregates, n), dtype=float).reshape(
        aggregates.shape[0], -1
    )
    one_by_one = [np.ravel(mechanism.estimate(a, n)) for a in aggregates[:10]]
    np.testing.assert_array_equal(out[:10], np.array(one_by_one, dtype=float))
    return out


def _assert_mean_and_variance(samples, mechanism, truth, what: str):
    """Sample mean within 5 SE of the exact mean; sample variance within 5 SE of the exact variance.

    The SE of the sample variance comes from the sample itself, sqrt((m4 − s⁴)/R), so a claimed
    variance that is too small does not loosen its own tolerance.
    """
    expected = np.ravel(mechanism.expected_estimate(truth)).astype(float)
    variance = np.ravel(mechanism.variance(truth)).astype(float)
    runs = samples.shape[0]
    random = variance > 0
    assert np.allclose(samples[:, ~random], expected[~random]), (
        f"{what}: a zero-variance coordinate varies"
    )
    gap = np.abs(samples.mean(axis=0) - expected)[random] / np.sqrt(variance[random] / runs)
    assert np.all(gap < N_SE), f"{what}: mean off by {gap.max():.1f} SE"
    x = samples[:, random]
    s2 = x.var(axis=0, ddof=1)
    m4 = np.mean((x - x.mean(axis=0)) ** 4, axis=0)
    off = np.abs(s2 - variance[random]) / np.sqrt(np.maximum(m4 - s2**2, 1e-300) / runs)
    assert np.all(off < N_SE), (
        f"{what}: variance off by {off.max():.1f} SE (sample {s2}, exact {variance[random]})"
    )


@cache
def _surveys(key) -> tuple[np.ndarray, np.ndarray]:
    """(per-user surveys, sampler surveys) of one key's example, drawn once and shared by the tests of
    its law, its mean and its variance (each test keeps its whole sample: the same power)."""
    mechanism, truth = _example(key)
    user_rng, fast_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(11).spawn(2))
    per_user = _per_user_aggregates(mechanism, truth, user_rng)
    fast = np.asarray(mechanism.sample_aggregate(truth, rng=fast_rng, n_draws=N_SAMPLER_DRAWS))
    return per_user, fast


def _projections(flat: np.ndarray) -> dict:
    """Every varying coordinate, the total and two fixed random projections (joint law, not only marginals)."""
    directions = np.random.default_rng(99).standard_normal((2, flat.shape[1]))
    out = {f"coordinate {j}": flat[:, j] for j in range(flat.shape[1])}
    out["total"] = flat.sum(axis=1)
    out.update({f"projection {i}": flat @ w for i, w in enumerate(directions)})
    return out


def _assert_same_law(a: np.ndarray, b: np.ndarray, what: str):
    """Two samples of one vector law: equal means and variances (5 SE) and KS on marginals and projections."""
    pa, pb = (
        _projections(a.reshape(a.shape[0], -1).astype(float)),
        _projections(b.reshape(b.shape[0], -1).astype(float)),
    )
    pvalues = {}
    for name in pa:
        x, y = pa[name], pb[name]
        if np.ptp(x) == 0 and np.ptp(y) == 0:
            assert x[0] == pytest.approx(y[0], rel=1e-9, abs=1e-9), (
                f"{what}: {name} is constant but differs"
            )
            continue
        se = np.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
        assert abs(x.mean() - y.mean()) < N_SE * se, (
            f"{what}: {name} means differ by {abs(x.mean() - y.mean()) / se:.1f} SE"
        )
        pvalues[name] = stats.ks_2samp(x, y).pvalue
    worst = min(pvalues, key=pvalues.get)
    assert pvalues[worst] * len(pvalues) > ALPHA, (
        f"{what}: KS rejects on {worst} (p = {pvalues[worst]:.3g})"
    )


def test_every_mechanism_class_is_registered():
    """Each concrete Mechanism class of ldp_helpers.mechanisms and ldp_helpers.protocols has a registry entry."""
    import importlib
    import pkgutil

    classes = set()
    packages = [
        (mechanisms_package, "ldp_helpers.mechanisms"),
        (protocols_package, "ldp_helpers.protocols"),
    ]
    for info, prefix in [
        (info, prefix)
        for package, prefix in packages
        for info in pkgutil.iter_modules(package.__path__)
    ]:
        module = importlib.import_module(f"{prefix}.{info.name}")
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(obj, Mechanism)
                and not inspect.isabstract(obj)
                and obj.__module__ == module.__name__
            ):
                classes.add(obj)
    registered = {type(ALL_MECHANISMS[key].example()) for key in KEYS}
    # a base class is covered when one of its subclasses is registered
    missing = {c for c in classes if not any(issubclass(r, c) for r in registered)}
    assert not missing, (
        f"mechanisms without a registry entry: {sorted(c.__name__ for c in missing)}"
    )


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
    if mechanism.tight:
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
    """aggregate(perturb(expand(truth))) and sample_aggregate(truth): same joint law of the statistic."""
    per_user, fast = _surveys(key)
    assert fast.shape[1:] == per_user.shape[1:]
    _assert_same_law(per_user, fast, key)


@pytest.mark.statistical
@pytest.mark.parametrize("key", KEYS)
def test_per_user_estimates_have_the_exact_mean_and_variance(key):
    """The paper's algorithm, run per user, gives estimates with expected_estimate's mean and the exact variance."""
    mechanism, truth = _example(key)
    samples = _estimates(mechanism, truth, _surveys(key)[0])
    _assert_mean_and_variance(samples, mechanism, truth, "per-user path")


@pytest.mark.statistical
@pytest.mark.parametrize("key", KEYS)
def test_sampler_estimates_have_the_exact_mean_and_variance(key):
    """The sampler's estimates average to expected_estimate (the estimand if unbiased) with the exact variance."""
    mechanism, truth = _example(key)
    samples = _estimates(mechanism, truth, _surveys(key)[1])
    _assert_mean_and_variance(samples, mechanism, truth, "sampler")
    if mechanism.unbiased:
        np.testing.assert_allclose(
            mechanism.expected_estimate(truth), mechanism.estimand(truth), rtol=1e-12, atol=1e-9
        )


@pytest.mark.statistical
def test_glance_bias_from_empty_rounds_is_detected():
    """With frequent empty rounds Glance's mean is expected_estimate, measurably away from μ_t."""
    glance = Glance(1.5, 4)
    truth = Population.nested(np.array([1, 3, 0, 2]), 4)  # Pr[empty round] = (3/4)^4 ≈ 0.32
    batch = glance.sample_aggregate(truth, rng=np.random.default_rng(14), n_draws=N_SAMPLER_DRAWS)
    samples = _estimates(glance, truth, batch)
    _assert_mean_and_variance(samples, glance, truth, "Glance, sparse")
    se = np.sqrt(glance.variance(truth) / N_SAMPLER_DRAWS)
    bias = np.abs(glance.expected_estimate(truth) - glance.estimand(truth))
    assert np.all(bias[truth.fractions() != 0.5] > 10 * se[truth.fractions() != 0.5])
    assert np.all(
        np.abs(samples.mean(axis=0) - glance.estimand(truth))[truth.fractions() != 0.5]
        > N_SE * se[truth.fractions() != 0.5]
    )


@pytest.mark.statistical
def test_m_shot_random_active_sets_sampler_matches_per_user_draws():
    """The hypergeometric branch (fresh active sets each survey) has the law of the per-user path on a drawn V."""
    mechanism = MShotReporting(2.0, 4, 2, 0.3)
    data = RandomActiveSets(np.array([3, 10, 0, 7]), 12)
    rng = np.random.default_rng(15)
    per_user = np.stack(
        [
            mechanism.aggregate(mechanism.perturb(data.draw_matrix(rng=rng), rng=rng))
            for _ in range(N_USER_DRAWS)
        ]
    )
    fast = mechanism.sample_aggregate(data, rng=np.random.default_rng(16), n_draws=N_SAMPLER_DRAWS)
    _assert_same_law(per_user, fast, "m-shot, random active sets")


def test_t_shot_is_m_shot_with_m_equal_t():
    """BORAPPOR (continual) and T-shot reporting (MShotReporting with m = T) are one mechanism: same loss, variance
    and estimates."""
    borappor, t_shot = BasicOneTimeRappor(2.0, 3), MShotReporting(2.0, 3, 3)
    truth = Population.nested(np.array([2, 5, 1]), 6)
    assert borappor.privacy_loss() == pytest.approx(t_shot.privacy_loss(), rel=1e-12)
    np.testing.assert_allclose(borappor.variance(truth), t_shot.variance(truth), rtol=1e-12)
    X = np.array([1, 4, 6])
    np.testing.assert_allclose(
        borappor.estimate(np.stack([np.full(3, 6), X]), 6), t_shot.estimate(X, 6), rtol=1e-12
    )


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
