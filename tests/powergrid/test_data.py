"""A user's feeder and day profiles from files."""

import gymnasium
import numpy as np
import pandas as pd
import pytest

import envzoo  # noqa: F401
from envzoo.core.errors import DataFormatError
from envzoo.powergrid import feeders, powerflow
from envzoo.powergrid.data import load_feeder, load_profiles


@pytest.fixture
def ieee33_files(tmp_path):
    lines = pd.DataFrame(feeders.IEEE33_LINES, columns=["From Bus", "to_bus", "R_ohm", "x_ohm"])
    loads = pd.DataFrame([(bus, p, q) for bus, (p, q) in zip(range(2, 34), feeders.IEEE33_LOADS)],
                         columns=["bus", "p_kw", "q_kvar"])
    lines.to_csv(tmp_path / "lines.csv", index=False)
    loads.to_csv(tmp_path / "loads.csv", index=False)
    return tmp_path / "lines.csv", tmp_path / "loads.csv"


def test_a_feeder_from_files_is_the_shipped_one(ieee33_files):
    lines, loads = ieee33_files
    feeder = load_feeder(lines, loads, base_kv=12.66)
    shipped = feeders.ieee33()
    assert feeder.bus_names == shipped.bus_names
    np.testing.assert_array_equal(powerflow.solve(feeder).voltage, powerflow.solve(shipped).voltage)
    env = gymnasium.make("envzoo/PowerGrid-v0", feeder={"lines": str(lines), "loads": str(loads), "base_kv": 12.66})
    reference = gymnasium.make("envzoo/PowerGrid-v0")
    np.testing.assert_array_equal(env.reset(seed=4)[0], reference.reset(seed=4)[0])


def test_bad_feeder_files_name_the_row_and_column(tmp_path, ieee33_files):
    lines, loads = ieee33_files
    table = pd.read_csv(lines).astype({"R_ohm": object})
    table.loc[4, "R_ohm"] = "abc"
    table.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(DataFormatError, match=r"bad.csv, row 6, column 'R_ohm'"):
        load_feeder(tmp_path / "bad.csv", loads, 12.66)
    with pytest.raises(DataFormatError, match="missing column"):
        load_feeder(loads, loads, 12.66)
    with pytest.raises(FileNotFoundError):
        load_feeder(tmp_path / "nowhere.csv", loads, 12.66)
    with pytest.raises(ValueError, match="'lines', 'loads', 'base_kv'"):
        gymnasium.make("envzoo/PowerGrid-v0", feeder={"lines": str(lines)})


def test_profiles_replace_the_drawn_day(tmp_path):
    steps = 96
    price = np.where(np.arange(steps) % 2, 0.2, 0.05)
    pd.DataFrame({"Price": price, "outdoor_c": np.full(steps, 35.0)}).to_csv(tmp_path / "day.csv", index=False)
    assert sorted(load_profiles(tmp_path / "day.csv")) == ["outdoor_c", "price"]
    env = gymnasium.make("envzoo/PowerGrid-v0", profiles=str(tmp_path / "day.csv"))
    observation, _ = env.reset(seed=0)
    assert observation[2] == pytest.approx(0.05) and observation[3] == pytest.approx(35.0)
    observation, *_ = env.step(env.action_space.low)
    assert observation[2] == pytest.approx(0.2)
    with pytest.raises(ValueError, match="has 10 values, the episode 96 steps"):
        gymnasium.make("envzoo/PowerGrid-v0", profiles={"load": np.ones(10)})
    with pytest.raises(ValueError, match="unknown names"):
        gymnasium.make("envzoo/PowerGrid-v0", profiles={"sun": np.ones(96)})


def play_with(profiles, steps=24):
    env = gymnasium.make("envzoo/PowerGrid-v0", profiles=profiles)
    observation, _ = env.reset(seed=1)
    trajectory = [observation]
    for _ in range(steps):
        observation, reward, _, _, info = env.step(env.action_space.high * 0.5)
        trajectory.append(np.append(observation, [reward, info["substation_kw"]]))
    return np.concatenate(trajectory)


def test_per_bus_profiles_replace_the_feeders_loads():
    """Each bus's own draw (as SimBench's profiles give it): the feeder's peaks times a day's
    load profile, given per bus, play the same episode as the load profile; a bus of generation
    lowers the substation's power by what it generates."""
    feeder = feeders.ieee33()
    load = np.linspace(0.4, 1.0, 96)
    per_bus = {"bus_p_kw": np.outer(load, feeder.p_kw), "bus_q_kvar": np.outer(load, feeder.q_kvar)}
    np.testing.assert_array_equal(play_with(per_bus), play_with({"load": load}))
    generating = {name: values.copy() for name, values in per_bus.items()}
    generating["bus_p_kw"][:, feeder.bus_index(18)] -= 200.0
    assert play_with(generating)[-1] < play_with(per_bus)[-1] - 150.0
    with pytest.raises(ValueError, match="give both per-bus profiles"):
        gymnasium.make("envzoo/PowerGrid-v0", profiles={"bus_p_kw": per_bus["bus_p_kw"]})
    with pytest.raises(ValueError, match="give both per-bus profiles"):
        gymnasium.make("envzoo/PowerGrid-v0", profiles={**per_bus, "load": load})
    with pytest.raises(ValueError, match=r"give \(steps, buses\) = \(96, 33\)"):
        gymnasium.make("envzoo/PowerGrid-v0", profiles={name: v[:, :5] for name, v in per_bus.items()})


def test_a_grid_and_its_year_from_an_export(tmp_path, ieee33_files):
    """The files ``pandapower_flow.export_grid_year`` writes (here a two-day year of the 33-bus
    feeder, as SimBench's would be): the feeder and any day of the year as per-bus profiles."""
    from envzoo.powergrid.data import load_grid_year

    lines, loads = ieee33_files
    (tmp_path / "lines.csv").write_bytes(lines.read_bytes())
    (tmp_path / "loads.csv").write_bytes(loads.read_bytes())
    feeder = feeders.ieee33()
    shape = np.linspace(0.3, 1.0, 2 * 96)[:, None]
    np.savez(tmp_path / "year.npz", name="two days", base_kv=12.66, substation="1", steps_per_day=96,
             bus_p_kw=shape * feeder.p_kw, bus_q_kvar=shape * feeder.q_kvar)
    exported, profiles = load_grid_year(tmp_path, day=1)
    assert exported.name == "two days" and exported.bus_names == feeder.bus_names
    np.testing.assert_array_equal(profiles["bus_p_kw"], shape[96:] * feeder.p_kw)
    env = gymnasium.make("envzoo/PowerGrid-v0", feeder=exported, profiles=profiles)
    env.reset(seed=0)
    assert env.step(env.action_space.low)[4]["powerflow_converged"]
    with pytest.raises(ValueError, match="day must be a whole number from 0 to 1"):
        load_grid_year(tmp_path, day=2)
    (tmp_path / "year.npz").unlink()
    with pytest.raises(FileNotFoundError, match="export_grid_year"):
        load_grid_year(tmp_path, day=0)
