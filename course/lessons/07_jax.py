# %% [markdown]
# # Lesson 07: JAX end to end
#
# A Python loop over a Gymnasium env pays Python's overhead at every step. The ids with a **JAX
# core** also come as pure functions, `reset(key, params)` and `step(key, state, action, params)`
# (gymnax's style), so that `jax.vmap` runs thousands of episodes at once, `jax.lax.scan` runs
# the steps, and `jax.jit` compiles the whole experiment, environment and learner together, into
# one program for the CPU (or a GPU or TPU, where one is present: the same code, much faster).
#
# Two experiments on `envzoo/MarketMakingAS-v1` (lesson 05's market maker): the whole
# mean-risk frontier of the Avellaneda–Stoikov closed form in one compiled call, then PPO in JAX
# (`envzoo.train.ppo_jax`, what `envzoo train --framework jax` runs) on three seeds at once.
#
# Runs in about 50 s on a CPU, most of it compiling and training (`UPDATES`; `EPISODES`).

# %%
import time

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np

import envzoo
import envzoo.jax
from envzoo.train import ppo_jax

EPISODES = 1024        # per value of γ
UPDATES = 30           # PPO updates of 128 envs x 64 steps, per seed (the shipped config trains 10M steps)
SEEDS = 3

env, params = envzoo.jax.make("envzoo/MarketMakingAS-v1")
cpu = envzoo.make("envzoo/MarketMakingAS-v1").unwrapped.params  # σ, k, T, the depth bound
observation, state = env.reset(jax.random.PRNGKey(0), params)
print("observation (time left / T, inventory, mid - s0, PnL):", observation)

# %% [markdown]
# ## One compiled call: the closed form for every risk aversion
#
# `episode_pnl(key, gamma)` plays one episode of the AS quotes with risk aversion γ as a
# `lax.scan` over the steps; `vmap` twice runs it for every key and every γ. The frontier is the
# price of risk: a larger γ skews quotes harder against the inventory, lowering both the mean and
# the spread of the PnL.

# %%
def as_action(observation, gamma):
    time_left, inventory = observation[0] * cpu.terminal_time, observation[1]
    skew = inventory * gamma * cpu.volatility**2 * time_left
    half = (gamma * cpu.volatility**2 * time_left + 2 / gamma * jnp.log1p(gamma / cpu.fill_exponent)) / 2
    return jnp.clip(jnp.stack([skew + half, half - skew]), 0.0, cpu.max_depth)


def episode_pnl(key, gamma):
    reset_key, steps_key = jax.random.split(key)
    observation, state = env.reset(reset_key, params)

    def one_step(carry, step_key):
        observation, state, total = carry
        observation, state, reward, done, _ = env.step(step_key, state, as_action(observation, gamma), params)
        return (observation, state, total + reward), None

    (_, _, total), _ = jax.lax.scan(one_step, (observation, state, 0.0), jax.random.split(steps_key, cpu.n_steps))
    return total


gammas = jnp.logspace(-3, 0.5, 12)
frontier = jax.jit(jax.vmap(jax.vmap(episode_pnl, in_axes=(0, None)), in_axes=(None, 0)))
keys = jax.random.split(jax.random.PRNGKey(1), EPISODES)
pnl = frontier(keys, gammas).block_until_ready()                 # compile and run once
started = time.perf_counter()
pnl = np.asarray(frontier(keys, gammas).block_until_ready())
seconds = time.perf_counter() - started
print(f"{pnl.size * cpu.n_steps:,} env steps in {seconds:.2f} s: {pnl.size * cpu.n_steps / seconds:,.0f} steps/s")

plt.figure(figsize=(6, 4))
plt.plot(pnl.std(axis=1), pnl.mean(axis=1), marker="o")
for g, x, y in zip(np.asarray(gammas)[::3], pnl.std(axis=1)[::3], pnl.mean(axis=1)[::3]):
    plt.annotate(f"γ={g:.3g}", (x, y), textcoords="offset points", xytext=(5, -10), fontsize=8)
plt.xlabel("standard deviation of the episode PnL")
plt.ylabel("mean episode PnL")
plt.title(f"Avellaneda-Stoikov frontier, {EPISODES} episodes per γ")
plt.show()

# %% [markdown]
# ## PPO in JAX, three seeds in one program
#
# `ppo_jax.make_train` builds PPO's initialisation and its update loop (rollouts of the vector
# env, GAE, clipped policy loss; exercises 1 and 2 write GAE's scan yourself) as pure functions;
# `vmap` over the seeds' keys trains the three seeds side by side, and `jit` compiles the whole.

# %%
config = ppo_jax.PPOConfig(total_timesteps=128 * 64 * UPDATES, num_envs=128, num_steps=64, num_minibatches=4,
                           learning_rate=1e-3)
trainer = ppo_jax.make_train(env, params, config, reward_scale=envzoo.env_info("envzoo/MarketMakingAS-v1").reward_scale)
started = time.perf_counter()
carry, curve = jax.jit(jax.vmap(lambda key: trainer.advance(trainer.init(key), config.num_updates)))(
    jax.random.split(jax.random.PRNGKey(2), SEEDS))
returns = np.asarray(curve["episode_return"])                     # (seeds, updates); NaN: no episode ended
print(f"{SEEDS} seeds x {config.total_timesteps:,} steps, compiled and trained in {time.perf_counter() - started:.0f} s")

steps = 128 * 64 * np.arange(1, config.num_updates + 1)
seen = ~np.isnan(returns).any(axis=0)                            # updates in which every seed ended episodes
plt.figure(figsize=(6, 4))
plt.plot(steps[seen], returns[:, seen].mean(axis=0), marker="o", label="PPO (mean of seeds)")
plt.fill_between(steps[seen], returns[:, seen].min(axis=0), returns[:, seen].max(axis=0), alpha=0.2)
closed = pnl[np.argmin(np.abs(np.asarray(gammas) - 0.1))]
plt.axhline(closed.mean(), color="grey", linestyle="--", label="AS closed form, γ = 0.1")
plt.xlabel("env steps per seed")
plt.ylabel("episode return")
plt.legend()
plt.title("PPO in JAX on MarketMakingAS-v1 (band: seeds' range)")
plt.show()

# %% [markdown]
# A few hundred thousand steps per seed move PPO up from its start but nowhere near the closed
# form; the shipped configuration trains 10 million steps a seed (`envzoo train
# envzoo/MarketMakingAS-v1 --algo ppo --framework jax --seed 0 1 2 3 4`), which is where a GPU
# helps. The frontier above, by contrast, cost a second.
#
# ## Exercises
#
# Fill in `course/exercises/07_jax.py` (with `jax.lax.scan(..., reverse=True)` if you can), then
# run `envzoo course check 07`.
#
# 1. `discounted_returns(rewards, dones, last_value, gamma)` over a batch of rollouts.
# 2. `gae(rewards, values, dones, last_value, gamma, lam)`: generalized advantage estimation.
#
# Going further: `jax.grad` of the mean PnL of `episode_pnl` with respect to γ (the env's fills
# are random draws, so use many keys): does gradient ascent find the γ of the frontier's top?

# %%
from envzoo.tools.course import report  # noqa: E402

report("07")
