"""Gymnasium faces of Godot games: any one-agent game (:class:`GodotEnv`) and the shipped Chase
game (:class:`ChaseEnv`)."""

from __future__ import annotations

import gymnasium

from envzoo.core.arguments import check_arguments
from envzoo.core.contract import check_render_mode
from envzoo.godot.picture import ChaseFrames
from envzoo.godot.sim import GameInfo, GodotError, GodotGame, chase_command, chase_info
from envzoo.godot.task import ChaseTask, episode_metrics, face_observation, face_space, game_action


class GodotEnv(gymnasium.Env):
    """A one-agent Godot game, spoken to with the Godot RL Agents protocol.

    ## Description

    Starts ``game`` (a command: an exported game executable, or ``["godot3-server", "--path",
    project_folder]``) with the plugin's flags (``--port``, ``--env_seed``, ``--speedup``,
    ``--action_repeat``, ``--disable-render-loop --headless``), listens for it on a free
    loopback port and plays it step by step. Games with several agents are served by
    :class:`envzoo.godot.parallel.GodotParallelEnv`.

    ## Action Space

    The game's action heads: one head is exposed as its own space (``Discrete(size)``, or a
    ``Box`` in [-1, 1] for a continuous head), several as a ``Dict``.

    ## Observation Space

    The game's observation keys, unwrapped the same way; a key containing ``2d`` is a ``uint8``
    image (sent hex-encoded by the game).

    ## Rewards

    The game's reward.

    ## Starting State

    ``reset(seed=s)`` starts a fresh game process with ``--env_seed=s`` (the protocol cannot
    reseed a running game); ``reset()`` sends the protocol's ``reset`` to the running game. A game
    left without :meth:`close` is ended when the env is garbage-collected or Python exits.

    ## Episode End

    The game's ``done``: ``truncated`` where the game reports the optional ``truncated`` flag
    (a time limit), ``terminated`` otherwise.

    ## Metrics

    ``info["metrics"]`` at the end of an episode: the numbers in the game's info at that step.

    ## Arguments

    * ``game`` (list of str): the command that starts the game.
    * ``connect_timeout`` (float, 30): seconds to wait for the game to connect.
    * ``timeout`` (float, 30): seconds to wait for each reply.
    * ``speedup``, ``action_repeat`` (optional): passed to the game as ``--speedup=``,
      ``--action_repeat=``.
    * ``game_info`` (:class:`envzoo.godot.sim.GameInfo`, optional): the game's ``env_info``
      when known in advance; the game then starts on the first reset, with its seed. Without
      it the game starts at once to tell its spaces (with seed 0, which a first ``reset(seed=0)``
      plays).
    * ``extra_args`` (dict): further ``--name=value`` arguments for the game.

    ## References

    Beeching, Dębiard, Vanneaux & Teboul. Godot Reinforcement Learning Agents. arXiv:2112.03636, 2021.

    ## Version History

    * v0: initial version (protocol 0.7).
    """

    metadata = {"render_modes": []}

    def __init__(self, game: list[str], *, connect_timeout: float = 30.0, timeout: float = 30.0,
                 speedup: float | None = None, action_repeat: int | None = None, extra_args: dict | None = None,
                 game_info: GameInfo | None = None):
        self._game = GodotGame(list(game), game_info, connect_timeout=connect_timeout, timeout=timeout,
                               speedup=speedup, action_repeat=action_repeat, extra_args=extra_args)
        info = game_info or self._game.start(0)
        if info.n_agents != 1:
            self._game.close()
            raise GodotError(f"the game has {info.n_agents} agents; GodotEnv plays one-agent games. Use "
                             "envzoo.godot.parallel.GodotParallelEnv for several agents.")
        self._game_action_space = info.action_spaces[0]
        self.observation_space = face_space(info.observation_spaces[0])
        self.action_space = face_space(self._game_action_space)
        self._needs_reset = self._first_reset = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None and (self._first_reset or self._game.bridge is None):
            seed = int(self.np_random.integers(2**31))  # an unseeded first episode is random too
        obs, infos = self._game.reset(seed)
        self._needs_reset = self._first_reset = False
        return face_observation(obs[0]), dict(infos[0])

    def step(self, action):
        self.step_send(action)
        return self.step_receive()

    def step_send(self, action) -> None:
        """The first half of :meth:`step`: check ``action`` and send it (a vector of games sends
        to every game before it reads any reply, so that the games step concurrently)."""
        if self._needs_reset:
            raise gymnasium.error.ResetNeeded("call reset() before step() (and after an episode ended)")
        self._game.send_actions([game_action(self._game_action_space, self.action_space, action)])

    def step_receive(self):
        """The second half of :meth:`step`: the game's reply as Gymnasium's 5-tuple."""
        reply = self._game.receive_step()
        terminated, truncated = reply.terminated[0], reply.truncated[0]
        info = dict(reply.info[0])
        if terminated or truncated:
            self._needs_reset = True
            info["metrics"] = episode_metrics(reply.info[0])
        return face_observation(reply.obs[0]), reply.reward[0], terminated, truncated, info

    def call(self, method: str) -> list:
        """Call ``method`` on the game's agents (the protocol's ``call``)."""
        return self._game.call(method)

    def close(self):
        self._game.close()


class ChaseEnv(GodotEnv):
    """Chase: catch targets on a board, a small Godot game shipped with envzoo.

    ## Description

    One agent and one target on a 12 x 12 board. Each step the agent moves one cell; landing on
    the target catches it (+1) and the target reappears on a random cell. The game is the
    Godot 3 project in ``envzoo/godot/game`` (a GDScript sync node speaking the Godot RL Agents
    protocol), run by the headless Godot 3 server (``engine="godot"``); ``engine="python"``
    runs the same game, rule for rule and random number for random number, in pure Python
    (:mod:`envzoo.godot.chase`) over the same protocol, for machines without the engine.

    ## Action Space

    ``Discrete(5)``: 0 stay, 1 right (+x), 2 left (-x), 3 down (+y), 4 up (-y); a move off the
    board leaves the agent on the edge.

    ## Observation Space

    ``Box(-1, 1, (4,), float32)``: the agent's cell scaled to [-1, 1] (``2 x / 11 - 1``,
    ``2 y / 11 - 1``) and the target's offset from it over 11 (``(tx - x) / 11``, ``(ty - y) / 11``).

    ## Rewards

    +1 per target caught, -0.01 per step.

    ## Starting State

    Agent and target on random cells (a 32-bit linear congruential generator seeded with the
    game's ``--env_seed`` once at launch; the same numbers in GDScript and Python). Making the
    env starts no game: the first ``reset`` launches it with its seed.

    ## Episode End

    Terminated after 5 catches; truncated after 100 steps (the game reports which).

    ## Metrics

    ``caught`` (targets caught) and ``steps`` (steps taken) at the end of an episode.

    ## Arguments

    * ``engine`` (str, ``"godot"``): ``"godot"`` (needs ``godot3-server``) or ``"python"``.
    * ``connect_timeout``, ``timeout`` (float, 30): as for :class:`GodotEnv`.

    ## References

    Beeching, Dębiard, Vanneaux & Teboul. Godot Reinforcement Learning Agents. arXiv:2112.03636, 2021.

    ## Version History

    * v0: initial version.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}
    task_class = ChaseTask
    task = ChaseTask()

    def __init__(self, render_mode: str | None = None, **kwargs):
        check_arguments(ChaseTask.make_params, kwargs, type(self).__name__, face_arguments=("render_mode",))
        check_render_mode(self.metadata, render_mode)
        params = ChaseTask.make_params(**kwargs)
        self.engine, self.render_mode = params["engine"], render_mode
        self._frames = ChaseFrames(1)
        super().__init__(chase_command(self.engine), connect_timeout=params["connect_timeout"],
                         timeout=params["timeout"], game_info=chase_info())

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        observation, info = super().reset(seed=seed, options=options)
        if self.render_mode == "rgb_array":
            self._frames.start([observation])
        return observation, info

    def step_receive(self):
        observation, reward, terminated, truncated, info = super().step_receive()
        if self.render_mode == "rgb_array":
            self._frames.record({0: observation}, {0: reward})
        return observation, reward, terminated, truncated, info

    def render(self):
        """The board and the catches so far (``render_mode="rgb_array"``; see :mod:`envzoo.godot.picture`)."""
        return self._frames.frame() if self.render_mode == "rgb_array" else None

    def episode_metrics(self) -> dict:
        """The metrics of the episode so far (asked of the game; for an episode cut by a TimeLimit)."""
        return self.task.episode_metrics(self._game)[0]

