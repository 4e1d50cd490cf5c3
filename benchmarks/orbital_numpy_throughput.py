"""Throughput of the numpy orbit propagator (two-body + J2, order-8 extrapolation, 60 s steps).

    python benchmarks/orbital_numpy_throughput.py [--seconds 2]

Prints satellite-steps per second for 1, 1 000 and 10 000 objects propagated together, one
``propagate`` call per 60 s step, as an environment's step would make it.
"""

import argparse
import os
import platform
import time

import numpy as np

from envzoo.orbital.constants import EQUATORIAL_RADIUS
from envzoo.orbital.elements import KeplerianElements
from envzoo.orbital.propagation import OrbitState, propagate

STEP = 60.0


def leo_population(count: int, rng: np.random.Generator) -> OrbitState:
    elements = KeplerianElements(
        semi_major_axis=EQUATORIAL_RADIUS + rng.uniform(400e3, 1200e3, count),
        eccentricity=rng.uniform(0.0, 0.02, count),
        inclination=rng.uniform(0.0, np.pi, count),
        raan=rng.uniform(0, 2 * np.pi, count),
        argument_of_perigee=rng.uniform(0, 2 * np.pi, count),
        true_anomaly=rng.uniform(0, 2 * np.pi, count),
    )
    return OrbitState.from_elements(elements)


def steps_per_second(state: OrbitState, seconds: float) -> float:
    steps, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        state = propagate(state, STEP)
        steps += 1
    return steps * len(state) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="measuring time per size")
    args = parser.parse_args()
    print(f"numpy J2 propagator, {STEP:.0f} s steps, on {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs")
    rng = np.random.default_rng(0)
    for count in (1, 1_000, 10_000):
        rate = steps_per_second(leo_population(count, rng), args.seconds)
        print(f"{f'{count:,} objects':>16}: {rate:>12,.0f} satellite-steps/s")


if __name__ == "__main__":
    main()
