"""Parity with pure-ldp 1.2.0 on the same reports: HCMS, the private count sketch, sketch response and SFP.

The peer (installed in build/bench-peers by `make peers`, never in .venv) runs in a subprocess
(tests/peer_sketch_runner.py) on OUR hash functions.  For each sketch: the peer's server on our clients'
reports and our server on the peer's clients' reports give the same estimates where the estimator is
the same formula (HCMS, sketch response's "unbiased mean", SFP's sketches), and the documented factor
where it is not (the peer's PCS server omits c_ε); the peer's clients have our whole-report table's law
(chi-square against ``output_table``, fixed seeds).  Where the peer differs from the papers is asserted
too, so a change in the peer is noticed.
"""

import os
from pathlib import Path

import numpy as np
import pytest
from peer_worker import PeerWorker
from scipy import stats
from scipy.linalg import hadamard

from ldp_helpers.mechanisms.count_sketch import PcsReports, PrivateCountSketch
from ldp_helpers.mechanisms.hadamard_sketch import HadamardCountMeanSketch, HcmsReports
from ldp_helpers.mechanisms.sketch_response import SketchResponse, SketchResponseReports
from ldp_helpers.protocols.sfp import SequenceFragmentPuzzle, SfpReports
from ldp_helpers.protocols.sketch_heavy_hitters import _search

ROOT = Path(__file__).resolve().parents[2]
PEERS_DIR = ROOT / "build" / "bench-peers"
TRUTH = np.array([3000, 1000, 500, 0, 1500, 0])
ALPHA = 1e-3  # a chi-square test of one peer client's law fails below this p-value (fixed seeds)


@pytest.fixture(scope="module")
def run_peer(tmp_path_factory):
    """The peer's answer to a task (tests/peer_sketch_runner.py on the peers' folder: one process for the module)."""
    assert (PEERS_DIR / "pure_ldp").is_dir(), (
        f"pure-ldp 1.2.0 is not installed in {PEERS_DIR}: run `make peers` (make test does)"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PEERS_DIR), str(ROOT)]))
    log = tmp_path_factory.mktemp("peer_sketches") / "worker.log"
    worker = PeerWorker(ROOT / "tests" / "peer_sketch_runner.py", env, log, cwd=ROOT, timeout=900)
    yield worker.ask
    worker.close()


def _design(mechanism) -> dict:
    return {
        "epsilon": mechanism.epsilon,
        "d": mechanism.d,
        "hash_a": list(mechanism.hash_a),
        "hash_b": list(mechanism.hash_b),
    }


def _assert_same_law(reports: np.ndarray, values: np.ndarray, table: np.ndarray, what: str) -> None:
    """For every value held by ≥ 1000 users, the counts of its users' reports (column indices of ``table``) fit the row."""
    for x in np.unique(values):
        mine = reports[values == x]
        if mine.size < 1000:
            continue
        observed = np.bincount(mine, minlength=table.shape[1])
        expected = table[x] * mine.size
        keep = expected >= 5
        observed = np.r_[observed[keep], observed[~keep].sum()]
        expected = np.r_[expected[keep], expected[~keep].sum()]
        if expected[-1] == 0:
            observed, expected = observed[:-1], expected[:-1]
        p = stats.chisquare(observed, expected).pvalue
        assert p > ALPHA, (
            f"{what}: the peer's reports of value {x} do not have our table's law (p = {p:.2g})"
        )


def _values():
    return np.random.default_rng(1).permutation(np.repeat(np.arange(TRUTH.size), TRUTH))


def test_hcms_estimates_are_identical_and_the_client_has_our_law(run_peer):
    """HCMS: the peer's server on our reports = ours, ours on the peer's = the peer's (Algorithms 4–5 both sides)."""
    sketch = HadamardCountMeanSketch.create(1.5, 6, 2, 4, rng=np.random.default_rng(2))
    values = _values()
    ours = sketch.perturb(values, rng=np.random.default_rng(3))
    peer = run_peer(
        {
            "task": "hcms",
            "seed": 4,
            "k": 2,
            "m": 4,
            **_design(sketch),
            "values": values.tolist(),
            "our_reports": np.column_stack(ours).tolist(),
        }
    )
    n = values.size
    np.testing.assert_allclose(
        peer["peer_estimates_ours"],
        sketch.estimate(sketch.aggregate(ours), n),
        rtol=1e-9,
        atol=1e-6,
    )
    reports = np.array(peer["peer_reports"])
    theirs = HcmsReports(reports[:, 0].astype(np.int8), reports[:, 1], reports[:, 2])
    np.testing.assert_allclose(
        sketch.estimate(sketch.aggregate(theirs), n),
        peer["peer_estimates_own"],
        rtol=1e-9,
        atol=1e-6,
    )
    columns = (reports[:, 1] * sketch.m + reports[:, 2]) * 2 + (
        reports[:, 0] > 0
    )  # output_table's (j, l, sign) order
    _assert_same_law(columns, values, sketch.output_table(), "HCMS")


def test_pcs_estimates_differ_by_c_epsilon_and_the_client_has_our_law(run_peer):
    """The peer's PCS server omits c_ε (its mean is ours × tanh(ε/2)) and takes the median by default; its client is ours."""
    sketch = PrivateCountSketch.create(1.5, 6, 3, 4, rng=np.random.default_rng(5))
    values = _values()
    ours = sketch.perturb(values, rng=np.random.default_rng(6))
    peer = run_peer(
        {
            "task": "pcs",
            "seed": 7,
            "k": 3,
            "m": 4,
            **_design(sketch),
            "sign_a": list(sketch.sign_a),
            "sign_b": list(sketch.sign_b),
            "values": values.tolist(),
            "our_vectors": ours.vectors.tolist(),
            "our_rows": ours.rows.tolist(),
        }
    )
    n = values.size
    ours_estimate = sketch.estimate(sketch.aggregate(ours), n)
    np.testing.assert_allclose(
        sketch.c_epsilon * np.array(peer["peer_mean_ours"]), ours_estimate, rtol=1e-9, atol=1e-6
    )
    theirs = PcsReports(np.array(peer["peer_vectors"], dtype=np.int8), np.array(peer["peer_rows"]))
    np.testing.assert_allclose(
        sketch.estimate(sketch.aggregate(theirs), n),
        sketch.c_epsilon * np.array(peer["peer_mean_own"]),
        rtol=1e-9,
        atol=1e-6,
    )
    assert not np.allclose(
        peer["peer_median_ours"], peer["peer_mean_ours"]
    )  # the peer's default is the median
    bits = (theirs.vectors > 0).astype(int) @ (
        2 ** np.arange(sketch.m - 1, -1, -1)
    )  # output_table's vector order
    _assert_same_law(theirs.rows * 2**sketch.m + bits, values, sketch.output_table(), "PCS")


def test_sketch_response_unbiased_mean_is_identical_and_the_client_has_our_law(run_peer):
    """Sketch response with GRR (the peer's DE) rows: the peer's "unbiased mean" server = ours, both ways; its default
    count-min sketch_method differs (biased upwards by collisions)."""
    sketch = SketchResponse.create(1.5, 6, 2, 3, rng=np.random.default_rng(8))
    values = _values()
    ours = sketch.perturb(values, rng=np.random.default_rng(9))
    peer = run_peer(
        {
            "task": "sketch_response",
            "seed": 10,
            "k": 2,
            "m": 3,
            **_design(sketch),
            "values": values.tolist(),
            "our_reports": np.column_stack([ours.reports, ours.rows]).tolist(),
        }
    )
    n = values.size
    ours_estimate = sketch.estimate(sketch.aggregate(ours), n)
    np.testing.assert_allclose(peer["peer_estimates_ours"], ours_estimate, rtol=1e-9, atol=1e-6)
    reports = np.array(peer["peer_reports"])
    theirs = SketchResponseReports(reports[:, 1], reports[:, 0])
    np.testing.assert_allclose(
        sketch.estimate(sketch.aggregate(theirs), n),
        peer["peer_estimates_own"],
        rtol=1e-9,
        atol=1e-6,
    )
    assert not np.allclose(peer["peer_countmin_ours"], ours_estimate)
    _assert_same_law(
        theirs.rows * sketch.m + theirs.reports, values, sketch.output_table(), "sketch response"
    )


@pytest.mark.statistical
def test_sfp_sketches_and_candidates_agree(run_peer):
    """SFP over HCMS (ε/2 each, the peer's split): the peer's word and fragment estimates on our reports are ours
    (fragments up to our scaling by G with n/G), and its assembled words that hash to their puzzle are our candidates."""
    bits, fb, k, m = 8, 4, 8, 256
    mechanism = SequenceFragmentPuzzle.create(8.0, bits, fb, k, m, rng=np.random.default_rng(11))
    rng = np.random.default_rng(12)
    heavy = np.array([0x3A, 0xC5, 0x7E])
    values = rng.permutation(
        np.r_[np.repeat(heavy, [6000, 4000, 3000]), rng.integers(0, 2**bits, 2000)]
    )
    ours = mechanism.perturb(values, rng=rng)
    rows = np.column_stack([*ours.fragments, *ours.words, ours.positions * fb])
    peer = run_peer(
        {
            "task": "sfp",
            "seed": 13,
            "epsilon": 8.0,
            "k": k,
            "m": m,
            "bits": bits,
            "fragment_bits": fb,
            "hash_a": list(mechanism.hash_a),
            "hash_b": list(mechanism.hash_b),
            "puzzle_a": mechanism.puzzle_a,
            "puzzle_b": mechanism.puzzle_b,
            "values": values.tolist(),
            "kept": heavy.size,
            "our_reports": [[r[:3].tolist(), r[3:6].tolist(), int(r[6])] for r in rows],
            "query_words": list(range(2**bits)),
        }
    )
    n, positions = values.size, mechanism.n_positions
    sketches = mechanism.aggregate(ours)
    estimate = mechanism.estimate(sketches, n)
    np.testing.assert_allclose(
        peer["peer_word_estimates_ours"], estimate[: 2**bits], rtol=1e-9, atol=1e-6
    )
    scale, records = m / (m - 1), mechanism.fragment_sketch.d
    for l, users in enumerate(peer["peer_users_per_position"]):
        assert users == np.count_nonzero(ours.positions == l)
        theirs = (
            positions * np.array(peer["peer_fragment_estimates_ours"][l])
            + scale * (positions * users - n) / m
        )
        np.testing.assert_allclose(
            theirs,
            estimate[2**bits + l * records : 2**bits + (l + 1) * records],
            rtol=1e-9,
            atol=1e-6,
        )
    found, candidates = _search(mechanism, sketches, n, heavy.size, heavy.size, 4096)
    assert set(found.values.tolist()) == set(heavy.tolist())
    # the peer assembles every product of the fragments kept under one puzzle value t; we keep the words that hash
    # to t, i.e. the peer's words whose own records r_l(w) were all kept (the same top records on both sides)
    kept = [
        set(
            np.argsort(
                -estimate[2**bits + l * records : 2**bits + (l + 1) * records], kind="stable"
            )[: heavy.size].tolist()
        )
        for l in range(positions)
    ]
    assembled = np.array(peer["peer_candidates_ours"])
    own_records = mechanism.records(assembled)
    consistent = {
        int(w)
        for i, w in enumerate(assembled)
        if all(own_records[l, i] in kept[l] for l in range(positions))
    }
    assert consistent == set(candidates.tolist())
    assert set(heavy.tolist()) <= set(assembled.tolist())
    reports = np.array(peer["peer_reports"])
    theirs = SfpReports(
        reports[:, 6] // fb,
        HcmsReports(reports[:, 0].astype(np.int8), reports[:, 1], reports[:, 2]),
        HcmsReports(reports[:, 3].astype(np.int8), reports[:, 4], reports[:, 5]),
    )
    assert np.all(np.isfinite(mechanism.estimate(mechanism.aggregate(theirs), n)))
    # the clients' law, coarsened to (position, hash row j, whether the sign sent is the record's Hadamard coefficient):
    # uniform position and j, the coefficient kept w.p. 1 − r (the full table has too many cells for 15,000 reports)
    fragment = mechanism.fragment_sketch
    record = mechanism.records(values)[theirs.positions, np.arange(n)]
    coefficient = hadamard(m)[
        theirs.fragments.columns, fragment.hash_table()[theirs.fragments.rows, record]
    ]
    cells = (theirs.positions * k + theirs.fragments.rows) * 2 + (
        theirs.fragments.bits == coefficient
    )
    r = fragment.flip_probability
    row = np.tile([r, 1 - r], positions * k) / (positions * k)
    _assert_same_law(cells, np.zeros(n, dtype=int), row[None, :], "SFP fragments")
