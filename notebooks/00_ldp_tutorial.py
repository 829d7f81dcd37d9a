# %% [markdown]
# # Local Differential Privacy: a tutorial, with every claim computed
#
# This notebook walks through the LDP tutorial (seed `003_aac1cd13e482cac7.txt`, in Japanese)
# section by section and checks each formula it states by exact computation or simulation.
#
# > **Learning objectives**
# > 1. State central DP and local DP and compute a mechanism's ε exactly from its output table.
# > 2. Derive the unbiased estimator of randomized response and its exact variance.
# > 3. See why local noise costs a factor √n: the error of a count grows like √n/ε, not 1/ε.
#
# All randomness flows from the `seed` parameter; the package `ldp_helpers` holds every formula.

# %% tags=["parameters"]
seed = 20261121
n_repetitions = 200  # simulated surveys per (n, ε) point; the paper profile uses 2000
save_figures = False  # the paper profile writes figures/00_ldp_tutorial/

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

from ldp_helpers.claims import ClaimsTable
from ldp_helpers.figures import save_figure, use_style
from ldp_helpers.privacy import max_privacy_loss
from ldp_helpers.randomized_response import BinaryRR, two_coin_response

use_style()
NOTEBOOK = "00_ldp_tutorial"
rng = np.random.default_rng(seed)
claims = ClaimsTable(NOTEBOOK)

# %% [markdown]
# ## 1. Differential privacy and local differential privacy
#
# **Central DP** (tutorial Eq. 1). A randomized algorithm $\mathcal K$ is ε-DP if for any two
# datasets $D_1, D_2$ differing in at most one element and every $S \subseteq \mathrm{Range}(\mathcal K)$,
# $$\Pr[\mathcal K(D_1)\in S] \le e^{\varepsilon}\,\Pr[\mathcal K(D_2)\in S].$$
# A *trusted curator* sees the raw data and adds the noise.
#
# **Local DP** (tutorial Eq. 2). Each user randomizes her own value before sending it; an
# algorithm $\pi$ is ε-LDP if for all inputs $v, v'$ and every output $y$,
# $$\Pr[\pi(v)=y] \le e^{\varepsilon}\,\Pr[\pi(v')=y].$$
# For a mechanism with finitely many outputs this is a statement about its *output table*
# $P[v, y] = \Pr[\pi(v) = y]$: the smallest valid ε is the largest log-ratio inside a column,
# which `max_privacy_loss` computes exactly. We apply it to every mechanism in this collection.

# %% [markdown]
# ## 2. Randomized response (Warner's two coins)
#
# The tutorial's procedure: toss a coin; on heads answer truthfully; on tails toss again and
# answer "Yes" on heads, "No" on tails. Hence
# $p = \Pr[\text{Yes}\mid\text{Yes}] = \tfrac12 + \tfrac14 = \tfrac34$ and
# $q = \Pr[\text{Yes}\mid\text{No}] = \tfrac14$, so the privacy loss is
# $\max\{\ln\tfrac{p}{q}, \ln\tfrac{1-q}{1-p}\} = \ln 3$.
# Below, the literal two-coin client is run on a million users of each kind and its empirical
# table is compared with the exact one.

# %%
two_coin = BinaryRR.warner_two_coin()
print("exact table P[v, y] (rows v = No, Yes; columns y = No, Yes):")
print(two_coin.output_table())
n_check = 1_000_000
empirical_yes = [two_coin_response(np.full(n_check, v), rng=rng).mean() for v in (0, 1)]
print(f"empirical Pr[Yes | No] = {empirical_yes[0]:.4f}, Pr[Yes | Yes] = {empirical_yes[1]:.4f}")
eps_two_coin = max_privacy_loss(two_coin.output_table())
print(f"privacy loss from the table: {eps_two_coin:.6f}   ln 3 = {math.log(3):.6f}")

# %% [markdown]
# ### The estimator $2(X - 0.25)$
#
# Let $\pi$ be the true fraction of "Yes" and $X$ the fraction of reported "Yes" among $n$
# users. Then $\mathbb E[X] = \pi p + (1-\pi) q$, so
# $$\hat\pi = \frac{X - q}{p - q} \quad\text{is unbiased; with } p=\tfrac34, q=\tfrac14:\quad \hat\pi = 2\,(X - 0.25),$$
# exactly the tutorial's formula. For a fixed population the reported count is a sum of
# independent Bernoulli variables, so its exact variance is
# $$\operatorname{Var}[\hat\pi] = \frac{\pi\,p(1-p) + (1-\pi)\,q(1-q)}{n\,(p-q)^2}.$$
# `BinaryRR` implements both; the general estimator agrees with $2(X-0.25)$ to rounding.

# %%
x_grid = np.linspace(0, 1, 101)
gap = np.max(np.abs(two_coin.estimate_fraction(x_grid * 1000, 1000) - 2 * (x_grid - 0.25)))
print(f"max |(X - q)/(p - q) - 2(X - 0.25)| over X in [0, 1]: {gap:.2e}")

# %% [markdown]
# ## 3. `Q_Bin(v; ε)`: randomized response at any ε
#
# Keeping the true bit with probability $e^\varepsilon/(e^\varepsilon+1)$ gives $p = e^\varepsilon/(e^\varepsilon+1)$,
# $q = 1/(e^\varepsilon+1)$ and a privacy loss of exactly ε (Warner's scheme is the case ε = ln 3).
# This is the randomizer that the m-shot and Glance notebooks use in every round.

# %%
for eps in (0.1, 0.5, 1.0, math.log(3), 2.0, 5.0):
    rr = BinaryRR.from_epsilon(eps)
    print(f"eps = {eps:.4f}: p = {rr.p:.4f}, q = {rr.q:.4f}, loss from table = {max_privacy_loss(rr.output_table()):.4f}")

# %% [markdown]
# ## 4. Estimation error versus $n$ and ε
#
# The reported count among $n$ users, $\pi n$ of them "Yes", is exactly
# $\mathrm{Bin}(\pi n, p) + \mathrm{Bin}((1-\pi)n, q)$, so `sample_count` draws a whole survey with two
# binomial draws (a test shows it matches the per-user client in distribution). Each point below
# is one simulated survey; the band is the theoretical $\pm 2\sigma$ of the exact variance.

# %%
true_fraction = 0.3
sizes = np.unique(np.round(np.logspace(2, 5, 7)).astype(int))
epsilons = (0.5, 1.0, 2.0)
arm_rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(len(epsilons))]
errors = {}
for eps, arm_rng in zip(epsilons, arm_rngs):
    rr = BinaryRR.from_epsilon(eps)
    errors[eps] = np.array([
        rr.estimate_fraction(rr.sample_count(round(true_fraction * n), n, rng=arm_rng, size=n_repetitions), n) - true_fraction
        for n in sizes
    ])

# %%
fig, axes = plt.subplots(1, len(epsilons), figsize=(10, 3.6), sharey=True)
for ax, eps in zip(axes, epsilons):
    rr = BinaryRR.from_epsilon(eps)
    sigma = np.sqrt(rr.fraction_variance(true_fraction, sizes))
    ax.fill_between(sizes, -2 * sigma, 2 * sigma, alpha=0.25, label=r"theory $\pm 2\sigma$")
    jitter = np.repeat(sizes[:, None], n_repetitions, axis=1)
    ax.scatter(jitter.ravel(), errors[eps].ravel(), s=2, alpha=0.15, color="C1", label=r"simulated $\hat\pi-\pi$")
    ax.axhline(0, color="black", lw=0.8)
    ax.set(xscale="log", xlabel="number of users $n$", title=rf"$\varepsilon = {eps:g}$")
axes[0].set_ylabel(r"estimation error $\hat\pi - \pi$ ($\pi = 0.3$)")
axes[0].set_ylim(-0.6, 0.6)
axes[0].legend(loc="upper right", markerscale=4)
fig.suptitle("Randomized response: error of the unbiased estimator")
save_figure(fig, NOTEBOOK, "rr_error_vs_n_and_epsilon", write=save_figures)
plt.show()

# %% [markdown]
# About 95.4 % of the simulated estimates should fall inside the band (the estimator is a
# scaled sum of Bernoullis, so it is close to normal for these n):

# %%
for eps in epsilons:
    sigma = np.sqrt(BinaryRR.from_epsilon(eps).fraction_variance(true_fraction, sizes))
    coverage = np.mean(np.abs(errors[eps]) <= 2 * sigma[:, None])
    print(f"eps = {eps:g}: {coverage:.1%} of {errors[eps].size} estimates inside +-2 sigma")

# %% [markdown]
# ## 5. The price of local privacy: $\sqrt n/\varepsilon$ instead of $1/\varepsilon$
#
# The tutorial says central DP needs noise of order $1/\varepsilon$ while LDP's is of order
# $\sqrt n/\varepsilon$. For randomized response the count's standard deviation is
# $\sqrt{n\,\lambda(1-\lambda)}/(p-q)$ with $\lambda = \pi p+(1-\pi)q$; as ε → 0,
# $p - q = \tanh(\varepsilon/2) \approx \varepsilon/2$ and $\lambda \to \tfrac12$, so it tends to
# $\sqrt n/\varepsilon$. The central Laplace mechanism on the count has standard deviation
# $\sqrt2/\varepsilon$, independent of $n$.

# %%
n_users = 10_000
for eps in (1.0, 0.1, 0.01):
    rr = BinaryRR.from_epsilon(eps)
    sd_count = n_users * math.sqrt(rr.fraction_variance(true_fraction, n_users))
    print(f"eps = {eps:g}: LDP count sd = {sd_count:9.1f}  = {sd_count * eps / math.sqrt(n_users):.4f} sqrt(n)/eps;"
          f"  central Laplace sd = {math.sqrt(2) / eps:7.1f}")
ldp_ratio_small_eps = n_users * math.sqrt(BinaryRR.from_epsilon(0.01).fraction_variance(true_fraction, n_users)) * 0.01 / math.sqrt(n_users)

# %% [markdown]
# ## Claims check

# %%
claims.check("two-coin RR: estimator 2(X - 0.25) equals the unbiased (X - q)/(p - q)", "§Randomized response",
             0, gap, atol=1e-12)
claims.check("two-coin RR reports truthfully w.p. 3/4 (computed from the literal coin client)", "§Randomized response",
             0.75, empirical_yes[1], atol=4 * math.sqrt(0.75 * 0.25 / n_check))
claims.check("two-coin RR is ln 3-LDP (privacy loss from its output table)", "§Randomized response (implied)",
             math.log(3), eps_two_coin, atol=1e-12)
mean_err = np.mean(errors[1.0][-1])
se = math.sqrt(BinaryRR.from_epsilon(1.0).fraction_variance(true_fraction, sizes[-1]) / n_repetitions)
claims.check("RR estimator is unbiased (mean error at n=1e5, eps=1, within 5 SE)", "§Randomized response",
             0, mean_err, atol=5 * se)
claims.check("LDP noise is of order sqrt(n)/eps (count sd x eps / sqrt(n) as eps -> 0)", "§Challenges in the local model",
             1, ldp_ratio_small_eps, atol=0.01)
print(claims)
claims_csv = claims.write_csv(write=save_figures)
