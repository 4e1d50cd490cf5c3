"""``render_mode="rgb_array"`` of every registry id: each declares it (a new id without a
picture fails here, named), its frames are 600 x 400 RGB uint8, not blank, the same for the same
seed and actions, and change as the episode moves on."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.core.draw import HEIGHT, WIDTH

from .support import action_sequence, all_entries, entry_params, is_parallel, make_env


def _declared_modes(entry) -> list:
    from envzoo.registry import load_attr

    return list(getattr(load_attr(entry.entry_point), "metadata", {}).get("render_modes", []))


def test_every_id_has_a_picture():
    missing = [entry.id for entry in all_entries() if entry.installed and "rgb_array" not in _declared_modes(entry)]
    assert not missing, (f"these ids have no rgb_array picture: {missing}; give their tasks snapshot() and draw() "
                         "and add 'rgb_array' to their faces' metadata (docs/add-a-domain.md, 'The picture')")


def _steps(entry) -> int:
    return 2 if entry.domain == "traffic" else 6  # a SUMO step is slow; two decisions move vehicles


def _frames(env, entry, actions) -> list[np.ndarray]:
    """The frame after ``reset(seed=0)`` and after each of ``actions``, up to the episode's end
    (a single-turn question ends at the first answer)."""
    env.reset(seed=0)
    frames = [env.render()]
    for action in actions:
        if is_parallel(entry):
            env.step({agent: action[agent] for agent in env.agents})
            over = not env.agents
        else:
            over = any(env.step(action)[2:4])
        frames.append(env.render())
        if over:
            break
    return frames


@pytest.mark.parametrize("entry", entry_params())
def test_rgb_array_frames(entry, closing):
    env = closing(make_env(entry, horizon=50, render_mode="rgb_array"))
    actions = action_sequence(env, entry, _steps(entry), seed=0)
    frames = _frames(env, entry, actions)
    for frame in frames:
        assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    last = frames[-1]
    assert last.std() > 10.0, "the frame is (nearly) blank"
    assert len(np.unique(last.reshape(-1, 3), axis=0)) >= 4, "the frame has fewer than four colours"
    assert not np.array_equal(frames[0], last), "the frame did not change while the episode moved on"
    again = _frames(env, entry, actions)
    for step, (first, second) in enumerate(zip(frames, again)):
        assert np.array_equal(first, second), f"frame {step} differs between two runs of seed 0 with the same actions"
