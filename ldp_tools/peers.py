"""Audit the peers' clients (pure-ldp 1.1.2 and 1.2.0, multi-freq-ldpy: SUE, OUE, OLH), each in its own process.

pure-ldp 1.1.2 and 1.2.0 are the same import name, so each peer runs in a subprocess whose
``PYTHONPATH`` is that peer's folder (``build/peers-1.1.2`` or ``build/bench-peers``, installed by
``make peers``); the subprocess audits with :func:`ldp_helpers.audit.auditor.run_audit` and prints JSON.
The peers draw from NumPy's and :mod:`random`'s global generators (seeded per batch by the auditor's
:class:`~ldp_helpers.audit.auditor.BlackBoxClient`) and multi-freq-ldpy's jitted clients from numba's
(:func:`_reseed_numba`): their audits are reproducible.  OLH reports ``(y, seed)`` are audited through the values
they support (:func:`~ldp_helpers.interop.peer_reports.olh_support`).

Run one peer by hand::

    PYTHONPATH=build/peers-1.1.2 .venv/bin/python -m ldp_tools.peers pure-ldp-1.1.2 \\
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
from importlib.metadata import version

import joblib
import numpy as np

from ldp_helpers._paths import BUILD_DIR, REPO_ROOT
from ldp_helpers._validation import (
    MAX_N_DRAWS,
    check_bool,
    check_choice,
    check_epsilon,
    check_int,
    check_real,
    check_rng,
)
from ldp_helpers.interop.peer_reports import olh_support
from ldp_helpers.mechanisms.local_hashing import olh_hash_range
from ldp_helpers.sweeps import (
    DASK_ADDRESS_ENV,
    DASK_SCHEDULER_ENV,
    check_n_jobs,
    local_workers,
    seeded_globals,
)

#: peer → (folder holding it, the distribution name and version it must be)
PEERS = {
    "pure-ldp-1.1.2": (BUILD_DIR / "peers-1.1.2", "pure-ldp", "1.1.2"),
    "pure-ldp-1.2.0": (BUILD_DIR / "bench-peers", "pure-ldp", "1.2.0"),
    "multi-freq-ldpy": (BUILD_DIR / "bench-peers", "multi-freq-ldpy", "0.2.5"),
}
PROTOCOLS = ("SUE", "OUE", "OLH")
#: reports per batch of a peer's audit (its numbers depend on the batches, not on where they run)
_CHUNK_SIZE = 20_000


# --------------------------------------------------------------------------- the peers' parameter rules
# Written from the peers' sources (multi-freq-ldpy 0.2.5, pure-ldp 1.2.0) so that notebook 07 can compute what they
# imply; tests/peers/test_peer_parity_field_c.py and tests/peers/test_field_oracles_peers.py check them against the running peers.


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


def multi_freq_ldpy_lgrr_rounds(
    d: int, epsilon_permanent: float, epsilon: float
) -> tuple[float, float, float, float]:
    """(p₁, q₁, p₂, q₂) of multi-freq-ldpy's L-GRR (``L_GRR_Client``): GRR at ε∞, then its closed-form second round.

    References
    ----------
    [arcolezi2022] (L-GRR); [arcolezi2022ldpy] (``L_GRR_Client``).
    """
    d = check_int("d", d, low=2, high=2**40)
    eps_perm = check_epsilon(epsilon_permanent, "epsilon_permanent", high=700.0)
    e1 = np.exp(check_epsilon(epsilon, high=700.0))
    p1 = np.exp(eps_perm) / (np.exp(eps_perm) + d - 1)
    q1 = (1 - p1) / (d - 1)
    p2 = (q1 - e1 * p1) / (-p1 * e1 + d * q1 * e1 - q1 * e1 - p1 * (d - 1) + q1)
    return float(p1), float(q1), float(p2), float((1 - p2) / (d - 1))


def reseed_globals(rng: np.random.Generator) -> None:
    """Seed the peers' global generators (NumPy legacy and :mod:`random`) from our Generator."""
    rng = check_rng(rng)
    np.random.seed(int(rng.integers(2**32)))
    random.seed(int(rng.integers(2**63)))


_NUMBA_SEED = []


def _reseed_numba(rng: np.random.Generator) -> None:
    """Seed numba's generator too (multi-freq-ldpy's jitted clients draw from it; only a jitted seed sets it)."""
    reseed_globals(rng)
    if not _NUMBA_SEED:
        from numba import njit

        @njit
        def seed(value):
            np.random.seed(value)

        _NUMBA_SEED.append(seed)
    _NUMBA_SEED[0](int(rng.integers(2**32)))


@dataclass(frozen=True)
class _UE:
    """A peer's UE client at (ε, d): OUE's q if ``oue``, else SUE's."""

    epsilon: float
    d: int
    oue: bool

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_int("d", self.d, low=2)
        check_bool("oue", self.oue)


@dataclass(frozen=True)
class _OLH:
    """A peer's OLH client at (ε, d) (ε ≤ 40: :func:`olh_hash_range`)."""

    epsilon: float
    d: int

    def __post_init__(self):
        olh_hash_range(check_epsilon(self.epsilon))
        check_int("d", self.d, low=2, high=10**6)


def _built(client, build):
    """The peer's client object of ``client`` (a frozen peer client), built once per process."""
    if client not in _CLIENTS:
        _CLIENTS[client] = build()
    return _CLIENTS[client]


class PureLdpUE(_UE):
    """pure-ldp's ``UEClient(ε, d, use_oue)``; its domain is 1-based: value x is sent as x + 1."""

    def __call__(self, value):
        from pure_ldp.frequency_oracles.unary_encoding import UEClient

        client = _built(self, lambda: UEClient(self.epsilon, self.d, use_oue=self.oue))
        return client.privatise(int(value) + 1)


class MultiFreqUE(_UE):
    """multi-freq-ldpy's ``UE_Client(x, k, ε, optimal)`` (0-based)."""

    def __call__(self, value):
        from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Client

        return UE_Client(int(value), self.d, self.epsilon, optimal=self.oue)


class PureLdpOLH(_OLH):
    """pure-ldp's ``LHClient(ε, d, use_olh=True)`` (x sent as x + 1); its report ``(y, seed)`` as ``(y, seed mod 2**32)``
    (the part of the seed its hash reads, exact as a float), audited through :func:`olh_support` on the batch."""

    def __call__(self, value):
        from pure_ldp.frequency_oracles.local_hashing import LHClient

        client = _built(self, lambda: LHClient(self.epsilon, self.d, use_olh=True))
        y, seed = client.privatise(int(value) + 1)
        return y, seed % 2**32


class MultiFreqOLH(_OLH):
    """multi-freq-ldpy's ``LH_Client(x, k, ε, optimal=True)`` (0-based), reported as :class:`PureLdpOLH`'s."""

    def __call__(self, value):
        from multi_freq_ldpy.pure_frequency_oracles.LH import LH_Client

        y, seed = LH_Client(int(value), self.d, self.epsilon, True)
        return y, int(seed) % 2**32


@dataclass(frozen=True)
class _OlhSupport:
    """A batch of OLH reports ``(y, seed mod 2**32)`` → the 0/1 matrix of the values each supports under the peers'
    hash (:func:`olh_support`, a post-processing): one numpy pass per batch instead of one call per report."""

    d: int
    g: int

    def __call__(self, reports: np.ndarray) -> np.ndarray:
        return olh_support(reports.astype(np.int64), self.d, self.g)


@dataclass(frozen=True)
class _Prepare:
    """A peer client's ``prepare`` (:class:`~ldp_helpers.audit.clients.BlackBoxClient`): import the peer, build its
    client object and compile its jitted code once in this process, by one call under seeded (then restored) global
    generators, so that the batches' forked children inherit them.  Every batch reseeds what the client draws from,
    so the reports do not depend on it."""

    client: object
    reseed: object = None

    def __call__(self) -> None:
        rng = np.random.default_rng(0)
        with seeded_globals(rng):
            if self.reseed is not None:
                self.reseed(rng)
            self.client(0)


_CLIENTS: dict = {}  # a frozen peer client -> the peer's client object (:func:`_built`)


def _check_peer_arguments(*, epsilon, d, n_trials, seed, confidence, n_jobs) -> None:
    """A peer audit's arguments (checked before any process starts): the same limits as :func:`~ldp_helpers.audit.auditor.run_audit`."""
    check_epsilon(epsilon)
    check_int("d", d, low=2, high=10**6)
    check_int("n_trials", n_trials, low=1, high=MAX_N_DRAWS)
    check_int("seed", seed, low=0, high=2**63 - 1)
    check_real("confidence", confidence, low=0.0, high=1.0)
    check_n_jobs(n_jobs)


def _audit_peer_here(
    peer: str,
    *,
    epsilon: float,
    d: int,
    n_trials: int,
    seed: int,
    confidence: float,
    n_jobs: int = 1,
) -> dict:
    """Audit SUE, OUE and OLH of ``peer`` in this process (its package must be importable); JSON-ready dict."""
    from ldp_helpers.audit.auditor import BlackBoxClient, run_audit

    _check_peer_arguments(
        epsilon=epsilon, d=d, n_trials=n_trials, seed=seed, confidence=confidence, n_jobs=n_jobs
    )
    _, dist, expected = PEERS[check_choice("peer", peer, PEERS)]
    found = version(dist)
    if found != expected:
        raise RuntimeError(f"peer {peer!r} needs {dist}=={expected} on the path, found {found}")
    out = {"peer": peer, "version": found, "audits": {}}
    for index, protocol in enumerate(PROTOCOLS):
        pure = dist == "pure-ldp"
        peer_client = (
            (PureLdpOLH if pure else MultiFreqOLH)(epsilon, d)
            if protocol == "OLH"
            else (PureLdpUE if pure else MultiFreqUE)(epsilon, d, protocol == "OUE")
        )
        support = _OlhSupport(d, olh_hash_range(epsilon)) if protocol == "OLH" else None
        reseed = None if pure else _reseed_numba
        prepare = _Prepare(peer_client, reseed)
        client = BlackBoxClient(peer_client, reseed=reseed, features=support, prepare=prepare)
        r = run_audit(
            client,
            0,
            1,
            n_trials=n_trials,
            seed=np.random.SeedSequence([seed, index]),
            confidence=confidence,
            claimed_epsilon=epsilon,
            n_jobs=n_jobs,
            chunk_size=_CHUNK_SIZE,
        )
        fields = ("epsilon_lb", "count0", "count1", "p0_low", "p1_high", "event", "violation")
        fields += ("violation_confidence", "n_trials", "confidence")
        audit = {name: getattr(r, name) for name in fields}
        out["audits"][protocol] = {**audit, "event": str(r.event), "violation": bool(r.violation)}
    return out


def audit_peer(
    peer: str,
    *,
    epsilon: float,
    d: int,
    n_trials: int,
    seed: int,
    confidence: float,
    n_jobs: int = 1,
) -> dict:
    """Audit ``peer`` (a key of :data:`PEERS`) in a subprocess with only that peer's folder on its path."""
    check_choice("peer", peer, PEERS)
    _check_peer_arguments(
        epsilon=epsilon, d=d, n_trials=n_trials, seed=seed, confidence=confidence, n_jobs=n_jobs
    )
    # the checked numbers as Python's: str is then a float's shortest round trip (np.float32(0.1) is
    # 0.10000000149011612, as checked, not "0.1")
    options = {"epsilon": float(epsilon), "d": int(d), "n-trials": int(n_trials), "seed": int(seed)}
    options |= {"confidence": float(confidence), "n-jobs": int(n_jobs)}
    flags = [text for name, value in options.items() for text in (f"--{name}", str(value))]
    return _run_peer(peer, flags)


#: numba's on-disk cache of multi-freq-ldpy's compiled functions (:func:`_cache_jitted`), git-ignored
NUMBA_CACHE = BUILD_DIR / "numba-cache"


def _cache_jitted(*modules) -> None:
    """Every numba-jitted function of ``modules`` (multi-freq-ldpy's) compiled once per machine, not once per
    process (about 1-2 s of CPU each): numba's on-disk cache in :data:`NUMBA_CACHE`.  Called after importing the
    modules, before their functions first run; the same machine code runs, drawing from numba's generator as
    before."""
    from numba.core import config
    from numba.core.registry import CPUDispatcher

    config.CACHE_DIR = str(NUMBA_CACHE)
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher):
                value.enable_caching()


def _run_peer(peer: str, arguments: list) -> dict:
    """``python -m ldp_tools.peers PEER ARGUMENTS`` with only that peer's folder on the path (an hour at most); its
    JSON output."""
    folder = PEERS[peer][0]
    if not folder.is_dir():
        raise FileNotFoundError(f"peer {peer!r} is not installed in {folder}: run `make peers`")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(REPO_ROOT)]))
    for name in (DASK_ADDRESS_ENV, DASK_SCHEDULER_ENV):  # the peers are installed here only
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "ldp_tools.peers", peer, *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600.0,
        cwd=REPO_ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"the audit of {peer} failed (exit {done.returncode}):\n{done.stderr[-2000:]}"
        )
    return json.loads(done.stdout)


def peer_audits(
    *,
    epsilon: float,
    d: int,
    n_trials: int,
    seed: int,
    confidence: float,
) -> dict[str, dict]:
    """Every peer's SUE, OUE and OLH audit (:func:`audit_peer`), peers concurrently (threads, at most one per peer),
    each spreading its audits' chunks over every core (the numbers depend on the chunks, not on where they run)."""
    options = dict(epsilon=epsilon, d=d, n_trials=n_trials, seed=seed, confidence=confidence)
    _check_peer_arguments(**options, n_jobs=1)
    calls = (joblib.delayed(audit_peer)(peer, **options, n_jobs=-1) for peer in PEERS)
    results = joblib.Parallel(n_jobs=local_workers(len(PEERS), len(PEERS)), backend="threading")(
        calls
    )
    return dict(zip(PEERS, results))


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
    if PEERS[args.peer][1] == "multi-freq-ldpy":  # its UE client, and GRR under its LH client
        from multi_freq_ldpy.pure_frequency_oracles import GRR, UE

        _cache_jitted(GRR, UE)
    result = _audit_peer_here(
        args.peer,
        epsilon=args.epsilon,
        d=args.d,
        n_trials=args.n_trials,
        seed=args.seed,
        confidence=args.confidence,
        n_jobs=args.n_jobs,
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
