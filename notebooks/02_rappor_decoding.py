# %% [markdown]
# # Decoding Basic One-time RAPPOR: Bloom filters, Eq. (3), LASSO → OLS → t-test
#
# This notebook reproduces seed `001_55e4e1ae242aa4fa.txt` ("RAPPOR アルゴリズムの復号評価",
# H. Seike), which decodes RAPPOR reports (Erlingsson, Pihur, Korolova 2014) by regression,
# and checks the RAPPOR formulas of the tutorial (seed `003`).
#
# > **Learning objectives**
# > 1. Compute the privacy of one RAPPOR report *exactly* from its output table and compare it
# >    with the closed forms ε₁ (one report) and ε∞ (permanent response).
# > 2. Derive the unbiased bit-count estimator t̂ = (c − pN)/(q − p) and its variance.
# > 3. Decode candidate strings by LASSO selection, OLS and one-sided t-tests, and measure
# >    precision and recall against the number of hashes h, the number of reports N and of cohorts m.
# > 4. Spot a defect in the seed's printed code and see what it does to the results.
#
# **Conventions.** RAPPOR writes $q=\Pr[S_i=1\mid B_i=1]$ and $p=\Pr[S_i=1\mid B_i=0]$ (so $q>p$),
# the *reverse* of the pure-LDP notation used elsewhere in this collection ($p$ for the true value).
# The seed follows RAPPOR: $q = 0.75$, $p = 0.5$. The Bloom filter size is $k$ (the seed's $B$).

# %% tags=["parameters"]
seed = 20261121
hash_values = [1, 4, 16]  # h of the main sweep; the paper profile uses 1, 2, 4, 8, 16, 32
n_runs = 2  # decoding runs per point of the main sweeps; the seed (and paper profile) use 16
n_runs_beyond = 1  # runs per point of the N and m sweeps
report_grid = [5000, 20000, 80000]  # N for the sweep beyond the seed
cohort_grid = [2, 8, 32]  # m for the sweep beyond the seed
h_beyond = 8  # h used in the N and m sweeps
equal_epsilon = 4.0  # ε of one report for the equal-privacy comparison
n_defect_runs = 2  # runs comparing the printed and the corrected Y_vec construction
save_figures = False  # the paper profile writes figures/02_rappor_decoding/

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from ldp_helpers.claims import ClaimsTable
from ldp_helpers.figures import save_figure, use_style
from ldp_helpers.privacy import max_privacy_loss
from ldp_helpers.rappor import RapporParams, all_bloom_filters, report_table, tutorial_printed_p_star
from ldp_helpers.rappor_decoding import (
    bit_count_variance, cohort_sizes, decode, design_matrix, estimate_bit_counts, simulate_bit_counts, true_bit_counts,
)
from ldp_helpers.rappor_experiments import (
    cohort_counts, detection_threshold, printed_y_vec, run_trial, run_trials, zipf_weights,
)

use_style()
NOTEBOOK = "02_rappor_decoding"
rng = np.random.default_rng(seed)
claims = ClaimsTable(NOTEBOOK)
K, M, N_ACTIVE, EXPONENT, N_REPORTS, M_COHORTS = 128, 200, 100, 0.7, 20_000, 8  # seed 001 §3
weights = zipf_weights(M, N_ACTIVE, EXPONENT)
arm_rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(6)]

# %% [markdown]
# ## 1. Bloom filter, IRR (Eq. 1) and the exact privacy of one report
#
# A string $v$ is hashed by $h$ functions into a $k$-bit Bloom filter $B$ (cohort-specific
# hashes, SHA-256 of secret, cohort, candidate and hash index, as in the seed's Figure 3).
# RAPPOR then applies the *permanent* randomized response (PRR, memoized)
# $B'_i = 1$ w.p. $f/2$, $0$ w.p. $f/2$, $B_i$ w.p. $1-f$, and the *instantaneous* one
# (IRR, Eq. 1): $\Pr[S_i=1] = q$ if $B'_i=1$, $p$ if $B'_i=0$. Composing the two, each reported
# bit depends only on its own Bloom bit:
# $$q^* = \Pr[S_i=1\mid B_i=1] = \tfrac12 f(p+q) + (1-f)q,\qquad p^* = \Pr[S_i=1\mid B_i=0] = \tfrac12 f(p+q) + (1-f)p .$$
# Two strings' filters differ in at most $2h$ bits, so one report is
# $\varepsilon_1 = h\ln\frac{q^*(1-p^*)}{p^*(1-q^*)}$-LDP, and the memoized $B'$ is
# $\varepsilon_\infty = 2h\ln\frac{1-f/2}{f/2}$-LDP (tutorial ε₂ and ε₁; RAPPOR Theorems 1–2).
# The tutorial prints $p' = \tfrac12 f(p+1) + (1-f)p$: the "1" should be $q$. We compute ε exactly
# from the output table over all $2^k$ reports and all Bloom filters with ≤ h ones ($k = 8$).

# %%
print("   f     p     q  h | eps(table)  eps1 formula  eps1 with tutorial's p' | eps_inf(table)  eps_inf formula")
for f, p, q in ((0.0, 0.5, 0.75), (0.5, 0.5, 0.75), (0.25, 0.35, 0.65), (0.5, 0.0, 1.0)):
    for h in (1, 2):
        par = RapporParams(k=8, h=h, m=1, f=f, p=p, q=q)
        filters = all_bloom_filters(8, h)
        eps_table = max_privacy_loss(report_table(filters, par.bit_table()))
        p_tut = tutorial_printed_p_star(f, p)
        eps_tut = h * math.log(par.q_star * (1 - p_tut) / (p_tut * (1 - par.q_star))) if 0 < p_tut < 1 else math.inf
        eps_inf = max_privacy_loss(report_table(filters, par.prr_bit_table()))
        print(f"{f:4.2f}  {p:4.2f}  {q:4.2f}  {h} | {eps_table:10.4g}  {par.epsilon_one_report:12.4g}  {eps_tut:23.4g} |"
              f" {eps_inf:14.4g}  {par.epsilon_permanent:15.4g}")
default_rappor = RapporParams(k=8, h=2, m=1, f=0.5, p=0.5, q=0.75)

# %% [markdown]
# The table and the corrected formula agree to rounding in every row; the tutorial's $p'$ gives a
# different (too small) ε whenever $f>0$. The last rows are RAPPOR's *one-time* RAPPOR
# (PRR only: $p=0$, $q=1$), whose single report is exactly $\varepsilon_\infty$-LDP.
#
# The seed's "Basic One-time RAPPOR" has **no PRR** ($f=0$, so $\varepsilon_\infty=\infty$: a
# repeated report would eventually reveal the Bloom filter) and one IRR with $q=0.75$, $p=0.5$:
# $$\varepsilon_1 = h\ln\frac{0.75\cdot 0.5}{0.5\cdot 0.25} = h\ln 3 .$$
# Note that the RAPPOR paper and the tutorial call *one-time* RAPPOR the variant that skips the
# **IRR** and sends $B'$, while the seed skips the **PRR**. The privacy of one report grows linearly
# in h, which matters for section 4:

# %%
for h in (1, 2, 4, 8, 16, 32):
    par = RapporParams.basic_one_time(K, h, M_COHORTS)
    print(f"h = {h:2d}: eps of one report = {par.epsilon_one_report:.4g} (= {h} ln 3), eps_inf = {par.epsilon_permanent}")
seed_design = design_matrix(RapporParams.basic_one_time(K, 1, M_COHORTS), M, rng=arm_rngs[0])
blocks = seed_design.cohort_blocks()
same_one = np.mean([np.sum(np.all(blocks[0][:, [a]] == blocks[0][:, a + 1:], axis=0)) for a in range(M - 1)]) * (M - 1)
same_all = sum(np.sum(np.all(seed_design.matrix[:, [a]] == seed_design.matrix[:, a + 1:], axis=0)) for a in range(M - 1))
print(f"h = 1: candidate pairs with identical Bloom filters in cohort 0: {same_one:.0f}; identical in all 8 cohorts: {same_all}")

# %% [markdown]
# The last line checks the seed's reason for cohorts: with one hash, many of the 19,900 candidate
# pairs collide in a single cohort (about 19,900/128 ≈ 155 expected), but none collide in all of them.
#
# ## 2. The bit-count estimator (Eqs. 2–3)
#
# Let $t_{ij}$ be the number of reports in cohort $j$ whose *true* Bloom bit $i$ is set and
# $N_j$ the cohort size. Each report's bit $i$ is an independent Bernoulli($q^*$) or
# Bernoulli($p^*$), so $c_{ij} \sim \mathrm{Bin}(t_{ij}, q^*) + \mathrm{Bin}(N_j - t_{ij}, p^*)$ and
# $$\mathbb E[c_{ij}] = q^* t_{ij} + p^*(N_j - t_{ij}) \;\Longrightarrow\; \hat t_{ij} = \frac{c_{ij} - p^* N_j}{q^* - p^*},\qquad
# \operatorname{Var}[\hat t_{ij}] = \frac{t_{ij}q^*(1-q^*) + (N_j - t_{ij})p^*(1-p^*)}{(q^*-p^*)^2}.$$
# With $f=0$ this is the seed's Eq. (3). The same binomial form is the *exact* aggregate
# simulator (a test shows it agrees in distribution with summing per-report clients). We check
# mean and variance on the seed's setting (h = 8, N_j = 2500) over 2000 simulated collections.

# %%
params8 = RapporParams.basic_one_time(K, 8, M_COHORTS)
design8 = design_matrix(params8, M, rng=arm_rngs[1])
counts8 = cohort_counts(weights, N_REPORTS, M_COHORTS, rng=arm_rngs[1])
t_true = true_bit_counts(design8, counts8)
sizes = counts8.sum(axis=1)
draws = np.array([estimate_bit_counts(simulate_bit_counts(design8, counts8, rng=arm_rngs[1]), sizes, params8) for _ in range(2000)])
z_mean = (draws.mean(axis=0) - t_true) / np.sqrt(bit_count_variance(t_true, sizes, params8) / len(draws))
var_ratio = draws.var(axis=0, ddof=1) / bit_count_variance(t_true, sizes, params8)
print(f"N_j = {sizes[0]}, Y_vec has k*m = {t_true.size} entries, X has shape {design8.matrix.shape}")
print(f"(mean t_hat - t)/SE over the 1024 bits: max |z| = {np.abs(z_mean).max():.3g}, mean z = {z_mean.mean():.3g}")
print(f"empirical/exact variance: median {np.median(var_ratio):.4f}, range [{var_ratio.min():.3f}, {var_ratio.max():.3f}]")

# %% [markdown]
# Over 1024 bits the largest |z| is what one expects of 1024 standard normals (≈ 3), and the
# variance ratios scatter around 1 with the spread $\sqrt{2/1999} \approx 0.03$.
#
# ## 3. The regression view $Y \approx X\beta$ on a small example
#
# Stack $\hat t_{ij}$ cohort by cohort into $Y$ (length $km$) and the candidates' Bloom filters
# into $X$ ($km \times M$, column $w$ = candidate $w$'s filters in all cohorts). If candidate $w$
# was reported $\beta_w$ times *in each cohort*, $\mathbb E[Y] = X\beta$. So $\hat\beta_w$ estimates a
# **per-cohort** count (the seed calls it "the frequency"): the total count is $m\hat\beta_w$.
# A worked example: $k=8$, $h=2$, $m=2$, five candidates of which 0, 1, 3 are reported.

# %%
toy = RapporParams.basic_one_time(8, 2, 2)
toy_design = design_matrix(toy, 5, rng=arm_rngs[2])
toy_counts = np.array([[900, 600, 0, 300, 0], [900, 600, 0, 300, 0]])
toy_y = estimate_bit_counts(simulate_bit_counts(toy_design, toy_counts, rng=arm_rngs[2]), toy_counts.sum(axis=1), toy).ravel()
toy_fit = decode(toy_design.matrix, toy_y)
print("X (rows: cohort 0 bits 0-7, then cohort 1; columns: candidates 0-4) | Y_hat | E[Y]")
for row, y_i, ey in zip(toy_design.matrix, toy_y, toy_design.matrix @ toy_counts[0]):
    print(" ".join(map(str, row)), f"| {y_i:8.1f} | {ey:5d}")
for w, b, s, pv, d in zip(toy_fit.candidates, toy_fit.estimates, toy_fit.std_errors, toy_fit.p_values, toy_fit.detected):
    print(f"candidate {w}: beta_hat = {b:7.1f} +- {s:5.1f} (true {toy_counts[0, w]}), one-sided p = {pv:.3g}, detected: {d}")

# %% [markdown]
# ## 4. The seed's experiment: precision and recall vs the number of hashes h
#
# Seed §3: $k=128$, $M=200$ candidates, the first 100 reported with Zipf weights $1/r^{0.7}$,
# $m=8$ cohorts, $N=20{,}000$ ($N_j=2500$), $q=0.75$, $p=0.5$, $f=0$. The decoder is the seed's:
# LASSO (non-negative, no intercept, α = 0.1; coefficients < 10⁻³ dropped), OLS on the kept
# candidates, one-sided t-test at 0.05 without multiple-testing correction. Precision = true
# detections / detections, recall = true detections / 100. Each run draws a fresh hashing
# secret, population and reports (exact aggregate path, with the *corrected* Y_vec of §5).

# %%
h_grid = np.array(hash_values)
pr_by_h = np.array([run_trials(RapporParams.basic_one_time(K, h, M_COHORTS), weights, N_REPORTS, n_runs, rng=arm_rngs[3]) for h in h_grid])
pr_equal = np.array([run_trials(RapporParams.basic_one_time_at_epsilon(equal_epsilon, K, h, M_COHORTS), weights, N_REPORTS, n_runs,
                                rng=arm_rngs[4]) for h in h_grid])
print(f" h   eps(1 report)  precision  recall | at eps = {equal_epsilon:g}: q      precision  recall")
for h, (pr, pe) in zip(h_grid, zip(pr_by_h.mean(axis=1), pr_equal.mean(axis=1))):
    q_eq = RapporParams.basic_one_time_at_epsilon(equal_epsilon, K, h, M_COHORTS).q
    print(f"{h:2d}  {h * math.log(3):13.4g}  {pr[0]:9.3f}  {pr[1]:6.3f} | {q_eq:22.4f}  {pe[0]:9.3f}  {pe[1]:6.3f}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
for ax, pr, title in ((axes[0], pr_by_h, "seed's IRR (q = 0.75, p = 0.5): ε = h ln 3"),
                      (axes[1], pr_equal, rf"equal privacy: ε = {equal_epsilon:g} per report (p = 0.5, q solved)")):
    for col, label, marker in ((0, "precision", "o"), (1, "recall", "s")):
        ax.plot(h_grid, pr[:, :, col].mean(axis=1), marker=marker, label=f"{label} (mean of {pr.shape[1]} runs)")
        ax.fill_between(h_grid, pr[:, :, col].min(axis=1), pr[:, :, col].max(axis=1), alpha=0.2)
    ax.set(xscale="log", xlabel="number of hash functions $h$", title=title)
    ax.set_xticks(h_grid, [str(h) for h in h_grid])
    ax.minorticks_off()
top = axes[0].secondary_xaxis("top")
top.set_xticks(h_grid, [f"{h * math.log(3):.3g}" for h in h_grid])
top.minorticks_off()
top.set_xlabel(r"$\varepsilon$ of one report")
axes[0].set_ylabel("precision / recall (bands: min–max over runs)")
axes[0].set_ylim(0, 1.02)
axes[0].legend(loc="center right")
fig.suptitle(rf"Basic one-time RAPPOR decoding, $k={K}$, $M={M}$, $m={M_COHORTS}$, $N={N_REPORTS:,}$ (seed Fig. 1)")
save_figure(fig, NOTEBOOK, "fig1_precision_recall_vs_h", write=save_figures)
plt.show()

# %% [markdown]
# **Reading the figure.** With the seed's fixed IRR, recall grows with h, but so does ε = h ln 3:
# at h = 32 one report is ε ≈ 35-LDP, i.e. hardly private (e^35 ≈ 10¹⁵). The right panel fixes the
# privacy of a report instead: each bit's IRR becomes weaker as h grows ($q \to 0.5$), and recall
# *falls* with h. Without collisions the OLS standard error of a frequency is
# $\sqrt{p^*(1-p^*)}/((q^*-p^*)\sqrt{Nh})$; at fixed ε, $q^*-p^* \approx \varepsilon/(4h)$ for large h,
# so the error grows like $\sqrt h/\varepsilon$ — more hashes *cost* accuracy at equal privacy.
# Precision stays high throughout: false detections among the 100 absent candidates are rare at α = 0.05.
#
# ## 5. The seed's code: a misplaced normalization, and text/code disagreements
#
# In Figure 2 the line `Y_vec[...] = (Y_vec[...] - p_dash*(N//m)) / (q_dash - p_dash)` is indented
# inside the loop `for j, count in enumerate(counts)` over the 100 candidates. Each cohort block
# is therefore updated $Y \leftarrow (Y + d_w - pN_j)/(q-p)$ once *per candidate*: the first
# candidate's draws are multiplied by $(q-p)^{-100} = 4^{100} \approx 1.6\cdot 10^{60}$, and the block
# ends up hugely negative. We run the printed logic and the fix (normalization after the loop),
# both with the seed's per-candidate binomials, at h = 8.

# %%
defect = {}
for printed in (True, False):
    trials = [run_trial(params8, weights, N_REPORTS, rng=arm_rngs[5], printed_logic=printed) for _ in range(n_defect_runs)]
    defect[printed] = np.array([(t.precision, t.recall, t.decoding.candidates.size) for t in trials])
y_printed = printed_y_vec(design8, counts8, N_ACTIVE, rng=arm_rngs[5])
y_fixed = printed_y_vec(design8, counts8, N_ACTIVE, rng=arm_rngs[5], normalize_inside_loop=False)
print(f"printed logic:   Y_vec in [{y_printed.min():.3g}, {y_printed.max():.3g}]")
print(f"corrected logic: Y_vec in [{y_fixed.min():.4g}, {y_fixed.max():.4g}]  (true t in [{t_true.min()}, {t_true.max()}])")
for printed, label in ((True, "printed  "), (False, "corrected")):
    mean = defect[printed].mean(axis=0)
    print(f"{label}: LASSO keeps {mean[2]:.1f} candidates, precision {mean[0]:.3f}, recall {mean[1]:.3f} ({n_defect_runs} runs)")

# %% [markdown]
# With the printed code the non-negative LASSO keeps **no** candidate, so nothing is detected
# (precision is 0 by the seed's own convention and recall is 0): the printed code cannot have
# produced the seed's Figure 1. **Our figures use the corrected construction** (and the exact
# aggregate path, which has the same distribution as the corrected loop — tested).
#
# Two more disagreements between text and code. (i) The text's Zipf exponent is 0.7 while
# `get_word_probs` defaults to `alpha=1.1`; the script passes `ALPHA = 0.7`, so the default is
# not used, but it matters if one calls the function as written: (ii) the text says each h is
# simulated "16 times" and the representative values are "the average of 10"; we average all runs
# (16 in the paper profile).

# %%
weights_default = zipf_weights(M, N_ACTIVE, 1.1)
pr_11 = run_trials(params8, weights_default, N_REPORTS, n_defect_runs, rng=arm_rngs[5]).mean(axis=0)
pr_07 = defect[False][:, :2].mean(axis=0)
print(f"share of the 100 true candidates above 0.5%: exponent 0.7 -> {np.sum(weights > 0.005)}, 1.1 -> {np.sum(weights_default > 0.005)}")
print(f"h = 8: exponent 0.7: precision {pr_07[0]:.3f}, recall {pr_07[1]:.3f};  exponent 1.1: precision {pr_11[0]:.3f}, recall {pr_11[1]:.3f}")

# %% [markdown]
# ## 6. Beyond the seed: N, m, and the smallest detectable frequency
#
# **Detection threshold.** Treat the noise of $\hat t_{ij}$ as its null variance
# $\sigma^2 = N_j p^*(1-p^*)/(q^*-p^*)^2$; OLS on all M candidates gives
# $\mathrm{SE}(\hat\beta_w) = \sigma\sqrt{[(X^\top X)^{-1}]_{ww}}$. A candidate is detected with
# probability ½ at level α when $\beta_w = z_{1-\alpha}\,\mathrm{SE}$, i.e. at frequency
# $$\pi_{\min} \approx \frac{z_{1-\alpha}\,\sqrt{p^*(1-p^*)}}{(q^*-p^*)\sqrt{N h}}\quad\text{(no collisions: } X^\top X = hm\,I).$$
# It does not depend on m (cohorts only fight collisions), falls like $1/\sqrt N$, and the number
# of Zipf candidates above it predicts the recall. Below: precision/recall vs N and m at h = 8,
# and the predicted recall (share of the 100 true frequencies above the median threshold of the
# actual design).

# %%
beyond_rngs = [np.random.default_rng(s) for s in np.random.SeedSequence([seed, 1]).spawn(3)]
params_b = RapporParams.basic_one_time(K, h_beyond, M_COHORTS)
pr_by_n = np.array([run_trials(params_b, weights, n, n_runs_beyond, rng=beyond_rngs[0]) for n in report_grid]).mean(axis=1)
pr_by_m = np.array([run_trials(RapporParams.basic_one_time(K, h_beyond, m), weights, N_REPORTS, n_runs_beyond, rng=beyond_rngs[1])
                    for m in cohort_grid]).mean(axis=1)
design_b = design_matrix(params_b, M, rng=beyond_rngs[2])
n_fine = np.unique(np.round(np.geomspace(min(report_grid), max(report_grid), 25)).astype(int))
threshold = np.array([np.median(detection_threshold(design_b, n)) for n in n_fine])
predicted_recall = np.array([np.mean(weights[:N_ACTIVE] > t) for t in threshold])
for n, (p_, r_) in zip(report_grid, pr_by_n):
    print(f"N = {n:6d}: precision {p_:.3f}, recall {r_:.3f}, predicted recall {np.interp(n, n_fine, predicted_recall):.3f}")
for m, (p_, r_) in zip(cohort_grid, pr_by_m):
    print(f"m = {m:3d}: precision {p_:.3f}, recall {r_:.3f}")

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 4))
axes[0].plot(report_grid, pr_by_n[:, 0], "o-", label="precision")
axes[0].plot(report_grid, pr_by_n[:, 1], "s-", label="recall")
axes[0].plot(n_fine, predicted_recall, "--", color="gray", label="predicted recall (threshold)")
axes[0].axvline(N_REPORTS, color="black", lw=0.8, ls=":", label="seed: N = 20,000")
axes[0].set(xscale="log", xlabel="number of reports $N$", ylabel="precision / recall", ylim=(0, 1.02),
            title=rf"vs $N$ ($h={h_beyond}$, $m={M_COHORTS}$)")
axes[0].legend(loc="center right")
axes[1].plot(cohort_grid, pr_by_m[:, 0], "o-", label="precision")
axes[1].plot(cohort_grid, pr_by_m[:, 1], "s-", label="recall")
axes[1].axvline(M_COHORTS, color="black", lw=0.8, ls=":", label="seed: m = 8")
axes[1].set(xscale="log", xlabel="number of cohorts $m$", ylim=(0, 1.02), title=rf"vs $m$ ($h={h_beyond}$, $N={N_REPORTS:,}$)")
axes[1].set_xticks(cohort_grid, [str(m) for m in cohort_grid])
axes[1].minorticks_off()
axes[1].legend(loc="lower right")
z = stats.norm.isf(0.05)
for h in (1, 8, 32):  # no-collision closed form; sqrt(p*(1-p*))/(q*-p*) = 2 at q = 0.75, p = 0.5
    axes[2].plot(n_fine, z * 2 / np.sqrt(n_fine * h), label=rf"$h={h}$ ($\varepsilon={h * math.log(3):.3g}$), closed form")
for r in (1, 10, 100):
    axes[2].axhline(weights[r - 1], color="gray", lw=0.8, ls=":")
    axes[2].annotate(f"Zipf rank {r}: {weights[r - 1]:.2%}", (n_fine[-1], weights[r - 1]), va="bottom", ha="right", fontsize=8)
axes[2].plot(n_fine, threshold, "k--", lw=1, label=rf"$h={h_beyond}$, actual design (median over candidates)")
axes[2].set(xscale="log", yscale="log", xlabel="number of reports $N$", ylabel=r"smallest detectable frequency $\pi_{\min}$",
            title=r"threshold at $\alpha=0.05$ ($q=0.75$, $p=0.5$)")
axes[2].legend(loc="lower left", fontsize=8)
save_figure(fig, NOTEBOOK, "fig_beyond_n_m_threshold", write=save_figures)
plt.show()

# %% [markdown]
# **Parameter-selection guide.** To detect a string of frequency π at level α with probability
# ½, one needs roughly $N h \ge \big(z_{1-\alpha}\sqrt{p^*(1-p^*)}/((q^*-p^*)\pi)\big)^2$ — but ε grows
# with h, so at a fixed privacy budget the lever is N (or weaker privacy), not h. With a
# Bonferroni correction over M candidates replace $z_{1-\alpha}$ by $z_{1-\alpha/M}$
# (1.64 → 3.48 for M = 200). Cohorts matter only through collisions: recall is nearly flat in m
# (a slight rise as collisions become rarer) once the design has enough rows for the OLS stage.
#
# ## 7. Claims check

# %%
p_tut = tutorial_printed_p_star(default_rappor.f, default_rappor.p)
disjoint_filters = np.kron(np.eye(2, dtype=np.int8), np.ones((1, 8), dtype=np.int8))  # two h = 8 filters, no shared bit
claims.check("Eq. (1): IRR reports 1 w.p. q = 0.75 on a set Bloom bit", "§1 Eq. (1)", 0.75, params8.bit_table()[1, 1])
claims.check("Eq. (1): IRR reports 1 w.p. p = 0.5 on an unset Bloom bit", "§1 Eq. (1)", 0.5, params8.bit_table()[0, 1])
claims.check("cohort size N_j = N/m", "§3", 2500, cohort_sizes(N_REPORTS, M_COHORTS)[0])
claims.check("Y_vec has B*m entries", "§1", 1024, t_true.size)
claims.check("X is a (B*m) x M matrix: rows", "§2", 1024, design8.matrix.shape[0])
claims.check("Eqs. (2)-(3): t_hat is unbiased (largest |z| over 1024 bits, 2000 draws; below 4.5 expected)", "§1 Eqs. (2)-(3)",
             0, np.abs(z_mean).max(), atol=4.5)
claims.check_statement("cohort-specific hashes resolve Bloom collisions", "§2", "hash functions differ by cohort",
                       same_one > 0 and same_all == 0, f"{same_one:.0f} colliding pairs in one cohort, {same_all} in all 8 (h = 1)")
claims.check_statement("beta_hat estimates each candidate's frequency", "§2", "beta_hat = estimated counts",
                       bool(np.all(np.abs(toy_fit.estimates - toy_counts[0, toy_fit.candidates]) < 5 * toy_fit.std_errors)),
                       "beta_hat estimates the count per cohort (total = m * beta_hat)")
claims.erratum("Basic One-time RAPPOR skips the PRR (f = 0) and runs the IRR once", "§1",
               "no PRR, one IRR", "RAPPOR/tutorial: one-time RAPPOR skips the IRR and sends B'; 'basic' means h = 1")
claims.erratum("Fig. 2: Y_vec is normalized inside the loop over candidates", "§3 Fig. 2",
               "normalize per candidate", f"|Y_vec| ~ {np.abs(y_printed).max():.2g}, mean recall {defect[True][:, 1].mean():.3g}; "
               f"fixed (once per cohort): recall {defect[False][:, 1].mean():.3g}")
claims.erratum("Zipf exponent: 0.7 in the text, alpha=1.1 as get_word_probs' default", "§3 vs Fig. 2", "0.7 vs 1.1",
               f"script passes 0.7 (used here); h = 8 recall {pr_07[1]:.3g} at 0.7 vs {pr_11[1]:.3g} at 1.1")
claims.erratum("runs per h: '16 runs' but 'average of 10'", "§3", "16 runs, average of 10", f"average of all {n_runs} runs")
claims.erratum("alpha = 0.05 called the confidence coefficient (信頼係数)", "§3", "confidence coefficient 0.05",
               "0.05 is the significance level (confidence 0.95)")
claims.check("tutorial eps_inf = 2h ln((1-f/2)/(f/2)) (h = 2, f = 0.5; exact table)", "tutorial §RAPPOR",
             default_rappor.epsilon_permanent, max_privacy_loss(report_table(all_bloom_filters(8, 2), default_rappor.prr_bit_table())), rtol=1e-12)
claims.check("tutorial q' = f(p+q)/2 + (1-f)q (f = 0.5, p = 0.5, q = 0.75; PRR x IRR)", "tutorial §RAPPOR",
             0.25 * 1.25 + 0.5 * 0.75, (default_rappor.prr_bit_table() @ [[0.5, 0.5], [0.25, 0.75]])[1, 1], rtol=1e-12)
claims.erratum("tutorial p' = f(p+1)/2 + (1-f)p (f = 0.5, p = 0.5, q = 0.75)", "tutorial §RAPPOR",
               p_tut, (default_rappor.prr_bit_table() @ [[0.5, 0.5], [0.25, 0.75]])[0, 1], rtol=1e-9)
claims.check("tutorial eps2 = h ln(q'(1-p')/(p'(1-q'))) with the corrected p' (h = 2; exact table)", "tutorial §RAPPOR",
             default_rappor.epsilon_one_report, max_privacy_loss(report_table(all_bloom_filters(8, 2), default_rappor.bit_table())), rtol=1e-12)
claims.check("seed parameters: eps of one report at h = 8 is 8 ln 3 (disjoint 16-bit filters; not stated by the seed)", "§1 (implied)",
             8 * math.log(3), max_privacy_loss(report_table(disjoint_filters, params8.bit_table())), rtol=1e-12)
print(claims)
claims_csv = claims.write_csv(write=save_figures)
