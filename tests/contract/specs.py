"""One spec per public callable: a small valid call, and which parameters the bad-input properties probe.

``SPECS[qualified name] = Spec(kwargs)``: ``kwargs`` is a valid call (``RNG`` stands for a fresh
Generator from the property's seed).  Every keyword is probed with the bad values of its kind
(``strategies.bad_values``) unless listed in ``free`` (any value is legal there, e.g. a label),
``extra_bad`` adds values (wrong shapes, inconsistent objects), ``none_ok`` marks parameters whose
default is ``None``, ``huge`` those that size an allocation or a loop (10¹², 2⁶³ must hit a ceiling).  ``valid=False``: no valid run in the suite (it would run notebooks or write
files; the pipeline tests cover it), ``finite=False``: infinities are a legal result, ``nan_ok``: NaN is a
documented marker in the result (an explorer curve's "does not apply here"), never an answer.

``RECORDS`` are frozen result records the library builds and returns (never an input boundary);
``CLI`` are the command-line entry points (``tests/contract/test_pipeline_safety.py``);
``PENDING`` are names other issues are building right now (the integrator empties it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import matplotlib.pyplot as plt
import numpy as np

from ldp_helpers.audit.events import Event
from ldp_helpers.estimation.rappor_decoding import decode
from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE
from ldp_helpers.protocols.taxonomy import Taxonomy
from ldp_helpers.simulate.populations import Population, RandomActiveSets
from ldp_tools.pipeline.decisions import close

RNG = object()  # placeholder: a fresh numpy Generator seeded by the property


@dataclass(frozen=True)
class Spec:
    kwargs: dict
    free: frozenset = frozenset()
    extra_bad: dict = field(default_factory=dict)
    none_ok: frozenset = frozenset()
    huge: frozenset = frozenset()
    valid: bool = True
    finite: bool = True
    nan_ok: bool = False


def spec(
    _free=(), _extra=None, _none_ok=(), _huge=(), _valid=True, _finite=True, _nan_ok=False, **kwargs
) -> Spec:
    return Spec(
        kwargs,
        frozenset(_free),
        dict(_extra or {}),
        frozenset(_none_ok),
        frozenset(_huge),
        _valid,
        _finite,
        _nan_ok,
    )


# small shared examples
GRR5 = GRR(1.2, 5)
CMS = REGISTRY["cms"].example()
OUE5 = OUE(1.2, 5)
COUNTS = np.array([30, 10, 5, 0, 15], dtype=np.int64)
RR = BinaryRR.from_epsilon(1.1)
PARAMS = RapporParams(k=8, h=2, m=2, f=0.5, p=0.25, q=0.75)
RAPPOR = REGISTRY["rappor"].example()
RAPPOR_TRUTH = REGISTRY["rappor"].example_truth(RAPPOR)
RAPPOR_BASIC = REGISTRY["rappor_basic_one_time"].example()
POP = Population.nested(np.array([3, 10, 0, 7]), 12)
MSHOT = MShotReporting(2.0, 4, 2, 0.3)
GLANCE = Glance(1.5, 4)
RAS = RandomActiveSets(np.array([3, 10, 0, 7]), 12)
DELTA = np.array([0.1, 0.5, 1.0])
WEIGHTS = np.array([0.5, 0.3, 0.2, 0.0])
BLOOMS = RAPPOR.blooms
DECODING = decode(np.eye(6)[:, :3] + 0.1, np.array([5.0, 1.0, 2.0, 0.5, 0.2, 0.1]))
_fig, AX = plt.subplots()
plt.close(_fig)

CH = "ldp_helpers.bounds.chernoff."
GL = "ldp_helpers.bounds.glance."
MS = "ldp_helpers.bounds.m_shot."
GLANCE_ARGS = dict(n_users=1000, n_rounds=10, beta=0.1)

SPECS: dict[str, Spec] = {
    # bounds.chernoff
    CH + "upper": spec(delta=DELTA, mu=10.0),
    CH + "upper_simple": spec(delta=np.array([0.1, 0.5]), mu=10.0),
    CH + "lower": spec(delta=np.array([0.1, 0.5]), mu=10.0),
    CH + "lower_simple": spec(delta=np.array([0.1, 0.5]), mu=10.0),
    CH + "two_sided": spec(delta=np.array([0.1, 0.5]), mu=10.0),
    CH + "two_sided_delta": spec(probability=0.05, mu=10.0),
    CH + "bernoulli_kl": spec(a=0.3, b=0.5, boundary_infinite=False, _finite=False),
    CH + "kl_upper": spec(t=0.1, n=100, p=0.3),
    CH + "kl_lower": spec(t=0.1, n=100, p=0.3),
    CH + "bernstein_exponent": spec(t=1.0, variance=2.0, bound=1.0),
    CH + "bernstein_deviation": spec(exponent=3.0, variance=2.0, bound=1.0),
    # the ratio bound/exact is inf where the exact tail is 0 ((1 + δ)np > n: p near 1)
    CH + "tail_comparison": spec(bound="upper", n=100, p=0.3, delta=DELTA, _finite=False),
    CH + "tail_check": spec(bounds=("upper", "kl_upper"), n=100, p=0.3, delta=DELTA, _finite=False),
    # bounds.extremes
    "ldp_helpers.bounds.extremes.rate_guide": spec(
        rounds=np.array([10.0, 100.0]), first_value=0.5, exponent=0.5, beta=0.1
    ),
    "ldp_helpers.bounds.extremes.max_abs_normal": spec(n_rounds=10, beta=0.1, _none_ok={"beta"}),
    # bounds.glance (another helper's module; covered here)
    GL + "log_term": spec(**GLANCE_ARGS),
    GL + "theta": spec(epsilon=1.0, **GLANCE_ARGS),
    GL + "theta_large_epsilon_limit": spec(**GLANCE_ARGS),
    GL + "sampling_bound": spec(**GLANCE_ARGS),
    GL + "glance_upper_bound": spec(epsilon=1.0, **GLANCE_ARGS),
    GL + "rr_exponent": spec(epsilon=1.0, theta_value=0.2),
    GL + "dense_sparse_condition": spec(mu=0.3, epsilon=1.0, **GLANCE_ARGS),
    GL + "condition2_bands": spec(mu=np.linspace(0.0, 1.0, 5), epsilon=1.0, **GLANCE_ARGS),
    GL + "harmony_lower_bound": spec(epsilon=1.0, n_users=100, n_rounds=4, beta=1e-5),
    GL + "bound_crossover": spec(n_users=100, n_rounds=4, beta=1e-5, _valid=False),
    # bounds.grr_vs_oue
    "ldp_helpers.bounds.grr_vs_oue.theoretical_mse": spec(protocol=GRR5, true_counts=COUNTS),
    "ldp_helpers.bounds.grr_vs_oue.approx_mse": spec(protocol=GRR5, n=100),
    "ldp_helpers.bounds.grr_vs_oue.crossover_epsilon_wang": spec(d=10),
    "ldp_helpers.bounds.grr_vs_oue.crossover_epsilon_exact": spec(d=10),
    "ldp_helpers.bounds.grr_vs_oue.mse_ratio": spec(
        true_counts=COUNTS, epsilons=np.array([0.5, 2.0])
    ),
    "ldp_helpers.bounds.grr_vs_oue.crossover_epsilon_numeric": spec(
        true_counts=np.array([5000, 100, 50, 20, 10, 5, 1, 1, 1, 1])
    ),
    # bounds.m_shot
    MS + "f_mr": spec(m=2, r=0.5, epsilon=2.0, n_rounds=10),
    MS + "alpha_condition": spec(m=2, r=0.5, epsilon=2.0, n_rounds=10),
    MS + "method_m": spec(method="1-shot", epsilon=2.0, n_rounds=10),
    MS + "method_assumption": spec(method="1-shot", epsilon=2.0, n_rounds=10),
    MS + "printed_assumption": spec(method="1-shot", epsilon=2.0, n_rounds=10, literal=False),
    MS + "deviation_bound": spec(alpha=0.2, m=2, r=0.5, epsilon=2.0, n_rounds=10, n_users=10000),
    MS + "alpha_at_beta": spec(beta=0.1, m=2, r=0.5, epsilon=2.0, n_rounds=10, n_users=10000),
    MS + "alpha_bound": spec(beta=0.1, m=2, r=0.5, epsilon=2.0, n_rounds=10, n_users=10000),
    MS + "min_users_for_condition": spec(beta=0.1, m=2, r=0.5, epsilon=2.0, n_rounds=10),
    MS + "alpha_t_shot_closed_form": spec(beta=0.1, epsilon=2.0, n_rounds=10, n_users=10000),
    MS + "g": spec(x=np.array([0.5, 1.0, 2.0])),
    MS + "c_star": spec(),
    MS + "m_star_regime": spec(epsilon=2.0, n_rounds=10),
    MS + "m_star": spec(epsilon=2.0, n_rounds=10),
    MS + "rate_exponent": spec(method="1-shot", b=0.25),
    MS + "alpha_for_method": spec(
        method="1-shot", beta=0.1, epsilon=2.0, n_rounds=10, n_users=10000
    ),
    MS + "alpha_vs_assumption": spec(
        method="1-shot", beta=0.1, epsilon=2.0, n_rounds=10, n_users=10000
    ),
    MS + "m_star_table": spec(epsilons=np.array([1.0, 2.0]), rounds=np.array([10, 20])),
    MS + "f_decreasing_in_r": spec(
        _huge={"n_rounds"}, rs=np.array([0.2, 0.5]), epsilon=2.0, n_rounds=10
    ),
    # bounds.rappor, tutorial, wang2017
    "ldp_helpers.bounds.rappor.tutorial_printed_p_star": spec(f=0.5, p=0.25),
    "ldp_helpers.bounds.rappor.detection_threshold": spec(
        mechanism=RAPPOR, n_reports=np.array([100, 200]), alpha=0.05, n_tests=1, power=0.5
    ),
    "ldp_helpers.bounds.rappor.detection_threshold_without_collisions": spec(
        params=PARAMS, n_reports=np.array([100, 200]), alpha=0.05, n_tests=1, power=0.5
    ),
    "ldp_helpers.bounds.rappor.tutorial_printed_epsilon_one_report": spec(params=PARAMS),
    "ldp_helpers.bounds.rappor.expected_precision_recall": spec(
        frequencies=np.array([0.5, 0.3, 0.2, 0.0]),
        unit_threshold=np.array([0.1, 0.1, 0.2, 0.1]),
        alpha=0.05,
        correction="bh",
        _extra={"frequencies": [np.zeros(4), np.full((2, 2), 0.25)], "unit_threshold": [[0.1]]},
    ),
    "ldp_helpers.bounds.tutorial.composed_privacy_loss": spec(
        _huge={"reports"}, table=RR.output_table(), reports=3
    ),
    "ldp_helpers.bounds.tutorial.ldp_noise_ratio": spec(rr=RR, true_fraction=0.3, n=1000),
    "ldp_helpers.bounds.wang2017.de_threshold": spec(
        epsilon=1.0, _finite=False
    ),  # inf beyond e^709 (documented)
    "ldp_helpers.bounds.wang2017.de_threshold_epsilon": spec(d=10, _extra={"d": [2.5, 2]}),
    "ldp_helpers.bounds.wang2017.prefers_direct_encoding": spec(d=10, epsilon=1.0),
    "ldp_helpers.bounds.wang2017.approx_variance_per_user": spec(name="OUE", d=10, epsilon=1.0),
    "ldp_helpers.bounds.wang2017.best_protocol_grid": spec(
        domain_sizes=np.array([2, 10]), epsilons=np.array([0.5, 2.0]), names=("DE", "OUE")
    ),
    "ldp_helpers.bounds.wang2017.first_d_where_oue_wins": spec(epsilon=1.0, max_d=1000),
    # estimation
    "ldp_helpers.estimation.postprocessing.clip_and_renormalize": spec(
        estimates=np.array([3.0, -1.0, 8.0]), total=10.0
    ),
    "ldp_helpers.estimation.postprocessing.project_to_simplex": spec(
        estimates=np.array([3.0, -1.0, 8.0]), total=10.0
    ),
    "ldp_helpers.estimation.postprocessing.postprocess": spec(
        estimates=np.array([3.0, -1.0, 8.0]), total=10.0, method="clip"
    ),
    "ldp_helpers.mechanisms.pure.unbiased_count": spec(support_count=40.0, n=100.0, p=0.6, q=0.2),
    "ldp_helpers.mechanisms.pure.count_variance": spec(true_count=40.0, n=100.0, p=0.6, q=0.2),
    "ldp_helpers.mechanisms.pure.expected_support_count": spec(
        true_count=40.0, n=100.0, p=0.6, q=0.2
    ),
    "ldp_helpers.mechanisms.pure.support_count_pmf": spec(true_count=40, n=100, p=0.6, q=0.2),
    "ldp_helpers.estimation.rappor_decoding.identical_filter_pairs": spec(
        mechanism=RAPPOR, cohort=0, _none_ok={"cohort"}
    ),
    "ldp_helpers.estimation.rappor_decoding.printed_y_vec": spec(
        mechanism=RAPPOR_BASIC, truth=RAPPOR_TRUTH, n_active=2, rng=RNG, normalize_inside_loop=True
    ),
    "ldp_helpers.estimation.rappor_decoding.check_correction": spec(
        correction="bh", _none_ok={"correction"}, _extra={"correction": ["holm"]}
    ),
    "ldp_helpers.estimation.rappor_decoding.total_counts": spec(
        decoding=DECODING, m=4, n_candidates=3, _huge={"n_candidates"}, _finite=False
    ),  # SE of a dropped candidate: nan
    "ldp_helpers.estimation.rappor_decoding.decode": spec(
        X=np.eye(6)[:, :3] + 0.1,
        y=np.array([5.0, 1.0, 2.0, 0.5, 0.2, 0.1]),
        alpha=0.05,
        lasso_alpha=0.01,
        drop_below=0.001,
        correction="bonferroni",
        _none_ok={"correction"},
    ),
    # experiments
    "ldp_helpers.experiments.common.max_error": spec(
        estimates=np.array([[0.1, 0.2], [0.3, 0.1]]), true_fractions=np.array([0.2, 0.2])
    ),
    "ldp_helpers.experiments.common.fitted_slope_se": spec(
        x=np.array([10.0, 100.0, 1000.0]),
        y=np.array([1.0, 0.3, 0.1]),
        y_se=np.array([0.01, 0.01, 0.01]),
        log_x=True,
        _extra={"y_se": [np.array([0.01, 0.01])]},
    ),
    "ldp_helpers.experiments.common.fitted_slope": spec(
        x=np.array([10.0, 100.0, 1000.0]),
        y=np.array([1.0, 0.3, 0.1]),
        log_x=True,
        log_correction_beta=0.1,
        _none_ok={"log_correction_beta"},
    ),
    "ldp_helpers.experiments.grr_vs_oue.perturbed_example": spec(
        protocol=GRR5, true_counts=COUNTS, rng=RNG
    ),
    "ldp_helpers.experiments.grr_vs_oue.perturbed_examples": spec(
        true_counts=COUNTS, epsilon=1.0, rng=RNG
    ),
    "ldp_helpers.experiments.grr_vs_oue.per_user_estimates": spec(
        protocol=GRR5, values=np.array([0, 1, 4, 2]), n_draws=3, rng=RNG
    ),
    "ldp_helpers.experiments.grr_vs_oue.total_variation": spec(
        frequencies=np.array([0.5, 0.5]), reference=np.array([0.25, 0.75])
    ),
    "ldp_helpers.experiments.grr_vs_oue.mse_curves": spec(
        true_counts=COUNTS, epsilons=np.array([0.5, 2.0]), n_draws=3, seed=7
    ),
    "ldp_helpers.experiments.grr_vs_oue.reversal_readings": spec(
        brand_counts=np.array([[3, 1], [0, 2]]), epsilons=np.array([0.5]), n_draws=3, seed=7
    ),
    "ldp_helpers.experiments.m_shot.ramp_data": spec(
        _huge={"n_rounds"}, n_users=100, n_rounds=5, rng=RNG
    ),
    "ldp_helpers.experiments.m_shot.estimates": spec(mech=MSHOT, data=POP, rng=RNG, n_draws=3),
    "ldp_helpers.experiments.m_shot.max_errors": spec(mech=MSHOT, data=POP, rng=RNG, n_draws=3),
    "ldp_helpers.experiments.m_shot.f_measure_vs_m": spec(
        _huge={"n_rounds"},
        epsilon=2.0,
        n_rounds=4,
        ms=np.array([1, 2]),
        n_users=100,
        theta=0.3,
        n_draws=3,
        rng=RNG,
    ),
    "ldp_helpers.experiments.m_shot.peak_window": spec(
        epsilon=2.0, n_rounds=4, ms=np.array([1, 2]), n_users=100, theta=0.3, n_draws=3, rng=RNG
    ),
    "ldp_helpers.experiments.m_shot.data_model_gap": spec(
        mech=MSHOT,
        ones_per_round=np.array([3, 10, 0, 7]),
        n_users=12,
        theta=0.3,
        n_draws=3,
        rng=RNG,
    ),
    "ldp_helpers.experiments.m_shot.f_measure_vs_rounds": spec(
        epsilon=2.0,
        rounds=np.array([4, 8]),
        method="1-shot",
        n_users=100,
        theta=0.3,
        n_draws=3,
        rng=RNG,
    ),
    "ldp_helpers.experiments.m_shot.max_error_vs_rounds": spec(
        scale=1.0, b=0.25, rounds=np.array([4, 8]), method="1-shot", n_users=100, n_draws=3, rng=RNG
    ),
    "ldp_helpers.experiments.rappor.precision_recall": spec(
        detected=np.array([0, 2]),
        n_true=2,
        _extra={"detected": [np.array([-1]), np.array([0.5])]},
        _free={"detected"},
    ),
    "ldp_helpers.experiments.rappor.decode_survey": spec(
        params=PARAMS, weights=WEIGHTS, n_reports=200, rng=RNG, alpha=0.05, printed_logic=False
    ),
    "ldp_helpers.experiments.rappor.decode_surveys": spec(
        params=PARAMS, weights=WEIGHTS, n_reports=200, n_draws=2, rng=RNG
    ),
    "ldp_helpers.experiments.rappor.estimator_check": spec(
        mechanism=RAPPOR, truth=RAPPOR_TRUTH, n_draws=3, rng=RNG
    ),
    "ldp_helpers.experiments.rappor.privacy_comparison": spec(
        settings=[(0.5, 0.25, 0.75)], h_values=np.array([1, 2]), k=8, rng=RNG
    ),
    "ldp_helpers.experiments.tutorial.rr_estimation_errors": spec(
        rr=RR, true_fraction=0.3, sizes=np.array([100, 1000]), n_draws=3, rng=RNG
    ),
    "ldp_helpers.experiments.tutorial.variance_study": spec(
        oracle_classes={"GRR": GRR, "OUE": OUE},
        epsilons=np.array([0.5, 2.0]),
        d=5,
        true_counts=COUNTS,
        index=0,
        n_draws=3,
        rng=RNG,
    ),
    "ldp_helpers.experiments.tutorial.uniform_variance_per_user": spec(
        oracle_classes={"GRR": GRR, "SUE": SUE},
        epsilon=1.0,
        domain_sizes=np.array([2, 4]),
        users_per_value=10,
        n_draws=3,
        rng=RNG,
        _none_ok={"n_draws", "rng"},
    ),
    "ldp_helpers.experiments.tutorial.oracle_walkthrough": spec(
        oracle=GRR5, value=1, true_counts=COUNTS, rng=RNG, _extra={"value": [-1, 5], "oracle": [RR]}
    ),
    "ldp_helpers.experiments.tutorial.cms_mean_z_scores": spec(
        cms=REGISTRY["cms"].example(), true_counts=COUNTS, n_draws=3, rng=RNG
    ),
    "ldp_helpers.experiments.tutorial.postprocessing_summary": spec(
        oracle=OUE5, true_counts=COUNTS, n_draws=3, rng=RNG
    ),
}

EG = "ldp_helpers.experiments.glance."
MECH = "ldp_helpers.mechanisms."
SPECS.update(
    {
        EG + "error_curve": spec(
            mechanism_cls=Glance, population=POP, epsilons=np.array([1.0, 2.0]), rng=RNG, n_draws=3
        ),
        EG + "mean_error_grid": spec(
            mechanism_cls=Glance,
            epsilon=1.0,
            mu=0.3,
            n_users=np.array([100, 200]),
            n_rounds=np.array([4, 8]),
            rng=RNG,
            n_draws=3,
            with_se=False,
        ),
        EG + "exceedance_probabilities": spec(
            mechanism_cls=Glance,
            population=POP,
            epsilons=np.array([1.0, 2.0]),
            bounds=np.array([0.5, 0.4]),
            rng=RNG,
            n_draws=3,
        ),
        EG + "error_parts_curve": spec(
            population=POP, epsilons=np.array([1.0, 2.0]), rng=RNG, n_draws=3
        ),
        # mechanisms: module functions, constructors and alternate constructors
        MECH + "base.sample_support_counts": spec(
            _huge={"size"},
            true_counts=COUNTS,
            n=60,
            p=0.6,
            q=0.2,
            rng=RNG,
            size=(3, 5),
            _none_ok={"size"},
        ),
        MECH + "base.batch_shape": spec(
            n_draws=3, shape=(5,), _none_ok={"n_draws"}, _free={"shape"}
        ),
        MECH + "continual.Glance": spec(epsilon=1.0, n_rounds=4),
        MECH + "continual.BasicOneTimeRappor": spec(epsilon=1.0, n_rounds=4),
        MECH + "count_mean_sketch.CountMeanSketch": spec(
            epsilon=1.5,
            d=5,
            k=3,
            m=4,
            hash_a=CMS.hash_a,
            hash_b=CMS.hash_b,
            hash_family="universal",
        ),
        MECH + "continual.Glance.sampled_fraction": spec(
            reporters=np.array([4, 5]), reporters_with_one=np.array([1, 5])
        ),
        MECH + "count_mean_sketch.CountMeanSketch.create": spec(
            _huge={"d", "k", "m"}, epsilon=1.5, d=5, k=3, m=4, rng=RNG, hash_family="sha256"
        ),
        MECH + "grr.grr_probabilities": spec(epsilon=1.0, d=5, _extra={"d": [2.5, 1]}),
        MECH + "grr.GRR": spec(epsilon=1.0, d=5),
        MECH + "histogram_encoding.laplace_scale": spec(epsilon=1.0),
        MECH + "histogram_encoding.optimal_threshold": spec(epsilon=1.0),
        MECH + "histogram_encoding.log_density_ratio": spec(
            y=np.array([[0.5, 1.0, 0.0, 0.2, 0.1]]), v=0, v_other=1, epsilon=1.0, d=5
        ),
        MECH + "histogram_encoding.laplace_report_privacy_loss": spec(epsilon=1.0, d=5),
        MECH + "histogram_encoding.SHE": spec(epsilon=1.0, d=5),
        MECH + "histogram_encoding.THE": spec(epsilon=1.0, d=5, theta=0.6, _none_ok={"theta"}),
        MECH + "local_hashing.olh_hash_range": spec(epsilon=1.0),
        MECH + "local_hashing.approx_variance_for_hash_range": spec(epsilon=1.0, g=3.0),
        MECH + "local_hashing.continuous_optimal_hash_range": spec(epsilon=1.0),
        # x may be empty (no words to hash): its refusals are tested in tests/mechanisms/test_local_hashing.py
        MECH + "local_hashing.universal_hash": spec(a=3, b=5, x=np.arange(4), m=2, _free={"x"}),
        MECH + "local_hashing.LocalHashing": spec(epsilon=1.0, d=5, g=3),
        MECH + "local_hashing.BLH": spec(epsilon=1.0, d=5),
        MECH + "local_hashing.OLH": spec(epsilon=1.0, d=5),
        MECH + "m_shot.round_channel_probabilities": spec(
            epsilon_per_round=1.0, share=0.5, dummy_prob=0.3
        ),
        MECH + "m_shot.MShotReporting": spec(epsilon=2.0, n_rounds=4, m=2, dummy_prob=0.3),
        MECH + "m_shot.detection_scores": spec(
            true_fractions=np.array([0.1, 0.5, 0.9]),
            estimates=np.array([[0.2, 0.4, 0.8]]),
            theta=0.3,
        ),
        MECH + "privacy.max_privacy_loss": spec(table=RR.output_table(), atol=1e-12),
        MECH + "privacy.privacy_losses": spec(mechanisms=[GRR5, OUE5]),
        MECH + "randomized_response.BinaryRR": spec(p=0.7, q=0.4),
        MECH + "randomized_response.BinaryRR.from_epsilon": spec(epsilon=1.0),
        MECH + "randomized_response.BinaryRR.warner_two_coin": spec(),
        MECH + "randomized_response.q_bin_probabilities": spec(epsilon=1.0),
        MECH + "randomized_response.q_bin_gap": spec(epsilon=1.0),
        MECH + "randomized_response.two_coin_response": spec(values=np.array([0, 1, 1]), rng=RNG),
        MECH + "rappor.RapporParams": spec(k=8, h=2, m=2, f=0.5, p=0.25, q=0.75),
        MECH + "rappor.prr_bit_loss": spec(f=0.5),
        MECH + "rappor.RapporParams.basic_one_time": spec(k=8, h=2, m=2, p=0.5, q=0.75),
        MECH + "rappor.RapporParams.basic_one_time_at_epsilon": spec(
            epsilon=1.0, k=8, h=2, m=2, p=0.5
        ),
        MECH + "rappor.Rappor": spec(params=PARAMS, blooms=BLOOMS, secret="s", _free={"secret"}),
        MECH + "rappor.Rappor.create": spec(
            _huge={"n_candidates"}, params=PARAMS, n_candidates=4, rng=RNG
        ),
        MECH + "rappor_client.draw_secret": spec(rng=RNG),
        MECH + "rappor_client.hash_index": spec(
            secret="s", cohort=0, candidate=1, hash_number=0, k=8, _free={"secret"}
        ),
        MECH + "rappor_client.bloom_filters": spec(
            _huge={"m", "n_candidates", "h"},
            secret="s",
            m=2,
            n_candidates=4,
            h=2,
            k=8,
            _free={"secret"},
        ),
        MECH + "rappor_client.all_bloom_filters": spec(_huge={"k", "h"}, k=8, h=2),
        MECH + "rappor_client.permanent_randomized_response": spec(
            bits=np.array([[0, 1, 1, 0]]), f=0.5, rng=RNG
        ),
        MECH + "rappor_client.instantaneous_randomized_response": spec(
            bits=np.array([[0, 1, 1, 0]]), p=0.25, q=0.75, rng=RNG
        ),
        MECH + "rappor_client.report_table": spec(blooms=BLOOMS[0], bit_table=PARAMS.bit_table()),
        MECH + "unary_encoding.unary_output_table": spec(_huge={"d"}, p=0.7, q=0.3, d=3),
        MECH + "unary_encoding.unary_loss": spec(p=0.7, q=0.3),
        MECH + "unary_encoding.SUE": spec(epsilon=1.0, d=5),
        MECH + "unary_encoding.OUE": spec(epsilon=1.0, d=5),
        # simulate
        "ldp_helpers.simulate.populations.Population": spec(
            rows=np.array([[0, 1, 1], [1, 0, 0]]), counts=np.array([3, 2])
        ),
        "ldp_helpers.simulate.populations.Population.nested": spec(
            ones_per_round=np.array([3, 10, 0, 7]), n_users=12
        ),
        "ldp_helpers.simulate.populations.RandomActiveSets": spec(
            ones_per_round=np.array([3, 10, 0, 7]), n_users=12
        ),
        "ldp_helpers.simulate.populations.check_stream_truth": spec(
            truth=POP, n_rounds=4, random_sets=False, _none_ok={"n_rounds"}
        ),
        "ldp_helpers.simulate.populations.constant_population": spec(
            _huge={"n_rounds"}, mu=0.3, n_users=100, n_rounds=5
        ),
        "ldp_helpers.simulate.populations.linear_ramp_counts": spec(
            _huge={"n_rounds"}, n_users=100, n_rounds=5, rng=RNG
        ),
        "ldp_helpers.simulate.populations.zipf_weights": spec(
            _huge={"n_candidates"}, n_candidates=10, n_active=5, exponent=1.0
        ),
        "ldp_helpers.simulate.populations.candidate_weights": spec(
            _huge={"n_candidates"},
            shape="exponential",
            n_candidates=10,
            n_active=3,
            s=1.0,
            _extra={"shape": ["pareto"], "n_active": [11], "s": [-1.0]},
        ),
        "ldp_helpers.simulate.populations.cohort_sizes": spec(_huge={"m"}, n_reports=100, m=3),
        "ldp_helpers.simulate.populations.cohort_counts": spec(
            weights=WEIGHTS, n_reports=100, m=2, rng=RNG
        ),
        "ldp_helpers.simulate.populations.flat_counts": spec(_huge={"d"}, n=100, d=5),
        "ldp_helpers.simulate.populations.power_law_counts": spec(
            _huge={"d"}, n=100, d=5, exponent=1.0, exact_total=True, _extra={"n": [2**53 + 1]}
        ),
        "ldp_helpers.simulate.populations.random_baskets": spec(
            _huge={"n_users", "d"},
            n_users=20,
            d=5,
            max_size=3,
            item_weights=np.array([0.4, 0.3, 0.1, 0.1, 0.1]),
            rng=RNG,
        ),
        "ldp_helpers.simulate.streams.sample_reporter_counts": spec(
            _huge={"n_rounds"}, group_sizes=np.array([5, 7]), n_rounds=4, m=2, rng=RNG, n_draws=3
        ),
        "ldp_helpers.simulate.streams.sample_reporters": spec(
            population=POP, m=2, rng=RNG, n_draws=3
        ),
        "ldp_helpers.simulate.streams.reference_report_rounds": spec(
            _huge={"n_users", "n_rounds"}, n_users=20, n_rounds=4, m=2, rng=RNG
        ),
        "ldp_helpers.simulate.datasets.count_trouser_models": spec(
            path="tests/fixtures/clickstream_fabricated.csv", _free={"path"}
        ),
        "ldp_helpers.simulate.datasets.derive_trouser_counts": spec(
            path="tests/fixtures/clickstream_fabricated.csv",
            verify_checksum=False,
            _free={"path"},
            _valid=False,
        ),
        "ldp_helpers.simulate.datasets.write_trouser_counts": spec(_valid=False),
        "ldp_helpers.simulate.datasets.load_trouser_counts": spec(
            path="data/clickstream_trousers_counts.csv", _free={"path"}
        ),
        "ldp_helpers.simulate.survey.tea_survey_standin": spec(),
        "ldp_helpers.simulate.datasets.CategoryCounts": spec(
            labels=("a", "b"), counts=np.array([3, 4]), name="x", _free={"name", "labels"}
        ),
        "ldp_helpers.simulate.survey.SurveyStandIn": spec(
            ratings=np.array([[1, 5], [2, 3]]),
            brands=("a", "b"),
            levels=5,
            label="x",
            _free={"label", "brands"},
        ),
        # pipeline
        "ldp_tools.pipeline.claims.ClaimsTable": spec(
            notebook="00_tutorial", texts="file", _none_ok={"texts"}
        ),
        "ldp_tools.pipeline.decisions.Decision": spec(
            op="le", value=1.0, reference=2.0, tol=0.0, _free={"value", "reference", "tol"}
        ),
        "ldp_tools.pipeline.decisions.Decision.parse": spec(
            text="le 1 2", _free={"text"}, _valid=False
        ),
        "ldp_tools.pipeline.decisions.close": spec(value=1.0, reference=1.1, tol=0.2),
        "ldp_tools.pipeline.decisions.far": spec(value=1.0, reference=1.1, tol=0.05),
        "ldp_tools.pipeline.decisions.le": spec(value=1.0, bound=2.0),
        "ldp_tools.pipeline.decisions.lt": spec(value=1.0, bound=2.0),
        "ldp_tools.pipeline.decisions.ge": spec(value=3.0, bound=2.0),
        "ldp_tools.pipeline.decisions.gt": spec(value=3.0, bound=2.0),
        "ldp_tools.pipeline.decisions.by_text": spec(
            how="read from the paper's Table 2", _free={"how"}
        ),
        "ldp_tools.pipeline.figures.use_style": spec(),
        "ldp_tools.pipeline.profiles.parameters_source": spec(
            parameters={"seed": 3}, _extra={"parameters": [{"a b": 1}, {"seed": object()}]}
        ),
        "ldp_helpers.mechanisms.rappor.BitChannel": spec(
            p=0.75, q=0.5, _extra={"p": [0.25, float("nan")]}
        ),
        "ldp_tools.pipeline.notebook.start_notebook": spec(
            notebook="00_tutorial", save_figures=False
        ),
        "ldp_tools.pipeline.notebook.FigureSaver": spec(notebook="00_tutorial", write=False),
        "ldp_tools.pipeline.claim_texts.fill": spec(
            text="a {{x:.2f}} b",
            values={"x": 1.0},
            where="here",
            _free={"text", "where"},
            _extra={"values": [{}, {"x": "text"}]},
        ),
        "ldp_tools.pipeline.figures.save_figure": spec(
            fig=_fig,
            notebook="00_tutorial",
            name="fig",
            write=True,
            _free={"name"},
            _extra={"name": ["../escape", "a/b", ""]},
        ),
        "ldp_tools.pipeline.paths.check_notebook_stem": spec(notebook="00_tutorial"),
        "ldp_tools.pipeline.plots.plot_tail_bounds": spec(
            _valid=False,
            ax=AX,
            deviation=DELTA,
            bounds={"upper": DELTA},
            exact=DELTA,
            exact_label="exact",
            xlabel="x",
            title="t",
            _free={"exact_label", "xlabel", "title"},
        ),
        "ldp_tools.pipeline.profiles.profile_names": spec(),
        "ldp_tools.pipeline.profiles.notebook_parameters": spec(stem="00_tutorial"),
        "ldp_tools.pipeline.profiles.load_profile": spec(name="smoke"),
        "ldp_tools.pipeline.refresh.refresh": spec(stem="00_tutorial", timeout=60, _valid=False),
        "ldp_tools.pipeline.report.run_times": spec(profile_name="paper"),
        "ldp_tools.pipeline.report.collect_claims": spec(),
        "ldp_tools.pipeline.report.summary_text": spec(collected=[], _valid=False),
        "ldp_tools.pipeline.report.claims_with_verdict": spec(
            collected=[], verdict="reproduced", _valid=False
        ),
        "ldp_tools.pipeline.report.claims_markdown": spec(nb=None, _valid=False),
    }
)


class _HostileClient:
    """A client whose ``sample`` returns something other than n finite reports (issue 27: one row, NaN, text)."""

    def __init__(self, kind):
        self.kind = kind

    def sample(self, value, n, *, rng):
        return {
            "one row": np.zeros((1, 2)),
            "nan": np.full((n, 1), np.nan),
            "text": "reports",
            "3-D": np.zeros((n, 1, 1)),
            "none": None,
        }[self.kind]

    def __repr__(self):
        return f"<client returning {self.kind}>"


class _HangingClient:
    """A client that hangs after a good answer (issue 39 item 2): within a batch after three good reports (a callable
    client, run by BlackBoxClient), or on x₁'s pilot batch after answering x₀'s (a client object).  (A hang in the
    main run's chunks is a ChunkError listing each chunk's ClientError: tests/audit/test_audit.py.)"""

    def __init__(self, where):
        self.where, self.calls = where, 0

    def __call__(self, value):
        self.calls += 1
        if self.calls > 3:
            np.random.seed(
                7
            )  # seeded global state and a sleeping process: all of it must end with the batch
            time.sleep(3600)
        return float(value)

    def sample(self, value, n, *, rng):
        if value == 1:  # x₀'s pilot batch answered, x₁'s hangs
            time.sleep(3600)
        return rng.integers(0, 2, size=(n, 1)).astype(float)

    def __repr__(self):
        return f"<client hanging {self.where}>"


#: clients the auditor must refuse (ClientError, a RuntimeError: refused, never a silently wrong ε_lb); the hanging
#: ones are killed after run_audit's spec'd call_timeout of 2 s
HOSTILE_CLIENTS = [_HostileClient(kind) for kind in ("one row", "nan", "text", "3-D", "none")] + [
    _HangingClient("after three good reports").__call__,
    _HangingClient("after answering x0"),
]


# small examples for the auditor (module-level functions: picklable for the chunked sweeps)
def _rr_client(value):
    return float(value)


def _bound(count0, n0, count1, n1):
    return count0 / n0 - count1 / n1


def _chunk_task(index, seed):
    return index


def _rr_table(k):
    from ldp_helpers.audit.longitudinal import fresh_rr_count_table

    return fresh_rr_count_table(1.0, k)


def _glance_of(k):
    return Glance(1.0, k)


GRR3 = GRR(1.0, 3)
TAXONOMY = Taxonomy((-1, 0, 0, 1, 1, 2, 2))  # root 0; regions 1, 2; leaves 3-6
PILOT0 = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
PILOT1 = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
RR_TABLE = np.array([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
BAD_CONFIDENCE = [0.0, 1.0, -0.5, 1.5]
AU = "ldp_helpers.audit."
PA = "ldp_helpers.experiments.privacy_audit."
PE = "ldp_tools.peers."
PR = "ldp_helpers.protocols."
WHERE = dict(_extra={"n_jobs": [0], "chunk_size": [0, -1], "timeout": [0.0, -1.0]})
SPECS.update(
    {
        # audit.auditor
        AU + "auditor.check_confidence": spec(
            confidence=0.95, _extra={"confidence": BAD_CONFIDENCE}
        ),
        AU + "auditor.clopper_pearson": spec(
            count=3, n=10, confidence=0.95, _extra={"count": [-1, 11], "confidence": BAD_CONFIDENCE}
        ),
        AU + "auditor.epsilon_lower_bound": spec(
            count0=30,
            n0=100,
            count1=10,
            n1=100,
            confidence=0.95,
            _extra={
                "count0": [-1, 101],
                "count1": [-1, 101],
                "n0": [0],
                "n1": [0],
                "confidence": BAD_CONFIDENCE,
            },
        ),
        AU + "clients.MechanismClient": spec(mechanism=GRR3, features=None),
        AU + "clients.BlackBoxClient": spec(client=_rr_client, takes_rng=False, reseed=None),
        AU + "clients.as_client": spec(client=GRR3),
        AU + "clients.check_call_timeout": spec(
            call_timeout=2.0, _extra={"call_timeout": [None, 0.0, -1.0]}
        ),
        AU + "auditor.run_audit": spec(
            client=GRR3,
            x0=0,
            x1=1,
            n_trials=300,
            seed=1,
            confidence=0.9,
            claimed_epsilon=1.0,
            n_pilot=200,
            chunk_size=100,
            n_jobs=1,
            timeout=10.0,
            progress=False,
            event=None,
            backend=None,
            dask_address=None,
            dask_client=None,
            completed=None,
            call_timeout=2.0,
            _free={"x0", "x1"},
            _huge={"n_trials", "n_pilot"},
            _extra={
                "n_trials": [0, -1],
                "n_jobs": [0],
                "chunk_size": [0, -1],
                "timeout": [0.0, -1.0],
                "confidence": BAD_CONFIDENCE,
                "seed": [-1, None],
                "dask_address": ["", "no address"],
                "client": HOSTILE_CLIENTS,
                "call_timeout": [0.0, -1.0],
            },
        ),
        # audit.events
        AU + "events.as_report_matrix": spec(
            reports=np.zeros((4, 2)),
            n=4,
            _extra={"reports": [np.zeros((3, 2)), np.zeros((4, 2, 2))]},
        ),
        AU + "events.Event": spec(
            columns=(0, 1),
            ops=("==", ">"),
            values=(1.0, 0.5),
            _extra={
                "columns": [(0,), (-1, 0), (0.5, 1)],
                "ops": [("==", "<"), ("==",)],
                "values": [(1.0,), (1.0, "a")],
            },
        ),
        AU + "events.choose_event": spec(
            matrix0=PILOT0,
            matrix1=PILOT1,
            confidence=0.9,
            bound=_bound,
            _extra={"matrix1": [np.zeros((4, 3))], "confidence": BAD_CONFIDENCE},
        ),
        # sweeps
        "ldp_helpers.sweeps.chunk_seeds": spec(
            seed=1, n_chunks=3, _huge={"n_chunks"}, _extra={"n_chunks": [0, -1], "seed": [-1]}
        ),
        "ldp_helpers.sweeps.progress_bar": spec(
            items=[1, 2],
            show=False,
            desc="x",
            total=None,
            _free={"items", "desc", "total"},
            _none_ok={"total"},
        ),
        "ldp_helpers.sweeps.check_seed": spec(seed=1, _extra={"seed": [-1, None]}),
        "ldp_helpers.sweeps.backends.check_dask_address": spec(
            address="tcp://127.0.0.1:8786", _extra={"address": ["", "no address"]}
        ),
        "ldp_helpers.sweeps.backends.connect_dask": spec(
            address="tcp://127.0.0.1:1",
            timeout=0.1,
            _valid=False,
            _extra={"address": ["", "no address"], "timeout": [0.0, -1.0]},
        ),
        "ldp_helpers.sweeps.run_chunks": spec(
            task=_chunk_task,
            n_chunks=3,
            seed=1,
            backend="sequential",
            n_jobs=1,
            timeout=10.0,
            completed=None,
            progress=False,
            desc="x",
            dask_address=None,
            dask_client=None,
            _free={"desc"},
            _huge={"n_chunks"},
            _extra={
                "n_chunks": [0, -1],
                "n_jobs": [0],
                "timeout": [0.0, -1.0],
                "seed": [-1],
                "completed": [{5: 1}, {"a": 1}],
                "dask_address": ["", "no address"],
            },
        ),
        # audit.longitudinal
        AU + "longitudinal.fresh_rr_count_table": spec(epsilon=1.0, k=5, _huge={"k"}),
        AU + "longitudinal.memoized_rappor_count_table": spec(
            f=0.5, p=0.25, q=0.75, k=5, _huge={"k"}
        ),
        AU + "longitudinal.averaging_success": spec(
            table=RR_TABLE, _extra={"table": [RR_TABLE[0], np.vstack([RR_TABLE] * 2), -RR_TABLE]}
        ),
        AU + "longitudinal.bayes_success": spec(
            table=RR_TABLE, _extra={"table": [RR_TABLE[0], -RR_TABLE]}
        ),
        AU + "longitudinal.binomial_attack_curve": spec(
            label="x", table_of_k=_rr_table, ks=np.array([1, 2, 4]), _free={"label"}
        ),
        AU + "longitudinal.constant_stream_positives": spec(
            mechanism=GLANCE, v=1, n=20, rng=RNG, per_user=False
        ),
        AU + "longitudinal.simulated_attack_curve": spec(
            label="x",
            make=_glance_of,
            ks=np.array([1, 2]),
            n_draws=50,
            seed=1,
            table_max_k=2,
            n_jobs=1,
            dask_address=None,
            completed=None,
            _free={"label"},
            _finite=False,
            _extra={
                "seed": [-1, None],
                "n_draws": [1],
                "table_max_k": [-1],
                "completed": [{5: 0.0}, [1]],
            },
        ),
        # experiments.privacy_audit (tiny sizes: these drive whole audits)
        PA + "LocalHashSupport": spec(mechanism=OLH(1.0, 4), _extra={"mechanism": [GRR3]}),
        PA + "registry_audits": spec(
            n_trials=300,
            seed=1,
            confidence=0.9,
            n_jobs=1,
            keys=("grr",),
            progress=False,
            dask_address=None,
            _huge={"n_trials"},
            _extra={
                "n_trials": [0, -1],
                "seed": [-1, None],
                "confidence": BAD_CONFIDENCE,
                "keys": ["grr", ("no-such-key",), (3,)],
            },
        ),
        PA + "epsilon_lb_curve": spec(
            key="grr",
            n_grid=np.array([200, 300]),
            seed=1,
            confidence=0.9,
            n_jobs=1,
            progress=False,
            dask_address=None,
            _extra={
                "seed": [-1, None],
                "confidence": BAD_CONFIDENCE,
                "n_grid": [np.array([10**12]), np.array([[100]])],
            },
        ),
        PE + "peer_audits": spec(
            epsilon=1.0,
            d=4,
            n_trials=50,
            seed=1,
            confidence=0.9,
            _valid=False,
            _huge={"n_trials"},
            _extra={
                "d": [1],
                "n_trials": [0, -1],
                "seed": [-1, None],
                "confidence": BAD_CONFIDENCE,
            },
        ),
        PA + "longitudinal_curves": spec(
            ks=np.array([1, 2]),
            epsilon=1.0,
            rappor_f=0.5,
            rappor_p=0.25,
            rappor_q=0.75,
            stream_epsilon=1.0,
            m=2,
            n_draws=20,
            seed=1,
            table_max_k=2,
            n_jobs=1,
            dask_address=None,
            completed=None,
            _finite=False,
            _extra={
                "rappor_f": [-0.1, 1.5],
                "rappor_p": [-0.1, 1.5],
                "rappor_q": [-0.1, 1.5],
                "stream_epsilon": [0.0, -1.0],
                "seed": [-1, None],
                "n_draws": [1, 10**12],
                "table_max_k": [-1],
                "completed": [{(7, 0): 0.0}, [1]],
            },
        ),
        # experiments.peer_audit (the audits themselves run in subprocesses with the peers installed: not run here)
        PE + "reseed_globals": spec(rng=RNG),
        PE + "PureLdpUE": spec(epsilon=1.0, d=4, oue=True, _extra={"d": [1]}),
        PE + "MultiFreqUE": spec(epsilon=1.0, d=4, oue=True, _extra={"d": [1]}),
        PE + "audit_peer": spec(
            peer="pure-ldp-1.1.2",
            epsilon=1.0,
            d=4,
            n_trials=50,
            seed=1,
            confidence=0.9,
            n_jobs=1,
            _valid=False,
            _huge={"n_trials"},
            _extra={
                "d": [1],
                "n_trials": [0],
                "seed": [-1],
                "confidence": BAD_CONFIDENCE,
                "n_jobs": [0],
            },
        ),
        # mechanisms.harmony, bounds.glance.harmony_variance_term
        MECH + "harmony.Harmony": spec(epsilon=1.0, n_rounds=4),
        MECH + "harmony.HarmonyNguyen": spec(epsilon=1.0, n_rounds=4),
        GL + "harmony_variance_term": spec(epsilon=1.0, n_users=100, n_rounds=4),
        # protocols
        PR + "heavy_hitters.split_counts": spec(
            counts=np.array([3, 2, 0, 1]),
            sizes=np.array([3, 3]),
            rng=RNG,
            _extra={"sizes": [np.array([3, 2]), np.array([], dtype=np.int64)]},
        ),
        PR + "heavy_hitters.pem_lengths": spec(
            bits=12, k=5, eta=2, _extra={"bits": [0, 31], "k": [0], "eta": [0]}
        ),
        PR + "heavy_hitters.pem": spec(
            values=np.arange(64),
            bits=6,
            epsilon=1.0,
            k=3,
            eta=2,
            rng=RNG,
            per_user=False,
            _extra={"bits": [0, 31], "k": [0, 65], "values": [np.array([64]), np.array([1])]},
        ),
        PR + "heavy_hitters.treehist": spec(
            values=np.arange(64),
            bits=6,
            epsilon=1.0,
            start_bits=1,
            z=3.0,
            max_candidates=8,
            rng=RNG,
            per_user=False,
            _extra={
                "bits": [0, 31],
                "start_bits": [0, 7],
                "max_candidates": [0],
                "values": [np.array([64])],
            },
        ),
        PR + "heavy_hitters.bitstogram": spec(
            values=np.arange(64),
            bits=6,
            epsilon=1.0,
            k=3,
            n_buckets=8,
            rng=RNG,
            hash_seed=1,
            per_user=False,
            _none_ok={"n_buckets"},
            _extra={"bits": [0, 31], "k": [0], "n_buckets": [0], "values": [np.array([64])]},
        ),
        PR + "heavy_hitters.bucket_of": spec(
            values=np.arange(10),
            n_buckets=4,
            seed=1,
            _free={"values"},
            _extra={"n_buckets": [0], "seed": [-1]},
        ),
        PR + "heavy_hitters.recall": spec(
            found=np.array([0, 2]),
            true_counts=np.array([5, 4, 3]),
            k=2,
            _free={"found"},
            _extra={"k": [0, 4]},
        ),
        PR + "taxonomy.Taxonomy": spec(
            parent=(-1, 0, 0, 1, 1), _extra={"parent": [(-1, -1), (-1, 2, 1), (-1, 7), ()]}
        ),
        PR + "taxonomy.Taxonomy.regular": spec(
            branching=(2, 3), _huge={"branching"}, _extra={"branching": [(0,), ()]}
        ),
        PR + "personalized.pcep_rows": spec(
            n_locations=10, n_users=1000, epsilon=1.0, beta=0.1, _extra={"beta": [0.0, 1.0]}
        ),
        PR + "personalized.PCEP": spec(
            epsilon=1.0,
            n_locations=4,
            m=3,
            matrix_seed=1,
            _huge={"m", "n_locations"},
            _extra={"m": [0], "matrix_seed": [-1]},
        ),
        PR + "personalized.psda_error_bound": spec(
            locations=np.array([3, 4, 5, 6]),
            regions=np.array([1, 1, 0, 2]),
            taxonomy=TAXONOMY,
            epsilon=1.0,
            beta=0.1,
            matrix_seed=0,
            _extra={"regions": [np.array([1, 1])], "beta": [0.0, 1.0], "taxonomy": [None]},
        ),
        PR + "personalized.pldp_loss": spec(
            table=np.array([[0.5, 0.5], [0.7, 0.3], [0.2, 0.8], [0.4, 0.6]]),
            taxonomy=TAXONOMY,
            region=1,
            _extra={"region": [7, -1], "table": [np.eye(2)], "taxonomy": [None]},
        ),
        PR + "personalized.psda_counts": spec(
            locations=np.array([3, 4, 5, 6]),
            regions=np.array([1, 1, 0, 2]),
            taxonomy=TAXONOMY,
            epsilons=1.0,
            beta=0.1,
            rng=RNG,
            matrix_seed=0,
            n_draws=2,
            per_user=False,
            _extra={
                "locations": [np.array([1, 4, 5, 6])],
                "regions": [np.array([2, 1, 0, 2])],
                "beta": [0.0, 1.0],
                "taxonomy": [None],
            },
        ),
        MECH + "grr.amplified_grr_epsilon": spec(epsilon=1.0, ell=3, _extra={"ell": [0, -1]}),
        PR + "set_valued.grr_preferred": spec(
            n_items=10, epsilon=1.0, ell=2, _extra={"n_items": [0], "ell": [0]}
        ),
        PR + "set_valued.grr_threshold": spec(
            epsilon=1.0, ell=2, _finite=False, _extra={"ell": [0]}
        ),  # inf beyond e^709
        PR + "set_valued.pad_and_sample": spec(
            sets=[[0, 1], [2, 3], [1, 4]],
            d=5,
            ell=2,
            rng=RNG,
            _huge={"ell"},
            _extra={"ell": [0], "sets": [[[5]], [[0.5]], [None], ["ab"]]},
        ),
        PR + "set_valued.FlatSets": spec(
            sets=[[0, 1], [2, 1], [0, 2]], d=3, _extra={"sets": [[], [[3]], [[0.5]], [None], "ab"]}
        ),
        PR + "set_valued.flat_population": spec(
            sets=[[0, 1], [2, 1], [0, 2]], d=3, _extra={"sets": [[], [[3]], "ab"]}
        ),
        PR + "itemset_mining.size_correction": spec(
            size_counts=np.array([0.0, 10.0, 5.0]),
            ell=2,
            _extra={"size_counts": [np.array([-1.0, 2.0])], "ell": [0]},
        ),
        PR + "itemset_mining.choose_ell": spec(
            size_counts=np.array([0.0, 10.0, 5.0]),
            percentile=0.9,
            _extra={"percentile": [0.0, 1.5]},
        ),
        PR + "itemset_mining.svim": spec(
            sets=[[0, 1], [2, 1], [0, 2]] * 10,
            d=4,
            epsilon=1.0,
            k=2,
            rng=RNG,
            shares=(0.5, 0.1, 0.4),
            percentile=0.9,
            per_user=False,
            _huge={"d"},
            _extra={"k": [0, 5], "sets": [[], [[5]]], "shares": [(0.5, 0.5)]},
        ),
        PR + "itemset_mining.ldpminer": spec(
            sets=[[0, 1], [2, 1], [0, 2]] * 10,
            d=4,
            epsilon=1.0,
            k=2,
            ell=2,
            rng=RNG,
            per_user=False,
            _huge={"d", "ell"},
            _extra={"k": [0, 5], "ell": [0], "sets": [[], [[5]]]},
        ),
        PR + "itemset_mining.candidate_itemsets": spec(
            item_estimates={0: 5.0, 1: 3.0, 2: 1.0},
            k=2,
            max_size=3,
            _valid=False,
            _extra={"k": [0], "max_size": [1, 7]},
        ),
        PR + "itemset_mining.svsm": spec(
            sets=[[0, 1], [2, 1], [0, 2]] * 20,
            d=4,
            epsilon=1.0,
            k=2,
            rng=RNG,
            max_size=3,
            percentile=0.9,
            per_user=False,
            _huge={"d"},
            _valid=False,
            _extra={"k": [0], "sets": [[], [[5]]], "max_size": [1]},
        ),
        PR + "itemset_mining.itemset_counts": spec(
            sets=[[0, 1], [2, 1], [0, 2]],
            d=3,
            itemsets=[(0, 1), (1, 2)],
            _extra={"itemsets": [[], [(0, 5)]], "sets": [[], [[5]]]},
        ),
        "ldp_helpers.experiments.tutorial_protocols.itemset_mining_precision": spec(
            baskets=[[0, 1], [2, 1], [0, 2]] * 20,
            d=4,
            k=2,
            epsilons=np.array([1.0]),
            n_draws=2,
            rng=RNG,
            pool_items=3,
            max_size=3,
            progress=False,
            _valid=False,
            _extra={"epsilons": [np.array([0.0])], "pool_items": [1, 25]},
        ),
        PR + "itemset_mining.top_k_precision": spec(
            found=np.array([0, 2]),
            true_counts=np.array([5, 4, 3]),
            k=2,
            _free={"found"},
            _extra={"k": [0, 4]},
        ),
        PR + "itemset_mining.ncr": spec(
            found=np.array([0, 2]),
            true_counts=np.array([5, 4, 3]),
            k=2,
            _free={"found"},
            _extra={"k": [0, 4]},
        ),
        "ldp_helpers.simulate.itemsets.zipf_baskets": spec(
            n_users=20,
            d=8,
            exponent=1.1,
            mean_size=2.0,
            rng=RNG,
            _huge={"n_users"},
            _extra={"mean_size": [0.5, 9.0]},
        ),
        "ldp_helpers.simulate.itemsets.item_counts": spec(
            baskets=[[0, 1], [2, 1]], d=3, _extra={"baskets": [[], [[3]]]}
        ),
        "ldp_helpers.experiments.tutorial_protocols.zipf_values": spec(
            n_users=100, bits=6, exponent=1.2, rng=RNG, _huge={"n_users"}, _extra={"bits": [0, 21]}
        ),
        "ldp_helpers.experiments.tutorial_protocols.heavy_hitter_recall": spec(
            values=np.arange(64),
            bits=6,
            k=2,
            epsilons=np.array([1.0, 2.0]),
            n_draws=2,
            rng=RNG,
            progress=False,
            _free={"values"},
            _valid=False,
            _extra={"epsilons": [np.array([0.0])], "n_draws": [0]},
        ),
        "ldp_helpers.experiments.tutorial_protocols.itemset_precision": spec(
            baskets=[[0, 1], [2, 1], [0, 2]] * 10,
            d=4,
            k=2,
            epsilons=np.array([1.0]),
            ldpminer_ell=2,
            n_draws=2,
            rng=RNG,
            progress=False,
            _valid=False,
            _extra={"epsilons": [np.array([0.0])], "n_draws": [0]},
        ),
        "ldp_helpers.experiments.tutorial_protocols.psda_error_curves": spec(
            taxonomy=TAXONOMY,
            locations=np.array([3, 4, 5, 6]),
            regions=np.array([1, 1, 0, 2]),
            epsilon=1.0,
            betas=np.array([0.1]),
            n_draws=2,
            rng=RNG,
            progress=False,
            _valid=False,
            _extra={"betas": [np.array([0.0]), np.array([1.5])], "n_draws": [0]},
        ),
        PR + "set_valued.PSFO": spec(
            epsilon=1.0,
            d=4,
            ell=2,
            protocol="GRR",
            _huge={"d", "ell"},
            _extra={"ell": [0, -1], "protocol": ["RAPPOR"]},
        ),
    }
)

#: frozen records the library builds and returns: results, not an input boundary
RECORDS = {
    "ldp_helpers.bounds.chernoff.TailCheck",
    "ldp_helpers.bounds.rappor.ExpectedDetection",
    "ldp_helpers.estimation.rappor_decoding.Decoding",
    "ldp_helpers.experiments.grr_vs_oue.PerturbedExample",
    "ldp_helpers.experiments.grr_vs_oue.ReversalReadings",
    "ldp_helpers.experiments.common.EstimatorCheck",
    "ldp_helpers.experiments.m_shot.PeakWindow",
    "ldp_helpers.experiments.rappor.DecodedSurvey",
    "ldp_helpers.mechanisms.m_shot.DetectionScores",
    "ldp_helpers.mechanisms.count_mean_sketch.CmsReports",
    "ldp_helpers.mechanisms.rappor.RapporReports",
    "ldp_helpers.mechanisms.registry.RegistryEntry",
    "ldp_tools.pipeline.claim_rows.Claim",
    "ldp_tools.pipeline.report.NotebookClaims",
    "ldp_tools.pipeline.claim_texts.ClaimText",
    "ldp_tools.pipeline.reproduce.RunResult",
    "ldp_helpers.audit.auditor.AuditResult",
    "ldp_helpers.audit.longitudinal.AttackCurve",
    "ldp_helpers.sweeps.ChunkFailure",
    "ldp_helpers.experiments.privacy_audit.MechanismAudit",
    "ldp_helpers.experiments.tutorial.Walkthrough",
    "ldp_helpers.protocols.itemset_mining.MiningResult",
    "ldp_helpers.protocols.itemset_mining.ItemsetResult",
    "ldp_helpers.protocols.heavy_hitters.HeavyHitters",
    "ldp_helpers.experiments.tutorial_protocols.Curve",
    # exceptions the library raises (never an input boundary)
    "ldp_helpers.audit.clients.ClientError",
    "ldp_helpers.sweeps.ChunkError",
}
#: abstract bases (not constructible); their constructors' checks run through every REGISTRY entry
ABSTRACT = {
    "ldp_helpers.mechanisms.base.Mechanism",
    "ldp_helpers.mechanisms.base.FrequencyOracle",
    "ldp_helpers.mechanisms.base.PureFrequencyOracle",
    "ldp_helpers.mechanisms.continual.StreamMechanism",
    "ldp_helpers.mechanisms.unary_encoding.UnaryEncoding",
}
#: command-line entry points (argv), probed by test_pipeline_safety.py
CLI = {
    "ldp_tools.pipeline.refresh.main",
    "ldp_tools.pipeline.reproduce.main",
    "ldp_tools.pipeline.report.main",
    "ldp_helpers.simulate.datasets.main",
    "ldp_tools.peers.main",
}
#: being built in this session by other issues; the integrator moves each into SPECS and empties this
PENDING: dict[str, str] = {}


# Per-paper specs (e.g. the figure functions of ldp_tools/pipeline/plots/<key>.py) live in their own
# files, tests/contract/specs_<key>.py, each defining SPECS (and optionally RECORDS), merged here.
def _merge_per_paper_specs() -> None:
    import importlib
    from pathlib import Path

    for path in sorted(Path(__file__).parent.glob("specs_*.py")):
        module = importlib.import_module(f"{__package__}.{path.stem}")
        clash = set(module.SPECS) & set(SPECS)
        assert not clash, f"{path.name} specifies names already specified: {sorted(clash)}"
        SPECS.update(module.SPECS)
        RECORDS.update(getattr(module, "RECORDS", set()))


_merge_per_paper_specs()
