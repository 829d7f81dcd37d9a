"""Repeated and multidimensional collection (notebook 07): memoized oracles, Microsoft's telemetry, SPL/SMP/RS+FD.

* :func:`longitudinal_epsilons`: exact ε of τ reports of an unchanged value, with memoization (ε_τ → ε∞) and
  without (τ·ε₁), for every registered longitudinal oracle.
* :func:`whole_table_losses`: the exact ε of τ reports of an unchanged value of every longitudinal oracle, from
  the whole memoized table (permanent round, then τ instantaneous reports), independent of how the rounds were
  solved and of the closed form of ε_τ.
* :func:`longitudinal_variances`: each longitudinal oracle's exact and approximate variance at (ε₁, ε∞, d).
* :func:`memoized_history_loss`: the exact loss of τ collections from dBitFlipPM's or 1BitMean's
  memoized tables, for users whose value never changes and for histories that do;
  :func:`changed_report_share`: whether their per-user clients resend one report of an unchanged value.
* :func:`joint_zipf_counts`, :func:`multidimensional_mse`: generated tuples and the exact MSE of every
  multidimensional solution on them.

References
----------
[arcolezi2022] (longitudinal oracles); [erlingsson2014] Theorem 1 (ε∞); [ding2017] "memoization";
[arcolezi2021] (SPL, SMP, RS+FD); [wang2019].
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ldp_helpers._validation import (
    check_above,
    check_choice,
    check_epsilon,
    check_epsilons,
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    check_real,
    check_rng,
    fail,
)
from ldp_helpers.experiments.field_oracles import oracle_groups
from ldp_helpers.mechanisms.dbitflip import DBitFlip
from ldp_helpers.mechanisms.longitudinal import memoized_reports_table
from ldp_helpers.mechanisms.multidimensional import SPL
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.mechanisms.rs_fd import RSFD
from ldp_helpers.mechanisms.smp import SMP
from ldp_helpers.mechanisms.telemetry import OneBitMean

#: the multidimensional solutions compared: label -> (class, oracle, budget); "paper": RS+FD's oracle runs at the
#: amplified ε' of [arcolezi2021] for the paper's ε, "whole": every solution's whole-tuple report is ε-LDP
SOLUTIONS = {
    "SPL[GRR]": (SPL, "grr", "whole"),
    "SPL[OUE]": (SPL, "oue", "whole"),
    "SMP[GRR]": (SMP, "grr", "whole"),
    "SMP[OUE]": (SMP, "oue", "whole"),
    "RS+FD[GRR]": (RSFD, "grr", "paper"),
    "RS+FD[OUE-z]": (RSFD, "oue_z", "paper"),
    "RS+FD[OUE-r]": (RSFD, "oue_r", "paper"),
    "RS+FD[GRR] at whole-tuple ε": (RSFD, "grr", "whole"),
    "RS+FD[OUE-z] at whole-tuple ε": (RSFD, "oue_z", "whole"),
}


def _check_setting(epsilon, epsilon_permanent, d) -> tuple[float, float, int]:
    epsilon = check_epsilon(epsilon)
    eps_inf = check_above(
        "epsilon_permanent",
        check_epsilon(epsilon_permanent, "epsilon_permanent"),
        epsilon,
        what="epsilon (ε₁ < ε∞)",
    )
    return epsilon, eps_inf, check_int("d", d, low=2, high=2**20)


def longitudinal_oracle(mechanism_key: str, epsilon: float, epsilon_permanent: float, d: int):
    """The registered longitudinal oracle ``mechanism_key`` with one report's ε₁ = ``epsilon``, ε∞ and d.

    References
    ----------
    [arcolezi2022] "longitudinal protocols".
    """
    key = check_choice("mechanism_key", mechanism_key, oracle_groups()["longitudinal"])
    return dataclasses.replace(
        REGISTRY[key].example(),
        epsilon=check_epsilon(epsilon),
        epsilon_permanent=check_epsilon(epsilon_permanent, "epsilon_permanent"),
        d=check_int("d", d, low=2, high=2**20),
    )


def _oracles(epsilon: float, epsilon_permanent: float, d: int):
    """``(key, oracle)`` of every longitudinal oracle at a checked setting (None: it refuses it)."""
    for key in oracle_groups()["longitudinal"]:
        try:
            oracle = longitudinal_oracle(key, epsilon, epsilon_permanent, d)
        except ValueError:
            oracle = None
        yield key, oracle


def longitudinal_epsilons(epsilon: float, epsilon_permanent: float, d: int, taus) -> dict:
    """``{key: ε_τ}`` of every longitudinal oracle for τ reports of an unchanged value, plus ``"fresh"``: τ·ε₁.

    ε_τ is exact (:meth:`~ldp_helpers.mechanisms.longitudinal.LGRR.epsilon_after`); an oracle that refuses the
    setting (its second round cannot reach ε₁ at this ε∞, or double precision) is left out.

    References
    ----------
    [erlingsson2014] Theorem 1 (ε∞ bounds every number of reports); [arcolezi2022].
    """
    taus = check_int_array("taus", taus, low=1, high=10**6).ravel()
    epsilon, epsilon_permanent, d = _check_setting(epsilon, epsilon_permanent, d)
    out = {
        key: np.array([oracle.epsilon_after(int(t)) for t in taus])
        for key, oracle in _oracles(epsilon, epsilon_permanent, d)
        if oracle is not None
    }
    out["fresh"] = taus * epsilon
    return out


#: the largest d whose one-report memoized tables are built for every oracle (unary: 2^d memoized states)
FIRST_REPORT_MAX_D = 6


def whole_table_losses(
    epsilon: float, epsilon_permanent: float, d: int, n_reports: int | None = 1
) -> dict:
    """``{key: ε}``: the exact loss of ``n_reports`` reports of an unchanged value, for every longitudinal
    oracle, from its whole table; with ``n_reports=None`` the loss of the memoized state itself (the
    permanent round's table), which bounds every number of reports (they are post-processing of it).

    The table is ``P[x, (y₁, …, y_τ)] = Σ_b permanent[x, b] Π_t instantaneous[b, y_t]``
    (:func:`memoized_reports_table`): the rounds composed by matrix products and the loss taken as the
    largest log-ratio of two rows (:func:`~ldp_helpers.mechanisms.privacy.max_privacy_loss`).  Neither the
    chained probabilities, nor the one-report loss from which the second round was solved, nor the closed
    form of ε_τ (:meth:`~ldp_helpers.mechanisms.longitudinal.LGRR.epsilon_after`) enter it, so it checks
    them.  ``d`` ≤ :data:`FIRST_REPORT_MAX_D` and ``n_reports`` ≤ 16 // d (a unary oracle's table has 2^d
    states and 2^(d·τ) report sequences).  An oracle that refuses the setting is left out.

    References
    ----------
    [arcolezi2022] "longitudinal protocols" (one report costs ε₁); [erlingsson2014] Theorem 1 (τ reports
    cost at most ε∞); [tutorial] Eq. (2).
    """
    epsilon, epsilon_permanent, d = _check_setting(epsilon, epsilon_permanent, d)
    d = check_int("d", d, low=2, high=FIRST_REPORT_MAX_D)
    if n_reports is not None:
        n_reports = check_int("n_reports", n_reports, low=1, high=16 // d)
    return {
        key: max_privacy_loss(
            oracle.permanent_table()
            if n_reports is None
            else memoized_reports_table(
                oracle.permanent_table(), oracle.instantaneous_table(), n_reports
            )
        )
        for key, oracle in _oracles(epsilon, epsilon_permanent, d)
        if oracle is not None
    }


def longitudinal_variances(epsilon: float, epsilon_permanent: float, d: int) -> dict:
    """``{key: (exact, approximate)}``: each longitudinal oracle's per-user count variance at (ε₁, ε∞, d).

    Exact: the mean over values of ``variance`` on a flat population, divided by n; approximate: Wang's
    q*(1 − q*)/(p* − q*)² (the f_x → 0 limit).  (∞, ∞) where the oracle refuses the setting.

    References
    ----------
    [arcolezi2022] (the variances of L-GRR, L-OUE, L-OSUE, L-SOUE, L-SUE); [wang2017] Eq. (2).
    """
    epsilon, epsilon_permanent, d = _check_setting(epsilon, epsilon_permanent, d)
    n = 1000 * d
    flat = np.full(d, 1000, dtype=np.int64)
    return {
        key: (float(np.mean(o.variance(flat))) / n, float(o.approx_variance(n)) / n)
        if o is not None
        else (np.inf, np.inf)
        for key, o in _oracles(epsilon, epsilon_permanent, d)
    }


def memoized_history_loss(mechanism, histories, *, step: int | None = None) -> float:
    """Exact privacy loss between value histories (rows) of a memoized dBitFlip or 1BitMean (with α-point ``step``).

    From the whole history table (:meth:`~ldp_helpers.mechanisms.dbitflip.DBitFlip.memoized_history_table`,
    :meth:`~ldp_helpers.mechanisms.telemetry.OneBitMean.memoized_history_table`): the largest log-ratio of
    two rows over every report sequence; ∞ when one history can produce a sequence the other cannot.

    References
    ----------
    [ding2017] "memoization"; [ding2017] "α-point rounding".
    """
    mechanism = check_instance("mechanism", mechanism, (DBitFlip, OneBitMean))
    histories = check_ndim("histories", histories, 2, what="(histories × rounds)")
    if isinstance(mechanism, OneBitMean):
        table = mechanism.memoized_history_table(histories, check_int("step", step, low=1))
    elif step is not None:
        fail("step", step, "None for dBitFlip (α-point rounding is 1BitMean's)")
    else:
        table = mechanism.memoized_history_table(histories)
    return float(max_privacy_loss(table))


def changed_report_share(
    mechanism,
    users_per_value: int,
    rounds: int,
    *,
    rng: np.random.Generator,
    step: int | None = None,
) -> tuple[float, int]:
    """``(share, users)``: the share of simulated clients of an unchanged value whose ``rounds`` reports are
    not all equal, from the per-user clients (dBitFlipPM's or 1BitMean's ``perturb_rounds``, α-point ``step``
    for 1BitMean), every value of the domain held by ``users_per_value`` users.

    0 for clients that memoize; clients that drew each report afresh would change most of them.

    References
    ----------
    [ding2017] "memoization"; [ding2017] "α-point rounding".
    """
    mechanism = check_instance("mechanism", mechanism, (DBitFlip, OneBitMean))
    users_per_value = check_int("users_per_value", users_per_value, low=1, high=10**5)
    rounds, rng = check_int("rounds", rounds, low=2, high=64), check_rng(rng)
    if isinstance(mechanism, DBitFlip):
        if step is not None:
            fail("step", step, "None for dBitFlip (α-point rounding is 1BitMean's)")
        values = np.repeat(np.arange(mechanism.d), users_per_value)[:, None]
        sent = mechanism.perturb_rounds(np.repeat(values, rounds, axis=1), rng=rng).bits
    else:
        values = np.repeat(np.arange(mechanism.m + 1), users_per_value)[:, None]
        sent = mechanism.perturb_rounds(np.repeat(values, rounds, axis=1), step, rng=rng)
    changed = np.any((sent != sent[:, :1]).reshape(values.size, -1), axis=1)
    return float(np.mean(changed)), values.size


def joint_zipf_counts(
    n_users: int, domain_sizes, exponent: float, *, rng: np.random.Generator
) -> np.ndarray:
    """Generated tuples: the joint table of ``n_users`` users whose attribute j is Zipf(``exponent``) over [0, k_j),
    the attributes independent (a multinomial draw of the product law).

    References
    ----------
    [arcolezi2021] (synthetic multidimensional data).
    """
    n_users = check_int("n_users", n_users, low=1, high=10**9)
    sizes = check_int_array("domain_sizes", domain_sizes, low=2, high=1024).ravel()
    if sizes.size < 2 or int(np.prod(sizes)) > 2**20:
        fail(
            "domain_sizes", domain_sizes, "at least two attributes with at most 2^20 tuples in all"
        )
    exponent = check_real("exponent", exponent, low=0.0, low_open=False, high=10.0)
    rng = check_rng(rng)
    law = np.ones(1)
    for k in sizes:
        weights = 1.0 / np.arange(1, k + 1) ** exponent
        law = np.multiply.outer(law, weights / weights.sum())
    return rng.multinomial(n_users, law.ravel() / law.sum()).reshape(tuple(int(k) for k in sizes))


def multidimensional_mse(epsilons, counts, solutions=None) -> dict:
    """``{label: MSE per ε}`` of the marginal **frequency** estimates (mean over every attribute's values of
    E(ĉ_j(v)/n − f_j(v)/n)²: exact variance plus SMP's bias²) of each solution of :data:`SOLUTIONS`.

    ``counts`` is the joint table (e.g. :func:`joint_zipf_counts`).  RS+FD's "paper" rows take ε as the
    paper's ε (the oracle at ε'); every other row's whole-tuple report is ε-LDP.

    References
    ----------
    [arcolezi2021] (SPL, SMP, RS+FD: their estimators and variances); [wang2019].
    """
    grid = check_epsilons(epsilons).ravel()
    solutions = tuple(SOLUTIONS) if solutions is None else solutions
    if (
        isinstance(solutions, str)
        or not isinstance(solutions, (list, tuple))
        or not solutions
        or any(s not in SOLUTIONS for s in solutions)
    ):
        fail("solutions", solutions, f"None or a list of labels of {tuple(SOLUTIONS)}")
    counts = check_int_array("counts", counts, low=0)
    if counts.ndim < 2 or counts.sum() < 1:
        fail(
            "counts",
            counts,
            "a joint table of counts over at least two attributes, with at least one user",
        )
    n, sizes = int(counts.sum()), counts.shape
    out = {}
    for label in solutions:
        cls, oracle, budget = SOLUTIONS[label]
        make = cls.from_attribute_epsilon if budget == "paper" else cls
        row = []
        for e in grid:
            mech = make(float(e), sizes, oracle)
            bias = np.asarray(mech.expected_estimate(counts), dtype=float) - mech.estimand(counts)
            row.append(
                float(np.mean(np.asarray(mech.variance(counts), dtype=float) + bias**2)) / n**2
            )
        out[label] = np.array(row)
    return out
