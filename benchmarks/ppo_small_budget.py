"""Stable-Baselines3 PPO with its default hyperparameters at a small budget on every single-agent
id, against random actions and the reference policies: the mean episode return over evaluation
episodes on seeds no training episode used (and the test split where the id has one).

PPO trains on rewards divided by the registry's ``reward_scale`` (``scale_reward=True``); every
return printed is in the env's own units. Portfolio-v1 is trained on its flat observation (one
``Box``, for ``MlpPolicy``). This is a small-budget check of learnability, not a leaderboard.
The test splits of Portfolio-v1 and Trading-v1 are one fixed period, and a seeded reset of
MarketMaking-v1's test split starts at its first test day, so their evaluation episodes repeat
one episode (a spread of 0 for deterministic policies).

    pip install ".[train]"   # on Linux without a GPU, PyTorch's CPU build first (see README)
    python benchmarks/ppo_small_budget.py [--timesteps 20000] [--episodes 5] [IDS ...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import envzoo
from envzoo.core.policy import RandomPolicy, TrainedPolicy
from envzoo.tools.rollout import evaluate, mean_and_std

#: Arguments each id is trained and evaluated with besides its defaults.
TRAIN_KWARGS = {"envzoo/Portfolio-v1": {"observation": "flat"}}
#: Arguments of the evaluation episodes only: the held-out data of the ids that have a split.
EVAL_KWARGS = {"envzoo/Portfolio-v1": {"split": "test"}, "envzoo/Trading-v1": {"split": "test"},
               "envzoo/MarketMaking-v1": {"split": "test"}}
EVAL_SEED = 10_000  # evaluation episodes use seeds from here; training starts from seed 0


def _returns(entry, make_policy, env_kwargs: dict, episodes: int) -> np.ndarray:
    results = evaluate(lambda: envzoo.make(entry.id, **env_kwargs), make_policy, episodes, EVAL_SEED)
    return np.array([result.episode_return for result in results])


def run(entry, timesteps: int, episodes: int) -> list[tuple[str, np.ndarray]]:
    """(name, evaluation returns) of random actions, each reference policy and PPO."""
    from stable_baselines3 import PPO

    train_kwargs = TRAIN_KWARGS.get(entry.id, {})
    eval_kwargs = {**train_kwargs, **EVAL_KWARGS.get(entry.id, {})}
    rows = [("random", _returns(entry, RandomPolicy, eval_kwargs, episodes))]
    for ref in entry.policies:
        if ref.installed and not ref.env_kwargs and ref.name != "random":
            rows.append((ref.name, _returns(entry, lambda env, name=ref.name: envzoo.make_policy(entry.id, name, env),
                                            eval_kwargs, episodes)))
    env = envzoo.make(entry.id, scale_reward=True, **train_kwargs)
    model = PPO("MlpPolicy", env, seed=0, verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    seconds = time.perf_counter() - start
    env.close()
    rows.append((f"ppo ({seconds:.0f} s)", _returns(entry, lambda env: TrainedPolicy(env, model), eval_kwargs,
                                                   episodes)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="single-agent ids (default: every installed gymnasium-kind id)")
    parser.add_argument("--timesteps", type=int, default=20_000, help="PPO training steps per id (20000)")
    parser.add_argument("--episodes", type=int, default=5, help="evaluation episodes per policy (5)")
    args = parser.parse_args()
    entries = [envzoo.env_info(i) for i in args.ids] or envzoo.list_envs(kind="gymnasium", installed=True)
    print(f"PPO (SB3 defaults, MlpPolicy, seed 0) after {args.timesteps:,} steps; {args.episodes} evaluation "
          f"episodes per policy from seed {EVAL_SEED}; mean ± std of the episode return")
    print("| id | policy | return | vs random |")
    print("|---|---|---|---|")
    for entry in entries:
        rows = run(entry, args.timesteps, args.episodes)
        floor = rows[0][1].mean()
        for name, returns in rows:
            mean, std = mean_and_std(returns)
            print(f"| {entry.id} | {name} | {mean:.4g} ± {std:.2g} | {mean - floor:+.4g} |", flush=True)


if __name__ == "__main__":
    main()
