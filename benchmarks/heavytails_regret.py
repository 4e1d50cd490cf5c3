"""Regret of UCBVI with heavy-tailed rewards: how it moves with the moment order v (empirical
mean with its sub-Gaussian bonus, truncated mean, median of means) and with the privacy budget
epsilon (local DP: Laplace at the user; joint DP: the binary mechanism), over seeds, with 95 %
intervals, and the figure of the regret curves.

The protocol: RiverSwim (6 states, horizon 20) with symmetric Lomax noise (``lomax``: tail index
1 + v + 0.1, so the variance is infinite for v < 0.9); one bonus scale for every learner,
chosen where the tails are lightest (v = 1, 1500 episodes, 10 seeds: of 0.003, 0.01, 0.03 and
0.1 the best for each of the three estimators was 0.01), then the tails made heavier. The
private learners clip the rewards at ``--clip`` (3): the theory's balance
(u epsilon sqrt(K))^(1/(1+v)) is 193 here, and the Laplace noise it implies (2B/epsilon = 39 at
epsilon = 10) drowns a reward of 1 far beyond the run. The learners run batched, one row of
the simulator per seed (``envzoo.heavytails.learning.regret_curves``); an episode's regret is
the simulator's regret meter (the summed action gaps, whose expectation is exactly V* - V^pi).
Printed: the cumulative regret (mean ± 95 % t-interval over seeds), the mean regret per
episode over the last tenth of the episodes, and how many seeds are *stuck* there (more than
1 per episode, of V* = 3.4: a policy that has given up the far bank).

``--id envzoo/GarnetHeavy-v0`` runs the same protocol on a registered id instead: its MDP,
horizon and noise family (the registry's kwargs), v varied as above; ``--stuck`` then sets the
threshold in that MDP's units (regret per episode).

Run: ``python benchmarks/heavytails_regret.py [--id ID] [--episodes 2000] [--seeds 20]
[--processes 2] [--figure docs/images/heavytails_regret.png]`` (about 3 minutes on 2 busy cores
at the defaults).
"""

from __future__ import annotations

import argparse
import time
from multiprocessing import Pool

import numpy as np
from scipy import stats

from envzoo.heavytails.learning import ESTIMATORS, regret_curves
from envzoo.heavytails.params import make_params

V_VALUES = (1.0, 0.5, 0.2)
EPSILONS = (30.0, 10.0, 3.0)
#: The default protocol's MDP: RiverSwim, horizon 20, Lomax noise.
RIVERSWIM = {"mdp": "riverswim", "horizon": 20, "noise": "lomax"}
#: Regret per episode above which a seed counts as stuck (V* of the default RiverSwim is 3.4).
STUCK = 1.0


def protocol(env_id: str | None) -> dict:
    """The MDP's keyword arguments (all but v): the id's registry kwargs, or RiverSwim's."""
    if env_id is None:
        return dict(RIVERSWIM)
    import gymnasium

    import envzoo  # noqa: F401  (registers the ids)
    kwargs = dict(gymnasium.spec(env_id).kwargs)
    kwargs.pop("v", None)
    return kwargs


def run(job):
    mdp_args, v, episodes, seeds, bonus_scale, learner_args = job
    params = make_params(**mdp_args, v=v)
    return regret_curves(params, episodes, seeds, bonus_scale=bonus_scale, **learner_args)


def interval(values: np.ndarray) -> str:
    half = stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
    return f"{values.mean():.0f} ± {half:.0f}"


def summary(regrets: np.ndarray, stuck: float) -> list[str]:
    tail = regrets[:, -max(regrets.shape[1] // 10, 1):].mean(axis=1)
    return [interval(regrets.sum(axis=1)), f"{tail.mean():.2f}", f"{(tail > stuck).sum()}/{len(tail)}"]


def describe(mdp_args: dict) -> str:
    return f"{mdp_args['mdp']} (H = {mdp_args['horizon']}), {mdp_args['noise']} noise"


def draw(path: str, by_v: dict, by_epsilon: dict, heading: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(V_VALUES) + 1, figsize=(4 * (len(V_VALUES) + 1), 3.6), sharey=True)
    panels = [(f"v = {v}", {estimator: by_v[(v, estimator)] for estimator in ESTIMATORS}) for v in V_VALUES]
    panels.append(("v = 0.5, private (LDP solid, JDP dashed)",
                   {f"{privacy} ε={epsilon:g}": by_epsilon[(epsilon, privacy)] for epsilon in EPSILONS
                    for privacy in ("ldp", "jdp")}))
    colors = dict(zip(ESTIMATORS, ("tab:red", "tab:blue", "tab:green")))
    shades = dict(zip(EPSILONS, ("tab:green", "tab:orange", "tab:purple")))
    for axis, (title, curves) in zip(axes, panels):
        for label, regrets in curves.items():
            cumulative = regrets.cumsum(axis=1)
            mean = cumulative.mean(axis=0)
            half = stats.t.ppf(0.975, len(regrets) - 1) * cumulative.std(axis=0, ddof=1) / np.sqrt(len(regrets))
            episodes = np.arange(1, regrets.shape[1] + 1)
            if label in colors:
                color, style = colors[label], "-"
            else:
                color, style = shades[float(label.split("=")[1])], "--" if label.startswith("jdp") else "-"
            axis.plot(episodes, mean, style, color=color, label=label)
            axis.fill_between(episodes, mean - half, mean + half, color=color, alpha=0.15)
        axis.set_title(title, fontsize=9)
        axis.set_xlabel("episodes")
        axis.legend(fontsize=7, loc="upper left")
    axes[0].set_ylabel("cumulative regret (mean, 95 % CI)")
    figure.suptitle(heading, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    print(f"\nwrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--id", default=None, help="a registered heavy-tail id (default: RiverSwim, H = 20, Lomax)")
    parser.add_argument("--stuck", type=float, default=STUCK, help="regret per episode that counts as stuck")
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--bonus-scale", type=float, default=0.01)
    parser.add_argument("--clip", type=float, default=3.0, help="where the private learners clip the rewards")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--figure", default=None, help="a PNG path for the regret curves")
    args = parser.parse_args()
    by_v_keys = [(v, estimator) for v in V_VALUES for estimator in ESTIMATORS]
    by_epsilon_keys = [(epsilon, privacy) for epsilon in EPSILONS for privacy in ("ldp", "jdp")]
    mdp_args = protocol(args.id)
    jobs = [(mdp_args, v, args.episodes, args.seeds, args.bonus_scale, {"estimator": estimator})
            for v, estimator in by_v_keys]
    jobs += [(mdp_args, 0.5, args.episodes, args.seeds, args.bonus_scale,
              {"privacy": privacy, "epsilon": epsilon, "clip": args.clip})
             for epsilon, privacy in by_epsilon_keys]
    start = time.perf_counter()
    with Pool(args.processes) as pool:
        results = pool.map(run, jobs)
    by_v = dict(zip(by_v_keys, results))
    by_epsilon = dict(zip(by_epsilon_keys, results[len(by_v_keys):]))
    v_star = make_params(**mdp_args).v_star[0, 0]
    print(f"{args.id or 'RiverSwim'}: {describe(mdp_args)}, V* = {v_star:.3f}, bonus scale {args.bonus_scale}: "
          f"{args.episodes} episodes, {args.seeds} seeds ({time.perf_counter() - start:.0f} s). Cells: cumulative "
          f"regret (mean ± 95 % CI) / mean regret per episode in the last tenth / seeds stuck (> {args.stuck:g} per "
          "episode there)\n")
    print("| v | " + " | ".join(ESTIMATORS) + " |\n|---|" + "---|" * len(ESTIMATORS))
    for v in V_VALUES:
        cells = (" / ".join(summary(by_v[(v, estimator)], args.stuck)) for estimator in ESTIMATORS)
        print(f"| {v} | " + " | ".join(cells) + " |")
    print(f"\nv = 0.5, rewards clipped at {args.clip:g} and privatized at the user (LDP) or released by the binary "
          "mechanism (JDP):\n")
    print("| epsilon | ldp | jdp |\n|---|---|---|")
    for epsilon in EPSILONS:
        print(f"| {epsilon:g} | " + " | ".join(" / ".join(summary(by_epsilon[(epsilon, privacy)], args.stuck))
                                          for privacy in ("ldp", "jdp")) + " |")
    if args.figure:
        draw(args.figure, by_v, by_epsilon, f"UCBVI on {describe(mdp_args)}, one bonus scale ({args.bonus_scale:g}) "
                                            "for all")


if __name__ == "__main__":
    main()
