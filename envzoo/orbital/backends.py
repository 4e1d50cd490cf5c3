"""How the collision-avoidance core propagates orbits: one question, two backends.

The core (:mod:`envzoo.orbital.sim`) asks a single thing of a propagator: "these N states
(N, 3), each advanced by its own duration (N,) in seconds" (negative durations go backwards,
zero leaves a state as it is). Everything else (impulses, encounters, tracking, the agent's view)
is array math on the answers, the same for every backend.

- ``"numpy"``: two-body + J2 with the order-8 extrapolation integrator of
  :mod:`envzoo.orbital.propagation`, ⌈duration / ``max_step``⌉ equal substeps for a decision
  step; batched, fast, the default.
- ``"orekit"``: Orekit's numerical propagator (Dormand–Prince 8(5,3), point mass +
  ``J2OnlyPerturbation``) through :class:`~envzoo.orbital.orekit_backend.OrekitPropagator`, one
  propagator per distinct duration of a call. The same force model and constants as numpy
  (:mod:`envzoo.orbital.constants`), so the two agree to a metre over an 8 h episode (tested
  over 2 h); it is the reference implementation, far slower per object (see
  ``benchmarks/orbital_numpy_throughput.py``). Needs the ``orbital`` extra.

Both are stateless (a state in, a state out), so a simulator that uses them pickles and gives
the same trajectory for the same inputs whatever the batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from envzoo.orbital.propagation import TWO_BODY, GravityModel, extrapolation_step

BACKENDS = ("numpy", "orekit")

# Orekit needs a date. Point mass + J2 about EME2000's Z axis does not depend on it (the pole is
# fixed, see envzoo.orbital.constants), so any date gives the same trajectory.
_OREKIT_EPOCH_UTC = "2024-01-01T00:00:00"


@dataclass(frozen=True)
class NumpyPropagation:
    """The numpy integrator: ``substeps`` order-8 steps of duration / substeps for durations up
    to ``decision_step_s`` (so equal inputs give equal results whatever the batch), and as many
    more in proportion for longer ones (moving a CDM's TCA state to the episode start)."""

    gravity: GravityModel
    substeps: int
    decision_step_s: float

    def advance(self, position: np.ndarray, velocity: np.ndarray, durations: np.ndarray):
        durations = np.asarray(durations, dtype=np.float64)
        longest = float(np.max(np.abs(durations), initial=0.0))
        count = self.substeps * max(1, math.ceil(longest / self.decision_step_s))
        step = durations / count
        for _ in range(count):
            position, velocity = extrapolation_step(position, velocity, step, self.gravity)
        return position, velocity


@dataclass(frozen=True)
class OrekitPropagation:
    """Orekit's numerical propagator with ``gravity`` (``"j2"`` or ``"point_mass"``) and an
    integrator error target of ``position_tolerance`` metres per step."""

    gravity: str
    position_tolerance: float = 0.01

    def advance(self, position: np.ndarray, velocity: np.ndarray, durations: np.ndarray):
        from envzoo.orbital.orekit_backend import ForceOptions, OrekitPropagator

        durations = np.asarray(durations, dtype=np.float64)
        position, velocity = np.array(position, dtype=np.float64), np.array(velocity, dtype=np.float64)
        # OrekitPropagator steps all its objects by one dt: one propagator per distinct duration.
        for duration in np.unique(durations[durations != 0]):
            chosen = durations == duration
            propagator = OrekitPropagator(position[chosen], velocity[chosen], _OREKIT_EPOCH_UTC,
                                          ForceOptions(gravity=self.gravity),
                                          position_tolerance=self.position_tolerance)
            position[chosen], velocity[chosen] = propagator.propagate(float(duration))
        return position, velocity


def make_propagation(backend: str, gravity: GravityModel, max_step: float, decision_step_s: float):
    """The propagation of ``backend`` for a scenario's ``gravity`` and integrator ``max_step``."""
    if backend == "numpy":
        return NumpyPropagation(gravity, max(1, math.ceil(decision_step_s / max_step)), decision_step_s)
    if backend == "orekit":
        if gravity == GravityModel():
            return OrekitPropagation("j2")
        if gravity == TWO_BODY:
            return OrekitPropagation("point_mass")
        raise ValueError(f"backend='orekit' models the Earth's J2 with the constants of envzoo.orbital.constants "
                         f"(or without J2: j2=0); got the gravity model {gravity}: use backend='numpy' for "
                         f"other constants")
    raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
