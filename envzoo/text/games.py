"""What the tasks over an outside game engine share (``TextWorld-v1``: TextWorld's native
interpreter; ``TextWorldExpress-v0``: its Java engine): one game per row, played command by command,
the counters behind the metrics, the step, and copies that replay each row's episode (the engine's
state cannot be pickled)."""

from __future__ import annotations

import numpy as np

from envzoo.core.contract import Task, Transition
from envzoo.text.metrics import object_array
from envzoo.text.picture import TextPicture
from envzoo.text.spaces import normalize_command


class GameTask(TextPicture, Task):
    """A subclass sets ``games`` (one engine per row, each with ``admissible``, ``won`` and
    ``lost``), calls :meth:`_set_up_rows` and implements ``_start(row, episode_id)`` and
    ``_play(row, command) -> reward``, which appends the command to ``episodes[row][1]``."""

    def _set_up_rows(self, batch: int) -> None:
        self.best = np.zeros(batch)  # the best progress (0-1) so far
        self.steps = np.zeros(batch, dtype=np.int64)
        self.invalid = np.zeros(batch, dtype=np.int64)
        self.episodes: list[tuple[int, list[str]] | None] = [None] * batch  # (episode id, commands) per row

    def step(self, actions) -> Transition:
        reward = np.array([self._play(row, normalize_command(action)) for row, action in enumerate(actions)])
        won = np.array([game.won for game in self.games])
        ended = won | np.array([game.lost for game in self.games])
        info = {"admissible_commands": object_array([list(game.admissible) for game in self.games]), "won": won}
        return Transition(reward=reward, terminated=ended, truncated=np.zeros(self.batch, dtype=bool), cost=None,
                          info=info)

    def __getstate__(self):
        return {"params": self.params, "batch": self.batch, "episodes": self.episodes}

    def __setstate__(self, state):
        self.__init__(state["params"], state["batch"])
        for row, episode in enumerate(state["episodes"]):
            if episode is not None:
                self._start(row, episode[0])
                for command in list(episode[1]):
                    self._play(row, command)
