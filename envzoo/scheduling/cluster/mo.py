"""``envzoo/SchedulingClusterMO-v0``: the cluster-scheduling env with a vector reward."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.scheduling.cluster.task import ClusterTask


class SchedulingClusterMOEnv(TaskMOEnv):
    """
    ## Description

    ``SchedulingCluster-v0`` with a vector reward (MO-Gymnasium API): the same simulator,
    observation, actions, costs and metrics.

    ## Reward Space

    ``Box([-inf, 0, -inf], [0, inf, 0], (3,), float32)``: completion time, utilization and
    energy as they accrue over the time the step waited: minus the weighted time tasks spent in
    the system (and the rejection penalty; ``SchedulingCluster-v0``'s reward), the cores in use
    over all cores x time (summed over an episode and divided by its length: the utilization),
    and minus the energy drawn (linear in each machine's CPU utilization between its idle and
    peak power, Fan, Weber & Barroso 2007).

    ## Version History

    - v0: initial version. A JAX core (``envzoo.scheduling.cluster.jax_core``, extra ``jax``:
      ``envzoo.jax.make`` and ``gymnasium.make_vec(..., backend="jax")``) was added without
      changing an episode: it draws the same random numbers and follows the CPU core's episodes
      to the last bit.
    """

    task_class = ClusterTask
