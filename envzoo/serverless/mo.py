"""Multi-objective face of the serverless env: the reward is a vector."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.serverless.task import ServerlessTask


class ServerlessMOEnv(TaskMOEnv):
    """
    ## Description

    ``Serverless-v1`` with a vector reward, for multi-objective RL (MO-Gymnasium API): the same
    simulator, observation, actions, costs and metrics.

    ## Reward Space

    ``Box([0, -inf, -inf], [inf, 0, 0], (3,), float32)``, ``reward_dim = 3``:

    1. throughput: requests completed per second in the interval;
    2. latency: minus the Little's-law mean time in system of the interval, in seconds;
    3. cost: minus the mean number of pods (ready + starting) over the interval.

    The scalar ``Serverless-v1`` reward is ``reward_weights · vector``; MO-Gymnasium's
    ``LinearReward`` wrapper with the same weights gives the same number.

    ## Arguments

    As ``Serverless-v1``, including a user's Azure Functions trace as ``workload`` (a file, a
    folder of days or a mapping ``{day: file}``):

    ```python
    import mo_gymnasium as mo_gym
    import envzoo  # registers the ids
    env = mo_gym.make("envzoo/ServerlessMO-v1", workload="azurefunctions-dataset2019/")
    observation, info = env.reset(seed=0)
    observation, reward_vector, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## Version History

    - v1: a request in service completes in a tick with probability μ·dt (was 1 − exp(−μ·dt)):
      completing only at tick boundaries, requests were served dt / 2 longer on average, which
      put the mean latency of an M/M/10 queue at 80 % load 14 % above Erlang C at the default
      dt (now within 2 %); metrics ``mean_wait_s`` and ``waited_fraction``.
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    task_class = ServerlessTask
