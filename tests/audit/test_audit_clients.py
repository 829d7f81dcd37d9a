"""The black-box client's batch post-processing and its once-per-process preparation (audit.clients)."""

import numpy as np
import pytest

from ldp_helpers.audit.auditor import BlackBoxClient, run_audit
from ldp_helpers.audit.clients import _PREPARED
from ldp_helpers.interop.peer_reports import olh_support
from ldp_tools.peers import _OlhSupport

D, G = 6, 4
BIG = 2**62 + 12345  # a seed the peers may draw: above 2**32, not exact as a float


def _lh_pair(value):
    """An OLH-like client: a report (y, seed) with a 63-bit seed, drawn from the seeded global generator."""
    return int(np.random.randint(G)), BIG + int(np.random.randint(2**40)) + value


def _per_report(value):
    """The old way: each report post-processed on its own (one olh_support call per report)."""
    return olh_support([_lh_pair(value)], D, G)[0]


def _raw(value):
    y, seed = _lh_pair(value)
    return y, seed % 2**32


def test_batch_features_give_the_per_report_post_processing():
    """features on the batch of (y, seed mod 2**32) = olh_support report by report on (y, seed): the same audit."""
    kwargs = dict(n_trials=3000, seed=5, confidence=0.95, chunk_size=1000, n_jobs=1)
    old = run_audit(BlackBoxClient(_per_report), 0, 1, **kwargs)
    new = run_audit(BlackBoxClient(_raw, features=_OlhSupport(D, G)), 0, 1, **kwargs)
    assert (old.count0, old.count1, old.event, old.epsilon_lb) == (
        new.count0,
        new.count1,
        new.event,
        new.epsilon_lb,
    )
    reports = BlackBoxClient(_raw, features=_OlhSupport(D, G)).sample(
        2, 50, rng=np.random.default_rng(1)
    )
    assert reports.shape == (50, D) and set(np.unique(reports)) <= {0.0, 1.0}


def test_a_wrong_batch_post_processing_changes_the_audit():
    """The comparison above can fail: post-processing with another hash range gives other reports."""
    rng = np.random.default_rng(3)
    right = BlackBoxClient(_raw, features=_OlhSupport(D, G)).sample(0, 200, rng=rng)
    wrong = BlackBoxClient(_raw, features=_OlhSupport(D, G + 1)).sample(
        0, 200, rng=np.random.default_rng(3)
    )
    assert not np.array_equal(right, wrong)


_CALLS = []


def _count_prepare():
    _CALLS.append(1)


def test_prepare_runs_once_per_process_before_the_forked_batches():
    """prepare runs in this process once (not in each batch's child), whatever the number of batches and audits."""
    _PREPARED.discard(_count_prepare)
    _CALLS.clear()
    client = BlackBoxClient(_raw, prepare=_count_prepare)
    for seed in (1, 2):
        run_audit(client, 0, 1, n_trials=400, seed=seed, confidence=0.9, chunk_size=100, n_jobs=1)
    assert _CALLS == [1]


class _UnhashablePrepare:
    """A callable that cannot be kept in the set of prepared callables (an unfrozen dataclass is one)."""

    __hash__ = None

    def __call__(self):
        pass


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(features=3), "features"),
        (dict(prepare="import it"), "prepare"),
        (dict(prepare=_UnhashablePrepare()), "prepare.*hashable"),
    ],
)
def test_bad_features_or_prepare(kwargs, match):
    with pytest.raises(TypeError, match=match):
        BlackBoxClient(_raw, **kwargs)
