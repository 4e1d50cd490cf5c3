"""Digital against real-time semantics of a timed reward machine: the exact optima of both, and
Q-learning (plain and with counterfactual imagining) under each, over seeds, with 95 % intervals.

First a table of every shipped specification's V* (discount 0.9, random start) on the
digital-clock product and on the region product of the real-time semantics
(``envzoo.rewardmachines.realtime``). Then four learners on one specification: {digital,
real-time} x {Q-learning, + counterfactual imagining}; every ``--every`` episodes each greedy
policy is scored exactly on its own semantics' product MDP. Printed per learner: the optimum of
its semantics, the mean value reached after a few episode counts (t-intervals over seeds), and
how many seeds reached 95 % of their optimum. ``--figure PATH`` draws the mean curves with
their intervals.

Run: ``python benchmarks/trm_realtime.py [--id envzoo/DeliveryTRM-v0] [--spec precise-drop]
[--seeds 20] [--episodes 500] [--processes 2] [--figure docs/images/trm_realtime_curves.png]``
(about a minute on 2 busy cores at the defaults).
"""

from __future__ import annotations

import argparse
import time
from multiprocessing import Pool

import gymnasium
import numpy as np
from scipy import stats

import envzoo  # noqa: F401
from envzoo.rewardmachines.learning import learning_curve
from envzoo.rewardmachines.machine import shipped_specs
from envzoo.rewardmachines.params import make_params
from envzoo.rewardmachines.planning import ProductMDP, start_value, value_iteration
from envzoo.rewardmachines.realtime import RegionMachine

LEARNERS = [(semantics, counterfactual) for semantics in ("digital", "real-time") for counterfactual in (True, False)]


def name(semantics: str, counterfactual: bool) -> str:
    return f"{semantics}, Q-learning" + (" + imagining" if counterfactual else "")


def run(job):
    env_id, spec, semantics, counterfactual, seed, episodes, every = job
    env = gymnasium.make(env_id, spec=spec)
    return learning_curve(env, counterfactual, episodes, seed=seed, evaluate_every=every, semantics=semantics)


def interval(values: np.ndarray) -> str:
    half = stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
    return f"{values.mean():.3f} ± {half:.3f}"


def optima_table() -> None:
    print("| world | spec | V* digital | V* real-time | configurations digital / real-time |")
    print("|---|---|---|---|---|")
    for world in ("office", "delivery", "frozenlake"):
        for spec in shipped_specs(world):
            params = make_params(world, spec)
            digital = ProductMDP(params)
            regions = ProductMDP(params, RegionMachine(params.machine, params.world.labels))
            values = [start_value(mdp, value_iteration(mdp)[0]) for mdp in (digital, regions)]
            print(f"| {world} | `{spec}` | {values[0]:.4f} | {values[1]:.4f} | {digital.configs} / {regions.configs} |")


def draw(path: str, curves: dict, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.2))
    for (semantics, counterfactual), runs in curves.items():
        episodes = runs[0].episodes
        values = np.array([curve.values for curve in runs])
        mean = values.mean(axis=0)
        half = stats.t.ppf(0.975, len(runs) - 1) * values.std(axis=0, ddof=1) / np.sqrt(len(runs))
        color = "tab:blue" if semantics == "digital" else "tab:red"
        style = "-" if counterfactual else "--"
        axes.plot(episodes, mean, style, color=color, label=name(semantics, counterfactual))
        axes.fill_between(episodes, mean - half, mean + half, color=color, alpha=0.15)
        axes.axhline(runs[0].optimum, color=color, lw=0.8, ls=":")
    axes.set_xlabel("episodes")
    axes.set_ylabel("greedy policy's exact value (discount 0.9)")
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=8, loc="center right")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(f"\nwrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--id", default="envzoo/DeliveryTRM-v0")
    parser.add_argument("--spec", default="precise-drop")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--every", type=int, default=10, help="episodes between exact evaluations")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--figure", default=None, help="a PNG path for the learning curves")
    args = parser.parse_args()
    start = time.perf_counter()
    optima_table()
    jobs = [(args.id, args.spec, semantics, counterfactual, seed, args.episodes, args.every)
            for semantics, counterfactual in LEARNERS for seed in range(args.seeds)]
    with Pool(args.processes) as pool:
        results = pool.map(run, jobs)
    curves = {learner: results[i * args.seeds:(i + 1) * args.seeds] for i, learner in enumerate(LEARNERS)}
    checkpoints = list(dict.fromkeys(c for c in (20, 50, 100, 200, args.episodes) if c <= args.episodes))
    print(f"\n{args.id} spec={args.spec}: {args.seeds} seeds, {args.episodes} episodes, exact evaluation every "
          f"{args.every}; mean value of the greedy policy ± 95 % t-interval; {time.perf_counter() - start:.0f} s\n")
    print("| learner | V* of its semantics | " + " | ".join(f"after {c}" for c in checkpoints)
          + " | seeds at 95 % of V* |")
    print("|---|---|" + "---|" * len(checkpoints) + "---|")
    for learner, runs in curves.items():
        cells = [interval(np.array([curve.values[np.searchsorted(curve.episodes, c)] for curve in runs]))
                 for c in checkpoints]
        reached = sum(np.isfinite(curve.episodes_to(0.95)) for curve in runs)
        print(f"| {name(*learner)} | {runs[0].optimum:.4f} | " + " | ".join(cells) + f" | {reached}/{len(runs)} |")
    if args.figure:
        draw(args.figure, curves, f"{args.id} spec={args.spec}: digital vs real-time ({args.seeds} seeds, 95 % CI)")


if __name__ == "__main__":
    main()
