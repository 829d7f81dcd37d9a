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

# %% tags=["parameters"]
seed = 20261121  # unused: the report draws no random numbers (kept for the collection's convention)
save_figures = False  # the paper profile writes figures/99_reproduction_report/

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from ldp_helpers.pipeline import save_figure, use_style, VERDICTS
from ldp_helpers.pipeline.report import (
    claims_markdown,
    claims_with_verdict,
    collect_claims,
    summary_text,
)

use_style()
NOTEBOOK = "99_reproduction_report"
rng = np.random.default_rng(seed)
collected = collect_claims()

# %% [markdown]
# ## 1. Summary per paper

# %%
print(summary_text(collected))

# %%
fig, ax = plt.subplots(figsize=(7, 0.6 * len(collected) + 1.4))
left = np.zeros(len(collected))
colors = {"reproduced": "C2", "differs": "C4", "paper error": "C1", "ambiguous": "C7"}
for verdict in VERDICTS:
    counts = np.array([nb.count(verdict) for nb in collected])
    ax.barh([nb.stem for nb in collected], counts, left=left, color=colors[verdict], label=verdict)
    left += counts
ax.invert_yaxis()
ax.set(xlabel="number of claims checked", title="Claims checked per paper notebook, by verdict")
fig.legend(loc="outside lower center", ncol=4)
save_figure(fig, NOTEBOOK, "claims_by_verdict", write=save_figures)
plt.show()

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
# ## 4. Every claim, per paper, with links to its notebook and figures

# %%
for nb in collected:
    display(Markdown(claims_markdown(nb)))
