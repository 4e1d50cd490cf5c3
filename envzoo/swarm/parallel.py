"""Every robot of one swarm its own agent (PettingZoo parallel), a shared policy expected."""

from __future__ import annotations

from envzoo.core.parallel import TaskMOParallelEnv, TaskParallelEnv
from envzoo.swarm.task import PopulationTask


class SwarmParallelEnv(TaskParallelEnv):
    """
    ## Description

    The population of ``Swarm-v0`` with every robot an agent: N robots with types on [0, 1]
    interacting through a graphon W(x, y), each observing its own state and its graphon mean
    field, exact or a κ-subsample drawn by interaction strength (``observation="subsample",
    kappa=κ``: the GMFS setting, where a shared policy learns from κ neighbours). Scenarios
    ``flocking`` (default), ``rendezvous`` and ``coverage``; see ``Swarm-v0`` for the model.

    ## Agents

    ``robot_0 … robot_{N-1}`` (``n_agents``, default 16).

    ## Action Space

    Per agent, as ``Swarm-v0``: ``Box(-1, 1, (2,), float32)`` or ``Discrete(9)``.

    ## Observation Space

    Per agent ``Box(-inf, inf, (15,), float32)``: own type, position, velocity and the mean field
    (exact or subsampled), as ``Swarm-v0``.

    ## Rewards

    Each agent's ``reward_weights · (task, −energy, −collisions)`` of its own robot, as
    ``Swarm-v0``'s learner.

    ## Costs

    ``infos[agent]["cost"]``: ``{"collisions": count, "energy": |u|²}`` of its robot.

    ## Starting State

    As ``Swarm-v0``.

    ## Episode End

    No termination; all agents truncated after ``max_cycles`` steps (the registry's 200).

    ## Metrics

    ``infos[agent]["metrics"]`` at the last step (``env.episode_metrics()`` at any time), the same
    for every agent: the population's KPIs of ``Swarm-v0``.

    ## Arguments

    As ``Swarm-v0`` (``population`` has no effect: every robot is an agent), and ``max_cycles``.

    ```python
    import envzoo
    from envzoo.swarm.policies import ReynoldsFlocking
    env = envzoo.make("envzoo/SwarmParallel-v0", n_agents=100, observation="subsample", kappa=8)
    observations, infos = env.reset(seed=0)
    policy = ReynoldsFlocking(env)
    observations, rewards, terminations, truncations, infos = env.step(policy(observations, infos))
    ```

    ## References

    As ``Swarm-v0``.

    ## Version History

    - v0: initial version.
    """

    metadata = {"name": "swarm_parallel_v0", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 10}
    task_class = PopulationTask


class SwarmParallelMOEnv(TaskMOParallelEnv):
    """
    ## Description

    ``SwarmParallel-v0`` with a vector reward per agent (MOMAland's API): the same population,
    agents, observations, actions, costs and metrics.

    ## Reward Space

    Per agent ``Box(-inf, 0, (3,), float32)``: task, −energy, −collisions of its robot (see
    ``SwarmMO-v0``). The scalar ``SwarmParallel-v0`` reward is ``reward_weights · vector``.

    ## Arguments

    As ``SwarmParallel-v0``.

    ## Version History

    - v0: initial version.
    """

    metadata = {"name": "swarm_parallel_mo_v0", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 10}
    task_class = PopulationTask
