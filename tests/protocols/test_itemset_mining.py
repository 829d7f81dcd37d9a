"""SVIM and LDPMiner: the size correction and ℓ choice, per-user privacy from exact tables, the top-k on
planted data, SVIM ahead of LDPMiner, and bad input."""

import itertools

import numpy as np
import pytest

from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.protocols.itemset_mining import (
    choose_ell,
    itemset_counts,
    ldpminer,
    ncr,
    size_correction,
    svim,
    svsm,
    top_k_precision,
)
from ldp_helpers.protocols.set_valued import PSFO
from ldp_helpers.simulate.itemsets import item_counts, zipf_baskets


def test_size_correction_and_ell_choice():
    """Sizes 1, 2, 4 with 10 users each: at ℓ = 2 PSFO weighs them 1, 1, 1/2, so the correction is 30/25."""
    sizes = np.array([0.0, 10, 10, 0, 10])
    assert size_correction(sizes, 2) == pytest.approx(30 / 25)
    assert size_correction(sizes, 4) == pytest.approx(1.0)
    assert (
        choose_ell(sizes, 0.9) == 4 and choose_ell(sizes, 0.6) == 2 and choose_ell(np.zeros(3)) == 1
    )


def test_ldpminer_two_reports_compose_to_epsilon():
    """A user's two reports (ε/2 each, candidates fixed) have exact whole-report loss ≤ ε, and = ε/2 + ε/2 at worst."""
    eps, d, ell, cand = 1.0, 3, 2, np.array([0, 2])
    one, two = PSFO(eps / 2, d, ell), PSFO(eps / 2, cand.size, ell)
    t1, t2 = one.output_table(), two.output_table()
    sets = [s for size in range(d + 1) for s in itertools.combinations(range(d), size)]
    restricted = [tuple(int(np.flatnonzero(cand == i)[0]) for i in s if i in cand) for s in sets]
    rows2 = [
        s for size in range(cand.size + 1) for s in itertools.combinations(range(cand.size), size)
    ]
    table = np.array(
        [np.outer(t1[i], t2[rows2.index(r)]).ravel() for i, r in enumerate(restricted)]
    )
    assert max_privacy_loss(table) == pytest.approx(eps, rel=1e-9)


def test_svim_groups_each_report_once_at_epsilon():
    """Each SVIM group's mechanism is exactly ε-LDP: PSFO(ℓ = 1), the size oracle, PSFO(ℓ) over candidates."""
    assert PSFO(1.0, 4, 1).privacy_loss() == pytest.approx(1.0, rel=1e-9)
    assert PSFO(1.0, 4, 3).privacy_loss() == pytest.approx(1.0, rel=1e-9)


@pytest.mark.statistical
def test_svim_finds_the_planted_top_k_and_beats_ldpminer():
    """At ε = 4 and 100,000 Zipf baskets SVIM recovers the true top 8; at ε = 1 its precision exceeds LDPMiner's
    on average over 5 runs (fixed seed)."""
    rng = np.random.default_rng(5)
    baskets = zipf_baskets(100_000, 128, 1.1, 4.0, rng=rng)
    truth = item_counts(baskets, 128)
    assert top_k_precision(svim(baskets, 128, 4.0, 8, rng=rng).items, truth, 8) == 1.0
    runs = [
        (
            top_k_precision(svim(baskets, 128, 1.0, 16, rng=rng).items, truth, 16),
            top_k_precision(ldpminer(baskets, 128, 1.0, 16, ell=6, rng=rng).items, truth, 16),
        )
        for _ in range(5)
    ]
    svim_p, ldp_p = np.mean(runs, axis=0)
    assert svim_p > ldp_p


def test_metrics():
    truth = np.array([50, 40, 30, 20, 10])
    assert top_k_precision([0, 1, 4], truth, 3) == pytest.approx(2 / 3)
    assert ncr([0, 2], truth, 3) == pytest.approx((3 + 1) / 6)


def test_bad_input_is_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="at least one user's set"):
        svim([], 5, 1.0, 2, rng=rng)
    with pytest.raises(ValueError, match="k"):
        svim([np.array([0])] * 10, 5, 1.0, 0, rng=rng)
    with pytest.raises(ValueError, match="epsilon"):
        ldpminer([np.array([0])] * 10, 5, 0.0, 2, ell=2, rng=rng)
    with pytest.raises(ValueError, match="ell"):
        ldpminer([np.array([0])] * 10, 5, 1.0, 2, ell=0, rng=rng)
    with pytest.raises(ValueError, match="at least one user per group"):
        svim([np.array([0])] * 2, 5, 1.0, 2, rng=rng)


def test_candidate_itemsets_and_counts():
    """Candidates are the 2k itemsets with the largest product of item frequencies; counts are exact."""
    from ldp_helpers.protocols.itemset_mining import candidate_itemsets, itemset_counts

    cands = candidate_itemsets({0: 50.0, 1: 30.0, 2: 10.0, 3: -5.0}, 2, 3)
    assert cands == [(0, 1), (0, 2), (1, 2), (0, 1, 2)]
    sets = [np.array([0, 1, 2]), np.array([0, 1]), np.array([2]), np.array([0, 2])]
    assert itemset_counts(sets, 3, [(0, 1), (0, 2), (1, 2), (0, 1, 2)]).tolist() == [2, 2, 1, 1]
    with pytest.raises(ValueError, match="itemsets"):
        itemset_counts(sets, 3, [])


@pytest.mark.statistical
def test_svsm_finds_the_frequent_itemsets():
    """At ε = 4 on 100,000 Zipf baskets SVSM's top 10 itemsets hold at least 8 of the true top 10 (fixed seed)."""
    import itertools

    from ldp_helpers.protocols.itemset_mining import itemset_counts, svsm

    rng = np.random.default_rng(9)
    baskets = zipf_baskets(100_000, 64, 1.1, 4.0, rng=rng)
    pool = [c for size in (2, 3) for c in itertools.combinations(range(12), size)]
    truth = itemset_counts(baskets, 64, pool)
    true_top = {pool[i] for i in np.argsort(-truth, kind="stable")[:10]}
    found = svsm(baskets, 64, 4.0, 10, rng=rng)
    assert len(set(found.itemsets) & true_top) >= 8 and found.ell >= 1
    with pytest.raises(ValueError, match="epsilon"):
        svsm(baskets[:10], 64, 0.0, 2, rng=rng)


def test_flat_sets_are_the_same_users():
    """A FlatSets (validated once) gives every miner the draws of its list of sets; another d is refused."""
    from ldp_helpers.protocols.set_valued import FlatSets

    sets = [np.array(s) for s in ([0, 1], [2, 1], [0, 2, 3], [], [4])] * 40
    flat = FlatSets(sets, 6)
    for mine in (
        lambda x, r: svim(x, 6, 1.0, 2, rng=r).items,
        lambda x, r: ldpminer(x, 6, 1.0, 2, ell=2, rng=r).items,
        lambda x, r: svsm(x, 6, 1.0, 2, rng=r).itemsets,
    ):
        a, b = mine(sets, np.random.default_rng(3)), mine(flat, np.random.default_rng(3))
        assert np.array_equal(a, b)
    assert np.array_equal(itemset_counts(flat, 6, [(0, 1), (0, 2)]), [40, 40])
    with pytest.raises(ValueError, match="d must be the d = 6 of the FlatSets"):
        svim(flat, 7, 1.0, 2, rng=np.random.default_rng(0))


MINERS = {
    "SVIM": lambda s, r, u: svim(s, 6, 2.0, 2, rng=r, per_user=u),
    "LDPMiner": lambda s, r, u: ldpminer(s, 6, 2.0, 2, ell=3, rng=r, per_user=u),
    "SVSM": lambda s, r, u: svsm(s, 6, 2.0, 2, rng=r, per_user=u),
}


def _mining_statistics(result) -> list:
    """Per item (per itemset of items 0-3 for SVSM): found or not, and its estimate (0 when not found)."""
    if hasattr(result, "itemsets"):
        found = dict(zip(result.itemsets, result.estimates.tolist()))
        keys = [c for size in (2, 3) for c in itertools.combinations(range(4), size)]
    else:
        found, keys = dict(zip(result.items.tolist(), result.estimates.tolist())), list(range(6))
    return [key in found for key in keys] + [found.get(key, 0.0) for key in keys]


@pytest.mark.statistical
@pytest.mark.parametrize("miner", sorted(MINERS))
def test_miners_samplers_have_the_per_user_law_and_a_wrong_psfo_sampler_is_caught(
    miner, monkeypatch
):
    """Which items (itemsets) each miner finds and their estimates: the samplers and every user's client agree
    in mean (5 SE, 200 runs of 300 users each); a PSFO sampler that forgets the padding (one of the |S| items
    even when |S| < ℓ) fails the same test for LDPMiner (ℓ = 3) and SVSM."""
    import ldp_helpers.protocols.set_valued as set_valued

    rng = np.random.default_rng(13)
    sets = [
        np.flatnonzero(rng.random(6) < p * np.array([1.0, 0.9, 0.8, 0.6, 0.4, 0.2]))
        for p in np.linspace(0.2, 0.9, 300)
    ]
    mine = MINERS[miner]

    def runs_of(per_user, runs=200):
        return np.array(
            [_mining_statistics(mine(sets, rng, per_user)) for _ in range(runs)], dtype=float
        )

    def agree(fast, slow):
        runs = fast.shape[0]
        se = np.sqrt(fast.var(axis=0, ddof=1) / runs + slow.var(axis=0, ddof=1) / runs)
        return bool(np.all(np.abs(fast.mean(axis=0) - slow.mean(axis=0)) < 5 * se + 1e-9))

    fast = runs_of(False)
    slow = runs_of(True)  # every user's client: the reference, which never calls the PSFO sampler
    assert agree(fast, slow)
    if miner == "SVIM":
        return
    padded = set_valued._sample_padded_items

    def unpadded(
        items, sizes, d, ell, *, rng, n_draws=None
    ):  # the wrong law: no dummies (counts over d + ℓ kept)
        counts = padded(items, sizes, d, 1, rng=rng, n_draws=n_draws)
        return np.concatenate(
            [counts, np.zeros((*counts.shape[:-1], ell - 1), dtype=counts.dtype)], axis=-1
        )

    monkeypatch.setattr(set_valued, "_sample_padded_items", unpadded)
    assert not agree(runs_of(False), slow)
