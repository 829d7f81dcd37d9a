"""Statistical assertions shared by the test-suite (fixed seeds, tolerances from theory)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ldp_helpers.mechanisms.pure import count_variance, expected_support_count, support_count_pmf


def assert_mean_close(samples, expected_mean, expected_variance, *, n_se: float = 5.0):
    """|mean − truth| < n_se standard errors, the SE computed from the *theoretical* variance."""
    samples = np.asarray(samples, dtype=float)
    se = np.sqrt(expected_variance / samples.size)
    gap = abs(samples.mean() - expected_mean)
    assert gap < n_se * se, (
        f"mean {samples.mean():.6g} differs from {expected_mean:.6g} by {gap / se:.1f} SE"
    )


def assert_variance_close(samples, expected_variance, *, n_se: float = 5.0):
    """Sample variance within n_se SEs of the theory (SE ≈ σ²·sqrt(2/(R−1)), near-normal samples)."""
    samples = np.asarray(samples, dtype=float)
    var = samples.var(ddof=1)
    se = expected_variance * np.sqrt(2.0 / (samples.size - 1))
    assert abs(var - expected_variance) < n_se * se, (
        f"variance {var:.6g} differs from {expected_variance:.6g} by {abs(var - expected_variance) / se:.1f} SE"
    )


def chisquare_pvalue(samples, pmf, *, min_expected: float = 5.0) -> float:
    """Chi-square goodness-of-fit p-value of integer ``samples`` against ``pmf`` over 0..len(pmf)-1.

    Adjacent support points are merged until every bin expects at least ``min_expected`` draws.
    """
    samples = np.asarray(samples)
    pmf = np.asarray(pmf, dtype=float)
    assert samples.min() >= 0 and samples.max() < pmf.size, "samples outside the support of pmf"
    observed = np.bincount(samples, minlength=pmf.size).astype(float)
    expected = pmf / pmf.sum() * samples.size
    obs_bins, exp_bins, o, e = [], [], 0.0, 0.0
    for oi, ei in zip(observed, expected):
        o, e = o + oi, e + ei
        if e >= min_expected:
            obs_bins.append(o)
            exp_bins.append(e)
            o, e = 0.0, 0.0
    obs_bins[-1] += o
    exp_bins[-1] += e
    assert len(obs_bins) >= 3, "too few bins for a chi-square test"
    return float(stats.chisquare(obs_bins, exp_bins).pvalue)


def two_sample_pvalue(a, b) -> float:
    """Two-sample chi-square test of homogeneity on integer samples (merged sparse bins)."""
    a, b = np.asarray(a), np.asarray(b)
    top = int(max(a.max(), b.max())) + 1
    ca = np.bincount(a, minlength=top).astype(float)
    cb = np.bincount(b, minlength=top).astype(float)
    bins_a, bins_b, x, y = [], [], 0.0, 0.0
    for u, w in zip(ca, cb):
        x, y = x + u, y + w
        if x + y >= 20:
            bins_a.append(x)
            bins_b.append(y)
            x, y = 0.0, 0.0
    bins_a[-1] += x
    bins_b[-1] += y
    return float(stats.chi2_contingency(np.array([bins_a, bins_b]))[1])


def binomial_sum_pmf(n_true: int, n: int, p: float, q: float) -> np.ndarray:
    """pmf over 0..n of Binomial(n_true, p) + Binomial(n − n_true, q), the support count of a pure oracle."""
    return support_count_pmf(n_true, n, p, q)


def support_count_variance(n_true, n, p, q):
    """Var C(i) = c p(1−p) + (n−c) q(1−q): the estimator's exact variance times (p − q)² (from pure.py)."""
    return count_variance(n_true, n, p, q) * (p - q) ** 2


def assert_support_counts_match(oracle, per_user, aggregate, true_counts, *, coordinates=(0, 1)):
    """Per-user and aggregate support-count samples (rows = surveys) agree with the pure-oracle
    marginals Binomial(f_i, p*) + Binomial(n − f_i, q*) and with each other (mean, variance, GOF)."""
    n = int(np.sum(true_counts))
    for i in coordinates:
        f = int(true_counts[i])
        mean = expected_support_count(f, n, oracle.p, oracle.q)
        var = support_count_variance(f, n, oracle.p, oracle.q)
        pmf = binomial_sum_pmf(f, n, oracle.p, oracle.q)
        for sample in (per_user[:, i], aggregate[:, i]):
            assert_mean_close(sample, mean, var)
            assert_variance_close(sample, var)
            assert chisquare_pvalue(sample, pmf) > 1e-3
        assert two_sample_pvalue(per_user[:, i], aggregate[:, i]) > 1e-3


def sample_both_paths(
    oracle, true_counts, n_draws: int, rng, *, count="aggregate", sample="sample_aggregate"
):
    """``n_draws`` surveys of an oracle's aggregate by the per-user path, then by its sampler (one batched call).

    The population holds ``true_counts[i]`` users with value i.  Returns ``(per_user, aggregate)``,
    each of shape (n_draws, d); ``count``/``sample`` name the oracle's counting and sampling methods.
    """
    values = np.repeat(np.arange(len(true_counts)), true_counts)
    count_fn, sample_fn = getattr(oracle, count), getattr(oracle, sample)
    per_user = np.array([count_fn(oracle.perturb(values, rng=rng)) for _ in range(n_draws)])
    aggregate = sample_fn(true_counts, rng=rng, n_draws=n_draws)
    return per_user, aggregate
