"""The coding exercises' checkers (ldp_helpers.teaching): reference solutions pass, wrong ones are caught, in words.

Each checker gets the reference solution of its notebook exercise (it must pass) and several deliberately
wrong solutions, the mistakes students make (each must fail, and the message must say what and where).
Seeds are fixed, so every verdict is reproducible.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp_helpers as ldp
from ldp_helpers import teaching
from ldp_helpers.experiments.privacy_audit import never_cleared_loss
from ldp_helpers.mechanisms.rappor import RapporParams
from ldp_helpers.mechanisms.rappor_client import all_bloom_filters, report_table

EPS, D = math.log(3), 4
GRR = ldp.GRR(EPS, D)
P, Q = GRR.p, GRR.q


# ---------------------------------------------------------------- 00: GRR's client and estimator
def grr_perturb(values, rng):
    keep = rng.random(values.size) < P
    return np.where(keep, values, (values + rng.integers(1, D, size=values.size)) % D)


WRONG_GRR = {
    "always the next value when lying": lambda v, rng: np.where(rng.random(v.size) < P, v, (v + 1) % D),
    "keeps with 0.6 instead of p": lambda v, rng: np.where(rng.random(v.size) < 0.6, v, (v + rng.integers(1, D, v.size)) % D),
    "lies uniformly over all d values": lambda v, rng: np.where(rng.random(v.size) < P, v, rng.integers(0, D, v.size)),
    "reports 1-based values": lambda v, rng: grr_perturb(v, rng) + 1,
    "one report in total": lambda v, rng: grr_perturb(v[:1], rng),
}


def test_grr_client_reference_passes():
    result = teaching.check_client(grr_perturb, GRR.output_table(), np.arange(D))
    assert result.passed, result.message
    assert str(result).startswith("PASSED")


@pytest.mark.parametrize("mistake", WRONG_GRR)
def test_grr_client_mistakes_are_caught(mistake):
    result = teaching.check_client(WRONG_GRR[mistake], GRR.output_table(), np.arange(D))
    assert not result.passed and "input" in result.message, (mistake, result.message)
    assert str(result).startswith("NOT YET")


def grr_estimate(counts, n):
    return (counts - n * Q) / (P - Q)


WRONG_ESTIMATES = {
    "forgets n q": lambda c, n: c / (P - Q),
    "divides by p": lambda c, n: (c - n * Q) / P,
    "subtracts q, not n q": lambda c, n: (c - Q) / (P - Q),
    "returns frequencies": lambda c, n: grr_estimate(c, n) / n,
    "returns one number": lambda c, n: float(np.sum(grr_estimate(c, n))),
}


def test_grr_estimator_reference_passes():
    result = teaching.check_estimator(grr_estimate, GRR, np.array([300, 150, 150, 0]))
    assert result.passed, result.message


@pytest.mark.parametrize("mistake", WRONG_ESTIMATES)
def test_grr_estimator_mistakes_are_caught(mistake):
    result = teaching.check_estimator(WRONG_ESTIMATES[mistake], GRR, np.array([300, 150, 150, 0]))
    assert not result.passed and ("biased" in result.message or "shape" in result.message), (mistake, result.message)


def test_a_crashing_solution_is_reported_not_raised():
    result = teaching.check_estimator(lambda c, n: n / 0, GRR, np.array([3, 1, 1, 0]))
    assert not result.passed and "ZeroDivisionError" in result.message


# ---------------------------------------------------------------- 01: OUE's bit flips
OUE = ldp.OUE(1.0, 4)


def oue_perturb(values, rng):
    one_hot = np.arange(4) == values[:, None]
    return (rng.random(one_hot.shape) < np.where(one_hot, OUE.p, OUE.q)).astype(int)


WRONG_OUE = {
    "SUE's q instead of OUE's": lambda v, rng: (rng.random((v.size, 4)) < np.where(np.arange(4) == v[:, None], 0.5,
                                                                                    1 / (math.exp(0.5) + 1))).astype(int),
    "p and q swapped": lambda v, rng: (rng.random((v.size, 4)) < np.where(np.arange(4) == v[:, None], OUE.q, OUE.p)).astype(int),
    "one coin for all bits": lambda v, rng: (rng.random((v.size, 1)) < np.where(np.arange(4) == v[:, None], OUE.p, OUE.q)).astype(int),
    "returns the value, not bits": lambda v, rng: v,
}


def test_oue_client_reference_passes():
    assert teaching.check_client(oue_perturb, OUE.output_table(), np.arange(4)).passed


@pytest.mark.parametrize("mistake", WRONG_OUE)
def test_oue_client_mistakes_are_caught(mistake):
    result = teaching.check_client(WRONG_OUE[mistake], OUE.output_table(), np.arange(4))
    assert not result.passed, (mistake, result.message)


# ---------------------------------------------------------------- 02: RAPPOR's PRR
F, K = 0.5, 4
BLOOMS = all_bloom_filters(K, 2)
PRR_TABLE = report_table(BLOOMS, RapporParams(k=K, h=2, m=1, f=F, p=0.5, q=0.75).prr_bit_table())


def prr(bits, rng):
    u = rng.random(bits.shape)
    return np.where(u < F / 2, 1, np.where(u < F, 0, bits))


WRONG_PRR = {
    "flips with probability f": lambda b, rng: np.where(rng.random(b.shape) < F, 1 - b, b),
    "one coin per filter": lambda b, rng: prr(b, rng)[:, :1] * 0 + np.where(rng.random((b.shape[0], 1)) < F / 2, 1, b),
    "sets to 1 with f, never to 0": lambda b, rng: np.where(rng.random(b.shape) < F / 2, 1, b),
    "bits reversed": lambda b, rng: prr(b, rng)[:, ::-1],
}


def test_prr_reference_passes():
    assert teaching.check_client(prr, PRR_TABLE, BLOOMS).passed


@pytest.mark.parametrize("mistake", WRONG_PRR)
def test_prr_mistakes_are_caught(mistake):
    result = teaching.check_client(WRONG_PRR[mistake], PRR_TABLE, BLOOMS)
    assert not result.passed and "bits" in result.message, (mistake, result.message)


# ---------------------------------------------------------------- 03: the multiplicative Chernoff bound
def chernoff(delta, mu):
    return (math.exp(delta) / (1 + delta) ** (1 + delta)) ** mu


WRONG_CHERNOFF = {
    "the simple form e^(-δ²μ/3)": lambda d, m: math.exp(-d * d * m / 3),
    "e^(-δ²μ/2), the lower tail's": lambda d, m: math.exp(-d * d * m / 2),
    "exponent μ/2": lambda d, m: chernoff(d, m / 2),
    "(1+δ)^δ in the denominator": lambda d, m: (math.exp(d) / (1 + d) ** d) ** m,
}


def test_chernoff_reference_passes():
    assert teaching.check_chernoff_bound(chernoff).passed


@pytest.mark.parametrize("mistake", WRONG_CHERNOFF)
def test_chernoff_mistakes_are_caught(mistake):
    result = teaching.check_chernoff_bound(WRONG_CHERNOFF[mistake])
    assert not result.passed and "δ =" in result.message, (mistake, result.message)


def test_an_invalid_bound_is_called_invalid():
    assert "not an upper bound" in teaching.check_chernoff_bound(WRONG_CHERNOFF["e^(-δ²μ/2), the lower tail's"]).message


# ---------------------------------------------------------------- 04: Glance's estimator
GLANCE = ldp.Glance(1.0, 5)
STREAM = ldp.constant_population(0.3, 2000, 5)
PG = math.e / (1 + math.e)


def glance_estimate(aggregate, n):
    K, X = aggregate
    return (X / K - (1 - PG)) / (2 * PG - 1)


WRONG_GLANCE = {
    "no debiasing": lambda a, n: a[1] / a[0],
    "divides by p, not p − q": lambda a, n: (a[1] / a[0] - (1 - PG)) / PG,
    "divides by all N users": lambda a, n: (a[1] / n - (1 - PG)) / (2 * PG - 1),
    "rounds reversed": lambda a, n: glance_estimate(a, n)[::-1] * 0 + glance_estimate(a, n).mean() + 0.1,
}


def test_glance_estimator_reference_passes():
    assert teaching.check_estimator(glance_estimate, GLANCE, STREAM).passed


@pytest.mark.parametrize("mistake", WRONG_GLANCE)
def test_glance_estimator_mistakes_are_caught(mistake):
    result = teaching.check_estimator(WRONG_GLANCE[mistake], GLANCE, STREAM)
    assert not result.passed and "biased" in result.message, (mistake, result.message)


# ---------------------------------------------------------------- 05: PSFO's padding and sampling (GRR at ε')
PSFO = ldp.PSFO(1.0, 3, 2)
SETS = np.array([[1 if i in s else 0 for i in range(3)] for size in range(4)
                 for s in __import__("itertools").combinations(range(3), size)])


def psfo_client(sets, rng, eps_prime=ldp.amplified_grr_epsilon(1.0, 2)):
    d, ell = 3, 2
    items = [np.flatnonzero(row) for row in sets]
    padded = [s if s.size >= ell else np.concatenate([s, np.arange(d, d + ell - s.size)]) for s in items]
    sampled = np.array([rng.choice(rng.permutation(s)[:ell]) for s in padded])
    return ldp.GRR(eps_prime, d + ell).perturb(sampled, rng=rng)


WRONG_PSFO = {
    "GRR at ε, not the amplified ε'": lambda s, rng: psfo_client(s, rng, eps_prime=1.0),
    "no padding (samples from the set itself)": lambda s, rng: ldp.GRR(ldp.amplified_grr_epsilon(1.0, 2), 5).perturb(
        np.array([rng.choice(np.flatnonzero(r)) if r.any() else 3 for r in s]), rng=rng),
    "pads with one dummy only": lambda s, rng: ldp.GRR(ldp.amplified_grr_epsilon(1.0, 2), 5).perturb(
        np.array([rng.choice(np.append(np.flatnonzero(r), 3)) for r in s]), rng=rng),
}


def test_psfo_client_reference_passes():
    assert teaching.check_client(psfo_client, PSFO.output_table(), SETS, n_per_input=2000).passed


@pytest.mark.parametrize("mistake", WRONG_PSFO)
def test_psfo_client_mistakes_are_caught(mistake):
    result = teaching.check_client(WRONG_PSFO[mistake], PSFO.output_table(), SETS, n_per_input=2000)
    assert not result.passed, (mistake, result.message)


# ---------------------------------------------------------------- 06: the broken client's output table
OUE3 = ldp.OUE(1.0, 3)
P_TRUE = OUE3.p + (1 - OUE3.p) * OUE3.q
BROKEN = ldp.unary_output_table(P_TRUE, OUE3.q, 3)


def broken_table():
    rows = []
    for v in range(3):
        prob_one = np.where(np.arange(3) == v, P_TRUE, OUE3.q)
        ys = (np.arange(8)[:, None] >> np.arange(3)) & 1
        rows.append(np.prod(np.where(ys == 1, prob_one, 1 - prob_one), axis=1))
    return np.array(rows)


WRONG_TABLES = {
    "the correct client's table": OUE3.output_table(),
    "bits in the other order": broken_table()[:, [int(f"{y:03b}"[::-1], 2) for y in range(8)]],
    "rows not normalised": broken_table() * 1.1,
    "a probability above one": broken_table() - 0.2 + 0.2 * np.eye(3, 8) * 5,
    "one row only": broken_table()[:1],
}


def test_output_table_reference_passes():
    result = teaching.check_output_table(broken_table(), epsilon=never_cleared_loss("OUE", 1.0), reference=BROKEN)
    assert result.passed, result.message


@pytest.mark.parametrize("mistake", WRONG_TABLES)
def test_output_table_mistakes_are_caught(mistake):
    result = teaching.check_output_table(WRONG_TABLES[mistake], epsilon=never_cleared_loss("OUE", 1.0), reference=BROKEN)
    assert not result.passed, (mistake, result.message)


def test_output_table_without_reference_checks_the_exact_epsilon():
    result = teaching.check_output_table(OUE3.output_table(), epsilon=never_cleared_loss("OUE", 1.0))
    assert not result.passed and "exact ε of your table is 1" in result.message


def test_bad_checker_input_is_refused_by_name():
    with pytest.raises(TypeError, match="perturb"):
        teaching.check_client("not a function", GRR.output_table(), np.arange(D))
    with pytest.raises(ValueError, match="inputs"):
        teaching.check_client(grr_perturb, GRR.output_table(), np.arange(D + 1))
    with pytest.raises(ValueError, match="truth"):
        teaching.check_estimator(grr_estimate, GRR, np.array([1, 2, 3]))
