"""Post-processing: unbiased default, clip-and-renormalize, and the simplex projection."""

import numpy as np
import pytest
from scipy.optimize import minimize

from ldp_helpers.estimation.postprocessing import (
    METHODS,
    clip_and_renormalize,
    postprocess,
    project_to_simplex,
)
from ldp_helpers.mechanisms.grr import GRR


def test_default_is_the_raw_unbiased_estimate():
    """The default returns the estimates unchanged (a copy)."""
    est = np.array([-3.0, 5.0, 8.0])
    out = postprocess(est, 10)
    assert np.array_equal(out, est) and out is not est


def test_clip_and_renormalize():
    """Negatives become 0 and the rest is scaled to the total."""
    assert np.allclose(clip_and_renormalize([-3.0, 5.0, 15.0], 10), [0.0, 2.5, 7.5])
    assert np.allclose(clip_and_renormalize([-1.0, -2.0], 4), [2.0, 2.0])


def test_clip_and_renormalize_rescales_each_survey_of_a_2d_array_as_alone():
    """Surveys × values: every row is what the one-survey call gives, bit for bit (far rows too)."""
    rows = np.random.default_rng(3).normal(scale=5.0, size=(200, 7))
    rows[0], rows[1], rows[2] = -1.0, [1e308, 1e308, 0, 0, 0, 0, -1], [1e-10] + [0.0] * 6
    for total in (10.0, 1e300):
        both = clip_and_renormalize(rows, total)
        alone = np.array([clip_and_renormalize(row, total) for row in rows])
        assert both.tobytes() == alone.tobytes()
    with pytest.raises(
        ValueError, match=r"estimates must be a 1-D or 2-D array .*shape \(2, 2, 2\)"
    ):
        clip_and_renormalize(np.zeros((2, 2, 2)), 1.0)


def test_simplex_projection_is_the_closest_valid_histogram():
    """The projection is feasible and matches a generic constrained least-squares solver."""
    est = np.array([-4.0, 3.0, 9.0, 0.5, 2.0])
    proj = project_to_simplex(est, 10)
    assert proj.min() >= 0 and proj.sum() == pytest.approx(10, abs=1e-12)
    res = minimize(
        lambda x: np.sum((x - est) ** 2),
        np.full(5, 2.0),
        method="SLSQP",
        bounds=[(0, None)] * 5,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - 10}],
        options={"ftol": 1e-14},
    )
    assert np.allclose(proj, res.x, atol=1e-6)
    assert np.allclose(project_to_simplex([1.0, 2.0, 7.0], 10), [1.0, 2.0, 7.0])


def test_projection_onto_a_zero_total_is_zero():
    """total = 0: the simplex is the point 0 (no IndexError from an empty threshold search)."""
    assert np.array_equal(project_to_simplex([-1.0, -2.0], 0), [0.0, 0.0])
    assert np.array_equal(project_to_simplex([3.0, -2.0], 0), [0.0, 0.0])


@pytest.mark.statistical
@pytest.mark.parametrize(
    "estimates, total, expected",
    [
        ([1e17, 0.0], 1.0, [1.0, 0.0]),  # 1e17 − 1 rounds to 1e17: IndexError from an empty ρ
        ([1e17, 1e17], 1.0, [0.5, 0.5]),
        ([1e308, 1e308], 1.0, [0.5, 0.5]),  # the cumulative sum overflows
        ([1e308, -1e308, 3.0], 1.0, [1.0, 0.0, 0.0]),
    ],
)
def test_projection_far_from_the_simplex_is_exact_or_close(estimates, total, expected):
    """Estimates ≫ total: the projection of ĉ − max ĉ (the same point), never an IndexError."""
    assert project_to_simplex(estimates, total).tolist() == expected


@pytest.mark.parametrize(
    "estimates, total, expected",
    [
        ([1e-10, 0.0], 1e300, [1e300, 0.0]),  # total/Σ overflowed: [inf, nan]
        ([1e308, 1e308], 10.0, [5.0, 5.0]),  # Σ overflowed: [0, 0]
    ],
)
def test_clip_and_renormalize_beyond_double_range_sums_to_total(estimates, total, expected):
    """A sum or a scale beyond 1e308 is rescaled by the largest estimate first: no NaN, no zeros."""
    assert clip_and_renormalize(estimates, total).tolist() == expected


def test_only_the_default_is_unbiased(rng):
    """Averaged over 4000 GRR surveys, raw estimates hit a zero count; clipping and projection overestimate it."""
    grr = GRR(0.5, 20)
    f = np.r_[0, np.full(19, 100)]
    draws = np.array([grr.estimate(grr.sample_aggregate(f, rng=rng), 1900) for _ in range(4000)])
    se = np.sqrt(grr.variance(f)[0] / 4000)
    assert abs(draws[:, 0].mean()) < 5 * se
    for method in ("clip", "simplex"):
        processed = np.array([postprocess(row, 1900, method) for row in draws])
        assert processed[:, 0].mean() > 10 * se


def test_rejects_bad_input():
    """Unknown methods, NaNs, empty arrays and negative totals are refused."""
    with pytest.raises(ValueError, match="method must be one of"):
        postprocess([1.0], 1, "round")
    with pytest.raises(
        ValueError,
        match=r"estimates must be finite values in \(-inf, inf\); got an array containing nan",
    ):
        postprocess([np.nan, 1.0], 1, METHODS[1])
    with pytest.raises(ValueError, match="estimates must be a non-empty array"):
        project_to_simplex([], 1)
    with pytest.raises(
        ValueError,
        match=r"estimates must be a 1-D array of estimates; got an array of shape \(1, 2\)",
    ):
        postprocess([[1.0, 2.0]], 3)
    with pytest.raises(ValueError, match=r"total must be in \[0, inf\)"):
        clip_and_renormalize([1.0], -1)
