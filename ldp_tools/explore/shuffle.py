"""The numbers behind the shuffle panel: the exact central ε_c and the papers' bounds at (n, ε₀, δ, k).

Every number is a function of :mod:`ldp_helpers.bounds.shuffle` (the exact profile of shuffled binary
RR, k = 2, or k-RR, k ≥ 3, between neighbouring datasets whose other users hold one value: a lower
bound on the worst case over all datasets) or
:mod:`ldp_helpers.bounds.shuffle_bounds` (the papers' bounds and their ranges); nothing is computed
here but the choice of which to call and where it is too costly.  Results are cached per argument,
and the curve against n per (ε₀, δ, k): moving n only computes the setting's own row.

**Work ceilings (by time: an interaction within a second on 2 idle cores).**  The exact profile sums
over the count vectors carrying mass: about 80 √n for binary RR, n²/2 for k = 3, n³/6 for k ≥ 4
(:mod:`ldp_helpers.bounds.shuffle`); the numerical bounds (FMT's clones, Wang et al.'s variation
ratio) are 3-output exact profiles, about n²/2 each.  Hence n ≤ :func:`n_max` (k) and the numerical
bounds only for n ≤ :data:`N_NUMERICAL` (elsewhere "n/a", with the reason).

References
----------
[erlingsson2019]; [balle2019blanket] §5; [feldman2021clones] Theorems 3.1–3.2;
[wang2024shuffle]; notebook ``08_shuffle_model`` §§1–3.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import check_epsilon, check_int, check_probability, fail
from ldp_helpers.bounds import shuffle as exact
from ldp_helpers.bounds import shuffle_bounds as sb

NUMERICAL = ("FMT numerical", "Wang numerical")
#: the bounds shown, in the order of the table and the legend (closed forms, then numerical)
BOUNDS = ("Erlingsson", "blanket (Hoeffding)", "FMT closed", "Wang closed", *NUMERICAL)
#: largest n of the exact profile, per k (k ≥ 4 as k = 4), sized so that a setting and its curve of
#: :data:`CURVE_POINTS` values of n take under a second: binary RR ~80 √n count vectors, k = 3 ~n²/2 (two
#: pairs of neighbours), k ≥ 4 ~n³/6
N_MAX = {2: 10**7, 3: 400, 4: 80}
#: largest n of the numerical bounds (two exact 3-output profiles of ~n²/2 count vectors each)
N_NUMERICAL = 400
K_MAX = 1000
#: largest ε₀: the profiles' losses mix terms e^ε₀ apart, so their rounding grows like e^ε₀ · 1e-16
#: (about 3e-8 in ε_c at ε₀ = 20, where ε_c is already within ln 2 of ε₀)
EPSILON0_MAX = 20.0
#: a bound is said to fall below the exact ε_c only beyond this relative gap (rounding is below 1e-8)
BELOW = 1e-6
CURVE_POINTS = 9
#: where the curve against n starts
N_LOW = 10


def n_max(k: int) -> int:
    """The largest n the panel computes exactly for k-RR (k = 2: binary RR)."""
    return N_MAX[min(check_int("k", k, low=2, high=K_MAX), 4)]


def n_grid(k: int) -> np.ndarray:
    """The curve's values of n: :data:`CURVE_POINTS` log-spaced integers from :data:`N_LOW` to :func:`n_max`."""
    return np.unique(np.round(np.geomspace(N_LOW, n_max(k), CURVE_POINTS)))


class ShuffleRow(NamedTuple):
    """One bound at the setting: its ε_c (NaN when not computed) and why not, or what to note."""

    name: str
    epsilon_c: float
    note: str


class ShuffleState(NamedTuple):
    """The panel's numbers: the exact ε_c and each bound at (n, ε₀, δ, k), and their curves against n."""

    exact: float
    rows: tuple  # ShuffleRow per BOUNDS
    n_grid: np.ndarray
    exact_curve: np.ndarray
    # bound -> ε_c per n of n_grid (NaN where the bound does not apply or is not computed)
    bound_curves: dict


def _check(n, epsilon0, delta, k) -> tuple:
    k = check_int("k", k, low=2, high=K_MAX)
    top = n_max(k)
    n = check_int("n", n, low=2)
    if n > top:
        cost = {2: "80 √n", 3: "n²/2", 4: "n³/6"}[min(k, 4)]
        fail(
            "n",
            n,
            f"an integer in [2, {top:,}] for k = {k} (the exact profile of shuffled "
            f"{'binary RR' if k == 2 else 'k-RR'} sums over about {cost} count vectors: "
            f"a larger n takes over a second)",
        )
    eps0 = check_epsilon(epsilon0, "epsilon0", high=EPSILON0_MAX)
    delta = check_probability(delta, "delta", open_low=True, open_high=True)
    return n, eps0, delta, k


@functools.lru_cache(maxsize=256)
def _exact(n: int, eps0: float, delta: float, k: int) -> float:
    profile = exact.binary_rr_profile(n, eps0) if k == 2 else exact.grr_profile(n, eps0, k)
    return profile.epsilon(delta)


@functools.lru_cache(maxsize=256)
def _bounds(n: int, eps0: float, delta: float, k: int) -> tuple:
    """(value, reason) per bound of :data:`BOUNDS`; value NaN with the reason where it does not apply."""
    outside = sb.closed_form_ranges(n, eps0, delta, k)
    values = {
        "Erlingsson": lambda: sb.erlingsson_epsilon(n, eps0, delta),
        "blanket (Hoeffding)": lambda: sb.blanket_hoeffding_epsilon(n, eps0, delta, k=k),
        "FMT closed": lambda: sb.fmt_closed_epsilon(n, eps0, delta),
        "Wang closed": lambda: sb.wang_closed_epsilon(n, eps0, delta, k),
        "FMT numerical": lambda: sb.clone_profile(n, eps0).epsilon(delta),
        "Wang numerical": lambda: sb.variation_ratio_profile(n, eps0, k).epsilon(delta),
    }
    out = []
    for name in BOUNDS:
        if outside.get(name):
            out.append((math.nan, outside[name]))
        elif name in NUMERICAL and n > N_NUMERICAL:
            out.append((math.nan, f"computed for n ≤ {N_NUMERICAL} (its profile sums ~n²/2 terms)"))
        else:
            out.append((values[name](), ""))
    return tuple(out)


def _note(value: float, reason: str, eps0: float, exact_value: float) -> str:
    if reason:
        return reason
    if value >= eps0:
        return "= ε₀: no amplification shown"
    if value < exact_value * (1 - BELOW):
        return "below the exact ε_c: not a bound at this setting"
    return ""


@functools.lru_cache(maxsize=16)
def _curves(eps0: float, delta: float, k: int) -> tuple:
    grid = n_grid(k)
    exact_curve = np.array([_exact(int(n), eps0, delta, k) for n in grid])
    per_n = [_bounds(int(n), eps0, delta, k) for n in grid]
    curves = {name: np.array([row[j][0] for row in per_n]) for j, name in enumerate(BOUNDS)}
    return grid, exact_curve, curves


def shuffle_state(*, n, epsilon0, delta, k=2) -> ShuffleState:
    """The exact ε_c of shuffled k-RR (k = 2: binary RR) and each paper's bound at (n, ε₀, δ), with their curves.

    Parameters
    ----------
    n : int
        Users, 2 ≤ n ≤ :func:`n_max` (k).
    epsilon0 : float
        Each user's local ε₀, in (0, :data:`EPSILON0_MAX`].
    delta : float
        The central δ, in (0, 1).
    k : int
        Values of k-RR, 2 ≤ k ≤ :data:`K_MAX` (2: binary randomized response).

    Returns
    -------
    ShuffleState
        ``exact`` (:func:`~ldp_helpers.bounds.shuffle.binary_rr_profile` or
        :func:`~ldp_helpers.bounds.shuffle.grr_profile`, its ``epsilon(δ)``), a
        :class:`ShuffleRow` per bound (NaN and the reason where its range fails, or above
        :data:`N_NUMERICAL` for the numerical ones), and the curves over :func:`n_grid` (k).

    References
    ----------
    [erlingsson2019]; [balle2019blanket] §5; [feldman2021clones]; [wang2024shuffle].
    """
    n, eps0, delta, k = _check(n, epsilon0, delta, k)
    value = _exact(n, eps0, delta, k)
    rows = tuple(
        ShuffleRow(name, v, _note(v, reason, eps0, value))
        for name, (v, reason) in zip(BOUNDS, _bounds(n, eps0, delta, k))
    )
    grid, exact_curve, curves = _curves(eps0, delta, k)  # cached: shared, never written to
    return ShuffleState(value, rows, grid, exact_curve, curves)
