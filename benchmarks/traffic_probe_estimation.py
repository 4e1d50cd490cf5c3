"""Queue estimation error of envzoo/TrafficRegion-v0 against probe penetration, on the default 4x4
grid with the fixed-time policy, and the wall time of each run (quick figures, one seed).

    python benchmarks/traffic_probe_estimation.py [--decisions 360] [--seed 0] [--scenario grid4x4]

Prints per penetration: the mean absolute error of the estimated link queues (vehicles per link,
averaged over links and decisions), the mean true queue per link for scale, and seconds taken.
"""

import argparse
import time

import numpy as np

import envzoo  # noqa: F401
import gymnasium
from envzoo.registry import make_policy

PENETRATIONS = (1.0, 0.3, 0.1, 0.05)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=360)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scenario", default="grid4x4")
    args = parser.parse_args()
    print(f"scenario {args.scenario}, {args.decisions} decisions of 5 s, fixed-time policy, seed {args.seed}")
    print("penetration  MAE(veh/link)  mean true queue(veh/link)  seconds")
    for penetration in PENETRATIONS:
        env = gymnasium.make("envzoo/TrafficRegion-v0", scenario=args.scenario, penetration=penetration,
                             max_episode_steps=args.decisions)
        start = time.perf_counter()
        policy = make_policy("envzoo/TrafficRegion-v0", "fixed-time", env)
        observation, info = env.reset(seed=args.seed)
        true, done = [], False
        while not done:
            observation, _, terminated, truncated, info = env.step(policy(observation, info))
            true.append(env.unwrapped.task.true.mean())
            done = terminated or truncated
        seconds = time.perf_counter() - start
        env.close()
        print(f"{penetration:11.2f}  {info['metrics']['queue_estimation_mae']:13.3f}  {np.mean(true):25.3f}  {seconds:7.1f}")


if __name__ == "__main__":
    main()
