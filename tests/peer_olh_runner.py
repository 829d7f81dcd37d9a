"""Run a peer's own OLH client and server, in a process of its own (tests/interop/test_interop_peer_reports.py starts it).

Reads one JSON task ``{"peer", "epsilon", "d", "values", "seed"}`` on stdin, prints one JSON answer: the peer's
reports ``[y, seed]`` of the values (0-based; pure-ldp is given x + 1) and its own server's estimates on them
(pure-ldp: unbiased counts; multi-freq-ldpy: MI frequencies, clipped at 0 and renormalized).  The process's
PYTHONPATH is that peer's folder (``build/peers-1.1.2`` or ``build/bench-peers``, installed by ``make peers``)
and the repository; the peers draw from NumPy's, :mod:`random`'s and numba's generators, seeded from the task.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version

import numpy as np

from ldp_helpers.sweeps import seeded_globals
from ldp_tools.peers import PEERS, _cache_jitted, _reseed_numba


def answer(task: dict) -> dict:
    """The peer's OLH reports of ``task["values"]`` and its server's estimates, JSON-ready."""
    peer, epsilon, d, values = task["peer"], task["epsilon"], task["d"], task["values"]
    _, dist, _ = PEERS[peer]
    rng = np.random.default_rng(task["seed"])
    with seeded_globals(rng):
        if dist == "pure-ldp":
            from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer

            client, server = LHClient(epsilon, d, use_olh=True), LHServer(epsilon, d, use_olh=True)
            reports = [client.privatise(x + 1) for x in values]
            server.aggregate_all(reports)
            server.check_and_update_estimates()
            estimates, estimator = server.estimated_data, "unbiased counts (LHServer)"
        else:
            from multi_freq_ldpy.pure_frequency_oracles import GRR, UE
            from multi_freq_ldpy.pure_frequency_oracles.LH import LH_Aggregator_MI, LH_Client

            _cache_jitted(GRR, UE)  # compiled once per machine (GRR under its LH client)
            _reseed_numba(rng)
            reports = [LH_Client(x, d, epsilon, True) for x in values]
            estimates, estimator = (
                LH_Aggregator_MI(reports, d, epsilon, True),
                "MI frequencies (LH_Aggregator_MI)",
            )
    return {
        "peer": peer,
        "version": version(dist),
        "reports": [[int(y), int(s)] for y, s in reports],
        "estimates": np.asarray(estimates, dtype=float).tolist(),
        "estimator": estimator,
    }


if __name__ == "__main__":
    print(json.dumps(answer(json.load(sys.stdin))))
