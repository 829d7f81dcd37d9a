"""Contract specs of the exercise checkers, ldp_helpers.teaching (issue 28; merged into specs.SPECS).

The student's function is the checked object, not an input boundary: a non-callable is refused by name,
while whatever a callable returns is judged in the Check's words.  A student's table is likewise free
(``check_output_table`` says in words what is wrong with it).
"""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers.mechanisms.grr import GRR

from .specs import spec

TE = "ldp_helpers.teaching.checks."
GRR4 = GRR(math.log(3), 4)


def _grr_client(values, rng):
    return np.where(
        rng.random(values.size) < GRR4.p,
        values,
        (values + rng.integers(1, 4, size=values.size)) % 4,
    )


def _grr_estimate(counts, n):
    return (counts - n * GRR4.q) / (GRR4.p - GRR4.q)


def _risk(p, q, d):
    return (d * q * (1 - q) + (p - q) * (1 - p - q)) / (p - q) ** 2


def _shuffled_delta(n, epsilon0, epsilon):
    from ldp_helpers.bounds.shuffle import binary_rr_profile

    return binary_rr_profile(n, epsilon0).delta(epsilon)


def _chernoff(delta, mu):
    return (math.exp(delta) / (1 + delta) ** (1 + delta)) ** mu


SPECS = {
    "ldp_helpers.teaching.client.check_client": spec(
        perturb=_grr_client,
        table=GRR4.output_table(),
        inputs=np.arange(4),
        n_per_input=200,
        seed=0,
        _extra={
            "inputs": [np.arange(5), np.arange(24).reshape(4, 3, 2)],
            "table": [np.ones(4)],
            "n_per_input": [10, 10**12],
        },
    ),
    TE + "check_output_table": spec(
        table=GRR4.output_table(),
        epsilon=math.log(3),
        reference=GRR4.output_table(),
        _free={"table"},
        _none_ok={"reference"},
        _extra={"reference": [np.ones(4)]},
    ),
    TE + "check_estimator": spec(
        estimate=_grr_estimate,
        mechanism=GRR4,
        truth=np.array([30, 15, 15, 0]),
        n_draws=200,
        seed=0,
        _extra={"truth": [np.array([1, 2, 3])], "n_draws": [10]},
    ),
    TE + "check_chernoff_bound": spec(bound=_chernoff, n_trials=1000, _extra={"n_trials": [10]}),
    "ldp_helpers.teaching.oracles.check_scaled_risk": spec(risk=_risk),
    "ldp_helpers.teaching.shuffle.check_shuffle_delta": spec(delta=_shuffled_delta),
}
RECORDS = {TE + "Check"}
