"""Reference policies of CollisionAvoidance-v1 and Constellation-v1: collisions and fuel.

Prints, per scenario family and policy, the collision rate and the mean Δv over one episode in
each of N sub-envs of the native vector env (seeds 0..N-1), then the same for N / 5
constellation episodes. Quick figures, not a benchmark of record:
``python benchmarks/orbital_policies.py [episodes]``.
"""

from __future__ import annotations

import sys
import time

import gymnasium
import numpy as np

import envzoo  # noqa: F401  (registers the ids)

from envzoo.orbital.parallel import ConstellationEnv
from envzoo.orbital.policies import (
    ConstellationNoManeuver, ConstellationOperatorRule, EarlyCautious, LateManeuver, NoManeuver, OperatorRule,
)

SCENARIOS = {
    # Designed misses under the hard-body radius and little process noise: collisions happen
    # unless the policy burns.
    "near-miss": {"scenario": {"n_debris": 1, "miss_distance_range": (0.0, 10.0)},
                  "tracking": {"velocity_noise": (1e-5, 4e-5, 1e-5)}},
    "default": {},
}
POLICIES = {"no-maneuver": NoManeuver, "operator": OperatorRule, "early-cautious": EarlyCautious,
            "late-maneuver": LateManeuver}


def first_episodes(env, policy, seed: int) -> dict[str, np.ndarray]:
    """Metrics of the first episode of every sub-env."""
    observations, _ = env.reset(seed=seed)
    finished = np.zeros(env.num_envs, dtype=bool)
    metrics: dict[str, np.ndarray] = {}
    while not finished.all():
        actions = np.array([policy(row, {}) for row in observations])
        observations, _, terminated, truncated, info = env.step(actions)
        done = (terminated | truncated) & ~finished
        for name, values in info.get("final_info", {}).get("metrics", {}).items():
            if not name.startswith("_"):
                metrics.setdefault(name, np.zeros(env.num_envs))[done] = values[done]
        finished |= done
    return metrics


def main(episodes: int) -> None:
    print(f"{episodes} episodes per row (seeds 0..{episodes - 1}); collisions per episode, mean Δv")
    for scenario, kwargs in SCENARIOS.items():
        env = gymnasium.make_vec("envzoo/CollisionAvoidance-v1", num_envs=episodes, **kwargs)
        for name, policy_class in POLICIES.items():
            started = time.perf_counter()
            metrics = first_episodes(env, policy_class(env), seed=0)
            print(f"{scenario:>10} {name:>15}: collision rate {np.mean(metrics['collisions'] > 0):6.3f}  "
                  f"Δv {metrics['delta_v_used_mps'].mean():.3f} m/s  max Pc (median) "
                  f"{np.median(metrics['max_pc']):.1e}  time off slot {metrics['time_off_slot_h'].mean():.2f} h  "
                  f"({time.perf_counter() - started:.1f} s)")


def constellation(episodes: int) -> None:
    env = ConstellationEnv()
    print(f"Constellation-v1 ({len(env.possible_agents)} satellites, 1 debris each), {episodes} episodes")
    for name, policy_class in (("no-maneuver", ConstellationNoManeuver), ("operator", ConstellationOperatorRule)):
        policy = policy_class(env)
        started, collided, fuel = time.perf_counter(), 0, 0.0
        for seed in range(episodes):
            observations, infos = env.reset(seed=seed)
            while env.agents:
                observations, _, _, _, infos = env.step(policy(observations, infos))
            collided += any(info["metrics"]["collisions"] > 0 for info in infos.values())
            fuel += sum(info["metrics"]["delta_v_used_mps"] for info in infos.values())
        print(f"{name:>15}: episodes with a collision {collided / episodes:6.3f}  Δv per episode (all "
              f"satellites) {fuel / episodes:.3f} m/s  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    main(count)
    constellation(max(count // 5, 1))
