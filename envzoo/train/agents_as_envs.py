"""Train one shared Stable-Baselines3 model on a PettingZoo parallel env, and play it back.

:class:`AgentsVecEnv` presents a PettingZoo ``ParallelEnv`` as an SB3 ``VecEnv`` with one slot
per agent, so any SB3 algorithm trains *independent learners with parameter sharing*: every
agent acts on its own observation through the same network, and each agent's transitions are
samples for that one network (the "independent PPO with parameter sharing" of PettingZoo's SB3
tutorials). Agents do not see each other's observations or actions; what one agent does reaches
the others only through the environment. :class:`SharedTrainedPolicy` plays such a model back on
the PettingZoo env with :func:`envzoo.core.rollout.run_episode`.

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
    network's), both of array type (Box, Discrete, MultiDiscrete, MultiBinary). Every agent is
    live from ``reset`` to the episode's end, and all end at the same step: the slots of a
    ``VecEnv`` cannot empty one by one. An env that breaks either rule gets a ``ValueError``
    naming the agents concerned.

    SB3's conventions: ``step_wait`` returns batched observations, ``float32`` rewards, ``dones``
    (terminated or truncated) and one info dict per slot (a copy of that agent's info). When the
    episode ends, every slot's info gets ``"terminal_observation"`` (the agent's last
    observation) and ``"TimeLimit.truncated"`` (truncated but not terminated), the env is reset
    at once without a seed (its generator goes on), and the returned observations are those of
    the new episode; the reset infos are in ``reset_infos``. ``seed(s)`` seeds the next
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
        observations, rewards, terminations, truncations, infos = self.env.step(dict(zip(self.agents, actions)))
        terminated = np.array([bool(terminations[agent]) for agent in self.agents])
        truncated = np.array([bool(truncations[agent]) for agent in self.agents])
        dones = terminated | truncated
        slot_infos = [dict(infos.get(agent, {})) for agent in self.agents]
        batch = self._stack(observations)
        if dones.any():
            if not dones.all():
                raise ValueError(f"agents {[a for a, d in zip(self.agents, dones) if d]} ended while "
                                 f"{[a for a, d in zip(self.agents, dones) if not d]} go on; AgentsVecEnv "
                                 "needs every agent to end at the same step")
            for slot, info in enumerate(slot_infos):
                info["terminal_observation"] = batch[slot]
                info["TimeLimit.truncated"] = bool(truncated[slot] and not terminated[slot])
            batch = self.reset()
        else:
            self._check_live_agents()
        return batch, np.array([rewards[agent] for agent in self.agents], dtype=np.float32), dones, slot_infos

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

    def _stack(self, observations: dict) -> np.ndarray:
        return np.stack([np.asarray(observations[agent], dtype=self.observation_space.dtype)
                         for agent in self.agents])

    def _check_live_agents(self) -> None:
        if set(self.env.agents) != set(self.agents):
            raise ValueError(f"the live agents {list(self.env.agents)} are not all of possible_agents "
                             f"{self.agents}; AgentsVecEnv needs every agent live for the whole episode")


class SharedTrainedPolicy(TrainedPolicy):
    """A model trained on :class:`AgentsVecEnv` as a policy for the PettingZoo env: it acts for
    every agent on that agent's own observation (one batched ``predict``, deterministic) and
    returns the actions as a dict keyed by agent, as ``run_episode`` expects."""

    def __call__(self, observations: dict, infos: dict) -> dict:
        agents = list(observations)
        actions, _ = self.model.predict(np.stack([observations[agent] for agent in agents]), deterministic=True)
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
    if not isinstance(space, _ARRAY_SPACES):
        raise ValueError(f"the agents' {kind} is {space}; AgentsVecEnv needs a Box, Discrete, MultiDiscrete "
                         "or MultiBinary space (flatten Dict and Tuple spaces with a wrapper first)")
    return space
