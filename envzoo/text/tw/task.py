"""TextWorld-v1's decision problem: B TextWorld games, one per row, each drawn from the pool (the
level's generated games or the user's own) by the row's key; rewards from winning or from the
walkthrough's remaining length."""

from __future__ import annotations

import numpy as np

from envzoo.core.errors import MissingExtraError
from envzoo.core.extras import missing_packages
from envzoo.core.rng import keys_from
from envzoo.text.games import GameTask
from envzoo.text.metrics import batch_metrics, episode_metrics, object_array
from envzoo.text.spaces import command_space, normalize_command, printable, text_space
from envzoo.text.tw.generator import ensure_game
from envzoo.text.tw.params import TextWorldParams, make_params
from envzoo.text.tw.sim import TextWorldGame

#: Longest observation (characters): a cooking game's longest room description is far shorter.
MAX_OBSERVATION_LENGTH = 16384


class TextWorldTask(GameTask):
    """B TextWorld games; see ``TextWorld-v1``'s docstring."""

    picture_title = "TextWorld"

    def __init__(self, params: TextWorldParams, batch: int):
        if missing_packages("text"):
            raise MissingExtraError("text", "textworld", "envzoo/TextWorld-v1")
        super().__init__(params, batch)
        self.observation_space = text_space(MAX_OBSERVATION_LENGTH)
        self.action_space = command_space()
        self.action_hint = "Send one command as a string, e.g. 'open box'; info['admissible_commands'] lists them."
        self.games = [TextWorldGame() for _ in range(batch)]
        self.walkthroughs: list[list[str]] = [[] for _ in range(batch)]
        self._set_up_rows(batch)  # an episode is identified by its game's index; progress is the walkthrough done

    make_params = staticmethod(make_params)

    def reset(self, rows, generators, options) -> dict:
        for row, key in zip(rows, keys_from(generators)):
            self._start(row, int(np.random.default_rng(int(key)).integers(self.params.num_games)))
        return {"admissible_commands": object_array([list(self.games[row].admissible) for row in rows]),
                "goal": object_array([self.games[row].objective for row in rows]),
                "walkthrough": object_array([list(self.walkthroughs[row]) for row in rows])}

    def _start(self, row: int, index: int) -> None:
        game = self.games[row]
        game.start(self.params.games[index] if self.params.games else ensure_game(self.params, index))
        self.walkthroughs[row] = list(game.remaining)
        self.episodes[row] = (index, [])
        self.best[row] = 0.0
        self.steps[row] = self.invalid[row] = 0

    def _done_share(self, row: int) -> float:
        game = self.games[row]
        return 1.0 if game.won else 1.0 - len(game.remaining) / max(len(self.walkthroughs[row]), 1)

    def _play(self, row: int, command: str) -> float:
        """Play one command in ``row``'s game; its reward."""
        game = self.games[row]
        before = self._done_share(row)
        # ``command`` is normalized (lower case); TextWorld lists names as they are written ("Canadian keycard").
        self.invalid[row] += command not in {normalize_command(admissible) for admissible in game.admissible}
        game.command(command)
        self.episodes[row][1].append(command)
        self.steps[row] += 1
        if game.lost:  # the remaining walkthrough of a lost game is empty: no progress to reward
            return 0.0
        after = self._done_share(row)
        self.best[row] = max(self.best[row], after)
        return after - before if self.params.reward == "dense" else float(game.won)

    def observe(self) -> tuple[str, ...]:
        return tuple(printable(game.feedback) for game in self.games)

    def metrics(self) -> dict[str, np.ndarray]:
        return batch_metrics([episode_metrics(game.won, 100.0 * best, steps, len(plan), invalid)
                              for game, best, steps, plan, invalid
                              in zip(self.games, self.best, self.steps, self.walkthroughs, self.invalid)])

    def render_text(self, row: int = 0) -> str:
        game = self.games[row]
        return f"[{game.objective[:60]} | step {self.steps[row]}]\n{printable(game.feedback)}\n"

    def close(self) -> None:
        for game in self.games:
            game.close()
