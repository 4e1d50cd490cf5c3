"""The GMFS experiment on the swarm: PPO with parameter sharing on the exact graphon mean field
and on κ-subsamples, the gap of the learnt policies against κ.

    python benchmarks/swarm_gmfs.py [--agents 16] [--kappas 1 2 4 8 16 32] [--seeds 0 1 2]
        [--timesteps 40960] [--results benchmarks/results/swarm-gmfs] [--plot docs/images/swarm_gmfs.png]

Every (observation, seed) is one ``envzoo train envzoo/SwarmParallel-v0 --algo ppo`` run
(Stable-Baselines3 PPO, one network shared by all robots: :mod:`envzoo.train.agents_as_envs`),
``rendezvous`` with N = ``--agents`` robots, the reward its task score and energy (weights
(1, 0.05, 0)), 50-step episodes; each run writes its leaderboard result file (its final
evaluation: 5 episodes on the leaderboard's seeds, the policy acting on the observation it was
trained on) into ``--results``. κ larger than N − 1 is left out (the subsample draws from the
other N − 1).

The gap of κ is the exact-mean-field policy's mean return minus the κ-policy's (means over
seeds; its standard error from the seeds' spread); the slope of log gap against log κ is fitted
over the κ with a positive gap, with a 95 % interval from resampling the seeds (bootstrap).
The runs' wall time per update (training and its one curve evaluation, over its PPO updates)
follows the shared machine's load as much as κ; ``--time-updates N ...`` also times single PPO
updates in this process for every κ and each population size N, interleaved over
``--rounds`` rounds (the fastest kept) so that the load falls on every cell alike. Prints
markdown tables; ``--plot`` draws the gap and the time per update against κ.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from envzoo.leaderboard.results import load

ENV_ID = "envzoo/SwarmParallel-v0"
N_STEPS, BATCH = 128, 256  # per robot slot, per minibatch


def hyperparams(agents: int, kappa: int | None, timesteps: int) -> dict:
    observation = {"observation": "subsample", "kappa": kappa} if kappa else {}
    return {ENV_ID: {"n_timesteps": timesteps, "policy": "MlpPolicy", "n_steps": N_STEPS, "batch_size": BATCH,
                     "eval_episodes": 5, "curve_points": 1, "curve_episodes": 2, "torch_threads": 1,
                     "env_kwargs": {"scenario": "rendezvous", "n_agents": agents, "reward_weights": [1.0, 0.05, 0.0],
                                    "max_cycles": 50, **observation}}}


def train(agents: int, kappa: int | None, seed: int, timesteps: int, results: Path, runs: Path) -> dict:
    """One run through ``envzoo train`` (kept: a result file already in ``results`` is read, not
    trained again); its final evaluation's mean return and wall time."""
    label = f"kappa{kappa}" if kappa else "exact"
    folder = results / label
    written = folder / ENV_ID.split("/")[1] / f"sb3-ppo-seed{seed}.json"
    if not written.is_file():
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as config:
            json.dump(hyperparams(agents, kappa, timesteps), config)  # YAML reads JSON
        subprocess.run([sys.executable, "-m", "envzoo", "train", ENV_ID, "--algo", "ppo", "--seed", str(seed),
                        "--hyperparams", config.name, "--results", str(folder),
                        "--run-dir", str(runs / f"{label}-seed{seed}")], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    result = load(written)
    return {"return": result.evaluation.mean_return, "wall_seconds": result.wall_seconds,
            "updates": -(-result.timesteps // (N_STEPS * agents))}


def update_seconds(sizes, kappas, rounds: int) -> dict:
    """{(N, κ): the fastest of ``rounds`` single PPO updates (a rollout of N_STEPS per robot and
    the gradient epochs) of a shared policy on SwarmParallel-v0; κ = 0 the exact mean field}."""
    import torch
    from stable_baselines3 import PPO

    import envzoo
    from envzoo.train.agents_as_envs import AgentsVecEnv

    torch.set_num_threads(1)
    models = {}
    for n in sizes:
        for kappa in [0, *(k for k in kappas if k <= n - 1)]:
            kwargs = hyperparams(n, int(kappa) or None, 0)[ENV_ID]["env_kwargs"]
            models[n, kappa] = PPO("MlpPolicy", AgentsVecEnv(envzoo.make(ENV_ID, **kwargs)), n_steps=N_STEPS,
                                   batch_size=BATCH, seed=0, verbose=0)
    seconds = {key: [] for key in models}
    for _ in range(rounds):  # interleaved: every cell sees the machine's load alike
        for (n, kappa), model in models.items():
            start = time.perf_counter()
            model.learn(N_STEPS * n, reset_num_timesteps=False)
            seconds[n, kappa].append(time.perf_counter() - start)
    return {key: min(values) for key, values in seconds.items()}


def fitted_slope(kappas, gaps_by_seed, rng, draws: int = 2000):
    """The least-squares slope of log mean gap against log κ (κ with a positive mean gap), and
    its 95 % bootstrap interval over seeds."""
    def slope(gaps):
        mean = gaps.mean(0)
        keep = mean > 0
        return np.polyfit(np.log(kappas[keep]), np.log(mean[keep]), 1)[0] if keep.sum() >= 2 else np.nan
    samples = [slope(gaps_by_seed[rng.integers(0, len(gaps_by_seed), len(gaps_by_seed))]) for _ in range(draws)]
    return slope(gaps_by_seed), np.nanpercentile(samples, [2.5, 97.5])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=16)
    parser.add_argument("--kappas", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--timesteps", type=int, default=40_960, help="robot-steps per run")
    parser.add_argument("--results", type=Path, default=Path("benchmarks/results/swarm-gmfs"))
    parser.add_argument("--runs", type=Path, default=Path(tempfile.gettempdir()) / "swarm-gmfs-runs")
    parser.add_argument("--plot", type=Path)
    parser.add_argument("--time-updates", type=int, nargs="*", default=[], metavar="N",
                        help="also time single PPO updates at these population sizes")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    kappas = np.array([k for k in args.kappas if k <= args.agents - 1])
    runs = {kappa: [train(args.agents, int(kappa) or None, seed, args.timesteps, args.results, args.runs)
                    for seed in args.seeds] for kappa in [0, *kappas]}
    returns = {kappa: np.array([run["return"] for run in done]) for kappa, done in runs.items()}
    per_update = {kappa: np.mean([run["wall_seconds"] / run["updates"] for run in done]) for kappa, done in runs.items()}
    gaps = np.stack([returns[0] - returns[k] for k in kappas], 1)  # (seeds, κ): same seed, exact − κ
    slope, (low, high) = fitted_slope(kappas, gaps, np.random.default_rng(0))
    print(f"{ENV_ID} rendezvous, N = {args.agents}, {args.timesteps:,} robot-steps per run, seeds {args.seeds}")
    print("| observation | mean return | gap to exact (± s.e.) | wall s per update |")
    print("|---|---|---|---|")
    print(f"| exact | {returns[0].mean():.4g} | — | {per_update[0]:.3g} |")
    for i, kappa in enumerate(kappas):
        error = gaps[:, i].std(ddof=1) / np.sqrt(len(gaps)) if len(gaps) > 1 else np.nan
        print(f"| κ = {kappa} | {returns[kappa].mean():.4g} | {gaps[:, i].mean():.3g} ± {error:.2g} | "
              f"{per_update[kappa]:.3g} |")
    print(f"log-log slope of the gap in κ: {slope:.2f} (95 % bootstrap interval {low:.2f}, {high:.2f}); "
          "the theory's O(1/√κ): −0.5")
    timed = update_seconds(args.time_updates, kappas, args.rounds) if args.time_updates else {}
    if timed:
        print("\nseconds per PPO update, the fastest of", args.rounds, "interleaved rounds:")
        print("| observation | " + " | ".join(f"N = {n}" for n in args.time_updates) + " |")
        print("|---" * (len(args.time_updates) + 1) + "|")
        for kappa in [0, *kappas]:
            cells = [f"{timed[n, kappa]:.3g}" if (n, kappa) in timed else "—" for n in args.time_updates]
            print(f"| {f'κ = {kappa}' if kappa else 'exact'} | " + " | ".join(cells) + " |")
    if args.plot:
        plot(args.plot, kappas, gaps, {n: [timed.get((n, k), np.nan) for k in [0, *kappas]] for n in args.time_updates}
             or {"runs": [per_update[k] for k in [0, *kappas]]}, slope)


def plot(path: Path, kappas, gaps, per_update: dict, slope) -> None:
    """The gap against κ (left) and the seconds per update against κ, one line per N (right;
    the exact mean field dashed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    mean = gaps.mean(0)
    error = gaps.std(0, ddof=1) / np.sqrt(len(gaps)) if len(gaps) > 1 else np.zeros_like(mean)
    left.errorbar(kappas, mean, yerr=error, marker="o", capsize=3, label=f"PPO, shared policy (slope {slope:.2f})")
    positive = mean > 0
    if positive.any():
        anchor = mean[positive][0] * np.sqrt(kappas[positive][0])
        left.plot(kappas, anchor / np.sqrt(kappas), "--", color="grey", label="1/√κ")
    left.axhline(0, color="black", linewidth=0.5)
    left.set_xscale("log", base=2)
    left.set_xlabel("κ (agents subsampled)")
    left.set_ylabel("return gap to the exact-mean-field policy")
    left.legend(fontsize=8)
    for (label, seconds), colour in zip(per_update.items(), ("C0", "C1", "C2", "C3"), strict=False):
        name = f"N = {label}" if label != "runs" else "the runs (under load)"
        right.plot(kappas, seconds[1:], marker="o", color=colour, label=f"{name}, κ-subsample")
        right.axhline(seconds[0], color=colour, linestyle="--", label=f"{name}, exact")
    right.set_xscale("log", base=2)
    right.set_xlabel("κ")
    right.set_ylabel("wall seconds per PPO update")
    right.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
