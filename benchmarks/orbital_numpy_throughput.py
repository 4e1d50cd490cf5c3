"""Throughput of the orbit propagators (two-body + J2, 60 s steps): numpy and Orekit.

    python benchmarks/orbital_numpy_throughput.py [--seconds 2]

Prints satellite-steps per second, one ``propagate`` call per 60 s step as an environment's step
would make it: the numpy order-8 integrator for 1, 1 000 and 10 000 objects propagated together,
and Orekit's numerical propagator (``OrekitPropagator``, default tolerance) for 1 and 10 objects
(skipped with a message when the ``orbital`` extra is not installed).
"""

import argparse
import os
import platform
import time

import numpy as np

from envzoo.core.extras import is_installed
from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS
from envzoo.orbital.physics.elements import KeplerianElements
from envzoo.orbital.physics.propagation import OrbitState, propagate

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


def steps_per_second(advance, count: int, seconds: float) -> float:
    """Satellite-steps per second of ``advance()``, one 60 s step of ``count`` objects a call."""
    steps, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        advance()
        steps += 1
    return steps * count / elapsed


def numpy_rate(state: OrbitState, seconds: float) -> float:
    def advance():
        nonlocal state
        state = propagate(state, STEP)

    return steps_per_second(advance, len(state), seconds)


def orekit_rate(state: OrbitState, seconds: float) -> float:
    from envzoo.orbital.physics.orekit.propagation import OrekitPropagator

    propagator = OrekitPropagator(state.position, state.velocity, "2024-01-01T00:00:00")
    propagator.propagate(STEP)  # the first call loads classes and JIT-compiles; not measured
    return steps_per_second(lambda: propagator.propagate(STEP), len(state), seconds)


def report(backend: str, count: int, rate: float) -> None:
    print(f"{backend:>7} {f'{count:,} objects':>16}: {rate:>12,.0f} satellite-steps/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="measuring time per size")
    args = parser.parse_args()
    print(f"J2 propagators, {STEP:.0f} s steps, on {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs")
    rng = np.random.default_rng(0)
    for count in (1, 1_000, 10_000):
        report("numpy", count, numpy_rate(leo_population(count, rng), args.seconds))
    if not is_installed("orbital"):
        print('  orekit: skipped, the orbital extra is not installed (pip install "envzoo[orbital]")')
        return
    for count in (1, 10):
        report("orekit", count, orekit_rate(leo_population(count, rng), args.seconds))


if __name__ == "__main__":
    main()
