"""Throughput of two checkouts of envzoo, id by id, measured alternately in one run: the check a
refactoring of a simulator owes ("no id more than 5 % slower", docs/changing-a-simulator.md).

    python benchmarks/compare_checkouts.py /path/to/before /path/to/after
    python benchmarks/compare_checkouts.py ../before . --ids envzoo/Serverless-v1 --rounds 3

Each measurement is a fresh process importing the checkout's own ``envzoo``
(``envzoo.tools.throughput.bench``: the single env and the native vector env at N = 1,024,
random actions, resets included, the kernel cache warm). The rounds alternate which checkout goes
first, so a slow spell of a shared machine falls on both; the table gives each side's median and
the ratio after / before, flagged where it is below 0.95. Ids on an external engine (SUMO, Godot,
TextWorld) are left out: their speed is the engine's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import envzoo

MEASURE = """
import json, sys
from envzoo.tools.throughput import bench
env_id, num_envs, seconds, vector = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "vector"
rates = bench(env_id, num_envs, 3000, modes=("single",), max_seconds=seconds)["steps_per_s"]
if vector:
    rates |= bench(env_id, num_envs, 100, modes=("native",), max_seconds=seconds)["steps_per_s"]
print(json.dumps(rates))
"""
ENGINE_DOMAINS = {"traffic", "godot"}
ENGINE_IDS = {"envzoo/TextWorld-v1", "envzoo/TextWorldExpress-v0"}
SLOWER = 0.95


def measure(checkout: Path, env_id: str, num_envs: int, seconds: float, single_only: bool) -> dict[str, float]:
    environment = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", MEASURE, env_id, str(num_envs), str(seconds),
                           "single" if single_only else "vector"],
                          cwd=checkout, env=environment, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{env_id} in {checkout} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ratio_cell(before: list[float], after: list[float]) -> tuple[str, bool]:
    if not before or not after:
        return "– | – | –", False
    b, a = statistics.median(before), statistics.median(after)
    slower = a / b < SLOWER
    return f"{b:,.0f} | {a:,.0f} | {a / b:.2f}{' ✗' if slower else ''}", slower


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--ids", nargs="+", metavar="ID", help="default: every installed id not on an external engine")
    parser.add_argument("--rounds", type=int, default=2, help="measurements of each checkout per id (2)")
    parser.add_argument("--max-seconds", type=float, default=2.0, help="seconds of stepping per mode (2)")
    parser.add_argument("--num-envs", type=int, default=1024)
    args = parser.parse_args()
    ids = args.ids or [entry.id for entry in envzoo.list_envs(installed=True)
                       if entry.domain not in ENGINE_DOMAINS and entry.id not in ENGINE_IDS]
    checkouts = (args.before.resolve(), args.after.resolve())

    print("| id | single before | after | ratio | native N = 1,024 before | after | ratio |")
    print("|---|---|---|---|---|---|---|")
    flagged = []
    for env_id in ids:
        single_only = envzoo.env_info(env_id).is_multi_agent or envzoo.env_info(env_id).vector_entry_point != "native"
        rates: dict[Path, list[dict[str, float]]] = {checkout: [] for checkout in checkouts}
        for round_ in range(args.rounds):
            for checkout in checkouts if round_ % 2 == 0 else checkouts[::-1]:
                rates[checkout].append(measure(checkout, env_id, args.num_envs, args.max_seconds, single_only))
        cells = []
        for mode in ("single", "native"):
            text, slower = ratio_cell(*([r[mode] for r in rates[checkout] if mode in r] for checkout in checkouts))
            cells.append(text)
            flagged += [f"{env_id} {mode}"] if slower else []
        print(f"| {env_id} | {cells[0]} | {cells[1]} |", flush=True)
    print(f"\nbelow {SLOWER:.2f} of before: {', '.join(flagged) or 'none'}")


if __name__ == "__main__":
    main()
