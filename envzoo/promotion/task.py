"""The promotion decision problem over the simulator, shared by every face: an action is one bonus
level per user; the simulator's state becomes the observation, the reward (retention), the vector
reward (retention, minus spend), the cost (spend) and the metrics."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.promotion import picture
from envzoo.promotion.params import PromotionParams, make_params
from envzoo.promotion.sim import PromotionSim

#: Features per user in the observation: active share of the last period, tenure (periods), last
#: bonus paid, habit of past bonuses.
USER_FEATURES = 4


def observation_space(params: PromotionParams) -> spaces.Box:
    """One cohort's observation: :data:`USER_FEATURES` per user, then the budget or the remaining limit."""
    return spaces.Box(0.0, np.inf, (params.cohort_size * USER_FEATURES + 1,), np.float32)


def action_space(params: PromotionParams) -> spaces.MultiDiscrete:
    """One bonus level per user."""
    return spaces.MultiDiscrete(np.full(params.cohort_size, len(params.bonuses)))


class PromotionTask(Task):
    """B cohorts (``Promotion-v1`` and its vector and multi-objective faces); see its docstring."""

    make_params = staticmethod(make_params)
    #: Bounds of the vector reward (retained share in [0, 1], minus spend <= 0).
    reward_space = spaces.Box(np.array([0.0, -np.inf], np.float32), np.array([1.0, 0.0], np.float32), dtype=np.float32)

    def __init__(self, params: PromotionParams, batch: int):
        super().__init__(params, batch)
        self.sim = PromotionSim(params, batch)
        users = params.cohort_size
        self.observation_space = observation_space(params)
        self.action_space = action_space(params)
        self.action_hint = (f"One bonus level per user (cohort_size = {users}), level i pays bonuses[i] of "
                            f"{params.bonuses}; an allocation above the budget {params.budget} is refused whole.")
        if params.cost_limit is not None:
            self.action_hint += f" The episode's spend should stay within cost_limit = {params.cost_limit}."

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        return {}

    def step(self, actions) -> Transition:
        outcome = self.sim.step(actions)
        retention = outcome["retained"] / self.params.cohort_size
        vector = np.stack([retention, -outcome["spend"]], axis=1)
        none = np.zeros(self.batch, dtype=bool)
        return Transition(reward=retention, objectives=vector, terminated=none, truncated=none,
                          cost=outcome["spend"], info={"refused": outcome["refused"]})

    def observe(self) -> np.ndarray:
        """Per user (active share, tenure, last bonus, habit), flattened, then the period's budget
        or, with a ``cost_limit``, what remains of the episode's limit (0 once it is spent)."""
        sim = self.sim
        users = np.stack([sim.activity, sim.tenure, sim.last_bonus, sim.habit], axis=2).reshape(self.batch, -1)
        return np.concatenate([users, self.allowance()[:, None]], axis=1).astype(np.float32)

    def allowance(self) -> np.ndarray:
        """(B,) the last observation entry: the period's budget, or the remaining episode limit."""
        if self.params.cost_limit is None:
            return np.full(self.batch, self.params.budget)
        return np.maximum(self.params.cost_limit - self.sim.spend, 0.0)

    def metrics(self) -> dict[str, np.ndarray]:
        sim, periods = self.sim, np.maximum(self.sim.period, 1)
        users = self.params.cohort_size
        retained = sim.retained / (periods * users)
        budget = self.params.budget * periods  # a budget of 0 admits no spend: the ratio is then 0
        metrics = {"retention": np.where(sim.period > 0, retained, 1.0),
                   "cohort_survival": sim.original.mean(axis=1),
                   "spend_per_budget": np.divide(sim.spend, budget, out=np.zeros(self.batch), where=budget > 0),
                   "cost_per_retained": np.divide(sim.spend, sim.retained, out=np.zeros(self.batch),
                                                  where=sim.retained > 0),
                   "refused_periods": sim.refused.copy()}
        if self.params.cost_limit is not None:
            limit = self.params.cost_limit
            metrics["spend_per_limit"] = np.divide(sim.spend, limit, out=np.zeros(self.batch), where=limit > 0)
            metrics["limit_exceeded"] = (sim.spend > limit + 1e-9).astype(np.float64)
        return metrics

    def snapshot(self, row: int = 0) -> dict:
        return picture.snapshot(self, row)

    def draw(self, canvas, snapshots: list[dict]) -> None:
        picture.draw(canvas, snapshots)

    def render_text(self, row: int = 0) -> str:
        sim = self.sim
        return (f"period {sim.period[row]} survival={sim.original[row].mean():.2f} "
                f"retained={sim.retained[row]:.0f} churned={sim.churned[row]:.0f} spend={sim.spend[row]:.1f}\n")
