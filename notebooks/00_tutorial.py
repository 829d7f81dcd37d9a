# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Local Differential Privacy: a tutorial, with every claim computed
#
# > Stored outputs are the fast smoke profile; `figures/` and the book (`make book`) show the paper profile.
#
# This notebook walks through the LDP tutorial paper ([tutorial]; the Japanese text
# `003_aac1cd13e482cac7.txt` of the collection's paper folder, which the claims follow) section by
# section and checks each formula it states by exact computation or simulation.
#
# > **Learning objectives**
# > 1. State central DP and local DP and compute a mechanism's ε exactly from its output table.
# > 2. Derive the unbiased estimator of randomized response and its exact variance.
# > 3. See why local noise costs a factor √n: the error of a count grows like √n/ε, not 1/ε.
# > 4. Run every frequency oracle the tutorial lists (DE/GRR, SUE/OUE, SHE/THE, BLH/OLH, then RAPPOR
# >    and Apple's CMS, which build on them) through one framework — encode, perturb, aggregate —,
# >    check each one's ε from its exact output table, and know when DE beats OUE/OLH
# >    (d < 3e^ε + 2) and where Wang et al.'s variance approximation fails.
# > 5. Meet the protocols behind the tutorial's last sections — heavy hitters (PEM, from
# >    [wang2021pem]: the tutorial names others), set-valued data (PSFO) and personalized LDP (PSDA) —
# >    on small examples; notebook 05 runs them in full.
#
# All randomness flows from the `seed` parameter; the package `ldp_helpers` holds every formula.
#
# Each claim of the paper is recorded in one line beside its evidence (its words are in
# `notebooks/claims/00_tutorial.yaml`); the table at the end collects them.

# %% tags=["parameters"]
seed = 20261121
n_draws = 200  # simulated surveys per (n, ε) point; the paper profile uses 2000
save_figures = False  # the paper profile writes figures/00_tutorial/

# %%
import numpy as np
import ldp_helpers as ldp  # every mechanism, protocol and simulator of the collection: ldp.GRR, ...
from ldp_helpers.bounds import tutorial as paper  # the tutorial's settings and statements, computed
from ldp_helpers.experiments import common, tutorial as runs  # its experiments
from ldp_tools.explore.panels import show_panel
from ldp_tools.pipeline import start_notebook
from ldp_tools.pipeline.decisions import by_text, close, far, gt, le, lt
from ldp_tools.pipeline.plots import tutorial as plots
claims, publish = start_notebook("00_tutorial", save_figures=save_figures)
rng = np.random.default_rng(seed)

# %% [markdown]
# ## 1. Differential privacy and local differential privacy
#
# **Central DP** (tutorial Eq. 1). A randomized algorithm $\mathcal K$ is ε-DP if for any two
# datasets $D_1, D_2$ differing in at most one element and every $S \subseteq \mathrm{Range}(\mathcal K)$,
#
# $$\Pr[\mathcal K(D_1)\in S] \le e^{\varepsilon}\,\Pr[\mathcal K(D_2)\in S].$$
#
# A *trusted curator* sees the raw data and adds the noise.
#
# **Local DP** (tutorial Eq. 2). Each user randomizes her own value before sending it; an
# algorithm $\pi$ is ε-LDP if for all inputs $v, v'$ and every output $y$,
#
# $$\Pr[\pi(v)=y] \le e^{\varepsilon}\,\Pr[\pi(v')=y].$$
#
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
two_coin = ldp.BinaryRR.warner_two_coin()
print("exact table P[v, y] (rows v = No, Yes; columns y = No, Yes):")
print(two_coin.output_table())
n_check = 1_000_000
empirical_yes = [ldp.two_coin_response(np.full(n_check, v), rng=rng).mean() for v in (0, 1)]
print(f"empirical Pr[Yes | No] = {empirical_yes[0]:.4f}, Pr[Yes | Yes] = {empirical_yes[1]:.4f}")
eps_two_coin = two_coin.privacy_loss()  # max_privacy_loss of its output table
print(f"privacy loss from the table: {eps_two_coin:.6f}   ln 3 = {paper.WARNER_EPSILON:.6f}")
se_yes = common.share_se(0.75, n_check)  # the binomial SE of the empirical Pr[Yes | Yes]
claims.check("two_coin_truthful", empirical_yes[1], atol=4 * se_yes, se=se_yes)
claims.check("two_coin_ln3", eps_two_coin, paper=paper.WARNER_EPSILON)

# %% [markdown]
# ### The estimator $2(X - 0.25)$
#
# Let $\pi$ be the true fraction of "Yes" and $X$ the fraction of reported "Yes" among $n$
# users. Then $\mathbb E[X] = \pi p + (1-\pi) q$, so
#
# $$\hat\pi = \frac{X - q}{p - q} \quad\text{is unbiased; with } p=\tfrac34, q=\tfrac14:\quad \hat\pi = 2\,(X - 0.25),$$
#
# exactly the tutorial's formula. For a fixed population the reported count is a sum of
# independent Bernoulli variables, so its exact variance is
#
# $$\operatorname{Var}[\hat\pi] = \frac{\pi\,p(1-p) + (1-\pi)\,q(1-q)}{n\,(p-q)^2}.$$
#
# `BinaryRR` implements both; the general estimator agrees with $2(X-0.25)$ to rounding.

# %%
x_grid = np.linspace(0, 1, 101)
gap = np.max(np.abs(two_coin.estimate_fraction(x_grid * 1000, 1000) - 2 * (x_grid - 0.25)))
print(f"max |(X - q)/(p - q) - 2(X - 0.25)| over X in [0, 1]: {gap:.2e}")
pi_hat = 2 * (np.array(empirical_yes) - 0.25)  # on the literal clients: all No, all Yes
z_ends = common.in_se(pi_hat - [0, 1], np.sqrt(two_coin.fraction_variance([0.0, 1.0], n_check)))
print(f"2(X - 0.25) on {n_check:,} literal clients holding No, Yes: {np.round(pi_hat, 5)} "
      f"({np.round(z_ends, 2)} SE from 0, 1)")
z_two = common.bonferroni_z(2, two_sided=True)  # both ends jointly at 99 %
claims.statement("two_coin_estimator", lt(np.max(np.abs(z_ends)), z_two), z=np.max(np.abs(z_ends)),
                 n=n_check)

# %% [markdown]
# ## 3. `Q_Bin(v; ε)`: randomized response at any ε
#
# Keeping the true bit with probability $e^\varepsilon/(e^\varepsilon+1)$ gives $p = e^\varepsilon/(e^\varepsilon+1)$,
# $q = 1/(e^\varepsilon+1)$ and a privacy loss of exactly ε (Warner's scheme is the case ε = ln 3).
# This is the randomizer that the m-shot and Glance notebooks use in every round.

# %% tags=["seed-free"]
for eps in (0.1, 0.5, 1.0, paper.WARNER_EPSILON, 2.0, 5.0):
    rr = ldp.BinaryRR.from_epsilon(eps)
    print(f"eps = {eps:.4f}: p = {rr.p:.4f}, q = {rr.q:.4f}, loss from table = "
          f"{rr.privacy_loss():.4f}")

# %% [markdown]
# ## 4. Estimation error versus $n$ and ε
#
# The reported count among $n$ users, $\pi n$ of them "Yes", is exactly
# $\mathrm{Bin}(\pi n, p) + \mathrm{Bin}((1-\pi)n, q)$, so `sample_aggregate` draws a whole survey with two
# binomial draws (a test shows it matches the per-user client in distribution). Each point below
# is one simulated survey; the band is the theoretical $\pm 2\sigma$ of the exact variance.
# Every experiment from here on draws from its own child stream of `SeedSequence(seed)` (`streams[k]`:
# 0–2 are this section's three ε, 3–8 the experiments of §6.6 and §9–13, 11 the walkthroughs of §6),
# so adding one does not shift the others.

# %%
streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(12)]
true_fraction = 0.3
sizes = np.unique(np.round(np.logspace(2, 5, 7)).astype(int))
rrs = {eps: ldp.BinaryRR.from_epsilon(eps) for eps in (0.5, 1.0, 2.0)}  # streams 0-2
errors = {eps: runs.rr_estimation_errors(rr, true_fraction, sizes, n_draws=n_draws, rng=arm)
          for (eps, rr), arm in zip(rrs.items(), streams)}
sigmas = {eps: np.sqrt(rr.fraction_variance(true_fraction, sizes)) for eps, rr in rrs.items()}
publish(plots.rr_errors(sizes, errors, sigmas, true_fraction), "rr_error_vs_n_and_epsilon")

# %% [markdown]
# About 95.4 % of the simulated estimates should fall inside the band (the estimator is a
# scaled sum of Bernoullis, so it is close to normal for these n); the mean error at the largest
# n is the unbiasedness check:

# %%
for eps in rrs:
    coverage = np.mean(np.abs(errors[eps]) <= 2 * sigmas[eps][:, None])
    print(f"eps = {eps:g}: {coverage:.1%} of {errors[eps].size} estimates inside +-2 sigma")
se = np.sqrt(rrs[1.0].fraction_variance(true_fraction, sizes[-1]) / n_draws)
claims.check("rr_unbiased", np.mean(errors[1.0][-1]), atol=5 * se, se=se)

# %% [markdown]
# ## 5. The price of local privacy: $\sqrt n/\varepsilon$ instead of $1/\varepsilon$
#
# The tutorial says central DP needs noise of order $1/\varepsilon$ while LDP's is of order
# $\sqrt n/\varepsilon$. For randomized response on a fixed population the count is a sum of
# independent Bernoullis, so its estimate has standard deviation
# $\sqrt{\pi n\,p(1-p) + (1-\pi)n\,q(1-q)}/(p-q) = \sqrt{n\,p(1-p)}/(p-q)$ (for $Q_{Bin}$, $p(1-p) = q(1-q)$,
# whatever π), i.e. exactly $\frac{\sqrt n}{\varepsilon}\cdot\frac{\varepsilon}{2\sinh(\varepsilon/2)}$: it tends to
# $\sqrt n/\varepsilon$ as ε → 0 and is a little below it at ε = 1. The central Laplace mechanism on the count has standard deviation
# $\sqrt2/\varepsilon$, independent of $n$.

# %%
n_users = 10_000
for eps in (1.0, 0.1, 0.01):  # down to eps -> 0
    rr = ldp.BinaryRR.from_epsilon(eps)
    sd_count = n_users * np.sqrt(rr.fraction_variance(true_fraction, n_users))
    ratio = paper.ldp_noise_ratio(rr, true_fraction, n_users)  # sd_count * eps / sqrt(n)
    print(f"eps = {eps:g}: LDP count sd = {sd_count:9.1f}  = {ratio:.4f} sqrt(n)/eps;  "
          f"central Laplace sd = {np.sqrt(2) / eps:7.1f}")
claims.check("ldp_noise_order", paper.ldp_noise_ratio(rr, true_fraction, n_users),  # eps = 0.01
             atol=rr.epsilon**2 / 24)  # |eps/(2 sinh(eps/2)) - 1| <= eps^2/24

# %% [markdown]
# ## 6. Frequency oracles: one framework, four families
#
# A *frequency oracle* lets each of $n$ users with a value $v\in\{0,\dots,d-1\}$ send one ε-LDP report
# and lets the server estimate every count $c(i)$. Wang et al. (2017, [wang2017] §3) describe every
# oracle of the tutorial in three steps: **encode** $v$, **perturb** the encoding, **aggregate** the
# reports. A protocol is *pure* when each report $y$ *supports* a set of values, the user's own with
# probability $p^*$ and any other fixed value with probability $q^* < p^*$. Counting the supports
# $C(i) = \sum_j 1_{\mathrm{Support}(y_j)}(i)$ gives $E[C(i)] = c(i)p^* + (n-c(i))q^*$, hence the
# unbiased estimate
#
# $$\hat c(i) = \frac{C(i) - nq^*}{p^*-q^*}, \qquad
# \mathrm{Var}[\hat c(i)] = \frac{c(i)p^*(1-p^*) + (n-c(i))q^*(1-q^*)}{(p^*-q^*)^2} .$$
#
# Wang et al. drop the $c(i)$ term: $\mathrm{Var}^* = n\,q^*(1-q^*)/(p^*-q^*)^2$ (exact when $c(i)=0$).
# The four families differ only in the encoding, hence in $p^*$, $q^*$ and the report size. Each
# subsection below runs one user's report through the per-user client (the paper's algorithm) and
# one survey of a small population through the exact aggregate sampler, at ε = ln 3, $d = 6$.
# The population is tiny on purpose ($n = 70$): the exact standard deviation printed under each
# survey, 10–20 users, swamps the counts — the $\sqrt n/\varepsilon$ price of §5 at small $n$.
# The section's other settings: the checks at ε = 1 (the table of §6.5 has $d = 6$) and the
# survey of §6.6, $n = 49{,}742$ users over $d = 43$ values (the size of [grr_vs_oue]'s clickstream data).

# %% tags=["seed-free"]
walk_eps, walk_d, walk_value = paper.WARNER_EPSILON, 6, 0  # every walkthrough reports user value 0
walk_counts = np.array([30, 20, 10, 5, 5, 0])  # n = 70 users
eps_table, d_table = 1.0, 6
n_var, d_var = 49_742, 43

# %% [markdown]
# ### 6.1 Direct encoding (DE, also called generalized randomized response, GRR)
#
# **Encode**: $v$ itself. **Perturb**: keep $v$ with probability $p^* = \frac{e^\varepsilon}{e^\varepsilon+d-1}$,
# else report one of the $d-1$ other values uniformly, each with $q^* = \frac{1}{e^\varepsilon+d-1}$
# ([wang2017] §4.1). **Aggregate**: a report supports exactly the value it names. Since
# $p^*/q^* = e^\varepsilon$, DE is ε-LDP, and
#
# $$\mathrm{Var}^* = n\,\frac{e^\varepsilon+d-2}{(e^\varepsilon-1)^2},$$
#
# which grows linearly in $d$: DE suits small domains. Worked example: at ε = ln 3, $d = 6$,
# $p^* = 3/8$ and $q^* = 1/8$; the report is a value in $\{0,\dots,5\}$ (⌈log₂ 6⌉ = 3 bits).
# Below it, the tutorial's $q = (1-p)/(|D|-1)$ is checked at ε = 1 and Var*'s increments printed;
# §9 decides the linear growth on simulated surveys.

# %%
print(runs.walkthrough_text(ldp.GRR(walk_eps, walk_d), walk_value, walk_counts, rng=streams[11]))
de_q = (1 - ldp.GRR(eps_table, d_var).p) / (d_var - 1)  # the tutorial's q = (1 - p)/(|D| - 1)
claims.check("de_q", de_q, paper=1 / (np.e + (d_var - 1)))
de_slope = np.diff([ldp.approx_variance_per_user("DE", d, eps_table) for d in (10, 11, 12)])
print(f"DE: Var*/n grows by {np.round(de_slope, 6)} per value; 1/(e-1)^2 = {(np.e - 1) ** -2:.6f}")

# %% [markdown]
# ### 6.2 Unary encoding (SUE and OUE)
#
# **Encode**: the one-hot vector $B\in\{0,1\}^d$ with $B[v]=1$. **Perturb** each bit independently: a 1
# stays 1 with probability $p$, a 0 becomes 1 with probability $q$. **Aggregate**: a report supports every
# value whose bit is 1, so $p^* = p$, $q^* = q$. Two inputs differ in two bits, so the report is
# $\ln\frac{p(1-q)}{(1-p)q}$-LDP ([wang2017] §4.2). *Symmetric* UE (RAPPOR's choice, $p+q=1$) takes
# $p = \frac{e^{\varepsilon/2}}{e^{\varepsilon/2}+1}$; *optimized* UE (OUE) minimizes the variance with $p=\tfrac12$,
# $q=\frac{1}{e^\varepsilon+1}$, which gives, whatever $d$,
#
# $$\mathrm{Var}^*_{\mathrm{OUE}} = n\,\frac{4e^\varepsilon}{(e^\varepsilon-1)^2} .$$
#
# The price is a $d$-bit report. Worked example: OUE at ε = ln 3 has $p^* = 1/2$, $q^* = 1/4$.
# (The tutorial spells it "OEU"; Wang et al. and our class say OUE.)

# %%
print(runs.walkthrough_text(ldp.OUE(walk_eps, walk_d), walk_value, walk_counts, rng=streams[11]))
print(runs.walkthrough_text(ldp.SUE(walk_eps, walk_d), walk_value, walk_counts, rng=streams[11]))
acronym = ("the tutorial writes 'Optimized Unary Encoding (OUE)' and then OEU twice "
           "(OEUは最適なパラメータで; まとめ: OEUとOLHは最適): the letters are swapped")
claims.erratum_if("oue_acronym", by_text(acronym))

# %% [markdown]
# ### 6.3 Histogram encoding (SHE and THE)
#
# **Encode**: the one-hot vector, as real numbers. **Perturb**: add independent Laplace noise of scale
# $\beta = 2/\varepsilon$ to each of the $d$ entries; two inputs differ by 2 in $L_1$, so the report is
# ε-LDP ([wang2017] §4.3). **Aggregate**: *summation* (SHE) adds the noisy vectors, an unbiased count
# with variance $n\cdot 2\beta^2 = 8n/\varepsilon^2$; *thresholding* (THE) lets a report support every
# value whose entry exceeds θ, a pure protocol with
# $p^* = 1-\tfrac12 e^{-(1-\theta)\varepsilon/2}$ and $q^* = \tfrac12 e^{-\theta\varepsilon/2}$; the θ in $(\tfrac12, 1)$
# that minimizes $\mathrm{Var}^*$ is found numerically. The report is $d$ real numbers.

# %%
print(runs.walkthrough_text(ldp.SHE(walk_eps, walk_d), walk_value, walk_counts, rng=streams[11]))
print(runs.walkthrough_text(ldp.THE(walk_eps, walk_d), walk_value, walk_counts, rng=streams[11]))

# %% [markdown]
# ### 6.4 Local hashing (BLH and OLH)
#
# **Encode**: draw a hash function $H:\{0,\dots,d-1\}\to\{0,\dots,g-1\}$ from a universal family and
# compute $x = H(v)$. **Perturb** $x$ with DE over $g$ values: $y = x$ with probability
# $\frac{e^\varepsilon}{e^\varepsilon+g-1}$. **Report** $(H, y)$; it supports every $i$ with $H(i) = y$
# ([wang2017] §4.4). The user's own value is supported when $y = x$, so $p^* = \frac{e^\varepsilon}{e^\varepsilon+g-1}$;
# another value collides with probability $q^* = 1/g$. *Binary* LH takes $g = 2$; *optimal* LH takes
# $g = e^\varepsilon + 1$ (rounded), which gives OUE's variance with a report of $O(\log d)$ bits
# (our family $h_{a,b}(x) = ((ax+b) \bmod P) \bmod g$ sends $a$, $b$ and $y$). Worked example: OLH at
# ε = ln 3 has $g = 4$, $p^* = 1/2$ and $q^* = 1/4$, exactly OUE's. A report may support no value of the
# domain at all: that is still an unbiased count.

# %%
print(runs.walkthrough_text(ldp.BLH(walk_eps, walk_d), walk_value, walk_counts, rng=streams[11]))
print(runs.walkthrough_text(ldp.OLH(walk_eps, walk_d), walk_value, walk_counts, rng=streams[11]))

# %% [markdown]
# BLH asks its hash family for $\Pr[H(x)=H(y)] \le 1/2$ ($x \ne y$). Ours is a random function (each user's
# seed starts a SplitMix64 stream, one uniform value per $x$; `mechanisms.local_hashing`), so the collision
# probability is $1/g = 1/2$: we measure the shipped client's hash on many seeds.
# The tutorial copies BLH's $\Pr[b'=1]$ into OLH, whose output ranges over $[g]$: its cases "if $b = i$"
# name an $i$ the left side never binds, so the text itself says $\Pr[b'=i]$ (the verdict is decided by
# reading); the exact row — $p$ at $H(v)$, $q$ at the $g-1$ others — sums to 1 over $[g]$.
# OLH's $g = e^\varepsilon + 1$ (the continuous optimum) gives exactly OUE's variance at ε = ln 3, where $g = 4$ is an integer.

# %%
blh20, seeds_rng = ldp.BLH(1.0, 20), np.random.default_rng(seed)  # x = 3, y = 17 of d = 20
rate, rate_se = runs.hash_collision_rate(blh20, 3, 17, n_seeds=200_000, rng=seeds_rng)
claims.statement("blh_collision", le(rate - 0.5, 4 * rate_se), rate=rate, rate_se=rate_se)
claims.check("olh_g", ldp.continuous_optimal_hash_range(eps_table), paper=np.e + 1)
olh_row = ldp.GRR(eps_table, ldp.OLH(eps_table, d_table).g).output_table()[0]  # Pr[b' = i | H(v)]
free_i = "the cases 'if b = i' bind an i that Pr[b' = 1] never names: it is Pr[b' = i], over [g]"
claims.erratum_if("olh_written_perturbation", by_text(free_i), g=olh_row.size, p=olh_row[0],
                  q=olh_row[1], row_sum=olh_row.sum())
oue_var = ldp.OUE(walk_eps, d_var).approx_variance(1)
claims.check("olh_variance", ldp.OLH(walk_eps, d_var).approx_variance(1), paper=oue_var)

# %% [markdown]
# ### 6.5 All the oracles side by side
#
# Below: every oracle's $p^*, q^*$, the ε of its
# whole report computed exactly by `privacy_loss()` (DE: the $d\times d$ table; SUE/OUE: all $2^d$ bit
# vectors; BLH/OLH: all $g^d$ hash functions; THE: its report is SHE's Laplace vector, so its loss comes
# from the densities), and its approximate variance per user.

# %% tags=["seed-free"]
table_classes = {"DE": ldp.GRR, "SUE": ldp.SUE, "OUE": ldp.OUE, "BLH": ldp.BLH, "OLH": ldp.OLH,
                 "THE": ldp.THE}
table_oracles = {name: cls(eps_table, d_table) for name, cls in table_classes.items()}
table_loss = {name: o.privacy_loss() for name, o in table_oracles.items()}  # THE: its densities
she = ldp.SHE(eps_table, d_table)
she_loss = she.privacy_loss()  # sup of the log density ratio, from the Laplace densities
print(f"eps = {eps_table:g}, d = {d_table}")
print("oracle       p*       q*    p*/q* eps (report)    Var*/n")
for name, o in table_oracles.items():
    print(f"{name:<6} {o.p:8.4f} {o.q:8.4f} {o.p / o.q:8.4f} {table_loss[name]:12.6f} "
          f"{o.approx_variance(1):9.3f}")
she_per_user = she.variance(np.ones(d_table, dtype=np.int64))[0] / d_table  # 8/eps^2, exact
print(f"SHE    (Laplace, beta = 2/eps)    {she_loss:12.6f} {she_per_user:9.3f}")
the = table_oracles["THE"]
the_bits_loss = ldp.max_privacy_loss(ldp.unary_output_table(the.p, the.q, d_table))
print(f"THE threshold theta = {the.theta:.3f}; the thresholded bits alone would leak "
      f"{the_bits_loss:.3f} < eps = {eps_table:g}")
for name in ("DE", "OUE", "SUE", "BLH", "OLH"):
    claims.check(f"{name.lower()}_ldp", table_loss[name])
ratios = [o.p / o.q if o.q > 0 else np.inf for o in table_oracles.values()]
claims.statement("pure_ldp", le(max(ratios), np.e * (1 + 1e-12)), ratio=max(ratios), e=np.e)

# %% [markdown]
# SHE's reports are continuous, so its ε comes from the densities instead of a table:
# $\ln\frac{f(y\mid v)}{f(y\mid v')} = \frac{\|y-e_{v'}\|_1 - \|y-e_v\|_1}{\beta} \le \frac{\|e_v-e_{v'}\|_1}{\beta} = \frac2\beta = \varepsilon$,
# attained at $y = e_v$ (`SHE.privacy_loss`).
# THE's client sends that same Laplace report, so its whole-report loss is ε too; the server's
# thresholded bits are post-processing and alone would leak less (printed above). The threshold θ
# (found numerically, inside Wang et al.'s $(\tfrac12, 1)$) buys a lower variance than SHE's
# $8/\varepsilon^2$. Every oracle has $p^*/q^* \le e^\varepsilon$ and $q^* > 0$, as the tutorial requires.
# The row on SHE does not trust the maximizer: it also takes the largest ratio over a grid of reports
# (the coordinates v and v' over [-1, 2]; the others cancel).

# %% tags=["seed-free"]
y_coords = np.linspace(-1.0, 2.0, 61)  # y_v and y_v' of the reports tried; e_v is among them
y_grid = np.zeros((y_coords.size**2, d_table))
y_grid[:, 0], y_grid[:, 1] = np.repeat(y_coords, y_coords.size), np.tile(y_coords, y_coords.size)
she_sup = float(she.log_density_ratio(y_grid, 0, 1).max())
print(f"SHE: largest log ratio over {len(y_grid)} reports {she_sup:.6f}, at e_v {she_loss:.6f}")
claims.check("she_ldp", max(she_sup, she_loss), points=len(y_grid))

# %% [markdown]
# ### 6.6 Exact, approximate and simulated variance
# At $n = 49{,}742$, $d = 43$ we draw `n_draws` surveys per ε with each oracle's exact aggregate
# sampler and compare the empirical variance of $\hat c(i)$ for the most frequent value
# ($f_i/n = 0.3$) with the exact formula (lines) and Wang's approximation (dashed).

# %%
frequent_share = 0.3
var_counts = np.r_[round(frequent_share * n_var), np.full(d_var - 1, 0)]
var_counts[1:] = np.diff(np.linspace(0, n_var - var_counts[0], d_var).round().astype(int))
eps_var = np.array([0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0])
var_classes = {"DE": ldp.GRR, "SUE": ldp.SUE, "OUE": ldp.OUE, "OLH": ldp.OLH, "THE": ldp.THE}
var_study = runs.variance_study(var_classes, eps_var, d_var, var_counts, 0, n_draws=n_draws,
                               rng=streams[3])  # name -> (simulated, exact, approx) over eps_var
simulated_var, exact_var, approx_var = ({n: v[k] for n, v in var_study.items()} for k in (0, 1, 2))
publish(plots.variance_vs_epsilon(eps_var, var_study, n=n_var, d=d_var, share=frequent_share,
                                  n_draws=n_draws), "fig_variance_exact_vs_approx")

# %% [markdown]
# Where is the approximation visibly off? For a value held by a fraction $\phi$ of users, the exact
# variance is the approximation times $1 + \phi\big(\frac{p^*(1-p^*)}{q^*(1-q^*)} - 1\big)$. For OUE
# $p^*(1-p^*) = \tfrac14$ while $q^*(1-q^*)\approx e^{-\varepsilon}$, so the ratio grows like $\phi e^\varepsilon/4$; for DE it
# tends to $1+\phi(d-2)$. The first ε at which the approximation is more than 10 % low ($\phi = 0.3$);
# then the tutorial's comparisons of SUE with OUE and SHE with THE, at every ε of the study:

# %%
for name in var_classes:
    ratio = exact_var[name] / approx_var[name]
    off = eps_var[ratio > 1.1]
    first = off[0] if off.size else "none"
    print(f"{name}: exact/approx at eps = {eps_var[0]:g} is {ratio[0]:.3f}, "
          f"at eps = {eps_var[-1]:g} is {ratio[-1]:.3g}; first eps with > 10% gap: {first}")
sim_ratio = np.concatenate([simulated_var[name] / exact_var[name] for name in var_classes])
print(f"simulated/exact variance over all points: {sim_ratio.min():.3f} .. {sim_ratio.max():.3f}")
oue_over_sue = [ldp.OUE(e, d_var).approx_variance(1) / ldp.SUE(e, d_var).approx_variance(1)
                for e in eps_var]
claims.statement("oue_beats_sue", lt(max(oue_over_sue), 1.0),
                 epsilons=", ".join(f"{e:g}" for e in eps_var))
ones = np.ones(d_var, dtype=np.int64)
she_var = {e: ldp.SHE(e, d_var).variance(ones)[0] / d_var for e in eps_var}  # exact, 8/eps^2 a user
the_var = {e: ldp.THE(e, d_var).approx_variance(1) for e in eps_var}
the_over_she = max(the_var[e] / she_var[e] for e in eps_var)
claims.statement("the_beats_she", lt(the_over_she, 1.0), the=the_var[1.0], she=she_var[1.0])

# %% [markdown]
# ## 7. RAPPOR: permanent and instantaneous randomized response
#
# RAPPOR ([erlingsson2014]) is unary encoding (§6.2) over a Bloom filter, with a memoized first
# perturbation. A value is hashed into a Bloom filter $B$ of $k$ bits with $h$ hash functions. The
# **permanent** randomized response (PRR) memoizes $B'_i = 1$ w.p. $f/2$, $0$ w.p. $f/2$,
# $B_i$ w.p. $1-f$; the **instantaneous** one (IRR) reports $S_i = 1$ w.p. $q$ if $B'_i=1$ and
# $p$ if $B'_i = 0$ (RAPPOR's naming: $q > p$). Composing them bit by bit,
#
# $$q^* = \Pr[S_i=1\mid B_i=1] = \tfrac12 f(p+q) + (1-f)q,\qquad p^* = \Pr[S_i=1\mid B_i=0] = \tfrac12 f(p+q) + (1-f)p .$$
#
# **Erratum.** The tutorial prints $p' = \tfrac12 f(p+1) + (1-f)p$: the $1$ must be $q$ (a bit that is 0
# stays 0 through the PRR w.p. $1-f/2$, and the PRR's "set to 1" branch reports 1 w.p. $q$).
# Its two privacy levels are the PRR's $\varepsilon_1 = 2h\ln\frac{1-f/2}{f/2}$ (one report of $B'$,
# or the longitudinal bound) and one full report's $\varepsilon_2 = h\ln\frac{q^*(1-p^*)}{p^*(1-q^*)}$.
# We take RAPPOR's parameters from `ldp_helpers.mechanisms.rappor`, the collection's RAPPOR mechanism
# (PRR, IRR and their exact output tables), check both ε exactly from the output tables of two values
# whose Bloom filters are disjoint (the worst case), and read $q'$ and $p'$ off the PRR × IRR table product.

# %% tags=["seed-free"]
rappor = ldp.RapporParams(k=8, h=2, m=1, f=0.5, p=0.5, q=0.75)
disjoint_blooms = np.array([[1, 1, 0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0, 0, 0]])
eps_prr_table = ldp.max_privacy_loss(ldp.report_table(disjoint_blooms, rappor.prr_bit_table()))
eps_report_table = ldp.max_privacy_loss(ldp.report_table(disjoint_blooms, rappor.bit_table()))
irr = ldp.RapporParams.basic_one_time(rappor.k, rappor.h, rappor.m, p=rappor.p, q=rappor.q)
prr_then_irr = rappor.prr_bit_table() @ irr.bit_table()  # [b, s] = sum_b' Pr[b' | b] Pr[s | b']
printed_p_star = paper.tutorial_printed_p_star(rappor.f, rappor.p)
print(f"q* = {rappor.q_star:.4f}, p* = {rappor.p_star:.4f}; printed p' = {printed_p_star:.4f}")
print(f"eps_1 (PRR only): formula {rappor.epsilon_permanent:.4f}, exact table {eps_prr_table:.4f}")
print(f"eps_2 (one report): formula {rappor.epsilon_one_report:.4f}, table {eps_report_table:.4f}")
print(f"PRR x IRR table: q* = Pr[S=1|B=1] = {prr_then_irr[1, 1]:.4f}, "
      f"p* = Pr[S=1|B=0] = {prr_then_irr[0, 1]:.4f}")
claims.check("rappor_eps1", eps_prr_table, paper=rappor.epsilon_permanent)
claims.check("rappor_eps2", eps_report_table, paper=rappor.epsilon_one_report)
claims.check("rappor_q_prime", prr_then_irr[1, 1], paper=rappor.q_star)
claims.erratum("rappor_p_prime", prr_then_irr[0, 1], paper=printed_p_star)

# %% [markdown]
# ## 8. Apple's count-mean sketch (CMS)
#
# Apple's sketch ([apple2017]) combines local hashing (§6.4) with a ±1 version of unary encoding (§6.2).
# The client picks one of $k$ hash functions $h_j:\mathcal D\to[m]$, writes $+1$ at $h_j(x)$ and $-1$
# elsewhere, flips every entry w.p. $1/(1+e^{\varepsilon/2})$ and sends $(\tilde v, j)$. Two inputs differ
# in at most two entries, each flip is $\varepsilon/2$-LDP, so one report is ε-LDP. The server adds
# $k\,(\tfrac{c_\varepsilon}{2}\tilde v + \tfrac12)$, $c_\varepsilon = \frac{e^{\varepsilon/2}+1}{e^{\varepsilon/2}-1}$, to row $j$
# of the sketch and answers a query with the **mean** (not the minimum) over rows, debiased for
# hash collisions: $\hat f(x) = \frac{m}{m-1}\big(\frac1k\sum_j M_{j,h_j(x)} - \frac nm\big)$.
# (The tutorial calls $M$ "$m\times k$", but its own step 3 fills one row per hash function
# (各ハッシュ関数に…各行): $k\times m$. Our sketch follows step 3.)
# The exact aggregate sampler draws the whole sketch of $n$ users with $k\cdot m$ binomials. The
# mean query is unbiased, as every frequency oracle's estimate of §6 was (the check below pools both).

# %%
cms_eps = 2.0
eps_cms_table = ldp.CountMeanSketch.create(cms_eps, 5, 2, 6, rng=rng).privacy_loss()
print(f"CMS (eps = {cms_eps:g}, k = 2, m = 6): privacy loss from the (j, v~) table = "
      f"{eps_cms_table:.6f}")
cms = ldp.CountMeanSketch.create(cms_eps, 200, 16, 256, rng=rng)
emoji_counts = ldp.power_law_counts(1_000_000, 200, 1.2)
cms_z = runs.cms_mean_z_scores(cms, emoji_counts, n_draws=n_draws // 4, rng=rng)
print(f"n = {emoji_counts.sum():,} users, d = 200 values: max |z| of the mean estimate vs its "
      f"exact mean = {np.max(np.abs(cms_z)):.2f}")
print(f"sd of one estimate (exact) = {np.sqrt(cms.variance(emoji_counts)).mean():.4g} users")
sketch_shape = cms.sample_aggregate(emoji_counts, rng=rng).shape
claims.check("cms_ldp", eps_cms_table)
rows, columns = sketch_shape
one_row_per_hash = ("step 3 reads, for each hash function, the column obtained in each row "
                    "(各ハッシュ関数にdを入力し、各行で得られた列の値を調べる): k rows, so M is k x m")
claims.erratum_if("cms_shape", by_text(one_row_per_hash), rows=rows, columns=columns, k=cms.k,
                  m=cms.m)
# with §6.6: the largest deviation, in SE, of a simulated variance (SE of s^2/sigma^2: sqrt(2/(R-1)))
ratio_z = np.max(np.abs(sim_ratio - 1)) / common.variance_ratio_se(n_draws)  # in its SD
worst_z = max(ratio_z, np.max(np.abs(cms_z)))
z_joint = common.bonferroni_z(sim_ratio.size + cms_z.size, two_sided=True)  # all tests at 99 %
claims.statement("unbiased_exact_variance", lt(worst_z, z_joint), low=sim_ratio.min(),
                 high=sim_ratio.max(), z=np.max(np.abs(cms_z)))

# %% [markdown]
# Tang et al. (cited by the tutorial) found a per-report ε of 1–2 and a daily privacy loss of up to
# 16. The tutorial writes that 16 reports a day are allowed (一日に16回まで許されている), so that the
# daily ε can reach 16 (一日のεは16にもなることがある). By sequential composition 16 reports at ε = 1
# compose to 16; at the tutorial's upper ε = 2 they compose to 32, so read as the maximum the 16
# understates. It likely mirrors Tang et al.'s daily loss itself, and '16回まで' a loose paraphrase of
# that budget: ambiguous (the row gives both readings), not an error.
#
# We check the composition exactly: the output table of 16 independent $Q_{Bin}$ reports (all $2^{16}$ answer
# tuples) has privacy loss computed by `max_privacy_loss`.

# %%
per_day = paper.APPLE_REPORTS_PER_DAY  # 16 a day, as the tutorial reads Tang et al.
daily_eps = {eps: paper.composed_privacy_loss(ldp.BinaryRR.from_epsilon(eps).output_table(),
                                              per_day) for eps in paper.APPLE_EPSILON_PER_REPORT}
for eps, loss in daily_eps.items():
    print(f"{per_day} reports/day at eps = {eps:g}: daily eps from the composed table = {loss:.6g}")
claims.ambiguous_if("daily_eps", far(daily_eps[2.0], 16, 1e-9), one=daily_eps[1.0],
                    upper=daily_eps[2.0])  # is 16 also the most the tutorial's numbers allow?

# %% [markdown]
# ## 9. Which oracle? The phase diagram over $(d, \varepsilon)$
#
# With Wang's approximations, $\mathrm{Var}_{DE} = \frac{e^\varepsilon+d-2}{(e^\varepsilon-1)^2}$ grows linearly in $d$
# while $\mathrm{Var}_{OUE} = \frac{4e^\varepsilon}{(e^\varepsilon-1)^2}$ does not depend on it; DE is smaller iff
# $e^\varepsilon + d - 2 < 4e^\varepsilon$, i.e. $d < 3e^\varepsilon + 2$. OLH, with $g = e^\varepsilon + 1$, has exactly
# OUE's variance (with the integer $g = \mathrm{round}(e^\varepsilon)+1$ slightly more) at a communication
# cost of $O(\log d)$ bits instead of $d$. The left panel colours the best of DE/OUE/OLH on a grid;
# the right panel overlays simulated variances (exact aggregate samplers) on the exact and
# approximate curves at ε = 1 (at small d every value is frequent, so OUE's exact variance sits
# above its approximation and the exact curves cross slightly below 10.2).

# %%
grid_d = np.unique(np.round(np.logspace(np.log10(2), 3, 60)).astype(int))
grid_eps = np.linspace(0.1, 5, 50)
best, _ = ldp.best_protocol_grid(grid_d, grid_eps)
phase_eps, users_per_value, phase_classes = 1.0, 1000, {"DE": ldp.GRR, "OUE": ldp.OUE}
sim_d, curve_d = np.array([2, 4, 8, 16, 32, 64, 128]), np.arange(2, 129)
simulated = runs.uniform_variance_per_user(phase_classes, phase_eps, sim_d, users_per_value,
                                           n_draws=n_draws, rng=streams[4])
exact = runs.uniform_variance_per_user(phase_classes, phase_eps, curve_d, users_per_value)
(v_lo, v_hi), d_lo, d_hi = simulated["DE"][-2:], *sim_d[-2:]  # the two largest d simulated
step, line_step = (v_hi - v_lo) / (d_hi - d_lo), np.expm1(phase_eps) ** -2  # per added value
step_se = np.hypot(v_lo, v_hi) * common.variance_ratio_se(n_draws) / (d_hi - d_lo)
z_step = (step - line_step) / step_se
claims.statement("de_linear", lt(abs(z_step), common.bonferroni_z(1, two_sided=True)), z=z_step,
                 step=step, line=line_step, d_lo=d_lo, d_hi=d_hi)  # simulated DE along the line
approx = {name: np.array([ldp.approx_variance_per_user(name, int(d), phase_eps) for d in curve_d])
          for name in phase_classes}
fig = plots.phase_diagram(grid_d, grid_eps, best, curve_d=curve_d, exact=exact, approx=approx,
                          sim_d=sim_d, simulated=simulated, epsilon=phase_eps,
                          users_per_value=users_per_value)
publish(fig, "fig_phase_diagram_de_vs_oue")

# %% [markdown]
# The rule, checked where the approximate variances switch, and the communication cost that makes
# OLH the choice for large domains:

# %%
rule_eps = (0.5, 1.0, 2.0)
crossing = [ldp.first_d_where_oue_wins(e) for e in rule_eps]  # bisection on the variances
off_by = max(abs(c - np.floor(ldp.de_threshold(e)) - 1) for c, e in zip(crossing, rule_eps))
claims.statement("de_rule", close(off_by, 0, 0), crossing=crossing)
olh_bits = {d: ldp.OLH(eps_table, d).report_bits for d in (2**10, 2**20)}
oue_bits = {d: ldp.OUE(eps_table, d).report_bits for d in (2**10, 2**20)}
print(f"report bits at eps = {eps_table:g}: OLH {olh_bits}, OUE {oue_bits}")
grows = {name: bits[2**20] / bits[2**10] for name, bits in (("olh", olh_bits), ("oue", oue_bits))}
worst = max(grows["olh"] / 2, 2**10 / grows["oue"])  # <= 1: OLH within log d, OUE at least d
claims.statement("olh_bits", le(worst, 1.0), olh=olh_bits[2**10], olh_large=olh_bits[2**20],
                 oue_small=oue_bits[2**10], oue_large=oue_bits[2**20])

# %% [markdown]
# ## 10. Post-processing is a choice
#
# The unbiased estimates can be negative and need not sum to $n$. Clipping and renormalizing
# (multi-freq-ldpy's default) or projecting onto the simplex gives a valid histogram but biases
# rare values upwards. On a sparse distribution (half the values absent), OUE at ε = 1:

# %%
pp_eps, pp_counts = 1.0, np.r_[np.full(16, 2000), np.zeros(16, int)]
pp_summary = runs.postprocessing_summary(ldp.OUE(pp_eps, pp_counts.size), pp_counts,
                                        n_draws=n_draws,
                                        rng=streams[5])
for method, (absent_mean, mse) in pp_summary.items():
    print(f"{method:>9}: mean estimate of an absent value = {absent_mean:8.1f}, "
          f"MSE per value = {mse:10.4g}")

# %% [markdown]
# ## 11. Heavy hitters: prefix extension over OLH (PEM)
#
# The tutorial names the heavy-hitter protocols (succinct histograms [bassily2015], TreeHist and
# Bitstogram [bassily2017], PrivateExpanderSketch [bun2018]); `ldp_helpers.protocols.heavy_hitters`
# implements PEM [wang2021pem], TreeHist and Bitstogram over OLH, and notebook 05 compares them.
# Here PEM on 12-bit values: users are split in groups that report longer and longer prefixes with
# OLH (ε = 2); each round scores only the extensions of the k = 5 best prefixes so far, so the server
# never enumerates the $2^{12}$ domain.

# %%
hh_rng, hh_bits = streams[6], 12
planted = np.array([123, 3000, 777, 4001, 2048])
hh_values = np.r_[np.repeat(planted, [6000, 5000, 4000, 3000, 2000]),
                  hh_rng.integers(0, 2**hh_bits, 30_000)]  # 20,000 heavy, 30,000 uniform users
found = ldp.pem(hh_values, hh_bits, 2.0, planted.size, eta=2, rng=hh_rng)
true_hh = np.bincount(hh_values, minlength=2**hh_bits)
print(f"prefix lengths per group: {found.lengths}\nvalue  estimate  true count")
for value, est in zip(found.values, found.estimates):
    print(f"{value:5d}  {est:8.0f}  {true_hh[value]:10d}")
claims.check("pem_recall", len(set(found.values[:5]) & set(planted)) / 5)

# %% [markdown]
# ## 12. Set-valued data: padding and sampling (PSFO)
#
# The tutorial's itemset-mining protocols ([wang2018svim]'s SVIM and SVSM, [qin2016]'s LDPMiner) are
# built on PSFO (`ldp_helpers.PSFO`, a mechanism of the registry); notebook 05 runs them end to end.
# A user pads her item set to size ℓ with dummy items, samples one item and reports it; counts
# are scaled by ℓ. For GRR, sampling amplifies privacy: reporting w.p. $q' + (p'-q')[y\in S]/\ell$
# gives the loss $\ln(1 + (e^{\varepsilon'}-1)/\ell)$, so GRR may run at $\varepsilon' = \ln(\ell(e^\varepsilon-1)+1)$. We check that
# exactly over all sets, then compare ℓ²-scaled variances of GRR at ε' and OLH at ε:
# GRR is better iff $|I| < (4\ell^2-\ell)e^\varepsilon + 1$. **Erratum.** The tutorial says GRR is used when
# $|J| > (4\ell^2-\ell)e^\varepsilon+1$; the inequality is reversed (GRR wins for *small* domains; at ℓ = 1 the
# rule reduces to DE's $d < 3e^\varepsilon + 2$ with the one dummy item).

# %%
sv_eps = 1.0
psfo_loss = {ell: ldp.PSFO(sv_eps, 4, ell).privacy_loss() for ell in (1, 2, 3)}  # over all 16 sets
print(f"privacy loss of pad-and-sample + GRR(eps'), eps = {sv_eps:g}, d = 4:",
      {ell: round(v, 9) for ell, v in psfo_loss.items()})
claims.check("psfo_amplification", psfo_loss[3])
for ell in (1, 2, 4):
    th = ldp.grr_threshold(sv_eps, ell)
    below, above = int(np.floor(th)), int(np.ceil(th))
    print(f"ell = {ell}: threshold {th:7.2f}; GRR preferred at |I| = {below}: "
          f"{ldp.grr_preferred(below, sv_eps, ell)}, at |I| = {above}: "
          f"{ldp.grr_preferred(above, sv_eps, ell)}")
baskets = ldp.random_baskets(20_000, 10, 3, np.linspace(2, 0.2, 10), rng=streams[7])
psfo = ldp.PSFO(sv_eps, 10, 3)  # GRR at the amplified eps'
psfo_est = psfo.estimate(psfo.sample_aggregate(baskets, rng=streams[7]), len(baskets))
print("item holders:", np.bincount(np.concatenate(baskets), minlength=10).tolist())
print("PSFO (GRR):  ", np.round(psfo_est).astype(int).tolist())

# %% [markdown]
# The SVIM verdict is decided by which side of the threshold GRR wins: at ℓ = 2, with $|I| + \ell$ items
# just above the threshold, is GRR's variance (at the amplified ε') above OUE's (OLH's at its optimal
# $g = e^\varepsilon + 1$)?

# %%
sv_ell = 2
sv_th = ldp.grr_threshold(sv_eps, sv_ell)
below, above = int(np.floor(sv_th)), int(np.ceil(sv_th))
wins = [ldp.grr_preferred(d, sv_eps, sv_ell) for d in (below, above)]  # GRR preferred at |I| = d?
sv_d = above + sv_ell  # |I| + l items just above the threshold
sv_ratio = (ldp.GRR(ldp.amplified_grr_epsilon(sv_eps, sv_ell), sv_d).approx_variance(1)
            / ldp.OUE(sv_eps, sv_d).approx_variance(1))
claims.erratum_if("svim_rule", gt(sv_ratio, 1.0), ell=sv_ell, eps=sv_eps, threshold=sv_th,
                  ratio=sv_ratio, below=below, above=above, grr_below=wins[0], grr_above=wins[1])

# %% [markdown]
# ## 13. Personalized LDP: safe regions
#
# Chen et al.'s (τ, ε)-PLDP ([chen2016pldp]; `ldp_helpers.protocols.personalized`) lets each user
# choose a *safe region* τ — a node of a location taxonomy — inside which her location must stay
# ε-indistinguishable; τ = the root is ε-LDP. PSDA groups users by safe region and runs one PCEP
# per group over that region's locations only, so a user adds noise only to her region's counts.
# A small taxonomy (4 regions × 5 locations, 20,000 users, ε = 1, β = 0.1): each user's safe region
# is her location's parent, against everyone at τ = root. Notebook 05 follows the error as β varies.
#
# The tutorial's definition prints the ratio $\Pr[\pi(l)\in O] / \pi(l')\in O$: its denominator lacks
# $\Pr$. The tutorial's formulas are its author's own LaTeX, and its LDP definition (§Local Differential
# Privacy) keeps both $\Pr$, so this is the author's slip (a typo), not a conversion loss. The definition
# also names "two locations $l, l'$" without saying how τ restricts them (Chen et al. take $l, l' \in \tau$):
# underspecified, so *ambiguous*. What each reading gives, on a mechanism built to Chen's definition (ours):
# the region by GRR at ε = 2, then the location by GRR at ε = 1 within the reported region if it is hers,
# uniformly otherwise.

# %%
pl_rng, pl_tree = streams[8], ldp.Taxonomy.regular((4, 5))
pl_leaves = pl_tree.locations
pl_share = np.r_[np.full(5, 0.1), np.full(15, 0.5 / 15)]  # region 1's locations hold half the users
pl_locations = pl_rng.choice(pl_leaves, size=20_000, p=pl_share)
pl_truth = np.bincount(np.searchsorted(pl_leaves, pl_locations), minlength=pl_leaves.size)
pl_regions = {"parent region": np.array([pl_tree.parent[x] for x in pl_locations]),
              "root (eps-LDP)": np.zeros(pl_locations.size, dtype=int)}
for name, regions in pl_regions.items():
    estimate = ldp.psda_counts(pl_locations, regions, pl_tree, 1.0, 0.1, rng=pl_rng)  # eps, beta
    error = np.abs(estimate - pl_truth).max()
    print(f"safe region = {name:<15}: max |count error| over 20 locations = {error:7.1f} users")
pldp_slip = ("the printed denominator pi(l') in O is an event, not a probability; the tutorial's "
             "LDP definition (§Local Differential Privacy) prints Pr in both numerator and "
             "denominator")
claims.erratum_if("pldp_definition", by_text(pldp_slip))

# %%
pl_region, pl_inside = ldp.GRR(2.0, 4).output_table(), ldp.GRR(1.0, 5).output_table()
pl_uniform = np.full((5, 5), 0.2)  # the location within a region that is not hers
pl_own = np.kron(np.diag(np.diag(pl_region)), pl_inside - pl_uniform)  # her own region: GRR inside
pl_table = np.kron(pl_region, pl_uniform) + pl_own
pl_parents = {pl_tree.parent[x] for x in pl_leaves}
pl_tau = max(ldp.pldp_loss(pl_table, pl_tree, r) for r in pl_parents)
pl_any = ldp.pldp_loss(pl_table, pl_tree, pl_tree.root)  # any two locations, as printed
print(f"loss over l, l' in tau (Chen et al.): {pl_tau:.6g}; over any two locations: {pl_any:.6g}")
claims.ambiguous_if("pldp_tau_missing", far(pl_any, pl_tau, 1e-9), chen=pl_tau, printed=pl_any)

# %% [markdown]
# ## 14. Explore
#
# Two live panels: the frequency-oracle playground (any registered oracle, ε, $d$, $n$ and a
# population; one exact survey with ±2σ bands, the whole-report ε from its table, the report size in
# bits and where $(d, \varepsilon)$ lies on the DE / OUE / OLH phase diagram), set here to §6.6's
# $d = 43$ at ε = 1, and the exact MSE of every oracle vs ε. Without a running kernel (a batch run,
# nbval, the book) each shows its first figure instead.

# %% tags=["seed-free"]
playground = show_panel("playground", mechanism_key="oue", epsilon=eps_table, d=d_var, n=n_var,
                        population="zipf")
privacy_utility = show_panel("privacy_utility", epsilon=eps_table, d=d_var, n=n_var)

# %% [markdown]
# ## Claims check
#
# Every claim was recorded above, in the cell that computes its evidence; the words of each row
# (what the tutorial says, its section, our finding) are in `notebooks/claims/00_tutorial.yaml`.
# The table:

# %%
claims_csv = claims.write_csv(write=save_figures)
claims  # the table, rendered as Markdown (verdicts other than reproduced in bold)

# %% [markdown]
# ## Takeaways
#
# 1. A mechanism's ε is a property of its output table and can be computed exactly: Warner's
#    two coins give ln 3, $Q_{\rm Bin}$ gives any ε, and every frequency oracle's whole report
#    (DE, SUE/OUE, BLH/OLH, SHE/THE, RAPPOR, CMS) was checked this way.
# 2. Debiasing is linear: $\hat\pi = (X-q)/(p-q)$ (Warner: $2(X-0.25)$) and
#    $\hat c(i) = (C_i - nq^*)/(p^*-q^*)$ are unbiased with exact variances that the simulations
#    follow. The price of local privacy is a count error of order $\sqrt n/\varepsilon$, where
#    the central Laplace mechanism needs only $\sqrt2/\varepsilon$.
# 3. Which oracle: DE (GRR) has the smaller approximate variance when $d < 3e^\varepsilon + 2$,
#    OUE and OLH otherwise (OLH matches OUE's variance with $O(\log d)$ bits); Wang et al.'s
#    approximation drops the $c(i)$ term and understates the variance of frequent values.
#
# ## Exercises
#
# **Exercise 1 (compute).** Direct encoding (GRR) with ε = ln 3 and $d = 4$: compute
# $p^* = e^\varepsilon/(e^\varepsilon+d-1)$ and $q^* = 1/(e^\varepsilon+d-1)$. Among $n = 600$
# reports the four values are reported 200, 150, 150 and 100 times. Estimate the true counts
# with $\hat c(i) = (C_i - nq^*)/(p^*-q^*)$ and check that they sum to $n$.

# %% tags=["hide-input", "solution"]
grr_ln3 = ldp.GRR(paper.WARNER_EPSILON, 4)
assert abs(grr_ln3.p - 1 / 2) < 1e-12 and abs(grr_ln3.q - 1 / 6) < 1e-12
c_hat = grr_ln3.estimate(np.array([200, 150, 150, 100]), 600)
assert np.allclose(c_hat, [300, 150, 150, 0], atol=1e-9) and abs(c_hat.sum() - 600) < 1e-9
print(f"p* = {grr_ln3.p:.4g}, q* = {grr_ln3.q:.4g}")
print("estimated counts: " + ", ".join(f"{x:.4g}" for x in c_hat) + f" (sum = {c_hat.sum():.4g})")

# %% [markdown]
# **Exercise 2 (derive, then change a parameter and predict).** For $Q_{\rm Bin}$,
# $p(1-p) = q(1-q)$, so $\operatorname{Var}[\hat\pi] = \frac{e^\varepsilon}{n(e^\varepsilon-1)^2}$
# whatever π. Compute the standard deviation of Warner's estimator at $n = 1000$, π = 0.3, then
# predict how many users ε = 1 needs for the same standard deviation.

# %% tags=["hide-input", "solution"]
sd_warner = np.sqrt(two_coin.fraction_variance(0.3, 1000))
assert abs(sd_warner - np.sqrt(3 / (1000 * 4))) < 1e-12  # e^eps / (e^eps - 1)^2 = 3/4 at ln 3
var_one_user = ldp.BinaryRR.from_epsilon(1.0).fraction_variance(0.3, 1)  # e / (e - 1)^2
n_same = int(np.ceil(var_one_user / sd_warner**2))
assert abs(var_one_user - np.e / (np.e - 1) ** 2) < 1e-12 and n_same == 1228
print(f"sd of 2(X - 0.25) at n = 1000 = {sd_warner:.4g}")
print(f"users needed at eps = 1 for the same sd: n = {n_same}")

# %% [markdown]
# **Exercise 3 (change a parameter and predict).** At ε = 1, Wang et al.'s rule says DE beats OUE
# iff $d < 3e + 2 \approx 10.15$. Predict which is better at $d = 10$ and at $d = 11$, and check
# with the approximate variances per user. Where does the switch move at ε = 2?

# %% tags=["hide-input", "solution"]
for d_ex in (10, 11):
    var_de, var_oue = (ldp.approx_variance_per_user(name, d_ex, 1.0) for name in ("DE", "OUE"))
    assert (var_de < var_oue) == (d_ex < ldp.de_threshold(1.0))
    print(f"eps = 1, d = {d_ex}: Var*_DE/n = {var_de:.4g}, Var*_OUE/n = {var_oue:.4g}")
switch = {eps: ldp.first_d_where_oue_wins(eps) for eps in (1.0, 2.0)}
assert switch == {1.0: 11, 2.0: 25}
print(f"3e^eps + 2: eps = 1: {ldp.de_threshold(1.0):.4g}, eps = 2: {ldp.de_threshold(2.0):.4g}; "
      f"first d where OUE wins: {switch[1.0]} and {switch[2.0]}")

# %% [markdown]
# **Exercise 4 (code: GRR's client and estimator).** Write GRR's two halves for ε = ln 3 and $d = 4$:
# `grr_perturb(values, rng)` returns one report per value — the value itself with probability
# $p^* = e^\varepsilon/(e^\varepsilon+d-1)$, otherwise one of the $d-1$ *other* values uniformly — and
# `grr_estimate(counts, n)` turns the report counts $C$ into the unbiased
# $\hat c(i) = (C_i - nq^*)/(p^*-q^*)$. Then let the package check them: `check_client` runs your client
# on every input at a fixed seed and compares its reports with GRR's exact output table (a χ² test per
# input); `check_estimator` applies your estimator to 2,000 exact surveys and compares its mean with
# the truth, in standard errors of the exact variance. Each answers in words.
#
# ```python
# from ldp_helpers import teaching
# grr4 = ldp.GRR(np.log(3), 4)  # grr4.p and grr4.q are p* and q*
# def grr_perturb(values, rng): ...  # your code: values is an int array, rng a numpy Generator
# def grr_estimate(counts, n): ...   # your code
# print(teaching.check_client(grr_perturb, grr4.output_table(), np.arange(4)))
# print(teaching.check_estimator(grr_estimate, grr4, np.array([300, 150, 150, 0])))
# ```

# %% tags=["hide-input", "solution"]
from ldp_helpers import teaching
grr4 = ldp.GRR(np.log(3), 4)


def grr_perturb(values, rng):
    keep = rng.random(values.size) < grr4.p  # the true value w.p. p* = 1/2 ...
    other = (values + rng.integers(1, 4, size=values.size)) % 4  # ... else one of the 3 others
    return np.where(keep, values, other)


def grr_estimate(counts, n):
    return (counts - n * grr4.q) / (grr4.p - grr4.q)


client = teaching.check_client(grr_perturb, grr4.output_table(), np.arange(4))
estimator = teaching.check_estimator(grr_estimate, grr4, np.array([300, 150, 150, 0]))
print(client, estimator, sep="\n")
assert client.passed and estimator.passed
