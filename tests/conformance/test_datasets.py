"""Offline datasets over the whole registry: every single-agent id, under every behaviour policy
(its reference policies and ``random``), writes a Minari dataset whose recovered env replays the
logged actions to the logged observations; multi-agent ids and malformed Minari ids are one-line
errors. Short episodes (2 episodes of at most 2 steps), so the registry stays quick to cover."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.cli import main
from envzoo.tools.datasets import RANDOM

from .support import entry_params, is_gymnasium, is_parallel

EPISODES, STEPS = 2, 2


def _behaviour_policies(entry) -> list[tuple[str]]:
    names = [ref.name for ref in entry.policies if ref.installed]
    return [(name,) for name in names + ([RANDOM] if RANDOM not in names else [])]


@pytest.fixture
def minari_root(tmp_path, monkeypatch):
    pytest.importorskip("minari")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    return tmp_path


def _at(stored, t: int):
    """Step ``t`` of a Minari episode's observations or actions (dicts and tuples of them too)."""
    if isinstance(stored, dict):
        return {key: _at(value, t) for key, value in stored.items()}
    if isinstance(stored, tuple):
        return tuple(_at(value, t) for value in stored)
    return stored[t]


@pytest.mark.parametrize("entry, policy", entry_params(is_gymnasium, extra=_behaviour_policies))
def test_every_behaviour_policy_writes_a_dataset_minari_recovers(entry, policy, minari_root, capsys):
    import minari

    dataset_id = f"conformance/{entry.id.split('/')[1].lower()}-{policy}-v0"
    code = main(["dataset", entry.id, "--policy", policy, "--episodes", str(EPISODES), "--seed", "3",
                 "--max-steps", str(STEPS), "--minari-id", dataset_id])
    assert code == 0, capsys.readouterr().err
    dataset = minari.load_dataset(dataset_id)
    assert dataset.total_episodes == EPISODES and EPISODES <= dataset.total_steps <= EPISODES * STEPS
    recovered = dataset.recover_environment()
    try:
        assert recovered.spec.id == entry.id and recovered.spec.max_episode_steps == STEPS
        for seed, episode in zip((3, 4), dataset.iterate_episodes()):
            observation, _ = recovered.reset(seed=seed)
            np.testing.assert_equal(observation, _at(episode.observations, 0))
            for t in range(len(episode.rewards)):
                observation, reward, *_ = recovered.step(_at(episode.actions, t))
                np.testing.assert_equal(observation, _at(episode.observations, t + 1))
                np.testing.assert_allclose(reward, episode.rewards[t])  # a vector for multi-objective ids
    finally:
        recovered.close()


@pytest.mark.parametrize("entry", entry_params(is_parallel)[:1])
def test_a_multi_agent_id_is_a_one_line_error_saying_why(entry, minari_root, capsys):
    code = main(["dataset", entry.id, "--policy", entry.policies[0].name, "--episodes", "1",
                 "--minari-id", "conformance/multi-agent-v0"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith("envzoo: error: ") and "multi-agent" in err and "one agent's" in err


@pytest.mark.parametrize("malformed", ["promotion-uniform", "envzoo/promotion uniform-v0", "x/promotion-v0"])
def test_a_malformed_minari_id_is_one_line_saying_the_form(malformed, minari_root, capsys):
    code = main(["dataset", "envzoo/Promotion-v1", "--policy", "uniform", "--episodes", "1",
                 "--minari-id", malformed])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("envzoo: error: ") and len(err.splitlines()) == 1
    assert f"{malformed!r} is not a Minari dataset id" in err and "(namespace/)name-vN" in err
    assert not any(minari_root.iterdir())  # refused before anything was played or written


def test_arguments_json_cannot_hold_are_named_before_anything_is_played(minari_root):
    from envzoo.tools.datasets import create
    from envzoo.core.errors import EnvzooError
    from envzoo.serverless.generator import Bursty

    with pytest.raises(EnvzooError, match="Serverless-v1's arguments cannot be stored in a Minari dataset"):
        create("envzoo/Serverless-v1", "fixed-4", 1, minari_id="conformance/bursty-v0",
               env_kwargs={"workload": Bursty(), "max_episode_steps": 2})
    assert not any(minari_root.iterdir())
