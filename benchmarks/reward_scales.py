"""The reward scale of every id: the root mean square of the per-step reward (per objective for
multi-objective ids) and the mean episode return, under random actions and each reference
policy, over a few seeded episodes at the default arguments. The registry's ``reward_scale`` is
the median over the policies of the per-step RMS, at one significant figure
(:func:`envzoo.tools.reward_scale.measure_reward_scale`); ``envzoo.make(id, scale_reward=True)``
divides rewards by it.

    python benchmarks/reward_scales.py [--episodes 2] [--max-steps 200] [IDS ...]
"""

from __future__ import annotations

import argparse

import numpy as np

import envzoo
from envzoo.tools.reward_scale import median_step_rms, policy_reward_sizes


def _fmt(values) -> str:
    return " ".join(f"{v:.3g}" for v in np.atleast_1d(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="ids to measure (default: every installed id)")
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--max-steps", type=int, default=200)
    args = parser.parse_args()
    entries = [envzoo.env_info(i) for i in args.ids] or envzoo.list_envs(installed=True)
    print(f"{args.episodes} episode(s) of at most {args.max_steps} steps per policy")
    print("| id | policy | per-step RMS | mean return | median RMS | registry reward_scale |")
    print("|---|---|---|---|---|---|")
    for entry in entries:
        sizes = policy_reward_sizes(entry.id, args.episodes, args.max_steps)
        median = median_step_rms(sizes)
        for name, (policy_rms, total) in sizes.items():
            print(f"| {entry.id} | {name} | {_fmt(policy_rms)} | {_fmt(total)} | {_fmt(median)} | "
                  f"{_fmt(entry.reward_scale)} |", flush=True)


if __name__ == "__main__":
    main()
