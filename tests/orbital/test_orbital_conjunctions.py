"""The conjunction generator: forward propagation reproduces the designed encounters."""

import math

import numpy as np
import pytest

from envzoo.orbital.physics.collision import closest_approach, encounter_plane_basis, project_to_encounter_plane
from envzoo.orbital.generator import generate_conjunctions
from envzoo.orbital.params import ConjunctionParams
from envzoo.orbital.physics.elements import KeplerianElements
from envzoo.orbital.physics.propagation import propagate

# Measured: TCA within 1e-10 s and miss components within 2e-6 m of the design.
TCA_TOLERANCE = 1e-6      # s
MISS_TOLERANCE = 1e-3     # m


def designed_encounter_found(scenario, k, half_window=300.0):
    """Closest approach of debris k searched within ± half_window of its designed TCA."""
    start = scenario.tca[k] - half_window
    primary = propagate(scenario.primary, start)
    debris = propagate(scenario.debris.select([k]), start)
    return closest_approach(primary, debris, 2 * half_window)


def test_forward_propagation_reproduces_the_designed_encounters():
    scenario = generate_conjunctions(ConjunctionParams(n_debris=8), np.random.default_rng(11))
    for k in range(8):
        encounter = designed_encounter_found(scenario, k)
        assert abs(encounter.tca[0] - scenario.tca[k]) < TCA_TOLERANCE
        basis = encounter_plane_basis(encounter.primary_position, encounter.relative_velocity)
        miss, _ = project_to_encounter_plane(encounter.relative_position, np.eye(3)[None], basis)
        np.testing.assert_allclose(miss[0], [scenario.miss_radial[k], scenario.miss_cross[k]],
                                   atol=MISS_TOLERANCE)
        np.testing.assert_allclose(np.linalg.norm(encounter.relative_velocity), scenario.relative_speed[k],
                                   rtol=1e-9)


def test_whole_window_search_finds_the_designed_encounter_when_periods_differ():
    params = ConjunctionParams(n_debris=6, speed_ratio_range=(1.005, 1.01))
    scenario = generate_conjunctions(params, np.random.default_rng(5))
    encounter = closest_approach(scenario.primary, scenario.debris, params.tca_window[1] + 600.0)
    np.testing.assert_allclose(encounter.tca, scenario.tca, atol=TCA_TOLERANCE)
    np.testing.assert_allclose(encounter.miss_distance, scenario.miss_distance, atol=MISS_TOLERANCE)


def test_draws_stay_in_their_ranges_and_the_geometry_follows_them():
    params = ConjunctionParams(n_debris=50, miss_distance_range=(100.0, 200.0), speed_ratio_range=(1.0, 1.0),
                               crossing_angle_range=(math.radians(40), math.radians(60)))
    scenario = generate_conjunctions(params, np.random.default_rng(0))
    assert np.all((scenario.tca >= 1800.0) & (scenario.tca <= 7200.0))
    assert np.all((scenario.miss_distance >= 100.0) & (scenario.miss_distance <= 200.0))
    # Equal speeds v crossing at angle α: |v_rel| = 2 v sin(α/2).
    speed = np.linalg.norm(propagate(scenario.primary, 0.0).velocity)
    crossing = 2 * np.arcsin(scenario.relative_speed / (2 * speed))
    # The primary's speed varies by ~e along the orbit, hence the loose bounds.
    assert np.all((crossing > math.radians(39)) & (crossing < math.radians(61)))
    assert len(scenario.debris) == 50 and scenario.debris.epoch == 0.0


def test_same_seed_same_scenario():
    params = ConjunctionParams(n_debris=3)
    first = generate_conjunctions(params, np.random.default_rng(42))
    again = generate_conjunctions(params, np.random.default_rng(42))
    other = generate_conjunctions(params, np.random.default_rng(43))
    np.testing.assert_array_equal(first.debris.position, again.debris.position)
    np.testing.assert_array_equal(first.tca, again.tca)
    assert not np.array_equal(first.tca, other.tca)


@pytest.mark.parametrize("change, message", [
    (dict(n_debris=0), "n_debris"),
    (dict(tca_window=(0.0, 100.0)), "tca_window"),
    (dict(tca_window=(200.0, 100.0)), "tca_window"),
    (dict(miss_distance_range=(-1.0, 10.0)), "miss_distance_range"),
    (dict(crossing_angle_range=(0.0, 1.0)), "crossing_angle_range"),
    (dict(crossing_angle_range=(1.0, 4.0)), "crossing_angle_range"),
    (dict(primary=KeplerianElements([7e6, 7e6], 0.0, 1.0, 0.0, 0.0, 0.0)), "exactly one orbit"),
])
def test_bad_params_get_clear_errors(change, message):
    with pytest.raises(ValueError, match=message):
        ConjunctionParams(**change)


def test_unbound_debris_gets_a_clear_error_and_rng_must_be_a_generator():
    with pytest.raises(ValueError, match="speed_ratio_range"):
        generate_conjunctions(ConjunctionParams(speed_ratio_range=(1.5, 1.5)), np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        generate_conjunctions(ConjunctionParams(), 42)
