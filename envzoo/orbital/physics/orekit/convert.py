"""Conversions between numpy arrays and Orekit's values: vectors, UTC dates, EME2000 orbits,
RTN directions."""

from __future__ import annotations

import numpy as np

from envzoo.orbital.physics.constants import MU
from envzoo.orbital.physics.orekit.jvm import start_orekit



def as_vectors(name: str, value, count: int | None = None) -> np.ndarray:
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


def vector3d(xyz):
    from org.hipparchus.geometry.euclidean.threed import Vector3D

    return Vector3D(float(xyz[0]), float(xyz[1]), float(xyz[2]))


def array_of(vector) -> np.ndarray:
    return np.array(vector.toArray(), dtype=float)


def utc_scale():
    from org.orekit.time import TimeScalesFactory

    return TimeScalesFactory.getUTC()


def utc_date(epoch_utc: str):
    """An Orekit ``AbsoluteDate`` from an ISO-8601 UTC string such as ``"2024-03-01T12:00:00"``."""
    start_orekit()
    from org.orekit.time import AbsoluteDate

    try:
        return AbsoluteDate(str(epoch_utc), utc_scale())
    except Exception as error:
        raise ValueError(
            f"epoch_utc {epoch_utc!r} is not an ISO-8601 date such as '2024-03-01T12:00:00'."
        ) from error


def iso_utc(date) -> str:
    return str(date.toStringRfc3339(utc_scale()))


def shifted_utc(epoch_utc: str, seconds: float) -> str:
    """The ISO-8601 UTC date ``seconds`` after ``epoch_utc``."""
    return iso_utc(utc_date(epoch_utc).shiftedBy(float(seconds)))


def eme2000():
    from org.orekit.frames import FramesFactory

    return FramesFactory.getEME2000()


def cartesian_orbit(position, velocity, date):
    from org.orekit.orbits import CartesianOrbit
    from org.orekit.utils import PVCoordinates

    return CartesianOrbit(PVCoordinates(vector3d(position), vector3d(velocity)), eme2000(), date, MU)


def rtn_to_inertial(position, velocity, vector_rtn) -> np.ndarray:
    """Rotate a vector from the RTN frame of the state (Orekit's QSW local frame) to EME2000."""
    from org.orekit.frames import LOFType
    from org.orekit.utils import PVCoordinates

    rotation = LOFType.QSW.rotationFromInertial(PVCoordinates(vector3d(position), vector3d(velocity)))
    return array_of(rotation.applyInverseTo(vector3d(vector_rtn)))


