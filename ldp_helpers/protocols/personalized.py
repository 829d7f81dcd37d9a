"""Personalized LDP over a location taxonomy: (τ, ε)-PLDP, PCEP and the PSDA framework (Chen et al.).

Locations are the leaves of a :class:`Taxonomy` (a rooted tree).  User u picks a *safe region* τ_u
(a node) and a budget ε_u; a mechanism is (τ_u, ε_u)-PLDP for her if, for any two leaves l, l'
under τ_u and any output set O, ``Pr[A(l) ∈ O] ≤ e^{ε_u} Pr[A(l') ∈ O]`` ([chen2016pldp], the definition
of PLDP; the tutorial prints the denominator without its Pr, see notebook 00).  τ = the root is ε-LDP;
:func:`pldp_loss` is the exact check for one user.

**PCEP** ([chen2016pldp]; the succinct-histogram randomizer of [bassily2015]): a public random
matrix Φ ∈ {±1}^{m×|τ|}; the user draws a row r uniformly, takes x = Φ[r, l] for her leaf l, keeps its
sign w.p. e^ε/(e^ε+1) and sends (r, z).  The server's count of leaf l is
``ŝ(l) = c_ε Σ_u z_u Φ[r_u, l]``, c_ε = (e^ε+1)/(e^ε−1).  Over the random Φ this is unbiased; for
the fixed public Φ its mean is ``Σ_{l'} s(l') G[l', l]`` with ``G = ΦᵀΦ/m`` (exact, :meth:`PCEP.expected_estimate`).
The number of rows follows the confidence β and the target accuracy γ (a fraction of the n users):
``m = ⌈ln(|τ|+1)·ln(2/β)/γ²⌉``, the shape of Bassily–Smith's parameter that Chen et al. adopt.  The
target accuracy γ is our choice: we match it to the randomization noise, γ = c_ε·√(2 ln(2|τ|/β)/n)
(Hoeffding's (1 − β) bound on the average of n terms in [−c_ε, c_ε], a union bound over |τ| counts),
so that the matrix's bias and the noise are of the same order (:func:`pcep_rows`).  For small ε this
is about 2√2·√(ln(2|τ|/β)/(ε²n)): the order of the accuracy in Bassily–Smith's analysis, with
Hoeffding's explicit constants (a smaller γ, hence a larger m, would only shrink the bias further).

**PSDA** ([chen2016pldp]): users are clustered by safe region, each cluster running PCEP over its
region's leaves at confidence β/|C|; a location's count sums the clusters' estimates.  Two choices
are ours: users with different budgets ε form different clusters (one cluster per (region, ε)), and
clusters are never merged (Chen et al. merge clusters to reduce the error).

References
----------
[chen2016pldp] (PLDP; PCEP; PSDA); [bassily2015]; [tutorial] "Personalized Local Differential Privacy".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ldp_helpers._numeric import union_log
from ldp_helpers._validation import (
    Described,
    check_aggregate,
    check_allocation,
    check_bool,
    check_epsilon,
    check_epsilons,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_probabilities,
    check_probability,
    check_rng,
    check_total,
    fail,
    fail_shape,
)
from ldp_helpers.mechanisms.base import Mechanism, batch_shape
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import (
    Q_BIN_MAX_EPSILON,
    q_bin_gap,
    q_bin_probabilities,
)
from ldp_helpers.mechanisms.registry import RegistryEntry
from ldp_helpers.protocols.taxonomy import Taxonomy

MAX_ROWS = 1_000_000  # rows m of one PCEP matrix (m × |τ| entries must also fit MAX_BYTES)
#: PCEP's sampler draws a location's row counts by numpy's multinomial above this many users per row
DENSE_USERS_PER_ROW = 16
_ROWS_AT_ONCE = 1 << 22  # uniform rows PCEP's sampler draws in one block of surveys
#: users of sparse locations PCEP's sampler draws one by one, at most (the largest locations beyond go dense)
_SPARSE_USERS = 1 << 22


def pcep_rows(n_locations: int, n_users: int, epsilon: float, beta: float) -> int:
    """Rows of PCEP's matrix: ``m = ⌈ln(|τ|+1)·ln(2/β)/γ²⌉`` with γ = c_ε·√(2 ln(2|τ|/β)/n) (at most MAX_ROWS).

    References
    ----------
    [chen2016pldp] (m from |τ|, β and the accuracy); [bassily2015] (the same shape);
    [hoeffding1963] (the noise bound γ we match it to).
    """
    n_locations = check_int("n_locations", n_locations, low=1)
    n_users, epsilon = check_int("n_users", n_users, low=1), check_epsilon(epsilon)
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    gamma = math.sqrt(2 * union_log(2 * n_locations, beta) / n_users) / q_bin_gap(epsilon)
    return min(
        max(math.ceil(math.log(n_locations + 1) * union_log(2, beta) / gamma**2), 1), MAX_ROWS
    )


@dataclass(frozen=True)
class PCEP(Mechanism):
    """PCEP over the |τ| = ``n_locations`` leaves of one safe region: report (row r, kept or flipped sign of Φ[r, l]).

    The truth is the vector of users per location; the estimate ``ŝ`` has the exact mean
    ``Gᵀ s`` (``G = ΦᵀΦ/m``) and the exact variance ``n c_ε² − Σ_{l'} s(l') G[l', l]²``.

    References
    ----------
    [chen2016pldp] (PCEP); [bassily2015] (the randomizer).
    """

    epsilon: float
    n_locations: int
    m: int
    matrix_seed: int = 0  # the public matrix Φ is a function of this seed
    phi: np.ndarray = field(init=False, repr=False, compare=False)
    unbiased = False  # unbiased over the random Φ, not for the fixed public one

    def __post_init__(self):
        # beyond Q_Bin's ceiling the client would never flip: its sign would tell the location
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, high=Q_BIN_MAX_EPSILON))
        object.__setattr__(self, "n_locations", check_int("n_locations", self.n_locations, low=1))
        object.__setattr__(self, "m", check_int("m", self.m, low=1, high=MAX_ROWS))
        larger = ("m", self.m) if self.m >= self.n_locations else ("n_locations", self.n_locations)
        check_allocation(
            *larger, self.m * self.n_locations, what="the m × |τ| public matrix (and its uniforms)"
        )
        seed = check_int("matrix_seed", self.matrix_seed, low=0)
        phi = np.where(
            np.random.default_rng(seed).random((self.m, self.n_locations)) < 0.5, -1, 1
        ).astype(np.int8)
        object.__setattr__(self, "phi", phi)

    @property
    def keep(self) -> float:
        """Pr[the sign is kept] = e^ε/(e^ε+1) (Q_Bin's, from its one derivation)."""
        return q_bin_probabilities(self.epsilon)[0]

    @property
    def flip(self) -> float:
        """Pr[the sign is flipped] = 1/(e^ε+1) (Q_Bin's; not 1 − keep, which loses every digit at large ε)."""
        return q_bin_probabilities(self.epsilon)[1]

    @property
    def c_epsilon(self) -> float:
        """c_ε = (e^ε+1)/(e^ε−1) (computed as 1/tanh(ε/2))."""
        return 1.0 / q_bin_gap(self.epsilon)

    @property
    def tight(self) -> bool:
        """The loss is ε when two locations differ in some row of Φ (else no report tells them apart)."""
        return self.n_locations >= 2 and bool(np.any(self.phi != self.phi[:, :1]))

    def gram(self) -> np.ndarray:
        """``G = ΦᵀΦ/m`` (|τ| × |τ|): the mean of ŝ is ``Gᵀ s``."""
        return self._inner / self.m

    @cached_property
    def _inner(self) -> np.ndarray:
        """ΦᵀΦ = m·G: integers (|entries| ≤ m ≤ 10⁶), exact in float64, and their squares too."""
        return self.phi.T.astype(float) @ self.phi.astype(float)

    def _counts(self, truth) -> tuple[np.ndarray, int]:
        counts = check_int_array("truth", truth, low=0, shape=(self.n_locations,))
        n = check_total("truth", counts)  # each count valid, their int64 sum must not wrap
        if n < 1:
            fail("truth", Described("no users"), "at least one user")
        return counts, n

    def expand(self, truth) -> np.ndarray:  # noqa: D102 (the contract's methods, see Mechanism)
        return np.repeat(np.arange(self.n_locations), self._counts(truth)[0])

    def estimand(self, truth) -> np.ndarray:  # noqa: D102
        return self._counts(truth)[0].astype(float)

    def n_reports(self, truth) -> int:  # noqa: D102
        return self._counts(truth)[1]

    def expected_estimate(self, truth) -> np.ndarray:  # noqa: D102
        return self.gram().T @ self._counts(truth)[0]

    def variance(self, truth) -> np.ndarray:
        """``Var ŝ(l) = Σ_l' s(l')(c_ε² − G[l', l]²) = n/sinh²(ε/2) + Σ_l' s(l')(1 − G[l', l]²)`` (c_ε² − 1 =
        1/sinh²(ε/2)): non-negative terms, 1 − G² from the integers m·G; as n c_ε² − s·G² it lost 2.4e-8 at
        ε = 20 and 10 % at ε = 36 where one location holds the users."""
        counts, n = self._counts(truth)
        spread = (self.m**2 - self._inner**2) / self.m**2  # 1 − G², from the integers m·G
        return n / math.sinh(self.epsilon / 2) ** 2 + counts @ spread

    def output_table(self) -> np.ndarray:
        """``P[l, (r, s)]``: columns (r, +1) then (r, −1) for each row r; whole reports (|τ| × 2m ≤ 10⁶ cells)."""
        check_allocation("m", self.m, 2 * self.m * self.n_locations)
        positive = self.phi.T > 0
        plus = np.where(positive, self.keep, self.flip) / self.m
        minus = np.where(positive, self.flip, self.keep) / self.m
        return np.stack([plus, minus], axis=-1).reshape(self.n_locations, 2 * self.m)

    def privacy_loss(self) -> float:
        """The exact whole-report ε from :meth:`output_table`; 0 for a one-location region (nothing to tell apart)."""
        return 0.0 if self.n_locations == 1 else super().privacy_loss()

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user client: row r uniform, x = Φ[r, l], keep the sign w.p. e^ε/(e^ε+1); reports (r, z), shape (n, 2).

        References
        ----------
        [chen2016pldp], the PCEP client; [bassily2015].
        """
        values = check_int_array("values", values, low=0, high=self.n_locations - 1).ravel()
        rng = check_rng(rng)
        r = rng.integers(0, self.m, size=values.size)
        x = self.phi[r, values].astype(np.int64)
        z = np.where(rng.random(values.size) < self.keep, x, -x)
        return np.column_stack([r, z])

    def aggregate(self, reports) -> np.ndarray:
        """``T_r = Σ_{u: r_u = r} z_u`` for every row (the sufficient statistic)."""
        reports = check_int_array("reports", reports)
        if (
            reports.ndim != 2
            or reports.shape[1] != 2
            or np.any(reports[:, 0] < 0)
            or np.any(reports[:, 0] >= self.m)
            or np.any(np.abs(reports[:, 1]) != 1)
        ):
            fail_shape(
                "reports",
                reports.shape,
                f"(row in [0, {self.m}), sign ±1) per user",
            )
        return np.bincount(reports[:, 0], weights=reports[:, 1], minlength=self.m).astype(np.int64)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of T: ``T = Σ_l Φ[:, l] ⊙ (A_l − B_l)``, cost O(Σ_l min(n_l, m)) per survey.

        Of the n_l users at location l, ``K_l ~ Bin(n_l, e^ε/(e^ε+1))`` keep their sign; each user's row
        is uniform and independent of that, so the kept users' row counts A_l and the flipped users' B_l
        are Multinomial(K_l, 1/m) and Multinomial(n_l − K_l, 1/m).  They are drawn by numpy's multinomial
        when n_l > DENSE_USERS_PER_ROW·m (and for the largest locations beyond :data:`_SPARSE_USERS` users
        in the others), else as the bincount of n_l uniform rows (numpy's multinomial costs a binomial
        per row).
        """
        counts, _ = self._counts(truth)
        rng = check_rng(rng)
        shape = batch_shape(n_draws, (self.m,))
        draws = 1 if n_draws is None else n_draws
        kept = rng.binomial(counts, self.keep, size=(draws, self.n_locations))
        T = np.zeros((draws, self.m), dtype=np.int64)
        dense = counts > DENSE_USERS_PER_ROW * self.m
        sparse_sizes = np.sort(counts[~dense])
        too_many = np.searchsorted(np.cumsum(sparse_sizes), _SPARSE_USERS, side="right")
        if too_many < sparse_sizes.size:  # one row per user of so many: the largest go dense
            dense |= counts >= sparse_sizes[too_many]
        uniform = np.full(self.m, 1.0 / self.m)
        for l in np.flatnonzero(dense):
            A = rng.multinomial(kept[:, l], uniform)
            B = rng.multinomial(counts[l] - kept[:, l], uniform)
            T += self.phi[:, l] * (A - B)
        sparse = np.flatnonzero(~dense)
        location = np.repeat(sparse, counts[sparse])  # one entry per user of a sparse location
        rank = np.arange(location.size) - np.repeat(
            np.cumsum(counts[sparse]) - counts[sparse], counts[sparse]
        )
        step = max(1, _ROWS_AT_ONCE // max(location.size, 1))
        for start in range(0, draws, step):
            block = min(step, draws - start)
            rows = rng.integers(0, self.m, size=(block, location.size))
            x = self.phi[rows, location]
            # the first K_l users keep
            z = np.where(rank < kept[start : start + block, location], x, -x)
            flat = (rows + self.m * np.arange(block)[:, None]).ravel()
            T[start : start + block] += (
                np.bincount(flat, weights=z.ravel(), minlength=block * self.m)
                .reshape(block, self.m)
                .astype(np.int64)
            )
        return T.reshape(shape)

    def estimate(self, aggregate, n) -> np.ndarray:
        """``ŝ(l) = c_ε Σ_r T_r Φ[r, l]`` for every location of the region."""
        n = check_int("n", n, low=1)
        T = check_aggregate(
            aggregate, (self.m,), low=-n, high=n, what=f"a row sums at most n = {n} signs ±1"
        )
        return self.c_epsilon * (T @ self.phi.astype(float))


def _cluster_pcep(
    region: int, n_locations: int, n_users: int, epsilon: float, beta: float, seed: int
) -> PCEP:
    """One cluster's PCEP; a public matrix too large to hold is refused naming the cluster's region."""
    m = pcep_rows(n_locations, n_users, epsilon, beta)
    check_allocation(
        "regions",
        f"{n_users:,} users in region {region}",
        m * n_locations,
        what=f"the cluster's m × |τ| = {m:,} × {n_locations:,} public matrix, m from n_C, ε and β/|C|",
    )
    return PCEP(epsilon, n_locations, m, seed)


def pldp_loss(table, taxonomy: Taxonomy, region) -> float:
    """The exact ε for which a mechanism is (τ, ε)-PLDP, τ = ``region``: its loss over the leaves under τ only.

    ``table[i, y]`` is Pr[output y | location ``taxonomy.locations[i]``] (a row per leaf, in that
    order).  At τ = the root this is the mechanism's ε-LDP loss; a one-leaf region loses 0.

    References
    ----------
    [chen2016pldp] (the definition of (τ, ε)-PLDP); [tutorial] "Personalized Local Differential Privacy".
    """
    check_instance("taxonomy", taxonomy, Taxonomy)
    table = check_probabilities("table", table)
    locations = taxonomy.locations
    if table.ndim != 2 or table.shape[0] != locations.size:
        fail_shape("table", table.shape, f"one row per location ({locations.size} rows)")
    rows = np.searchsorted(locations, taxonomy.leaves_under(taxonomy.check_node("region", region)))
    return 0.0 if rows.size == 1 else max_privacy_loss(table[rows])


def _users(taxonomy, locations, regions) -> tuple[int, np.ndarray, np.ndarray]:
    """PSDA's taxonomy (its node count) and the users' locations and safe regions, as flat node arrays."""
    n_nodes = len(check_instance("taxonomy", taxonomy, Taxonomy).parent)
    locations = check_int_array("locations", locations, low=0, high=n_nodes - 1).ravel()
    return n_nodes, locations, check_int_array("regions", regions, low=0, high=n_nodes - 1).ravel()


def _cluster(taxonomy: Taxonomy, region: int, located: np.ndarray):
    """A cluster's leaves τ, its users' positions in τ and the users per leaf; a user outside is refused."""
    tau = taxonomy.leaves_under(region)
    index = np.searchsorted(tau, located)
    if np.any(index >= tau.size) or np.any(tau[np.minimum(index, tau.size - 1)] != located):
        fail(
            "regions",
            Described(f"node {region} for a user outside it"),
            "a safe region containing the user's location",
        )
    return tau, index, np.bincount(index, minlength=tau.size)


def psda_counts(
    locations,
    regions,
    taxonomy: Taxonomy,
    epsilons,
    beta: float,
    *,
    rng: np.random.Generator,
    matrix_seed: int = 0,
    n_draws: int | None = None,
    per_user: bool = False,
) -> np.ndarray:
    """PSDA: one PCEP per cluster of users with the same (safe region, ε), at confidence β/|C|; counts summed.

    ``locations`` are the users' leaves, ``regions`` their safe-region nodes (each must contain the
    user's leaf), ``epsilons`` their budgets (one per user, or one for all; each in [1e-12,
    :data:`~ldp_helpers.mechanisms.randomized_response.Q_BIN_MAX_EPSILON`]: beyond it PCEP's e^ε/(e^ε+1) rounds to 1).  Each cluster's survey is
    drawn by PCEP's exact sampler from the cluster's users per location (``per_user=True``: the
    cluster's users run PCEP's client instead).  Returns the estimated users per location (all
    leaves); with ``n_draws``, that many independent surveys of the same users (a leading axis).

    References
    ----------
    [chen2016pldp] (PSDA; PCEP).
    """
    n_nodes, locations, regions = _users(taxonomy, locations, regions)
    # beyond Q_Bin's ceiling PCEP's client would never flip: its sign would tell the location
    eps = check_epsilons(epsilons, high=Q_BIN_MAX_EPSILON).ravel()
    eps = np.broadcast_to(eps, locations.shape) if eps.size == 1 else eps
    if regions.shape != locations.shape:
        fail("regions", Described(f"{regions.size} regions"), f"one per user ({locations.size})")
    if eps.shape != locations.shape:
        fail(
            "epsilons",
            Described(f"{eps.size} budgets"),
            f"one budget for all users, or one per user ({locations.size})",
        )
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    rng, seed = check_rng(rng), check_int("matrix_seed", matrix_seed, low=0)
    draws = 1 if n_draws is None else check_n_draws(n_draws)
    per_user = check_bool("per_user", per_user)
    leaves = set(taxonomy.locations.tolist())
    if not set(np.unique(locations).tolist()) <= leaves:
        fail(
            "locations",
            Described("a node that is not a leaf"),
            "leaves of the taxonomy (its locations)",
        )
    clusters = sorted(set(zip(regions.tolist(), eps.tolist())))
    out = np.zeros((draws, n_nodes))
    for i, (region, e) in enumerate(clusters):
        tau, index, counts = _cluster(taxonomy, region, locations[(regions == region) & (eps == e)])
        pcep = _cluster_pcep(region, tau.size, int(counts.sum()), e, beta / len(clusters), seed + i)
        if per_user:
            T = np.stack([pcep.aggregate(pcep.perturb(index, rng=rng)) for _ in range(draws)])
        else:
            T = pcep.sample_aggregate(counts, rng=rng, n_draws=draws)
        out[:, tau] += pcep.estimate(T, int(counts.sum()))
    return out[0, taxonomy.locations] if n_draws is None else out[:, taxonomy.locations]


def psda_error_bound(
    locations, regions, taxonomy: Taxonomy, epsilon: float, beta: float, *, matrix_seed: int = 0
) -> float:
    """A bound on PSDA's max count error that holds with probability ≥ 1 − β (one ε for all users).

    Cluster C's estimate of leaf l errs by its public-matrix bias ``Σ_{l'≠l} s_C(l') G_C[l', l]``
    (exact) plus noise, a sum of n_C independent terms in [−c_ε, c_ε] around their mean, at most
    ``c_ε √(2 n_C ln(2|τ_C||C|/β))`` for all its leaves with probability ≥ 1 − β/|C| (Hoeffding, union
    bound).  The bound is ``max_l Σ_{C ∋ l} (noise_C + |bias_C(l)|)``; it uses the same matrices as
    :func:`psda_counts` with the same ``matrix_seed`` when every user has this one ε (the clusters are
    then numbered alike).

    References
    ----------
    [chen2016pldp] (the (1 − β) accuracy of PCEP and PSDA); [hoeffding1963].
    """
    n_nodes, locations, regions = _users(taxonomy, locations, regions)
    if regions.shape != locations.shape:
        fail("regions", Described(f"{regions.size} regions"), f"one per user ({locations.size})")
    epsilon = check_epsilon(epsilon)
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    seed = check_int("matrix_seed", matrix_seed, low=0)
    clusters = sorted(set(regions.tolist()))
    bound = np.zeros(n_nodes)
    for i, region in enumerate(clusters):
        tau, _, counts = _cluster(taxonomy, region, locations[regions == region])
        n_c = int(counts.sum())
        pcep = _cluster_pcep(region, tau.size, n_c, epsilon, beta / len(clusters), seed + i)
        bias = np.abs(pcep.expected_estimate(counts) - counts)
        noise = pcep.c_epsilon * math.sqrt(2 * n_c * union_log(2 * tau.size * len(clusters), beta))
        bound[tau] += noise + bias
    return float(bound[taxonomy.locations].max())


def _pcep_example() -> PCEP:
    return PCEP(1.0, 4, 3, matrix_seed=7)


#: registered mechanisms of this module (collected by ldp_helpers.protocols.registry)
ENTRIES = [
    RegistryEntry(
        "pcep",
        "PCEP (personalized count estimation, one safe region)",
        "personalized",
        "[chen2016pldp]; [bassily2015]",
        _pcep_example,
        lambda m: np.array([12, 5, 0, 3], dtype=np.int64),
    )
]
