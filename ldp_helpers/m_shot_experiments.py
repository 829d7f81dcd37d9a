"""Experiment drivers of the m-shot seed (002) §6: F-measure and maximum error over repeated runs.

Short parameterized functions, one per measured quantity; the notebook calls them per arm with
its own random stream.  Every run uses the exact fast simulator of :mod:`ldp_helpers.m_shot`.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_int, check_rng
from .m_shot import MShotReporting, RandomActiveSets, detection_scores, linear_ramp_counts
from .m_shot_theory import m_star

METHODS = ("1-shot", "m*-shot", "T-shot")


def ramp_data(n_users: int, n_rounds: int, *, rng: np.random.Generator) -> RandomActiveSets:
    """§6.2's data: Φ0 = t/T, rounds shuffled, active users drawn afresh in every run."""
    return RandomActiveSets(linear_ramp_counts(n_users, n_rounds, rng=rng), n_users)


def method_m(method: str, epsilon: float, n_rounds: int) -> int:
    """The m of a named method: 1-shot → 1, m*-shot → m* of Eq. (7), T-shot → T."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    return {"1-shot": 1, "m*-shot": m_star(epsilon, n_rounds), "T-shot": n_rounds}[method]


def f_measure_runs(mech: MShotReporting, data, theta: float, *, rng: np.random.Generator, n_runs: int) -> np.ndarray:
    """The F-measure (Eq. 11) of ``n_runs`` independent runs of Algorithm 1 on ``data``."""
    ones = mech.sample_reported_ones(data, rng=check_rng(rng), n_trials=check_int("n_runs", n_runs, low=1))
    return detection_scores(data.fractions(), mech.estimate(ones, data.n_users), theta).f_measure


def max_error_runs(mech: MShotReporting, data, *, rng: np.random.Generator, n_runs: int) -> np.ndarray:
    """max_t |Φ(Y_{:,t}) − Φ0(V_{:,t})| of each of ``n_runs`` runs (the α of Definition 3.1)."""
    ones = mech.sample_reported_ones(data, rng=check_rng(rng), n_trials=check_int("n_runs", n_runs, low=1))
    return np.abs(mech.estimate(ones, data.n_users) - data.fractions()).max(axis=1)


def f_measure_vs_m(epsilon: float, n_rounds: int, ms, *, n_users: int, theta: float, n_runs: int, rng: np.random.Generator) -> np.ndarray:
    """Experiment 1 (Fig. 2a–c): F-measures of shape (len(ms), n_runs), r = 0, one shuffled ramp."""
    data = ramp_data(n_users, n_rounds, rng=rng)
    return np.array([f_measure_runs(MShotReporting(epsilon, n_rounds, int(m)), data, theta, rng=rng, n_runs=n_runs) for m in ms])


def f_measure_vs_rounds(epsilon: float, rounds, method: str, *, n_users: int, theta: float, n_runs: int, rng: np.random.Generator) -> np.ndarray:
    """Experiment 2 (Fig. 2d–f): F-measures of shape (len(rounds), n_runs) for one method, r = 0."""
    out = []
    for T in rounds:
        data = ramp_data(n_users, int(T), rng=rng)
        mech = MShotReporting(epsilon, int(T), method_m(method, epsilon, int(T)))
        out.append(f_measure_runs(mech, data, theta, rng=rng, n_runs=n_runs))
    return np.array(out)


def max_error_vs_rounds(scale: float, b: float, rounds, method: str, *, n_users: int, n_runs: int, rng: np.random.Generator) -> np.ndarray:
    """Theorem 9 made visible: max errors of shape (len(rounds), n_runs) with ε = scale·T^b."""
    out = []
    for T in rounds:
        epsilon = scale * float(T) ** b
        mech = MShotReporting(epsilon, int(T), method_m(method, epsilon, int(T)))
        out.append(max_error_runs(mech, ramp_data(n_users, int(T), rng=rng), rng=rng, n_runs=n_runs))
    return np.array(out)
