"""Multi-objective face of the LOB market maker: the reward is a vector."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.marketmaking.lob.task import MarketMakingTask


class MarketMakingMOEnv(TaskMOEnv):
    """
    ## Description

    ``MarketMaking-v1`` with a vector reward for multi-objective RL (MO-Gymnasium API): the same
    data, clock, actions, observation (whose last-reward column keeps the named scalar reward),
    costs and metrics.

    ## Reward Space

    ``Box([-inf, -inf, -inf], [inf, 0, 0], (3,), float32)``, ``reward_dim = 3``, every component
    in units of one order's notional at the step's starting mid:

    1. PnL: the step's mark-to-market equity change (fills, inventory revaluation, fees and, on
       the last step, the cost of flattening);
    2. inventory risk: minus the squared inventory at the end of the step, in orders — the
       running penalty of Cartea & Jaimungal without its weight, which the user chooses;
    3. execution cost: minus the fees paid in the step. It is part of the PnL too; separating it
       lets a user trade PnL against aggressive (taker) execution, which the flatten action and
       the end-of-day liquidation pay for.

    ## Arguments

    As ``MarketMaking-v1`` (``reward`` still names the scalar in the observation), including a
    user's raw files as ``data`` with their format (see ``MarketMaking-v1``):

    ```python
    import mo_gymnasium as mo_gym
    import envzoo  # registers the ids
    files = {"format": "tardis-snapshot", "book": "book_snapshot_25.csv.gz", "trades": "trades.csv.gz"}
    env = mo_gym.make("envzoo/MarketMakingMO-v1", data=files)
    observation, info = env.reset(seed=0)
    ```

    ## Version History

    - v1: the ``differential_sharpe`` reward floors its variance estimate at the shared deviation
      floor (1e-4 per step): at an episode's start it exploded (thousands per step); every
      other reward, and the default, is unchanged.
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = MarketMakingTask
