"""MultiCrafter's cooperative teams and Crafter's speed against the ``crafter`` package.

1. Steps to the diamond: the scripted :class:`~envzoo.crafter.policies.CooperativeTeam` of 1, 2
   and 6 players on ``MultiCrafter-v1`` over the same seeds (the same world for every team size),
   sharing what they find (``split=False``) or also splitting the tech tree (``split=True``:
   suppliers bring the crafter coal and iron),
   until a player collects a diamond, every player is dead or ``--max-steps`` have passed. The
   table gives, per team size, how many seeds reached the diamond, the median steps of those, the
   mean with the seeds that did not counted at ``--max-steps`` (a lower bound on the true mean),
   and the reductions against one player next to DAMCS's (arXiv:2502.05453): 63 % fewer steps
   with two agents, 74 % with six.
2. Speed: env-steps per second of the ``crafter`` package 1.8.3 (one env, random actions, its
   64 x 64 image observation; run in its own interpreter, ``--crafter-python``, since it needs the
   old gym API) against envzoo's Crafter-v1 (one env, and the native vector env of ``--num-envs``,
   symbolic observations), rows taking turns (``side_by_side.py``).

The crafter package goes in a side virtualenv (it pins nothing that matters here, but keeps the
project's environment clean)::

    python -m venv /tmp/crafter-venv && /tmp/crafter-venv/bin/pip install crafter==1.8.3
    python crafter_agents.py --crafter-python /tmp/crafter-venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import gymnasium as gym
import numpy as np
from side_by_side import RowSkipped, Run, measure, table

import envzoo  # noqa: F401  (registers the ids)
from envzoo.crafter.parallel import MultiCrafterEnv
from envzoo.crafter.policies import CooperativeTeam

DAMCS_REDUCTION = {2: 63, 6: 74}  # % fewer steps than one agent, arXiv:2502.05453

_CRAFTER_RUN = """
import sys, time, json
import numpy as np, crafter
steps, seed = int(sys.argv[1]), int(sys.argv[2])
env = crafter.Env(seed=seed)
env.reset()
actions = np.random.default_rng(seed).integers(0, 17, steps)
episodes = 0
start = time.perf_counter()
for action in actions:
    _, _, done, _ = env.step(int(action))
    if done:
        env.reset()
        episodes += 1
print(json.dumps({"wall_s": time.perf_counter() - start, "episodes": episodes}))
"""


def steps_to_diamond(n_agents: int, seed: int, max_steps: int, split: bool) -> int | None:
    """The step of the team's first diamond (None: not within ``max_steps`` or all dead)."""
    env = MultiCrafterEnv(n_agents=n_agents)
    team = CooperativeTeam(env, split=split)
    observations, infos = env.reset(seed=seed)
    team.reset(seed)
    for _ in range(max_steps):
        observations, _, _, _, infos = env.step(team(observations, infos))
        first = infos["player_0"]["metrics"]["first_diamond_step"]
        if first >= 0:
            return int(first)
        if not env.agents:
            return None
    return None


def team_table(team_sizes, seeds, max_steps: int) -> str:
    """One row per team size and way of working: sharing only, and sharing with the split."""
    results = {}
    for split in (False, True):
        for n in team_sizes if split is False else team_sizes[1:]:
            started = time.perf_counter()
            results[n, split] = [steps_to_diamond(n, seed, max_steps, split) for seed in seeds]
            print(f"  {n} player(s), split={split}: {results[n, split]} ({time.perf_counter() - started:.0f} s)",
                  file=sys.stderr)
    lines = ["| players | team | seeds with a diamond | median steps (those seeds) | mean steps (others at the cap) "
             "| fewer steps than 1 player (means) | per seed, median of reductions | DAMCS |",
             "|---|---|---|---|---|---|---|---|"]
    base = [max_steps if s is None else s for s in results[team_sizes[0], False]]
    for (n, split), steps in results.items():
        reached = [s for s in steps if s is not None]
        capped = [max_steps if s is None else s for s in steps]
        median = f"{statistics.median(reached):.0f}" if reached else "-"
        fewer = 100 * (1 - np.mean(capped) / np.mean(base))
        per_seed = statistics.median(100 * (1 - c / b) for c, b in zip(capped, base))
        damcs = f"{DAMCS_REDUCTION[n]} %" if n in DAMCS_REDUCTION else "-"
        team = "sharing + split" if split else "sharing" if n > 1 else "alone"
        lines.append(f"| {n} | {team} | {len(reached)}/{len(seeds)} | {median} | {np.mean(capped):.0f} | "
                     f"{fewer:.0f} % | {per_seed:.0f} % | {damcs} |")
    return "\n".join(lines)


def crafter_row(python: str, steps: int):
    def run() -> Run:
        result = subprocess.run([python, "-c", _CRAFTER_RUN, str(steps), "0"], capture_output=True, text=True)
        if result.returncode != 0:
            raise RowSkipped(f"the crafter package did not run with {python}: {result.stderr.strip()[-200:]}")
        out = json.loads(result.stdout.strip().splitlines()[-1])
        return Run(out["wall_s"], {"env_steps": steps, "episodes": out["episodes"]})
    return run


def envzoo_single_row(steps: int):
    env = gym.make("envzoo/Crafter-v1")
    actions = np.random.default_rng(0).integers(0, 17, steps).tolist()

    def run() -> Run:
        env.reset(seed=0)
        episodes = 0
        start = time.perf_counter()
        for action in actions:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
                episodes += 1
        return Run(time.perf_counter() - start, {"env_steps": steps, "episodes": episodes})
    return run


def envzoo_vector_row(num_envs: int, steps: int):
    envs = gym.make_vec("envzoo/Crafter-v1", num_envs=num_envs)
    actions = np.random.default_rng(0).integers(0, 17, (steps, num_envs))

    def run() -> Run:
        envs.reset(seed=0)
        episodes = 0
        start = time.perf_counter()
        for batch in actions:
            _, _, terminated, truncated, _ = envs.step(batch)
            episodes += int(np.sum(terminated | truncated))
        return Run(time.perf_counter() - start, {"env_steps": steps * num_envs, "episodes": episodes})
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds of the team runs (0 .. seeds - 1)")
    parser.add_argument("--max-steps", type=int, default=3000, help="cap of a team run")
    parser.add_argument("--crafter-python", default=sys.executable, help="interpreter with crafter 1.8.3")
    parser.add_argument("--crafter-steps", type=int, default=2000)
    parser.add_argument("--single-steps", type=int, default=20000)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--vector-steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-teams", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    if not args.skip_teams:
        print(f"Steps to the first diamond, MultiCrafter-v1, CooperativeTeam, seeds 0-{args.seeds - 1}, "
              f"cap {args.max_steps}:")
        print(team_table((1, 2, 6), range(args.seeds), args.max_steps))
    if not args.skip_speed:
        rows = {"crafter 1.8.3, one env": crafter_row(args.crafter_python, args.crafter_steps),
                "envzoo Crafter-v1, one env": envzoo_single_row(args.single_steps),
                f"envzoo Crafter-v1, native vector env of {args.num_envs}":
                    envzoo_vector_row(args.num_envs, args.vector_steps)}
        envzoo_vector_row(args.num_envs, 2)()  # compile and warm up before timing
        runs, skipped = measure(rows, args.repeats)
        print(f"\nRandom actions, env-steps per second (minimum time of {args.repeats}):")
        print(table(runs, skipped, "crafter 1.8.3, one env", rate="env_steps", rate_unit="env-steps/s"))
        if "crafter 1.8.3, one env" not in skipped:
            def rate(label):
                best = min(runs[label], key=lambda r: r.wall_s)
                return best.counts["env_steps"] / best.wall_s
            base = rate("crafter 1.8.3, one env")
            for label in list(rows)[1:]:
                print(f"{label}: {rate(label) / base:.0f}x crafter's env-steps per second")


if __name__ == "__main__":
    main()
