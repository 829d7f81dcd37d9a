"""RAPPOR: parameters, Bloom encoding, the per-report client and its exact privacy.

Conventions (RAPPOR paper, Erlingsson et al. 2014, §2; tutorial seed 003 §RAPPOR; seed 001 Eq. 1)::

    k   Bloom filter size (seed 001 calls it B)       h   hash functions per value
    m   cohorts (each has its own hash functions)
    f   PRR:  B'_i = 1 w.p. f/2, 0 w.p. f/2, B_i w.p. 1 − f          (permanent, memoized)
    q   IRR:  Pr[S_i = 1 | B'_i = 1]                                   (instantaneous)
    p   IRR:  Pr[S_i = 1 | B'_i = 0]

**Naming trap.**  RAPPOR (and both seeds) write *q* for the probability attached to a 1 bit and
*p* for a 0 bit, the opposite of :class:`~ldp_helpers.mechanisms.randomized_response.BinaryRR` and of the
pure-LDP framework, where ``p = Pr[1 | 1] > q = Pr[1 | 0]``.  Here ``q > p`` is required.

Composing PRR and IRR, each reported bit depends only on its own Bloom bit::

    q* = Pr[S_i = 1 | B_i = 1] = ½f(p + q) + (1 − f) q
    p* = Pr[S_i = 1 | B_i = 0] = ½f(p + q) + (1 − f) p

(the tutorial prints ``p' = ½f(p + 1) + (1 − f)p``; the ``1`` should be ``q``: see
:func:`tutorial_printed_p_star`).  Variants: the seed's "basic one-time" RAPPOR is IRR only
(``f = 0``); the RAPPOR paper's one-time RAPPOR is PRR only (``p = 0, q = 1``).
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import check_binary_array, check_epsilon, check_int, check_probability, check_rng, fail
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import BinaryRR


@dataclass(frozen=True)
class RapporParams:
    """Validated RAPPOR parameters ``(k, h, m, f, p, q)``; see the module docstring.

    Parameters
    ----------
    k : int
        Bloom filter size (bits per report), k ≥ 1.  Seed 001's ``B``.
    h : int
        Hash functions per value, 1 ≤ h ≤ k.
    m : int
        Number of cohorts, m ≥ 1.
    f : float
        PRR probability, 0 ≤ f < 1 (``f = 0``: no permanent randomization).
    p, q : float
        IRR probabilities ``Pr[S=1 | B'=0]`` and ``Pr[S=1 | B'=1]``, 0 ≤ p < q ≤ 1.

    References
    ----------
    Erlingsson, Pihur, Korolova (2014), §2 steps 1–3; seed 001 Eq. (1) (``q = 0.75, p = 0.5``).
    """

    k: int  # Bloom filter bits (k; seed 001: B)
    h: int  # hash functions (h)
    m: int  # cohorts (m)
    f: float  # permanent randomized response (f)
    p: float  # Pr[S_i = 1 | B'_i = 0] (p)
    q: float  # Pr[S_i = 1 | B'_i = 1] (q)

    def __post_init__(self):
        k = check_int("k", self.k, low=1)
        check_int("h", self.h, low=1, high=k)
        check_int("m", self.m, low=1)
        check_probability(self.f, "f", open_high=True)
        p = check_probability(self.p, "p")
        q = check_probability(self.q, "q")
        if not q > p:
            raise ValueError(
                f"q must be greater than p (RAPPOR convention: q = Pr[S=1|B'=1], p = Pr[S=1|B'=0]); got p={p!r}, q={q!r}"
            )

    @classmethod
    def basic_one_time(cls, k: int, h: int, m: int, p: float = 0.5, q: float = 0.75) -> "RapporParams":
        """Seed 001's "Basic One-time RAPPOR": no PRR (``f = 0``), one IRR (defaults ``p = 0.5, q = 0.75``)."""
        return cls(k=k, h=h, m=m, f=0.0, p=p, q=q)

    @classmethod
    def basic_one_time_at_epsilon(cls, epsilon: float, k: int, h: int, m: int, p: float = 0.5) -> "RapporParams":
        """IRR-only RAPPOR whose one report is exactly ε-LDP: keep ``p``, solve ``h ln(q(1−p)/(p(1−q))) = ε`` for q.

        ``q = 1/(1 + e^{−ε/h}(1 − p)/p)``.  Raises ValueError when ε/h is so large that q rounds
        to 1 in double precision (the IRR would then report set bits deterministically: ε = ∞,
        not the ε asked for).
        """
        epsilon = check_epsilon(epsilon)
        p = check_probability(p, "p", open_low=True, open_high=True)
        h = check_int("h", h, low=1)
        q = 1.0 / (1.0 + math.exp(-epsilon / h) * (1 - p) / p)
        if q == 1.0:
            limit = h * (math.log((1 - p) / p) + 53 * math.log(2))  # 1 + x rounds to 1 below x ≈ 2^−53
            fail("epsilon", epsilon, f"below about {limit:.4g} for h={h}, p={p:g} (beyond it q rounds to 1 and "
                                     f"the IRR stops randomizing: epsilon = inf)")
        return cls.basic_one_time(k, h, m, p=p, q=q)

    @property
    def q_star(self) -> float:
        """``q* = Pr[S_i = 1 | B_i = 1] = ½f(p + q) + (1 − f)q`` (RAPPOR §3.1)."""
        return 0.5 * self.f * (self.p + self.q) + (1 - self.f) * self.q

    @property
    def p_star(self) -> float:
        """``p* = Pr[S_i = 1 | B_i = 0] = ½f(p + q) + (1 − f)p`` (RAPPOR §3.1)."""
        return 0.5 * self.f * (self.p + self.q) + (1 - self.f) * self.p

    @property
    def epsilon_one_report(self) -> float:
        """ε of a single report, ``h ln(q*(1 − p*) / (p*(1 − q*)))`` (``inf`` if p* = 0 or q* = 1).

        Two values' Bloom filters differ in at most 2h bits; each bit set only for v gives at most
        ln(q*/p*), each bit set only for v' at most ln((1−p*)/(1−q*)).  Exact when both filters
        have h distinct bits and are disjoint (needs 2h ≤ k; otherwise it is an upper bound).

        References
        ----------
        RAPPOR Theorem 2 (ε₁); tutorial seed 003, ε₂ = h ln(q'(1−p')/(p'(1−q'))).
        """
        return _one_report_epsilon(self.h, self.p_star, self.q_star)

    @property
    def epsilon_permanent(self) -> float:
        """Longitudinal bound ε∞ = 2h ln((1 − f/2)/(f/2)) of the memoized B' (``inf`` when f = 0).

        References
        ----------
        RAPPOR Theorem 1; tutorial seed 003, ε₁.
        """
        if self.f == 0.0:
            return math.inf
        return 2 * self.h * math.log((1 - 0.5 * self.f) / (0.5 * self.f))

    def bit_table(self) -> np.ndarray:
        """One bit, PRR then IRR: ``P[b, s] = Pr[S_i = s | B_i = b]`` for b, s ∈ {0, 1}."""
        return np.array([[1 - self.p_star, self.p_star], [1 - self.q_star, self.q_star]])

    def prr_bit_table(self) -> np.ndarray:
        """One bit of the PRR alone: ``P[b, b'] = Pr[B'_i = b' | B_i = b]``."""
        half = 0.5 * self.f
        return np.array([[1 - half, half], [half, 1 - half]])

    def report(self, blooms, *, rng: np.random.Generator) -> np.ndarray:
        """Per-report client: Bloom filters (n, k) → PRR → IRR → reports (n, k) of 0/1.

        Each row is one report; with ``f = 0`` the PRR is the identity and is skipped.  This is
        the reference path (it draws every bit); aggregate simulators must match it.
        """
        bits = self._check_blooms(blooms)
        rng = check_rng(rng)
        if self.f > 0:
            bits = permanent_randomized_response(bits, self.f, rng=rng)
        return instantaneous_randomized_response(bits, self.p, self.q, rng=rng)

    def _check_blooms(self, blooms) -> np.ndarray:
        bits = check_binary_array("blooms", blooms)
        if bits.ndim != 2 or bits.shape[1] != self.k:
            raise ValueError(f"blooms must have shape (n_reports, k={self.k}); got shape {bits.shape}")
        return bits


def permanent_randomized_response(bits, f: float, *, rng: np.random.Generator) -> np.ndarray:
    """PRR: each bit becomes 1 w.p. f/2, 0 w.p. f/2, and stays w.p. 1 − f (RAPPOR step 2).

    Per bit this is binary randomized response with ``Pr[B'=1 | B=1] = 1 − f/2`` and
    ``Pr[B'=1 | B=0] = f/2``, i.e. :class:`BinaryRR` ``(1 − f/2, f/2)``; ``f = 0`` is the identity.
    """
    bits = check_binary_array("bits", bits)
    f = check_probability(f, "f", open_high=True)
    rng = check_rng(rng)
    if f == 0.0:
        return bits.copy()
    return BinaryRR(p=1 - 0.5 * f, q=0.5 * f).perturb(bits, rng=rng)


def instantaneous_randomized_response(bits, p: float, q: float, *, rng: np.random.Generator) -> np.ndarray:
    """IRR: report 1 w.p. q where the bit is 1 and w.p. p where it is 0 (RAPPOR step 3; seed 001 Eq. 1).

    This is :class:`BinaryRR` with RAPPOR's (q, p) in BinaryRR's (p, q) order.  BinaryRR needs
    both probabilities inside (0, 1); RAPPOR also allows a deterministic side (p = 0 or q = 1,
    e.g. one-time RAPPOR's p = 0, q = 1), for which the same Bernoulli rule is applied directly.
    """
    bits = check_binary_array("bits", bits)
    p, q = check_probability(p, "p"), check_probability(q, "q")
    if not q > p:
        fail("q", q, f"greater than p={p!r} (RAPPOR convention: q = Pr[S=1|B'=1], p = Pr[S=1|B'=0])")
    rng = check_rng(rng)
    if 0.0 < p and q < 1.0:
        return BinaryRR(p=q, q=p).perturb(bits, rng=rng)
    return (rng.random(bits.shape) < np.where(bits == 1, q, p)).astype(np.int8)


def tutorial_printed_p_star(f: float, p: float) -> float:
    """The tutorial's printed ``p' = ½f(p + 1) + (1 − f)p`` — wrong; see :attr:`RapporParams.p_star`."""
    return 0.5 * f * (p + 1) + (1 - f) * p


def tutorial_printed_epsilon_one_report(params: RapporParams) -> float:
    """The tutorial's ε₂ = h ln(q'(1 − p')/(p'(1 − q'))) evaluated with its printed p' (see above).

    Differs from :attr:`RapporParams.epsilon_one_report` whenever f > 0.
    """
    return _one_report_epsilon(params.h, tutorial_printed_p_star(params.f, params.p), params.q_star)


def _one_report_epsilon(h: int, p_star: float, q_star: float) -> float:
    """``h ln(q*(1 − p*)/(p*(1 − q*)))``, ``inf`` when p* = 0 or q* = 1 (RAPPOR Theorem 2)."""
    if p_star == 0.0 or q_star == 1.0:
        return math.inf
    return h * math.log(q_star * (1 - p_star) / (p_star * (1 - q_star)))


# ------------------------------------------------------------------ Bloom encoding


def hash_index(secret: str, cohort: int, candidate: int, hash_number: int, k: int) -> int:
    """Seed 001's hash: ``int(sha256(f"{secret}_{c:02d}_{j:03d}_{i:02d}"), 16) mod k``.

    ``cohort`` is 0-based as in the seed; ``candidate`` and ``hash_number`` are 0-based here and
    printed 1-based (``j + 1``, ``i + 1``) exactly as the seed's loops do, so the same secret
    gives the seed's design matrix.
    """
    text = f"{secret}_{cohort:02d}_{candidate + 1:03d}_{hash_number + 1:02d}"
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % k


def draw_secret(*, rng: np.random.Generator) -> str:
    """The hashing secret, drawn from ``rng`` like the seed's ``str(np.random.random()) + "secret"``."""
    return f"{check_rng(rng).random()!r}secret"


def hash_indices(secret: str, cohort: int, n_candidates: int, params: RapporParams) -> np.ndarray:
    """:func:`hash_index` for candidates ``0..n_candidates−1`` and all h hashes, shape (n_candidates, h).

    One SHA-256 per (candidate, hash); the 256-bit digests are reduced mod k in numpy by Horner's
    rule over their bytes (``int(hexdigest, 16) % k`` exactly, without Python big integers).
    """
    cohort = check_int("cohort", cohort, low=0, high=params.m - 1)
    n_candidates = check_int("n_candidates", n_candidates, low=1)
    prefix = f"{secret}_{cohort:02d}_"
    digests = b"".join(
        hashlib.sha256(f"{prefix}{j + 1:03d}_{i + 1:02d}".encode("utf-8")).digest()
        for j in range(n_candidates)
        for i in range(params.h)
    )
    digits = np.frombuffer(digests, dtype=np.uint8).reshape(-1, 32).astype(np.int64)
    residue = np.zeros(digits.shape[0], dtype=np.int64)
    for column in digits.T:  # big-endian bytes: r ← (256 r + byte) mod k, all values < 256 k
        residue = (residue * 256 + column) % params.k
    return residue.reshape(n_candidates, params.h)


def bloom_filter(secret: str, cohort: int, candidate: int, params: RapporParams) -> np.ndarray:
    """The k-bit Bloom filter of ``candidate`` in ``cohort`` (h hashes; collisions set fewer bits)."""
    cohort = check_int("cohort", cohort, low=0, high=params.m - 1)
    candidate = check_int("candidate", candidate, low=0)
    bits = np.zeros(params.k, dtype=np.int8)
    for i in range(params.h):
        bits[hash_index(secret, cohort, candidate, i, params.k)] = 1
    return bits


# ------------------------------------------------------------------ exact output tables


def all_bloom_filters(k: int, h: int) -> np.ndarray:
    """Every k-bit vector with 1 to h ones: all Bloom filters h hashes can produce (small k only)."""
    k = check_int("k", k, low=1, high=16)
    h = check_int("h", h, low=1, high=k)
    rows = [np.isin(np.arange(k), ones) for n in range(1, h + 1) for ones in itertools.combinations(range(k), n)]
    return np.array(rows, dtype=np.int8)


@dataclass(frozen=True)
class ExactPrivacy:
    """Privacy losses computed from output tables over every Bloom filter with 1..h ones."""

    one_report: float  # max_privacy_loss of Pr[report | B] (PRR then IRR)
    permanent: float  # max_privacy_loss of Pr[B' | B] (the memoized PRR)


def exact_privacy(params: RapporParams) -> ExactPrivacy:
    """:class:`ExactPrivacy` of ``params`` by :func:`~ldp_helpers.mechanisms.privacy.max_privacy_loss` (k ≤ 16).

    Compare with :attr:`RapporParams.epsilon_one_report` and :attr:`RapporParams.epsilon_permanent`.
    """
    filters = all_bloom_filters(params.k, params.h)
    return ExactPrivacy(max_privacy_loss(report_table(filters, params.bit_table())),
                        max_privacy_loss(report_table(filters, params.prr_bit_table())))


def report_table(blooms, bit_table) -> np.ndarray:
    """Exact ``P[x, y] = Pr[report = y | Bloom filter x]`` over all 2^k outputs y.

    Bits are randomized independently given the filter, so each entry is a product of k
    one-bit probabilities ``bit_table[b_i, y_i]``.  Output y is indexed by its bits, bit 0 first.
    """
    bits = check_binary_array("blooms", blooms)
    if bits.ndim != 2 or bits.shape[1] > 16:
        raise ValueError(f"blooms must have shape (n_filters, k) with k <= 16; got shape {bits.shape}")
    table = np.asarray(bit_table, dtype=float)
    if table.shape != (2, 2):
        raise ValueError(f"bit_table must have shape (2, 2); got shape {table.shape}")
    k = bits.shape[1]
    outputs = (np.arange(2**k)[:, None] >> np.arange(k)) & 1  # (2^k, k)
    # probs[x, y, i] = bit_table[bits[x, i], outputs[y, i]]
    probs = table[bits[:, None, :], outputs[None, :, :]]
    return probs.prod(axis=2)
