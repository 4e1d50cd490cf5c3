"""Multi-objective face of the portfolio env: the reward is a vector."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.portfolio.task import PortfolioTask


class PortfolioMOEnv(TaskMOEnv):
    """
    ## Description

    ``Portfolio-v1`` with a vector reward, for multi-objective RL (MO-Gymnasium API): the same
    data, observation, actions, costs and metrics.

    ## Reward Space

    ``Box([-inf, -inf, -1], [inf, 0, 0], (3,), float32)``, ``reward_dim = 3``:

    1. log return: log(μ_t · w_t · y_{t+1}), net of costs;
    2. risk: minus the squared log return (``risk="squared"``, default) or minus its squared
       negative part (``risk="downside"``);
    3. turnover cost: minus the fraction of value paid in commission, −(1 − μ_t).

    ## Arguments

    As ``Portfolio-v1`` (``reward`` is ignored).

    ## Version History

    - v0: initial version. Later, as ``Portfolio-v1``'s: a compiled book and running metrics.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    task_class = PortfolioTask
