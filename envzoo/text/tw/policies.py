"""TextWorld-v1's heuristic agent, a greedy reader of the goal (the expert and random admissible
agents of every text env are in :mod:`envzoo.text.policies`)."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.text.features import generic_features

#: Commands that change nothing in the game: sent only when nothing else is admissible.
_IDLE_VERBS = ("look", "inventory", "examine")


class GoalReader(Policy):
    """Sends the admissible command that shares the largest share of its words with the goal text,
    least sent before this episode (the first two of :func:`envzoo.text.features.generic_features`,
    the second subtracted), never one that only looks (``look``, ``inventory``, ``examine``) while
    another is admissible; ties are broken at random (seeded at ``reset``). It reads only the goal
    of the reset info, the admissible commands and its own past commands: it follows a goal that
    spells out the steps, without a map to find the way back when the goal's order is not the
    order of the rooms."""

    def reset(self, seed=None):
        self.generator = np.random.default_rng(seed)
        self.goal = ""
        self.sent: dict[str, int] = {}

    def __call__(self, observation, info):
        if "goal" in info:
            self.goal, self.sent = info["goal"], {}
        commands = [c for c in info["admissible_commands"] if not c.startswith(_IDLE_VERBS)]
        commands = commands or list(info["admissible_commands"])
        scores = np.array([goal_share - sent_share for goal_share, _, sent_share
                           in (generic_features(c, self.goal, "", self.sent) for c in commands)])
        best = np.flatnonzero(scores == scores.max())
        command = commands[int(best[self.generator.integers(len(best))])]
        self.sent[command] = self.sent.get(command, 0) + 1
        return command
