"""PPO-Lagrangian on Stable-Baselines3's PPO: ``envzoo train ID --algo ppo-lagrangian``.

A constrained id (one with ``costs``) asks for the most return while the episode's cost, the sum
of ``info["cost"]``, stays within a limit ``d``. PPO-Lagrangian (Ray, Achiam & Amodei,
*Benchmarking Safe Exploration in Deep Reinforcement Learning*, 2019; OmniSafe's ``PPOLag``)
solves the Lagrangian relaxation by descent-ascent: PPO learns from the penalized reward

    (r - lambda * c / (d / T)) / (1 + lambda)

(the cost at the limit's pace, ``d / T`` a step over a horizon of ``T`` steps, counts as 1; the
division by ``1 + lambda`` keeps the reward's size as the multiplier grows, as OmniSafe does), and
after every rollout the multiplier ``lambda`` takes a projected gradient step on the constraint's
relative violation,

    lambda <- max(0, lambda + multiplier_lr * (J_c / d - 1)),

``J_c`` the mean cost of the episodes that ended in the rollout (a rollout in which none ended
leaves it as it is). The hyperparameter block names the limit and the step::

    envzoo/PromotionBudget-v0:
      lagrangian: {cost_limit: 480, multiplier_lr: 0.1}   # multiplier_init: 0 by default

Needs the ``train`` extra; ``import envzoo`` never imports this module.
"""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym

from envzoo.core.extras import require
from envzoo.train.runs import TrainingError

BaseCallback = require("train", "stable_baselines3.common.callbacks").BaseCallback

#: The multiplier's file in a checkpoint folder.
MULTIPLIER = "lagrange_multiplier.json"
_KEYS = {"cost_limit", "multiplier_lr", "multiplier_init"}


class Multiplier:
    """The Lagrange multiplier and the costs of the episodes that ended since its last step."""

    def __init__(self, cost_limit: float, learning_rate: float, value: float = 0.0):
        self.cost_limit, self.learning_rate, self.value = cost_limit, learning_rate, value
        self.episode_costs: list[float] = []

    def step(self) -> None:
        """One projected gradient step on the relative violation of the episodes that ended."""
        if self.episode_costs:
            mean_cost = sum(self.episode_costs) / len(self.episode_costs)
            self.value = max(0.0, self.value + self.learning_rate * (mean_cost / self.cost_limit - 1.0))
            self.episode_costs = []

    def save(self, folder: Path) -> None:
        (Path(folder) / MULTIPLIER).write_text(json.dumps({"value": self.value}))

    @classmethod
    def from_config(cls, settings: dict, entry, checkpoint: Path | None) -> Multiplier:
        """The multiplier of a hyperparameter block's ``lagrangian`` settings, or the one saved in
        ``checkpoint``; a ``TrainingError`` names what is missing or wrong."""
        if entry.is_multi_agent or len(entry.costs) != 1:
            what = "multi-agent" if entry.is_multi_agent else f"costed {list(entry.costs)}"
            raise TrainingError(f"ppo-lagrangian trains single-agent ids with one cost signal (info['cost']); "
                                f"{entry.id} is {what}. Pick --algo ppo")
        unknown = set(settings) - _KEYS
        if "cost_limit" not in settings or unknown:
            raise TrainingError(f"ppo-lagrangian needs a block 'lagrangian: {{cost_limit: D, multiplier_lr: ...}}' "
                                f"for {entry.id} (keys {sorted(_KEYS)}; got {sorted(settings)})")
        if not settings["cost_limit"] > 0:
            raise TrainingError(f"lagrangian.cost_limit must be positive, got {settings['cost_limit']!r}")
        multiplier = cls(float(settings["cost_limit"]), float(settings.get("multiplier_lr", 0.1)),
                         float(settings.get("multiplier_init", 0.0)))
        if checkpoint is not None:
            multiplier.value = json.loads((Path(checkpoint) / MULTIPLIER).read_text())["value"]
        return multiplier


class LagrangianPenalty(gym.Wrapper):
    """Trains on ``(r - lambda * c / (d / T)) / (1 + lambda)`` and reports each finished episode's
    cost to the shared :class:`Multiplier`; ``horizon`` is ``T``."""

    def __init__(self, env, multiplier: Multiplier, horizon: int):
        super().__init__(env)
        self.multiplier, self.pace = multiplier, multiplier.cost_limit / horizon
        self._episode_cost = 0.0

    def reset(self, **kwargs):
        self._episode_cost = 0.0
        return self.env.reset(**kwargs)

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        cost = float(info["cost"])
        self._episode_cost += cost
        if terminated or truncated:
            self.multiplier.episode_costs.append(self._episode_cost)
        penalty = self.multiplier.value
        return observation, (reward - penalty * cost / self.pace) / (1.0 + penalty), terminated, truncated, info


class MultiplierUpdate(BaseCallback):
    """Steps the multiplier after every PPO rollout."""

    def __init__(self, multiplier: Multiplier):
        super().__init__()
        self.multiplier = multiplier

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.multiplier.step()
        self.logger.record("train/lagrange_multiplier", self.multiplier.value)
