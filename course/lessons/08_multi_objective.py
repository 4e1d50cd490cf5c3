# %% [markdown]
# # Lesson 08: multi-objective RL and Pareto fronts
#
# An operator of a serverless platform wants requests served (throughput), fast (latency) and
# cheaply (pods cost money). These goals conflict, and no single number says how to trade them:
# that is the operator's choice, not the learner's. **Multi-objective RL** keeps the reward a
# vector and looks for the **Pareto front**: the policies that no other policy beats on every
# objective at once. `envzoo/ServerlessMO-v1` returns the vector (throughput, −latency, −cost)
# (MO-Gymnasium's API; every objective is maximized).
#
# Here the policies are simple (a fixed concurrency limit, or a random mixture of two limits),
# so that the whole front is computed by evaluation alone, in one batched simulation.
# Runs in about 15 s (`EPISODES`, `MIXTURES`). CPU only.

# %%
import gymnasium as gym
import matplotlib.pyplot as plt
import mo_gymnasium as mo_gym
import numpy as np

import envzoo  # noqa: F401

EPISODES = 8      # evaluation episodes per policy
MIXTURES = 24     # random mixtures of two limits
generator = np.random.default_rng(0)

env = mo_gym.make("envzoo/ServerlessMO-v1", render_mode="rgb_array")
levels = env.unwrapped.params.levels
print("concurrency limits (0: none):", levels, "  objectives:", env.unwrapped.reward_space)
env.reset(seed=0)
for _ in range(60):
    env.step(3)
plt.imshow(env.render())
plt.axis("off")
plt.title("ServerlessMO-v1 at limit 8")
plt.show()

# %% [markdown]
# ## Evaluating a family of policies at once
#
# Each policy is a probability over the 8 limits, drawn afresh each step: a fixed limit puts
# all its mass on one; a mixture of two limits spreads it. Every (policy, episode) pair is one
# sub-env of a native vector env, so all of them run as one batched simulation.

# %%
fixed = np.eye(len(levels))
pairs = generator.choice(len(levels), size=(MIXTURES, 2))
weights = generator.uniform(size=MIXTURES)
mixtures = np.zeros((MIXTURES, len(levels)))
np.add.at(mixtures, (np.arange(MIXTURES), pairs[:, 0]), weights)
np.add.at(mixtures, (np.arange(MIXTURES), pairs[:, 1]), 1 - weights)
policies = np.vstack([fixed, mixtures])                      # (policies, levels)

envs = gym.make_vec("envzoo/ServerlessMO-v1", num_envs=len(policies) * EPISODES)
owner = np.repeat(np.arange(len(policies)), EPISODES)         # which policy drives each sub-env
envs.reset(seed=1)
returns = np.zeros((len(owner), 3))
horizon = envs.unwrapped.spec.max_episode_steps if envs.unwrapped.spec else 360
for _ in range(horizon):
    cumulative = policies[owner].cumsum(axis=1)
    actions = (generator.uniform(size=(len(owner), 1)) > cumulative).sum(axis=1).clip(0, len(levels) - 1)
    _, rewards, terminated, truncated, _ = envs.step(actions)
    returns += rewards
points = np.array([returns[owner == i].mean(axis=0) for i in range(len(policies))])
print("mean vector returns of the fixed limits (throughput, -latency, -cost):")
for level, value in zip(levels, points[:len(levels)]):
    print(f"  limit {level:2d}: {np.round(value, 1)}")

# %% [markdown]
# ## The Pareto front
#
# Policy q **dominates** p when q is at least as good in every objective and better in one;
# the front is the set of policies nobody dominates (exercise 1). Throughput hardly moves here
# (every limit serves the requests sooner or later); the real conflict is **latency against
# cost**: a low limit spreads requests over many pods (fast, expensive), a high one packs them
# (cheap, slow). The picture shows that plane and its front; the colour is throughput.

# %%
def dominated(points):
    at_least = (points[None] >= points[:, None]).all(axis=2)
    better = (points[None] > points[:, None]).any(axis=2)
    return (at_least & better).any(axis=1)


plane = points[:, [1, 2]]                                     # -latency, -cost
front = ~dominated(plane)
print(f"non-dominated: {np.sum(~dominated(points))} of {len(points)} policies in 3 objectives, "
      f"{front.sum()} in (latency, cost)")
fig, ax = plt.subplots(figsize=(7, 4.5))
scatter = ax.scatter(-plane[:, 1], -plane[:, 0], c=points[:, 0], cmap="viridis", s=30)
ax.scatter(-plane[:len(levels), 1], -plane[:len(levels), 0], facecolors="none", edgecolors="k", s=90,
           label="fixed limits")
order = np.argsort(-plane[front, 1])
ax.plot(-plane[front, 1][order], -plane[front, 0][order], "r-", label="Pareto front (latency, cost)")
ax.set_xscale("log")
ax.set_xlabel("cost (lower is better)")
ax.set_ylabel("latency (lower is better)")
fig.colorbar(scatter, label="throughput")
ax.legend()
ax.set_title(f"{len(policies)} policies on ServerlessMO-v1, {EPISODES} episodes each")
plt.show()

# %% [markdown]
# ## Scalarization, and what it cannot find
#
# The usual way to train one policy is to fold the vector into a number, w · r, for weights w
# chosen in advance. For each weight λ on latency (1 − λ on cost, each objective divided by its
# range first), the best of our policies under that sum is marked below: linear weights only ever pick points on the front's **convex
# hull**, and a policy in a dent of the front is best for no weights at all (here the limit 64,
# if it is the one left unmarked: a different seed may move the dent). The **hypervolume**
# (exercise 2: the area the front dominates beyond a reference point) scores a whole front with
# one number, which is how multi-objective learners are compared.

# %%
scaled = (plane - plane.min(axis=0)) / np.ptp(plane, axis=0)
chosen = sorted({int(np.argmax(scaled @ [lam, 1 - lam])) for lam in np.linspace(0, 1, 201)})
print("policies picked by some linear weights:", chosen, " front:", np.flatnonzero(front).tolist())
fig, ax = plt.subplots(figsize=(7, 4))
ax.scatter(-plane[:, 1], -plane[:, 0], c="lightgrey", s=25)
ax.scatter(-plane[front, 1], -plane[front, 0], c="red", s=30, label="front")
ax.scatter(-plane[chosen, 1], -plane[chosen, 0], facecolors="none", edgecolors="b", s=120,
           label="best for some linear weights")
ax.set_xscale("log")
ax.set_xlabel("cost")
ax.set_ylabel("latency")
ax.legend()
plt.show()
print(f"{front.sum()} front policies; {len(chosen)} of them best for some linear weights")

# %% [markdown]
# ## Exercises
#
# Fill in `course/exercises/08_multi_objective.py`, then run `envzoo course check 08`.
#
# 1. `pareto_front(points)`: the mask of non-dominated points, in any number of objectives.
# 2. `hypervolume_2d(points, reference)`: the area a two-objective front dominates.
#
# Going further: make the policy depend on the observation (for example a higher limit when the
# queue is long) and see whether it pushes the front outwards; or train PPO on w · r for a few
# weights (`envzoo train envzoo/Serverless-v1` takes the scalar reward) and place the trained
# policies on this picture.

# %%
from envzoo.tools.course import report  # noqa: E402

report("08")
