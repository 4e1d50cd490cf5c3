"""The decision problem over the simulator, shared by every serverless face.

The single env, the native vector env, the multi-objective env and the cluster env all call
these batched functions on the (B, F) statistics that :meth:`ServerlessSim.advance` returns;
none of them forks the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from gymnasium import spaces

from envzoo.serverless.kpa import KPAParams
from envzoo.serverless.sim import ServerlessSim, ServiceParams, SimParams

#: Concurrency limits the agent chooses from; 0 is Knative's default (no limit, target 100).
DEFAULT_LEVELS = (1, 2, 4, 8, 16, 32, 64, 0)

#: Observation features of one function, in order (see the env docstrings for units).
FEATURES = (
    "arrival_rate", "throughput", "rejection_rate", "latency", "queue", "in_service",
    "ready_pods", "starting_pods", "desired_pods", "panic", "mean_pods", "load_per_pod",
    "elapsed_h",
)

#: Components of the vector reward, in order.
OBJECTIVES = ("throughput", "latency", "cost")
DEFAULT_WEIGHTS = (0.01, 1.0, 0.05)


@dataclass(frozen=True)
class ServerlessTask:
    """Simulator parameters plus what the agent controls and is rewarded for."""

    sim: SimParams
    workload: object
    levels: tuple[int, ...]
    weights: tuple[float, float, float]

    @property
    def n_levels(self) -> int:
        return len(self.levels)

    def action_hint(self) -> str:
        return f"Action i sets the concurrency limit to concurrency_levels[i] of {self.levels} (0 = unlimited)."

    def observation_space(self, extra: int = 0) -> spaces.Box:
        size = len(FEATURES) + self.n_levels + extra
        return spaces.Box(0.0, np.inf, shape=(size,), dtype=np.float32)

    def new_sim(self, n_instances: int, n_functions: int = 1) -> ServerlessSim:
        return ServerlessSim(self.sim, self.workload, n_instances, n_functions)


def make_task(
    workload="diurnal",
    concurrency_levels=DEFAULT_LEVELS,
    reward_weights=DEFAULT_WEIGHTS,
    dt: float = 0.1,
    decision_interval_s: float = 10.0,
    mean_service_s=1.0,
    contention: float = 0.05,
    cold_start_s: float = 4.0,
    queue_capacity: int = 5000,
    kpa: dict | KPAParams | None = None,
    cluster_pods: int | None = None,
    latency_tags: int = 32,
) -> ServerlessTask:
    """Validate the env arguments shared by every face and build the task."""
    if any(not isinstance(level, (int, np.integer)) for level in concurrency_levels):
        raise ValueError(f"concurrency_levels must be integers (0 = unlimited), got {concurrency_levels!r}")
    levels = tuple(int(level) for level in concurrency_levels)
    if not levels or any(level < 0 for level in levels) or len(set(levels)) != len(levels):
        raise ValueError(f"concurrency_levels must be distinct integers >= 0 (0 = unlimited), got {concurrency_levels!r}")
    weights = tuple(float(w) for w in reward_weights)
    if len(weights) != len(OBJECTIVES) or any(w < 0 for w in weights):
        raise ValueError(f"reward_weights must be {len(OBJECTIVES)} non-negative numbers for {OBJECTIVES}, got {reward_weights!r}")
    if isinstance(kpa, dict):
        known = {f.name for f in fields(KPAParams)}
        unknown = set(kpa) - known
        if unknown:
            raise ValueError(f"unknown KPA settings {sorted(unknown)}; known: {sorted(known)}")
        kpa = KPAParams(**kpa)
    params = SimParams(
        dt=dt, decision_interval_s=decision_interval_s,
        service=ServiceParams(mean_service_s=tuple(np.atleast_1d(mean_service_s).tolist()),
                              contention=contention, cold_start_s=cold_start_s,
                              queue_capacity=queue_capacity),
        kpa=kpa or KPAParams(), cluster_pods=cluster_pods, latency_tags=latency_tags,
    )
    return ServerlessTask(sim=params, workload=workload, levels=levels, weights=weights)


def reset_stats(sim: ServerlessSim) -> dict[str, np.ndarray]:
    """Statistics describing instances right after a reset (nothing has happened yet)."""
    zeros = np.zeros(sim.shape)
    stats = {name: zeros for name in ("arrived", "admitted", "rejected", "completed",
                                       "request_seconds", "pod_seconds", "panic")}
    stats.update(queue=sim.queue, in_service=sim.in_service, ready=sim.ready,
                 starting=sim.n_starting, desired=sim.desired)
    return stats


def observe(task: ServerlessTask, sim: ServerlessSim, stats: dict, level_index: np.ndarray) -> np.ndarray:
    """Observations (B, F, features + levels), float32, all finite and >= 0."""
    interval = task.sim.decision_interval_s
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
    one_hot = np.eye(task.n_levels)[level_index]
    return np.concatenate([features, one_hot], axis=-1).astype(np.float32)


def objectives(task: ServerlessTask, stats: dict) -> np.ndarray:
    """Vector reward (B, F, 3): throughput (req/s), −latency (s), −mean pods.

    Latency is Little's-law mean time in system over the interval: request-seconds spent in the
    system divided by the requests admitted.
    """
    interval = task.sim.decision_interval_s
    throughput = stats["completed"] / interval
    pods = stats["pod_seconds"] / interval
    return np.stack([throughput, -interval_latency(stats), -pods], axis=-1)


def interval_latency(stats: dict) -> np.ndarray:
    """Little's-law mean time in system of an interval: request-seconds / admitted requests."""
    return stats["request_seconds"] / np.maximum(stats["admitted"], 1)


def scalar_reward(task: ServerlessTask, vector: np.ndarray) -> np.ndarray:
    """The scalar reward: ``weights · objectives``.

    Written out term by term so that a batch and a single instance round identically (a matrix
    product may sum in a different order).
    """
    w = task.weights
    return vector[..., 0] * w[0] + vector[..., 1] * w[1] + vector[..., 2] * w[2]
