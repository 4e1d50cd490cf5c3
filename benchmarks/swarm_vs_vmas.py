"""The swarm beside VMAS 1.5's flocking: the same N, the same number of steps, in one run.

    python benchmarks/swarm_vs_vmas.py [--sizes 4 16 64 256] [--steps 200] [--batch 32]
        [--vmas-python /work/venv-vmas/bin/python]

VMAS needs the old ``gym`` (0.26), which envzoo's environment does not hold: it lives in a side
virtual environment, detected at ``--vmas-python`` (default ``/work/venv-vmas/bin/python``;
made with ``python -m venv /work/venv-vmas``, a ``.pth`` file naming envzoo's site-packages for
torch and numpy, and ``pip install --no-deps vmas==1.5.2 gym==0.26.2 gym-notices six``). This
script runs itself there (``--vmas-worker``) for VMAS's rows; without it those rows are skipped.

For each N, ``--steps`` steps with zero actions after a reset, steps/s of one population and
of ``--batch`` populations at once (env-steps/s: populations x steps / s):

- envzoo: ``SwarmParallel-v0`` ``flocking`` (the PettingZoo face, one population), its core
  ``SwarmSim`` (``--batch`` rows, the exact O(N²) mean field);
- VMAS: ``vmas.make_env("flocking", num_envs=1 | --batch, device="cpu")``, one torch thread.

The models differ: VMAS's agents are rigid bodies in a physics engine with lidar, obstacles and
a target; envzoo's are point robots with graphon-weighted mean fields. The rows compare what a
step of N robots costs in each.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def timed(step, steps: int) -> float:
    step()  # warm-up
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps / (time.perf_counter() - start)


def envzoo_rates(n: int, steps: int, batch: int) -> list[float]:
    from envzoo.swarm.parallel import SwarmParallelEnv
    from envzoo.swarm.params import make_params
    from envzoo.swarm.sim import SwarmSim

    env = SwarmParallelEnv(scenario="flocking", n_agents=n)  # no horizon
    env.reset(seed=0)
    actions = {agent: np.zeros(2, dtype=np.float32) for agent in env.possible_agents}
    sim = SwarmSim(make_params(scenario="flocking", n_agents=n), batch)
    sim.reset(np.arange(batch), np.arange(1, batch + 1, dtype=np.uint64))
    zeros = np.zeros((batch, n, 2))
    return [timed(lambda: env.step(actions), steps), batch * timed(lambda: sim.step(zeros), steps)]


def vmas_rate(n: int, steps: int, batch: int) -> float:
    """Runs in VMAS's environment: env-steps/s of ``batch`` flocking populations of ``n``."""
    import torch
    import vmas

    torch.set_num_threads(1)
    env = vmas.make_env("flocking", num_envs=batch, device="cpu", continuous_actions=True, n_agents=n)
    env.reset()
    actions = [torch.zeros(batch, 2) for _ in range(n)]
    return batch * timed(lambda: env.step(actions), steps)


def vmas_rates(python: Path, n: int, steps: int, batch: int) -> list[float]:
    out = subprocess.run([str(python), __file__, "--vmas-worker", str(n), str(steps), str(batch)],
                         capture_output=True, text=True, check=True).stdout
    return [float(value) for value in out.split()[-2:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 16, 64, 256])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--vmas-python", type=Path, default=Path("/work/venv-vmas/bin/python"))
    parser.add_argument("--vmas-worker", type=int, nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.vmas_worker:
        n, steps, batch = args.vmas_worker
        print(vmas_rate(n, steps, 1), vmas_rate(n, steps, batch))
        return
    vmas = args.vmas_python.is_file()
    print(f"steps/s on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; {args.steps} steps, "
          f"zero actions" + ("" if vmas else f"; VMAS rows skipped: no {args.vmas_python}"))
    columns = ["envzoo SwarmParallel-v0, 1 population", f"envzoo core, {args.batch} populations"]
    if vmas:
        columns += ["VMAS flocking, 1 env", f"VMAS flocking, {args.batch} envs"]
    print("| N | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for n in args.sizes:
        rates = envzoo_rates(n, args.steps, args.batch)
        if vmas:
            rates += vmas_rates(args.vmas_python, n, args.steps, args.batch)
        print(f"| {n:,} | " + " | ".join(f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}" for rate in rates) + " |",
              flush=True)


if __name__ == "__main__":
    sys.exit(main())
