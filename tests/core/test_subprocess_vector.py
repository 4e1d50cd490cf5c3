"""The shared subprocess vector face on a multi-objective id (the SUMO ids' own tests cover it on
SUMO): vector rewards with their space, the next-step autoreset in a pickled copy, refusals."""

import pickle

import numpy as np
import pytest

import envzoo
from envzoo.core.errors import InvalidActionError, RegistryError, UnknownArgumentError

MO_ID = "envzoo/ServerlessMO-v1"


def test_a_copy_after_an_episode_end_resets_on_its_next_step_with_a_zero_vector_reward():
    vector = envzoo.make_subprocess_vec(MO_ID, 2, max_episode_steps=2)
    copy = None
    try:
        assert vector.reward_space.shape == (2, 3) and vector.single_reward_space.shape == (3,)
        vector.reset(seed=5)
        actions = np.array([1, 3])
        _, rewards, _, _, _ = vector.step(actions)
        assert rewards.dtype == np.float32 and rewards.shape == (2, 3) and vector.reward_space.contains(rewards)
        _, _, _, truncated, _ = vector.step(actions)
        assert truncated.all()
        copy = pickle.loads(pickle.dumps(vector))
        original_next, copy_next = vector.step(actions), copy.step(actions)
        for original, copied in zip(original_next[:4], copy_next[:4]):
            assert np.array_equal(original, copied)
        assert np.array_equal(original_next[1], np.zeros((2, 3), np.float32)) and not original_next[3].any()
        with pytest.raises(InvalidActionError, match="sub-env 1"):
            vector.step(np.array([1, 99]))
    finally:
        vector.close()
        if copy is not None:
            copy.close()


def test_an_id_without_a_horizon_runs_its_own_episodes_and_bad_arguments_are_named():
    vector = envzoo.make_subprocess_vec("envzoo/CollisionAvoidance-v1", 2)  # no max_episode_steps
    try:
        vector.reset(seed=0)
        for _ in range(3):
            vector.step(np.zeros(2, dtype=np.int64))
    finally:
        vector.close()
    with pytest.raises(UnknownArgumentError, match="did you mean 'workload'"):
        envzoo.make_subprocess_vec(MO_ID, 2, worklaod="bursty")


def test_the_env_class_metadata_is_left_as_it_was():
    from envzoo.serverless.mo import ServerlessMOEnv

    before = dict(ServerlessMOEnv.metadata)
    envzoo.make_subprocess_vec(MO_ID, 2).close()
    assert ServerlessMOEnv.metadata == before


def test_multi_agent_ids_have_no_subprocess_vector_env():
    with pytest.raises(RegistryError, match="pettingzoo-parallel"):
        envzoo.make_subprocess_vec("envzoo/ServerlessCluster-v1", 2)
