"""Multi-objective face of the collision-avoidance env: the reward is a vector."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.orbital.task import CollisionAvoidanceTask


class CollisionAvoidanceMOEnv(TaskMOEnv):
    """
    ## Description

    ``CollisionAvoidance-v1`` with a vector reward, for multi-objective RL (MO-Gymnasium API):
    the same simulator, observation, actions, costs and metrics.

    ## Reward Space

    ``Box(-inf, 0, (3,), float32)``, ``reward_dim = 3``, per step:

    1. risk: −Σ_k log10(max(Pc_k, pc_threshold) / pc_threshold), the decades by which the
       estimated Pc's exceed the operator threshold, minus ``collision_penalty`` (1000) at a
       collision;
    2. fuel: −|Δv| burnt in the step, m/s;
    3. slot: −distance from the station-keeping slot after the step, km.

    The scalar ``CollisionAvoidance-v1`` reward is ``(risk_weight, fuel_weight, slot_weight) ·
    vector`` (default (1, 10, 0.1)); MO-Gymnasium's ``LinearReward`` with those weights gives
    the same number.

    ## Arguments

    As ``CollisionAvoidance-v1``, including a user's TLE or CDM file:

    ```python
    import mo_gymnasium as mo_gym
    import envzoo  # registers the ids (tle and cdm need the orbital extra: Orekit reads them)
    env = mo_gym.make("envzoo/CollisionAvoidanceMO-v1", tle="my_satellite.tle")
    observation, info = env.reset(seed=0)
    observation, reward_vector, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## Version History

    - v1: normalised observations by default, as ``CollisionAvoidance-v1``.
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = CollisionAvoidanceTask
