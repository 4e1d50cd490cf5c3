"""The seed's claim on SchedulingClusterMO-v0: a tabular Q-learning scheduler against
round-robin, priority scheduling and dynamic resource allocation (DRA), with shortest-job-first
and best-fit beside them, on task completion time, utilization and energy.

Each seed trains its own Q-learners (``envzoo.scheduling.cluster.learning``, ``--train``
decisions, reward minus the weighted time in the system minus an energy weight x energy, one
learner per ``--energy-weights``) and plays every scheduler on ``--episodes`` episodes of 1000
decisions seeded by it. The first table gives means over seeds with 95 % t-intervals; the
second the paired differences, Q-learning minus each of round-robin, priority and DRA on the
same episodes (negative: Q-learning finishes tasks sooner, draws less power). Seeds run in
parallel on ``--workers`` processes.

Run: ``python benchmarks/scheduling_claim.py [--seeds 5] [--train 20000] [--workers 2]``
(about 2 minutes of CPU on each of 2 cores).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import gymnasium
import numpy as np
from scipy import stats

import envzoo  # noqa: F401
from envzoo.scheduling.cluster.learning import QScheduler, train_q_scheduler
from envzoo.scheduling.cluster.policies import (
    BestFit,
    DynamicResourceAllocation,
    PriorityScheduling,
    RoundRobin,
    ShortestJobFirst,
)

ID = "envzoo/SchedulingClusterMO-v0"
METRICS = ("mean_completion_time", "weighted_mean_completion_time", "utilization", "on_utilization",
           "energy_per_time", "rejected_fraction")
SCHEDULERS = {"round-robin": RoundRobin, "priority": PriorityScheduling,
              "dynamic-resource-allocation": DynamicResourceAllocation, "shortest-job-first": ShortestJobFirst,
              "best-fit": BestFit}


def episode_metrics(env, policy, seed: int) -> dict:
    policy.reset(seed)
    observation, info = env.reset(seed=seed)
    done = False
    while not done:
        observation, _, terminated, truncated, info = env.step(policy(observation, info))
        done = terminated or truncated
    return info["metrics"]


def one_seed(seed: int, args) -> dict[str, dict[str, float]]:
    """Every scheduler's metrics averaged over this seed's episodes (Q-learning trained on it)."""
    env = gymnasium.make(ID, arrival_rate=args.arrival_rate)
    learners = {f"q-learning (energy weight {weight:g})":
                QScheduler(env, train_q_scheduler(env, steps=args.train, energy_weight=weight, seed=seed))
                for weight in args.energy_weights}
    policies = {**learners, **{name: rule(env) for name, rule in SCHEDULERS.items()}}
    results = {}
    for name, policy in policies.items():
        runs = [episode_metrics(env, policy, 10_000 + 100 * seed + e) for e in range(args.episodes)]
        results[name] = {metric: float(np.mean([run[metric] for run in runs])) for metric in METRICS}
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--train", type=int, default=20_000, help="decisions each Q-learner trains on")
    parser.add_argument("--energy-weights", type=float, nargs="+", default=[0.0, 0.5],
                        help="the Q-learners' prices of energy, one learner each")
    parser.add_argument("--episodes", type=int, default=2, help="evaluation episodes per seed")
    parser.add_argument("--arrival-rate", type=float, default=5.5)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        per_seed = list(pool.map(one_seed, range(args.seeds), [args] * args.seeds))
    print(f"{ID}, arrival rate {args.arrival_rate}; {args.seeds} seeds x {args.episodes} episodes of 1000 "
          f"decisions; each Q-learner trained {args.train} decisions per seed; "
          f"mean ± 95 % t-interval over seeds; {time.perf_counter() - start:.0f} s\n")
    t = stats.t.ppf(0.975, args.seeds - 1) if args.seeds > 1 else float("nan")

    def cell(values) -> str:
        values = np.asarray(values)
        return f"{values.mean():.3f} ± {t * values.std(ddof=1) / np.sqrt(values.size):.3f}"

    print("| scheduler | " + " | ".join(METRICS) + " |\n|---|" + "---|" * len(METRICS))
    for name in per_seed[0]:
        print(f"| {name} | " + " | ".join(cell([seed[name][metric] for seed in per_seed]) for metric in METRICS) + " |")
    print("\n| paired difference | mean_completion_time | weighted_mean_completion_time | energy_per_time |\n"
          "|---|---|---|---|")
    paired = ("mean_completion_time", "weighted_mean_completion_time", "energy_per_time")
    for learner in (name for name in per_seed[0] if name.startswith("q-learning")):
        for rule in ("round-robin", "priority", "dynamic-resource-allocation"):
            cells = [cell([seed[learner][m] - seed[rule][m] for seed in per_seed]) for m in paired]
            print(f"| {learner} − {rule} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
