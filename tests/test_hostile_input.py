"""Issue 27's classes of hostile input, each guarded at its root: sizes whose work or memory no machine has,
wrapped counts, extreme budgets.  (Code execution through profiles: tests/test_reproduce.py; files that
block: tests/test_datasets.py; the auditor's hostile clients: tests/test_audit.py.)"""

import numpy as np
import pytest

from ldp_helpers import OUE, SHE, THE, GRR, CountMeanSketch, Population, Taxonomy, pem
from ldp_helpers.mechanisms.randomized_response import BinaryRR


@pytest.mark.parametrize("call, message", [
    (lambda rng: OUE(1.0, 10**6).perturb(np.zeros(10**4, int), rng=rng), r"would allocate 9.31 GiB"),
    (lambda rng: SHE(1.0, 10**6).perturb(np.zeros(10**4, int), rng=rng), r"would allocate 74.5 GiB"),
    (lambda rng: CountMeanSketch.create(2.0, 10**8, 8, 4, rng=rng).hash_table(), r"d=100000000 would allocate"),
    (lambda rng: Taxonomy.regular((10**4, 10**4)), r"branching=\[10000, 10000\] would allocate"),
    (lambda rng: Population.nested(np.array([3, 1]), 10**10).to_matrix(), r"counts=.* would allocate"),
    (lambda rng: pem(np.arange(100), 8, 1.0, 3, eta=10**12, rng=rng), r"eta must be an integer in \[1, 8\]"),
])
def test_sizes_beyond_the_memory_ceiling_are_refused_before_allocating(call, message, rng):
    """Valid-looking sizes whose product no machine holds: refused at once, naming the parameter."""
    with pytest.raises(ValueError, match=message):
        call(rng)


@pytest.mark.parametrize("call, name", [
    (lambda: Population(np.eye(3, dtype=int), np.array([2**64 - 1, 1, 1], dtype=np.uint64)), "counts"),
    (lambda: OUE(1.0, 4).estimand(np.array([2**64 - 1, 1, 1, 1], dtype=np.uint64)), "true_counts"),
    (lambda: GRR(1.0, 4).estimate([1, 1, 1, 1], np.uint64(2**64 - 1)), "n"),
    (lambda: GRR(1.0, 4).estimate(np.array([1e30, 1.0, 1.0, 1.0]), 10), "aggregate"),
])
def test_counts_that_would_wrap_are_refused(call, name):
    """Unsigned and huge-float counts are refused instead of wrapping to negative numbers."""
    with pytest.raises(ValueError, match=rf"^{name} must be .*int64"):
        call()


@pytest.mark.parametrize("make", [lambda: THE(1e-17, 4), lambda: GRR(1e-17, 4), lambda: OUE(1e-300, 5),
                                  lambda: BinaryRR.from_epsilon(1e-17)])
def test_budgets_too_small_for_double_precision_are_refused_as_too_small(make):
    """Below MIN_EPSILON = 1e-12 a budget is refused as too *small*, naming epsilon (was ZeroDivisionError or
    'too large'); tests/contract/test_extreme_budgets.py holds every budgeted function to the same."""
    with pytest.raises(ValueError, match=r"^epsilon must be in \[1e-12, inf\)"):
        make()


def test_no_call_touches_the_global_generators():
    """Issue 27: decode advanced NumPy's global generator through scikit-learn's Lasso (no random_state).
    The decoder, the samplers and the per-user clients leave NumPy's and Python's global state as it was."""
    import random

    from ldp_helpers import Rappor, RapporParams, decode

    rappor = Rappor.create(RapporParams(k=16, h=2, m=2, f=0.0, p=0.5, q=0.75), 10, rng=np.random.default_rng(0))
    truth = np.array([[50, 30, 0, 0, 0, 0, 0, 0, 0, 10]] * 2)
    numpy_state, python_state = np.random.get_state(), random.getstate()
    y = rappor.estimate(rappor.sample_aggregate(truth, rng=np.random.default_rng(1)), rappor.n_reports(truth)).ravel()
    decode(rappor.design_matrix, y)
    OUE(1.0, 8).perturb(np.arange(8), rng=np.random.default_rng(2))
    after = np.random.get_state()
    assert all(np.array_equal(a, b) for a, b in zip(numpy_state, after)) and random.getstate() == python_state


def test_a_bit_channel_is_two_probabilities_p_above_q():
    """RapporParams' BitChannel refused -0.1, 1.5 and NaN (issue 27); p = Pr[S=1 | B=1] must exceed q."""
    from ldp_helpers.mechanisms.rappor import BitChannel

    for p, q, name in ((-0.1, 0.2, "p"), (1.5, 0.2, "p"), (float("nan"), 0.1, "p"), (0.7, 1.5, "q"), (0.3, 0.5, "p")):
        with pytest.raises(ValueError, match=rf"^{name} must"):
            BitChannel(p, q)
    assert BitChannel(0.75, 0.5) == (0.75, 0.5)
