"""Experiment drivers of the privacy-audit notebook (06_privacy_audit): parameter grid → arrays.

* :func:`audit_inputs` / :func:`audit_client`: the two inputs and the client used to audit each
  registered mechanism (local hashing is audited on the values its reports support, a
  post-processing).
* :func:`registry_audits`: ε_lb of every mechanism of the registry against its exact-table ε.
* :func:`epsilon_lb_curve`: ε_lb and the Clopper–Pearson bounds vs the number of trials N.
* :func:`longitudinal_curves`: the averaging attack vs k for fresh RR, memoized RAPPOR, 1-shot and m-shot.

References
----------
[arcolezi2024] §4 (the audit); [erlingsson2014] §2 (memoization); [glance] Algorithm 1; [m_shot] Algorithm 1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ldp_helpers._validation import (
    MAX_N_DRAWS, check_bool, check_choice, check_epsilon, check_instance, check_int, check_int_array, check_ndim,
    check_probability, fail, fail_type)
from ldp_helpers.audit.auditor import AuditResult, MechanismClient, check_confidence, run_audit
from ldp_helpers.audit.longitudinal import (
    AttackCurve, binomial_attack_curve, fresh_rr_count_table, memoized_rappor_count_table, simulated_attack_curve)
from ldp_helpers.sweeps import ChunkError, check_dask_address, check_seed, progress_bar
from ldp_helpers.mechanisms.base import Mechanism
from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.mechanisms.harmony import Harmony
from ldp_helpers.mechanisms.local_hashing import BLH, OLH, LocalHashing
from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.mechanisms.registry import REGISTRY


@dataclass(frozen=True)
class LocalHashSupport:
    """Post-processing of local-hashing reports (a, b, y): the 0/1 matrix ``H_{a,b}(x) == y`` over x ∈ [d]."""

    mechanism: object

    def __post_init__(self):
        check_instance("mechanism", self.mechanism, LocalHashing, "a local-hashing mechanism (BLH, OLH, LocalHashing)")

    def __call__(self, reports) -> np.ndarray:
        a, b, y = (np.asarray(reports)[:, j, None] for j in range(3))
        return (self.mechanism.hash_values(a, b, np.arange(self.mechanism.d)[None]) == y).astype(np.int8)


def audit_inputs(key: str, mechanism) -> tuple:
    """The two inputs audited for a registry entry: values 0 and 1; (cohort 0, candidate 0 / 1) for
    RAPPOR; the all-zeros and all-ones streams for stream mechanisms (where the tables attain ε)."""
    family = REGISTRY[check_choice("key", key, REGISTRY)].family
    check_instance("mechanism", mechanism, Mechanism)
    if family == "stream":
        return np.zeros(mechanism.n_rounds, np.int8), np.ones(mechanism.n_rounds, np.int8)
    if family == "rappor":
        return np.array([0, 0]), np.array([0, 1])
    return 0, 1


def audit_client(mechanism) -> MechanismClient:
    """Our mechanism as an audit client (local hashing through :class:`LocalHashSupport`)."""
    check_instance("mechanism", mechanism, Mechanism)
    features = LocalHashSupport(mechanism) if isinstance(mechanism, (BLH, OLH)) else None
    return MechanismClient(mechanism, features)


@dataclass(frozen=True)
class MechanismAudit:
    key: str
    label: str
    claimed_epsilon: float
    exact_epsilon: float
    result: AuditResult


def registry_audits(*, n_trials: int, seed: int, confidence: float, n_jobs: int = 1, keys=None,
                    progress: bool = False, dask_address: str | None = None) -> list[MechanismAudit]:
    """Audit every registered mechanism's example (or those in ``keys``) on its :func:`audit_inputs`.

    ``n_jobs`` / ``dask_address``: where each audit's chunks run (same numbers everywhere).
    """
    if keys is not None and (isinstance(keys, str) or not isinstance(keys, (list, tuple))):
        fail_type("keys", keys, f"None or a list/tuple of registry keys {sorted(REGISTRY)}")
    keys = list(REGISTRY) if keys is None else [check_choice("keys", key, REGISTRY) for key in keys]
    _check_audit_arguments(n_trials=n_trials, seed=seed, confidence=confidence, n_jobs=n_jobs, progress=progress,
                           dask_address=dask_address)
    seeds = np.random.SeedSequence(seed).spawn(len(keys))
    rows = []
    for key, child in progress_bar(list(zip(keys, seeds)), progress, "registry audits"):
        mechanism = REGISTRY[key].example()
        x0, x1 = audit_inputs(key, mechanism)
        result = run_audit(audit_client(mechanism), x0, x1, n_trials=n_trials, seed=child, confidence=confidence,
                           claimed_epsilon=mechanism.epsilon, n_jobs=n_jobs, dask_address=dask_address)
        rows.append(MechanismAudit(key, REGISTRY[key].label, mechanism.epsilon, mechanism.privacy_loss(), result))
    return rows


def epsilon_lb_curve(key: str, n_grid, *, seed: int, confidence: float, n_jobs: int = 1,
                     progress: bool = False, dask_address: str | None = None) -> dict[str, np.ndarray]:
    """ε_lb, the event's log-ratio point estimate and CP upper end, vs N (independent audits per N)."""
    key = check_choice("key", key, REGISTRY)
    n_grid = check_ndim("n_grid", check_int_array("n_grid", n_grid, low=1, high=MAX_N_DRAWS), 1)
    _check_audit_arguments(n_trials=1, seed=seed, confidence=confidence, n_jobs=n_jobs, progress=progress,
                           dask_address=dask_address)
    mechanism = REGISTRY[key].example()
    x0, x1 = audit_inputs(key, mechanism)
    pairs = list(zip(n_grid, np.random.SeedSequence(seed).spawn(n_grid.size)))
    results = [run_audit(audit_client(mechanism), x0, x1, n_trials=int(n), seed=child, confidence=confidence, n_jobs=n_jobs,
                         dask_address=dask_address)
               for n, child in progress_bar(pairs, progress, f"ε_lb vs N ({key})")]
    ratios = np.array([r.event_log_ratio for r in results])
    return {"n": n_grid, "epsilon_lb": np.array([r.epsilon_lb for r in results]), "point": ratios[:, 1],
            "high": ratios[:, 2], "exact": np.full(n_grid.size, mechanism.privacy_loss()), "results": results}


def _check_audit_arguments(*, n_trials, seed, confidence, n_jobs, progress, dask_address) -> None:
    """The drivers' shared arguments, checked before the first audit runs."""
    check_int("n_trials", n_trials, low=1, high=MAX_N_DRAWS)
    check_seed(seed)
    check_confidence(confidence)
    check_int("n_jobs", n_jobs)
    check_bool("progress", progress)
    if dask_address is not None:
        check_dask_address(dask_address)


def longitudinal_curves(ks, *, epsilon: float, rappor_f: float, rappor_p: float, rappor_q: float,
                        stream_epsilon: float, m: int, n_draws: int, seed: int, table_max_k: int = 6,
                        n_jobs: int = 1, dask_address: str | None = None, completed: dict | None = None) -> list[AttackCurve]:
    """The four schemes' attack curves: fresh RR (ε₀ per report), memoized RAPPOR (f, p, q), and
    Glance, Harmony and m-shot with whole-stream budget ``stream_epsilon`` over T = k rounds.

    The simulated curves run as chunks (one per stream and k).  If one fails, the
    :class:`~ldp_helpers.sweeps.ChunkError` keeps every finished chunk in ``completed``, keyed
    by (stream index, k index); pass it back as ``completed=`` to compute only the missing ones.
    """
    epsilon, stream_epsilon = check_epsilon(epsilon), check_epsilon(stream_epsilon, "stream_epsilon")
    rappor_f, rappor_p, rappor_q = (check_probability(v, name) for v, name in
                                    ((rappor_f, "rappor_f"), (rappor_p, "rappor_p"), (rappor_q, "rappor_q")))
    m = check_int("m", m, low=1)
    check_int_array("ks", ks, low=1)
    check_int("n_draws", n_draws, low=2, high=MAX_N_DRAWS)
    check_int("table_max_k", table_max_k, low=0)
    check_seed(seed)
    check_int("n_jobs", n_jobs)
    if dask_address is not None:
        check_dask_address(dask_address)
    curves = [binomial_attack_curve(f"fresh RR, ε₀ = {epsilon:g} per report", lambda k: fresh_rr_count_table(epsilon, k), ks),
              binomial_attack_curve(f"RAPPOR memoized PRR (f = {rappor_f:g}) + IRR",
                                    lambda k: memoized_rappor_count_table(rappor_f, rappor_p, rappor_q, k), ks)]
    streams = [(f"Glance (1-shot), ε = {stream_epsilon:g}", lambda k: Glance(stream_epsilon, k)),
               (f"Harmony (1-shot), ε = {stream_epsilon:g}", lambda k: Harmony(stream_epsilon, k)),
               (f"{m}-shot, ε = {stream_epsilon:g}", lambda k: MShotReporting(stream_epsilon, k, min(m, k), 0.0))]
    if completed is not None and (not isinstance(completed, dict) or not all(
            isinstance(key, tuple) and len(key) == 2 and key[0] in range(len(streams)) for key in completed)):
        fail_type("completed", completed, "ChunkError.completed of an earlier call: a dict keyed by (stream index, k index)")
    done = dict(completed or {})
    for j, ((label, make), child) in enumerate(zip(streams, np.random.SeedSequence(seed).spawn(len(streams)))):
        mine = {i: row for (stream, i), row in done.items() if stream == j}
        try:
            curve = simulated_attack_curve(label, make, ks, n_draws=n_draws, seed=child, table_max_k=table_max_k,
                                           n_jobs=n_jobs, dask_address=dask_address, completed=mine)
        except ChunkError as error:
            done.update({(j, i): row for i, row in error.completed.items()})
            raise ChunkError([replace(f, error=f"{label}: {f.error}") for f in error.failures], done) from error
        done.update({(j, i): row for i, row in enumerate(zip(curve.success, curve.success_se, curve.epsilon,
                                                               curve.epsilon_exact))})
        curves.append(curve)
    return curves
