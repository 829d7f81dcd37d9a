"""Parity with the peers on the same reports (issue 29, part A): pure-ldp 1.2.0's Hadamard Response, Hadamard
mechanism and fast local hashing, multi-freq-ldpy 0.2.5's Subset Selection.

For each, the peer's client reports go through our aggregate and estimator and ours through the peer's
server, and the estimates must be identical where the estimator is the same formula (all four; FLH's peer reports use
its own xxhash family, so our debiasing is applied to their support counts under its table); the peer's
client, fed through our estimator over many surveys, must give means and variances within 5 standard errors of
our exact mean and variance (the peer's client has the law of ours).  The peers run in their own process
(``tests/peer_field_oracles.py`` with ``PYTHONPATH=build/bench-peers``, installed by ``make peers``); they never
enter ``.venv``, and a missing peer folder fails these tests with the command that installs it.

Where a peer differs from the papers' constructions or from ours, the difference is asserted (notes for notebook
07): pure-ldp's HR uses one block for every ε ≤ 1, where the authors' rule gives B = 2 on [ln 2, 1], and permutes
the inputs at random; its Hadamard mechanism's ``use_optimal_t`` is not the variance-minimizing t and its server
needs d a power of 2; its FLH client defaults to g = 2 while its server defaults to OLH's g, and the server's
``reset()`` keeps the hash counts (``test_pure_ldp_defaults_that_differ``); multi-freq-ldpy rounds d/(e^ε + 1),
which is not always the variance-optimal k (``tests/mechanisms/test_field_oracles.py``).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
from peer_worker import PeerWorker

from ldp_helpers.estimation.postprocessing import postprocess
from ldp_helpers.mechanisms.fast_local_hashing import FastLocalHashing, fixed_hash_moments
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.hadamard_mechanism import HadamardMechanism, HadamardReports
from ldp_helpers.mechanisms.hadamard_response import HadamardResponse
from ldp_helpers.mechanisms.pure import unbiased_count
from ldp_helpers.mechanisms.subset_selection import SubsetSelection, optimal_subset_size
from ldp_tools.peers import multi_freq_ldpy_subset_size, pure_ldp_hadamard_coefficients

ROOT = Path(__file__).resolve().parents[2]
PEERS_DIR = ROOT / "build" / "bench-peers"
WORKER = Path(__file__).parents[1] / "peer_field_oracles.py"
COUNTS = np.array([150, 50, 25, 0, 75, 35, 15, 45], dtype=np.int64)  # n = 395 users over d = 8
SURVEYS = 300  # peer surveys of the statistical checks
N_SE = 5.0


@pytest.fixture(scope="module")
def peer(tmp_path_factory):
    """Run one task of the worker in the peers' own process; fail (never skip) when the peers are missing."""
    missing = [
        name
        for name in ("pure_ldp", "multi_freq_ldpy", "xxhash", "numba")
        if not (PEERS_DIR / name).is_dir()
    ]
    assert not missing, (
        f"peers {missing} are not installed in {PEERS_DIR}: run `make peers` (make test does)"
    )
    folder = tmp_path_factory.mktemp("peers")
    worker = PeerWorker(
        WORKER, {**os.environ, "PYTHONPATH": str(PEERS_DIR)}, folder / "worker.log"
    )  # one process imports the peers once and answers every task (each seeds its own generators)

    def run(task: str, **request) -> dict:
        result = worker.ask({"task": task, **request, "result": str(folder / f"{task}.npz")})
        with np.load(result["result"]) as data:
            return {key: data[key] for key in data.files}

    yield run
    worker.close()


def _moments_match(samples: np.ndarray, mean: np.ndarray, variance: np.ndarray, what: str):
    """Mean within 5 SE (exact variance) and sample variance within 5 SE (its SE from the sample's fourth moment)."""
    runs = samples.shape[0]
    gap = np.abs(samples.mean(axis=0) - mean) / np.sqrt(variance / runs)
    assert np.all(gap < N_SE), f"{what}: mean off by {gap.max():.1f} SE"
    s2 = samples.var(axis=0, ddof=1)
    m4 = np.mean((samples - samples.mean(axis=0)) ** 4, axis=0)
    off = np.abs(s2 - variance) / np.sqrt((m4 - s2**2) / runs)
    assert np.all(off < N_SE), (
        f"{what}: variance off by {off.max():.1f} SE (peer {s2}, exact {variance})"
    )


@pytest.mark.statistical
def test_subset_selection_matches_multi_freq_ldpy(peer):
    """multi-freq-ldpy's SS: its MI (clip and renormalize) is our estimate through postprocess("clip"), on its reports
    and on ours; its client has our exact mean and variance.  Its k = round(d/(e^ε + 1)) is ours here."""
    epsilon, d, n = 1.0, 8, int(COUNTS.sum())
    peer_k = int(max(1, round(d / (math.exp(epsilon) + 1))))
    assert multi_freq_ldpy_subset_size(epsilon, d) == peer_k  # notebook 07's copy of the rule
    assert peer_k == optimal_subset_size(epsilon, d) == 2
    ss = SubsetSelection(epsilon, d, peer_k)
    ours = ss.perturb(ss.expand(COUNTS), rng=np.random.default_rng(10))
    found = peer(
        "ss",
        epsilon=epsilon,
        d=d,
        values=ss.expand(COUNTS).tolist(),
        seed=11,
        surveys=SURVEYS,
        our_reports=[ours.tolist()],
    )
    np.testing.assert_allclose(
        found["mi_of_ours"][0] * n,
        postprocess(ss.estimate(ss.aggregate(ours), n), n, "clip"),
        rtol=1e-9,
        atol=1e-9,
    )
    estimates = np.array([ss.estimate(ss.aggregate(reports), n) for reports in found["reports"]])
    np.testing.assert_allclose(
        found["mi_of_theirs"] * n,
        [postprocess(e, n, "clip") for e in estimates],
        rtol=1e-9,
        atol=1e-9,
    )
    _moments_match(estimates, COUNTS, ss.variance(COUNTS), "multi-freq-ldpy SS client")


@pytest.mark.statistical
@pytest.mark.parametrize("epsilon", [0.8, 2.0])
def test_hadamard_response_matches_pure_ldp(peer, epsilon):
    """pure-ldp's HR (B = 1 for ε ≤ 1; the authors' B otherwise, with a random input permutation): identical
    estimates both ways, its client with our exact moments."""
    d, n = 8, int(COUNTS.sum())
    hr = HadamardResponse(epsilon, d, n_blocks=1 if epsilon <= 1 else 0)
    assert (hr.B, HadamardResponse(epsilon, d).B) == (
        (1, 2) if epsilon <= 1 else (4, 4)
    )  # pure-ldp uses B = 1 for ε ≤ 1
    ours = hr.perturb(hr.expand(COUNTS), rng=np.random.default_rng(12))
    found = peer(
        "hr",
        epsilon=epsilon,
        d=d,
        values=hr.expand(COUNTS).tolist(),
        seed=13,
        surveys=SURVEYS,
        our_reports=ours.tolist(),
    )
    assert int(found["K"]) == hr.K
    np.testing.assert_allclose(
        found["estimates_of_ours"], hr.estimate(hr.aggregate(ours), n), rtol=1e-9, atol=1e-9
    )
    permute = found["permute"]  # the peer encodes x as symbol permute[x]
    estimates = np.array(
        [hr.estimate(hr.aggregate(reports), n)[permute] for reports in found["reports"]]
    )
    np.testing.assert_allclose(found["estimates"], estimates, rtol=1e-9, atol=1e-9)
    relabelled = np.zeros(d, dtype=np.int64)
    relabelled[permute] = COUNTS
    _moments_match(
        estimates, COUNTS, hr.variance(relabelled)[permute], f"pure-ldp HR client, ε = {epsilon}"
    )


@pytest.mark.statistical
def test_hadamard_mechanism_matches_pure_ldp(peer):
    """pure-ldp's HM with t = 2 coefficients over d = 8 (a power of 2, as its transform needs): identical estimates
    both ways, its client with our exact moments."""
    epsilon, d, t, n = 2.5, 8, 2, int(COUNTS.sum())
    hm = HadamardMechanism(epsilon, d, t)
    ours = hm.perturb(hm.expand(COUNTS), rng=np.random.default_rng(14))
    found = peer(
        "hm",
        epsilon=epsilon,
        d=d,
        t=t,
        values=hm.expand(COUNTS).tolist(),
        seed=15,
        surveys=SURVEYS,
        our_indices=ours.indices.tolist(),
        our_signs=ours.signs.astype(int).tolist(),
    )
    np.testing.assert_allclose(
        found["estimates_of_ours"], hm.estimate(hm.aggregate(ours), n), rtol=1e-9, atol=1e-9
    )
    estimates = np.array(
        [
            hm.estimate(hm.aggregate(HadamardReports(j, s)), n)
            for j, s in zip(found["indices"], found["signs"])
        ]
    )
    np.testing.assert_allclose(found["estimates"], estimates, rtol=1e-9, atol=1e-9)
    _moments_match(estimates, COUNTS, hm.variance(COUNTS), "pure-ldp HM client")


@pytest.mark.statistical
def test_fast_local_hashing_matches_pure_ldp(peer):
    """pure-ldp's FLH: its server given our hash table estimates our reports exactly as we do; its own reports (its
    xxhash family) debias like ours and have our exact fixed-hash mean and variance for its table."""
    epsilon, d, k, n = 1.2, 8, 16, int(COUNTS.sum())
    flh = FastLocalHashing.create(epsilon, d, k, rng=np.random.default_rng(16))
    g = flh.hash_range
    ours = flh.perturb(flh.expand(COUNTS), rng=np.random.default_rng(17))
    found = peer(
        "flh",
        epsilon=epsilon,
        d=d,
        k=k,
        g=g,
        values=flh.expand(COUNTS).tolist(),
        seed=18,
        surveys=SURVEYS,
        our_table=flh.hash_table().tolist(),
        our_reports=ours.tolist(),
    )
    np.testing.assert_allclose(
        found["estimates_of_ours"], flh.estimate(flh.aggregate(ours), n), rtol=1e-9, atol=1e-9
    )
    table = found["table"]  # h_j(x) = xxh32(str(x), seed=j) mod g
    support = np.array([np.sum(table[r[:, 0], :] == r[:, 1:2], axis=0) for r in found["reports"]])
    debiased = unbiased_count(support, n, GRR(epsilon, g).p, 1.0 / g)
    np.testing.assert_allclose(found["estimates"], debiased, rtol=1e-9, atol=1e-9)
    mean, variance = fixed_hash_moments(table, COUNTS, epsilon, g)
    _moments_match(found["estimates"], mean, variance, "pure-ldp FLH client (its hash family)")


@pytest.mark.parametrize("epsilon, peer_t, our_t", [(1.0, 2, 1), (3.0, 5, 3)])
def test_pure_ldp_defaults_that_differ(peer, epsilon, peer_t, our_t):
    """Notes for notebook 07, measured: FastLHClient defaults to g = 2 but FastLHServer to OLH's round(e^ε) + 1 (a
    client and a server built with their defaults disagree); FastLHServer.reset() keeps its hash counts; the Hadamard
    mechanism's ``use_optimal_t`` takes ⌈log2(e^ε + 1)⌉, not the variance-minimizing t, and its server fails for a d
    that is not a power of 2."""
    found = peer("quirks", epsilon=epsilon, seed=19)
    assert (
        int(found["flh_client_g"]) == 2
        and int(found["flh_server_g"]) == round(math.exp(epsilon)) + 1
    )
    assert float(found["flh_counts_after_reset"]) == 1.0 and int(found["flh_n_after_reset"]) == 0
    assert (
        int(found["hm_optimal_t"]) == peer_t and HadamardMechanism(epsilon, 8).coefficients == our_t
    )
    assert pure_ldp_hadamard_coefficients(epsilon) == peer_t  # notebook 07's copy of the rule
    assert str(found["hm_d6_error"]) == "IndexError"
