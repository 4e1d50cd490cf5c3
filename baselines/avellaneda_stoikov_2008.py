"""Avellaneda & Stoikov (2008), section 3.3: the "inventory" strategy against the "symmetric"
strategy with the same spread, 1000 simulated paths for each γ, on envzoo/MarketMakingAS-v1's
simulator.

    python baselines/avellaneda_stoikov_2008.py [--paths 1000] [--seed 0]

For γ ∈ {0.01, 0.1, 0.5} it prints the paper's Tables 1–3 columns — spread, mean profit,
std(profit), mean final inventory, std(final inventory) — for two discretisations of the model:

- ``env``: the env's defaults, the paper's rules (fills with probability λ(δ)·dt, mid moves
  ±σ√dt), depths clipped to the action space [0, max_depth] (quotes never cross the mid);
- ``paper``: the paper's simulation, the same rules with depths unclipped;
- ``exact``: fills with probability 1 − exp(−λ(δ)·dt) and exact Gaussian mid increments,
  clipped (``fill_probability="poisson", mid_noise="gaussian"``);

next to the paper's numbers. Both strategies of a row use the same episode keys, so they see the
same mid paths. "Spread" is the mean quoted spread δᵇ + δᵃ over all steps and paths (the
paper's column is (2/γ)·ln(1 + γ/k), the symmetric strategy's spread). The whole run uses the
batched simulator directly (one batch of ``--paths`` episodes per strategy), not the env loop.
"""

import argparse
import time

import numpy as np

from envzoo.marketmaking.avellaneda_stoikov.params import ASParams
from envzoo.marketmaking.avellaneda_stoikov.policies import as_depths, paper_half_spread, simulate_strategy

#: Avellaneda & Stoikov (2008), Tables 1-3: (spread, profit, std(profit), final q, std(final q)).
PAPER = {
    0.1: {"inventory": (1.29, 62.94, 5.89, 0.10, 2.80), "symmetric": (1.29, 67.21, 13.43, -0.018, 8.66)},
    0.01: {"inventory": (1.33, 66.78, 8.76, -0.02, 4.70), "symmetric": (1.33, 67.36, 13.40, -0.31, 8.65)},
    0.5: {"inventory": (1.15, 33.92, 4.72, -0.02, 1.88), "symmetric": (1.15, 66.20, 14.53, 0.25, 9.06)},
}

DISCRETISATIONS = {
    "env": ({}, True),
    "paper": ({}, False),
    "exact": ({"fill_probability": "poisson", "mid_noise": "gaussian"}, True),
}


def compare(gamma: float, paths: int, seed: int, discretisation: str) -> dict[str, tuple[float, ...]]:
    """Spread, mean and std of profit, mean and std of final inventory for both strategies."""
    overrides, clip = DISCRETISATIONS[discretisation]
    params = ASParams(**overrides)
    half = paper_half_spread(params, gamma)
    strategies = {
        "inventory": lambda time_left, q: as_depths(params, gamma, time_left, q),
        "symmetric": lambda time_left, q: (np.full_like(q, half), np.full_like(q, half)),
    }
    rows = {}
    for name, rule in strategies.items():
        m = simulate_strategy(params, rule, paths, seed=seed, clip=clip)
        rows[name] = (float(m["mean_spread"].mean()), float(m["pnl"].mean()), float(m["pnl"].std(ddof=1)),
                      float(m["final_inventory"].mean()), float(m["final_inventory"].std(ddof=1)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    header = f"{'gamma':>6} {'source':<7} {'strategy':<10} {'spread':>7} {'profit':>8} {'std(profit)':>12} " \
             f"{'final q':>8} {'std(final q)':>13}"
    print(f"Avellaneda & Stoikov (2008) section 3.3: {args.paths} paths per strategy, seed {args.seed}")
    print("s0=100, T=1, sigma=2, dt=0.005, A=140, k=1.5, q0=0\n")
    print(header)
    print("-" * len(header))
    for gamma in (0.01, 0.1, 0.5):
        for source in ("table", *DISCRETISATIONS):
            rows = PAPER[gamma] if source == "table" else compare(gamma, args.paths, args.seed, source)
            for name, (spread, profit, std_profit, final_q, std_q) in rows.items():
                print(f"{gamma:>6} {source:<7} {name:<10} {spread:>7.2f} {profit:>8.2f} {std_profit:>12.2f} "
                      f"{final_q:>8.2f} {std_q:>13.2f}")
        print()
    print(f"(table: the paper; env: envzoo defaults; paper: the paper's simulation, unclipped; exact: Poisson fills "
          f"and Gaussian mid, clipped) "
          f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
