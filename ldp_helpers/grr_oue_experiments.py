"""Experiment drivers for the GRR vs OUE thesis (seed 004): short functions the notebook calls.

Everything rests on the protocols' exact aggregate samplers (``sample_support_counts``) and
exact variances (``count_variance``); nothing here simulates user by user.  MSEs are of the
estimated *frequencies* ĉ(i)/n, averaged over the d values:

    MSE = (1/d) Σ_i E[(ĉ(i)/n − f_i/n)²] = (1/(d n²)) Σ_i Var[ĉ(i)]   (the estimator is unbiased).

Summing the exact variances over i, the f_i-terms add up to n, so this MSE depends on n and d
only, not on the distribution:

    GRR:  n (d−1)(2e^ε + d − 2) / (e^ε − 1)²,     OUE:  n ((e^ε + 1)² + 4(d−1) e^ε) / (e^ε − 1)²

(Σ_i Var[ĉ(i)]).  They are equal where e^{2ε} + 2d e^ε + 1 − (d−1)(d−2) = 0, i.e. at
ε* = ln(√((2d−1)(d−1)) − d) (:func:`crossover_epsilon_exact`; 2.818 for d = 43).  Wang et al.'s
approximation Var ≈ n q*(1−q*)/(p*−q*)² drops the f_i-terms and gives the thesis' rule
"OUE better iff d > 3e^ε + 2", i.e. ε < ln((d−2)/3) (:func:`crossover_epsilon_wang`; 2.615).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._validation import check_counts, check_int, check_rng
from .grr import GRR
from .unary_encoding import OUE

#: the two protocols compared, by the thesis' names
PROTOCOLS = {"GRR": GRR, "OUE": OUE}


@dataclass(frozen=True, eq=False)
class PerturbedExample:
    """One run of a protocol on a dataset: true counts f, support counts f' and estimates L[f]."""

    protocol: str
    true_counts: np.ndarray
    support_counts: np.ndarray
    estimated_counts: np.ndarray


def perturbed_example(protocol, true_counts, *, rng: np.random.Generator) -> PerturbedExample:
    """Perturb a whole dataset once (exact aggregate sampler) and estimate its counts.

    The thesis' Figures 3.3–3.6: true, perturbed (f'_i, Algorithm 2 line 6 / Algorithm 4 line 7)
    and maximum-likelihood (L[f_i]) frequency distributions.
    """
    counts, n = protocol.true_counts_and_n(true_counts)
    support = protocol.sample_support_counts(counts, rng=rng)
    return PerturbedExample(type(protocol).__name__, counts, support, protocol.estimate_counts(support, n))


def expected_support_counts(protocol, true_counts) -> np.ndarray:
    """E[f'_i] = f_i p* + (n − f_i) q*: holders of i support it w.p. p*, the others w.p. q*.

    References
    ----------
    GRR/OUE thesis (004) §2.2 and §2.3, the expectation before L[f_i] (for GRR the thesis
    writes (n − f_i) q/(d − 1), which is right only if q denotes 1 − p: see the notebook).
    """
    counts, n = protocol.true_counts_and_n(true_counts)
    return counts * protocol.p + (n - counts) * protocol.q


def support_count_pmf(protocol, true_count: int, n: int) -> np.ndarray:
    """Exact pmf of f'_i over 0..n: Binomial(f_i, p*) + Binomial(n − f_i, q*), convolved.

    Holds for GRR and OUE alike (each report supports i independently across users).
    """
    n = check_int("n", n, low=1)
    true_count = check_int("true_count", true_count, low=0, high=n)
    holders = stats.binom.pmf(np.arange(true_count + 1), true_count, protocol.p)
    others = stats.binom.pmf(np.arange(n - true_count + 1), n - true_count, protocol.q)
    return np.convolve(holders, others)


def theoretical_mse(protocol, true_counts) -> float:
    """Exact frequency MSE, ``mean_i Var[ĉ(i)] / n²`` from the protocol's exact variance."""
    counts, n = protocol.true_counts_and_n(true_counts)
    return float(np.mean(protocol.count_variance(counts)) / n**2)


def approx_mse(protocol, n: int) -> float:
    """Wang et al.'s approximate frequency MSE, ``Var* / n²`` with Var* ≈ n q*(1−q*)/(p*−q*)²."""
    return protocol.approx_count_variance(n) / n**2


def empirical_mse(protocol, true_counts, *, repetitions: int, rng: np.random.Generator) -> float:
    """Frequency MSE averaged over ``repetitions`` independent perturb-and-estimate runs.

    The thesis' Experiment 3 (§3.5): "perturbation to aggregation repeated 100 times per ε".
    """
    repetitions = check_int("repetitions", repetitions, low=1)
    counts, n = protocol.true_counts_and_n(true_counts)
    rng = check_rng(rng)
    errors = [protocol.estimate_counts(protocol.sample_support_counts(counts, rng=rng), n) - counts
              for _ in range(repetitions)]
    return float(np.mean(np.square(errors)) / n**2)


def mse_curves(true_counts, epsilons, *, repetitions: int, seed) -> dict[str, dict[str, np.ndarray]]:
    """Simulated, exact and approximate MSE vs ε for GRR and OUE on one dataset.

    Every (protocol, ε) point gets its own random stream, spawned from ``seed`` (an int or a
    SeedSequence), so adding a protocol or appending an ε does not change the other points.

    Returns
    -------
    dict
        ``{"GRR": {"simulated": ..., "exact": ..., "approx": ...}, "OUE": {...}}``, arrays over ε.
    """
    counts = check_counts("true_counts", true_counts)
    n = int(counts.sum())
    epsilons = np.asarray(epsilons, dtype=float)
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    curves = {}
    for (name, cls), child in zip(PROTOCOLS.items(), sequence.spawn(len(PROTOCOLS))):
        protocols = [cls(eps, counts.size) for eps in epsilons]
        streams = [np.random.default_rng(s) for s in child.spawn(len(protocols))]
        curves[name] = {
            "simulated": np.array([empirical_mse(p, counts, repetitions=repetitions, rng=r) for p, r in zip(protocols, streams)]),
            "exact": np.array([theoretical_mse(p, counts) for p in protocols]),
            "approx": np.array([approx_mse(p, n) for p in protocols]),
        }
    return curves


def _check_domain(d) -> int:
    return check_int("d", d, low=3)


def crossover_epsilon_wang(d: int) -> float:
    """ε below which OUE beats GRR under Wang et al.'s approximation: ln((d − 2)/3).

    From ``(e^ε + d − 2)/(e^ε − 1)² > 4e^ε/(e^ε − 1)²`` ⟺ ``d > 3e^ε + 2``.  A value ≤ 0 means
    GRR is better for every ε > 0 (d ≤ 5).

    References
    ----------
    Wang et al. 2017, §4.3 (comparing DE and OUE); GRR/OUE thesis (004) §2.3 and §3.6.
    """
    return math.log((_check_domain(d) - 2) / 3)


def crossover_epsilon_exact(d: int) -> float:
    """ε where the exact frequency MSEs of GRR and OUE are equal: ln(√((2d−1)(d−1)) − d).

    Below it OUE has the smaller MSE, above it GRR (see the module docstring); it does not
    depend on n or on the distribution.  A value ≤ 0 means GRR is better for every ε > 0 (d ≤ 5).
    """
    d = _check_domain(d)
    return math.log(math.sqrt((2 * d - 1) * (d - 1)) - d)


def interactive_mse_comparison(*, epsilon=math.log(20), d=43, n=49_742):  # pragma: no cover - needs a live kernel
    """ipywidgets sliders for ε, d and n redrawing the exact GRR/OUE MSE curves (Jupyter only)."""
    import ipywidgets
    import matplotlib.pyplot as plt

    def redraw(epsilon, d, n):
        grid = np.linspace(0.05, 6.0, 120)
        counts = np.bincount(np.arange(n) % d, minlength=d)  # the exact MSE does not depend on the split
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for name, cls in PROTOCOLS.items():
            ax.plot(grid, [theoretical_mse(cls(e, d), counts) for e in grid], label=f"{name} (exact)")
        for x, style, what in ((crossover_epsilon_exact(d), "-", "exact"), (crossover_epsilon_wang(d), "--", "Wang")):
            if x > 0:
                ax.axvline(x, color="grey", ls=style, lw=0.8, label=f"crossover ({what}) ε = {x:.3f}")
        ax.axvline(epsilon, color="black", lw=0.8)
        ratio = theoretical_mse(GRR(epsilon, d), counts) / theoretical_mse(OUE(epsilon, d), counts)
        ax.set(yscale="log", xlabel="privacy budget ε", ylabel="frequency MSE", title=f"d = {d}, n = {n}: MSE_GRR/MSE_OUE = {ratio:.3g} at ε = {epsilon:.2f}")
        ax.legend()
        plt.show()

    return ipywidgets.interact(
        redraw,
        epsilon=ipywidgets.FloatSlider(value=epsilon, min=0.1, max=6.0, step=0.05, description="ε"),
        d=ipywidgets.IntSlider(value=d, min=3, max=200, description="d"),
        n=ipywidgets.IntSlider(value=n, min=10, max=100_000, step=10, description="n"),
    )
