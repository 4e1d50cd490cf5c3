"""How the faces present a game's per-agent dicts: a single observation key or action head is
unwrapped to its space (so ``{"obs": Box}`` is a Box, as most learners want), several stay a
``Dict``; actions are checked against the face's space, then written as the plugin expects
(an int for a discrete head, a list of floats for a continuous one)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.errors import InvalidActionError
from envzoo.core.spaces import check_action


def face_space(space: spaces.Dict) -> spaces.Space:
    """The face's space for one agent's observation or action dict."""
    return next(iter(space.spaces.values())) if len(space.spaces) == 1 else space


def face_observation(values: dict):
    return next(iter(values.values())) if len(values) == 1 else values


def game_action(game_space: spaces.Dict, face: spaces.Space, action, hint: str = "") -> dict:
    """One agent's action as the game's action dict, or :class:`InvalidActionError`."""
    if len(game_space.spaces) == 1:
        (key, head), = game_space.spaces.items()
        return {key: _head_value(head, check_action(face, action, hint))}
    if not isinstance(action, dict) or set(action) != set(game_space.spaces):
        raise InvalidActionError(f"action must be a dict with the heads {sorted(game_space.spaces)}, got {action!r}")
    return {key: _head_value(head, check_action(head, action[key], hint)) for key, head in game_space.spaces.items()}


def _head_value(head: spaces.Space, value):
    if isinstance(head, spaces.Discrete):
        return int(value)
    return np.asarray(value, dtype=np.float64).reshape(-1).tolist()


def episode_metrics(game_info: dict) -> dict:
    """What a game reports in its info when an agent's episode ends is that episode's metrics."""
    return {key: value for key, value in game_info.items() if isinstance(value, (int, float))}


class ChaseTask:
    """Chase's metrics. The game reports them in its info when an agent's episode ends; at a
    cut the game cannot see (a TimeLimit, ``max_cycles``) the faces ask the game for them with
    the protocol's ``call`` (Chase's agents answer ``caught`` and ``steps``)."""

    metrics_at_episode_end = True
    metric_names = ("caught", "steps")

    @staticmethod
    def make_params(engine: str = "godot", connect_timeout: float = 30.0, timeout: float = 30.0) -> dict:
        """The arguments of the one-agent Chase env (checked by name before the game starts)."""
        return {"engine": engine, "connect_timeout": connect_timeout, "timeout": timeout}

    def episode_metrics(self, game) -> list[dict]:
        """Per agent, the metrics of the episode so far (``game``: a running GodotGame)."""
        values = {name: game.call(name) for name in self.metric_names}
        return [{name: values[name][i] for name in self.metric_names} for i in range(game.info.n_agents)]


class ChaseSquadTask(ChaseTask):
    """Chase with several agents: the arguments add ``n_agents``."""

    @staticmethod
    def make_params(n_agents: int = 3, engine: str = "godot", connect_timeout: float = 30.0,
                    timeout: float = 30.0) -> dict:
        if isinstance(n_agents, bool) or not isinstance(n_agents, int) or n_agents < 1:
            raise ValueError(f"n_agents must be a positive integer, got {n_agents!r}")
        return {"n_agents": n_agents, **ChaseTask.make_params(engine, connect_timeout, timeout)}
