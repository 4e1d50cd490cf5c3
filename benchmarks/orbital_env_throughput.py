"""Steps per second of CollisionAvoidance-v1: the single env and the native vector env.

Quick figures on this machine (random discrete actions, default arguments: 2 debris, 10-minute
steps, 48-step episodes): ``python benchmarks/orbital_env_throughput.py``.
"""

from __future__ import annotations

import time

import gymnasium
import numpy as np

import envzoo  # noqa: F401  (registers the ids)

from envzoo.orbital.env import CollisionAvoidanceEnv


def single_env(steps: int) -> float:
    env = CollisionAvoidanceEnv()
    env.reset(seed=0)
    env.action_space.seed(0)
    started = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - started)


def vector_env(num_envs: int, steps: int) -> float:
    env = gymnasium.make_vec("envzoo/CollisionAvoidance-v1", num_envs=num_envs)
    env.reset(seed=0)
    env.action_space.seed(0)
    started = time.perf_counter()
    for _ in range(steps):
        env.step(env.action_space.sample())
    return num_envs * steps / (time.perf_counter() - started)


if __name__ == "__main__":
    print(f"single env:          {single_env(500):9.0f} steps/s")
    for n in (16, 256):
        print(f"vector env N={n:<4}:  {vector_env(n, 100):9.0f} env-steps/s")
    print(f"(numpy {np.__version__}; one run, not a benchmark of record)")
