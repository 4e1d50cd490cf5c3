"""The serverless simulator's M/M/10 queue at 80 % load against Erlang C, tick by tick: the mean
wait and the mean time in system at several ``dt``, with their standard errors over instances.

    python benchmarks/serverless_erlang_c.py [--dt 0.1 0.05 0.02 0.01] [--instances 512] [--steps 120]

Service in the simulator is geometric in ticks (a request completes in a tick with probability
μ·dt), whose variance is 1 − μ·dt of the exponential's; an M/G/c queue waits about (1 + C²) / 2
as long as M/M/c (Allen–Cunneen), so the wait is about μ·dt / 2 low (5 % at the default tick),
while the time in system, dominated by the service's mean, stays within 1 %. The column
"M/G/c" is that approximation. The configuration is tests/serverless/test_queueing.py's.
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from serverless.test_queueing import erlang_c_wait, fixed_pool, run  # noqa: E402

from envzoo.serverless.sim import ServerlessSim  # noqa: E402

SERVERS, ARRIVAL_RATE, SERVICE_RATE = 10, 8.0, 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dt", type=float, nargs="+", default=[0.1, 0.05, 0.02, 0.01], help="ticks (s)")
    parser.add_argument("--instances", type=int, default=512, help="independent queues per dt")
    parser.add_argument("--steps", type=int, default=120, help="10 s intervals per queue (5 more are warm-up)")
    args = parser.parse_args()
    wait = erlang_c_wait(SERVERS, ARRIVAL_RATE, SERVICE_RATE)
    print(f"M/M/{SERVERS}, arrivals {ARRIVAL_RATE}/s, mean service {1 / SERVICE_RATE} s: Erlang C wait {wait:.4f} s, "
          f"time in system {wait + 1 / SERVICE_RATE:.4f} s; {args.instances} queues x {args.steps * 10} s per dt "
          f"({platform.processor() or platform.machine()}, {os.cpu_count()} CPUs)")
    print(f"{'dt (s)':>7} {'wait (s)':>9} {'vs Erlang C':>16} {'M/G/c':>7} {'in system (s)':>14} {'vs Erlang C':>16} "
          f"{'seconds':>8}")
    for dt in args.dt:
        started = time.perf_counter()
        sim = ServerlessSim(fixed_pool(SERVERS, dt), {"kind": "constant", "rate": ARRIVAL_RATE}, args.instances)
        sim.reset(np.arange(args.instances), np.arange(1, args.instances + 1, dtype=np.uint64) * 7919)
        totals = run(sim, steps=args.steps, concurrency=1, skip=5)
        admitted = totals["admitted"][:, 0]
        waits, sojourns = totals["queue_seconds"][:, 0] / admitted, totals["request_seconds"][:, 0] / admitted
        mean_wait = totals["queue_seconds"].sum() / admitted.sum()
        mean_sojourn = totals["request_seconds"].sum() / admitted.sum()
        wait_error, sojourn_error = (np.std(x, ddof=1) / np.sqrt(args.instances) for x in (waits, sojourns))
        allen_cunneen = (1 + (1 - SERVICE_RATE * dt)) / 2 - 1
        print(f"{dt:>7g} {mean_wait:>9.4f} {mean_wait / wait - 1:>+8.1%} ± {wait_error / wait:>4.1%} "
              f"{allen_cunneen:>+7.1%} {mean_sojourn:>14.4f} {mean_sojourn / (wait + 1) - 1:>+8.2%} ± "
              f"{sojourn_error / (wait + 1):>4.2%} {time.perf_counter() - started:>8.0f}", flush=True)


if __name__ == "__main__":
    main()
