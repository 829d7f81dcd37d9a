"""Mining frequent items from set-valued data: SVIM (Wang, Li, Jha) and its baseline LDPMiner (Qin et al.).

Both are built from :class:`~ldp_helpers.protocols.set_valued.PSFO`, and every survey is drawn
with PSFO's exact aggregate sampler (the law of the per-user clients, tested in the conformance
suite), so a run costs O(n) vectorized work, not n client calls; ``per_user=True`` runs every
user's client instead (the reference the tests compare the samplers with).

**SVIM** ([wang2018svim]) splits the users into disjoint groups, each reporting once (ε-LDP per
user): (1) PSFO with ℓ = 1 over all d items, the 2k best become candidates; (2) each user reports how
many candidates she holds, with GRR or OLH over {0, …, 2k}; the server picks ℓ as the 90th percentile
of the estimated sizes; (3) PSFO with that ℓ over the candidates, estimates corrected for the users
whose sets exceed ℓ (:func:`size_correction`); (4) the top k.  The group shares (50 %, 10 %, 40 %)
and the 90th percentile are the paper's defaults; the correction assumes an item's holders have the
size distribution of all users (the paper's assumption, stated in §5).

**LDPMiner** ([qin2016]) lets every user report twice with ε/2 each (ε by composition):
(1) padding and sampling over all d items, top k become candidates; (2) padding and sampling over
the candidates, whose estimates are the output.  Qin et al. use a succinct-histogram randomizer in
phase 1 and randomized response over the candidates in phase 2; we use PSFO with the better of
GRR/OLH in both (the same variance order), and give it the true 90th-percentile size as ℓ — an
advantage SVIM does not get.

References
----------
[wang2018svim] (SVIM; comparison with LDPMiner); [qin2016] (LDPMiner); [tutorial] "Itemset mining".
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_bool,
    check_epsilon,
    check_instance,
    check_int,
    check_int_array,
    check_probability,
    check_real_array,
    check_rng,
    fail,
)
from ldp_helpers.bounds.wang2017 import prefers_direct_encoding
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.protocols.heavy_hitters import _true_top_k, recall
from ldp_helpers.protocols.set_valued import PSFO, flat_population, grr_preferred

#: SVIM's ℓ is this percentile of the (estimated) set sizes ([wang2018svim]'s default)
SV_PERCENTILE = 0.9
#: SVIM's shares of the users for its three surveys ([wang2018svim]'s defaults)
_SV_SHARES = (0.5, 0.1, 0.4)


@dataclass(frozen=True)
class MiningResult:
    """The k items a miner reports, their estimated counts (all n users), the candidates and ℓ used."""

    items: np.ndarray
    estimates: np.ndarray
    candidates: np.ndarray
    ell: int


def _psfo(epsilon: float, n_items: int, ell: int) -> PSFO:
    """PSFO with the better oracle for this domain (GRR iff |I| < (4ℓ² − ℓ)e^ε + 1, [wang2018svim])."""
    return PSFO(epsilon, n_items, ell, "GRR" if grr_preferred(n_items, epsilon, ell) else "OLH")


def _survey(psfo: PSFO, items: np.ndarray, sizes: np.ndarray, rng, per_user: bool) -> np.ndarray:
    """One PSFO survey of the users (items, sizes), ℓ·ĉ for each real item: PSFO's exact sampler, or
    (``per_user``) every user's client."""
    if per_user:
        reports = psfo.perturb(np.split(items, np.cumsum(sizes)[:-1]), rng=rng)
        return psfo.estimate(psfo.aggregate(reports), sizes.size)
    return psfo.estimate(psfo._sample_flat(items, sizes, rng=rng), sizes.size)


def _size_survey(epsilon: float, held: np.ndarray, domain: int, rng, per_user: bool) -> np.ndarray:
    """The users per number of candidates held (``held``, one per user, in [0, domain)), estimated with GRR or
    OLH (the better for the domain) and clipped at 0: the oracle's sampler, or (``per_user``) its client."""
    oracle = (
        GRR(epsilon, domain) if prefers_direct_encoding(domain, epsilon) else OLH(epsilon, domain)
    )
    aggregate = (
        oracle.aggregate(oracle.perturb(held, rng=rng))
        if per_user
        else oracle.sample_aggregate(np.bincount(held, minlength=domain), rng=rng)
    )
    return np.maximum(oracle.estimate(aggregate, held.size), 0.0)


def _restrict(items, sizes, owner, candidates):
    """Each user's set ∩ candidates, re-indexed to candidate positions: (items, sizes, owner)."""
    position = np.full(int(max(items.max(initial=0), candidates.max(initial=0))) + 1, -1)
    position[candidates] = np.arange(candidates.size)
    at = position[items]
    keep = at >= 0
    return at[keep], np.bincount(owner[keep], minlength=sizes.size), owner[keep]


def _split(n: int, fractions, rng) -> list[np.ndarray]:
    counts = np.floor(np.asarray(fractions) * n).astype(int)
    counts[-1] = n - counts[:-1].sum()
    if np.any(counts < 1):
        fail(
            "sets",
            Described(f"{n} users"),
            f"at least one user per group (shares {list(fractions)})",
        )
    return np.split(rng.permutation(n), np.cumsum(counts)[:-1])


def _take(items, sizes, owner, users):
    """The sub-population ``users`` (indices) as (items, sizes, owner), in user order."""
    chosen = np.zeros(sizes.size, dtype=bool)
    chosen[users] = True
    keep = chosen[owner]
    return items[keep], sizes[chosen], (np.cumsum(chosen) - 1)[owner[keep]]


def size_correction(size_counts, ell: int) -> float:
    """SVIM's correction ``Σ_j L_j / Σ_j L_j·min(1, ℓ/j)`` (j ≥ 1): PSFO counts a holder of a j-item set with weight min(1, ℓ/j).

    ``size_counts[j]`` is the (estimated, non-negative) number of users holding j candidates.

    References
    ----------
    [wang2018svim] (the correction of step 3).
    """
    L = check_real_array("size_counts", size_counts, low=0.0, low_open=False).ravel()
    ell = check_int("ell", ell, low=1)
    j = np.arange(L.size)
    weight = np.minimum(1.0, ell / np.maximum(j, 1))
    num, den = L[1:].sum(), (L[1:] * weight[1:]).sum()
    return float(num / den) if den > 0 else 1.0


def choose_ell(size_counts, percentile: float = SV_PERCENTILE) -> int:
    """The smallest ℓ ≥ 1 whose sizes 1..ℓ hold ``percentile`` of the users with at least one candidate.

    References
    ----------
    [wang2018svim] (ℓ = the 90th percentile of the estimated set sizes).
    """
    L = np.maximum(check_real_array("size_counts", size_counts).ravel(), 0.0)
    percentile = check_probability(percentile, "percentile", open_low=True)
    if L.size < 2 or L[1:].sum() <= 0:
        return 1
    cum = np.cumsum(L[1:]) / L[1:].sum()
    return int(np.searchsorted(cum, percentile - 1e-12) + 1)


def svim(
    sets,
    d: int,
    epsilon: float,
    k: int,
    *,
    rng: np.random.Generator,
    shares=_SV_SHARES,
    percentile: float = SV_PERCENTILE,
    per_user: bool = False,
) -> MiningResult:
    """SVIM's top-k items: candidates (PSFO, ℓ = 1), size estimation, ℓ choice, corrected PSFO estimates.

    ``sets``: the users' sets, or a :class:`~ldp_helpers.protocols.set_valued.FlatSets` of them.  Each
    survey is drawn by the oracles' exact samplers (``per_user=True``: every user runs the client).

    References
    ----------
    [wang2018svim]; [tutorial] "Itemset mining" (the four steps).
    """
    items, sizes, owner = flat_population(sets, d)
    epsilon, k = check_epsilon(epsilon), check_int("k", k, low=1, high=d)
    rng = check_rng(rng)
    shares = check_real_array("shares", shares, low=0.0).ravel()
    if shares.size != 3 or abs(shares.sum() - 1.0) > 1e-9:
        fail("shares", Described(f"{shares.tolist()}"), "three positive shares summing to 1")
    percentile = check_probability(percentile, "percentile", open_low=True)
    per_user = check_bool("per_user", per_user)
    return _svim_flat(items, sizes, owner, d, epsilon, k, rng, per_user, shares, percentile)


def _svim_flat(
    items, sizes, owner, d, epsilon, k, rng, per_user, shares=_SV_SHARES, percentile=SV_PERCENTILE
) -> MiningResult:
    """:func:`svim` on validated flat sets (items, sizes, owner)."""
    n = sizes.size
    g1, g2, g3 = _split(n, shares, rng)
    # (1) candidates: PSFO with ℓ = 1 over all d items
    est1 = _survey(_psfo(epsilon, d, 1), *_take(items, sizes, owner, g1)[:2], rng, per_user)
    candidates = np.sort(np.argsort(-est1, kind="stable")[: min(2 * k, d)])
    # (2) how many candidates each user holds, over {0, ..., |C|}
    restricted = _restrict(items, sizes, owner, candidates)
    size_est = _size_survey(epsilon, _take(*restricted, g2)[1], candidates.size + 1, rng, per_user)
    ell = choose_ell(size_est, percentile)
    # (3) PSFO with ℓ over the candidates, corrected for sets longer than ℓ, scaled to all n users
    r_items, r_sizes, _ = _take(*restricted, g3)
    est3 = _survey(_psfo(epsilon, candidates.size, ell), r_items, r_sizes, rng, per_user)
    est3 = est3 * size_correction(size_est, ell) * n / g3.size
    top = np.argsort(-est3, kind="stable")[:k]
    return MiningResult(candidates[top], est3[top], candidates, ell)


def ldpminer(
    sets,
    d: int,
    epsilon: float,
    k: int,
    *,
    ell: int,
    rng: np.random.Generator,
    per_user: bool = False,
) -> MiningResult:
    """LDPMiner's top-k items: every user reports twice at ε/2 (candidates over d items, then counts over the k candidates).

    ``sets`` and ``per_user`` as in :func:`svim`.

    References
    ----------
    [qin2016] (phase 1; phase 2); [tutorial] "Itemset mining".
    """
    items, sizes, owner = flat_population(sets, d)
    epsilon, k = check_epsilon(epsilon), check_int("k", k, low=1, high=d)
    ell, rng, per_user = (
        check_int("ell", ell, low=1),
        check_rng(rng),
        check_bool("per_user", per_user),
    )
    half = epsilon / 2
    est1 = _survey(_psfo(half, d, ell), items, sizes, rng, per_user)
    candidates = np.sort(np.argsort(-est1, kind="stable")[:k])
    est2 = _survey(
        _psfo(half, candidates.size, ell),
        *_restrict(items, sizes, owner, candidates)[:2],
        rng,
        per_user,
    )
    top = np.argsort(-est2, kind="stable")
    return MiningResult(candidates[top], est2[top], candidates, ell)


def top_k_precision(found, true_counts, k: int) -> float:
    """|found ∩ true top-k| / k (ties in the truth broken by item id).

    References
    ----------
    [wang2018svim] (precision).
    """
    return recall(found, true_counts, k)


def ncr(found, true_counts, k: int) -> float:
    """Normalized cumulative rank: Σ over found true-top-k items of (k − rank + 1), over k(k+1)/2.

    References
    ----------
    [wang2018svim] (NCR: the i-th most frequent item scores k − i + 1).
    """
    top, k = _true_top_k(true_counts, k)
    score = {int(item): k - rank for rank, item in enumerate(top)}
    found = set(np.asarray(found).ravel().tolist())
    return sum(score.get(int(x), 0) for x in found) / (k * (k + 1) / 2)


@dataclass(frozen=True)
class ItemsetResult:
    """The k itemsets SVSM reports (tuples of items, best first), their estimated counts and ℓ used."""

    itemsets: tuple
    estimates: np.ndarray
    ell: int


def candidate_itemsets(item_estimates: dict, k: int, max_size: int = 3) -> list[tuple]:
    """SVSM's candidates: itemsets (size 2..max_size) of the frequent items, the 2k largest guessed counts.

    The guess of an itemset's frequency is the product of its items' estimated frequencies (clipped
    at 0) — the independence guess of [wang2018svim].

    References
    ----------
    [wang2018svim] (SVSM: candidate itemsets from the frequent items).
    """
    k, max_size = check_int("k", k, low=1), check_int("max_size", max_size, low=2, high=6)
    check_instance("item_estimates", item_estimates, dict, "a dict item -> estimated count")
    items = sorted(item_estimates)
    if len(items) < 2 or len(items) > 24:
        fail("item_estimates", Described(f"{len(items)} items"), "2 to 24 frequent items")
    total = max(sum(max(v, 0.0) for v in item_estimates.values()), 1e-300)
    freq = {i: max(float(item_estimates[i]), 0.0) / total for i in items}
    pool = [c for size in range(2, max_size + 1) for c in itertools.combinations(items, size)]
    pool.sort(key=lambda c: -math.prod(freq[i] for i in c))
    return pool[: 2 * k]


def _itemset_memberships(items, sizes, owner, candidates):
    """Per user: the indices of the candidate itemsets her set contains (flat items, sizes, owner), user by user.

    A user's items among the candidates' (at most 24) items are a bit mask; itemset c is held when
    ``mask & mask_c == mask_c``, decided once per distinct mask.
    """
    universe = np.array(sorted({i for c in candidates for i in c}), dtype=np.int64)
    bit = np.zeros(int(max(items.max(initial=0), universe.max())) + 1, dtype=np.int64)
    bit[universe] = 2 ** np.arange(universe.size)
    # distinct items: sums are ORs
    masks = np.bincount(owner, weights=bit[items], minlength=sizes.size).astype(np.int64)
    wanted = np.array([bit[list(c)].sum() for c in candidates], dtype=np.int64)
    distinct, inverse = np.unique(masks, return_inverse=True)
    member = ((distinct[:, None] & wanted) == wanted)[inverse]  # users × candidates
    users, cand = np.nonzero(member)
    return cand.astype(np.int64), member.sum(axis=1).astype(np.int64)


def svsm(
    sets,
    d: int,
    epsilon: float,
    k: int,
    *,
    rng: np.random.Generator,
    max_size: int = 3,
    percentile: float = SV_PERCENTILE,
    per_user: bool = False,
) -> ItemsetResult:
    """SVSM's top-k itemsets: half of the users run SVIM (frequent items), the rest estimate candidate itemsets.

    Of the second half, 20 % report how many candidate itemsets they hold (ℓ = the 90th percentile)
    and 80 % report them with PSFO(ℓ), corrected for users holding more than ℓ (as in SVIM).  ``sets`` and
    ``per_user`` as in :func:`svim`.

    References
    ----------
    [wang2018svim] (SVSM; the SVIM steps it reuses).
    """
    items, sizes, owner = flat_population(sets, d)
    epsilon, k = check_epsilon(epsilon), check_int("k", k, low=1)
    max_size, rng = check_int("max_size", max_size, low=2, high=6), check_rng(rng)
    percentile = check_probability(percentile, "percentile", open_low=True)
    per_user = check_bool("per_user", per_user)
    first, second = _split(sizes.size, (0.5, 0.5), rng)
    found = _svim_flat(
        *_take(items, sizes, owner, np.sort(first)), d, epsilon, min(max(k, 4), d), rng, per_user
    )
    scale = sizes.size / first.size
    candidates = candidate_itemsets(
        {int(i): float(e) * scale for i, e in zip(found.items, found.estimates)}, k, max_size
    )
    g2, g3 = np.array_split(rng.permutation(second), [max(1, second.size // 5)])
    c2_sizes = _itemset_memberships(*_take(items, sizes, owner, np.sort(g2)), candidates)[1]
    size_est = _size_survey(epsilon, c2_sizes, len(candidates) + 1, rng, per_user)
    ell = choose_ell(size_est, percentile)
    c3_items, c3_sizes = _itemset_memberships(*_take(items, sizes, owner, np.sort(g3)), candidates)
    est = _survey(_psfo(epsilon, len(candidates), ell), c3_items, c3_sizes, rng, per_user)
    est = est * size_correction(size_est, ell) * sizes.size / g3.size
    top = np.argsort(-est, kind="stable")[:k]
    return ItemsetResult(tuple(candidates[i] for i in top), est[top], ell)


def itemset_counts(sets, d: int, itemsets) -> np.ndarray:
    """How many users' sets contain each itemset (the ground truth SVSM estimates).

    References
    ----------
    [wang2018svim] (the frequency of an itemset: the users whose set contains it).
    """
    items, sizes, owner = flat_population(sets, d)
    if not isinstance(itemsets, (list, tuple)) or not itemsets:
        fail(
            "itemsets",
            Described(f"{itemsets!r}"[:60]),
            "a non-empty list of itemsets (tuples of items)",
        )
    checked = [
        tuple(int(i) for i in check_int_array(f"itemsets[{j}]", c, low=0, high=d - 1).ravel())
        for j, c in enumerate(itemsets)
    ]
    return np.bincount(
        _itemset_memberships(items, sizes, owner, checked)[0], minlength=len(checked)
    )
