"""Worker for tests/peers/test_field_oracles_peers.py: runs the peers' clients and servers in their own process.

Run as ``PYTHONPATH=build/bench-peers python tests/peer_field_oracles.py REQUEST.json RESULT.npz`` (or with
``--serve``, every request of the test module in one process: tests/peer_worker.py): the
request names a task (``ss``, ``hr``, ``hm``, ``flh``) and its arguments; the result holds the peer's
reports (in our 0-based formats) and the peer's estimates, of its own reports and of ours.  The peers
(pure-ldp 1.2.0, multi-freq-ldpy 0.2.5 and their xxhash 3.8.2, numba) never enter ``.venv``; they draw
from NumPy's legacy global generator, :mod:`random` and (multi-freq-ldpy) numba's own state, all
seeded here from the request's seed.  The peers' 1-based pure-ldp domain gets x + 1.
"""

from __future__ import annotations

import json
import random
import sys
import warnings

import numpy as np


def _seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)


def _pure_ldp_estimates(server) -> np.ndarray:
    server.check_and_update_estimates()
    return np.asarray(server.estimated_data, dtype=float)


def ss(req: dict) -> dict:
    """multi-freq-ldpy's SS: its client's reports for each survey, its MI estimates of them and of ours."""
    from multi_freq_ldpy.pure_frequency_oracles.SS import SS_Aggregator_MI, SS_Client
    from numba import njit

    @njit
    def seed_numba(value):
        np.random.seed(value)

    _seed(req["seed"])
    seed_numba(req["seed"] % 2**32)
    eps, d, values = req["epsilon"], req["d"], np.array(req["values"])
    reports = np.array([[SS_Client(int(v), d, eps) for v in values] for _ in range(req["surveys"])])
    theirs = np.array([SS_Aggregator_MI(list(r), d, eps) for r in reports])
    ours = np.array([SS_Aggregator_MI(list(r), d, eps) for r in np.array(req["our_reports"])])
    return {"reports": reports, "mi_of_theirs": theirs, "mi_of_ours": ours}


def hr(req: dict) -> dict:
    """pure-ldp's HR: its reports, its server's unnormalized count estimates of them and of ours, its permutation."""
    from pure_ldp.frequency_oracles.hadamard_response import (
        HadamardResponseClient,
        HadamardResponseServer,
    )

    _seed(req["seed"])
    eps, d, values = req["epsilon"], req["d"], np.array(req["values"])
    server = HadamardResponseServer(eps, d)
    client = HadamardResponseClient(eps, d, server.get_hash_funcs())
    permute = np.array(server.hr.permute) if eps > 1 else np.arange(d)
    reports, estimates = [], []
    for _ in range(req["surveys"]):
        server.reset()
        survey = [client.privatise(int(v) + 1) for v in values]
        server.aggregate_all(survey)
        reports.append(survey)
        estimates.append(_pure_ldp_estimates(server))
    if eps > 1:  # our reports carry no permutation: decode them with the identity
        server.hr.permute, server.hr.reverse = np.arange(d), np.arange(d)
    server.reset()
    server.aggregate_all([int(y) for y in req["our_reports"]])
    return {
        "reports": np.array(reports),
        "estimates": np.array(estimates),
        "permute": permute,
        "estimates_of_ours": _pure_ldp_estimates(server),
        "K": np.int64(server.hr.outsz),
    }


def hm(req: dict) -> dict:
    """pure-ldp's Hadamard mechanism: its (index, sign) pairs per user and its estimates of them and of ours."""
    from pure_ldp.frequency_oracles.hadamard_mechanism import HadamardMechClient, HadamardMechServer

    _seed(req["seed"])
    eps, d, t, values = req["epsilon"], req["d"], req["t"], np.array(req["values"])
    client, server = HadamardMechClient(eps, d, t), HadamardMechServer(eps, d, t)
    indices, signs, estimates = [], [], []
    for _ in range(req["surveys"]):
        server.reset()
        pairs = [list(client.privatise(int(v) + 1)) for v in values]
        server.aggregate_all(pairs)
        indices.append([[j for j, _ in p] for p in pairs])
        signs.append([[s for _, s in p] for p in pairs])
        estimates.append(_pure_ldp_estimates(server) / t)
    server.reset()
    ours = np.array(req["our_indices"]), np.array(req["our_signs"])
    server.aggregate_all([list(zip(j.tolist(), s.tolist())) for j, s in zip(*ours)])
    return {
        "indices": np.array(indices),
        "signs": np.array(signs),
        "estimates": np.array(estimates),
        "estimates_of_ours": _pure_ldp_estimates(server) / t,
    }


def flh(req: dict) -> dict:
    """pure-ldp's FLH: its xxhash table, its reports (j, y), its estimates of them, and of ours under our hash table."""
    from pure_ldp.frequency_oracles.local_hashing import FastLHClient, FastLHServer

    _seed(req["seed"])
    eps, d, k, g, values = req["epsilon"], req["d"], req["k"], req["g"], np.array(req["values"])
    client = FastLHClient(eps, d, k, g=g, use_olh=False)
    server = FastLHServer(eps, d, k, g=g, use_olh=False)
    reports, estimates = [], []
    for _ in range(req["surveys"]):
        server.reset()
        server.hash_counts = np.zeros((k, g))
        survey = [client.privatise(int(v) + 1) for v in values]
        server.aggregate_all(survey)
        reports.append([(j, y) for y, j in survey])
        estimates.append(_pure_ldp_estimates(server))
    ours = FastLHServer(
        eps, d, k, g=g, use_olh=False, hash_matrix=np.array(req["our_table"], dtype=float)
    )
    ours.aggregate_all([(int(y), int(j)) for j, y in req["our_reports"]])
    return {
        "table": np.array(server.hash_matrix, dtype=np.int64),
        "reports": np.array(reports),
        "estimates": np.array(estimates),
        "estimates_of_ours": _pure_ldp_estimates(ours),
    }


def quirks(req: dict) -> dict:
    """Where pure-ldp's defaults and servers differ from the papers' constructions (notes for notebook 07)."""
    from pure_ldp.frequency_oracles.hadamard_mechanism import HadamardMechClient, HadamardMechServer
    from pure_ldp.frequency_oracles.local_hashing import FastLHClient, FastLHServer

    _seed(req["seed"])
    eps = req["epsilon"]
    client, server = FastLHClient(eps, 8, 4), FastLHServer(eps, 8, 4)
    server.aggregate(client.privatise(1))
    server.reset()
    hm_client, hm_server = HadamardMechClient(eps, 6, 1), HadamardMechServer(eps, 6, 1)
    try:
        hm_server.aggregate_all([hm_client.privatise(v) for v in range(1, 7)])
        hm_server.estimate(1)
        hm_error = ""
    except Exception as err:  # the fast transform of a length-6 vector
        hm_error = type(err).__name__
    return {
        "flh_client_g": np.int64(client.g),
        "flh_server_g": np.int64(server.g),
        "flh_counts_after_reset": server.hash_counts.sum(),
        "flh_n_after_reset": np.int64(server.n),
        "hm_optimal_t": np.int64(HadamardMechClient(eps, 8, 1, use_optimal_t=True).t),
        "hm_d6_error": np.array(hm_error),
    }


TASKS = {"ss": ss, "hr": hr, "hm": hm, "flh": flh, "quirks": quirks}


def _answer(request: dict) -> dict:
    """One request: its task's arrays written to ``request["result"]`` (an .npz file)."""
    np.savez(request["result"], **TASKS[request["task"]](request))
    return {"result": request["result"]}


if __name__ == "__main__":
    warnings.simplefilter("ignore")  # the peers warn on small n and small ε
    if sys.argv[1:] == ["--serve"]:  # every task of a test module, in this one process
        from peer_worker import serve

        serve(_answer)
    else:
        request = json.loads(open(sys.argv[1], encoding="utf-8").read())
        _answer({**request, "result": sys.argv[2]})
