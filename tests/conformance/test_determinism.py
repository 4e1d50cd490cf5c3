"""Same seed, same actions, same trajectory: in one process, in a fresh process, and after a
pickle or deepcopy round trip in the middle of an episode. Every kind of entry."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import envzoo

from .support import (
    HERE, action_sequence, assert_same, continue_rollout, digest, entry_params, is_parallel,
    make_env, metrics_at_own_ends_only, rollout,
)

SEED = 2024
ACTION_SEED = 7
HORIZON = 8  # short episodes, so every rollout crosses a reset() without a seed
STEPS = 20


def _final_metrics(records) -> list:
    """info["metrics"] of the last step of every finished episode (an env may report its metrics
    there only: Task.metrics_at_episode_end)."""
    return [record[-1] for index, record in enumerate(records)
            if record[0] == "step" and index + 1 < len(records) and records[index + 1][0] == "reset"]


@pytest.mark.parametrize("entry", entry_params())
def test_same_seed_same_trajectory(entry, closing):
    first, second = closing(make_env(entry, HORIZON)), closing(make_env(entry, HORIZON))
    actions = action_sequence(first, entry, STEPS, ACTION_SEED)
    assert_same(actions, action_sequence(second, entry, STEPS, ACTION_SEED), "actions")
    a = rollout(first, entry, SEED, actions)
    b = rollout(second, entry, SEED, actions)
    assert sum(record[0] == "reset" for record in a) >= 3, "the rollout should cross episode ends"
    assert_same(a, b)
    ends = _final_metrics(a)
    assert ends and (metrics_at_own_ends_only(first) or all(_has_metrics(entry, info) for info in ends)), \
        "info['metrics'] is missing at the end of an episode"
    # A different seed gives a different trajectory (the seed is used at all).
    c = rollout(closing(make_env(entry, HORIZON)), entry, SEED + 1, actions)
    assert digest(c) != digest(a), "reset(seed=...) with another seed gave the same trajectory"


def _has_metrics(entry, info) -> bool:
    if is_parallel(entry):
        return bool(info) and all(agent_info["metrics"] for agent_info in info.values())
    return bool(info["metrics"])


@pytest.mark.parametrize("entry", entry_params())
def test_same_trajectory_in_a_fresh_process(entry, closing):
    env = closing(make_env(entry, HORIZON))
    expected = digest(rollout(env, entry, SEED, action_sequence(env, entry, STEPS, ACTION_SEED)))
    code = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('conformance_support', {path!r})\n"
        "support = importlib.util.module_from_spec(spec); sys.modules[spec.name] = support\n"
        "spec.loader.exec_module(support)\n"
        "print(support.trajectory_digest({id!r}, {seed}, {steps}, {action_seed}, {horizon}))\n"
    ).format(path=str(HERE / "support.py"), id=entry.id, seed=SEED, steps=STEPS, action_seed=ACTION_SEED,
             horizon=HORIZON)
    # Another hash seed: a trajectory must not depend on set/dict ordering of str hashes.
    environment = {**os.environ, "PYTHONHASHSEED": "4321"}
    # From the folder that holds the envzoo under test, so the fresh process imports that one.
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=Path(envzoo.__file__).parent.parent, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == expected


COPY_AFTER = 5  # steps into the first episode


@pytest.mark.parametrize("entry", entry_params())
def test_pickle_and_deepcopy_mid_episode(entry, closing):
    """Copies taken mid-episode continue exactly as the original, across a reset() without seed
    (so the copies carry the env's random generator too). The gymnasium face is pickled with its
    whole wrapper chain as ``gymnasium.make`` returns it."""
    env = closing(make_env(entry, HORIZON))
    actions = action_sequence(env, entry, COPY_AFTER + 2 * HORIZON, ACTION_SEED)
    rollout(env, entry, SEED, actions[:COPY_AFTER])
    pickled = closing(pickle.loads(pickle.dumps(env)))
    deep = closing(copy.deepcopy(env))
    assert type(pickled) is type(env) and type(deep) is type(env)
    rest = actions[COPY_AFTER:]
    original = continue_rollout(env, entry, rest)
    assert_same(continue_rollout(pickled, entry, rest), original, "after pickle")
    assert_same(continue_rollout(deep, entry, rest), original, "after deepcopy")
    # The original ran first: equal continuations also show the copies share no state with it.
    assert sum(record[0] == "reset" for record in original) >= 2
