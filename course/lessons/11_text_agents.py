# %% [markdown]
# # Lesson 11: language-model agents on household text tasks
#
# Text environments turn an agent's world into prose: the observation is a paragraph, the
# action a command. `envzoo/Household-v0` poses ALFWorld-style chores ("put a clean mug on a
# shelf") in houses of rooms and receptacles that open and close; `info` carries the admissible
# commands and an optimal walkthrough, so every episode is scored against the shortest solution
# (success, progress, steps over optimal, invalid-action rate).
#
# A **language-model agent** sees the episode as a chat: `envzoo.text.chat.ChatEnv` writes each
# observation as a user message and reads the command out of the model's reply
# (`<action>...</action>`, a bare line, or a call of an `act` tool). Any function from messages
# to a reply is an agent; here the agents are scripted, so that the lesson runs anywhere in a few
# seconds. With the `llm` extra (`envzoo serve-llm`, SmolLM2-135M on the CPU) or any
# OpenAI-compatible endpoint, set `BASE_URL` below to play a real model through the same loop.
#
# Runs in about 10 s (`EPISODES`).

# %%
import gymnasium as gym
import matplotlib.pyplot as plt
import numpy as np

import envzoo  # noqa: F401
from envzoo.text.chat import ChatEnv
from envzoo.text.household.policies import Heuristic
from envzoo.text.policies import Expert, RandomAdmissible
from envzoo.tools.rollout import run_episode

EPISODES = 40
BASE_URL = None   # e.g. "http://127.0.0.1:8000/v1" after `envzoo serve-llm --port 8000 &` (extra llm)

env = gym.make("envzoo/Household-v0", render_mode="rgb_array")
chat = ChatEnv(env)
for message in chat.reset(seed=3):
    print(f"[{message['role']}]\n{message['content']}\n")
plt.imshow(env.render())
plt.axis("off")
plt.title("Household-v0, episode 3")
plt.show()

# %% [markdown]
# ## An agent is a function of the conversation
#
# The simplest one picks a random admissible command, read from the last message's text (as a
# model would see it). Playing it through the adapter:

# %%
generator = np.random.default_rng(0)


def random_agent(messages):
    listed = messages[-1]["content"].split("Admissible commands: ")[-1].split(", ")
    return f"I will try something.\n<action>{generator.choice(listed)}</action>"


messages = chat.reset(seed=3)
for turn in range(3):
    reply = random_agent(chat.messages)
    new, reward, terminated, truncated, info = chat.step(reply)
    print(f"[assistant] {reply!r}\n[user] {new[0]['content'][:160]}...\n")

# %% [markdown]
# ## Scoring agents against the walkthrough
#
# Three reference agents over the same episodes: random admissible commands, envzoo's
# **heuristic** explorer (it reads only the goal, its own past and the admissible commands:
# exactly what the chat shows a model) and the **expert**, which follows the optimal
# walkthrough. The bars show the success rate with a 95 % bootstrap interval over episodes.

# %%
agents = {"random admissible": RandomAdmissible, "heuristic": Heuristic, "expert (walkthrough)": Expert}
metrics = {name: [run_episode(env, agent(env), seed=1000 + s).metrics for s in range(EPISODES)]
           for name, agent in agents.items()}


def bootstrap(values, reps=2000):
    means = np.random.default_rng(1).choice(values, size=(reps, len(values))).mean(axis=1)
    return np.percentile(means, [2.5, 97.5])


fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
for i, (name, runs) in enumerate(metrics.items()):
    success = np.array([m["success"] for m in runs], dtype=float)
    low, high = bootstrap(success)
    left.bar(i, success.mean(), yerr=[[success.mean() - low], [high - success.mean()]], capsize=4)
    solved = [m["steps_over_optimal"] for m in runs if m["success"]]
    if solved:
        right.hist(solved, bins=np.arange(0, 30, 2), alpha=0.5, label=name)
    print(f"{name:22s} success {success.mean():.0%} [{low:.0%}, {high:.0%}]  invalid rate "
          f"{np.mean([m['invalid_rate'] for m in runs]):.2f}  progress {np.mean([m['progress'] for m in runs]):.0f}")
left.set_xticks(range(len(metrics)), list(metrics), fontsize=8)
left.set_ylabel("success rate")
right.set_xlabel("steps over optimal (solved episodes)")
right.legend(fontsize=8)
fig.suptitle(f"Household-v0, {EPISODES} episodes")
plt.show()

# %% [markdown]
# ## A real model, if one is served
#
# `envzoo.text.llm.ChatCompletionsAgent` is the same loop against an OpenAI-compatible endpoint
# (vLLM, llama.cpp's server, Ollama, a hosted API); the three agents above are the yardsticks
# for its scores (five episodes here, to keep a CPU model's wait short).

# %%
if BASE_URL:
    from envzoo.text.llm import ChatCompletionsAgent

    model = ChatCompletionsAgent(env, base_url=BASE_URL, model="smollm2", use_tools=False, history=6)
    runs = [run_episode(env, model, seed=1000 + s).metrics for s in range(5)]
    print("model success:", np.mean([m["success"] for m in runs]))
else:
    print("BASE_URL is not set: no model played (pip install \"envzoo[llm]\"; envzoo serve-llm --port 8000 &)")

# %% [markdown]
# ## Exercises
#
# Fill in `course/exercises/11_text_agents.py`, then run `envzoo course check 11`.
#
# 1. `parse_command(reply)`: read the command from a model's reply, as the adapter does.
# 2. `admissible_commands(message)`: the commands a user message lists.
# 3. `make_agent()`: an agent (messages -> reply) that succeeds in at least half of 20 household
#    tasks through `ChatEnv`, seeing only the messages. (Hint: the goal is in the first
#    message; a greedy explorer that prefers commands naming the goal's object goes far.)
#
# Going further: give your agent `history` (only the last few messages), as a small model's
# context would force; how much does its success drop?

# %%
from envzoo.tools.course import report  # noqa: E402

report("11")
