"""The shuffle model, exactly: the privacy profile δ(ε) of the count vector the server sees.

n users each apply an ε₀-LDP randomizer; a shuffler hides who sent what, so the server sees the
multiset of reports, i.e. the count vector ``c`` (one count per output).  Two neighbouring datasets
differ in user 1's value (x₁ = 0 versus x₁ = 1); the other n − 1 users hold fixed values.  The
server's view is (ε, δ)-DP for every δ ≥ δ(ε) = max(H_{e^ε}(P‖Q), H_{e^ε}(Q‖P)), the hockey-stick
divergence ``H_{e^ε}(P‖Q) = Σ_c (P(c) − e^ε Q(c))₊`` of the two count laws P and Q.

**One law for every case (the derivation).**  Group the outputs into d ≤ 4 categories on which
user 1's two output laws u_P, u_Q are constant multiples of the others' common output law π (the
others are i.i.d. with law π on the categories), and let ``ρ_X = u_X / π`` (ratio per category).
Write M for the multinomial law of n i.i.d. draws from π.  The others' counts s (n − 1 draws) satisfy
``s(c − e_j) = M(c) · c_j / (n π_j)``, hence ::

    P(c) = Σ_j u_P(j) s(c − e_j) = M(c) · (1/n) Σ_j c_j ρ_P(j),    likewise Q with ρ_Q.

So both laws are the multinomial M reweighted by a linear function of the category counts, and the
privacy loss ``ln P(c)/Q(c) = ln(Σ c_j ρ_P(j)) − ln(Σ c_j ρ_Q(j))`` depends on the category counts
only.  This covers, with d − 1 free counts:

* shuffled binary RR, others all holding 0: d = 2 (reports 0, 1), π = (p, 1 − p);
* shuffled k-RR (GRR), others all holding 0 (the value of one of the two datasets): d = 3
  (reports 0, 1, any other value), π = (p, q, (k − 2) q); or all holding a third value 2:
  d = 4 (reports 0, 1, 2, others), π = (q, q, p, (k − 3) q) — the law of the k-vector of counts
  reduces, by the symmetry of the k − 2 (or k − 3) untouched values, to these 2 or 3 counts;
* the reductions behind the papers' numerical bounds (:mod:`ldp_helpers.bounds.shuffle_bounds`):
  FMT's clones and Wang et al.'s variation-ratio blanket, d = 3.

The divergence is summed exactly over the grid of category counts (log-masses from binomial log-pmfs by
Loader's saddle-point form along the chain rule; δ a sum of positive terms), with no sampling: the only points left out are those
beyond the 1e-300 tails of a conditional binomial or with both masses below e^-700, so δ moves by
less than 1e-280.

**Cost.** at most ``C(n + d − 1, d − 1)`` grid points, fewer after skipping the 1e-300 tails:
about 80 √n for binary RR (n = 10⁶: 0.005 s for the profile and its ε_c), at most n²/2 for
k-RR with others at 0 (or k = 3; n = 5000: 3 s), n³/6 with others at a third value (k ≥ 4;
n = 300: 1.5 s).  The grid is built in blocks of 2¹⁶ points.  ε_c(δ) inverts δ(ε) by bisection
in log δ (about 15 evaluations of δ, each a sum over the points with a positive loss).

**Which neighbours are worst.** The datasets above (all other users alike) are the standard worst
case (the lower-bound instances of FMT and Wang et al.), and their profiles are exact *for them*.
They are not always the very worst: for binary RR a dataset with one or a few dissenting users can
have a larger δ (19 % at n = 10, ε₀ = 1, ε = 0.5; 1.4 % at n = 100, ε₀ = 3, ε = 0.5), so
``binary_rr_profile(n, ε₀, others="any")`` computes the exact worst case over *every* pair of
neighbouring datasets (one convolution of two binomials per dataset, no mixture formula; n = 2000
in about 1 s at ε₀ = 1, up to the cap MAX_GRID in about 5 s; brute force over all datasets at n ≤ 8
in tests/bounds/test_shuffle.py).  For k-RR neither alike pair is always the worse: at ε₀ = 2 the others-at-0
pair is (n = 50, δ = 1e-6: ε_c 1.874 against 1.708), the others-at-a-third-value pair at n ≥ 100;
``grr_profile``'s default takes the larger δ of both at every ε.  Every
published upper bound holds for all datasets, hence must lie above every one of these profiles.

References
----------
[erlingsson2019] (the shuffle model); [balle2019blanket] §3 (the blanket decomposition);
[feldman2021clones] Theorem 3.2 (clones); [wang2024shuffle] (variation-ratio reduction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import special
from scipy.optimize import brentq

from ldp_helpers._validation import (
    check_choice,
    check_epsilon,
    check_int,
    check_probability,
    check_real_array,
    fail,
)
from ldp_helpers.mechanisms.grr import grr_probabilities

#: log-mass below which a grid point is dropped (both masses): its share of δ is < 1e-300
_LOG_FLOOR = -700.0
_SCALE = 350.0  # masses a in (e^-700, 1] are stored as a·e^350 (ShuffleProfile._directions)
_BLOCK = 2**16  # grid points per block while a grid is built (temporaries of about 0.5 MB)
_TAIL = 1e-300  # tail mass of each conditional binomial left out of the grid
MAX_GRID = (
    2 * 10**7
)  # count vectors carrying mass in one exact profile (memory: about 100 bytes each)
#: the largest ε₀ of a profile: user 1's laws hold 1 − p (binary RR's 1/(1 + e^ε₀)) to 1e-16 absolute, so a
#: profile is that of an ε₀ off by about e^ε₀·1e-16: 5e-8 at 20 (the explorer's ceiling too), 1e-3 at 30,
#: where binary RR's ε_c(1e-6) at n = 10 came out 0.001 above ε₀; 1 − p rounds to 0 from ε₀ ≈ 37.4 and
#: e^ε₀ overflows from 710 on (the bounds of :mod:`~ldp_helpers.bounds.shuffle_bounds` share the ceiling)
MAX_EPSILON0 = 20.0


@dataclass(frozen=True)
class ShuffleProfile:
    """The exact privacy profile of a shuffled protocol between one or more pairs of datasets.

    ``pairs`` holds, per pair of neighbouring datasets, the log-masses ``(log P(c), log Q(c))`` over
    the grid of category counts; δ(ε) is the largest hockey-stick divergence over the pairs and
    both directions.
    """

    n: int
    epsilon0: float
    pairs: tuple

    def delta(self, epsilon) -> np.ndarray | float:
        """δ(ε) = max over pairs of max(H_{e^ε}(P‖Q), H_{e^ε}(Q‖P)); ε a number or an array (≥ 0)."""
        eps = check_real_array("epsilon", epsilon, low=0.0, low_open=False)
        scratch = self._scratch()
        out = np.array([math.exp(self._log_delta(float(e), scratch)) for e in eps.ravel()])
        out = out.reshape(eps.shape)
        return float(out) if out.ndim == 0 else out

    def epsilon(self, delta: float) -> float:
        """ε_c(δ): the smallest ε with δ(ε) ≤ ``delta`` (bisection in log δ, to 1e-10 in ε)."""
        delta = check_probability(delta, "delta", open_low=True, open_high=True)
        if math.exp(self._log_delta_at_zero) <= delta:
            return 0.0
        high = -float(np.min(self._directions[0]))
        target = math.log(delta)
        at_zero, scratch = self._log_delta_at_zero, self._scratch()
        f = lambda e: (at_zero if e == 0 else self._log_delta(e, scratch)) - target  # noqa: E731
        while f(high) > 0:  # rounding at the top loss; δ(high) is 0 in exact arithmetic
            high += 1e-9
        return float(brentq(f, 0.0, high, xtol=1e-10, rtol=4 * np.finfo(float).eps))

    @cached_property
    def _log_delta_at_zero(self) -> float:
        """ln δ(0), where every bisection of :meth:`epsilon` starts (its costliest point: every
        positive loss counts), computed once per profile."""
        return self._log_delta(0.0, self._scratch())

    @cached_property
    def _directions(self) -> tuple:
        """Every direction (P‖Q and Q‖P of each pair), end to end: minus the positive losses
        ln a/b, increasing within each direction, a·e^350 beside them, and where each direction
        starts.  Only points with ln a/b > 0 ever count (ε ≥ 0); there ln a > ln b, so ln a lies in
        (−700, 0] (the grids keep max(ln a, ln b) > −700) and a·e^350 neither under- nor overflows."""
        minus_losses, scaled = [], []
        for log_p, log_q in self.pairs:
            for log_a, log_b in ((log_p, log_q), (log_q, log_p)):
                minus_loss = log_b - log_a
                positive = minus_loss < 0
                minus_loss, log_a = minus_loss[positive], log_a[positive]
                order = np.argsort(minus_loss, kind="stable")
                minus_losses.append(minus_loss[order])
                scaled.append(np.exp(log_a[order] + _SCALE))
        edges = np.cumsum([0] + [x.size for x in scaled]).tolist()
        return np.concatenate(minus_losses), np.concatenate(scaled), edges

    def _scratch(self) -> np.ndarray:
        """Room for the terms of :meth:`_log_delta` (the longest direction's), for one caller's
        evaluations: they then write into memory already touched (fresh pages cost as much as
        the arithmetic)."""
        return np.empty(max(np.diff(self._directions[2])))

    def _log_delta(self, epsilon: float, scratch: np.ndarray) -> float:
        """ln δ(ε): ln Σ_{ln a/b > ε} a (1 − e^{ε − ln a/b}) per direction, the largest; a sum of
        positive terms (−expm1), accurate to about 1e-14 relative (measured against mpmath).
        The terms are computed in ``scratch`` (:meth:`_scratch`)."""
        minus_loss, scaled_a, edges = self._directions
        sums = []
        for start, end in zip(edges, edges[1:]):
            count = int(np.searchsorted(minus_loss[start:end], -epsilon))  # losses > ε: a prefix
            terms = np.add(epsilon, minus_loss[start : start + count], out=scratch[:count])
            terms = np.expm1(terms, out=terms)
            terms *= scaled_a[start : start + count]
            sums.append(-float(terms.sum()))
        top = max(sums, default=0.0)
        return math.log(top) - _SCALE if top > 0 else -math.inf


def _stirlerr(n: np.ndarray) -> np.ndarray:
    """ln n! − ln(√(2πn) (n/e)^n): its asymptotic series beyond 15, gammaln below (n ≥ 1)."""
    if n.size > 64 and n.size > (top := int(n.max())):  # many repeats: tabulate 1, …, top once
        return _stirlerr(np.arange(1, top + 1))[n - 1]
    n = n.astype(float)
    nn = n * n
    out = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * nn)) / nn) / nn) / nn) / n
    small = n <= 15  # gammaln only where it is used: most counts are large
    m = n[small]
    out[small] = special.gammaln(m + 1) - (m + 0.5) * np.log(m) + m - 0.5 * math.log(2 * math.pi)
    return out


def _bd0(x: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """x ln(x/μ) + μ − x = μ (r ln r + 1 − r), r = x/μ, with log1p near r = 1 (Loader's deviance term)."""
    t = (x - mean) / mean
    return mean * ((1 + t) * np.log1p(t) - t)


def _log_binom_pmf(x: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """ln Binomial(n, p)(x) by Loader's saddle-point form (accurate to ~1e-13 for n up to 10⁹,
    where a difference of ``gammaln`` values loses about n·1e-16)."""
    x, n = np.asarray(x, dtype=np.int64), np.asarray(n, dtype=np.int64) + np.zeros_like(x)
    if p <= 0.0 or p >= 1.0:
        return np.where(x == (n if p >= 1.0 else 0), 0.0, -np.inf)
    inner = (x > 0) & (x < n)
    xi, ni = np.where(inner, x, 1), np.where(inner, n, 2)
    out = (
        _stirlerr(ni)
        - _stirlerr(xi)
        - _stirlerr(ni - xi)
        - _bd0(xi, ni * p)
        - _bd0(ni - xi, ni * (1 - p))
        + 0.5 * np.log(ni / (2 * math.pi * xi * (ni - xi)))
    )
    return np.where(inner, out, np.where(x == 0, n * math.log1p(-p), n * math.log(p)))


def _binomial_range(m: np.ndarray, share: float) -> tuple[np.ndarray, np.ndarray]:
    """``lo, hi``: Binomial(m, share) puts mass below 1e-300 outside [lo, hi] (m an array)."""
    # Bernstein: P(|X − μ| ≥ t) ≤ 2 exp(−t² / (2(σ² + t/3))) = _TAIL at this t
    mean, var, log_tail = m * share, m * share * (1 - share), math.log(2 / _TAIL)
    t = (2 * log_tail / 3 + np.sqrt((2 * log_tail / 3) ** 2 + 8 * log_tail * var)) / 2
    lo = np.clip(np.floor(mean - t), 0, m).astype(np.int64)
    hi = np.clip(np.ceil(mean + t), 0, m).astype(np.int64)
    return lo, hi


def _count_grid(n: int, pi: np.ndarray):
    """The count vectors c of n draws from π that carry mass, with ln M(c) (multinomial): yields
    ``(c, ln M(c))`` in blocks of about _BLOCK vectors, in lexicographic order.

    Built one category at a time from the chain rule: c_j given the earlier counts is
    Binomial(n − c₀ − … − c_{j−1}, π_j / (π_j + … + π_{d−1})); values beyond that binomial's
    1e-300 tails are skipped, so the mass left out is below C(n + d − 1, d − 1) · 1e-300.  The
    last category's step, the largest, runs over blocks of the earlier counts (small temporaries).
    """
    c, used, log_m = [], np.zeros(1, dtype=np.int64), np.zeros(1)  # c: the counts so far
    for j in range(pi.size - 1):
        m, share = n - used, min(1.0, pi[j] / pi[j:].sum())
        lo, hi = _binomial_range(m, share)
        width = hi - lo + 1
        if int(width.sum()) > MAX_GRID:
            fail(
                "n",
                n,
                f"small enough for at most {MAX_GRID:.0e} count vectors carrying mass (this "
                f"exact profile over {pi.size} output categories needs more)",
            )
        last = j == pi.size - 2
        ends = np.cumsum(width)
        cuts = [0, *np.searchsorted(ends, np.arange(_BLOCK, ends[-1], _BLOCK)), used.size]
        blocks = [slice(*r) for r in zip(cuts, cuts[1:]) if r[1] > r[0]] if last else [slice(None)]
        for rows in blocks:
            row = np.repeat(np.arange(used[rows].size), width[rows])
            offset = np.repeat(np.cumsum(width[rows]) - width[rows], width[rows])
            cj = lo[rows][row] + np.arange(row.size) - offset
            block_m = log_m[rows][row] + _log_binom_pmf(cj, m[rows][row], share)
            block_c, block_used = [*(col[rows][row] for col in c), cj], used[rows][row] + cj
            if last:
                yield np.column_stack([*block_c, n - block_used]), block_m
        c, used, log_m = block_c, block_used, block_m


def mixture_pair(n: int, user_p, user_q, pi) -> tuple[np.ndarray, np.ndarray]:
    """``(log P(c), log Q(c))`` over the category-count grid: P = M · (1/n) Σ_j c_j u_P(j)/π_j.

    Parameters
    ----------
    n : int
        Number of users (user 1 and the n − 1 others), n ≥ 1.
    user_p, user_q : sequence of float
        User 1's output law on the d categories under the two datasets (each sums to 1).
    pi : sequence of float
        Each other user's output law on the same categories (all > 0, sums to 1).

    The derivation is in the module docstring; the cost is C(n + d − 1, d − 1) points.
    """
    n = check_int("n", n, low=1)
    u_p, u_q, pi = (
        np.asarray(check_real_array(name, v, low=0.0, low_open=False), dtype=float).ravel()
        for name, v in (("user_p", user_p), ("user_q", user_q), ("pi", pi))
    )
    d = pi.size
    if not (2 <= d <= 4 and u_p.size == d and u_q.size == d) or np.any(pi <= 0):
        fail("pi", pi, "2 to 4 positive category masses, with user_p and user_q of the same length")
    for name, v in (("user_p", u_p), ("user_q", u_q), ("pi", pi)):
        if abs(v.sum() - 1.0) > 1e-9:
            fail(name, v, "a probability vector (summing to 1)")
    log_p, log_q = [], []
    for c, log_m in _count_grid(n, pi):  # the others' and user 1's reports as n draws from π
        with np.errstate(divide="ignore"):
            block_p = log_m + np.log(c @ (u_p / pi) / n)
            block_q = log_m + np.log(c @ (u_q / pi) / n)
        keep = np.maximum(block_p, block_q) > _LOG_FLOOR
        log_p.append(block_p[keep])
        log_q.append(block_q[keep])
    return np.concatenate(log_p), np.concatenate(log_q)


def _check_n_epsilon0(n, epsilon0, low: int = 1) -> tuple[int, float]:
    """n (``low`` to 10⁹ users) and ε₀ (up to :data:`MAX_EPSILON0`), validated."""
    n = check_int("n", n, low=low, high=10**9)
    return n, check_epsilon(epsilon0, "epsilon0", high=MAX_EPSILON0)


def binary_rr_profile(n: int, epsilon0: float, *, others: str = "alike") -> ShuffleProfile:
    """Exact profile of shuffled binary RR (keep the bit w.p. p = e^ε₀/(1 + e^ε₀)).

    ``others="alike"``: the other n − 1 users all hold 0 (or, by symmetry, all 1).  The server sees
    the number of 1s; d = 2, π = (p, 1 − p), u_P = (p, 1 − p), u_Q = (1 − p, p), so P =
    Binomial(n, 1 − p) on the 1s and Q/P = (c₀ (1−p)/p + c₁ p/(1−p))/n.  Cost: n + 1 points.

    ``others="any"``: the largest δ over *every* pair of neighbouring datasets, the exact worst
    case.  With j of the others holding 1, the others' count of 1s is S_j = Binomial(j, p) +
    Binomial(n − 1 − j, 1 − p) (one convolution of two positive pmfs, :func:`_dissent_pair`),
    and the server's count is user 1's bit plus S_j: ``P(c) = (1 − p) S_j(c − 1) + p S_j(c)``
    (x₁ = 0), ``Q(c) = p S_j(c − 1) + (1 − p) S_j(c)`` (x₁ = 1).  Flipping every bit maps (j, P,
    Q) to (n − 1 − j, Q, P), so j ≤ (n − 1)/2 with both directions covers every pair; j = 0 is
    the ``"alike"`` pair.  δ(ε) is neither monotone nor unimodal in j, so every j is kept.  Cost:
    Σ_j w_j w'_j multiply-adds (w, w' the two binomials' widths, ≤ 75σ + 2 by the 1e-300 tails):
    n³/12 while the widths are the full ranges, about 1100 pq n² beyond (pq = e^ε₀/(1 + e^ε₀)²);
    about 50 √(pq) n^1.5 points kept, in both directions.  Measured (the profile and one ε_c, CPU
    time): n = 2000 in 0.9 s at ε₀ = 1, n = 3000 in 1.0 s at ε₀ = 3; the cap MAX_GRID (n = 5587 at
    ε₀ = 1, 9746 at ε₀ = 3) in 4–5 s and 0.6–0.8 GB.

    References
    ----------
    [warner1965] (randomized response); [feldman2021clones] §5 (the lower-bound instance).
    """
    n, eps0 = _check_n_epsilon0(n, epsilon0)
    check_choice("others", others, {"alike", "any"})
    p = 1.0 / (1.0 + math.exp(-eps0))
    pairs = (mixture_pair(n, np.array([p, 1 - p]), np.array([1 - p, p]), np.array([p, 1 - p])),)
    if others == "any":
        j = np.arange(1, (n - 1) // 2 + 1)
        size = 0  # the points of every pair: the two binomials' widths, summed
        for m, share in ((j, p), (n - 1 - j, 1 - p)):
            lo, hi = _binomial_range(m, share)
            size += int(np.sum(hi - lo + 1))
        if 2 * size > MAX_GRID:  # each point is kept in both directions
            fail(
                "n",
                n,
                f"small enough for at most {MAX_GRID:.0e} points over all datasets (n = 5587 at "
                f"ε₀ = 1; others='alike' computes n up to 10⁹)",
            )
        pairs += tuple(_dissent_pair(n, int(i), p) for i in j)
    return ShuffleProfile(n, eps0, pairs)


def _dissent_pair(n: int, j: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """``(log P(c), log Q(c))`` of shuffled binary RR when j of the n − 1 others hold 1.

    S_j = Binomial(j, p) ⊛ Binomial(n − 1 − j, 1 − p), each pmf on its 1e-300 range, scaled by its
    largest value and convolved directly: every mass is a sum of positive terms (relative error
    below the widths times 2⁻⁵³), and only masses below 1e-300 of the largest underflow.
    """
    tops, pmfs = [], []
    for m, share in ((j, p), (n - 1 - j, 1 - p)):
        lo, hi = _binomial_range(np.array(m), share)
        log_pmf = _log_binom_pmf(np.arange(lo, hi + 1), m, share)
        tops.append(log_pmf.max())
        pmfs.append(np.exp(log_pmf - tops[-1]))
    with np.errstate(divide="ignore"):
        log_s = np.log(np.convolve(*pmfs)) + sum(tops)
    before, here = np.insert(log_s, 0, -np.inf), np.append(log_s, -np.inf)  # S(c − 1), S(c)
    log_p = np.logaddexp(math.log1p(-p) + before, math.log(p) + here)
    log_q = np.logaddexp(math.log(p) + before, math.log1p(-p) + here)
    keep = np.maximum(log_p, log_q) > _LOG_FLOOR
    return log_p[keep], log_q[keep]


def grr_profile(n: int, epsilon0: float, k: int, *, others: str = "worst") -> ShuffleProfile:
    """Exact profile of shuffled k-RR (GRR) between x₁ = 0 and x₁ = 1, the others all alike.

    ``others="pair"``: the others hold 0 (categories 0, 1, rest; π = (p, q, (k−2)q));
    ``"outside"``: they hold 2 (k ≥ 3; categories 0, 1, 2, rest; π = (q, q, p, (k−3)q));
    ``"worst"``: the larger δ of both at every ε.  p = e^ε₀/(e^ε₀+k−1), q = 1/(e^ε₀+k−1).

    References
    ----------
    [kairouz2014] (k-RR); [balle2019blanket] §4 (shuffled k-RR).
    """
    n, eps0 = _check_n_epsilon0(n, epsilon0)
    k = check_int("k", k, low=2)
    check_choice("others", others, {"pair", "outside", "worst"})
    p, q = grr_probabilities(eps0, k)
    rest = [(k - 2) * q] if k > 2 else []
    cases = {"pair": [(p, q, *rest), (q, p, *rest), (p, q, *rest)]}
    if k >= 3:
        rest = [(k - 3) * q] if k > 3 else []
        cases["outside"] = [(p, q, q, *rest), (q, p, q, *rest), (q, q, p, *rest)]
    elif others == "outside":
        fail("others", others, "'pair' or 'worst' when k = 2 (no third value)")
    chosen = list(cases) if others == "worst" else [others]
    pairs = tuple(mixture_pair(n, *map(np.array, cases[name])) for name in chosen)
    return ShuffleProfile(n, eps0, pairs)
