"""The Gymnasium ``Text`` spaces of the text environments.

Gymnasium's default ``Text`` charset is letters and digits only; games speak in sentences, so
observations and commands use printable ASCII (letters, digits, punctuation, space, newline).
"""

from __future__ import annotations

import string

from gymnasium import spaces

CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"
#: A command is one line of words: no newline (it would be two commands to a game's parser) and no
#: backslash (a Z-machine interpreter's escape, not a command to the game).
COMMAND_CHARSET = string.ascii_letters + string.digits + " -'.,:;!?"
#: Longest command an agent may send (characters; TextWorld's interpreter takes fewer than 198 bytes).
MAX_COMMAND_LENGTH = 160


def text_space(max_length: int, min_length: int = 1) -> spaces.Text:
    """A ``Text`` space of printable ASCII strings of ``min_length``..``max_length`` characters."""
    return spaces.Text(max_length=max_length, min_length=min_length, charset=CHARSET)


def command_space() -> spaces.Text:
    """The action space of every text env: one command of 1..MAX_COMMAND_LENGTH characters of
    :data:`COMMAND_CHARSET`."""
    return spaces.Text(max_length=MAX_COMMAND_LENGTH, min_length=1, charset=COMMAND_CHARSET)


def normalize_command(command: str) -> str:
    """The command as the engines match it: lower case, words separated by single spaces."""
    return " ".join(command.lower().split())


_PRINTABLE = set(CHARSET)


def printable(text: str) -> str:
    """A game's answer in the observation space's charset: stripped, tabs and other whitespace
    made spaces, any other character outside printable ASCII a ``?`` (never empty: ``.``)."""
    return "".join(c if c in _PRINTABLE else " " if c.isspace() else "?" for c in text.strip()) or "."
