"""What the orbital JAX core refuses, with a message that says what to use instead (its
trajectories are checked against the compiled core in tests/core/test_jax.py); that its state
mirrors the kernels' and its table of twins is whole."""

from pathlib import Path

import pytest
from twin_pairs import functions_without_a_row, twins_not_found

from envzoo.orbital.state import SimRows

pytest.importorskip("jax")
envzoo_jax = pytest.importorskip("envzoo.jax")
jax_core = pytest.importorskip("envzoo.orbital.jax_core")

CDM = Path(__file__).parent / "data" / "minimal_cdm.kvn"


def test_orekit_backend_is_refused():
    with pytest.raises(ValueError, match="numpy backend .* use backend='numpy', or the CPU env for Orekit"):
        envzoo_jax.make("envzoo/CollisionAvoidance-v1", backend="orekit")


def test_cdm_encounter_is_refused():
    with pytest.raises(ValueError, match="synthetic encounters only, got a cdm"):
        envzoo_jax.make("envzoo/CollisionAvoidanceMO-v1", cdm=str(CDM))


def test_the_jax_state_holds_the_kernels_row_state_under_the_same_names():
    per_configuration = {"slot_rows", "slot_mean_motion", "return_gain"}  # the JAX twin's params
    kernels = [name for name in SimRows._fields if name not in per_configuration]
    twin = [name for name in jax_core.OrbitalState._fields if name not in ("max_pc", "off_slot_s")]
    assert ["key" if name == "keys" else name for name in kernels] == twin


def test_the_twin_table_pairs_every_function_with_a_kernel_that_exists():
    assert not functions_without_a_row(jax_core, no_twin={"_rounded", "_divide"})
    assert not twins_not_found(jax_core)
