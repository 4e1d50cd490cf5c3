"""Programs per second through Reasoning-v0's verifier: sandboxed (warm bubblewrap workers) and
unsandboxed (the ``ENVZOO_UNSAFE_NO_SANDBOX=1`` runner, a fresh ``python -I`` per program).

    python sandbox_throughput.py [--programs 200] [--threads 2]

The programs are the code family's reference solutions over its five levels (8 tests each),
``--threads`` at a time (one per core, as a trainer verifying a batch would). For each mode it
prints the wall-clock rate and the CPU seconds per program (this process plus every process it
started, workers included), and the rate those CPU seconds allow on ``--threads`` idle cores:
on a machine that other work loads, the wall-clock rate says more about the load than about the
sandbox. Every program must pass every test in both modes (the rewards do not change).
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from envzoo.core.sandbox import run_solution, runner
from envzoo.text.reasoning.code import LEVELS, make_code_task


def tasks(count: int) -> list:
    rng = np.random.default_rng(0)
    return [make_code_task(rng, 1 + i % LEVELS) for i in range(count)]


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(label: str, batch: list, threads: int) -> None:
    failures = []

    def verify(task) -> bool:
        outcome = run_solution(task.solution, task.inputs)
        if outcome.outputs != task.expected:
            failures.append(outcome.failure or "wrong outputs")
        return outcome.outputs == task.expected

    with ThreadPoolExecutor(threads) as pool:  # warm up: workers started, code paths loaded
        assert all(pool.map(verify, batch[:threads]))
    cpu, start = cpu_seconds(), time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        passed = sum(pool.map(verify, batch))
    wall = time.perf_counter() - start
    if "pool" in runner._state:  # workers stop here, so that their CPU time is counted
        runner._state.pop("pool").close()
    per_program = (cpu_seconds() - cpu) / len(batch)
    print(f"| {label} | {len(batch) / wall:,.0f} | {per_program * 1000:.1f} ms | {threads / per_program:,.0f} | "
          f"{passed} of {len(batch)} |")
    for failure in sorted(set(failures)):
        print(f"    failed: {failure}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    batch = tasks(args.programs)
    print(f"{args.programs} reference programs (8 tests each), {args.threads} at a time; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print("| runner | programs/s (wall) | CPU per program | programs/s the CPU allows on idle cores | passed |")
    print("|---|---|---|---|---|")
    measure("sandboxed (warm bubblewrap workers)", batch, args.threads)
    os.environ[runner.UNSAFE_VARIABLE] = "1"
    measure("unsandboxed (python -I per program)", batch, args.threads)


if __name__ == "__main__":
    main()
