"""The per-period budgeted allocation of BCRLSP: given a value per (user, bonus level), choose one
level per user that maximises the total value with the spend within the budget. It is a
multiple-choice knapsack, solved exactly as a mixed-integer linear program with HiGHS
(:func:`scipy.optimize.milp`)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp


def allocate(values: np.ndarray, bonuses, budget: float) -> np.ndarray:
    """The levels (U,) maximising ``sum(values[u, level[u]])`` subject to
    ``sum(bonuses[level[u]]) <= budget``. ``values`` is (U, L); ``bonuses[0]`` must be 0 so that
    paying nothing is always feasible."""
    values = np.asarray(values, dtype=np.float64)
    users, levels = values.shape
    bonuses = np.asarray(bonuses, dtype=np.float64)
    if bonuses.shape != (levels,) or bonuses[0] != 0.0:
        raise ValueError(f"bonuses must have one entry per level ({levels}) and start at 0, got {bonuses!r}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget!r}")
    one_each = np.kron(np.eye(users), np.ones(levels))  # x[u, :] sums to 1
    spend = np.tile(bonuses, users)[None, :]
    result = milp(-values.ravel(), integrality=np.ones(users * levels), bounds=Bounds(0, 1),
                  constraints=[LinearConstraint(one_each, 1, 1), LinearConstraint(spend, -np.inf, budget)])
    if not result.success:
        raise RuntimeError(f"HiGHS found no allocation: {result.message}")
    return np.round(result.x).reshape(users, levels).argmax(axis=1)
