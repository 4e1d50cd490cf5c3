"""Orekit's numerical propagator with envzoo's array interface: start states (Keplerian
elements, TLEs), force models (J2, a 4×4 field, drag) and impulsive or finite burns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS, J2, MU
from envzoo.orbital.physics.orekit.convert import array_of, as_vectors, cartesian_orbit, eme2000, iso_utc, rtn_to_inertial, utc_date, vector3d
from envzoo.orbital.physics.orekit.jvm import start_orekit

_STANDARD_GRAVITY = 9.80665  # m/s², converts specific impulse to exhaust velocity



@dataclass(frozen=True)
class StartState:
    """One object's state: epoch (ISO-8601 UTC), position (m) and velocity (m/s) in EME2000."""

    epoch_utc: str
    position: np.ndarray
    velocity: np.ndarray


def keplerian_state(
    semi_major_axis: float,
    eccentricity: float,
    inclination: float,
    raan: float,
    argument_of_perigee: float,
    true_anomaly: float,
    epoch_utc: str,
) -> StartState:
    """The EME2000 state of osculating Keplerian elements (metres, radians) about the Earth (MU)."""
    if not semi_major_axis > 0 or not 0 <= eccentricity < 1:
        raise ValueError(
            f"Need an elliptic orbit: semi_major_axis > 0 m and 0 <= eccentricity < 1, "
            f"got {semi_major_axis} and {eccentricity}."
        )
    date = utc_date(epoch_utc)  # starts Orekit before its classes are imported
    from org.orekit.orbits import KeplerianOrbit, PositionAngleType

    orbit = KeplerianOrbit(
        float(semi_major_axis), float(eccentricity), float(inclination), float(argument_of_perigee),
        float(raan), float(true_anomaly), PositionAngleType.TRUE, eme2000(), date, MU,
    )  # fmt: skip
    pv = orbit.getPVCoordinates()
    return StartState(iso_utc(date), array_of(pv.getPosition()), array_of(pv.getVelocity()))


def tle_state(line1: str, line2: str) -> StartState:
    """The EME2000 state at the TLE's epoch, from Orekit's SGP4/SDP4 (TLEPropagator), TEME → EME2000."""
    start_orekit()
    from org.orekit.propagation.analytical.tle import TLE, TLEPropagator

    line1, line2 = line1.strip(), line2.strip()
    # The constructor does not verify checksums; isFormatOK returns False on a bad layout and
    # raises (naming the expected digit) on a bad checksum.
    try:
        format_ok = TLE.isFormatOK(line1, line2)
    except Exception as error:
        raise ValueError(f"Not a valid two-line element set: {error}") from error
    if not format_ok:
        raise ValueError(f"Not a valid two-line element set (line layout): {line1!r}, {line2!r}")
    tle = TLE(line1, line2)
    pv = TLEPropagator.selectExtrapolator(tle).getPVCoordinates(tle.getDate(), eme2000())
    return StartState(iso_utc(tle.getDate()), array_of(pv.getPosition()), array_of(pv.getVelocity()))


Gravity = Literal["point_mass", "j2", "4x4"]


@dataclass(frozen=True)
class ForceOptions:
    """Which forces act: the gravity model and whether Harris–Priester drag is on."""

    gravity: Gravity = "j2"
    drag: bool = False

    def __post_init__(self):
        if self.gravity not in ("point_mass", "j2", "4x4"):
            raise ValueError(f"gravity must be 'point_mass', 'j2' or '4x4', got {self.gravity!r}.")


@dataclass(frozen=True)
class Spacecraft:
    """Physical properties used by drag and maneuvers (SI units)."""

    mass: float = 500.0
    drag_area: float = 1.0
    drag_coefficient: float = 2.2
    specific_impulse: float = 220.0  # s, a hydrazine monopropellant thruster

    def __post_init__(self):
        for name in ("mass", "drag_area", "drag_coefficient", "specific_impulse"):
            if not getattr(self, name) > 0:
                raise ValueError(f"Spacecraft.{name} must be positive, got {getattr(self, name)}.")


def _earth_fixed_frame():
    from org.orekit.frames import FramesFactory
    from org.orekit.utils import IERSConventions

    return FramesFactory.getITRF(IERSConventions.IERS_2010, True)


def _force_models(options: ForceOptions, spacecraft: Spacecraft) -> list:
    """Orekit force models besides the central attraction (which the propagator adds from MU)."""
    forces = []
    if options.gravity == "j2":
        from org.orekit.forces.gravity import J2OnlyPerturbation

        forces.append(J2OnlyPerturbation(MU, EQUATORIAL_RADIUS, J2, eme2000()))
    elif options.gravity == "4x4":
        from org.orekit.forces.gravity import HolmesFeatherstoneAttractionModel
        from org.orekit.forces.gravity.potential import GravityFieldFactory

        field = GravityFieldFactory.getNormalizedProvider(4, 4)
        forces.append(HolmesFeatherstoneAttractionModel(_earth_fixed_frame(), field))
    if options.drag:
        from org.orekit.bodies import AnalyticalSolarPositionProvider, OneAxisEllipsoid
        from org.orekit.forces.drag import DragForce, IsotropicDrag
        from org.orekit.models.earth.atmosphere import HarrisPriester
        from org.orekit.utils import Constants

        earth = OneAxisEllipsoid(EQUATORIAL_RADIUS, Constants.WGS84_EARTH_FLATTENING, _earth_fixed_frame())
        atmosphere = HarrisPriester(AnalyticalSolarPositionProvider(), earth)
        forces.append(DragForce(atmosphere, IsotropicDrag(spacecraft.drag_area, spacecraft.drag_coefficient)))
    return forces



class OrekitPropagator:
    """Numerical propagation of N objects, stepped together; states as numpy arrays in EME2000.

    Arguments:
        positions, velocities: ``(N, 3)`` arrays, m and m/s, in EME2000 at ``epoch_utc``.
        epoch_utc: ISO-8601 UTC date of the initial states; ``time`` counts seconds from it.
        forces: :class:`ForceOptions` (default: point mass + J2).
        spacecraft: one :class:`Spacecraft` for all objects, or one per object.
        position_tolerance: integrator error target in metres per integration step (Orekit's
            ``NumericalPropagator.tolerances``); smaller is more accurate and slower. With the
            default 0.1 m, one day of 60 s steps is within a millimetre of a 1e-6 m run, one day
            of 600 s steps within a few centimetres (quick runs, 7000 km orbit, e = 0.05).
    """

    def __init__(
        self,
        positions,
        velocities,
        epoch_utc: str,
        forces: ForceOptions = ForceOptions(),
        spacecraft: Spacecraft | Sequence[Spacecraft] = Spacecraft(),
        position_tolerance: float = 0.1,
    ):
        positions = as_vectors("positions", positions)
        velocities = as_vectors("velocities", velocities, count=len(positions))
        count = len(positions)
        if isinstance(spacecraft, Spacecraft):
            spacecraft = [spacecraft] * count
        if len(spacecraft) != count:
            raise ValueError(f"Give one Spacecraft or one per object ({count}), got {len(spacecraft)}.")
        radii, speeds = np.linalg.norm(positions, axis=1), np.linalg.norm(velocities, axis=1)
        unbound = np.flatnonzero(speeds**2 / 2 - MU / radii >= 0)
        if unbound.size:
            raise ValueError(
                f"Objects {unbound.tolist()} are not on elliptic Earth orbits (speed ≥ escape speed)."
            )
        if not position_tolerance > 0:
            raise ValueError(f"position_tolerance must be positive (metres), got {position_tolerance}.")
        self.epoch = utc_date(epoch_utc)
        self.forces = forces
        self.spacecraft = list(spacecraft)
        self.position_tolerance = float(position_tolerance)
        self.time = 0.0
        self._burns: list[list[tuple[float, object]]] = [[] for _ in range(count)]  # (end time, force)
        self._propagators = [
            self._new_propagator(p, v, craft) for p, v, craft in zip(positions, velocities, self.spacecraft)
        ]
        self._states = [propagator.getInitialState() for propagator in self._propagators]

    def __len__(self) -> int:
        return len(self._propagators)

    @property
    def positions(self) -> np.ndarray:
        return np.array([array_of(state.getPosition()) for state in self._states])

    @property
    def velocities(self) -> np.ndarray:
        return np.array([array_of(state.getPVCoordinates().getVelocity()) for state in self._states])

    @property
    def masses(self) -> np.ndarray:
        return np.array([state.getMass() for state in self._states])

    def _new_propagator(self, position, velocity, craft: Spacecraft):
        from org.hipparchus.ode.nonstiff import DormandPrince853Integrator
        from org.orekit.orbits import OrbitType
        from org.orekit.propagation import SpacecraftState
        from org.orekit.propagation.numerical import NumericalPropagator

        orbit = cartesian_orbit(position, velocity, self.epoch)
        # Equinoctial elements vary slowly, so the integrator keeps accuracy over long steps
        # (Cartesian lost tens of metres per day at 600 s steps); they need elliptic orbits.
        tolerances = NumericalPropagator.tolerances(self.position_tolerance, orbit, OrbitType.EQUINOCTIAL)
        integrator = DormandPrince853Integrator(1e-3, 3600.0, tolerances[0], tolerances[1])
        propagator = NumericalPropagator(integrator)
        propagator.setOrbitType(OrbitType.EQUINOCTIAL)
        propagator.setMu(MU)
        for force in _force_models(self.forces, craft):
            propagator.addForceModel(force)
        propagator.setInitialState(SpacecraftState(orbit).withMass(craft.mass))
        return propagator

    def propagate(self, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """Advance every object by ``dt`` seconds; returns the new (positions, velocities).

        A negative ``dt`` propagates backwards, e.g. from a CDM's TCA to an episode's start.
        """
        if not (np.isfinite(dt) and dt != 0):
            raise ValueError(f"dt must be a nonzero finite number of seconds, got {dt}.")
        target = self.epoch.shiftedBy(self.time + float(dt))
        self._states = [propagator.propagate(target) for propagator in self._propagators]
        self.time += float(dt)
        return self.positions, self.velocities

    def apply_impulse(self, delta_v_rtn) -> None:
        """Add an instantaneous Δv (m/s, one RTN row per object; zeros for no maneuver) now."""
        delta_v_rtn = as_vectors("delta_v_rtn", delta_v_rtn, count=len(self))
        from org.orekit.propagation import SpacecraftState

        for index, delta_v in enumerate(delta_v_rtn):
            if not np.any(delta_v):
                continue
            state = self._states[index]
            position = array_of(state.getPosition())
            velocity = array_of(state.getPVCoordinates().getVelocity())
            velocity = velocity + rtn_to_inertial(position, velocity, delta_v)
            exhaust_speed = self.spacecraft[index].specific_impulse * _STANDARD_GRAVITY
            mass = state.getMass() * np.exp(-np.linalg.norm(delta_v) / exhaust_speed)
            orbit = cartesian_orbit(position, velocity, state.getDate())
            self._states[index] = SpacecraftState(orbit).withMass(float(mass))
            self._propagators[index].resetInitialState(self._states[index])

    def start_burn(self, index: int, thrust_rtn, duration: float) -> None:
        """Thrust on object ``index`` from now for ``duration`` s, ``thrust_rtn`` (N) fixed in RTN."""
        if not 0 <= index < len(self):
            raise IndexError(f"Object index {index} out of range for {len(self)} objects.")
        thrust_rtn = as_vectors("thrust_rtn", thrust_rtn, count=1)[0]
        magnitude = float(np.linalg.norm(thrust_rtn))
        if magnitude == 0 or not duration > 0:
            raise ValueError(
                f"A burn needs a nonzero thrust and a positive duration, got {thrust_rtn} N, {duration} s."
            )
        from org.orekit.attitudes import LofOffset
        from org.orekit.forces.maneuvers import ConstantThrustManeuver
        from org.orekit.frames import LOFType

        # The spacecraft attitude follows RTN, so a direction fixed in the body is fixed in RTN.
        attitude = LofOffset(eme2000(), LOFType.QSW)
        maneuver = ConstantThrustManeuver(
            self.epoch.shiftedBy(self.time), float(duration), magnitude,
            self.spacecraft[index].specific_impulse, attitude, vector3d(thrust_rtn / magnitude),
        )  # fmt: skip
        # Rebuild the force list without finished burns, so long episodes do not accumulate them.
        burns = [(end, force) for end, force in self._burns[index] if end > self.time]
        burns.append((self.time + float(duration), maneuver))
        self._burns[index] = burns
        propagator = self._propagators[index]
        propagator.removeForceModels()
        for force in _force_models(self.forces, self.spacecraft[index]) + [force for _, force in burns]:
            propagator.addForceModel(force)


