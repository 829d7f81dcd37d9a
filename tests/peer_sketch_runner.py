"""Run pure-ldp 1.2.0's sketches on OUR hash functions, in a process of its own (tests/peers/test_peer_sketches.py starts it).

Reads one JSON task on stdin, prints one JSON answer (with ``--serve``, one per line for every task of the
test module, in this one process: tests/peer_worker.py): the peer's client reports on the given values and the
peer's server estimates on its own reports and on ours.  The process's PYTHONPATH is build/bench-peers (the
peers, installed by `make peers`, never in .venv) and the repository (for our universal hash).  The peers
draw from Python's and NumPy's global generators, seeded here from the task.

pure-ldp 1.2.0's sketch servers (CMSServer, PCSServer) call ``np.zeros(None)``, which NumPy 2 refuses: the
runner gives that one module NumPy 1's reading (a 0-d array), :class:`_NumPy1Zeros`.

The peers hash ``str(item)`` with xxhash; here every hash function a peer receives is ours,
h_j(x) = ((a_j x + b_j) mod P) mod m, applied to the integer the peer's string stands for (a word "0101" read
in base 2, a fragment record "t_01" read as t·2^fragment_bits + 01), so both sides hash alike.
"""

from __future__ import annotations

import json
import random
import sys
import warnings
import zlib
from functools import cache

import numpy as np

from ldp_helpers.mechanisms.local_hashing import universal_hash


def _item(data, fragment_bits: int = 0) -> int:
    text = str(data)
    if (
        "*" in text
    ):  # the peer's padded fragments: no user holds one; a distinct integer outside our records
        return 2**24 + zlib.crc32(text.encode()) % 2**24
    if "_" in text:
        puzzle, fragment = text.split("_")
        return int(puzzle) * 2**fragment_bits + int(fragment, 2)
    return int(text, 2) if fragment_bits else int(text)


def _hash(a, b, m, fragment_bits=0):
    """h_{a,b} on the peer's item; memoized per integer (the peers hash a few thousand items ~10⁵ times)."""
    hashed = cache(lambda x: int(universal_hash(a, b, x, m)))
    return lambda data: hashed(_item(data, fragment_bits))


def _hashes(task, m_key="m", fragment_bits=0):
    return [_hash(a, b, task[m_key], fragment_bits) for a, b in zip(task["hash_a"], task["hash_b"])]


class _NumPy1Zeros:
    """NumPy for the peer's FreqOracleServer, whose sketch subclasses pass d=None: ``np.zeros(None)`` was a 0-d array
    in NumPy 1 and is a TypeError in NumPy 2 (pure-ldp 1.2.0 predates it).  Only that module sees this shim."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def zeros(shape, *args, **kwargs):
        return np.zeros(() if shape is None else shape, *args, **kwargs)


def _restore_numpy1_zeros() -> None:
    import pure_ldp.core._freq_oracle_server as base

    base.np = _NumPy1Zeros()


def hcms(task):
    from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer

    eps, k, m, d = task["epsilon"], task["k"], task["m"], task["d"]
    client = CMSClient(eps, _hashes(task), m, is_hadamard=True)
    peer_reports = [client.privatise(v) for v in task["values"]]

    def estimates(reports):
        server = CMSServer(eps, k, m, is_hadamard=True)
        server.hash_funcs = _hashes(task)
        for bit, j, l in reports:
            server.aggregate((int(bit), int(j), int(l)))
        return [float(server.estimate(x, suppress_warnings=True)) for x in range(d)]

    return {
        "peer_reports": [[int(b), int(j), int(l)] for b, j, l in peer_reports],
        "peer_estimates_own": estimates(peer_reports),
        "peer_estimates_ours": estimates(task["our_reports"]),
    }


def pcs(task):
    from pure_ldp.frequency_oracles.priv_count_sketch import PCSClient, PCSServer

    eps, k, m, d = task["epsilon"], task["k"], task["m"], task["d"]
    signs = [
        _hash(a, b, 2) for a, b in zip(task["sign_a"], task["sign_b"])
    ]  # our g = 1 − 2·bit; the peer's 2·G − 1
    pairs = list(zip(_hashes(task), [lambda data, s=s: 1 - s(data) for s in signs]))
    client = PCSClient(eps, k, m, pairs)
    peer_reports = [client.privatise(v) for v in task["values"]]

    def estimates(reports, use_median):
        server = PCSServer(eps, k, m, use_median=use_median)
        server.hash_funcs = pairs
        for vector, j in reports:
            server.aggregate((np.asarray(vector, dtype=float), int(j)))
        return [float(server.estimate(x, suppress_warnings=True)) for x in range(d)]

    ours = [(vector, j) for vector, j in zip(task["our_vectors"], task["our_rows"])]
    return {
        "peer_vectors": [np.asarray(v).astype(int).tolist() for v, _ in peer_reports],
        "peer_rows": [int(j) for _, j in peer_reports],
        "peer_mean_own": estimates(peer_reports, False),
        "peer_mean_ours": estimates(ours, False),
        "peer_median_ours": estimates(ours, True),
    }


def sketch_response(task):
    from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
    from pure_ldp.frequency_oracles.sketch_response import (
        SketchResponseClient,
        SketchResponseServer,
    )

    eps, k, m, d = task["epsilon"], task["k"], task["m"], task["d"]
    identity = lambda x: x  # noqa: E731 - the peers' index mappers are 1-based by default
    client = SketchResponseClient(
        eps,
        m,
        _hashes(task),
        fo_client=DEClient(eps, m, index_mapper=identity),
        index_mapper=identity,
    )
    peer_reports = [client.privatise(v) for v in task["values"]]

    def estimates(reports, method):
        server = SketchResponseServer(
            eps,
            k,
            m,
            fo_server=DEServer(eps, m, index_mapper=identity),
            sketch_method=method,
            index_mapper=identity,
        )
        server.hash_funcs = _hashes(task)
        for y, j in reports:
            server.aggregate((int(y), int(j)))
        return [float(server.estimate(x, suppress_warnings=True)) for x in range(d)]

    return {
        "peer_reports": [[int(y), int(j)] for y, j in peer_reports],
        "peer_estimates_own": estimates(peer_reports, 3),
        "peer_estimates_ours": estimates(task["our_reports"], 3),
        "peer_countmin_ours": estimates(task["our_reports"], 0),
    }


def sfp(task):
    from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer
    from pure_ldp.heavy_hitters.apple_sfp import SFPClient, SFPServer

    eps, k, m, bits, fb = task["epsilon"], task["k"], task["m"], task["bits"], task["fragment_bits"]
    hashes = _hashes(task, fragment_bits=fb)

    def puzzle(string):
        return int(universal_hash(task["puzzle_a"], task["puzzle_b"], int(string, 2), 256))

    # find_heavy_hitters adds the padding character with ``alphabet.add``: the alphabet must be a set (its
    # default, a list, fails there)
    client = SFPClient(
        eps, fb, bits, alphabet={"0", "1"}, fo_client=CMSClient(eps, hashes, m, is_hadamard=True)
    )
    client.hash_256 = puzzle
    words = [format(v, f"0{bits}b") for v in task["values"]]
    peer_reports = [client.privatise(w) for w in words]
    server = SFPServer(
        eps, fb, bits, alphabet={"0", "1"}, fo_server=CMSServer(eps, k, m, is_hadamard=True)
    )
    for oracle in [server.word_fo, *server.fragment_fo_list]:
        oracle.hash_funcs = hashes
    for fragment, word, l in task["our_reports"]:
        server.aggregate((tuple(fragment), tuple(word), int(l)))
    records = [f"{t}_{format(f, f'0{fb}b')}" for t in range(256) for f in range(2**fb)]
    found, _ = server.find_heavy_hitters(k=task["kept"])
    return {
        "peer_reports": [[*map(int, f), *map(int, w), int(l)] for f, w, l in peer_reports],
        "peer_word_estimates_ours": [
            float(server.word_fo.estimate(format(v, f"0{bits}b"), suppress_warnings=True))
            for v in task["query_words"]
        ],
        "peer_fragment_estimates_ours": [
            [float(o.estimate(r, suppress_warnings=True)) for r in records]
            for o in server.fragment_fo_list
        ],
        "peer_users_per_position": [int(o.n) for o in server.fragment_fo_list],
        "peer_candidates_ours": sorted({int(w, 2) for w in found}),
    }


def answer(task: dict) -> dict:
    """One task's JSON-ready answer, the generators seeded from the task."""
    random.seed(task["seed"])
    np.random.seed(task["seed"] % 2**32)
    return {"hcms": hcms, "pcs": pcs, "sketch_response": sketch_response, "sfp": sfp}[task["task"]](
        task
    )


if __name__ == "__main__":
    warnings.simplefilter("ignore")  # the peers warn on small n and small ε
    _restore_numpy1_zeros()
    if sys.argv[1:] == ["--serve"]:  # every task of the test module, in this one process
        from peer_worker import serve

        serve(answer)
    else:
        print(json.dumps(answer(json.load(sys.stdin))))
