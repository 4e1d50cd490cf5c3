"""Record the statistics of new worlds of the ``crafter`` package, for ``tests/crafter/test_world.py``.

Crafter's own generator (crafter 1.8.3, OpenSimplex noise from ``opensimplex``) makes the worlds
of ``crafter.Env(seed=s).reset()`` for s = 0, 1, ..., N - 1 (64 x 64, the player in the middle),
and this writes, per material and per creature, the mean and standard deviation over worlds of its
share of the map (its count for creatures) and, for the rare ones, how many worlds hold each count.
The test compares envzoo's worlds with this table, so the test needs no ``crafter``.

In a virtualenv of its own: opensimplex 0.4.5.1 (crafter's noise) installs a top-level
``tests`` package that hides this repository's ``tests`` from ``from tests.crafter ...``.

    python -m venv /tmp/crafter-venv && /tmp/crafter-venv/bin/pip install crafter==1.8.3 numpy
    /tmp/crafter-venv/bin/python tests/crafter/tools/record_crafter_worlds.py --worlds 4000
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

#: Where the test reads the table.
TABLE = Path(__file__).resolve().parents[1] / "crafter_worlds.json"
MATERIALS = ["water", "grass", "stone", "path", "sand", "tree", "lava", "coal", "iron", "diamond"]
CREATURES = ["cow", "zombie", "skeleton"]
#: Rare things, whose counts per world are kept as a histogram (count -> worlds).
RARE = ["lava", "iron", "diamond", "cow", "zombie", "skeleton"]


def world_counts(env, seed: int) -> dict[str, int]:
    """How many cells of each material and how many of each creature the world of
    ``crafter.Env(seed=seed).reset()`` holds (``env``: a crafter Env, reused: loading its textures
    takes longer than making a world)."""
    env._seed, env._episode = seed, 0
    env.reset()
    world = env._world
    counts = {name: int(np.sum(world._mat_map == world._mat_ids[name])) for name in MATERIALS}
    kinds = collections.Counter(type(obj).__name__.lower() for obj in world.objects)
    counts.update({name: kinds[name] for name in CREATURES})
    return counts


def table(per_world: list[dict[str, int]], area: int, seconds: float) -> dict:
    stats = {}
    for name in MATERIALS + CREATURES:
        values = np.array([counts[name] for counts in per_world], np.float64)
        values = values / area if name in MATERIALS else values
        entry = {"mean": float(values.mean()), "std": float(values.std(ddof=1))}
        if name in RARE:
            counts = collections.Counter(int(counts[name]) for counts in per_world)
            entry["worlds_with_count"] = {str(k): counts[k] for k in sorted(counts)}
        stats[name] = entry
    return {
        "source": f"crafter {version('crafter')}, opensimplex {version('opensimplex')}: crafter.Env(seed=s).reset() for s = 0 .. {len(per_world) - 1}, 64 x 64",
        "worlds": len(per_world),
        "seconds": round(seconds, 1),
        "materials": {name: stats[name] for name in MATERIALS},
        "creatures": {name: stats[name] for name in CREATURES},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=TABLE)
    args = parser.parse_args()
    began = time.perf_counter()
    import crafter

    env = crafter.Env()
    per_world = []
    for seed in range(args.worlds):
        per_world.append(world_counts(env, seed))
        if (seed + 1) % 100 == 0:
            print(f"{seed + 1} worlds, {time.perf_counter() - began:.0f} s", flush=True)
    result = table(per_world, 64 * 64, time.perf_counter() - began)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
