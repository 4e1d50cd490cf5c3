"""The devices against their closed forms, and the simulator's books: EV energy, station limits,
the energy balance of an episode, the power flow inside a step against an independent solver."""

import math

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.powergrid import devices
from envzoo.powergrid.devices import BatteryParams, BuildingParams, PVParams
from envzoo.powergrid.params import make_params
from envzoo.powergrid.policies import NoControl
from envzoo.powergrid.sim import T_ASKED, T_DELIVERED, T_DEVICE, T_LOAD, T_LOSSES, T_SUBSTATION, PowerGridSim
from tests.powergrid.reference_newton import newton_raphson


def test_building_follows_the_rc_step_response():
    """n exact steps at constant outdoor temperature and power land on T_ss + (T0 − T_ss) e^(−t/RC),
    and a fine Runge–Kutta integration of C dT/dt = (T_out − T)/R − cop·P agrees."""
    b = BuildingParams()
    t0, outdoor, power, dt = 24.0, 31.0, 3.0, 0.25
    temperature = t0
    for _ in range(16):
        temperature = devices.building_temperature(temperature, outdoor, power, b.r_c_per_kw, b.c_kwh_per_c, b.cop, dt)
    steady = outdoor - b.r_c_per_kw * b.cop * power
    assert temperature == pytest.approx(steady + (t0 - steady) * math.exp(-4.0 / (b.r_c_per_kw * b.c_kwh_per_c)),
                                        abs=1e-12)

    def slope(t):
        return ((outdoor - t) / b.r_c_per_kw - b.cop * power) / b.c_kwh_per_c

    integrated, h = t0, 0.001
    for _ in range(4000):
        k1 = slope(integrated)
        k2 = slope(integrated + h / 2 * k1)
        k3 = slope(integrated + h / 2 * k2)
        k4 = slope(integrated + h * k3)
        integrated += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    assert temperature == pytest.approx(integrated, abs=1e-9)
    assert devices.comfort_violation(25.5, 20.0, 24.0) == 1.5
    assert devices.comfort_violation(19.0, 20.0, 24.0) == 1.0
    assert devices.comfort_violation(22.0, 20.0, 24.0) == 0.0


def test_pv_inverter_limits_and_volt_var_curve():
    pv = PVParams()
    kva = pv.inverter_ratio * 100.0
    assert devices.pv_active_kw(800.0, 100.0, pv.efficiency, kva) == pytest.approx(76.8)
    assert devices.pv_active_kw(1300.0, 100.0, pv.efficiency, kva) == pytest.approx(110.0)  # clipped at the kVA
    assert devices.pv_reactive_limit(100.0, kva, pv.q_limit) == pytest.approx(math.sqrt(110.0 ** 2 - 100.0 ** 2))
    assert devices.pv_reactive_limit(0.0, kva, pv.q_limit) == pytest.approx(0.44 * 110.0)
    curve = (*pv.volt_var_v, pv.volt_var_q[0], pv.volt_var_q[3])
    for voltage, q in ((0.90, 0.44), (0.92, 0.44), (0.95, 0.22), (0.98, 0.0), (1.0, 0.0), (1.02, 0.0),
                       (1.05, -0.22), (1.08, -0.44), (1.12, -0.44)):
        assert devices.volt_var(voltage, *curve) == pytest.approx(q)


def test_battery_efficiency_and_state_of_charge_limits():
    """Charging at full power climbs by η·P·dt a step and stops exactly at soc_max; energy
    charged and then discharged comes back at the round-trip efficiency."""
    b = BatteryParams()
    capacity, dt = 100.0, 0.25
    p_max = b.c_rate * capacity
    energy, drawn = 50.0, 0.0
    for step in range(40):
        power, energy = devices.battery_power(p_max, energy, capacity, p_max, b.charge_efficiency,
                                              b.discharge_efficiency, b.soc_min, b.soc_max, dt)
        drawn += power * dt
        if step < 8:  # 8 full steps: 50 + 8 · 0.9487 · 37 · 0.25 = 120.2 > 90, so 4 full steps fit
            assert energy <= b.soc_max * capacity + 1e-12
    assert energy == pytest.approx(b.soc_max * capacity, abs=1e-9)
    assert drawn == pytest.approx((90.0 - 50.0) / b.charge_efficiency)
    returned = 0.0
    for _ in range(40):
        power, energy = devices.battery_power(-p_max, energy, capacity, p_max, b.charge_efficiency,
                                              b.discharge_efficiency, b.soc_min, b.soc_max, dt)
        returned -= power * dt
    assert energy == pytest.approx(b.soc_min * capacity, abs=1e-9)
    assert returned == pytest.approx(80.0 * b.discharge_efficiency)
    assert b.charge_efficiency * b.discharge_efficiency == pytest.approx(0.9)


def run_day(params, actions_of, seed=3):
    sim = PowerGridSim(params, 2)
    sim.reset(np.arange(2), np.array([seed, seed + 1], dtype=np.uint64))
    for _ in range(params.steps):
        sim.step(actions_of(sim))
        yield sim


def test_ev_energy_never_exceeds_what_is_asked_and_stations_keep_their_limit():
    params = make_params()
    full = np.tile(params.layout.action_high.astype(np.float64), (2, 1))
    station = params.ev.station_kw
    for sim in run_day(params, lambda sim: full):
        assert (sim.remaining >= -1e-12).all() and (sim.remaining <= sim.asked + 1e-12).all()
        ev_agent = params.agent_names.index("ev_hub_30")
        assert (sim.net_kw[:, ev_agent] <= station + 1e-9).all()
    assert (sim.totals[:, T_DELIVERED] <= sim.totals[:, T_ASKED] * (1 + 1e-12)).all()
    assert (sim.totals[:, T_DELIVERED] > 0).all()


def test_energy_balance_over_a_day():
    """Substation energy = the feeder's loads + the devices' net draw + the lines' losses."""
    params = make_params()
    generator = np.random.default_rng(0)
    low, high = params.layout.action_low, params.layout.action_high
    for sim in run_day(params, lambda sim: generator.uniform(low, high, (2, len(low)))):
        pass
    t = sim.totals
    np.testing.assert_allclose(t[:, T_SUBSTATION], t[:, T_LOAD] + t[:, T_DEVICE] + t[:, T_LOSSES], rtol=1e-9)


def test_the_step_power_flow_agrees_with_newton_raphson():
    params = make_params()
    generator = np.random.default_rng(1)
    low, high = params.layout.action_low, params.layout.action_high
    for step, sim in enumerate(run_day(params, lambda sim: generator.uniform(low, high, (2, len(low))))):
        if step % 24 == 17:
            for row in range(2):
                reference = newton_raphson(params.feeder.parent, sim.z, sim.bus_power[row])
                assert np.abs(sim.voltage[row] - reference).max() < 1e-8


def test_no_control_keeps_buildings_in_their_band():
    env = gymnasium.make("envzoo/PowerGrid-v0")
    policy = NoControl(env)
    observation, info = env.reset(seed=0)
    policy.reset()
    done = False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        done = terminated or truncated
    assert info["metrics"]["comfort_degree_hours"] < 0.5
    assert info["metrics"]["ev_delivered_kwh"] <= info["metrics"]["ev_asked_kwh"] * (1 + 1e-12)


def test_non_convergence_ends_the_episode_cleanly():
    env = gymnasium.make("envzoo/PowerGrid-v0", load_scale=8.0)
    observation, info = env.reset(seed=0)
    assert np.isfinite(observation).all()
    observation, reward, terminated, truncated, info = env.step(env.action_space.low)
    assert terminated and not info["powerflow_converged"]
    assert np.isfinite(observation).all() and np.isfinite(reward)


def test_non_convergence_mid_episode_ends_it_cleanly():
    """A load the feeder cannot carry in step 5 of 8: four steps run, the fifth terminates with
    the flow's failure in ``info`` and the episode's metrics, all finite."""
    load = [0.5] * 4 + [8.0] * 4
    env = gymnasium.make("envzoo/PowerGrid-v0", feeder="ieee13", steps=8, profiles={"load": load})
    observation, info = env.reset(seed=0)
    for step in range(5):
        observation, reward, terminated, truncated, info = env.step(env.action_space.low)
        assert np.isfinite(observation).all() and np.isfinite(reward)
        assert terminated == (step == 4) and info["powerflow_converged"] == (step < 4) and not truncated
    assert info["metrics"]["nonconverged_steps"] == 1.0
    assert all(np.isfinite(value).all() for value in info["metrics"].values())


@pytest.mark.parametrize("kwargs, message", [
    ({"feeder": "ieee13", "agents": [{"name": "a", "bus": 18, "pv_kw": 10}]}, "feeder 'ieee13' has no bus 18"),
    ({"feeder": "ieee13", "profiles": {"load": [1.0] * 24}}, "set steps=24"),
    ({"backend": "opendss"}, "backend must be one of"),
    ({"agents": [{"name": "a", "bus": 99, "pv_kw": 10}]}, "has no bus 99"),
    ({"agents": [{"name": "a", "bus": 5}]}, "has no device"),
    ({"agents": [{"name": "a", "bus": 5, "pv_kw": 1}, {"name": "a", "bus": 6, "pv_kw": 1}]}, "distinct"),
    ({"agents": [{"name": "a", "bus": 5, "solar": 1}]}, "unknown keys"),
    ({"grid_reward": "global"}, "grid_reward must be one of"),
    ({"weights": (1, 2, 3)}, "weights must be 5"),
    ({"battery": {"soc_min": 0.6}}, "soc_min <= initial_soc"),
    ({"building": {"coolness": 1}}, "has no settings"),
    ({"feeder": "ieee14"}, "feeder must be one of"),
])
def test_bad_arguments_name_the_fix(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_params(**kwargs)


def test_grid_reward_modes():
    """shared: every agent pays the feeder's violation; local: its own bus's; none: nothing."""
    import envzoo as zoo

    terms = {}
    for mode in ("shared", "local", "none"):
        env = zoo.make("envzoo/PowerGridAgents-v0", grid_reward=mode, load_scale=1.0)
        env.reset(seed=2)
        actions = {agent: env.action_space(agent).high for agent in env.possible_agents}
        for _ in range(70):  # into the evening peak, when the feeder's end sags below 0.95 p.u.
            _, rewards, _, _, infos = env.step(actions)
        terms[mode] = np.array([infos[agent]["cost"]["voltage_violation"] for agent in env.possible_agents])
        sim = env.unwrapped.task.sim
    assert terms["shared"].min() == terms["shared"].max() > 0
    assert terms["shared"][0] == pytest.approx(sim.grid[0, 3] * 0.25)
    assert (terms["local"] <= terms["shared"]).all() and terms["local"].max() > 0
    assert len(set(terms["local"].tolist())) > 1
    assert (terms["none"] == 0).all()


def test_agents_without_ev_ports():
    """A feeder with no charging station draws no car (the day's EV draws are empty)."""
    env = gymnasium.make("envzoo/PowerGrid-v0", feeder="ieee13", agents=[{"name": "pv", "bus": "675", "pv_kw": 100.0}])
    observation, _ = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(env.action_space.high)
    assert env.unwrapped.task.sim.ev_draws.shape == (1, 96, 0, 3)
    assert info["powerflow_converged"] and np.isfinite(observation).all()
