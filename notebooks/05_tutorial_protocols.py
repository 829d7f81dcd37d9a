# %% [markdown]
# # The tutorial's named protocols: heavy hitters, set-valued mining, personalized LDP
#
# > Stored outputs are the fast smoke profile; `figures/` and the book (`make book`) show the paper profile.
#
# The tutorial paper ([tutorial], §"Heavy Hitter Identification", §"Itemset mining",
# §"Personalized Local Differential Privacy") names three families of protocols beyond the frequency
# oracles of notebook 00, but states no result of its own about them. This notebook runs each one
# end to end on data whose truth we know, and reproduces the *qualitative* headline of each
# original paper: PEM against TreeHist and Bitstogram ([wang2021pem], [bassily2017]), SVIM against
# LDPMiner ([wang2018svim], [qin2016]), and Chen et al.'s personalized safe regions ([chen2016pldp]).
#
# > **Learning objectives**
# > 1. Find the most frequent of $2^{16}$ values without ever enumerating them: prefix trees and
# >    hashed buckets over OLH, each user reporting once.
# > 2. Mine frequent items from sets: padding and sampling, privacy amplification for GRR, and why
# >    SVIM's disjoint user groups beat LDPMiner's split budget.
# > 3. Let each user choose *where* she must be indistinguishable (a safe region) and see what that
# >    buys in accuracy.
#
# **Where our setting differs from the papers'.** All data are generated (Zipf values, Zipf baskets
# with long-tailed sizes, a two-level location tree), so recall and precision are computed against
# an exact truth; the papers use real datasets (e.g. Kosarak, POS, AOL queries, Gowalla check-ins).
# Every survey is drawn by the protocols' exact batched simulations (OLH with an idealized hash,
# the one documented idealization of the collection). Choices the papers leave open are stated in
# the package's docstrings.

# %% tags=["parameters"]
seed = 20261123
hh_n_users = 100_000  # users with a 16-bit value (the paper profile uses 1,000,000)
hh_epsilons = [0.5, 1.0, 2.0, 4.0]
hh_n_grid = [25_000, 100_000, 400_000]  # n for the recall of PEM against n, at eps 2
hh_n_draws = 5  # runs per point (paper profile: 40)
sv_n_users = 50_000  # users with a basket over 128 items (paper profile: 200,000)
sv_epsilons = [0.5, 1.0, 2.0, 4.0]
sv_n_draws = 5  # runs per point (paper profile: 20)
pl_n_users = 20_000  # users on a 4 x 5 location tree (paper profile: 100,000)
pl_betas = [0.2, 0.1, 0.05, 0.01]
pl_n_draws = 20  # runs per beta (paper profile: 400)
progress = False  # tqdm bars for the paper-profile runs
save_figures = False  # the paper profile writes figures/05_tutorial_protocols/

# %%
import numpy as np
from ldp_helpers import PSFO, Taxonomy, pcep_rows, zipf_baskets
from ldp_helpers.experiments import tutorial_protocols as runs  # the drivers and the setting
from ldp_tools.pipeline import start_notebook
from ldp_tools.pipeline.decisions import ge, gt
from ldp_tools.pipeline.plots import tutorial_protocols as plots
from ldp_helpers.protocols.heavy_hitters import pem_lengths

claims, publish = start_notebook("05_tutorial_protocols", save_figures=save_figures)
arm = np.random.default_rng(seed).spawn(4)  # one independent stream per experiment

# %% [markdown]
# ## 1. Heavy hitters over a huge domain
#
# $n$ users hold values in $\{0,\dots,2^{m}-1\}$; a value is a *heavy hitter* if it is among the $k$
# most frequent. A frequency oracle would have to estimate all $2^m$ counts. The three protocols
# below each split the users into disjoint groups; a user reports once, with OLH at ε, so her whole
# report (group, OLH report) is ε-LDP (checked exactly in `tests/protocols/test_heavy_hitters.py`).
#
# - **PEM** ([wang2021pem]): group $j$ reports the first $L_j$ bits, $L_1 = \lceil\log_2 k\rceil+\eta$,
#   $L_{j+1} = L_j + \eta$; the server scores only the $k\cdot 2^\eta$ extensions of the $k$ best prefixes
#   of the previous group and keeps the $k$ best.
# - **TreeHist** ([bassily2017]): one group per level of the binary prefix tree; a prefix survives if
#   its estimate exceeds 3 standard deviations of an empty prefix's; a last group estimates the leaves.
# - **Bitstogram** ([bassily2017]): a public hash sends values to $T$ buckets; group $j$ reports
#   (bucket, $j$-th bit); each bucket's heavy value is read bit by bit, then estimated by a last group.
#
# Bun, Nelson and Stemmer's **PrivateExpanderSketch** ([bun2018]) reaches the optimal worst-case error
# by replacing Bitstogram's bit-by-bit reading with a list-recoverable code built on an expander graph,
# so that several heavy hitters in one bucket can be decoded. Our implementation makes concrete choices
# for the expander graph, the code built on it and its decoder, and states each as *ours* (not the
# paper's): a systematic Reed–Solomon code over GF(16) on a Möbius ladder, reported over Hashtogram
# ([bassily2017]), decoded by list recovery on each bucket's clusters (`ldp_helpers.protocols.expander_sketch`
# and `expander_code`). Notebook 07 measures it against the three below as $n$ and the domain grow.
#
# | protocol | module | status |
# |---|---|---|
# | PEM | `ldp_helpers.protocols.heavy_hitters.pem` | implemented, tested |
# | TreeHist | `ldp_helpers.protocols.heavy_hitters.treehist` | implemented, tested |
# | Bitstogram | `ldp_helpers.protocols.heavy_hitters.bitstogram` | implemented, tested |
# | PrivateExpanderSketch over Hashtogram | `ldp_helpers.protocols.expander_sketch` | ours (choices stated), tested |
#
# Data: $2^{16}$ values, Zipf(1.5) ranks mapped to random values; $k = 10$.

# %%
hh_values = runs.zipf_values(hh_n_users, runs.HH_BITS, runs.HH_ZIPF, rng=arm[0])
hh = runs.heavy_hitter_recall(hh_values, runs.HH_BITS, runs.HH_K, hh_epsilons, n_draws=hh_n_draws,
                              rng=arm[0], progress=progress)
hh_by_n = runs.recall_by_n(hh_n_grid, runs.HH_BITS, runs.HH_K, runs.HH_ZIPF, runs.HH_EPSILON_BY_N,
                           n_draws=hh_n_draws, rng=arm[1])
pem, pem_by_n, eps_max = hh["PEM"], hh_by_n["PEM"], max(hh_epsilons)
claims.statement("pem_rises_with_eps", gt(runs.rise(pem), 3.0), **runs.ends(pem, hh_epsilons))
tree_margin = runs.smallest_margin(pem, hh["TreeHist"], where=np.less(hh_epsilons, eps_max))
claims.statement("pem_beats_treehist", gt(tree_margin, 2.0), margin=tree_margin, eps_max=eps_max)
bits_gap = runs.gap(pem, hh["Bitstogram"], 0)
claims.statement("pem_beats_bitstogram", gt(bits_gap, 2.0), gap=bits_gap, eps=hh_epsilons[0],
                 pem=pem.mean[0], bitstogram=hh["Bitstogram"].mean[0])
claims.statement("pem_rises_with_n", gt(runs.rise(pem_by_n), 3.0), eps=runs.HH_EPSILON_BY_N,
                 **runs.ends(pem_by_n, hh_n_grid))
print(f"PEM's prefix lengths per group: {pem_lengths(runs.HH_BITS, runs.HH_K, runs.PEM_ETA)}")
print(runs.curve_table(hh, hh_epsilons, f"recall of the top {runs.HH_K} at eps"))
print(runs.curve_table(hh_by_n, hh_n_grid, f"recall at eps = {runs.HH_EPSILON_BY_N:g} against n"))

# %%
fig = plots.heavy_hitters_figure(
    hh, hh_epsilons, pem_by_n, hh_n_grid, k=runs.HH_K, bits=runs.HH_BITS, exponent=runs.HH_ZIPF,
    n_users=hh_n_users, epsilon_by_n=runs.HH_EPSILON_BY_N,
)
publish(fig, "fig_heavy_hitters_recall")

# %% [markdown]
# PEM finds the most heavy hitters at small ε: it spends its groups on a few long prefix extensions,
# while TreeHist spreads the users over one group per bit. Bitstogram also uses one group per bit but
# reads each bucket's value directly; with many users (the paper profile's $n = 10^6$) it catches up
# with PEM from ε = 2 on. All three recover the top 10 at ε = 4, and PEM's recall grows with $n$.
#
# ## 2. Frequent items in set-valued data: SVIM against LDPMiner
#
# Each user holds a set of items. **PSFO** pads the set to ℓ items with dummies (or keeps ℓ of them),
# samples one and reports it; for GRR the sampling *amplifies* privacy, so GRR may run at
# $\varepsilon' = \ln(\ell(e^\varepsilon - 1) + 1)$ ([wang2018svim]; `ldp_helpers.PSFO`, a registered mechanism).
# **LDPMiner** ([qin2016]) lets every user report twice, with ε/2 each: candidates, then their counts.
# **SVIM** ([wang2018svim]) splits the users instead: 50 % find $2k$ candidates (PSFO, ℓ = 1), 10 %
# report how many candidates they hold (ℓ is set to the 90th percentile), 40 % report the candidates with
# PSFO(ℓ), corrected for users with more than ℓ of them. We give LDPMiner the true 90th-percentile ℓ.
# **SVSM** ([wang2018svim]) mines frequent *itemsets*: half of the users run SVIM to find frequent items;
# itemsets of those items with the largest guessed frequency (the product of the items' frequencies)
# become candidates, and the other half estimate them as SVIM estimates items (sizes, ℓ, PSFO, correction).
#
# Data: Zipf(1.1) items over $d = 128$, basket sizes $1 + \mathrm{Poisson}(3)$; $k = 16$.

# %%
baskets = zipf_baskets(sv_n_users, runs.SV_D, runs.SV_ZIPF, runs.SV_MEAN_SIZE, rng=arm[2])
sizes = np.array([b.size for b in baskets])
sv_ell = int(np.quantile(sizes, runs.SV_PERCENTILE))  # LDPMiner is given the true ℓ
sv = runs.itemset_precision(baskets, runs.SV_D, runs.SV_K, sv_epsilons, ldpminer_ell=sv_ell,
                            n_draws=sv_n_draws, rng=arm[2], progress=progress)
# one finding, decided on NCR (SVIM's paper's metric), pooled over ε: at ε = 4 both are near 1
pooled = runs.pooled_margin(sv["SVIM", "NCR"], sv["LDPMiner", "NCR"])
margin = runs.smallest_margin(sv["SVIM", "NCR"], sv["LDPMiner", "NCR"])
precision = runs.pooled_margin(sv["SVIM", "precision"], sv["LDPMiner", "precision"])
claims.statement("svim_ahead", gt(pooled, 3.0), pooled=pooled, epsilons=sv_epsilons, margin=margin,
                 precision=precision)
psfo = PSFO(1.0, 4, 3)  # ε = 1, d = 4 items, sets padded to ℓ = 3: the exact loss of a whole report
claims.check("psfo_whole_set_ldp", psfo.privacy_loss(), paper=psfo.epsilon, ell=psfo.ell)
print(f"basket sizes: mean {sizes.mean():.2f}, {runs.SV_PERCENTILE:g} quantile {sv_ell}, "
      f"max {sizes.max()}")
print(runs.curve_table(sv, sv_epsilons, f"top {runs.SV_K} items at eps"))

# %%
fig = plots.itemset_figure(sv, sv_epsilons, k=runs.SV_K, d=runs.SV_D, n_users=sv_n_users)
publish(fig, "fig_itemset_precision")

# %% [markdown]
# SVIM is ahead of LDPMiner, as Wang et al. report and the tutorial repeats (SVIMはLDPMinerを性能で大幅に
# 上回り): LDPMiner halves each report's budget, SVIM keeps the whole ε for each user's single report and
# adapts ℓ to the data. We decide it once, on NCR (the SVIM paper's metric; precision, from the same
# surveys, is reported beside it), over the ε grid as a whole (the summed gap in its SE): at ε = 4
# both are near 1 and their gap, one or two SE of 20 surveys, flipped the per-ε test under another seed.
#
# SVSM on the same baskets, against the true top 10 itemsets (sizes 2 and 3, counted exactly among the
# itemsets of the 16 most frequent items, where they lie for Zipf data):

# %%
svsm, true_itemsets = runs.itemset_mining_precision(
    baskets, runs.SV_D, runs.SVSM_K, sv_epsilons, n_draws=sv_n_draws, rng=arm[2],
    max_size=runs.SVSM_MAX_SIZE, progress=progress,
)
above, chance = runs.lead_over_random_picks(svsm)  # at the smallest ε, in SE
claims.statement("svsm_rises_with_eps", gt(min(runs.rise(svsm), above), 3.0), above=above,
                 chance=chance, **runs.ends(svsm, sv_epsilons))
print(f"true top itemsets: {true_itemsets[:5]} ...")
print(runs.curve_table({"SVSM": svsm}, sv_epsilons, f"top {runs.SVSM_K} itemsets at eps"))
fig = plots.svsm_figure(
    svsm, sv_epsilons, k=runs.SVSM_K, n_users=sv_n_users, max_size=runs.SVSM_MAX_SIZE
)
publish(fig, "fig_itemset_svsm")

# %% [markdown]
# SVSM recovers most of the frequent itemsets from single ε-LDP reports, the open problem the tutorial
# says it solved; its precision grows with ε.
#
# ## 3. Personalized LDP: safe regions on a location tree
#
# In (τ, ε)-PLDP ([chen2016pldp]) user $u$ picks a *safe region* $\tau_u$, a node of a location
# taxonomy; her report must keep her location ε-indistinguishable only from the locations under
# $\tau_u$ (τ = the root is ε-LDP). **PCEP** ([chen2016pldp]) estimates the users per location of a
# region with a public random ±1 matrix of $m$ rows: a user sends one row index and one randomized
# sign. **PSDA** runs one PCEP per cluster of users with the same safe region, at confidence
# $\beta/|\mathbb C|$, and adds the clusters' counts. We choose $m$ from β so that the matrix's bias and
# the noise are of the same order (`pcep_rows`: the target accuracy γ in $m$ is our choice), and
# compare each user's parent region with τ = root. The bound marked is `psda_error_bound`: exact bias
# plus Hoeffding's noise bound, which must hold with probability at least $1-\beta$.
#
# Data: 4 regions × 5 locations; half of the users in region 1's five locations.

# %%
tree = Taxonomy.regular(runs.PL_BRANCHING)
pl_locations, pl_regions = runs.tree_users(tree, pl_n_users, runs.PL_HOT_SHARE, rng=arm[3])
pl = runs.psda_error_curves(tree, pl_locations, pl_regions, runs.PL_EPSILON, pl_betas,
                            n_draws=pl_n_draws, rng=arm[3], progress=progress)
margin = runs.smallest_margin(pl["root"]["max_error"], pl["personal"]["max_error"])
claims.statement("safe_regions_cut_error", gt(margin, 3.0), margin=margin, betas=pl_betas)
worst = runs.worst_coverage(pl, pl_betas, pl_n_draws)
claims.statement("psda_within_bound", ge(worst, -3.0), worst=worst)
for name, r in pl.items():
    print(f"safe region = {name:<8}: mean max error {np.round(r['max_error'].mean)}, "
          f"bound {np.round(r['bound'])}, runs within the bound {r['covered']}")

# %%
fig = plots.psda_figure(pl, pl_betas, n_users=pl_n_users, epsilon=runs.PL_EPSILON,
                        n_locations=tree.locations.size)
publish(fig, "fig_psda_error_vs_beta")

# %% [markdown]
# Smaller safe regions cut the error: a user adds noise only to her own region's five counts. As β
# shrinks the guaranteed error (our `psda_error_bound`; Chen et al.'s own bound is not reproduced here)
# grows like $\sqrt{\log(1/\beta)}$ while the typical error hardly moves.
#
# ## 4. Claims
#
# Each original paper's qualitative headline, decided on our data and recorded beside its evidence
# above; margins are in standard errors of the difference of two independent means (SE from the runs).

# %%
claims_csv = claims.write_csv(write=save_figures)
claims  # the table, rendered as Markdown (verdicts other than reproduced in bold)

# %% [markdown]
# ## Takeaways
#
# 1. Heavy hitters over $2^{m}$ values need no enumeration: users split into groups that each report one
#    piece (a prefix, or a bucket and a bit) with OLH, and the server scores only candidates; PEM's few
#    long extension rounds beat one round per bit.
# 2. Set-valued data need padding and sampling; sampling amplifies GRR's privacy, SVIM's disjoint
#    groups (each user spends her whole ε once) beat LDPMiner's budget split, and SVSM extends them
#    to frequent itemsets.
# 3. Personalized safe regions trade *where* a user hides for accuracy: each user's noise falls only on
#    her region's counts, so the error drops against ε-LDP over the whole universe.
#
# ## Exercises
#
# **Exercise 1 (compute).** PSFO with ℓ = 4 at ε = 1: compute the amplified budget
# $\varepsilon' = \ln(\ell(e^\varepsilon-1)+1)$ at which GRR runs, and check that the whole report is still
# exactly 1-LDP over every set of $d = 3$ items.

# %% tags=["hide-input", "solution"]
eps_prime = np.log(4 * (np.e - 1) + 1)
psfo4 = PSFO(1.0, 3, 4)
assert abs(psfo4.oracle.epsilon - eps_prime) < 1e-12 and abs(psfo4.privacy_loss() - 1.0) < 1e-9
print(f"eps' = {eps_prime:.4f}; whole-report loss over all sets = {psfo4.privacy_loss():.6f}")

# %% [markdown]
# **Exercise 2 (derive).** PEM with 16-bit values, $k = 10$ and η = 2: how many user groups are there,
# and how many candidates does the server score in each group after the first?

# %% tags=["hide-input", "solution"]
lengths = pem_lengths(16, 10, 2)
assert lengths[0] == np.ceil(np.log2(10)) + 2 and lengths[-1] == 16 and len(lengths) == 6
print(
    f"prefix lengths {lengths}: {len(lengths)} groups; {10 * 2**2} candidates scored per later "
    "group"
)

# %% [markdown]
# **Exercise 3 (change a parameter and predict).** PCEP's matrix has $m$ rows chosen from β. Predict
# whether $m$ grows or shrinks when β goes from 0.1 to 0.01 (5 locations, 5,000 users, ε = 1), then
# compute both.

# %% tags=["hide-input", "solution"]
m_rows = {b: pcep_rows(5, 5000, 1.0, b) for b in (0.1, 0.01)}
assert m_rows[0.01] > m_rows[0.1]
print(f"m at beta = 0.1: {m_rows[0.1]}, at beta = 0.01: {m_rows[0.01]} (more rows: a smaller bias)")

# %% [markdown]
# **Exercise 4 (code: padding and sampling).** Write PSFO's client for $d = 3$ items, ℓ = 2 and ε = 1:
# `psfo_client(sets, rng)` gets one set per row as a 0/1 membership vector; it pads the set with the
# dummies $d, \dots, d+\ell-1$ up to ℓ items (or keeps a uniform ℓ-subset of a larger set), samples one
# item uniformly and reports it with GRR over the $d + \ell$ values at the amplified
# $\varepsilon' = \ln(\ell(e^\varepsilon - 1) + 1)$. `check_client` runs it on all 8 subsets of
# $\{0, 1, 2\}$ (size, then lexicographic order) against PSFO's exact output table.
#
# ```python
# from itertools import combinations
# from ldp_helpers import GRR, amplified_grr_epsilon, teaching
# subsets = np.array([[int(i in s) for i in range(3)] for r in range(4) for s in combinations(range(3), r)])
# def psfo_client(sets, rng): ...  # your code: one report in [0, 5) per row
# print(teaching.check_client(psfo_client, PSFO(1.0, 3, 2).output_table(), subsets, n_per_input=2000))
# ```

# %% tags=["hide-input", "solution"]
from itertools import combinations
from ldp_helpers import GRR, amplified_grr_epsilon, teaching
subsets = np.array([[int(i in s) for i in range(3)]
                    for r in range(4) for s in combinations(range(3), r)])  # size, then lex order
grr_amplified = GRR(amplified_grr_epsilon(1.0, 2), 3 + 2)  # over 3 items + 2 dummies, at eps'


def psfo_client(sets, rng, d=3, ell=2):
    items = [np.flatnonzero(row) for row in sets]
    padded = [np.concatenate([s, np.arange(d, d + ell - s.size)]) if s.size < ell else s
              for s in items]
    sampled = np.array([rng.choice(rng.permutation(s)[:ell]) for s in padded])  # one of ell items
    return grr_amplified.perturb(sampled, rng=rng)


psfo_law = PSFO(1.0, 3, 2).output_table()
check_psfo = teaching.check_client(psfo_client, psfo_law, subsets, n_per_input=2000)
print(check_psfo)
assert check_psfo.passed
