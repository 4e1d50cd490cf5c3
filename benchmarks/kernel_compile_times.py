"""Seconds numba spends compiling each kernel of a domain on a cold cache: the first ``envzoo
tour``'s wait, kernel by kernel.

Runs the warm-up of one domain (a few steps of the first reference policy on every installed id,
as ``envzoo warmup`` does) in a new process whose ``NUMBA_CACHE_DIR`` is an empty temporary
folder, and prints every compiled kernel with its own seconds (the time of the kernels it calls,
compiled while it is typed, counted under theirs) and the number of signatures compiled. The
seconds are CPU seconds of the compiling thread, which the machine's other load barely changes
(the wall-clock seconds of the whole warm-up are printed too).

    python benchmarks/kernel_compile_times.py serverless orbital [--top 15]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

_WORKER = r"""
import json, sys, time
from collections import defaultdict
from numba.core import event

own, signatures, stack = defaultdict(float), defaultdict(int), []

class Timer(event.Listener):
    def on_start(self, e):
        stack.append([e.data["dispatcher"].py_func, time.thread_time(), 0.0])
    def on_end(self, e):
        function, start, nested = stack.pop()
        spent = time.thread_time() - start
        name = f"{function.__module__}.{function.__qualname__}"
        own[name] += spent - nested
        signatures[name] += 1
        if stack:
            stack[-1][2] += spent

event.register("numba:compile", Timer())
import envzoo
from envzoo.tools.parallel_runs import play
from envzoo.tools.warmup import warmup_runs
start = time.perf_counter()
play([run for run in warmup_runs() if envzoo.env_info(run.env_id).domain == sys.argv[1]], 1, 0)
total = time.perf_counter() - start
print(json.dumps({"total": total, "own": own, "signatures": signatures}))
"""


def compile_times(domain: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="envzoo-compile-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "ENVZOO_CACHE_DIR": os.path.join(cache, "envzoo")}
        done = subprocess.run([sys.executable, "-c", _WORKER, domain], env=env, check=True,
                              capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domains", nargs="+")
    parser.add_argument("--top", type=int, default=12, help="kernels listed per domain")
    args = parser.parse_args()
    for domain in args.domains:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        result = compile_times(domain)
        wall = time.perf_counter() - start
        compiled = sum(result["own"].values())
        print(f"\n{domain}: warm-up {result['total']:.1f} s wall-clock (process {wall:.1f} s), compiling "
              f"{compiled:.1f} CPU s, load average {load:.1f}")
        print(f"{'kernel':<60} {'CPU s':>6} {'signatures':>10}")
        for name, seconds in sorted(result["own"].items(), key=lambda item: -item[1])[:args.top]:
            print(f"{name:<60} {seconds:6.1f} {result['signatures'][name]:>10}")


if __name__ == "__main__":
    main()
