"""Hashed features of a text game's state and of its admissible commands, DRRN-style (He et al.,
2016): shared by the small learned policy of ``baselines/text_recipe.py`` and the admissible-choice
adapter that lets array learners play the text envs (:mod:`envzoo.text.choice`).

A text is read as its lower-case words and pairs of neighbouring words; each is hashed with
``zlib.crc32`` after a prefix naming the field it came from (``g`` goal, ``o`` observation, ``l``
last command, ``a`` admissible command) into one of ``buckets`` ids. ``crc32`` gives the same ids
in every process and on every machine, unlike Python's ``hash()``, which is salted per process.
"""

from __future__ import annotations

import zlib

import numpy as np

#: Hash buckets of the recipe's embedding table.
BUCKETS = 2**14
#: Features of each command beyond its words: see :func:`generic_features`.
GENERIC_FEATURES = 3
#: Words that say nothing about which object a command is about (numbers tell copies apart).
_FILLER = {"1", "2", "3", "4", "5", "6", "7", "8", "9", "from", "in", "on", "to", "with"}


def tokens(prefix: str, text: str, buckets: int = BUCKETS) -> list[int]:
    """The bucket ids of ``text``'s words and word pairs, hashed with ``prefix`` (``[0]`` for a
    text without words, so that every bag has a member)."""
    words = text.lower().replace(".", " ").replace(",", " ").split()
    grams = words + [f"{a}_{b}" for a, b in zip(words, words[1:])]
    return [zlib.crc32(f"{prefix}:{gram}".encode()) % buckets for gram in grams] or [0]


def state_tokens(goal: str, observation: str, last_command: str, buckets: int = BUCKETS) -> list[int]:
    """The bucket ids of the state: the goal, the last observation and the last command sent."""
    return tokens("g", goal, buckets) + tokens("o", observation, buckets) + tokens("l", last_command, buckets)


def generic_features(command: str, goal: str, observation: str, sent: dict[str, int]) -> list[float]:
    """Three numbers in [0, 1] that help a small policy read the goal: the share of the command's
    content words that are in the goal and in the observation, and how often the command was
    sent this episode (``sent``: count by command; 3 or more read as 1)."""
    words = set(command.split()) - _FILLER
    goal_words = set(goal.replace(".", "").split())
    observed = set(observation.replace(".", " ").replace(",", " ").split())
    return [len(words & goal_words) / max(len(words), 1), len(words & observed) / max(len(words), 1),
            min(sent.get(command, 0), 3) / 3]


def command_features(command: str, goal: str, observation: str, sent: dict[str, int],
                     buckets: int = BUCKETS) -> tuple[list[int], list[float]]:
    """A command's bucket ids and its :func:`generic_features`."""
    return tokens("a", command, buckets), generic_features(command, goal, observation, sent)


def presence(token_ids: list[int], size: int) -> np.ndarray:
    """The ``(size,)`` float32 vector with 1 at each of the bucket ids (each below ``size``), else
    0: a bag of words that a long observation cannot dilute (a mean would shrink each word of it)."""
    vector = np.zeros(size, dtype=np.float32)
    vector[token_ids] = 1.0
    return vector
