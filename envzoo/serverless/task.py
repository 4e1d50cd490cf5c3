"""The decision problem over the simulator, shared by every serverless face: actions set the
concurrency limits, the (B, F) statistics that :meth:`ServerlessSim.advance` returns become the
observations, the reward components (throughput, latency, cost), the costs and the metrics.

:class:`ServerlessTask` is one service per row (``Serverless-v1`` and its vector and
multi-objective faces); :class:`ClusterTask` one row per function of a shared cluster
(``ServerlessCluster-v1``). Neither forks the simulator.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import AgentsTask, Task, Transition
from envzoo.core.rng import keys_from
from envzoo.serverless.params import ClusterParams, ServerlessParams, make_cluster_params, make_params
from envzoo.serverless.sim import ServerlessSim

#: Observation features of one function, in order (see the env docstrings for units).
FEATURES = (
    "arrival_rate", "throughput", "rejection_rate", "latency", "queue", "in_service",
    "ready_pods", "starting_pods", "desired_pods", "panic", "mean_pods", "load_per_pod",
    "elapsed_h",
)
CLUSTER_FEATURES = ("cluster_free_fraction", "cluster_share", "unscheduled_pods")
#: Bounds of the vector reward: throughput >= 0, −latency <= 0, −mean pods <= 0.
REWARD_SPACE = spaces.Box(np.array([0.0, -np.inf, -np.inf], dtype=np.float32),
                          np.array([np.inf, 0.0, 0.0], dtype=np.float32), dtype=np.float32)


def observation_space(params: ServerlessParams, extra: int = 0) -> spaces.Box:
    size = len(FEATURES) + params.n_levels + extra
    return spaces.Box(0.0, np.inf, shape=(size,), dtype=np.float32)


class _ServiceTask:
    """What both tasks share: the simulator of ``n_functions`` functions per instance, the levels
    in force, and the statistics of the last interval."""

    def _set_up(self, params: ServerlessParams, instances: int, n_functions: int) -> None:
        self.sim = ServerlessSim(params.sim, params.workload, instances, n_functions)
        self.level_index = np.full((instances, n_functions), params.initial_level)
        self.level_values = np.asarray(params.levels)
        self.stats = {name: np.array(value, dtype=np.float64) for name, value in reset_stats(self.sim).items()}

    def _start(self, rows: np.ndarray, keys: np.ndarray, params: ServerlessParams) -> None:
        self.sim.reset(rows, keys)
        self.level_index[rows] = params.initial_level
        for name, value in reset_stats(self.sim).items():
            self.stats[name][rows] = value[rows]

    def _advance(self, level_index: np.ndarray) -> dict:
        self.level_index[:] = level_index
        self.stats = self.sim.advance(self.level_values[self.level_index])
        return self.stats


class ServerlessTask(_ServiceTask, Task):
    """B instances of one Knative service (``Serverless-v1``); see its docstring."""

    reward_space = REWARD_SPACE

    def __init__(self, params: ServerlessParams, batch: int):
        super().__init__(params, batch)
        self._set_up(params, batch, 1)
        self.observation_space = observation_space(params)
        self.action_space = spaces.Discrete(params.n_levels)
        self.action_hint = params.action_hint()

    make_params = staticmethod(make_params)

    def reset(self, rows, generators, options) -> dict:
        self._start(rows, keys_from(generators), self.params)
        return {}

    def step(self, actions) -> Transition:
        stats = self._advance(actions[:, None])
        vector = objectives(self.params, stats)[:, 0]
        none = np.zeros(self.batch, dtype=bool)
        return Transition(reward=scalar_reward(self.params, vector), objectives=vector, terminated=none,
                          truncated=none, cost=stats["pod_seconds"][:, 0].copy())

    def observe(self) -> np.ndarray:
        return observe(self.params, self.sim, self.stats, self.level_index)[:, 0]

    def metrics(self) -> dict[str, np.ndarray]:
        return {name: value[:, 0] for name, value in self.sim.episode_metrics().items()}

    def render_text(self, row: int = 0) -> str:
        s, level = self.stats, self.params.levels[int(self.level_index[row, 0])]
        latency = interval_latency(s)[row, 0]
        return (f"t={self.sim.time[row]:7.0f}s limit={level or 'unlimited':>9} "
                f"pods={int(s['ready'][row, 0])}+{int(s['starting'][row, 0])} "
                f"queue={int(s['queue'][row, 0])} serving={int(s['in_service'][row, 0])} "
                f"latency={latency:.3f}s\n")


class ClusterTask(_ServiceTask, AgentsTask):
    """The functions of one cluster of finite capacity, one agent each (``ServerlessCluster-v1``)."""

    def __init__(self, params: ClusterParams):
        self.agents = tuple(f"fn_{i}" for i in range(params.n_functions))
        super().__init__(params, params.n_functions)
        self.service = service = params.serverless
        self._set_up(service, 1, params.n_functions)
        self.observation_space = observation_space(service, extra=len(CLUSTER_FEATURES))
        self.action_space = spaces.Discrete(service.n_levels)
        self.action_hint = service.action_hint()

    make_params = staticmethod(make_cluster_params)

    def start(self, generator, options) -> dict:
        self._start(np.array([0]), keys_from([generator]), self.service)
        return {}

    def step(self, actions) -> Transition:
        stats = self._advance(actions[None, :])
        rewards = scalar_reward(self.service, objectives(self.service, stats))[0]
        none = np.zeros(self.batch, dtype=bool)
        own = {name: value[0] for name, value in self.sim.episode_metrics().items()}
        return Transition(reward=rewards, terminated=none, truncated=none, cost=stats["pod_seconds"][0].copy(),
                          info={"function_metrics": own})

    def observe(self) -> np.ndarray:
        stats = self.stats
        own = observe(self.service, self.sim, stats, self.level_index)[0]  # (F, obs)
        pods = stats["ready"][0] + stats["starting"][0]
        capacity = float(self.service.sim.cluster_pods)
        denied = stats.get("denied_pod_seconds", np.zeros(self.sim.shape))[0] / self.service.sim.decision_interval_s
        cluster = np.stack([np.full(pods.shape, max(capacity - pods.sum(), 0) / capacity),
                            pods / capacity, denied], axis=-1).astype(np.float32)
        return np.concatenate([own, cluster], axis=-1)

    def metrics(self) -> dict[str, np.ndarray]:
        """The cluster's KPIs (all functions together), the same for every agent."""
        combined = self.sim.episode_metrics(combine_functions=True)
        return {name: np.repeat(value[0], self.batch) for name, value in combined.items()}

    def render_text(self, row=None) -> str:
        s = self.stats
        lines = [f"t={self.sim.time[0]:7.0f}s cluster {int((s['ready'] + s['starting']).sum())}/"
                 f"{self.service.sim.cluster_pods} pods"]
        for i, agent in enumerate(self.agents):
            level = self.service.levels[int(self.level_index[0, i])]
            lines.append(f"  {agent}: limit={level or 'unlimited':>9} pods={int(s['ready'][0, i])}+"
                         f"{int(s['starting'][0, i])} queue={int(s['queue'][0, i])} serving={int(s['in_service'][0, i])}")
        return "\n".join(lines) + "\n"


def reset_stats(sim: ServerlessSim) -> dict[str, np.ndarray]:
    """Statistics describing instances right after a reset (nothing has happened yet)."""
    zeros = np.zeros(sim.shape)
    stats = {name: zeros for name in ("arrived", "admitted", "rejected", "completed",
                                       "request_seconds", "pod_seconds", "panic")}
    stats.update(queue=sim.queue, in_service=sim.in_service, ready=sim.ready,
                 starting=sim.n_starting, desired=sim.desired)
    return stats


def observe(params: ServerlessParams, sim: ServerlessSim, stats: dict, level_index: np.ndarray) -> np.ndarray:
    """Observations (B, F, features + levels), float32, all finite and >= 0."""
    interval = params.sim.decision_interval_s
    columns = [
        stats["arrived"] / interval,
        stats["completed"] / interval,
        stats["rejected"] / interval,
        interval_latency(stats),
        stats["queue"],
        stats["in_service"],
        stats["ready"],
        stats["starting"],
        stats["desired"],
        stats["panic"],
        stats["pod_seconds"] / interval,
        stats["in_service"] / np.maximum(stats["ready"], 1),
        np.broadcast_to(sim.time[:, None] / 3600.0, sim.shape),
    ]
    features = np.stack([np.broadcast_to(c, sim.shape) for c in columns], axis=-1)
    one_hot = np.eye(params.n_levels)[level_index]
    return np.concatenate([features, one_hot], axis=-1).astype(np.float32)


def objectives(params: ServerlessParams, stats: dict) -> np.ndarray:
    """Vector reward (B, F, 3): throughput (req/s), −latency (s), −mean pods.

    Latency is Little's-law mean time in system over the interval: request-seconds spent in the
    system divided by the requests admitted.
    """
    interval = params.sim.decision_interval_s
    throughput = stats["completed"] / interval
    pods = stats["pod_seconds"] / interval
    return np.stack([throughput, -interval_latency(stats), -pods], axis=-1)


def interval_latency(stats: dict) -> np.ndarray:
    """Little's-law mean time in system of an interval: request-seconds / admitted requests."""
    return stats["request_seconds"] / np.maximum(stats["admitted"], 1)


def scalar_reward(params: ServerlessParams, vector: np.ndarray) -> np.ndarray:
    """The scalar reward: ``weights · objectives``.

    Written out term by term so that a batch and a single instance round identically (a matrix
    product may sum in a different order).
    """
    w = params.weights
    return vector[..., 0] * w[0] + vector[..., 1] * w[1] + vector[..., 2] * w[2]
