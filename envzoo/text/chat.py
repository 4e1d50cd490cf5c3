"""Text envs as chat conversations, for language-model harnesses.

A text env's observation is a string and its action a command string (the Gymnasium face, what
gym-style LLM frameworks such as GEM and rllm step). :class:`ChatEnv` turns the same episode
into chat messages (OpenAI's ``{"role", "content"}`` dicts): the observation (and, optionally,
the admissible commands) is a user message, or a tool message answering a tool call; the
model's reply, an assistant message with a command in its text (bare, or inside
``<action>...</action>``) or a call of the ``act`` tool, becomes the action. Two more faces of it
follow the shapes of common harnesses, without importing them:

- verifiers' multi-turn environments: :meth:`ChatEnv.env_response` ``(messages, state) ->
  (new messages, state)`` and :meth:`ChatEnv.is_completed`, the rewards summed in ``state``;
- TextArena's loop: :class:`TextArenaView` (``reset(num_players, seed)``, ``get_observation()
  -> (player_id, observation)``, ``step(action) -> (done, info)``, ``close() -> rewards``).
"""

from __future__ import annotations

import json
import re

from envzoo.text.spaces import COMMAND_CHARSET, MAX_COMMAND_LENGTH

TOOL_NAME = "act"
#: The tool a model calls to act (OpenAI's function-calling schema).
ACT_TOOL = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": "Send one command to the text game, e.g. 'go to fridge 1' or 'open box'.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    },
}
DEFAULT_SYSTEM_PROMPT = ("You play a text game. Each turn, reply with exactly one command, either as the text "
                         "<action>COMMAND</action> or by calling the act tool.")
_ACTION_TAG = re.compile(r"<action>(.*?)</action>", re.DOTALL)
_OUTSIDE_COMMANDS = re.compile(f"[^{re.escape(COMMAND_CHARSET)}]")


def command_from_reply(reply) -> str:
    """The command in a model's reply: an assistant message (a dict with ``content`` and maybe
    ``tool_calls``) or its text. A call of the ``act`` tool wins; else the text of the last
    ``<action>...</action>``; else the first non-empty line of the text. Characters a command
    cannot hold (backticks, quotes other than ', newlines) are dropped and the command is cut
    to the action space's length. Raises ``ValueError`` when the reply holds no command."""
    if isinstance(reply, dict):
        for call in reply.get("tool_calls") or []:
            function = call.get("function", call)
            if function.get("name") == TOOL_NAME:
                arguments = function.get("arguments", {})
                arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
                return _clean(str(arguments.get("command", "")), reply)
        text = reply.get("content") or ""
    elif isinstance(reply, str):
        text = reply
    else:
        raise ValueError(f"a reply is an assistant message dict or a string, got {type(reply).__name__}")
    tagged = _ACTION_TAG.findall(text)
    if tagged:
        return _clean(tagged[-1], reply)
    line = next((line for line in text.splitlines() if line.strip()), "")
    return _clean(line, reply)


def _clean(command: str, reply) -> str:
    command = " ".join(_OUTSIDE_COMMANDS.sub(" ", command).split())[:MAX_COMMAND_LENGTH].strip()
    if not command:
        raise ValueError(f"the reply {reply!r} holds no command: write one as <action>COMMAND</action>, as the "
                         f"first line of the text, or call the {TOOL_NAME!r} tool with {{'command': ...}}")
    return command


def observation_message(observation: str, info: dict, show_admissible: bool = True) -> str:
    """The text of the message that shows the model an observation (and the admissible commands)."""
    if show_admissible and info.get("admissible_commands"):
        return f"{observation}\n\nAdmissible commands: {', '.join(info['admissible_commands'])}"
    return observation


def answer_to(reply, content: str) -> tuple[dict, dict]:
    """The assistant message of ``reply`` (a message dict or its text) and the message that
    answers it with ``content``: a tool message where the reply called the ``act`` tool, else
    a user message."""
    assistant = dict(reply) if isinstance(reply, dict) else {"role": "assistant", "content": reply}
    calls = [call for call in assistant.get("tool_calls") or [] if call.get("function", call).get("name") == TOOL_NAME]
    if calls:
        return assistant, {"role": "tool", "tool_call_id": calls[0].get("id", ""), "content": content}
    return assistant, {"role": "user", "content": content}


class ChatEnv:
    """One text env (made with ``gymnasium.make`` or ``envzoo.make``) as a conversation.

    ``reset(seed)`` returns the opening messages (system prompt, first observation);
    ``step(reply)`` plays the command of the model's reply and returns ``(new_messages, reward,
    terminated, truncated, info)``; :attr:`messages` is the whole conversation so far. With
    ``show_admissible`` the user messages list ``info["admissible_commands"]``.
    """

    def __init__(self, env, system_prompt: str | None = DEFAULT_SYSTEM_PROMPT, show_admissible: bool = True):
        self.env = env
        self.system_prompt = system_prompt
        self.show_admissible = show_admissible
        self.messages: list[dict] = []
        self.done = True

    def reset(self, seed: int | None = None) -> list[dict]:
        """Start an episode; returns the opening messages (the system prompt, if any, and the first observation)."""
        observation, info = self.env.reset(seed=seed)
        self.info, self.done = info, False
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        self.messages = [*system, {"role": "user", "content": observation_message(observation, info,
                                                                                  self.show_admissible)}]
        return list(self.messages)

    def step(self, reply):
        """Play the command in the model's ``reply``; returns ``(new messages, reward, terminated, truncated, info)``."""
        if self.done:
            raise RuntimeError("the episode is over: call reset() for a new conversation")
        command = command_from_reply(reply)
        observation, reward, terminated, truncated, info = self.env.step(command)
        self.info, self.done = info, bool(terminated or truncated)
        assistant, answer = answer_to(reply, observation_message(observation, info, self.show_admissible))
        self.messages += [assistant, answer]
        return [answer], float(reward), bool(terminated), bool(truncated), info

    # ---------------------------------------------------------------- verifiers' shape
    def env_response(self, messages: list[dict], state: dict) -> tuple[list[dict], dict]:
        """The environment's turn: play the last assistant message of ``messages``; returns the
        new messages and ``state`` with ``reward`` (summed), ``terminated``, ``truncated`` and
        ``info`` updated."""
        reply = next(message for message in reversed(messages) if message.get("role") == "assistant")
        new, reward, terminated, truncated, info = self.step(reply)
        state = {**state, "reward": state.get("reward", 0.0) + reward, "terminated": terminated,
                 "truncated": truncated, "info": info}
        return new, state

    def is_completed(self, messages: list[dict], state: dict) -> bool:
        """Whether the episode is over (verifiers' shape; the arguments are not needed)."""
        return self.done


class TextArenaView:
    """A one-player TextArena-style loop over a :class:`ChatEnv`'s env: observations are the
    user messages' text, actions the model's replies (any form :func:`command_from_reply`
    reads), ``close()`` gives ``{0: the episode's return}``."""

    def __init__(self, env, show_admissible: bool = True):
        self.chat = ChatEnv(env, system_prompt=None, show_admissible=show_admissible)
        self.total = 0.0

    def reset(self, num_players: int = 1, seed: int | None = None) -> None:
        """Start an episode of the one player (``num_players`` must be 1)."""
        if num_players != 1:
            raise ValueError(f"text envs have one player, got num_players={num_players}")
        self.chat.reset(seed)
        self.total = 0.0

    def get_observation(self) -> tuple[int, str]:
        """``(player id, the newest observation's text)``; the player is always 0."""
        return 0, self.chat.messages[-1]["content"]

    def step(self, action) -> tuple[bool, dict]:
        """Play the model's reply ``action``; returns ``(done, info)``."""
        _, reward, _, _, info = self.chat.step(action)
        self.total += reward
        return self.chat.done, info

    def close(self) -> dict[int, float]:
        """The episode's return by player: ``{0: return}``."""
        return {0: self.total}
