"""Serverless autoscaling: choose a Knative service's concurrency limit while the KPA scales pods."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from envzoo.core.rng import key_from_generator
from envzoo.core.spaces import check_action
from envzoo.serverless import task as serverless_task


class ServerlessEnv(gym.Env):
    """
    ## Description

    A Knative service receives HTTP requests; every ``decision_interval_s`` seconds the agent
    sets its per-pod concurrency limit (``containerConcurrency``) while Knative's Pod Autoscaler
    (KPA) adds and removes pods. This follows Schuler, Jamil & Kühl (CCGrid 2021), where a
    Q-learning agent tuned the concurrency limit and beat Knative's default on throughput and
    latency. A low limit spreads requests over many pods (low latency, more pods and cold
    starts); a high one packs them (fewer pods, slower requests because of contention).

    The simulator (:mod:`envzoo.serverless.sim`) steps time in ``dt`` ticks: Poisson arrivals
    from a workload (constant, diurnal, step, spike, bursty MMPP, or a replayed Azure Functions
    trace), an activator buffer of ``queue_capacity`` requests (the rest are rejected),
    first-come-first-served starts up to the limit, exponential service slowed by contention,
    cold starts of ``cold_start_s``, and the KPA as Knative documents it (stable window 60 s,
    panic window 10 %, panic threshold 200 %, target utilization 70 %, scale-up/down rates,
    scale to zero after a grace period).

    ## Action Space

    ``Discrete(len(concurrency_levels))``: action i sets the limit to ``concurrency_levels[i]``,
    by default ``(1, 2, 4, 8, 16, 32, 64, 0)`` where 0 means unlimited (Knative's default, with
    the KPA's default target of 100 concurrent requests per pod). The change applies at once to
    the running pods and to the KPA's target; revision roll-outs are not modelled.

    ## Observation Space

    ``Box(0, inf, (13 + len(concurrency_levels),), float32)``, measured over the last interval:

    | index | feature | unit |
    |---|---|---|
    | 0 | arrival_rate: requests that arrived | req/s |
    | 1 | throughput: requests completed | req/s |
    | 2 | rejection_rate: requests rejected (buffer full) | req/s |
    | 3 | latency: Little's-law mean time in system | s |
    | 4 | queue: buffered requests at the end | requests |
    | 5 | in_service: requests being served at the end | requests |
    | 6 | ready_pods | pods |
    | 7 | starting_pods: pods in a cold start | pods |
    | 8 | desired_pods: the KPA's last decision | pods |
    | 9 | panic: 1 if the KPA is in panic mode | flag |
    | 10 | mean_pods: pods (ready + starting) averaged over the interval | pods |
    | 11 | load_per_pod: in_service / ready pods | requests |
    | 12 | elapsed_h: time since the episode start | h |
    | 13… | one-hot of the current concurrency level | |

    ## Rewards

    ``weights · (throughput, −latency, −mean_pods)`` with ``reward_weights`` (default
    ``(0.01, 1.0, 0.05)``): completed requests per second, minus the Little's-law mean time in
    system of the interval in seconds, minus the mean number of pods. ``ServerlessMO-v0``
    returns the three components as a vector.

    ## Costs

    ``info["cost"]``: pod-seconds consumed in the interval (ready and starting pods).

    ## Starting State

    ``kpa.initial_scale`` warm pods (default 1), nothing queued, the concurrency limit at
    ``initial_level`` (default: the last level, unlimited). The workload's random phase (diurnal),
    start minute (trace, when ``start_minute`` is None) and MMPP state are drawn from the seed.

    ## Episode End

    The task is continuing: it never terminates. ``max_episode_steps`` (360 steps of 10 s, one
    hour) truncates it.

    ## Metrics

    ``info["metrics"]`` holds the KPIs of the episode so far, at every step (so also at the end):
    ``mean_latency_s`` (Little's law, exact), ``p95_latency_s`` and ``p99_latency_s`` (from
    tagged requests, weighted), ``throughput_rps``, ``rejected``, ``rejected_fraction``,
    ``cold_starts``, ``pod_seconds``, ``mean_pods``.

    ## Arguments

    - ``workload``: ``"constant"``, ``"diurnal"`` (default), ``"step"``, ``"spike"``,
      ``"bursty"``, ``"trace"``, a dict such as ``{"kind": "spike", "factor": 8}``, or a
      :class:`~envzoo.serverless.workloads.Workload` (for traces see
      :func:`envzoo.serverless.data.load_azure_invocations`).
    - ``concurrency_levels``: the limits the actions choose from (0 = unlimited).
    - ``initial_level``: index of the level at reset (default: last).
    - ``reward_weights``: weights of (throughput, latency, cost).
    - ``dt`` (0.1 s), ``decision_interval_s`` (10 s): simulation tick and agent period.
    - ``mean_service_s`` (1.0), ``contention`` (0.05), ``cold_start_s`` (4.0),
      ``queue_capacity`` (5000): the service (see :class:`~envzoo.serverless.sim.ServiceParams`).
    - ``kpa``: dict of :class:`~envzoo.serverless.kpa.KPAParams` overrides, e.g.
      ``{"stable_window_s": 30}`` or ``{"enabled": False, "initial_scale": 4}``.
    - ``latency_tags``: tagged-request slots for the latency percentiles (32).
    - ``render_mode``: ``"ansi"``.

    ## References

    J. Schuler, S. Jamil, N. Kühl. *AI-based Resource Allocation: Reinforcement Learning for
    Adaptive Auto-scaling in Serverless Environments.* CCGrid 2021 (arXiv:2005.14410). Knative
    Serving autoscaling documentation (KPA).

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    vector_reward = False

    def __init__(self, render_mode: str | None = None, initial_level: int | None = None, **task_kwargs):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.task = serverless_task.make_task(**task_kwargs)
        if initial_level is not None and not isinstance(initial_level, (int, np.integer)):
            raise ValueError(f"initial_level must be an integer index, got {initial_level!r}")
        self.initial_level = self.task.n_levels - 1 if initial_level is None else int(initial_level)
        if not 0 <= self.initial_level < self.task.n_levels:
            raise ValueError(f"initial_level must index concurrency_levels {self.task.levels}, got {initial_level}")
        self.sim = self.task.new_sim(1)
        self.action_space = spaces.Discrete(self.task.n_levels)
        self.observation_space = self.task.observation_space()
        if self.vector_reward:
            self.reward_space = spaces.Box(
                np.array([0.0, -np.inf, -np.inf], dtype=np.float32),
                np.array([np.inf, 0.0, 0.0], dtype=np.float32), dtype=np.float32)
            self.reward_dim = len(serverless_task.OBJECTIVES)
        self._level = np.full((1, 1), self.initial_level)
        self._last_stats = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.sim.reset(np.array([0]), key_from_generator(self.np_random, 1))
        self._level = np.full((1, 1), self.initial_level)
        self._last_stats = serverless_task.reset_stats(self.sim)
        return self._observation(), {}

    def step(self, action):
        if self._last_stats is None:
            raise RuntimeError("call reset() before step()")
        action = check_action(self.action_space, action, self.task.action_hint())
        self._level = np.full((1, 1), action)
        stats = self.sim.advance(np.asarray(self.task.levels)[self._level])
        self._last_stats = stats
        vector = serverless_task.objectives(self.task, stats)[0, 0]
        if self.vector_reward:
            reward = vector.astype(np.float32)
        else:
            reward = float(serverless_task.scalar_reward(self.task, vector))
        info = {
            "cost": float(stats["pod_seconds"][0, 0]),
            "metrics": {k: float(v[0, 0]) for k, v in self.sim.episode_metrics().items()},
        }
        return self._observation(), reward, False, False, info

    def _observation(self) -> np.ndarray:
        return serverless_task.observe(self.task, self.sim, self._last_stats, self._level)[0, 0]

    def render(self):
        if self.render_mode != "ansi":
            return None
        s = self._last_stats
        level = self.task.levels[int(self._level[0, 0])]
        return (f"t={self.sim.time[0]:7.0f}s limit={level or 'unlimited':>9} "
                f"pods={int(s['ready'][0, 0])}+{int(s['starting'][0, 0])} "
                f"queue={int(s['queue'][0, 0])} serving={int(s['in_service'][0, 0])} "
                f"latency={serverless_task.objectives(self.task, s)[0, 0, 1] * -1:.3f}s\n")
