"""Throughput of the routing envs side by side with RL4CO's environments: env-steps per second of
random masked rollouts (each step a uniformly random feasible node) on the same problems, sizes
and batch, in one run. RL4CO (``pip install rl4co``, TorchRL environments on CPU tensors) is
measured where it is installed (on one thread, as envzoo's kernel runs); it is not an envzoo
dependency.

    python benchmarks/routing_throughput.py [--batch 1024] [--steps 200]

envzoo's figures are the native vector env as ``gymnasium.make_vec`` returns it (autoreset,
observations and ``info["action_mask"]`` every step) and the single env (B = 1).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import gymnasium
import numpy as np

import envzoo  # noqa: F401  (registers the ids)

IDS = {"tsp": "envzoo/TSP-v0", "cvrp": "envzoo/CVRP-v0"}


def random_feasible(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random feasible node per row."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def envzoo_vector(problem: str, size: int, batch: int, steps: int) -> float:
    env = gymnasium.make_vec(IDS[problem], num_envs=batch, vectorization_mode="vector_entry_point", size=size)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    env.step(random_feasible(info["action_mask"], rng))  # compile outside the clock
    start = time.perf_counter()
    for _ in range(steps):
        _, _, _, _, info = env.step(random_feasible(info["action_mask"], rng))
    return batch * steps / (time.perf_counter() - start)


def envzoo_single(problem: str, size: int, steps: int) -> float:
    env = envzoo.make(IDS[problem], size=size)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(int(random_feasible(info["action_mask"][None], rng)[0]))
        if terminated or truncated:
            _, info = env.reset()
    return steps / (time.perf_counter() - start)


def rl4co_vector(problem: str, size: int, batch: int, steps: int) -> float | None:
    """RL4CO's env on CPU: reset a batch (new instances), step random feasible nodes until every
    row is done, again (RL4CO has no autoreset); steps of finished rows are not counted, the
    resets' time is (envzoo's autoreset draws its new instances inside the step)."""
    try:
        import torch
        from rl4co.envs import CVRPEnv, TSPEnv
    except ImportError:
        return None
    torch.manual_seed(0)
    # one thread, as envzoo's kernel runs: torch's OpenMP parallel regions (past 32,768 elements a
    # tensor) were 100x slower on a 2-core machine shared with other work
    torch.set_num_threads(1)
    env = (TSPEnv if problem == "tsp" else CVRPEnv)(generator_params={"num_loc": size})
    env.reset(batch_size=[batch])
    counted, start = 0, time.perf_counter()
    while counted < batch * steps:
        td = env.reset(batch_size=[batch])  # new instances, as envzoo's autoreset draws them
        while not td["done"].all() and counted < batch * steps:
            live = int((~td["done"]).sum())
            td["action"] = torch.multinomial(td["action_mask"].float(), 1).squeeze(-1)
            td = env.step(td)["next"]
            counted += live
    return counted / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200, help="vector steps per measurement")
    args = parser.parse_args()
    print(f"random masked rollouts on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"batch {args.batch}")
    print("| problem | n | envzoo single env | envzoo native vector | RL4CO 0.7 (CPU) | envzoo / RL4CO |")
    print("|---|---|---|---|---|---|")
    for problem in ("tsp", "cvrp"):
        for size in (20, 50, 100):
            single = envzoo_single(problem, size, 20 * args.steps)
            vector = envzoo_vector(problem, size, args.batch, args.steps)
            peer = rl4co_vector(problem, size, args.batch, args.steps)
            peer_text = "not installed" if peer is None else f"{peer:,.0f}"
            ratio = "–" if peer is None else f"{vector / peer:.1f}x"
            print(f"| {problem.upper()} | {size} | {single:,.0f} | {vector:,.0f} | {peer_text} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
