"""Shared machinery of the conformance suite: registry parametrization, making every face of an
entry, seeded action sequences, trajectory recording, exact comparison and digests.

This module has no relative imports and does not need pytest at import time, so that a fresh
interpreter can load it by path to recompute a trajectory digest.
"""

from __future__ import annotations

import copy
import hashlib
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from envzoo.registry import GYMNASIUM_KINDS

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent


# ---------------------------------------------------------------------- registry
def all_entries():
    import envzoo  # noqa: F401  (registers every id)
    from envzoo.registry import entries

    return list(entries().values())


def is_single_agent(entry) -> bool:
    return entry.kind == "gymnasium"


def is_gymnasium(entry) -> bool:
    return entry.kind in GYMNASIUM_KINDS


def is_parallel(entry) -> bool:
    return entry.kind == "pettingzoo-parallel"


def is_multi_objective(entry) -> bool:
    return entry.kind == "mo-gymnasium"


def has_vector_face(entry) -> bool:
    return entry.kind in GYMNASIUM_KINDS and entry.vector_entry_point is not None


def entry_params(predicate: Callable[[Any], bool] = lambda entry: True,
                 extra: Iterable | Callable[[Any], Iterable] = ((),)):
    """``pytest.param`` per registry entry that satisfies ``predicate``; entries whose optional
    extra is missing are skipped with the install hint as the reason.

    ``extra`` (an iterable of tuples, or a function of the entry giving one) multiplies every
    entry with further parameters; the test then receives ``(entry, *extra_values)``.
    """
    import pytest

    params = []
    for entry in all_entries():
        if not predicate(entry):
            continue
        marks = [] if entry.installed else [pytest.mark.skip(reason=f"{entry.id} needs the "
                                                                     f"{entry.extra!r} extra: {entry.install_hint}")]
        for values in (extra(entry) if callable(extra) else extra):
            values = tuple(values)
            test_id = "-".join([entry.id, *map(str, values)])
            params.append(pytest.param(entry, *values, id=test_id, marks=marks))
    return params


# ---------------------------------------------------------------------- making faces
def horizon_kwargs(entry, steps: int | None) -> dict:
    """Keyword that sets the episode length when making ``entry`` with its ecosystem's maker."""
    if steps is None:
        return {}
    return {"max_cycles": steps} if is_parallel(entry) else {"max_episode_steps": steps}


def make_env(entry, horizon: int | None = None, **kwargs):
    """The face users make: ``gymnasium.make``, ``mo_gymnasium.make`` or
    ``pettingzoo.make("parallel", ...)``; ``horizon`` shortens episodes."""
    import envzoo  # noqa: F401

    kwargs = {**horizon_kwargs(entry, horizon), **kwargs}
    if is_parallel(entry):
        import pettingzoo

        return pettingzoo.make("parallel", entry.id, **kwargs)
    if is_multi_objective(entry):
        import mo_gymnasium

        return mo_gymnasium.make(entry.id, **kwargs)
    import gymnasium

    return gymnasium.make(entry.id, **kwargs)


def metrics_at_own_ends_only(env) -> bool:
    """The env reports info["metrics"] only at the episode ends its task decides
    (Task.metrics_at_episode_end): an end that the tests' TimeLimit cuts has none, and
    ``env.unwrapped.episode_metrics()`` gives them on request."""
    return bool(getattr(getattr(env.unwrapped, "task", None), "metrics_at_episode_end", False))


def agents_of(env) -> list:
    return list(env.possible_agents)


def action_sequence(env, entry, n: int, seed: int) -> list:
    """``n`` actions drawn from seeded copies of the env's action space(s) (the env's own
    spaces are not touched). Parallel envs get a dict for every possible agent."""
    if is_parallel(entry):
        spaces = {}
        for index, agent in enumerate(agents_of(env)):
            space = copy.deepcopy(env.action_space(agent))
            space.seed(seed + index)
            spaces[agent] = space
        return [{agent: space.sample() for agent, space in spaces.items()} for _ in range(n)]
    space = copy.deepcopy(env.action_space)
    space.seed(seed)
    return [space.sample() for _ in range(n)]


# ---------------------------------------------------------------------- trajectories
def _episode_over(entry, env, terminated, truncated) -> bool:
    if is_parallel(entry):
        return not env.agents
    return bool(terminated) or bool(truncated)


def _cost(info):
    return info.get("cost") if isinstance(info, dict) else None


def _step_infos(entry, infos) -> dict:
    """The recorded part of a step's info: cost and metrics (per agent for parallel envs)."""
    if is_parallel(entry):
        return {agent: {"cost": info.get("cost"), "metrics": info.get("metrics")}
                for agent, info in infos.items()}
    return {"cost": infos.get("cost"), "metrics": infos.get("metrics")}


def continue_rollout(env, entry, actions: list) -> list:
    """Step ``env`` (already reset) with ``actions``; when an episode ends, ``reset()`` without
    a seed (so the env's own generator is exercised). Returns the records of what happened."""
    records = []
    for action in actions:
        if is_parallel(entry):
            action = {agent: action[agent] for agent in env.agents}
        observation, reward, terminated, truncated, info = env.step(action)
        records.append(("step", action, observation, reward, terminated, truncated,
                        _step_infos(entry, info)))
        if _episode_over(entry, env, terminated, truncated):
            observation, info = env.reset()
            records.append(("reset", observation, info))
    return records


def rollout(env, entry, seed: int, actions: list) -> list:
    observation, info = env.reset(seed=seed)
    return [("reset", observation, info)] + continue_rollout(env, entry, actions)


def trajectory_digest(env_id: str, seed: int, steps: int, action_seed: int, horizon: int | None) -> str:
    """Digest of a seeded rollout; what the fresh-process check recomputes."""
    from envzoo.registry import env_info

    entry = env_info(env_id)
    env = make_env(entry, horizon)
    try:
        return digest(rollout(env, entry, seed, action_sequence(env, entry, steps, action_seed)))
    finally:
        env.close()


# ---------------------------------------------------------------------- canonical forms
def _canonical(value, out: list) -> None:
    kind = type(value).__name__
    if isinstance(value, dict):
        out.append(f"dict{len(value)}{{")
        for key in sorted(value, key=repr):
            out.append(repr(key))
            _canonical(value[key], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append(f"{kind}{len(value)}[")
        for item in value:
            _canonical(item, out)
        out.append("]")
    elif isinstance(value, np.ndarray):
        if value.dtype == object:
            out.append(f"objarray{value.shape}[")
            for item in value.ravel():
                _canonical(item, out)
            out.append("]")
        else:
            out.append(f"array{value.dtype.str}{value.shape}:{np.ascontiguousarray(value).tobytes().hex()}")
    elif isinstance(value, (bool, np.bool_)):
        out.append(f"{kind}:{bool(value)}")
    elif isinstance(value, (int, np.integer)):
        out.append(f"{kind}:{int(value)}")
    elif isinstance(value, (float, np.floating)):
        out.append(f"{kind}:{float(value).hex()}")
    elif value is None or isinstance(value, str):
        out.append(f"{kind}:{value!r}")
    else:
        raise TypeError(f"cannot digest a {kind}: {value!r}")


def digest(records) -> str:
    out: list[str] = []
    _canonical(records, out)
    return hashlib.sha256("\n".join(out).encode()).hexdigest()


def assert_same(a, b, path: str = "trajectory") -> None:
    """Exact equality (types, dtypes, shapes, values; NaN equals NaN) with a path on failure."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), \
            f"{path}: {type(a).__name__} != {type(b).__name__}"
        assert a.dtype == b.dtype and a.shape == b.shape, \
            f"{path}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        if a.dtype == object:
            for index, (x, y) in enumerate(zip(a.ravel(), b.ravel())):
                assert_same(x, y, f"{path}[{index}]")
            return
        equal_nan = np.issubdtype(a.dtype, np.inexact)
        assert np.array_equal(a, b, equal_nan=equal_nan), f"{path}: {a!r} != {b!r}"
        return
    assert type(a) is type(b), f"{path}: type {type(a).__name__} != {type(b).__name__} ({a!r} vs {b!r})"
    if isinstance(a, dict):
        assert list(a) == list(b) or set(a) == set(b), f"{path}: keys {list(a)} != {list(b)}"
        for key in a:
            assert_same(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{path}: length {len(a)} != {len(b)}"
        for index, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{index}]")
    elif isinstance(a, (float, np.floating)) and math.isnan(float(a)):
        assert math.isnan(float(b)), f"{path}: nan != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


# ---------------------------------------------------------------------- value checks
def finite_leaves(value, path: str = "value"):
    """Yield (path, value) of every numeric leaf that is not finite."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from finite_leaves(item, f"{path}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from finite_leaves(item, f"{path}[{index}]")
    elif isinstance(value, np.ndarray) and value.dtype != object:
        if np.issubdtype(value.dtype, np.number) and not np.all(np.isfinite(value)):
            yield path, value
    elif isinstance(value, (float, np.floating, int, np.integer)) and not isinstance(value, bool):
        if not np.isfinite(value):
            yield path, value


def sub_env(observations, i):
    """Sub-env i's observation from a batched one (dict observations are batched per key)."""
    if isinstance(observations, dict):
        return {key: sub_env(value, i) for key, value in observations.items()}
    return observations[i]
