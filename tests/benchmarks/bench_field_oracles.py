"""The field's oracles (SS, HR, HM, FLH) and the sketches: each exact sampler against its draws and the peers.

Rows "<oracle> sampler / its draws" (issue 40 item 3): the sampler against the very same Generator calls
with the very same arguments, precomputed (:func:`timing.recorded_draws` logs them on one call and replays
them), as ``bench_aggregate_samplers`` does by hand for GRR, OUE and OLH: what the sampler adds to its random
draws.  The Hadamard halvings (and the sketches' equal split of each value's users over 2^a rows,
:func:`~ldp_helpers.mechanisms.hadamard._equal_multinomial`) draw their Bin(c, ½) splits as counts of fair
random bits (:func:`~ldp_helpers.mechanisms.hadamard._fair_binomial`); their draws are replayed as numpy's
own ``binomial(c, 0.5)`` of the same counts (the same variates, drawn by numpy).  The note also gives the
sampler against numpy drawing an output of the same size with two binomial arrays (Bin(n/S, ½) twice over
the S cells of the aggregate): a floor no exact sampler of these laws reaches when the law needs more
draws than cells (SS's tree of histograms, the sketches' per-value row split, the Hadamard halvings).

Rows "<oracle> eps=1, n=…, d=…": our aggregate sampler against the per-user client and server of each peer
that ships the oracle (pure-ldp 1.2.0: HR, the Hadamard mechanism, FLH, CMS, HCMS, the private count sketch,
sketch response; multi-freq-ldpy 0.2.5: SS), each configured as the peer is (SS's k rounded as
multi-freq-ldpy does, HR with pure-ldp's single block at ε ≤ 1, the peers' own hashes), timed on
``PEER_USERS`` users and scaled linearly to n, as ``bench_frequency_oracles`` does; ours is timed on the
true counts of n users (the samplers that draw user by user below a cost threshold do so at n = 1e5).  pure-ldp's Hadamard
mechanism needs d a power of 2 (its transform), so it has rows at d = 1024 only; pure-ldp 1.2.0 ships no
Hashtogram (its module is commented out), so Hashtogram has sampler rows only.
"""

from __future__ import annotations

import random
import time
import warnings
from unittest import mock

import numpy as np
from bench_frequency_oracles import PEERS_DIR
from timing import Timing, median_time, paired_times, recorded_draws

from ldp_helpers.mechanisms.count_mean_sketch import CountMeanSketch
from ldp_helpers.mechanisms.count_sketch import PrivateCountSketch
from ldp_helpers.mechanisms.fast_local_hashing import FastLocalHashing
from ldp_helpers.mechanisms.hadamard_mechanism import HadamardMechanism
from ldp_helpers.mechanisms.hadamard_response import HadamardResponse
from ldp_helpers.mechanisms.hadamard_sketch import HadamardCountMeanSketch
from ldp_helpers.mechanisms.hashtogram import Hashtogram
from ldp_helpers.mechanisms.sketch_response import SketchResponse
from ldp_helpers.mechanisms.subset_selection import SubsetSelection
from ldp_tools.peers import multi_freq_ldpy_subset_size

EPSILON = 1.0
DOMAINS = (43, 1024)
PEER_N = (10**5, 10**6)
SAMPLER_N = 10**6  # the samplers' cost does not depend on n
SKETCH = (16, 256)  # k rows (hash functions), width m: the explorer's sketch
FLH_K = 16
PEER_USERS = 1_000  # users per timed peer run (then scaled to n)
TARGET_DRAWS, TARGET_PEERS = 1.5, 1000.0


def _oracles(d: int, rng: np.random.Generator) -> dict:
    k, m = SKETCH
    return {
        "SS": SubsetSelection(EPSILON, d, subset_size=multi_freq_ldpy_subset_size(EPSILON, d)),
        "HR": HadamardResponse(EPSILON, d, n_blocks=1),
        "HM": HadamardMechanism(EPSILON, d),
        "FLH": FastLocalHashing.create(EPSILON, d, FLH_K, rng=rng),
        "CMS": CountMeanSketch.create(EPSILON, d, k, m, rng=rng),
        "HCMS": HadamardCountMeanSketch.create(EPSILON, d, k, m, rng=rng),
        "PCS": PrivateCountSketch.create(EPSILON, d, k, m, rng=rng),
        "Hashtogram": Hashtogram.create(EPSILON, d, k, m, rng=rng),
        "SR": SketchResponse.create(EPSILON, d, k, m, rng=rng),
    }


def _numpy_fair_binomials():
    """The halvings' Bin(c, ½) splits drawn by numpy's binomial while the draws are recorded (same law)."""
    return mock.patch(
        "ldp_helpers.mechanisms.hadamard._fair_binomial", lambda c, rng: rng.binomial(c, 0.5)
    )


def _sampler_row(label: str, name: str, oracle, counts, rng) -> Timing:
    sampler = lambda: oracle.sample_aggregate(counts, rng=rng)  # noqa: E731
    with _numpy_fair_binomials():
        draws, n_calls = recorded_draws(lambda g: oracle.sample_aggregate(counts, rng=g), rng)
    cells = np.asarray(sampler()).size
    per_cell = np.full(cells, SAMPLER_N // cells)
    output = lambda: (rng.binomial(per_cell, 0.5), rng.binomial(per_cell, 0.5))  # noqa: E731
    number = max(1, int(0.01 / median_time(sampler, repeat=1)))
    t_sampler, t_draws, ratio = paired_times(sampler, draws, repeat=11, number=number)
    _, t_output, over_output = paired_times(sampler, output, repeat=5, number=number)
    return Timing(
        label,
        f"{name} sampler / its draws",
        t_sampler,
        f"{ratio:.2f}x its draws ({t_draws * 1e3:.3f} ms, {n_calls} Generator calls); "
        f"{over_output:,.1f}x two binomials over its {cells:,} cells ({t_output * 1e3:.3f} ms)",
    )


def _import_peers():
    import sys

    if PEERS_DIR.is_dir() and str(PEERS_DIR) not in sys.path:
        sys.path.append(str(PEERS_DIR))
    try:
        import pure_ldp.core._freq_oracle_server as base
        from multi_freq_ldpy.pure_frequency_oracles import SS as mf_ss
        from pure_ldp.frequency_oracles import (
            apple_cms,
            direct_encoding,
            hadamard_mechanism,
            hadamard_response,
            local_hashing,
            priv_count_sketch,
            sketch_response,
        )
    except ImportError as err:
        print(f"peers not importable ({err}); `make peers` installs them", file=sys.stderr)
        return None
    base.np = (
        _NumPy1Zeros()
    )  # pure-ldp 1.2.0's sketch servers call np.zeros(None) (a 0-d array in NumPy 1)
    return {
        "mf_ss": mf_ss,
        "cms": apple_cms,
        "hm": hadamard_mechanism,
        "hr": hadamard_response,
        "lh": local_hashing,
        "de": direct_encoding,
        "pcs": priv_count_sketch,
        "sr": sketch_response,
    }


class _NumPy1Zeros:
    """NumPy for pure-ldp's FreqOracleServer module, with NumPy 1's ``np.zeros(None)`` (as tests/peer_sketch_runner.py)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def zeros(shape, *args, **kwargs):
        return np.zeros(() if shape is None else shape, *args, **kwargs)


def _peer_run(peers, name: str, oracle, values):
    """One survey of ``values`` (0-based) through the peer's own client and server; None if no peer ships it."""
    d, eps, listed = oracle.d, EPSILON, values.tolist()
    if name == "SS":
        ss = peers["mf_ss"]
        return lambda: ss.SS_Aggregator_MI([ss.SS_Client(v, d, eps) for v in listed], d, eps)
    if name == "HR":

        def hr():
            server = peers["hr"].HadamardResponseServer(eps, d)
            client = peers["hr"].HadamardResponseClient(eps, d, server.get_hash_funcs())
            server.aggregate_all([client.privatise(v + 1) for v in listed])
            return server.estimate_all(range(1, d + 1), suppress_warnings=True)

        return hr
    if name == "HM":
        if d & (d - 1):
            return None

        def hm(t=oracle.coefficients):
            client, server = (
                peers["hm"].HadamardMechClient(eps, d, t),
                peers["hm"].HadamardMechServer(eps, d, t),
            )
            server.aggregate_all([client.privatise(v + 1) for v in listed])
            return server.estimate_all(range(1, d + 1), suppress_warnings=True)

        return hm
    if name == "FLH":

        def flh():
            lh = peers["lh"]
            client = lh.FastLHClient(eps, d, oracle.k, g=oracle.hash_range, use_olh=False)
            server = lh.FastLHServer(eps, d, oracle.k, g=oracle.hash_range, use_olh=False)
            server.aggregate_all([client.privatise(v + 1) for v in listed])
            return server.estimate_all(range(1, d + 1), suppress_warnings=True)

        return flh
    if name in ("CMS", "HCMS"):

        def cms():
            server = peers["cms"].CMSServer(eps, oracle.k, oracle.m, is_hadamard=name == "HCMS")
            client = peers["cms"].CMSClient(
                eps, server.get_hash_funcs(), oracle.m, is_hadamard=name == "HCMS"
            )
            for v in listed:
                server.aggregate(client.privatise(v))
            return [server.estimate(x, suppress_warnings=True) for x in range(d)]

        return cms
    if name == "PCS":

        def pcs():
            server = peers["pcs"].PCSServer(eps, oracle.k, oracle.m, use_median=False)
            client = peers["pcs"].PCSClient(eps, oracle.k, oracle.m, server.get_hash_funcs())
            for v in listed:
                server.aggregate(client.privatise(v))
            return [server.estimate(x, suppress_warnings=True) for x in range(d)]

        return pcs
    if name == "SR":

        def sr():
            identity = lambda x: x  # noqa: E731 - 0-based cells
            server = peers["sr"].SketchResponseServer(
                eps,
                oracle.k,
                oracle.m,
                index_mapper=identity,
                sketch_method=3,
                fo_server=peers["de"].DEServer(eps, oracle.m, index_mapper=identity),
            )
            client = peers["sr"].SketchResponseClient(
                eps,
                oracle.m,
                server.get_hash_funcs(),
                index_mapper=identity,
                fo_client=peers["de"].DEClient(eps, oracle.m, index_mapper=identity),
            )
            for v in listed:
                server.aggregate(client.privatise(v))
            return [server.estimate(x, suppress_warnings=True) for x in range(d)]

        return sr
    return None


PEER_NAMES = {"SS": "multi-freq-ldpy per-user"}  # every other peer here is pure-ldp


def _interleaved(fns: list, repeat: int) -> np.ndarray:
    """Seconds per call of each of ``fns`` (repeat × len(fns)), the calls alternating run by run.

    Each run of a function lasts at least ~20 ms (several calls if it is fast): on a shared machine the
    per-run ratios of functions timed side by side cancel the load's drift, which medians taken
    seconds apart do not.
    """
    numbers = []
    for fn in fns:
        start = time.perf_counter()
        fn()  # warm-up, and the size of a run
        numbers.append(max(1, int(0.02 / max(time.perf_counter() - start, 1e-9))))
    times = np.empty((repeat, len(fns)))
    for r in range(repeat):
        for j, (fn, number) in enumerate(zip(fns, numbers)):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            times[r, j] = (time.perf_counter() - start) / number
    return times


def _peer_rows(name: str, oracle, run_peer, values, rng) -> list[Timing]:
    """Our sampler on the true counts of n users against the peer's per-user run on PEER_USERS users scaled to n,
    timed alternately (the speed-up is the median of the paired ratios)."""
    d, rows = oracle.d, []
    # the first n users' true counts
    surveys = [np.bincount(values[:n], minlength=d) for n in PEER_N]
    ours = [lambda s=s: oracle.sample_aggregate(s, rng=rng) for s in surveys]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the peers warn on small n
        times = _interleaved([run_peer, *ours], repeat=3)
    for j, n in enumerate(PEER_N, start=1):
        label, scale = f"{name} eps=1, n={n:,}, d={d}", n / PEER_USERS
        speedup = float(np.median(times[:, 0] * scale / times[:, j]))
        rows.append(
            Timing(
                label,
                "our aggregate sampler",
                float(np.median(times[:, j])),
                f"exact; on {n:,} users' counts, timed alternately with the peer",
            )
        )
        rows.append(
            Timing(
                label,
                PEER_NAMES.get(name, "pure-ldp per-user"),
                float(np.median(times[:, 0])) * scale,
                f"timed on {PEER_USERS:,} users, scaled x{scale:,.0f}; "
                f"{speedup:,.0f}x our aggregate (median of 3 paired runs)",
            )
        )
    return rows


def run(rng: np.random.Generator) -> list[Timing]:
    peers = _import_peers()
    random.seed(20261121)  # the peers draw from Python's and numpy's global generators
    np.random.seed(20261121)
    sampler_rows, peer_rows = [], []
    for d in DOMAINS:
        oracles = _oracles(d, rng)
        values = rng.integers(0, d, size=SAMPLER_N)
        counts = np.bincount(values, minlength=d)
        for name, oracle in oracles.items():
            sampler_rows.append(
                _sampler_row(f"field oracles' samplers, d={d}", name, oracle, counts, rng)
            )
            run_peer = _peer_run(peers, name, oracle, values[:PEER_USERS]) if peers else None
            if run_peer is not None:
                peer_rows += _peer_rows(name, oracle, run_peer, values, rng)
    return sampler_rows + peer_rows
