"""Throughput of the power-grid envs: envzoo/PowerGrid-v0 (5 agents, 9 devices with 16 action
numbers, an AC power flow in every step) on one feeder (``--feeder``, default the IEEE 13-bus
feeder, the issue's yardstick; ``ieee33`` is the ids' default) as a single env and a native
vector env at several sizes (whole episodes, resets included), the bare power flow, and
envzoo/PowerGridAgents-v0 (PettingZoo).

    python benchmarks/powergrid_throughput.py [--feeder ieee13] [--steps 20]

Prints env-steps per second (one env-step = 15 simulated minutes: the devices and one power flow).
"""

import argparse
import os
import platform
import time

import gymnasium
import numpy as np

import envzoo
from envzoo.powergrid import feeders, powerflow

ENV_ID = "envzoo/PowerGrid-v0"


def power_flows_per_second(name: str, rows: int, repeats: int = 20) -> float:
    feeder = feeders.feeder(name)
    generator = np.random.default_rng(0)
    p = feeder.p_kw * generator.uniform(0.3, 1.0, (rows, feeder.n_buses))
    q = feeder.q_kvar * generator.uniform(0.3, 1.0, (rows, feeder.n_buses))
    powerflow.solve(feeder, p, q)  # compile or load
    start = time.perf_counter()
    for _ in range(repeats):
        powerflow.solve(feeder, p, q)
    return rows * repeats / (time.perf_counter() - start)


def single_steps_per_second(name: str, steps: int) -> float:
    """A single env's steps per second over whole days (random actions drawn beforehand)."""
    env = gymnasium.make(ENV_ID, feeder=name)
    env.reset(seed=0)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(96)]
    env.step(actions[0])  # load the compiled kernels
    count, start = 0, time.perf_counter()
    while count < steps:
        _, _, terminated, truncated, _ = env.step(actions[count % len(actions)])
        count += 1
        if terminated or truncated:
            env.reset()
    return count / (time.perf_counter() - start)


def vector_steps_per_second(name: str, num_envs: int, steps: int) -> float:
    """The native vector env's env-steps per second (its rows reset themselves at the day's end)."""
    env = gymnasium.make_vec(ENV_ID, num_envs=num_envs, vectorization_mode="vector_entry_point", feeder=name)
    env.reset(seed=0)
    env.single_action_space.seed(0)
    actions = np.stack([env.single_action_space.sample() for _ in range(num_envs)])
    env.step(actions)
    start = time.perf_counter()
    for _ in range(steps):
        env.step(actions)
    return num_envs * steps / (time.perf_counter() - start)


def parallel_steps_per_second(name: str, steps: int) -> float:
    env = envzoo.make("envzoo/PowerGridAgents-v0", feeder=name)
    env.reset(seed=0)
    actions = {agent: env.action_space(agent).low for agent in env.possible_agents}
    count, start = 0, time.perf_counter()
    while count < steps:
        _, _, terminations, truncations, _ = env.step(actions)
        count += 1
        if any(truncations.values()) or any(terminations.values()):
            env.reset()
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--feeder", default="ieee13", choices=sorted(feeders.FEEDERS), help="the feeder")
    parser.add_argument("--steps", type=int, default=100, help="vector steps per measurement (one day: 96)")
    args = parser.parse_args()
    name = args.feeder
    print(f"{ENV_ID}, feeder {name} ({feeders.feeder(name).n_buses} buses), on "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"ENVZOO_THREADS={os.environ.get('ENVZOO_THREADS', 'all')}")
    for rows in (1, 1024):
        print(f"{f'power flow alone, B={rows}':>30}: {power_flows_per_second(name, rows):>12,.0f} flows/s")
    print(f"{'single env':>30}: {single_steps_per_second(name, 50 * args.steps):>12,.0f} env-steps/s")
    for num_envs in (64, 1024):
        rate = vector_steps_per_second(name, num_envs, args.steps)
        print(f"{f'native vector, N={num_envs}':>30}: {rate:>12,.0f} env-steps/s")
    rate = parallel_steps_per_second(name, 10 * args.steps)
    print(f"{'PowerGridAgents-v0 (5 agents)':>30}: {rate:>12,.0f} steps/s")


if __name__ == "__main__":
    main()
