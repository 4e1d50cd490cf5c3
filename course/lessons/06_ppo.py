# %% [markdown]
# # Lesson 06: PPO on serverless autoscaling with a native vector env
#
# `envzoo/Serverless-v1` sets the concurrency limit of a Knative service while Knative's Pod
# Autoscaler scales its pods (after Schuler, Jamil & Kühl, CCGrid 2021): each decision runs 100
# ticks of a compiled simulator. **PPO** (Schulman et al. 2017) is the default deep-RL learner:
# an actor-critic trained on batches of rollouts, with a *clipped* objective that keeps each new
# policy close to the one that collected the data (exercise 1).
#
# Deep RL wants many environment steps, so the env's speed matters. envzoo's ids have a
# **native vector env**: `gym.make_vec(id, num_envs=N)` advances all N copies in one batched
# simulator instead of N Python objects. Stable-Baselines3 has its own vector-env interface; a
# short adapter (below) lets it train on the native one.
#
# Runs in about 40 s with `STEPS` below: far too few to beat the tuned fixed limit (the
# published leaderboard run trained for much longer; raise `STEPS` and watch the curve). A GPU
# does not help this small network; more CPU cores do.

# %%
import time

import gymnasium as gym
import matplotlib.pyplot as plt
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

import envzoo
from envzoo.core.policy import Policy
from envzoo.serverless.policies import BestFixedConcurrency, KnativeDefault
from envzoo.tools.rollout import run_episode

STEPS = 20_000
NUM_ENVS = 16
torch.set_num_threads(1)   # a small network: one thread each is fastest on a shared CPU

# %% [markdown]
# ## How much faster is the native vector env?
#
# The same 64 copies stepped with random actions, as Gymnasium's `SyncVectorEnv` (a Python loop
# over 64 envs) and as envzoo's native vector env (one batched simulator):

# %%
for mode in ("sync", "native"):
    envs = gym.make_vec("envzoo/Serverless-v1", num_envs=64, vectorization_mode="sync") if mode == "sync" else \
        gym.make_vec("envzoo/Serverless-v1", num_envs=64)
    envs.reset(seed=0)
    envs.step(envs.action_space.sample())   # compile the kernels outside the timing
    started = time.perf_counter()
    for _ in range(50):
        envs.step(envs.action_space.sample())
    print(f"{mode:6s}: {64 * 50 / (time.perf_counter() - started):,.0f} env steps/s")
    envs.close()

# %% [markdown]
# ## The adapter: Gymnasium's vector API to Stable-Baselines3's
#
# The two differ in their conventions: Gymnasium returns `terminated` and `truncated` apart and,
# in envzoo's SAME_STEP autoreset, the episode's last observation in `info["final_obs"]`;
# SB3 wants `dones`, one info dict per env with `"terminal_observation"` and
# `"TimeLimit.truncated"` (so that PPO bootstraps the value of a truncated episode).

# %%
class NativeVecEnv(VecEnv):
    """A Gymnasium vector env (SAME_STEP autoreset) as an SB3 VecEnv, its rewards divided by
    ``reward_scale``."""

    def __init__(self, envs, reward_scale=1.0):
        self.envs, self.reward_scale, self._seed, self._actions = envs, reward_scale, None, None
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)

    def reset(self):
        observations, _ = self.envs.reset(seed=self._seed)
        self._seed = None
        return observations

    def seed(self, seed=None):
        self._seed = seed
        return [seed]

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        observations, rewards, terminated, truncated, info = self.envs.step(self._actions)
        dones = terminated | truncated
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = info["final_obs"][i]
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return observations, (rewards / self.reward_scale).astype(np.float32), dones, infos

    def close(self):
        self.envs.close()

    def get_attr(self, name, indices=None):
        return [getattr(self.envs, name, None)] * self.num_envs

    def set_attr(self, name, value, indices=None):
        raise NotImplementedError("the native vector env has no per-copy attributes to set")

    def env_method(self, name, *args, indices=None, **kwargs):
        raise NotImplementedError("the native vector env has no per-copy methods to call")

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * self.num_envs


# %% [markdown]
# ## Training
#
# Rewards are divided by the registry's `reward_scale` (what `envzoo.make(..., scale_reward=True)`
# does for a single env) so that they are of order one, PPO's defaults' comfort zone; returns below are in the env's own units. Every
# rollout's mean episode return (through SB3's `VecMonitor`) is the learning curve.

# %%
scale = envzoo.env_info("envzoo/Serverless-v1").reward_scale
venv = VecMonitor(NativeVecEnv(gym.make_vec("envzoo/Serverless-v1", num_envs=NUM_ENVS), reward_scale=scale))
model = PPO("MlpPolicy", venv, n_steps=128, batch_size=256, seed=0, verbose=0, device="cpu")
curve = []
started = time.perf_counter()
while model.num_timesteps < STEPS:
    model.learn(NUM_ENVS * 128, reset_num_timesteps=False)
    if model.ep_info_buffer:
        curve.append((model.num_timesteps, scale * np.mean([e["r"] for e in model.ep_info_buffer])))
print(f"{model.num_timesteps:,} steps in {time.perf_counter() - started:.0f} s")

# %% [markdown]
# ## Against the references
#
# Knative's default (no limit) and the best fixed limit (found by search on other seeds), scored
# with the trained policy on the same 8 evaluation episodes; the band is a 95 % interval. The
# training curve is the *exploring* policy's (actions sampled from the network's distribution);
# the trained network acting deterministically, its most likely action, scores higher.

# %%
env = gym.make("envzoo/Serverless-v1")


class Trained(Policy):
    """The trained network, acting deterministically."""

    def __call__(self, observation, info):
        return int(model.predict(observation, deterministic=True)[0])


scores = {name: [run_episode(env, rule(env), seed=500 + s).episode_return for s in range(8)]
          for name, rule in (("Knative default", KnativeDefault), ("best fixed", BestFixedConcurrency),
                             ("PPO (this run)", Trained))}
steps, returns = np.array(curve).T
plt.figure(figsize=(7, 4))
plt.plot(steps, returns, marker="o", label="PPO: training episodes' mean return")
for (name, values), style in zip(scores.items(), (":", "--", "-")):
    half = 1.96 * np.std(values) / np.sqrt(len(values))
    line = plt.axhline(np.mean(values), linestyle=style, color="grey" if "PPO" not in name else "C1", label=name)
    plt.axhspan(np.mean(values) - half, np.mean(values) + half, alpha=0.1, color=line.get_color())
    print(f"{name:16s} {np.mean(values):9.1f} ± {half:.1f}")
plt.xlabel("env steps")
plt.ylabel("episode return")
plt.legend(fontsize=8)
plt.title("PPO on Serverless-v1 (native vector env of 16)")
plt.show()

# %% [markdown]
# ## Exercises
#
# Fill in `course/exercises/06_ppo.py`, then run `envzoo course check 06`.
#
# 1. `clipped_objective(ratio, advantage, clip)`: PPO's surrogate, per sample.
# 2. `explained_variance(values, returns)`: the diagnostic SB3 logs as `train/explained_variance`
#    (near 0 early in training, as here: the critic has not learnt the returns yet).
#
# Going further: `envzoo train envzoo/Serverless-v1 --algo ppo --seed 0 1 2` trains with the
# shipped hyperparameters and writes leaderboard result files (lesson 12 reads them).

# %%
from envzoo.tools.course import report  # noqa: E402

report("06")
