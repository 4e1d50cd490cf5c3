"""The domain contract: what a domain writes so that the shared faces serve it.

A domain is a folder with the same files as every other (see the docs' "Add a domain" page):

- ``params.py``: a frozen dataclass of the domain's parameters. ``Task.make_params(**kwargs)``
  builds it from the env's keyword arguments and raises a clear ``ValueError`` for a bad one.
- ``sim.py``: the simulator. It advances B independent rows with array operations:
  ``reset(rows, keys)`` starts the episodes of some rows from one 64-bit key each (counter-based
  random numbers, :mod:`envzoo.core.rng`, so that a row's trajectory does not depend on the
  batch it runs in), ``step(...)`` advances every row by one decision, and the row state
  (arrays with a leading axis B) is public. Where the simulator is external (SUMO, Orekit),
  ``sim.py`` is the bridge to it.
- ``task.py``: a :class:`Task` (or :class:`AgentsTask` for a multi-agent face) over the
  simulator: it turns actions into the simulator's orders and the simulator's state into
  observations, reward components, costs (``info["cost"]``) and metrics (``info["metrics"]``).
- ``generator.py`` and/or ``data.py``: seeded scenario generators, loaders of real formats.
- ``policies.py``: the domain's reference (non-learning) controllers.
- faces (``env.py``, ``mo.py``, ``parallel.py``, ``vector.py``): thin classes that name the task
  and carry the documentation (the docstring is the docs page). The shared faces in
  :mod:`envzoo.core.env`, :mod:`envzoo.core.vector` and :mod:`envzoo.core.parallel` do the rest:
  seeding, action checks, the 5-tuple, ``info``, Gymnasium's SAME_STEP autoreset, the registry's
  horizon, the agents' dicts. A domain writes face logic only where a face adds real logic.

The faces never call the simulator: they talk to the task only, through the methods below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces

from envzoo.core.draw import Canvas
from envzoo.core.spaces import check_action, check_batch

Observations = Any  # an array (B, ...) or a dict of such arrays


def check_render_mode(metadata: dict, render_mode: str | None) -> None:
    if render_mode is not None and render_mode not in metadata["render_modes"]:
        raise ValueError(f"render_mode must be one of {metadata['render_modes']}, got {render_mode!r}")


def render_frame(task, snapshots: list) -> np.ndarray | None:
    """The ``rgb_array`` frame (H x W x 3 uint8) the task draws from its episode's snapshots so
    far (None before the first reset). A task without a picture raises NotImplementedError
    naming what to add."""
    if not snapshots:
        return None
    if type(task).draw is Task.draw:
        raise NotImplementedError(f"{type(task).__name__} has no picture: give it snapshot() and draw() "
                                  "(docs/add-a-domain.md, 'The picture')")
    canvas = Canvas()
    task.draw(canvas, snapshots)
    return canvas.pixels


def row_of(value, row: int):
    """Row ``row`` of batched values, as plain Python where it is one number: a (B,) array gives
    a float, int, bool or str (an object array the object itself), a (B, ...) array an array, a
    dict a dict of those."""
    if isinstance(value, dict):
        # (B,) arrays, the common entries, are read in one call each: a Python number (or the object).
        return {key: item.item(row) if type(item) is np.ndarray and item.ndim == 1 else row_of(item, row)
                for key, item in value.items()}
    if type(value) is np.ndarray and value.ndim == 1:
        return value.item(row)
    item = value[row]
    return item.item() if isinstance(item, np.generic) else item


def rows_of(value, n: int) -> list:
    """``[row_of(value, 0), ..., row_of(value, n - 1)]``, converting each array once (the
    multi-agent face gives every agent its row of every step's info)."""
    if isinstance(value, dict):
        if not value:
            return [{} for _ in range(n)]
        # (B,) arrays, the common entries, converted in one call each; the rows zipped in C.
        columns = [item.tolist() if type(item) is np.ndarray and item.ndim == 1 else rows_of(item, n)
                   for item in value.values()]
        return [dict(zip(value, row)) for row in zip(*columns)]
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return value.tolist()
    return [row_of(value, row) for row in range(n)]


@dataclass
class Transition:
    """What one step of every row produced; every array has the leading axis B (rows, or agents).

    Attributes:
        reward: (B,) float64, the scalar reward (the documented weighting of ``objectives``
            where the domain has a vector reward).
        objectives: (B, K) the reward components, the vector reward of the multi-objective
            faces (None where the domain has no multi-objective face).
        terminated: (B,) bool, the episode reached a terminal state.
        truncated: (B,) bool, the episode's own end that is not a terminal state (the end of
            its data, a fixed period). The faces add the registry's horizon.
        cost: (B,) float64 or ``{name: (B,)}``: ``info["cost"]`` (None where the domain has no
            cost: ``info`` then has no ``"cost"``).
        info: further entries of ``info``, ``{name: (B, ...) array}``.
    """

    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    cost: np.ndarray | dict[str, np.ndarray] | None
    objectives: np.ndarray | None = None
    info: dict[str, Any] = field(default_factory=dict)


class Task:
    """B rows of a domain's decision problem: what the single-agent, multi-objective and native
    vector faces call. The single env is B = 1, the vector env B = ``num_envs``.

    A subclass sets ``observation_space``, ``action_space`` (one row's), ``reward_space`` (one
    row's vector reward, where the domain has a multi-objective face) and ``action_hint`` in
    ``__init__``, and implements the methods below.
    """

    observation_space: spaces.Space
    action_space: spaces.Space
    reward_space: spaces.Box | None = None
    action_hint: str = ""
    #: True where ``info["metrics"]`` comes only with the last step of an episode (the faces add
    #: it there: the single env's ending step, the vector env's ``final_info``), as the KPIs of
    #: the whole episode; :meth:`metrics` still gives them at any time. For compiled tasks whose
    #: whole step costs less than building the metrics' dict every step.
    metrics_at_episode_end: bool = False

    def __init__(self, params, batch: int):
        if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
            raise ValueError(f"batch must be an integer >= 1, got {batch!r}")
        self.params = params
        self.batch = int(batch)

    @classmethod
    def make_params(cls, **kwargs):
        """The domain's frozen parameters from the env's keyword arguments (checked)."""
        raise NotImplementedError

    @classmethod
    def create(cls, batch: int, *args, **kwargs) -> Task:
        """The task of ``batch`` rows for the env arguments ``args`` and ``kwargs``."""
        return cls(cls.make_params(*args, **kwargs), batch)

    # ------------------------------------------------------------------ actions
    def check_action(self, action):
        """One row's action, checked against ``action_space`` (the single env's ``step``)."""
        return check_action(self.action_space, action, self.action_hint)

    def check_actions(self, actions) -> np.ndarray:
        """The actions of all B rows, checked against the batched space (the vector env's)."""
        return check_batch(self.action_space, actions, self.batch, self.action_hint)

    # ------------------------------------------------------------------ episodes
    def reseeded(self, rows: np.ndarray) -> None:
        """``reset(seed=...)`` gave ``rows`` a new seed: restart what a seed restarts besides the
        random numbers (a cycle through test days, say). Most tasks have nothing to do."""

    def reset(self, rows: np.ndarray, generators: list[np.random.Generator], options: dict) -> dict:
        """Start new episodes in ``rows`` (indices), drawing what they need from their
        generators (one per row, in order): most tasks draw one counter-based key per row
        (:func:`envzoo.core.rng.keys_from`). Returns ``info`` entries of those rows
        (``{name: (len(rows), ...)}``; usually empty)."""
        raise NotImplementedError

    def step(self, actions: np.ndarray) -> Transition:
        """Advance every row by one decision with checked ``actions`` (B, ...)."""
        raise NotImplementedError

    def step_single(self, action, vector_reward: bool = False) -> tuple:
        """One step of a one-row task (B = 1) with one checked ``action``, as the single-agent
        faces return it: ``(observation, reward, terminated, truncated, info)``, the reward a
        float (or, with ``vector_reward``, the float32 vector reward), ``info`` holding
        ``metrics``, the step's further entries and ``cost`` (where the task has costs), all as
        plain Python numbers (no ``metrics`` with :attr:`metrics_at_episode_end`: the face adds
        them at the episode's end). The default steps the batch and takes its row; a compiled
        task may override it to step and observe in one call (the same numbers)."""
        outcome = self.step(np.array([action]))
        info = row_of(outcome.info, 0)
        if not self.metrics_at_episode_end:
            info = {"metrics": row_of(self.metrics(), 0), **info}
        if outcome.cost is not None:
            info["cost"] = row_of(outcome.cost, 0)
        reward = outcome.objectives[0].astype(np.float32) if vector_reward else float(outcome.reward[0])
        return row_of(self.observe(), 0), reward, bool(outcome.terminated[0]), bool(outcome.truncated[0]), info

    def observe(self) -> Observations:
        """The current observations of every row, (B, ...) (or a dict of such arrays): new
        arrays, never the task's own buffers (the faces hand out rows of them)."""
        raise NotImplementedError

    def metrics(self) -> dict[str, np.ndarray]:
        """``info["metrics"]``: the KPIs of every row's episode so far, ``{name: (B,)}``."""
        raise NotImplementedError

    def render_text(self, row: int = 0) -> str:
        """The ``ansi`` frame of ``row`` (of the whole episode for an :class:`AgentsTask`): a
        line or a few, ending with a newline."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the picture
    # ``render_mode="rgb_array"``: after every reset and step the face asks :meth:`snapshot` for
    # what the frame shows now and keeps the episode's snapshots; ``render()`` passes them all to
    # :meth:`draw` (so a frame can show the episode so far: a price path, a queue over time). A
    # face declares "rgb_array" in ``metadata["render_modes"]`` once its task draws.
    def snapshot(self, row: int = 0) -> dict:
        """What the frame shows of ``row`` now (of every agent for an :class:`AgentsTask`):
        small copied numbers and arrays, never the task's own buffers."""
        raise NotImplementedError

    def draw(self, canvas, snapshots: list[dict]) -> None:
        """Draw the frame on ``canvas`` (:class:`envzoo.core.draw.Canvas`) from the episode's
        snapshots so far, the last one now."""
        raise NotImplementedError

    def close(self) -> None:
        """Release external resources (a simulator process)."""


class AgentsTask(Task):
    """The episode of a multi-agent face: agents are the rows (B = number of agents), advanced
    together in one episode. What :class:`envzoo.core.parallel.TaskParallelEnv` calls.

    Besides :class:`Task`'s attributes, a subclass sets ``agents`` (names, one per row) and may
    give each agent its own spaces (``observation_spaces``, ``action_spaces``: one per row;
    they default to ``observation_space``/``action_space`` for all). ``reset`` always starts
    every row, with the one generator of the episode; ``observe`` may return a list (one
    array per agent) where the agents' observations differ in shape.
    """

    agents: tuple[str, ...]
    #: True where the episode must act at the horizon itself: the face then passes ``max_cycles``
    #: to ``make_params`` and leaves the truncation to the task.
    horizon_in_task: bool = False

    @classmethod
    def create(cls, **kwargs) -> AgentsTask:
        """The task for the env arguments ``kwargs``; its parameters set the agents (B)."""
        return cls(cls.make_params(**kwargs))

    @property
    def agent_observation_spaces(self) -> list[spaces.Space]:
        """Each agent's observation space, in agent order (the shared one repeated if the task has one)."""
        return list(getattr(self, "observation_spaces", None) or [self.observation_space] * len(self.agents))

    @property
    def agent_action_spaces(self) -> list[spaces.Space]:
        """Each agent's action space, in agent order (the shared one repeated if the task has one)."""
        return list(getattr(self, "action_spaces", None) or [self.action_space] * len(self.agents))

    def start(self, generator: np.random.Generator, options: dict) -> dict:
        """Start an episode of every agent, drawing from the episode's ``generator``. Returns
        per-agent ``info`` entries (``{name: (B, ...)}``; usually empty)."""
        raise NotImplementedError

    def check_agent_actions(self, actions: list) -> Any:
        """The agents' actions (one per row, in order), checked, as ``step`` takes them."""
        return np.asarray([check_action(space, action, f"(agent {agent}) {self.action_hint}")
                           for agent, space, action in zip(self.agents, self.agent_action_spaces, actions)])
