"""Exact privacy accounting from output-probability tables.

A mechanism with finitely many outputs is described by its table ``P[x, y] = Pr[M(x) = y]``
(rows: inputs, columns: outputs).  It is ε-LDP iff for every output y and inputs x, x',
``P[x, y] <= e^ε P[x', y]``; the smallest such ε is the largest log-ratio within a column.
"""

from __future__ import annotations

import numpy as np


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
    Definition of ε-LDP, tutorial seed (003), Eq. (2): ∀y: Pr[π(v)=y] / Pr[π(v')=y] ≤ e^ε.
    """
    p = np.asarray(table, dtype=float)
    if p.ndim != 2 or p.shape[0] < 2 or p.shape[1] < 1:
        raise ValueError(f"table must be a 2-D array with at least 2 input rows; got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("table must contain finite, non-negative probabilities")
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
    return np.array([mechanism.privacy_loss() for mechanism in mechanisms], dtype=float)
