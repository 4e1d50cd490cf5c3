"""PettingZoo parallel faces of Godot games: any game with several agents
(:class:`GodotParallelEnv`) and the shipped Chase game with a squad (:class:`ChaseSquadEnv`)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from envzoo.core.arguments import check_arguments
from envzoo.core.contract import check_render_mode
from envzoo.core.spaces import check_agent_actions
from envzoo.godot.picture import ChaseFrames
from envzoo.godot.sim import GameInfo, GodotGame, chase_command, chase_info
from envzoo.godot.task import ChaseSquadTask, episode_metrics, face_observation, face_space, game_action


class GodotParallelEnv(ParallelEnv):
    """A Godot game with several agents (the game's training-mode AIControllers), as a PettingZoo
    parallel env; agents are named ``agent_0``, ``agent_1``... in the game's order.

    ## Description

    Starts ``game`` with the plugin's flags and plays it as :class:`envzoo.godot.env.GodotEnv`
    does (``reset(seed=s)`` starts a fresh game with ``--env_seed=s``). An agent whose ``done``
    the game reports leaves ``agents``; what the game sends for it afterwards is ignored. The
    episode ends when every agent is done.

    ## Action Space / Observation Space

    Per agent, as :class:`envzoo.godot.env.GodotEnv` presents them. ``policy_names`` maps
    each agent to the policy name its controller declares (for multi-policy training).

    ## Rewards

    Each agent's reward from the game.

    ## Episode End

    Per agent: ``truncated`` where the game says so, ``terminated`` otherwise.

    ## Metrics

    ``infos[agent]["metrics"]`` when the agent is done: the numbers in the game's info for it.

    ## Arguments

    As :class:`envzoo.godot.env.GodotEnv`, and ``max_cycles`` (int, optional): truncate every
    agent after this many steps.

    ## References

    Beeching, Dębiard, Vanneaux & Teboul. Godot Reinforcement Learning Agents. arXiv:2112.03636, 2021.

    ## Version History

    * v0: initial version (protocol 0.7).
    """

    metadata = {"render_modes": [], "name": "godot_parallel_v0"}

    def __init__(self, game: list[str], *, max_cycles: int | None = None, connect_timeout: float = 30.0,
                 timeout: float = 30.0, speedup: float | None = None, action_repeat: int | None = None,
                 extra_args: dict | None = None, game_info: GameInfo | None = None):
        if max_cycles is not None and (not isinstance(max_cycles, int) or max_cycles < 1):
            raise ValueError(f"max_cycles must be a positive integer or None, got {max_cycles!r}")
        self.max_cycles, self._cycles = max_cycles, 0
        self.render_mode = None
        self._game = GodotGame(list(game), game_info, connect_timeout=connect_timeout, timeout=timeout,
                               speedup=speedup, action_repeat=action_repeat, extra_args=extra_args)
        info = game_info or self._game.start(0)
        self.possible_agents = [f"agent_{i}" for i in range(info.n_agents)]
        self.agents = []
        self.policy_names = dict(zip(self.possible_agents, info.policy_names))
        self._game_action_spaces = dict(zip(self.possible_agents, info.action_spaces))
        self.observation_spaces = {agent: face_space(space)
                                   for agent, space in zip(self.possible_agents, info.observation_spaces)}
        self.action_spaces = {agent: face_space(space) for agent, space in self._game_action_spaces.items()}
        self._first_reset = True
        self._np_random = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._np_random = np.random.default_rng(seed)
        elif self._first_reset or self._game.bridge is None:
            seed = int(self._np_random.integers(2**31))  # an unseeded first episode is random too
        obs, infos = self._game.reset(seed)
        self._first_reset, self._cycles = False, 0
        self.agents = list(self.possible_agents)
        return ({agent: face_observation(obs[i]) for i, agent in enumerate(self.possible_agents)},
                {agent: dict(infos[i]) for i, agent in enumerate(self.possible_agents)})

    def step(self, actions):
        check_agent_actions(self.agents, actions)
        sent = []
        for agent in self.possible_agents:
            space = self._game_action_spaces[agent]
            if agent in actions:
                sent.append(game_action(space, self.action_spaces[agent], actions[agent], f"(agent {agent})"))
            else:  # a finished agent: the game ignores its action; any valid one will do
                sent.append(game_action(space, self.action_spaces[agent], _neutral(self.action_spaces[agent])))
        reply = self._game.step(sent)
        self._cycles += 1
        cut = self.max_cycles is not None and self._cycles >= self.max_cycles
        observations, rewards, terminations, truncations, infos = {}, {}, {}, {}, {}
        for i, agent in enumerate(self.possible_agents):
            if agent not in actions:
                continue
            observations[agent] = face_observation(reply.obs[i])
            rewards[agent] = reply.reward[i]
            terminations[agent], truncations[agent] = reply.terminated[i], reply.truncated[i]
            infos[agent] = dict(reply.info[i])
            if terminations[agent] or truncations[agent]:
                infos[agent]["metrics"] = episode_metrics(reply.info[i])
            elif cut:
                truncations[agent] = True
                infos[agent]["metrics"] = self.episode_metrics()[i]
        self.agents = [agent for agent in self.agents if not (terminations[agent] or truncations[agent])]
        return observations, rewards, terminations, truncations, infos

    def episode_metrics(self) -> list[dict]:
        """Per agent, the metrics of the episode so far, for a cut the game cannot see
        (``max_cycles``); a generic game's are its last infos' numbers (none before its end)."""
        return [{} for _ in self.possible_agents]

    def call(self, method: str) -> list:
        """Call ``method`` on the game's agents (the protocol's ``call``)."""
        return self._game.call(method)

    def close(self):
        self._game.close()


def _neutral(space):
    if isinstance(space, spaces.Discrete):
        return space.start
    if isinstance(space, spaces.Dict):
        return {key: _neutral(sub) for key, sub in space.spaces.items()}
    return np.zeros(space.shape, dtype=space.dtype)


class ChaseSquadEnv(GodotParallelEnv):
    """Chase with a squad: ``n_agents`` agents compete for as many targets on a 12 x 12 board.

    ## Description

    The game of :class:`envzoo.godot.env.ChaseEnv` with several agents and targets: whoever
    lands on a target first (agents move in the order of their names) catches it (+1) and it
    reappears on a random cell. ``engine="godot"`` runs the shipped Godot 3 project headless,
    ``engine="python"`` the same game in pure Python; both over the protocol.

    ## Action Space

    Per agent ``Discrete(5)``: 0 stay, 1 +x, 2 -x, 3 +y, 4 -y.

    ## Observation Space

    Per agent ``Box(-1, 1, (2 + 2 n_agents,), float32)``: its own cell scaled to [-1, 1], then
    every target's offset from it over 11 (values written with 6 decimals, as Godot 3's JSON does).

    ## Rewards

    Per agent: +1 per target caught, -0.01 per step.

    ## Starting State

    Agents, then targets, on random cells from the game's seeded generator.

    ## Episode End

    An agent terminates after 5 catches and is truncated after 100 steps; it then stands still
    (and leaves ``agents``) until the next reset.

    ## Metrics

    ``caught`` and ``steps`` per agent when it is done.

    ## Arguments

    * ``n_agents`` (int, 3): agents (and targets).
    * ``max_cycles`` (int, optional): truncate every agent after this many steps.
    * ``engine`` (str, ``"godot"``): ``"godot"`` (needs ``godot3-server``) or ``"python"``.
    * ``connect_timeout``, ``timeout`` (float, 30).

    ## References

    Beeching, Dębiard, Vanneaux & Teboul. Godot Reinforcement Learning Agents. arXiv:2112.03636, 2021.

    ## Version History

    * v0: initial version.
    """

    metadata = {"render_modes": ["rgb_array"], "name": "chase_squad_v0", "render_fps": 4}
    task_class = ChaseSquadTask
    task = ChaseSquadTask()

    def __init__(self, max_cycles: int | None = None, render_mode: str | None = None, **kwargs):
        check_arguments(ChaseSquadTask.make_params, kwargs, type(self).__name__,
                        face_arguments=("max_cycles", "render_mode"))
        check_render_mode(self.metadata, render_mode)
        params = ChaseSquadTask.make_params(**kwargs)
        self.n_agents, self.engine = params["n_agents"], params["engine"]
        self._frames = ChaseFrames(self.n_agents)
        super().__init__(chase_command(self.engine), max_cycles=max_cycles, connect_timeout=params["connect_timeout"],
                         timeout=params["timeout"], extra_args={"n_agents": self.n_agents},
                         game_info=chase_info(self.n_agents))
        self.render_mode = render_mode

    def reset(self, seed: int | None = None, options: dict | None = None):
        observations, infos = super().reset(seed=seed, options=options)
        if self.render_mode == "rgb_array":
            self._frames.start([observations[agent] for agent in self.possible_agents])
        return observations, infos

    def step(self, actions):
        observations, rewards, terminations, truncations, infos = super().step(actions)
        if self.render_mode == "rgb_array":
            index = {agent: i for i, agent in enumerate(self.possible_agents)}
            self._frames.record({index[a]: o for a, o in observations.items()},
                                {index[a]: r for a, r in rewards.items()})
        return observations, rewards, terminations, truncations, infos

    def render(self):
        """The board and the catches so far (``render_mode="rgb_array"``; see :mod:`envzoo.godot.picture`)."""
        return self._frames.frame() if self.render_mode == "rgb_array" else None

    def episode_metrics(self) -> list[dict]:
        return self.task.episode_metrics(self._game)
