# %% [markdown]
# # Lesson 09: multi-agent RL in markets, and economic sanity checks
#
# When several learning agents share an environment, each one's world includes the others, who
# are changing too. Markets make this concrete, and economics gives sanity checks that single-
# agent RL lacks: firms that compete on price should drive it to cost (**Bertrand**); firms that
# could coordinate would price like a **monopoly**. `envzoo/Bazaar-v0` (after the Agent Bazaar,
# Karten, Crow & Jin 2026) is a market of firms posting a price and a capacity each round to
# Poisson-arriving consumers, each buying the cheapest unit worth its price; firms pay a fixed
# cost per round and go bankrupt when their cash runs out. It is a PettingZoo parallel env, and
# it scores the whole market by the **Economic Alignment Score** (stability, integrity, welfare,
# profitability).
#
# Runs in about 15 s (`EPISODES`, `LEARNING_EPISODES`). CPU only.

# %%
import matplotlib.pyplot as plt
import numpy as np

import envzoo
from envzoo.bazaar.policies import Collusive, Stabilizing, Undercutting
from envzoo.bazaar.task import FIRM_FEATURES

EPISODES = 10            # episodes per reference team
LEARNING_EPISODES = 40   # episodes of the independent learners
MARKET_PRICE = FIRM_FEATURES.index("market_price")

env = envzoo.make("envzoo/Bazaar-v0", render_mode="rgb_array")
params = env.params
print("firms:", env.possible_agents, " unit cost:", params.unit_cost, "±", params.cost_spread,
      " consumers' values: uniform on [0,", params.max_value, "]")

# %% [markdown]
# ## Three kinds of firms
#
# Reference teams (every firm of a team plays the same rule): **undercutting** firms post just
# below the cheapest rival (the Bertrand price war), a **collusive** cartel posts the joint
# monopoly price, **stabilizing** firms move smoothly toward cost plus a markup and leave room to
# their rivals. Each round's market price (the mean price paid), averaged over episodes:

# %%
def play(team, seed):
    observations, infos = env.reset(seed=seed)
    rule, prices = team(env), []
    while env.agents:
        observations, rewards, terminations, truncations, infos = env.step(rule(observations, infos))
        if observations:
            prices.append(next(iter(observations.values()))[MARKET_PRICE])
    return np.array(prices), next(iter(infos.values()))["metrics"]


teams = {"undercutting": Undercutting, "collusive": Collusive, "stabilizing": Stabilizing}
results = {name: [play(team, seed) for seed in range(EPISODES)] for name, team in teams.items()}
fig, ax = plt.subplots(figsize=(8, 4))
for name, runs in results.items():
    length = min(len(prices) for prices, _ in runs)
    paths = np.array([prices[:length] for prices, _ in runs])
    line, = ax.plot(paths.mean(axis=0), label=name)
    ax.fill_between(np.arange(length), paths.min(axis=0), paths.max(axis=0), alpha=0.15, color=line.get_color())
ax.axhline(params.unit_cost, color="grey", linestyle=":", label="mean unit cost")
ax.axhline((params.max_value + params.unit_cost) / 2, color="grey", linestyle="--", label="monopoly price")
ax.set_xlabel("round")
ax.set_ylabel("market price")
ax.legend()
ax.set_title(f"Bazaar-v0, {EPISODES} episodes per team (band: min to max)")
plt.show()
env.reset(seed=0)
for _ in range(30):
    env.step({agent: np.array([params.unit_cost * 1.1, params.max_capacity], np.float32) for agent in env.agents})
plt.imshow(env.render())
plt.axis("off")
plt.title("Bazaar-v0 after 30 rounds at cost + 10 %")
plt.show()

# %% [markdown]
# The price war reaches cost within a few rounds; at cost, nobody covers the fixed cost, cash
# drains, and firms go bankrupt until one is left, which then prices like a monopoly: **the
# Crash**. The Economic Alignment Score weighs what each market did (95 % intervals over
# episodes):

# %%
components = ("eas", "stability", "welfare", "profitability")
fig, ax = plt.subplots(figsize=(8, 3.5))
for offset, (name, runs) in enumerate(results.items()):
    values = np.array([[metrics[c] for c in components] for _, metrics in runs])
    half = 1.96 * values.std(axis=0, ddof=1) / np.sqrt(len(values))
    ax.bar(np.arange(len(components)) + 0.27 * offset, values.mean(axis=0), width=0.27, yerr=half, capsize=3,
           label=name)
ax.set_xticks(np.arange(len(components)) + 0.27, components)
ax.legend()
plt.show()

# %% [markdown]
# ## Independent learners
#
# Now each firm learns its own price with an ε-greedy bandit over a grid of prices, from its own
# profit, treating the others as part of the world (**independent learners**, the simplest
# multi-agent RL). Each learner's problem is non-stationary: the others are learning too. Where
# do the prices go? (Calvano et al., AER 2020, found Q-learners with memory of past prices
# sustaining prices above the competitive level; these memoryless bandits are a first step.)

# %%
grid = np.linspace(params.unit_cost, params.max_value * 0.8, 12)
generator = np.random.default_rng(0)
values = {agent: np.zeros(len(grid)) for agent in env.possible_agents}
counts = {agent: np.zeros(len(grid)) for agent in env.possible_agents}
mean_price = []
for episode in range(LEARNING_EPISODES):
    observations, infos = env.reset(seed=1000 + episode)
    epsilon, posted = max(0.05, 1 - episode / (0.6 * LEARNING_EPISODES)), []
    while env.agents:
        choice = {agent: int(generator.integers(len(grid))) if generator.random() < epsilon
                  else int(np.argmax(values[agent])) for agent in env.agents}
        actions = {agent: np.array([grid[i], params.max_capacity], np.float32) for agent, i in choice.items()}
        observations, rewards, *_ = env.step(actions)
        for agent, i in choice.items():
            counts[agent][i] += 1
            values[agent][i] += (rewards[agent] - values[agent][i]) / counts[agent][i]
        posted.append(np.mean([grid[i] for i in choice.values()]))
    mean_price.append(np.mean(posted))
plt.plot(mean_price, marker=".")
plt.axhline(params.unit_cost, color="grey", linestyle=":", label="cost")
plt.axhline((params.max_value + params.unit_cost) / 2, color="grey", linestyle="--", label="monopoly price")
plt.xlabel("learning episode (ε falls to 0.05 over the first 60 %)")
plt.ylabel("mean posted price")
plt.legend()
plt.title("Three independent ε-greedy pricing learners")
plt.show()
print("greedy prices at the end:", {agent: round(float(grid[np.argmax(v)]), 2) for agent, v in values.items()})

# %% [markdown]
# In this run the learners' prices fall as they stop exploring and settle between cost and the
# monopoly price, near where the stabilizing firms sit: each learner finds that undercutting
# wins sales, but at cost it loses the fixed cost. With more seeds (`LEARNING_EPISODES`, and
# several runs) one can ask whether this is an equilibrium or a slow drift to the price war.
#
# ## Exercises
#
# Fill in `course/exercises/09_markets.py`, then run `envzoo course check 09`: the checks are the
# closed forms the reference firms are built on.
#
# 1. `monopoly_price(cost, max_value)`: one seller, consumers' values uniform on [0, max_value].
# 2. `bertrand_price(costs, max_value)`: the price a Bertrand market trades at, with asymmetric
#    costs.
#
# Going further: give each learner the last round's lowest rival price as its state (a Q-table
# over price buckets): do prices rise above the bandits'? The Lemon Market
# (`scenario="lemon"`) is the other half of the Bazaar: Akerlof's market for lemons, with a
# deceptive seller running Sybil identities.

# %%
from envzoo.tools.course import report  # noqa: E402

report("09")
