# %% [markdown]
# # Lesson 10: offline data and off-policy evaluation on promotion logs
#
# A company gave bonuses to its app users under some rule, and logged what happened. Before
# trying a new bonus rule on real users, it wants to know how well the new rule *would have*
# done, from the old logs alone: **off-policy evaluation** (OPE). Offline RL then learns a rule
# from the same logs; OPE is how one judges it without deploying it.
#
# `envzoo/PromotionBudget-v0` (after BCRLSP, arXiv 2207.07790) simulates a cohort of 16 users
# whose hidden engagement decays, rises with bonuses and ends in churn. Its behaviour policies
# draw each user's bonus level from a **known** distribution, so every logged action comes with
# its **propensity**, the probability it had of being chosen: what importance sampling needs.
# And since it is a simulator, every estimate can be checked against the truth, measured by
# running the target rule itself.
#
# Runs in about 20 s (`EPISODES`); `envzoo dataset` writes such logs as Minari datasets
# (extra `dataset`), and `envzoo.offline` holds fitted Q iteration, CQL and FQE (extra `train`).

# %%
import gymnasium as gym
import matplotlib.pyplot as plt
import numpy as np

import envzoo  # noqa: F401
from envzoo.offline import ope
from envzoo.promotion.behaviour import EpsilonGreedy, NoisyRule, RandomLevels
from envzoo.promotion.offline import first_cohort

EPISODES = 60     # logged episodes, and on-policy episodes for each target's true value
GAMMA = 0.9       # the value of a user: its discounted retention

env = gym.make("envzoo/PromotionBudget-v0", render_mode="rgb_array")
print("users:", env.unwrapped.params.cohort_size, " bonus levels:", env.unwrapped.params.bonuses,
      " periods:", env.spec.max_episode_steps)

# %% [markdown]
# ## Logging
#
# The behaviour policy is `noisy-rule`: the business rule (the least active users get the
# largest bonus) with noise, level a drawn with probability ∝ exp(−|a − rule|). We keep the
# observations and the levels of every period of every episode.

# %%
def play(policy, episodes, seed):
    """Observations (E, T + 1, D) and levels (E, T, users) of episodes of policy."""
    observations, levels = [], []
    for episode in range(episodes):
        policy.reset(seed + episode)
        observation, info = env.reset(seed=seed + episode)
        observations.append([observation])
        levels.append([])
        done = False
        while not done:
            level = np.asarray(policy(observation, info))
            observation, _, terminated, truncated, info = env.step(level)
            observations[-1].append(observation)
            levels[-1].append(level)
            done = terminated or truncated
    return np.array(observations), np.array(levels)


behaviour = NoisyRule(env)
logs = first_cohort(*play(behaviour, EPISODES, seed=0))
print("trajectories of first-cohort users:", logs["reward"].shape)
plt.imshow(env.render())
plt.axis("off")
plt.title("PromotionBudget-v0 at the end of the last logged episode")
plt.show()

# %% [markdown]
# ## Three targets, their truth, and four estimates
#
# The targets: the rule with ε = 0.3 of random levels (close to the logs), uniformly random
# levels (far from them) and the business rule itself, deterministic (ε = 0). For each, the
# **naive** estimate averages the logged returns (it estimates the *behaviour* policy's value,
# whatever the target), **IPS** reweights each period by the product of target / behaviour
# probabilities so far (exercise 1), **SNIPS** normalises those weights (exercise 2). The truth
# is the target played on-policy (with a 95 % interval).

# %%
def logged_probabilities(policy, trajectories):
    probabilities = policy.probabilities(trajectories["features"])            # (N, T, levels)
    return np.take_along_axis(probabilities, trajectories["level"][..., None], axis=-1)[..., 0]


discounts = GAMMA ** np.arange(logs["reward"].shape[1])
behaviour_p = logged_probabilities(behaviour, logs)
targets = {"ε-greedy rule": EpsilonGreedy(env, epsilon=0.3), "uniform random": RandomLevels(env),
           "business rule": EpsilonGreedy(env, epsilon=0.0)}
table, weights_of = {}, {}
for seed, (name, target) in enumerate(targets.items()):
    on_policy = first_cohort(*play(target, EPISODES, seed=10_000 * (seed + 1)))
    true_returns = (discounts * on_policy["reward"]).sum(axis=1)
    target_p = logged_probabilities(target, logs)
    args = (logs["reward"], logs["alive"], behaviour_p, target_p, GAMMA)
    ips = ope.ips(*args)
    table[name] = {"truth": (true_returns.mean(), 1.96 * true_returns.std(ddof=1) / np.sqrt(len(true_returns))),
                   "naive": ((discounts * logs["reward"]).sum(axis=1).mean(), np.nan),
                   "IPS": (ips.value, 1.96 * ips.stderr), "SNIPS": (ope.snips(*args).value, np.nan)}
    weights_of[name] = np.cumprod(np.where(logs["alive"] > 0, target_p / behaviour_p, 1.0), axis=1)[:, 9]
    print(name.ljust(15), "  ".join(f"{k} {v:.2f}" + (f" ± {e:.2f}" if e == e else "") for k, (v, e) in table[name].items()))

fig, ax = plt.subplots(figsize=(8, 4))
for offset, estimator in enumerate(("truth", "naive", "IPS", "SNIPS")):
    values = [table[name][estimator] for name in targets]
    ax.bar(np.arange(len(targets)) + 0.2 * offset, [v for v, _ in values], width=0.2, label=estimator,
           yerr=[0 if e != e else e for _, e in values], capsize=3)
ax.set_xticks(np.arange(len(targets)) + 0.3, list(targets))
ax.set_ylabel("discounted retention of a user")
ax.set_ylim(0, None)
ax.legend()
ax.set_title(f"Off-policy estimates from {EPISODES} logged episodes (bars: 95 % intervals)")
plt.show()

# %% [markdown]
# ## Why IPS fails for a deterministic target
#
# The weight of period t is a product of t ratios. Where the target is deterministic, a
# trajectory whose logged levels ever differ from the target's gets weight 0, and the few that
# match all the way get huge weights. The histogram shows the weights after 10 periods; the
# **effective sample size** (exercise 3) says how many equally weighted trajectories they are
# worth.

# %%
fig, ax = plt.subplots(figsize=(7, 3.5))
bins = np.logspace(-4, 4, 40)
for name, weights in weights_of.items():
    ess = weights.sum() ** 2 / max((weights ** 2).sum(), 1e-300)
    ax.hist(np.clip(weights, 1e-4, None), bins=bins, alpha=0.5,
            label=f"{name}: {np.mean(weights == 0):.0%} zero, ESS {ess:.0f} of {len(weights)}")
ax.set_xscale("log")
ax.set_xlabel("importance weight after 10 periods (zeros drawn at 1e-4)")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# Model-based estimators (fitted Q evaluation, and doubly robust, which uses such a model as a
# control variate) avoid the products of ratios; `docs/promotion.md` compares them on the same
# data at a larger scale, with the offline learners (FQI, CQL) whose greedy rules they judge.
#
# ## Exercises
#
# Fill in `course/exercises/10_off_policy.py`, then run `envzoo course check 10`.
#
# 1. `ips(...)`: per-decision importance sampling.
# 2. `snips(...)`: its self-normalised form.
# 3. `effective_sample_size(weights)`: Kish's formula, (Σw)² / Σw².
#
# Going further: log with `RandomLevels` instead and estimate the business rule again. Which
# behaviour policy makes the logs more useful for evaluating *other* policies, and why?

# %%
from envzoo.tools.course import report  # noqa: E402

report("10")
