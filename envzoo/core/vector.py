"""Helpers for native vector envs: Gymnasium's info layout and SAME_STEP autoreset."""

from __future__ import annotations

import numpy as np


def check_vector_size(num_envs, max_episode_steps) -> tuple[int, int | None]:
    """The ``num_envs`` and ``max_episode_steps`` arguments of a native vector env, checked."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    if max_episode_steps is not None and (isinstance(max_episode_steps, bool)
                                          or not isinstance(max_episode_steps, (int, np.integer))
                                          or max_episode_steps < 1):
        raise ValueError(f"max_episode_steps must be an integer >= 1 or None, got {max_episode_steps!r}")
    return int(num_envs), max_episode_steps


def with_masks(info: dict, mask: np.ndarray) -> dict:
    """Add Gymnasium's ``_key`` boolean masks to a dict of per-sub-env arrays (recursively),
    keeping only the entries where ``mask`` holds (others are zeroed)."""
    out = {}
    for key, value in info.items():
        if isinstance(value, dict):
            out[key] = with_masks(value, mask)
        else:
            value = np.asarray(value)
            out[key] = np.where(mask.reshape((-1,) + (1,) * (value.ndim - 1)), value, np.zeros_like(value))
        out[f"_{key}"] = mask.copy()
    return out


def final_step_info(info: dict, observations: np.ndarray, done: np.ndarray) -> dict:
    """The SAME_STEP autoreset entries: ``final_obs`` (object array, None where not done) and
    ``final_info`` (the finished episodes' infos), with their masks."""
    final_obs = np.full(len(done), None, dtype=object)
    for row in np.flatnonzero(done):
        final_obs[row] = observations[row]
    return {"final_obs": final_obs, "_final_obs": done.copy(),
            "final_info": with_masks(info, done), "_final_info": done.copy()}


def autoreset_same_step(raw_info: dict, observations, done: np.ndarray, restart, final_observations=None):
    """Gymnasium's SAME_STEP autoreset, as SyncVectorEnv does it: ``info`` keeps the step's
    entries of the sub-envs that go on; those whose episode ended (``done``) get ``final_obs``
    (``final_observations`` if the batch is not indexable by row) and ``final_info``, and
    ``restart(rows)`` starts their next episodes and returns the new observations of the batch.
    Returns ``(observations, info)``."""
    info = with_masks(raw_info, ~done)
    if not done.any():
        return observations, info
    info.update(final_step_info(raw_info, observations if final_observations is None else final_observations, done))
    return restart(np.flatnonzero(done)), info

