"""Env-steps per second of every id in one run, against the speed goals, as one Markdown table:
a single env (``envzoo.make``), the native vector env at N = 1024 and, for ids with a JAX
backend, the on-device scan (``envzoo.tools.throughput.bench``; random actions, resets included).

    python every_id.py                                   # every id whose extra is installed
    python every_id.py --ids envzoo/Dispatch-v0 envzoo/Serverless-v1 --steps 200
    python every_id.py --skip-domains traffic godot      # leave out the external engines

The goals are the speed issue's, on a 2-core machine: every single env of an own simulator at
10,000 steps/s or more, every PettingZoo face at 5,000 parallel steps/s, the native vector envs
at 1,000,000 env-steps/s for the light cores (Avellaneda–Stoikov, portfolio, trading) and 200,000
for the heavy ones (serverless, the limit-order-book replay, orbital). Ids run on an external
engine (SUMO, Godot, TextWorld, TextWorldExpress) have no goal, their speed being the engine's,
and only their single env is measured (their vector envs start N engines).
"""

import argparse
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import envzoo
from envzoo.core.extras import missing_packages
from envzoo.tools.throughput import bench

#: Ids whose step is an external engine's (their own benchmarks compare them with the engine).
ENGINES = {"traffic", "godot"}
ENGINE_IDS = {"envzoo/TextWorld-v1", "envzoo/TextWorldExpress-v0"}
#: Native vector goals (env-steps/s at N = 1024) by domain, and the ids they leave out.
LIGHT_VECTOR_GOAL, HEAVY_VECTOR_GOAL = 1_000_000, 200_000
VECTOR_GOALS = {"trading": LIGHT_VECTOR_GOAL, "portfolio": LIGHT_VECTOR_GOAL, "serverless": HEAVY_VECTOR_GOAL,
                "orbital": HEAVY_VECTOR_GOAL}
MARKET_MAKING_VECTOR_GOALS = {"envzoo/MarketMakingAS-v1": LIGHT_VECTOR_GOAL,
                              "envzoo/MarketMaking-v1": HEAVY_VECTOR_GOAL,
                              "envzoo/MarketMakingMO-v1": HEAVY_VECTOR_GOAL}
SINGLE_GOAL, PARALLEL_GOAL = 10_000, 5_000


def goals(entry) -> tuple[int | None, int | None]:
    """(single or parallel goal, native vector goal) of an id; None where the issue sets none."""
    if entry.domain in ENGINES or entry.id in ENGINE_IDS:
        return None, None
    single = PARALLEL_GOAL if entry.is_multi_agent else SINGLE_GOAL
    vector = MARKET_MAKING_VECTOR_GOALS.get(entry.id, VECTOR_GOALS.get(entry.domain))
    return single, None if entry.is_multi_agent else vector


def cell(rate: float | None, goal: int | None) -> str:
    if rate is None:
        return "–"
    mark = "" if goal is None else (" ✓" if rate >= goal else " ✗")
    return f"{rate:,.0f}{mark}"


def measure(entry, args) -> dict[str, float]:
    """The id's rates by mode: its single env, then (unless it runs on an external engine, whose
    vector env is N engine processes or games) its native vector env and JAX scan."""
    rates = bench(entry.id, args.num_envs, args.single_steps, modes=("single",),
                  max_seconds=args.max_seconds)["steps_per_s"]
    if not (entry.domain in ENGINES or entry.id in ENGINE_IDS):
        rates |= bench(entry.id, args.num_envs, args.steps, modes=("native", "jax-scan"),
                       max_seconds=args.max_seconds)["steps_per_s"]
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ids", nargs="+", default=[entry.id for entry in envzoo.list_envs()], metavar="ID")
    parser.add_argument("--skip-domains", nargs="*", default=[], metavar="DOMAIN")
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--single-steps", type=int, default=3000, help="steps of the single env (3,000)")
    parser.add_argument("--steps", type=int, default=100, help="steps of the vector modes (100)")
    parser.add_argument("--max-seconds", type=float, default=10.0, help="seconds of stepping per mode (10)")
    args = parser.parse_args()

    print(f"| id | single env (parallel steps/s for PettingZoo) | native vector env N = {args.num_envs:,} "
          "| JAX on-device scan | goals (single / vector) |")
    print("|---|---|---|---|---|")
    for env_id in args.ids:
        entry = envzoo.env_info(env_id)
        if entry.domain in args.skip_domains:
            continue
        if entry.extra and missing_packages(entry.extra):
            print(f"| {env_id} | not run: extra {entry.extra!r} missing | | | |", flush=True)
            continue
        single_goal, vector_goal = goals(entry)
        # Each id in a fresh process: nothing of the ids before it (JAX's threads, memory) stays.
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
            rates = pool.submit(measure, entry, args).result()
        goal_text = " / ".join("–" if goal is None else f"{goal:,}" for goal in (single_goal, vector_goal))
        print(f"| {env_id} | {cell(rates.get('single'), single_goal)} | {cell(rates.get('native'), vector_goal)} "
              f"| {cell(rates.get('jax-scan'), None)} | {goal_text} |", flush=True)


if __name__ == "__main__":
    main()
