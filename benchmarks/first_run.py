"""The first ``envzoo tour`` on a new machine against a second one: wall-clock and CPU seconds.

A first run has empty caches: the compiled kernels (``NUMBA_CACHE_DIR``), the travel-time atlases
and generated TextWorld games (``ENVZOO_CACHE_DIR``), all pointed at a new
temporary folder; the second run reuses them. CPU seconds (user + system of the tour and every
process it starts) say what a run costs on a loaded machine, where the wall clock depends on the
others' load; the load average is printed beside them.

    python benchmarks/first_run.py [--runs 2] [-- TOUR ARGUMENTS]

``--job-seconds`` instead plays a first tour's jobs (a domain each, in worker processes) and
prints the CPU seconds of each, in the form of ``envzoo.tools.parallel_runs.JOB_SECONDS``, which
orders the jobs longest first.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time


def timed_tour(env: dict, arguments: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one ``envzoo tour`` in a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "envzoo", "tour", *arguments], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


_JOB_SECONDS = r"""
import envzoo
from envzoo.cli import TOUR_EPISODES, TOUR_MAX_STEPS, _tour_steps
from envzoo.core.compiled import silence_compiling_notice
from envzoo.tools.parallel_runs import Run, play_all

silence_compiling_notice()
runs = [Run(entry.id, ref.name, _tour_steps(ref, TOUR_MAX_STEPS)) for entry in envzoo.list_envs(installed=True)
        for ref in entry.policies if ref.installed]
seconds = {}
play_all(runs, TOUR_EPISODES, 0, finished=lambda job, cpu: seconds.update({envzoo.env_info(job[0].env_id).domain: cpu}))
print("JOB_SECONDS = {" + ", ".join(f"{domain!r}: {cpu:.1f}" for domain, cpu in
                                   sorted(seconds.items(), key=lambda item: -item[1])) + "}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2, help="tours on the same caches (the first is cold)")
    parser.add_argument("--job-seconds", action="store_true",
                        help="print each domain's CPU seconds in a first tour instead")
    parser.add_argument("tour", nargs="*", help="arguments passed to `envzoo tour` (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="envzoo-first-run-") as caches:
        env = {**os.environ, "NUMBA_CACHE_DIR": os.path.join(caches, "numba"),
               "ENVZOO_CACHE_DIR": os.path.join(caches, "envzoo")}
        if args.job_seconds:
            subprocess.run([sys.executable, "-c", _JOB_SECONDS], env=env, check=True)
            return
        print(f"{os.cpu_count()} CPUs; envzoo tour {' '.join(args.tour)}")
        print("run     wall s    CPU s   load average (1 min) before, after")
        for run in range(args.runs):
            load = os.getloadavg()[0]
            wall, cpu = timed_tour(env, args.tour)
            label = "first" if run == 0 else f"warm {run}"
            print(f"{label:<7} {wall:7.1f}  {cpu:7.1f}   {load:.1f}, {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
