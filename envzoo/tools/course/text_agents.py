"""Lesson 11, language-model agents on household text tasks: checkers of reading a model's reply,
reading the admissible commands from a message (:mod:`envzoo.text.chat`), and an agent played
through the chat adapter on ``Household-v0``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from envzoo.text.chat import ChatEnv, command_from_reply
from envzoo.tools.course import Exercise, Wrong

#: The agent exercise: episodes (their seeds) and the success rate to reach (random admissible
#: commands succeed in about 3 % of them).
SEEDS, SUCCESS = range(500, 520), 0.5

REPLIES = ("<action>go to fridge 1</action>", "I think I should look around.\n<action>look</action>",
           "take apple 1 from countertop 2\nbecause I need it", "<action>open box</action> then <action>inventory</action>",
           "  \n  go to kitchen  ")


def check_parse(answer) -> str:
    for reply in REPLIES:
        got, want = answer(reply), command_from_reply(reply)
        if got != want:
            hint = "the last <action>...</action> wins" if "<action>" in reply else \
                "without tags, the first non-empty line, stripped"
            raise Wrong(f"from the reply {reply!r} you read {got!r}: {hint}")
    return "commands read from tagged and untagged replies"


def check_admissible(answer) -> str:
    env = gym.make("envzoo/Household-v0")
    chat = ChatEnv(env)
    for seed in range(3):
        messages = chat.reset(seed=seed)
        for _ in range(3):
            got = answer(messages[-1]["content"])
            want = chat.info["admissible_commands"]
            if list(got) != list(want):
                raise Wrong(f"in episode {seed} you read {len(got)} commands, the message lists {len(want)}: split "
                            "the text after 'Admissible commands: ' at ', '")
            messages, *_ = chat.step(f"<action>{want[0]}</action>")
    return "the admissible commands of nine messages"


def check_agent(answer) -> str:
    env = gym.make("envzoo/Household-v0")
    chat = ChatEnv(env)
    successes, steps = [], []
    for seed in SEEDS:
        agent = answer()
        chat.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, info = chat.step(agent(list(chat.messages)))
            done = terminated or truncated
        successes.append(info["metrics"]["success"])
        steps.append(info["metrics"]["steps_over_optimal"])
    rate = float(np.mean(successes))
    if rate < SUCCESS:
        raise Wrong(f"your agent succeeded in {rate:.0%} of {len(SEEDS)} episodes; reach {SUCCESS:.0%}: read the goal in "
                    "the first message, explore the receptacles you have not seen, and prefer commands that name "
                    "the goal's object")
    return f"success in {rate:.0%} of {len(SEEDS)} episodes, {np.mean(steps):.1f} steps over optimal on average"


EXERCISES = (
    Exercise("parse_command", "the command in a model's reply", check_parse),
    Exercise("admissible_commands", "the admissible commands listed in a message", check_admissible),
    Exercise("make_agent", f"a chat agent that succeeds in {SUCCESS:.0%} of household tasks", check_agent),
)
