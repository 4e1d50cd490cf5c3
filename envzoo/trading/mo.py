"""Multi-objective face of the trading env: the reward is a vector."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.trading.task import TradingTask


class TradingMOEnv(TaskMOEnv):
    """
    ## Description

    ``Trading-v1`` with a vector reward, for multi-objective RL (MO-Gymnasium API): the same
    data, indicators, actions, observation, costs and metrics, so that a user can trade return
    against risk and trading costs instead of fixing the trade-off in the reward.

    ## Reward Space

    ``Box([-inf, -inf, -1], [inf, 0, 0], (3,), float32)``, ``reward_dim = 3``, per step:

    1. return: the scalar reward of ``Trading-v1`` (``reward="pnl"``: (E_{t+1} − E_t) / E_0, the
       default; ``reward="log_return"``: log(E_{t+1} / E_t)), net of costs;
    2. risk: minus the squared log return of the step, −log(E_{t+1} / E_t)²;
    3. costs: minus the fees and slippage of the step as a fraction of the equity before the
       trade, −``info["cost"]``.

    The scalar ``Trading-v1`` reward is the first component (weights (1, 0, 0)); MO-Gymnasium's
    ``LinearReward`` with those weights gives the same number.

    ## Arguments

    As ``Trading-v1``, including a user's data files as ``data`` (a CSV or Parquet file, a
    folder or a mapping ``{asset: file}``; see ``Trading-v1``):

    ```python
    import mo_gymnasium as mo_gym
    import envzoo  # registers the ids
    env = mo_gym.make("envzoo/TradingMO-v1", data="my_prices.csv", episode_steps=100)
    observation, info = env.reset(seed=0)
    observation, reward_vector, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## Version History

    - v1: as ``Trading-v1``: a seed's start bar is drawn from the episode's key, so episodes
      differ from v0's; the registry's ``reward_scale`` measured again.
    - v0: initial version. As ``Trading-v0``'s: a compiled simulator, and ``info["metrics"]``
      with an episode's last step only.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = TradingTask
