"""Drivers of the tutorial notebook: composition, RR errors, variance studies, post-processing summary."""

import math
import signal

import numpy as np
import pytest
from stat_checks import assert_mean_close, assert_variance_close

from ldp_helpers.bounds.tutorial import composed_privacy_loss, ldp_noise_ratio
from ldp_helpers.experiments.tutorial import (
    postprocessing_summary,
    rr_estimation_errors,
    uniform_variance_per_user,
    variance_study,
)
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.mechanisms.unary_encoding import OUE
from ldp_helpers.simulate.populations import power_law_counts, random_baskets


@pytest.mark.parametrize("epsilon, reports", [(1.0, 16), (2.0, 3), (0.3, 1)])
def test_composed_loss_is_the_sum_for_q_bin(epsilon, reports):
    """k independent Q_Bin(ε) reports lose exactly kε (sequential composition is tight here)."""
    assert composed_privacy_loss(
        BinaryRR.from_epsilon(epsilon).output_table(), reports
    ) == pytest.approx(reports * epsilon, rel=1e-9)


def test_composed_loss_of_a_non_tight_mechanism():
    """Two GRR(1) reports over d = 3 lose exactly 2 (both reports equal to the true value)."""
    assert composed_privacy_loss(GRR(1.0, 3).output_table(), 2) == pytest.approx(2.0, rel=1e-9)
    with pytest.raises(ValueError, match="reports"):
        composed_privacy_loss(GRR(1.0, 3).output_table(), 0)


def test_composed_loss_of_a_single_output_does_not_loop_over_the_reports():
    """A one-output table passes the (outputs)^reports ≤ 2^20 check for any number of reports; composing it
    looped reports − 1 times (10^18: for ever; stopped here after 10 s).  Its composition is itself, loss 0."""

    def stop(*_):
        raise TimeoutError("composing a one-output table loops over the reports")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(10)
    try:
        assert composed_privacy_loss([[1.0], [1.0]], 10**18) == 0.0
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.statistical
def test_rr_errors_have_mean_zero_and_the_exact_variance(rng):
    """π̂ − π over 4000 surveys at each n: mean 0, variance fraction_variance(π, n)."""
    rr = BinaryRR.from_epsilon(1.0)
    errors = rr_estimation_errors(rr, 0.3, [100, 10_000], n_draws=4000, rng=rng)
    for row, n in zip(errors, (100, 10_000)):
        assert_mean_close(row, 0.0, rr.fraction_variance(0.3, n))
        assert_variance_close(row, rr.fraction_variance(0.3, n))


@pytest.mark.parametrize("n", [2**53 + 1, 2**62 - 1])
def test_rr_errors_survey_round_pi_n_yes_users_exactly_beyond_2_to_53(n, monkeypatch):
    """π = 1 puts all n users on "Yes": the float π·n rounded n = 2^53 + 1 to 2^53 (one "No" user) and
    n = 2^62 − 1 to 2^62 (a count of −1, refused with a message about an array the caller never passed)."""
    surveyed, sample = [], BinaryRR.sample_aggregate

    def spy(self, true_counts, **kwargs):
        surveyed.append(np.asarray(true_counts).tolist())
        return sample(self, true_counts, **kwargs)

    monkeypatch.setattr(BinaryRR, "sample_aggregate", spy)
    rr_estimation_errors(
        BinaryRR.from_epsilon(1.0), 1.0, [n], n_draws=2, rng=np.random.default_rng(0)
    )
    assert surveyed == [[0, n]]


@pytest.mark.statistical
def test_variance_study_and_uniform_variances(rng):
    """Simulated variances are within 5 SE of the exact ones; the exact uniform curve is count_variance/n."""
    counts = np.array([300, 100, 100, 500])
    study = variance_study({"OUE": OUE}, [1.0, 3.0], 4, counts, 0, n_draws=4000, rng=rng)
    simulated, exact, approx = study["OUE"]
    for s, e in zip(simulated, exact):
        assert abs(s - e) < 5 * e * math.sqrt(2 / 3999)
    assert np.allclose(exact, [OUE(e, 4).variance(counts)[0] for e in (1.0, 3.0)], rtol=1e-14)
    assert np.allclose(approx, [OUE(e, 4).approx_variance(1000) for e in (1.0, 3.0)], rtol=1e-14)
    curve = uniform_variance_per_user({"DE": GRR}, 1.0, [2, 5], 100)["DE"]
    assert curve == pytest.approx(
        [GRR(1.0, d).variance(np.full(d, 100))[0] / (100 * d) for d in (2, 5)], rel=1e-14
    )


@pytest.mark.parametrize("epsilon", [1e-3, 0.1, 1.0, 3.0])
def test_ldp_noise_ratio_is_eps_over_2_sinh(epsilon):
    """Fixed population, Q_Bin: sd = √(n p(1−p))/(p−q) whatever π, so sd·ε/√n = ε/(2 sinh(ε/2)) → 1 as ε → 0."""
    for fraction in (0.0, 0.3, 1.0):
        ratio = ldp_noise_ratio(BinaryRR.from_epsilon(epsilon), fraction, 10_000)
        assert ratio == pytest.approx(epsilon / (2 * math.sinh(epsilon / 2)), rel=1e-9)


@pytest.mark.parametrize("fraction", [1.5, -0.1, math.nan, math.inf])
def test_ldp_noise_ratio_rejects_a_non_probability(fraction):
    """A true fraction outside [0, 1] or non-finite is a ValueError naming true_fraction (not a silent number or NaN)."""
    with pytest.raises(ValueError, match=r"true_fraction.*\[0, 1\]"):
        ldp_noise_ratio(BinaryRR.from_epsilon(1.0), fraction, 100)


@pytest.mark.statistical
def test_postprocessing_summary_bias(rng):
    """Absent values: unbiased mean ≈ 0 (5 SE); clipping and projection push it up."""
    oue = OUE(1.0, 8)
    counts = np.r_[np.full(4, 500), np.zeros(4, int)]
    summary = postprocessing_summary(oue, counts, n_draws=2000, rng=rng)
    se = math.sqrt(oue.variance(counts)[4] / (2000 * 4))
    assert abs(summary["unbiased"][0]) < 5 * se
    assert summary["clip"][0] > 5 * se and summary["simplex"][0] > 5 * se
    with pytest.raises(ValueError, match="at least one absent value"):
        postprocessing_summary(oue, np.full(8, 10), n_draws=10, rng=rng)


def test_data_generators(rng):
    """Power-law counts decrease from value 0; baskets have 1..max_size distinct items in [0, d)."""
    counts = power_law_counts(10_000, 20, 1.2)
    assert np.all(np.diff(counts) <= 0) and abs(counts.sum() - 10_000) <= 20
    baskets = random_baskets(500, 6, 3, np.ones(6), rng=rng)
    assert all(1 <= len(b) <= 3 and len(set(b)) == len(b) and max(b) < 6 for b in baskets)
    with pytest.raises(ValueError, match="item_weights must be d = 6 weights; got 5 weights"):
        random_baskets(5, 6, 3, np.ones(5), rng=rng)


def test_oracle_walkthrough_follows_encode_perturb_aggregate():
    """GRR's report supports exactly the value it names, OUE's its set bits, SHE nothing; sd is the exact one."""
    import math

    from ldp_helpers import GRR, OUE, SHE
    from ldp_helpers.experiments.tutorial import oracle_walkthrough

    counts = np.array([30, 20, 10, 5, 5, 0])
    grr = oracle_walkthrough(GRR(math.log(3), 6), 0, counts, rng=np.random.default_rng(4))
    assert grr.support.tolist() == [int(grr.report)]
    oue = oracle_walkthrough(OUE(math.log(3), 6), 0, counts, rng=np.random.default_rng(4))
    assert oue.support.tolist() == np.flatnonzero(oue.report).tolist()
    she = oracle_walkthrough(SHE(math.log(3), 6), 0, counts, rng=np.random.default_rng(4))
    assert she.support.size == 0 and she.report.shape == (6,)
    np.testing.assert_allclose(grr.sd, np.sqrt(GRR(math.log(3), 6).variance(counts)))
    with pytest.raises(ValueError, match="value"):
        oracle_walkthrough(GRR(1.0, 6), 6, counts, rng=np.random.default_rng(0))


def test_walkthrough_text_shows_the_walkthrough():
    """Five lines: p* and q* (none for SHE), the report and its support, the counts, the estimates, their exact sd."""
    from ldp_helpers import GRR, SHE
    from ldp_helpers.experiments.tutorial import oracle_walkthrough, walkthrough_text

    counts = np.array([30, 20, 10, 5, 5, 0])
    text = walkthrough_text(GRR(math.log(3), 6), 0, counts, rng=np.random.default_rng(4))
    w = oracle_walkthrough(GRR(math.log(3), 6), 0, counts, rng=np.random.default_rng(4))
    lines = text.splitlines()
    assert len(lines) == 5 and lines[0] == "GRR at eps = 1.099, d = 6: p* = 0.3750, q* = 0.1250"
    assert lines[1].endswith(f"supports {w.support.tolist()}") and lines[2].endswith(
        str(counts.tolist())
    )
    assert lines[3].endswith(str(np.round(w.estimates, 1).tolist()))
    assert lines[4].endswith(str(np.round(w.sd, 1).tolist()))
    assert "no p*, q*: summed" in walkthrough_text(
        SHE(1.0, 6), 0, counts, rng=np.random.default_rng(4)
    )
    with pytest.raises(ValueError, match="value"):
        walkthrough_text(GRR(1.0, 6), 6, counts, rng=np.random.default_rng(0))


def test_the_tutorials_settings():
    """Warner's two coins lose exactly ln 3; Tang et al.'s 16 reports a day at ε = 1 compose to the tutorial's 16."""
    from ldp_helpers.bounds import tutorial

    assert tutorial.WARNER_EPSILON == pytest.approx(
        BinaryRR.warner_two_coin().privacy_loss(), rel=1e-12
    )
    daily = composed_privacy_loss(
        BinaryRR.from_epsilon(tutorial.APPLE_EPSILON_PER_REPORT[0]).output_table(),
        tutorial.APPLE_REPORTS_PER_DAY,
    )
    assert daily == pytest.approx(16.0, rel=1e-9)
    assert tutorial.tutorial_printed_p_star(0.5, 0.5) == pytest.approx(
        0.625
    )  # its typo: (p + 1) where q is meant


def test_simulated_variances_refuse_one_survey_and_a_huge_count(rng):
    """An empirical variance needs 2 surveys; a count past MAX_N_DRAWS is refused before any draw."""
    for bad in (1, 10**12):
        with pytest.raises(ValueError, match="n_draws"):
            variance_study({"OUE": OUE}, [1.0], 4, np.array([3, 1, 1, 5]), 0, n_draws=bad, rng=rng)


def test_figures_draw_the_experiments(rng):
    """The figures: a panel per ε with the ±2σ band; a curve triple per oracle; the phase diagram's two panels."""
    from ldp_helpers import GRR
    from ldp_helpers.bounds.wang2017 import best_protocol_grid
    from ldp_tools.pipeline.plots import tutorial as plots

    sizes = np.array([100, 1000, 10_000])
    rrs = {eps: BinaryRR.from_epsilon(eps) for eps in (0.5, 2.0)}
    errors = {
        eps: rr_estimation_errors(rr, 0.3, sizes, n_draws=20, rng=rng) for eps, rr in rrs.items()
    }
    sigmas = {eps: np.sqrt(rr.fraction_variance(0.3, sizes)) for eps, rr in rrs.items()}
    fig = plots.rr_errors(sizes, errors, sigmas, 0.3)
    assert [ax.get_title() for ax in fig.axes] == [r"$\varepsilon = 0.5$", r"$\varepsilon = 2$"]
    assert fig.axes[0].get_ylabel().endswith(r"($\pi = 0.3$)") and len(fig.axes[1].collections) == 2
    counts = np.array([300, 100, 100, 500])
    study = variance_study({"GRR": GRR, "OUE": OUE}, [1.0, 3.0], 4, counts, 0, n_draws=20, rng=rng)
    fig = plots.variance_vs_epsilon([1.0, 3.0], study, n=1000, d=4, share=0.3, n_draws=20)
    assert (
        "30% of $n$ = 1,000 users, $d$ = 4" in fig.axes[0].get_title()
        and len(fig.axes[0].lines) == 3 * 2 + 2
    )
    grid_d, grid_eps = np.array([2, 10, 100]), np.array([0.5, 2.0])
    best, _ = best_protocol_grid(grid_d, grid_eps)
    curve_d, sim_d = np.arange(2, 9), np.array([2, 8])
    exact = uniform_variance_per_user({"DE": GRR, "OUE": OUE}, 1.0, curve_d, 100)
    simulated = uniform_variance_per_user(
        {"DE": GRR, "OUE": OUE}, 1.0, sim_d, 100, n_draws=20, rng=rng
    )
    fig = plots.phase_diagram(
        grid_d,
        grid_eps,
        best,
        curve_d=curve_d,
        exact=exact,
        approx=exact,
        sim_d=sim_d,
        simulated=simulated,
        epsilon=1.0,
        users_per_value=100,
    )
    assert [ax.get_title() for ax in fig.axes] == [
        "smallest approximate variance",
        r"$\varepsilon = 1$, uniform data, 100 users per value",
    ]
    assert fig.axes[1].get_legend_handles_labels()[1][-1] == r"$3e+2 \approx 10.2$"
    with pytest.raises(ValueError, match="sigmas"):
        plots.rr_errors(sizes, errors, {0.5: sigmas[0.5]}, 0.3)


def test_uniform_variance_refuses_more_than_2_to_62_users_naming_users_per_value():
    """users_per_value·d above 2^62 was refused as "true_counts must be … totalling at most 2^62", a parameter the
    caller never passed; it is refused naming users_per_value with its largest value at this d."""
    with pytest.raises(
        ValueError, match=r"users_per_value must be an integer in \[1, 1152921504606846976\]"
    ):
        uniform_variance_per_user({"GRR": GRR}, 1.0, [2, 4], 2**61)
    assert uniform_variance_per_user({"GRR": GRR}, 1.0, [4], 2**60)["GRR"].shape == (1,)
