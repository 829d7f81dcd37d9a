# %% [markdown]
# # Reproduction report: what each paper claims, and whether it holds
#
# This notebook gathers the claims table that every paper notebook writes to
# `figures/<notebook>/claims.csv` under the paper profile (`make figures`), and answers at a glance:
# how many claims were checked per paper, how many reproduced, how many differ, and which are
# errors in the paper itself. Nothing here is typed by hand: every count and row is read from the
# committed `claims.csv` files, which the paper notebooks compute.
#
# > **Learning objectives**
# > 1. Read the collection's verdicts per paper and in total.
# > 2. Find each erratum of the seeds with the evidence that establishes it.
# > 3. Follow a claim back to its notebook and figures.
#
# Verdicts: **reproduced** (our computation agrees within the stated tolerance), **differs** (our
# result disagrees; the paper is not provably wrong), **paper error** (the paper is demonstrably wrong;
# the claim states the evidence) with a severity — `typo`, `inconsistency` or `wrong result` — and
# **ambiguous** (garbled conversion or underspecified text; the row says what each reading gives; a
# conversion artefact is never a paper error). Each row also gives its `tolerance` (with the standard
# error where the value is simulated) and `depends_on`: a row that is a consequence of another row's
# slip names it and is **not** counted again — the severity counts are of independent errors only.
#
# **Stability.** `make figures` runs every paper notebook again under three other seeds (the paper
# profile's `robustness_seeds`, same sizes) and records in each row whether its verdict survives:
# `deterministic` (the deciding comparison is identical under every seed: exact computations and rows
# decided by the text), `stable over N seeds` (the value moves, the verdict does not) or
# `fragile: <verdict> under seed S` (another seed gives another verdict: the draw, not the evidence,
# decides the row). Fragile rows are listed in §3c and counted in the summary.

# %% tags=["parameters"]
seed = 20261121  # unused: the report draws no random numbers (kept for the collection's convention)
save_figures = False  # the paper profile writes figures/99_reproduction_report/

# %%
import numpy as np
from IPython.display import Markdown, display
from ldp_tools.pipeline import start_notebook
from ldp_tools.pipeline.plots import report as plots
from ldp_tools.pipeline.report import (claims_markdown, claims_with_verdict, collect_claims,
                                       fragile_claims, run_times, summary_text)

_, publish = start_notebook("99_reproduction_report", save_figures=save_figures)  # checks no claim
rng = np.random.default_rng(seed)
collected = collect_claims()

# %% [markdown]
# ## 1. Summary per paper

# %%
print(summary_text(collected))

# %%
publish(plots.claims_by_verdict(collected), "claims_by_verdict")

# %% [markdown]
# ## 2. Errors found in the papers
#
# Each row gives the paper's value, our computed value, and (in the claim) the evidence.

# %%
print(claims_with_verdict(collected, "paper error"))

# %% [markdown]
# ## 3. Claims that differ without a demonstrable paper error

# %%
print(claims_with_verdict(collected, "differs"))

# %% [markdown]
# ## 3b. Ambiguous passages (garbled conversion or underspecified text)

# %%
print(claims_with_verdict(collected, "ambiguous"))

# %% [markdown]
# ## 3c. Fragile verdicts (the verdict flips under another seed)

# %%
print(fragile_claims(collected))

# %% [markdown]
# ## 3d. Rows withdrawn
#
# - **05-11** ("a guarantee at confidence 1 − β grows as β shrinks") was decided by its wording: a bound
#   that holds with probability ≥ 1 − β′ also holds for β > β′, so no computation could have refuted
#   it. The tutorial's own statement there — each cluster at confidence β/|C| gives confidence β
#   overall — is what 05-10 decides, by the coverage of PSDA's simulated errors.

# %% [markdown]
# ## 4. Every claim, per paper, with links to its notebook and figures

# %%
for nb in collected:
    display(Markdown(claims_markdown(nb)))

# %% [markdown]
# ## 5. How long `make figures` took
#
# The runner times each notebook's run under the paper seed and its three claims-only reseeded runs
# (the robustness pass draws no figure), and apart the audits that call the peers' own clients as
# black boxes (they run at those clients' speed). The times change from run to run and machine to
# machine, so they live in `build/paper/timings.json`, never in `figures/`: this output is not compared.

# %% tags=["nbval-ignore-output"]
print(run_times("paper"))
