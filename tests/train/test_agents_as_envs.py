"""AgentsVecEnv (a PettingZoo parallel env as an SB3 VecEnv, one slot per agent) against the
parallel env itself driven with the same seeds and actions, and SharedTrainedPolicy against
per-agent predictions."""

import subprocess
import sys

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from envzoo.tools.rollout import run_episode
from envzoo.train.agents_as_envs import AgentsVecEnv, SharedTrainedPolicy


class CountersEnv(ParallelEnv):
    """Each agent adds its action (0, 1 or 2) to a counter that starts at a random value; it sees
    its counter and the step count, and earns its action times its rank (1, 2, 3 ...), so every
    agent's numbers differ. All terminate once the first agent's counter reaches
    ``terminate_at``; all are truncated after ``max_steps`` steps."""

    metadata = {"name": "counters_v0"}
    render_mode = None

    def __init__(self, n_agents=3, max_steps=6, terminate_at=9):
        self.possible_agents = [f"agent_{i}" for i in range(n_agents)]
        self.agents = []
        self.max_steps, self.terminate_at = max_steps, terminate_at
        self.np_random, _ = seeding.np_random(None)

    def observation_space(self, agent):
        return spaces.Box(0.0, 100.0, (2,), np.float32)

    def action_space(self, agent):
        return spaces.Discrete(3)

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = list(self.possible_agents)
        self.counters = {agent: int(self.np_random.integers(0, 5)) for agent in self.agents}
        self.steps = 0
        return self._observations(), {agent: {"start": self.counters[agent]} for agent in self.agents}

    def step(self, actions):
        self.steps += 1
        for agent in self.agents:
            self.counters[agent] += int(actions[agent])
        rewards = {agent: float(actions[agent]) * (rank + 1) for rank, agent in enumerate(self.agents)}
        terminated = self.counters[self.agents[0]] >= self.terminate_at
        truncated = self.steps >= self.max_steps
        observations = self._observations()
        infos = {agent: {"counter": self.counters[agent]} for agent in self.agents}
        done = {agent: terminated for agent in self.agents}, {agent: truncated for agent in self.agents}
        if terminated or truncated:
            self.agents = []
        return observations, rewards, done[0], done[1], infos

    def _observations(self):
        return {agent: np.array([self.counters[agent], self.steps], dtype=np.float32) for agent in self.agents}


def test_slots_replay_the_parallel_env_agent_by_agent_across_episode_ends():
    vec, reference = AgentsVecEnv(CountersEnv()), CountersEnv()
    agents = reference.possible_agents
    vec.seed(3)
    observations = vec.reset()
    expected, expected_infos = reference.reset(seed=3)
    np.testing.assert_array_equal(observations, np.stack([expected[a] for a in agents]))
    assert vec.reset_infos == [expected_infos[a] for a in agents]
    rng = np.random.default_rng(0)
    endings = []
    for _ in range(40):
        actions = rng.integers(0, 3, size=len(agents))
        observations, rewards, dones, infos = vec.step(actions)
        expected, expected_rewards, terminated, truncated, expected_infos = reference.step(dict(zip(agents, actions)))
        np.testing.assert_array_equal(rewards, [expected_rewards[a] for a in agents])
        assert list(dones) == [terminated[a] or truncated[a] for a in agents]
        for slot, agent in enumerate(agents):
            assert infos[slot]["counter"] == expected_infos[agent]["counter"]
        if dones[0]:
            endings.append("terminated" if terminated[agents[0]] else "truncated")
            for slot, agent in enumerate(agents):
                np.testing.assert_array_equal(infos[slot]["terminal_observation"], expected[agent])
                assert infos[slot]["TimeLimit.truncated"] == (truncated[agent] and not terminated[agent])
            expected, expected_infos = reference.reset()  # no seed: the generator goes on
            assert vec.reset_infos == [expected_infos[a] for a in agents]
        else:
            assert all("terminal_observation" not in info for info in infos)
        np.testing.assert_array_equal(observations, np.stack([expected[a] for a in agents]))
    assert {"terminated", "truncated"} <= set(endings)


def test_seed_makes_reset_reproducible():
    def first_observations(seed):
        vec = AgentsVecEnv(CountersEnv(n_agents=8))
        vec.seed(seed)
        return vec.reset()

    np.testing.assert_array_equal(first_observations(5), first_observations(5))
    assert not np.array_equal(first_observations(5), first_observations(6))
    expected, _ = CountersEnv(n_agents=8).reset(seed=5)
    np.testing.assert_array_equal(first_observations(5), np.stack(list(expected.values())))


def test_agents_with_different_spaces_are_named():
    class Uneven(CountersEnv):
        def observation_space(self, agent):
            return spaces.Box(0.0, 100.0, (3 if agent == "agent_2" else 2,), np.float32)

    with pytest.raises(ValueError, match=r"\['agent_2'\] have a different observation_space"):
        AgentsVecEnv(Uneven())


class OneLeavesEarly(CountersEnv):
    """CountersEnv where agent_1 terminates (and leaves) once its own counter reaches 6; the env
    refuses an action for an agent that has left, as PettingZoo's envs may."""

    def step(self, actions):
        assert set(actions) == set(self.agents), f"actions for {sorted(actions)}, live {self.agents}"
        observations, rewards, terminations, truncations, infos = super().step(actions)
        if "agent_1" in self.agents and self.counters["agent_1"] >= 6:
            terminations["agent_1"] = True
            self.agents.remove("agent_1")
        return observations, rewards, terminations, truncations, infos


def test_an_agent_that_leaves_early_ends_its_slot_then_shows_zeros_until_the_episode_ends():
    vec = AgentsVecEnv(OneLeavesEarly(max_steps=8, terminate_at=99))
    vec.seed(0)
    vec.reset()
    twos = np.full(3, 2)  # agent_1 reaches 6 within 3 steps; the episode is truncated at step 8
    left_at = None
    for step in range(1, 9):
        observations, rewards, dones, infos = vec.step(twos)
        if left_at is None and dones[1]:
            left_at = step
            assert not dones[0] and not dones[2]
            assert infos[1]["terminal_observation"][0] >= 6 and not infos[1]["TimeLimit.truncated"]
            assert rewards[1] == 4.0  # its last step still pays
        elif left_at is not None and step < 8:
            np.testing.assert_array_equal(observations[1], [0.0, 0.0])
            assert rewards[1] == 0.0 and not dones.any()
    assert left_at is not None and left_at < 8
    assert dones.all()  # the episode's end: every slot, agent_1's zeros included
    np.testing.assert_array_equal(infos[1]["terminal_observation"], [0.0, 0.0])
    assert infos[0]["TimeLimit.truncated"]


def test_episodes_play_only_the_live_agents():
    class Stubborn(SharedTrainedPolicy):
        def __init__(self, env):
            super().__init__(env, model=None)

        def __call__(self, observations, infos):
            return {agent: 2 for agent in observations}

    env = OneLeavesEarly(max_steps=8, terminate_at=99)
    result = run_episode(env, Stubborn(env), seed=0)
    assert result.length == 8


class DictCounters(CountersEnv):
    """CountersEnv whose observation is a Dict: the counter and the step count apart."""

    def observation_space(self, agent):
        return spaces.Dict({"counter": spaces.Box(0.0, 100.0, (1,), np.float32),
                            "step": spaces.Box(0.0, 100.0, (1,), np.float32)})

    def _observations(self):
        return {agent: {"counter": np.array([value], np.float32), "step": np.array([self.steps], np.float32)}
                for agent, value in self.counters.items() if agent in self.agents}


def test_dict_observations_stack_key_by_key_and_train_a_multi_input_policy():
    from stable_baselines3 import PPO

    vec, reference = AgentsVecEnv(DictCounters()), DictCounters()
    vec.seed(4)
    observations = vec.reset()
    expected, _ = reference.reset(seed=4)
    np.testing.assert_array_equal(observations["counter"][:, 0], [expected[a]["counter"][0] for a in reference.agents])
    assert observations["step"].shape == (3, 1)
    model = PPO("MultiInputPolicy", vec, n_steps=16, batch_size=16, n_epochs=1, seed=0).learn(48)
    env = DictCounters()
    result = run_episode(env, SharedTrainedPolicy(env, model), seed=1)
    assert result.length >= 1


def test_ppo_trains_on_the_slots_and_plays_back_per_agent():
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecMonitor

    vec = VecMonitor(AgentsVecEnv(CountersEnv()))
    model = PPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=2, seed=0).learn(300)
    assert model.num_timesteps >= 300
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw whole episodes through the slots

    env = CountersEnv()
    policy = SharedTrainedPolicy(env, model)
    observations, infos = env.reset(seed=1)
    actions = policy(observations, infos)
    for agent, observation in observations.items():
        assert actions[agent] == model.predict(observation, deterministic=True)[0]
    assert run_episode(env, policy, seed=1).length >= 1


def test_missing_train_extra_names_it():
    code = ("import sys; sys.modules['stable_baselines3'] = None\n"
            "import envzoo.train.agents_as_envs")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0
    assert "MissingExtraError" in result.stderr and 'pip install "envzoo[train]"' in result.stderr
