"""Env-steps per second of every id with a JAX backend, its functional env vmapped over
N = 2^10 ... 2^20 instances and rolled out by one jitted ``lax.scan`` on JAX's default device
(random actions drawn on the device, autoreset): ``envzoo.tools.throughput.jax_scan_rate``.

    python jax_throughput.py                      # every JAX id, N = 2^10 ... 2^20, 100 steps
    python jax_throughput.py --log2 10 14 16      # N = 2^10, 2^14, 2^16 only (a CPU, or less memory)
    python jax_throughput.py --ids envzoo/MarketMakingAS-v1 --steps 200

Prints one row per id and N with the device JAX ran on. A size that does not fit in the
device's memory prints the error instead of a figure and ends that id's sizes.
"""

import argparse
import time

import jax

import envzoo.jax
from envzoo.tools.throughput import jax_scan_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ids", nargs="+", default=envzoo.jax.ids(), choices=envzoo.jax.ids(), metavar="ID")
    parser.add_argument("--log2", type=int, nargs="+", default=list(range(10, 21)),
                        help="the sizes N = 2^k to run, as k (10 ... 20)")
    parser.add_argument("--steps", type=int, default=100, help="steps of each rollout (100)")
    args = parser.parse_args()

    device = jax.devices()[0]
    print(f"{time.strftime('%Y-%m-%d')}, JAX {jax.__version__} on {device.platform}: {device.device_kind}")
    print(f"{'id':<28} {'N':>9} {'env-steps/s':>15} {'seconds':>8}")
    for env_id in args.ids:
        for log2 in args.log2:
            n = 2**log2
            start = time.perf_counter()
            try:
                rate = jax_scan_rate(env_id, n, args.steps)
            except Exception as error:  # out of device memory ends this id's sizes, said as it is
                print(f"{env_id:<28} {n:>9,} {type(error).__name__}: {str(error).splitlines()[0][:80]}")
                break
            print(f"{env_id:<28} {n:>9,} {rate:>15,.0f} {time.perf_counter() - start:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
