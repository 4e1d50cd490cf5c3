"""TextWorldExpress-v0's decision problem: B TextWorldExpress games, one per row, each generated
from a seed of the fold that the row's key draws; rewards from the task's success or from the
game's own score."""

from __future__ import annotations

import numpy as np

from envzoo.core.errors import MissingExtraError
from envzoo.core.extras import missing_packages
from envzoo.core.rng import keys_from
from envzoo.text.games import GameTask
from envzoo.text.metrics import batch_metrics, episode_metrics, object_array
from envzoo.text.spaces import command_space, normalize_command, printable, text_space
from envzoo.text.twx.params import ExpressParams, make_params
from envzoo.text.twx.sim import ExpressGame

#: Longest observation (characters): a CookingWorld kitchen's description is far shorter.
MAX_OBSERVATION_LENGTH = 8192


class ExpressTask(GameTask):
    """B TextWorldExpress games; see ``TextWorldExpress-v0``'s docstring."""

    picture_title = "TextWorld Express"

    def __init__(self, params: ExpressParams, batch: int):
        if missing_packages("text"):
            raise MissingExtraError("text", "textworld_express", "envzoo/TextWorldExpress-v0")
        super().__init__(params, batch)
        self.observation_space = text_space(MAX_OBSERVATION_LENGTH)
        self.action_space = command_space()
        self.action_hint = "Send one command as a string, e.g. 'move north'; info['admissible_commands'] lists them."
        self.games = [ExpressGame() for _ in range(batch)]
        self.seeds = self.games[0].load(params.game, params.game_params)[params.fold]  # checks game_params
        self.observations = [""] * batch
        self._set_up_rows(batch)  # an episode is identified by its game seed; progress is the score

    make_params = staticmethod(make_params)

    def reset(self, rows, generators, options) -> dict:
        for row, key in zip(rows, keys_from(generators)):
            self._start(row, self.seeds[int(np.random.default_rng(int(key)).integers(len(self.seeds)))])
        return {"admissible_commands": object_array([list(self.games[row].admissible) for row in rows]),
                "goal": object_array([self.games[row].goal for row in rows]),
                "walkthrough": object_array([list(self.games[row].walkthrough) for row in rows])}

    def _start(self, row: int, seed: int) -> None:
        game = self.games[row]
        game.load(self.params.game, self.params.game_params)
        game.start(seed, self.params.fold)
        self.observations[row] = printable(f"{game.goal}\n\n{game.feedback}")
        self.episodes[row] = (seed, [])
        self.best[row] = 0.0
        self.steps[row] = self.invalid[row] = 0

    def _play(self, row: int, command: str) -> float:
        """Play one command in ``row``'s game; its reward. TextWorldExpress's parser is case
        sensitive (``take clean blue T-shirt``): a command is matched to the admissible one it
        equals up to case and spaces."""
        game = self.games[row]
        before = game.score
        admissible = {normalize_command(option): option for option in game.admissible}
        self.invalid[row] += command not in admissible
        game.command(admissible.get(command, command))
        self.episodes[row][1].append(command)
        self.steps[row] += 1
        self.best[row] = max(self.best[row], game.score)
        self.observations[row] = printable(game.feedback)
        return game.score - before if self.params.reward == "dense" else float(game.won)

    def observe(self) -> tuple[str, ...]:
        return tuple(self.observations)

    def metrics(self) -> dict[str, np.ndarray]:
        return batch_metrics([episode_metrics(game.won, 100.0 * best, steps, len(game.walkthrough), invalid)
                              for game, best, steps, invalid in zip(self.games, self.best, self.steps, self.invalid)])

    def render_text(self, row: int = 0) -> str:
        return f"[{self.params.game} | step {self.steps[row]} | score {self.games[row].score:.2f}]\n" \
               f"{self.observations[row]}\n"
