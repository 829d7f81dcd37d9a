"""max_privacy_loss: the exact ε of a finite-output mechanism."""

import math

import numpy as np
import pytest

from ldp_helpers.mechanisms.privacy import max_privacy_loss


def test_binary_table():
    """For [[3/4, 1/4], [1/4, 3/4]] the loss is ln 3."""
    assert max_privacy_loss([[0.75, 0.25], [0.25, 0.75]]) == pytest.approx(math.log(3), abs=1e-15)


def test_identical_rows_have_zero_loss():
    """A mechanism that ignores its input is 0-LDP."""
    assert max_privacy_loss(np.full((3, 4), 0.25)) == 0.0


def test_takes_the_worst_column_and_pair():
    """The loss is the largest log-ratio over all columns and input pairs."""
    table = np.array([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.3, 0.4, 0.3]])
    expected = max(math.log(0.5 / 0.2), math.log(0.4 / 0.3), math.log(0.5 / 0.2))
    assert max_privacy_loss(table) == pytest.approx(expected, abs=1e-15)


def test_impossible_output_for_one_input_is_infinite():
    """An output possible for one input and impossible for another breaks every ε."""
    assert max_privacy_loss([[1.0, 0.0], [0.5, 0.5]]) == math.inf


def test_outputs_no_input_produces_are_ignored():
    """An all-zero column does not contribute."""
    assert max_privacy_loss([[0.75, 0.25, 0.0], [0.25, 0.75, 0.0]]) == pytest.approx(math.log(3))


@pytest.mark.parametrize(
    "table, message",
    [
        ([[0.5, 0.6], [0.5, 0.5]], "sum to 1"),
        ([[1.0]], "at least 2 input rows"),
        ([[-0.1, 1.1], [0.5, 0.5]], r"table must be finite values in \[0, 1\]"),
    ],
)
def test_rejects_malformed_tables(table, message):
    """Rows that are not distributions are an error, not a number."""
    with pytest.raises(ValueError, match=message):
        max_privacy_loss(table)
