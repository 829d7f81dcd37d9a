"""The shuffle-model checker (chapter 08): a student's exact δ(ε) of shuffled binary RR against the exact
privacy profile (:func:`~ldp_helpers.bounds.shuffle.binary_rr_profile`)."""

from __future__ import annotations

import numpy as np

from ldp_helpers.bounds.shuffle import ShuffleProfile, binary_rr_profile, mixture_pair
from ldp_helpers.teaching._sandbox import run_limited
from ldp_helpers.teaching.checks import TIME_LIMIT, Check, _callable, _failed, _scalars, _time_limit

#: the grid (n, ε₀, ε): δ from 2e-11 to 0.23, ε below ε₀ (δ > 0); H(Q‖P) is the larger at n = 3
DELTA_POINTS = (
    (3, 0.5, 0.05),
    (10, 1.0, 0.5),
    (10, 2.0, 0.2),
    (100, 1.0, 0.1),
    (100, 3.0, 0.5),
    (500, 1.0, 0.3),
    (500, 2.0, 0.2),
    (2000, 2.0, 0.1),
    (2000, 0.5, 0.05),
)
#: the tolerance: δ is a finite sum of n + 1 terms, so a floating-point sum of it is within about
#: (n + 1)(1 + e^ε) 2⁻⁵³ of it; scipy's pmfs add a relative 1e-13 per term
DELTA_RTOL, DELTA_ATOL = 1e-7, 1e-13


def check_shuffle_delta(delta, *, time_limit: float = TIME_LIMIT) -> Check:
    """Is ``delta(n, epsilon0, epsilon)`` the exact δ(ε) of n users' shuffled binary RR?

    The others all hold 0; user 1 holds 0 or 1; each user keeps her bit w.p. e^ε₀/(1 + e^ε₀); the
    server sees the number of 1s, with laws P (x₁ = 0) and Q (x₁ = 1), and
    ``δ(ε) = max(Σ_c (P(c) − e^ε Q(c))₊, Σ_c (Q(c) − e^ε P(c))₊)``.  At every point of
    ``DELTA_POINTS`` the student's value must equal the exact one within ``DELTA_RTOL`` relative
    (plus ``DELTA_ATOL``), and the same on a second call.  A sampled δ, one direction of the pair,
    ε₀ used for ε, user 1's own randomization forgotten, a missing positive part or a constant
    factor are named.

    Parameters
    ----------
    delta : callable
        The student's function, ``delta(n, epsilon0, epsilon) -> float``.
    time_limit : float
        Seconds the two rounds of calls may take together.

    Returns
    -------
    Check

    References
    ----------
    [balle2019blanket] §3 (the shuffled view as a count); [feldman2021clones] §5.
    """
    delta = _callable("delta", delta)
    values = run_limited(
        lambda: _twice(delta), time_limit=_time_limit(time_limit), what="your delta"
    )
    if (failed := _failed(values)) is not None:
        return failed
    first, again = np.asarray(values)
    if not np.array_equal(first, again):
        return Check(
            False,
            "your delta gave different values when called twice with the same (n, ε₀, ε): it is "
            "sampled. δ(ε) is a finite sum over the n + 1 counts: compute it exactly from the "
            "binomial law",
        )
    exact = np.array([binary_rr_profile(n, e0).delta(e) for n, e0, e in DELTA_POINTS])
    off = ~np.isclose(first, exact, rtol=DELTA_RTOL, atol=DELTA_ATOL)
    if not off.any():
        return Check(
            True,
            f"your δ equals the exact privacy profile at all {len(DELTA_POINTS)} points (n from "
            f"3 to 2000, δ from {exact.min():.2g} to {exact.max():.2g}; relative tolerance "
            f"{DELTA_RTOL:g}).",
        )
    i = int(np.argmax(off))
    n, e0, e = DELTA_POINTS[i]
    return Check(
        False,
        f"at n = {n}, ε₀ = {e0:g}, ε = {e:g} your δ is {first[i]:.6g}; the exact δ(ε) of the "
        f"shuffled view is {exact[i]:.6g}" + _hint(first, exact, off),
    )


def _twice(delta):
    """In the child: the student's δ at every point, twice, or a sentence naming a type error."""
    rounds = []
    for _ in range(2):
        values = _scalars(delta, DELTA_POINTS, "delta(n={}, epsilon0={}, epsilon={})")
        if isinstance(values, str):
            return values
        rounds.append(values)
    return rounds


def _unrandomized(n: int, epsilon0: float) -> ShuffleProfile:
    """The profile when user 1 sends her bit as it is (the others randomize): a wrong exercise."""
    p = 1.0 / (1.0 + np.exp(-epsilon0))
    return ShuffleProfile(n, epsilon0, (mixture_pair(n, [1.0, 0.0], [0.0, 1.0], [p, 1 - p]),))


def _hint(values, exact, off) -> str:
    """A sentence naming the mistake, when the values show one."""
    if not np.all(np.isfinite(values)):
        return " — yours is not a finite number everywhere"
    if np.allclose(values, np.log(exact), rtol=1e-6):
        return " — yours is ln δ: return δ itself"
    if np.any(values < -DELTA_ATOL):
        return " — yours is negative somewhere: the positive part (·)₊ of each term is missing"
    if np.all(np.abs(values) <= DELTA_ATOL):
        return (
            " — yours is 0 everywhere, the exact one is positive (ε < ε₀ here): δ(ε₀) = 0, so "
            "is ε₀ used where ε is asked?"
        )
    if np.all(values <= exact * (1 + DELTA_RTOL) + DELTA_ATOL) and not off.all():
        return (
            " — yours is below the exact δ at some points and equal at others: δ is the larger of "
            "both directions of the neighbouring pair, max(H(P‖Q), H(Q‖P))"
        )
    own = np.array([_unrandomized(n, e0).delta(e) for n, e0, e in DELTA_POINTS])
    if np.allclose(values, own, rtol=1e-6, atol=DELTA_ATOL):
        return (
            " — yours is the δ of a user 1 who sends her bit as it is: her own randomized "
            "response (keep w.p. p) is missing from P and Q"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = values / exact
    if np.allclose(ratio, ratio[0], rtol=1e-6) and ratio[0] != 0:
        return f" — yours is {ratio[0]:.4g} times the exact one everywhere (a constant factor)"
    if np.all(np.abs(ratio - 1)[exact > 1e-2] < 0.3):  # where a simulation can see δ
        return (
            " — close where δ is large, not exact: a simulated or approximated δ? (A simulated "
            "histogram's noise adds to every positive part.) The exercise asks for the exact sum "
            "over the n + 1 counts"
        )
    return ""
