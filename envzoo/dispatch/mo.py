"""``envzoo/DispatchMO-v0``: the dispatch env with a vector reward."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.dispatch.task import DispatchTask


class DispatchMOEnv(TaskMOEnv):
    """
    ## Description

    ``Dispatch-v0`` with a vector reward (MO-Gymnasium API): the same simulator, observation,
    actions, action masks, costs and metrics.

    ## Reward Space

    ``Box([-inf, -inf, -inf], [0, inf, 0], (3,), float32)``: minus the response minutes charged
    this step (as ``Dispatch-v0``'s reward, without the precision term), equity (minus the step's
    change of the worst zone's mean response time, minutes: its sum over an episode is minus the
    worst zone's mean response), minus the dispatched unit's minutes on the road (a cost proxy).

    ## Arguments

    As ``Dispatch-v0``, including a user's network and incident log:

    ```python
    import mo_gymnasium as mo_gym
    import envzoo  # registers the ids
    env = mo_gym.make("envzoo/DispatchMO-v0", network="my_city.net.xml", incident_log="calls.csv")
    observation, info = env.reset(seed=0)
    observation, reward_vector, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## Version History

    - v0: initial version.
    """

    task_class = DispatchTask
