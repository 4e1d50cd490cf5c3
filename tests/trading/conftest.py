import numpy as np
import pandas as pd
import pytest

from envzoo.finance.prices import PricePanel


def ohlcv_panel(T=1500, seed=0, start="2010-01-04", close=None, assets=("SPX",)):
    """A geometric-random-walk daily OHLCV panel on business days (independent of the data layer)."""
    rng = np.random.default_rng(seed)
    N = len(assets)
    if close is None:
        close = 1000 * np.exp(np.cumsum(rng.normal(0.0003, 0.012, (T, N)), axis=0))
    close = np.asarray(close, dtype=np.float64).reshape(T, N)
    opens = close * np.exp(rng.normal(0, 0.004, (T, N)))
    spread = np.exp(np.abs(rng.normal(0, 0.006, (T, N))))
    high, low = np.maximum(opens, close) * spread, np.minimum(opens, close) / spread
    volume = rng.uniform(1e9, 3e9, (T, N))
    times = pd.bdate_range(start, periods=T).values
    return PricePanel(times, assets, {"open": opens, "high": high, "low": low, "close": close, "volume": volume},
                      252.0, f"test panel seed {seed}")


@pytest.fixture
def make_panel():
    return ohlcv_panel


@pytest.fixture
def panel():
    return ohlcv_panel()
