"""Checkers for the notebooks' coding exercises (tooling-free science helpers).

A chapter's coding exercise asks the student to write a piece of a mechanism or an estimator and
to hand it to a checker here, which tests it against the exact law of the collection's mechanisms
and answers in words (:mod:`ldp_helpers.teaching.checks`, :mod:`ldp_helpers.teaching.client`,
:mod:`ldp_helpers.teaching.oracles`, :mod:`ldp_helpers.teaching.shuffle`).  The
student's code runs with a time and a memory limit in a child process.  This layer sits above the
experiments: it imports the mechanisms, bounds, estimation and simulators, and nothing of the tooling.
"""

from ldp_helpers.teaching.checks import (
    Check,
    check_chernoff_bound,
    check_estimator,
    check_output_table,
)
from ldp_helpers.teaching.client import check_client
from ldp_helpers.teaching.oracles import check_scaled_risk
from ldp_helpers.teaching.shuffle import check_shuffle_delta

__all__ = [
    "Check",
    "check_chernoff_bound",
    "check_client",
    "check_estimator",
    "check_output_table",
    "check_scaled_risk",
    "check_shuffle_delta",
]
