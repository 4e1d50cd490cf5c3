"""Crafter-v1's new worlds against crafter 1.8.3's: each material's share and each creature's count.

Makes ``--worlds`` envzoo worlds (64 x 64, keys from seeds 10,000 on, as no test uses) and prints,
per material and creature, envzoo's mean over worlds, crafter's from the table recorded by
``tests/crafter/tools/record_crafter_worlds.py`` (``tests/crafter/crafter_worlds.json``), the
relative difference and its z-score (the difference over the standard error of the two means),
then the spread over worlds (standard deviations) of both, and the time a new world takes.

    PYTHONPATH=.. python crafter_worlds.py --worlds 2000
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from envzoo.core.rng import keys_from
from envzoo.crafter import rules
from envzoo.crafter.params import make_params
from envzoo.crafter.sim import CrafterSim

CRAFTER_TABLE = Path(__file__).resolve().parents[1] / "tests" / "crafter" / "crafter_worlds.json"


def envzoo_counts(worlds: int) -> tuple[dict[str, np.ndarray], float]:
    """Per material its share of each world, per creature its count; and seconds per world."""
    sim = CrafterSim(make_params(), worlds, 1)
    keys = keys_from([np.random.default_rng(10_000 + seed) for seed in range(worlds)])
    sim.reset(np.arange(1), keys[:1])  # compiles (or loads) the kernels
    began = time.perf_counter()
    sim.reset(np.arange(worlds), keys)
    seconds = (time.perf_counter() - began) / worlds
    values = {name: (sim.material == rules.MATERIALS.index(name)).mean((1, 2)) for name in rules.MATERIALS[:10]}
    values.update({name: (sim.kind == rules.OBJECTS.index(name)).sum(1).astype(float)
                   for name in ("cow", "zombie", "skeleton")})
    return values, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=2000)
    args = parser.parse_args()
    crafter = json.loads(CRAFTER_TABLE.read_text())
    reference = {**crafter["materials"], **crafter["creatures"]}
    ours, seconds = envzoo_counts(args.worlds)
    print(f"envzoo: {args.worlds} worlds ({1000 * seconds:.2f} ms each); crafter: {crafter['worlds']} worlds "
          f"({crafter['source']})")
    print("| material or creature | envzoo | crafter | difference | z | spread envzoo | spread crafter |")
    print("|---|---|---|---|---|---|---|")
    for name, theirs in reference.items():
        mean, spread = ours[name].mean(), ours[name].std(ddof=1)
        error = np.hypot(spread / np.sqrt(args.worlds), theirs["std"] / np.sqrt(crafter["worlds"]))
        unit = (lambda v: f"{100 * v:.3f} %") if name in crafter["materials"] else (lambda v: f"{v:.2f}")
        print(f"| {name} | {unit(mean)} | {unit(theirs['mean'])} | {100 * (mean / theirs['mean'] - 1):+.1f} % "
              f"| {(mean - theirs['mean']) / error:+.1f} | {unit(spread)} | {unit(theirs['std'])} |")


if __name__ == "__main__":
    main()
