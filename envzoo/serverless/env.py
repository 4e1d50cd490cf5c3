"""Serverless autoscaling: choose a Knative service's concurrency limit while the KPA scales pods."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.serverless.task import ServerlessTask


class ServerlessEnv(TaskEnv):
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

    Against queueing theory (no contention, a fixed pool, limit 1: M/M/c in discrete time), at
    the default ``dt`` = 0.1 s the mean time in system of M/M/10 at 80 % load is within 1 % of
    Erlang C (0.7 % low), but the mean wait alone is about 5 % low (4.1 % ± 0.8 % measured): a
    request's service is a whole number of ticks, each completing it with probability μ·dt, and
    that geometric time has 1 − μ·dt = 0.9 of the exponential's variance, which shortens queues
    (M/G/c waits about (1 + C²) / 2 as long as M/M/c: μ·dt / 2 less). ``dt=0.02`` (μ·dt = 0.02)
    brings the mean wait within 1 % (+0.1 % ± 0.9 % measured; 1 % less by the approximation), for
    five times the ticks per step. Figures: ``benchmarks/serverless_erlang_c.py`` (512 queues of
    20 minutes per ``dt``).

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
    system of the interval in seconds, minus the mean number of pods. ``ServerlessMO-v1``
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
    ``mean_latency_s`` (Little's law, exact), ``mean_wait_s`` (the part of it spent queued before
    service), ``waited_fraction`` (requests that did not start in the tick they arrived in),
    ``p95_latency_s`` and ``p99_latency_s`` (from
    tagged requests, weighted), ``throughput_rps``, ``rejected``, ``rejected_fraction``,
    ``cold_starts``, ``pod_seconds``, ``mean_pods``.

    ## Arguments

    - ``workload``: ``"constant"``, ``"diurnal"`` (default), ``"step"``, ``"spike"``,
      ``"bursty"``, ``"trace"``, a dict such as ``{"kind": "spike", "factor": 8}``, a
      :class:`~envzoo.serverless.generator.Workload`, or a user's Azure Functions 2019
      invocation trace (:func:`envzoo.serverless.data.load_azure_invocations`): the path of a
      day's CSV or Parquet file, of a folder of days (the trace's unpacked folder: its
      ``invocations_per_function*`` files in name order) or a mapping ``{day: file}``; with
      options as ``{"kind": "trace", "path": ..., "functions": 3, "scale": 0.5,
      "start_minute": None}`` (the busiest ``functions``, rates × ``scale``, a random start
      minute). A missing file is a ``FileNotFoundError`` naming it, a wrong header a
      ``ValueError`` naming the column.
    - ``concurrency_levels``: the limits the actions choose from (0 = unlimited).
    - ``initial_level``: index of the level at reset (default: last).
    - ``reward_weights``: weights of (throughput, latency, cost).
    - ``dt`` (0.1 s), ``decision_interval_s`` (10 s): simulation tick and agent period.
    - ``mean_service_s`` (1.0), ``contention`` (0.05), ``cold_start_s`` (4.0),
      ``queue_capacity`` (5000): the service (see :class:`~envzoo.serverless.params.ServiceParams`).
    - ``kpa``: dict of :class:`~envzoo.serverless.kpa.KPAParams` overrides, e.g.
      ``{"stable_window_s": 30}`` or ``{"enabled": False, "initial_scale": 4}``.
    - ``latency_tags``: tagged-request slots for the latency percentiles (32).
    - ``render_mode``: ``"ansi"``.

    Replaying a user's trace (the folder of the downloaded trace, or one day's file):

    ```python
    import gymnasium as gym
    import envzoo  # registers the ids
    env = gym.make("envzoo/Serverless-v1", workload="azurefunctions-dataset2019/")
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## References

    J. Schuler, S. Jamil, N. Kühl. *AI-based Resource Allocation: Reinforcement Learning for
    Adaptive Auto-scaling in Serverless Environments.* CCGrid 2021 (arXiv:2005.14410). Knative
    Serving autoscaling documentation (KPA).

    ## Version History

    - v1: a request in service completes in a tick with probability μ·dt (was 1 − exp(−μ·dt)):
      completing only at tick boundaries, requests were served dt / 2 longer on average, which
      put the mean latency of an M/M/10 queue at 80 % load 14 % above Erlang C at the default
      dt (now within 2 %); metrics ``mean_wait_s`` and ``waited_fraction``.
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    task_class = ServerlessTask
