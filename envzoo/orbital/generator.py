"""Synthetic conjunction scenarios: a primary in LEO and debris on designed collision courses.

Each debris object is built at its time of closest approach (TCA), then propagated back to the
episode start (epoch 0) with the numpy propagator, so that propagating forward again reproduces
the designed encounter:

1. the primary, from its Keplerian elements at epoch 0, is propagated to the TCA;
2. the debris velocity is the primary's velocity turned by the *crossing angle* about the
   primary's radial direction (the radial component is kept, as for two near-circular orbits
   crossing)
   and scaled by a *speed ratio*; the relative velocity follows, and with it the encounter plane
   (:func:`envzoo.orbital.physics.collision.encounter_plane_basis`);
3. the debris position is the primary's plus the designed miss vector, given by its (radial,
   cross) components in the encounter plane. Being perpendicular to the relative velocity, it
   makes the range rate zero: the TCA is where it was designed;
4. the debris state is propagated back to epoch 0.

A debris object with the primary's speed at TCA has the primary's orbital period and meets it
again about every half orbit, possibly closer than designed. The default speed ratio of
0.99–1.01 changes the period by up to 3 % (0.3 % already moves the passes an orbit away by
about 100 km), though a ratio drawn very near 1 can still repeat the encounter closely. The
designed encounter is the one at the designed TCA.

Everything random is drawn from the ``numpy.random.Generator`` passed in, so a seed gives one
scenario. Steps 2 and 3 of one encounter are a compiled kernel (:func:`debris_at_encounter_of`),
which :func:`debris_at_encounter` loops over the encounters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.compiled import einsum_dot, kernel
from envzoo.orbital.params import ConjunctionParams
from envzoo.orbital.physics.collision import encounter_plane_of
from envzoo.orbital.physics.elements import (
    add3,
    cartesian_to_keplerian,
    cross3,
    divide3,
    norm3,
    scale3,
    subtract3,
    vector_of,
)
from envzoo.orbital.physics.propagation import OrbitState, integrate


@dataclass(frozen=True)
class ConjunctionScenario:
    """A generated scenario: states at epoch 0 and the designed encounters, one per debris.

    ``miss_radial`` and ``miss_cross`` are the miss vector's components (m) along the
    encounter-plane axes of :func:`~envzoo.orbital.physics.collision.encounter_plane_basis`, secondary
    minus primary.
    """

    primary: OrbitState
    debris: OrbitState
    tca: np.ndarray
    miss_radial: np.ndarray
    miss_cross: np.ndarray
    relative_speed: np.ndarray

    @property
    def miss_distance(self) -> np.ndarray:
        return np.hypot(self.miss_radial, self.miss_cross)


@dataclass(frozen=True)
class EncounterDesign:
    """The random draws behind the designed encounters, one entry per debris object (arrays
    (N,)): TCA (s), miss distance (m) and its direction in the encounter plane (rad), signed
    crossing angle (rad) and speed ratio. Drawing them apart from the geometry lets a batched
    simulator draw per episode and build the geometry of many episodes in one array call."""

    tca: np.ndarray
    miss_distance: np.ndarray
    miss_direction: np.ndarray
    crossing_angle: np.ndarray
    speed_ratio: np.ndarray


#: Rows of :func:`design_draws`: per encounter, uniforms in [0, 1) of the TCA, the miss distance,
#: its direction and the crossing angle, the side of the turn (0 or 1), a uniform of the speed ratio.
DESIGN_DRAWS = 6


def design_draws(rng: np.random.Generator, count: int) -> np.ndarray:
    """The draws (DESIGN_DRAWS, count) behind ``count`` designed encounters, in the order they
    come from ``rng`` (what :func:`design_from_draws` turns into an :class:`EncounterDesign`).
    A batched simulator draws them row by row from each episode's generator, then builds every
    row's design and geometry at once."""
    draws = np.empty((DESIGN_DRAWS, count))
    draws[:4] = rng.random(4 * count).reshape(4, count)
    draws[4] = rng.integers(0, 2, count)
    draws[5] = rng.random(count)
    return draws


def design_from_draws(params: ConjunctionParams, draws: np.ndarray) -> EncounterDesign:
    """The encounters (N,) of :func:`design_draws` (DESIGN_DRAWS, N): each quantity uniform in
    its range of ``params`` (as ``Generator.uniform`` maps a draw: low + (high − low) u), the
    crossing angle turned left or right."""
    def uniform(bounds, u):
        low, high = bounds
        return low + (high - low) * u

    crossing = uniform(params.crossing_angle_range, draws[3]) * np.where(draws[4] > 0, 1.0, -1.0)
    return EncounterDesign(uniform(params.tca_window, draws[0]), uniform(params.miss_distance_range, draws[1]),
                           uniform((0.0, 2 * np.pi), draws[2]), crossing, uniform(params.speed_ratio_range, draws[5]))


def draw_design(params: ConjunctionParams, rng: np.random.Generator) -> EncounterDesign:
    """Draw ``params.n_debris`` encounters from ``params``' ranges with ``rng``."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
                        f"got {type(rng).__name__}")
    return design_from_draws(params, design_draws(rng, params.n_debris))


@dataclass(frozen=True)
class DesignedEncounter:
    """Debris states (N, 3) at their TCAs, built by :func:`debris_at_encounter`, and the
    encounter geometry (N,) they realise (see :class:`ConjunctionScenario` for the names)."""

    debris_position: np.ndarray
    debris_velocity: np.ndarray
    miss_radial: np.ndarray
    miss_cross: np.ndarray
    relative_speed: np.ndarray


@kernel
def debris_at_encounter_of(primary_position, primary_velocity, cos_crossing, sin_crossing, speed_ratio, miss_radial,
                           miss_cross):
    """Steps 2 and 3 of the module docstring for one encounter: the debris position and velocity
    (3-vectors) at TCA from the primary's state there, the crossing angle's cosine and sine,
    the speed ratio and the miss vector's plane components; and the encounter plane's radial
    length (see :func:`~envzoo.orbital.physics.collision.encounter_plane_of`)."""
    radial_unit = divide3(primary_position, norm3(primary_position))
    # Rodrigues' rotation of the primary's velocity about the radial axis (right-hand rule).
    along_axis = scale3(einsum_dot(radial_unit, primary_velocity), radial_unit)
    turned = scale3(sin_crossing, cross3(radial_unit, primary_velocity))
    rotated = add3(add3(scale3(cos_crossing, primary_velocity), turned), scale3(1 - cos_crossing, along_axis))
    debris_velocity = scale3(speed_ratio, rotated)
    plane, radial_norm = encounter_plane_of(primary_position, subtract3(debris_velocity, primary_velocity))
    debris_position = add3(add3(primary_position, scale3(miss_radial, plane[0])), scale3(miss_cross, plane[1]))
    return debris_position, debris_velocity, radial_norm


@kernel
def _debris_states(primary_position, primary_velocity, cos_crossing, sin_crossing, speed_ratio, miss_radial,
                   miss_cross, position, velocity, radial_norm):
    for i in range(position.shape[0]):
        moved, moving, radial_norm[i] = debris_at_encounter_of(
            vector_of(primary_position[i]), vector_of(primary_velocity[i]), cos_crossing[i], sin_crossing[i],
            speed_ratio[i], miss_radial[i], miss_cross[i])
        for k in range(3):
            position[i, k], velocity[i, k] = moved[k], moving[k]


def debris_at_encounter(design: EncounterDesign, primary_position: np.ndarray,
                        primary_velocity: np.ndarray, mu: float) -> DesignedEncounter:
    """Steps 2 and 3 of the module docstring: the debris states at TCA, given the primary's
    states (N, 3) at each design's TCA."""
    primary_position = np.ascontiguousarray(primary_position, dtype=np.float64)
    primary_velocity = np.ascontiguousarray(primary_velocity, dtype=np.float64)
    miss_radial = design.miss_distance * np.cos(design.miss_direction)
    miss_cross = design.miss_distance * np.sin(design.miss_direction)
    position, velocity = np.empty_like(primary_position), np.empty_like(primary_velocity)
    radial_norm = np.empty(len(position))
    _debris_states(primary_position, primary_velocity, np.cos(design.crossing_angle), np.sin(design.crossing_angle),
                   np.ascontiguousarray(design.speed_ratio, dtype=np.float64), miss_radial, miss_cross, position,
                   velocity, radial_norm)
    if not np.all(radial_norm >= 1e-9):
        raise ValueError(f"designed encounters {np.flatnonzero(~(radial_norm >= 1e-9))} have a relative velocity "
                         f"that is zero or along the primary's radial direction: no encounter plane")
    try:
        cartesian_to_keplerian(position, velocity, mu)
    except ValueError as error:
        raise ValueError(f"a designed debris orbit is not a valid Earth orbit ({error}); narrow "
                         f"speed_ratio_range towards 1") from None
    return DesignedEncounter(position, velocity, miss_radial, miss_cross,
                             np.linalg.norm(velocity - primary_velocity, axis=1))


def generate_conjunctions(params: ConjunctionParams, rng: np.random.Generator) -> ConjunctionScenario:
    """Draw a scenario; see the module docstring for the construction."""
    design = draw_design(params, rng)
    count = params.n_debris
    primary = OrbitState.from_elements(params.primary, mu=params.gravity.mu)
    primary_position, primary_velocity = integrate(
        np.repeat(primary.position, count, axis=0), np.repeat(primary.velocity, count, axis=0),
        design.tca, params.gravity, params.max_step)
    encounter = debris_at_encounter(design, primary_position, primary_velocity, params.gravity.mu)
    start_position, start_velocity = integrate(encounter.debris_position, encounter.debris_velocity,
                                               -design.tca, params.gravity, params.max_step)
    return ConjunctionScenario(
        primary=primary,
        debris=OrbitState(start_position, start_velocity, 0.0),
        tca=design.tca,
        miss_radial=encounter.miss_radial,
        miss_cross=encounter.miss_cross,
        relative_speed=encounter.relative_speed,
    )
