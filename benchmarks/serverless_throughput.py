"""Throughput of envzoo/Serverless-v1: single env, native vector env at several sizes, and the
native vector env against Gymnasium's SyncVectorEnv at N = 256, measured in one run.

    python benchmarks/serverless_throughput.py [--steps 20]

Prints env-steps per second (one env-step = one 10 s decision interval = 100 simulator ticks).
"""

import argparse
import os
import platform

from envzoo.tools.throughput import bench

ENV_ID = "envzoo/Serverless-v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="vector steps per measurement")
    args = parser.parse_args()
    print(f"{ENV_ID} on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    single = bench(ENV_ID, 1, steps=10 * args.steps, modes=("single",))["steps_per_s"]["single"]
    print(f"{'single env':>28}: {single:>10,.0f} env-steps/s")
    for num_envs in (1, 64, 1024):
        rate = bench(ENV_ID, num_envs, steps=args.steps, modes=("native",))["steps_per_s"]["native"]
        print(f"{f'native vector, N={num_envs}':>28}: {rate:>10,.0f} env-steps/s")
    both = bench(ENV_ID, 256, steps=args.steps, modes=("sync", "native"))
    rates = both["steps_per_s"]
    print(f"{'SyncVectorEnv, N=256':>28}: {rates['sync']:>10,.0f} env-steps/s")
    print(f"{'native vector, N=256':>28}: {rates['native']:>10,.0f} env-steps/s")
    print(f"{'native / sync at N=256':>28}: {both['native_over_sync']:>10.1f}x")


if __name__ == "__main__":
    main()
