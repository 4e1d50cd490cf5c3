"""What the orbital JAX core refuses, with a message that says what to use instead (its
trajectories are checked against the compiled core in tests/core/test_jax.py)."""

from pathlib import Path

import pytest

pytest.importorskip("jax")
envzoo_jax = pytest.importorskip("envzoo.jax")

CDM = Path(__file__).parent / "data" / "minimal_cdm.kvn"


def test_orekit_backend_is_refused():
    with pytest.raises(ValueError, match="numpy backend .* use backend='numpy', or the CPU env for Orekit"):
        envzoo_jax.make("envzoo/CollisionAvoidance-v1", backend="orekit")


def test_cdm_encounter_is_refused():
    with pytest.raises(ValueError, match="synthetic encounters only, got a cdm"):
        envzoo_jax.make("envzoo/CollisionAvoidanceMO-v1", cdm=str(CDM))
