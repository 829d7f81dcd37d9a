"""Boundary validation: clear ValueErrors that name the parameter and the allowed range."""

import math
import re

import numpy as np
import pytest

from ldp_helpers import _validation as v


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, "1", None, True])
def test_epsilon_rejects_non_positive_or_non_finite(bad):
    """ε must be a finite real > 0; the message names epsilon."""
    with pytest.raises(ValueError, match="epsilon"):
        v.check_epsilon(bad)


def test_epsilon_accepts_numpy_scalars():
    """numpy floats and ints are real numbers too."""
    assert v.check_epsilon(np.float32(0.5)) == pytest.approx(0.5)
    assert v.check_epsilon(np.int64(2)) == 2.0


def test_probability_range_and_open_ends():
    """Probabilities live in [0, 1]; open ends exclude the endpoint."""
    assert v.check_probability(0.0, "r") == 0.0
    with pytest.raises(ValueError, match=r"r must be in \(0, 1\]"):
        v.check_probability(0.0, "r", open_low=True)
    with pytest.raises(ValueError, match=r"beta must be in \[0, 1\]"):
        v.check_probability(1.5, "beta")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([0.5, 0.6], r"w\.sum\(\) must be in \[1, 1\]; got 1\.1"),
        ([-0.1, 1.1], r"w must be finite values in \[0, inf\)"),
        ([[0.5, 0.5]], r"w must be a 1-D array"),
    ],
)
def test_weights_are_a_probability_vector(bad, message):
    """Weights are ≥ 0, one axis, summing to 1 (to 1e-9); the message names the weights."""
    assert v.check_weights("w", [0.25, 0.75]).tolist() == [0.25, 0.75]
    with pytest.raises(ValueError, match=message):
        v.check_weights("w", bad)


def test_int_range():
    """Integers outside [low, high] and non-integers are refused."""
    assert v.check_int("m", 3, low=1, high=5) == 3
    with pytest.raises(ValueError, match=r"m must be an integer in \[1, 5\]; got 6"):
        v.check_int("m", 6, low=1, high=5)
    with pytest.raises(ValueError, match="m must be an integer"):
        v.check_int("m", 2.0, low=1)


def test_binary_array():
    """0/1 arrays pass (bool, int or float); anything else names the offending value."""
    assert v.check_binary_array("V", [True, False]).tolist() == [1, 0]
    assert v.check_binary_array("V", np.array([0.0, 1.0])).dtype == np.int8
    with pytest.raises(
        ValueError, match="V must be an array of 0/1 values; got an array containing 2"
    ):
        v.check_binary_array("V", [0, 2])
    with pytest.raises(ValueError, match="non-empty"):
        v.check_binary_array("V", [])


def test_domain_values():
    """Values must be integers in the 0-based domain [0, d)."""
    assert v.check_domain_values("values", [0, 2], 3).tolist() == [0, 2]
    with pytest.raises(ValueError, match=r"integers in \[0, 3\)"):
        v.check_domain_values("values", [1, 3], 3)
    with pytest.raises(ValueError, match="values must be an array of integers"):
        v.check_domain_values("values", [0.5], 3)


def test_counts():
    """Counts are a non-empty 1-D array of non-negative integers."""
    assert v.check_counts("counts", [0, 3.0]).tolist() == [0, 3]
    with pytest.raises(ValueError, match="non-negative"):
        v.check_counts("counts", [1, -1])
    with pytest.raises(ValueError, match="1-D"):
        v.check_counts("counts", [[1]])


def test_rng_must_be_a_generator():
    """Seeds and the legacy global state are refused: randomness is injected explicitly."""
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        v.check_rng(42)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        v.check_rng(np.random.RandomState(0))


def test_int_array():
    """Integer arrays: shape and range are checked, integral floats accepted, fractions refused."""
    assert v.check_int_array("K", [0.0, 3.0], low=0).tolist() == [0, 3]
    with pytest.raises(
        ValueError, match=r"K must be integers in \[0, 5\]; got an array with values in \[0, 7\]"
    ):
        v.check_int_array("K", [0, 7], low=0, high=5)
    with pytest.raises(ValueError, match=r"K must be an array of shape \(3,\)"):
        v.check_int_array("K", [1, 2], shape=(3,))
    with pytest.raises(ValueError, match="K must be an array of integers"):
        v.check_int_array("K", [0.5])


def test_true_counts_fast_and_general_paths():
    """int64 vectors pass without a copy; lists are converted; n is the exact total."""
    counts = np.array([3, 0, 5], dtype=np.int64)
    checked, n = v.check_true_counts(counts, 3)
    assert checked is counts and n == 8
    checked, n = v.check_true_counts([3, 0, 5], 3)
    assert checked.dtype == np.int64 and n == 8


@pytest.mark.parametrize(
    "bad, d, message",
    [
        ([1, -1, 2], 3, "minimum -1"),
        ([0, 0, 0], 3, "at least one user"),
        ([2**62, 2**62], 2, r"counts totalling 9223372036854775808"),
        ([2**62] * 5, 5, r"counts totalling at most 2\^62"),
        ([2**61, 2**61, 1], 3, r"counts totalling at most 2\^62"),
        ([1, 2], 3, "length 2"),
    ],
)
def test_true_counts_refuses_negative_empty_overflowing_or_misshapen(bad, d, message):
    """Negative entries, no users, totals beyond 2^62 (which would wrap an int64 sum) and wrong lengths."""
    with pytest.raises(ValueError, match=message):
        v.check_true_counts(np.array(bad, dtype=np.int64), d)


def test_true_counts_accepts_a_large_total_within_the_bound():
    """A total of exactly 2^62 concentrated in one entry is exact (general path, Python-int sum)."""
    counts = np.array([2**62, 0, 0], dtype=np.int64)
    assert v.check_true_counts(counts, 3)[1] == 2**62


def test_wrong_type_is_a_type_error_that_value_error_also_catches():
    """Wrong types raise ParameterTypeError: a TypeError, and a ValueError for `except ValueError` callers."""
    for call in (
        lambda: v.check_int("d", 2.5),
        lambda: v.check_real("epsilon", "1"),
        lambda: v.check_rng(0),
        lambda: v.check_bool("write", "yes"),
        lambda: v.check_instance("params", None, dict),
    ):
        with pytest.raises(TypeError) as info:
            call()
        assert isinstance(info.value, ValueError)
    with pytest.raises(TypeError, match="d must be an integer; got 2.5 of type float"):
        v.check_int("d", 2.5)


def test_timedeltas_and_integers_beyond_float_are_refused_by_name():
    """numpy counts a timedelta as an integer: as a scalar or an array it is refused, not converted; an
    integer beyond float's range is a value error naming the parameter, not numpy's OverflowError."""
    for call, shown in (
        (lambda: v.check_real("epsilon", np.timedelta64(3, "D")), "epsilon must be a real number"),
        (lambda: v.check_int("d", np.timedelta64(3, "D")), "d must be an integer"),
        (
            lambda: v.check_real_array("x", np.array([1], "m8[D]")),
            "x must be an array of real numbers; got an array of dtype timedelta64[D]",
        ),
    ):
        with pytest.raises(v.ParameterTypeError, match=re.escape(shown)):
            call()
    with pytest.raises(ValueError, match=r"^epsilon must be finite and in \(0, inf\); got 1000"):
        v.check_real("epsilon", 10**400, low=0)


def test_choice_and_bool():
    assert v.check_choice("method", "clip", {"clip", "unbiased"}) == "clip"
    with pytest.raises(ValueError, match=r"method must be one of \['clip', 'unbiased'\]; got 'x'"):
        v.check_choice("method", "x", {"clip", "unbiased"})
    assert v.check_bool("write", np.True_) is True


def test_allocation_ceiling_gives_the_estimate_before_allocating():
    """29 TiB for 10^12 candidates × 4 float64 columns is refused with the estimate and the ceiling."""
    with pytest.raises(
        ValueError,
        match=r"n_candidates=1000000000000 would allocate 29.1 TiB \(design\); the ceiling is MAX_BYTES = 2 GiB",
    ):
        v.check_allocation("n_candidates", 10**12, 4 * 10**12, what="design")
    v.check_allocation("d", 1000, 1000)  # small: silent
    assert [v.format_bytes(b) for b in (0, 1023, 2048, 2**31, 32 * 2**40)] == [
        "0 B",
        "1023 B",
        "2 KiB",
        "2 GiB",
        "32 TiB",
    ]


@pytest.mark.parametrize(
    "check",
    [
        lambda x: v.check_binary_array("x", x),
        lambda x: v.check_domain_values("x", x, 3),
        lambda x: v.check_counts("x", x),
        lambda x: v.check_count_array("x", x, 2),
        lambda x: v.check_real_array("x", x),
        lambda x: v.check_int_array("x", x),
        lambda x: v.check_ndim("x", x, 2),
        lambda x: v.check_trailing_shape("x", x, (2,)),
    ],
)
def test_a_ragged_nested_list_is_refused_by_name(check):
    """numpy cannot make an array of [[0, 1], [0]]: the checker names the parameter and what it takes instead of
    passing on numpy's "inhomogeneous shape" error."""
    with pytest.raises(ValueError, match=r"^x must be .*; got a ragged nested sequence$"):
        check([[0, 1], [0]])


def test_masked_entries_are_refused_also_inside_a_list_of_arrays():
    """np.asarray drops a mask, at the top and inside a list: the hidden 5 was read as a count."""
    hidden = np.ma.array([5, 2], mask=[True, False])
    for values in (hidden, [hidden], (np.array([1, 2]), hidden)):
        with pytest.raises(ValueError, match="counts must be .*none masked; got a masked array"):
            v.check_int_array("counts", values)
    assert v.check_int_array("counts", [np.ma.array([5, 2])]).tolist() == [[5, 2]]  # nothing masked
