"""Early, explicit validation of actions: nothing outside the action space is silently used."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.errors import InvalidActionError


def check_action(space: spaces.Space, action, hint: str = ""):
    """Return ``action`` as the space's type (an int for Discrete, an int64 array for
    MultiDiscrete, a float64 array for Box), or raise :class:`InvalidActionError`."""
    if isinstance(space, spaces.Discrete):
        if type(action) is int and space.start <= action < space.start + space.n:
            return action  # the common case, first: a single env's step pays for this check
        return _check_discrete(space, action, hint)
    if isinstance(space, spaces.Box):
        return check_box_action(space, action, hint)
    if isinstance(space, spaces.MultiDiscrete):
        return check_multi_discrete(space, action, hint)
    if (isinstance(space, spaces.Text) and type(action) is str and space.min_length <= len(action) <= space.max_length
            and space.character_set.issuperset(action)):
        return action  # a text env's every step: a set operation rather than Text.contains's loop
    if not space.contains(action):
        raise InvalidActionError(f"action {action!r} is outside the action space {space}. {hint}")
    return action


def _check_discrete(space: spaces.Discrete, action, hint: str) -> int:
    # Plain integers skip numpy (multi-agent envs check one action per agent per step).
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        value = int(action)
    else:
        array = np.asarray(action)
        if array.shape != () or not np.issubdtype(array.dtype, np.integer):
            raise InvalidActionError(f"action {action!r} is not one integer; {space} expects an "
                                     f"integer in [{space.start}, {space.start + space.n}). {hint}")
        value = int(array)
    if not space.start <= value < space.start + space.n:
        raise InvalidActionError(f"action {action!r} is outside the action space {space}. {hint}")
    return value


def check_batch_action(space: spaces.Discrete, actions, num_envs: int, hint: str = "") -> np.ndarray:
    """Validate a batch of Discrete actions (shape (num_envs,)) and return them as int64."""
    expects = f"one integer in [{space.start}, {space.start + space.n}) per sub-env, shape ({num_envs},)"
    array = np.asarray(actions)
    if array.shape != (num_envs,):
        raise InvalidActionError(f"actions {actions!r} have shape {array.shape}; the batched {space} "
                                 f"expects {expects}. {hint}")
    if not np.issubdtype(array.dtype, np.integer):
        raise InvalidActionError(f"actions {actions!r} have dtype {array.dtype}; the batched {space} "
                                 f"expects {expects}. {hint}")
    array = array.astype(np.int64)
    bad = (array < space.start) | (array >= space.start + space.n)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise InvalidActionError(f"action {array[index]} of sub-env {index} is outside {space}: "
                                 f"use integers in [{space.start}, {space.start + space.n}). {hint}")
    return array


def check_box_action(space: spaces.Box, action, hint: str = "", batch: int | None = None) -> np.ndarray:
    """``action`` as a float64 array of ``space.shape`` (or ``(batch, *space.shape)`` for the
    actions of ``batch`` sub-envs), or :class:`InvalidActionError` naming the space and, for a
    batch, the sub-env. Bounds are checked in the space's dtype; nothing is clipped."""
    shape = space.shape if batch is None else (batch, *space.shape)
    array = np.asarray(action) if not isinstance(action, (str, dict)) else None
    if array is None or array.dtype.kind not in "iuf" or array.shape != shape:
        raise InvalidActionError(f"action {action!r} does not fit the action space {space}: expected "
                                 f"numbers of shape {shape}. {hint}")
    as_space = array.astype(space.dtype)
    bad = ~np.isfinite(as_space) | (as_space < space.low) | (as_space > space.high)
    if bad.any():
        where = np.argwhere(bad)[0]
        row = f" (sub-env {where[0]})" if batch is not None or array.ndim == 2 else ""
        raise InvalidActionError(f"action {action!r} is outside the action space {space}{row}: every entry "
                                 f"must be finite and within the bounds. {hint}")
    return array.astype(np.float64)


def check_multi_discrete(space: spaces.MultiDiscrete, action, hint: str = "", batch: int | None = None) -> np.ndarray:
    """``action`` as an int64 array of ``space.shape`` (or ``(batch, *space.shape)``), or
    :class:`InvalidActionError`."""
    shape = space.shape if batch is None else (batch, *space.shape)
    array = np.asarray(action) if not isinstance(action, (str, dict)) else None
    if array is None or array.shape != shape or not np.issubdtype(array.dtype, np.integer):
        raise InvalidActionError(f"action {action!r} does not fit the action space {space}: expected "
                                 f"integers of shape {shape}. {hint}")
    bad = (array < space.start) | (array >= space.start + space.nvec)
    if bad.any():
        where = np.argwhere(bad)[0]
        row = f" (sub-env {where[0]})" if batch is not None else ""
        raise InvalidActionError(f"action {action!r} is outside the action space {space}{row}. {hint}")
    return array.astype(np.int64)


def check_text_batch(space: spaces.Text, actions, batch: int, hint: str = "") -> list[str]:
    """The strings of ``batch`` sub-envs (a list, tuple or 1-D array, as the batched ``Text``
    space, a ``Tuple`` of them, samples them), each checked against ``space``, as a list."""
    if isinstance(actions, np.ndarray) and actions.ndim == 1:
        actions = actions.tolist()
    if not isinstance(actions, (list, tuple)) or len(actions) != batch:
        raise InvalidActionError(f"actions {actions!r} are not {batch} strings; the batched {space} expects a list "
                                 f"or tuple of one string per sub-env. {hint}")
    for index, action in enumerate(actions):
        if not space.contains(action):
            raise InvalidActionError(f"action {action!r} of sub-env {index} is outside the action space {space}. "
                                     f"{hint}")
    return [str(action) for action in actions]


def check_batch(space: spaces.Space, actions, batch: int, hint: str = "") -> np.ndarray | list[str]:
    """The actions of ``batch`` sub-envs (a leading axis), checked against ``space`` (one
    sub-env's): int64 for Discrete and MultiDiscrete, float64 for Box, a list of strings for
    Text."""
    if isinstance(space, spaces.Discrete):
        return check_batch_action(space, actions, batch, hint)
    if isinstance(space, spaces.Box):
        return check_box_action(space, actions, hint, batch)
    if isinstance(space, spaces.MultiDiscrete):
        return check_multi_discrete(space, actions, hint, batch)
    if isinstance(space, spaces.Text):
        return check_text_batch(space, actions, batch, hint)
    raise TypeError(f"no batched action check for {type(space).__name__} spaces")


def check_agent_actions(live_agents, actions) -> None:
    """A PettingZoo parallel ``step``'s ``actions``: a dict with exactly one entry per live agent."""
    if not isinstance(actions, dict):
        raise InvalidActionError(f"actions must be a dict with one action per agent {live_agents}, "
                                 f"got {type(actions).__name__}")
    missing, unknown = set(live_agents) - set(actions), set(actions) - set(live_agents)
    if missing or unknown:
        raise InvalidActionError(f"actions must have exactly one entry per live agent {live_agents}; "
                                 f"missing {sorted(missing)}, unknown {sorted(map(str, unknown))}")
