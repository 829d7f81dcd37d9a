"""The registry of every mechanism: one entry per mechanism, each with a small example and its truth.

Adding a mechanism is one entry here; ``tests/mechanisms/test_conformance.py`` then checks it against the
contract of :class:`~ldp_helpers.mechanisms.base.Mechanism` (exact whole-report ε, sampler vs
per-user law, unbiasedness and exact variance).  The explorer and the book enumerate
:data:`REGISTRY` rather than special-casing mechanisms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# issue 29, part C: longitudinal, Microsoft's telemetry, ADP, multidimensional collection
from ldp_helpers.mechanisms.adaptive import ADP
from ldp_helpers.mechanisms.base import Mechanism
from ldp_helpers.mechanisms.continual import BasicOneTimeRappor, Glance
from ldp_helpers.mechanisms.count_mean_sketch import CountMeanSketch
from ldp_helpers.mechanisms.count_sketch import PrivateCountSketch
from ldp_helpers.mechanisms.dbitflip import DBitFlip
from ldp_helpers.mechanisms.duchi_mean import DuchiMean
from ldp_helpers.mechanisms.fast_local_hashing import FastLocalHashing
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.hadamard_mechanism import HadamardMechanism
from ldp_helpers.mechanisms.hadamard_response import HadamardResponse
from ldp_helpers.mechanisms.hadamard_sketch import HadamardCountMeanSketch
from ldp_helpers.mechanisms.harmony import Harmony, HarmonyNguyen
from ldp_helpers.mechanisms.hashtogram import Hashtogram
from ldp_helpers.mechanisms.histogram_encoding import SHE, THE
from ldp_helpers.mechanisms.local_hashing import BLH, OLH
from ldp_helpers.mechanisms.longitudinal import LGRR, LOSUE, LOUE, LSOUE, LSUE
from ldp_helpers.mechanisms.m_shot import MShotReporting
from ldp_helpers.mechanisms.multidimensional import SPL
from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.mechanisms.rs_fd import RSFD
from ldp_helpers.mechanisms.sketch_response import SketchResponse
from ldp_helpers.mechanisms.smp import SMP
from ldp_helpers.mechanisms.subset_selection import SubsetSelection
from ldp_helpers.mechanisms.telemetry import OneBitMean
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE
from ldp_helpers.simulate.populations import Population

_EXAMPLE_SEED = 20261122  # keys the example CMS hashes and RAPPOR secret (fixed examples)


@dataclass(frozen=True)
class RegistryEntry:
    """One registered mechanism.

    Attributes
    ----------
    key : str
        Short name (``"grr"``), the registry's key.
    label : str
        Display name (``"GRR"``).
    family : str
        ``"frequency oracle"``, ``"binary"``, ``"sketch"``, ``"rappor"``, ``"stream"``, ``"longitudinal"``
        (memoized frequency oracles: their ``epsilon`` is one report's, ``epsilon_permanent`` all reports'),
        ``"mean"`` (Duchi et al.'s mean of values in [−r, r], truth: the users' values; 1BitMean's counter
        mean, truth: users per counter value) or ``"multidimensional"`` (tuples of
        attributes; truth: the joint table of counts).
    reference : str
        Where the mechanism is defined, in the collection's citation style.
    example : callable
        ``example() -> Mechanism``: a small instance (its output table is cheap).
    example_truth : callable
        ``example_truth(mechanism) -> truth``: a small population for that instance.
    """

    key: str
    label: str
    family: str
    reference: str
    example: Callable[[], Mechanism]
    example_truth: Callable[[Mechanism], object]


def _oracle(cls, epsilon: float = 1.2, d: int = 5):
    return lambda: cls(epsilon, d)


def _counts(mechanism) -> np.ndarray:
    return np.array([30, 10, 5, 0, 15], dtype=np.int64)[: mechanism.d]


def _sketch(cls, *args, **kwargs) -> Callable[[], Mechanism]:
    """A sketch at ε = 1.5 over d = 5 whose hashes are keyed by the example seed."""
    return lambda: cls.create(1.5, 5, *args, rng=np.random.default_rng(_EXAMPLE_SEED), **kwargs)


def _rappor(f: float) -> Callable[[], Rappor]:
    def build():
        params = RapporParams(k=8, h=2, m=2, f=f, p=0.25, q=0.75)
        return Rappor.create(params, n_candidates=4, rng=np.random.default_rng(_EXAMPLE_SEED))

    return build


def _rappor_truth(mechanism) -> np.ndarray:
    return np.array([[12, 5, 0, 3], [2, 9, 4, 0]], dtype=np.int64)


def _joint_truth(mechanism) -> np.ndarray:
    # users per (attribute 1, attribute 2) tuple
    return np.array([[12, 3], [0, 7], [5, 9]], dtype=np.int64)


def _stream_truth(mechanism) -> Population:
    return Population.nested(np.array([3, 10, 0, 7])[: mechanism.n_rounds], 12)


def _field_counts(mechanism) -> np.ndarray:
    return np.array([30, 10, 5, 0, 15, 7, 3, 9], dtype=np.int64)[: mechanism.d]


def _flh() -> FastLocalHashing:
    return FastLocalHashing.create(1.2, 5, 8, rng=np.random.default_rng(_EXAMPLE_SEED))


def _mean_truth(mechanism) -> np.ndarray:
    return mechanism.radius * np.array(
        [-1.0, -0.5, 0.0, 0.25, 0.25, 1.0, 1.0, 0.8, 0.8, 0.8, -0.3, 0.6]
    )


_ENTRIES = [
    RegistryEntry(
        "binary_rr",
        "Binary RR (Q_Bin)",
        "binary",
        "[tutorial] Randomized response; [warner1965]",
        lambda: BinaryRR.from_epsilon(1.1),
        lambda m: np.array([40, 20], dtype=np.int64),
    ),
    RegistryEntry("grr", "GRR (DE)", "frequency oracle", "[wang2017] §4.1", _oracle(GRR), _counts),
    RegistryEntry("sue", "SUE", "frequency oracle", "[wang2017] §4.2", _oracle(SUE), _counts),
    RegistryEntry(
        "oue", "OUE", "frequency oracle", "[wang2017] §4.2, Eq. (5)", _oracle(OUE), _counts
    ),
    RegistryEntry("she", "SHE", "frequency oracle", "[wang2017] §4.3", _oracle(SHE), _counts),
    RegistryEntry("the", "THE", "frequency oracle", "[wang2017] §4.3", _oracle(THE), _counts),
    RegistryEntry("blh", "BLH", "frequency oracle", "[wang2017] §4.4", _oracle(BLH, d=3), _counts),
    RegistryEntry(
        "olh", "OLH", "frequency oracle", "[wang2017] §4.4", _oracle(OLH, epsilon=0.9, d=3), _counts
    ),
    # the field's oracles (issue 29, part A): SS, HR, HM, FLH, and Duchi et al.'s mean
    RegistryEntry(
        "ss",
        "Subset selection (k-SS)",
        "frequency oracle",
        "[wang2016ss]; [ye2018]",
        lambda: SubsetSelection(1.0, 8),
        _field_counts,
    ),
    RegistryEntry(
        "hr",
        "Hadamard response (HR)",
        "frequency oracle",
        "[acharya2019]",
        lambda: HadamardResponse(1.2, 5),
        _field_counts,
    ),
    RegistryEntry(
        "hm",
        "Hadamard mechanism (HM)",
        "frequency oracle",
        "[cormode2021]",
        lambda: HadamardMechanism(2.5, 5),
        _field_counts,
    ),
    RegistryEntry(
        "flh", "Fast local hashing (FLH)", "frequency oracle", "[cormode2021]", _flh, _field_counts
    ),
    RegistryEntry(
        "duchi_mean",
        "Duchi et al.'s ±B mean",
        "mean",
        "[duchi2018]; [duchi2013]",
        lambda: DuchiMean(1.0),
        _mean_truth,
    ),
    RegistryEntry(
        "cms",
        "Count-mean sketch",
        "sketch",
        "[apple2017] Algorithms 1–3",
        _sketch(CountMeanSketch, 3, 4),
        _counts,
    ),
    # issue 29 (sketches): Apple's HCMS, Bassily et al.'s Hashtogram, pure-ldp's private count sketch and sketch response
    RegistryEntry(
        "hcms",
        "Hadamard count-mean sketch (HCMS)",
        "sketch",
        "[apple2017] Algorithms 4–5",
        _sketch(HadamardCountMeanSketch, 3, 4),
        _counts,
    ),
    RegistryEntry(
        "hashtogram",
        "Hashtogram",
        "sketch",
        "[bassily2017] (Hashtogram)",
        _sketch(Hashtogram, 2, 4),
        _counts,
    ),
    RegistryEntry(
        "pcs",
        "Private count sketch",
        "sketch",
        "[cormode2021]; [charikar2002]",
        _sketch(PrivateCountSketch, 2, 4),
        _counts,
    ),
    RegistryEntry(
        "sketch_response",
        "Sketch response (GRR per row)",
        "sketch",
        "[cormode2021]",
        _sketch(SketchResponse, 2, 3),
        _counts,
    ),
    RegistryEntry(
        "rappor", "RAPPOR (PRR + IRR)", "rappor", "[erlingsson2014] §2", _rappor(0.5), _rappor_truth
    ),
    RegistryEntry(
        "rappor_basic_one_time",
        "Basic One-time RAPPOR (IRR only)",
        "rappor",
        "[rappor] Eq. (1)",
        _rappor(0.0),
        _rappor_truth,
    ),
    RegistryEntry(
        "glance", "Glance", "stream", "[glance] Algorithm 1", lambda: Glance(1.5, 4), _stream_truth
    ),
    RegistryEntry(
        "harmony",
        "Harmony (the papers': 0/1 in the sampled round, 0 elsewhere)",
        "stream",
        "[glance] §4.1, Theorem 4",
        lambda: Harmony(1.5, 4),
        _stream_truth,
    ),
    RegistryEntry(
        "harmony_nguyen",
        "Harmony, Nguyen et al.'s ±c variant",
        "stream",
        "[nguyen2016]",
        lambda: HarmonyNguyen(1.5, 4),
        _stream_truth,
    ),
    RegistryEntry(
        "t_shot",
        "T-shot (BORAPPOR)",
        "stream",
        "[glance] §1.1; [m_shot] §4.1",
        lambda: BasicOneTimeRappor(2.0, 4),
        _stream_truth,
    ),
    RegistryEntry(
        "m_shot",
        "m-shot reporting",
        "stream",
        "[m_shot] Algorithm 1",
        lambda: MShotReporting(2.0, 4, 2, 0.3),
        _stream_truth,
    ),
    # issue 29, part C (one block): longitudinal memoized oracles, Microsoft's telemetry, ADP, multidimensional
    *(
        RegistryEntry(
            f"l_{name.lower()}",
            f"L-{name} (memoized; ε of the first report)",
            "longitudinal",
            f"[arcolezi2022] (L-{name}){also}",
            lambda cls=cls: cls(1.2, 5, 4.0),
            _counts,
        )
        for cls, name, also in [
            (LGRR, "GRR", ""),
            (LOUE, "OUE", ""),
            (LOSUE, "OSUE", ""),
            (LSOUE, "SOUE", ""),
            (LSUE, "SUE", "; [erlingsson2014] §2"),
        ]
    ),
    RegistryEntry(
        "adp",
        "ADP (GRR or OUE by variance)",
        "frequency oracle",
        "[arcolezi2022ldpy]; [wang2017] §4.4",
        _oracle(ADP),
        _counts,
    ),
    RegistryEntry(
        "dbitflip",
        "dBitFlip (Microsoft)",
        "frequency oracle",
        "[ding2017] (dBitFlip)",
        lambda: DBitFlip(1.5, 5, 2),
        _counts,
    ),
    RegistryEntry(
        "one_bit_mean",
        "1BitMean (Microsoft)",
        "mean",
        "[ding2017] (1BitMean)",
        lambda: OneBitMean(1.1, 8),
        lambda m: np.array([5, 0, 3, 2, 0, 4, 1, 0, 6], dtype=np.int64),
    ),
    RegistryEntry(
        "spl",
        "SPL (budget split over attributes, OUE)",
        "multidimensional",
        "[wang2019]; [arcolezi2021] (Spl, Smp)",
        lambda: SPL(1.2, (3, 2), "oue"),
        _joint_truth,
    ),
    RegistryEntry(
        "smp",
        "SMP (one sampled attribute, GRR)",
        "multidimensional",
        "[wang2019]; [arcolezi2021] (Spl, Smp)",
        lambda: SMP(1.2, (3, 2), "grr"),
        _joint_truth,
    ),
    *(
        RegistryEntry(
            f"rs_fd_{oracle}",
            f"RS+FD[{name}] (ε = whole tuple's, the oracle's ε')",
            "multidimensional",
            "[arcolezi2021] (RS+FD)",
            lambda oracle=oracle: RSFD(1.2, (3, 2), oracle),
            _joint_truth,
        )
        for oracle, name in [("grr", "GRR"), ("oue_z", "OUE-z"), ("oue_r", "OUE-r")]
    ),
]

#: every mechanism of the collection, by key
REGISTRY: dict[str, RegistryEntry] = {entry.key: entry for entry in _ENTRIES}
