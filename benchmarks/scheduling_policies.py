"""Routing rules and a tabular Q-learning scheduler on Scheduling-v0 (two machines of speeds 1
and 0.5, arrival rate 1.2): mean and weighted sojourn, utilization, energy per unit of time and
rejections, over seeds, with 95 % t-intervals; and the env's throughput.

Run: ``python benchmarks/scheduling_policies.py [--seeds 10] [--train 30000]`` (about a minute).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import envzoo  # noqa: F401
from envzoo.core.policy import RandomPolicy
from envzoo.scheduling.learning import QScheduler, train_q_scheduler
from envzoo.scheduling.policies import JoinShortestQueue, LeastWorkLeft, RoundRobin
from envzoo.tools.throughput import bench

SETTING = {"speeds": (1.0, 0.5), "arrival_rate": 1.2}
METRICS = ("mean_sojourn", "weighted_mean_sojourn", "utilization", "energy_per_time", "rejected_fraction")


def evaluate(env, policy, seeds: int) -> dict:
    results = {name: [] for name in METRICS}
    for seed in range(seeds):
        policy.reset(1000 + seed)
        observation, info = env.reset(seed=1000 + seed)
        done = False
        while not done:
            observation, _, terminated, truncated, info = env.step(policy(observation, info))
            done = terminated or truncated
        for name in METRICS:
            results[name].append(info["metrics"][name])
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--train", type=int, default=30_000, help="arrivals the Q-learner trains on")
    args = parser.parse_args()
    env = gymnasium.make("envzoo/Scheduling-v0", **SETTING)
    start = time.perf_counter()
    q = train_q_scheduler(env, steps=args.train)
    trained = time.perf_counter() - start
    policies = {"random": RandomPolicy(env), "round-robin": RoundRobin(env), "join-shortest-queue":
                JoinShortestQueue(env), "least-work-left": LeastWorkLeft(env), "q-learning": QScheduler(env, q)}
    print(f"Scheduling-v0 {SETTING}, {args.seeds} episodes of 1000 arrivals each; Q-learning trained on "
          f"{args.train} arrivals in {trained:.0f} s\n")
    print("| policy | " + " | ".join(METRICS) + " |\n|---|" + "---|" * len(METRICS))
    for name, policy in policies.items():
        results = evaluate(env, policy, args.seeds)
        cells = []
        for metric in METRICS:
            values = np.array(results[metric])
            half = 2.262 * values.std(ddof=1) / np.sqrt(values.size)
            cells.append(f"{values.mean():.3f} ± {half:.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    single = bench("envzoo/Scheduling-v0", 1, steps=2000, modes=("single",))["steps_per_s"]["single"]
    print(f"throughput: single env {single:,.0f} env-steps/s", end="")
    for n in (64, 1024):
        rate = bench("envzoo/Scheduling-v0", n, steps=100, modes=("native",))["steps_per_s"]["native"]
        print(f", native vector N={n} {rate:,.0f}", end="")
    print()


if __name__ == "__main__":
    main()
