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

    As ``Portfolio-v1`` (``reward`` is ignored), including a user's data files as ``data`` (a CSV or Parquet file, a
    folder or a mapping ``{asset: file}``; see ``Portfolio-v1``):

    ```python
    import mo_gymnasium as mo_gym
    import envzoo  # registers the ids
    env = mo_gym.make("envzoo/PortfolioMO-v0", data="my_stocks/", n_assets=3, window=20)
    observation, info = env.reset(seed=0)
    observation, reward_vector, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## Version History

    - v0: initial version. Later, as ``Portfolio-v1``'s: a compiled book and running metrics.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    task_class = PortfolioTask
