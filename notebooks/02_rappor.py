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
# # Decoding Basic One-time RAPPOR: Bloom filters, Eq. (3), LASSO → OLS → t-test
#
# > Stored outputs are the fast smoke profile; `figures/` and the book (`make book`) show the paper profile.
#
# This notebook reproduces the paper [rappor] (the Japanese text `001_55e4e1ae242aa4fa.txt`, "RAPPOR アルゴリズムの復号評価",
# H. Seike), which decodes RAPPOR reports (Erlingsson, Pihur, Korolova 2014) by regression,
# and checks the RAPPOR formulas of the tutorial ([tutorial], text `003`).
#
# > **Learning objectives**
# > 1. Compute the privacy of one RAPPOR report *exactly* from its output table and compare it
# >    with the closed forms ε₁ (one report) and ε∞ (permanent response).
# > 2. Derive the unbiased bit-count estimator t̂ = (c − pN)/(q − p) and its variance.
# > 3. Decode candidate strings by LASSO selection, OLS and one-sided t-tests, and measure
# >    precision and recall against the number of hashes h, the number of reports N and of cohorts m.
# > 4. Read the paper's printed code critically: what each reading of a doubtful line does to the results.
#
# **Conventions.** RAPPOR writes $q=\Pr[S_i=1\mid B_i=1]$ and $p=\Pr[S_i=1\mid B_i=0]$ (so $q>p$),
# the *reverse* of the pure-LDP notation used elsewhere in this collection ($p$ for the true value).
# The paper follows RAPPOR: $q = 0.75$, $p = 0.5$; `RapporParams` keeps these letters and
# `RapporParams.bit_channel` converts them, once, to the collection's $p > q$. The Bloom filter
# size is $k$ (the paper's $B$). `Rappor` is the mechanism (one value = a cohort and a candidate
# string): `perturb` is the client, `sample_aggregate` the exact bit counts, `estimate` Eq. (3).

# %% tags=["parameters"]
seed = 20261121
hash_values = [1, 4, 16]  # h of the main sweep; the paper profile uses 1, 2, 4, 8, 16, 32
# decoded surveys per point of the main sweeps; the paper (and the paper profile) use 16
n_draws = 2
n_draws_beyond = 1  # surveys per point of the N and m sweeps
report_grid = [5000, 20000, 80000]  # N for the sweep beyond the paper
cohort_grid = [2, 8, 32]  # m for the sweep beyond the paper
h_beyond = 8  # h used in the N and m sweeps
equal_epsilon = 4.0  # ε of one report for the equal-privacy comparison
n_draws_defect = 2  # surveys comparing the printed and the corrected Y_vec construction
n_draws_estimator = 2000  # simulated surveys of one population for the Eq. (3) check
n_client_reports = 20000  # per-report client runs for the Eq. (1) check
save_figures = False  # the paper profile writes figures/02_rappor/

# %%
import numpy as np
from ldp_helpers import Rappor, RapporParams, cohort_counts, decode, printed_y_vec
from ldp_helpers.bounds import rappor as paper  # the paper's equations and our thresholds
from ldp_helpers.experiments import common, rappor as runs  # its setting and experiments
from ldp_tools.explore.panels import show_panel
from ldp_tools.pipeline import start_notebook
from ldp_tools.pipeline.decisions import by_text, gt, lt
from ldp_tools.pipeline.plots import rappor as plots
claims, publish = start_notebook("02_rappor", save_figures=save_figures)
rng = np.random.default_rng(seed)

# %% [markdown]
# ## 1. Bloom filter, IRR (Eq. 1) and the exact privacy of one report
#
# A string $v$ is hashed by $h$ functions into a $k$-bit Bloom filter $B$ (cohort-specific
# hashes, SHA-256 of secret, cohort, candidate and hash index, as in the paper's Figure 3).
# RAPPOR then applies the *permanent* randomized response (PRR, memoized)
# $B'_i = 1$ w.p. $f/2$, $0$ w.p. $f/2$, $B_i$ w.p. $1-f$, and the *instantaneous* one
# (IRR, Eq. 1): $\Pr[S_i=1] = q$ if $B'_i=1$, $p$ if $B'_i=0$. Both are binary randomized
# response on each bit. Composing the two, each reported bit depends only on its own Bloom bit:
#
# $$q^* = \Pr[S_i=1\mid B_i=1] = \tfrac12 f(p+q) + (1-f)q,\qquad p^* = \Pr[S_i=1\mid B_i=0] = \tfrac12 f(p+q) + (1-f)p .$$
#
# Two strings' filters differ in at most $2h$ bits, so one report is
# $\varepsilon_1 = h\ln\frac{q^*(1-p^*)}{p^*(1-q^*)}$-LDP, and the memoized $B'$ is
# $\varepsilon_\infty = 2h\ln\frac{1-f/2}{f/2}$-LDP (tutorial ε₂ and ε₁; RAPPOR Theorems 1–2).
# The tutorial prints $p' = \tfrac12 f(p+1) + (1-f)p$: the "1" should be $q$. We compute ε exactly
# with `privacy_loss()` from the whole-report table over all $2^k$ reports and every Bloom filter
# with 1..h ones ($k = 8$): privacy must hold for any string, not only the candidates. ε∞ is the
# loss of the memoized $B'$ sent alone, i.e. of one-time RAPPOR (`RapporParams.prr_only()`).

# %%
full = RapporParams(k=8, h=2, m=1, f=0.5, p=0.5, q=0.75)  # the tutorial's RAPPOR: PRR, then IRR
SETTINGS = [(0.0, 0.5, 0.75), (full.f, full.p, full.q), (0.25, 0.35, 0.65), (0.5, 0.0, 1.0)]
privacy = runs.privacy_comparison(SETTINGS, [1, full.h], k=full.k, rng=rng)
print("   f     p     q  h | eps(table)  eps1 formula  eps1 with tutorial's p' | eps_inf(table)  "
      "eps_inf formula")
for f, p, q, h, *e in privacy:
    print(f"{f:4.2f}  {p:4.2f}  {q:4.2f}  {h:.0f} | {e[0]:10.4g}  {e[1]:12.4g}  {e[2]:23.4g} | "
          f"{e[3]:14.4g}  {e[4]:15.4g}")
row = runs.privacy_row(privacy, full)
claims.check("eps2", row["eps_table"], paper=full.epsilon_one_report)
claims.check("eps_inf", row["eps_inf_table"], paper=full.epsilon_permanent)  # B' alone
irr = RapporParams.basic_one_time(full.k, full.h, 1, p=full.p, q=full.q)  # the same IRR, no PRR
composed = full.prr_bit_table() @ irr.bit_table()  # PRR then IRR, bit by bit
claims.check("q_prime", composed[1, 1], paper=full.q_star)
claims.check("p_prime", composed[0, 1], paper=full.p_star)

# %% [markdown]
# The table and the corrected formula agree to rounding in every row. The column "with tutorial's
# p'" is our own evaluation of the tutorial's typo (counted once, as row `p-prime` of `00_tutorial`),
# not a number the tutorial states: it would give a different (too small) ε whenever $f>0$. The last rows are RAPPOR's *one-time* RAPPOR
# (PRR only: $p=0$, $q=1$), whose single report is exactly $\varepsilon_\infty$-LDP.
#
# The paper's "Basic One-time RAPPOR" has **no PRR** ($f=0$, so $\varepsilon_\infty=\infty$: a
# repeated report would eventually reveal the Bloom filter) and one IRR with $q=0.75$, $p=0.5$:
#
# $$\varepsilon_1 = h\ln\frac{0.75\cdot 0.5}{0.5\cdot 0.25} = h\ln 3 .$$
#
# Note that the RAPPOR paper and the tutorial call *one-time* RAPPOR the variant that skips the
# **IRR** and sends $B'$, while the paper skips the **PRR**. Below: the per-report client on one
# Bloom filter with $h = 8$ (Eq. 1 measured), ε of one report for each h, and Bloom collisions.

# %%
arm_rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(7)]  # one per arm
params8 = runs.paper_params(8)
client = runs.client_check(params8, n_client_reports, rng=arm_rngs[6])  # one string, in cohort 0
print(f"{n_client_reports} client reports: Pr[S=1 | B=1] = {client.q_hat:.4f} "
      f"(+- {client.se_q:.1g}), Pr[S=1 | B=0] = {client.p_hat:.4f} (+- {client.se_p:.1g})")
claims.check("irr_q", client.q_hat, atol=5 * client.se_q, se=client.se_q)
claims.check("irr_p", client.p_hat, atol=5 * client.se_p, se=client.se_p)
one_time = RapporParams(k=8, h=1, m=1, f=2 * (1 - params8.q), p=0.0, q=1.0)  # PRR only: 1 − f/2 = q
claims.erratum("one_time", one_time.bit_table()[0, 1])  # its Pr[S=1|B=0] is f/2, not the paper's p

# %%
by_h = [runs.paper_params(h) for h in hash_values]
print("eps of one report (= h ln 3):",
      ", ".join(f"h = {par.h}: {par.epsilon_one_report:.4g}" for par in by_h))
claims.check("eps1_h8", runs.disjoint_filters_loss(params8), paper=params8.epsilon_one_report)
same_one, same_all = runs.colliding_pairs(runs.paper_params(1), rng=arm_rngs[0])
print(f"h = 1: candidate pairs with identical Bloom filters in cohort 0: {same_one} (expected "
      f"C(M, 2)/k = {runs.M * (runs.M - 1) / 2 / runs.K:.4g}); identical in all {runs.N_COHORTS} "
      f"cohorts: {same_all}")
claims.statement("cohorts", gt(same_one - same_all, 0), same_one=same_one, same_all=same_all)

# %% [markdown]
# The client reproduces Eq. (1). The last line checks the paper's reason for cohorts: with one
# hash, many of the 19,900 candidate pairs collide in a single cohort, but none collide in all of them.
#
# ## 2. The bit-count estimator (Eqs. 2–3)
#
# Let $t_{ij}$ be the number of reports in cohort $j$ whose *true* Bloom bit $i$ is set and
# $N_j$ the cohort size. Each report's bit $i$ is an independent Bernoulli($q^*$) or
# Bernoulli($p^*$), so $c_{ij} \sim \mathrm{Bin}(t_{ij}, q^*) + \mathrm{Bin}(N_j - t_{ij}, p^*)$ and
#
# $$\mathbb E[c_{ij}] = q^* t_{ij} + p^*(N_j - t_{ij}) \;\Longrightarrow\; \hat t_{ij} = \frac{c_{ij} - p^* N_j}{q^* - p^*},\qquad
# \operatorname{Var}[\hat t_{ij}] = \frac{t_{ij}q^*(1-q^*) + (N_j - t_{ij})p^*(1-p^*)}{(q^*-p^*)^2}.$$
#
# With $f=0$ this is the paper's Eq. (3). The same binomial form is the *exact* aggregate
# sampler `sample_aggregate` (tests show it agrees in distribution with summing the clients'
# reports). We check mean and variance on the paper's setting (h = 8, N_j = 2500) over many
# surveys of one population, drawn in one batched call (`n_draws`).

# %%
weights = runs.paper_weights()
rappor8 = Rappor.create(params8, runs.M, rng=arm_rngs[1])
counts8 = cohort_counts(weights, runs.N_REPORTS, runs.N_COHORTS, rng=arm_rngs[1])
t_true = rappor8.estimand(counts8)
check8 = runs.estimator_check(rappor8, counts8, n_draws_estimator, rng=arm_rngs[1])
z, ratio = check8.z, check8.variance_ratio
print(f"N_j = {counts8.sum(axis=1)[0]}, Y_vec has k*m = {t_true.size} entries, X has shape "
      f"{rappor8.design_matrix.shape}")
print(f"(mean t_hat - t)/SE over the {t_true.size} bits, {check8.n_draws} draws: max |z| = "
      f"{np.abs(z).max():.3g}, mean z = {z.mean():.3g}")
print(f"empirical/exact variance: median {np.median(ratio):.4f}, range [{ratio.min():.3f}, "
      f"{ratio.max():.3f}], expected spread sqrt(2/(draws-1)) = "
      f"{common.variance_ratio_se(check8.n_draws):.3f}")
claims.check("unbiased", np.abs(z).max(), se=1)

# %% [markdown]
# Over 1024 bits the largest |z| is what one expects of 1024 standard normals (≈ 3), and the
# variance ratios scatter around 1 with the stated spread.
#
# ## 3. The regression view $Y \approx X\beta$ on a small example
#
# Stack $\hat t_{ij}$ cohort by cohort into $Y$ (length $km$) and the candidates' Bloom filters
# into $X$ ($km \times M$, column $w$ = candidate $w$'s filters in all cohorts). If candidate $w$
# was reported $\beta_w$ times *in each cohort*, $\mathbb E[Y] = X\beta$. So $\hat\beta_w$ estimates a
# **per-cohort** count (the paper calls it "the frequency"): the total count is $m\hat\beta_w$.
# A worked example: $k=8$, $h=2$, $m=2$, five candidates of which 0, 1, 3 are reported.

# %%
toy = Rappor.create(RapporParams.basic_one_time(8, 2, 2), 5, rng=arm_rngs[2])
toy_counts = np.array([[900, 600, 0, 300, 0], [900, 600, 0, 300, 0]])
toy_c = toy.sample_aggregate(toy_counts, rng=arm_rngs[2])
toy_y = toy.estimate(toy_c, toy.n_reports(toy_counts)).ravel()
fit = decode(toy.design_matrix, toy_y)
print("X (rows: cohort 0 bits 0-7, then cohort 1; columns: candidates 0-4) | Y_hat | E[Y]")
for x_row, y_i, ey in zip(toy.design_matrix, toy_y, toy.design_matrix @ toy_counts[0]):
    print(" ".join(map(str, x_row)), f"| {y_i:8.1f} | {ey:5d}")
for w, b, s, pv, d in zip(fit.candidates, fit.estimates, fit.std_errors, fit.p_values,
                          fit.detected):
    print(f"candidate {w}: beta_hat = {b:7.1f} +- {s:5.1f} (true {toy_counts[0, w]}), "
          f"one-sided p = {pv:.3g}, detected: {d}")
z_toy = np.abs(fit.estimates - toy_counts[0, fit.candidates]) / fit.std_errors
claims.statement("beta_hat", lt(np.max(z_toy), 5.0))

# %% [markdown]
# ## 4. The paper's experiment: precision and recall vs the number of hashes h
#
# [rappor] §3: $k=128$, $M=200$ candidates, the first 100 reported with Zipf weights $1/r^{0.7}$,
# $m=8$ cohorts, $N=20{,}000$ ($N_j=2500$), $q=0.75$, $p=0.5$, $f=0$. The decoder is the paper's:
# LASSO (non-negative, no intercept, α = 0.1; coefficients < 10⁻³ dropped), OLS on the kept
# candidates, one-sided t-test at 0.05 without multiple-testing correction. Precision = true
# detections / detections, recall = true detections / 100. Each survey draws a fresh hashing
# secret, population and reports (exact `sample_aggregate`, with the *corrected* Y_vec of §5).

# %%
pr_by_h = runs.decode_grid(by_h, weights, n_draws, rng=arm_rngs[3])
eps_by_h = [par.epsilon_one_report for par in by_h]

# %% tags=["no-claims"]
equal = [runs.paper_params(h, epsilon=equal_epsilon) for h in hash_values]
pr_equal = runs.decode_grid(equal, weights, n_draws, rng=arm_rngs[4])  # its own stream
print(f" h   eps(1 report)  precision  recall | at eps = {equal_epsilon:g}: q      precision"
      "  recall")
for h, eps, par, pr, pe in zip(hash_values, eps_by_h, equal, pr_by_h.mean(1), pr_equal.mean(1)):
    print(f"{h:2d}  {eps:13.4g}  {pr[0]:9.3f}  {pr[1]:6.3f} | {par.q:22.4f}  {pe[0]:9.3f}  "
          f"{pe[1]:6.3f}")

# %% tags=["no-claims"]
fig = plots.precision_recall_vs_h(hash_values, pr_by_h, pr_equal, eps_by_h, equal_epsilon)
publish(fig, "fig1_precision_recall_vs_h")

# %% [markdown]
# **Reading the figure.** With the paper's fixed IRR, recall grows with h, but so does ε = h ln 3:
# at h = 32 one report is ε ≈ 35-LDP, i.e. hardly private (e^35 ≈ 10¹⁵). The right panel fixes the
# privacy of a report instead: each bit's IRR becomes weaker as h grows ($q \to 0.5$), and recall
# *falls* with h. Without collisions the OLS standard error of a frequency is
# $\sqrt{p^*(1-p^*)}/((q^*-p^*)\sqrt{Nh})$; at fixed ε, $q^*-p^* \approx \varepsilon/(4h)$ for large h,
# so the error grows like $\sqrt h/\varepsilon$ — more hashes *cost* accuracy at equal privacy.
# Precision stays high throughout: false detections among the 100 absent candidates are rare at α = 0.05.
#
# ## 5. The paper's code: a normalization that may be misplaced, and text/code disagreements
#
# In our copy of Figure 2 the line `Y_vec[...] = (Y_vec[...] - p_dash*(N//m)) / (q_dash - p_dash)` is
# indented inside the loop `for j, count in enumerate(counts)` over the 100 candidates. Read so, each
# cohort block is updated $Y \leftarrow (Y + d_w - pN_j)/(q-p)$ once *per candidate*: the first
# candidate's draws are multiplied by $(q-p)^{-100} = 4^{100} \approx 1.6\cdot 10^{60}$, and the block
# ends up hugely negative. But the indentation is the only evidence, and this converter reorders words
# within lines and flattens code across a page break (Fig. 3), so one level out — once per cohort,
# after the loop — is a reading too: the row is *ambiguous*. We run both readings, with the paper's
# per-candidate binomials, at h = 8.
#
# §3 calls α = 0.05 the *confidence coefficient* (信頼係数), which is 1 − α; the printed script uses
# it as the one-sided test's significance level (`keep = p_vals < alpha_test`), so the wording is the
# slip, decided by reading; we print the share of absent candidates the fixed decoder detects.

# %%
defect = {printed: runs.decode_surveys(params8, weights, runs.N_REPORTS, n_draws_defect,
                                       rng=arm_rngs[5], printed_logic=printed)
          for printed in (True, False)}
y_printed = printed_y_vec(rappor8, counts8, runs.N_TRUE, rng=arm_rngs[5])
y_fixed = printed_y_vec(rappor8, counts8, runs.N_TRUE, rng=arm_rngs[5], normalize_inside_loop=False)
print(f"inside the loop:  Y_vec in [{y_printed.min():.3g}, {y_printed.max():.3g}]")
print(f"once per cohort: Y_vec in [{y_fixed.min():.4g}, {y_fixed.max():.4g}]  (true t in "
      f"[{t_true.min()}, {t_true.max()}])")
for printed, label in ((True, "inside the loop"), (False, "once per cohort")):
    mean = defect[printed].mean(axis=0)
    print(f"{label}: LASSO keeps {mean[2]:.1f} candidates, precision {mean[0]:.3f}, recall "
          f"{mean[1]:.3f}, false detections {mean[3]:.2f} ({n_draws_defect} surveys)")

# %%
recall_printed, recall_fixed = defect[True][:, 1], defect[False][:, 1]
gain, se_gain = runs.paired_gain(recall_fixed, recall_printed)  # the fix minus the printed loop
claims.ambiguous_if("normalization", gt(gain, 3 * se_gain), y_max=np.abs(y_printed).max(),
                    printed=recall_printed.mean(), fixed=recall_fixed.mean(), se_gain=se_gain)
level = ("信頼係数 (confidence coefficient) is 1 - α, yet the text gives α = 0.05 that name; the "
         "printed script keeps p_vals < alpha_test = 0.05: 0.05 is the test's significance level "
         "(有意水準)")
claims.erratum_if("confidence_coefficient", by_text(level),
                  share=defect[False][:, 3].mean() / (runs.M - runs.N_TRUE))

# %% [markdown]
# Read inside the loop, the non-negative LASSO keeps **no** candidate, so nothing is detected
# (precision is 0 by the paper's own convention and recall is 0): that code could not have produced
# the paper's Figure 1. **Our figures use the once-per-cohort reading** (and the exact aggregate path,
# which has the same distribution as that loop — tested).
#
# Two more disagreements between text and code. (i) The text's Zipf exponent is 0.7 while
# `get_word_probs` defaults to `alpha=1.1`; the script passes `ALPHA = 0.7`, so the default is
# not used, so the text and the run agree (0.7 is used; not an error — we only show what 1.1 would give);
# (ii) the text says each h is simulated "16 times" and the representative values are "the average
# of 10": no rule says which 10. We average all surveys (16 in the paper profile); 10 picked before
# the results (the first 10) have the same expectation, 10 picked after them (the middle 10, a trimmed
# mean) need not. Each reading is computed and held to the standard error of our 16-run means.

# %%
weights_11 = runs.paper_weights(1.1)  # get_word_probs' default exponent
pr_11 = runs.decode_surveys(params8, weights_11, runs.N_REPORTS, n_draws_defect, rng=arm_rngs[5])
pr_11, pr_07 = pr_11.mean(axis=0), defect[False].mean(axis=0)
print(f"share of the 100 true candidates above 0.5%: exponent 0.7 -> {np.sum(weights > 0.005)}, "
      f"1.1 -> {np.sum(weights_11 > 0.005)}")
print(f"h = 8: exponent 0.7: precision {pr_07[0]:.3f}, recall {pr_07[1]:.3f};  exponent 1.1: "
      f"precision {pr_11[0]:.3f}, recall {pr_11[1]:.3f}")
read = "reading the printed script: ALPHA = 0.7 is passed to get_word_probs, so 0.7 is used"
claims.statement("zipf_exponent", by_text(read), recall_07=pr_07[1], recall_11=pr_11[1])

# %%
runs_pr = pr_by_h[:, :, :2]  # (h, survey, precision | recall) of independent surveys
n_first = min(10, n_draws)
cut = (n_draws - n_first) // 2  # reading (c) leaves out the `cut` best and `cut` worst runs
ours = runs_pr.mean(axis=1)  # reading (a): all runs
first = runs_pr[:, :n_first].mean(axis=1)  # reading (b): 10 picked before the results
middle = np.sort(runs_pr, axis=1)[:, cut : n_draws - cut].mean(axis=1)  # reading (c): trimmed
se = runs_pr.std(axis=1, ddof=1) / np.sqrt(n_draws)  # SE of our n_draws-run means
se = np.where(se > 0, se, 1.0)  # 0 where the runs are equal: every reading then gives ours
moves = {f"z_{name}": float(np.max(np.abs(value - ours) / se))
         for name, value in (("first", first), ("middle", middle))}
n_middle, n_tests = n_draws - 2 * cut, 2 * ours.size  # both readings, every h and metric
z_crit = common.bonferroni_z(n_tests, two_sided=True)
print(f"in SEs of the {n_draws}-run means: the first {n_first} move them by "
      f"{moves['z_first']:.2f} at most, the {n_middle} middle runs by "
      f"{moves['z_middle']:.2f} (z = {z_crit:.2f})")
claims.ambiguous_if("runs_per_h", gt(max(moves.values()), z_crit), **moves, z_crit=z_crit,
                    n_draws=n_draws, n_first=n_first, n_middle=n_middle, n_tests=n_tests)

# %% [markdown]
# ## 6. Beyond the paper: N, m, and the smallest detectable frequency
#
# **Detection threshold.** Treat the noise of $\hat t_{ij}$ as its null variance
# $\sigma^2 = N_j p^*(1-p^*)/(q^*-p^*)^2$; OLS on all M candidates gives
# $\mathrm{SE}(\hat\beta_w) = \sigma\sqrt{[(X^\top X)^{-1}]_{ww}}$. A candidate is detected with
# probability ½ at level α when $\beta_w = z_{1-\alpha}\,\mathrm{SE}$, i.e. at frequency
#
# $$\pi_{\min} \approx \frac{z_{1-\alpha}\,\sqrt{p^*(1-p^*)}}{(q^*-p^*)\sqrt{N h}}\quad\text{(no collisions: } X^\top X = hm\,I).$$
#
# It does not depend on m (cohorts only fight collisions), falls like $1/\sqrt N$, and the number
# of Zipf candidates above it predicts the recall. Below: precision/recall vs N and m at h = 8,
# and the predicted recall (share of the 100 true frequencies above the median threshold of the
# actual design).

# %% tags=["no-claims"]
beyond_rngs = [np.random.default_rng(s) for s in np.random.SeedSequence([seed, 1]).spawn(3)]
params_b = runs.paper_params(h_beyond)
pr_by_n = runs.decode_grid([params_b] * len(report_grid), weights, n_draws_beyond,
                           n_reports=report_grid, rng=beyond_rngs[0])
by_m = [runs.paper_params(h_beyond, m) for m in cohort_grid]
pr_by_m = runs.decode_grid(by_m, weights, n_draws_beyond, rng=beyond_rngs[1])
design_b = Rappor.create(params_b, runs.M, rng=beyond_rngs[2])
n_fine = np.unique(np.round(np.geomspace(min(report_grid), max(report_grid), 25)).astype(int))
threshold, predicted_recall = paper.threshold_recall(design_b, weights, n_fine)
for n, (p_, r_) in zip(report_grid, pr_by_n.mean(axis=1)[:, :2]):
    print(f"N = {n:6d}: precision {p_:.3f}, recall {r_:.3f}, predicted recall "
          f"{np.interp(n, n_fine, predicted_recall):.3f}")
for m, (p_, r_) in zip(cohort_grid, pr_by_m.mean(axis=1)[:, :2]):
    print(f"m = {m:3d}: precision {p_:.3f}, recall {r_:.3f}")

# %% tags=["no-claims"]
fig = plots.precision_recall_vs_n_and_m(report_grid, pr_by_n, cohort_grid, pr_by_m, n_fine,
                                        predicted_recall, h=h_beyond)
publish(fig, "fig_beyond_n_m")

# %% [markdown]
# The threshold itself, from the actual design (collisions included) and from the collision-free
# closed form at three h, against the Zipf frequencies of ranks 1, 10 and 100:

# %% tags=["no-claims"]
no_collisions = {par: paper.detection_threshold_without_collisions(par, n_fine)
                 for par in map(runs.paper_params, (1, 8, 32))}
fig = plots.detection_thresholds(n_fine, no_collisions, threshold, weights, h=h_beyond)
publish(fig, "fig_detection_threshold")

# %% [markdown]
# **Parameter-selection guide.** To detect a string of frequency π at level α with probability
# ½, one needs roughly $N h \ge \big(z_{1-\alpha}\sqrt{p^*(1-p^*)}/((q^*-p^*)\pi)\big)^2$ — but ε grows
# with h, so at a fixed privacy budget the lever is N (or weaker privacy), not h. With a
# Bonferroni correction over M candidates replace $z_{1-\alpha}$ by $z_{1-\alpha/M}$
# (1.64 → 3.48 for M = 200). Cohorts matter only through collisions: recall is nearly flat in m
# (a slight rise as collisions become rarer) once the design has enough rows for the OLS stage.

# %% [markdown]
# ## Explore
#
# The RAPPOR parameter guide with the paper's setting as defaults ($k = 128$, $h = 4$, $m = 8$, IRR
# only: $f = 0$, $p = 0.5$, $q = 0.75$, $N = 20{,}000$, $M = 200$ candidates of which 100 are held with
# Zipf weights $1/r^{0.7}$, α = 0.05 without correction): ε of one report and the permanent ε∞ (∞ without
# PRR), each candidate's detection threshold with this design's collisions, and the decoder's expected
# precision and recall — an analytic approximation (normal OLS estimates, the LASSO ignored), not a
# simulation. Without a running kernel the panel shows its first figure instead.

# %% tags=["no-claims"]
rappor_guide = show_panel("rappor", **runs.paper_setting(4))

# %% [markdown]
# ## 7. Claims check
#
# Every verdict below comes from a computation above and was recorded beside it; the words of each
# row are in `notebooks/claims/02_rappor.yaml`. First §1: Eq. (1), privacy and the tutorial's RAPPOR
# formulas. The paper's "Basic One-time" variant is compared there with the PRR-only one-time
# RAPPOR of the RAPPOR paper and the tutorial, whose PRR has the same
# $\Pr[S=1\mid B=1] = 1 - f/2 = q$. Then §2–3 (the estimator, cohorts, the regression), and the
# paper's code and its §3 text (§5).

# %%
claims_csv = claims.write_csv(write=save_figures)
claims  # the table, rendered as Markdown (verdicts other than reproduced in bold)

# %% [markdown]
# ## Takeaways
#
# 1. RAPPOR's privacy can be read off its whole-report output table exactly: the corrected
#    closed forms $\varepsilon_1 = h\ln\frac{q^*(1-p^*)}{p^*(1-q^*)}$ and
#    $\varepsilon_\infty = 2h\ln\frac{1-f/2}{f/2}$ match it, while the tutorial's printed $p^*$ does
#    not. Mind the letters: RAPPOR's $q > p$ is the reverse of the pure-LDP $p > q$.
# 2. Decoding is regression: the unbiased bit counts $\hat t = (c - p^*N)/(q^* - p^*)$ (mean and
#    variance checked by simulation) give $Y \approx X\beta$, and LASSO → OLS → t-test recovers the
#    frequent candidates; in our converted copy the paper's code normalizes inside the candidate
#    loop, and read so it detects nothing (ambiguous: the indentation may be the converter's).
# 3. More hashes $h$ are not free: with the paper's fixed IRR they buy recall by raising
#    ε = h ln 3, and at a fixed ε per report they cost accuracy. The smallest detectable
#    frequency falls like $1/\sqrt N$ and does not depend on the number of cohorts $m$.
#
# ## Exercises
#
# **Exercise 1 (compute).** Full RAPPOR with $f = 0.5$, $q = 0.75$, $p = 0.5$ and $h = 2$: compute
# $q^*$ and $p^*$ by hand, then $\varepsilon_1$ of one report and $\varepsilon_\infty$ of the
# memoized filter, and compare them with the exact losses from the output tables of §1.

# %% tags=["hide-input", "solution"]
assert abs(full.q_star - 0.6875) < 1e-12 and abs(full.p_star - 0.5625) < 1e-12  # full: §1's
eps1_by_hand = 2 * np.log(0.6875 * 0.4375 / (0.5625 * 0.3125))
eps_inf_by_hand = 2 * 2 * np.log((1 - 0.25) / 0.25)  # 4 ln 3
assert abs(full.epsilon_one_report - eps1_by_hand) < 1e-12
assert abs(full.epsilon_permanent - eps_inf_by_hand) < 1e-12
assert abs(row["eps_table"] - eps1_by_hand) < 1e-6
assert abs(row["eps_inf_table"] - eps_inf_by_hand) < 1e-6
print(f"q* = {full.q_star:.4g}, p* = {full.p_star:.4g}")
print(f"eps_1 = {eps1_by_hand:.4g} (table {row['eps_table']:.4g});  eps_inf = "
      f"{eps_inf_by_hand:.4g} (table {row['eps_inf_table']:.4g})")

# %% [markdown]
# **Exercise 2 (change a parameter and predict).** Fix ε = 4 per report, $p = 0.5$, $m = 8$,
# $N = 20{,}000$. Which $q$ makes one report ε-LDP for $h = 1$ and for $h = 16$
# (solve $h\ln\frac{q}{1-q} = \varepsilon$)? Predict, from the collision-free threshold
# $\pi_{\min} \propto \frac{1}{(q-p)\sqrt h}$, how many times larger the smallest detectable
# frequency is at $h = 16$ than at $h = 1$, then compute both thresholds.

# %% tags=["hide-input", "solution"]
at_eps = {h: runs.paper_params(h, epsilon=equal_epsilon) for h in (1, 16)}
for h, par in at_eps.items():
    assert abs(par.q - np.exp(equal_epsilon / h) / (1 + np.exp(equal_epsilon / h))) < 1e-12
predicted = (at_eps[1].q - 0.5) / (at_eps[16].q - 0.5) / np.sqrt(16)
thr = {h: paper.detection_threshold_without_collisions(par, [runs.N_REPORTS])[0]
       for h, par in at_eps.items()}
assert abs(thr[16] / thr[1] - predicted) < 1e-9
print(f"q: h = 1: {at_eps[1].q:.4g}, h = 16: {at_eps[16].q:.4g}")
print(f"pi_min at N = 20,000: h = 1: {thr[1]:.4g}, h = 16: {thr[16]:.4g}, "
      f"ratio = {thr[16] / thr[1]:.4g} (predicted {predicted:.4g})")

# %% [markdown]
# **Exercise 3 (compute).** With the paper's IRR ($q = 0.75$, $p = 0.5$, $f = 0$), $h = 8$ and
# $m = 8$, how many reports $N$ are needed before a string of frequency 1 % is detected with
# probability ½ at α = 0.05 (no collisions)? Use $\pi_{\min} \propto 1/\sqrt N$ and the threshold
# at $N = 20{,}000$.

# %% tags=["hide-input", "solution"]
thr_20k = paper.detection_threshold_without_collisions(params8, [runs.N_REPORTS])[0]
n_needed = int(np.ceil(runs.N_REPORTS * (thr_20k / 0.01) ** 2))
# (z_0.95 sqrt(p*(1-p*)) / ((q*-p*) pi))^2 / h with p* = 0.5, q* = 0.75, pi = 0.01, h = 8
by_formula = (1.6448536 * 0.5 / (0.25 * 0.01)) ** 2 / 8
assert abs(n_needed - by_formula) < 1.5
assert paper.detection_threshold_without_collisions(params8, [n_needed])[0] <= 0.01
print(f"pi_min at N = 20,000 = {thr_20k:.4g}; reports needed for pi = 1 %: N = {n_needed:,}")

# %% [markdown]
# **Exercise 4 (code: the permanent randomized response).** Write RAPPOR's PRR with $f = 0.5$:
# `prr(bits, rng)` takes one Bloom filter per row and sets each bit to 1 with probability $f/2$, to 0 with
# probability $f/2$, and keeps it with probability $1 - f$. `check_client` runs it on every filter that
# $h = 2$ hashes can set in $k = 4$ bits and compares the reports with the exact PRR table (a product of
# one-bit channels, `report_table`) by a χ² test per filter.
#
# ```python
# from ldp_helpers import teaching
# from ldp_helpers.mechanisms.rappor_client import all_bloom_filters, report_table
# blooms = all_bloom_filters(4, 2)
# law = report_table(blooms, RapporParams(k=4, h=2, m=1, f=0.5, p=0.5, q=0.75).prr_bit_table())
# def prr(bits, rng): ...  # your code: an array of the same shape, 0/1
# print(teaching.check_client(prr, law, blooms))
# ```

# %% tags=["hide-input", "solution"]
from ldp_helpers import teaching
from ldp_helpers.mechanisms.rappor_client import all_bloom_filters, report_table
blooms = all_bloom_filters(4, 2)
law = report_table(blooms, RapporParams(k=4, h=2, m=1, f=0.5, p=0.5, q=0.75).prr_bit_table())


def prr(bits, rng, f=0.5):
    u = rng.random(bits.shape)  # one coin per bit
    return np.where(u < f / 2, 1, np.where(u < f, 0, bits))


check_prr = teaching.check_client(prr, law, blooms)
print(check_prr)
assert check_prr.passed
