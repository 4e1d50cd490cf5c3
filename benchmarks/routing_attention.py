"""Optimality gaps of a trained attention model (``envzoo train ID --framework torch --algo
attention-ppo``) on Kool et al.'s uniform instances, greedy and POMO multi-start, beside the
construction heuristics, against LKH (TSP, via ``elkai``) or PyVRP's HGS (CVRP) as the
near-optimal reference. Needs the extras ``train`` and ``routing``.

    python benchmarks/routing_attention.py CHECKPOINT [--instances 1000] [--size 20]

CHECKPOINT is a run's checkpoint folder (runs/TSP-v0/torch-attention-ppo-seed0/checkpoint-STEPS).
The instances are drawn from seeds 20000, 20001, ... (Kool et al.'s generator; their published
test files are not shipped), so every model is measured on the same ones.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from envzoo.routing import heuristics, solvers
from envzoo.routing.generator import kool
from envzoo.routing.instance import giant_tour, tour_length
from envzoo.train.attention_policy import decoded_lengths, load_model

FIRST_SEED = 20_000


def reference_length(problem: str, instance, pyvrp_iterations: int) -> float:
    d = instance.distances()
    if problem == "tsp":
        return tour_length(d, solvers.lkh_tour(instance))
    return tour_length(d, giant_tour(solvers.pyvrp_routes(instance, iterations=pyvrp_iterations)))


def heuristic_lengths(problem: str, instance) -> dict[str, float]:
    d = instance.distances()
    if problem == "tsp":
        return {"nearest-neighbour": tour_length(d, heuristics.nearest_neighbour_tour(d)),
                "nearest-insertion": tour_length(d, heuristics.nearest_insertion_tour(d))}
    return {"savings": tour_length(d, giant_tour(heuristics.savings_routes(d, instance.demand, instance.capacity)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--size", type=int, default=20)
    parser.add_argument("--pyvrp-iterations", type=int, default=2000)
    args = parser.parse_args()
    torch.set_num_threads(1)
    model, saved = load_model(args.checkpoint)
    problem = model.problem
    instances = [kool(problem, args.size, FIRST_SEED + i) for i in range(args.instances)]
    started = time.perf_counter()
    reference = np.array([reference_length(problem, instance, args.pyvrp_iterations) for instance in instances])
    solver = "LKH (elkai)" if problem == "tsp" else f"PyVRP HGS ({args.pyvrp_iterations} iterations)"
    print(f"{problem.upper()}{args.size}, {args.instances} instances; reference {solver}: mean "
          f"{reference.mean():.4f} ({time.perf_counter() - started:.0f} s)")
    lengths = {}
    for decoding in ("greedy", "pomo"):
        started = time.perf_counter()
        lengths[f"attention model, {decoding}"] = decoded_lengths(model, problem, instances, decoding)
        print(f"  {decoding} decoding: {time.perf_counter() - started:.1f} s", flush=True)
    for instance_lengths in zip(*(heuristic_lengths(problem, instance).items() for instance in instances)):
        lengths[instance_lengths[0][0]] = np.array([value for _, value in instance_lengths])
    print(f"\nmodel trained on {saved['timesteps']:,} steps\n")
    print("| policy | mean length | mean gap % |")
    print("|---|---|---|")
    for name, values in lengths.items():
        print(f"| {name} | {values.mean():.4f} | {100 * np.mean(values / reference - 1):.2f} |")


if __name__ == "__main__":
    main()
