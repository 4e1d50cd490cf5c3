"""ToolUse-v0: the expert's calls complete every generated task exactly, the state-only score
against hand-computed shares, money conservation across transfers and purchases, refused calls."""

from __future__ import annotations

import json

import numpy as np
import pytest

import envzoo
from envzoo.text.tooluse.sim import call, score

ID = "envzoo/ToolUse-v0"


def test_expert_completes_every_generated_task():
    for num_subtasks in range(1, 7):
        env = envzoo.make(ID, num_subtasks=num_subtasks, num_tools=11, num_distractors=2 * num_subtasks)
        for seed in range(25):
            observation, info = env.reset(seed=seed)
            total = 0.0
            for command in info["walkthrough"]:
                observation, reward, terminated, truncated, step_info = env.step(command)
                total += reward
            metrics = step_info["metrics"]
            assert terminated and total == pytest.approx(1.0) and metrics["success"] == 1.0
            assert metrics["calls"] == metrics["optimal_calls"] and metrics["invalid_rate"] == 0.0


def test_score_is_the_shares_of_facts():
    start = {("balance", "a"): 100, ("balance", "b"): 0, ("file", "x"): "1"}
    expected = {("balance", "a"): 40, ("balance", "b"): 60, ("file", "x"): "1", ("file", "y"): "2"}
    assert score(start, expected, expected) == (1.0, 1.0)
    assert score(start, expected, start) == (0.0, 0.0)
    half = {("balance", "a"): 40, ("balance", "b"): 60, ("file", "x"): "1"}  # the file is missing
    assert score(start, expected, half) == (2 / 3, 1.0)
    messy = {**expected, ("file", "x"): "changed"}  # a side effect
    assert score(start, expected, messy) == (1.0, 3 / 4)


def test_money_is_conserved_by_transfers_and_purchases():
    env = envzoo.make(ID, num_tools=11)
    observation, info = env.reset(seed=3)
    task = env.unwrapped.task
    catalog = task.scenarios[0].catalog
    total = lambda state: sum(v for k, v in state.items() if k[0] == "balance")  # noqa: E731
    before, paid = total(task.states[0]), 0
    rng = np.random.default_rng(0)
    accounts = sorted(k[1] for k in task.states[0] if k[0] == "balance")
    for _ in range(60):
        if rng.random() < 0.5:
            source, target = rng.choice(accounts, size=2, replace=False)
            request = {"tool": "bank.transfer", "arguments": {"source": str(source), "target": str(target),
                                                              "amount": int(rng.integers(1, 5000))}}
        else:
            item = sorted(catalog)[int(rng.integers(len(catalog)))]
            request = {"tool": "shop.buy", "arguments": {"item": item, "quantity": int(rng.integers(1, 3))}}
        observation = env.step(json.dumps(request))[0]
        if request["tool"] == "shop.buy" and not observation.startswith("Error"):
            paid += json.loads(observation)["paid"]
    orders = sum(catalog[k[1]] * v for k, v in task.states[0].items() if k[0] == "order")
    assert total(task.states[0]) + paid == before and paid == orders > 0


@pytest.mark.parametrize("text, message", [
    ("not json", "Expecting value"), ('["files.list"]', "JSON object"), ('{"tool": "rocket.launch"}', "not available"),
    ('{"tool": "bank.transfer", "arguments": {"source": "savings"}}', "takes the arguments"),
    ('{"tool": "bank.transfer", "arguments": {"source": "savings", "target": "rent", "amount": "10"}}', "integer"),
    ('{"tool": "bank.transfer", "arguments": {"source": "savings", "target": "rent", "amount": 10000000}}',
     "insufficient"),
])
def test_refused_calls_change_nothing(text, message):
    env = envzoo.make(ID, num_tools=11)
    env.reset(seed=1)
    before = dict(env.unwrapped.task.states[0])
    observation, reward, terminated, truncated, info = env.step(text)
    assert observation.startswith("Error: ") and message in observation and reward == 0.0 and not terminated
    assert env.unwrapped.task.states[0] == before and info["metrics"]["invalid_rate"] == 1.0


def test_calls_never_change_the_state_they_are_given():
    state = {("balance", "checking"): 1000, ("balance", "a"): 0}
    new, result = call(state, {}, "bank.transfer", {"source": "checking", "target": "a", "amount": 10})
    assert state == {("balance", "checking"): 1000, ("balance", "a"): 0} and new[("balance", "a")] == 10


@pytest.mark.parametrize("kwargs, message", [({"num_subtasks": 7}, "num_subtasks"), ({"num_tools": 0}, "num_tools"),
                                             ({"num_distractors": -1}, "num_distractors")])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        envzoo.make(ID, **kwargs)
