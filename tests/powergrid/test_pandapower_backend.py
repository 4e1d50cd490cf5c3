"""``backend="pandapower"``: the same episodes as the compiled sweep, with pandapower's
Newton–Raphson in every step; ``feeder="simbench:CODE"``: a SimBench grid and a day of its
year. pandapower (and simbench, which needs it) pin pandas below envzoo's, so these run where
they are installed (an environment of their own: see pandapower_reference.py); without them,
the env says what to install."""

import importlib.util

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401  (registers the ids)
from envzoo.powergrid.policies import VoltVar

HAS_PANDAPOWER = importlib.util.find_spec("pandapower") is not None


def play(backend: str, feeder: str, steps: int = 12):
    env = gymnasium.make("envzoo/PowerGrid-v0", feeder=feeder, backend=backend, steps=steps, start_hour=8.0)
    policy = VoltVar(env)
    observation, info = env.reset(seed=3)
    policy.reset()
    trajectory = [observation]
    for _ in range(steps):
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        trajectory.append(np.append(observation, [reward, info["losses_kw"]]))
        if terminated or truncated:
            break
    return trajectory, info


@pytest.mark.skipif(HAS_PANDAPOWER, reason="pandapower is installed here")
def test_without_pandapower_the_error_names_the_fix():
    with pytest.raises(ImportError, match="pip install pandapower"):
        gymnasium.make("envzoo/PowerGrid-v0", backend="pandapower")
    with pytest.raises(ValueError, match="backend must be one of"):
        gymnasium.make("envzoo/PowerGrid-v0", backend="newton")


@pytest.mark.skipif(not HAS_PANDAPOWER, reason="pandapower is not installed (it pins pandas below envzoo's)")
@pytest.mark.parametrize("feeder", ["ieee13", "ieee34", "cigre_lv"])
def test_pandapower_backend_plays_the_sweeps_episode(feeder):
    sweep, _ = play("sweep", feeder)
    newton, info = play("pandapower", feeder)
    assert len(sweep) == len(newton) and info["powerflow_converged"]
    np.testing.assert_allclose(np.concatenate(newton), np.concatenate(sweep), rtol=0, atol=1e-5)


HAS_SIMBENCH = importlib.util.find_spec("simbench") is not None
SIMBENCH_GRID = "1-LV-rural1--0-sw"


@pytest.mark.skipif(HAS_SIMBENCH, reason="simbench is installed here")
def test_without_simbench_the_error_names_the_fix():
    with pytest.raises(ImportError, match="pip install simbench"):
        gymnasium.make("envzoo/PowerGrid-v0", feeder=f"simbench:{SIMBENCH_GRID}")


@pytest.mark.skipif(not HAS_SIMBENCH, reason="simbench is not installed (it needs pandapower)")
def test_a_simbench_grid_with_a_day_of_its_year(tmp_path):
    """SimBench's rural LV grid: the sweep agrees with pandapower on it, and a midsummer day of
    its per-load and per-generator profiles, summed per bus, plays a whole episode."""
    import pandapower
    import simbench

    from envzoo.powergrid import feeders, powerflow
    from envzoo.powergrid.data import load_grid_year
    from envzoo.powergrid.pandapower_flow import export_grid_year, network, simbench_profiles

    feeder = feeders.feeder(f"simbench:{SIMBENCH_GRID}")
    net = network(feeder)
    pandapower.runpp(net, algorithm="nr", init="flat", tolerance_mva=1e-10)
    flow = powerflow.solve(feeder)
    assert np.abs(np.abs(flow.voltage[0]) - net.res_bus.vm_pu.to_numpy()).max() < 1e-8
    profiles = simbench_profiles(SIMBENCH_GRID, day=172)
    net = simbench.get_simbench_net(SIMBENCH_GRID)
    year = simbench.get_absolute_values(net, profiles_instead_of_study_cases=True)
    midsummer = slice(172 * 96, 173 * 96)
    assert profiles["bus_p_kw"].shape == (96, feeder.n_buses)
    drawn = year[("load", "p_mw")].to_numpy()[midsummer].sum(axis=1)
    generated = year[("sgen", "p_mw")].to_numpy()[midsummer].sum(axis=1)
    np.testing.assert_allclose(profiles["bus_p_kw"].sum(axis=1), 1000.0 * (drawn - generated), rtol=0, atol=1e-9)
    assert (profiles["bus_p_kw"][:, 0] == 0).all() and (profiles["bus_p_kw"] != 0).any(axis=0).sum() > 10
    assert profiles["irradiance_w_m2"].max() > 300 and profiles["irradiance_w_m2"][:8].max() == 0  # night
    with pytest.raises(ValueError, match="day must be a whole number from 0 to 365"):
        simbench_profiles(SIMBENCH_GRID, day=366)
    export_grid_year(SIMBENCH_GRID, tmp_path)  # what envzoo's own environment reads without simbench
    exported, exported_day = load_grid_year(tmp_path, day=172)
    assert exported.bus_names == feeder.bus_names and exported.name == feeder.name
    for exported_values, values in ((exported.r_ohm, feeder.r_ohm), (exported.x_ohm, feeder.x_ohm),
                                    (exported.p_kw, feeder.p_kw)):
        np.testing.assert_allclose(exported_values, values, rtol=1e-13, atol=0)  # the CSV reader's last digit
    assert exported_day.keys() == profiles.keys()
    for name, values in profiles.items():
        np.testing.assert_array_equal(exported_day[name], values)
    env = gymnasium.make("envzoo/PowerGrid-v0", feeder=feeder, profiles=profiles)
    env.reset(seed=0)
    for _ in range(96):
        observation, reward, terminated, truncated, info = env.step(env.action_space.low)
    assert truncated and not terminated and np.isfinite(observation).all()
