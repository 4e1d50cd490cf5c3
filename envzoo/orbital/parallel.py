"""Several satellites of a constellation, one agent each: their own debris and each other."""

from __future__ import annotations

from envzoo.core.parallel import TaskParallelEnv
from envzoo.orbital.task import ConstellationTask


class ConstellationEnv(TaskParallelEnv):
    """
    ## Description

    ``n_satellites`` manoeuvrable satellites of a constellation, one agent each, each with its
    own station-keeping slot and its own debris conjunctions as in ``CollisionAvoidance-v1``
    (the same simulator core, one row per satellite). The slots cross: satellite ``sat_j``
    (j ≥ 1) is designed on a conjunction with ``sat_0`` (TCA in ``scenario.tca_window``, miss
    in ``sibling_miss_range``, crossing angle and speed ratio as for debris), so the satellites
    share each other's conjunctions: a burn that avoids a debris object can create a risk with
    a sibling, and a sibling conjunction can be solved by either satellite. Both satellites of
    a pair are tracked by GNSS (``tracking.primary_sigma_m`` each), their Pc is Foster's with
    both covariances; the truth decides collisions as for debris (straight-line closest
    approach of the propagated states at TCA).

    ## Agents

    ``sat_0 … sat_{K-1}``.

    ## Action Space

    Per agent, as ``CollisionAvoidance-v1`` (``Discrete(8)`` by default).

    ## Observation Space

    Per agent, ``Box(-inf, inf, (14 + 11 · n_debris + 9 · (K − 1),), float32)``: the
    ``CollisionAvoidance-v1`` observation of the satellite (its orbit, slot deviation, budget,
    its debris), then for each sibling conjunction (sat_0, sat_j), j = 1 … K − 1:
    ``involves_me`` (1 or 0), the partner's position (km) and velocity (km/s) relative to the
    agent at the predicted TCA in the agent's RTN frame (for a pair without the agent, sat_j
    relative to sat_0 in sat_0's frame), time to TCA (h), log10 Pc (−30 below 1e-30 and after
    TCA). Normalised as ``CollisionAvoidance-v1``'s columns of the same names (``involves_me``
    as it is) unless ``observation="physical"``.

    ## Rewards

    Per agent, the ``CollisionAvoidance-v1`` reward of its own debris, fuel and slot, plus
    ``risk_weight`` times the risk term (decades of Pc above ``pc_threshold``) of the sibling
    conjunctions it is in, and ``− risk_weight · collision_penalty`` if it collides with a
    sibling.

    ## Costs

    ``infos[agent]["cost"]``: Δv burnt by the agent in the step, m/s.

    ## Starting State

    Every satellite in its slot; the slots and debris are drawn from the seed.

    ## Episode End

    Any collision (with debris or between satellites) terminates every agent: the episode is
    the constellation operator's. Otherwise all terminate after ``episode_s`` (48 steps by
    default); ``max_cycles`` truncates earlier.

    ## Metrics

    ``infos[agent]["metrics"]``, the agent's own, over the episode so far: as
    ``CollisionAvoidance-v1``, with sibling conjunctions counted in ``collisions``,
    ``min_true_miss_m`` and ``max_pc``.

    ## Arguments

    - ``n_satellites`` (3), ``sibling_miss_range`` ((0, 500) m: sibling collisions happen
      unless someone burns).
    - ``max_cycles``: truncation horizon (None: the episode's 48 steps).
    - every argument of ``CollisionAvoidance-v1`` (``n_debris`` per satellite, 1 by default
      here) except ``cdm``, with ``backend="numpy"`` only (the siblings' encounters are designed
      with it); ``render_mode`` (``"ansi"``).

    ## References

    As ``CollisionAvoidance-v1``; OrbitZoo (a multi-agent orbital environment on Orekit).

    ## Version History

    - v1: normalised observations by default, as ``CollisionAvoidance-v1``.
    - v0: initial version.
    """

    metadata = {"name": "envzoo/Constellation-v1", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 4}
    task_class = ConstellationTask
