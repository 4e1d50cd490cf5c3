"""Overhead of envzoo/TrafficGrid-v0 over plain SUMO: wall time for one simulated hour on the
default 4x4 grid, in one run.

    python benchmarks/traffic_overhead.py [--hours 1] [--seed 0]

Prints, for the same network and routes and SUMO seed:
- plain SUMO: the ``sumo`` binary running the scenario with its own (fixed-time) programs;
- plain libsumo: a Python loop stepping SUMO 5 s at a time, no control, no reads;
- the env with the fixed-time policy (the same signal plan as plain SUMO, so the same traffic):
  the ratio to plain libsumo is the environment's overhead;
- the env with random actions (as the issue asks; random switching congests the grid, so SUMO
  itself has more vehicles to move and this ratio mixes overhead with heavier traffic);
- sumo-rl with random actions, same files and seed, when it imports (its PyPI release 1.4.5 does
  not import with PettingZoo 1.27, which has no ``agent_selector``); otherwise why it is skipped.
"""

import argparse
import os
import platform
import subprocess
import time

import numpy as np

import envzoo  # noqa: F401
from envzoo.core.rollout import run_episode
from envzoo.registry import make_policy
from envzoo.traffic.parallel import TrafficGridEnv
from envzoo.traffic.scenarios import grid
from envzoo.traffic.sumo import sumo_binary


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def plain_sumo(scenario, seed: int) -> None:
    subprocess.run([sumo_binary(), *scenario.sumo_args(), "--seed", str(seed), "--no-step-log", "true",
                    "--no-warnings", "true", "--duration-log.disable", "true"], check=True, capture_output=True)


def plain_libsumo(scenario, seed: int, seconds: float) -> None:
    import libsumo

    libsumo.start([sumo_binary(), *scenario.sumo_args(), "--seed", str(seed), "--no-step-log", "true",
                   "--no-warnings", "true", "--duration-log.disable", "true"])
    try:
        for step in range(1, int(seconds / 5) + 1):
            libsumo.simulationStep(5.0 * step)
    finally:
        libsumo.close()


def env_episode(scenario, cycles: int, seed: int, policy_name: str | None) -> dict:
    env = TrafficGridEnv(scenario=scenario, max_cycles=cycles, backend="libsumo")
    try:
        if policy_name is not None:
            return run_episode(env, make_policy("envzoo/TrafficGrid-v0", policy_name, env), seed=seed).metrics
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        while env.agents:
            _, _, _, _, infos = env.step({a: int(rng.integers(env.action_space(a).n)) for a in env.agents})
        return next(iter(infos.values()))["metrics"]
    finally:
        env.close()


def sumo_rl_import_error() -> str | None:
    """Why sumo-rl cannot run here, or None when it imports."""
    # sumo_rl reads this at import time: run it on libsumo, like the env here.
    os.environ["LIBSUMO_AS_TRACI"] = "1"
    try:
        import sumo_rl  # noqa: F401
    except Exception as error:  # noqa: BLE001 - any import failure means the row is skipped
        return f"{type(error).__name__}: {error}"
    return None


def sumo_rl_episode(scenario, seconds: float, seed: int) -> None:
    """sumo-rl on libsumo with random actions, on the scenario's files."""
    import sumo_rl

    env = sumo_rl.parallel_env(net_file=str(scenario.net_file), route_file=",".join(map(str, scenario.route_files)),
                               num_seconds=int(seconds), delta_time=5, yellow_time=2, min_green=5, max_green=50,
                               sumo_seed=seed, use_gui=False)
    rng = np.random.default_rng(seed)
    try:
        env.reset(seed=seed)
        while env.agents:
            env.step({a: int(rng.integers(env.action_space(a).n)) for a in env.agents})
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    seconds = 3600.0 * args.hours
    scenario = grid(4, 4, duration=seconds)
    cycles = int(seconds / 5)
    print(f"4x4 grid, {args.hours:g} simulated hour(s), on {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs")
    base = timed(lambda: plain_sumo(scenario, args.seed))
    print(f"{'plain SUMO (binary)':>34}: {base:6.2f} s")
    loop = timed(lambda: plain_libsumo(scenario, args.seed, seconds))
    print(f"{'plain libsumo, 5 s steps':>34}: {loop:6.2f} s")
    results = {}
    for label, policy in (("env, fixed-time policy", "fixed-time"), ("env, random actions", None)):
        elapsed = timed(lambda policy=policy, label=label: results.__setitem__(
            label, env_episode(scenario, cycles, args.seed, policy)))
        metrics = results[label]
        print(f"{label:>34}: {elapsed:6.2f} s  ({elapsed / loop:.2f}x plain libsumo; mean delay "
              f"{metrics['mean_delay_s']:.0f} s, {metrics['running']:.0f} vehicles still running)")
    reason = sumo_rl_import_error()
    if reason is not None:
        print(f"{'sumo-rl, random actions':>34}: skipped, sumo_rl does not import ({reason})")
        return
    elapsed = timed(lambda: sumo_rl_episode(scenario, seconds, args.seed))
    print(f"{'sumo-rl, random actions':>34}: {elapsed:6.2f} s  ({elapsed / loop:.2f}x plain libsumo)")


if __name__ == "__main__":
    main()
