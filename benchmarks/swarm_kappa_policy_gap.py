"""The return a textbook controller loses when it acts on κ-subsampled mean fields instead of
the exact one, against κ: a stand-in for the GMFS experiment (there a policy learnt by PPO with
parameter sharing; here each scenario's reference controller, unlearnt, so the gap is the
subsample's alone).

    python benchmarks/swarm_kappa_policy_gap.py [--agents 64] [--seeds 8]

Every (scenario, κ, seed) plays one whole SwarmParallel-v0 episode (200 steps) with the
scenario's reference controller on ``observation="subsample", kappa=κ``, against the same seed
(the same types and start) on the exact mean field; the gap is the exact episode's mean
per-agent return minus the subsampled one's, averaged over seeds (± its standard error), and
the log-log slope of its size in κ is fitted. The reward is the task score alone (weights
(1, 0, 0)), which the controllers aim at; ``--all-objectives`` takes the default weights, under
which the subsample's noise can pay (it keeps consensus from gathering robots until they touch).
"""

from __future__ import annotations

import argparse

import numpy as np

import envzoo
from envzoo.swarm.policies import LinearConsensus, PotentialFieldCoverage, ReynoldsFlocking

KAPPAS = (1, 2, 4, 8, 16, 32)
CONTROLLERS = {"rendezvous": LinearConsensus, "flocking": ReynoldsFlocking, "coverage": PotentialFieldCoverage}


def episode_return(scenario: str, agents: int, seed: int, kappa: int | None, weights) -> float:
    kwargs = {"observation": "subsample", "kappa": kappa} if kappa else {}
    env = envzoo.make("envzoo/SwarmParallel-v0", scenario=scenario, n_agents=agents, reward_weights=weights,
                      **kwargs)
    observations, infos = env.reset(seed=seed)
    policy = CONTROLLERS[scenario](env)
    total = 0.0
    while env.agents:
        observations, rewards, _, _, infos = env.step(policy(observations, infos))
        total += np.mean(list(rewards.values()))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=64)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--all-objectives", action="store_true",
                        help="the default reward (task, energy, collisions); by default the task score only, "
                             "which the controllers aim at")
    args = parser.parse_args()
    weights = (1.0, 0.05, 0.1) if args.all_objectives else (1.0, 0.0, 0.0)
    seeds = range(args.seeds)
    print(f"N = {args.agents}, {args.seeds} seeds, reward weights {weights}; "
          "gap = exact return − subsampled return (mean ± s.e.)")
    print("| scenario | exact return | " + " | ".join(f"κ={k}" for k in KAPPAS) + " | slope |")
    print("|---" * (len(KAPPAS) + 3) + "|")
    for scenario in CONTROLLERS:
        exact = np.array([episode_return(scenario, args.agents, seed, None, weights) for seed in seeds])
        gaps = np.array([[exact[s] - episode_return(scenario, args.agents, seed, k, weights) for s, seed in enumerate(seeds)]
                         for k in KAPPAS])
        mean, error = gaps.mean(1), gaps.std(1, ddof=1) / np.sqrt(len(seeds))
        slope = np.polyfit(np.log(KAPPAS), np.log(np.abs(mean)), 1)[0]
        print(f"| {scenario} | {exact.mean():.2f} | " + " | ".join(f"{m:.3g} ± {e:.2g}" for m, e in zip(mean, error))
              + f" | {slope:.2f} |", flush=True)


if __name__ == "__main__":
    main()
