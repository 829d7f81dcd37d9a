"""Parity with multi-freq-ldpy 0.2.5 on the same reports: longitudinal oracles, ADP, dBitFlipPM, SPL, SMP, RS+FD.

The peer lives in ``build/bench-peers`` (installed by ``make peers``, never in ``.venv``); it is imported in this
process from that folder, after ``.venv``'s packages.  Its clients draw from NumPy's global generator and
numba's, both seeded from our Generator (:func:`ldp_tools.peers._reseed_numba`).

For each mechanism: (1) the peer's aggregator and ours give **identical** estimates on the same reports, in
both directions (the peer's estimators are the unbiased ones, clipped at 0 and renormalized to frequencies:
our ``clip_and_renormalize``); (2) the peer's client reports, run through our estimator, are centred on the
truth with our exact variance: the standardized errors z = (ĉ − c)/σ of several surveys have mean 0 and
Σz² within the 10⁻⁴ and 1 − 10⁻⁴ quantiles of χ².  Where the peer differs from the paper it is stated
(L-GRR's second round).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ldp_helpers.estimation.postprocessing import clip_and_renormalize
from ldp_helpers.mechanisms.adaptive import ADP
from ldp_helpers.mechanisms.dbitflip import DBitFlip, DBitFlipReports
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.longitudinal import LGRR, LOSUE, LOUE, LSOUE, LSUE
from ldp_helpers.mechanisms.multidimensional import SPL
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.rs_fd import RSFD
from ldp_helpers.mechanisms.smp import SMP, SampledReports
from ldp_tools.peers import _cache_jitted, _reseed_numba, multi_freq_ldpy_lgrr_rounds

PEERS_DIR = Path(__file__).resolve().parents[2] / "build" / "bench-peers"
N_USERS, N_SURVEYS = 1500, 12


@pytest.fixture(scope="module")
def peer():
    """multi-freq-ldpy 0.2.5's modules, imported from build/bench-peers (fails, never skips, when it is missing)."""
    assert PEERS_DIR.is_dir(), (
        f"the peers are not installed in {PEERS_DIR}: run `make peers` (make test does)"
    )
    added = str(PEERS_DIR) not in sys.path
    if added:
        sys.path.append(str(PEERS_DIR))
    assert importlib.metadata.version("multi-freq-ldpy") == "0.2.5"
    names = [
        "long_freq_est.L_GRR",
        "long_freq_est.L_OUE",
        "long_freq_est.L_OSUE",
        "long_freq_est.L_SOUE",
        "long_freq_est.L_SUE",
        "long_freq_est.dBitFlipPM",
        "pure_frequency_oracles.ADP",
        "mdim_freq_est.SPL_solution",
        "mdim_freq_est.SMP_solution",
        "mdim_freq_est.RSpFD_solution",
        "estimators.Histogram_estimator",
    ]
    modules = {
        name.split(".")[1]: importlib.import_module(f"multi_freq_ldpy.{name}") for name in names
    }
    _cache_jitted(*modules.values())  # compiled once per machine (build/numba-cache), not per run
    yield modules
    if added:
        sys.path.remove(str(PEERS_DIR))


def _ours(mech, aggregate, n, blocks=None):
    """Our estimate as the peer reports it: per attribute, frequencies clipped at 0 and renormalized."""
    est = mech.estimate(aggregate, n)
    blocks = blocks or [slice(0, est.size)]
    return [clip_and_renormalize(est[b] / n, 1.0) for b in blocks]


def _standardized_errors_are_standard(z: np.ndarray):
    """z = (ĉ − c)/σ over surveys and coordinates: mean 0 (5 SE) and Σz² inside χ²'s central 1 − 2·10⁻⁴."""
    z = z.ravel()
    assert abs(z.mean()) < 5 / math.sqrt(z.size), f"mean z = {z.mean():.3f} over {z.size}"
    chi2 = float(np.sum(z**2))
    assert stats.chi2.ppf(1e-4, z.size) < chi2 < stats.chi2.ppf(1 - 1e-4, z.size), (
        f"Σz² = {chi2:.1f} for {z.size} terms"
    )


def _values(d, rng, n=N_USERS):
    return rng.choice(d, size=n, p=np.arange(1, d + 1) / (d * (d + 1) / 2))


# ------------------------------------------------------------------------------------------- longitudinal

UE_PEERS = {LOUE: "L_OUE", LOSUE: "L_OSUE", LSOUE: "L_SOUE", LSUE: "L_SUE"}


def _peer_rounds(module, name, monkeypatch, *args):
    """The (p₁, q₁, p₂, q₂) the peer's aggregator derives (caught on their way into its MI_long)."""
    seen = {}
    real = module.MI_long

    def spy(count, n, p1, q1, p2, q2):
        seen["rounds"] = (p1, q1, p2, q2)
        return real(count, n, p1, q1, p2, q2)

    monkeypatch.setattr(module, "MI_long", spy)
    getattr(module, f"{name}_Aggregator_MI")(*args)
    monkeypatch.setattr(module, "MI_long", real)
    return np.array(seen["rounds"], dtype=float)


@pytest.mark.parametrize("cls", list(UE_PEERS), ids=lambda c: c.__name__)
def test_longitudinal_ue_parity(peer, cls, monkeypatch):
    """Same rounds (peer's closed forms, our root), identical estimates both ways, peer reports centred with our variance."""
    name, d, eps_inf, eps1 = UE_PEERS[cls], 5, 3.0, 1.0
    module, ours, rng = peer[name], cls(eps1, d, eps_inf), np.random.default_rng(29)
    reports = np.eye(d)[:2]
    np.testing.assert_allclose(
        _peer_rounds(module, name, monkeypatch, reports, eps_inf, eps1), ours.rounds, rtol=1e-10
    )
    client = getattr(module, f"{name}_Client")
    z = []
    for _ in range(N_SURVEYS):
        values = _values(d, rng)
        _reseed_numba(rng)
        theirs = np.array([client(int(v), d, eps_inf, eps1) for v in values])
        truth = np.bincount(values, minlength=d)
        agg = ours.aggregate(theirs.astype(np.int8))
        np.testing.assert_allclose(
            getattr(module, f"{name}_Aggregator_MI")(theirs, eps_inf, eps1),
            _ours(ours, agg, N_USERS)[0],
            rtol=1e-9,
            atol=1e-12,
        )
        z.append((ours.estimate(agg, N_USERS) - truth) / np.sqrt(ours.variance(truth)))
    _standardized_errors_are_standard(np.array(z))
    mine = ours.perturb(values, rng=rng)
    np.testing.assert_allclose(
        getattr(module, f"{name}_Aggregator_MI")(mine.astype(float), eps_inf, eps1),
        _ours(ours, ours.aggregate(mine), N_USERS)[0],
        rtol=1e-9,
        atol=1e-12,
    )


def test_l_grr_parity_and_the_peers_second_round(peer, monkeypatch):
    """multi-freq-ldpy's L-GRR second round makes one report cost less than the ε₁ it is given (k > 2).

    Its p₂ is not the root of ε(one report) = ε₁: at k = 5, ε∞ = 3, ε₁ = 1 its chain is GRR at ≈ 0.925
    (exact loss of the whole-report table), equal to ε₁ only at k = 2.  Our L-GRR at that true ε₁ has the
    peer's rounds exactly, and then the estimates are identical on the same reports.
    """
    module, d, eps_inf, eps1, rng = peer["L_GRR"], 5, 3.0, 1.0, np.random.default_rng(7)
    rounds = _peer_rounds(module, "L_GRR", monkeypatch, [0, 1, 2], d, eps_inf, eps1)
    p1, q1, p2, q2 = rounds
    np.testing.assert_allclose(
        rounds, multi_freq_ldpy_lgrr_rounds(d, eps_inf, eps1), rtol=1e-12
    )  # notebook 07's copy
    chain = np.full(
        (d, d), q2 + (p2 - q2) * q1
    )  # one report of the peer's L-GRR: GRR with these p*, q*
    np.fill_diagonal(chain, q2 + (p2 - q2) * p1)
    true_eps1 = max_privacy_loss(chain)
    assert true_eps1 < eps1 - 0.01
    two = _peer_rounds(module, "L_GRR", monkeypatch, [0, 1], 2, eps_inf, eps1)
    np.testing.assert_allclose(two, LGRR(eps1, 2, eps_inf).rounds, rtol=1e-10)
    ours = LGRR(true_eps1, d, eps_inf)
    np.testing.assert_allclose(rounds, ours.rounds, rtol=1e-9)
    z = []
    for _ in range(N_SURVEYS):
        values = _values(d, rng)
        _reseed_numba(rng)
        theirs = np.array([module.L_GRR_Client(int(v), d, eps_inf, eps1) for v in values])
        truth, agg = np.bincount(values, minlength=d), ours.aggregate(theirs)
        np.testing.assert_allclose(
            module.L_GRR_Aggregator_MI(theirs, d, eps_inf, eps1),
            _ours(ours, agg, N_USERS)[0],
            rtol=1e-9,
            atol=1e-12,
        )
        z.append((ours.estimate(agg, N_USERS) - truth) / np.sqrt(ours.variance(truth)))
    _standardized_errors_are_standard(np.array(z))
    mine = ours.perturb(values, rng=rng)
    np.testing.assert_allclose(
        module.L_GRR_Aggregator_MI(mine, d, eps_inf, eps1),
        _ours(ours, ours.aggregate(mine), N_USERS)[0],
        rtol=1e-9,
        atol=1e-12,
    )


# ------------------------------------------------------------------------------------------- ADP, dBitFlipPM


@pytest.mark.parametrize("epsilon, d", [(1.0, 5), (0.5, 12)])
def test_adp_parity(peer, epsilon, d):
    """Same choice (a value for GRR, a d-bit vector for OUE), identical estimates, peer reports with our variance."""
    module, ours, rng = peer["ADP"], ADP(epsilon, d), np.random.default_rng(d)
    z = []
    for _ in range(N_SURVEYS):
        values = _values(d, rng)
        _reseed_numba(rng)
        theirs = np.array([module.ADP_Client(int(v), d, epsilon) for v in values])
        assert (theirs.ndim == 1) == isinstance(ours.chosen, GRR)
        truth, agg = np.bincount(values, minlength=d), ours.aggregate(theirs.astype(np.int64))
        np.testing.assert_allclose(
            module.ADP_Aggregator_MI(theirs, d, epsilon),
            _ours(ours, agg, N_USERS)[0],
            rtol=1e-9,
            atol=1e-12,
        )
        z.append((ours.estimate(agg, N_USERS) - truth) / np.sqrt(ours.variance(truth)))
    _standardized_errors_are_standard(np.array(z))
    mine = ours.perturb(
        values, rng=rng
    )  # as floats: the peer sums reports in their own dtype (int8 would wrap)
    np.testing.assert_allclose(
        module.ADP_Aggregator_MI(mine if mine.ndim == 1 else mine.astype(float), d, epsilon),
        _ours(ours, ours.aggregate(mine), N_USERS)[0],
        rtol=1e-9,
        atol=1e-12,
    )


def _to_peer_vector(reports: DBitFlipReports, d: int) -> np.ndarray:
    vectors = np.full((reports.buckets.shape[0], d), -1.0)
    np.put_along_axis(vectors, reports.buckets, reports.bits.astype(float), axis=1)
    return vectors


@pytest.mark.parametrize("n_bits", [1, 3])
def test_dbitflip_parity(peer, n_bits):
    """dBitFlipPM with b = k buckets: the peer's −1-padded vectors are our (buckets, bits); same estimator."""
    module, d, epsilon, rng = peer["dBitFlipPM"], 6, 2.0, np.random.default_rng(n_bits)
    ours = DBitFlip(epsilon, d, n_bits)
    z = []
    for _ in range(N_SURVEYS):
        values = _values(d, rng)
        _reseed_numba(rng)
        theirs = np.array([module.dBitFlipPM_Client(int(v), d, d, n_bits, epsilon) for v in values])
        sampled = theirs >= 0
        assert np.all(sampled.sum(axis=1) == n_bits)
        buckets = np.nonzero(sampled)[1].reshape(-1, n_bits)
        agg = ours.aggregate(
            DBitFlipReports(buckets, np.take_along_axis(theirs, buckets, axis=1).astype(np.int64))
        )
        truth = np.bincount(values, minlength=d)
        np.testing.assert_allclose(
            module.dBitFlipPM_Aggregator_MI(theirs, d, n_bits, epsilon),
            _ours(ours, agg, N_USERS)[0],
            rtol=1e-9,
            atol=1e-12,
        )
        z.append((ours.estimate(agg, N_USERS) - truth) / np.sqrt(ours.variance(truth)))
    _standardized_errors_are_standard(np.array(z))
    mine = ours.perturb(values, rng=rng)
    np.testing.assert_allclose(
        module.dBitFlipPM_Aggregator_MI(_to_peer_vector(mine, d), d, n_bits, epsilon),
        _ours(ours, ours.aggregate(mine), N_USERS)[0],
        rtol=1e-9,
        atol=1e-12,
    )


# ------------------------------------------------------------------------------------------- SPL, SMP, RS+FD

SIZES, EPSILON = (4, 3), 1.5


def _tuples(rng, n=N_USERS):
    return np.column_stack([_values(k, rng, n) for k in SIZES])


def _blocks():
    ends = np.cumsum(SIZES)
    return [slice(int(e - k), int(e)) for e, k in zip(ends, SIZES)]


def _joint(rows):
    return np.bincount(np.ravel_multi_index(rows.T, SIZES), minlength=math.prod(SIZES)).reshape(
        SIZES
    )


def _peer_estimates(estimates) -> list:
    return [np.asarray(e, dtype=float) for e in estimates]


CASES = {  # ours, the peer's module, client and aggregator (with their arguments), how their reports become ours
    "SPL[GRR]": (lambda: SPL(EPSILON, SIZES, "grr"), "SPL_solution", "SPL_GRR", True),
    "SPL[OUE]": (lambda: SPL(EPSILON, SIZES, "oue"), "SPL_solution", "SPL_UE", False),
    "SMP[GRR]": (lambda: SMP(EPSILON, SIZES, "grr"), "SMP_solution", "SMP_GRR", True),
    "SMP[OUE]": (lambda: SMP(EPSILON, SIZES, "oue"), "SMP_solution", "SMP_UE", False),
    "RS+FD[GRR]": (
        lambda: RSFD.from_attribute_epsilon(EPSILON, SIZES, "grr"),
        "RSpFD_solution",
        "RSpFD_GRR",
        True,
    ),
    "RS+FD[OUE-z]": (
        lambda: RSFD.from_attribute_epsilon(EPSILON, SIZES, "oue_z"),
        "RSpFD_solution",
        "RSpFD_UE_zero",
        False,
    ),
    "RS+FD[OUE-r]": (
        lambda: RSFD.from_attribute_epsilon(EPSILON, SIZES, "oue_r"),
        "RSpFD_solution",
        "RSpFD_UE_rnd",
        False,
    ),
}


def _peer_to_ours(mech, theirs, grr: bool):
    """The peer's list of per-attribute reports (or (attribute, report) pairs for SMP) as our report rows."""
    if isinstance(mech, SMP):
        attributes = np.array([a for a, _ in theirs])
        rows = np.full((len(theirs), int(mech._widths.sum())), -1, dtype=np.int64)
        for u, (a, report) in enumerate(theirs):
            rows[u, mech._blocks(mech._widths)[a]] = np.ravel(report)
        return SampledReports(attributes, rows)
    return np.array([np.concatenate([np.ravel(r) for r in row]) for row in theirs]).astype(np.int64)


def _ours_to_peer(mech, reports, grr: bool):
    blocks = mech._blocks(mech._widths)
    if isinstance(mech, SMP):
        return [
            (int(a), int(row[blocks[a]][0]) if grr else row[blocks[a]].astype(float))
            for a, row in zip(reports.attributes, reports.reports)
        ]
    return [[int(row[b][0]) if grr else row[b].astype(float) for b in blocks] for row in reports]


def _peer_aggregate(module, prefix, reports, grr):
    aggregator = getattr(module, f"{prefix}_Aggregator_MI")
    if grr or prefix.startswith("RSpFD"):
        return _peer_estimates(aggregator(reports, list(SIZES), len(SIZES), EPSILON))
    return _peer_estimates(aggregator(reports, len(SIZES), EPSILON))


@pytest.mark.parametrize("case", list(CASES))
def test_multidimensional_parity(peer, case):
    """Identical per-attribute estimates on the same reports both ways; the peer's reports centred with our variance."""
    make, module_name, prefix, grr = CASES[case]
    mech, module, rng = make(), peer[module_name], np.random.default_rng(len(case))
    client = getattr(module, f"{prefix}_Client")
    z = []
    for _ in range(N_SURVEYS):
        rows = _tuples(rng)
        _reseed_numba(rng)
        theirs = [client(list(map(int, row)), list(SIZES), len(SIZES), EPSILON) for row in rows]
        agg = mech.aggregate(_peer_to_ours(mech, theirs, grr))
        for a, b in zip(
            _peer_aggregate(module, prefix, theirs, grr), _ours(mech, agg, N_USERS, _blocks())
        ):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
        truth = _joint(rows)
        z.append(
            (mech.estimate(agg, N_USERS) - mech.estimand(truth)) / np.sqrt(mech.variance(truth))
        )
    _standardized_errors_are_standard(np.array(z))
    mine = mech.perturb(rows, rng=rng)
    for a, b in zip(
        _peer_aggregate(module, prefix, _ours_to_peer(mech, mine, grr), grr),
        _ours(mech, mech.aggregate(mine), N_USERS, _blocks()),
    ):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
