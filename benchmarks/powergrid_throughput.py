"""Throughput of the power-grid envs: envzoo/PowerGrid-v0 (the IEEE 33-bus feeder, 5 agents, 9
devices with 16 action numbers, an AC power flow in every step) as a single env and a native
vector env at several sizes, the bare power flow, and envzoo/PowerGridAgents-v0 (PettingZoo).

    python benchmarks/powergrid_throughput.py [--steps 20]

Prints env-steps per second (one env-step = 15 simulated minutes: the devices and one power flow).
"""

import argparse
import os
import platform
import time

import numpy as np

import envzoo
from envzoo.powergrid import feeders, powerflow
from envzoo.tools.throughput import bench

ENV_ID = "envzoo/PowerGrid-v0"


def power_flows_per_second(rows: int, repeats: int = 20) -> float:
    feeder = feeders.ieee33()
    generator = np.random.default_rng(0)
    p = feeder.p_kw * generator.uniform(0.3, 1.0, (rows, feeder.n_buses))
    q = feeder.q_kvar * generator.uniform(0.3, 1.0, (rows, feeder.n_buses))
    powerflow.solve(feeder, p, q)  # compile or load
    start = time.perf_counter()
    for _ in range(repeats):
        powerflow.solve(feeder, p, q)
    return rows * repeats / (time.perf_counter() - start)


def parallel_steps_per_second(steps: int) -> float:
    env = envzoo.make("envzoo/PowerGridAgents-v0")
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
    parser.add_argument("--steps", type=int, default=20, help="vector steps per measurement")
    args = parser.parse_args()
    print(f"{ENV_ID} on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    for rows in (1, 1024):
        print(f"{f'power flow alone, B={rows}':>30}: {power_flows_per_second(rows):>12,.0f} flows/s")
    single = bench(ENV_ID, 1, steps=100 * args.steps, modes=("single",))["steps_per_s"]["single"]
    print(f"{'single env':>30}: {single:>12,.0f} env-steps/s")
    for num_envs in (64, 1024):
        rate = bench(ENV_ID, num_envs, steps=args.steps, modes=("native",))["steps_per_s"]["native"]
        print(f"{f'native vector, N={num_envs}':>30}: {rate:>12,.0f} env-steps/s")
    both = bench(ENV_ID, 64, steps=args.steps, modes=("sync", "native"))
    print(f"{'SyncVectorEnv, N=64':>30}: {both['steps_per_s']['sync']:>12,.0f} env-steps/s")
    print(f"{'PowerGridAgents-v0 (5 agents)':>30}: {parallel_steps_per_second(50 * args.steps):>12,.0f} steps/s")


if __name__ == "__main__":
    main()
