"""Optimality gaps of the routing reference policies, played through the envs: on the shipped
instances against their published optima (in the files' rounded units), and on Kool et al.'s
uniform instances (n = 20 and 50) against the best of the near-optimal solvers (LKH for the TSP,
PyVRP's HGS for the CVRP), as means over seeded instances. Needs the extra ``routing``.

    python benchmarks/routing_gaps.py [--instances-20 64] [--instances-50 32]

The POMO-style row is the batched greedy rolled out from every first move at once
(:func:`envzoo.routing.multistart.multi_start`), best of the starts.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import envzoo
from envzoo.registry import entries
from envzoo.routing import solvers
from envzoo.routing.data import load_instance
from envzoo.routing.generator import kool
from envzoo.routing.instance import giant_tour, tour_length
from envzoo.routing.multistart import multi_start

IDS = {"tsp": "envzoo/TSP-v0", "cvrp": "envzoo/CVRP-v0"}


def played_tour(env_id: str, policy_name: str, instance) -> np.ndarray:
    """The tour the policy builds on ``instance`` through the env."""
    env = envzoo.make(env_id, instance=instance)
    policy = envzoo.make_policy(env_id, policy_name, env)
    policy.reset(0)
    observation, info = env.reset(seed=0, options={"instance": instance})
    while True:
        observation, _, terminated, truncated, info = env.step(policy(observation, info))
        if terminated or truncated:
            return env.unwrapped.task.sim.tour_of(0)


def lengths(problem: str, instance) -> dict[str, float]:
    """Every reference policy's tour length and the multi-start greedy's, in the instance's own
    (rounded) units."""
    d = instance.distances()
    out = {ref.name: tour_length(d, played_tour(IDS[problem], ref.name, instance))
           for ref in entries()[IDS[problem]].policies}
    starts = multi_start(problem, instance)
    out["multi-start greedy (POMO-style)"] = tour_length(d, starts.tours[starts.best])
    return out


def reference(problem: str, instance) -> float:
    d = instance.distances()
    if problem == "tsp":
        return tour_length(d, solvers.lkh_tour(instance))
    return tour_length(d, giant_tour(solvers.pyvrp_routes(instance, iterations=2000)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances-20", type=int, default=64)
    parser.add_argument("--instances-50", type=int, default=32)
    args = parser.parse_args()
    started = time.perf_counter()
    print("## Shipped instances: gap to the published optimum (%)\n")
    shipped = {"berlin52": "tsp", "eil51": "tsp", "E-n22-k4": "cvrp"}
    results = {name: lengths(problem, load_instance(name)) for name, problem in shipped.items()}
    names = sorted({policy for row in results.values() for policy in row})
    print("| policy | " + " | ".join(f"{n} (opt {load_instance(n).known_optimum:g})" for n in shipped) + " |")
    print("|---|" + "---|" * len(shipped))
    for policy in names:
        cells = []
        for name in shipped:
            value = results[name].get(policy)
            optimum = load_instance(name).known_optimum
            cells.append("–" if value is None else f"{value:g} ({100 * (value / optimum - 1):.2f})")
        print(f"| {policy} | " + " | ".join(cells) + " |")
    print("\n## Kool et al.'s instances: mean gap to the best solver (%), mean length\n")
    print("| problem | n | instances | policy | mean gap % | mean length | reference mean |")
    print("|---|---|---|---|---|---|---|")
    for problem in ("tsp", "cvrp"):
        for n, count in ((20, args.instances_20), (50, args.instances_50)):
            gaps, refs = {}, []
            for seed in range(count):
                instance = kool(problem, n, 10_000 + seed)
                best = reference(problem, instance)
                refs.append(best)
                for policy, value in lengths(problem, instance).items():
                    best = min(best, value)
                    gaps.setdefault(policy, []).append(value)
                refs[-1] = best
            for policy, values in gaps.items():
                gap = 100 * np.mean(np.array(values) / np.array(refs) - 1)
                print(f"| {problem.upper()} | {n} | {count} | {policy} | {gap:.2f} | {np.mean(values):.3f} | "
                      f"{np.mean(refs):.3f} |", flush=True)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
