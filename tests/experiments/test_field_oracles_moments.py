"""Each value's exact MSE (``field_oracles.Moments.mse_per_value``), held against [wang2017]'s exact
variance and Monte-Carlo surveys of a fixed-hash sketch's per-user client."""

from __future__ import annotations

import numpy as np
import pytest

from ldp_helpers.experiments import field_oracles as fo
from ldp_helpers.simulate.populations import power_law_counts


def test_a_pure_oracles_per_value_mse_is_wangs_exact_variance():
    """GRR: E(ĉ(x) − f_x)² = (f_x p*(1−p*) + (n − f_x) q*(1−q*))/(p* − q*)² ([wang2017] Thm 2)."""
    truth = power_law_counts(10_000, 7, 1.3, exact_total=True)
    grr = fo.build_oracle("grr", 1.5, 7)
    p, q, n = grr.p, grr.q, truth.sum()
    wang = (truth * p * (1 - p) + (n - truth) * q * (1 - q)) / (p - q) ** 2
    moments = fo.exact_moments(grr, truth)
    np.testing.assert_allclose(moments.mse_per_value, wang, rtol=1e-12)
    assert moments.mse == pytest.approx(float(np.mean(moments.mse_per_value)), rel=1e-12)


@pytest.mark.statistical
def test_a_sketchs_per_value_mse_matches_its_per_user_client():
    """100 surveys of a CMS's (k = 4, m = 16) per-user client: each value's MSE within 5 SE.

    Its collisions' bias² is most of each value's MSE here, so the variance alone would fail.
    """
    cms = fo.build_oracle("cms", 1.0, 6, structure={"k": 4, "m": 16})
    truth = power_law_counts(20_000, 6, 1.0, exact_total=True)
    moments = fo.exact_moments(cms, truth)
    rng, values, n, surveys = np.random.default_rng(21), cms.expand(truth), int(truth.sum()), 100
    estimates = np.array(
        [cms.estimate(cms.aggregate(cms.perturb(values, rng=rng)), n) for _ in range(surveys)]
    )
    squared = ((estimates - truth) ** 2).mean(axis=0)
    variance, bias = moments.variance, moments.bias
    sd = np.sqrt(2 * variance**2 + 4 * variance * bias**2)  # Var[(X − f)²] for X ~ N(f + b, σ²)
    assert np.all(np.abs(squared - moments.mse_per_value) < 5 * sd / np.sqrt(surveys))
    assert np.all(bias**2 > 5 * sd / np.sqrt(surveys))  # a wrong (variance-only) value would fail
