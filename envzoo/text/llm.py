"""A language model behind any OpenAI-compatible HTTP endpoint (``POST {base_url}/chat/completions``:
vLLM, SGLang, llama.cpp's server, Ollama, OpenAI) as an agent of the text envs.

It keeps the episode's conversation (:mod:`envzoo.text.chat`'s messages), offers the ``act``
tool unless ``use_tools=False``, and turns each reply into a command. Only the standard library
talks to the endpoint; nothing is sent anywhere unless a user builds one with a URL.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from envzoo.core.policy import Policy
from envzoo.text.chat import (
    ACT_TOOL,
    DEFAULT_SYSTEM_PROMPT,
    answer_to,
    command_from_reply,
    observation_message,
)


class ChatCompletionsAgent(Policy):
    """Asks the model at ``base_url`` (e.g. ``"http://localhost:8000/v1"``) for each command.

    Arguments: ``model`` (the endpoint's model name), ``api_key`` (sent as a bearer token, if
    given), ``temperature`` (0: greedy), ``use_tools`` (offer the ``act`` tool; models without
    tool calling answer in text, ``<action>...</action>``), ``show_admissible`` (list the
    admissible commands in each message), ``system_prompt``, ``timeout_s`` per request,
    ``history`` (None: the whole episode's conversation; K: the system prompt and the last K
    exchanges only, for models whose context a long episode would overflow).
    """

    def __init__(self, env, base_url: str, model: str, api_key: str | None = None, temperature: float = 0.0,
                 use_tools: bool = True, show_admissible: bool = True, system_prompt: str = DEFAULT_SYSTEM_PROMPT,
                 timeout_s: float = 60.0, history: int | None = None):
        super().__init__(env)
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL such as 'http://localhost:8000/v1', got {base_url!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.temperature = model, api_key, temperature
        self.use_tools, self.show_admissible = use_tools, show_admissible
        if history is not None and history < 1:
            raise ValueError(f"history must be None (the whole conversation) or at least 1 exchange, got {history}")
        self.system_prompt, self.timeout_s, self.history = system_prompt, timeout_s, history
        self.messages: list[dict] = []
        self._last_reply = None

    def reset(self, seed=None):
        self.messages = [{"role": "system", "content": self.system_prompt}]
        self._last_reply = None

    def __call__(self, observation, info):
        content = observation_message(observation, info, self.show_admissible)
        if self._last_reply is None:
            self.messages.append({"role": "user", "content": content})
        else:
            self.messages += answer_to(self._last_reply, content)
        self._forget_old_exchanges()
        reply = self._complete()
        self._last_reply = reply
        return command_from_reply(reply)

    def _forget_old_exchanges(self) -> None:
        """Keep the system prompt and the last ``history`` replies with what came after them, from
        the observation the first kept reply answered (a tool result stays with its call)."""
        if self.history is None:
            return
        replies = [i for i, message in enumerate(self.messages) if message["role"] == "assistant"]
        if len(replies) <= self.history:
            return
        start = replies[-self.history]
        if self.messages[start - 1]["role"] == "user":
            start -= 1
        self.messages = self.messages[:1] + self.messages[start:]

    def _complete(self) -> dict:
        body = {"model": self.model, "messages": self.messages, "temperature": self.temperature}
        if self.use_tools:
            body["tools"] = [ACT_TOOL]
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"{self.url} answered HTTP {error.code}: {error.read()[:500]!r}") from error
        except urllib.error.URLError as error:
            raise RuntimeError(f"cannot reach {self.url}: {error.reason} (is the model server running?)") from error
        try:
            message = answer["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise RuntimeError(f"{self.url} answered without choices[0].message: {str(answer)[:500]}") from None
        return {key: value for key, value in message.items() if key in ("role", "content", "tool_calls")}
