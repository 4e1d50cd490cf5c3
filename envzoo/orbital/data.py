"""A user's orbital data: a real conjunction as an episode (the encounter of a CCSDS
Conjunction Data Message, CDM), and the two-line element set of a TLE file.

A CDM (read by Orekit's ``CdmParser``, :func:`envzoo.orbital.physics.orekit.cdm.read_cdm`) gives the
two objects' states at the time of closest approach (TCA) in EME2000 and their 6×6 covariances
in each object's RTN frame. An episode seeded by it places the TCA ``tca_s`` seconds after the
episode start: the primary's slot is the CDM's object 1 propagated back by ``tca_s``, and the
one debris object is the CDM's object 2, kept at the CDM's offset from object 1 at TCA (so the
episode's predicted miss and relative velocity are the CDM's, whatever the propagator's
round-trip error). The CDM's state of object 2 is the tracker's *estimate*; the truth is drawn
per episode as estimate − e, e ~ N(0, the CDM's position covariance), so the estimate's error
is distributed as its covariance says (as for the tracking updates of
:mod:`envzoo.orbital.physics.tracking`, which also take over after the first step).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from envzoo.core.user_files import existing_file


@dataclass(frozen=True)
class CdmEncounter:
    """A CDM's encounter, at ``tca_s`` seconds into the episode, which starts at ``epoch_utc``
    (ISO-8601); SI units, EME2000 states, 3×3 position covariances in each object's RTN frame
    at TCA."""

    tca_s: float
    epoch_utc: str
    primary_position: np.ndarray
    primary_velocity: np.ndarray
    debris_position: np.ndarray
    debris_velocity: np.ndarray
    primary_covariance_rtn: np.ndarray
    debris_covariance_rtn: np.ndarray


def _position_covariance(path, name: str, covariance_rtn: np.ndarray) -> np.ndarray:
    block = covariance_rtn[:3, :3]
    if not np.all(np.isfinite(block)) or np.any(np.linalg.eigvalsh((block + block.T) / 2) <= 0):
        raise ValueError(f"CDM {str(path)!r}: the RTN position covariance of {name} must be finite and positive "
                         f"definite (CR_R ... CN_N), got {block.tolist()}")
    return (block + block.T) / 2


def load_cdm_encounter(path: str | os.PathLike, tca_s: float) -> CdmEncounter:
    """The encounter of the CDM at ``path`` (KVN or XML), its TCA placed at ``tca_s``."""
    from envzoo.orbital.physics.orekit.cdm import read_cdm
    from envzoo.orbital.physics.orekit.convert import shifted_utc

    conjunction = read_cdm(path)
    primary, debris = conjunction.object1, conjunction.object2
    return CdmEncounter(
        tca_s=float(tca_s),
        epoch_utc=shifted_utc(conjunction.tca_utc, -float(tca_s)),
        primary_position=primary.position, primary_velocity=primary.velocity,
        debris_position=debris.position, debris_velocity=debris.velocity,
        primary_covariance_rtn=_position_covariance(path, f"object 1 ({primary.name})", primary.covariance_rtn),
        debris_covariance_rtn=_position_covariance(path, f"object 2 ({debris.name})", debris.covariance_rtn),
    )


def read_tle_file(path: str | os.PathLike) -> tuple[str, str]:
    """The two lines of the two-line element set in the text file at ``path`` (a name line
    before them, as Celestrak's files have, is skipped). A missing file is a
    ``FileNotFoundError`` naming it; a file without exactly one set is a ``ValueError``."""
    path = existing_file(path, "tle")
    lines = [line.rstrip() for line in path.read_text().splitlines() if line.strip()]
    element_lines = [line for line in lines if line[:2] in ("1 ", "2 ")]
    if [line[0] for line in element_lines] != ["1", "2"]:
        raise ValueError(f"{path}: a TLE file holds one two-line element set (a line starting '1 ', then one "
                         f"starting '2 ', optionally after a name line); found {len(element_lines)} such lines")
    return element_lines[0], element_lines[1]
