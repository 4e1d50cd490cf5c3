"""TextWorld-v1's custom ladder measured: per level, the walkthrough lengths of its first games and
the share of them that random admissible play, the goal-reading heuristic and the expert win
within the id's 100 steps (one episode per game and policy, seed = the game's index). The default
level is the easiest whose random admissible play wins at most 20 % and whose walkthroughs are all
at least 10 commands long; the table goes in TextWorld-v1's docstring.

Games are generated into the env's cache (about 2-10 s each, once) and played through
``games=[that file]``, so every game of a level is played, not a draw of the pool.

    PYTHONPATH=. python benchmarks/textworld_ladder.py [--games 50] [--first 0] [--levels 1 2 3 4 5 6 7 8]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import envzoo
from envzoo.tools.rollout import run_episode
from envzoo.text.tw.generator import ensure_game
from envzoo.text.tw.params import LADDER, make_params

ID = "envzoo/TextWorld-v1"
POLICIES = ("random-admissible", "heuristic", "expert")


def measure_level(level: int, games: int, first: int = 0) -> dict:
    """Walkthrough lengths and each policy's wins over ``games`` games of the level from game ``first``."""
    params = make_params(level=level, num_games=first + games)
    lengths, wins = [], {name: [] for name in POLICIES}
    for index in range(first, first + games):
        env = envzoo.make(ID, games=[ensure_game(params, index)])
        for name in POLICIES:
            result = run_episode(env, envzoo.make_policy(ID, name, env), seed=index)
            wins[name].append(result.metrics["success"])
        lengths.append(int(result.metrics["optimal_steps"]))
        env.close()
    return {"lengths": np.array(lengths), "success": {name: 100 * np.mean(won) for name, won in wins.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games per level (default 50)")
    parser.add_argument("--levels", type=int, nargs="+", default=list(range(1, len(LADDER) + 1)))
    parser.add_argument("--first", type=int, default=0, help="the first game's index (default 0)")
    args = parser.parse_args()
    print(f"games {args.first} to {args.first + args.games - 1} of each level, one episode each per policy, "
          f"{ID}'s 100 steps\n")
    print("| level | rooms, objects, quest | walkthrough min / mean / max | random admissible | heuristic | expert "
          "| seconds |")
    print("|---|---|---|---|---|---|---|")
    for level in args.levels:
        start = time.perf_counter()
        row = measure_level(level, args.games, args.first)
        lengths, success = row["lengths"], row["success"]
        rooms, objects, quest = LADDER[level - 1]
        print(f"| {level} | {rooms}, {objects}, {quest} | {lengths.min()} / {lengths.mean():.1f} / {lengths.max()} | "
              + " | ".join(f"{success[name]:.0f} %" for name in POLICIES)
              + f" | {time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
