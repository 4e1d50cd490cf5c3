"""Godot games over the loopback: handshake time and steps/s of the shipped Chase game on the
headless Godot 3 server and of the same game in pure Python: single env, PettingZoo squad, the
registered vector env (every game its own process, stepped concurrently from this process) and
the shared subprocess vector env (a worker process per game besides the game).

    python benchmarks/godot_loopback.py [--steps 3000] [--num-envs 4]
"""

import argparse
import shutil
import time

import gymnasium
import numpy as np

import envzoo  # noqa: F401  (registers the ids)
from envzoo.tools.throughput import gymnasium_rate, vector_rate
from envzoo.godot.env import ChaseEnv
from envzoo.godot.parallel import ChaseSquadEnv


def handshake_seconds(engine: str, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        env = ChaseEnv(engine=engine)
        times.append(env._game.bridge.handshake_seconds)
        env.close()
    return float(np.median(times))


def single_rate(engine: str, steps: int) -> float:
    env = ChaseEnv(engine=engine)
    try:
        return gymnasium_rate(env, steps)
    finally:
        env.close()


def squad_rate(engine: str, steps: int) -> float:
    env = ChaseSquadEnv(engine=engine)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    started = time.perf_counter()
    for _ in range(steps):
        env.step({agent: int(rng.integers(5)) for agent in env.agents})
        if not env.agents:
            env.reset()
    rate = steps / (time.perf_counter() - started)
    env.close()
    return rate


def godot_vector_rate(engine: str, steps: int, num_envs: int, subprocess: bool = False) -> float:
    if subprocess:
        vector = envzoo.make_subprocess_vec("envzoo/GodotChase-v0", num_envs, engine=engine)
    else:
        vector = gymnasium.make_vec("envzoo/GodotChase-v0", num_envs=num_envs, engine=engine)
    return vector_rate(vector, steps // num_envs)  # closes the vector env


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--num-envs", type=int, default=4)
    args = parser.parse_args()
    engines = ["python"] + (["godot"] if shutil.which("godot3-server") else [])
    n = args.num_envs
    print("| engine | handshake (launch to env_info) | single env steps/s | squad (3 agents) steps/s | "
          f"vector env N = {n} env-steps/s | subprocess vector env N = {n} env-steps/s |")
    print("|---|---|---|---|---|---|")
    for engine in engines:
        print(f"| {engine} | {handshake_seconds(engine) * 1000:.0f} ms | {single_rate(engine, args.steps):,.0f} | "
              f"{squad_rate(engine, args.steps):,.0f} | {godot_vector_rate(engine, args.steps, n):,.0f} | "
              f"{godot_vector_rate(engine, args.steps, n, subprocess=True):,.0f} |")


if __name__ == "__main__":
    main()
