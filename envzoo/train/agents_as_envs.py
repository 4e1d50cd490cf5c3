"""Train one shared Stable-Baselines3 model on a PettingZoo parallel env, and play it back.

:class:`AgentsVecEnv` presents a PettingZoo ``ParallelEnv`` as an SB3 ``VecEnv`` with one slot
per agent, so any SB3 algorithm trains *independent learners with parameter sharing*: every
agent acts on its own observation through the same network, and each agent's transitions are
samples for that one network (the "independent PPO with parameter sharing" of PettingZoo's SB3
tutorials). Agents do not see each other's observations or actions; what one agent does reaches
the others only through the environment. :class:`SharedTrainedPolicy` plays such a model back on
the PettingZoo env with :func:`envzoo.tools.rollout.run_episode`.

    from stable_baselines3 import PPO
    from envzoo.train.agents_as_envs import AgentsVecEnv, SharedTrainedPolicy

    model = PPO("MlpPolicy", AgentsVecEnv(parallel_env)).learn(100_000)
    result = run_episode(parallel_env, SharedTrainedPolicy(parallel_env, model), seed=0)

Importing this module needs the ``train`` extra (Stable-Baselines3); ``import envzoo`` never
imports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from envzoo.core.extras import require
from envzoo.core.policy import TrainedPolicy

VecEnv = require("train", "stable_baselines3.common.vec_env").VecEnv

# Spaces whose samples are arrays, so that one observation (action) per agent stacks into a batch.
_ARRAY_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)


class AgentsVecEnv(VecEnv):
    """A PettingZoo ``ParallelEnv`` as an SB3 ``VecEnv``: slot ``i`` is agent ``possible_agents[i]``.

    Every agent must have the same observation space and the same action space (the shared
    network's): array spaces (Box, Discrete, MultiDiscrete, MultiBinary) or a Dict of them
    (observations then stack key by key, for SB3's ``MultiInputPolicy``). Every agent must be
    live at ``reset``; an env that breaks either rule gets a ``ValueError`` naming the agents.

    An agent may leave before the others (the slots of a ``VecEnv`` cannot empty one by one):
    its slot reports ``done`` at the agent's own end, then shows zero observations and zero
    rewards, its actions unused, until the episode ends, when it reports ``done`` again (the
    "black death" of SuperSuit, with the agent's real end kept as an episode end for SB3).

    SB3's conventions: ``step_wait`` returns batched observations, ``float32`` rewards, ``dones``
    (terminated or truncated) and one info dict per slot (a copy of that agent's info). When a
    slot is done, its info gets ``"terminal_observation"`` (the agent's last observation) and
    ``"TimeLimit.truncated"`` (truncated but not terminated). When the episode ends, the env is
    reset at once without a seed (its generator goes on) and the returned observations are those
    of the new episode; the reset infos are in ``reset_infos``. ``seed(s)`` seeds the next
    ``reset`` with ``s`` (the one env takes the first slot's seed). ``get_attr`` and
    ``env_method`` act on the one shared env and repeat its answer for each requested slot.
    """

    def __init__(self, env):
        self.env = env
        self.agents = list(env.possible_agents)
        super().__init__(len(self.agents), _shared_space(env, "observation_space", self.agents),
                         _shared_space(env, "action_space", self.agents))
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        options = {"options": self._options[0]} if self._options[0] else {}
        observations, infos = self.env.reset(seed=self._seeds[0], **options)
        self._reset_seeds()
        self._reset_options()
        self._check_live_agents()
        self.reset_infos = [dict(infos.get(agent, {})) for agent in self.agents]
        return self._stack(observations)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() needs step_async(actions) first")
        actions, self._actions = self._actions, None
        live = set(self.env.agents)
        observations, rewards, terminations, truncations, infos = self.env.step(
            {agent: action for agent, action in zip(self.agents, actions) if agent in live})
        episode_over = not self.env.agents
        batch = self._stack({agent: observations[agent] if agent in live else self._blank for agent in self.agents})
        step_rewards = np.array([rewards[agent] if agent in live else 0.0 for agent in self.agents], dtype=np.float32)
        terminated = np.array([bool(terminations[agent]) if agent in live else episode_over for agent in self.agents])
        truncated = np.array([bool(truncations[agent]) if agent in live else False for agent in self.agents])
        dones = terminated | truncated
        slot_infos = [dict(infos.get(agent, {})) for agent in self.agents]
        for slot in np.flatnonzero(dones):
            slot_infos[slot]["terminal_observation"] = self._slot(batch, slot)
            slot_infos[slot]["TimeLimit.truncated"] = bool(truncated[slot] and not terminated[slot])
        if episode_over:
            batch = self.reset()
        return batch, step_rewards, dones, slot_infos

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        # A PettingZoo env is not wrapped by Gymnasium wrappers (Monitor...): use VecMonitor.
        return [False for _ in self._get_indices(indices)]

    @property
    def _blank(self):
        """What a slot whose agent has left observes: zeros of the observation space."""
        if isinstance(self.observation_space, spaces.Dict):
            return {key: np.zeros(space.shape, space.dtype) for key, space in self.observation_space.spaces.items()}
        return np.zeros(self.observation_space.shape, self.observation_space.dtype)

    def _stack(self, observations: dict):
        if isinstance(self.observation_space, spaces.Dict):
            return {key: np.stack([np.asarray(observations[agent][key], dtype=space.dtype) for agent in self.agents])
                    for key, space in self.observation_space.spaces.items()}
        return np.stack([np.asarray(observations[agent], dtype=self.observation_space.dtype)
                         for agent in self.agents])

    @staticmethod
    def _slot(batch, slot: int):
        return {key: values[slot] for key, values in batch.items()} if isinstance(batch, dict) else batch[slot]

    def _check_live_agents(self) -> None:
        if set(self.env.agents) != set(self.agents):
            raise ValueError(f"the live agents {list(self.env.agents)} at reset are not all of possible_agents "
                             f"{self.agents}; AgentsVecEnv needs every agent live when an episode starts")


class SharedTrainedPolicy(TrainedPolicy):
    """A model trained on :class:`AgentsVecEnv` as a policy for the PettingZoo env: it acts for
    every agent on that agent's own observation (one batched ``predict``, deterministic) and
    returns the actions as a dict keyed by agent, as ``run_episode`` expects."""

    def __call__(self, observations: dict, infos: dict) -> dict:
        agents = list(observations)
        if isinstance(self.model.observation_space, spaces.Dict):
            batch = {key: np.stack([observations[agent][key] for agent in agents])
                     for key in self.model.observation_space.spaces}
        else:
            batch = np.stack([observations[agent] for agent in agents])
        actions, _ = self.model.predict(batch, deterministic=True)
        return dict(zip(agents, actions))


def _shared_space(env, kind: str, agents: list[str]) -> spaces.Space:
    """The observation or action space (``kind``) every agent has, or a ``ValueError`` naming
    the agents whose space differs from the first agent's."""
    if not agents:
        raise ValueError("the env has no agents (possible_agents is empty)")
    space = getattr(env, kind)(agents[0])
    differ = [agent for agent in agents[1:] if getattr(env, kind)(agent) != space]
    if differ:
        raise ValueError(f"agents {differ} have a different {kind} from agent {agents[0]!r} ({space}); "
                         "AgentsVecEnv trains one shared network, so every agent needs the same spaces")
    parts = space.spaces.values() if kind == "observation_space" and isinstance(space, spaces.Dict) else [space]
    if not all(isinstance(part, _ARRAY_SPACES) for part in parts):
        raise ValueError(f"the agents' {kind} is {space}; AgentsVecEnv needs a Box, Discrete, MultiDiscrete "
                         "or MultiBinary space (observations: or a Dict of them; flatten others with a wrapper first)")
    return space
