"""Steps per second of the swarm as the population grows, with VMAS's flocking beside it.

    python benchmarks/swarm_scaling.py [--sizes 10 30 100 ...] [--seconds 1.0] [--vmas PATH]

For each N, in one run: the simulator core alone (``SwarmSim.step``, one row, zero controls:
the dynamics, the exact O(N²) graphon mean field and the collisions), the PettingZoo face
``SwarmParallel-v0`` (zero actions, every agent's observation, rewards and infos dicts) with the
exact mean field and with κ = 8 subsamples, the representative-agent face ``Swarm-v0`` (its
population playing Reynolds flocking), the same population's jitted step in the JAX core (on
JAX's default device), and VMAS 1.5's ``flocking`` scenario with the same N and
one environment (``vmas.make_env(..., num_envs=1, device="cpu")``, zero actions, one torch
thread, N up to ``--vmas-max``), where VMAS
imports (``--vmas`` adds a folder to the import path: VMAS installed with
``pip install --no-deps --target DIR vmas gym==0.26.2 gym-notices six``, kept out of envzoo's
environment because it needs the old ``gym``). Each cell steps for about ``--seconds``. Then the
largest N of the list at which the PettingZoo face (exact) still makes 1,000 steps/s.

VMAS's flocking is not the same model: its agents are rigid bodies in a physics engine with
lidar sensing, obstacles and a target; the rows compare what a step of a swarm of N costs in each.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

from envzoo.swarm.env import SwarmEnv
from envzoo.swarm.parallel import SwarmParallelEnv
from envzoo.swarm.params import make_params
from envzoo.swarm.sim import SwarmSim


def rate(step, seconds: float) -> float:
    """Steps per second of ``step()`` over about ``seconds`` (after one warm-up step)."""
    step()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        count += 1
    return count / (time.perf_counter() - start)


def core(n: int):
    sim = SwarmSim(make_params(n_agents=n), 1)
    sim.reset(np.array([0]), np.array([1], dtype=np.uint64))
    zeros = np.zeros((1, n, 2))
    return lambda: sim.step(zeros)


def parallel(n: int, observation: str):
    env = SwarmParallelEnv(n_agents=n, observation=observation, kappa=min(8, n - 1))  # no horizon
    env.reset(seed=0)
    actions = {agent: np.zeros(2, dtype=np.float32) for agent in env.possible_agents}
    return lambda: env.step(actions)


def representative(n: int):
    env = SwarmEnv(n_agents=n)  # no horizon
    env.reset(seed=0)
    action = np.zeros(2, dtype=np.float32)
    return lambda: env.step(action)


def jax_population(n: int):
    """One population's jitted step of the JAX core (``Swarm-v0``'s), on JAX's default device."""
    import jax

    import envzoo.jax
    env, params = envzoo.jax.make("envzoo/Swarm-v0", n_agents=n, max_episode_steps=None)
    _, state = env.reset(jax.random.key(0), params)
    action = jax.numpy.zeros(2)
    step = jax.jit(lambda state: env.transition(state, action, params)[0])
    holder = [step(state.core)]

    def advance():
        holder[0] = step(holder[0])
        holder[0].position.block_until_ready()
    return advance


def vmas_flocking(n: int):
    import torch
    import vmas
    torch.set_num_threads(1)  # as envzoo's kernels: one thread (several were 5x slower on 2 shared cores)
    env = vmas.make_env("flocking", num_envs=1, device="cpu", continuous_actions=True, n_agents=n)
    env.reset()
    actions = [torch.zeros(1, 2) for _ in range(n)]
    return lambda: env.step(actions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 100, 300, 1000, 3000])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--vmas", help="a folder holding VMAS (pip install --target)")
    parser.add_argument("--vmas-max", type=int, default=300, help="the largest N to run VMAS at (slow)")
    args = parser.parse_args()
    if args.vmas:
        sys.path.append(args.vmas)
    try:
        import vmas
        vmas_version = vmas.__version__
    except ImportError as error:
        vmas_version = None
        print(f"VMAS rows skipped: {error}")
    print(f"swarm steps/s on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"~{args.seconds} s per cell" + (f", VMAS {vmas_version}" if vmas_version else ""))
    columns = ["core", "parallel exact", "parallel κ=8", "representative", "JAX representative"] + (
        ["VMAS flocking"] if vmas_version else [])
    print("| N | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    largest = None
    for n in args.sizes:
        rows = [core(n), parallel(n, "exact"), parallel(n, "subsample"), representative(n), jax_population(n)]
        rates = [rate(step, args.seconds) for step in rows]
        if vmas_version:
            rates.append(rate(vmas_flocking(n), args.seconds) if n <= args.vmas_max else float("nan"))
        if rates[1] >= 1000:
            largest = n
        print(f"| {n:,} | " + " | ".join(f"{r:,.0f}" for r in rates) + " |", flush=True)
    print(f"largest N of the list with the PettingZoo face (exact) at >= 1,000 steps/s: {largest}")


if __name__ == "__main__":
    main()
