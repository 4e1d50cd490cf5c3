"""Several Knative functions, one agent each, sharing a cluster of finite capacity."""

from __future__ import annotations

from envzoo.core.parallel import TaskMOParallelEnv, TaskParallelEnv
from envzoo.serverless.task import ClusterTask


class ServerlessClusterEnv(TaskParallelEnv):
    """
    ## Description

    F Knative functions run on one cluster that holds at most ``cluster_pods`` pods. Each
    function is an agent that sets its own concurrency limit every ``decision_interval_s``
    seconds, as in ``Serverless-v1``; each function's KPA scales its pods independently, and
    when the pods all functions want exceed the free capacity, the scheduler shares the free pods
    in proportion to what each function asks for; the rest are denied (pending, unschedulable)
    until capacity frees. Packing requests (a high limit) frees cluster capacity for the other
    functions at the price of one's own latency: the agents share a resource.

    ## Agents

    ``fn_0 … fn_{F-1}``, one per entry of ``rates``.

    ## Action Space

    Per agent ``Discrete(len(concurrency_levels))``, as ``Serverless-v1``.

    ## Observation Space

    Per agent ``Box(0, inf, (16 + len(concurrency_levels),), float32)``: the 13 features of
    ``Serverless-v1`` for its own function and the one-hot of its level, then
    ``cluster_free_fraction`` (free pods / cluster_pods at the end of the interval),
    ``cluster_share`` (its pods / cluster_pods) and ``unscheduled_pods`` (pods its KPA wanted
    but the cluster could not place, averaged over the interval).

    ## Rewards

    Each agent gets the scalar ``Serverless-v1`` reward of its own function:
    ``reward_weights · (throughput, −latency, −mean_pods)``.

    ## Costs

    ``infos[agent]["cost"]``: pod-seconds of the agent's function in the interval.

    ## Starting State

    Each function starts with ``kpa.initial_scale`` warm pods and the last (unlimited) level.

    ## Episode End

    No termination; all agents are truncated after ``max_cycles`` steps (the registry's 360, an hour).

    ## Metrics

    ``infos[agent]["metrics"]`` (the same dict for every agent) holds the cluster's KPIs for the
    episode so far: ``mean_latency_s``, ``mean_wait_s``, ``waited_fraction``, ``p95_latency_s``, ``p99_latency_s`` over all requests,
    total ``throughput_rps``, ``rejected``, ``rejected_fraction``, ``cold_starts``,
    ``pod_seconds``, ``mean_pods`` and ``denied_pod_seconds`` (pod-seconds the KPAs wanted but
    the cluster could not schedule). ``infos[agent]["function_metrics"]``
    has the same KPIs for the agent's own function.

    ## Arguments

    - ``rates``: mean arrival rate of each function (req/s); its length sets F. Default
      ``(60, 30, 15, 8)``.
    - ``workload``: the arrival process kind (``"diurnal"`` by default) or a dict of options
      (without ``rate``, which comes from ``rates``); see ``Serverless-v1``. A trace (a user's
      Azure Functions file, folder of days or ``{day: file}`` mapping, with options as
      ``{"kind": "trace", "path": ..., "functions": 4}``, or a
      :class:`~envzoo.serverless.generator.Trace`) brings its own per-function rates, and
      ``rates`` is then ignored (give ``mean_service_s`` one value or one per function).
    - ``mean_service_s``: one value, or one per function. Default ``(1.0, 0.5, 2.0, 1.0)``.
    - ``cluster_pods``: cluster capacity in pods (default 40).
    - ``max_cycles``: steps per episode (the registry's 360).
    - every other ``Serverless-v1`` argument (``concurrency_levels``, ``reward_weights``,
      ``dt``, ``decision_interval_s``, ``contention``, ``cold_start_s``, ``queue_capacity``,
      ``kpa``, ``latency_tags``), shared by all functions.

    The four busiest functions of a user's Azure Functions trace as the agents:

    ```python
    import envzoo
    trace = {"kind": "trace", "path": "azurefunctions-dataset2019/", "functions": 4}
    env = envzoo.make("envzoo/ServerlessCluster-v1", workload=trace)
    observations, infos = env.reset(seed=0)
    observations, rewards, terminations, truncations, infos = env.step({a: 0 for a in env.agents})
    ```

    ## References

    J. Schuler, S. Jamil, N. Kühl, CCGrid 2021 (single-service setting this extends); Knative
    Serving autoscaling documentation.

    ## Version History

    - v1: a request in service completes in a tick with probability μ·dt (was 1 − exp(−μ·dt)):
      completing only at tick boundaries, requests were served dt / 2 longer on average, which
      put the mean latency of an M/M/10 queue at 80 % load 14 % above Erlang C at the default
      dt (now within 2 %); metrics ``mean_wait_s`` and ``waited_fraction``.
    - v0: initial version.
    """

    metadata = {"name": "serverless_cluster_v1", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 4}
    task_class = ClusterTask


class ServerlessClusterMOEnv(TaskMOParallelEnv):
    """
    ## Description

    ``ServerlessCluster-v1`` with a vector reward per agent, for multi-objective multi-agent RL
    (MOMAland's API: a PettingZoo parallel env whose ``rewards[agent]`` is a vector in
    ``reward_space(agent)``): the same cluster, agents, observations, actions, costs and metrics.

    ## Reward Space

    Per agent ``Box([0, -inf, -inf], [inf, 0, 0], (3,), float32)``, of the agent's own function:

    1. throughput: requests completed per second in the interval;
    2. latency: minus the Little's-law mean time in system of the interval, in seconds;
    3. cost: minus the mean number of pods (ready + starting) over the interval.

    The scalar ``ServerlessCluster-v1`` reward of each agent is ``reward_weights · vector``.

    ## Arguments

    As ``ServerlessCluster-v1``, including a user's Azure Functions trace (see its example).

    ## Version History

    - v1: initial version, the same simulator as ``ServerlessCluster-v1``.
    """

    metadata = {"name": "serverless_cluster_mo_v1", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 4}
    task_class = ClusterTask
