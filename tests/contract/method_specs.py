"""One spec per public instance method: a factory for a valid instance, and the method's valid call.

``METHOD_SPECS["ldp_helpers.module.Class.method"] = MethodSpec(make, spec)``: ``make()`` builds a
fresh valid instance (each call gets its own, so stateful objects such as a ``ClaimsTable`` start
empty), ``spec`` is a :class:`~tests.contract.specs.Spec` of the method's keyword arguments, probed
exactly as a function's (``free``, ``extra_bad``, ``none_ok``, ``huge``, ``valid``, ``finite``).
Properties take no input and are not listed; neither are the mechanisms' contract methods
(``perturb``, ``aggregate``, ``sample_aggregate``, ``estimate``, ``variance``, … of
:class:`~ldp_helpers.mechanisms.base.Mechanism`), which ``test_registry_contract.py`` probes over
``ALL_MECHANISMS``.  A mechanism's *other* public methods (``detect``, ``hash_values``, …) are here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ldp_helpers.audit.auditor import BlackBoxClient, MechanismClient
from ldp_helpers.audit.events import Event
from ldp_helpers.experiments.grr_vs_oue import ReversalReadings
from ldp_helpers.experiments.tutorial_protocols import Curve
from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.mechanisms.dbitflip import DBitFlip
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.histogram_encoding import SHE
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.mechanisms.rappor import RapporParams
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.mechanisms.telemetry import OneBitMean
from ldp_helpers.protocols.personalized import PCEP
from ldp_helpers.protocols.registry import PROTOCOL_REGISTRY
from ldp_helpers.protocols.taxonomy import Taxonomy
from ldp_helpers.simulate.datasets import CategoryCounts
from ldp_helpers.simulate.populations import Population, RandomActiveSets
from ldp_helpers.simulate.survey import SurveyStandIn
from ldp_tools.pipeline import paths
from ldp_tools.pipeline.claim_texts import ClaimText
from ldp_tools.pipeline.claims import ClaimsTable, _read_claims_csv
from ldp_tools.pipeline.decisions import lt
from ldp_tools.pipeline.report import NotebookClaims

from .specs import RNG, Spec, spec


@dataclass(frozen=True)
class MethodSpec:
    make: Callable[[], object]
    spec: Spec


def method(make, **kwargs) -> MethodSpec:
    return MethodSpec(make, spec(**kwargs))


def _claims_table():
    return ClaimsTable("00_tutorial", texts=None)  # the long form (words in the call)


def _short_claims_table():
    entry = ClaimText(key="a", id="00-01", claim="c {{x}}", source="§1", paper="p", ours="o")
    return ClaimsTable("00_tutorial", texts={"a": entry})


def _one_claim():
    table = _claims_table()
    table.check("c", "§1", 0.5, 0.5)
    return table


def _notebook_claims():
    rows = tuple(_read_claims_csv(paths.REPO_ROOT / "figures" / "00_tutorial" / "claims.csv"))
    return NotebookClaims("00_tutorial", "Tutorial", rows)


TEXT = dict(
    claim="c",
    source="§1",
    _free={
        "claim",
        "source",
        "paper_value",
        "our_value",
        "id",
        "tolerance",
        "depends_on",
        "paper_says",
        "our_finding",
    },
)
SEVERITY = {"severity": ["no-such-severity"]}
MINOR = "typo"
MSHOT = MShotReporting(2.0, 4, 2, 0.3)
MSHOT_TRUTH = Population.nested(np.array([3, 10, 0, 7]), 12)
MSHOT_AGG = MSHOT.sample_aggregate(MSHOT_TRUTH, rng=np.random.default_rng(0))
MSHOT_WHO = MSHOT.sample_who_reports(MSHOT_TRUTH, rng=np.random.default_rng(0), n_draws=2)
RAPPOR = REGISTRY["rappor"].example()
RAPPOR_TRUTH = REGISTRY["rappor"].example_truth(RAPPOR)
CURVE = Curve(np.array([0.4, 0.5]), np.array([0.01, 0.01]))
M, P, A, S, C = (
    "ldp_helpers.mechanisms.",
    "ldp_tools.pipeline.",
    "ldp_helpers.audit.",
    "ldp_helpers.simulate.",
    "ldp_helpers.protocols.",
)

METHOD_SPECS: dict[str, MethodSpec] = {
    # audit
    A + "clients.MechanismClient.sample": method(
        lambda: MechanismClient(GRR(1.0, 3)),
        value=1,
        n=20,
        rng=RNG,
        _huge={"n"},
        _extra={"value": [3, -1, 0.5]},
    ),
    A + "clients.BlackBoxClient.sample": method(
        lambda: BlackBoxClient(float), value=1, n=20, rng=RNG, _free={"value"}, _huge={"n"}
    ),
    A + "events.Event.mask": method(
        lambda: Event((0, 1), ("==", ">"), (1.0, 0.5)),
        matrix=np.eye(3),
        _extra={"matrix": [np.zeros(3), np.zeros((3, 1))]},
    ),
    A + "events.Event.count": method(
        lambda: Event((0, 1), ("==", ">"), (1.0, 0.5)),
        matrix=np.eye(3),
        _extra={"matrix": [np.zeros(3), np.zeros((3, 1))]},
    ),
    # experiments
    "ldp_helpers.experiments.grr_vs_oue.ReversalReadings.gap_se": method(
        lambda: ReversalReadings(
            np.array([0.5]), {"a": np.array([0.5]), "b": np.array([0.2])}, {"a": 10, "b": 50}
        ),
        first="a",
        second="b",
    ),
    "ldp_helpers.experiments.tutorial_protocols.Curve.margin": method(
        lambda: Curve(np.array([0.5, 0.6]), np.array([0.01, 0.02])),
        other=CURVE,
        _extra={"other": [Curve(np.array([0.5]), np.array([0.01]))]},
    ),
    # mechanisms: records and the mechanisms' own helpers (beyond the contract methods)
    M + "rappor.RapporParams.prr_only": method(
        lambda: RapporParams(k=8, h=2, m=2, f=0.5, p=0.25, q=0.75)
    ),
    M + "rappor.RapporParams.bit_table": method(
        lambda: RapporParams(k=8, h=2, m=2, f=0.5, p=0.25, q=0.75)
    ),
    M + "rappor.RapporParams.prr_bit_table": method(
        lambda: RapporParams(k=8, h=2, m=2, f=0.5, p=0.25, q=0.75)
    ),
    M + "rappor.Rappor.check_truth": method(
        lambda: RAPPOR,
        truth=RAPPOR_TRUTH,
        _extra={"truth": [RAPPOR_TRUTH[:1], np.zeros_like(RAPPOR_TRUTH)]},
    ),
    M + "continual.Glance.rr_variance": method(
        lambda: Glance(1.5, 4), n_reporters=np.array([5, 7])
    ),
    M + "continual.Glance.empty_round_probability": method(lambda: Glance(1.5, 4), n_users=10),
    M + "count_mean_sketch.CountMeanSketch.hash_table": method(lambda: REGISTRY["cms"].example()),
    M + "count_mean_sketch.CountMeanSketch.collision_rates": method(
        lambda: REGISTRY["cms"].example()
    ),
    M + "count_mean_sketch.CountMeanSketch.uniform_hash_bias_sq": method(
        lambda: REGISTRY["cms"].example(),
        true_counts=np.array([30, 10, 5, 0, 15], dtype=np.int64),
        _extra={"true_counts": [np.array([30, 10, 5, 0])]},
    ),
    # the field's oracles (issue 29, part A)
    M + "fast_local_hashing.FastLocalHashing.hash_table": method(lambda: REGISTRY["flh"].example()),
    # issue 29 part B: the sketches' and SFP's own helpers (beyond the contract methods)
    M + "count_sketch.PrivateCountSketch.hash_table": method(lambda: REGISTRY["pcs"].example()),
    M + "hashtogram.Hashtogram.hash_table": method(lambda: REGISTRY["hashtogram"].example()),
    M + "hashtogram.Hashtogram.estimate_median": method(
        lambda: REGISTRY["hashtogram"].example(),
        aggregate=np.zeros((2, 4)),
        n=10,
        _extra={"aggregate": [np.zeros((3, 4)), np.zeros(4)]},
    ),
    M + "sketch_response.SketchResponse.hash_table": method(
        lambda: REGISTRY["sketch_response"].example()
    ),
    "ldp_helpers.protocols.sfp.SequenceFragmentPuzzle.puzzle_hash": method(
        lambda: PROTOCOL_REGISTRY["sfp"].example(),
        values=np.array([0, 15]),
        _extra={"values": [np.array([16])]},
    ),
    "ldp_helpers.protocols.sfp.SequenceFragmentPuzzle.records": method(
        lambda: PROTOCOL_REGISTRY["sfp"].example(),
        values=np.array([0, 15]),
        _extra={"values": [np.array([16])]},
    ),
    M + "histogram_encoding.SHE.log_density_ratio": method(
        lambda: SHE(1.0, 5),
        y=np.array([[0.5, 1.0, 0.0, 0.2, 0.1]]),
        v=0,
        v_other=1,
        _extra={"v": [5, -1], "v_other": [5, -1], "y": [np.zeros((1, 4))]},
    ),
    M + "local_hashing.LocalHashing.hash_values": method(
        lambda: OLH(1.0, 5),
        a=np.array([3, 5]),
        b=np.array([1, 2]),
        x=np.array([0, 4]),
        _extra={"x": [np.array([5])]},
    ),
    M + "m_shot.MShotReporting.sample_who_reports": method(
        lambda: MSHOT, truth=MSHOT_TRUTH, rng=RNG, n_draws=2, _huge={"n_draws"}
    ),
    M + "m_shot.MShotReporting.sample_given_reporters": method(
        lambda: MSHOT,
        truth=MSHOT_TRUTH,
        reporters=MSHOT_WHO[0],
        active=MSHOT_WHO[1],
        rng=RNG,
        _extra={
            "reporters": [MSHOT_WHO[0][:, :3], MSHOT_WHO[0] + 13],
            "active": [MSHOT_WHO[0] + 1, MSHOT_WHO[1][:1]],
        },
    ),
    M + "m_shot.MShotReporting.detect": method(
        lambda: MSHOT, aggregate=MSHOT_AGG, n=12, theta=0.3, _extra={"theta": [1.5, -0.1]}
    ),
    M + "randomized_response.BinaryRR.estimate_fraction": method(
        lambda: BinaryRR.from_epsilon(1.0),
        count_of_ones=40.0,
        n=100,
        _extra={"count_of_ones": [-1.0, 101.0]},
    ),
    M + "randomized_response.BinaryRR.fraction_variance": method(
        lambda: BinaryRR.from_epsilon(1.0),
        true_fraction=0.3,
        n=100,
        _extra={"true_fraction": [1.5, -0.1]},
    ),
    # issue 29, part C (one block): Microsoft's telemetry (the longitudinal oracles' helpers live on a shared
    # private base and are probed in tests/mechanisms/test_longitudinal.py)
    M + "dbitflip.DBitFlip.sample_buckets": method(
        lambda: DBitFlip(1.5, 5, 2), n_users=20, rng=RNG, _huge={"n_users"}
    ),
    M + "dbitflip.DBitFlip.perturb_rounds": method(
        lambda: DBitFlip(1.5, 5, 2),
        values=np.array([[0, 1, 0], [4, 4, 4]]),
        rng=RNG,
        _extra={"values": [np.array([0, 1]), np.array([[5, 0]])]},
    ),
    M + "dbitflip.DBitFlip.memoized_history_table": method(
        lambda: DBitFlip(1.5, 4, 1),
        histories=np.array([[0, 1], [2, 2]]),
        _extra={"histories": [np.array([0, 1]), np.zeros((1, 9), int)]},
    ),
    M + "telemetry.OneBitMean.one_probability": method(
        lambda: OneBitMean(1.0, 8),
        x=np.array([0, 4, 8]),
        _extra={"x": [np.array([9]), np.array([0.5])]},
    ),
    M + "telemetry.OneBitMean.error_bound": method(lambda: OneBitMean(1.0, 8), n=1000, beta=0.05),
    M + "telemetry.OneBitMean.perturb_rounds": method(
        lambda: OneBitMean(1.0, 8),
        values=np.array([[5, 5, 6], [0, 8, 3]]),
        step=4,
        rng=RNG,
        _extra={"step": [3, 9], "values": [np.array([1, 2])]},
    ),
    M + "telemetry.OneBitMean.memoized_history_table": method(
        lambda: OneBitMean(1.0, 8),
        histories=np.array([[5, 5], [0, 8]]),
        step=4,
        _extra={"step": [3], "histories": [np.zeros((1, 13), int)]},
    ),
    # pipeline (each call gets a fresh, empty table)
    P + "claims.ClaimsTable.check": method(
        _claims_table,
        paper_value=0.5,
        our_value=0.5,
        rtol=0.0,
        atol=0.01,
        se=None,
        id=None,
        tolerance="",
        depends_on="",
        **TEXT,
        _none_ok={"se", "id"},
        _extra={"rtol": [-1.0], "atol": [-1.0], "se": [-1.0]},
    ),
    P + "claims.ClaimsTable.statement": method(
        _short_claims_table,
        name="a",
        decision=lt(1.0, 2.0),
        x=1,
        _free={"x"},
        _extra={"name": ["b", 3]},
    ),
    P + "claim_texts.ClaimText.fill": method(
        lambda: _short_claims_table().texts["a"],
        field="claim",
        values={"x": 1},
        _free={"field"},
        _extra={"values": [{}, 3]},
    ),
    P + "claims.ClaimsTable.check_statement": method(
        _claims_table,
        paper_says="a",
        decision=lt(1.0, 2.0),
        our_finding="b",
        id=None,
        tolerance="",
        depends_on="",
        **TEXT,
    ),
    P + "claims.ClaimsTable.erratum": method(
        _claims_table,
        paper_value=0.5,
        our_value=0.7,
        severity=MINOR,
        rtol=0.0,
        atol=0.01,
        id=None,
        tolerance="",
        depends_on="",
        **TEXT,
        _extra={**SEVERITY, "rtol": [-1.0], "atol": [-1.0]},
    ),
    P + "claims.ClaimsTable.erratum_if": method(
        _claims_table,
        decision=lt(1.0, 2.0),
        paper_value=0.5,
        our_value=0.7,
        severity=MINOR,
        id=None,
        tolerance="",
        depends_on="",
        **TEXT,
        _extra=SEVERITY,
    ),
    P + "claims.ClaimsTable.ambiguous_if": method(
        _claims_table,
        decision=lt(1.0, 2.0),
        paper_value=0.5,
        our_value=0.7,
        id=None,
        tolerance="",
        depends_on="",
        **TEXT,
    ),
    P + "claim_rows.Claim.summary": method(lambda: _one_claim().rows[0]),
    P + "claims.ClaimsTable.counts": method(_claims_table),
    P + "claims.ClaimsTable.missing": method(_claims_table),
    P + "claims.ClaimsTable.severity_counts": method(_claims_table),
    P + "claims.ClaimsTable.to_csv": method(_claims_table),
    P + "claims.ClaimsTable.write_csv": method(_one_claim, write=False),
    P + "report.NotebookClaims.count": method(
        _notebook_claims, verdict="reproduced", _extra={"verdict": ["x"]}
    ),
    P + "report.NotebookClaims.errors": method(_notebook_claims, severity=MINOR, _extra=SEVERITY),
    # issue 26: the robustness pass
    P + "report.NotebookClaims.reseeded": method(_notebook_claims),
    # protocols (records of the personalized protocol; the mechanisms' contract methods: test_registry_contract.py)
    C + "taxonomy.Taxonomy.check_node": method(
        lambda: Taxonomy((-1, 0, 0, 1, 1)),
        name="node",
        node=1,
        _free={"name"},
        _extra={"node": [5, -1]},
    ),
    C + "taxonomy.Taxonomy.leaves_under": method(
        lambda: Taxonomy((-1, 0, 0, 1, 1)), node=1, _extra={"node": [5]}
    ),
    C + "personalized.PCEP.gram": method(lambda: PCEP(1.0, 4, 3, 1)),
    # simulate
    S + "datasets.CategoryCounts.frequencies": method(
        lambda: CategoryCounts(("a", "b"), np.array([3, 4]), "x")
    ),
    S + "datasets.CategoryCounts.records": method(
        lambda: CategoryCounts(("a", "b"), np.array([3, 4]), "x")
    ),
    S + "survey.SurveyStandIn.rating_counts": method(
        lambda: SurveyStandIn(np.array([[1, 5], [2, 3]]), ("a", "b"), 5, "x")
    ),
    S + "survey.SurveyStandIn.rating_counts_by_brand": method(
        lambda: SurveyStandIn(np.array([[1, 5], [2, 3]]), ("a", "b"), 5, "x")
    ),
    S + "populations.Population.ones_per_round": method(
        lambda: Population.nested(np.array([3, 10, 0, 7]), 12)
    ),
    S + "populations.Population.fractions": method(
        lambda: Population.nested(np.array([3, 10, 0, 7]), 12)
    ),
    S + "populations.Population.to_matrix": method(
        lambda: Population.nested(np.array([3, 10, 0, 7]), 12)
    ),
    S + "populations.RandomActiveSets.fractions": method(
        lambda: RandomActiveSets(np.array([3, 10, 0, 7]), 12)
    ),
    S + "populations.RandomActiveSets.draw_matrix": method(
        lambda: RandomActiveSets(np.array([3, 10, 0, 7]), 12), rng=RNG
    ),
    "ldp_helpers.bounds.shuffle.ShuffleProfile.delta": method(
        lambda: _shuffle_profile(), epsilon=0.5, _free={"epsilon"}
    ),
    "ldp_helpers.bounds.shuffle.ShuffleProfile.epsilon": method(
        lambda: _shuffle_profile(), delta=1e-3
    ),
    "ldp_helpers.audit.shuffle.ShuffledGRRClient.sample": method(
        lambda: _shuffled_client(), value=1, n=5, rng=RNG
    ),
}


def _shuffle_profile():
    from ldp_helpers.bounds.shuffle import binary_rr_profile

    return binary_rr_profile(50, 1.0)


def _shuffled_client():
    from ldp_helpers.audit.shuffle import ShuffledGRRClient

    return ShuffledGRRClient(n=10, epsilon0=1.0, k=3)
