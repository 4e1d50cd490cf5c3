"""The SUMO bridge: binaries from the wheel, libsumo's one-simulation rule, clear errors for bad
files and for SUMO dying mid-episode, reset after a failure, and no SUMO process left by close."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

pytest.importorskip("libsumo")

from envzoo.traffic import generator as scenarios, sumo  # noqa: E402
from envzoo.traffic.parallel import TrafficGridEnv  # noqa: E402
from envzoo.traffic.sumo import Simulation, SumoCrashError, SumoStartError  # noqa: E402

SMALL = {"kind": "grid", "rows": 2, "columns": 2, "demand": 200, "duration": 600}


def _sumo_children() -> list[int]:
    """Ids of this process' child processes that run a SUMO binary (from the process table)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().split(b"\0")[0].decode()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and stat[0] != "Z" and Path(command).name.startswith("sumo"):
            found.append(int(entry.name))
    return found


def test_binaries_come_from_the_wheel_not_from_sumo_home(monkeypatch):
    import sumo as wheel

    monkeypatch.setenv("SUMO_HOME", "/nonexistent/sumo")
    assert sumo.sumo_home() == Path(wheel.SUMO_HOME)
    assert Path(sumo.sumo_binary("sumo")).is_file() and Path(sumo.sumo_binary("netgenerate")).is_file()
    assert sumo.sumo_tool("randomTrips.py").is_file()
    with pytest.raises(sumo.SumoError, match="no executable 'no-such-binary'"):
        sumo.sumo_binary("no-such-binary")


@pytest.mark.parametrize("backend", ["libsumo", "traci"])
def test_co2_rate_is_every_vehicles_emission_and_every_edges(backend):
    """The one context subscription sums what SUMO's per-vehicle and per-edge getters report."""
    scenario = scenarios.make_scenario({**SMALL, "demand": 400})
    sim = Simulation(scenario.sumo_args(), seed=4, backend=backend)
    try:
        sim.subscribe_co2()
        api = sim.api
        for _ in range(6):
            sim.advance(30)
            by_vehicle = sum(api.vehicle.getCO2Emission(vehicle) for vehicle in api.vehicle.getIDList())
            by_edge = sum(api.edge.getCO2Emission(edge) for edge in api.edge.getIDList())
            assert sim.co2_rate() == pytest.approx(by_vehicle, rel=1e-9)
            assert sim.co2_rate() == pytest.approx(by_edge, rel=1e-9)
        assert api.vehicle.getIDCount() > 10 and sim.co2_rate() > 0
    finally:
        sim.close()


def test_libsumo_runs_one_simulation_per_process_and_auto_falls_back_to_traci():
    scenario = scenarios.make_scenario(SMALL)
    first = Simulation(scenario.sumo_args(), seed=1, backend="libsumo")
    try:
        with pytest.raises(SumoStartError, match="one simulation per process"):
            Simulation(scenario.sumo_args(), seed=1, backend="libsumo")
        second = Simulation(scenario.sumo_args(), seed=1, backend="auto")
        try:
            assert second.backend == "traci"
            for sim in (first, second):
                sim.advance(60)
            # the same seed gives the same traffic through either backend
            assert first.totals() == second.totals()
        finally:
            second.close()
    finally:
        first.close()
    third = Simulation(scenario.sumo_args(), seed=1, backend="auto")  # libsumo is free again
    assert third.backend == "libsumo"
    third.close()


@pytest.mark.parametrize("backend", ["libsumo", "traci"])
def test_a_bad_network_file_is_a_clear_error(tmp_path, backend):
    bad = tmp_path / "broken.net.xml"
    bad.write_text("<net><edge id='a' from='x'></net>")  # malformed XML
    with pytest.raises(SumoStartError, match="cannot load the network file|failed to start") as error:
        TrafficGridEnv(scenario={"kind": "files", "net_file": bad}, backend=backend)
    assert "broken.net.xml" in str(error.value)
    assert not sumo.libsumo_in_use() and _sumo_children() == []
    with pytest.raises(FileNotFoundError, match="missing.rou.xml"):
        scenarios.from_files(bad, tmp_path / "missing.rou.xml")


def test_unknown_scenarios_and_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="unknown scenario 'atlantis'"):
        scenarios.make_scenario("atlantis")
    with pytest.raises(ValueError, match="unknown reward 'fun'"):
        TrafficGridEnv(scenario=SMALL, reward="fun")
    with pytest.raises(ValueError, match="fluctuation is a fraction"):
        scenarios.grid(fluctuation=1.5)
    with pytest.raises(ValueError, match="without dashes"):
        sumo.options_to_args({"--seed": 1})


def test_sumo_dying_mid_episode_names_the_cause_and_reset_recovers():
    env = TrafficGridEnv(scenario=SMALL, backend="traci")
    try:
        env.reset(seed=0)
        env.step({agent: 0 for agent in env.agents})
        os.kill(env.task.sim.sim.process_id, signal.SIGKILL)
        with pytest.raises(SumoCrashError, match="SUMO stopped during the simulation(.|\n)*exited with signal 9"):
            env.step({agent: 0 for agent in env.agents})
        assert env.agents == [] and _sumo_children() == []
        observations, _ = env.reset(seed=0)  # a fresh SUMO
        assert set(observations) == set(env.possible_agents)
        env.step({agent: 1 for agent in env.agents})
    finally:
        env.close()


@pytest.mark.parametrize("backend", ["libsumo", "traci"])
def test_close_leaves_no_sumo_process(backend):
    before = _sumo_children()
    env = TrafficGridEnv(scenario=SMALL, backend=backend)
    env.reset(seed=0)
    env.step({agent: 0 for agent in env.agents})
    if backend == "traci":
        assert env.task.sim.sim.process_id in _sumo_children()
    env.close()
    env.close()
    assert _sumo_children() == before == []
    assert not sumo.libsumo_in_use()


def test_sumo_accepts_envzoo_signal_programs_without_a_warning():
    env = TrafficGridEnv(scenario=SMALL, sumo_warnings=True, backend="traci")
    try:
        env.reset(seed=0)
        for _ in range(6):
            env.step({agent: env.action_space(agent).sample() for agent in env.agents})
        log = env.task.sim.sim.read_log()
        assert "Warning" not in log, [line for line in log.splitlines() if "Warning" in line][:3]
    finally:
        env.close()
