"""The coding exercises' checkers (ldp_helpers.teaching): reference solutions pass, wrong ones are caught, in words.

Each checker gets the reference solution of its notebook exercise (it must pass) and a catalogue of
deliberately wrong solutions, the mistakes students make (each must answer ``NOT YET: …`` and the message
must say what is wrong: the words each entry expects).  The catalogue holds the five that passed the old
checkers (issue 39: a client reporting from the first user's value, one truthful on mixed batches, a
deterministic one, GRR at ε = 1.05 against the ε = 1 table, an estimator off by ±1e6 alternately) and
the usual others: swapped p and q, a wrong normalisation, an off-by-one domain, true values or counts
returned, an unseeded global RNG, a shared coin, quotas, a hung or memory-hungry client.  Seeds are
fixed, so every verdict is reproducible.
"""

from __future__ import annotations

import itertools
import math
import re
import time

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


def grr_as_deterministic(v, rng):
    """User i's report a function of i and x: right marginals, no randomness."""
    i = np.arange(v.size)
    return np.where((i * 0.6180339887) % 1 < P, v, (v + 1 + (i * 7) % 3) % D)


def grr_by_quota(v, rng):
    """Exactly the expected number of each output per input, handed out in a random order."""
    out = np.empty_like(v)
    for x in range(D):
        users = np.flatnonzero(v == x)
        k = np.round(users.size * GRR.output_table()[x]).astype(int)
        k[-1] = users.size - k[:-1].sum()
        out[users] = rng.permutation(np.repeat(np.arange(D), k))
    return out


def grr_one_coin_per_pair(v, rng):
    coin = np.repeat(rng.random((v.size + 1) // 2), 2)[: v.size]
    return np.where(coin < P, v, (v + rng.integers(1, D, size=v.size)) % D)


def grr_by_position(v, rng):
    keep = np.where(np.arange(v.size) < v.size // 2, P + 0.1, P - 0.1)  # right on average only
    return np.where(rng.random(v.size) < keep, v, (v + rng.integers(1, D, size=v.size)) % D)


#: mistake -> (the student's client, words its message must contain)
WRONG_GRR = {
    "always the next value when lying": (
        lambda v, rng: np.where(rng.random(v.size) < P, v, (v + 1) % D),
        "input",
    ),
    "keeps with 0.6 instead of p": (
        lambda v, rng: np.where(rng.random(v.size) < 0.6, v, (v + rng.integers(1, D, v.size)) % D),
        "input",
    ),
    "lies uniformly over all d values": (
        lambda v, rng: np.where(rng.random(v.size) < P, v, rng.integers(0, D, v.size)),
        "input",
    ),
    "p and q swapped (keeps with q)": (
        lambda v, rng: np.where(rng.random(v.size) < Q, v, (v + rng.integers(1, D, v.size)) % D),
        "input",
    ),
    "off-by-one domain: lies among d - 2 others": (
        lambda v, rng: np.where(
            rng.random(v.size) < P, v, (v + rng.integers(1, D - 1, v.size)) % D
        ),
        "input",
    ),
    "reports 1-based values": (lambda v, rng: grr_perturb(v, rng) + 1, "off-by-one"),
    "reports the true values": (lambda v, rng: v, "input"),
    "one report in total": (lambda v, rng: grr_perturb(v[:1], rng), "shape"),
    "reports from the first user's value for everyone": (
        lambda v, rng: grr_perturb(np.full_like(v, v[0]), rng),
        "input",
    ),
    "truthful on mixed batches": (
        lambda v, rng: v if np.unique(v).size > 1 else grr_perturb(v, rng),
        "input",
    ),
    "user i's report a function of i and x": (grr_as_deterministic, "not fresh"),
    "a Generator of its own, seeded": (
        lambda v, rng: grr_perturb(v, np.random.default_rng(0)),
        "not fresh",
    ),
    "the unseeded global RNG": (
        lambda v, rng: np.where(
            np.random.random(v.size) < P, v, (v + 1 + np.random.randint(0, D - 1, v.size)) % D
        ),
        "rng it is given",
    ),
    "one coin for two users": (grr_one_coin_per_pair, "neighbouring"),
    "outputs handed out by quota": (grr_by_quota, "quota"),
    "a law that depends on the position": (grr_by_position, "position"),
    "returns probabilities": (lambda v, rng: rng.random(v.size), "not an integer"),
    "returns None": (lambda v, rng: None, "return"),
    "returns strings": (lambda v, rng: v.astype(str), "type"),
}


def test_grr_client_reference_passes():
    result = teaching.check_client(grr_perturb, GRR.output_table(), np.arange(D))
    assert result.passed, result.message
    assert str(result).startswith("PASSED")


@pytest.mark.parametrize("mistake", WRONG_GRR)
def test_grr_client_mistakes_are_caught(mistake):
    client, words = WRONG_GRR[mistake]
    result = teaching.check_client(client, GRR.output_table(), np.arange(D))
    assert str(result).startswith("NOT YET: ") and words in result.message, (
        mistake,
        result.message,
    )


def test_grr_at_a_slightly_larger_epsilon_is_caught():
    """GRR at ε = 1.05 against the ε = 1 table (5 % off in ε) fails; GRR at ε = 1 passes."""
    exact, larger = ldp.GRR(1.0, 4), ldp.GRR(1.05, 4)

    def client(mechanism):
        return lambda v, rng: np.where(
            rng.random(v.size) < mechanism.p, v, (v + rng.integers(1, 4, v.size)) % 4
        )

    assert teaching.check_client(client(exact), exact.output_table(), np.arange(4)).passed
    result = teaching.check_client(client(larger), exact.output_table(), np.arange(4), seed=2)
    assert not result.passed and "ε ≈ 1.0" in result.message and "exact ε is 1" in result.message, (
        result.message
    )
    assert not teaching.check_client(client(larger), exact.output_table(), np.arange(4)).passed


def test_a_huge_report_is_refused_by_its_shape_or_the_memory_limit():
    """A (n, 1e5) boolean report: refused by its shape when it fits, by the memory limit when it does not."""

    def wide(v, rng):
        return np.zeros((v.size, 10**5), dtype=bool)

    small = teaching.check_client(wide, GRR.output_table(), np.arange(D), n_per_input=50)
    assert not small.passed and "shape (200, 100000)" in small.message, small.message
    big = teaching.check_client(wide, GRR.output_table(), np.arange(D))  # 80,000 users: 8 GB
    assert not big.passed and "memory limit" in big.message, big.message


def test_a_hung_client_is_stopped_and_leaves_no_trace():
    """A client that seeds the global RNG and then sleeps: stopped at the time limit, np.random untouched."""

    def hang(v, rng):
        np.random.seed(123)
        time.sleep(600)

    before = np.random.get_state()[1].copy()
    start = time.monotonic()
    result = teaching.check_client(hang, GRR.output_table(), np.arange(D), time_limit=2)
    assert time.monotonic() - start < 10
    assert not result.passed and "time limit of 2 s" in result.message, result.message
    assert np.array_equal(np.random.get_state()[1], before)


def test_without_fork_the_checks_run_in_process(monkeypatch):
    """Where fork is missing (Windows) the student's code runs in this process, with the same verdicts."""
    monkeypatch.setattr("multiprocessing.get_all_start_methods", lambda: ["spawn"])
    assert teaching.check_client(
        grr_perturb, GRR.output_table(), np.arange(D), n_per_input=2000
    ).passed
    crashed = teaching.check_client(
        lambda v, rng: 1 / 0, GRR.output_table(), np.arange(D), n_per_input=2000
    )
    assert "ZeroDivisionError" in crashed.message


def grr_estimate(counts, n):
    return (counts - n * Q) / (P - Q)


def off_by_a_million_alternately():
    sign = itertools.cycle((1, -1))
    return lambda c, n: grr_estimate(c, n) + 1e6 * next(sign)


#: mistake -> (the student's estimator, words its message must contain)
WRONG_ESTIMATES = {
    "forgets n q": (lambda c, n: c / (P - Q), "biased"),
    "divides by p": (lambda c, n: (c - n * Q) / P, "biased"),
    "subtracts q, not n q": (lambda c, n: (c - Q) / (P - Q), "biased"),
    "p and q swapped": (lambda c, n: (c - n * P) / (Q - P), "biased"),
    "returns frequencies": (lambda c, n: grr_estimate(c, n) / n, "look like frequencies"),
    "returns the report counts": (lambda c, n: c, "debiasing"),
    "returns the true counts": (lambda c, n: np.array([300.0, 150, 150, 0]), "hardly vary"),
    "off by ±1e6 alternately": (off_by_a_million_alternately(), "variance"),
    "returns one number": (lambda c, n: float(np.sum(grr_estimate(c, n))), "shape"),
    "returns None": (lambda c, n: None, "return"),
    "returns strings": (lambda c, n: [f"{x:.1f}" for x in grr_estimate(c, n)], "str"),
}


def test_grr_estimator_reference_passes():
    result = teaching.check_estimator(grr_estimate, GRR, np.array([300, 150, 150, 0]))
    assert result.passed, result.message


@pytest.mark.parametrize("mistake", WRONG_ESTIMATES)
def test_grr_estimator_mistakes_are_caught(mistake):
    estimator, words = WRONG_ESTIMATES[mistake]
    result = teaching.check_estimator(estimator, GRR, np.array([300, 150, 150, 0]))
    assert str(result).startswith("NOT YET: ") and words in result.message, (
        mistake,
        result.message,
    )


def test_a_frequency_given_for_a_count_is_named():
    """Issue 36: "mean 0.499 vs 300" says the estimate looks like a frequency where a count is asked."""
    result = teaching.check_estimator(
        WRONG_ESTIMATES["returns frequencies"][0], GRR, np.array([300, 150, 150, 0])
    )
    assert "is 0.49" in result.message and "exact mean is 300" in result.message
    assert "counts divided by n = 600" in result.message and "multiply by n" in result.message


def test_a_hung_estimator_is_stopped():
    result = teaching.check_estimator(
        lambda c, n: time.sleep(600), GRR, np.array([3, 1, 1, 0]), time_limit=1
    )
    assert not result.passed and "time limit" in result.message


def test_a_crashing_solution_is_reported_not_raised():
    result = teaching.check_estimator(lambda c, n: n / 0, GRR, np.array([3, 1, 1, 0]))
    assert not result.passed and "ZeroDivisionError" in result.message


# ---------------------------------------------------------------- 01: OUE's bit flips
OUE = ldp.OUE(1.0, 4)


def oue_perturb(values, rng):
    one_hot = np.arange(4) == values[:, None]
    return (rng.random(one_hot.shape) < np.where(one_hot, OUE.p, OUE.q)).astype(int)


WRONG_OUE = {
    "SUE's q instead of OUE's": lambda v, rng: (
        rng.random((v.size, 4)) < np.where(np.arange(4) == v[:, None], 0.5, 1 / (math.exp(0.5) + 1))
    ).astype(int),
    "p and q swapped": lambda v, rng: (
        rng.random((v.size, 4)) < np.where(np.arange(4) == v[:, None], OUE.q, OUE.p)
    ).astype(int),
    "one coin for all bits": lambda v, rng: (
        rng.random((v.size, 1)) < np.where(np.arange(4) == v[:, None], OUE.p, OUE.q)
    ).astype(int),
    "returns the value, not bits": lambda v, rng: v,
    "rows and columns swapped (one row per value)": lambda v, rng: oue_perturb(v, rng).T,
}
WORDS_OUE = {"rows and columns swapped (one row per value)": "transposed"}


def test_oue_client_reference_passes():
    assert teaching.check_client(oue_perturb, OUE.output_table(), np.arange(4)).passed


@pytest.mark.parametrize("mistake", WRONG_OUE)
def test_oue_client_mistakes_are_caught(mistake):
    result = teaching.check_client(WRONG_OUE[mistake], OUE.output_table(), np.arange(4))
    words = WORDS_OUE.get(mistake, "input")
    assert str(result).startswith("NOT YET: ") and words in result.message, (
        mistake,
        result.message,
    )


# ---------------------------------------------------------------- 02: RAPPOR's PRR
F, K = 0.5, 4
BLOOMS = all_bloom_filters(K, 2)
PRR_TABLE = report_table(BLOOMS, RapporParams(k=K, h=2, m=1, f=F, p=0.5, q=0.75).prr_bit_table())


def prr(bits, rng):
    u = rng.random(bits.shape)
    return np.where(u < F / 2, 1, np.where(u < F, 0, bits))


WRONG_PRR = {
    "flips with probability f": lambda b, rng: np.where(rng.random(b.shape) < F, 1 - b, b),
    "one coin per filter": lambda b, rng: (
        prr(b, rng)[:, :1] * 0 + np.where(rng.random((b.shape[0], 1)) < F / 2, 1, b)
    ),
    "sets to 1 with f, never to 0": lambda b, rng: np.where(rng.random(b.shape) < F / 2, 1, b),
    "bits reversed": lambda b, rng: prr(b, rng)[:, ::-1],
}


def test_prr_reference_passes():
    assert teaching.check_client(prr, PRR_TABLE, BLOOMS).passed


@pytest.mark.parametrize("mistake", WRONG_PRR)
def test_prr_mistakes_are_caught(mistake):
    result = teaching.check_client(WRONG_PRR[mistake], PRR_TABLE, BLOOMS)
    assert str(result).startswith("NOT YET: ") and "bits" in result.message, (
        mistake,
        result.message,
    )


# ---------------------------------------------------------------- 03: the multiplicative Chernoff bound
def chernoff(delta, mu):
    return (math.exp(delta) / (1 + delta) ** (1 + delta)) ** mu


WRONG_CHERNOFF = {
    "the simple form e^(-δ²μ/3)": lambda d, m: math.exp(-d * d * m / 3),
    "e^(-δ²μ/2), the lower tail's": lambda d, m: math.exp(-d * d * m / 2),
    "exponent μ/2": lambda d, m: chernoff(d, m / 2),
    "(1+δ)^δ in the denominator": lambda d, m: (math.exp(d) / (1 + d) ** d) ** m,
    "returns None": lambda d, m: None,
    "returns a string": lambda d, m: f"{chernoff(d, m):.3g}",
    "returns one value per δ of a grid": lambda d, m: np.array([chernoff(d, m)] * 2),
}
WORDS_CHERNOFF = {
    "returns None": "return",
    "returns a string": "str",
    "returns one value per δ of a grid": "shape",
}


def test_chernoff_reference_passes():
    assert teaching.check_chernoff_bound(chernoff).passed


@pytest.mark.parametrize("mistake", WRONG_CHERNOFF)
def test_chernoff_mistakes_are_caught(mistake):
    result = teaching.check_chernoff_bound(WRONG_CHERNOFF[mistake])
    words = WORDS_CHERNOFF.get(mistake, "δ =")
    assert str(result).startswith("NOT YET: ") and words in result.message, (
        mistake,
        result.message,
    )


def test_an_endless_bound_is_stopped():
    def endless(delta, mu):
        while True:  # never returns (asleep: no core burnt while the limit runs out)
            time.sleep(1)

    result = teaching.check_chernoff_bound(endless, time_limit=1)
    assert not result.passed and "time limit of 1 s" in result.message


def test_an_invalid_bound_is_called_invalid():
    assert (
        "not an upper bound"
        in teaching.check_chernoff_bound(WRONG_CHERNOFF["e^(-δ²μ/2), the lower tail's"]).message
    )


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
    "rounds reversed": lambda a, n: (
        glance_estimate(a, n)[::-1] * 0 + glance_estimate(a, n).mean() + 0.1
    ),
}


def test_glance_estimator_reference_passes():
    assert teaching.check_estimator(glance_estimate, GLANCE, STREAM).passed


@pytest.mark.parametrize("mistake", WRONG_GLANCE)
def test_glance_estimator_mistakes_are_caught(mistake):
    result = teaching.check_estimator(WRONG_GLANCE[mistake], GLANCE, STREAM)
    assert str(result).startswith("NOT YET: ") and "biased" in result.message, (
        mistake,
        result.message,
    )


# ---------------------------------------------------------------- 05: PSFO's padding and sampling (GRR at ε')
PSFO = ldp.PSFO(1.0, 3, 2)
SETS = np.array(
    [
        [1 if i in s else 0 for i in range(3)]
        for size in range(4)
        for s in __import__("itertools").combinations(range(3), size)
    ]
)


def psfo_client(sets, rng, eps_prime=ldp.amplified_grr_epsilon(1.0, 2)):
    d, ell = 3, 2
    items = [np.flatnonzero(row) for row in sets]
    padded = [
        s if s.size >= ell else np.concatenate([s, np.arange(d, d + ell - s.size)]) for s in items
    ]
    sampled = np.array([rng.choice(rng.permutation(s)[:ell]) for s in padded])
    return ldp.GRR(eps_prime, d + ell).perturb(sampled, rng=rng)


WRONG_PSFO = {
    "GRR at ε, not the amplified ε'": lambda s, rng: psfo_client(s, rng, eps_prime=1.0),
    "no padding (samples from the set itself)": lambda s, rng: ldp.GRR(
        ldp.amplified_grr_epsilon(1.0, 2), 5
    ).perturb(np.array([rng.choice(np.flatnonzero(r)) if r.any() else 3 for r in s]), rng=rng),
    "pads with one dummy only": lambda s, rng: ldp.GRR(
        ldp.amplified_grr_epsilon(1.0, 2), 5
    ).perturb(np.array([rng.choice(np.append(np.flatnonzero(r), 3)) for r in s]), rng=rng),
}


def test_psfo_client_reference_passes():
    assert teaching.check_client(psfo_client, PSFO.output_table(), SETS, n_per_input=2000).passed


@pytest.mark.parametrize("mistake", WRONG_PSFO)
def test_psfo_client_mistakes_are_caught(mistake):
    result = teaching.check_client(WRONG_PSFO[mistake], PSFO.output_table(), SETS, n_per_input=2000)
    assert str(result).startswith("NOT YET: ") and "input bits" in result.message, (
        mistake,
        result.message,
    )


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


#: mistake -> (the student's table, words its message must contain)
WRONG_TABLES = {
    "the correct client's table": (OUE3.output_table(), "exact ε of your table"),
    "bits in the other order": (
        broken_table()[:, [int(f"{y:03b}"[::-1], 2) for y in range(8)]],
        "row 0, column 1",
    ),
    "rows not normalised": (broken_table() * 1.1, "sum to 1"),
    "a probability above one": (broken_table() - 0.2 + 0.2 * np.eye(3, 8) * 5, "outside [0, 1]"),
    "one row only": (broken_table()[:1], "shape"),
    "transposed": (broken_table().T, "transposed"),
    "percentages": (100 * broken_table(), "percentages"),
    "None (no return)": (None, "return"),
    "strings": (broken_table().astype(str), "not numbers"),
    "a ragged list": ([[0.5, 0.5], [1.0]], "ragged"),
}


def test_output_table_reference_passes():
    result = teaching.check_output_table(
        broken_table(), epsilon=never_cleared_loss("OUE", 1.0), reference=BROKEN
    )
    assert result.passed, result.message


@pytest.mark.parametrize("mistake", WRONG_TABLES)
def test_output_table_mistakes_are_caught(mistake):
    table, words = WRONG_TABLES[mistake]
    result = teaching.check_output_table(
        table, epsilon=never_cleared_loss("OUE", 1.0), reference=BROKEN
    )
    assert str(result).startswith("NOT YET: ") and words in result.message, (
        mistake,
        result.message,
    )


def test_an_output_table_at_a_slightly_larger_epsilon_is_caught():
    """GRR's table at ε = 1.05 asked as ε = 1: the exact ε is named, with the stated tolerance."""
    result = teaching.check_output_table(ldp.GRR(1.05, 4).output_table(), epsilon=1.0)
    assert (
        not result.passed
        and "exact ε of your table is 1.05" in result.message
        and "tolerance" in result.message
    )
    assert teaching.check_output_table(ldp.GRR(1.0, 4).output_table(), epsilon=1.0).passed


def test_output_table_without_reference_checks_the_exact_epsilon():
    result = teaching.check_output_table(
        OUE3.output_table(), epsilon=never_cleared_loss("OUE", 1.0)
    )
    assert not result.passed and "exact ε of your table is 1" in result.message


def test_bad_checker_input_is_refused_by_name():
    with pytest.raises(TypeError, match="perturb"):
        teaching.check_client("not a function", GRR.output_table(), np.arange(D))
    with pytest.raises(ValueError, match="inputs"):
        teaching.check_client(grr_perturb, GRR.output_table(), np.arange(D + 1))
    with pytest.raises(ValueError, match="truth"):
        teaching.check_estimator(grr_estimate, GRR, np.array([1, 2, 3]))


# ---------------------------------------------------------------- 07: the scaled risk of a pure oracle
def scaled_risk_of(p, q, d):
    return (d * q * (1 - q) + (p - q) * (1 - p - q)) / (p - q) ** 2


#: mistake -> (the student's risk, words its message must contain)
WRONG_RISKS = {
    "the users' own values forgotten": (
        lambda p, q, d: d * q * (1 - q) / (p - q) ** 2,
        "is missing",
    ),
    "p - q not squared": (
        lambda p, q, d: (d * q * (1 - q) + (p - q) * (1 - p - q)) / (p - q),
        "exact scaled risk",
    ),
    "one value's variance, not the sum": (
        lambda p, q, d: scaled_risk_of(p, q, d) / d,
        "exact scaled risk",
    ),
    "four times too large (a ±1 encoding)": (
        lambda p, q, d: 4 * scaled_risk_of(p, q, d),
        "4 times",
    ),
    "d - 1 other values": (
        lambda p, q, d: ((d - 1) * q * (1 - q) + (p - q) * (1 - p - q)) / (p - q) ** 2,
        "exact",
    ),
    "p and q swapped": (lambda p, q, d: scaled_risk_of(q, p, d), "exact scaled risk"),
    "returns None": (lambda p, q, d: None, "return"),
    "returns a list": (lambda p, q, d: [scaled_risk_of(p, q, d)], "shape"),
}


def test_scaled_risk_reference_passes():
    result = teaching.check_scaled_risk(scaled_risk_of)
    assert result.passed, result.message


@pytest.mark.parametrize("mistake", WRONG_RISKS)
def test_scaled_risk_mistakes_are_caught(mistake):
    risk, words = WRONG_RISKS[mistake]
    result = teaching.check_scaled_risk(risk)
    assert str(result).startswith("NOT YET: ") and words in result.message, (
        mistake,
        result.message,
    )
    assert re.search(r"for (GRR|SUE|OUE|SS) at ε = [\d.]+, d = \d+", result.message) or words in (
        "return",
        "shape",
    )


# ---------------------------------------------------------------- 08: the exact δ of shuffled binary RR
def shuffled_delta(n, epsilon0, epsilon):
    """The notebook's solution: the two count laws with scipy.stats.binom, both directions."""
    from scipy import stats

    p = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    c1 = np.arange(n + 1)
    P = stats.binom.pmf(c1, n, 1 - p)
    Q = P * ((n - c1) * (1 - p) / p + c1 * p / (1 - p)) / n
    return max(
        np.maximum(P - math.exp(epsilon) * Q, 0).sum(),
        np.maximum(Q - math.exp(epsilon) * P, 0).sum(),
    )


def shuffled_delta_with_p_for_the_ones(n, epsilon0, epsilon):
    """The solution with P = Binomial(n, p) on the 1s (the keep probability), the ratio unchanged."""
    from scipy import stats

    p = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    c1 = np.arange(n + 1)
    P = stats.binom.pmf(c1, n, p)
    Q = P * ((n - c1) * (1 - p) / p + c1 * p / (1 - p)) / n
    return _hockey(P, Q, epsilon)


def _laws(n, epsilon0, *, own=True):
    """P, Q of the number of 1s (x₁ = 0, 1); ``own=False``: user 1 sends her bit as it is."""
    from scipy import stats

    p = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    rest = stats.binom.pmf(np.arange(n), n - 1, 1 - p)
    bit = (1 - p, p) if own else (0.0, 1.0)  # Pr[user 1 reports 1] under x₁ = 0, 1
    return [np.convolve(rest, [1 - b, b]) for b in bit]


def _hockey(P, Q, epsilon, *, both=True):
    one = np.maximum(P - math.exp(epsilon) * Q, 0).sum()
    return max(one, np.maximum(Q - math.exp(epsilon) * P, 0).sum()) if both else one


def _simulated(n, epsilon0, epsilon, trials=2000, seed=None):
    """A per-user simulation of both count laws (histograms of `trials` runs)."""
    rng = np.random.default_rng(seed)
    p = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    laws = []
    for x1 in (0, 1):  # the others hold 0: each user's report is her bit XOR her flip
        ones = []
        for rows in np.diff(np.r_[0:trials:1000, trials]):  # 1000 runs at a time: the same draws
            flips = rng.random((rows, n)) >= p
            ones.append(np.count_nonzero(flips[:, 1:], axis=1) + (flips[:, 0] ^ bool(x1)))
        laws.append(np.bincount(np.concatenate(ones), minlength=n + 1) / trials)
    return _hockey(*laws, epsilon)


#: mistake -> (the student's δ, words its message must contain)
WRONG_SHUFFLE = {
    "ε₀ used where ε is asked": (
        lambda n, e0, e: shuffled_delta(n, e0, e0),
        "ε₀ used where ε is asked",
    ),
    "ε and ε₀ exchanged": (lambda n, e0, e: shuffled_delta(n, e, e0), "ε₀ used where ε"),
    "user 1's own randomization forgotten": (
        lambda n, e0, e: _hockey(*_laws(n, e0, own=False), e),
        "her own randomized response",
    ),
    "one direction only, H(P‖Q)": (
        lambda n, e0, e: _hockey(*_laws(n, e0), e, both=False),
        "both directions",
    ),
    "one direction only, H(Q‖P)": (
        lambda n, e0, e: _hockey(*_laws(n, e0)[::-1], e, both=False),
        "both directions",
    ),
    "a per-user simulation, 2000 trials": (lambda n, e0, e: _simulated(n, e0, e), "sampled"),
    "a per-user simulation, fixed seed": (
        lambda n, e0, e: _simulated(n, e0, e, trials=20_000, seed=1),
        "a simulated or approximated δ",
    ),
    "in percent": (lambda n, e0, e: 100 * shuffled_delta(n, e0, e), "100 times"),
    "ln δ": (lambda n, e0, e: math.log(shuffled_delta(n, e0, e)), "yours is ln δ"),
    "positive part forgotten": (
        lambda n, e0, e: max(
            (P - math.exp(e) * Q).sum() for P, Q in [_laws(n, e0), _laws(n, e0)[::-1]]
        ),
        "positive part",
    ),
    "Bin(n, p) for the 1s, with the ratio of Bin(n, 1 − p)": (
        lambda n, e0, e: shuffled_delta_with_p_for_the_ones(n, e0, e),
        "exact δ(ε)",
    ),
    "the others' n − 1 reports as the view": (
        lambda n, e0, e: shuffled_delta(n - 1, e0, e),
        "exact δ(ε)",
    ),
    "returns None": (lambda n, e0, e: None, "return"),
    "returns the terms, not their sum": (
        lambda n, e0, e: np.maximum(np.subtract(*_laws(n, e0)), 0),
        "shape",
    ),
}


def test_shuffle_delta_reference_passes():
    result = teaching.check_shuffle_delta(shuffled_delta)
    assert result.passed, result.message


@pytest.mark.parametrize("mistake", WRONG_SHUFFLE)
def test_shuffle_delta_mistakes_are_caught(mistake):
    delta, words = WRONG_SHUFFLE[mistake]
    result = teaching.check_shuffle_delta(delta)
    assert str(result).startswith("NOT YET: ") and words in result.message, (
        mistake,
        result.message,
    )


def test_a_hung_delta_is_stopped_and_a_non_function_refused():
    def endless(n, epsilon0, epsilon):
        while True:  # never returns (asleep: no core burnt while the limit runs out)
            time.sleep(1)

    result = teaching.check_shuffle_delta(endless, time_limit=1)
    assert not result.passed and "time limit of 1 s" in result.message
    with pytest.raises(TypeError, match="delta"):
        teaching.check_shuffle_delta(0.1)
