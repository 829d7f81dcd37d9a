"""Notebook 07's drivers and figures: exact risks against the closed forms, the best-oracle map, memoized losses,
multidimensional MSE, and every figure drawn with labelled axes and text of at least 10 px in the book."""

import math
from unittest import mock

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from ldp_helpers.experiments import field_deployments as deploy
from ldp_helpers.experiments import field_oracles as fo
from ldp_helpers.experiments import heavy_hitter_scaling as hh
from ldp_helpers.mechanisms.dbitflip import DBitFlip
from ldp_helpers.mechanisms.unary_encoding import OUE
from ldp_tools.pipeline.plots import field_oracles as plots
from ldp_tools.pipeline.plots import heavy_hitter_scaling as hh_plots


def test_groups_partition_the_frequency_oracles():
    groups = fo.oracle_groups()
    assert sorted(k for keys in groups.values() for k in keys) == sorted(fo.oracle_keys())
    assert (
        "ss" in groups["one-shot"]
        and "cms" in groups["sketch"]
        and "l_osue" in groups["longitudinal"]
    )


def test_scaled_risk_of_a_pure_oracle_is_the_closed_form():
    """n·E‖p̂ − p‖² = (d q(1−q) + (p−q)(1−p−q))/(p−q)² for a pure oracle (OUE at ε = 1.3, d = 20)."""
    oue = OUE(1.3, 20)
    p, q = oue.p, oue.q
    expected = (20 * q * (1 - q) + (p - q) * (1 - p - q)) / (p - q) ** 2
    assert fo.scaled_risk(["oue"], [1.3], 20)[0, 0] == pytest.approx(expected, rel=1e-12)


def test_best_oracle_map_ties_go_to_the_first_key_and_short_reports_exclude_long_ones():
    best = fo.best_oracle_map(["grr", "ss", "oue"], [0.5, 6.0], [4, 256])
    assert best[0, 1] == 0  # d = 4, ε = 6: SS's k = 1 is GRR, a tie
    assert best[1, 0] == 1  # d = 256, ε = 0.5: SS
    short = fo.best_oracle_map(["oue", "grr"], [0.5], [256], max_extra_bits=2)
    assert short[0, 0] == 1  # OUE's 256 bits are excluded


def test_sketch_mse_levels_off_and_unbiased_falls_as_one_over_n():
    mse = fo.mse_against_n(["oue", "cms"], 2.0, 16, [1600, 160000])
    assert mse[0, 1] == pytest.approx(mse[0, 0] / 100, rel=1e-9)
    assert mse[1, 1] > mse[1, 0] / 100


def test_longitudinal_epsilons_start_at_eps1_and_stay_below_eps_inf():
    curves = deploy.longitudinal_epsilons(1.0, 3.0, 8, [1, 10, 1000])
    for key, curve in curves.items():
        if key != "fresh" and not np.isnan(curve).any():
            assert (
                curve[0] == pytest.approx(1.0, abs=1e-9)
                and np.all(curve <= 3.0 + 1e-12)
                and np.all(np.diff(curve) > 0)
            )
    np.testing.assert_allclose(curves["fresh"], [1.0, 10.0, 1000.0])


def test_memoized_history_loss():
    mech = DBitFlip(1.5, 4, 2)
    assert deploy.memoized_history_loss(
        mech, np.repeat(np.arange(4)[:, None], 3, axis=1)
    ) == pytest.approx(1.5)
    assert deploy.memoized_history_loss(mech, [[0, 1, 0], [1, 0, 1]]) > 1.5


def test_multidimensional_mse_of_spl_is_its_mean_variance():
    counts = deploy.joint_zipf_counts(5000, (3, 4), 1.0, rng=np.random.default_rng(1))
    assert counts.shape == (3, 4) and counts.sum() == 5000
    mse = deploy.multidimensional_mse([1.0], counts, ["SPL[GRR]"])
    spl = deploy.SPL(1.0, (3, 4), "grr")
    assert mse["SPL[GRR]"][0] == pytest.approx(
        float(np.mean(spl.variance(counts))) / 5000**2, rel=1e-12
    )


@pytest.fixture(scope="module")
def figures():
    """07's figures, built once for the checks below."""
    keys, eps, ds = ["grr", "ss", "hr"], [0.5, 2.0], [4, 64]
    every = fo.oracle_keys()  # the notebook's longest legends: every oracle
    return [
        plots.risk_figure(keys, eps, {64: fo.scaled_risk(keys, eps, 64)}),
        plots.phase_figure(keys, eps, ds, {"all": fo.best_oracle_map(keys, eps, ds)}),
        plots.mse_n_figure(
            keys, [640, 6400], fo.mse_against_n(keys, 1.0, 64, [640, 6400]), epsilon=1.0, d=64
        ),
        plots.bits_figure(keys, ds, fo.report_bits_table(keys, 1.0, ds), epsilon=1.0),
        plots.server_figure(
            keys,
            ds,
            np.column_stack(
                [fo.server_seconds(keys, 1.0, d, 256, rng=np.random.default_rng(2)) for d in ds]
            ),
            n=256,
            epsilon=1.0,
        ),
        plots.longitudinal_figure(
            [1, 4],
            deploy.longitudinal_epsilons(1.0, 3.0, 8, [1, 4]),
            deploy.longitudinal_variances(1.0, 3.0, 8),
            epsilon=1.0,
            epsilon_permanent=3.0,
            d=8,
        ),
        plots.multidimensional_figure(
            [1.0, 2.0], {"SPL[GRR]": np.array([1e-3, 5e-4])}, domain_sizes=(3, 4), n_users=100
        ),
        plots.risk_figure(every, eps, {d: fo.scaled_risk(every, eps, d) for d in (16, 1024, 4096)}),
        plots.phase_figure(
            every,
            eps,
            ds,
            {
                "every one-shot oracle": fo.best_oracle_map(every, eps, ds),
                r"reports of at most $\lceil\log_2 d\rceil + 2$ bits": fo.best_oracle_map(
                    every, eps, ds, max_extra_bits=2
                ),
            },
        ),
        plots.server_figure(every, ds, np.ones((len(every), len(ds))), n=256, epsilon=1.0),
        plots.mse_n_figure(every, [640, 6400], np.ones((len(every), 2)), epsilon=1.0, d=64),
        hh_plots.scaling_figure(
            hh.scaling_by_n([2_000, 4_000], 12, 2.0, k=3, n_draws=2, rng=np.random.default_rng(6)),
            hh.scaling_by_bits([8, 12], 4_000, 2.0, k=3, n_draws=2, rng=np.random.default_rng(5)),
            epsilon=2.0,
            k=3,
            bits=12,
            n_users=4_000,
        ),
    ]


def test_phase_figure_leaves_the_cells_where_every_oracle_refuses_blank():
    """best_oracle_map gives −1 where every oracle refuses: those cells are masked, the others coloured by
    their oracle's rank among the oracles shown (a −1 after a valid first cell once raised)."""
    best = np.array([[0, 2, -1], [-1, 2, 0]])
    fig = plots.phase_figure(["grr", "ss", "hr"], [0.5, 1.0, 2.0], [4, 64], {"map": best})
    shown = fig.axes[0].collections[0].get_array()
    assert np.array_equal(np.ma.getmaskarray(shown).reshape(best.shape), best < 0)
    assert np.array_equal(shown.compressed(), [0, 1, 1, 0])  # grr → 0, hr → 1 (ss is not shown)


def test_every_figure_is_drawn_with_labelled_axes(figures):
    for fig in figures[:7]:
        axes = fig.get_axes()
        assert all(ax.get_xlabel() for ax in axes) and axes[0].get_ylabel()
    assert not math.isnan(fo.TIE_RTOL)


#: the width of a chapter's figure in the book at a 1280 px window (tests/pipeline/test_book.py's), and the inline
#: backend's resolution: a figure W inches wide (tight box) shows at min(100 W, BOOK_PX) px
BOOK_PX, INLINE_DPI = 948, 100


def smallest_text_px(fig) -> tuple[float, str]:
    """The smallest text of ``fig`` in screen pixels on the book's page, and that text."""
    canvas = FigureCanvasAgg(
        fig
    )  # the inline backend's; the module's figures are closed after a test
    canvas.draw()
    width = fig.get_tightbbox(canvas.get_renderer()).width  # inches, as the inline PNG is cropped
    px_per_pt = min(INLINE_DPI, BOOK_PX / width) / 72
    texts = [
        t
        for t in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text"))
        if t.get_visible() and t.get_text().strip()
    ]
    smallest = min(texts, key=lambda t: t.get_fontsize())
    return smallest.get_fontsize() * px_per_pt, smallest.get_text()


def test_every_figure_text_is_at_least_10_px_at_the_books_width(figures):
    """Issue 36: 07's figures (the two-panel ones included) keep every label, tick and legend at >= 10 px."""
    for fig in figures:
        size, text = smallest_text_px(fig)
        assert size >= 10, f"{fig.axes[0].get_title()!r}: {text!r} is {size:.1f} px on the page"


def test_server_seconds_times_each_oracles_own_server_and_refuses_what_it_cannot_hold():
    """One positive time per oracle (the server is the oracle's own aggregate + estimate); n·d over the ceiling refused."""
    keys = ["grr", "oue", "olh", "hr", "cms"]
    seconds = fo.server_seconds(keys, 1.0, 64, 640, rng=np.random.default_rng(3), repeats=2)
    assert seconds.shape == (len(keys),) and np.all(np.isfinite(seconds)) and np.all(seconds > 0)
    with pytest.raises(ValueError, match=r"n must be an integer in \[4096, 8192\]; got 9000"):
        fo.server_seconds(keys, 1.0, 4096, 9000, rng=np.random.default_rng(3))
    with pytest.raises(ValueError, match=r"d must be an integer in \[2, 5792\]; got 8192"):
        fo.server_seconds(keys, 1.0, 8192, 8192, rng=np.random.default_rng(3))


def test_whole_table_losses_read_eps_1_and_eps_tau_off_the_whole_memoized_tables():
    """One report's loss from the composed tables is ε₁ for every oracle, τ reports' the closed form ε_τ
    (below ε∞); a second round off by 1 % is seen."""
    import dataclasses

    from ldp_helpers.mechanisms.longitudinal import LOUE, memoized_reports_table
    from ldp_helpers.mechanisms.privacy import max_privacy_loss

    losses = deploy.whole_table_losses(1.0, 3.0, deploy.FIRST_REPORT_MAX_D)
    assert set(losses) == {"l_grr", "l_oue", "l_osue", "l_soue", "l_sue"}
    assert max(abs(v - 1.0) for v in losses.values()) < 1e-9
    oracle = LOUE(1.0, 4, 3.0)
    wrong = dataclasses.replace(oracle)
    object.__setattr__(wrong, "rounds", oracle.rounds._replace(p2=oracle.rounds.p2 * 1.01))
    loss = max_privacy_loss(
        memoized_reports_table(wrong.permanent_table(), wrong.instantaneous_table(), 1)
    )
    assert loss > 1.0 + 1e-3
    closed = deploy.longitudinal_epsilons(1.0, 3.0, 4, [4])
    four = deploy.whole_table_losses(1.0, 3.0, 4, 4)
    assert set(four) == set(losses)
    assert all(abs(four[key] - closed[key][0]) < 1e-9 and four[key] < 3.0 for key in four)
    assert min(four.values()) > 1.0 + 1e-3  # four reports cost more than one
    state = deploy.whole_table_losses(1.0, 3.0, 4, None)  # the memoized state: ε∞, above every τ
    assert all(abs(state[key] - 3.0) < 1e-9 and four[key] < state[key] for key in four)
    over = deploy.whole_table_losses(1.0, 3.2, 4, None)  # a permanent round at 3.2 is seen there
    assert min(over.values()) > 3.0 + 1e-3
    with pytest.raises(ValueError, match="d must be"):
        deploy.whole_table_losses(1.0, 3.0, deploy.FIRST_REPORT_MAX_D + 1)
    with pytest.raises(ValueError, match="n_reports must be"):
        deploy.whole_table_losses(1.0, 3.0, 4, 5)


def test_changed_report_share_sees_clients_that_do_not_memoize():
    """The memoizing clients resend one report of an unchanged value; a client drawing each round afresh
    changes most of them."""
    from ldp_helpers.mechanisms.telemetry import OneBitMean

    rng, dbf = np.random.default_rng(5), DBitFlip(1.5, 4, 2)
    assert deploy.changed_report_share(dbf, 500, 4, rng=rng) == (0.0, 2_000)
    assert deploy.changed_report_share(OneBitMean(1.0, 8), 200, 5, rng=rng, step=2) == (0.0, 1_800)
    original = DBitFlip.perturb_rounds

    def fresh(self, values, *, rng):  # every round drawn afresh: nothing memoized across rounds
        rounds = [original(self, values[:, [t]], rng=rng) for t in range(values.shape[1])]
        return rounds[0]._replace(bits=np.concatenate([r.bits for r in rounds], axis=1))

    with mock.patch.object(DBitFlip, "perturb_rounds", fresh):
        share, _ = deploy.changed_report_share(dbf, 500, 4, rng=rng)
    assert share > 0.5
    with pytest.raises(ValueError, match="step"):
        deploy.changed_report_share(dbf, 10, 3, rng=rng, step=2)
