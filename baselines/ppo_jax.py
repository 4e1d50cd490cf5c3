"""PPO in JAX (envzoo.train.ppo_jax) on an id with a JAX backend, trained entirely inside one
jitted function on JAX's default device; prints the learning curve, the wall time and the trained
policy's score next to the id's reference policies, and writes it all to a JSON file.

    python baselines/ppo_jax.py envzoo/MarketMakingAS-v1 --timesteps 5000000 --seed 0
    python baselines/ppo_jax.py envzoo/Serverless-v1 --timesteps 2000000 --num-envs 256 --num-steps 90

The trained policy acts deterministically (the Gaussian's mean, the most likely level) and is
scored on ``--eval-episodes`` episodes from keys disjoint from training; the reference policies
run on the CPU env (``envzoo eval``'s rollout) on ``--reference-episodes`` seeds.
"""

import argparse
import json
import platform
import time
from pathlib import Path

import jax
import numpy as np

import envzoo
import envzoo.jax
from envzoo.tools.rollout import evaluate as evaluate_on_cpu
from envzoo.tools.rollout import summarize
from envzoo.train.ppo_jax import PPOConfig, act, evaluate, train


def reference_scores(env_id: str, episodes: int) -> dict[str, tuple[float, float]]:
    """Mean and standard deviation of the return of every reference policy of ``env_id``."""
    scores = {}
    for ref in envzoo.env_info(env_id).policies:
        results = evaluate_on_cpu(lambda ref=ref: envzoo.make(env_id, **ref.env_kwargs),
                                  lambda env, name=ref.name: envzoo.make_policy(env_id, name, env),
                                  episodes=episodes, seed=10_000)
        scores[ref.name] = summarize(results)["return"]
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("env_id", choices=envzoo.jax.ids())
    parser.add_argument("--timesteps", type=int, default=2_000_000)
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--num-steps", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-episodes", type=int, default=1000)
    parser.add_argument("--reference-episodes", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None, help="JSON file (default: ppo_jax_<Name>_seed<S>.json)")
    args = parser.parse_args()

    entry = envzoo.env_info(args.env_id)
    env, params = envzoo.jax.make(args.env_id)
    config = PPOConfig(total_timesteps=args.timesteps, num_envs=args.num_envs, num_steps=args.num_steps)
    device = str(jax.devices()[0])
    print(f"{args.env_id}: PPO for {config.num_updates * config.num_envs * config.num_steps:,} steps on {device}")
    result = train(env, params, config, jax.random.key(args.seed), reward_scale=entry.reward_scale or 1.0)
    steps = result.curve["env_steps"]
    print(f"wall time {result.wall_seconds:.1f} s ({steps[-1] / result.wall_seconds:,.0f} env-steps/s, "
          "compilation included)")
    for chunk in np.array_split(np.arange(len(steps)), min(20, len(steps))):
        finished = result.curve["episode_return"][chunk]
        shown = f"{np.nanmean(finished):10.2f}" if np.isfinite(finished).any() else "         –"
        print(f"  {steps[chunk[-1]]:>12,} steps  mean episode return {shown}")
    horizon = env.max_episode_steps or 10_000
    returns = evaluate(env, params, act(env, result), jax.random.key(10_000 + args.seed), args.eval_episodes, horizon)
    print(f"trained policy, deterministic, {args.eval_episodes} episodes: {returns.mean():.2f} ± {returns.std():.2f}")
    references = reference_scores(args.env_id, args.reference_episodes)
    for name, (mean, std) in references.items():
        print(f"reference {name}, {args.reference_episodes} episodes: {mean:.2f} ± {std:.2f}")

    out = args.out or Path(f"ppo_jax_{args.env_id.split('/')[-1]}_seed{args.seed}.json")
    record = {"env_id": args.env_id, "seed": args.seed, "device": device, "date": time.strftime("%Y-%m-%d"),
              "machine": platform.machine(), "versions": {"envzoo": envzoo.__version__, "jax": jax.__version__},
              "config": result.config, "wall_seconds": result.wall_seconds,
              "curve": {name: [None if not np.isfinite(v) else float(v) for v in values]
                        for name, values in result.curve.items()},
              "evaluation": {"episodes": args.eval_episodes, "mean": float(returns.mean()),
                             "std": float(returns.std())},
              "references": {name: {"episodes": args.reference_episodes, "mean": mean, "std": std}
                             for name, (mean, std) in references.items()}}
    out.write_text(json.dumps(record, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
