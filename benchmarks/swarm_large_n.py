"""Steps per second of the swarm from a hundred robots to a million, with the sorted summation.

    python benchmarks/swarm_large_n.py [--sizes 100 1000 ... 1000000] [--seconds 1.0] [--jax-max 1000]

``summation="sorted"`` (:mod:`envzoo.swarm.sim`) sums the exact graphon mean field in
O(N log N) plus the pairs within 8.5 σ. The population keeps the density of the default
16 robots: the arena stays [-1, 1]², the sensing radius σ = 0.25 √(16 / N) and the collision
radius σ / 8, so a robot has about as many robots within σ (0.8) at every N. ``rendezvous``
under the uniform-attachment graphon, one population; for each N:

- the simulator core (``SwarmSim.step``, zero controls) with the sorted summation, and with
  every pair (``summation="pairs"``, N up to ``--pairs-max``, whose (N, N) arrays must fit);
- the representative-agent face ``Swarm-v0`` (its population playing linear consensus), sorted,
  one env and its native vector env of ``--batch`` populations (env-steps/s: populations x steps / s),
  N up to ``--vector-max``;
- the JAX core's jitted step (``Swarm-v0``; dense (N, N) arrays, every pair), N up to ``--jax-max``.

Then the largest N of the list at which each makes 1,000 steps/s.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from envzoo.swarm.env import SwarmEnv
from envzoo.swarm.params import make_params
from envzoo.swarm.sim import SwarmSim


def sizes_at(n: int) -> dict:
    sigma = 0.25 * np.sqrt(16 / n)
    return {"scenario": "rendezvous", "n_agents": n, "sensing_radius": sigma, "collision_radius": sigma / 8}


def rate(step, seconds: float) -> float:
    """Steps per second of ``step()`` over about ``seconds`` (after one warm-up step; at least one)."""
    step()
    count, start = 0, time.perf_counter()
    while count == 0 or time.perf_counter() - start < seconds:
        step()
        count += 1
    return count / (time.perf_counter() - start)


def core(n: int, summation: str):
    sim = SwarmSim(make_params(**sizes_at(n), summation=summation), 1)
    sim.reset(np.array([0]), np.array([1], dtype=np.uint64))
    zeros = np.zeros((1, n, 2))
    return lambda: sim.step(zeros)


def representative(n: int):
    env = SwarmEnv(**sizes_at(n), summation="sorted")  # no horizon
    env.reset(seed=0)
    action = np.zeros(2, dtype=np.float32)
    return lambda: env.step(action)


def vector(n: int, batch: int):
    import gymnasium

    import envzoo  # noqa: F401  (registers the ids)
    envs = gymnasium.make_vec("envzoo/Swarm-v0", num_envs=batch, vectorization_mode="vector_entry_point",
                              **sizes_at(n), summation="sorted")
    envs.reset(seed=0)
    actions = np.zeros((batch, 2), dtype=np.float32)

    def advance():
        envs.step(actions)
    return advance


def jax_population(n: int):
    """One population's jitted step of the JAX core, on JAX's default device."""
    import jax

    import envzoo.jax
    env, params = envzoo.jax.make("envzoo/Swarm-v0", **sizes_at(n), max_episode_steps=None)
    _, state = env.reset(jax.random.key(0), params)
    action = jax.numpy.zeros(2)
    step = jax.jit(lambda state: env.transition(state, action, params)[0])
    holder = [step(state.core)]

    def advance():
        holder[0] = step(holder[0])
        holder[0].position.block_until_ready()
    return advance


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 3000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--pairs-max", type=int, default=3000, help="the largest N for summation='pairs'")
    parser.add_argument("--jax-max", type=int, default=1000, help="the largest N for the JAX core (dense)")
    parser.add_argument("--batch", type=int, default=8, help="populations in the vector env")
    parser.add_argument("--vector-max", type=int, default=100_000, help="the largest N for the vector env")
    args = parser.parse_args()
    print(f"swarm steps/s on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"~{args.seconds} s per cell (at least one step)")
    columns = {"core, sorted": lambda n: core(n, "sorted"),
               "core, pairs": lambda n: core(n, "pairs") if n <= args.pairs_max else None,
               "Swarm-v0, sorted": representative,
               f"Swarm-v0 vector x{args.batch}, sorted": lambda n: vector(n, args.batch) if n <= args.vector_max else None,
               "JAX core (pairs)": lambda n: jax_population(n) if n <= args.jax_max else None}
    print("| N | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    largest = dict.fromkeys(columns)
    for n in args.sizes:
        cells = []
        for name, make in columns.items():
            step = make(n)
            if step is None:
                cells.append("not run")
                continue
            steps = rate(step, args.seconds) * (args.batch if name.startswith("Swarm-v0 vector") else 1)
            if steps >= 1000:
                largest[name] = n
            cells.append(f"{steps:,.0f}" if steps >= 10 else f"{steps:.2g}")
        print(f"| {n:,} | " + " | ".join(cells) + " |", flush=True)
    print("largest N of the list at >= 1,000 steps/s: " + ", ".join(f"{k}: {v}" for k, v in largest.items()))


if __name__ == "__main__":
    main()
