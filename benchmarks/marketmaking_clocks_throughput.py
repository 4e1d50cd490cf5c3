"""Throughput of envzoo/MarketMaking-v1 with each clock: the single env and the native vector env,
under random actions, measured in one run on the default synthetic book.

    python benchmarks/marketmaking_clocks_throughput.py [--steps 20000] [--num-envs 1024] [--vector-steps 50]

For each clock it prints the time to build the env (action points and normalised features of
the whole stream, once per process; later envs with the same arguments reuse them), the single
env's steps per second (``--steps`` random actions, resets included), and the native vector
env's env-steps per second with ``--num-envs`` sub-envs (``--vector-steps`` batched steps). The
clocks are set so that each acts a few hundred times per synthetic day, except ``tick`` which
acts at every book update.
"""

import argparse
import os
import platform
import time

import gymnasium

import envzoo  # noqa: F401  (registers the ids)
from envzoo.tools.throughput import gymnasium_rate, vector_rate

ENV_ID = "envzoo/MarketMaking-v1"
CLOCKS = {
    "event": {"clock": "event", "threshold": 1e-4},
    "time": {"clock": "time", "interval_s": 1.5},
    "volume": {"clock": "volume", "volume": 13.0},
    "tick": {"clock": "tick"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="single-env steps per clock")
    parser.add_argument("--num-envs", type=int, default=1024, help="sub-envs of the native vector env")
    parser.add_argument("--vector-steps", type=int, default=50, help="batched steps per clock")
    args = parser.parse_args()
    print(f"{ENV_ID} on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"random actions, seed 0")
    print(f"{'clock':<8}{'build s':>9}{'steps/day':>11}{'single steps/s':>16}"
          f"{f'vector N={args.num_envs} env-steps/s':>30}")
    for name, kwargs in CLOCKS.items():
        start = time.perf_counter()
        env = gymnasium.make(ENV_ID, **kwargs)
        build = time.perf_counter() - start
        steps_per_day = env.unwrapped.params.agent_steps_per_day()
        single = gymnasium_rate(env, args.steps)
        env.close()
        vector = vector_rate(gymnasium.make_vec(ENV_ID, num_envs=args.num_envs, **kwargs), args.vector_steps)
        print(f"{name:<8}{build:>9.2f}{steps_per_day:>11.0f}{single:>16,.0f}{vector:>30,.0f}")


if __name__ == "__main__":
    main()
