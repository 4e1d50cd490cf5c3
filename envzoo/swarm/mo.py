"""Multi-objective face of the representative-agent swarm: the reward is a vector."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.swarm.task import RepresentativeTask


class SwarmMOEnv(TaskMOEnv):
    """
    ## Description

    ``Swarm-v0`` with a vector reward, for multi-objective RL (MO-Gymnasium API): the same
    population, learner, observation, actions, costs and metrics.

    ## Reward Space

    ``Box(-inf, 0, (3,), float32)``, ``reward_dim = 3``:

    1. task: the scenario's score (see ``Swarm-v0``), at most 0;
    2. energy: minus the squared control |u|²;
    3. collisions: minus the robots within two collision radii of the learner.

    The scalar ``Swarm-v0`` reward is ``reward_weights · vector``.

    ## Arguments

    As ``Swarm-v0``.

    ## Version History

    - v0: initial version.
    """

    task_class = RepresentativeTask
