"""The IEEE feeders' step-voltage regulators: their controller holds its band, the feeders' energy
balances through them, the 34-bus feeder stays in ANSI C84.1 range A at peak with them (and
sags far out of it without), and bad taps or a regulator on no line are named."""

import numpy as np
import pytest

from envzoo.powergrid import feeders, powerflow
from envzoo.powergrid.regulators import MAX_TAP, regulator_tables, relay_voltage, tap_ratios

REGULATED = ["ieee13", "ieee34", "ieee123"]


@pytest.mark.parametrize("name", REGULATED)
@pytest.mark.parametrize("load_scale", [0.3, 1.0])
def test_the_controller_brings_every_relay_voltage_into_its_band(name, load_scale):
    feeder = feeders.feeder(name)
    flow = powerflow.solve(feeder, feeder.p_kw * load_scale, feeder.q_kvar * load_scale)
    buses, settings = regulator_tables(feeder)
    assert flow.converged.all() and len(buses) == len(feeder.regulators) > 0
    for k, regulator in enumerate(feeder.regulators):
        relay = relay_voltage(flow.voltage[0], flow.current[0], buses[k], settings[k])
        at_limit = abs(flow.taps[0, k]) == MAX_TAP
        assert at_limit or abs(relay - regulator.band_center_v) <= regulator.bandwidth_v / 2.0


def test_ieee34_at_peak_is_in_ansi_range_a_with_its_regulators_and_far_below_without():
    """Every 24.9 kV bus within 0.95-1.05 p.u.; bus 890, behind the 24.9/4.16 kV transformer
    (whose drop no regulator after it makes up), stays below the band, at 0.913."""
    feeder = feeders.feeder("ieee34")
    regulated = np.abs(powerflow.solve(feeder).voltage[0])
    beyond_the_transformer = feeder.bus_index("890")
    primary = np.delete(regulated, beyond_the_transformer)
    assert 0.95 <= primary.min() and primary.max() <= 1.05 + 1e-12
    assert 0.90 < regulated[beyond_the_transformer] < 0.95
    neutral = np.abs(powerflow.solve(feeder, taps=[0, 0]).voltage[0])
    assert neutral.min() < 0.8


@pytest.mark.parametrize("name", REGULATED)
def test_energy_balances_through_the_regulators(name):
    feeder = feeders.feeder(name)
    flow = powerflow.solve(feeder, feeder.p_kw * [[1.0], [0.4]], feeder.q_kvar * [[1.0], [0.4]])
    assert (flow.taps != 0).any()
    np.testing.assert_allclose(flow.substation_kw, feeder.p_kw.sum() * np.array([1.0, 0.4]) + flow.losses_kw,
                               rtol=0, atol=1e-5)


def test_fixed_taps_set_the_ratio_and_bad_taps_are_named():
    feeder = feeders.feeder("ieee34")
    ratio = tap_ratios(feeder, [4, -2])
    assert ratio[feeder.bus_index("814r")] == 1.025 and ratio[feeder.bus_index("852r")] == 0.9875
    assert ratio[0] == 1.05  # the substation's voltage
    for taps in ([17, 0], [1], [0.5, 0]):
        with pytest.raises(ValueError, match="taps must be whole numbers from -16 to 16"):
            powerflow.solve(feeder, taps=taps)


def test_a_regulator_on_no_line_is_named():
    lines = [(1, 2, 0.1, 0.1), (2, 3, 0.1, 0.1)]
    settings = {"band_center_v": 120, "bandwidth_v": 2, "pt_ratio": 60, "ct_primary_a": 100}
    assert feeders.feeder_from_tables("ok", lines, {}, 12.47, regulators={(2, 3): settings}).regulators[0].bus == 2
    with pytest.raises(ValueError, match="a regulator on 3-2"):
        feeders.feeder_from_tables("reversed", lines, {}, 12.47, regulators={(3, 2): settings})


def test_the_envs_report_the_taps_their_controller_moves():
    """On the 34-bus feeder the taps leave neutral, stay within their range and are in every
    face's info; the feeder without regulators has none."""
    import gymnasium

    import envzoo

    env = gymnasium.make("envzoo/PowerGrid-v0", feeder="ieee34")
    env.reset(seed=0)
    seen = []
    for _ in range(8):
        *_, info = env.step(env.action_space.low)
        seen.append(info["regulator_taps"])
    assert np.shape(seen) == (8, 2) and np.abs(seen).max() <= MAX_TAP and np.any(seen)
    vector = gymnasium.make_vec("envzoo/PowerGrid-v0", num_envs=3, vectorization_mode="vector_entry_point",
                                feeder="ieee34")
    vector.reset(seed=0)
    *_, infos = vector.step(np.tile(vector.single_action_space.low, (3, 1)))
    assert infos["regulator_taps"].shape == (3, 2)
    agents = envzoo.make("envzoo/PowerGridAgents-v0", feeder="ieee123")
    agents.reset(seed=0)
    *_, agent_infos = agents.step({a: agents.action_space(a).low for a in agents.agents})
    assert all(np.shape(agent_infos[a]["regulator_taps"]) == (4,) for a in agents.agents)
    plain = gymnasium.make("envzoo/PowerGrid-v0")
    plain.reset(seed=0)
    assert "regulator_taps" not in plain.step(plain.action_space.low)[4]
