"""Vehicle conservation, checked every simulated second against SUMO's own vehicle id lists:
every departed vehicle has arrived, is on the road, or is teleporting — and the env's metrics
count the same vehicles."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("libsumo")

from envzoo.traffic.parallel import TrafficGridEnv  # noqa: E402


@pytest.mark.parametrize("seed", [0, 1])
def test_departed_equals_arrived_plus_running_plus_teleporting(every_second, seed):
    # A congested grid with a short teleport time, so that vehicles teleport during the episode.
    env = TrafficGridEnv(scenario={"kind": "grid", "rows": 3, "columns": 3, "demand": 500, "duration": 900},
                         max_cycles=60, sumo_options={"time-to-teleport": 20})
    departed, arrived, teleporting, teleports = set(), set(), set(), [0]
    problems = []

    def record(api):
        departed.update(api.simulation.getDepartedIDList())
        arrived.update(api.simulation.getArrivedIDList())
        started, ended = api.simulation.getStartingTeleportIDList(), api.simulation.getEndingTeleportIDList()
        teleports[0] += len(started)
        teleporting.update(started)
        teleporting.difference_update(ended)
        teleporting.difference_update(arrived)
        running = set(api.vehicle.getIDList())
        # disjoint parts that together are exactly the departed vehicles
        if running & arrived or running & teleporting or departed != arrived | running | teleporting:
            problems.append(api.simulation.getTime())

    try:
        every_second(env, record)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        episodes = 0
        while episodes < 2:  # two episodes: the counts restart with SUMO
            departed.clear(), arrived.clear(), teleporting.clear()
            teleports[0] = 0
            while env.agents:
                _, _, _, _, infos = env.step({a: int(rng.integers(env.action_space(a).n)) for a in env.agents})
                metrics = next(iter(infos.values()))["metrics"]
                assert metrics["departed"] == len(departed) and metrics["arrived"] == len(arrived)
                assert metrics["running"] == len(departed) - len(arrived)  # teleporting ones are running
                assert metrics["teleports"] == teleports[0]
            assert not problems, f"conservation broken at t = {problems[:5]}"
            assert len(departed) > 100 and teleports[0] > 0, "the test needs traffic and teleports"
            episodes += 1
            env.reset()
    finally:
        env.close()
