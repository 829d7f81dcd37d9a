"""Heavy hitters: PEM, TreeHist and Bitstogram over OLH — exact ε of a user's whole report (group + OLH report),
the fast simulation against the per-user clients, recall on planted data, and bad input."""

import numpy as np
import pytest
from report_tables import level_report_table

from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.protocols.heavy_hitters import (
    bitstogram,
    bucket_of,
    pem,
    pem_lengths,
    recall,
    split_counts,
    treehist,
)


def _prefix_table(epsilon, length, bits):
    olh = OLH(epsilon, max(2**length, 2))
    return olh.output_table()[np.arange(2**bits) >> (bits - length)]


@pytest.mark.parametrize("epsilon", [0.7, 1.5])
def test_one_users_whole_report_is_exactly_epsilon(epsilon):
    """PEM (lengths 1, 2) and TreeHist (1, 2 + a final group) at bits = 2: the (group, OLH report) table loses ε.

    (OLH's table enumerates every hash function, g^d of them: 2-bit values keep it small.)
    """
    lengths = pem_lengths(2, 1, 1)
    assert lengths == [1, 2]
    pem_table = level_report_table([_prefix_table(epsilon, L, 2) for L in lengths], [0.5, 0.5])
    assert max_privacy_loss(pem_table) == pytest.approx(epsilon, rel=1e-9)
    tree = level_report_table([_prefix_table(epsilon, L, 2) for L in (1, 2, 2)], [1 / 3] * 3)
    assert max_privacy_loss(tree) == pytest.approx(epsilon, rel=1e-9)


def test_bitstogram_report_is_exactly_epsilon():
    """Bitstogram at bits = 2, T = 2 buckets: group j reports symbol 2·h(x) + bit_j(x) with OLH over 4 symbols."""
    eps, bits, T = 1.0, 2, 2
    olh = OLH(eps, 2 * T)
    x = np.arange(2**bits)
    tables = [
        olh.output_table()[2 * bucket_of(x, T) + ((x >> (bits - 1 - j)) & 1)] for j in range(bits)
    ]
    tables.append(_prefix_table(eps, bits, bits))  # the final estimation group
    assert max_privacy_loss(level_report_table(tables, [1 / 3] * 3)) == pytest.approx(eps, rel=1e-9)


@pytest.mark.statistical
def test_fast_simulation_has_the_per_user_law():
    """PEM's estimates of the found values: per-user clients and the batched sampler agree in mean (5 SE)."""
    rng = np.random.default_rng(4)
    values = np.r_[np.repeat([5, 9, 200], [3000, 2000, 1000]), rng.integers(0, 256, 4000)]
    fast = np.array([pem(values, 8, 2.0, 3, eta=2, rng=rng).estimates for _ in range(200)])
    slow = np.array(
        [pem(values, 8, 2.0, 3, eta=2, rng=rng, per_user=True).estimates for _ in range(200)]
    )
    se = np.sqrt(fast.var(axis=0, ddof=1) / 200 + slow.var(axis=0, ddof=1) / 200)
    assert np.all(np.abs(fast.mean(axis=0) - slow.mean(axis=0)) < 5 * se)


HOLDERS, SIZES = (
    np.array([3, 2, 0, 1, 4]),
    np.array([4, 3, 3]),
)  # 10 users of 5 values (one unheld), 3 groups
N_SPLITS = 10_000  # draws of each split in the χ² test


def _split_pmf(holders, sizes) -> dict:
    """Every matrix of users per (group, value) and its exact probability under a uniform random split:
    Π_j s_j! Π_v h_v! / (n! Π x_jv!) (multivariate hypergeometric)."""
    from itertools import product
    from math import factorial, prod

    columns = [
        [c for c in product(range(h + 1), repeat=len(sizes)) if sum(c) == h] for h in holders
    ]
    total = (
        prod(factorial(s) for s in sizes)
        * prod(factorial(h) for h in holders)
        / factorial(int(holders.sum()))
    )
    pmf = {}
    for cols in product(*columns):
        x = np.array(cols).T
        if np.array_equal(x.sum(axis=1), sizes):
            pmf[x.tobytes()] = total / prod(factorial(int(v)) for v in x.ravel())
    return pmf


def _chi2_pvalue(draws, pmf) -> float:
    """χ² of the drawn matrices against the exact pmf (cells expected < 5 pooled, with any unseen matrix)."""
    from collections import Counter

    from scipy import stats

    seen, n = Counter(np.asarray(d, dtype=np.int64).tobytes() for d in draws), len(draws)
    big = [key for key, p in pmf.items() if n * p >= 5]
    observed = [seen[key] for key in big] + [n - sum(seen[key] for key in big)]
    expected = [n * pmf[key] for key in big] + [n * (1 - sum(pmf[key] for key in big))]
    return stats.chisquare(observed, expected).pvalue


@pytest.mark.statistical
def test_split_counts_is_the_law_of_a_random_split_and_wrong_splits_are_caught():
    """split_counts and the per-user path (a permutation cut into groups) against the exact multivariate
    hypergeometric pmf of the whole (group × value) matrix (χ², 10,000 draws, level 1e-3); an independent
    group per user (random sizes), swapped group sizes and groups 2-3 filled in value order fail the same test."""
    pmf = _split_pmf(HOLDERS, SIZES)
    assert sum(pmf.values()) == pytest.approx(1.0)
    rng = np.random.default_rng(17)
    fast = [split_counts(HOLDERS, SIZES, rng=rng) for _ in range(N_SPLITS)]
    assert all(
        np.array_equal(x.sum(axis=1), SIZES) and np.array_equal(x.sum(axis=0), HOLDERS)
        for x in fast[:100]
    )
    assert _chi2_pvalue(fast, pmf) > 1e-3
    values = np.repeat(np.arange(HOLDERS.size), HOLDERS)
    per_user = [
        np.stack(
            [
                np.bincount(values[g], minlength=HOLDERS.size)
                for g in np.array_split(rng.permutation(values.size), 3)
            ]
        )
        for _ in range(N_SPLITS)
    ]
    assert _chi2_pvalue(per_user, pmf) > 1e-3
    independent = [
        np.stack([np.bincount(values[labels == j], minlength=HOLDERS.size) for j in range(3)])
        for labels in rng.choice(3, size=(N_SPLITS, values.size), p=SIZES / SIZES.sum())
    ]
    swapped = [split_counts(HOLDERS, SIZES[[1, 0, 2]], rng=rng) for _ in range(N_SPLITS)]
    filled = []  # group 0 exact, the other groups filled in value order: right sizes and margins, wrong law
    for _ in range(N_SPLITS):
        first = rng.multivariate_hypergeometric(HOLDERS, SIZES[0])
        rest = np.repeat(np.arange(HOLDERS.size), HOLDERS - first)
        filled.append(
            np.stack(
                [first]
                + [np.bincount(g, minlength=HOLDERS.size) for g in np.split(rest, [SIZES[1]])]
            )
        )
    for wrong in (independent, swapped, filled):
        assert _chi2_pvalue(wrong, pmf) < 1e-3


@pytest.mark.statistical
@pytest.mark.parametrize("search", ["treehist", "bitstogram"])
def test_treehist_and_bitstogram_fast_simulations_have_the_per_user_law(search):
    """Which planted values are found and their estimates (0 when missed): per-user clients and the sampler
    agree in mean (5 SE, 300 runs each)."""
    rng = np.random.default_rng(9)
    heavy = np.array([5, 9, 200])
    values = np.r_[np.repeat(heavy, [1500, 1000, 600]), rng.integers(0, 256, 2000)]

    def run(per_user):
        found = (
            treehist(values, 8, 1.5, rng=rng, per_user=per_user)
            if search == "treehist"
            else bitstogram(values, 8, 1.5, 3, n_buckets=16, rng=rng, per_user=per_user)
        )
        estimate = dict(zip(found.values.tolist(), found.estimates.tolist()))
        return [h in estimate for h in heavy.tolist()] + [
            estimate.get(h, 0.0) for h in heavy.tolist()
        ]

    fast, slow = (
        np.array([run(False) for _ in range(300)]),
        np.array([run(True) for _ in range(300)]),
    )
    se = np.sqrt(fast.var(axis=0, ddof=1) / 300 + slow.var(axis=0, ddof=1) / 300 + 1e-12)
    assert np.all(np.abs(fast.mean(axis=0) - slow.mean(axis=0)) < 5 * se)


@pytest.mark.statistical
def test_planted_heavy_hitters_are_found():
    """Five planted values holding 60 % of 100,000 users are found by all three at ε = 4."""
    rng = np.random.default_rng(6)
    heavy = np.array([123, 3000, 777, 4001, 2048])
    values = np.r_[
        np.repeat(heavy, [20000, 15000, 12000, 8000, 5000]), rng.integers(0, 2**12, 40_000)
    ]
    truth = np.bincount(values, minlength=2**12)
    assert recall(pem(values, 12, 4.0, 5, rng=rng).values, truth, 5) == 1.0
    assert recall(treehist(values, 12, 4.0, rng=rng).values, truth, 5) == 1.0
    assert recall(bitstogram(values, 12, 4.0, 5, n_buckets=64, rng=rng).values, truth, 5) == 1.0


def test_bad_input_is_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="values"):
        pem([1, 2], 8, 1.0, 2, rng=rng)  # fewer users than groups
    with pytest.raises(ValueError, match="values"):
        pem([300], 8, 1.0, 2, rng=rng)  # out of the 8-bit domain
    with pytest.raises(ValueError, match="bits"):
        treehist([1], 0, 1.0, rng=rng)
    with pytest.raises(ValueError, match="epsilon"):
        bitstogram([1, 2, 3], 2, 0.0, 1, rng=rng)
    with pytest.raises(ValueError, match="k"):
        pem(np.arange(100), 8, 1.0, 0, rng=rng)


@pytest.mark.parametrize(
    "search, kwargs, name",
    [
        (pem, dict(k=1, eta=30), "eta"),  # 2^30 first-round prefixes
        (pem, dict(k=2**29, eta=1), "eta"),  # k·2^η extensions
        (treehist, dict(start_bits=30), "start_bits"),
        (bitstogram, dict(k=1, n_buckets=2**24), "n_buckets"),  # a 30 × 2^25 bit reading
    ],
)
def test_a_round_too_large_for_memory_is_refused_before_allocating(search, kwargs, name):
    with pytest.raises(ValueError, match=rf"{name}=.*would allocate.*MAX_BYTES"):
        search(np.arange(100), 30, 1.0, rng=np.random.default_rng(0), **kwargs)
