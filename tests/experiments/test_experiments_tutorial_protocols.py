"""Notebook 05's helpers: margins in standard errors, the users on a location tree, recall against n, the figures."""

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from ldp_helpers.experiments import tutorial_protocols as runs
from ldp_helpers.experiments.tutorial_protocols import Curve
from ldp_helpers.protocols.taxonomy import Taxonomy
from ldp_tools.pipeline.plots import tutorial_protocols as plots

A = Curve(np.array([0.2, 0.5, 0.9]), np.array([0.02, 0.03, 0.01]))
B = Curve(np.array([0.1, 0.2, 0.9]), np.array([0.01, 0.02, 0.02]))


def test_margins_are_differences_in_standard_errors():
    """rise, gap and smallest_margin are (a − b)/SE of two independent means, exactly."""
    assert runs.rise(A) == pytest.approx((0.9 - 0.2) / math.hypot(0.01, 0.02), rel=1e-15)
    assert runs.gap(A, B, 1) == pytest.approx((0.5 - 0.2) / math.hypot(0.03, 0.02), rel=1e-15)
    exact = runs.Curve(np.array([0.5, 0.5, 1.0]), np.zeros(3))  # noise-free runs: no spread
    assert [runs.gap(exact, exact, 0), runs.rise(exact)] == [0.0, math.inf]
    assert runs.smallest_margin(A, B) == A.margin(B)
    first_two = runs.smallest_margin(A, B, where=np.array([True, True, False]))
    assert first_two == pytest.approx(
        min(0.1 / math.hypot(0.02, 0.01), 0.3 / math.hypot(0.03, 0.02))
    )
    assert runs.ends(A, [1, 2, 4]) == {"low": 0.2, "high": 0.9, "x_low": 1, "x_high": 4}
    with pytest.raises(ValueError, match="where"):
        runs.smallest_margin(A, B, where=np.zeros(3, bool))
    # pooled (issue 26): the summed gap in the SE of the sum, so one saturated point does not decide alone
    se_sum = math.sqrt(
        0.02**2 + 0.03**2 + 0.01**2 + 0.01**2 + 0.02**2 + 0.02**2
    )  # A's SEs, then B's
    assert runs.pooled_margin(A, B) == pytest.approx((0.1 + 0.3 + 0.0) / se_sum)


def test_tree_users_put_the_hot_share_in_the_first_region(rng):
    """A share hot_share of the users lands in the first region's locations; each user's region is its parent."""
    tree = Taxonomy.regular((4, 5))
    locations, regions = runs.tree_users(tree, 40_000, 0.5, rng=rng)
    assert np.array_equal(regions, np.asarray(tree.parent)[locations])
    hot = np.mean(regions == regions.min())
    assert abs(hot - 0.5) < 5 * math.sqrt(0.25 / 40_000)
    assert set(np.unique(locations)) == set(tree.locations)


def test_recall_by_n_draws_each_population_then_its_surveys():
    """Each n of recall_by_n is heavy_hitter_recall on a fresh zipf_values population, from the same stream."""
    by_n = runs.recall_by_n([200, 400], 6, 2, 1.5, 2.0, n_draws=2, rng=np.random.default_rng(5))
    stream = np.random.default_rng(5)
    for i, n in enumerate((200, 400)):
        values = runs.zipf_values(n, 6, 1.5, rng=stream)
        one = runs.heavy_hitter_recall(values, 6, 2, [2.0], n_draws=2, rng=stream)
        for name, curve in one.items():
            assert (by_n[name].mean[i], by_n[name].se[i]) == (curve.mean[0], curve.se[0])
    # a curve's SE needs two runs: one run is refused before any survey, naming n_draws
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[2, 10000000\]; got 1"):
        runs.heavy_hitter_recall(values, 6, 2, [2.0], n_draws=1, rng=stream)


def test_worst_coverage_and_the_printout():
    psda = {"a": {"covered": np.array([1.0, 0.8])}, "b": {"covered": np.array([0.7, 1.0])}}
    b = np.array([0.2, 0.1])
    se = np.sqrt(b * (1 - b) / 10)
    assert runs.worst_coverage(psda, b, 10) == pytest.approx(
        min((0.7 - 0.8) / se[0], (0.8 - 0.9) / se[1])
    )
    text = runs.curve_table({"PEM": A, ("SVIM", "NCR"): B}, [0.5, 1, 25_000], "recall at eps")
    assert text.splitlines() == [
        "recall at eps = 0.5, 1, 25,000:",
        "  PEM       0.20 ± 0.02, 0.50 ± 0.03, 0.90 ± 0.01",
        "  SVIM NCR  0.10 ± 0.01, 0.20 ± 0.02, 0.90 ± 0.02",
    ]


def test_figures_draw_without_printing(capsys):
    """Each figure function returns a Figure with its panels and prints nothing."""
    eps = [0.5, 1.0, 2.0]
    figs = [
        plots.heavy_hitters_figure(
            {"PEM": A, "TreeHist": B},
            eps,
            A,
            [100, 200, 400],
            k=10,
            bits=16,
            exponent=1.5,
            n_users=1000,
            epsilon_by_n=2.0,
        ),
        plots.itemset_figure(
            {
                ("SVIM", "precision"): A,
                ("SVIM", "NCR"): A,
                ("LDPMiner", "precision"): B,
                ("LDPMiner", "NCR"): B,
            },
            eps,
            k=16,
            d=128,
            n_users=500,
        ),
        plots.svsm_figure(A, eps, k=10, n_users=500, max_size=3),
        plots.psda_figure(
            {
                name: {
                    "max_error": A,
                    "quantile": np.array([3.0, 4, 5]),
                    "bound": np.array([6.0, 7, 8]),
                }
                for name in ("personal", "root")
            },
            [0.2, 0.1, 0.01],
            n_users=500,
            epsilon=1.0,
            n_locations=20,
        ),
    ]
    assert [len(f.axes) for f in figs] == [2, 2, 1, 1] and all(isinstance(f, Figure) for f in figs)
    assert figs[0].axes[0].get_title() == "$n = 1,000$ users, $2^{16}$ values (Zipf 1.5)"
    assert figs[3].axes[0].xaxis_inverted()
    assert capsys.readouterr().out == ""


def test_lead_over_random_picks():
    """k itemsets drawn at random from the itemsets of 2..3 of 16 items are right k/680 of the time; the lead
    is the first point's distance from that, in its SE."""
    lead, chance = runs.lead_over_random_picks(A)
    assert chance == 10 / 680
    assert lead == pytest.approx((0.2 - 10 / 680) / 0.02, rel=1e-9)
    assert runs.lead_over_random_picks(A, k=5, pool_items=4, max_size=2)[1] == 5 / 6
