"""ldp_helpers: mechanisms, exact simulators and bounds for the ldp-notebooks collection.

The public names are re-exported here, so a notebook imports them from one place::

    from ldp_helpers import GRR, OUE

its own paper's bounds and drivers from ``ldp_helpers.bounds.<key>`` and
``ldp_helpers.experiments.<key>``, and its tooling (claims, figures) from
:mod:`ldp_tools.pipeline`, a separate package beside this one that the science never imports.  The
layout (docs/reference.md, "Repository map") is by role: ``mechanisms`` (one contract,
:class:`~ldp_helpers.mechanisms.base.Mechanism`, and the
:data:`~ldp_helpers.mechanisms.registry.REGISTRY`), ``simulate``, ``estimation``, ``bounds``,
``protocols``, ``experiments``, ``audit``, ``sweeps``, ``interop`` and ``teaching``.  Names are
resolved lazily on first use, so importing the package imports no module of the science.

>>> from ldp_helpers import BinaryRR
>>> BinaryRR.from_epsilon(1.0).p          # doctest: +ELLIPSIS
0.7310...

Every stochastic function takes a keyword-only ``rng: numpy.random.Generator``;
nothing in the package touches a global random state.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "ldp_helpers.mechanisms.base": (
        "Mechanism",
        "FrequencyOracle",
        "PureFrequencyOracle",
        "sample_support_counts",
    ),
    "ldp_helpers.mechanisms.registry": ("REGISTRY", "RegistryEntry"),
    "ldp_helpers.mechanisms.privacy": ("max_privacy_loss", "privacy_losses"),
    "ldp_helpers.mechanisms.randomized_response": (
        "BinaryRR",
        "q_bin_probabilities",
        "two_coin_response",
    ),
    "ldp_helpers.mechanisms.grr": ("GRR", "amplified_grr_epsilon"),
    "ldp_helpers.mechanisms.unary_encoding": ("SUE", "OUE", "unary_output_table"),
    "ldp_helpers.mechanisms.local_hashing": ("BLH", "OLH", "continuous_optimal_hash_range"),
    "ldp_helpers.mechanisms.histogram_encoding": ("SHE", "THE"),
    "ldp_helpers.mechanisms.count_mean_sketch": ("CountMeanSketch",),
    "ldp_helpers.mechanisms.rappor": ("Rappor", "RapporParams"),
    "ldp_helpers.mechanisms.rappor_client": ("report_table",),
    "ldp_helpers.mechanisms.continual": ("Glance", "BasicOneTimeRappor"),
    "ldp_helpers.mechanisms.harmony": ("Harmony", "HarmonyNguyen"),
    "ldp_helpers.mechanisms.m_shot": ("MShotReporting",),
    "ldp_helpers.mechanisms.subset_selection": ("SubsetSelection", "optimal_subset_size"),
    "ldp_helpers.mechanisms.hadamard_response": ("HadamardResponse",),
    "ldp_helpers.mechanisms.hadamard_mechanism": ("HadamardMechanism", "optimal_coefficients"),
    "ldp_helpers.mechanisms.fast_local_hashing": ("FastLocalHashing", "fixed_hash_moments"),
    "ldp_helpers.mechanisms.duchi_mean": ("DuchiMean",),
    "ldp_helpers.simulate.populations": (
        "Population",
        "RandomActiveSets",
        "constant_population",
        "linear_ramp_counts",
        "flat_counts",
        "power_law_counts",
        "random_baskets",
        "zipf_weights",
        "cohort_counts",
    ),
    "ldp_helpers.simulate.datasets": ("load_trouser_counts",),
    "ldp_helpers.simulate.survey": ("tea_survey_standin",),
    "ldp_helpers.mechanisms.pure": (
        "unbiased_count",
        "count_variance",
        "expected_support_count",
        "support_count_pmf",
    ),
    "ldp_helpers.estimation.postprocessing": ("postprocess",),
    "ldp_helpers.estimation.rappor_decoding": ("decode", "identical_filter_pairs", "printed_y_vec"),
    "ldp_helpers.bounds.chernoff": ("tail_check", "tail_comparison"),
    "ldp_helpers.bounds.wang2017": (
        "approx_variance_per_user",
        "best_protocol_grid",
        "de_threshold",
        "first_d_where_oue_wins",
    ),
    "ldp_helpers.audit.clients": ("BlackBoxClient", "MechanismClient", "ClientError"),
    "ldp_helpers.audit.auditor": (
        "run_audit",
        "AuditResult",
        "clopper_pearson",
        "epsilon_lower_bound",
    ),
    "ldp_helpers.audit.events": ("Event",),
    "ldp_helpers.sweeps": ("run_chunks", "ChunkError", "DASK_ADDRESS_ENV"),
    "ldp_helpers.audit.longitudinal": (
        "AttackCurve",
        "binomial_attack_curve",
        "simulated_attack_curve",
        "fresh_rr_count_table",
        "memoized_rappor_count_table",
    ),
    "ldp_helpers.protocols.heavy_hitters": ("bitstogram", "pem", "recall", "treehist"),
    "ldp_helpers.protocols.personalized": (
        "PCEP",
        "pcep_rows",
        "pldp_loss",
        "psda_counts",
        "psda_error_bound",
    ),
    "ldp_helpers.protocols.taxonomy": ("Taxonomy",),
    "ldp_helpers.protocols.itemset_mining": ("ldpminer", "ncr", "svim", "top_k_precision"),
    "ldp_helpers.simulate.itemsets": ("item_counts", "zipf_baskets"),
    "ldp_helpers.protocols.set_valued": (
        "PSFO",
        "grr_preferred",
        "grr_threshold",
        "pad_and_sample",
    ),
    "ldp_helpers.experiments.common": ("fitted_slope", "fitted_slope_se"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    """Resolve a re-exported name from its module on first use (PEP 562)."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'ldp_helpers' has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
