"""Throughput of envzoo/Portfolio-v1 (single env and native vector env at N = 256), next to
gym-anytrading's stocks-v0 measured in the same run when gym-anytrading is installed.

    python benchmarks/portfolio_throughput.py [--steps 2000]
"""

import argparse
import importlib.util
import os
import platform

import gymnasium as gym
import numpy as np

from envzoo.tools.throughput import bench, gymnasium_rate

ENV_ID = "envzoo/Portfolio-v1"


def anytrading_rate(steps: int) -> float:
    """Steps per second of gym-anytrading's stocks-v0 under random actions, resets included."""
    import gym_anytrading  # noqa: F401  (registers stocks-v0)

    # Its env shares observation buffers between steps; Gymnasium's checker warns about that.
    return gymnasium_rate(gym.make("stocks-v0", disable_env_checker=True), steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="single-env steps per measurement")
    args = parser.parse_args()
    print(f"{ENV_ID} on {platform.machine()}, {os.cpu_count()} CPUs, numpy {np.__version__}")
    single = bench(ENV_ID, 1, steps=args.steps, modes=("single",))["steps_per_s"]["single"]
    native = bench(ENV_ID, 256, steps=max(args.steps // 50, 10), modes=("native",))["steps_per_s"]["native"]
    print(f"{'Portfolio-v1 single env':>32}: {single:>10,.0f} steps/s")
    print(f"{'Portfolio-v1 native vector N=256':>32}: {native:>10,.0f} env-steps/s")
    if importlib.util.find_spec("gym_anytrading") is None:
        print(f"{'gym-anytrading stocks-v0':>32}: not installed (pip install gym-anytrading)")
    else:
        peer = anytrading_rate(args.steps)
        print(f"{'gym-anytrading stocks-v0':>32}: {peer:>10,.0f} steps/s")
        print(f"{'native N=256 / stocks-v0':>32}: {native / peer:>10.1f}x")


if __name__ == "__main__":
    main()
