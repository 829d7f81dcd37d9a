"""Microsoft's telemetry mechanisms ([ding2017]): 1BitMean with α-point rounding and memoization, dBitFlip(PM)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp_helpers.mechanisms.dbitflip import DBitFlip
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.telemetry import OneBitMean

# ------------------------------------------------------------------------------------------- 1BitMean


def test_one_bit_mean_table_costs_epsilon_at_the_extremes():
    mech = OneBitMean(0.8, 10)
    table = mech.output_table()
    assert mech.privacy_loss() == pytest.approx(0.8, rel=1e-12)
    assert table[10, 1] / table[0, 1] == pytest.approx(math.exp(0.8), rel=1e-12)
    assert max_privacy_loss(table[[3, 4]]) < 0.8 / 5  # neighbouring counters are far closer


def test_rounding_then_memoization_leaves_one_report_with_1bitmean_s_law():
    """Pr[1 | x] after α-point rounding is Pr[1 | x] of 1BitMean (affine in x): the one-round history table is the table."""
    mech = OneBitMean(1.3, 12)
    for step in (1, 3, 4, 12):
        one_round = mech.memoized_history_table(np.arange(13)[:, None], step)
        np.testing.assert_allclose(one_round, mech.output_table(), rtol=0, atol=1e-12)


def test_memoization_makes_an_unchanged_counter_cost_epsilon_forever():
    """T reports of a constant counter cost ε with memoization (T·ε without): exact tables over T rounds."""
    mech = OneBitMean(1.0, 8)
    for rounds in (2, 5):
        constant = np.repeat(np.arange(9)[:, None], rounds, axis=1)
        assert max_privacy_loss(mech.memoized_history_table(constant, 4)) == pytest.approx(
            1.0, rel=1e-9
        )
        fresh = mech.output_table()
        for _ in range(rounds - 1):
            fresh = np.einsum("xa,xb->xab", fresh, mech.output_table()).reshape(9, -1)
        assert max_privacy_loss(fresh) == pytest.approx(rounds * 1.0, rel=1e-9)


def test_memoization_exposes_a_changing_counter():
    """A counter that moves between rounding points can repeat a bit only where a constant one cannot: infinite loss."""
    mech = OneBitMean(1.0, 8)
    table = mech.memoized_history_table(np.array([[0, 8, 0], [4, 4, 4]]), 4)
    assert max_privacy_loss(table) == math.inf


@pytest.mark.statistical
def test_perturb_rounds_has_the_law_of_the_history_table():
    mech, rng, n = OneBitMean(1.0, 8), np.random.default_rng(3), 60_000
    histories = np.array([[5, 5, 6], [2, 7, 2]])
    table = mech.memoized_history_table(histories, 4)
    for row, history in enumerate(histories):
        bits = mech.perturb_rounds(np.tile(history, (n, 1)), 4, rng=rng)
        observed = np.bincount(bits @ np.array([4, 2, 1]), minlength=8) / n  # y₁ is the slowest bit
        expected = table[row]
        assert np.all(
            np.abs(observed - expected) <= 5 * np.sqrt(expected * (1 - expected) / n) + 1e-12
        )


@pytest.mark.statistical
def test_error_bound_holds():
    """Hoeffding's bound of [ding2017] Theorem 1 is exceeded in at most β of the surveys (exact sampler, 20,000 surveys)."""
    mech = OneBitMean(0.5, 100)
    truth = np.bincount(np.random.default_rng(1).integers(0, 101, 500), minlength=101)
    estimates = mech.estimate(
        mech.sample_aggregate(truth, rng=np.random.default_rng(2), n_draws=20_000), 500
    )
    bound = mech.error_bound(500, 0.05)
    assert np.mean(np.abs(estimates - mech.estimand(truth)) > bound) <= 0.05
    assert bound > 2 * math.sqrt(mech.variance(truth))  # a valid, conservative bound


def test_one_bit_mean_refuses_bad_input():
    mech = OneBitMean(1.0, 8)
    with pytest.raises(ValueError, match="step"):
        mech.perturb_rounds(np.array([[1, 2]]), 3, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon"):
        OneBitMean(40.0, 8)
    with pytest.raises(ValueError, match="values"):
        mech.perturb(np.array([9]), rng=np.random.default_rng(0))


# ------------------------------------------------------------------------------------------- dBitFlip


@pytest.mark.parametrize("n_bits, loss", [(1, 0.75), (2, 1.5), (4, 1.5)])
def test_dbitflip_costs_epsilon_and_only_half_with_one_bit(n_bits, loss):
    """From the whole-report table over (buckets, bits): ε, and ε/2 when each user sends one bit."""
    assert DBitFlip(1.5, 4, n_bits).privacy_loss() == pytest.approx(loss, rel=1e-9)


def test_dbitflip_estimator_is_the_papers_and_unbiased():
    """ĉ = (d/n_bits)((a + 1)B − N)/(a − 1): on the exact mean aggregate it returns the true counts."""
    mech = DBitFlip(1.0, 6, 3)
    truth = np.array([40, 0, 7, 13, 25, 15])
    n, s = truth.sum(), 3 / 6
    p, q = mech.bit_probabilities
    mean_agg = np.stack([np.full(6, n * s), s * (truth * p + (n - truth) * q)])
    a = math.exp(0.5)
    np.testing.assert_allclose(
        (6 / 3) * ((a + 1) * mean_agg[1] - mean_agg[0]) / (a - 1), truth, rtol=1e-12
    )
    direct = (mech.d / mech.n_bits) * (mean_agg[1] - q * mean_agg[0]) / (p - q)
    np.testing.assert_allclose(direct, truth, rtol=1e-12)


@pytest.mark.statistical
@pytest.mark.parametrize("n_bits", [1, 3, 4])
def test_dbitflip_sampler_has_the_per_user_law(n_bits):
    """The bucket-by-bucket sampler against the per-user client: means, variances and covariances within 5 SE."""
    mech, truth = DBitFlip(1.2, 4, n_bits), np.array([9, 0, 14, 7])
    rng = np.random.default_rng(10 + n_bits)
    fast = mech.sample_aggregate(truth, rng=rng, n_draws=40_000).reshape(40_000, -1).astype(float)
    values = mech.expand(truth)
    slow = (
        np.stack([mech.aggregate(mech.perturb(values, rng=rng)) for _ in range(8_000)])
        .reshape(8_000, -1)
        .astype(float)
    )
    se = np.sqrt(fast.var(0) / fast.shape[0] + slow.var(0) / slow.shape[0]) + 1e-12
    assert np.all(np.abs(fast.mean(0) - slow.mean(0)) < 5 * se)
    for w in np.random.default_rng(0).standard_normal(
        (3, fast.shape[1])
    ):  # the joint law, through projections
        pa, pb = fast @ w, slow @ w
        se_var = math.sqrt(
            np.var((pa - pa.mean()) ** 2) / pa.size + np.var((pb - pb.mean()) ** 2) / pb.size
        )
        assert abs(pa.var() - pb.var()) < 5 * se_var
    est = mech.estimate(fast.reshape(-1, 2, 4).astype(np.int64), truth.sum())
    assert np.all(np.abs(est.mean(0) - truth) < 5 * np.sqrt(mech.variance(truth) / est.shape[0]))


def test_dbitflip_memoized_constant_bucket_costs_epsilon_forever():
    """dBitFlipPM: T reports of an unchanged bucket cost ε (the same memoized response); values that change cost more."""
    mech = DBitFlip(1.0, 3, 2)
    for rounds in (2, 3):
        constant = np.repeat(np.arange(3)[:, None], rounds, axis=1)
        assert max_privacy_loss(mech.memoized_history_table(constant)) == pytest.approx(
            1.0, rel=1e-9
        )
    changing = np.array([[0, 1, 0], [1, 0, 1], [2, 2, 2]])
    assert max_privacy_loss(mech.memoized_history_table(changing)) > 1.0


@pytest.mark.statistical
def test_dbitflip_perturb_rounds_has_the_law_of_the_history_table():
    mech, rng, n = DBitFlip(1.0, 3, 1), np.random.default_rng(4), 60_000
    history = np.array([0, 1, 0])
    table = mech.memoized_history_table(history[None])[0]
    out = mech.perturb_rounds(np.tile(history, (n, 1)), rng=rng)
    column = out.buckets[:, 0] * 8 + out.bits[:, :, 0] @ np.array(
        [4, 2, 1]
    )  # (J, y₁, y₂, y₃), y₁ slowest
    observed = np.bincount(column, minlength=24) / n
    assert np.all(np.abs(observed - table) <= 5 * np.sqrt(table * (1 - table) / n) + 1e-12)
