"""The subprocess vector face: a copy made just after an episode ended resets on its next step,
as the original does (Gymnasium's next-step autoreset), and bad batches are refused up front."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("libsumo")

import gymnasium  # noqa: E402

import envzoo  # noqa: E402, F401
from envzoo.core.errors import InvalidActionError  # noqa: E402

SCENARIO = {"kind": "grid", "rows": 2, "columns": 2, "demand": 300, "duration": 600}


def test_copy_after_an_episode_end_autoresets_like_the_original():
    vector = gymnasium.make_vec("envzoo/TrafficRegion-v0", num_envs=2, max_episode_steps=2, scenario=SCENARIO,
                                penetration=0.5)
    copy = None
    try:
        vector.reset(seed=1)
        actions = np.ones((2, len(vector.single_action_space.nvec)), dtype=np.int64)
        vector.step(actions)
        _, _, _, truncated, _ = vector.step(actions)
        assert truncated.all()
        copy = pickle.loads(pickle.dumps(vector))
        original_next = vector.step(actions)
        copy_next = copy.step(actions)
        for original, copied in zip(original_next[:4], copy_next[:4]):
            assert np.array_equal(original, copied)
        assert (original_next[1] == 0).all() and not original_next[3].any()  # the autoreset step
        with pytest.raises(InvalidActionError, match="MultiDiscrete"):
            vector.step(actions[:1])
    finally:
        vector.close()
        if copy is not None:
            copy.close()
