"""Personalized LDP: the taxonomy is a tree, PCEP's exact per-user loss over a safe region, τ = root is
ε-LDP, PCEP's bias for a fixed public matrix (and none over random matrices), PSDA's counts, bad input."""

import numpy as np
import pytest

from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.protocols import personalized
from ldp_helpers.protocols.personalized import PCEP, Taxonomy, pcep_rows, pldp_loss, psda_counts


def test_taxonomy_must_be_a_tree():
    t = Taxonomy.regular((2, 3))
    assert (
        t.root == 0
        and t.locations.tolist() == list(range(3, 9))
        and t.leaves_under(2).tolist() == [6, 7, 8]
    )
    with pytest.raises(ValueError, match="exactly one node with parent −1"):
        Taxonomy((-1, -1, 0))
    with pytest.raises(ValueError, match="cycle"):
        Taxonomy((-1, 2, 1))
    with pytest.raises(ValueError, match="parent"):
        Taxonomy((-1, 5))
    with pytest.raises(ValueError, match="node"):
        t.leaves_under(9)


@pytest.mark.parametrize("seed", range(5))
def test_taxonomy_leaves_match_walking_up_from_every_leaf(seed):
    """Random trees with shuffled node ids (and one long chain): a node's leaves are the leaves whose path to the root passes it."""
    rng = np.random.default_rng(seed)
    n = 300
    order = rng.permutation(n)  # node order[i]'s parent is an earlier node of the order
    parent = np.empty(n, dtype=np.int64)
    parent[order[0]] = -1
    parent[order[1:]] = (
        order[(rng.random(n - 1) * np.arange(1, n)).astype(int)] if seed else order[:-1]
    )  # seed 0: a chain
    tree = Taxonomy(tuple(parent))
    leaves = [v for v in range(n) if v not in set(parent.tolist())]
    under = {v: [] for v in range(n)}
    for leaf in leaves:
        u = leaf
        while u != -1:
            under[u].append(leaf)
            u = parent[u]
    assert tree.root == order[0] and tree.locations.tolist() == sorted(leaves)
    assert all(tree.leaves_under(v).tolist() == sorted(under[v]) for v in range(n))


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_pcep_is_exactly_tau_epsilon_pldp_and_the_root_is_epsilon_ldp(epsilon):
    """Over a region's leaves PCEP's whole-report table loses exactly ε; at τ = root it is the plain ε-LDP mechanism."""
    t = Taxonomy.regular((2, 3))
    region = PCEP(epsilon, t.leaves_under(1).size, 8, matrix_seed=3)
    assert max_privacy_loss(region.output_table()) == pytest.approx(epsilon, rel=1e-9)
    whole = PCEP(epsilon, t.locations.size, 8, matrix_seed=3)
    assert whole.privacy_loss() == pytest.approx(epsilon, rel=1e-9)
    assert pldp_loss(whole.output_table(), t, t.root) == pytest.approx(
        epsilon, rel=1e-9
    )  # τ = root: ε-LDP


def test_pldp_loss_is_the_loss_over_the_safe_regions_leaves():
    """Against a brute-force loop over pairs of leaves under τ: a random table over 6 locations, every node as τ."""
    t = Taxonomy.regular((2, 3))
    table = np.random.default_rng(8).dirichlet(np.ones(5), size=6)
    for region in range(len(t.parent)):
        rows = np.searchsorted(t.locations, t.leaves_under(region))
        brute = max((np.log(table[a] / table[b]).max() for a in rows for b in rows), default=0.0)
        assert pldp_loss(table, t, region) == pytest.approx(brute, rel=1e-12, abs=1e-15)
    assert pldp_loss(table, t, t.root) == pytest.approx(
        max_privacy_loss(table), rel=1e-12
    )  # the root: plain ε-LDP
    assert pldp_loss(table, t, 1) < pldp_loss(table, t, t.root)  # a smaller region promises less
    with pytest.raises(ValueError, match="region"):
        pldp_loss(table, t, 9)
    with pytest.raises(ValueError, match=r"table .*6 rows"):
        pldp_loss(table[:5], t, 0)


@pytest.mark.parametrize("epsilon", [30.0, 36.0])
def test_pcep_loss_is_exact_at_large_epsilon(epsilon):
    """The flip probability 1/(e^ε+1) is computed directly: 1 − keep would lose every digit (loss 30.0016, then inf)."""
    assert PCEP(epsilon, 4, 3, matrix_seed=7).privacy_loss() == pytest.approx(epsilon, rel=1e-12)


@pytest.mark.parametrize("epsilon", [36.8, 40.0, 1000.0])
def test_pcep_refuses_an_epsilon_whose_keep_probability_rounds_to_1(epsilon):
    """Beyond Q_BIN_MAX_EPSILON (36.74) e^ε/(e^ε+1) is 1.0: the client would never flip (its sign tells the location), while
    the table, keep = 1 against flip = e^−ε, read ε (and ∞ from ε ≈ 745, where the flip underflows)."""
    with pytest.raises(ValueError, match=r"^epsilon must be in \[1e-12, 36\.7368\]"):
        PCEP(epsilon, 4, 3, matrix_seed=7)


def test_a_one_location_region_loses_nothing():
    assert PCEP(1.0, 1, 3).privacy_loss() == 0.0 and not PCEP(1.0, 1, 3).tight


@pytest.mark.statistical
def test_pcep_is_unbiased_over_random_public_matrices():
    """E over Φ of the exact mean Gᵀs is s: the mean over 2000 matrices is within 5 SE of the truth."""
    s = np.array([30, 10, 0, 5, 5])
    means = np.array([PCEP(1.0, 5, 4, matrix_seed=k).expected_estimate(s) for k in range(2000)])
    se = means.std(axis=0, ddof=1) / np.sqrt(means.shape[0])
    assert np.all(np.abs(means.mean(axis=0) - s) < 5 * se)


def test_pcep_rows_follow_beta():
    """m grows as β shrinks and as n grows (the target accuracy γ ∝ 1/√n)."""
    gamma = np.sqrt(2 * np.log(2 * 99 / 0.1) / 1000) / np.tanh(0.5)
    assert pcep_rows(99, 1000, 1.0, 0.1) == int(np.ceil(np.log(100) * np.log(20) / gamma**2))
    assert (
        pcep_rows(99, 1000, 1.0, 0.01)
        > pcep_rows(99, 1000, 1.0, 0.1)
        < pcep_rows(99, 4000, 1.0, 0.1)
    )
    with pytest.raises(ValueError, match="beta"):
        pcep_rows(10, 100, 1.0, 1.0)


def _pcep_moments(pcep: PCEP, truth) -> tuple[np.ndarray, np.ndarray]:
    """The exact mean vector and covariance of T: user u adds z_u to row r_u, E = (keep − flip)Φ[r, l_u]/m, E[z²] = 1/m."""
    mu = (
        (pcep.keep - pcep.flip) * pcep.phi.T.astype(float) / pcep.m
    )  # (L, m): one user's mean per location
    truth = np.asarray(truth, dtype=float)
    return truth @ mu, np.diag(np.full(pcep.m, truth.sum() / pcep.m)) - (mu.T * truth) @ mu


def _assert_law(samples, mean, cov, what: str):
    """Mean (5 SE from the exact variance) and variance (5 SE from the fourth moment) of every coordinate and two
    fixed random projections of the surveys, and the mean vector's Mahalanobis distance R·dᵀΣ⁻¹d against
    its χ²(m) law (level 1e-4): the first two moments of the joint law."""
    from scipy import stats

    d = samples.mean(axis=0) - mean
    distance = samples.shape[0] * d @ np.linalg.solve(cov, d)
    assert distance < stats.chi2.ppf(1 - 1e-4, mean.size), (
        f"{what}: mean vector off by χ² = {distance:.1f}"
    )
    directions = np.vstack(
        [np.eye(mean.size), np.random.default_rng(99).standard_normal((2, mean.size))]
    )
    x = samples @ directions.T
    m, v = directions @ mean, np.einsum("ij,jk,ik->i", directions, cov, directions)
    gap = np.abs(x.mean(axis=0) - m) / np.sqrt(v / x.shape[0])
    assert np.all(gap < 5), f"{what}: mean off by {gap.max():.1f} SE"
    s2, m4 = x.var(axis=0, ddof=1), np.mean((x - x.mean(axis=0)) ** 4, axis=0)
    off = np.abs(s2 - v) / np.sqrt(np.maximum(m4 - s2**2, 1e-300) / x.shape[0])
    assert np.all(off < 5), f"{what}: variance off by {off.max():.1f} SE"


@pytest.mark.statistical
@pytest.mark.parametrize("m, truth", [(2, [100, 5, 0]), (40, [30, 20, 10, 0]), (3, [200, 60])])
def test_pcep_sampler_has_the_per_user_law_and_wrong_samplers_are_caught(m, truth):
    """Dense (n_l > 16m: multinomial) and sparse (uniform rows) locations: the sampler's T and the per-user
    client's T have PCEP's exact mean and covariance; a sampler at the wrong keep probability (ε = 1.2) and
    one with a user moved to the next location fail the same check."""
    pcep = PCEP(
        1.0, len(truth), m, matrix_seed=1
    )  # Φ's columns differ: a moved user changes the law
    assert len({tuple(c) for c in pcep.phi.T}) == len(truth)
    mean, cov = _pcep_moments(pcep, truth)
    rng = np.random.default_rng(21)
    _assert_law(
        pcep.sample_aggregate(np.array(truth), rng=rng, n_draws=20_000), mean, cov, "sampler"
    )
    values = pcep.expand(np.array(truth))
    per_user = np.stack([pcep.aggregate(pcep.perturb(values, rng=rng)) for _ in range(3000)])
    _assert_law(per_user, mean, cov, "per-user client")
    wrong_p = PCEP(1.2, len(truth), m, matrix_seed=1).sample_aggregate(
        np.array(truth), rng=rng, n_draws=20_000
    )
    moved = np.array(truth) + np.eye(len(truth), dtype=int)[1] - np.eye(len(truth), dtype=int)[0]
    for wrong in (wrong_p, pcep.sample_aggregate(moved, rng=rng, n_draws=20_000)):
        with pytest.raises(AssertionError, match="off by"):
            _assert_law(wrong, mean, cov, "wrong sampler")


@pytest.mark.statistical
def test_pcep_sampler_draws_at_most_its_cap_of_users_one_by_one(monkeypatch):
    """Sparse locations beyond _SPARSE_USERS users in all: the largest go to the multinomial path, so the
    sampler allocates no row per user (before: 3000 locations × 1600 users peaked at ~190 MB, and an accepted
    20000 × 16000 asked for 2.4 GiB); with a cap of 25 users the mixed split keeps the exact law."""
    import tracemalloc

    pcep = PCEP(1.0, 3000, 100, matrix_seed=2)
    tracemalloc.start()
    pcep.sample_aggregate(np.full(3000, 1600), rng=np.random.default_rng(0))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 32 * 1024**2, f"peak {peak / 1024**2:.0f} MiB"
    monkeypatch.setattr(personalized, "_SPARSE_USERS", 25)
    truth = [30, 20, 10, 0]  # 30 and 20 go dense, 10 stays sparse
    pcep = PCEP(1.0, len(truth), 40, matrix_seed=1)
    mean, cov = _pcep_moments(pcep, truth)
    samples = pcep.sample_aggregate(np.array(truth), rng=np.random.default_rng(5), n_draws=20_000)
    _assert_law(samples, mean, cov, "capped sampler")


def test_psda_sampler_has_the_per_user_law():
    """PSDA's estimates from PCEP's sampler and from every user's client (two clusters and the root, 60 users):
    equal means and variances (5 SE) and a KS test on each location and the total; the sampler at ε = 1.3
    against the per-user path at ε = 1 fails it."""
    from scipy import stats

    t = Taxonomy.regular((2, 3))
    locations = np.repeat(t.locations, [20, 9, 1, 15, 10, 5])
    regions = np.where(np.arange(locations.size) % 4 == 0, t.root, [t.parent[x] for x in locations])
    rng = np.random.default_rng(5)
    slow = psda_counts(locations, regions, t, 1.0, 0.2, rng=rng, n_draws=3000, per_user=True)

    def same_law(fast):
        for a, b in zip(
            np.column_stack([fast, fast.sum(axis=1)]).T, np.column_stack([slow, slow.sum(axis=1)]).T
        ):
            se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
            assert abs(a.mean() - b.mean()) < 5 * se and stats.ks_2samp(a, b).pvalue > 1e-3 / 7
        return True

    assert same_law(psda_counts(locations, regions, t, 1.0, 0.2, rng=rng, n_draws=8000))
    with pytest.raises(AssertionError):
        same_law(psda_counts(locations, regions, t, 1.3, 0.2, rng=rng, n_draws=8000))


@pytest.mark.statistical
def test_psda_counts_and_personalized_regions_help():
    """PSDA's counts are close to the truth and beat one ε-LDP cluster over the whole universe (mean over 20 runs)."""
    t = Taxonomy.regular((4, 5))
    rng = np.random.default_rng(8)
    leaves = t.locations
    locations = rng.choice(leaves, size=20_000, p=np.r_[np.full(5, 0.1), np.full(15, 0.5 / 15)])
    regions = np.array([t.parent[x] for x in locations])  # each user's parent region
    truth = np.bincount(np.searchsorted(leaves, locations), minlength=leaves.size)
    personal = [
        np.abs(psda_counts(locations, regions, t, 1.0, 0.1, rng=rng) - truth).max()
        for _ in range(20)
    ]
    plain = [
        np.abs(psda_counts(locations, np.zeros_like(regions), t, 1.0, 0.1, rng=rng) - truth).max()
        for _ in range(20)
    ]
    assert np.mean(personal) < np.mean(plain)
    with pytest.raises(ValueError, match="safe region containing the user's location"):
        psda_counts(
            np.array([5]), np.array([2]), t, 1.0, 0.1, rng=rng
        )  # leaf 5 lies under node 1, not 2


def test_bad_input_is_refused():
    t = Taxonomy.regular((2, 2))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="epsilon"):
        PCEP(0.0, 4, 3)
    with pytest.raises(ValueError, match="locations"):
        psda_counts(np.array([1]), np.array([0]), t, 1.0, 0.1, rng=rng)  # node 1 is not a leaf
    with pytest.raises(ValueError, match="regions"):
        psda_counts(np.array([3]), np.array([9]), t, 1.0, 0.1, rng=rng)  # τ not a node
    with pytest.raises(ValueError, match="beta"):
        psda_counts(np.array([3]), np.array([0]), t, 1.0, 0.0, rng=rng)
    with pytest.raises(
        ValueError, match=r"epsilons must be one budget for all users, or one per user \(2\); got 3"
    ):
        psda_counts(np.array([3, 4]), np.array([0, 0]), t, [1.0, 1.0, 2.0], 0.1, rng=rng)
    with pytest.raises(ValueError, match="epsilons"):
        psda_counts(np.array([3, 4]), np.array([0, 0]), t, [1.0, 0.0], 0.1, rng=rng)
    with pytest.raises(ValueError, match=r"reports must be .*row in \[0, 3\)"):
        PCEP(1.0, 4, 3).aggregate(np.array([[-1, 1], [0, 1]]))
    with pytest.raises(ValueError, match=r"self-loop \(parent\[1\] = 1\)"):
        Taxonomy((-1, 1))


@pytest.mark.statistical
def test_psda_error_bound_holds_with_probability_one_minus_beta():
    """Over 200 surveys the max count error exceeds psda_error_bound in at most β of them (+ 3 binomial SE)."""
    from ldp_helpers.protocols.personalized import psda_error_bound

    t = Taxonomy.regular((3, 4))
    rng = np.random.default_rng(12)
    locations = rng.choice(t.locations, size=6000)
    regions = np.array([t.parent[x] for x in locations])
    truth = np.bincount(np.searchsorted(t.locations, locations), minlength=t.locations.size)
    beta = 0.1
    bound = psda_error_bound(locations, regions, t, 1.0, beta)
    over = np.mean(
        [
            np.abs(psda_counts(locations, regions, t, 1.0, beta, rng=rng) - truth).max() > bound
            for _ in range(200)
        ]
    )
    assert over <= beta + 3 * np.sqrt(beta * (1 - beta) / 200)


def test_a_cluster_matrix_too_large_is_refused_naming_the_region():
    """m grows with the cluster's size: 10⁶ users over 2,000 locations would need a 3.4 GiB public matrix."""
    t = Taxonomy.regular((2, 2000))
    locations = np.repeat(t.locations[:2000], 500)
    with pytest.raises(
        ValueError, match=r"regions='1,000,000 users in region 1' would allocate .*public matrix"
    ):
        psda_counts(
            locations, np.full(locations.size, 1), t, 1.0, 0.1, rng=np.random.default_rng(0)
        )


@pytest.mark.parametrize("epsilons", [1e300, 37.0, np.array([1.0, 1.0, 40.0, 1.0])])
def test_psda_refuses_a_budget_whose_client_never_flips_naming_epsilons(epsilons):
    """Beyond Q_BIN_MAX_EPSILON (36.74) e^ε/(e^ε+1) rounds to 1 (a sign that tells the location): refused naming the
    parameter passed, ``epsilons`` (before: PCEP's ``epsilon``), before drawing anything."""
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match=r"^epsilons must be finite values in \[1e-12, 36\.7368\]"):
        psda_counts(
            np.array([3, 4, 5, 6]),
            np.array([1, 1, 0, 2]),
            Taxonomy((-1, 0, 0, 1, 1, 2, 2)),
            epsilons,
            0.1,
            rng=rng,
        )
    assert rng.bit_generator.state == before


@pytest.mark.parametrize("epsilon", [1.0, 20.0, 30.0, 36.0])
def test_pcep_variance_keeps_its_digits_at_large_epsilon(epsilon):
    """n c_ε² − s·G² cancelled where one location holds the users (2.4e-8 off at ε = 20, 10 % at 36); as
    n/sinh²(ε/2) + s·(1 − G²) it is within 1e-14 of 60-digit mpmath of Σ_l' s(l')(c_ε² − G[l', l]²)."""
    import mpmath

    pcep, truth = PCEP(epsilon, 4, 8, matrix_seed=3), np.array([10**9, 0, 7, 0])
    inner = pcep.phi.T.astype(int) @ pcep.phi.astype(int)  # m·G
    with mpmath.workdps(60):
        c = 1 / mpmath.tanh(mpmath.mpf(epsilon) / 2)
        exact = [
            float(
                sum(
                    int(truth[k]) * (c**2 - mpmath.mpf(int(inner[k, l])) ** 2 / 64)
                    for k in range(4)
                )
            )
            for l in range(4)
        ]
    assert pcep.variance(truth) == pytest.approx(exact, rel=1e-14)
