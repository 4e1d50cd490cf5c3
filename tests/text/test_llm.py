"""The OpenAI-compatible client against a local fake server (no network): it sends the
conversation and the act tool, reads tool calls and text replies, and wins with a model that
answers the walkthrough."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import envzoo
from envzoo.text.llm import ChatCompletionsAgent


class FakeModel:
    """A server whose 'model' answers the given commands in turn, alternating a tool call and
    an <action> text; it records every request."""

    def __init__(self, commands, status=200):
        self.commands, self.status, self.requests = list(commands), status, []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                turn = len(model.requests)
                command = model.commands.pop(0) if model.commands else "look"
                message = ({"role": "assistant", "content": None, "tool_calls": [{
                    "id": f"call-{turn}", "type": "function",
                    "function": {"name": "act", "arguments": json.dumps({"command": command})}}]}
                    if turn % 2 else {"role": "assistant", "content": f"Next: <action>{command}</action>"})
                payload = json.dumps({"choices": [{"index": 0, "message": message}]}).encode()
                self.send_response(model.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_agent_plays_an_episode_through_the_endpoint():
    env = envzoo.make("envzoo/Household-v0")
    observation, info = env.reset(seed=5)
    fake = FakeModel(info["walkthrough"])
    try:
        agent = ChatCompletionsAgent(env, fake.url, model="fake-model", api_key="secret")
        agent.reset(5)
        terminated = truncated = False
        while not (terminated or truncated):
            observation, reward, terminated, truncated, info = env.step(agent(observation, info))
        assert terminated and info["metrics"]["success"] == 1.0
        first, second = fake.requests[0], fake.requests[1]
        assert first["path"] == "/v1/chat/completions" and first["auth"] == "Bearer secret"
        assert first["body"]["model"] == "fake-model" and first["body"]["tools"][0]["function"]["name"] == "act"
        assert [m["role"] for m in first["body"]["messages"]] == ["system", "user"]
        # The answer to a tool call is a tool message with its id; to a text reply, a user message.
        assert second["body"]["messages"][-1] == {"role": "tool", "tool_call_id": "call-1",
                                                  "content": second["body"]["messages"][-1]["content"]}
        assert fake.requests[2]["body"]["messages"][-1]["role"] == "user"
    finally:
        fake.close()


def test_a_history_of_k_sends_the_system_prompt_and_the_last_k_exchanges():
    env = envzoo.make("envzoo/Household-v0")
    observation, info = env.reset(seed=5)
    fake = FakeModel(info["walkthrough"])
    try:
        agent = ChatCompletionsAgent(env, fake.url, model="fake-model", history=2)
        agent.reset(5)
        for _ in range(6):
            observation, _, terminated, truncated, info = env.step(agent(observation, info))
            if terminated or truncated:
                break
        sent = [[m["role"] for m in request["body"]["messages"]] for request in fake.requests]
        assert sent[0] == ["system", "user"] and len(sent[1]) == 4 and len(sent[2]) == 6
        # From the fourth request on: the system prompt, then the last two replies with what answered them.
        assert all(roles[0] == "system" and roles.count("assistant") == 2 for roles in sent[3:]), sent
        assert all(roles[1] != "tool" for roles in sent), sent  # a tool result never loses its call
    finally:
        fake.close()
    with pytest.raises(ValueError, match="history"):
        ChatCompletionsAgent(env, fake.url, model="fake-model", history=0)


def test_endpoint_errors_are_named():
    env = envzoo.make("envzoo/Household-v0")
    observation, info = env.reset(seed=0)
    fake = FakeModel(["look"], status=500)
    try:
        agent = ChatCompletionsAgent(env, fake.url, model="m")
        agent.reset()
        with pytest.raises(RuntimeError, match="HTTP 500"):
            agent(observation, info)
    finally:
        fake.close()
    with pytest.raises(ValueError, match="base_url"):
        ChatCompletionsAgent(env, "localhost:8000", model="m")


THIEF = """\
import os
def solve(*args):
    found = repr(dict(os.environ))
    for path in ("/proc/self/environ", f"/proc/{os.getppid()}/environ", "/proc/1/environ"):
        try:
            found += open(path).read()
        except OSError:
            pass
    for name in ("OPENAI_API_KEY", "HF_TOKEN"):  # a key found leaks through the feedback: an exception named after it
        if os.environ.get(name):
            raise type(os.environ[name].replace("-", "_"), (Exception,), {})()
    return found
"""


@pytest.mark.needs_sandbox
def test_the_api_key_reaches_the_endpoint_only(monkeypatch, capsys, caplog):
    """An agent holding a key, the key in the trainer's environment, and a model-written program
    that looks for it: it is in the request's Authorization header and nowhere else, not in the
    sandbox, the observations, the infos, the requests' bodies or anything printed or logged."""
    import secrets

    from envzoo.core.sandbox import run_solution, runner

    key = "sk-test-" + secrets.token_hex(12)
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("HF_TOKEN", key)
    monkeypatch.setattr(runner, "_state", {})  # sandbox workers started while the key is in the environment
    seen = []
    household = envzoo.make("envzoo/Household-v0")
    observation, info = household.reset(seed=5)
    fake = FakeModel(info["walkthrough"][:1])
    try:
        agent = ChatCompletionsAgent(household, fake.url, model="fake-model", api_key=key)
        agent.reset(5)
        seen += [household.step(agent(observation, info)), repr(agent)]
    finally:
        fake.close()
    reasoning = envzoo.make("envzoo/Reasoning-v0", families="code")
    seen.append(reasoning.reset(seed=0))
    seen.append(reasoning.step(f"```python\n{THIEF}```"))
    stolen = run_solution(THIEF, [[]])
    seen.append(stolen)
    seen += [[request["path"], request["body"]] for request in fake.requests]
    captured = capsys.readouterr()
    seen += [captured.out, captured.err, caplog.text]
    runner._state["pool"].close()
    assert fake.requests[0]["auth"] == f"Bearer {key}"
    assert stolen.outputs is not None and "OPENAI_API_KEY" not in stolen.outputs[0]  # it ran, and found no key
    assert key not in repr(seen) and key.replace("-", "_") not in repr(seen)
    namespace = {}  # where the key is in its environment, the thief's feedback would carry it
    exec(THIEF, namespace)
    with pytest.raises(Exception) as leaked:
        namespace["solve"]()
    assert type(leaked.value).__name__ == key.replace("-", "_")
