"""Every shipped feeder plays on the centralised and the agents' faces with its default agents,
which sit on its buses electrically farthest from the substation."""

import gymnasium
import numpy as np
import pytest

import envzoo
from envzoo.powergrid import feeders
from envzoo.powergrid.params import DEFAULT_AGENTS, default_agents


@pytest.mark.parametrize("name", sorted(feeders.FEEDERS))
def test_every_feeder_plays_on_both_faces(name):
    env = gymnasium.make("envzoo/PowerGrid-v0", feeder=name)
    observation, _ = env.reset(seed=0)
    assert observation.shape == env.observation_space.shape
    for _ in range(3):
        observation, reward, terminated, truncated, info = env.step(env.action_space.high)
    assert np.isfinite(observation).all() and np.isfinite(reward) and info["powerflow_converged"]
    agents = envzoo.make("envzoo/PowerGridAgents-v0", feeder=name)
    observations, _ = agents.reset(seed=0)
    observations, rewards, _, _, infos = agents.step({a: agents.action_space(a).low for a in agents.agents})
    assert all(np.isfinite(observations[a]).all() and np.isfinite(rewards[a]) for a in agents.agents)


def test_default_agents_sit_where_the_voltage_sags():
    assert default_agents(feeders.ieee33()) == DEFAULT_AGENTS
    feeder = feeders.feeder("ieee123")
    agents = default_agents(feeder)
    assert [a["bus"] for a in agents][:3] == ["610", "114", "113"]
    assert agents[0]["pv_kw"] == pytest.approx(300.0 * feeder.p_kw.sum() / 3715.0, abs=0.05)
    assert default_agents(feeders.feeder("cigre_mv"))[0]["pv_kw"] == 300.0  # never scaled up
