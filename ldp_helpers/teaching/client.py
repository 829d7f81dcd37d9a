"""The client checker: a student's randomizer on mixed inputs, its law per input, its ε, its independence."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ldp_helpers._validation import Described, check_int, check_int_array, check_probabilities, fail
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.teaching._sandbox import run_limited
from ldp_helpers.teaching.checks import (
    ALPHA,
    MAX_CALLS,
    TIME_LIMIT,
    Z_MAX,
    Check,
    _callable,
    _failed,
    _time_limit,
)

N_PER_INPUT = 20_000  # default users per input: resolves a 5 % error in ε of GRR (d = 4, ε = 1)


# ---------------------------------------------------------------- a client: law, ε, independence
def check_client(
    perturb,
    table,
    inputs,
    *,
    n_per_input: int | None = None,
    seed: int = 0,
    time_limit: float = TIME_LIMIT,
) -> Check:
    """Does ``perturb(values, rng)`` draw independent reports from the exact output ``table``?

    One batch holds ``n_per_input`` users of every input, shuffled (``values`` of shape ``(N,)`` for
    value inputs or ``(N, k)`` for bit-vector inputs).  The student's client perturbs it three times:
    twice with Generators seeded alike (the reports must be equal: drawn from ``rng`` only) and once
    with another seed.  A report is a value in ``[0, n_outputs)`` or a bit vector y, the output
    ``Σ_i y_i 2^i`` (bit 0 first, the convention of the package's tables).  Checked, in this order:

    1. the law per input: Pearson's χ² of each input's reports against its row of ``table``
       (Bonferroni over the rows, level ``ALPHA``);
    2. the ε: the score test of the tempered family ``T_t[x, y] ∝ T[x, y]^t`` at t = 1 (GRR, OUE
       and SUE at ε·t are exactly this family), within ``Z_MAX`` standard errors; the message gives
       the exact ε of the fitted ``T_t``;
    3. no dependence on position: χ² homogeneity of each input's reports between the first and the
       second half of the batch;
    4. fresh draws: the share of users whose report is the same under the two seeds, against its
       exact mean ``Σ_y T[x, y]²`` (a report that is a function of value and position agrees always);
    5. independent neighbours: the same share for the disjoint pairs of positions (2i, 2i + 1), apart
       for pairs of equal and of different inputs;
    6. not too regular: the lower tail of the total χ² (counts handed out by quota).

    Before these, the two calls seeded alike must agree (a client drawing from ``np.random`` does not).

    Parameters
    ----------
    perturb : callable
        The student's client, ``perturb(values, rng) -> reports``.
    table : array_like, shape (n_inputs, n_outputs)
        The exact law, ``table[x, y] = Pr[report y | input x]`` (e.g. ``mechanism.output_table()``).
    inputs : array_like of int, shape (n_inputs,) or (n_inputs, k)
        The input of each row: a value, or a bit vector.
    n_per_input : int or None
        Users per input in the batch (default ``N_PER_INPUT``, at most ``MAX_CALLS`` reports in all).
    seed : int
        Seed of the shuffle and of the Generators handed to the student's function.
    time_limit : float
        Seconds the three calls may take together.

    Returns
    -------
    Check

    References
    ----------
    [tutorial] Eq. (2) (a randomizer is its output table; its ε the largest log-ratio in a column).
    """
    perturb = _callable("perturb", perturb)
    table = check_probabilities("table", table, ndim=2)
    inputs = check_int_array(
        "inputs", inputs, low=0, ndim=(1, 2), what="(one value or bit vector per row)"
    )
    n_in, n_out = table.shape
    if inputs.shape[0] != n_in:
        fail(
            "inputs",
            Described(f"{inputs.shape[0]} inputs"),
            f"one input per row of table ({n_in} rows)",
        )
    most = MAX_CALLS // (3 * n_in)
    n = min(N_PER_INPUT, most) if n_per_input is None else n_per_input
    n = check_int("n_per_input", n, low=50, high=max(most, 50))
    time_limit = _time_limit(time_limit)
    order, same, other = np.random.SeedSequence(check_int("seed", seed, low=0)).spawn(3)
    # row of each user
    users = np.random.default_rng(order).permutation(np.repeat(np.arange(n_in), n))
    values = inputs[users]
    got = run_limited(
        lambda: _three_calls(perturb, values, n_out, (same, same, other)),
        time_limit=time_limit,
        what=f"your client (called with {users.size} users of {n_in} different inputs)",
    )
    if (failed := _failed(got)) is not None:
        return failed
    (first, again, fresh), bits = got
    if not np.array_equal(first, again):
        return Check(
            False,
            f"your client gave different reports when called twice with Generators "
            f"seeded alike ({np.mean(first != again):.1%} of users differ): it draws from a "
            f"random source other than the rng it is given (np.random.*, random.*, or a "
            f"Generator of its own). Draw every random number from rng.",
        )
    law = _law(first, users, table, inputs, bits)
    if isinstance(law, str):
        return Check(False, law)
    for problem in (
        _epsilon(first, users, table),
        _halves(first, users, table, inputs, bits),
        _fresh(first, fresh, users, table),
        _neighbours(first, users, table),
        _too_regular(*law[1:]),
    ):
        if problem:
            return Check(False, problem)
    return Check(
        True,
        f"your client follows the exact output table for all {n_in} inputs in one mixed "
        f"batch of {users.size} users (smallest χ² p-value {law[0]:.2g}, threshold "
        f"{ALPHA / n_in:.2g}); its ε matches the table's and its reports are fresh, "
        f"independent draws from rng, whatever the user's position.",
    )


def _three_calls(perturb, values, n_out: int, seeds):
    """In the child: the student's reports for each seed as output indices (or a sentence)."""
    columns = []
    for seq in seeds:
        column = _columns(perturb(values.copy(), np.random.default_rng(seq)), values, n_out)
        if isinstance(column, str):
            return column
        columns.append(column[0])
    return np.stack(columns), column[1]


def _columns(reports, values, n_out: int):
    """(the output index of each report, bits per report or None), or a sentence saying why not.

    The shape and the type are checked before any conversion: a (n, 10⁵) boolean array is refused
    by its shape, not converted."""
    n = values.shape[0]
    if reports is None:
        return "your client returned None (is a `return` missing?)"
    if not isinstance(reports, np.ndarray):
        reports = np.asarray(reports)
    bits = n_out.bit_length() - 1 if n_out & (n_out - 1) == 0 else None
    shapes = [(n,)] + ([(n, bits)] if bits else [])
    if reports.shape not in shapes:
        forms = " or ".join(str(s) for s in shapes)
        turned = " (transposed?)" if reports.shape[::-1] in shapes[1:] else ""
        return (
            f"your client returned an array of shape {reports.shape}{turned}; expected {forms} for a batch "
            f"of {n} users (one report per user: a value in [0, {n_out})"
            + (f" or {bits} bits)" if bits else ")")
        )
    if reports.dtype.kind not in "biuf":
        return (
            f"your client returned reports of type {reports.dtype}; a report is an integer value "
            f"or a vector of 0/1 bits"
        )
    if reports.dtype.kind == "f":
        whole = np.isfinite(reports) & (reports == np.round(reports))
        if not whole.all():
            return (
                f"your client returned a report {reports[~whole].flat[0]!r}, not an integer: a "
                f"report is a value or a 0/1 bit (probabilities are not reports)"
            )
    reports = reports.astype(np.int64)
    if reports.ndim == 1:
        outside = (reports < 0) | (reports >= n_out)
        if outside.any():
            i = int(np.argmax(outside))
            return (
                f"for input {_show(values[i])} your client reported {reports[i]}, outside the outputs "
                f"[0, {n_out}) (values counted from 1? an off-by-one domain?)"
            )
        return reports, None
    if reports.min() < 0 or reports.max() > 1:
        i = int(np.argmax(((reports < 0) | (reports > 1)).any(axis=1)))
        return (
            f"for input {_show(values[i])} your client reported {reports[i].tolist()}: a report should "
            f"be a bit vector of 0s and 1s"
        )
    return reports @ (1 << np.arange(bits)), bits


def _show(value, bits=None) -> str:
    """An input or a report in words: a value, or a bit vector (an output y given with its ``bits``: bit 0 first)."""
    if bits is not None:
        return "bits " + "".join(str((value >> i) & 1) for i in range(bits))
    return str(int(value)) if np.ndim(value) == 0 else "bits " + "".join(str(int(b)) for b in value)


def _law(first, users, table, inputs, bits):
    """(smallest p-value, total χ², degrees of freedom), or a sentence naming the input and output."""
    n_in, n_out = table.shape
    observed = np.bincount(users * n_out + first, minlength=n_in * n_out).reshape(n_in, n_out)
    expected = observed.sum(axis=1, keepdims=True) * table
    impossible = (expected == 0) & (observed > 0)
    if impossible.any():
        x, y = (int(i) for i in np.argwhere(impossible)[0])
        return (
            f"for input {_show(inputs[x])} your client reported output {_show(y, bits)}, "
            f"which the exact law never produces (probability 0)"
        )
    used = expected > 0
    cells = np.where(used, (observed - expected) ** 2 / np.where(used, expected, 1.0), 0.0)
    chi2, df = cells.sum(axis=1), np.maximum(used.sum(axis=1) - 1, 1)
    p_values = stats.chi2.sf(chi2, df)
    x = int(np.argmin(p_values))
    if p_values[x] < ALPHA / n_in:
        n = observed[x].sum()
        y = int(
            np.argmax(np.abs(observed[x] - expected[x]) / np.sqrt(np.maximum(expected[x], 1e-300)))
        )
        return (
            f"for input {_show(inputs[x])} your reports do not follow the exact law: output "
            f"{_show(y, bits)} came {observed[x, y] / n:.1%} of the time, the exact "
            f"probability is {table[x, y]:.1%} (χ² test over the {n} users with this input in a "
            f"mixed batch, p = {p_values[x]:.2g})."
        )
    return float(p_values[x]), float(chi2.sum()), int(df.sum())


def _z(observed: float, mean: float, variance: float) -> float:
    return (
        0.0
        if variance <= 0 and observed == mean
        else (observed - mean) / math.sqrt(max(variance, 1e-300))
    )


def _epsilon(first, users, table) -> str | None:
    """The score test of t = 1 in ``T_t ∝ T^t``: the Fisher information of t per user is Var log T[x, Y]."""
    if table.shape[0] < 2:
        return None
    log_t = np.log(np.where(table > 0, table, 1.0))
    mean = np.sum(table * log_t, axis=1)
    info = np.sum(table * (log_t - mean[:, None]) ** 2, axis=1)[users].sum()
    score = float(np.sum(log_t[users, first] - mean[users]))
    z = _z(score, 0.0, info)
    if abs(z) <= Z_MAX:
        return None
    t = 1 + score / info  # one Newton step from t = 1
    fitted = np.where(table > 0, np.exp(t * log_t), 0.0)
    eps = max_privacy_loss(fitted / fitted.sum(axis=1, keepdims=True))
    exact = max_privacy_loss(table)
    return (
        f"your reports are {'more' if z > 0 else 'less'} faithful to the inputs than the table allows: "
        f"fitted to its family they show ε ≈ {eps:.4g}, the table's exact ε is {exact:.4g} "
        f"({abs(z):.1f} standard errors off; at most {Z_MAX:g} allowed). Are p and q computed from "
        f"another ε or d?"
    )


def _fresh(first, fresh, users, table) -> str | None:
    agree = np.sum(table**2, axis=1)[users]  # Pr[two independent reports of one user agree]
    z = _z(float(np.sum(first == fresh)), agree.sum(), float(np.sum(agree * (1 - agree))))
    if abs(z) <= Z_MAX:
        return None
    return (
        f"your reports are not fresh random draws: called on the same {users.size} users with "
        f"differently seeded Generators, your client gave {np.mean(first == fresh):.1%} of them the same "
        f"report; independent draws agree for {agree.mean():.1%} ({abs(z):.1f} standard errors; at most "
        f"{Z_MAX:g}). Is a report a function of the user's value and position, or does your client "
        f"seed a generator of its own?"
    )


def _neighbours(first, users, table) -> str | None:
    """Agreement of the disjoint pairs (2i, 2i + 1), apart for pairs of equal and of different inputs
    (one coin shared by two users raises the first and lowers the second)."""
    half = users.size // 2
    left, right = slice(0, 2 * half, 2), slice(1, 2 * half, 2)
    agree = (table @ table.T)[users[left], users[right]]
    same = first[left] == first[right]
    equal = users[left] == users[right]
    for kind, alike in (("the same input", equal), ("different inputs", ~equal)):
        pairs, chance = same[alike], agree[alike]
        z = _z(float(pairs.sum()), chance.sum(), float(np.sum(chance * (1 - chance))))
        if abs(z) > Z_MAX:
            return (
                f"neighbouring users' reports are not independent: of the users at positions 2i and 2i+1 "
                f"with {kind}, {pairs.mean():.1%} reported the same output; independent users "
                f"would {chance.mean():.1%} of the time ({abs(z):.1f} standard errors; at most "
                f"{Z_MAX:g}). Does one random draw serve several users?"
            )
    return None


def _halves(first, users, table, inputs, bits) -> str | None:
    n_in, n_out = table.shape
    second = (np.arange(users.size) >= users.size // 2).astype(np.int64)
    counts = np.bincount((users * 2 + second) * n_out + first, minlength=2 * n_in * n_out)
    counts = counts.reshape(n_in, 2, n_out).astype(float)
    by_half, by_output = counts.sum(axis=2, keepdims=True), counts.sum(axis=1, keepdims=True)
    expected = by_half * by_output / np.maximum(by_half.sum(axis=1, keepdims=True), 1)
    used = expected > 0
    chi2 = np.where(used, (counts - expected) ** 2 / np.where(used, expected, 1.0), 0.0).sum(
        axis=(1, 2)
    )
    p_values = stats.chi2.sf(chi2, np.maximum((by_output[:, 0] > 0).sum(axis=1) - 1, 1))
    x = int(np.argmin(p_values))
    if p_values[x] >= ALPHA / n_in:
        return None
    shares = counts[x] / np.maximum(by_half[x], 1)
    y = int(np.argmax(np.abs(shares[0] - shares[1])))
    return (
        f"for input {_show(inputs[x])} the users in the first half of the batch and those in the "
        f"second half report differently (output {_show(y, bits)}: {shares[0, y]:.1%} vs "
        f"{shares[1, y]:.1%}; χ² p = {p_values[x]:.2g}): a report must not depend on the user's "
        f"position in the batch"
    )


def _too_regular(chi2: float, df: int) -> str | None:
    p_low = float(stats.chi2.cdf(chi2, df))
    if p_low >= ALPHA:
        return None
    return (
        f"your report counts are closer to their expected values than independent users' counts can "
        f"be (χ² = {chi2:.3g} on {df} degrees of freedom, lower-tail p = {p_low:.2g}): does your "
        f"client hand out outputs by quota instead of drawing each user's report independently?"
    )
