"""The crafter decision problem over the simulator, shared by every face: an action is an order
quantity; the simulator's state becomes the observation, the reward components (revenue,
holding cost, lost sales), the cost and the metrics."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.core.draw import BLUE, GREEN, RED
from envzoo.core.rng import keys_from
from envzoo.crafter.params import CrafterParams, make_params
from envzoo.crafter.sim import CrafterSim


class CrafterTask(Task):
    """B stocks (``Crafter-v0`` and its vector and multi-objective faces); see its docstring."""

    make_params = staticmethod(make_params)
    #: Bounds of the vector reward (revenue >= 0, −holding cost <= 0, −lost-sale cost <= 0).
    reward_space = spaces.Box(np.array([0.0, -np.inf, -np.inf], np.float32), np.array([np.inf, 0.0, 0.0], np.float32),
                              dtype=np.float32)

    def __init__(self, params: CrafterParams, batch: int):
        super().__init__(params, batch)
        self.sim = CrafterSim(params, batch)
        self.observation_space = spaces.Box(0.0, np.inf, (2,), np.float32)
        self.action_space = spaces.Discrete(params.max_order + 1)
        self.action_hint = f"Action i orders i units, 0 <= i <= max_order = {params.max_order}."

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        return {}

    def step(self, actions) -> Transition:
        p = self.params
        outcome = self.sim.step(actions)
        vector = np.stack([p.price * outcome["sold"], -p.holding_cost * outcome["held"],
                           -p.lost_sale_cost * outcome["lost"]], axis=1)
        # The scalar reward is the profit: the sum of the components, written out term by term so
        # that a batch and a single row round alike.
        reward = vector[:, 0] + vector[:, 1] + vector[:, 2]
        none = np.zeros(self.batch, dtype=bool)
        return Transition(reward=reward, objectives=vector, terminated=none, truncated=none,
                          cost=outcome["refused"], info={"demand_lost": outcome["lost"]})

    def observe(self) -> np.ndarray:
        """(stock on hand, periods elapsed), float32."""
        return np.stack([self.sim.stock, self.sim.period], axis=1).astype(np.float32)

    def metrics(self) -> dict[str, np.ndarray]:
        sim, periods = self.sim, np.maximum(self.sim.period, 1)
        demand = sim.sold + sim.lost
        return {"fill_rate": np.divide(sim.sold, demand, out=np.ones(self.batch), where=demand > 0),
                "mean_stock": sim.held / periods, "lost_sales": sim.lost.copy(), "refused_orders": sim.refused.copy()}

    def render_text(self, row: int = 0) -> str:
        sim = self.sim
        return (f"period {sim.period[row]} stock={sim.stock[row]} sold={sim.sold[row]:.0f} "
                f"lost={sim.lost[row]:.0f}\n")

    # The rgb_array picture (see the docs' "Add a domain", "The picture"): the stock now, and the
    # stock, units sold and lost through the episode.
    def snapshot(self, row: int = 0) -> dict:
        sim = self.sim
        return {"period": int(sim.period[row]), "stock": float(sim.stock[row]), "sold": float(sim.sold[row]),
                "lost": float(sim.lost[row])}

    def draw(self, canvas, snapshots) -> None:
        now, capacity = snapshots[-1], self.params.capacity
        canvas.text(8, 6, f"PERIOD {now['period']}  STOCK {now['stock']:.0f}/{capacity}")
        box = (8, 40, 120, 392)
        canvas.panel(box, "STOCK")
        canvas.bars(box, [now["stock"]], BLUE, 0.0, capacity)
        box = (140, 40, 592, 392)
        canvas.panel(box, "STOCK, SOLD, LOST")
        history = {key: np.array([s[key] for s in snapshots]) for key in ("stock", "sold", "lost")}
        top = max(capacity, history["sold"].max(), history["lost"].max(), 1.0)
        for key, color in (("stock", BLUE), ("sold", GREEN), ("lost", RED)):
            canvas.series(box, history[key], color, 0.0, top)
