import numpy as np
import pytest

from envzoo.finance.prices import PricePanel


def make_panel(T=400, N=4, seed=0):
    rng = np.random.default_rng(seed)
    close = 100 * np.exp(np.cumsum(rng.normal(0.0003, 0.015, (T, N)), axis=0))
    spread = np.exp(np.abs(rng.normal(0, 0.004, (T, N))))
    return PricePanel(np.datetime64("2020-01-01") + np.arange(T).astype("timedelta64[D]"),
                      [f"A{i}" for i in range(N)],
                      {"close": close, "high": close * spread, "low": close / spread}, 252, "test panel")


@pytest.fixture
def panel():
    return make_panel()
