"""Verdicts that survive a reseed: the ``stability`` column of ``claims.csv``.

``reproduce`` runs a notebook under its profile's seed and again under each of the profile's
``robustness_seeds`` (same sizes, figures thrown away), and compares every row's deciding comparison
(:class:`~ldp_tools.pipeline.decisions.Decision`, written to 12 significant digits) across the runs:

* ``deterministic`` — the row is identical under every seed, its decision and the numbers it quotes
  (exact computations, and rows decided by the text);
* ``stable over N seeds`` — its value moves with the seed, its verdict does not (N counts every run,
  the published one included); also a simulated row whose decision happens not to move (a recall of
  1 in every run) while its quoted numbers do;
* ``fragile: <verdict> under seed S`` — another seed gives another verdict: the row's verdict is
  decided by the draw, not by the evidence; it is made stable (more draws, a tolerance from the
  standard error) or stays marked so, in the table and in the report.

References
----------
Issue 26 (verdicts that survive a reseed).
"""

from __future__ import annotations

from dataclasses import replace

from ldp_helpers._validation import fail_type
from ldp_tools.pipeline.claim_rows import Claim
from ldp_tools.pipeline.decisions import VERDICTS


def _check_rows(name: str, rows) -> list[Claim]:
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
        fail_type(name, rows, "a list of Claim rows (as read from a claims.csv)")
    rows = list(rows)
    if not rows or not all(isinstance(r, Claim) for r in rows):
        fail_type(name, rows, "a non-empty list of Claim rows (as read from a claims.csv)")
    return rows


def _stability_label(row: Claim, reseeded: dict) -> str:
    """The ``stability`` of one row given the same row under other seeds (``{seed: Claim}``)."""
    for seed, other in reseeded.items():
        if (
            isinstance(seed, bool)
            or not isinstance(seed, int)
            or not isinstance(other, Claim)
            or other.id != row.id
        ):
            raise ValueError(
                f"reseeded must map integer seeds to the row {row.id!r} under that seed; got {seed!r}: "
                f"{getattr(other, 'id', other)!r:.80}"
            )
    if all(
        replace(other, stability="") == replace(row, stability="") for other in reseeded.values()
    ):
        return "deterministic"
    flips = {
        v: sorted(s for s, o in reseeded.items() if o.verdict == v)
        for v in VERDICTS
        if v != row.verdict
    }
    parts = [f"{v} under seed {', '.join(map(str, seeds))}" for v, seeds in flips.items() if seeds]
    return "fragile: " + "; ".join(parts) if parts else f"stable over {len(reseeded) + 1} seeds"


def _with_stability(rows, reseeded: dict, *, seed_free=frozenset()) -> list[Claim]:
    """``rows`` (the published run's claims) with their ``stability`` from the runs under other seeds.

    ``reseeded`` maps each other seed to its run's rows: the same ids in the same order, except that the ids
    in ``seed_free`` (rows stated in cells tagged ``seed-free``, which a reseeded run may leave out:
    :mod:`~ldp_tools.pipeline._reseeds`) may be missing; such a row is ``deterministic`` by its tag, and
    one that a run did compute must come out ``deterministic``.  ValueError names the seed or the row otherwise.
    """
    rows = _check_rows("rows", rows)
    seed_free = set(seed_free)
    ids = [r.id for r in rows]
    runs = {}
    for seed, other in reseeded.items():
        other = _check_rows(f"reseeded[{seed!r}]", other)
        kept = [r.id for r in other]
        if kept != [i for i in ids if i in kept] or set(ids) - set(kept) - seed_free:
            raise ValueError(
                f"reseeded[{seed!r}] must list the same claims as the published run (rows of seed-free "
                f"cells may be missing); got ids {sorted((set(kept) ^ set(ids)) - seed_free)} in one of "
                f"them only, or another order"
            )
        runs[seed] = {r.id: r for r in other}
    labelled = []
    for row in rows:
        found = {s: run[row.id] for s, run in runs.items() if row.id in run}
        label = _stability_label(row, found) if found else "deterministic"
        if row.id in seed_free and label != "deterministic":
            raise ValueError(
                f"row {row.id} is stated in a cell tagged seed-free, but it moves with the seed "
                f"({label}); untag that cell"
            )
        labelled.append(replace(row, stability=label))
    return labelled


def _stability_counts(rows) -> dict[str, int]:
    """How many rows are deterministic, stable over the seeds, fragile, or not checked (empty stability)."""
    kinds = {"deterministic": 0, "stable": 0, "fragile": 0, "not checked": 0}
    for r in rows:
        kind = "not checked" if not r.stability else r.stability.split()[0].rstrip(":")
        kinds[kind] += 1
    return kinds
