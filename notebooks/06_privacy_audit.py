# %% [markdown]
# # Privacy in practice: auditing LDP clients, and what repeated reporting costs
#
# Our other notebooks *prove* each mechanism's ε from its whole-report output table. This one asks
# the questions a practitioner meets next: how do you check a client you **cannot read as a
# table** (someone else's library, a continuous mechanism), and what does a user lose who reports
# the **same value many times**?
#
# > **Learning objectives**
# > 1. Turn N runs of a client into a *lower bound* ε_lb on its privacy loss with Clopper–Pearson
# >    intervals, and see how tight it gets as N grows against the exact ε of our mechanisms.
# > 2. Catch a real bug: pure-ldp 1.1.2's unary-encoding client never clears the true bit
# >    (Arcolezi & Gambs, PETS 2024 — key `arcolezi2024`), and clear its fixed version 1.2.0 and
# >    multi-freq-ldpy.
# > 3. Watch the averaging attack on k reports succeed against fresh randomized response, stall
# >    against RAPPOR's memoized PRR, and get nowhere against 1-shot reporting.

# %% tags=["parameters"]
seed = 20261123
confidence = 0.99  # joint confidence of the two Clopper–Pearson bounds of every audit
n_trials_registry = 20000  # runs per input when auditing each registered mechanism
n_grid = [100, 1000, 10000]  # N for the ε_lb-vs-N curves; the paper profile goes to 10^6
n_trials_peers = 5000  # runs per input for each peer client (slow per-user Python loops)
peer_d = 4  # domain size of the peers' SUE / OUE / OLH
ks = [1, 2, 4, 8, 16, 32, 64]  # numbers of reports in the longitudinal attack
n_draws_attack = 2000  # simulated users per stream and k (1-shot, m-shot)
progress = False  # tqdm bars for the long paper-profile runs
chunk_size = 5000  # trials per chunk: the unit of work local processes or a Dask cluster share
# a Dask scheduler such as tcp://host:8786 runs the audit chunks there (same numbers); None: the joblib/Dask
# settings in force, else this machine
dask_address = None
save_figures = False  # the paper profile writes figures/06_privacy_audit/

# %%
import numpy as np
from ldp_helpers import REGISTRY, max_privacy_loss, unary_output_table
from ldp_helpers.audit import auditor, longitudinal
from ldp_helpers.experiments import privacy_audit as runs  # the drivers and the setting
from ldp_tools.peers import peer_audits
from ldp_tools.pipeline import start_notebook
from ldp_tools.pipeline.decisions import close, gt, le
from ldp_tools.pipeline.plots import privacy_audit as plots
claims, publish = start_notebook("06_privacy_audit", save_figures=save_figures)
arm_seeds = runs.spawn_seeds(np.random.default_rng(seed), 4)  # one seed per experiment

# %% [markdown]
# ## 1. The audit: a lower bound from counts
#
# A client M is ε-LDP iff for all inputs $x_0, x_1$ and every output event $E$
# ([tutorial] Eq. (2)):
#
# $$P_0 = \Pr[M(x_0)\in E] \le e^{\varepsilon}\,\Pr[M(x_1)\in E] = e^\varepsilon P_1 .$$
#
# Run the client $N$ times on each input and count $K_0, K_1$ reports in $E$. Clopper–Pearson gives
# $P_0 \ge P_{0,\rm low}$ and $P_1 \le P_{1,\rm high}$, each with probability $\ge 1-\alpha/2$, so
# with probability $\ge 1-\alpha$ (our `confidence`)
#
# $$\varepsilon \;\ge\; \varepsilon_{\rm lb} = \ln\frac{P_{0,\rm low}}{P_{1,\rm high}} .$$
#
# $\varepsilon_{\rm lb} > \varepsilon_{\rm claimed}$ is then a **violation shown at that confidence**.
# The event is chosen on an independent *pilot* run (single report coordinates, pairs of
# coordinates, whole outcomes) so that the main run's counts stay honest binomials.
#
# First, every mechanism of our registry, each on the pair of inputs where its table attains ε.
# "None is flagged" is one statement about K audits, so each runs at confidence $1-\alpha/K$
# (Bonferroni): at $1-\alpha$ each, one of 38 sound mechanisms is falsely flagged about a third of the
# time (ADP by 0.005 under one robustness seed did).

# %%
family = 1 - (1 - confidence) / len(REGISTRY)  # per audit, so all K hold jointly w.p. >= confidence
audits = runs.registry_audits(n_trials=n_trials_registry, seed=arm_seeds[0], confidence=family,
                              chunk_size=chunk_size, progress=progress, dask_address=dask_address)
worst_gap = max(row.result.epsilon_lb - row.exact_epsilon for row in audits)
claims.statement("registry_never_flagged", le(worst_gap, 0.0), gap=worst_gap, family=family,
                 mechanisms=len(audits), n=n_trials_registry, confidence=confidence)
print(runs.audit_table(audits))

# %% [markdown]
# No mechanism is flagged. How close ε_lb gets to ε depends on the mechanism and on N (the table
# above, at the smoke N): the short discrete reports (RR, GRR, SUE/OUE, BLH/OLH, Harmony) come within
# about 0.1; Glance, T-shot and m-shot within about 0.2; RAPPOR and the count-mean sketch, long reports
# probed through one event, stay further below; the continuous SHE/THE reports are probed only by
# threshold events, so their bound is loose — always a lower bound, never a false alarm.
#
# ## 2. How tight does ε_lb get?
#
# The gap $\varepsilon - \varepsilon_{\rm lb}$ is the width of the CP intervals on the log scale,
# about $z\sqrt{(1-P_0)/(N P_0) + (1-P_1)/(N P_1)}$: it shrinks as $N^{-1/2}$. The band is the
# event's log-ratio interval $[\ln\frac{P_{0,\rm low}}{P_{1,\rm high}}, \ln\frac{P_{0,\rm high}}{P_{1,\rm low}}]$.

# %%
where = dict(chunk_size=chunk_size, progress=progress, dask_address=dask_address)
grr = runs.epsilon_lb_curve("grr", n_grid, seed=arm_seeds[1], confidence=confidence, **where)
low, high, exact = grr["epsilon_lb"][-1], grr["high"][-1], grr["exact"][0]
claims.statement("grr_in_cp_interval", le(abs(exact - 0.5 * (low + high)), 0.5 * (high - low)),
                 exact=exact, low=low, high=high, n=grr["n"][-1], half=0.5 * (high - low))

# %% tags=["no-claims"]
curves = {  # the other curves are drawn, not claimed: a reseeded run leaves them out
    key: grr if key == "grr" else runs.epsilon_lb_curve(key, n_grid, seed=arm_seeds[1] + i,
                                                         confidence=confidence, **where)
    for i, key in enumerate(runs.CURVE_KEYS)
}
publish(plots.epsilon_lb_figure(curves, confidence), "fig_epsilon_lb_vs_n")

# %% [markdown]
# ## 3. Auditing the peers for real
#
# pure-ldp 1.1.2's unary-encoding client draws every bit as $\Pr[1]=q$, then sets the true bit to 1
# with probability $p$ — but never sets it to 0, so $\Pr[1\mid\text{true}] = p' = p + (1-p)q$.
# On the event "bit $x_0$ set and bit $x_1$ clear" the ratio becomes
# $\frac{p'(1-q)}{q(1-p')} > \frac{p(1-q)}{q(1-p)} = e^\varepsilon$.
# Each peer runs in its own process (1.1.2 and 1.2.0 share an import name), with its global RNGs
# seeded from our chunk seeds; the protocols are SUE, OUE and OLH at ε = 1, d = `peer_d`. An OLH report
# `(y, seed)` is audited through the values it supports under the peer's own hash (a post-processing).
# The peers' clients run at their own speed (Python loops, one user at a time): their audits' chunks
# are spread over the cores, and `make figures` reports this cell's time on a line of its own.

# %% tags=["peer-clients"]
peers = peer_audits(epsilon=runs.PEER_EPSILON, d=peer_d, n_trials=n_trials_peers, seed=arm_seeds[2],
                    confidence=confidence)

# %%
true_loss = {ue: runs.never_cleared_loss(ue, runs.PEER_EPSILON) for ue in ("SUE", "OUE")}
for protocol, loss in true_loss.items():
    lb = {peer: found["audits"][protocol]["epsilon_lb"] for peer, found in peers.items()}
    buggy, fixed, multi = (lb[p] for p in ("pure-ldp-1.1.2", "pure-ldp-1.2.0", "multi-freq-ldpy"))
    key, cp = protocol.lower(), dict(n=n_trials_peers, confidence=confidence)
    claims.statement(f"{key}.buggy_flagged", gt(buggy, runs.PEER_EPSILON), lb=buggy, **cp)
    claims.statement(f"{key}.buggy_below_true_loss", le(buggy, loss), lb=buggy, loss=loss, **cp)
    claims.statement(f"{key}.fixed_passes", le(fixed, runs.PEER_EPSILON), lb=fixed, **cp)
    claims.statement(f"{key}.multi_freq_passes", le(multi, runs.PEER_EPSILON), lb=multi, **cp)
olh_lb = max(found["audits"]["OLH"]["epsilon_lb"] for found in peers.values())
claims.statement("olh.peers_pass", le(olh_lb, runs.PEER_EPSILON), lb=olh_lb, **cp)
print(runs.peer_table(peers))

# %% tags=["no-claims"]
fig = plots.peer_audit_figure(peers, {"pure-ldp-1.1.2": true_loss}, epsilon=runs.PEER_EPSILON,
                              confidence=confidence)
publish(fig, "fig_peer_audit")

# %% [markdown]
# The highlighted (pink) bars exceed the claim at 99 % confidence: 1.1.2's SUE and OUE leak more than ε = 1, and
# their ε_lb sits just below the true loss of the buggy client (dotted). 1.2.0 and multi-freq-ldpy
# stay below ε = 1, and so do all three OLH clients (1.1.2's bug is in unary encoding only).
#
# ## 4. What repeated reporting costs: the averaging attack
#
# One user holds a bit $v$ and reports it $k$ times; the attacker counts the positive reports $C$
# and guesses $v=1$ iff $C$ exceeds the midpoint of its two means. No ε-LDP view lets any attacker
# succeed with probability above $\frac{e^{\varepsilon}}{1+e^{\varepsilon}}$ (uniform prior), so the
# composed ε of the $k$ reports caps the attack.
#
# * **Fresh RR** ($\varepsilon_0 = 1$ each): $C\sim{\rm Bin}(k, p)$ or ${\rm Bin}(k, 1-p)$; exact. Loss $k\varepsilon_0$.
# * **RAPPOR** ([erlingsson2014] §2): the PRR bit $B'$ is memoized ($f = 0.5$), each report is a fresh IRR
#   ($p = 0.25$, $q = 0.75$): $C$ is a two-binomial mixture, exact. Success $\to 1 - f/2$, loss $\to \ln\frac{1-f/2}{f/2}$.
# * **1-shot** Glance and Harmony, and **m-shot** ($m = 2$), whole-stream ε = 1 over $T = k$ rounds:
#   simulated through their per-user clients; loss exact from the whole-stream table for small $k$ ($k \le 6$).

# %%
attack = runs.longitudinal_curves(
    ks, epsilon=runs.RR_EPSILON, rappor_f=runs.RAPPOR_F, rappor_p=runs.RAPPOR_P,
    rappor_q=runs.RAPPOR_Q, stream_epsilon=runs.STREAM_EPSILON, m=runs.M_SHOT,
    n_draws=n_draws_attack, seed=arm_seeds[3], dask_address=dask_address,
)
rr, rappor, glance, k = attack[0], attack[1], attack[2], ks[-1]
claims.statement("rr_composes", close(rr.epsilon[-1], k * runs.RR_EPSILON, 1e-9), k=k,
                 composed=k * runs.RR_EPSILON, eps=rr.epsilon[-1])
failure, hoeffding = 1 - rr.success[-1], runs.averaging_failure_bound(runs.RR_EPSILON, k)
claims.statement("rr_attack_wins", le(failure, hoeffding), k=k, failure=failure,
                 hoeffding=hoeffding)
prr_cap, prr_loss = runs.memoized_limits(runs.RAPPOR_F)
excess = max(rappor.success.max() - prr_cap, rappor.epsilon.max() - prr_loss)
claims.statement("rappor_capped", le(excess, 1e-12), cap=prr_cap, success=rappor.success[-1],
                 eps=rappor.epsilon[-1], k=k)
cap = runs.success_cap(runs.STREAM_EPSILON)
slack, z, points = runs.success_slack(attack[2:], cap, confidence=confidence)  # Bonferroni z
claims.statement("one_shot_capped", le(slack, 0.0), cap=cap, slack=slack, z=z, points=points,
                 confidence=confidence)
glance_error = float(np.max(np.abs(glance.epsilon[glance.epsilon_exact] - runs.STREAM_EPSILON)))
claims.statement("glance_loss_exact", close(glance_error, 0.0, 1e-9),
                 k_max=int(glance.ks[glance.epsilon_exact].max()))

# %% tags=["no-claims"]
fig = plots.attack_figure(attack, stream_epsilon=runs.STREAM_EPSILON, m=runs.M_SHOT)
publish(fig, "fig_longitudinal_attack")

# %% [markdown]
# Fresh RR loses: the attack's success climbs to 1 and the loss grows as $k\varepsilon_0$.
# Memoization caps both at the PRR's level; 1-shot mechanisms keep both flat at the single report's.
#
# ## 5. Claims
#
# Every row was recorded beside its evidence above; the table gathers them.

# %%
claims_csv = claims.write_csv(write=save_figures)
claims  # the table, rendered as Markdown (verdicts other than reproduced in bold)

# %% [markdown]
# ## Takeaways
#
# 1. An audit can only *refute* a privacy claim: ε_lb = ln(P₀,low/P₁,high) is a lower bound at a stated
#    confidence, it approaches the exact table ε of our mechanisms as N grows, and it never proves ε.
# 2. Counting was enough to catch a real bug: pure-ldp 1.1.2's unary encoding never clears the true bit,
#    so its ε_lb exceeds the promised ε = 1 for SUE and OUE, while 1.2.0 and multi-freq-ldpy stay below.
# 3. Privacy is per user, over everything she sends: fresh randomized response composes (kε₀) and the
#    averaging attack wins; RAPPOR's memoized PRR caps the loss; 1-shot and m-shot reporting spend the
#    whole ε once, so more rounds do not help the attacker.
#
# ## Exercises
#
# **Exercise 1 (compute).** An audit of a client that claims ε = 1 ran $N = 10{,}000$ trials per input and
# counted the event $E$ in $K_0 = 7{,}400$ reports of $x_0$ and $K_1 = 2{,}600$ of $x_1$. Compute ε_lb at 95 %
# joint confidence with `epsilon_lower_bound`. Is the claim refuted? How far is ε_lb from the plug-in
# estimate $\ln(K_0/K_1)$, and why must it be lower?

# %% tags=["hide-input", "solution"]
eps_lb_ex = auditor.epsilon_lower_bound(7400, 10_000, 2600, 10_000, confidence=0.95)
plug_in = np.log(7400 / 2600)
assert 1.0 < eps_lb_ex < plug_in
print(
    f"eps_lb = {eps_lb_ex:.4f} > 1: refuted at 95 %; the plug-in ln(K0/K1) = {plug_in:.4f} ignores "
    "the sampling error"
)

# %% [markdown]
# **Exercise 2 (derive).** pure-ldp 1.1.2 sets the true bit to 1 with probability $p$ and otherwise
# leaves it at 1, so $\Pr[1\mid\text{true}] = p' = p + (1-p)q$ while other bits keep $\Pr[1] = q$. Derive the
# true loss of the whole report, $\ln\frac{p'(1-q)}{q(1-p')}$, for OUE at ε = 1 ($p = \tfrac12$,
# $q = 1/(e+1)$), and check it against the exact whole-report table of that broken client at $d = 3$.

# %% tags=["hide-input", "solution"]
p_ex, q_ex = 0.5, 1 / (np.e + 1)
p_broken = p_ex + (1 - p_ex) * q_ex
loss_formula = np.log(p_broken * (1 - q_ex) / (q_ex * (1 - p_broken)))
loss_table = max_privacy_loss(unary_output_table(p_broken, q_ex, 3))
assert abs(loss_formula - loss_table) < 1e-9 and loss_formula > 1.0
assert abs(loss_formula - runs.never_cleared_loss("OUE", 1.0)) < 1e-12
print(
    f"p' = {p_broken:.4f}; true loss = {loss_formula:.4f} (formula) = {loss_table:.4f} (exact "
    "table) > 1"
)

# %% [markdown]
# **Exercise 3 (change a parameter and predict).** With fresh randomized response at ε₀ = 0.5 per report,
# predict roughly how many reports $k$ the averaging attack needs to guess the value right 90 % of the
# time, then find the smallest such $k$ exactly. What is the composed ε of those $k$ reports?

# %% tags=["hide-input", "solution"]
k_needed = next(k for k in range(1, 200)
                if longitudinal.averaging_success(longitudinal.fresh_rr_count_table(0.5, k)) >= 0.9)
composed = max_privacy_loss(longitudinal.fresh_rr_count_table(0.5, k_needed))
assert 16 < k_needed <= 32 and abs(composed - 0.5 * k_needed) < 1e-9
print(f"smallest k with success >= 0.9: {k_needed}; composed eps = {composed:.4g} = k x 0.5")

# %% [markdown]
# **Exercise 4 (code: the broken client's table).** Write, by hand, the whole-report output table of
# pure-ldp 1.1.2's OUE client at ε = 1 and $d = 3$: `broken_table()` returns the 3 × 8 array whose row $v$
# gives the probability of every report $y$ (bit $i$ of $y$ is `(y >> i) & 1`) when bit $v$ is 1 with
# probability $p' = p + (1-p)q$ and every other bit with probability $q$. `check_output_table` checks it is
# an output table, names the first cell that differs from the exact one and computes its exact ε, which must
# be the bug's true loss (Exercise 2).
#
# ```python
# from ldp_helpers import teaching
# def broken_table(): ...  # your code: a (3, 8) array
# exact = unary_output_table(p_broken, q_ex, 3)
# true_loss = runs.never_cleared_loss("OUE", 1.0)
# print(teaching.check_output_table(broken_table(), epsilon=true_loss, reference=exact))
# ```

# %% tags=["hide-input", "solution"]
from ldp_helpers import teaching


def broken_table(d=3):
    bits = (np.arange(2**d)[:, None] >> np.arange(d)) & 1  # row y: the bits of report y
    rows = []
    for v in range(d):
        prob_one = np.where(np.arange(d) == v, p_broken, q_ex)  # Pr[bit i = 1 | value v]
        rows.append(np.prod(np.where(bits == 1, prob_one, 1 - prob_one), axis=1))
    return np.array(rows)


exact = unary_output_table(p_broken, q_ex, 3)
true_loss = runs.never_cleared_loss("OUE", 1.0)
check_table = teaching.check_output_table(broken_table(), epsilon=true_loss, reference=exact)
print(check_table)
assert check_table.passed
