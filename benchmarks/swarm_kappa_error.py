"""The κ-subsample's error against the exact graphon mean field, per graphon: the root mean
square error over agents and features shrinks like κ^(-1/2) (fitted slope, with a bootstrap
95 % interval over the draws), and its mean (the bias) stays within noise: the mean |z| of the
mean error over (agent, feature) cells is sqrt(2/π) = 0.80 for an unbiased estimator.

    python benchmarks/swarm_kappa_error.py [--agents 200] [--draws 300] [--plot docs/images/swarm_kappa_error.png]

The state: a flocking population after 20 steps of Reynolds flocking; every estimate is of the
nine estimated features (the degree is exact), each scaled by its exact values' spread.
"""

from __future__ import annotations

import argparse

import numpy as np

from envzoo.swarm.controls import reference_control
from envzoo.swarm.graphon import GRAPHONS
from envzoo.swarm.params import make_params
from envzoo.swarm.sim import SwarmSim

KAPPAS = np.array([1, 2, 4, 8, 16, 32, 64])
OPTIONS = {"exponential": {"length": 0.2}, "threshold": {"theta": 1.0}}


def errors(graphon: str, agents: int, draws: int) -> tuple[np.ndarray, np.ndarray]:
    """Squared errors (κ, draws) averaged over agents and features, and the mean z of the bias."""
    sim = SwarmSim(make_params(n_agents=agents, graphon=graphon, graphon_options=OPTIONS.get(graphon)), 1)
    sim.reset(np.array([0]), np.array([11], dtype=np.uint64))
    for _ in range(20):
        own = np.concatenate([sim.types[..., None], sim.position, sim.velocity], -1)
        sim.step(reference_control(own, sim.mean_field, sim.params))
    exact = sim.mean_field[0][:, 1:]
    scale = exact.std(0)
    squared, bias = [], []
    for kappa in KAPPAS:
        estimates = np.stack([sim.subsample(int(kappa), agents)[0][:, 1:] for _ in range(draws)])
        error = (estimates - exact) / scale
        squared.append((error ** 2).mean((1, 2)))
        random = error.std(0) > 1e-9  # an agent with one partner (or none) is estimated exactly
        bias.append(np.abs(error.mean(0)[random] / (error.std(0)[random] / np.sqrt(draws))).mean())
    return np.array(squared), np.array(bias)


def slope_with_interval(squared: np.ndarray, rng, resamples: int = 1000) -> tuple[float, float, float]:
    def fit(sq):
        return np.polyfit(np.log(KAPPAS), 0.5 * np.log(sq.mean(1)), 1)[0]
    boot = [fit(squared[:, rng.integers(0, squared.shape[1], squared.shape[1])]) for _ in range(resamples)]
    return fit(squared), *np.percentile(boot, [2.5, 97.5])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--plot", help="write the log-log plot here (PNG)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"N = {args.agents}, {args.draws} draws per κ; RMS error relative to each feature's spread")
    print("| graphon | " + " | ".join(f"κ={k}" for k in KAPPAS) + " | slope (95 % interval) | mean |bias z| |")
    print("|---" * (len(KAPPAS) + 3) + "|")
    curves = {}
    for graphon in sorted(GRAPHONS):
        squared, bias = errors(graphon, args.agents, args.draws)
        rms = np.sqrt(squared.mean(1))
        slope, low, high = slope_with_interval(squared, rng)
        curves[graphon] = rms
        print(f"| {graphon} | " + " | ".join(f"{r:.3f}" for r in rms)
              + f" | {slope:.3f} ({low:.3f}, {high:.3f}) | {bias.mean():.2f} |")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5.5, 3.8), dpi=110)
        for graphon, rms in curves.items():
            ax.loglog(KAPPAS, rms, "o-", label=graphon.replace("_", " "))
        ax.loglog(KAPPAS, curves["uniform_attachment"][0] / np.sqrt(KAPPAS), "k--", label="1/√κ")
        ax.set_xlabel("κ (agents subsampled by interaction strength)")
        ax.set_ylabel("RMS error of the mean field")
        ax.set_title(f"κ-subsample vs exact graphon mean field, N = {args.agents}")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
