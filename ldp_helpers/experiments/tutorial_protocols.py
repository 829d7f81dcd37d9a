"""Experiment drivers of notebook 05 (the tutorial's named protocols): parameter grid → arrays.

Every run draws its surveys with the protocols' exact batched simulations (never n client calls) and
repeats ``n_draws`` times from the injected Generator; each curve comes with its standard error.
The notebook's setting (generated data; the papers use real datasets) is named once, below.

References
----------
[wang2021pem]; [bassily2017]; [wang2018svim]; [qin2016]; [chen2016pldp].
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_bool,
    check_domain_values,
    check_epsilon,
    check_epsilons,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_probability,
    check_real,
    check_real_array,
    check_rng,
    fail,
    fail_shape,
    fail_type,
)
from ldp_helpers.experiments.common import in_se, mean_and_se, share_se
from ldp_helpers.protocols.heavy_hitters import bitstogram, pem, recall, treehist
from ldp_helpers.protocols.itemset_mining import (
    SV_PERCENTILE,  # noqa: F401 - the notebook gives LDPMiner the true ℓ at this quantile
    itemset_counts,
    ldpminer,
    ncr,
    svim,
    svsm,
    top_k_precision,
)
from ldp_helpers.protocols.personalized import psda_counts, psda_error_bound
from ldp_helpers.protocols.set_valued import FlatSets
from ldp_helpers.protocols.taxonomy import Taxonomy
from ldp_helpers.simulate.itemsets import item_counts
from ldp_helpers.sweeps import progress_bar

#: heavy hitters: values of HH_BITS bits, Zipf(HH_ZIPF) ranks, the top HH_K; PEM extends prefixes by PEM_ETA bits
HH_BITS, HH_ZIPF, HH_K, PEM_ETA = 16, 1.5, 10, 2
#: the budget at which PEM's recall is measured against the number of users n
HH_EPSILON_BY_N = 2.0
#: set-valued data: SV_D items, Zipf(SV_ZIPF), basket sizes 1 + Poisson(SV_MEAN_SIZE − 1); the top SV_K items
SV_D, SV_ZIPF, SV_MEAN_SIZE, SV_K = 128, 1.1, 4.0, 16
#: SVSM looks for the top SVSM_K itemsets of 2 to SVSM_MAX_SIZE items; the truth is ranked among the
#: itemsets of the SVSM_POOL_ITEMS most frequent items
SVSM_K, SVSM_MAX_SIZE, SVSM_POOL_ITEMS = 10, 3, 16
#: personalized LDP: a PL_BRANCHING location tree (4 regions × 5 locations), PL_HOT_SHARE of the users in
#: the first region's locations, each user's budget PL_EPSILON
PL_BRANCHING, PL_HOT_SHARE, PL_EPSILON = (4, 5), 0.5, 1.0


@dataclass(frozen=True)
class Curve:
    """Mean and standard error of a metric over ``n_draws`` runs, per grid point."""

    mean: np.ndarray
    se: np.ndarray

    def margin(self, other: Curve) -> float:
        """Smallest ``(self − other)/SE`` over the grid (independent runs): > 2 means ahead at every point."""
        if not isinstance(other, Curve) or np.shape(other.mean) != np.shape(self.mean):
            fail_type("other", other, f"a Curve over the same grid (shape {np.shape(self.mean)})")
        return float(np.min(in_se(self.mean - other.mean, self.se, other.se)))


def _check_runs(n_draws, rng, progress) -> tuple:
    """``n_draws`` ≥ 2 runs per grid point (a standard error needs two), the Generator and the progress flag."""
    return check_n_draws(n_draws, low=2), check_rng(rng), check_bool("progress", progress)


def _curve(samples) -> Curve:
    """Mean and SE over the runs of each grid point (samples: grid × n_draws)."""
    return Curve(*mean_and_se(samples))


def check_curves(name: str, curves, size: int | None = None) -> dict:
    """A non-empty dict of label → :class:`Curve`, every curve over ``size`` grid points when given."""
    if size is not None:
        size = check_int("size", size, low=1)
    if (
        not isinstance(curves, dict)
        or not curves
        or not all(isinstance(c, Curve) for c in curves.values())
    ):
        fail_type(name, curves, "a non-empty dict of label -> Curve")
    for label, c in curves.items():
        if np.ndim(c.mean) != 1 or (size is not None and np.size(c.mean) != size):
            fail(
                name,
                Described(f"a curve {label!r} over {np.size(c.mean)} points"),
                f"curves over the {size} points of the grid" if size is not None else "1-D curves",
            )
    return curves


def _check_curve(name: str, curve, min_points: int = 1) -> Curve:
    if not isinstance(curve, Curve) or np.ndim(curve.mean) != 1 or np.size(curve.mean) < min_points:
        fail_type(name, curve, f"a Curve over at least {min_points} grid point(s)")
    return curve


def _check_pair(a, b) -> None:
    """Two curves over the same grid."""
    _check_curve("a", a)
    if not isinstance(b, Curve) or np.shape(b.mean) != np.shape(a.mean):
        fail_type("b", b, f"a Curve over the same grid as a (shape {np.shape(a.mean)})")


def rise(curve: Curve) -> float:
    """How far the mean at the grid's last point lies above the mean at its first, in SE of the difference."""
    curve = _check_curve("curve", curve, min_points=2)
    return in_se(curve.mean[-1] - curve.mean[0], curve.se[-1], curve.se[0])


def lead_over_random_picks(
    curve: Curve,
    *,
    k: int = SVSM_K,
    pool_items: int = SVSM_POOL_ITEMS,
    max_size: int = SVSM_MAX_SIZE,
) -> tuple[float, float]:
    """``(lead, chance)``: how far the precision at the grid's first point lies above ``chance``, in its SE;
    chance = k / (itemsets of 2..max_size of the pool_items), the expected precision of k itemsets drawn at
    random from :func:`itemset_mining_precision`'s pool.

    References
    ----------
    [wang2018svim] (SVSM; itemset precision).
    """
    curve = _check_curve("curve", curve)
    k, pool_items = check_int("k", k, low=1), check_int("pool_items", pool_items, low=2, high=24)
    max_size = check_int("max_size", max_size, low=2, high=6)
    chance = k / sum(math.comb(pool_items, size) for size in range(2, max_size + 1))
    return in_se(curve.mean[0] - chance, curve.se[0]), chance


def gap(a: Curve, b: Curve, index: int) -> float:
    """``(a − b)/SE`` at grid point ``index`` (independent runs): > 2 means a is ahead there."""
    _check_pair(a, b)
    index = check_int("index", index, low=-np.size(a.mean), high=np.size(a.mean) - 1)
    return in_se(a.mean[index] - b.mean[index], a.se[index], b.se[index])


def smallest_margin(a: Curve, b: Curve, where=None) -> float:
    """:meth:`Curve.margin` of ``a`` over ``b`` restricted to the grid points where ``where`` holds (all if None)."""
    _check_pair(a, b)
    if where is None:
        return a.margin(b)
    keep = np.asarray(where)
    if keep.dtype != bool or keep.shape != np.shape(a.mean) or not keep.any():
        fail(
            "where",
            Described(f"an array of dtype {keep.dtype} and shape {keep.shape}"),
            f"None or a boolean mask over the grid (shape {np.shape(a.mean)}) selecting at least one point",
        )
    return Curve(a.mean[keep], a.se[keep]).margin(Curve(b.mean[keep], b.se[keep]))


def pooled_margin(a: Curve, b: Curve) -> float:
    """``Σ(a − b)/√Σ(SE_a² + SE_b²)``: ``a`` ahead over the whole grid, in SE of the summed difference."""
    _check_pair(a, b)
    summed = float(np.sum(a.mean - b.mean))
    return in_se(summed, math.sqrt(float(np.sum(a.se**2))), math.sqrt(float(np.sum(b.se**2))))


def ends(curve: Curve, grid) -> dict:
    """The curve's first and last means with their grid points: ``{low, high, x_low, x_high}`` (a claim's words)."""
    curve = _check_curve("curve", curve)
    check_real_array("grid", grid)
    grid = np.asarray(grid).ravel()
    if grid.shape != np.shape(curve.mean):
        fail_shape("grid", grid.shape, f"the curve's grid (shape {np.shape(curve.mean)})")
    return {"low": curve.mean[0], "high": curve.mean[-1], "x_low": grid[0], "x_high": grid[-1]}


def zipf_values(
    n_users: int, bits: int, exponent: float, *, rng: np.random.Generator
) -> np.ndarray:
    """``n_users`` values over [0, 2^bits): Zipf(``exponent``) ranks mapped to random values (a seeded permutation).

    References
    ----------
    [wang2021pem] (Zipf-distributed synthetic data).
    """
    n_users = check_int("n_users", n_users, low=1, high=10**8)
    bits = check_int("bits", bits, low=1, high=20)
    exponent = check_real("exponent", exponent, low=0.0, low_open=False, high=10.0)
    rng = check_rng(rng)
    weights = 1.0 / np.arange(1, 2**bits + 1) ** exponent
    counts = rng.multinomial(n_users, weights / weights.sum())
    return rng.permutation(np.repeat(rng.permutation(2**bits), counts))


def heavy_hitter_recall(
    values,
    bits: int,
    k: int,
    epsilons,
    *,
    n_draws: int,
    rng: np.random.Generator,
    progress: bool = False,
) -> dict:
    """Recall of the true top k for PEM (η = :data:`PEM_ETA`), TreeHist and Bitstogram at each ε: {protocol: Curve}.

    References
    ----------
    [wang2021pem] (recall vs ε); [bassily2017].
    """
    bits = check_int("bits", bits, low=1, high=20)
    values = check_domain_values("values", values, 2**bits).ravel()
    k, epsilons = check_int("k", k, low=1, high=2**bits), check_epsilons(epsilons).ravel()
    n_draws, rng, progress = _check_runs(n_draws, rng, progress)
    return _recall(values, bits, k, epsilons, n_draws, rng, progress)


def _recall(values, bits, k, epsilons, n_draws, rng, progress) -> dict:
    truth = np.bincount(values, minlength=2**bits)
    runs = {
        "PEM": lambda e: pem(values, bits, e, k, eta=PEM_ETA, rng=rng).values,
        "TreeHist": lambda e: treehist(values, bits, e, rng=rng).values[:k],
        "Bitstogram": lambda e: bitstogram(values, bits, e, k, rng=rng).values,
    }
    out = {}
    for name, run in progress_bar(runs.items(), progress, "heavy hitters"):
        out[name] = _curve(
            [[recall(run(float(e)), truth, k) for _ in range(n_draws)] for e in epsilons]
        )
    return out


def recall_by_n(
    n_grid,
    bits: int,
    k: int,
    exponent: float,
    epsilon: float,
    *,
    n_draws: int,
    rng: np.random.Generator,
) -> dict:
    """:func:`heavy_hitter_recall` at one ε against the number of users: {protocol: Curve over ``n_grid``}.

    Each n draws its own :func:`zipf_values` population, then its surveys, from ``rng`` (in that order).

    References
    ----------
    [wang2021pem] (recall vs the number of users).
    """
    n_grid = check_int_array("n_grid", n_grid, low=1, high=10**8).ravel()
    bits = check_int("bits", bits, low=1, high=20)
    k = check_int("k", k, low=1, high=2**bits)
    exponent = check_real("exponent", exponent, low=0.0, low_open=False, high=10.0)
    epsilons = np.array([check_epsilon(epsilon)])
    n_draws, rng = check_n_draws(n_draws, low=2), check_rng(rng)
    found = [
        _recall(
            zipf_values(int(n), bits, exponent, rng=rng), bits, k, epsilons, n_draws, rng, False
        )
        for n in n_grid
    ]
    return {
        name: Curve(
            np.array([f[name].mean[0] for f in found]), np.array([f[name].se[0] for f in found])
        )
        for name in found[0]
    }


def itemset_precision(
    baskets,
    d: int,
    k: int,
    epsilons,
    *,
    ldpminer_ell: int,
    n_draws: int,
    rng: np.random.Generator,
    progress: bool = False,
) -> dict:
    """Top-k precision and NCR of SVIM and LDPMiner at each ε: {(miner, metric): Curve}.

    References
    ----------
    [wang2018svim] (precision and NCR vs ε, SVIM against LDPMiner).
    """
    epsilons = check_epsilons(epsilons).ravel()
    ldpminer_ell, k = check_int("ldpminer_ell", ldpminer_ell, low=1), check_int("k", k, low=1)
    n_draws, rng, progress = _check_runs(n_draws, rng, progress)
    # validated once, surveyed n_draws times per ε
    truth, sets = item_counts(baskets, d), FlatSets(baskets, d)
    miners = {
        "SVIM": lambda e: svim(sets, d, e, k, rng=rng).items,
        "LDPMiner": lambda e: ldpminer(sets, d, e, k, ell=ldpminer_ell, rng=rng).items,
    }
    out = {}
    for name, run in progress_bar(miners.items(), progress, "itemset mining"):
        found = [[run(float(e)) for _ in range(n_draws)] for e in epsilons]
        out[name, "precision"] = _curve(
            [[top_k_precision(f, truth, k) for f in row] for row in found]
        )
        out[name, "NCR"] = _curve([[ncr(f, truth, k) for f in row] for row in found])
    return out


def tree_users(
    taxonomy: Taxonomy, n_users: int, hot_share: float, *, rng: np.random.Generator
) -> tuple:
    """``n_users`` users' locations and their regions (each location's parent): a share ``hot_share`` of the
    users spread evenly over the locations of the first location's region, the rest evenly over the others.

    References
    ----------
    [chen2016pldp] (users on a location taxonomy, each with a safe region).
    """
    check_instance("taxonomy", taxonomy, Taxonomy)
    n_users = check_int("n_users", n_users, low=1, high=10**8)
    hot_share = check_probability(hot_share, "hot_share", open_low=True, open_high=True)
    rng = check_rng(rng)
    leaves, parent = taxonomy.locations, np.asarray(taxonomy.parent)
    hot = parent[leaves] == parent[leaves[0]]
    if hot.all():
        fail(
            "taxonomy",
            Described(f"a taxonomy whose {leaves.size} locations share one region"),
            "a taxonomy with locations in at least two regions",
        )
    share = np.where(hot, hot_share / hot.sum(), (1 - hot_share) / (~hot).sum())
    locations = rng.choice(leaves, size=n_users, p=share)
    return locations, parent[locations]


def psda_error_curves(
    taxonomy: Taxonomy,
    locations,
    regions,
    epsilon: float,
    betas,
    *,
    n_draws: int,
    rng: np.random.Generator,
    progress: bool = False,
) -> dict:
    """PSDA's max count error per β, for the users' safe regions and for τ = root (ε-LDP).

    Returns ``{"personal" | "root": {"max_error": Curve, "quantile": array, "bound": array, "covered": array}}``:
    the mean max error, its empirical (1 − β) quantile, :func:`psda_error_bound` and the share of
    runs within the bound.

    References
    ----------
    [chen2016pldp] (max absolute count error vs β; personalized against uniform privacy).
    """
    check_instance("taxonomy", taxonomy, Taxonomy)
    epsilon = check_epsilon(epsilon)
    betas = check_real_array("betas", betas, low=0.0, high=1.0).ravel()
    locations = check_int_array(
        "locations", locations, low=0, high=len(taxonomy.parent) - 1
    ).ravel()
    regions = check_int_array("regions", regions, low=0, high=len(taxonomy.parent) - 1).ravel()
    n_draws, rng, progress = _check_runs(n_draws, rng, progress)
    truth = np.bincount(
        np.searchsorted(taxonomy.locations, locations), minlength=taxonomy.locations.size
    )
    settings = {"personal": regions, "root": np.full(locations.size, taxonomy.root)}
    out = {}
    for name, reg in progress_bar(settings.items(), progress, "PSDA"):
        errors = np.array(
            [
                np.abs(
                    psda_counts(
                        locations, reg, taxonomy, epsilon, float(b), rng=rng, n_draws=n_draws
                    )
                    - truth
                ).max(axis=1)
                for b in betas
            ]
        )
        bounds = np.array(
            [psda_error_bound(locations, reg, taxonomy, epsilon, float(b)) for b in betas]
        )
        out[name] = {
            "max_error": _curve(errors),
            "bound": bounds,
            "covered": (errors <= bounds[:, None]).mean(axis=1),
            "quantile": np.array([np.quantile(e, 1 - b) for e, b in zip(errors, betas)]),
        }
    return out


def itemset_mining_precision(
    baskets,
    d: int,
    k: int,
    epsilons,
    *,
    n_draws: int,
    rng: np.random.Generator,
    pool_items: int = SVSM_POOL_ITEMS,
    max_size: int = SVSM_MAX_SIZE,
    progress: bool = False,
) -> tuple[Curve, list]:
    """Precision of SVSM's top-k itemsets at each ε, against the true top k among the itemsets (sizes 2..max_size)
    of the ``pool_items`` most frequent items (the true top itemsets lie there for Zipf data).

    Returns the precision curve and the true top-k itemsets.

    References
    ----------
    [wang2018svim] (SVSM; itemset precision).
    """
    epsilons = check_epsilons(epsilons).ravel()
    k, pool_items = check_int("k", k, low=1), check_int("pool_items", pool_items, low=2, high=24)
    max_size = check_int("max_size", max_size, low=2, high=6)
    n_draws, rng, progress = _check_runs(n_draws, rng, progress)
    top_items = np.argsort(-item_counts(baskets, d), kind="stable")[:pool_items].tolist()
    pool = [
        c
        for size in range(2, max_size + 1)
        for c in itertools.combinations(sorted(top_items), size)
    ]
    sets = FlatSets(baskets, d)  # validated once, surveyed n_draws times per ε
    truth = itemset_counts(sets, d, pool)
    true_top = {pool[i] for i in np.argsort(-truth, kind="stable")[:k]}
    rows = [
        [
            len(set(svsm(sets, d, float(e), k, rng=rng, max_size=max_size).itemsets) & true_top) / k
            for _ in range(n_draws)
        ]
        for e in progress_bar(epsilons, progress, "SVSM")
    ]
    return _curve(rows), sorted(true_top, key=lambda c: -truth[pool.index(c)])


def worst_coverage(psda_curves: dict, betas, n_draws: int) -> float:
    """The smallest (share of runs within the bound − (1 − β)) over β and settings of :func:`psda_error_curves`'
    result, in binomial standard errors √(β(1 − β)/n_draws): ≥ −3 means the bound holds w.p. ≥ 1 − β.

    References
    ----------
    [chen2016pldp] (PSDA's error bound holds with probability at least 1 − β).
    """
    b = check_real_array("betas", betas, low=0.0, high=1.0).ravel()
    n_draws = check_n_draws(n_draws)  # a share of runs: one run is one
    if (
        not isinstance(psda_curves, dict)
        or not psda_curves
        or not all(
            isinstance(r, dict) and np.shape(r.get("covered")) == b.shape
            for r in psda_curves.values()
        )
    ):
        fail_type("psda_curves", psda_curves, f"psda_error_curves' result over the {b.size} betas")
    cover_se = share_se(b, n_draws)  # binomial SE of the share of runs within the bound
    return min(float(np.min(in_se(r["covered"] - (1 - b), cover_se))) for r in psda_curves.values())


def curve_table(curves: dict, grid, what: str) -> str:
    """A notebook's printout of curves: ``what = grid:``, then ``label  mean ± SE, …`` per curve (two decimals)."""
    grid = check_real_array("grid", grid).ravel()
    curves = check_curves("curves", curves, grid.size)
    check_instance("what", what, str, "text")
    labels = {
        label: " ".join(map(str, label)) if isinstance(label, tuple) else str(label)
        for label in curves
    }
    width = max(map(len, labels.values()))
    points = ", ".join(
        f"{int(g):,}" if g.is_integer() and abs(g) >= 1000 else f"{g:g}" for g in grid
    )
    lines = [f"{what} = {points}:"]
    for label, c in curves.items():
        lines.append(
            f"  {labels[label]:<{width}}  "
            + ", ".join(f"{m:.2f} ± {s:.2f}" for m, s in zip(c.mean, c.se))
        )
    return "\n".join(lines)
