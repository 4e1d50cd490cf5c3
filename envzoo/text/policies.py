"""The reference agents every text env has: the expert, which plays the walkthrough that the
reset info gives (an optimal solution), and random admissible commands."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy


class Expert(Policy):
    """Plays ``info["walkthrough"]`` of the reset info, an optimal solution: it succeeds in
    ``info["metrics"]["optimal_steps"]`` steps on every generated game."""

    def reset(self, seed=None):
        self.plan: list[str] = []

    def __call__(self, observation, info):
        if "walkthrough" in info:
            self.plan = list(info["walkthrough"])
        if not self.plan:
            raise RuntimeError("the walkthrough is played out; reset the env (and the policy) for a new episode")
        return self.plan.pop(0)


class RandomAdmissible(Policy):
    """A uniformly random command of ``info["admissible_commands"]`` (seeded at ``reset``): the
    floor a text agent that reads the admissible list is measured against."""

    def reset(self, seed=None):
        self.generator = np.random.default_rng(seed)

    def __call__(self, observation, info):
        commands = info["admissible_commands"]
        return commands[int(self.generator.integers(len(commands)))]
