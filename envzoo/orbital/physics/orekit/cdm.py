"""CCSDS Conjunction Data Messages (KVN or XML) read by Orekit's ``CdmParser``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from envzoo.orbital.physics.orekit.convert import array_of, eme2000, iso_utc
from envzoo.orbital.physics.orekit.jvm import start_orekit


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


def parse_cdm(path: str | os.PathLike):
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
    cdm = parse_cdm(path)
    from org.orekit.utils import PVCoordinates

    relative = cdm.getRelativeMetadata()
    tca = relative.getTca()

    def cdm_object(metadata, data) -> CdmObject:
        # States may be given in EME2000, GCRF or ITRF; bring them to EME2000 at TCA.
        vectors = data.getStateVectorBlock()
        pv = PVCoordinates(vectors.getPositionVector(), vectors.getVelocityVector())
        pv = metadata.getRefFrame().asFrame().getTransformTo(eme2000(), tca).transformPVCoordinates(pv)
        # The CDM's RTN block is 9×9 (drag, SRP and thrust terms follow); keep the state part.
        covariance = data.getRTNCovarianceBlock().getRTNCovarianceMatrix()
        rtn = np.array([[covariance.getEntry(i, j) for j in range(6)] for i in range(6)])
        name = str(metadata.getObjectName())
        return CdmObject(name, array_of(pv.getPosition()), array_of(pv.getVelocity()), rtn)

    method = relative.getCollisionProbaMethod()
    return Conjunction(
        tca_utc=iso_utc(tca),
        miss_distance=float(relative.getMissDistance()),
        relative_speed=float(relative.getRelativeSpeed()),
        collision_probability=float(relative.getCollisionProbability()),
        collision_probability_method="" if method is None else str(method.getName()),
        object1=cdm_object(cdm.getMetadataObject1(), cdm.getDataObject1()),
        object2=cdm_object(cdm.getMetadataObject2(), cdm.getDataObject2()),
    )


