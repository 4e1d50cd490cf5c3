"""Several Knative functions, one agent each, sharing a cluster of finite capacity."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.rng import key_from_generator
from envzoo.core.parallel import SeededParallelEnv
from envzoo.core.spaces import check_action, check_agent_actions
from envzoo.serverless import task as serverless_task
from envzoo.serverless.workloads import Workload, make_workload

CLUSTER_FEATURES = ("cluster_free_fraction", "cluster_share", "unscheduled_pods")


class ServerlessClusterEnv(SeededParallelEnv):
    """
    ## Description

    F Knative functions run on one cluster that holds at most ``cluster_pods`` pods. Each
    function is an agent that sets its own concurrency limit every ``decision_interval_s``
    seconds, as in ``Serverless-v0``; each function's KPA scales its pods independently, and
    when the pods all functions want exceed the free capacity, the scheduler shares the free pods
    in proportion to what each function asks for; the rest are denied (pending, unschedulable)
    until capacity frees. Packing requests (a high limit) frees cluster capacity for the other
    functions at the price of one's own latency: the agents share a resource.

    ## Agents

    ``fn_0 … fn_{F-1}``, one per entry of ``rates``.

    ## Action Space

    Per agent ``Discrete(len(concurrency_levels))``, as ``Serverless-v0``.

    ## Observation Space

    Per agent ``Box(0, inf, (16 + len(concurrency_levels),), float32)``: the 13 features of
    ``Serverless-v0`` for its own function and the one-hot of its level, then
    ``cluster_free_fraction`` (free pods / cluster_pods at the end of the interval),
    ``cluster_share`` (its pods / cluster_pods) and ``unscheduled_pods`` (pods its KPA wanted
    but the cluster could not place, averaged over the interval).

    ## Rewards

    Each agent gets the scalar ``Serverless-v0`` reward of its own function:
    ``reward_weights · (throughput, −latency, −mean_pods)``.

    ## Costs

    ``infos[agent]["cost"]``: pod-seconds of the agent's function in the interval.

    ## Starting State

    Each function starts with ``kpa.initial_scale`` warm pods and the last (unlimited) level.

    ## Episode End

    No termination; all agents are truncated after ``max_cycles`` steps (default 360, an hour).

    ## Metrics

    ``infos[agent]["metrics"]`` (the same dict for every agent) holds the cluster's KPIs for the
    episode so far: ``mean_latency_s``, ``p95_latency_s``, ``p99_latency_s`` over all requests,
    total ``throughput_rps``, ``rejected``, ``rejected_fraction``, ``cold_starts``,
    ``pod_seconds``, ``mean_pods`` and ``denied_pod_seconds`` (pod-seconds the KPAs wanted but
    the cluster could not schedule). ``infos[agent]["function_metrics"]``
    has the same KPIs for the agent's own function.

    ## Arguments

    - ``rates``: mean arrival rate of each function (req/s); its length sets F. Default
      ``(60, 30, 15, 8)``.
    - ``workload``: the arrival process kind (``"diurnal"`` by default) or a dict of options
      (without ``rate``, which comes from ``rates``); see ``Serverless-v0``. A trace
      (``{"kind": "trace", "path": ..., "functions": 4}`` or a
      :class:`~envzoo.serverless.workloads.Trace`) brings its own per-function rates, and
      ``rates`` is then ignored.
    - ``mean_service_s``: one value, or one per function. Default ``(1.0, 0.5, 2.0, 1.0)``.
    - ``cluster_pods``: cluster capacity in pods (default 40).
    - ``max_cycles``: steps per episode (default 360).
    - every other ``Serverless-v0`` argument (``concurrency_levels``, ``reward_weights``,
      ``dt``, ``decision_interval_s``, ``contention``, ``cold_start_s``, ``queue_capacity``,
      ``kpa``, ``latency_tags``), shared by all functions.

    ## References

    J. Schuler, S. Jamil, N. Kühl, CCGrid 2021 (single-service setting this extends); Knative
    Serving autoscaling documentation.

    ## Version History

    - v0: initial version.
    """

    metadata = {"name": "serverless_cluster_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(self, rates=(60.0, 30.0, 15.0, 8.0), workload="diurnal",
                 mean_service_s=(1.0, 0.5, 2.0, 1.0), cluster_pods: int = 40,
                 max_cycles: int = 360, render_mode: str | None = None, **task_kwargs):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        workload, n_functions = _cluster_workload(workload, rates)
        self.task = serverless_task.make_task(workload=workload, mean_service_s=mean_service_s,
                                              cluster_pods=cluster_pods, **task_kwargs)
        kpa = self.task.sim.kpa
        if cluster_pods < n_functions * max(kpa.initial_scale, kpa.min_scale):
            raise ValueError(f"cluster_pods = {cluster_pods} cannot hold the {n_functions} functions' "
                             f"initial or minimum pods ({max(kpa.initial_scale, kpa.min_scale)} each)")
        if max_cycles < 1:
            raise ValueError(f"max_cycles must be >= 1, got {max_cycles}")
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        agents = [f"fn_{i}" for i in range(n_functions)]
        super().__init__(agents, {agent: self.task.observation_space(extra=len(CLUSTER_FEATURES)) for agent in agents},
                         {agent: spaces.Discrete(self.task.n_levels) for agent in agents})
        self.sim = self.task.new_sim(1, n_functions)
        self._levels = np.zeros((1, n_functions), dtype=np.int64)
        self._stats = None
        self._steps = 0

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.sim.reset(np.array([0]), key_from_generator(self._generator(seed), 1))
        self.agents = list(self.possible_agents)
        self._levels[:] = self.task.n_levels - 1
        self._stats = serverless_task.reset_stats(self.sim)
        self._steps = 0
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions):
        if not self.agents:
            raise RuntimeError("the episode is over (or reset() was not called): call reset()")
        check_agent_actions(self.agents, actions)
        # Check every action before changing any state.
        levels = [check_action(self.action_space(agent), actions[agent], f"(agent {agent}) {self.task.action_hint()}")
                  for agent in self.possible_agents]
        self._levels[0] = levels
        self._stats = stats = self.sim.advance(np.asarray(self.task.levels)[self._levels])
        self._steps += 1
        rewards_per_function = serverless_task.scalar_reward(
            self.task, serverless_task.objectives(self.task, stats))[0]
        cluster = {k: float(v[0, 0]) for k, v in self.sim.episode_metrics(combine_functions=True).items()}
        own = {k: v[0] for k, v in self.sim.episode_metrics().items()}
        truncated = self._steps >= self.max_cycles
        rewards, terminations, truncations, infos = {}, {}, {}, {}
        for i, agent in enumerate(self.agents):
            rewards[agent] = float(rewards_per_function[i])
            terminations[agent] = False
            truncations[agent] = truncated
            infos[agent] = {"cost": float(stats["pod_seconds"][0, i]), "metrics": cluster,
                            "function_metrics": {k: float(v[i]) for k, v in own.items()}}
        observations = self._observations()
        if truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self):
        stats = self._stats
        own = serverless_task.observe(self.task, self.sim, stats, self._levels)[0]  # (F, obs)
        pods = stats["ready"][0] + stats["starting"][0]
        capacity = float(self.task.sim.cluster_pods)
        denied = stats.get("denied_pod_seconds", np.zeros(self.sim.shape))[0] / self.task.sim.decision_interval_s
        cluster = np.stack([np.full(pods.shape, max(capacity - pods.sum(), 0) / capacity),
                            pods / capacity, denied], axis=-1).astype(np.float32)
        full = np.concatenate([own, cluster], axis=-1)
        return {agent: full[i] for i, agent in enumerate(self.possible_agents) if agent in self.agents}

    def render(self):
        if self.render_mode != "ansi" or self._stats is None:
            return None
        s = self._stats
        lines = [f"t={self.sim.time[0]:7.0f}s cluster {int((s['ready'] + s['starting']).sum())}/{self.task.sim.cluster_pods} pods"]
        for i, agent in enumerate(self.possible_agents):
            level = self.task.levels[int(self._levels[0, i])]
            lines.append(f"  {agent}: limit={level or 'unlimited':>9} pods={int(s['ready'][0, i])}+"
                         f"{int(s['starting'][0, i])} queue={int(s['queue'][0, i])} serving={int(s['in_service'][0, i])}")
        return "\n".join(lines) + "\n"

    def close(self):
        pass


def _cluster_workload(workload, rates):
    """The cluster's workload spec and its number of functions: rate-based kinds take ``rates``."""
    if isinstance(workload, Workload):
        return workload, workload.n_functions() or 1
    options = {"kind": workload} if isinstance(workload, str) else dict(workload)
    if options.get("kind") == "trace":
        trace = make_workload(options, dt=1.0)
        return trace, trace.n_functions() or 1
    if "rate" in options:
        raise ValueError("give per-function arrival rates with `rates`, not inside `workload`")
    rates = tuple(float(r) for r in np.atleast_1d(rates))
    return {**options, "rate": rates}, len(rates)
