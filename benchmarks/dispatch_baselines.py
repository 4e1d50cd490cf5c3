"""MaskablePPO (sb3-contrib, with the action masks) on Dispatch-v0 and DispatchRelocate-v0
against nearest-available dispatch and the MEXCLP plan, in the OPTIC-ER-like setting
(``envzoo.dispatch.params.OPTIC_ER_LIKE``): the optimality rate (the chosen unit is the fastest
free one by the atlas) and mean and 90th-percentile response time over held-out episodes of
500 decisions (seeds no training episode used), with 95 % confidence intervals over episodes.

For a one-call dispatch, nearest-available is optimal by the optimality-rate definition: its
rate is 1 by construction, and a learner can at best equal it there. Learning can beat the
greedy rule only where the decision looks ahead: holding a minor call to keep a unit for an
urgent one, or moving free units to cover the region (DispatchRelocate-v0).

    python -m benchmarks.dispatch_baselines [--timesteps 30000] [--seeds 2] [--episodes 5]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import envzoo
from envzoo.dispatch.params import OPTIC_ER_LIKE
from envzoo.dispatch.policies import MexclpRelocation, NearestAvailable, mexclp_plan
from envzoo.train.sb3 import InfoActionMask

HELD_OUT_SEED = 10_000
DECISIONS = 500


def evaluate(env_id: str, act, episodes: int, **kwargs) -> list[dict]:
    env = gym.make(env_id, max_episode_steps=DECISIONS, **{**OPTIC_ER_LIKE, **kwargs})
    results = []
    for episode in range(episodes):
        observation, info = env.reset(seed=HELD_OUT_SEED + episode)
        for _ in range(DECISIONS):
            observation, _, terminated, truncated, info = env.step(act(env, observation, info))
            if terminated or truncated:
                break
        results.append(env.unwrapped.episode_metrics())
    return results


def policy_actor(policy_class, **policy_kwargs):
    cache = {}

    def act(env, observation, info):
        if env not in cache:
            cache[env] = policy_class(env, **policy_kwargs)
        return cache[env](observation, info)
    return act


def summary(name: str, env_id: str, results: list[dict]) -> str:
    cells = []
    for key in ("optimality_rate", "mean_response_min", "p90_response_min", "lost_fraction"):
        values = np.array([r[key] for r in results])
        half = 1.96 * values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
        cells.append(f"{values.mean():.3f} ± {half:.3f}")
    return f"| {env_id} | {name} | " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=30_000)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=5)
    args = parser.parse_args()
    from sb3_contrib import MaskablePPO

    plan = mexclp_plan(gym.make("envzoo/Dispatch-v0", **OPTIC_ER_LIKE).unwrapped.params)
    rows = [summary("nearest-available", "Dispatch-v0",
                    evaluate("envzoo/Dispatch-v0", policy_actor(NearestAvailable), args.episodes)),
            summary(f"MEXCLP plan {tuple(int(u) for u in plan)} + nearest", "Dispatch-v0",
                    evaluate("envzoo/Dispatch-v0", policy_actor(NearestAvailable), args.episodes,
                             units_per_station=tuple(int(u) for u in plan))),
            summary("mexclp-relocation", "DispatchRelocate-v0",
                    evaluate("envzoo/DispatchRelocate-v0", policy_actor(MexclpRelocation), args.episodes))]
    for env_id in ("envzoo/Dispatch-v0", "envzoo/DispatchRelocate-v0"):
        results, seconds = [], 0.0
        for seed in range(args.seeds):
            train_env = InfoActionMask(envzoo.make(env_id, max_episode_steps=DECISIONS, scale_reward=True,
                                                 **OPTIC_ER_LIKE))
            start = time.perf_counter()
            # n_steps 512 (not 2048): several updates even at a small budget.
            model = MaskablePPO("MlpPolicy", train_env, n_steps=512, seed=seed, verbose=0).learn(args.timesteps)
            seconds += time.perf_counter() - start

            def act(env, observation, info, model=model):
                return model.predict(observation, action_masks=info["action_mask"], deterministic=True)[0]
            results += evaluate(env_id, act, args.episodes)
        rows.append(summary(f"MaskablePPO {args.timesteps} steps × {args.seeds} seeds ({seconds:.0f} s)",
                            env_id.split("/")[1], results))
    print("| id | policy | optimality rate | mean response (min) | p90 response (min) | lost fraction |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
