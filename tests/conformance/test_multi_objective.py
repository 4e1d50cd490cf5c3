"""Multi-objective faces (entries with ``objectives``), as MO-Gymnasium defines them (a
``reward_space`` of ``reward_dim == len(objectives)`` components that contains every reward)
and as MOMAland defines them (the same per agent: ``reward_space(agent)``)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from .support import action_sequence, entry_params, is_momaland, is_multi_objective, make_env

HORIZON = 40
STEPS = 100


def _reward_attr(env, name):
    # Gymnasium 1.x wrappers do not forward attributes; get_wrapper_attr looks through them
    # (MO-Gymnasium's own wrappers read env.unwrapped.reward_space).
    return env.get_wrapper_attr(name)


@pytest.mark.parametrize("entry", entry_params(is_multi_objective))
def test_reward_space_and_dim(entry, closing):
    env = closing(make_env(entry, HORIZON))
    reward_space = _reward_attr(env, "reward_space")
    assert isinstance(reward_space, spaces.Box), f"reward_space is {reward_space!r}"
    assert reward_space.shape == (len(entry.objectives),)
    assert _reward_attr(env, "reward_dim") == len(entry.objectives)
    assert env.unwrapped.reward_space is reward_space


@pytest.mark.parametrize("entry", entry_params(is_multi_objective))
def test_rewards_inside_reward_space(entry, closing):
    env = closing(make_env(entry, HORIZON))
    reward_space = _reward_attr(env, "reward_space")
    env.reset(seed=5)
    for t, action in enumerate(action_sequence(env, entry, STEPS, seed=5)):
        _, reward, terminated, truncated, _ = env.step(action)
        assert isinstance(reward, np.ndarray), f"step {t}: reward is a {type(reward).__name__}"
        assert reward.dtype == reward_space.dtype, \
            f"step {t}: reward dtype {reward.dtype} != reward_space dtype {reward_space.dtype}"
        # contains() as it is, without casting: what MO-Gymnasium users call.
        assert reward_space.contains(reward), f"step {t}: {reward!r} not in {reward_space}"
        if terminated or truncated:
            env.reset()


@pytest.mark.parametrize("entry", entry_params(is_multi_objective))
def test_linear_reward_with_unit_weights_is_the_component_sum(entry, closing):
    from mo_gymnasium.wrappers import LinearReward

    env = closing(LinearReward(make_env(entry, HORIZON), weight=np.ones(len(entry.objectives))))
    env.reset(seed=1)
    for action in action_sequence(env, entry, 10, seed=1):
        _, reward, _, _, info = env.step(action)
        assert np.isclose(reward, np.sum(info["vector_reward"], dtype=np.float64))


@pytest.mark.parametrize("entry", entry_params(is_momaland))
def test_every_agents_vector_reward_lies_in_its_reward_space(entry, closing):
    env = closing(make_env(entry, HORIZON))
    env.reset(seed=5)
    for k, agent in enumerate(env.possible_agents):
        space = env.unwrapped.reward_space(agent)
        assert isinstance(space, spaces.Box) and space.shape == (len(entry.objectives),)
        assert env.unwrapped.reward_spaces[agent] is space  # MOMAland's attribute too
        env.action_space(agent).seed(5 + k)
    for t in range(STEPS):
        if not env.agents:
            env.reset()
        _, rewards, _, _, _ = env.step({agent: env.action_space(agent).sample() for agent in env.agents})
        for agent, reward in rewards.items():
            space = env.unwrapped.reward_space(agent)
            assert isinstance(reward, np.ndarray) and reward.dtype == space.dtype, f"step {t}: {agent}: {reward!r}"
            assert space.contains(reward), f"step {t}: {agent}: {reward!r} not in {space}"
