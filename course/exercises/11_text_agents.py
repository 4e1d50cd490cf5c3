"""Lesson 11 exercises: fill in each answer, then run `envzoo course check 11` from the
repository's root (or `python -m pytest course/test_exercises.py -k 11`)."""


def parse_command(reply: str) -> str:
    """Exercise 1. The command in a model's reply text: the text of the last <action>...</action>
    if there is one, else the first non-empty line; stripped of surrounding spaces."""
    raise NotImplementedError


def admissible_commands(message: str) -> list[str]:
    """Exercise 2. The admissible commands a user message of the chat adapter lists (after
    'Admissible commands: ', separated by ', '), in order."""
    raise NotImplementedError


def make_agent():
    """Exercise 3. Return a new agent: a function messages -> reply (a string), where messages is
    the conversation so far (OpenAI-style dicts). It must succeed in half of Household-v0's
    episodes, seeing only the messages. A scripted agent, or a language model behind an endpoint."""
    raise NotImplementedError
