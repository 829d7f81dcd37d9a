"""The empirical privacy auditor: a Clopper–Pearson lower bound ε_lb on a client's privacy loss.

Run a client N times on input x₀ and N times on x₁, count the reports in an output event E, bound
``P₀ = Pr[M(x₀) ∈ E]`` from below and ``P₁ = Pr[M(x₁) ∈ E]`` from above with Clopper–Pearson
intervals, and report ``ε_lb = ln(P₀,low / P₁,high)``.  Each bound is the end of a two-sided
``confidence`` interval, i.e. a one-sided bound at ``1 − α/2`` (α = 1 − confidence); by the union
bound both hold at once with probability ≥ ``confidence``, and then ``ε_lb ≤ ε_true`` (any ε-LDP
client has ``P₀ ≤ e^ε P₁``).  ``ε_lb > ε_claimed`` is therefore a violation shown at ``confidence``.

The event is chosen on an independent pilot run (:mod:`ldp_helpers.audit.events`), the main run is
chunked through :func:`ldp_helpers.sweeps.run_chunks` (same numbers on any backend).

References
----------
[arcolezi2024] §4 (the audit: Clopper–Pearson bounds, ε_lb = ln(P̂₀,low / P̂₁,high));
[tutorial] Eq. (2) (ε-LDP: Pr[π(v)=y] ≤ e^ε Pr[π(v')=y], here for the event E).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy.optimize import brentq
from statsmodels.stats.proportion import proportion_confint

from ldp_helpers._validation import (
    MAX_N_DRAWS,
    check_bool,
    check_choice,
    check_completed,
    check_epsilon,
    check_instance,
    check_int,
    check_int_array,
    check_real,
    fail,
)

# the clients live in audit.clients; re-exported here, where the auditor's users have always imported them
from ldp_helpers.audit.clients import (
    BlackBoxClient,
    ClientError,
    MechanismClient,
    _sample,
    as_client,
    check_call_timeout,
)
from ldp_helpers.audit.events import Event, choose_event
from ldp_helpers.sweeps import BACKENDS, MAX_CHUNKS, check_seed, check_where, run_chunks


def check_confidence(confidence) -> float:
    """A confidence level in the open interval (0, 1)."""
    return check_real("confidence", confidence, low=0.0, high=1.0)


def clopper_pearson(count, n: int, *, confidence: float):
    """The two-sided Clopper–Pearson interval for a binomial proportion (statsmodels, ``method="beta"``).

    ``count`` is an integer in [0, n] (two floats are returned) or an array of them (two arrays:
    statsmodels evaluates the beta quantiles element by element, the same numbers either way).
    """
    count, n = _check_count("count", count, "n", n)
    alpha = 1.0 - check_confidence(confidence)
    low, high = proportion_confint(count, n, alpha=alpha, method="beta")
    return (float(low), float(high)) if np.ndim(low) == 0 else (low, high)


def epsilon_lower_bound(count0, n0: int, count1, n1: int, *, confidence: float):
    """``ε_lb = max(0, ln(P₀,low / P₁,high))`` from the event counts of the two inputs.

    Holds (ε_lb ≤ the client's true ε) with probability at least ``confidence``.  For arrays of
    counts (the event search: one entry per candidate event, in one call) an array of bounds,
    each the number the scalar call gives.
    """
    count0, n0 = _check_count("count0", count0, "n0", n0)
    count1, n1 = _check_count("count1", count1, "n1", n1)
    p0_low = clopper_pearson(count0, n0, confidence=confidence)[0]
    p1_high = clopper_pearson(count1, n1, confidence=confidence)[1]
    ratio = np.divide(p0_low, p1_high)
    bounds = [math.log(r) if r > 1.0 else 0.0 for r in np.ravel(ratio).tolist()]
    return bounds[0] if np.ndim(count0) == 0 else np.array(bounds)


def _check_count(name: str, count, n_name: str, n) -> tuple:
    n = check_int(n_name, n, low=1)
    if np.ndim(count) == 0:
        return check_int(name, count, low=0, high=n), n
    return check_int_array(name, count, low=0, high=n), n


@dataclass(frozen=True)
class AuditResult:
    """What an audit found: ε_lb, its confidence, the counts and (if a claim was given) the verdict."""

    epsilon_lb: float
    confidence: float
    n_trials: int
    count0: int  # reports of x₀ (the likelier input in E) in the event
    count1: int
    p0_low: float
    p1_high: float
    event: Event
    x0: object
    x1: object
    claimed_epsilon: float | None = None

    @property
    def violation(self) -> bool | None:
        """``ε_lb > ε_claimed``: the claim is refuted at ``confidence`` (None without a claim)."""
        return None if self.claimed_epsilon is None else self.epsilon_lb > self.claimed_epsilon

    @property
    def event_log_ratio(self) -> tuple[float, float, float]:
        """``(low, point, high)`` for ``ln(P₀/P₁)`` of this event: ``low`` is ε_lb (before clipping at 0),
        ``high = ln(P₀,high / P₁,low)``, from the same Clopper–Pearson intervals; ``low`` alone holds w.p. ≥ ``confidence``, the pair (both ends of both intervals) w.p. ≥ ``2·confidence − 1``."""
        (l0, h0), (l1, h1) = (
            clopper_pearson(k, self.n_trials, confidence=self.confidence)
            for k in (self.count0, self.count1)
        )

        def log(a, b):
            return math.log(a / b) if a > 0 and b > 0 else (math.inf if a > 0 else -math.inf)

        return log(l0, h1), log(self.count0, self.count1), log(h0, l1)

    @property
    def violation_confidence(self) -> float:
        """The largest confidence at which ε_lb still exceeds the claim (0 if not even the point estimate does);
        ``1 − violation_confidence`` is the p-value of "the client keeps its claim" for this event."""
        if self.claimed_epsilon is None:
            return float("nan")

        bound = partial(epsilon_lower_bound, self.count0, self.n_trials, self.count1, self.n_trials)

        def g(c):
            return bound(confidence=c) - self.claimed_epsilon

        low, high = 1e-9, 1.0 - 1e-12
        if g(low) <= 0:
            return 0.0
        return high if g(high) > 0 else float(brentq(g, low, high, xtol=1e-10))


def run_audit(
    client,
    x0,
    x1,
    *,
    n_trials: int,
    seed,
    confidence: float = 0.95,
    claimed_epsilon=None,
    event: Event | None = None,
    n_pilot: int | None = None,
    chunk_size: int = 50_000,
    n_jobs: int | None = None,
    backend: str | None = None,
    dask_address: str | None = None,
    dask_client=None,
    timeout: float = 30.0,
    progress: bool = False,
    completed: dict | None = None,
    call_timeout: float = 300.0,
) -> AuditResult:
    """Audit a client on the inputs x₀, x₁ with ``n_trials`` runs of each; return an :class:`AuditResult`.

    Parameters
    ----------
    client : Mechanism, client object or callable
        See :func:`as_client`.
    x0, x1 : object
        The two inputs (a domain value, a (cohort, candidate) pair, a bit stream, …).
    n_trials : int
        Runs per input in the main run (≥ 1).
    seed : int or SeedSequence
        Child 0 of ``SeedSequence(seed)`` drives the pilot, child 1 the main run's chunks.
    confidence : float in (0, 1)
        Joint confidence of the two Clopper–Pearson bounds.
    claimed_epsilon : float, optional
        The ε the client promises; the result's ``violation`` tells whether ε_lb exceeds it.
    event : Event, optional
        The output event; chosen from a pilot run of ``n_pilot`` (default ``max(1000, n_trials // 10)``)
        runs per input when not given (a given event still gets a 1-run check of the client).
    chunk_size, n_jobs, backend, dask_address, dask_client, timeout, progress
        How the main run is split and where it runs (:func:`ldp_helpers.sweeps.run_chunks`: by default the
        joblib/Dask settings in force, else in-process; local workers capped by the chunks and the cores);
        the numbers do not depend on n_jobs or backend.
    completed : dict, optional
        ``ChunkError.completed`` of an interrupted run with the same arguments: those chunks are not rerun
        (the pilot, hence the event, and every chunk's seed are the same, so the result is too).
    call_timeout : float
        Seconds (> 0) one ``client.sample`` batch may take (the pilot's, or one chunk's).  A client other than our
        own mechanisms runs each batch in a forked child process, killed when it does not answer in time: the
        audit ends with a :class:`ClientError` and the hung client leaves no thread, lock or seeded global
        generator behind.  None is refused (it would wait for ever).  Every batch the client returns is checked:
        exactly n rows of finite numbers.

    Raises
    ------
    ClientError, TypeError, ValueError
        The client raised, or returned something other than a number / 1-D numeric array (pilot run).
    ldp_helpers.sweeps.ChunkError
        A chunk of the main run failed: it names the chunk's seed and keeps the completed chunks.
    """
    confidence = check_confidence(confidence)
    n_trials = check_int("n_trials", n_trials, low=1, high=MAX_N_DRAWS)
    chunk_size = check_int("chunk_size", chunk_size, low=1)
    if -(-n_trials // chunk_size) > MAX_CHUNKS:
        fail(
            "chunk_size",
            chunk_size,
            f"≥ n_trials / MAX_CHUNKS = {n_trials / MAX_CHUNKS:g} (at most {MAX_CHUNKS} chunks)",
        )
    if claimed_epsilon is not None:
        claimed_epsilon = check_epsilon(claimed_epsilon, "claimed_epsilon")
    if event is not None:
        check_instance("event", event, Event)
    seed = check_seed(seed)
    # the main run's execution arguments, checked before the pilot (run_chunks checks them again)
    if backend is not None:
        check_choice("backend", backend, BACKENDS)
    check_where(n_jobs, dask_address, dask_client)
    check_real("timeout", timeout, low=0.0)
    check_bool("progress", progress)
    check_completed(completed)
    client = as_client(client)
    pilot_seed, main_seed = (
        seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    ).spawn(2)
    pilot_rng = np.random.default_rng(pilot_seed)
    if n_pilot is None:
        n_pilot = 1 if event else max(1000, n_trials // 10)
    n_pilot = check_int("n_pilot", n_pilot, low=1, high=MAX_N_DRAWS)
    call_timeout = check_call_timeout(call_timeout)
    m0 = _sample(client, x0, n_pilot, pilot_rng, call_timeout)
    m1 = _sample(client, x1, n_pilot, pilot_rng, call_timeout)
    swap = False
    if event is None:
        bound = partial(epsilon_lower_bound, confidence=confidence)
        event, swap = choose_event(m0, m1, confidence=confidence, bound=bound)
    else:
        event.count(m0)  # checks the event's columns against the reports
    first, second = (x1, x0) if swap else (x0, x1)
    full, rest = divmod(n_trials, chunk_size)
    sizes = (chunk_size,) * full + ((rest,) if rest else ())
    counts = np.array(
        run_chunks(
            _ChunkTask(client, first, second, event, sizes, call_timeout),
            len(sizes),
            seed=main_seed,
            backend=backend,
            n_jobs=n_jobs,
            dask_address=dask_address,
            dask_client=dask_client,
            timeout=timeout,
            progress=progress,
            desc="audit chunks",
            completed=completed,
        )
    ).sum(axis=0)
    k0, k1 = int(counts[0]), int(counts[1])
    return AuditResult(
        epsilon_lower_bound(k0, n_trials, k1, n_trials, confidence=confidence),
        confidence,
        n_trials,
        k0,
        k1,
        clopper_pearson(k0, n_trials, confidence=confidence)[0],
        clopper_pearson(k1, n_trials, confidence=confidence)[1],
        event,
        first,
        second,
        claimed_epsilon,
    )


@dataclass(frozen=True)
class _ChunkTask:
    """One chunk of the main run: counts of x₀'s and x₁'s reports in the event (picklable)."""

    client: object
    x0: object
    x1: object
    event: Event
    sizes: tuple
    call_timeout: float

    def __call__(self, index: int, seed: np.random.SeedSequence) -> tuple[int, int]:
        rng, n = np.random.default_rng(seed), self.sizes[index]
        return (
            self.event.count(_sample(self.client, self.x0, n, rng, self.call_timeout)),
            self.event.count(_sample(self.client, self.x1, n, rng, self.call_timeout)),
        )
