"""Single-asset trading side by side: envzoo/Trading-v1 against gym-anytrading's stocks-v0, in one
run on this machine (steps per second under seeded random actions, resets included).

    python benchmarks/trading_vs_anytrading.py [--steps 200000] [--repeats 5] [--num-envs 1024]

Rows (each runs ``--repeats`` times, taking turns; see side_by_side.py):

- gym-anytrading stocks-v0: ``gymnasium.make("stocks-v0")`` with its defaults (Google daily
  bars, window 30, frame bound (30, 2335)), as a user gets it;
- envzoo Trading-v1: ``gymnasium.make("envzoo/Trading-v1")`` with its defaults (S&P 500 daily
  bars, 9 causal indicators and 10 lagged returns observed, 252-step episodes, info["metrics"]
  at each episode's end);
- the same two as ``gymnasium.vector.SyncVectorEnv`` of 64, and Trading-v1's native vector env
  (``gymnasium.make_vec``) of ``--num-envs``: env-steps per second.

Both single envs go through the wrappers ``gymnasium.make`` adds (the passive checker and the
order enforcer). The actions are drawn before the clock starts, uniformly over each env's own
action space (2 actions for stocks-v0, 3 for Trading-v1), from the same seed. The counts are the
steps taken and the episodes that ended; the rate is env-steps per second of the fastest repeat.

gym-anytrading is not a dependency of envzoo (``pip install gym-anytrading``); without it its
rows are skipped. Its env shares the observation buffer between steps, which Gymnasium's checker
warns about once; the warning is silenced here.
"""

import argparse
import os
import platform
import time
import warnings

import gymnasium as gym
import numpy as np
from side_by_side import RowSkipped, Run, measure, table

import envzoo  # noqa: F401  (registers the envzoo ids)

SEED = 0


def single_run(make, steps: int) -> Run:
    env = make()
    actions = np.random.default_rng(SEED).integers(0, env.action_space.n, steps).tolist()
    env.reset(seed=SEED)
    episodes = 0
    start = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            episodes += 1
            env.reset()
    wall = time.perf_counter() - start
    env.close()
    return Run(wall, {"env_steps": steps, "episodes": episodes})


def vector_run(make, steps: int) -> Run:
    envs = make()
    n = envs.num_envs
    actions = np.random.default_rng(SEED).integers(0, envs.single_action_space.n, (steps, n))
    envs.reset(seed=SEED)
    episodes = 0
    start = time.perf_counter()
    for batch in actions:
        _, _, terminated, truncated, _ = envs.step(batch)
        episodes += int(np.count_nonzero(terminated | truncated))
    wall = time.perf_counter() - start
    envs.close()
    return Run(wall, {"env_steps": steps * n, "episodes": episodes})


def anytrading(make):
    """``make`` once gym-anytrading is imported, or a row that says it is not installed."""
    def row_maker():
        try:
            import gym_anytrading  # noqa: F401  (registers stocks-v0)
        except ImportError:
            raise RowSkipped("gym-anytrading is not installed (pip install gym-anytrading)") from None
        return make()
    return row_maker


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000, help="single-env steps per run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of every row")
    parser.add_argument("--num-envs", type=int, default=1024, help="sub-envs of the native vector env")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*share an object.*")
    sync_steps = max(args.steps // 64, 1)
    native_steps = max(args.steps // 20, 1)
    rows = {
        "gym-anytrading stocks-v0": lambda: single_run(anytrading(lambda: gym.make("stocks-v0")), args.steps),
        "envzoo Trading-v1": lambda: single_run(lambda: gym.make("envzoo/Trading-v1"), args.steps),
        "gym-anytrading SyncVectorEnv 64": lambda: vector_run(
            anytrading(lambda: gym.make_vec("stocks-v0", 64, vectorization_mode="sync")), sync_steps),
        "envzoo Trading-v1 SyncVectorEnv 64": lambda: vector_run(
            lambda: gym.make_vec("envzoo/Trading-v1", 64, vectorization_mode="sync"), sync_steps),
        f"envzoo Trading-v1 native {args.num_envs}": lambda: vector_run(
            lambda: gym.make_vec("envzoo/Trading-v1", args.num_envs), native_steps),
    }
    single_run(lambda: gym.make("envzoo/Trading-v1"), 1000)  # compile, or load the cached kernels, untimed
    print(f"single-asset trading, {args.repeats} repeat(s), on {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, numpy {np.__version__}, gymnasium {gym.__version__}")
    runs, skipped = measure(rows, args.repeats)
    print(table(runs, skipped, reference="gym-anytrading stocks-v0" if "gym-anytrading stocks-v0" not in skipped
                else "envzoo Trading-v1", rate="env_steps", rate_unit="env-steps/s"))


if __name__ == "__main__":
    main()
