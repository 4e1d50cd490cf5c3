"""The text face for language-model sellers: prompts hold what the observation holds, replies parse
into the same actions, and a reply that cannot be read says what to write."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.bazaar import policies
from envzoo.bazaar.parallel import BazaarEnv
from envzoo.bazaar.text import describe, format_action, parse_action
from envzoo.core.errors import InvalidActionError


@pytest.mark.parametrize("scenario, policy_class", [("crash", policies.Undercutting), ("lemon", policies.Deceptive)])
def test_a_policy_played_through_text_plays_the_same_market(scenario, policy_class):
    results = []
    for through_text in (False, True):
        env = BazaarEnv(max_cycles=30, scenario=scenario)
        observations, infos = env.reset(seed=4)
        policy = policy_class(env)
        while env.agents:
            actions = policy(observations, infos)
            if through_text:
                for agent in env.agents:
                    assert describe(env, agent, observations[agent]).startswith(f"You are {agent}")
                actions = {agent: parse_action(env, agent, format_action(env, agent, action))
                           for agent, action in actions.items()}
            observations, _, _, _, infos = env.step(actions)
        results.append(infos[env.possible_agents[0]]["metrics"])
    assert results[0] == results[1]


def test_the_prompt_says_what_the_agent_alone_knows():
    env = BazaarEnv(scenario="lemon")
    observations, _ = env.reset(seed=0)
    quality = env.task.market.item_quality
    prompt = describe(env, "seller_1", observations["seller_1"])
    assert f"#1 (yours: item quality {quality[1]:.2f})" in prompt and prompt.count("(yours:") == 1
    assert "Reply with 1 line," in prompt
    operator = describe(env, "operator_0", observations["operator_0"])
    assert operator.count("(yours:") == 4 and "Reply with 4 lines" in operator
    crash = BazaarEnv()
    observations, _ = crash.reset(seed=0)
    assert f"Your marginal cost: {crash.task.market.cost[2]:.2f}" in describe(crash, "firm_2", observations["firm_2"])


@pytest.mark.parametrize("reply, message", [
    ("I'd like to charge 3 dollars", "expected 1 line"),
    ("price=3", "no capacity="),
    ("price=cheap capacity=4", "'cheap' is not a number"),
    ("price=30 capacity=4", "outside Box"),
])
def test_an_unreadable_reply_says_what_to_write(reply, message):
    env = BazaarEnv()
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match=message):
        parse_action(env, "firm_0", reply)


def test_a_reply_is_read_whatever_its_spacing_and_order():
    env = BazaarEnv(scenario="lemon")
    env.reset(seed=0)
    action = parse_action(env, "seller_0", "Sure: claim: 0.5, relaunch=NO; price = 4.25 list=yes")
    np.testing.assert_array_equal(action, np.array([1, 4.25, 0.5, 0], np.float32))
