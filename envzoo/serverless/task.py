"""The decision problem over the simulator, shared by every serverless face: actions set the
concurrency limits, the (B, F) statistics that :meth:`ServerlessSim.advance` returns become the
observations, the reward components (throughput, latency, cost) and the costs, and the episode's
running sums that the simulator keeps (``totals``, the latency histogram) become the metrics
(:func:`metrics_array`).

:class:`ServerlessTask` is one service per row (``Serverless-v1`` and its vector and
multi-objective faces); :class:`ClusterTask` one row per function of a shared cluster
(``ServerlessCluster-v1``). Neither forks the simulator.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.compiled import kernel, numpy_sum
from envzoo.core.contract import AgentsTask, Task, Transition
from envzoo.core.rng import keys_from
from envzoo.serverless import picture
from envzoo.serverless.histogram import quantile_of
from envzoo.serverless.params import ClusterParams, ServerlessParams, make_cluster_params, make_params
from envzoo.serverless.sim import ServerlessSim
from envzoo.serverless.state import STAT, STATS, TOTAL

#: Observation features of one function, in order (see the env docstrings for units).
FEATURES = (
    "arrival_rate", "throughput", "rejection_rate", "latency", "queue", "in_service",
    "ready_pods", "starting_pods", "desired_pods", "panic", "mean_pods", "load_per_pod",
    "elapsed_h",
)
CLUSTER_FEATURES = ("cluster_free_fraction", "cluster_share", "unscheduled_pods")
#: KPIs of an episode so far (:func:`metrics_array`), in order; ``denied_pod_seconds`` only where
#: the cluster is finite (:func:`metric_names`).
METRICS = ("mean_latency_s", "mean_wait_s", "waited_fraction", "p95_latency_s", "p99_latency_s",
           "throughput_rps", "rejected", "rejected_fraction", "cold_starts", "pod_seconds", "mean_pods",
           "denied_pod_seconds")
#: Bounds of the vector reward: throughput >= 0, −latency <= 0, −mean pods <= 0.
REWARD_SPACE = spaces.Box(np.array([0.0, -np.inf, -np.inf], dtype=np.float32),
                          np.array([np.inf, 0.0, 0.0], dtype=np.float32), dtype=np.float32)


def observation_space(params: ServerlessParams, extra: int = 0) -> spaces.Box:
    size = len(FEATURES) + params.n_levels + extra
    return spaces.Box(0.0, np.inf, shape=(size,), dtype=np.float32)


class _ServiceTask:
    """What both tasks share: the simulator of ``n_functions`` functions per instance, the levels
    in force, and the statistics of the last interval (``stats``, (B, F, len(STATS)))."""

    def _set_up(self, params: ServerlessParams, instances: int, n_functions: int) -> None:
        self.sim = ServerlessSim(params.sim, params.workload, instances, n_functions)
        self.level_index = np.full((instances, n_functions), params.initial_level)
        self.level_values = np.asarray(params.levels, dtype=np.int64)
        self.stats = reset_stats(self.sim)
        self.metric_names = metric_names(params)

    def _start(self, rows: np.ndarray, keys: np.ndarray, params: ServerlessParams) -> None:
        self.sim.reset(rows, keys)
        self.level_index[rows] = params.initial_level
        self.stats[rows] = reset_stats(self.sim)[rows]

    def _advance(self, level_index: np.ndarray) -> np.ndarray:
        self.level_index[:] = level_index
        self.stats = self.sim.advance(self.level_values[self.level_index])
        return self.stats

    def _observe(self, params: ServerlessParams) -> np.ndarray:
        """Observations (B, F, features + levels), float32, all finite and >= 0."""
        out = np.zeros(self.stats.shape[:2] + (len(FEATURES) + params.n_levels,), dtype=np.float32)
        _observe(self.stats, self.sim.time, self.level_index, params.sim.decision_interval_s, out)
        return out


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
        vector, reward = rewards(self.params, stats)
        none = np.zeros(self.batch, dtype=bool)
        return Transition(reward=reward[:, 0], objectives=vector[:, 0], terminated=none, truncated=none,
                          cost=stats[:, 0, STAT.pod_seconds].copy())

    def step_single(self, action, vector_reward: bool = False) -> tuple:
        stats = self._advance(np.array([[action]]))
        vector, reward = rewards(self.params, stats)
        metrics = metrics_array(self.sim)[0, 0].tolist()
        info = {"metrics": dict(zip(self.metric_names, metrics)), "cost": float(stats[0, 0, STAT.pod_seconds])}
        reward = vector[0, 0].astype(np.float32) if vector_reward else float(reward[0, 0])
        return self.observe()[0], reward, False, False, info

    def observe(self) -> np.ndarray:
        return self._observe(self.params)[:, 0]

    def metrics(self) -> dict[str, np.ndarray]:
        return dict(zip(self.metric_names, metrics_array(self.sim)[:, 0].T))

    def render_text(self, row: int = 0) -> str:
        s, level = self.stats[row, 0], self.params.levels[int(self.level_index[row, 0])]
        latency = s[STAT.request_seconds] / max(s[STAT.admitted], 1.0)
        return (f"t={self.sim.time[row]:7.0f}s limit={level or 'unlimited':>9} "
                f"pods={int(s[STAT.ready])}+{int(s[STAT.starting])} "
                f"queue={int(s[STAT.queue])} serving={int(s[STAT.in_service])} "
                f"latency={latency:.3f}s\n")

    def snapshot(self, row: int = 0) -> dict:
        return picture.snapshot(self.sim.time[row], self.stats[row], self.level_values[self.level_index[row]], None)

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots)


class ClusterTask(_ServiceTask, AgentsTask):
    """The functions of one cluster of finite capacity, one agent each (``ServerlessCluster-v1``)."""

    reward_space = REWARD_SPACE  # one agent's vector reward (ServerlessClusterMO-v1)

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
        vector, scalar = rewards(self.service, stats)
        none = np.zeros(self.batch, dtype=bool)
        own = metrics_array(self.sim)[0]  # (F, metrics): each function's own KPIs
        return Transition(reward=scalar[0], objectives=vector[0], terminated=none, truncated=none,
                          cost=stats[0, :, STAT.pod_seconds].copy(),
                          info={"function_metrics": dict(zip(self.metric_names, own.T))})

    def observe(self) -> np.ndarray:
        stats = self.stats[0]
        own = self._observe(self.service)[0]  # (F, obs)
        pods = stats[:, STAT.ready] + stats[:, STAT.starting]
        capacity = float(self.service.sim.cluster_pods)
        denied = stats[:, STAT.denied_pod_seconds] / self.service.sim.decision_interval_s
        cluster = np.stack([np.full(pods.shape, max(capacity - pods.sum(), 0) / capacity),
                            pods / capacity, denied], axis=-1).astype(np.float32)
        return np.concatenate([own, cluster], axis=-1)

    def metrics(self) -> dict[str, np.ndarray]:
        """The cluster's KPIs (all functions together), the same for every agent."""
        combined = metrics_array(self.sim, combine_functions=True)[0, 0]
        every_agent = np.broadcast_to(combined, (self.batch, len(combined)))  # one array, not one per metric
        return {name: every_agent[:, i] for i, name in enumerate(self.metric_names)}

    def render_text(self, row=None) -> str:
        s = self.stats[0]
        lines = [f"t={self.sim.time[0]:7.0f}s cluster {int((s[:, STAT.ready] + s[:, STAT.starting]).sum())}/"
                 f"{self.service.sim.cluster_pods} pods"]
        for i, agent in enumerate(self.agents):
            level = self.service.levels[int(self.level_index[0, i])]
            lines.append(f"  {agent}: limit={level or 'unlimited':>9} pods={int(s[i, STAT.ready])}+"
                         f"{int(s[i, STAT.starting])} queue={int(s[i, STAT.queue])} "
                         f"serving={int(s[i, STAT.in_service])}")
        return "\n".join(lines) + "\n"

    def snapshot(self, row=None) -> dict:
        return picture.snapshot(self.sim.time[0], self.stats[0], self.level_values[self.level_index[0]],
                                self.service.sim.cluster_pods)

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots)


def metric_names(params: ServerlessParams) -> tuple[str, ...]:
    """The names of the :data:`METRICS` an env with ``params`` reports."""
    return METRICS if params.sim.cluster_pods is not None else METRICS[:-1]


def metrics_array(sim: ServerlessSim, combine_functions: bool = False) -> np.ndarray:
    """The KPIs of every instance's episode so far, (B, F, len(METRICS)) in :data:`METRICS`
    order, each function's own; or (B, 1, len(METRICS)) of all functions together."""
    out = np.empty((sim.B, 1 if combine_functions else sim.F, len(METRICS)))
    _episode_metrics(sim.totals, sim.latency_hist, sim.time, sim.latency_edges, combine_functions, out)
    return out


def episode_metrics(sim: ServerlessSim, combine_functions: bool = False) -> dict[str, np.ndarray]:
    """:func:`metrics_array` by name, each (B, F) or (B, 1); ``denied_pod_seconds`` only where the
    cluster is finite."""
    values = metrics_array(sim, combine_functions)
    names = METRICS if sim.params.cluster_pods is not None else METRICS[:-1]
    return {name: values[..., i] for i, name in enumerate(names)}


def reset_stats(sim: ServerlessSim) -> np.ndarray:
    """Statistics describing instances right after a reset (nothing has happened yet)."""
    stats = np.zeros(sim.shape + (len(STATS),))
    stats[..., STAT.queue] = sim.queue
    stats[..., STAT.in_service] = sim.in_service
    stats[..., STAT.ready] = sim.ready
    stats[..., STAT.starting] = sim.n_starting
    stats[..., STAT.desired] = sim.desired
    return stats


def rewards(params: ServerlessParams, stats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The vector reward (B, F, 3) — throughput (req/s), −latency (s), −mean pods — and the
    scalar reward ``weights · objectives`` (B, F) of an interval's statistics.

    Latency is Little's-law mean time in system over the interval: request-seconds spent in the
    system divided by the requests admitted.
    """
    vector = np.empty(stats.shape[:2] + (3,))
    scalar = np.empty(stats.shape[:2])
    _rewards(stats, params.sim.decision_interval_s, np.asarray(params.weights, dtype=np.float64), vector, scalar)
    return vector, scalar


@kernel
def _rewards(stats, interval_s, weights, vector, scalar):
    for b in range(stats.shape[0]):
        for f in range(stats.shape[1]):
            s = stats[b, f]
            throughput = s[STAT.completed] / interval_s
            latency = s[STAT.request_seconds] / max(s[STAT.admitted], 1.0)
            pods = s[STAT.pod_seconds] / interval_s
            vector[b, f, 0], vector[b, f, 1], vector[b, f, 2] = throughput, -latency, -pods
            scalar[b, f] = throughput * weights[0] + -latency * weights[1] + -pods * weights[2]


@kernel
def _observe(stats, time, level_index, interval_s, out):
    """The features (:data:`FEATURES`) and the one-hot level of every (instance, function) into
    ``out`` (zeros)."""
    for b in range(stats.shape[0]):
        for f in range(stats.shape[1]):
            s, o = stats[b, f], out[b, f]
            o[0] = s[STAT.arrived] / interval_s
            o[1] = s[STAT.completed] / interval_s
            o[2] = s[STAT.rejected] / interval_s
            o[3] = s[STAT.request_seconds] / max(s[STAT.admitted], 1.0)
            o[4] = s[STAT.queue]
            o[5] = s[STAT.in_service]
            o[6] = s[STAT.ready]
            o[7] = s[STAT.starting]
            o[8] = s[STAT.desired]
            o[9] = s[STAT.panic]
            o[10] = s[STAT.pod_seconds] / interval_s
            o[11] = s[STAT.in_service] / max(s[STAT.ready], 1.0)
            o[12] = time[b] / 3600.0
            o[13 + level_index[b, f]] = 1.0


@kernel
def _episode_metrics(totals, hist, time, edges, combine, out):
    """The KPIs (:data:`METRICS` columns) of every instance's functions, or of all functions
    together with ``combine``, into ``out``."""
    F = totals.shape[1]
    summed = np.empty(totals.shape[2])
    column = np.empty(F)
    counts = np.empty(hist.shape[2])
    for b in range(totals.shape[0]):
        elapsed = max(time[b], 1e-12)
        for g in range(out.shape[1]):
            if combine:
                for k in range(summed.shape[0]):
                    for f in range(F):
                        column[f] = totals[b, f, k]
                    summed[k] = numpy_sum(column, 0, F)
                counts[:] = 0.0
                for f in range(F):
                    counts += hist[b, f]
                t, h = summed, counts
            else:
                t, h = totals[b, g], hist[b, g]
            admitted = max(t[TOTAL.admitted], 1.0)
            p95, p99 = quantile_of(h, edges, 0.95), quantile_of(h, edges, 0.99)
            row = out[b, g]
            row[0] = t[TOTAL.request_seconds] / admitted
            row[1] = t[TOTAL.queue_seconds] / admitted
            row[2] = t[TOTAL.waited] / admitted
            row[3] = 0.0 if np.isnan(p95) else p95
            row[4] = 0.0 if np.isnan(p99) else p99
            row[5] = t[TOTAL.completed] / elapsed
            row[6] = t[TOTAL.rejected]
            row[7] = t[TOTAL.rejected] / max(t[TOTAL.arrived], 1.0)
            row[8] = t[TOTAL.cold_starts]
            row[9] = t[TOTAL.pod_seconds]
            row[10] = t[TOTAL.pod_seconds] / elapsed
            row[11] = t[TOTAL.denied_pod_seconds]
