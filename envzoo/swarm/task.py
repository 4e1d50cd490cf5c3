"""The decision problems over the swarm simulator: what a robot observes (its own state and its
graphon mean field, exact or κ-subsampled), the reward components (task, energy, collisions),
the metrics and the picture.

:class:`RepresentativeTask` is one population per row whose robot 0 is the learner, the others
playing the population's controller (``Swarm-v0``, its vector and multi-objective faces: mean-
field learning as a best response to the population); :class:`PopulationTask` gives every robot
of one population to its own agent (``SwarmParallel-v0``, a shared policy expected).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import AgentsTask, Task, Transition
from envzoo.core.errors import InvalidActionError
from envzoo.core.rng import keys_from
from envzoo.core.spaces import check_batch
from envzoo.swarm import picture
from envzoo.swarm.controls import reference_control
from envzoo.swarm.params import SwarmParams, make_params
from envzoo.swarm.sim import DIRECTIONS, FOOTPRINT, SQ_DIST, SQ_VEL, SwarmSim, coverage

#: The lowest task reward per scenario (in units of the normalised terms: |Δp|² <= 8 arena²,
#: |Δv|² <= 8 max_speed², footprints <= 1, the degree <= 1).
LOWEST_TASK = {"rendezvous": 8.0, "flocking": 16.0, "coverage": 1.0}


def reward_space(params: SwarmParams) -> spaces.Box:
    """One robot's vector reward: every objective is a cost taken with a minus sign, at most 0."""
    low = np.array([-LOWEST_TASK[params.scenario], -2.0, -(params.n_agents - 1)], dtype=np.float32)
    return spaces.Box(low, np.zeros(3, dtype=np.float32), dtype=np.float32)


def observation_space(params: SwarmParams) -> spaces.Box:
    """Own state then mean field (:data:`~envzoo.swarm.controls.OWN`,
    :data:`~envzoo.swarm.sim.FEATURES`), each entry within its bound: the mean field's
    (1/N) Σ_j W_ij f_ij (and its estimate d_i / κ Σ f) lies within the pair feature's range, as
    0 <= W <= 1 and the sum has N − 1 terms."""
    a, v, sigma = params.arena, params.max_speed, params.sensing_radius
    high = np.array([1.0, a, a, v, v,  # own type, position, velocity
                     1.0, 2 * a, 2 * a, 2 * v, 2 * v, sigma, sigma, 1.0, 8 * a * a, 8 * v * v], dtype=np.float32)
    low = -high
    low[[0, 5, 12, 13, 14]] = 0.0
    return spaces.Box(low, high, dtype=np.float32)
COVERAGE_CELLS = 20


class _SwarmTask:
    """What both tasks share: the spaces, the controls of actions, the observations and reward
    components of the first ``observed`` robots of every row."""

    metrics_at_episode_end = True

    def _set_up(self, params: SwarmParams, rows: int, observed: int) -> None:
        self.sim = SwarmSim(params, rows)
        self.observed = observed
        self.observation_space = observation_space(params)
        self.reward_space = reward_space(params)
        if params.actions == "discrete":
            self.action_space = spaces.Discrete(len(DIRECTIONS))
            self.action_hint = "an action is a direction index: 0 stay, 1..8 E, NE, N, NW, W, SW, S, SE"
        else:
            self.action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
            self.action_hint = ("an action is the control (ux, uy) in [-1, 1]^2, times max_speed (single "
                                "integrator) or max_accel (double)")
        self._observation = np.zeros((rows, observed, self.observation_space.shape[0]), dtype=np.float32)

    def _controls(self, actions) -> np.ndarray:
        """(..., 2) controls of checked actions."""
        if self.sim.params.actions == "discrete":
            return DIRECTIONS[np.asarray(actions, dtype=np.int64)]
        return np.asarray(actions, dtype=np.float64)

    def _own(self, rows=slice(None), agents=slice(None)) -> np.ndarray:
        sim = self.sim
        return np.concatenate([sim.types[rows, agents, None], sim.position[rows, agents], sim.velocity[rows, agents]], -1)

    def _update_observation(self, rows: np.ndarray) -> None:
        """The observations of ``rows``' observed robots: own state and mean field."""
        params, agents = self.sim.params, slice(0, self.observed)
        if params.observation == "subsample":
            field = self.sim.subsample(params.kappa, self.observed, rows)
        else:
            field = self.sim.mean_field[rows, agents]
        self._observation[rows] = np.concatenate([self._own(rows, agents), field], -1)

    def _objectives(self) -> np.ndarray:
        """(B, observed, 3) reward components of the last step (exact, whatever is observed)."""
        sim, params = self.sim, self.sim.params
        field = sim.mean_field[:, :self.observed]
        if params.scenario == "rendezvous":
            task = -field[..., SQ_DIST] / params.arena ** 2
        elif params.scenario == "flocking":
            task = -field[..., SQ_VEL] / params.max_speed ** 2 - field[..., SQ_DIST] / params.arena ** 2
        else:
            task = -field[..., FOOTPRINT]
        return np.stack([task, -sim.effort[:, :self.observed], -sim.collisions[:, :self.observed]], -1)

    def _scalar(self, objectives: np.ndarray) -> np.ndarray:
        """``reward_weights · objectives``, term by term (a matrix product's order of additions
        would depend on the batch)."""
        w = self.sim.params.reward_weights
        return objectives[..., 0] * w[0] + objectives[..., 1] * w[1] + objectives[..., 2] * w[2]

    def _metrics(self) -> dict[str, np.ndarray]:
        sim, params = self.sim, self.sim.params
        return {"disagreement": sim.mean_field[..., SQ_DIST].mean(-1),
                "velocity_disagreement": sim.mean_field[..., SQ_VEL].mean(-1),
                "coverage": coverage(sim.position, params.arena, params.sensing_radius, COVERAGE_CELLS),
                "collisions": sim.collision_total.copy(), "energy": sim.effort_total.copy(),
                "mean_speed": np.sqrt(sim.velocity[..., 0] ** 2 + sim.velocity[..., 1] ** 2).mean(-1)}

    def _render_text(self, row: int) -> str:
        metrics = {name: values[row] for name, values in self._metrics().items()}
        params = self.sim.params
        return (f"step {self.sim.steps[row]} {params.scenario} N={params.n_agents} "
                f"disagreement={metrics['disagreement']:.4f} coverage={metrics['coverage']:.2f} "
                f"collisions={metrics['collisions']:.0f} mean_speed={metrics['mean_speed']:.3f}\n")

    def _snapshot(self, row: int, learner: bool) -> dict:
        sim = self.sim
        return picture.snapshot(sim.params, sim.steps[row], sim.types[row], sim.position[row], sim.velocity[row],
                                sim.mean_field[row], learner)

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots)


class RepresentativeTask(_SwarmTask, Task):
    """B populations; robot 0 of each is the learner (``Swarm-v0``); see its docstring."""

    def __init__(self, params: SwarmParams, batch: int):
        super().__init__(params, batch)
        self._set_up(params, batch, observed=1)

    make_params = staticmethod(make_params)

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        self._update_observation(rows)
        return {}

    def step(self, actions) -> Transition:
        sim, params = self.sim, self.sim.params
        if params.population == "reference":
            controls = reference_control(self._own(), sim.mean_field, params)
        else:
            controls = np.zeros(sim.position.shape)
        controls[:, 0] = self._controls(actions)
        sim.step(controls)
        self._update_observation(np.arange(self.batch))
        objectives = self._objectives()[:, 0]
        none = np.zeros(self.batch, dtype=bool)
        return Transition(reward=self._scalar(objectives), objectives=objectives, terminated=none, truncated=none,
                          cost={"collisions": -objectives[:, 2], "energy": -objectives[:, 1]})

    def observe(self) -> np.ndarray:
        return self._observation[:, 0].copy()

    def metrics(self) -> dict[str, np.ndarray]:
        return self._metrics()

    def render_text(self, row: int = 0) -> str:
        return self._render_text(row)

    def snapshot(self, row: int = 0) -> dict:
        return self._snapshot(row, learner=True)


class PopulationTask(_SwarmTask, AgentsTask):
    """One population, every robot an agent (``SwarmParallel-v0``); see its docstring."""

    def __init__(self, params: SwarmParams):
        self.agents = tuple(f"robot_{i}" for i in range(params.n_agents))
        super().__init__(params, params.n_agents)
        self._set_up(params, 1, observed=params.n_agents)

    make_params = staticmethod(make_params)

    def check_agent_actions(self, actions: list) -> np.ndarray:
        """Every agent's action checked at once (one space for all); where one is bad, agent by
        agent, so that the error names the agent."""
        try:
            return check_batch(self.action_space, actions, self.batch, self.action_hint)
        except (InvalidActionError, ValueError, TypeError):
            return super().check_agent_actions(actions)

    def start(self, generator, options) -> dict:
        self.sim.reset(np.array([0]), keys_from([generator]))
        self._update_observation(np.array([0]))
        return {}

    def step(self, actions) -> Transition:
        self.sim.step(self._controls(actions)[None])
        self._update_observation(np.array([0]))
        objectives = self._objectives()[0]
        none = np.zeros(self.batch, dtype=bool)
        return Transition(reward=self._scalar(objectives), objectives=objectives, terminated=none, truncated=none,
                          cost={"collisions": -objectives[:, 2], "energy": -objectives[:, 1]})

    def observe(self) -> np.ndarray:
        return self._observation[0].copy()

    def metrics(self) -> dict[str, np.ndarray]:
        """The population's KPIs, the same for every agent."""
        return {name: np.full(self.batch, value[0]) for name, value in self._metrics().items()}

    def render_text(self, row=None) -> str:
        return self._render_text(0)

    def snapshot(self, row=None) -> dict:
        return self._snapshot(0, learner=False)
