"""Issue 29's sketches: HCMS, Hashtogram, the private count sketch, sketch response — exact tables and ε, hand-made
reports, the exact samplers' building blocks, exact variances at sizes beyond the registry's examples, bad input."""

import itertools
import math

import numpy as np
import pytest
from scipy.linalg import hadamard
from stat_checks import assert_mean_close, assert_variance_close

from ldp_helpers.mechanisms.count_mean_sketch import CountMeanSketch
from ldp_helpers.mechanisms.count_sketch import PcsReports, PrivateCountSketch
from ldp_helpers.mechanisms.hadamard import _split_over_hadamard_rows
from ldp_helpers.mechanisms.hadamard_sketch import (
    HadamardCountMeanSketch,
    HcmsReports,
    _sylvester,
)
from ldp_helpers.mechanisms.hashtogram import Hashtogram, HashtogramReports
from ldp_helpers.mechanisms.local_hashing import universal_hash
from ldp_helpers.mechanisms.sketch_response import SketchResponse, SketchResponseReports


def hcms(epsilon=2.0, d=6, k=3, m=8, seed=0):
    return HadamardCountMeanSketch.create(epsilon, d, k, m, rng=np.random.default_rng(seed))


# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("m", [1, 2, 4, 8, 64])
def test_sylvester_hadamard_is_orthogonal_and_symmetric(m):
    """HCMS's H: H·H = m·I, H = Hᵀ, entries ±1, H[l, c] = (−1)^popcount(l & c) (scipy's Sylvester construction)."""
    h = _sylvester(m).astype(int)
    np.testing.assert_array_equal(h @ h, m * np.eye(m, dtype=int))
    np.testing.assert_array_equal(h, h.T)
    np.testing.assert_array_equal(h, hadamard(m))
    for l, c in itertools.product(range(m), repeat=2):
        assert h[l, c] == (-1) ** bin(l & c).count("1")


@pytest.mark.parametrize(
    "cls, make",
    [
        (HadamardCountMeanSketch, lambda e: hcms(e, d=5, k=2, m=4)),
        (Hashtogram, lambda e: Hashtogram.create(e, 5, 2, 4, rng=np.random.default_rng(1))),
        (
            PrivateCountSketch,
            lambda e: PrivateCountSketch.create(e, 5, 2, 4, rng=np.random.default_rng(1)),
        ),
        (SketchResponse, lambda e: SketchResponse.create(e, 5, 2, 3, rng=np.random.default_rng(1))),
    ],
)
@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.5, 6.0])
def test_whole_report_tables_lose_exactly_epsilon(cls, make, epsilon):
    """Each table sums to 1 per input and its privacy loss is ε (the example hashes separate some values)."""
    mechanism = make(epsilon)
    table = mechanism.output_table()
    np.testing.assert_allclose(table.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert mechanism.tight
    assert mechanism.privacy_loss() == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize("oracle", ["oue", "olh"])
def test_sketch_response_with_other_oracles_loses_epsilon(oracle):
    """OUE and OLH rows: the (j, inner report) table loses exactly ε."""
    sr = SketchResponse.create(1.3, 5, 2, 3, oracle=oracle, rng=np.random.default_rng(2))
    assert sr.privacy_loss() == pytest.approx(1.3, rel=1e-9)


def test_constant_hashes_leak_nothing():
    """Hashes that send every value to one cell (a = 1 and values hashed to the same cell are impossible to force
    with a universal hash; here k = 1 and d = 2 with m = 2 and a design mapping both values to one cell) lose 0."""
    a, b = _colliding_coefficients(2, 2)
    sketch = HadamardCountMeanSketch(1.0, 2, 1, 2, (a,), (b,))
    assert not sketch.tight and sketch.privacy_loss() == pytest.approx(0.0, abs=1e-12)
    ht = Hashtogram(1.0, 2, 1, 2, (a,), (b,))
    assert not ht.tight and ht.privacy_loss() == pytest.approx(0.0, abs=1e-12)


def _colliding_coefficients(d, m):
    """(a, b) of a universal hash sending 0, …, d−1 to one cell (found by search)."""
    for a in range(1, 10_000):
        cells = {((a * x) % (2**31 - 1)) % m for x in range(d)}
        if len(cells) == 1:
            return a, 0
    raise AssertionError("no colliding design found")


def test_hcms_constants_and_report_size():
    """r = 1/(1+e^ε), c_ε = (e^ε+1)/(e^ε−1); a report is one sign, ⌈log2 k⌉ + log2 m index bits."""
    sketch = hcms(1.3, k=5, m=16)
    assert sketch.flip_probability == pytest.approx(1 / (1 + math.exp(1.3)), rel=1e-14)
    assert sketch.c_epsilon == pytest.approx((math.exp(1.3) + 1) / (math.exp(1.3) - 1), rel=1e-12)
    assert sketch.report_bits == 1 + 3 + 4


def test_hcms_sketch_of_hand_made_reports():
    """Reports (w̃, j, l) add k·c_ε·w̃ at (j, l) before the transform M = M_H·Hᵀ (Algorithm 5)."""
    sketch = hcms(k=2, m=4)
    reports = HcmsReports(
        np.array([1, -1, 1], dtype=np.int8), np.array([1, 1, 0]), np.array([2, 3, 0])
    )
    signed = np.zeros((2, 4))
    signed[1, 2], signed[1, 3], signed[0, 0] = 1, -1, 1
    expected = 2 * sketch.c_epsilon * signed @ hadamard(4).T
    np.testing.assert_allclose(sketch.aggregate(reports), expected, rtol=1e-12)


def test_hcms_mean_is_the_cms_mean():
    """For the same hashes, HCMS's exact E[f̂] equals the count-mean sketch's (only the noise differs)."""
    sketch = hcms(d=7, k=3, m=8)
    cms = CountMeanSketch(
        sketch.epsilon, sketch.d, sketch.k, sketch.m, sketch.hash_a, sketch.hash_b
    )
    truth = np.array([40, 3, 0, 12, 7, 1, 9])
    np.testing.assert_allclose(
        sketch.expected_estimate(truth), cms.expected_estimate(truth), rtol=1e-12
    )


def test_signed_sketches_of_hand_made_reports():
    """Hashtogram sums y·Z[i] per group; the PCS sums its vectors per row; estimates read c_ε·Σ_j g_j·S[j, h_j]."""
    ht = Hashtogram.create(1.0, 5, 2, 4, rng=np.random.default_rng(3))
    public = np.array([[1, -1, 1, 1], [-1, -1, 1, -1]], dtype=np.int8)
    sums = ht.aggregate(
        HashtogramReports(np.array([0, 0]), np.array([1, -1], dtype=np.int8), public)
    )
    np.testing.assert_array_equal(sums, [[2, 0, 0, 2], [0, 0, 0, 0]])
    hashes = ht.hash_table()
    expected = ht.c_epsilon * (sums[0, hashes[0]] + sums[1, hashes[1]])
    np.testing.assert_allclose(ht.estimate(sums, 2), expected, rtol=1e-12)
    pcs = PrivateCountSketch.create(1.0, 5, 2, 4, rng=np.random.default_rng(3))
    vectors = np.array([[1, 1, -1, 1], [1, -1, -1, -1]], dtype=np.int8)
    sums = pcs.aggregate(PcsReports(vectors, np.array([1, 1])))
    np.testing.assert_array_equal(sums, [[0, 0, 0, 0], [2, 0, -2, 0]])
    # g_j(x) = 1 − 2·(((c_j x + e_j) mod P) mod 2), the row's sign hash
    g = 1 - 2 * universal_hash(
        np.array(pcs.sign_a)[:, None], np.array(pcs.sign_b)[:, None], np.arange(5), 2
    )
    h = pcs.hash_table()
    np.testing.assert_allclose(
        pcs.estimate(sums, 2), pcs.c_epsilon * (g[0] * sums[0, h[0]] + g[1] * sums[1, h[1]])
    )


def test_hashtogram_median_estimate():
    """estimate_median = c_ε·R·median_r ŝ_r(h_r(x)); it ignores one repetition's outlier, the mean does not."""
    ht = Hashtogram.create(1.0, 4, 3, 8, rng=np.random.default_rng(5))
    sums = np.zeros((3, 8))
    sums[0] = 1000.0  # one repetition polluted everywhere (possible for n = 1000 users)
    np.testing.assert_allclose(ht.estimate_median(sums, 1000), 0.0)
    np.testing.assert_allclose(ht.estimate(sums, 1000), ht.c_epsilon * 1000.0)


def test_sketch_response_aggregate_and_estimate():
    """Per row: the inner oracle's support counts and n_j; the query is the count-mean query of the rows' ĉ_j."""
    sr = SketchResponse.create(1.0, 6, 2, 3, rng=np.random.default_rng(4))
    reports = SketchResponseReports(np.array([0, 0, 1]), np.array([2, 1, 2]))
    agg = sr.aggregate(reports)
    np.testing.assert_array_equal(agg, [[0, 1, 1, 2], [0, 0, 1, 1]])
    p, q = sr.inner.p, sr.inner.q
    rows = (agg[:, :3] - agg[:, 3:] * q) / (p - q)
    h = sr.hash_table()
    expected = 3 / 2 * (rows[0, h[0]] + rows[1, h[1]] - 3 / 3)
    np.testing.assert_allclose(sr.estimate(agg, 3), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="n must be"):
        sr.estimate(agg, 4)


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: HadamardCountMeanSketch.create(1.0, 5, 2, 6, rng=np.random.default_rng(0)), "m"),
        (
            lambda: HadamardCountMeanSketch.create(40.0, 5, 2, 4, rng=np.random.default_rng(0)),
            "epsilon",
        ),
        (lambda: Hashtogram.create(37.0, 5, 2, 4, rng=np.random.default_rng(0)), "epsilon"),
        (lambda: PrivateCountSketch.create(1.0, 5, 0, 4, rng=np.random.default_rng(0)), "k"),
        (
            lambda: SketchResponse.create(1.0, 5, 2, 3, oracle="she", rng=np.random.default_rng(0)),
            "oracle",
        ),
    ],
)
def test_bad_designs_are_refused(make, name):
    with pytest.raises(ValueError, match=name):
        make()


# ---------------------------------------------------------------- statistical


def _row_split_matches_direct(signed: np.ndarray, runs: int, rng, split=None) -> None:
    """(#+1, #−1) per Hadamard row of the bit-by-bit split of ``signed`` (2 × m users of each sign per hash)
    against the direct m × m multinomials: means within 5 SE, variances within 20 %."""
    m = signed.shape[-1]
    split = split or _split_over_hadamard_rows
    fast = np.concatenate(split(np.broadcast_to(signed, (runs, 1, 2, m)).copy(), rng), axis=-1)[
        :, 0
    ]
    positive = hadamard(m) == 1
    plus, minus = np.zeros((runs, m), dtype=np.int64), np.zeros((runs, m), dtype=np.int64)
    for sign, agrees in ((0, positive), (1, ~positive)):  # +1 reported where sign · H[l, c] = +1
        spread = rng.multinomial(np.broadcast_to(signed[sign], (runs, m)), np.full(m, 1 / m))
        plus += np.where(agrees, spread, 0).sum(axis=1)
        minus += np.where(agrees, 0, spread).sum(axis=1)
    direct = np.concatenate([plus, minus], axis=-1)
    assert np.all(fast.sum(axis=1) == signed.sum())
    se = np.sqrt(fast.var(axis=0, ddof=1) / runs + direct.var(axis=0, ddof=1) / runs)
    assert np.all(np.abs(fast.mean(axis=0) - direct.mean(axis=0)) < 5 * se), "means differ"
    np.testing.assert_allclose(fast.var(axis=0), direct.var(axis=0), rtol=0.2)


@pytest.mark.statistical
def test_hadamard_row_split_has_the_law_of_the_direct_multinomial():
    """The bit-by-bit split over Hadamard rows: per l, (#reports +1, #reports −1) agree with m × m multinomials,
    for users of both signs (HCMS's kept and flipped users); a split that forgets the sign is caught."""
    rng = np.random.default_rng(21)
    signed = np.array([[30, 0, 7, 12, 1, 0, 5, 9], [4, 11, 0, 2, 8, 0, 0, 3]])
    _row_split_matches_direct(signed, 4000, rng)
    with pytest.raises(AssertionError, match="mean|Not equal"):  # a split forgetting the signs
        _row_split_matches_direct(signed, 4000, rng, split=_split_forgetting_signs)


def _split_forgetting_signs(signed, rng):
    """A deliberately wrong split: every user taken as of sign +1."""
    everyone = signed.sum(axis=-2, keepdims=True)
    return _split_over_hadamard_rows(np.concatenate([everyone, 0 * everyone], axis=-2), rng)


@pytest.mark.statistical
@pytest.mark.parametrize(
    "make",
    [
        lambda: hcms(1.0, d=12, k=4, m=16, seed=8),
        lambda: Hashtogram.create(1.0, 12, 3, 8, rng=np.random.default_rng(8)),
        lambda: PrivateCountSketch.create(1.0, 12, 3, 8, rng=np.random.default_rng(8)),
        lambda: SketchResponse.create(1.0, 12, 3, 8, oracle="oue", rng=np.random.default_rng(8)),
        lambda: SketchResponse.create(2.0, 12, 3, 8, oracle="grr", rng=np.random.default_rng(8)),
    ],
    ids=["hcms", "hashtogram", "pcs", "sr-oue", "sr-grr"],
)
def test_sampler_estimates_have_the_exact_mean_and_variance_at_larger_sizes(make):
    """Beyond the registry's examples: the sampler's estimates have expected_estimate's mean and the exact variance."""
    sketch = make()
    truth = np.array([400, 120, 0, 33, 75, 5, 0, 210, 9, 61, 2, 90])
    runs = 4000
    est = sketch.estimate(
        sketch.sample_aggregate(truth, rng=np.random.default_rng(9), n_draws=runs), int(truth.sum())
    )
    mean, var = sketch.expected_estimate(truth), sketch.variance(truth)
    for x in (0, 2, 7):
        assert_mean_close(est[:, x], mean[x], var[x])
        assert_variance_close(est[:, x], var[x])


def _hcms_per_user_estimates(
    sketch, truth, runs, rng, flip_probability=None, path="_signed_per_user"
):
    """Estimates from HCMS's per-user signed sums (the sampler's O(n) path, or ``path``); a wrong flip rate if asked."""
    sampler = sketch
    if (
        flip_probability is not None
    ):  # a deliberately wrong sampler: the clients flip at another rate
        sampler = HadamardCountMeanSketch.create(
            float(np.log(1 / flip_probability - 1)),
            sketch.d,
            sketch.k,
            sketch.m,
            rng=np.random.default_rng(8),
        )
    counts = np.broadcast_to(truth, (runs, truth.size))
    signed = getattr(sampler, path)(counts, sketch.hash_table(), rng)
    return sketch.estimate(sketch._transform(signed), int(truth.sum()))


@pytest.mark.statistical
def test_hcms_per_user_signed_sums_have_the_exact_mean_and_variance():
    """The O(n) per-user path of the HCMS sampler (used when users are few): the estimates have
    expected_estimate's mean and the exact variance; a sampler flipping at the wrong rate fails."""
    sketch, runs = hcms(1.0, d=12, k=4, m=16, seed=8), 4000
    truth = np.array([400, 120, 0, 33, 75, 5, 0, 210, 9, 61, 2, 90])
    mean, var = sketch.expected_estimate(truth), sketch.variance(truth)
    est = _hcms_per_user_estimates(sketch, truth, runs, np.random.default_rng(10))
    for x in (0, 2, 7):
        assert_mean_close(est[:, x], mean[x], var[x])
        assert_variance_close(est[:, x], var[x])
    wrong = _hcms_per_user_estimates(sketch, truth, runs, np.random.default_rng(10), 0.3)
    with pytest.raises(AssertionError):
        for x in (0, 2, 7):
            assert_mean_close(wrong[:, x], mean[x], var[x])


@pytest.mark.statistical
def test_hcms_signed_sums_by_cells_have_the_exact_mean_and_variance():
    """The by-cells path (kept signs drawn per cell, then the split over Hadamard rows): exact mean and
    variance; the same path flipping at the wrong rate fails."""
    sketch, runs = hcms(1.0, d=12, k=4, m=16, seed=8), 4000
    truth = np.array([400, 120, 0, 33, 75, 5, 0, 210, 9, 61, 2, 90])
    mean, var = sketch.expected_estimate(truth), sketch.variance(truth)
    est = _hcms_per_user_estimates(
        sketch, truth, runs, np.random.default_rng(11), path="_signed_by_cells"
    )
    for x in (0, 2, 7):
        assert_mean_close(est[:, x], mean[x], var[x])
        assert_variance_close(est[:, x], var[x])
    wrong = _hcms_per_user_estimates(
        sketch, truth, runs, np.random.default_rng(11), 0.3, path="_signed_by_cells"
    )
    with pytest.raises(AssertionError):
        for x in (0, 2, 7):
            assert_mean_close(wrong[:, x], mean[x], var[x])


@pytest.mark.parametrize(
    ("d", "n", "path"),
    [
        (43, 30_000, "_signed_per_user"),
        (1024, 30_000, "_signed_per_user"),
        (43, 40_000, "_signed_by_cells"),
        (1024, 40_000, "_signed_by_cells"),
    ],
)
def test_hcms_sampler_draws_user_by_user_only_while_that_is_cheaper(monkeypatch, d, n, path):
    """k = 16, m = 256: per user up to 2^15 users (measured cheaper), by cells beyond, also at d = 1024
    where the cells and halvings (49,152) outnumber 40,000 users but the per-user arrays leave the cache."""
    sketch = HadamardCountMeanSketch.create(1.0, d, 16, 256, rng=np.random.default_rng(3))
    other = {"_signed_per_user", "_signed_by_cells"} - {path}
    monkeypatch.setattr(HadamardCountMeanSketch, other.pop(), lambda *a: pytest.fail("wrong path"))
    truth = np.full(d, n // d)
    truth[: n % d] += 1
    assert sketch.sample_aggregate(truth, rng=np.random.default_rng(4)).shape == (16, 256)


@pytest.mark.parametrize("key", ["flh", "hashtogram", "pcs"])
def test_estimates_sum_the_rows_without_wrapping(key):
    """Every cell at its accepted maximum n = 2^62: Σ over the rows is k·n, past int64 — the estimate sums in
    float64 (before: FLH gave −4.2e18, Hashtogram −1.5e19, the count sketch ≤ 0 for an all-n sketch)."""
    from ldp_helpers.mechanisms.registry import REGISTRY

    mech = REGISTRY[key].example()
    truth = REGISTRY[key].example_truth(mech)
    n = 2**62
    shape = np.shape(mech.sample_aggregate(truth, rng=np.random.default_rng(0)))
    estimate = mech.estimate(np.full(shape, n), n)
    rows = shape[0]
    if key == "flh":
        expected = (rows * n - n / mech.hash_range) / (mech._grr.p - 1 / mech.hash_range)
    else:  # c_ε·Σ_j g_j(x)·n
        hashes, signs = mech._table
        expected = mech.c_epsilon * n * signs.sum(axis=0)
    np.testing.assert_allclose(estimate, expected, rtol=1e-12)
