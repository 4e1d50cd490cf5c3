"""The bridge to TextWorld: one game being played, through ``textworld.start`` (its in-process
Z-machine interpreter), with the infos the task needs requested from it."""

from __future__ import annotations

import warnings
from pathlib import Path


class TextWorldGame:
    """Plays the compiled game at a path; ``start(path)`` opens another game (or restarts the
    same one), ``command(text)`` plays one command. After either, ``feedback``, ``admissible``,
    ``remaining`` (the shortest winning command list from here, TextWorld's policy commands),
    ``won``, ``lost``, ``objective`` describe the game."""

    def __init__(self):
        self.env = None
        self.path: Path | None = None

    def start(self, path: Path) -> None:
        import textworld

        with warnings.catch_warnings():
            # Jericho warns that it cannot track the score of a game it does not know; TextWorld
            # tracks a generated game's score and state itself, so nothing is lost.
            warnings.filterwarnings("ignore", message=".*is not fully supported")
            if path != self.path:
                self.close()
                infos = textworld.EnvInfos(admissible_commands=True, policy_commands=True, won=True, lost=True,
                                           objective=True, max_score=True)
                self.env = textworld.start(str(path), request_infos=infos)
                self.path = path
            self._read(self.env.reset())

    def command(self, text: str) -> None:
        state, _, _ = self.env.step(text)
        self._read(state)

    def _read(self, state) -> None:
        self.feedback = state.feedback
        self.admissible = list(state.admissible_commands or [])
        self.remaining = list(state.policy_commands or [])
        self.won, self.lost = bool(state.won), bool(state.lost)
        self.objective = state.objective or ""

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None
            self.path = None
