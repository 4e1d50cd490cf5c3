# %% [markdown]
# # Lesson 02: tabular Q-learning and reward design on workload scheduling
#
# Tasks arrive at random (a Poisson stream) with a random amount of work and a priority; each is
# routed on arrival to one of several machines, which serve their queues first come, first
# served. `envzoo/Scheduling-v0` rewards a routing decision with **minus the task's weighted
# sojourn time** (waiting plus service, weighted by priority), known the moment the task is
# routed.
#
# Queueing theory gives exact answers for simple cases, so we first check the simulator against
# one, then learn a scheduler with **tabular Q-learning**
#
# $$Q(s, a) \leftarrow Q(s, a) + \alpha \big[r + \gamma \max_{a'} Q(s', a') - Q(s, a)\big],$$
#
# and see what happens when the reward is designed badly.
#
# Runs in about 30-40 s with the settings below (`STEPS`, `SEEDS`): raise them for smoother
# curves. CPU only.

# %%
import gymnasium as gym
import matplotlib.pyplot as plt
import numpy as np

import envzoo  # noqa: F401
from envzoo.scheduling.learning import Discretization
from envzoo.scheduling.policies import JoinShortestQueue, LeastWorkLeft
from envzoo.tools.rollout import run_episode

STEPS = 9_000        # training arrivals per seed (the benchmark uses 30,000)
EVALUATE_EVERY = 3_000
SEEDS = (0, 1, 2)    # independent training runs: the curves show their mean and range

# %% [markdown]
# ## A check against theory: M/M/1
#
# One machine of speed 1, arrival rate λ = 0.7, mean work 1 (service rate μ = 1): the mean
# sojourn of M/M/1 has a closed form (exercise 1 asks for it). The simulation's estimate over a
# few thousand tasks (each episode starts with empty queues, which pulls short runs a little
# below the stationary value):

# %%
one = gym.make("envzoo/Scheduling-v0", speeds=(1.0,), arrival_rate=0.7)
sojourns = [run_episode(one, JoinShortestQueue(one), seed=s).metrics["mean_sojourn"] for s in range(5)]
print(f"simulated mean sojourn: {np.mean(sojourns):.2f} ± {1.96 * np.std(sojourns) / np.sqrt(5):.2f} "
      "(5 episodes of 1000 tasks)")

# %% [markdown]
# ## The problem we learn on
#
# A fast machine (speed 1) and a slow one (speed 0.5) under arrival rate 1.2: the slow machine
# cannot take half the work. The observation is (size of the task, its priority, each machine's
# backlog of work, each machine's queue length).

# %%
SETTING = {"speeds": (1.0, 0.5), "arrival_rate": 1.2}
env = gym.make("envzoo/Scheduling-v0", render_mode="rgb_array", **SETTING)
observation, info = env.reset(seed=0)
for _ in range(30):
    observation, *_ = env.step(LeastWorkLeft(env)(observation, {}))
print("observation:", observation)
plt.imshow(env.render())
plt.axis("off")
plt.title("Scheduling-v0 under least-work-left, 30 arrivals in")
plt.show()

# %% [markdown]
# ## Q-learning on a discretized state
#
# Tabular learning needs a small state: envzoo's `Discretization` keeps each queue length capped
# at 4 and whether the task is larger than average, (5 x 5) x 2 = 50 states. The learner below
# is the textbook one, ε-greedy with ε = 0.1. The discount is small (0.5) because the reward
# already charges the task's whole future sojourn at routing time.
#
# `reward_of` lets us change the reward the learner sees without touching the environment.

# %%
def greedy_score(q, discretize, seed):
    """The weighted mean sojourn of the greedy policy of q over one evaluation episode."""
    evaluation = gym.make("envzoo/Scheduling-v0", **SETTING)
    observation, _ = evaluation.reset(seed=10_000 + seed)
    done = False
    while not done:
        observation, _, terminated, truncated, info = evaluation.step(int(np.argmax(q[discretize(observation)])))
        done = terminated or truncated
    return info["metrics"]["weighted_mean_sojourn"]


def q_learning(seed, reward_of, steps=STEPS, learning_rate=0.05, discount=0.5, epsilon=0.1):
    env = gym.make("envzoo/Scheduling-v0", **SETTING)
    discretize = Discretization(env.unwrapped.params)
    q = np.zeros((discretize.states, env.action_space.n))
    generator = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    state, curve = discretize(observation), []
    for step in range(steps + 1):
        if step % EVALUATE_EVERY == 0:
            curve.append(greedy_score(q, discretize, seed))
        explore = generator.random() < epsilon
        action = int(generator.integers(q.shape[1])) if explore else int(np.argmax(q[state]))
        observation, reward, terminated, truncated, info = env.step(action)
        next_state = discretize(observation)
        target = reward_of(reward, info) + (0.0 if terminated else discount * q[next_state].max())
        q[state, action] += learning_rate * (target - q[state, action])
        state = next_state
        if terminated or truncated:
            observation, _ = env.reset()
            state = discretize(observation)
    return np.array(curve)


designed = np.array([q_learning(seed, lambda reward, info: reward) for seed in SEEDS])

# %% [markdown]
# ## Reward design: punishing failure only
#
# A tempting reward is "-1 when a task is rejected, 0 otherwise": it names what we do not want.
# But rejections happen only when a queue of 64 is full, so the learner sees almost nothing but
# zeros: its greedy policy is whatever breaks ties (the fast machine, index 0) until that
# machine's queue overflows, and it learns only from those rare events. The env's reward says
# *how much* every decision costs, at the moment it is taken. Compare the two curves below:
# the sparse reward ends worse, and its seeds disagree more.

# %%
rejections_only = np.array([q_learning(seed, lambda reward, info: -info["cost"]) for seed in SEEDS])

# %% [markdown]
# ## Learning curves with intervals
#
# The line is the mean over seeds and the band the range (min to max) of the seeds: with three
# seeds, that is all one can honestly show (lesson 12 does intervals properly). The dashed lines
# are the reference rules on the same evaluation episodes.

# %%
steps = np.arange(0, STEPS + 1, EVALUATE_EVERY)
references = {name: np.mean([run_episode(env, rule(env), seed=10_000 + s).metrics["weighted_mean_sojourn"]
                             for s in SEEDS]) for name, rule in (("join-shortest-queue", JoinShortestQueue),
                                                                 ("least-work-left", LeastWorkLeft))}
fig, ax = plt.subplots(figsize=(7, 4))
for label, curves in (("Q-learning, env reward", designed), ("Q-learning, -1 per rejection", rejections_only)):
    line, = ax.plot(steps, curves.mean(axis=0), marker="o", label=label)
    ax.fill_between(steps, curves.min(axis=0), curves.max(axis=0), alpha=0.2, color=line.get_color())
for (name, value), style in zip(references.items(), ("--", ":")):
    ax.axhline(value, color="grey", linestyle=style, label=name)
ax.set_yscale("log")
ax.set_xlabel("training arrivals")
ax.set_ylabel("weighted mean sojourn (log)")
ax.legend()
ax.set_title("Greedy policy during training (lower is better)")
plt.show()
print("final, env reward:", designed[:, -1].round(2), " rejections only:", rejections_only[:, -1].round(2))

# %% [markdown]
# ## Exercises
#
# Fill in `course/exercises/02_scheduling.py`, then run `envzoo course check 02`.
#
# 1. `MM1_MEAN_SOJOURN`: M/M/1's mean sojourn at λ = 0.7, μ = 1, from the formula (compare with
#    the simulation above).
# 2. `q_update(...)`: one Q-learning update, terminal steps included.
# 3. `make_policy(env)`: a routing rule (or a learnt table) within 20 % of join-the-shortest-queue's
#    weighted mean sojourn on the fast/slow pair, scored on seeds the lesson does not use.
#
# Going further: add the task's priority to the discretization; does the learner now beat
# join-the-shortest-queue on the *weighted* sojourn?

# %%
from envzoo.tools.course import report  # noqa: E402

report("02")
