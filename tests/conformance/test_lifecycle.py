"""Rendering in every declared mode, closing twice, and no env kept alive after it is dropped,
for every face (Gymnasium's check_env covers some of this for single-agent envs only)."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

from .support import action_sequence, entry_params, has_vector_face, is_parallel, make_env


def _step_a_little(env, entry, steps=2):
    env.reset(seed=0)
    for action in action_sequence(env, entry, steps, 0):
        if is_parallel(entry):
            env.step({agent: action[agent] for agent in env.agents})
            for agent in env.possible_agents:  # exercise the per-agent space methods too
                env.observation_space(agent), env.action_space(agent)
        elif any(env.step(action)[2:4]):  # an episode may be one step long (a single-turn question)
            env.reset()


def _render_modes(entry):
    from envzoo.registry import load_attr

    return list(getattr(load_attr(entry.entry_point), "metadata", {}).get("render_modes", []))


def _render_params():
    params = []
    for param in entry_params():
        entry = param.values[0]
        modes = _render_modes(entry) if not param.marks else ["?"]
        for mode in modes:
            params.append(pytest.param(entry, mode, id=f"{entry.id}-{mode}", marks=param.marks))
    return params


@pytest.mark.parametrize("entry, mode", _render_params())
def test_render_modes(entry, mode, closing):
    env = closing(make_env(entry, render_mode=mode))
    assert env.render_mode == mode
    _step_a_little(env, entry)
    frame = env.render()
    if mode == "ansi":
        assert isinstance(frame, str) and frame.strip(), f"ansi render gave {frame!r}"
    elif mode == "rgb_array":
        assert isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8
    elif mode == "human":
        assert frame is None
    with pytest.raises(ValueError), warnings.catch_warnings():
        # gymnasium.make warns about the unknown mode before the env itself rejects it.
        warnings.simplefilter("ignore")
        make_env(entry, render_mode="no-such-mode")


@pytest.mark.parametrize("entry", entry_params())
def test_close_twice_and_garbage_collected(entry):
    env = make_env(entry, 5)
    _step_a_little(env, entry)
    env.close()
    env.close()
    core = env if is_parallel(entry) else env.unwrapped
    ref = weakref.ref(core)
    del env, core
    gc.collect()
    alive = ref()
    assert alive is None, (
        f"{type(alive).__name__} is still referenced after del + gc.collect() by "
        f"{[type(r).__name__ for r in gc.get_referrers(alive)]}: every env made leaks")


@pytest.mark.parametrize("entry", entry_params(has_vector_face))
def test_vector_env_close_twice_and_garbage_collected(entry):
    import gymnasium

    vector = gymnasium.make_vec(entry.id, num_envs=2)
    vector.reset(seed=0)
    vector.step(vector.action_space.sample())
    vector.close()
    vector.close()
    ref = weakref.ref(vector.unwrapped)
    del vector
    gc.collect()
    assert ref() is None
