"""The native vector env (``vector_entry_point``) against N single envs: ``make_vec(id,
num_envs=N).reset(seed=s)`` must follow ``make(id)`` reset with seeds s, s+1, ..., step by step,
across autoresets, whatever ``metadata["autoreset_mode"]`` it declares (as ``SyncVectorEnv``
would behave with the same mode)."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

from .support import (
    assert_same, entry_params, has_vector_face, is_multi_objective, make_env, metrics_at_own_ends_only, sub_env,
)

N = 3
SEED = 11
HORIZON = 5  # max_episode_steps given to both make and make_vec, so autoresets happen
STEPS = 3 * HORIZON + 2
ACTION_SEED = 3


def _sub(value, index):
    """Sub-env ``index`` of a batched value (array or nested dict of arrays)."""
    if isinstance(value, dict):
        return {key: _sub(item, index) for key, item in value.items() if not key.startswith("_")}
    return np.asarray(value)[index]


def _assert_info_entry(info: dict, key: str, index: int, expected, where: str):
    """``info[key][index]`` equals ``expected`` and Gymnasium's mask ``info["_key"]`` is set."""
    assert key in info, f"{where}: info has no {key!r} (keys {sorted(info)})"
    mask = info.get(f"_{key}")
    assert mask is not None and bool(mask[index]), f"{where}: info['_{key}'][{index}] is not set"
    got = _sub(info[key], index)
    if isinstance(expected, dict):
        assert set(got) == set(expected), f"{where}: {key} keys {sorted(got)} != {sorted(expected)}"
        for name, value in expected.items():
            assert float(got[name]) == value or (np.isnan(value) and np.isnan(got[name])), \
                f"{where}: {key}[{name!r}][{index}] = {got[name]!r}, single env {value!r}"
    else:
        assert float(got) == float(expected), f"{where}: {key}[{index}] = {got!r}, single env {expected!r}"


def _compare_step_info(vector_info: dict, index: int, single_info: dict, where: str):
    for key in ("cost", "metrics"):
        if key in single_info:
            _assert_info_entry(vector_info, key, index, single_info[key], where)


def _make_vector(entry, face: str):
    import gymnasium

    import envzoo

    if face == "subprocess":
        return envzoo.make_subprocess_vec(entry.id, N, max_episode_steps=HORIZON)
    return gymnasium.make_vec(entry.id, num_envs=N, max_episode_steps=HORIZON)


def _faces(entry) -> list[tuple[str]]:
    """The registered vector face, and for multi-objective ids the subprocess one as well
    (MO-Gymnasium's MOAsyncVectorEnv does not build on Gymnasium 1.4)."""
    faces = [("registered",)]
    if is_multi_objective(entry) and entry.vector_entry_point != "subprocess":
        faces.append(("subprocess",))
    return faces


@pytest.mark.parametrize("entry, face", entry_params(has_vector_face, extra=_faces))
def test_vector_env_matches_single_envs(entry, face, closing):
    import gymnasium
    from gymnasium.vector import AutoresetMode

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vector = closing(_make_vector(entry, face))
    assert [str(w.message) for w in caught] == [], "make_vec warned"
    assert vector.num_envs == N
    mode = vector.metadata.get("autoreset_mode")
    assert isinstance(mode, AutoresetMode), f"metadata['autoreset_mode'] is {mode!r}"
    singles = [closing(gymnasium.make(entry.id, max_episode_steps=HORIZON)) for _ in range(N)]
    assert vector.single_observation_space == singles[0].observation_space
    assert vector.single_action_space == singles[0].action_space

    observations, _ = vector.reset(seed=SEED)
    assert vector.observation_space.contains(observations)
    for i, single in enumerate(singles):
        expected, _ = single.reset(seed=SEED + i)
        assert_same(sub_env(observations, i), expected, f"reset obs of sub-env {i}")

    space = vector.single_action_space
    space.seed(ACTION_SEED)
    ended_last_step = np.zeros(N, dtype=bool)
    autoresets = 0
    reward_shape = (len(entry.objectives),) if entry.objectives else ()  # vector rewards of MO ids
    for t in range(STEPS):
        actions = np.array([space.sample() for _ in range(N)])
        observations, rewards, terminations, truncations, info = vector.step(actions)
        assert vector.observation_space.contains(observations), f"step {t}: obs outside the space"
        # Dict spaces check dtypes per key in contains(); batched Text observations are tuples of strings.
        if not isinstance(observations, (dict, tuple)):
            assert observations.dtype == vector.single_observation_space.dtype
        assert rewards.shape == (N, *reward_shape) and terminations.shape == (N,) and truncations.shape == (N,)
        assert terminations.dtype == bool and truncations.dtype == bool
        for i, single in enumerate(singles):
            where = f"step {t}, sub-env {i} ({mode.value})"
            if mode == AutoresetMode.NEXT_STEP and ended_last_step[i]:
                # The vector env resets this sub-env now and ignores its action.
                expected_obs, expected_info = single.reset()
                expected_reward, expected_terminated, expected_truncated = np.zeros(reward_shape), False, False
            else:
                expected_obs, expected_reward, expected_terminated, expected_truncated, expected_info = \
                    single.step(actions[i])
            ended = expected_terminated or expected_truncated
            assert np.array_equal(np.asarray(rewards[i], dtype=np.float64), np.asarray(expected_reward, dtype=np.float64)), \
                f"{where}: reward {rewards[i]} != {expected_reward}"
            assert bool(terminations[i]) == expected_terminated, f"{where}: terminated"
            assert bool(truncations[i]) == expected_truncated, f"{where}: truncated"
            if mode == AutoresetMode.SAME_STEP and ended:
                autoresets += 1
                assert info.get("_final_obs") is not None and info["_final_obs"][i], \
                    f"{where}: info['_final_obs'][{i}] not set when the episode ended"
                assert_same(info["final_obs"][i], expected_obs, f"{where}: final_obs")
                assert "final_info" in info and info["_final_info"][i], f"{where}: final_info missing"
                if "metrics" not in expected_info and metrics_at_own_ends_only(single):
                    # The single env's TimeLimit cut is one it cannot see: ask it for the metrics.
                    expected_info = {**expected_info, "metrics": single.unwrapped.episode_metrics()}
                _compare_step_info(info["final_info"], i, expected_info, f"{where} final_info")
                reset_obs, reset_info = single.reset()
                assert_same(sub_env(observations, i), reset_obs, f"{where}: obs after the autoreset")
                # info[key][i] now belongs to the new episode (SyncVectorEnv puts the reset info
                # there); accept the finished step's values too, but nothing else.
                for key in ("cost", "metrics"):
                    if key in info and info[f"_{key}"][i] and key not in reset_info:
                        _assert_info_entry(info, key, i, expected_info[key], f"{where} (after autoreset)")
            else:
                if mode == AutoresetMode.SAME_STEP and "_final_obs" in info:
                    assert not info["_final_obs"][i], f"{where}: final_obs set but the episode goes on"
                assert_same(sub_env(observations, i), expected_obs, f"{where}: obs")
                if mode == AutoresetMode.NEXT_STEP and ended_last_step[i]:
                    autoresets += 1
                else:
                    _compare_step_info(info, i, expected_info, where)
            ended_last_step[i] = ended
        if mode == AutoresetMode.DISABLED and ended_last_step.any():
            # No autoreset: the user resets the finished sub-envs with a mask.
            observations, _ = vector.reset(options={"reset_mask": ended_last_step.copy()})
            for i in np.flatnonzero(ended_last_step):
                assert_same(sub_env(observations, i), singles[i].reset()[0], f"step {t}: reset_mask obs of sub-env {i}")
                autoresets += 1
    assert autoresets >= 2 * N, "the comparison should cover autoresets"
    # reset() without a seed continues every sub-env's generator, as SyncVectorEnv does.
    observations, _ = vector.reset()
    for i, single in enumerate(singles):
        assert_same(sub_env(observations, i), single.reset()[0], f"reset() without seed, sub-env {i}")


@pytest.mark.parametrize("entry", entry_params(has_vector_face))
def test_vector_env_reseeds_and_survives_pickle(entry, closing):
    """reset(seed=s) twice gives the same start; seeds as a list give those sub-env seeds; a
    pickle or deepcopy taken mid-episode continues exactly as the original, across autoresets."""
    import gymnasium

    vector = closing(gymnasium.make_vec(entry.id, num_envs=N, max_episode_steps=HORIZON))
    first, _ = vector.reset(seed=SEED)
    space = copy.deepcopy(vector.action_space)
    space.seed(ACTION_SEED)
    for _ in range(2):
        vector.step(space.sample())
    again, _ = vector.reset(seed=SEED)
    assert_same(again, first, "second reset with the same seed")
    listed, _ = vector.reset(seed=[SEED + i for i in range(N)])
    assert_same(listed, first, "reset with the list of sub-env seeds")
    single = closing(make_env(entry))
    shifted, _ = vector.reset(seed=[SEED + 1, SEED + 1, SEED])
    assert_same(sub_env(shifted, 0), single.reset(seed=SEED + 1)[0])
    assert_same(sub_env(shifted, 2), sub_env(first, 0))

    vector.reset(seed=SEED)
    for _ in range(HORIZON - 2):
        vector.step(space.sample())
    pickled = closing(pickle.loads(pickle.dumps(vector)))
    deep = closing(copy.deepcopy(vector))
    actions = [space.sample() for _ in range(2 * HORIZON)]
    original = [vector.step(a) for a in actions]
    assert_same([pickled.step(a) for a in actions], original, "vector env after pickle")
    assert_same([deep.step(a) for a in actions], original, "vector env after deepcopy")
