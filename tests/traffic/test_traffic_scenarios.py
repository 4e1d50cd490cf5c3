"""Scenarios: generated grids and arterials are deterministic in their arguments and cached; the
flows add up to the demand and fluctuate within ±x; SUMO's game scenarios and the user's files
load."""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ElementTree

import pytest

pytest.importorskip("libsumo")

from envzoo.traffic import generator as scenarios  # noqa: E402
from envzoo.traffic.intersections import read_network  # noqa: E402
from envzoo.traffic.sumo import Simulation  # noqa: E402


def _rates(scenario) -> dict[str, float]:
    """Vehicles per hour of every flow, from SUMO's ``period="exp(rate per second)"``."""
    flows = ElementTree.parse(scenario.route_files[0]).getroot().findall("flow")
    return {f.get("id"): 3600 * float(re.fullmatch(r"exp\((.*)\)", f.get("period")).group(1)) for f in flows}


def _without_comments(path) -> str:
    """The file without XML comments (netgenerate writes the generation time in one)."""
    return re.sub(r"<!--.*?-->", "", path.read_text(), flags=re.S)


def _lights(net_file) -> list[str]:
    return [tl.get("id") for tl in ElementTree.parse(net_file).getroot().findall("tlLogic")]


def test_grid_generation_is_deterministic_cached_and_fully_signalised(tmp_path, monkeypatch):
    first = scenarios.grid(3, 2, demand=120)
    assert scenarios.grid(3, 2, demand=120) == first  # from the cache
    monkeypatch.setenv("ENVZOO_CACHE_DIR", str(tmp_path))  # an empty cache: generated again
    again = scenarios.grid(3, 2, demand=120)
    assert again.net_file != first.net_file
    assert _without_comments(again.net_file) == _without_comments(first.net_file)
    assert again.route_files[0].read_bytes() == first.route_files[0].read_bytes()
    assert len(_lights(first.net_file)) == 6  # corner junctions too (attach_length)


def test_flows_add_up_to_the_demand_and_fluctuate_within_bounds():
    plain = _rates(scenarios.grid(2, 2, demand=200))
    sources = {flow.split("__")[0] for flow in plain}
    assert len(sources) == 8  # two border roads per side
    for source in sources:  # each border road sends exactly the demand, split over destinations
        assert sum(r for f, r in plain.items() if f.startswith(source + "__")) == pytest.approx(200, rel=1e-6)
    wobbly = _rates(scenarios.grid(2, 2, demand=200, fluctuation=0.3, demand_seed=5))
    ratios = [wobbly[f] / plain[f] for f in plain]
    assert all(0.7 <= r <= 1.3 for r in ratios) and max(ratios) - min(ratios) > 0.3
    assert _rates(scenarios.grid(2, 2, demand=200, fluctuation=0.3, demand_seed=6)) != wobbly


def test_arterial_with_random_trips():
    arterial = scenarios.arterial(4, demand=360, demand_kind="random-trips", duration=600)
    vehicles = ElementTree.parse(arterial.route_files[0]).getroot().findall("vehicle")
    assert 50 <= len(vehicles) <= 61  # one every 10 s for 600 s (a few dropped as too short)
    assert all(v.find("route") is not None for v in vehicles)  # routed by duarouter
    assert len(_lights(arterial.net_file)) == 4


@pytest.mark.parametrize("name, actuated", [("bs3d", False), ("fkk_in", False), ("DRT", True)])
def test_sumo_game_scenarios_load_with_controllable_lights(name, actuated):
    assert name in scenarios.game_scenarios()
    scenario = scenarios.game(name)
    assert scenario.net_file.is_file() and scenario.net_file.parent.parent.name == "traffic"
    sim = Simulation(scenario.sumo_args(), seed=0, backend="traci")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            network = read_network(sim.api)
        # Berlin's actuated lights are taken over with a warning that names each one.
        named = [str(w.message) for w in caught if "runs an actuated" in str(w.message)]
        assert len(named) == (sum(i.light in message for i in network.intersections for message in named)
                              if actuated else 0)
        assert bool(named) == actuated
        assert network.intersections, f"{name} has no controllable light"
        sim.advance(10)
    finally:
        sim.close()


def test_users_sumocfg(tmp_path):
    grid = scenarios.grid(2, 2)
    config = tmp_path / "mine.sumocfg"
    config.write_text(f"""<configuration><input><net-file value="{grid.net_file}"/>
        <route-files value="{grid.route_files[0]}"/></input><time><end value="300"/></time></configuration>""")
    scenario = scenarios.make_scenario(str(config))
    assert scenario.net_file == grid.net_file and scenario.end == 300 and scenario.name == "mine"
    with pytest.raises(FileNotFoundError, match="'.*nowhere.sumocfg' does not exist"):
        scenarios.make_scenario(str(tmp_path / "nowhere.sumocfg"))
    with pytest.raises(FileNotFoundError, match="routes.rou.xml does not exist"):
        scenarios.make_scenario({"kind": "files", "net_file": grid.net_file,
                                 "route_files": tmp_path / "routes.rou.xml"})


def test_eval_on_a_scenario_with_nothing_to_control_is_a_one_line_error(capsys):
    """SUMO's 'ramp' game scenario has no signalised junction: envzoo eval says so and exits 2."""
    from envzoo.cli import main

    assert main(["eval", "envzoo/TrafficGrid-v0", "--policy", "fixed-time", "--env", "scenario=ramp",
                 "--episodes", "1"]) == 2
    err = capsys.readouterr().err
    assert "'ramp' has no traffic light" in err and "Traceback" not in err


def test_sumo_clock_times_are_read_in_seconds():
    from envzoo.traffic.generator import ScenarioError, sumo_seconds

    assert sumo_seconds("3600") == 3600.0 and sumo_seconds("15:0:0") == 54000.0
    assert sumo_seconds("1:0:30:5") == 86400 + 30 * 60 + 5 and sumo_seconds("90.5") == 90.5
    with pytest.raises(ScenarioError, match="not a SUMO time"):
        sumo_seconds("noon")


def test_the_default_grid_sends_100_vehicles_per_hour_from_each_border_road_in_total():
    """What TrafficGrid-v0's docstring says: 16 border roads, each 100 veh/h split over the 15 others."""
    from xml.etree import ElementTree

    scenario = scenarios.grid()
    flows = ElementTree.parse(scenario.route_files[0]).getroot().findall("flow")
    per_source: dict[str, float] = {}
    for flow in flows:
        rate = float(flow.get("period")[4:-1]) * 3600.0  # period="exp(rate per second)"
        per_source[flow.get("from")] = per_source.get(flow.get("from"), 0.0) + rate
        assert rate == pytest.approx(100.0 / 15, rel=1e-6)
    assert len(per_source) == 16 and all(total == pytest.approx(100.0) for total in per_source.values())
