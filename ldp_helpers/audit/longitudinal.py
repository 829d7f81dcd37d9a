"""The averaging attack on one user who reports the same bit v ∈ {0, 1} k times.

The attacker sees the user's k reports, counts the positive ones (C) and guesses ``v = 1`` iff C is
above the midpoint of its means under v = 0 and v = 1 (ties: a fair coin).  Success probability is
averaged over v uniform.  Next to it: the composed ε of the k reports, the exact whole-stream loss.

* **Fresh randomized response** every time: C ~ Bin(k, p) or Bin(k, 1 − p), p = e^ε₀/(1+e^ε₀); the
  attack's success → 1 and the loss is kε₀ (exact from the table of C, a sufficient statistic).
* **RAPPOR's memoized PRR + IRR** (one Bloom bit, h = 1): B' is drawn once (Pr[B' = 1] = f/2 + (1 − f)v)
  and each report is IRR(B'): C | B' ~ Bin(k, q) if B' = 1 else Bin(k, p).  The success tends to
  Pr[B' = v] = 1 − f/2 and the loss to the PRR's ln((1 − f/2)/(f/2)) for one bit (RAPPOR's
  ε∞ = 2h ln((1 − f/2)/(f/2)) counts the 2h Bloom bits two values differ in).
* **1-shot and m-shot** stream mechanisms (Glance, Harmony, m-shot, given as ``make(k) -> Mechanism``
  over T = k rounds): C simulated by its exact law (:func:`constant_stream_positives`; the per-user
  reference for any other mechanism); their loss is the whole-stream ε of the mechanism, exact from
  its output table for small k.

References
----------
[erlingsson2014] §2 (PRR memoization), §3.1 (ε∞ of the PRR, longitudinal privacy);
[glance] Algorithm 1 (1-shot); [m_shot] Algorithm 1; [tutorial] sequential composition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ldp_helpers._validation import (
    MAX_N_DRAWS,
    check_allocation,
    check_bool,
    check_callable,
    check_epsilon,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_ndim,
    check_probability,
    check_real_array,
    check_rng,
)
from ldp_helpers.mechanisms.continual import Glance, StreamMechanism
from ldp_helpers.mechanisms.harmony import Harmony
from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities
from ldp_helpers.sweeps import check_seed, run_chunks


@dataclass(frozen=True)
class AttackCurve:
    """Success of the averaging attack and the composed ε, per number of reports k."""

    label: str
    ks: np.ndarray
    success: np.ndarray  # averaging attack, v uniform
    success_se: np.ndarray  # 0 where exact
    # the best possible attacker's success (1 + TV)/2; None for a simulated curve
    bayes: np.ndarray | None
    epsilon: np.ndarray  # composed ε of the k reports
    epsilon_exact: np.ndarray  # True where epsilon comes from a whole-stream table
    exact: bool  # success computed exactly (binomial law)


def _check_ks(ks) -> np.ndarray:
    ks = check_int_array("ks", ks, low=1)
    if ks.ndim != 1 or ks.size == 0:
        raise ValueError(
            f"ks must be a non-empty 1-D array of report counts ≥ 1 (got shape {ks.shape})"
        )
    return ks


def _check_k(k) -> int:
    k = check_int("k", k, low=1)
    check_allocation("k", k, 4 * (k + 1), what="the 2 × (k + 1) table and its work arrays")
    return k


def _check_table(table) -> np.ndarray:
    """A law of C for v = 0, 1: a finite, non-negative array of shape (2, k + 1)."""
    table = check_real_array("table", table, low=0.0, low_open=False)
    check_ndim("table", table, 2, what="(v ∈ {0, 1} × C ∈ 0..k)")
    if table.shape[0] != 2:
        raise ValueError(f"table must have 2 rows (v = 0, 1); got shape {table.shape}")
    return table


def fresh_rr_count_table(epsilon: float, k: int) -> np.ndarray:
    """Law of C (columns 0..k) for v = 0 and v = 1 (rows) under k fresh RR reports with ε₀ = ``epsilon`` each."""
    epsilon, k = check_epsilon(epsilon), _check_k(k)
    p, flip = q_bin_probabilities(epsilon)  # e^ε/(e^ε+1) and 1/(e^ε+1), without overflow at any ε
    c = np.arange(k + 1)
    return np.vstack([stats.binom.pmf(c, k, flip), stats.binom.pmf(c, k, p)])


def memoized_rappor_count_table(f: float, p: float, q: float, k: int) -> np.ndarray:
    """Law of C for v = 0, 1 under RAPPOR's memoized PRR (f) then k IRRs (p = Pr[1 | B'=0], q = Pr[1 | B'=1])."""
    f = check_probability(f, "f")
    p, q = check_probability(p, "p"), check_probability(q, "q")
    k = _check_k(k)
    c = np.arange(k + 1)
    given_b = np.vstack([stats.binom.pmf(c, k, p), stats.binom.pmf(c, k, q)])  # rows: B' = 0, 1
    prr = np.array([[1 - f / 2, f / 2], [f / 2, 1 - f / 2]])  # rows v, columns B'
    return prr @ given_b


def averaging_success(table: np.ndarray) -> float:
    """Success of "guess 1 iff C > midpoint of the two means" (ties: coin) for a 2-row table of C's law."""
    table = _check_table(table)
    c = np.arange(table.shape[1])
    mean0, mean1 = table[0] @ c, table[1] @ c
    threshold = 0.5 * (mean0 + mean1)
    tie = np.abs(c - threshold) <= 1e-12
    if mean1 >= mean0:  # v = 1's law lies above the midpoint
        guess1 = c > threshold + 1e-12
    else:
        guess1 = c < threshold - 1e-12
    return float(
        0.5 * (table[1][guess1].sum() + table[0][~guess1 & ~tie].sum() + 0.5 * table[:, tie].sum())
    )


def bayes_success(table: np.ndarray) -> float:
    """The best attacker's success ``(1 + TV)/2 = ½ Σ_c max_v P(c | v)`` (v uniform)."""
    table = _check_table(table)
    return float(0.5 * table.max(axis=0).sum())


def binomial_attack_curve(label: str, table_of_k: Callable[[int], np.ndarray], ks) -> AttackCurve:
    """Exact curve from the law of C for every k (``table_of_k(k)``, e.g. :func:`fresh_rr_count_table`)."""
    ks = _check_ks(ks)
    check_callable("table_of_k", table_of_k, "a callable table_of_k(k) -> 2 × (k + 1) table")
    tables = [table_of_k(int(k)) for k in ks]
    return AttackCurve(
        label,
        ks,
        np.array([averaging_success(t) for t in tables]),
        np.zeros(ks.size),
        np.array([bayes_success(t) for t in tables]),
        np.array([max_privacy_loss(t) for t in tables]),
        np.ones(ks.size, bool),
        True,
    )


def simulated_attack_curve(
    label: str,
    make: Callable[[int], object],
    ks,
    *,
    n_draws: int,
    seed,
    table_max_k: int = 6,
    n_jobs: int | None = None,
    dask_address: str | None = None,
    dask_client=None,
    completed: dict | None = None,
) -> AttackCurve:
    """Simulated curve for a stream mechanism ``make(k)`` over T = k rounds (constant streams 0…0 and 1…1).

    The midpoint threshold comes from an independent pilot of ``n_draws`` users per stream; the
    success is then estimated on ``n_draws`` fresh users per stream (standard error reported).  The
    composed ε is ``privacy_loss()`` (exact, whole-stream table) for k ≤ ``table_max_k``, else the
    mechanism's claimed whole-stream ε.  Each k is one chunk of :func:`~ldp_helpers.sweeps.run_chunks`
    (seed = child k of ``SeedSequence(seed)``): the same numbers on any backend (``n_jobs``, ``dask_address``,
    ``dask_client``, or the joblib/Dask settings in force);
    a failed or lost chunk raises :class:`~ldp_helpers.sweeps.ChunkError`, whose ``completed``
    passed back as ``completed=`` resumes with only the missing k.
    """
    ks = _check_ks(ks)
    check_callable("make", make, "a callable make(k) -> stream Mechanism over k rounds")
    n_draws = check_n_draws(n_draws, low=2)
    check_allocation(
        "n_draws",
        n_draws,
        2 * n_draws * int(ks.max()),
        itemsize=1,
        what="n_draws × max(ks) streams",
    )
    table_max_k = check_int("table_max_k", table_max_k, low=0)
    seed = check_seed(seed)
    rows = run_chunks(
        _AttackChunk(make, tuple(int(k) for k in ks), n_draws, table_max_k),
        ks.size,
        seed=seed,
        n_jobs=n_jobs,
        dask_address=dask_address,
        dask_client=dask_client,
        completed=completed,
    )
    success, se, eps, eps_exact = (np.array(column) for column in zip(*rows))
    return AttackCurve(
        label, ks, success, se, None, eps.astype(float), eps_exact.astype(bool), False
    )


def constant_stream_positives(
    mechanism, v: int, n: int, *, rng: np.random.Generator, per_user: bool = False
) -> np.ndarray:
    """C, the positive reports of each of n users whose stream is v in every round: an exact sampler.

    Glance and Harmony send one Q_Bin(v; ε) report (Pr[1] = p or q of the randomizer), so
    C ~ Bernoulli; m-shot sends Q_Bin(v; ε/m) in m rounds and a dummy 1 w.p. r in the T − m others,
    so C ~ (m − F if v = 1 else F) + Bin(T − m, r), F ~ Bin(m, f) the flips, drawn with Q_Bin's flip
    probability f itself (beyond ε/m ≈ 36.74, Q_Bin's ceiling, its keep probability is 1.0 in double precision, f is
    not; as m-shot's client and sampler).  Any other stream mechanism (or ``per_user=True``) runs
    its per-user reference ``perturb`` on the n × T streams, and counts.

    References
    ----------
    [glance] Algorithm 1; [m_shot] Algorithm 1.
    """
    check_instance(
        "mechanism",
        mechanism,
        (StreamMechanism, MShotReporting),
        "a stream mechanism (Glance, m-shot, …)",
    )
    v = check_int("v", v, low=0, high=1)
    n = check_int("n", n, low=1, high=MAX_N_DRAWS)
    rng, per_user = check_rng(rng), check_bool("per_user", per_user)
    if per_user or not isinstance(mechanism, (Glance, Harmony, MShotReporting)):
        streams = np.full((n, mechanism.n_rounds), v, np.int8)
        return (np.asarray(mechanism.perturb(streams, rng=rng)) > 0).sum(axis=1)
    if isinstance(mechanism, MShotReporting):
        flips = rng.binomial(mechanism.m, mechanism.q_bin_probs[1], n)
        spare = mechanism.n_rounds - mechanism.m
        return (mechanism.m - flips if v else flips) + rng.binomial(spare, mechanism.dummy_prob, n)
    rr = mechanism.randomizer
    return rng.binomial(1, rr.p if v else rr.q, n)  # Pr[Q_Bin(v) = 1]


@dataclass(frozen=True)
class _AttackChunk:
    """One k of :func:`simulated_attack_curve`: (success, its SE, composed ε, whether ε is from the table)."""

    make: Callable
    ks: tuple
    n_draws: int
    table_max_k: int

    def __call__(self, index: int, seed: np.random.SeedSequence) -> tuple:
        k, rng = self.ks[index], np.random.default_rng(seed)
        mechanism = self.make(k)

        def positives(v):
            return constant_stream_positives(mechanism, v, self.n_draws, rng=rng)

        threshold = 0.5 * (positives(0).mean() + positives(1).mean())
        c0, c1 = positives(0), positives(1)
        sign = 1.0 if c1.mean() >= c0.mean() else -1.0
        right1 = np.where(sign * (c1 - threshold) > 0, 1.0, np.where(c1 == threshold, 0.5, 0.0))
        right0 = np.where(sign * (c0 - threshold) < 0, 1.0, np.where(c0 == threshold, 0.5, 0.0))
        se = 0.5 * np.sqrt(right1.var(ddof=1) / self.n_draws + right0.var(ddof=1) / self.n_draws)
        small = k <= self.table_max_k
        return (
            0.5 * (right1.mean() + right0.mean()),
            se,
            mechanism.privacy_loss() if small else mechanism.epsilon,
            small,
        )
