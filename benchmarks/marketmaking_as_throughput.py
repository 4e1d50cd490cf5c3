"""Throughput of envzoo/MarketMakingAS-v1: the single env and the native vector env at several
sizes, under random actions, measured in one run.

    python benchmarks/marketmaking_as_throughput.py [--steps 200]

Prints env-steps per second (one env-step = one quote update of dt; 200 per episode, resets
included). For scale: mbt-gym runs about 2.6–4.5k steps/s for one trajectory and 2.1–2.4M
agent-steps/s with 1000 trajectories, measured on a 2-core machine.
"""

import argparse
import os
import platform

from envzoo.tools.throughput import bench

ENV_ID = "envzoo/MarketMakingAS-v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="vector steps per measurement")
    args = parser.parse_args()
    print(f"{ENV_ID} on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    single = bench(ENV_ID, 1, steps=50 * args.steps, modes=("single",))["steps_per_s"]["single"]
    print(f"{'single env':>28}: {single:>12,.0f} env-steps/s")
    for num_envs in (1, 64, 1024, 8192):
        rate = bench(ENV_ID, num_envs, steps=args.steps, modes=("native",))["steps_per_s"]["native"]
        print(f"{f'native vector, N={num_envs}':>28}: {rate:>12,.0f} env-steps/s")


if __name__ == "__main__":
    main()
