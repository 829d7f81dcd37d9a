"""Issue 27's classes of hostile input, each guarded at its root: sizes whose work or memory no machine has,
wrapped counts, extreme budgets.  (Code execution through profiles: tests/pipeline/test_reproduce.py; files that
block: tests/simulate/test_datasets.py; the auditor's hostile clients: tests/audit/test_audit.py.)"""

import numpy as np
import pytest

from ldp_helpers import GRR, OUE, SHE, THE, CountMeanSketch, Population, Taxonomy, pem
from ldp_helpers.mechanisms.randomized_response import BinaryRR


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda rng: OUE(1.0, 10**6).perturb(np.zeros(10**4, int), rng=rng),
            r"would allocate 9.31 GiB",
        ),
        (
            lambda rng: SHE(1.0, 10**6).perturb(np.zeros(10**4, int), rng=rng),
            r"would allocate 74.5 GiB",
        ),
        (
            lambda rng: CountMeanSketch.create(2.0, 10**8, 8, 4, rng=rng).hash_table(),
            r"d=100000000 would allocate",
        ),
        (
            lambda rng: Taxonomy.regular((10**4, 10**4)),
            r"branching=\[10000, 10000\] would allocate",
        ),
        (
            lambda rng: Population.nested(np.array([3, 1]), 10**10).to_matrix(),
            r"counts=.* would allocate",
        ),
        (
            lambda rng: pem(np.arange(100), 8, 1.0, 3, eta=10**12, rng=rng),
            r"eta must be an integer in \[1, 8\]",
        ),
    ],
)
def test_sizes_beyond_the_memory_ceiling_are_refused_before_allocating(call, message, rng):
    """Valid-looking sizes whose product no machine holds: refused at once, naming the parameter."""
    with pytest.raises(ValueError, match=message):
        call(rng)


@pytest.mark.parametrize(
    "call, name",
    [
        (
            lambda: Population(np.eye(3, dtype=int), np.array([2**64 - 1, 1, 1], dtype=np.uint64)),
            "counts",
        ),
        (
            lambda: OUE(1.0, 4).estimand(np.array([2**64 - 1, 1, 1, 1], dtype=np.uint64)),
            "true_counts",
        ),
        (lambda: GRR(1.0, 4).estimate([1, 1, 1, 1], np.uint64(2**64 - 1)), "n"),
        (lambda: GRR(1.0, 4).estimate(np.array([1e30, 1.0, 1.0, 1.0]), 10), "aggregate"),
    ],
)
def test_counts_that_would_wrap_are_refused(call, name):
    """Unsigned and huge-float counts are refused instead of wrapping to negative numbers."""
    with pytest.raises(ValueError, match=rf"^{name} must be .*int64"):
        call()


@pytest.mark.parametrize(
    "make",
    [
        lambda: THE(1e-17, 4),
        lambda: GRR(1e-17, 4),
        lambda: OUE(1e-300, 5),
        lambda: BinaryRR.from_epsilon(1e-17),
    ],
)
def test_budgets_too_small_for_double_precision_are_refused_as_too_small(make):
    """Below MIN_EPSILON = 1e-12 a budget is refused as too *small*, naming epsilon (was ZeroDivisionError or
    'too large'; Q_Bin's range also ends at its ceiling); tests/contract/test_extreme_values.py holds every
    budgeted function to the same."""
    with pytest.raises(
        ValueError, match=r"^epsilon must be in \[1e-12, (inf\)|36\.7368\]); got 1e-"
    ):
        make()


def test_no_call_touches_the_global_generators():
    """Issue 27: decode advanced NumPy's global generator through scikit-learn's Lasso (no random_state).
    The decoder, the samplers and the per-user clients leave NumPy's and Python's global state as it was."""
    import random

    from ldp_helpers import Rappor, RapporParams, decode

    rappor = Rappor.create(
        RapporParams(k=16, h=2, m=2, f=0.0, p=0.5, q=0.75), 10, rng=np.random.default_rng(0)
    )
    truth = np.array([[50, 30, 0, 0, 0, 0, 0, 0, 0, 10]] * 2)
    numpy_state, python_state = np.random.get_state(), random.getstate()
    y = rappor.estimate(
        rappor.sample_aggregate(truth, rng=np.random.default_rng(1)), rappor.n_reports(truth)
    ).ravel()
    decode(rappor.design_matrix, y)
    OUE(1.0, 8).perturb(np.arange(8), rng=np.random.default_rng(2))
    after = np.random.get_state()
    assert (
        all(np.array_equal(a, b) for a, b in zip(numpy_state, after))
        and random.getstate() == python_state
    )


def test_a_bit_channel_is_two_probabilities_p_above_q():
    """RapporParams' BitChannel refused -0.1, 1.5 and NaN (issue 27); p = Pr[S=1 | B=1] must exceed q."""
    from ldp_helpers.mechanisms.rappor import BitChannel

    for p, q, name in (
        (-0.1, 0.2, "p"),
        (1.5, 0.2, "p"),
        (float("nan"), 0.1, "p"),
        (0.7, 1.5, "q"),
        (0.3, 0.5, "p"),
    ):
        with pytest.raises(ValueError, match=rf"^{name} must"):
            BitChannel(p, q)
    assert BitChannel(0.75, 0.5) == (0.75, 0.5)


# ---------------------------------------------------------------- issue 39: the fourth round


def test_a_total_that_would_wrap_is_refused_though_each_count_is_valid():
    """Item 5: [2^62]×3 are three valid counts whose int64 total wraps to a negative N (Glance then sampled from it)."""
    from ldp_helpers import Glance

    with pytest.raises(
        ValueError, match=r"^counts must be non-negative counts totalling at most 2\^62"
    ):
        Population(np.eye(3, dtype=int), np.array([2**62] * 3))
    with pytest.raises(
        ValueError, match=r"^true_counts must be non-negative counts totalling at most 2\^62"
    ):
        GRR(1.0, 3).sample_aggregate(np.array([2**62] * 3), rng=np.random.default_rng(0))
    assert (
        Glance(1.0, 3).n_reports(Population(np.eye(3, dtype=int), np.array([2**61, 2**60, 1])))
        == 2**61 + 2**60 + 1
    )


def test_extreme_budgets_give_the_exact_loss_or_a_refusal():
    """Item 6: DuchiMean(1e-13) is refused as below MIN_EPSILON; SPL, SMP and RS+FD(OUE) give the exact loss at
    ε = 500–700 from their log tables (the tables themselves underflow and read ∞)."""
    from ldp_helpers.mechanisms.duchi_mean import DuchiMean
    from ldp_helpers.mechanisms.multidimensional import SPL
    from ldp_helpers.mechanisms.privacy import max_privacy_loss
    from ldp_helpers.mechanisms.rs_fd import RSFD
    from ldp_helpers.mechanisms.smp import SMP

    with pytest.raises(ValueError, match=r"^epsilon must be in \[1e-12, 30\]; got 1e-13"):
        DuchiMean(1e-13)
    for make in (
        lambda e: SPL(e, (3, 4), "oue"),
        lambda e: SMP(e, (3, 4), "oue"),
        lambda e: RSFD(e, (3, 4), "oue_r"),
        lambda e: RSFD(e, (3, 4), "oue_z"),
    ):
        assert make(1.5).privacy_loss() == pytest.approx(
            max_privacy_loss(make(1.5).output_table()), rel=1e-12
        )
        for epsilon in (500.0, 600.0, 700.0):
            assert make(epsilon).privacy_loss() == pytest.approx(epsilon, rel=1e-12)


def test_sizes_are_checked_against_their_ceiling_before_they_are_computed():
    """Item 7: C(d, k) of SubsetSelection took 38–50 s at d = 10⁶ (report size) and never finished at d = 10¹²;
    DBitFlip(d=10¹²).output_table() listed its subsets into a MemoryError."""
    import math

    from ldp_helpers.experiments.field_oracles import build_oracle
    from ldp_helpers.mechanisms.dbitflip import DBitFlip
    from ldp_helpers.mechanisms.subset_selection import SubsetSelection

    with _within_seconds(5):
        d, k = 10**6, SubsetSelection(1.0, 10**6).k
        log2_comb = (math.lgamma(d + 1) - math.lgamma(k + 1) - math.lgamma(d - k + 1)) / math.log(2)
        assert build_oracle("ss", 1.0, d).report_bits == math.ceil(log2_comb)
        for call in (
            SubsetSelection(1.0, 10**12).output_table,
            SubsetSelection(1.0, 10**12).privacy_loss,
            DBitFlip(1.0, 10**12, 2).output_table,
        ):
            with pytest.raises(ValueError, match=r"^d must be such that"):
                call()
    assert SubsetSelection(1.0, 300, 3).report_bits == (math.comb(300, 3) - 1).bit_length()


def _within_seconds(seconds):
    """A block that must end within ``seconds`` (SIGALRM turns a hang into a failure)."""
    import signal
    from contextlib import contextmanager

    @contextmanager
    def limit():
        def _fail(signum, frame):
            raise AssertionError(f"no answer within {seconds} s")

        old = signal.signal(signal.SIGALRM, _fail)
        signal.alarm(seconds)
        try:
            yield
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)

    return limit()


def test_sketch_oracles_refuse_aggregates_no_reports_produce():
    """Item 10: Hashtogram (both estimates), the PCS, sketch response and HCMS took 1e300, 2^64 − 1 or cells above n;
    SMP.aggregate raised a raw IndexError on reports of mismatched lengths.  (Every registered mechanism's estimate:
    tests/contract/test_registry_contract.py::test_server_entry_points_refuse_what_no_reports_produce.)"""
    from ldp_helpers.mechanisms.hadamard_sketch import HadamardCountMeanSketch
    from ldp_helpers.mechanisms.hashtogram import Hashtogram
    from ldp_helpers.mechanisms.sketch_response import SketchResponse
    from ldp_helpers.mechanisms.smp import SMP, SampledReports

    rng = np.random.default_rng(0)
    truth = np.array([20, 10, 5, 5])
    hashtogram = Hashtogram.create(1.0, 4, 2, 4, rng=rng)
    sums = hashtogram.sample_aggregate(truth, rng=rng)
    for bad in (np.full(sums.shape, 1e300), np.full(sums.shape, 2**64 - 1, np.uint64), sums + 41):
        for estimate in (hashtogram.estimate, hashtogram.estimate_median):
            with pytest.raises(ValueError, match=r"^aggregate must be"):
                estimate(bad, 40)
    response = SketchResponse.create(1.0, 4, 2, 4, rng=rng)
    agg = response.sample_aggregate(truth, rng=rng)
    with pytest.raises(ValueError, match=r"^aggregate must be integers in \[0, 40\]"):
        response.estimate(
            np.concatenate([np.full((2, 4), 41), agg[:, -1:]], axis=1), 40
        )  # the last column still sums to n
    hcms = HadamardCountMeanSketch.create(1.0, 4, 2, 4, rng=rng)
    with pytest.raises(ValueError, match=r"^aggregate must be finite values in"):
        hcms.estimate(hcms.sample_aggregate(truth, rng=rng) * 1e10, 40)
    smp = SMP(1.0, (3, 4))
    with pytest.raises(
        ValueError, match=r"^reports.reports must be one row per sampled attribute \(3\)"
    ):
        smp.aggregate(SampledReports(np.array([0, 1, 0]), np.zeros((2, 2), dtype=int)))


@pytest.mark.parametrize(
    "call, name",
    [
        (
            lambda: __import__("ldp_helpers.bounds.glance", fromlist=["Setting"]).Setting(
                0, 10, 0.1
            ),
            "n_users",
        ),
        (
            lambda: __import__("ldp_helpers.bounds.glance", fromlist=["Setting"]).Setting(
                -1, 10, 0.1
            ),
            "n_users",
        ),
        (
            lambda: __import__("ldp_helpers.bounds.glance", fromlist=["Setting"]).Setting(
                2.5, 10, 0.1
            ),
            "n_users",
        ),
        (
            lambda: __import__("ldp_helpers.bounds.glance", fromlist=["Setting"]).Setting(
                10, 0, 0.1
            ),
            "n_rounds",
        ),
        (
            lambda: __import__("ldp_helpers.bounds.glance", fromlist=["Setting"]).Setting(
                10, 2.5, 0.1
            ),
            "n_rounds",
        ),
        (
            lambda: __import__("ldp_helpers.bounds.glance", fromlist=["Setting"]).Setting(
                10, 10, 0.0
            ),
            "beta",
        ),
        (
            lambda: __import__("ldp_helpers.bounds.glance", fromlist=["Setting"]).Setting(
                10, 10, 1.0
            ),
            "beta",
        ),
        (
            lambda: __import__("ldp_helpers.bounds.glance", fromlist=["Setting"]).Setting(
                10, 10, -0.1
            ),
            "beta",
        ),
        (
            lambda: __import__("ldp_helpers.bounds.glance", fromlist=["Setting"]).Setting(
                10, 10, float("nan")
            ),
            "beta",
        ),
        (
            lambda: __import__("ldp_helpers.bounds.wang2017", fromlist=["x"]).de_threshold_epsilon(
                2.5
            ),
            "d",
        ),
        (
            lambda: __import__("ldp_helpers.mechanisms.grr", fromlist=["x"]).grr_probabilities(
                1.0, 2.5
            ),
            "d",
        ),
        (lambda: __import__("ldp_helpers", fromlist=["OLH"]).OLH(1.0, 8, g=0), "g"),
    ],
)
def test_public_names_check_their_arguments(call, name):
    """Item 11: a Setting of 0, −1 or 2.5 users or rounds, β ∉ (0, 1); a real domain size; OLH's g = 0."""
    with pytest.raises(ValueError, match=rf"^{name} must be"):
        call()
