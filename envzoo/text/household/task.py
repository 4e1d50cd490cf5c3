"""Household-v0's decision problem: B games, one per row, each a house generated from the row's
key; commands in, answers out, rewards from the goal's subgoals, the metrics of text agents."""

from __future__ import annotations

import numpy as np

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.text.household.generator import generate
from envzoo.text.household.params import HouseholdParams, make_params
from envzoo.text.household.planner import solve
from envzoo.text.household.sim import Game, describe_room
from envzoo.text.metrics import batch_metrics, episode_metrics, object_array
from envzoo.text.picture import TextPicture
from envzoo.text.spaces import command_space, normalize_command, text_space

#: Longest observation (characters); the largest house's longest answer is far shorter.
MAX_OBSERVATION_LENGTH = 4096


class HouseholdTask(TextPicture, Task):
    """B household games; see ``Household-v0``'s docstring."""

    picture_title = "Household"

    def __init__(self, params: HouseholdParams, batch: int):
        super().__init__(params, batch)
        self.observation_space = text_space(MAX_OBSERVATION_LENGTH)
        self.action_space = command_space()
        self.action_hint = ("Send one command as a string, e.g. 'go to fridge 1'; info['admissible_commands'] "
                            "lists those that do something.")
        self.games: list[Game | None] = [None] * batch
        self.walkthroughs: list[list[str]] = [[] for _ in range(batch)]
        self.observations = [""] * batch

    make_params = staticmethod(make_params)

    def reset(self, rows, generators, options) -> dict:
        p = self.params
        for row, key in zip(rows, keys_from(generators)):
            house, start = generate(np.random.default_rng(int(key)), p.task_types, p.num_rooms,
                                    p.receptacles_per_room, p.num_objects)
            game = Game(house, start)
            self.games[row] = game
            self.walkthroughs[row] = solve(house, start)
            self.observations[row] = f"{describe_room(house, start)}\n\nYour task is to: {house.goal.text}"
        return {"admissible_commands": object_array([list(self.games[row].commands) for row in rows]),
                "goal": object_array([self.games[row].house.goal.text for row in rows]),
                "task_type": object_array([self.games[row].house.goal.task_type for row in rows]),
                "walkthrough": object_array([list(self.walkthroughs[row]) for row in rows])}

    def _play(self, row: int, command: str) -> float:
        """Play one command in ``row``'s game; its reward."""
        game = self.games[row]
        before = game.best_stage
        self.observations[row] = game.command(normalize_command(command))
        if self.params.reward == "dense":
            return (game.best_stage - before) / game.subgoals
        return float(game.won)

    def step(self, actions) -> Transition:
        reward = np.array([self._play(row, action) for row, action in enumerate(actions)])
        won = np.array([game.won for game in self.games])
        info = {"admissible_commands": object_array([list(game.commands) for game in self.games]), "won": won.copy()}
        return Transition(reward=reward, terminated=won, truncated=np.zeros(self.batch, dtype=bool), cost=None,
                          info=info)

    def step_single(self, action, vector_reward: bool = False) -> tuple:
        # The same numbers as the batch's row 0, without the arrays: a text step is cheap.
        reward = self._play(0, action)
        game = self.games[0]
        info = {"metrics": self._metrics(0), "admissible_commands": list(game.commands), "won": game.won}
        return self.observations[0], reward, game.won, False, info

    def _metrics(self, row: int) -> dict[str, float]:
        game = self.games[row]
        return episode_metrics(game.won, 100.0 * game.best_stage / game.subgoals, game.steps,
                               len(self.walkthroughs[row]), game.invalid)

    def observe(self) -> tuple[str, ...]:
        return tuple(self.observations)

    def metrics(self) -> dict[str, np.ndarray]:
        return batch_metrics([self._metrics(row) for row in range(self.batch)])

    def render_text(self, row: int = 0) -> str:
        game = self.games[row]
        return (f"[{game.house.goal.text} | step {game.steps}, subgoals {game.best_stage}/{game.subgoals}]\n"
                f"{self.observations[row]}\n")
