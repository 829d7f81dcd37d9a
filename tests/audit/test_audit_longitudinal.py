"""The averaging attack: exact binomial curves, composed ε from the count tables, simulated 1-shot / m-shot."""

import math

import numpy as np
import pytest
from stat_checks import assert_mean_close, binomial_sum_pmf, chisquare_pvalue

from ldp_helpers import Glance
from ldp_helpers.audit.longitudinal import (
    averaging_success,
    bayes_success,
    binomial_attack_curve,
    constant_stream_positives,
    fresh_rr_count_table,
    memoized_rappor_count_table,
    simulated_attack_curve,
)
from ldp_helpers.experiments.privacy_audit import longitudinal_curves
from ldp_helpers.mechanisms.harmony import Harmony
from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.sweeps import ChunkError


def test_fresh_rr_composes_and_the_attack_wins():
    eps = 0.7
    p = math.exp(eps) / (1 + math.exp(eps))
    curve = binomial_attack_curve("rr", lambda k: fresh_rr_count_table(eps, k), [1, 3, 51, 401])
    assert curve.success[0] == pytest.approx(p)
    assert curve.success[1] == pytest.approx(p**3 + 3 * p**2 * (1 - p))  # majority of 3
    assert np.allclose(curve.epsilon, eps * curve.ks)  # kε₀, exact from the table of C
    assert curve.success[-1] > 0.999 and np.all(np.diff(curve.success) > 0)
    assert np.allclose(curve.bayes, curve.success)  # majority is optimal for symmetric RR


def test_memoized_rappor_caps_both_loss_and_attack():
    f, p, q = 0.5, 0.25, 0.75
    curve = binomial_attack_curve(
        "rappor", lambda k: memoized_rappor_count_table(f, p, q, k), [1, 10, 200]
    )
    eps_inf = math.log((1 - f / 2) / (f / 2))
    assert np.all(curve.epsilon <= eps_inf + 1e-12) and curve.epsilon[-1] == pytest.approx(
        eps_inf, abs=1e-9
    )
    assert np.all(curve.bayes <= 1 - f / 2 + 1e-12) and curve.success[-1] == pytest.approx(
        1 - f / 2, abs=1e-6
    )
    t = memoized_rappor_count_table(f, p, q, 1)
    assert t[1, 1] == pytest.approx((1 - f / 2) * q + f / 2 * p)  # Pr[S = 1 | v = 1]
    assert averaging_success(t) <= bayes_success(t) + 1e-15


@pytest.mark.statistical
def test_glance_one_shot_does_not_degrade():
    """1-shot: whatever k, the attack sees one RR bit, success = e^ε/(1+e^ε); tolerance 5 SE."""
    eps = 1.0
    curve = simulated_attack_curve(
        "glance", lambda k: Glance(eps, k), [1, 4, 32], n_draws=20_000, seed=1, table_max_k=4
    )
    p = math.exp(eps) / (1 + math.exp(eps))
    assert np.all(np.abs(curve.success - p) <= 5 * curve.success_se)
    assert np.allclose(curve.epsilon, eps) and curve.epsilon_exact.tolist() == [True, True, False]


def test_longitudinal_curves_and_bad_input():
    curves = longitudinal_curves(
        [1, 2, 8],
        epsilon=1.0,
        rappor_f=0.5,
        rappor_p=0.25,
        rappor_q=0.75,
        stream_epsilon=1.0,
        m=2,
        n_draws=200,
        seed=0,
    )
    assert len(curves) == 5 and [c.exact for c in curves] == [True, True, False, False, False]
    with pytest.raises(ValueError, match="ks"):
        binomial_attack_curve("x", lambda k: fresh_rr_count_table(1.0, k), [0, 1])
    with pytest.raises(ValueError, match="f"):
        memoized_rappor_count_table(1.5, 0.25, 0.75, 3)
    with pytest.raises(ValueError, match="n_draws"):
        simulated_attack_curve("g", lambda k: Glance(1.0, k), [1], n_draws=1, seed=0)


def test_simulated_curve_is_the_same_on_any_backend():
    make = lambda k: Glance(1.0, k)  # noqa: E731
    one = simulated_attack_curve("g", make, [1, 2, 8], n_draws=500, seed=3)
    two = simulated_attack_curve("g", make, [1, 2, 8], n_draws=500, seed=3, n_jobs=2)
    assert np.array_equal(one.success, two.success) and np.array_equal(
        one.success_se, two.success_se
    )


def test_longitudinal_curves_resume_after_a_failed_stream(monkeypatch):
    """A chunk of the m-shot stream fails: the finished streams and chunks are kept and the resume matches a clean run."""
    import ldp_helpers.experiments.privacy_audit as privacy_audit

    kwargs = dict(
        epsilon=1.0,
        rappor_f=0.5,
        rappor_p=0.25,
        rappor_q=0.75,
        stream_epsilon=1.0,
        m=2,
        n_draws=200,
        seed=5,
    )
    clean = longitudinal_curves([1, 2, 8], **kwargs)
    real = privacy_audit.MShotReporting

    def broken(epsilon, k, m, p):
        if k == 8:
            raise OSError("worker lost")
        return real(epsilon, k, m, p)

    monkeypatch.setattr(privacy_audit, "MShotReporting", broken)
    with pytest.raises(ChunkError, match="2-shot") as info:
        longitudinal_curves([1, 2, 8], **kwargs)
    completed = info.value.completed
    assert sorted(completed) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1)]
    assert [f.index for f in info.value.failures] == [2]
    monkeypatch.setattr(privacy_audit, "MShotReporting", real)
    resumed = longitudinal_curves([1, 2, 8], **kwargs, completed=completed)
    for a, b in zip(resumed, clean):
        assert np.array_equal(a.success, b.success) and np.array_equal(a.epsilon, b.epsilon), (
            a.label
        )


@pytest.mark.statistical
@pytest.mark.parametrize("v", [0, 1])
def test_constant_stream_positives_have_the_per_user_law(v):
    """C of a constant stream, by the exact sampler and by the per-user clients: Bernoulli(Pr[Q_Bin(v) = 1])
    for Glance and Harmony (mean within 5 SE of theory), Bin(m, ·) + Bin(T − m, r) for m-shot (chi-square
    against the exact pmf); samplers of the wrong law fail the same checks."""
    rng, n = np.random.default_rng(31 + v), 20_000
    for mechanism in (Glance(1.0, 8), Harmony(1.0, 8)):
        one = mechanism.randomizer.p if v else mechanism.randomizer.q
        for per_user in (False, True):
            c = constant_stream_positives(mechanism, v, n, rng=rng, per_user=per_user)
            assert set(np.unique(c).tolist()) <= {0, 1}
            assert_mean_close(c, one, one * (1 - one))
        wrong = constant_stream_positives(Glance(1.5, 8), v, n, rng=rng)  # another ε
        with pytest.raises(AssertionError):
            assert_mean_close(wrong, one, one * (1 - one))
    shot = MShotReporting(1.0, 8, 2, 0.3)
    pmf = binomial_sum_pmf(2, 8, shot.randomizer.p if v else shot.randomizer.q, 0.3)
    for per_user in (False, True):
        c = constant_stream_positives(shot, v, n, rng=rng, per_user=per_user)
        assert chisquare_pvalue(c, pmf) > 1e-3
    wrong = constant_stream_positives(MShotReporting(1.0, 8, 2, 0.25), v, n, rng=rng)  # another r
    assert chisquare_pvalue(wrong, pmf) < 1e-3


@pytest.mark.parametrize("v", [0, 1])
def test_constant_stream_positives_of_m_shot_beyond_the_keep_probability_rounding_to_1(v):
    """ε/m = 200 (the paper's ε with m = 1): both paths accept it (the exact one refused it through
    ``randomizer``, naming ε/m) and keep the bit: the one chosen round reports v (flip probability
    1.4e-87), no dummy (r = 0), so C = v for every user."""
    shot = MShotReporting(200.0, 4, 1)
    for per_user in (False, True):
        c = constant_stream_positives(
            shot, v, 1000, rng=np.random.default_rng(5), per_user=per_user
        )
        assert np.array_equal(c, np.full(1000, v))


def test_longitudinal_curves_refuses_a_stream_epsilon_glance_cannot_randomize_at():
    """stream_epsilon = 1e300: every Glance/Harmony chunk crashed (a ChunkError); now refused up front naming it."""
    with pytest.raises(
        ValueError, match=r"^stream_epsilon must be in \[1e-12, 36\.7368\]; got 1e\+300"
    ):
        longitudinal_curves(
            [1, 2],
            epsilon=1.0,
            rappor_f=0.5,
            rappor_p=0.25,
            rappor_q=0.75,
            stream_epsilon=1e300,
            m=2,
            n_draws=20,
            seed=1,
        )
