"""Multi-objective face of the serverless env: the reward is a vector."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.serverless.task import ServerlessTask


class ServerlessMOEnv(TaskMOEnv):
    """
    ## Description

    ``Serverless-v0`` with a vector reward, for multi-objective RL (MO-Gymnasium API): the same
    simulator, observation, actions, costs and metrics.

    ## Reward Space

    ``Box([0, -inf, -inf], [inf, 0, 0], (3,), float32)``, ``reward_dim = 3``:

    1. throughput: requests completed per second in the interval;
    2. latency: minus the Little's-law mean time in system of the interval, in seconds;
    3. cost: minus the mean number of pods (ready + starting) over the interval.

    The scalar ``Serverless-v0`` reward is ``reward_weights · vector``; MO-Gymnasium's
    ``LinearReward`` wrapper with the same weights gives the same number.

    ## Arguments

    As ``Serverless-v0``.

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    task_class = ServerlessTask
