"""How the collision-avoidance core propagates orbits: one question, two backends.

The core (:mod:`envzoo.orbital.sim`) asks a single thing of a propagator: "these N states
(N, 3), each advanced by its own duration (N,) in seconds" (negative durations go backwards,
zero leaves a state as it is), the states being ``start_s`` (scalar or (N,)) seconds into the
episode, for forces that depend on the date (the Earth's rotation under the 4x4 field, the Sun
for drag). Everything else (impulses, encounters, tracking, the agent's view) is array math on
the answers, the same for every backend.

- ``"numpy"``: two-body + J2 with the order-8 extrapolation integrator of
  :mod:`envzoo.orbital.physics.propagation`, ⌈duration / ``max_step``⌉ equal substeps for a decision
  step; batched, fast, the default.
- ``"orekit"``: Orekit's numerical propagator (Dormand–Prince 8(5,3), point mass +
  ``J2OnlyPerturbation``) through :class:`~envzoo.orbital.physics.orekit.propagation.OrekitPropagator`, one
  propagator per distinct (start, duration) of a call. The same force model and constants as numpy
  (:mod:`envzoo.orbital.physics.constants`), so the two agree to a metre over an 8 h episode (tested
  over 2 h); it is the reference implementation, far slower per object (see
  ``benchmarks/orbital_numpy_throughput.py``). Needs the ``orbital`` extra. Its ``force_model``
  may also be ``"4x4"`` (EGM96 gravity to degree and order 4, in the Earth-fixed frame) or
  ``"4x4+drag"`` (plus Harris–Priester drag on a 500 kg, 1 m², Cd 2.2 spacecraft), which numpy
  does not model.

Both are stateless (a state in, a state out), so a simulator that uses them pickles and gives
the same trajectory for the same inputs whatever the batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from envzoo.orbital.params import BACKENDS
from envzoo.orbital.physics.propagation import TWO_BODY, GravityModel, advance_objects

#: The forces a backend may model: numpy models "j2" only.
FORCE_MODELS = ("j2", "4x4", "4x4+drag")

# Orekit needs a date. Point mass + J2 about EME2000's Z axis does not depend on it (the pole is
# fixed, see envzoo.orbital.physics.constants), so any date gives the same trajectory; the 4x4 field
# (Earth rotation) and drag (the Sun's position) do depend on it.
DEFAULT_EPOCH_UTC = "2024-01-01T00:00:00"


@dataclass(frozen=True)
class NumpyPropagation:
    """The numpy integrator: ``substeps`` order-8 steps of duration / substeps for durations up
    to ``decision_step_s`` (so equal inputs give equal results whatever the batch), and as many
    more in proportion for longer ones (moving a CDM's TCA state to the episode start)."""

    gravity: GravityModel
    substeps: int
    decision_step_s: float

    def advance(self, position: np.ndarray, velocity: np.ndarray, durations: np.ndarray, start_s=0.0):
        """``start_s`` (the states' time into the episode) is unused: two-body + J2 about a fixed
        pole does not depend on the date."""
        durations = np.asarray(durations, dtype=np.float64)
        count = self.step_count(float(np.max(np.abs(durations), initial=0.0)))
        return advance_objects(position, velocity, durations / count, count, self.gravity)

    def step_count(self, longest_s: float) -> int:
        """The order-8 steps of a call whose longest duration is ``longest_s`` seconds."""
        return self.substeps * max(1, math.ceil(longest_s / self.decision_step_s))


@dataclass(frozen=True)
class OrekitPropagation:
    """Orekit's numerical propagator with ``gravity`` (``"j2"``, ``"point_mass"`` or ``"4x4"``),
    Harris–Priester ``drag`` or not, time 0 at ``epoch_utc``, and an integrator error target of
    ``position_tolerance`` metres per step."""

    gravity: str
    drag: bool = False
    epoch_utc: str = DEFAULT_EPOCH_UTC
    position_tolerance: float = 0.01

    def advance(self, position: np.ndarray, velocity: np.ndarray, durations: np.ndarray, start_s=0.0):
        from envzoo.orbital.physics.orekit.convert import shifted_utc
        from envzoo.orbital.physics.orekit.propagation import ForceOptions, OrekitPropagator

        durations = np.asarray(durations, dtype=np.float64)
        starts = np.broadcast_to(np.asarray(start_s, dtype=np.float64), durations.shape)
        position, velocity = np.array(position, dtype=np.float64), np.array(velocity, dtype=np.float64)
        moving = durations != 0
        # OrekitPropagator steps all its objects by one dt from one date: one propagator per
        # distinct (start, duration) of a call.
        for start, duration in np.unique(np.stack([starts[moving], durations[moving]], axis=1), axis=0):
            chosen = (starts == start) & (durations == duration)
            propagator = OrekitPropagator(position[chosen], velocity[chosen], shifted_utc(self.epoch_utc, start),
                                          ForceOptions(gravity=self.gravity, drag=self.drag),
                                          position_tolerance=self.position_tolerance)
            position[chosen], velocity[chosen] = propagator.propagate(float(duration))
        return position, velocity


def make_propagation(backend: str, gravity: GravityModel, max_step: float, decision_step_s: float,
                     force_model: str = "j2", epoch_utc: str = DEFAULT_EPOCH_UTC):
    """The propagation of ``backend`` for a scenario's ``gravity`` and integrator ``max_step``;
    ``force_model`` other than ``"j2"`` (Orekit only) replaces ``gravity`` but for its μ."""
    if force_model not in FORCE_MODELS:
        raise ValueError(f"force_model must be one of {FORCE_MODELS}, got {force_model!r}")
    if backend == "numpy":
        if force_model != "j2":
            raise ValueError(f"backend='numpy' models two-body + J2 only (force_model='j2'); "
                             f"force_model={force_model!r} needs backend='orekit'")
        return NumpyPropagation(gravity, max(1, math.ceil(decision_step_s / max_step)), decision_step_s)
    if backend == "orekit":
        if force_model != "j2":
            return OrekitPropagation("4x4", drag=force_model.endswith("+drag"), epoch_utc=epoch_utc)
        if gravity == GravityModel():
            return OrekitPropagation("j2", epoch_utc=epoch_utc)
        if gravity == TWO_BODY:
            return OrekitPropagation("point_mass", epoch_utc=epoch_utc)
        raise ValueError(f"backend='orekit' models the Earth's J2 with the constants of envzoo.orbital.physics.constants "
                         f"(or without J2: j2=0); got the gravity model {gravity}: use backend='numpy' for "
                         f"other constants")
    raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
