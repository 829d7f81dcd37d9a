"""The shared sampler interface: batched surveys (n_draws) have the single-survey law."""

import numpy as np
import pytest
from stat_checks import assert_mean_close, assert_variance_close, chisquare_pvalue

from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.histogram_encoding import SHE, THE
from ldp_helpers.mechanisms.local_hashing import BLH, OLH
from ldp_helpers.mechanisms.pure import support_count_pmf, unbiased_count
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE

TRUE_COUNTS = np.array([600, 250, 100, 50, 0, 0], dtype=np.int64)
N = int(TRUE_COUNTS.sum())


@pytest.mark.statistical
@pytest.mark.parametrize("cls", [GRR, SUE, OUE, THE, BLH, OLH])
def test_batched_surveys_are_unbiased_with_the_exact_variance(cls, rng):
    """20,000 surveys from one call: every ĉ(i) has mean f_i and the exact variance, within 5 SE."""
    oracle = cls(1.5, TRUE_COUNTS.size)
    support = oracle.sample_aggregate(TRUE_COUNTS, rng=rng, n_draws=20_000)
    assert support.shape == (20_000, TRUE_COUNTS.size) and support.dtype == np.int64
    assert support.min() >= 0 and support.max() <= N
    estimates = unbiased_count(support, N, oracle.p, oracle.q)
    variances = oracle.variance(TRUE_COUNTS)
    for i in range(TRUE_COUNTS.size):
        assert_mean_close(estimates[:, i], TRUE_COUNTS[i], variances[i])
        assert_variance_close(estimates[:, i], variances[i])
    for i in (0, 3, 5):  # each batched count has the exact law Bin(f_i, p*) + Bin(n − f_i, q*)
        assert (
            chisquare_pvalue(
                support[:, i], support_count_pmf(TRUE_COUNTS[i], N, oracle.p, oracle.q)
            )
            > 1e-3
        )
    if cls is GRR:  # one report per user: every survey's counts sum to n
        assert np.all(support.sum(axis=1) == N)


@pytest.mark.statistical
def test_batched_she_sums_have_the_exact_variance(rng):
    """SHE: 20,000 batched report sums have mean f_i and variance 2nβ² (within 5 SE)."""
    she = SHE(1.5, TRUE_COUNTS.size)
    sums = she.sample_aggregate(TRUE_COUNTS, rng=rng, n_draws=20_000)
    assert sums.shape == (20_000, TRUE_COUNTS.size)
    for i in range(TRUE_COUNTS.size):
        assert_mean_close(sums[:, i], TRUE_COUNTS[i], she.variance(TRUE_COUNTS)[i])
        assert_variance_close(sums[:, i], she.variance(TRUE_COUNTS)[i])
    assert np.allclose(
        she.variance(TRUE_COUNTS), 8 * N / 1.5**2, rtol=1e-14
    )  # 2nβ² = 8n/ε² for every value


@pytest.mark.parametrize("cls", [GRR, OUE, BLH])
def test_single_survey_stream_is_unchanged_by_the_batch_option(cls):
    """n_draws=None gives one survey of shape (d,); the same seed gives the same survey."""
    oracle = cls(1.0, TRUE_COUNTS.size)
    one = oracle.sample_aggregate(TRUE_COUNTS, rng=np.random.default_rng(4))
    assert one.shape == (TRUE_COUNTS.size,)
    assert np.array_equal(
        one, oracle.sample_aggregate(TRUE_COUNTS, rng=np.random.default_rng(4), n_draws=None)
    )


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_n_draws_must_be_a_positive_integer(bad, rng):
    """n_draws outside the integers ≥ 1 is refused by name, for every sampler."""
    for sample in (
        GRR(1.0, 6).sample_aggregate,
        OUE(1.0, 6).sample_aggregate,
        SHE(1.0, 6).sample_aggregate,
    ):
        with pytest.raises(ValueError, match=r"n_draws must be an integer"):
            sample(TRUE_COUNTS, rng=rng, n_draws=bad)
