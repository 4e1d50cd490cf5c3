# %% [markdown]
# # Lesson 03: non-Markovian rewards and timed reward machines
#
# "Bring the coffee to the office within 12 steps of picking it up" is a reward that depends on
# the *history*, not on where the agent stands: the same cell pays 1 or nothing depending on
# what happened before. Such a reward is **non-Markovian** in the world's state, and a learner
# that sees only its cell cannot represent what it must remember.
#
# A **reward machine** writes the task as a small automaton over the labels of the cells the
# agent steps on; a **timed** reward machine adds integer clocks with guards and resets. The
# product (cell, machine state, clock values) is Markovian again, and finite, so envzoo
# computes its optimum exactly (`envzoo.rewardmachines.planning`).
#
# Runs in about 20 s (`EPISODES`, `SEEDS` below; raise them for longer curves). CPU only.

# %%
from pathlib import Path

import gymnasium as gym
import matplotlib.pyplot as plt
import numpy as np

import envzoo  # noqa: F401
import envzoo.rewardmachines
from envzoo.rewardmachines.learning import learning_curve
from envzoo.rewardmachines.planning import ProductMDP, finite_horizon_values, start_value, value_iteration

EPISODES = 300   # training episodes per seed
SEEDS = range(5)

# %% [markdown]
# ## A machine, as text
#
# Office world (nine rooms after Toro Icarte et al.), the task `timely-coffee`: the clock `t`
# runs from the start; the coffee pays 1 within 20 steps, 0.5 within 28, 0.1 later.

# %%
specs = Path(envzoo.rewardmachines.__file__).parent / "specs" / "office"
print((specs / "timely-coffee.trm").read_text())
env = gym.make("envzoo/OfficeTRM-v0", spec="timely-coffee", render_mode="rgb_array")
observation, _ = env.reset(seed=0)
print("observation (row, column, machine state, clocks):", observation)
plt.imshow(env.render())
plt.axis("off")
plt.title("OfficeTRM-v0, timely-coffee")
plt.show()

# %% [markdown]
# ## Exact values of every shipped office task
#
# V* with discount 0.9 from a random start and the best undiscounted reward of 100 steps from
# the fixed start. The number of configurations (machine states x clock values) shows what the
# clocks cost: `timely-coffee` has 120, the untimed `deliver-coffee` 4.

# %%
for spec in sorted(p.stem for p in specs.glob("*.trm")):
    random_start = ProductMDP(gym.make("envzoo/OfficeTRM-v0", spec=spec).unwrapped.params)
    fixed_start = ProductMDP(gym.make("envzoo/OfficeTRM-v0", spec=spec, start="fixed").unwrapped.params)
    print(f"{spec:16s} configurations {random_start.configs:4d}   "
          f"V*(0.9) {start_value(random_start, value_iteration(random_start)[0]):.4f}   "
          f"100-step optimum {start_value(fixed_start, finite_horizon_values(fixed_start, 100)):.4f}")

# %% [markdown]
# ## The same cell, two values
#
# On `deliver-coffee` (untimed: fetch a coffee, bring it to the office, avoid plants), the value
# of each cell depends on the machine's state: before the coffee, cells near a coffee machine
# are worth most; after it, cells near the office. An agent that sees only its cell
# (`OfficeTRMHidden-v0`) cannot tell the two maps apart.

# %%
params = gym.make("envzoo/OfficeTRM-v0", spec="deliver-coffee").unwrapped.params
mdp = ProductMDP(params)
values, _ = value_iteration(mdp, 0.9)
world, states = params.world, params.compiled.machine.states   # untimed: configuration = state
fig, axes = plt.subplots(1, 2, figsize=(9, 3.8))
for ax, (state, title) in zip(axes, (("fetch", "before the coffee"), ("carry", "carrying the coffee"))):
    config = states.index(state)
    grid = np.where(world.free, values[:, config].reshape(world.height, world.width), np.nan)
    image = ax.imshow(grid, cmap="magma")
    for (row, col), label in np.ndenumerate(world.label):
        if label < len(world.labels):
            ax.text(col, row, world.labels[label][0], ha="center", va="center", color="cyan")
    ax.set_title(f"V* {title}")
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(image, ax=axes, label="V* (discount 0.9)")
plt.show()

# %% [markdown]
# ## Learning on the product: counterfactual imagining
#
# Because the machine is known, one step of the world (s, a, s') tells what *every*
# configuration would have paid and where it would have gone. **Counterfactual imagining** (CRM)
# updates all of them at once; plain Q-learning updates only the one the machine was in. Each
# learner's greedy policy is scored *exactly* on the product MDP every 25 episodes, on
# `DeliveryTRM-v0` (pick a passenger up at A, drop them at D within 12 steps).

# %%
delivery = gym.make("envzoo/DeliveryTRM-v0")
curves = {}
for counterfactual in (True, False):
    runs = [learning_curve(delivery, counterfactual, EPISODES, seed=seed, evaluate_every=25) for seed in SEEDS]
    curves[counterfactual] = (runs[0].episodes, np.array([run.values / run.optimum for run in runs]))

fig, ax = plt.subplots(figsize=(7, 4))
for counterfactual, label in ((True, "Q-learning + counterfactual imagining"), (False, "Q-learning")):
    episodes, fraction = curves[counterfactual]
    line, = ax.plot(episodes, fraction.mean(axis=0), marker="o", label=label)
    ax.fill_between(episodes, fraction.min(axis=0), fraction.max(axis=0), alpha=0.2, color=line.get_color())
ax.axhline(1, color="grey", linestyle="--", label="V* (exact)")
ax.set_xlabel("episodes")
ax.set_ylabel("greedy policy's value / V*")
ax.set_title(f"DeliveryTRM-v0, {len(SEEDS)} seeds (band: min to max)")
ax.legend()
plt.show()

# %% [markdown]
# Plain Q-learning must visit each (cell, state, clock value) on its own; imagining fills them
# all from one step. (Its values start below zero: each step costs 0.01.)
#
# ## Exercises
#
# Fill in `course/exercises/03_reward_machines.py`, then run `envzoo course check 03`. The
# checker compiles your machine on the office world and compares its exact values with the
# task's; a machine that does not parse gets the parser's message.
#
# 1. `MAIL_COFFEE_OFFICE`: the machine of "the mail, then a coffee, then the office".
# 2. `TIGHTEST_DEADLINE`: the smallest deadline for the coffee that keeps the best 100-step
#    reward at 1 from the fixed start (use `finite_horizon_values` on your own `.trm` file).
#
# Going further: train both learners on `OfficeTRMHidden-v0`'s observation (the cell only) with
# a table over cells; how close to V* does it get?

# %%
from envzoo.tools.course import report  # noqa: E402

report("03")
