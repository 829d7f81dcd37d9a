"""The peers' OLH reports estimated by our OLH: xxh32 as the peers' xxhash computes it, and our estimates equal to
their own servers' on the same reports (pure-ldp 1.1.2 and 1.2.0, multi-freq-ldpy 0.2.5, installed by `make peers`)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ldp_helpers._paths import REPO_ROOT
from ldp_helpers.estimation.postprocessing import postprocess
from ldp_helpers.interop.peer_reports import (
    check_olh_reports,
    estimate_olh_reports,
    olh_support,
    olh_support_counts,
)
from ldp_helpers.interop.xxhash32 import xxh32_decimal
from ldp_helpers.mechanisms.local_hashing import BLH, OLH
from ldp_tools.peers import PEERS

EPSILON, D, N = 2.0, 30, 2000


def _installed():
    missing = [peer for peer, (folder, _, _) in PEERS.items() if not folder.is_dir()]
    assert not missing, f"peers {missing} are not installed: run `make peers` (make test does)"


def _peer_olh_run(peer: str, *, epsilon: float, d: int, values, seed: int) -> dict:
    """The peer's own OLH client and server on ``values`` (tests/peer_olh_runner.py, only that peer's folder on
    the path, in a subprocess): its reports, estimates, estimator and version."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PEERS[peer][0]), str(REPO_ROOT)]))
    task = {"peer": peer, "epsilon": epsilon, "d": d, "values": values.tolist(), "seed": seed}
    out = subprocess.run(
        [sys.executable, str(REPO_ROOT / "tests" / "peer_olh_runner.py")],
        input=json.dumps(task),
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, f"the OLH run of {peer} failed:\n{out.stderr[-2000:]}"
    return json.loads(out.stdout)


def test_xxh32_reference_vectors():
    """xxh32_decimal gives xxhash's digests of str(x) (xxhash 3.8.2's, as the peers call it), on the short and the
    striped paths (1 to 19 digits), and keeps the seed's low 32 bits (Python ints or a uint64 array)."""
    values = np.array([0, 7, 10, 99, 123456, 10**15, 10**18 + 5])
    seeds = [0, 1, 2**32 - 1, 2**32 + 1, 2**63 - 1]
    seed_0 = [0x48454CB2, 0x20B06902, 0x44916A95, 0xEE074BC8, 0xB7014066, 0xE666AAC0, 0x024117AC]
    seed_1 = [0x7D6C0A6C, 0x2EDDFA74, 0x81405755, 0xF7A22E27, 0x01477C29, 0xA672221A, 0xE17F2433]
    seed_max = [0x8A7B245A, 0x9315DA1A, 0x70E9CAC9, 0xBEFAB2E0, 0x0B44D49D, 0xE23DD34D, 0x1845948A]
    expected = [seed_0, seed_1, seed_max, seed_1, seed_max]  # 2**32 + 1 ≡ 1, 2**63 - 1 ≡ 2**32 - 1
    assert xxh32_decimal(values, seeds).tolist() == expected
    assert xxh32_decimal(values, np.array(seeds[:4], dtype=np.uint64)).tolist() == expected[:4]


def test_xxh32_equals_the_peers_xxhash():
    """Our xxh32 equals the xxhash 3.8.2 the peers use (from their folder, in a subprocess), on str inputs and big seeds."""
    _installed()
    seeds = [0, 5, 2**32 + 5, 2**62 + 12345, 2**63 - 1]
    code = (
        "import json, sys, xxhash; seeds = json.loads(sys.argv[1]);"
        "print(json.dumps([[xxhash.xxh32(str(v), seed=s).intdigest() for v in range(0, 3000, 7)] for s in seeds]))"
    )
    env = dict(os.environ, PYTHONPATH=str(PEERS["multi-freq-ldpy"][0]))
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(seeds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert xxh32_decimal(np.arange(0, 3000, 7), seeds).tolist() == json.loads(out)


@pytest.mark.parametrize("g", [2**32, 2**33])
def test_a_hash_range_beyond_32_bits_takes_the_hash_itself(g):
    """H_seed(x) = xxh32 mod g is the hash itself for g ≥ 2^32 (OLH's g from ε ≈ 22.2): np.uint32(g) raised a raw
    OverflowError (estimate_olh_reports with OLH(23, d), g = 9744803447)."""
    seeds = [3, 2**40 + 5, 77]
    hashes = xxh32_decimal(np.arange(4), seeds)
    reports = [(int(hashes[0, 2]), 3), (int(hashes[1, 0]), 2**40 + 5), (12345, 77)]
    assert olh_support(reports, 4, g).tolist() == [[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]]
    assert olh_support_counts(reports, 4, g).tolist() == [1, 0, 1, 0]
    mechanism = OLH(23.0, 4)
    assert mechanism.g > 2**32
    estimate = estimate_olh_reports(reports, mechanism)
    assert np.allclose(estimate, mechanism.estimate(olh_support_counts(reports, 4, mechanism.g), 3))


def test_report_formats():
    """Pairs (y, seed) as the peers return them, or an (n, 2) array; seeds ≥ 2³² act mod 2³²; y must lie in [0, g)."""
    pairs = [(1, 2**40 + 9), (0, np.int64(3)), (3, 17)]
    y, seeds = check_olh_reports(pairs, 4)
    assert y.tolist() == [1, 0, 3] and seeds.tolist() == [9, 3, 17]
    assert np.array_equal(
        olh_support(pairs, 6, 4), olh_support(np.array([[1, 9], [0, 3], [3, 17]]), 6, 4)
    )
    assert np.array_equal(olh_support(pairs, 6, 4).sum(axis=0), olh_support_counts(pairs, 6, 4))
    with pytest.raises(ValueError, match=r"reports\[:, 0\] \(y\)"):
        check_olh_reports([(4, 1)], 4)
    with pytest.raises(TypeError, match="reports"):
        check_olh_reports([(1, 2, 3)], 4)


@pytest.mark.parametrize("peer", sorted(PEERS))
def test_peers_olh_reports_estimated_as_their_servers_do(peer):
    """On the peer's own reports of the same values: pure-ldp's LHServer estimates equal ours (1e-9); multi-freq-ldpy's
    MI frequencies (clipped at 0, renormalized) equal our postprocess(..., "clip") / n; a run repeats per seed."""
    _installed()
    values = np.random.default_rng(3).integers(0, D, size=N)
    run = _peer_olh_run(peer, epsilon=EPSILON, d=D, values=values, seed=7)
    ours = estimate_olh_reports(run["reports"], OLH(EPSILON, D))
    theirs = np.array(run["estimates"])
    if run["estimator"].startswith("MI"):
        assert np.max(np.abs(theirs * N - postprocess(ours, N, "clip"))) < 1e-9
    else:
        assert np.max(np.abs(theirs - ours)) < 1e-9
    assert run["version"] == PEERS[peer][2]
    if (
        peer == "multi-freq-ldpy"
    ):  # its jitted GRR draws from numba's generator, seeded apart (_reseed_numba)
        assert (
            _peer_olh_run(peer, epsilon=EPSILON, d=D, values=values, seed=7)["reports"]
            == run["reports"]
        )


@pytest.mark.statistical
def test_estimate_is_unbiased_on_ideal_hash_reports():
    """Reports made with the peers' hash (uniform seeds, GRR over [g]) and estimated by our OLH and BLH: the total
    estimate equals n up to 5 SE (exact variance of a sum of support counts is below n·d·q*(1−q*)/(p*−q*)²)."""
    rng = np.random.default_rng(11)
    values = rng.integers(0, 8, size=4000)
    for mechanism in (OLH(1.5, 8), BLH(1.5, 8)):
        seeds = rng.integers(0, 2**63 - 1, size=values.size)
        hashed = (
            xxh32_decimal(np.arange(8), seeds)[np.arange(values.size), values] % mechanism.g
        ).astype(np.int64)
        keep = rng.random(values.size) < mechanism.p
        other = (hashed + rng.integers(1, mechanism.g, size=values.size)) % mechanism.g
        reports = np.column_stack([np.where(keep, hashed, other), seeds])
        estimate = estimate_olh_reports(reports, mechanism)
        se = np.sqrt(values.size * 8 * mechanism.q * (1 - mechanism.q)) / (
            mechanism.p - mechanism.q
        )
        assert abs(estimate.sum() - values.size) < 5 * se
