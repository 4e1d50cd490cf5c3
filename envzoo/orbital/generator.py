"""Synthetic conjunction scenarios: a primary in LEO and debris on designed collision courses.

Each debris object is built at its time of closest approach (TCA), then propagated back to the
episode start (epoch 0) with the numpy propagator, so that propagating forward again reproduces
the designed encounter:

1. the primary, from its Keplerian elements at epoch 0, is propagated to the TCA;
2. the debris velocity is the primary's velocity turned by the *crossing angle* about the
   primary's radial direction (the radial component is kept, as for two near-circular orbits
   crossing)
   and scaled by a *speed ratio*; the relative velocity follows, and with it the encounter plane
   (:func:`envzoo.orbital.collision.encounter_plane_basis`);
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
scenario.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.orbital.collision import encounter_plane_basis
from envzoo.orbital.elements import cartesian_to_keplerian
from envzoo.orbital.params import ConjunctionParams
from envzoo.orbital.propagation import OrbitState, integrate


@dataclass(frozen=True)
class ConjunctionScenario:
    """A generated scenario: states at epoch 0 and the designed encounters, one per debris.

    ``miss_radial`` and ``miss_cross`` are the miss vector's components (m) along the
    encounter-plane axes of :func:`~envzoo.orbital.collision.encounter_plane_basis`, secondary
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


def _rotate_about(vectors: np.ndarray, unit_axes: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Rodrigues' rotation of each vector about its unit axis by its angle (right-hand rule)."""
    cos, sin = np.cos(angles)[:, None], np.sin(angles)[:, None]
    along_axis = np.einsum("ij,ij->i", unit_axes, vectors)[:, None] * unit_axes
    return vectors * cos + np.cross(unit_axes, vectors) * sin + along_axis * (1 - cos)


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


def draw_design(params: ConjunctionParams, rng: np.random.Generator) -> EncounterDesign:
    """Draw ``params.n_debris`` encounters from ``params``' ranges with ``rng``."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
                        f"got {type(rng).__name__}")
    count = params.n_debris
    tca = rng.uniform(*params.tca_window, count)
    miss = rng.uniform(*params.miss_distance_range, count)
    miss_direction = rng.uniform(0.0, 2 * np.pi, count)
    crossing = rng.uniform(*params.crossing_angle_range, count) * rng.choice([-1.0, 1.0], count)
    speed_ratio = rng.uniform(*params.speed_ratio_range, count)
    return EncounterDesign(tca, miss, miss_direction, crossing, speed_ratio)


@dataclass(frozen=True)
class DesignedEncounter:
    """Debris states (N, 3) at their TCAs, built by :func:`debris_at_encounter`, and the
    encounter geometry (N,) they realise (see :class:`ConjunctionScenario` for the names)."""

    debris_position: np.ndarray
    debris_velocity: np.ndarray
    miss_radial: np.ndarray
    miss_cross: np.ndarray
    relative_speed: np.ndarray


def debris_at_encounter(design: EncounterDesign, primary_position: np.ndarray,
                        primary_velocity: np.ndarray, mu: float) -> DesignedEncounter:
    """Steps 2 and 3 of the module docstring: the debris states at TCA, given the primary's
    states (N, 3) at each design's TCA."""
    radial_unit = primary_position / np.linalg.norm(primary_position, axis=1)[:, None]
    debris_velocity = design.speed_ratio[:, None] * _rotate_about(primary_velocity, radial_unit,
                                                                  design.crossing_angle)
    relative_velocity = debris_velocity - primary_velocity
    basis = encounter_plane_basis(primary_position, relative_velocity)
    miss_radial = design.miss_distance * np.cos(design.miss_direction)
    miss_cross = design.miss_distance * np.sin(design.miss_direction)
    debris_position = (primary_position + miss_radial[:, None] * basis[:, 0]
                       + miss_cross[:, None] * basis[:, 1])
    try:
        cartesian_to_keplerian(debris_position, debris_velocity, mu)
    except ValueError as error:
        raise ValueError(f"a designed debris orbit is not a valid Earth orbit ({error}); narrow "
                         f"speed_ratio_range towards 1") from None
    return DesignedEncounter(debris_position, debris_velocity, miss_radial, miss_cross,
                             np.linalg.norm(relative_velocity, axis=1))


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
