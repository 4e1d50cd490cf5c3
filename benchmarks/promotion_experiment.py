"""The BCRLSP experiment (arXiv 2207.07790) at this machine's scale: offline BCRLSP against the
baselines at equal spend, over seeds, with 95 % confidence intervals.

1. Offline datasets: ``--episodes`` episodes of PromotionBudget-v0 (its per-period budget never
   binds) logged by each behaviour policy (random, noisy business rule, epsilon-greedy), written
   as Minari datasets and Parquet files (``envzoo.tools.datasets``, as ``envzoo dataset`` does);
   sizes and times.
2. Offline RL from the noisy-rule dataset (read back from its Parquet file): fitted Q iteration
   and CQL (PyTorch, ``envzoo.offline.learners``).
3. Off-policy evaluation from the same dataset of per-user targets (the business rule, its
   epsilon-greedy version, the greedy policies of the learnt Qs): IPS, SNIPS, DR and FQE against
   the true value by simulation (a new user's discounted retention, gamma = 0.9).
4. The deployed policies on Promotion-v1 at per-period budgets ``--budgets`` (all policies get
   the same budget: equal spend), ``--seeds`` episodes of 30 periods each: retention of the first
   cohort after 1, 7 and 30 periods, mean retention per period, spend / budget, cost per retained
   user, violations (refused periods); and on PromotionBudget-v0 (episode cost limit 480,
   violations = episodes past the limit); each policy's mean retention minus the myopic rule's on
   the same seeds (paired). A plot of retention against budget per policy.

Run: ``python benchmarks/promotion_experiment.py [--episodes 100] [--seeds 10] [--out DIR]``
(needs the ``train``, ``dataset`` and ``plots`` extras). Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import envzoo
from envzoo.tools.datasets import create, parquet_arrays
from envzoo.offline.learners import conservative_q, fitted_q_iteration
from envzoo.promotion.behaviour import EpsilonGreedy, NoisyRule
from envzoo.promotion.offline import user_transitions
from envzoo.promotion.policies import BCRLSP, MyopicGreedy, NoBonus, Oracle, RandomBonus, Uniform
from promotion_ope import GreedyQ, estimates, true_value

BEHAVIOURS = ("logging-random", "noisy-rule", "epsilon-greedy")
GAMMA = 0.9
PERIODS = 30
T_95 = {5: 2.571, 10: 2.228, 20: 2.086}  # Student t quantiles (0.975) by degrees of freedom; else 1.96


def interval(values) -> str:
    values = np.asarray(values, dtype=np.float64)
    half = T_95.get(len(values) - 1, 1.96) * values.std(ddof=1) / np.sqrt(len(values))
    return f"{values.mean():.3f} ± {half:.3f}"


def log_datasets(episodes: int, folder: Path) -> dict[str, Path]:
    print("## Offline datasets (PromotionBudget-v0, 30 periods x 16 users per episode)\n")
    print("| behaviour policy | episodes | steps | user transitions | Minari (MB) | Parquet (MB) | seconds |")
    print("|---|---|---|---|---|---|---|")
    paths = {}
    for name in BEHAVIOURS:
        report = create("envzoo/PromotionBudget-v0", name, episodes, seed=0, minari_id=f"envzoo/promotion-{name}-v0",
                        root=folder / "minari", parquet=folder / f"{name}.parquet")
        paths[name] = report.parquet_path
        print(f"| {name} | {report.episodes} | {report.steps:,} | {report.steps * 16:,} | "
              f"{report.minari_bytes / 1e6:.2f} | {report.parquet_bytes / 1e6:.2f} | {report.seconds:.1f} |")
    return paths


def learn(parquet: Path):
    arrays = parquet_arrays(parquet)
    data = {"observations": arrays["observations"], "levels": arrays["actions"]}
    transitions = user_transitions(data["observations"], data["levels"])
    learnt = {}
    for name, method in (("FQI", fitted_q_iteration), ("CQL", conservative_q)):
        started = time.perf_counter()
        learnt[name] = method(transitions, 4, gamma=GAMMA)
        print(f"- {name}: {len(transitions['action']):,} transitions, {time.perf_counter() - started:.1f} s")
    return data, learnt


def evaluate_off_policy(data, learnt, env) -> None:
    print("\n## Off-policy evaluation from the noisy-rule dataset (value: discounted retention of a new user)\n")
    print("| target policy | true value (simulated) | IPS | SNIPS | DR | FQE |")
    print("|---|---|---|---|---|---|")
    targets = {"business rule": EpsilonGreedy(env, 0.0), "epsilon-greedy 0.3": EpsilonGreedy(env, 0.3),
               **{f"greedy {name}": GreedyQ(env, q) for name, q in learnt.items()}}
    behaviour = NoisyRule(env)
    for name, target in targets.items():
        truth = true_value(target, 1000, PERIODS, GAMMA, seed=77_000, budget=64.0, cost_limit=480.0)
        found = estimates(data, behaviour, target, GAMMA)
        cells = [f"{e.value:.3f} (err {e.value - truth.value:+.3f})" for e in found.values()]
        print(f"| {name} | {truth.value:.3f} ± {1.96 * truth.stderr:.3f} | " + " | ".join(cells) + " |")


def policies(env, learnt) -> dict:
    params = env.unwrapped.params
    per_user = params.budget / params.cohort_size if params.cost_limit is None else params.cost_limit / (
        params.cohort_size * PERIODS)
    # The uniform rule pays everyone the largest level that the budget affords for all (at least level 1).
    level = max([1] + [k for k, bonus in enumerate(params.bonuses) if bonus <= per_user])
    return {"no bonus": NoBonus(env), "uniform": Uniform(env, level), "random": RandomBonus(env),
            "myopic": MyopicGreedy(env), "BCRLSP (FQI)": BCRLSP(env, q=learnt["FQI"]),
            "BCRLSP (CQL)": BCRLSP(env, q=learnt["CQL"]), "oracle (upper ref.)": Oracle(env)}


def play(env_id: str, seeds: int, learnt, **env_kwargs) -> dict[str, dict[str, list]]:
    """Per policy, per KPI, one value per seed."""
    env = envzoo.make(env_id, **env_kwargs)
    out = {}
    for name, policy in policies(env, learnt).items():
        kpis: dict[str, list] = {}
        for seed in range(seeds):
            policy.reset(seed)
            observation, info = env.reset(seed=seed)
            survival = {}
            for period in range(1, PERIODS + 1):
                observation, _, _, _, info = env.step(policy(observation, info))
                if period in (1, 7, 30):
                    survival[period] = env.unwrapped.episode_metrics()["cohort_survival"]
            metrics = env.unwrapped.episode_metrics()
            violations = metrics.get("limit_exceeded", metrics["refused_periods"])
            for key, value in (("1", survival[1]), ("7", survival[7]), ("30", survival[30]),
                               ("retention", metrics["retention"]), ("spend/budget", metrics["spend_per_budget"]),
                               ("spend/limit", metrics.get("spend_per_limit", np.nan)),
                               ("cost/retained", metrics["cost_per_retained"]), ("violations", violations)):
                kpis.setdefault(key, []).append(value)
        out[name] = kpis
    env.close()
    return out


def table(title: str, results: dict, spend_key: str) -> None:
    print(f"\n## {title}\n")
    print(f"| policy | retention 1 | retention 7 | retention 30 | mean retention | vs myopic (paired) | {spend_key} | "
          "cost / retained user | violations |")
    print("|---|---|---|---|---|---|---|---|---|")
    myopic = np.asarray(results["myopic"]["retention"])
    for name, kpis in results.items():
        cells = [interval(kpis[key]) for key in ("1", "7", "30", "retention")]
        # Every policy meets the same seeds (common random numbers): the paired difference is tighter.
        cells.append(interval(np.asarray(kpis["retention"]) - myopic) if name != "myopic" else "–")
        cells += [interval(kpis[key]) for key in (spend_key, "cost/retained")]
        print(f"| {name} | " + " | ".join(cells) + f" | {int(np.sum(kpis['violations']))} |")


def plot(by_budget: dict[float, dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6.5, 4))
    budgets = sorted(by_budget)
    for name in by_budget[budgets[0]]:
        values = [np.asarray(by_budget[b][name]["retention"]) for b in budgets]
        means = [v.mean() for v in values]
        halves = [1.96 * v.std(ddof=1) / np.sqrt(len(v)) for v in values]
        axis.errorbar(budgets, means, yerr=halves, marker="o", capsize=3, label=name,
                      linestyle="--" if name.startswith("oracle") else "-")
    axis.set_xlabel("budget per period (16 users)")
    axis.set_ylabel("mean retention per period")
    axis.set_title("Promotion-v1: retention against budget (95 % CI over seeds)")
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(f"\nplot: {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100, help="episodes per offline dataset (100)")
    parser.add_argument("--seeds", type=int, default=10, help="evaluation episodes per policy and budget (10)")
    parser.add_argument("--budgets", type=float, nargs="+", default=[4.0, 8.0, 16.0, 32.0])
    parser.add_argument("--out", help="folder of the datasets and the plot (default: a temporary folder)")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(args.out or temporary)
        paths = log_datasets(args.episodes, folder)
        print("\n## Offline RL (noisy-rule dataset)\n")
        data, learnt = learn(paths["noisy-rule"])
        env = envzoo.make("envzoo/PromotionBudget-v0").unwrapped
        evaluate_off_policy(data, learnt, env)
        by_budget = {budget: play("envzoo/Promotion-v1", args.seeds, learnt, budget=budget)
                     for budget in args.budgets}
        for budget in args.budgets:
            table(f"Promotion-v1, budget {budget:g} per period, {args.seeds} seeds (mean ± 95 % CI)",
                  by_budget[budget], "spend/budget")
        table(f"PromotionBudget-v0, cost limit 480 per episode, {args.seeds} seeds (mean ± 95 % CI)",
              play("envzoo/PromotionBudget-v0", args.seeds, learnt), "spend/limit")
        plot(by_budget, folder / "promotion_retention_budget.png")
        if args.out is None:
            print("(the datasets and the plot were in a temporary folder: give --out to keep them)")
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
