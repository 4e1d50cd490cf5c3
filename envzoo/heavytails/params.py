"""The parameters of the heavy-tailed tabular envs (:class:`HeavyTailParams`), built from the env
arguments by :func:`make_params` and checked there."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.checks import positive
from envzoo.heavytails.mdps import KINDS, make_mdp
from envzoo.heavytails.noise import FAMILIES
from envzoo.heavytails.planning import backward_induction


@dataclass(frozen=True, eq=False)
class HeavyTailParams:
    """A finite-horizon tabular MDP with heavy-tailed reward noise.

    Attributes:
        mdp: the MDP's kind (:mod:`envzoo.heavytails.mdps`).
        P: (S, A, S) transition probabilities; R: (S, A) mean rewards in [0, 1].
        horizon: steps per episode (H).
        noise: the noise family; v: its moment order (the (1+v)-th moment is finite); noise_scale.
        q_star: (H, S, A) the optimal Q of every step, v_star: (H + 1, S) the optimal values
            (by backward induction on the mean rewards); start: the start state.
    """

    mdp: str
    P: np.ndarray
    R: np.ndarray
    horizon: int
    noise: str
    v: float
    noise_scale: float
    q_star: np.ndarray
    v_star: np.ndarray
    start: int = 0

    @property
    def states(self) -> int:
        return self.P.shape[0]

    @property
    def actions(self) -> int:
        return self.P.shape[1]


def make_params(mdp: str = "riverswim", horizon: int = 20, noise: str = "pareto", v: float = 0.5,
                noise_scale: float = 0.5, states: int | None = None, actions: int | None = None,
                branching: int = 3, garnet_seed: int = 0) -> HeavyTailParams:
    """The parameters from the env's keyword arguments, checked.

    Args:
        mdp: ``riverswim``, ``chain``, ``grid`` or ``garnet``.
        horizon: steps per episode.
        noise: ``pareto``, ``lomax`` or ``student-t``.
        v: in (0, 1]: the rewards have a finite (1+v)-th moment (and none of order 1 + v + 0.1).
        noise_scale: the noise's scale.
        states, actions, branching, garnet_seed: the MDP's size (None: its default; actions and
            branching for garnet only; grid takes a square number of states).
    """
    if mdp not in KINDS:
        raise ValueError(f"mdp must be one of {KINDS}, got {mdp!r}")
    if noise not in FAMILIES:
        raise ValueError(f"noise must be one of {FAMILIES}, got {noise!r}")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
        raise ValueError(f"v must be in (0, 1] (the (1+v)-th moment of the rewards is finite), got {v!r}")
    positive("noise_scale", noise_scale)
    for name, value, least in (("horizon", horizon, 1), ("states", states, 2), ("actions", actions, 2),
                               ("branching", branching, 1), ("garnet_seed", garnet_seed, 0)):
        if value is None and name in ("states", "actions"):
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    if actions is not None and mdp != "garnet":
        raise ValueError(f"actions is set by the {mdp!r} MDP; give it for garnet only")
    if mdp == "grid" and states is not None and round(np.sqrt(states)) ** 2 != states:
        raise ValueError(f"the grid has a square number of states, got states={states}")
    if mdp == "garnet" and branching > (states or 10):
        raise ValueError(f"branching must be at most states, got {branching} > {states or 10}")
    P, R = make_mdp(mdp, states, actions, branching, garnet_seed)
    v_star, q_star = backward_induction(P, R, horizon)
    return HeavyTailParams(mdp, P, R, int(horizon), noise, float(v), float(noise_scale), q_star, v_star)
