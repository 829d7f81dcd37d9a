"""Experiment drivers for the GRR vs OUE thesis (seed 004): short functions the notebook calls.

Everything rests on the protocols' exact aggregate samplers (``sample_support_counts``) and
exact variances (``count_variance``); only :func:`per_user_estimates` (the 10-user worked
example) runs the clients user by user.  MSEs are of the
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
from scipy import optimize

from ldp_helpers._validation import Described, check_counts, check_int, check_real_array, check_rng, fail
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.unary_encoding import OUE

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


def perturbed_examples(true_counts, epsilon: float, *, rng: np.random.Generator) -> dict[str, PerturbedExample]:
    """:func:`perturbed_example` for each protocol of :data:`PROTOCOLS` in turn, on one stream."""
    counts = check_counts("true_counts", true_counts)
    return {name: perturbed_example(cls(epsilon, counts.size), counts, rng=rng) for name, cls in PROTOCOLS.items()}


def per_user_estimates(protocol, values, *, runs: int, rng: np.random.Generator) -> np.ndarray:
    """``runs`` estimates L[f] from the per-user pipeline (client, then aggregator), shape (runs, d).

    Each run perturbs every user's value with the reference client (Algorithm 1 or 3), counts
    the support (Algorithm 2 line 6 / Algorithm 4 line 7) and debiases it: the thesis' worked
    examples, repeated, to check E[L[f_i]] = f_i by simulation (small n only: user by user).
    """
    runs = check_int("runs", runs, low=1)
    rng = check_rng(rng)
    n = np.asarray(values).size
    return np.array([protocol.estimate_counts(protocol.support_counts(protocol.perturb(values, rng=rng)), n)
                     for _ in range(runs)])


def total_variation(frequencies, reference) -> float:
    """Total-variation distance ``½ Σ_i |u_i − v_i|`` between two frequency vectors.

    ``frequencies`` may be *estimated* frequencies L[f_i]/n, which can be negative (then this is
    half their L1 distance to ``reference``).
    """
    u = check_real_array("frequencies", frequencies)
    v = check_real_array("reference", reference)
    if u.ndim != 1:
        fail("frequencies", Described(f"an array of shape {u.shape}"), "a 1-D array")
    if u.shape != v.shape:
        fail("reference", Described(f"an array of shape {v.shape}"), f"a 1-D array of the shape of frequencies {u.shape}")
    return float(0.5 * np.abs(u - v).sum())


def flat_counts(n: int, d: int) -> np.ndarray:
    """The flattest histogram of n records over d values (counts ⌊n/d⌋ or ⌈n/d⌉)."""
    n, d = check_int("n", n, low=1), check_int("d", d, low=2)
    return np.bincount(np.arange(n) % d, minlength=d)


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


def reversal_frequencies(true_counts, epsilons, *, n_experiments: int, repetitions: int = 100,
                         rng: np.random.Generator) -> np.ndarray:
    """Per ε, the fraction of ``n_experiments`` simulated experiments in which OUE's MSE is below GRR's.

    One experiment is the thesis' Experiment 3 at one ε: ``repetitions`` perturb-and-estimate
    runs of each protocol (:func:`empirical_mse`, OUE then GRR, on the one stream ``rng``).

    References
    ----------
    GRR/OUE thesis (004) §3.5 (100 runs per ε) and §3.6 ¶4 (OUE "slightly smaller" for ε < 1).
    """
    counts = check_counts("true_counts", true_counts)
    epsilons = check_real_array("epsilons", epsilons, low=0.0)
    n_experiments = check_int("n_experiments", n_experiments, low=1)
    rng = check_rng(rng)
    fractions = []
    for eps in epsilons.ravel():
        grr, oue = GRR(eps, counts.size), OUE(eps, counts.size)
        fractions.append(np.mean([empirical_mse(oue, counts, repetitions=repetitions, rng=rng)
                                  < empirical_mse(grr, counts, repetitions=repetitions, rng=rng) for _ in range(n_experiments)]))
    return np.array(fractions)


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


def mse_ratio(true_counts, epsilons) -> np.ndarray:
    """Exact MSE_GRR / MSE_OUE at each ε for one histogram (> 1: OUE is better)."""
    counts = check_counts("true_counts", true_counts)
    epsilons = check_real_array("epsilons", epsilons, low=0.0)
    return np.array([theoretical_mse(GRR(e, counts.size), counts) / theoretical_mse(OUE(e, counts.size), counts)
                     for e in epsilons.ravel()])


def crossover_epsilon_numeric(true_counts, *, bracket=(1e-3, 20.0)) -> float:
    """The ε where this histogram's exact GRR and OUE MSEs are equal, found by root finding.

    Independent of the closed form :func:`crossover_epsilon_exact`: it solves
    ``ln(MSE_GRR/MSE_OUE) = 0`` (Brent's method) on the given histogram, so comparing histograms
    of different n and skew shows whether either moves the crossover.

    Raises
    ------
    ValueError
        If the MSEs do not cross inside ``bracket`` (e.g. d ≤ 5: GRR better at every ε).
    """
    counts = check_counts("true_counts", true_counts)
    lo, hi = bracket

    def log_ratio(epsilon):
        return math.log(mse_ratio(counts, [epsilon])[0])

    if not log_ratio(lo) > 0 > log_ratio(hi):
        raise ValueError(f"true_counts (d = {counts.size}) must give a GRR/OUE crossover in ε ∈ [{lo:g}, {hi:g}]; "
                         f"MSE_GRR/MSE_OUE = {math.exp(log_ratio(lo)):.4g} at {lo:g} and {math.exp(log_ratio(hi)):.4g} at {hi:g}")
    return float(optimize.brentq(log_ratio, lo, hi, xtol=1e-13))


# ----------------------------------------------------------------- figures


def _mark_crossovers(ax, d: int) -> None:
    for x, style, what in ((crossover_epsilon_wang(d), "--", r"$\ln\frac{d-2}{3}$"), (crossover_epsilon_exact(d), "-.", "exact")):
        if x > 0:
            ax.axvline(x, color="grey", ls=style, lw=1, label=f"crossover {what} = {x:.3f}")


def plot_mse_curves(ax, epsilons, curves, d: int, *, repetitions: int) -> None:
    """Figs 3.7/3.8: simulated (dots), exact (solid) and Wang-approximate (dotted) MSE vs ε, crossovers marked."""
    for k, (name, curve) in enumerate(curves.items()):
        ax.plot(epsilons, curve["simulated"], "o", color=f"C{k}", label=f"{name}, simulated ({repetitions} runs/ε)")
        ax.plot(epsilons, curve["exact"], "-", color=f"C{k}", label=f"{name}, exact theory")
        ax.plot(epsilons, curve["approx"], ":", color=f"C{k}", label=f"{name}, Wang approximation")
    _mark_crossovers(ax, d)
    if crossover_epsilon_exact(d) <= 0:
        ax.text(0.03, 0.04, f"d = {d}: both crossovers at ε ≤ 0 (ln((d−2)/3) = {crossover_epsilon_wang(d):.3g}):\n"
                "GRR has the smaller expected MSE for every ε > 0", transform=ax.transAxes, fontsize=8)
    ax.set(yscale="log", xlabel="privacy budget ε", ylabel="MSE of estimated frequencies")
    ax.legend(fontsize=8)


def interactive_mse_comparison(*, epsilon=math.log(20), d=43, n=49_742):  # pragma: no cover - needs a live kernel
    """ipywidgets sliders for ε, d and n redrawing the exact GRR/OUE MSE curves (Jupyter only)."""
    import ipywidgets
    import matplotlib.pyplot as plt

    def redraw(epsilon, d, n):
        grid = np.linspace(0.05, 6.0, 120)
        counts = flat_counts(n, d)  # the exact MSE does not depend on the split
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for name, cls in PROTOCOLS.items():
            ax.plot(grid, [theoretical_mse(cls(e, d), counts) for e in grid], label=f"{name} (exact)")
        _mark_crossovers(ax, d)
        ax.axvline(epsilon, color="black", lw=0.8)
        ratio = mse_ratio(counts, [epsilon])[0]
        ax.set(yscale="log", xlabel="privacy budget ε", ylabel="frequency MSE", title=f"d = {d}, n = {n}: MSE_GRR/MSE_OUE = {ratio:.3g} at ε = {epsilon:.2f}")
        ax.legend()
        plt.show()

    return ipywidgets.interact(
        redraw,
        epsilon=ipywidgets.FloatSlider(value=epsilon, min=0.1, max=6.0, step=0.05, description="ε"),
        d=ipywidgets.IntSlider(value=d, min=3, max=200, description="d"),
        n=ipywidgets.IntSlider(value=n, min=10, max=100_000, step=10, description="n"),
    )
