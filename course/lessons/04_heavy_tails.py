# %% [markdown]
# # Lesson 04: exploration and robust estimation under heavy-tailed rewards
#
# Optimistic exploration (UCB, UCBVI) adds a **bonus** to each estimated reward: "this action
# might be better than it looks". The bonus comes from a concentration inequality that assumes
# light tails (sub-Gaussian rewards). Real rewards (trade sizes, latencies, insurance claims) can
# have **heavy tails**: a finite (1+v)-th moment only, with v < 1, so an *infinite variance*. The
# sample mean then converges slowly and erratically, and a single huge reward can fool the
# learner for a long time.
#
# `envzoo/RiverSwimHeavy-v0` and `envzoo/GarnetHeavy-v0` add such noise to known tabular MDPs, and
# report each step's exact regret (lesson 01), so learners are compared without Monte Carlo
# over infinite-variance returns.
#
# Runs in about 20 s (`EPISODES`, `SEEDS`). CPU only.

# %%
import gymnasium as gym
import matplotlib.pyplot as plt
import numpy as np

import envzoo  # noqa: F401
from envzoo.heavytails.learning import run_learner
from envzoo.heavytails.noise import UNIFORMS, noise

EPISODES = 100   # UCBVI episodes per run (the docs' benchmark runs 300)
SEEDS = range(3)
generator = np.random.default_rng(0)


def draw(family, v, shape):
    """Zero-mean noise of scale 1 as the envs draw it (from uniforms)."""
    return noise(family, v, 1.0, generator.random((int(np.prod(shape)), UNIFORMS))).reshape(shape)


# %% [markdown]
# ## What a heavy tail looks like
#
# The survival function P(|X| > x) on log-log axes: a Gaussian's falls off a cliff, a
# power law's is a straight line of slope -(1 + v + 0.1). With v = 0.2, one sample in a thousand
# exceeds 200.

# %%
x = np.logspace(-1, 3, 200)
fig, ax = plt.subplots(figsize=(6, 4))
for family, v in (("lomax", 0.2), ("lomax", 0.9), ("student-t", 0.5)):
    sample = np.abs(draw(family, v, (100_000,)))
    ax.loglog(x, [(sample > t).mean() for t in x], label=f"{family}, v = {v}")
gauss = np.abs(generator.normal(size=100_000))
ax.loglog(x, [(gauss > t).mean() for t in x], "k--", label="Gaussian")
ax.set_xlabel("x")
ax.set_ylabel("P(|noise| > x)")
ax.set_ylim(1e-5, 1.1)
ax.legend()
ax.set_title("Tails of the envs' reward noise")
plt.show()

# %% [markdown]
# ## Estimating a mean: the sample mean against robust estimators
#
# For each sample size n we estimate a zero mean 2,000 times and look at the 90 % quantile of
# the absolute error. The **median of means** splits the samples into k groups and takes the
# median of the group means: one huge sample spoils one group, not the estimate. (Exercises 1
# and 2 ask for it and for Bubeck et al.'s truncated mean.)

# %%
def median_of_means(samples, groups=10):
    kept = samples[..., : samples.shape[-1] - samples.shape[-1] % groups]
    return np.median(kept.reshape(*kept.shape[:-1], groups, -1).mean(axis=-1), axis=-1)


sizes = np.array([20, 50, 100, 200, 500, 1000])
estimators = {"sample mean": lambda s: s.mean(axis=-1), "median of 10 means": median_of_means,
              "median": lambda s: np.median(s, axis=-1)}
fig, ax = plt.subplots(figsize=(6, 4))
for name, estimate in estimators.items():
    errors = [np.abs(estimate(draw("lomax", 0.2, (2_000, n)))) for n in sizes]
    ax.loglog(sizes, [np.quantile(e, 0.9) for e in errors], marker="o", label=name)
    ax.fill_between(sizes, [np.quantile(e, 0.5) for e in errors], [np.quantile(e, 0.9) for e in errors], alpha=0.15)
ax.set_xlabel("samples n")
ax.set_ylabel("|error|: median to 90 % quantile")
ax.set_title("Symmetric Lomax noise, v = 0.2 (infinite variance)")
ax.legend()
plt.show()

# %% [markdown]
# On symmetric noise the median is best of all; on one-sided noise (`pareto`) it is *biased*
# (the median of a skewed law is not its mean), and the median of means trades a little of the
# median's robustness for much less bias. That is why the theory uses it.
#
# ## Exploration with these estimators: UCBVI's regret
#
# `envzoo.heavytails.learning.UCBVI` is optimistic backward induction on the learned model, its
# reward means from the `empirical` mean (sub-Gaussian bonus), the `truncated` mean or the
# `median-of-means`, each with the bonus its theory gives. Cumulative regret on
# `GarnetHeavy-v0` (Student-t noise, v = 0.5); the band is the range over seeds.

# %%
env = gym.make("envzoo/GarnetHeavy-v0")
fig, ax = plt.subplots(figsize=(7, 4))
for estimator in ("empirical", "truncated", "median-of-means"):
    cumulative = np.array([np.cumsum(run_learner(env, EPISODES, seed=seed, estimator=estimator)) for seed in SEEDS])
    line, = ax.plot(cumulative.mean(axis=0), label=estimator)
    ax.fill_between(np.arange(EPISODES), cumulative.min(axis=0), cumulative.max(axis=0), alpha=0.2,
                    color=line.get_color())
    print(f"{estimator:16s} regret after {EPISODES} episodes: {cumulative[:, -1].mean():.1f}")
ax.set_xlabel("episode")
ax.set_ylabel("cumulative regret (exact)")
ax.set_title("UCBVI on GarnetHeavy-v0")
ax.legend()
plt.show()

# %% [markdown]
# An honest reading: at this scale the *empirical* learner has the lowest regret. The robust
# estimators' bonuses, from their worst-case theory, are far larger than the sub-Gaussian one, so
# they explore for longer than a hundred episodes; their advantage (not being fooled for long by
# a single outlier) shows over many more episodes and smaller v (see `docs/heavytails.md` and
# `benchmarks/heavytails_regret.py`). Theory's constants are a real cost in practice.
#
# ## Exercises
#
# Fill in `course/exercises/04_heavy_tails.py`, then run `envzoo course check 04`.
#
# 1. `median_of_means(samples, groups)`, exactly as its docstring defines it.
# 2. `truncated_mean(samples, u, v, delta)`: Bubeck, Cesa-Bianchi & Lugosi's estimator.
# 3. `robust_mean(samples)`: any estimator whose 95 % error quantile on 100 samples of the Lomax
#    noise above (v = 0.2) is at most 1.2 (the sample mean's is about 3.5).
#
# Going further: run UCBVI with `privacy="ldp"` and a budget `epsilon` of 1 and 10: what does
# local differential privacy cost in regret?

# %%
from envzoo.tools.course import report  # noqa: E402

report("04")
