"""Experiment drivers of the privacy-audit notebook (06_privacy_audit): parameter grid → arrays.

* :func:`_audit_inputs` / :func:`_audit_client`: the two inputs and the client used to audit each
  registered mechanism (local hashing is audited on the values its reports support, a
  post-processing).
* :func:`registry_audits`: ε_lb of every mechanism of the registry against its exact-table ε.
* :func:`epsilon_lb_curve`: ε_lb and the Clopper–Pearson bounds vs the number of trials N.
* :func:`never_cleared_loss`: the true ε of pure-ldp 1.1.2's unary-encoding client.
* :func:`longitudinal_curves`: the averaging attack vs k for fresh RR, memoized RAPPOR, 1-shot and m-shot;
  :func:`success_cap` and :func:`memoized_limits`, where the attack must stop.

The notebook's setting is named once, below.

References
----------
[arcolezi2024] §4 (the audit); [erlingsson2014] §2 (memoization); [glance] Algorithm 1; [m_shot] Algorithm 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ldp_helpers._validation import (
    MAX_N_DRAWS,
    check_bool,
    check_choice,
    check_epsilon,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_probability,
    check_rng,
    fail,
    fail_type,
)
from ldp_helpers.audit.auditor import AuditResult, MechanismClient, check_confidence, run_audit
from ldp_helpers.audit.longitudinal import (
    AttackCurve,
    binomial_attack_curve,
    fresh_rr_count_table,
    memoized_rappor_count_table,
    simulated_attack_curve,
)
from ldp_helpers.experiments.common import bonferroni_z
from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.mechanisms.harmony import Harmony
from ldp_helpers.mechanisms.local_hashing import BLH, OLH, LocalHashing
from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.mechanisms.randomized_response import Q_BIN_MAX_EPSILON, q_bin_probabilities
from ldp_helpers.mechanisms.rappor import prr_bit_loss
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE, unary_loss
from ldp_helpers.sweeps import (
    MAX_CHUNKS,
    ChunkError,
    check_seed,
    check_where,
    progress_bar,
    sweep_session,
)

#: the mechanisms whose ε_lb is followed against the number of trials N
CURVE_KEYS = ("grr", "oue", "rappor_basic_one_time", "glance")
#: the peers' unary encodings (SUE, OUE) and local hashing (OLH) are audited at this budget
PEER_EPSILON = 1.0
#: trials per chunk of an audit: the unit of work a Dask cluster or local processes share (run_audit's default)
CHUNK_SIZE = 50_000
#: the averaging attack: fresh RR at ε₀ = RR_EPSILON per report; RAPPOR's memoized PRR (f) and IRR (p, q);
#: Glance, Harmony and M_SHOT-shot reporting with whole-stream budget STREAM_EPSILON over T = k rounds
RR_EPSILON, RAPPOR_F, RAPPOR_P, RAPPOR_Q, STREAM_EPSILON, M_SHOT = 1.0, 0.5, 0.25, 0.75, 1.0, 2


def spawn_seeds(rng: np.random.Generator, n: int) -> list[int]:
    """``n`` integer seeds, one per experiment, from the next ``n`` children of ``rng``'s seed sequence.

    The drivers take an integer seed (each spawns its audits' chunk seeds from it); from
    ``default_rng(seed)`` these are the seeds of ``SeedSequence(seed).spawn(n)``.
    """
    rng, n = check_rng(rng), check_int("n", n, low=1, high=MAX_N_DRAWS)
    return [int(child.generate_state(1)[0]) for child in rng.bit_generator.seed_seq.spawn(n)]


@dataclass(frozen=True)
class LocalHashSupport:
    """Post-processing of local-hashing reports (a, b, y): the 0/1 matrix ``H_{a,b}(x) == y`` over x ∈ [d]."""

    mechanism: object

    def __post_init__(self):
        check_instance(
            "mechanism",
            self.mechanism,
            LocalHashing,
            "a local-hashing mechanism (BLH, OLH, LocalHashing)",
        )

    def __call__(self, reports) -> np.ndarray:
        a, b, y = (np.asarray(reports)[:, j, None] for j in range(3))
        x = np.arange(self.mechanism.d)[None]
        return (self.mechanism.hash_values(a, b, x) == y).astype(np.int8)


def _audit_inputs(key: str, mechanism) -> tuple:
    """The two inputs audited for a registry entry: values 0 and 1; (cohort 0, candidate 0 / 1) for
    RAPPOR; the all-zeros and all-ones streams for stream mechanisms (where the tables attain ε); −r and r for
    Duchi et al.'s mean of values in [−r, r], the counters 0 and m for 1BitMean's; the all-zeros and all-ones
    tuples for multidimensional collection."""
    family = REGISTRY[key].family
    if family == "stream":
        return np.zeros(mechanism.n_rounds, np.int8), np.ones(mechanism.n_rounds, np.int8)
    if family == "rappor":
        return np.array([0, 0]), np.array([0, 1])
    if family == "mean":  # the inputs' extremes, where the tables attain ε
        if hasattr(mechanism, "radius"):
            return -mechanism.radius, mechanism.radius
        return 0, mechanism.m
    if family == "multidimensional":  # tuples that differ in every attribute
        return np.zeros(mechanism.n_attributes, np.int64), np.ones(mechanism.n_attributes, np.int64)
    return 0, 1


def _audit_client(mechanism) -> MechanismClient:
    """Our mechanism as an audit client (local hashing through :class:`LocalHashSupport`)."""
    features = LocalHashSupport(mechanism) if isinstance(mechanism, (BLH, OLH)) else None
    return MechanismClient(mechanism, features)


@dataclass(frozen=True)
class MechanismAudit:
    key: str
    label: str
    claimed_epsilon: float
    exact_epsilon: float
    result: AuditResult


def registry_audits(
    *,
    n_trials: int,
    seed: int,
    confidence: float,
    chunk_size: int = CHUNK_SIZE,
    n_jobs: int | None = None,
    keys=None,
    progress: bool = False,
    dask_address: str | None = None,
    dask_client=None,
) -> list[MechanismAudit]:
    """Audit every registered mechanism's example (or those in ``keys``) on its :func:`_audit_inputs`.

    Each audit's main run is split into chunks of ``chunk_size`` trials; ``n_jobs`` / ``dask_address`` /
    ``dask_client`` (or the joblib/Dask settings in force) say where they run, with one scheduler connection
    for all audits.  The numbers depend on ``chunk_size``, never on where the chunks run.
    """
    if keys is not None and (isinstance(keys, str) or not isinstance(keys, (list, tuple))):
        fail_type("keys", keys, f"None or a list/tuple of registry keys {sorted(REGISTRY)}")
    keys = list(REGISTRY) if keys is None else [check_choice("keys", key, REGISTRY) for key in keys]
    _check_audit_arguments(
        n_trials, chunk_size, seed, confidence, progress, n_jobs, dask_address, dask_client
    )
    seeds = np.random.SeedSequence(seed).spawn(len(keys))
    rows = []
    with sweep_session(n_jobs=n_jobs, dask_address=dask_address, dask_client=dask_client) as where:
        for key, child in progress_bar(list(zip(keys, seeds)), progress, "registry audits"):
            mechanism = REGISTRY[key].example()
            x0, x1 = _audit_inputs(key, mechanism)
            result = run_audit(
                _audit_client(mechanism),
                x0,
                x1,
                n_trials=n_trials,
                seed=child,
                confidence=confidence,
                claimed_epsilon=mechanism.epsilon,
                chunk_size=chunk_size,
                **where,
            )
            rows.append(
                MechanismAudit(
                    key, REGISTRY[key].label, mechanism.epsilon, mechanism.privacy_loss(), result
                )
            )
    return rows


def audit_table(audits) -> str:
    """A notebook's printout of :func:`registry_audits`: claimed, exact and audited ε with the event, one line
    per mechanism, then the largest ε_lb − exact ε (≤ 0: no mechanism is flagged)."""
    if (
        not isinstance(audits, (list, tuple))
        or not audits
        or not all(isinstance(a, MechanismAudit) for a in audits)
    ):
        fail_type("audits", audits, "registry_audits' result: a non-empty list of MechanismAudit")
    lines = [f"{'mechanism':<58} {'claimed ε':>9} {'exact ε':>8} {'ε_lb':>7}  event"]
    lines += [
        f"{a.label[:58]:<58} {a.claimed_epsilon:9.3f} {a.exact_epsilon:8.3f} {a.result.epsilon_lb:7.3f}  "
        f"{str(a.result.event)[:40]}"
        for a in audits
    ]
    worst = max(a.result.epsilon_lb - a.exact_epsilon for a in audits)
    summary = f"largest ε_lb − exact ε over {len(audits)} mechanisms: {worst:.3f} (must be ≤ 0)"
    return "\n".join([*lines, "", summary])


def epsilon_lb_curve(
    key: str,
    n_grid,
    *,
    seed: int,
    confidence: float,
    chunk_size: int = CHUNK_SIZE,
    n_jobs: int | None = None,
    progress: bool = False,
    dask_address: str | None = None,
    dask_client=None,
) -> dict[str, np.ndarray]:
    """ε_lb, the event's log-ratio point estimate and CP upper end, vs N (independent audits per N).

    Chunks and where they run: as :func:`registry_audits`.
    """
    key = check_choice("key", key, REGISTRY)
    n_grid = check_int_array("n_grid", n_grid, low=1, high=MAX_N_DRAWS, ndim=1)
    _check_audit_arguments(
        1, chunk_size, seed, confidence, progress, n_jobs, dask_address, dask_client
    )
    if -(-int(n_grid.max()) // chunk_size) > MAX_CHUNKS:
        fail(
            "chunk_size", chunk_size, f"≥ max(n_grid) / MAX_CHUNKS = {n_grid.max() / MAX_CHUNKS:g}"
        )
    mechanism = REGISTRY[key].example()
    x0, x1 = _audit_inputs(key, mechanism)
    pairs = list(zip(n_grid, np.random.SeedSequence(seed).spawn(n_grid.size)))
    with sweep_session(n_jobs=n_jobs, dask_address=dask_address, dask_client=dask_client) as where:
        results = [
            run_audit(
                _audit_client(mechanism),
                x0,
                x1,
                n_trials=int(n),
                seed=child,
                confidence=confidence,
                chunk_size=chunk_size,
                **where,
            )
            for n, child in progress_bar(pairs, progress, f"ε_lb vs N ({key})")
        ]
    ratios = np.array([r.event_log_ratio for r in results])
    return {
        "n": n_grid,
        "epsilon_lb": np.array([r.epsilon_lb for r in results]),
        "point": ratios[:, 1],
        "high": ratios[:, 2],
        "exact": np.full(n_grid.size, mechanism.privacy_loss()),
        "results": results,
    }


def _check_audit_arguments(
    n_trials, chunk_size, seed, confidence, progress, n_jobs, dask_address, dask_client
) -> None:
    """The drivers' shared arguments, checked before the first audit runs."""
    check_int("n_trials", n_trials, low=1, high=MAX_N_DRAWS)
    if -(-n_trials // check_int("chunk_size", chunk_size, low=1)) > MAX_CHUNKS:
        fail("chunk_size", chunk_size, f"≥ n_trials / MAX_CHUNKS = {n_trials / MAX_CHUNKS:g}")
    check_seed(seed)
    check_confidence(confidence)
    check_bool("progress", progress)
    check_where(n_jobs, dask_address, dask_client)


def never_cleared_loss(protocol: str, epsilon: float) -> float:
    """The true ε of pure-ldp 1.1.2's unary-encoding client, which sets the true bit to 1 w.p. p but never to 0:
    ``Pr[1 | true bit] = p' = p + (1 − p)q``, so the whole report leaks ``ln(p'(1 − q) / (q(1 − p')))`` > ε.

    ``p`` and ``q`` are SUE's or OUE's at ``epsilon`` (``protocol``).

    References
    ----------
    [arcolezi2024] (the bug); [wang2017] §4.2 (the loss of unary encoding, ln(p(1 − q)/(q(1 − p)))).
    """
    protocol, epsilon = check_choice("protocol", protocol, ("SUE", "OUE")), check_epsilon(epsilon)
    oracle = {"SUE": SUE, "OUE": OUE}[protocol](epsilon, 2)  # p and q do not depend on d
    p, q = oracle.p, oracle.q
    return unary_loss(p + (1 - p) * q, q)  # p' = p + (1 − p)q


def peer_table(peers: dict) -> str:
    """A notebook's printout of :func:`ldp_tools.peers.peer_audits`: ε_lb, the verdict, the counts and the event
    of every peer's audited protocol (SUE, OUE, OLH), one line each."""
    if (
        not isinstance(peers, dict)
        or not peers
        or not all(
            isinstance(found, dict) and isinstance(found.get("audits"), dict)
            for found in peers.values()
        )
    ):
        fail_type(
            "peers", peers, "peer_audits' result: a dict of peer -> {'audits': {protocol: audit}}"
        )
    return "\n".join(
        f"{peer:<16} {protocol}: ε_lb = {r['epsilon_lb']:.3f}  violation = {r['violation']}  "
        f"(K0 = {r['count0']}, K1 = {r['count1']} of {r['n_trials']}; event {r['event']})"
        for peer, found in peers.items()
        for protocol, r in found["audits"].items()
    )


def success_cap(epsilon: float) -> float:
    """The best success of any guess of a uniform bit from an ε-LDP view: ``e^ε/(1 + e^ε)`` (Q_Bin's keep probability).

    References
    ----------
    [tutorial] Eq. (2) (the ratio bound, applied to the attacker's two error probabilities).
    """
    return q_bin_probabilities(check_epsilon(epsilon))[0]


def averaging_failure_bound(epsilon: float, k: int) -> float:
    """Hoeffding's bound ``exp(−2k(p − ½)²)`` on the failure of the averaging attack on k fresh RR reports
    (p = e^ε/(1 + e^ε) each): it guesses wrong only if at most k/2 of them show the bit.

    References
    ----------
    google/rappor issue 11 (averaging fresh reports); Hoeffding's inequality for Bin(k, p).
    """
    p, k = success_cap(epsilon), check_int("k", k, low=1)
    return math.exp(-2 * k * (p - 0.5) ** 2)


def success_slack(curves, cap: float, *, confidence: float) -> tuple[float, float, int]:
    """``(slack, z, points)``: the largest ``success − cap − z·SE`` over every point of the simulated attack
    ``curves``, with z = Φ⁻¹(1 − (1 − confidence)/points) so that the one-sided tests hold jointly at
    ``confidence`` (Bonferroni).  slack ≤ 0: no point beats ``cap`` at that confidence.

    References
    ----------
    [glance] Theorem 3; [m_shot] Algorithm 1 (the cap e^ε/(1 + e^ε) of an ε-LDP view).
    """
    if (
        not isinstance(curves, (list, tuple))
        or not curves
        or not all(isinstance(c, AttackCurve) for c in curves)
    ):
        fail_type("curves", curves, "a non-empty list of AttackCurve (longitudinal_curves' result)")
    cap = check_probability(cap, "cap")
    points = sum(curve.success.size for curve in curves)
    z = bonferroni_z(points, confidence=check_confidence(confidence))
    slack = max(float(np.max(c.success - cap - z * c.success_se)) for c in curves)
    return slack, z, points


def memoized_limits(f: float) -> tuple[float, float]:
    """Where the averaging attack on memoized RAPPOR stalls (one Bloom bit, PRR parameter ``f``): the success
    ``1 − f/2`` of reading the memoized bit B', and its loss ``ln((1 − f/2)/(f/2))``.

    References
    ----------
    [erlingsson2014] §2 (PRR memoization), §3.1 (ε∞ = 2h ln((1 − f/2)/(f/2)) counts 2h such bits).
    """
    f = check_probability(f, "f", open_low=True, open_high=False)
    return 1 - f / 2, prr_bit_loss(f)  # finite down to f = 5e-324 (ln 2 − ln f there)


def longitudinal_curves(
    ks,
    *,
    epsilon: float,
    rappor_f: float,
    rappor_p: float,
    rappor_q: float,
    stream_epsilon: float,
    m: int,
    n_draws: int,
    seed: int,
    table_max_k: int = 6,
    n_jobs: int | None = None,
    dask_address: str | None = None,
    dask_client=None,
    completed: dict | None = None,
) -> list[AttackCurve]:
    """The four schemes' attack curves: fresh RR (ε₀ per report), memoized RAPPOR (f, p, q), and
    Glance, Harmony and m-shot with whole-stream budget ``stream_epsilon`` over T = k rounds
    (``stream_epsilon`` at most Q_Bin's ceiling
    :data:`~ldp_helpers.mechanisms.randomized_response.Q_BIN_MAX_EPSILON`: Glance and Harmony report
    with Q_Bin at the whole-stream budget, which beyond it rounds to a bit never flipped).

    The simulated curves run as chunks (one per stream and k).  If one fails, the
    :class:`~ldp_helpers.sweeps.ChunkError` keeps every finished chunk in ``completed``, keyed
    by (stream index, k index); pass it back as ``completed=`` to compute only the missing ones.
    """
    epsilon = check_epsilon(epsilon)
    stream_epsilon = check_epsilon(stream_epsilon, "stream_epsilon", high=Q_BIN_MAX_EPSILON)
    rappor_f = check_probability(rappor_f, "rappor_f")
    rappor_p = check_probability(rappor_p, "rappor_p")
    rappor_q = check_probability(rappor_q, "rappor_q")
    m = check_int("m", m, low=1)
    check_int_array("ks", ks, low=1)
    check_n_draws(n_draws, low=2)
    check_int("table_max_k", table_max_k, low=0)
    check_seed(seed)
    check_where(n_jobs, dask_address, dask_client)
    curves = [
        binomial_attack_curve(
            f"fresh RR, ε₀ = {epsilon:g} per report", lambda k: fresh_rr_count_table(epsilon, k), ks
        ),
        binomial_attack_curve(
            f"RAPPOR memoized PRR (f = {rappor_f:g}) + IRR",
            lambda k: memoized_rappor_count_table(rappor_f, rappor_p, rappor_q, k),
            ks,
        ),
    ]
    streams = [
        (f"Glance (1-shot), ε = {stream_epsilon:g}", lambda k: Glance(stream_epsilon, k)),
        (f"Harmony (1-shot), ε = {stream_epsilon:g}", lambda k: Harmony(stream_epsilon, k)),
        (
            f"{m}-shot, ε = {stream_epsilon:g}",
            lambda k: MShotReporting(stream_epsilon, k, min(m, k), 0.0),
        ),
    ]
    if completed is not None and (
        not isinstance(completed, dict)
        or not all(
            isinstance(key, tuple) and len(key) == 2 and key[0] in range(len(streams))
            for key in completed
        )
    ):
        fail_type(
            "completed",
            completed,
            "ChunkError.completed of an earlier call: a dict keyed by (stream index, k index)",
        )
    done = dict(completed or {})
    with sweep_session(n_jobs=n_jobs, dask_address=dask_address, dask_client=dask_client) as where:
        where = {key: value for key, value in where.items() if key in ("n_jobs", "dask_client")}
        for j, ((label, make), child) in enumerate(
            zip(streams, np.random.SeedSequence(seed).spawn(len(streams)))
        ):
            mine = {i: row for (stream, i), row in done.items() if stream == j}
            try:
                curve = simulated_attack_curve(
                    label,
                    make,
                    ks,
                    n_draws=n_draws,
                    seed=child,
                    table_max_k=table_max_k,
                    completed=mine,
                    **where,
                )
            except ChunkError as error:
                done.update({(j, i): row for i, row in error.completed.items()})
                raise ChunkError(
                    [replace(f, error=f"{label}: {f.error}") for f in error.failures], done
                ) from error
            rows = zip(curve.success, curve.success_se, curve.epsilon, curve.epsilon_exact)
            done.update({(j, i): row for i, row in enumerate(rows)})
            curves.append(curve)
    return curves
