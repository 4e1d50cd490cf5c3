"""A seeded synthetic market: correlated geometric Brownian motion with optional bull/bear regime
switching and Poisson jumps, as OHLCV bars in a :class:`~envzoo.finance.prices.PricePanel`.

The model, per asset ``i`` and bar ``t`` (``dt = 1 / periods_per_year``; drifts and vols are
annual):

* **Regime.** ``s_t`` in {0 = bull, 1 = bear} is a two-state Markov chain that switches with
  per-bar probabilities ``p_bull_to_bear`` and ``p_bear_to_bull``; ``s_0`` is drawn from its
  stationary distribution, in which the bear share is ``p_bull_to_bear / (p_bull_to_bear +
  p_bear_to_bull)``. The bull regime uses ``drift`` and ``vol``; the bear regime
  ``bear_drift`` and ``vol * bear_vol_multiplier``. Without regime switching every bar is bull.
* **Jumps.** ``K_{t,i} ~ Poisson(intensity * dt)`` jumps, each with a normal log size
  ``N(jump mean, jump std^2)``: the bar's log jump is ``J = K*mean + sqrt(K)*std*eta``.
  Jumps happen at the start of a bar: ``open_t = close_{t-1} * exp(J)`` (a gap), and
  ``open_t = close_{t-1}`` on bars without a jump.
* **Diffusion.** ``close_t = open_t * exp(b)`` with ``b = (mu - sigma^2/2) dt + sigma sqrt(dt) z``,
  ``z ~ N(0, C)`` correlated across assets by the correlation matrix ``C``. So ``mu`` is the
  arithmetic drift of the diffusion (the expected simple return per year without jumps), and
  log returns have mean ``(mu - sigma^2/2) dt + intensity * dt * jump_mean`` per bar.
* **High and low.** Drawn from the exact distribution of the maximum and of the minimum of a
  Brownian motion over the bar given its end point ``b`` (Brownian-bridge extremes):
  ``log(high/open) = (b + sqrt(b^2 - 2 sigma^2 dt ln U)) / 2`` and ``log(low/open) = (b -
  sqrt(b^2 - 2 sigma^2 dt ln U')) / 2``, ``U, U'`` uniform on (0, 1] and independent (each
  marginal is exact; their dependence is ignored). Hence
  ``low <= min(open, close) <= max(open, close) <= high`` on every bar.
* **Volume.** ``volume_base * (|z| + 1/2) / (E|z| + 1/2) * exp(volume_noise * xi -
  volume_noise^2 / 2)``, ``xi ~ N(0, 1)``: positive, mean ``volume_base``, higher on bars with
  large moves (the volume-volatility relation).

Every number comes from ``numpy.random.default_rng(seed)``, drawn in a fixed order, so a seed
gives the same market in any process.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from envzoo.finance.prices import PricePanel


@dataclass(frozen=True)
class RegimeSwitching:
    """Bull/bear regime switching; the bull regime uses the market's ``drift`` and ``vol``.

    Attributes:
        bear_drift: annual drift in the bear regime (scalar or one per asset).
        bear_vol_multiplier: bear-regime vol = ``vol * bear_vol_multiplier`` (> 0).
        p_bull_to_bear: probability per bar of switching from bull to bear, in (0, 1].
        p_bear_to_bull: probability per bar of switching from bear to bull, in (0, 1].
    """

    bear_drift: float | np.ndarray = -0.3
    bear_vol_multiplier: float = 1.5
    p_bull_to_bear: float = 0.01
    p_bear_to_bull: float = 0.02

    def __post_init__(self):
        if self.bear_vol_multiplier <= 0:
            raise ValueError(f"bear_vol_multiplier must be > 0, got {self.bear_vol_multiplier}")
        for name in ("p_bull_to_bear", "p_bear_to_bull"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in (0, 1], got {getattr(self, name)}")

    @property
    def stationary_bear_share(self) -> float:
        """Long-run fraction of bars in the bear regime."""
        return self.p_bull_to_bear / (self.p_bull_to_bear + self.p_bear_to_bull)


@dataclass(frozen=True)
class Jumps:
    """Poisson jumps with normal log sizes, independent across assets.

    Attributes:
        intensity: expected number of jumps per asset per year (>= 0).
        mean: mean of a jump's log size (negative: crashes on average).
        std: standard deviation of a jump's log size (>= 0).
    """

    intensity: float = 10.0
    mean: float = 0.0
    std: float = 0.05

    def __post_init__(self):
        if self.intensity < 0 or self.std < 0:
            raise ValueError(f"jump intensity and std must be >= 0, got {self.intensity}, {self.std}")


@dataclass(frozen=True)
class MarketParams:
    """Parameters of :func:`simulate_market`. Per-asset values may be scalars (shared) or arrays
    of length ``n_assets``.

    Attributes:
        n_assets: number of assets.
        periods_per_year: bars per year; ``dt = 1 / periods_per_year``.
        freq: pandas offset alias of the bar timestamps (``"30min"``, ``"B"`` for business days);
            it labels the bars and does not change the dynamics.
        start: timestamp of the first bar.
        drift: annual arithmetic drift ``mu`` of the diffusion (bull regime).
        vol: annual volatility ``sigma`` of the diffusion (bull regime), > 0.
        correlation: correlation of the diffusion shocks across assets: a float ``rho`` (every
            pair; a one-factor model with loading ``sqrt(rho)`` when ``rho >= 0``) or an
            ``(n_assets, n_assets)`` correlation matrix (see :func:`one_factor_correlation`).
        regimes: bull/bear switching, or None for a single regime.
        jumps: Poisson jumps, or None for none.
        initial_price: the price before the first bar (the first open, unless a jump gaps it), > 0.
        volume_base: mean volume per bar, > 0.
        volume_noise: standard deviation of the log-normal volume noise, >= 0.
        assets: asset names; None names them ``asset00, asset01, ...``.
    """

    n_assets: int
    periods_per_year: float
    freq: str
    start: str = "2020-01-01"
    drift: float | np.ndarray = 0.05
    vol: float | np.ndarray = 0.2
    correlation: float | np.ndarray = 0.0
    regimes: RegimeSwitching | None = None
    jumps: Jumps | None = None
    initial_price: float | np.ndarray = 100.0
    volume_base: float | np.ndarray = 1e6
    volume_noise: float = 0.5
    assets: tuple[str, ...] | None = None

    def __post_init__(self):
        if self.n_assets < 1 or self.periods_per_year <= 0:
            raise ValueError(f"need n_assets >= 1 and periods_per_year > 0, got {self.n_assets}, "
                             f"{self.periods_per_year}")
        self.per_asset("drift")  # validates the shape
        for name in ("vol", "initial_price", "volume_base"):
            if np.any(self.per_asset(name) <= 0):
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if self.regimes is not None:
            _broadcast(self.regimes.bear_drift, self.n_assets, "bear_drift")
        if self.volume_noise < 0:
            raise ValueError(f"volume_noise must be >= 0, got {self.volume_noise}")
        if self.assets is not None and len(self.assets) != self.n_assets:
            raise ValueError(f"{len(self.assets)} asset names for {self.n_assets} assets")
        self.correlation_matrix()  # validates

    def per_asset(self, name: str) -> np.ndarray:
        """Attribute ``name`` broadcast to one float per asset."""
        return _broadcast(getattr(self, name), self.n_assets, name)

    def correlation_matrix(self) -> np.ndarray:
        """The ``(n_assets, n_assets)`` correlation matrix, checked to be a valid one."""
        n = self.n_assets
        if np.ndim(self.correlation) == 0:
            corr = np.full((n, n), float(self.correlation))
            np.fill_diagonal(corr, 1.0)
        else:
            corr = np.asarray(self.correlation, dtype=np.float64)
        if corr.shape != (n, n) or not np.allclose(corr, corr.T) or not np.allclose(np.diag(corr), 1.0):
            raise ValueError(f"correlation must be a float or a symmetric {n}x{n} matrix with unit diagonal")
        if np.linalg.eigvalsh(corr).min() < -1e-10:
            hint = f" (a common rho must be >= {-1 / (n - 1):.4g})" if np.ndim(self.correlation) == 0 else ""
            raise ValueError(f"correlation matrix is not positive semi-definite{hint}")
        return corr

    def asset_names(self) -> tuple[str, ...]:
        width = max(2, len(str(self.n_assets - 1)))
        return self.assets or tuple(f"asset{i:0{width}d}" for i in range(self.n_assets))


@dataclass(frozen=True)
class MarketPath:
    """A simulated market and its hidden state.

    Attributes:
        panel: the OHLCV bars.
        regimes: (T,) int8, 0 = bull and 1 = bear, per bar.
        jump_counts: (T, N) number of jumps at the start of each bar.
        shocks: (T, N) the standardised, correlated diffusion shocks ``z``.
    """

    panel: PricePanel
    regimes: np.ndarray
    jump_counts: np.ndarray
    shocks: np.ndarray


def _broadcast(value, n_assets: int, name: str) -> np.ndarray:
    """A scalar or per-asset parameter as one float per asset."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim > 1 or array.size not in (1, n_assets):
        raise ValueError(f"{name} must be a scalar or have {n_assets} values, got shape {array.shape}")
    return np.broadcast_to(array, (n_assets,)).copy()


def one_factor_correlation(loadings) -> np.ndarray:
    """Correlation matrix of a one-factor model: asset ``i``'s shock is ``beta_i * F +
    sqrt(1 - beta_i^2) * e_i``, so ``corr_ij = beta_i * beta_j`` (|beta| <= 1)."""
    beta = np.asarray(loadings, dtype=np.float64)
    if beta.ndim != 1 or np.any(np.abs(beta) > 1):
        raise ValueError(f"loadings must be a 1-d array with values in [-1, 1], got {loadings}")
    corr = np.outer(beta, beta)
    np.fill_diagonal(corr, 1.0)
    return corr


def _crypto_30m(n_assets: int) -> MarketParams:
    """30-minute bars of a crypto market, the setting of Jiang, Xu & Liang (2017): around the
    clock (17520 bars a year), annual vols from 60 % (a large coin) to 120 % (small ones),
    pairwise correlation 0.6, bull markets lasting 90 days on average and bear markets 45,
    about one jump a month per coin."""
    bars_per_day = 48
    return MarketParams(
        n_assets=n_assets, periods_per_year=17520, freq="30min", start="2020-01-01",
        drift=0.5, vol=np.linspace(0.6, 1.2, n_assets), correlation=0.6,
        regimes=RegimeSwitching(bear_drift=-0.8, bear_vol_multiplier=1.5,
                                p_bull_to_bear=1 / (90 * bars_per_day), p_bear_to_bull=1 / (45 * bars_per_day)),
        jumps=Jumps(intensity=12, mean=-0.01, std=0.05),
        initial_price=100.0, volume_base=1e4,
    )


def _stocks_daily(n_assets: int) -> MarketParams:
    """Daily bars of a stock market (252 business days a year): annual vols from 15 % to 40 %,
    pairwise correlation 0.3, bull markets lasting about four years and bear markets about one,
    about two jumps a year per stock."""
    return MarketParams(
        n_assets=n_assets, periods_per_year=252, freq="B", start="2000-01-03",
        drift=0.10, vol=np.linspace(0.15, 0.40, n_assets), correlation=0.3,
        regimes=RegimeSwitching(bear_drift=-0.20, bear_vol_multiplier=1.8,
                                p_bull_to_bear=1 / (4 * 252), p_bear_to_bull=1 / 252),
        jumps=Jumps(intensity=2, mean=-0.02, std=0.06),
        initial_price=50.0, volume_base=1e6,
    )


PRESETS = {"crypto-30m": _crypto_30m, "stocks-daily": _stocks_daily}
_DEFAULT_ASSETS = {"crypto-30m": 11, "stocks-daily": 20}


def market_params(preset: str, n_assets: int | None = None, **overrides) -> MarketParams:
    """The parameters of a preset (``"crypto-30m"`` or ``"stocks-daily"``), with ``n_assets``
    (default 11 and 20) and any :class:`MarketParams` field replaced by ``overrides``."""
    if preset not in PRESETS:
        raise KeyError(f"unknown synthetic market preset {preset!r}; presets: {', '.join(PRESETS)}")
    params = PRESETS[preset](n_assets or _DEFAULT_ASSETS[preset])
    return dataclasses.replace(params, **overrides)


def synthetic_market(
    preset: str | MarketParams = "stocks-daily",
    *,
    n_assets: int | None = None,
    n_periods: int = 2520,
    seed: int | None = 0,
    **overrides,
) -> PricePanel:
    """A synthetic OHLCV price panel.

    Args:
        preset: ``"crypto-30m"`` (11 coins, 30-minute bars, ``periods_per_year`` 17520),
            ``"stocks-daily"`` (20 stocks, business days, 252), or a :class:`MarketParams`.
        n_assets: number of assets of a preset (default 11 for crypto, 20 for stocks).
        n_periods: number of bars T.
        seed: seed of ``numpy.random.default_rng``; the same seed gives the same panel.
        **overrides: :class:`MarketParams` fields replacing the preset's (e.g. ``jumps=None``).
    """
    if isinstance(preset, MarketParams):
        params = dataclasses.replace(preset, **overrides)
        if n_assets is not None and n_assets != params.n_assets:
            raise ValueError(f"n_assets={n_assets} disagrees with the parameters' {params.n_assets}")
    else:
        params = market_params(preset, n_assets, **overrides)
    return simulate_market(params, n_periods, seed).panel


def simulate_market(params: MarketParams, n_periods: int, seed: int | None = 0) -> MarketPath:
    """Simulate ``n_periods`` bars of the market (model in the module docstring)."""
    if n_periods < 1:
        raise ValueError(f"n_periods must be >= 1, got {n_periods}")
    rng = np.random.default_rng(seed)
    shape = (n_periods, params.n_assets)
    dt = 1.0 / params.periods_per_year

    regimes = _regime_path(params.regimes, n_periods, rng)
    drift, vol = _regime_parameters(params, regimes)
    shocks = rng.standard_normal(shape) @ _matrix_root(params.correlation_matrix()).T
    counts, log_jump = _jumps(params.jumps, shape, dt, rng)

    step = (drift - 0.5 * vol**2) * dt + vol * np.sqrt(dt) * shocks
    bar_var = vol**2 * dt
    up = 0.5 * (step + np.sqrt(step**2 - 2 * bar_var * np.log(1.0 - rng.uniform(size=shape))))
    down = 0.5 * (step - np.sqrt(step**2 - 2 * bar_var * np.log(1.0 - rng.uniform(size=shape))))

    log_open = np.log(params.per_asset("initial_price")) + np.cumsum(log_jump, axis=0)
    log_open[1:] += np.cumsum(step, axis=0)[:-1]
    fields = {
        "open": np.exp(log_open),
        "high": np.exp(log_open + up),
        "low": np.exp(log_open + down),
        "close": np.exp(log_open + step),
        "volume": _volume(params, shocks, rng),
    }
    times = pd.date_range(params.start, periods=n_periods, freq=params.freq).to_numpy()
    source = f"synthetic_market(seed={seed}): {params}"
    panel = PricePanel(times, params.asset_names(), fields, params.periods_per_year, source)
    return MarketPath(panel, regimes, counts, shocks)


def _regime_path(regimes: RegimeSwitching | None, n_periods: int, rng) -> np.ndarray:
    """The bull (0) / bear (1) chain, started from its stationary distribution."""
    path = np.zeros(n_periods, dtype=np.int8)
    if regimes is None:
        return path
    u = rng.uniform(size=n_periods)
    leave = (regimes.p_bull_to_bear, regimes.p_bear_to_bull)
    state = int(u[0] < regimes.stationary_bear_share)
    path[0] = state
    for t in range(1, n_periods):
        if u[t] < leave[state]:
            state = 1 - state
        path[t] = state
    return path


def _regime_parameters(params: MarketParams, regimes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(T, N) drift and vol of each bar, from its regime."""
    drift, vol = params.per_asset("drift"), params.per_asset("vol")
    if params.regimes is None:
        return np.tile(drift, (regimes.size, 1)), np.tile(vol, (regimes.size, 1))
    bear_drift = _broadcast(params.regimes.bear_drift, params.n_assets, "bear_drift")
    bear = regimes[:, None] == 1
    return (np.where(bear, bear_drift, drift),
            np.where(bear, vol * params.regimes.bear_vol_multiplier, vol))


def _matrix_root(corr: np.ndarray) -> np.ndarray:
    """L with L @ L.T = corr; eigen-based, so semi-definite matrices (rho = 1) work too."""
    values, vectors = np.linalg.eigh(corr)
    return vectors * np.sqrt(np.clip(values, 0.0, None))


def _jumps(jumps: Jumps | None, shape, dt: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Jump counts and the summed log jump of each bar and asset."""
    if jumps is None:
        return np.zeros(shape, dtype=np.int64), np.zeros(shape)
    counts = rng.poisson(jumps.intensity * dt, size=shape)
    log_jump = counts * jumps.mean + np.sqrt(counts) * jumps.std * rng.standard_normal(shape)
    return counts, log_jump


def _volume(params: MarketParams, shocks: np.ndarray, rng) -> np.ndarray:
    mean_abs = np.sqrt(2 / np.pi)  # E|z| for z ~ N(0, 1)
    activity = (np.abs(shocks) + 0.5) / (mean_abs + 0.5)
    s = params.volume_noise
    noise = np.exp(s * rng.standard_normal(shocks.shape) - 0.5 * s**2)
    return params.per_asset("volume_base") * activity * noise
