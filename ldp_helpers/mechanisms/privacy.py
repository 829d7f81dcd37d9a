"""Exact privacy accounting from output-probability tables.

A mechanism with finitely many outputs is described by its table ``P[x, y] = Pr[M(x) = y]``
(rows: inputs, columns: outputs).  It is ε-LDP iff for every output y and inputs x, x',
``P[x, y] <= e^ε P[x', y]``; the smallest such ε is the largest log-ratio within a column.
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import Described, check_probabilities, check_real, fail, fail_shape


def max_privacy_loss(table, *, atol: float = 1e-12) -> float:
    """Largest privacy loss ``max_y max_{x,x'} ln(P[x,y] / P[x',y])`` of an output table.

    Parameters
    ----------
    table : array_like, shape (n_inputs, n_outputs)
        Conditional output probabilities; each row must be a distribution.
    atol : float
        Tolerance for the row sums.

    Returns
    -------
    float
        The exact ε of pure ε-LDP (``inf`` if some output is possible for one input and
        impossible for another).  Outputs that no input can produce are ignored.

    References
    ----------
    [tutorial] Eq. (2) (the definition of ε-LDP: ∀y: Pr[π(v)=y] / Pr[π(v')=y] ≤ e^ε).
    """
    p = check_probabilities("table", table)
    atol = check_real("atol", atol, low=0.0, low_open=False)
    if p.ndim != 2 or p.shape[0] < 2:
        fail_shape("table", p.shape, "a 2-D array with at least 2 input rows")
    sums = p.sum(axis=1)
    if not np.allclose(sums, 1.0, rtol=0, atol=atol * p.shape[1] + atol):
        worst = sums[np.argmax(np.abs(sums - 1))]
        raise ValueError(f"each row of table must sum to 1 (got a row summing to {worst!r})")
    col_max = p.max(axis=0)
    col_min = p.min(axis=0)
    used = col_max > 0
    if np.any(col_min[used] == 0):
        return float("inf")
    return float(np.max(np.log(col_max[used]) - np.log(col_min[used])))


def privacy_losses(mechanisms) -> np.ndarray:
    """The exact whole-report ε of each mechanism, ``[m.privacy_loss() for m in mechanisms]`` as an array.

    The one privacy sweep of the collection: build the mechanisms of a parameter grid, get their
    losses from their whole-report tables (every mechanism's ``privacy_loss()``).
    """
    try:
        mechanisms = list(mechanisms)
    except TypeError:
        fail("mechanisms", mechanisms, "an iterable of mechanisms (objects with privacy_loss())")
    if not all(callable(getattr(m, "privacy_loss", None)) for m in mechanisms):
        fail(
            "mechanisms",
            Described("an iterable holding a non-mechanism"),
            "an iterable of mechanisms (objects with privacy_loss())",
        )
    return np.array([mechanism.privacy_loss() for mechanism in mechanisms], dtype=float)


def _independent_bits_table(prob_zero: np.ndarray, prob_one: np.ndarray) -> np.ndarray:
    """``P[x, y] = Π_i Pr[bit i of the report = bit i of y | input x]`` over all 2^k reports y.

    For mechanisms whose k report bits are independent given the input (unary encodings, RAPPOR's
    bit channel): ``prob_zero[x, i]`` and ``prob_one[x, i]`` are bit i's probabilities of reporting
    0 and 1.  Report y's bit i is ``(y >> i) & 1``.  Arguments are validated by the callers.
    """
    k = prob_one.shape[1]
    outputs = (np.arange(2**k)[:, None] >> np.arange(k)) & 1  # (2^k, k)
    return np.where(outputs[None] == 1, prob_one[:, None, :], prob_zero[:, None, :]).prod(axis=2)


def _independent_bits_log_table(log_zero: np.ndarray, log_one: np.ndarray) -> np.ndarray:
    """``log P[x, y]`` of :func:`_independent_bits_table`, summed in log space (no underflow at large ε)."""
    k = log_one.shape[1]
    outputs = (np.arange(2**k)[:, None] >> np.arange(k)) & 1  # (2^k, k)
    return np.where(outputs[None] == 1, log_one[:, None, :], log_zero[:, None, :]).sum(axis=2)


def _max_log_ratio(log_table: np.ndarray) -> float:
    """``max_y max_{x,x'} (log P[x, y] − log P[x', y])`` of a log-table (entries finite or −∞).

    As :func:`max_privacy_loss`: outputs no input produces (a column of −∞) are ignored, an output
    possible for one input and impossible (−∞) for another costs ∞.
    """
    top, bottom = log_table.max(axis=0), log_table.min(axis=0)
    used = top > -np.inf
    if np.any(bottom[used] == -np.inf):
        return float("inf")
    return float(np.max(top[used] - bottom[used]))
