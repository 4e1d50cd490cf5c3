"""Throughput of the timed-reward-machine ids: single env and native vector env, side by side
with Gymnasium's FrozenLake-v1 (the same 8 x 8 map, without a machine).

    python benchmarks/trm_throughput.py [--steps 200]

Prints env-steps per second.
"""

import argparse
import os
import platform

from envzoo.tools.throughput import bench

IDS = ("envzoo/OfficeTRM-v0", "envzoo/FrozenLakeTRM-v0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="vector steps per measurement")
    args = parser.parse_args()
    print(f"on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    for env_id in IDS:
        single = bench(env_id, 1, steps=20 * args.steps, modes=("single",))["steps_per_s"]["single"]
        print(f"{env_id:>26} {'single env':>22}: {single:>12,.0f} env-steps/s")
        for num_envs in (64, 1024):
            rate = bench(env_id, num_envs, steps=args.steps, modes=("native",))["steps_per_s"]["native"]
            print(f"{env_id:>26} {f'native vector, N={num_envs}':>22}: {rate:>12,.0f} env-steps/s")
    import gymnasium
    import time
    env = gymnasium.make("FrozenLake-v1", map_name="8x8")
    env.reset(seed=0)
    start, steps = time.perf_counter(), 20 * args.steps
    for i in range(steps):
        _, _, terminated, truncated, _ = env.step(i % 4)
        if terminated or truncated:
            env.reset()
    print(f"{'gymnasium FrozenLake-v1':>26} {'single env':>22}: {steps / (time.perf_counter() - start):>12,.0f} "
          "env-steps/s")


if __name__ == "__main__":
    main()
