"""The empirical auditor: Clopper–Pearson ε_lb, flags a broken client, never flags ours, refuses bad input."""

import math
import time

import numpy as np
import pytest
from scipy import stats

from ldp_helpers.audit.auditor import (
    AuditResult,
    BlackBoxClient,
    ClientError,
    clopper_pearson,
    epsilon_lower_bound,
    run_audit,
)
from ldp_helpers.audit.events import (
    MAX_OUTCOMES,
    Event,
    _candidate_events,
    _distinct_rows,
    as_report_matrix,
    choose_event,
)
from ldp_helpers.experiments.privacy_audit import _audit_client, _audit_inputs, registry_audits
from ldp_helpers.mechanisms.registry import REGISTRY

EPS, D = 1.0, 4


def test_clopper_pearson_is_the_beta_quantile_interval():
    """statsmodels' "beta" interval is the exact Clopper–Pearson one: Beta(k, n−k+1) and Beta(k+1, n−k) quantiles."""
    k, n, conf = 37, 200, 0.9
    low, high = clopper_pearson(k, n, confidence=conf)
    assert low == pytest.approx(stats.beta.ppf(0.05, k, n - k + 1), rel=1e-10)
    assert high == pytest.approx(stats.beta.ppf(0.95, k + 1, n - k), rel=1e-10)
    assert epsilon_lower_bound(k, n, 10, n, confidence=conf) == pytest.approx(
        math.log(low / clopper_pearson(10, n, confidence=conf)[1])
    )
    assert (
        epsilon_lower_bound(0, n, 10, n, confidence=conf) == 0.0
    )  # no evidence → the trivial bound


def _ue_probabilities(oue):
    if oue:
        return 0.5, 1 / (math.exp(EPS) + 1)
    p = math.exp(EPS / 2) / (math.exp(EPS / 2) + 1)
    return p, 1 - p


class BrokenUE:
    """pure-ldp 1.1.2's bug, written anew: the true bit is set with prob. p but never cleared,
    so Pr[1 | true] = p + (1 − p)q (batched, our Generator)."""

    def __init__(self, oue):
        self.p, self.q = _ue_probabilities(oue)

    def sample(self, value, n, *, rng):
        bits = (rng.random((n, D)) < self.q).astype(np.int8)
        bits[:, value] |= (rng.random(n) < self.p).astype(np.int8)
        return bits.astype(float)


@pytest.mark.parametrize("oue", [False, True])
def test_flags_a_client_that_never_clears_the_true_bit(oue):
    p, q = _ue_probabilities(oue)
    p_broken = p + (1 - p) * q
    true_eps = math.log(p_broken * (1 - q) / (q * (1 - p_broken)))  # the broken client's real loss
    r = run_audit(
        BrokenUE(oue), 0, 1, n_trials=20_000, seed=7, confidence=0.99, claimed_epsilon=EPS
    )
    assert isinstance(r, AuditResult)
    assert r.violation and r.epsilon_lb > EPS  # flagged at 99 %
    assert r.violation_confidence > 0.999
    assert r.epsilon_lb <= true_eps  # and still a lower bound of its true loss
    fixed = run_audit(
        BlackBoxClient(lambda v, rng: _fixed_ue(v, rng, p, q), takes_rng=True),
        0,
        1,
        n_trials=5_000,
        seed=7,
        confidence=0.99,
        claimed_epsilon=EPS,
    )
    assert not fixed.violation


def _fixed_ue(value, rng, p, q):
    bits = (rng.random(D) < q).astype(np.int8)
    bits[value] = rng.random() < p
    return bits


@pytest.fixture(scope="module")
def our_audits():
    return {row.key: row for row in registry_audits(n_trials=20_000, seed=11, confidence=0.99)}


@pytest.mark.parametrize("key", list(REGISTRY))
def test_never_flags_our_mechanisms(key, our_audits):
    """ε_lb ≤ the exact whole-report ε of every registered mechanism, and it is informative (> 0)."""
    row = our_audits[key]
    assert row.exact_epsilon <= row.claimed_epsilon + 1e-9
    assert not row.result.violation
    assert 0.0 < row.result.epsilon_lb <= row.exact_epsilon


def test_tightens_with_n_for_grr():
    m = REGISTRY["grr"].example()
    lbs = [
        run_audit(_audit_client(m), 0, 1, n_trials=n, seed=3, confidence=0.95).epsilon_lb
        for n in (200, 2_000, 200_000)
    ]
    assert lbs[0] < lbs[1] < lbs[2] <= m.privacy_loss()
    assert (
        lbs[2] > m.privacy_loss() - 0.1
    )  # at N = 2e5 the CP half-widths are ~1 % of the probabilities


def test_same_numbers_for_any_chunking_of_workers():
    m = REGISTRY["sue"].example()
    runs = [
        run_audit(m, 0, 1, n_trials=30_000, seed=5, chunk_size=7_000, n_jobs=j, backend=b)
        for j, b in ((1, "sequential"), (2, "threading"))
    ]
    assert (runs[0].count0, runs[0].count1) == (runs[1].count0, runs[1].count1)


def test_given_event_is_used():
    m = REGISTRY["binary_rr"].example()
    event = Event((0,), ("==",), (0.0,))
    r = run_audit(m, 0, 1, n_trials=1_000, seed=2, event=event)
    assert r.event == event and r.x0 == 0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_trials": 0}, "n_trials"),
        ({"n_trials": 10, "confidence": 0.0}, "confidence"),
        ({"n_trials": 10, "confidence": 1.0}, "confidence"),
        ({"n_trials": 10, "confidence": 1.5}, "confidence"),
        ({"n_trials": 10, "claimed_epsilon": -1.0}, "claimed_epsilon"),
        ({"n_trials": 10, "chunk_size": 0}, "chunk_size"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        run_audit(REGISTRY["grr"].example(), 0, 1, seed=0, **kwargs)


def test_bad_clients():
    def raises(value):
        raise KeyError("boom")

    with pytest.raises(ClientError, match=r"raised on value=0 at trial 0: KeyError"):
        run_audit(raises, 0, 1, n_trials=10, seed=0)
    with pytest.raises(TypeError, match="report"):
        run_audit(lambda v: "yes", 0, 1, n_trials=10, seed=0)
    with pytest.raises(TypeError, match="report"):
        run_audit(lambda v: np.zeros((2, 2)), 0, 1, n_trials=10, seed=0)
    calls = iter(range(10**6))
    with pytest.raises(ValueError, match="changed length"):
        run_audit(lambda v: np.zeros(1 + next(calls) % 2), 0, 1, n_trials=10, seed=0)
    with pytest.raises(TypeError, match="client"):
        run_audit(42, 0, 1, n_trials=10, seed=0)
    with pytest.raises(TypeError, match="reports"):
        as_report_matrix(["a"], 1)


def test_choose_event_finds_the_pair_that_exposes_the_bug():
    rng = np.random.default_rng(0)
    broken = BrokenUE(False)
    m0, m1 = broken.sample(0, 5_000, rng=rng), broken.sample(1, 5_000, rng=rng)
    event, swap = choose_event(
        m0,
        m1,
        confidence=0.99,
        bound=np.vectorize(lambda a, n, b, k: epsilon_lower_bound(a, n, b, k, confidence=0.99)),
    )
    assert len(event.columns) >= 2 and {0, 1} <= set(event.columns)
    with pytest.raises(ValueError, match="no event"):
        choose_event(np.zeros((5, 1)), np.zeros((5, 1)), confidence=0.9, bound=lambda *a: -np.inf)
    # a bound that is −∞ or NaN for every candidate distinguishes nothing; a NaN never wins over a number
    for nothing in (
        lambda k, n, j, m: np.full(k.shape, -np.inf),
        lambda k, *a: np.full(k.shape, np.nan),
    ):
        with pytest.raises(ValueError, match="no event distinguishes"):
            choose_event(m0, m1, confidence=0.9, bound=nothing)
    first_real = choose_event(
        m0, m1, confidence=0.9, bound=lambda k, *a: np.where(np.arange(k.size) == 1, 0.5, np.nan)
    )
    assert first_real == (_candidate_events(m0, m1)[1], False)
    with pytest.raises(ValueError, match="one number per candidate event"):
        choose_event(m0, m1, confidence=0.9, bound=lambda *a: np.zeros(3))


def test_the_event_search_bounds_are_the_scalar_bounds():
    """One vectorized Clopper–Pearson call per orientation gives, entry by entry, the scalar ε_lb (bit for bit)."""
    n0, n1 = 1000, 1200
    k0 = np.array([0, 1, 17, 500, 999, 1000, 300])
    k1 = np.array([1200, 0, 3, 480, 2, 1200, 30])
    vector = epsilon_lower_bound(k0, n0, k1, n1, confidence=0.97)
    scalar = [epsilon_lower_bound(a, n0, b, n1, confidence=0.97) for a, b in zip(k0, k1)]
    assert vector.tolist() == scalar and any(v > 0 for v in scalar) and scalar.count(0.0) >= 2


def test_audit_inputs_cover_every_family():
    for key, entry in REGISTRY.items():
        x0, x1 = _audit_inputs(key, entry.example())
        assert not np.array_equal(np.asarray(x0), np.asarray(x1))


class _OneRowClient:
    """Issue 27: a client whose sample() returns one row instead of n (was ε_lb = 0.0, no violation)."""

    def sample(self, value, n, *, rng):
        return np.zeros((1, 1))


class _HungClient:
    """A client that never answers until released (a threading.Event the test sets afterwards)."""

    def __init__(self):
        import threading

        self.release = threading.Event()

    def sample(self, value, n, *, rng):
        self.release.wait()
        return np.zeros((n, 1))


def test_a_client_returning_the_wrong_number_of_reports_is_refused():
    """Whatever a client returns is checked (n rows of finite numbers): never a silently wrong lower bound."""
    from ldp_helpers.audit.auditor import ClientError

    with pytest.raises(
        ClientError, match=r"returned unusable reports: reports must have shape \(1000,\)"
    ):
        run_audit(_OneRowClient(), 0, 1, n_trials=2000, seed=1)


def test_a_hung_client_ends_the_audit_within_call_timeout():
    """A client that never answers is a ClientError after call_timeout seconds, not a block for ever."""
    from ldp_helpers.audit.auditor import ClientError

    client = _HungClient()
    try:
        with pytest.raises(ClientError, match=r"gave no answer within call_timeout=0.5 s"):
            run_audit(client, 0, 1, n_trials=2000, seed=1, call_timeout=0.5)
    finally:
        client.release.set()


def _hangs_after_five_good_answers():
    calls = iter(range(10**9))

    def client(value):
        if (
            next(calls) >= 5
        ):  # inside BlackBoxClient's seeded_globals: the global generators seeded, its lock held
            np.random.seed(7)
            time.sleep(30)
        return float(value)

    return client


def test_a_hung_black_box_client_leaves_no_trace():
    """Issue 39 item 2: after call_timeout the abandoned thread kept the global-generator lock and np.random seeded,
    so the next audit of a healthy client failed blaming it.  Now the batch runs in a forked child that is killed:
    the caller's np.random state, the lock, the threads and a healthy audit's numbers are as before; None is
    refused (it waited for ever)."""
    import random
    import threading

    from ldp_helpers.sweeps import global_rngs

    healthy = dict(n_trials=2_000, seed=3, chunk_size=1_000, n_pilot=500)
    before_result = run_audit(BlackBoxClient(_global_rr), 0, 1, **healthy)
    np.random.seed(123)
    numpy_state, python_state, threads = (
        np.random.get_state(),
        random.getstate(),
        threading.active_count(),
    )
    start = time.monotonic()
    with pytest.raises(
        ClientError, match=r"gave no answer within call_timeout=1 s \(a hung client\?\)"
    ):
        run_audit(
            BlackBoxClient(_hangs_after_five_good_answers()),
            0,
            1,
            n_trials=1_000,
            seed=1,
            call_timeout=1.0,
        )
    assert time.monotonic() - start < 10
    assert all(np.array_equal(a, b) for a, b in zip(np.random.get_state(), numpy_state))
    assert random.getstate() == python_state and threading.active_count() == threads
    taken = []

    def take_and_release():  # another thread gets the global generators' lock at once
        taken.append(global_rngs._LOCK.acquire(timeout=1))
        if taken[-1]:
            global_rngs._LOCK.release()

    other = threading.Thread(target=take_and_release)
    other.start()
    other.join()
    assert taken == [True]
    after = run_audit(BlackBoxClient(_global_rr), 0, 1, **healthy)
    assert (after.count0, after.count1) == (before_result.count0, before_result.count1)
    for bad in (None, 0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match=r"^call_timeout must be"):
            run_audit(BlackBoxClient(_global_rr), 0, 1, call_timeout=bad, **healthy)


def _global_rr(value):
    """A black-box randomized response drawing from NumPy's global generator."""
    return float(value) if np.random.random() < 0.75 else 1.0 - float(value)


def test_distinct_rows_are_numpys_unique_rows():
    """The event search's whole outcomes: np.unique(pooled, axis=0), or None past MAX_OUTCOMES rows."""
    rng = np.random.default_rng(0)
    for trial in range(200):
        width, top = int(rng.integers(1, 7)), int(rng.integers(1, 6))
        pooled = rng.integers(-2, top, size=(int(rng.integers(1, 400)), width)).astype(float)
        if trial % 3 == 0:
            pooled[:, 0] = rng.normal(size=pooled.shape[0]).round(1)
        unique, found = np.unique(pooled, axis=0), _distinct_rows(pooled)
        if unique.shape[0] <= MAX_OUTCOMES:
            assert found is not None and np.array_equal(found, unique)
        else:
            assert found is None
    assert _distinct_rows(np.arange(2 * MAX_OUTCOMES, dtype=float).reshape(-1, 1)) is None
