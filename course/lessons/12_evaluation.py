# %% [markdown]
# # Lesson 12: evaluating honestly — seeds, intervals, IQM, the leaderboard
#
# Deep RL results vary a lot from seed to seed, and papers often report a mean over 3 to 5
# runs. Agarwal et al. ("Deep RL at the edge of the statistical precipice", NeurIPS 2021) showed
# how easily such point estimates mislead, and proposed: report **interval estimates** (the
# stratified bootstrap), prefer the **interquartile mean** (IQM: robust to outlier runs, yet
# uses half the data, unlike the median), show **performance profiles**, and state the
# **probability of improvement** instead of "A beats B".
#
# envzoo's leaderboard does exactly that (`envzoo leaderboard`, `envzoo.leaderboard.stats`).
# This lesson reads the published result files in `leaderboard/results/` (no training) and looks
# at what the statistics say. Runs in about 10 s (`REPS`: bootstrap replications).

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from envzoo.leaderboard import report, stats
from envzoo.leaderboard.results import collect

REPS = 2_000
root = next(p for p in (Path("leaderboard"), Path("../../leaderboard")) if p.is_dir())
results = collect(root / "results")
own = report.own_matrices(results)
for name, (ids, scores) in own.items():
    print(f"{name:20s} {len(ids):2d} ids x {scores.shape[0]} runs")

# %% [markdown]
# ## Normalized scores
#
# Returns are not comparable across ids, so each run's evaluation return is **normalized**:
# 0 is the random policy, 1 the best (non-oracle) reference policy of the id, on the same
# evaluation seeds. Below, Stable-Baselines3 PPO's five seeds on each of its ids: the spread
# within an id is often as large as the differences between ids.

# %%
ids, ppo = own["sb3-ppo"]
order = np.argsort(np.median(ppo, axis=0))
fig, ax = plt.subplots(figsize=(8, 4.5))
for column, task in enumerate(order):
    ax.scatter(ppo[:, task], np.full(ppo.shape[0], column), s=18, alpha=0.7)
ax.set_yticks(range(len(ids)), [ids[t].removeprefix("envzoo/") for t in order], fontsize=7)
ax.axvline(0, color="grey", lw=1)
ax.axvline(1, color="grey", lw=1, linestyle="--")
ax.set_xlabel("normalized score (0 = random, 1 = best reference)")
ax.set_title("sb3-ppo: one dot per seed")
plt.show()

# %% [markdown]
# ## Point estimates and their intervals
#
# The mean is dragged by a single catastrophic run (one of RLlib's PPO runs scores about -65); the
# median of per-task means ignores most of the data; the IQM sits in between. The bars are 95 %
# stratified-bootstrap intervals: each id's runs are resampled with replacement (exercise 3),
# the ids kept fixed.

# %%
estimators = ("iqm", "median", "mean")
entrants = [name for name, (_, scores) in own.items() if scores.shape[0] > 1]
fig, axes = plt.subplots(1, 3, figsize=(11, 2.8), sharey=True)
for ax, estimator in zip(axes, estimators):
    for row, name in enumerate(entrants):
        scores = own[name][1]
        low, high = stats.interval(estimator, scores, reps=REPS)
        ax.plot([low, high], [row, row], lw=6, alpha=0.5)
        ax.plot(getattr(stats, estimator)(scores), row, "k|", ms=14)
    ax.set_title(estimator.upper() if estimator == "iqm" else estimator)
    ax.set_yticks(range(len(entrants)), entrants)
    ax.set_xlim(-1.5, 1.3)
fig.suptitle("95 % stratified-bootstrap intervals (intervals beyond -1.5 are cut)")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## How many seeds?
#
# Keeping only k of PPO's seeds per id (20 random choices of the seeds for each k) shows what
# the interval of the IQM looks like with fewer runs. With **one** seed the stratified bootstrap
# has nothing to resample and the interval collapses to a point: that is not certainty but
# ignorance, and why a single run per id cannot be given an honest interval this way. From two
# seeds on the width falls only slowly (roughly as one over the square root of the runs), and
# with two seeds it depends a lot on *which* two were run (the band).

# %%
generator = np.random.default_rng(0)
widths = []
for k in range(1, ppo.shape[0] + 1):
    trials = [np.subtract(*stats.interval("iqm", ppo[generator.choice(ppo.shape[0], k, replace=False)],
                                          reps=500)[::-1]) for _ in range(20)]
    widths.append((np.mean(trials), np.min(trials), np.max(trials)))
widths = np.array(widths)
seeds = np.arange(1, ppo.shape[0] + 1)
plt.plot(seeds, widths[:, 0], marker="o")
plt.fill_between(seeds, widths[:, 1], widths[:, 2], alpha=0.2)
plt.xlabel("seeds per id")
plt.ylabel("width of the IQM's 95 % interval")
plt.title("sb3-ppo over 17 ids: interval width against seeds (band: 20 draws of the seeds)")
plt.show()

# %% [markdown]
# ## Performance profiles and the probability of improvement
#
# A performance profile plots, for every threshold τ, the fraction of runs scoring above τ: one
# curve shows the whole distribution, and a curve above another everywhere is a clear win. On
# the ids both PPO implementations ran, P(sb3-ppo > rllib-ppo) says how often a run of one beats
# a run of the other; its interval says whether that is more than a coin flip.

# %%
common, matrices = report.score_matrices([r for r in results if report.entrant(r) in ("sb3-ppo", "rllib-ppo")])
taus = np.linspace(-1, 1.5, 101)
for name, scores in matrices.items():
    low, high = stats.profile_interval(scores, taus, reps=REPS)
    line, = plt.plot(taus, stats.performance_profile(scores, taus), label=name)
    plt.fill_between(taus, low, high, alpha=0.2, color=line.get_color())
plt.xlabel("normalized score τ")
plt.ylabel("fraction of runs > τ")
plt.title(f"Performance profiles on {len(common)} common ids")
plt.legend()
plt.show()
p = stats.probability_of_improvement(matrices["sb3-ppo"], matrices["rllib-ppo"])
low, high = stats.improvement_interval(matrices["sb3-ppo"], matrices["rllib-ppo"], reps=REPS)
print(f"P(sb3-ppo > rllib-ppo) = {p:.2f}, 95 % interval [{low:.2f}, {high:.2f}] on {', '.join(common)}")

# %% [markdown]
# (The leaderboard page says why the two differ: the published RLlib rows use RLlib's own
# default hyperparameters.) To publish your own: `envzoo train ID --algo ppo --seed 0 1 2 3 4`
# writes one result file per run with the references scored on the same evaluation seeds, and
# `envzoo leaderboard` prints these tables.
#
# ## Exercises
#
# Fill in `course/exercises/12_evaluation.py`, then run `envzoo course check 12`.
#
# 1. `iqm(scores)`: the interquartile mean of a (runs, tasks) matrix.
# 2. `probability_of_improvement(x, y)`: P(X > Y), ties one half, averaged over tasks.
# 3. `stratified_bootstrap(scores, reps, generator)`: the resamples the intervals above come from.
#
# Going further: with your bootstrap, compute the IQM's 95 % interval for sb3-ppo and compare
# with `stats.interval("iqm", ...)`.

# %%
from envzoo.tools.course import report as check  # noqa: E402

check("12")
