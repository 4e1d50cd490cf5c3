"""The heavy-tailed tabular faces: ``RiverSwimHeavy-v0``, ``ChainHeavy-v0``, ``GridHeavy-v0`` and
``GarnetHeavy-v0``."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.heavytails.task import HeavyTailTask


class HeavyTailEnv(TaskEnv):
    """
    ## Description

    A finite-horizon tabular MDP (RiverSwim, Strens's chain, a small grid, or a random Garnet
    MDP) whose rewards are heavy-tailed: the reward of (s, a) is its mean R(s, a) in [0, 1]
    plus zero-mean noise with only a finite (1+v)-th moment, v in (0, 1] (Pareto, Lomax or
    Student-t with tail index 1 + v + 0.1: for v < 0.9 the variance is infinite). The means,
    transitions and horizon are known to the env, so the optimal values are exact (backward
    induction) and ``info`` carries a regret meter: a step's action gap V*_h(s) - Q*_h(s, a),
    whose sum over an episode has expectation exactly V*_0(s_0) - V^pi_0(s_0), the episode's
    regret (the performance-difference identity). This is the testbed of reinforcement learning
    with heavy-tailed rewards under differential privacy: robust mean estimators (truncated,
    median of means) against the empirical mean, with rewards privatized at the user (local
    DP) or by the learner (joint DP).

    ## Action Space

    ``Discrete(A)``: RiverSwim and chain 2 (0 left / forward, 1 right / back), grid 4 (up,
    right, down, left), garnet ``actions``.

    ## Observation Space

    ``MultiDiscrete([S, H + 1])``: the state and the step h (0 .. H).

    ## Rewards

    R(s, a) + noise: ``pareto`` scale × (X − α/(α − 1)) with X Pareto(α) (one-sided), ``lomax``
    a Lomax(α) magnitude with a random sign, ``student-t`` scale × T(α); α = 1 + v + 0.1.

    ## Starting State

    State 0 at step 0.

    ## Episode End

    Terminated after ``horizon`` steps (the horizon is part of the problem: the step is
    observed and nothing follows it).

    ## Metrics

    ``info["regret"]``: the step's action gap (0 for an optimal action), ``info["mean_reward"]``:
    R(s, a). ``info["metrics"]``: ``episode_return``, ``episode_regret`` (the summed gaps),
    ``optimal_value`` (V*_0(s_0)).

    ## Arguments

    ``mdp`` (``"riverswim"``, ``"chain"``, ``"grid"``, ``"garnet"``), ``horizon``, ``noise``
    (``"pareto"``, ``"lomax"``, ``"student-t"``), ``v`` (0.5), ``noise_scale`` (0.5),
    ``states``, ``actions``, ``branching``, ``garnet_seed`` (the MDP's size and draw),
    ``render_mode``.

    ## References

    Strehl & Littman 2008 (RiverSwim); Osband, Russo & Van Roy 2013; Strens 2000 (chain);
    Archibald, McKinnon & Thomas 1995 (Garnet); Bubeck, Cesa-Bianchi & Lugosi 2013 (bandits
    with heavy tails: truncated mean, median of means); Azar, Osband & Munos 2017 (UCBVI).

    ## Version History

    - v0: initial version.
    """

    task_class = HeavyTailTask
