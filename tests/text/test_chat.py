"""The chat adapter in-process: an expert that speaks in chat messages (text, <action> tags, tool
calls with JSON arguments) wins, through the plain, verifiers-shaped and TextArena-shaped loops."""

from __future__ import annotations

import json

import pytest

import envzoo
from envzoo.text.chat import ACT_TOOL, ChatEnv, TextArenaView, command_from_reply

ID = "envzoo/Household-v0"


def replies(walkthrough):
    """The walkthrough's commands as the three reply forms, in turn."""
    for index, command in enumerate(walkthrough):
        if index % 3 == 0:
            yield {"role": "assistant", "content": f"I will do this.\n<action>{command}</action>"}
        elif index % 3 == 1:
            yield {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call{index}", "type": "function",
                 "function": {"name": ACT_TOOL["function"]["name"], "arguments": json.dumps({"command": command})}}]}
        else:
            yield f"`{command}`\nbecause it helps"


def test_chat_env_plays_every_reply_form_to_a_win():
    chat = ChatEnv(envzoo.make(ID))
    opening = chat.reset(seed=4)
    assert [m["role"] for m in opening] == ["system", "user"] and "Your task is to:" in opening[1]["content"]
    assert "Admissible commands: " in opening[1]["content"]
    total, walkthrough = 0.0, chat.info["walkthrough"]
    for reply in replies(walkthrough):
        new, reward, terminated, truncated, info = chat.step(reply)
        total += reward
        assert new[0]["role"] == ("tool" if isinstance(reply, dict) and reply.get("tool_calls") else "user")
    assert terminated and total == 1.0 and chat.done
    assert len(chat.messages) == 2 + 2 * len(walkthrough)
    with pytest.raises(RuntimeError, match="reset"):
        chat.step("look")


def test_verifiers_shaped_loop():
    chat = ChatEnv(envzoo.make(ID, reward="dense"))
    messages, state = chat.reset(seed=8), {}
    plan = iter(chat.info["walkthrough"])
    while not chat.is_completed(messages, state):
        messages.append({"role": "assistant", "content": next(plan)})
        new, state = chat.env_response(messages, state)
        messages += new
    assert state["terminated"] and state["reward"] == pytest.approx(1.0)


def test_textarena_shaped_loop():
    arena = TextArenaView(envzoo.make(ID))
    arena.reset(num_players=1, seed=2)
    player, observation = arena.get_observation()
    assert player == 0 and "Your task is to:" in observation
    walkthrough = arena.chat.info["walkthrough"]
    done = False
    for command in walkthrough:
        done, info = arena.step(command)
    assert done and arena.close() == {0: 1.0}


def test_replies_without_a_command_are_named():
    assert command_from_reply("  \n Open Fridge 1 \n thanks") == "Open Fridge 1"
    for empty in ("", "\n\n", {"role": "assistant", "content": "<action>``</action>"}):
        with pytest.raises(ValueError, match="holds no command"):
            command_from_reply(empty)
    with pytest.raises(ValueError, match="assistant message"):
        command_from_reply(42)
