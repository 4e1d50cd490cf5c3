"""The heavy-tailed tabular decision problem over the simulator: the observation is (state,
step), the reward the noisy one, and ``info`` carries the regret meter."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.heavytails import picture
from envzoo.heavytails.params import HeavyTailParams, make_params
from envzoo.heavytails.sim import HeavyTailSim


class HeavyTailTask(Task):
    """B episodes of one tabular MDP (``RiverSwimHeavy-v0`` and kin); see its docstring."""

    make_params = staticmethod(make_params)

    def __init__(self, params: HeavyTailParams, batch: int):
        super().__init__(params, batch)
        self.sim = HeavyTailSim(params, batch)
        self.observation_space = spaces.MultiDiscrete([params.states, params.horizon + 1])
        self.action_space = spaces.Discrete(params.actions)
        self.action_hint = f"Actions are 0 .. {params.actions - 1}."

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        return {}

    def step(self, actions) -> Transition:
        outcome = self.sim.step(np.asarray(actions, dtype=np.int64))
        return Transition(reward=outcome["reward"], terminated=outcome["done"],
                          truncated=np.zeros(self.batch, dtype=bool), cost=None,
                          info={"regret": outcome["gap"], "mean_reward": outcome["mean_reward"]})

    def observe(self) -> np.ndarray:
        """(state, step) of every row, int64."""
        return np.column_stack([self.sim.state, self.sim.h])

    def metrics(self) -> dict[str, np.ndarray]:
        sim = self.sim
        return {"episode_return": sim.total.copy(), "episode_regret": sim.regret.copy(),
                "optimal_value": np.full(self.batch, self.params.v_star[0, self.params.start])}

    def render_text(self, row: int = 0) -> str:
        sim = self.sim
        return (f"step {sim.h[row]}/{self.params.horizon} state {sim.state[row]} return {sim.total[row]:.3f} "
                f"regret {sim.regret[row]:.3f}\n")

    def snapshot(self, row: int = 0) -> dict:
        sim = self.sim
        return {"state": int(sim.state[row]), "h": int(sim.h[row]), "total": float(sim.total[row]),
                "regret": float(sim.regret[row])}

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots, self.params)
