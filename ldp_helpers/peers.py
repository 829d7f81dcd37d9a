"""Audit the peers' unary-encoding clients (pure-ldp 1.1.2 and 1.2.0, multi-freq-ldpy), each in its own process.

pure-ldp 1.1.2 and 1.2.0 are the same import name, so each peer runs in a subprocess whose
``PYTHONPATH`` is that peer's folder (``build/peers-1.1.2`` or ``build/bench-peers``, installed by
``make peers``); the subprocess audits with :func:`ldp_helpers.audit.auditor.run_audit` and prints JSON.
The peers draw from NumPy's legacy global generator (and pure-ldp also from :mod:`random`); each
batch reseeds both from the chunk's Generator, so the peers' audits are reproducible too.

Run one peer by hand::

    PYTHONPATH=build/peers-1.1.2 .venv/bin/python -m ldp_helpers.peers pure-ldp-1.1.2 \\
        --n-trials 100000 --seed 1

References
----------
[arcolezi2024] (pure-ldp 1.1.2's UE client never clears the true bit: Pr[1 | true] = p + (1 − p)q).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass

import joblib
import numpy as np

from ldp_helpers._paths import BUILD_DIR, REPO_ROOT
from ldp_helpers._validation import (
    MAX_N_DRAWS, check_bool, check_choice, check_epsilon, check_int, check_real, check_rng, fail, fail_type)
from ldp_helpers.sweeps import DASK_ADDRESS_ENV

#: peer → (folder holding it, the distribution name and version it must be)
PEERS = {
    "pure-ldp-1.1.2": (BUILD_DIR / "peers-1.1.2", "pure-ldp", "1.1.2"),
    "pure-ldp-1.2.0": (BUILD_DIR / "bench-peers", "pure-ldp", "1.2.0"),
    "multi-freq-ldpy": (BUILD_DIR / "bench-peers", "multi-freq-ldpy", "0.2.5"),
}
PROTOCOLS = ("SUE", "OUE")


# --------------------------------------------------------------------------- the peers' parameter rules
# Written from the peers' sources (multi-freq-ldpy 0.2.5, pure-ldp 1.2.0) so that notebook 07 can compute what they
# imply; tests/test_peer_parity_field_c.py and tests/test_field_oracles_peers.py check them against the running peers.

def multi_freq_ldpy_subset_size(epsilon: float, d: int) -> int:
    """multi-freq-ldpy's SS subset size: ``max(1, rint(d/(e^ε + 1)))`` (``SS_Client``; ours minimizes the exact variance).

    References
    ----------
    [arcolezi2022ldpy] (``SS_Client``); [ye2018] (k ≈ d/(e^ε + 1)).
    """
    epsilon, d = check_epsilon(epsilon, high=700.0), check_int("d", d, low=2, high=2**40)
    return int(max(1, np.rint(d / (np.exp(epsilon) + 1))))


def pure_ldp_hadamard_coefficients(epsilon: float) -> int:
    """pure-ldp's Hadamard mechanism ``use_optimal_t``: t = ⌈log2(e^ε + 1)⌉ (ours: the variance-minimizing t).

    References
    ----------
    [cormode2021] (the Hadamard mechanism's t).
    """
    return int(np.ceil(np.log2(np.exp(check_epsilon(epsilon, high=700.0)) + 1)))


def multi_freq_ldpy_lgrr_rounds(d: int, epsilon_permanent: float, epsilon: float) -> tuple[float, float, float, float]:
    """(p₁, q₁, p₂, q₂) of multi-freq-ldpy's L-GRR (``L_GRR_Client``): GRR at ε∞, then its closed-form second round.

    References
    ----------
    [arcolezi2022] (L-GRR); [arcolezi2022ldpy] (``L_GRR_Client``).
    """
    d = check_int("d", d, low=2, high=2**40)
    eps_perm, eps_1 = check_epsilon(epsilon_permanent, "epsilon_permanent", high=700.0), check_epsilon(epsilon, high=700.0)
    p1 = np.exp(eps_perm) / (np.exp(eps_perm) + d - 1)
    q1 = (1 - p1) / (d - 1)
    e1 = np.exp(eps_1)
    p2 = (q1 - e1 * p1) / (-p1 * e1 + d * q1 * e1 - q1 * e1 - p1 * (d - 1) + q1)
    return float(p1), float(q1), float(p2), float((1 - p2) / (d - 1))


def reseed_globals(rng: np.random.Generator) -> None:
    """Seed the peers' global generators (NumPy legacy and :mod:`random`) from our Generator."""
    rng = check_rng(rng)
    np.random.seed(int(rng.integers(2**32)))
    random.seed(int(rng.integers(2**63)))


_NUMBA_SEED = []


def reseed_numba(rng: np.random.Generator) -> None:
    """Seed numba's own generator too (multi-freq-ldpy's clients are ``@jit(nopython=True)``: their
    ``np.random`` calls draw from numba's state, which only a jitted ``np.random.seed`` sets)."""
    reseed_globals(check_rng(rng))
    if not _NUMBA_SEED:
        from numba import njit

        @njit
        def seed(value):
            np.random.seed(value)
        _NUMBA_SEED.append(seed)
    _NUMBA_SEED[0](int(rng.integers(2**32)))


@dataclass(frozen=True)
class PureLdpUE:
    """pure-ldp's ``UEClient(ε, d, use_oue)``; its domain is 1-based, so value x is sent as x + 1."""

    epsilon: float
    d: int
    oue: bool

    def __post_init__(self):
        _check_ue(self)

    def __call__(self, value):
        from pure_ldp.frequency_oracles.unary_encoding import UEClient
        client = _CLIENTS.get(self)
        if client is None:
            client = _CLIENTS[self] = UEClient(self.epsilon, self.d, use_oue=self.oue)
        return client.privatise(int(value) + 1)


@dataclass(frozen=True)
class MultiFreqUE:
    """multi-freq-ldpy's ``UE_Client(x, k, ε, optimal)`` (0-based)."""

    epsilon: float
    d: int
    oue: bool

    def __post_init__(self):
        _check_ue(self)

    def __call__(self, value):
        from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Client
        return UE_Client(int(value), self.d, self.epsilon, optimal=self.oue)


_CLIENTS: dict = {}


def _check_ue(client) -> None:
    check_epsilon(client.epsilon)
    check_int("d", client.d, low=2)
    check_bool("oue", client.oue)


def check_peer_arguments(*, epsilon, d, n_trials, seed, confidence, n_jobs, chunk_size=20_000) -> None:
    """A peer audit's arguments (checked before any process starts): the same limits as :func:`~ldp_helpers.audit.auditor.run_audit`."""
    check_epsilon(epsilon)
    check_int("d", d, low=2, high=10**6)
    check_int("n_trials", n_trials, low=1, high=MAX_N_DRAWS)
    check_int("seed", seed, low=0, high=2**63 - 1)
    check_real("confidence", confidence, low=0.0, high=1.0)
    if check_int("n_jobs", n_jobs) == 0:
        fail("n_jobs", n_jobs, "a non-zero integer (joblib: -1 = all cores)")
    check_int("chunk_size", chunk_size, low=1)


def audit_peer_here(peer: str, *, epsilon: float, d: int, n_trials: int, seed: int, confidence: float,
                    n_jobs: int = 1, chunk_size: int = 20_000) -> dict:
    """Audit SUE and OUE of ``peer`` in this process (its package must be importable); JSON-ready dict."""
    from importlib.metadata import version

    from ldp_helpers.audit.auditor import BlackBoxClient, run_audit
    check_peer_arguments(epsilon=epsilon, d=d, n_trials=n_trials, seed=seed, confidence=confidence, n_jobs=n_jobs,
                         chunk_size=chunk_size)
    _, dist, expected = PEERS[check_choice("peer", peer, PEERS)]
    found = version(dist)
    if found != expected:
        raise RuntimeError(f"peer {peer!r} needs {dist}=={expected} on the path, found {found}")
    out = {"peer": peer, "version": found, "audits": {}}
    for index, protocol in enumerate(PROTOCOLS):
        cls, reseed = (PureLdpUE, reseed_globals) if dist == "pure-ldp" else (MultiFreqUE, reseed_numba)
        client = BlackBoxClient(cls(epsilon, d, protocol == "OUE"), reseed=reseed)
        r = run_audit(client, 0, 1, n_trials=n_trials, seed=np.random.SeedSequence([seed, index]), confidence=confidence,
                  claimed_epsilon=epsilon, n_jobs=n_jobs, chunk_size=chunk_size)
        out["audits"][protocol] = {
            "epsilon_lb": r.epsilon_lb, "count0": r.count0, "count1": r.count1, "p0_low": r.p0_low,
            "p1_high": r.p1_high, "event": str(r.event), "violation": bool(r.violation),
            "violation_confidence": r.violation_confidence, "n_trials": r.n_trials, "confidence": r.confidence}
    return out


def audit_peer(peer: str, *, epsilon: float, d: int, n_trials: int, seed: int, confidence: float,
               n_jobs: int = 1, timeout: float = 3600.0) -> dict:
    """Audit ``peer`` (a key of :data:`PEERS`) in a subprocess with only that peer's folder on its path."""
    check_choice("peer", peer, PEERS)
    check_peer_arguments(epsilon=epsilon, d=d, n_trials=n_trials, seed=seed, confidence=confidence, n_jobs=n_jobs)
    timeout = check_real("timeout", timeout, low=0.0)
    folder = PEERS[peer][0]
    if not folder.is_dir():
        raise FileNotFoundError(f"peer {peer!r} is not installed in {folder}: run `make peers`")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(REPO_ROOT)]))
    env.pop(DASK_ADDRESS_ENV, None)  # the peers are installed here only: their chunks stay on local processes
    command = [sys.executable, "-m", "ldp_helpers.peers", peer, "--epsilon", repr(epsilon),
               "--d", str(d), "--n-trials", str(n_trials), "--seed", str(seed), "--confidence", repr(confidence),
               "--n-jobs", str(n_jobs)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"the audit of {peer} failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def peer_audits(*, epsilon: float, d: int, n_trials: int, seed: int, confidence: float, peers=None,
                n_jobs: int = 3) -> dict[str, dict]:
    """Every peer's SUE and OUE audit (:func:`audit_peer`), peers concurrently."""
    if peers is not None and (isinstance(peers, str) or not isinstance(peers, (list, tuple))):
        fail_type("peers", peers, f"None or a list/tuple of peers {sorted(PEERS)}")
    peers = list(PEERS) if peers is None else [check_choice("peers", peer, PEERS) for peer in peers]
    check_peer_arguments(epsilon=epsilon, d=d, n_trials=n_trials, seed=seed, confidence=confidence, n_jobs=1)
    if check_int("n_jobs", n_jobs) == 0:
        fail("n_jobs", n_jobs, "a non-zero integer (threads; -1 = as many as peers)")
    calls = (joblib.delayed(audit_peer)(peer, epsilon=epsilon, d=d, n_trials=n_trials, seed=seed, confidence=confidence)
             for peer in peers)
    results = joblib.Parallel(n_jobs=n_jobs, backend="threading")(calls)
    return dict(zip(peers, results))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("peer", choices=sorted(PEERS))
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--d", type=int, default=4)
    parser.add_argument("--n-trials", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--confidence", type=float, default=0.99)
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)
    print(json.dumps(audit_peer_here(args.peer, epsilon=args.epsilon, d=args.d, n_trials=args.n_trials,
                                     seed=args.seed, confidence=args.confidence, n_jobs=args.n_jobs)))


if __name__ == "__main__":
    main()
