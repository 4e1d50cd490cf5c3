"""Aligned price panels: the one representation of OHLCV market data that finance envs read."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.core.errors import DataFormatError

FIELDS = ("open", "high", "low", "close", "volume")


@dataclass(frozen=True)
class PricePanel:
    """Prices of N assets at T common timestamps.

    Attributes:
        times: (T,) ``datetime64[ns]``, strictly increasing.
        assets: N asset names.
        fields: name -> (T, N) float64 array. ``close`` is required; ``open``, ``high``, ``low``
            and ``volume`` are optional. Prices are finite and > 0; volume finite and >= 0.
        periods_per_year: bars per year, for annualising (252 daily stocks, 365 daily crypto,
            17520 for 30-minute crypto bars).
        source: where the data came from (file, package dataset, generator and seed).
    """

    times: np.ndarray
    assets: tuple[str, ...]
    fields: dict[str, np.ndarray] = field(repr=False)
    periods_per_year: float
    source: str = ""

    def __post_init__(self):
        times = np.asarray(self.times).astype("datetime64[ns]")
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "assets", tuple(str(a) for a in self.assets))
        if "close" not in self.fields:
            raise DataFormatError(f"{self.source}: a price panel needs a 'close' field; got {sorted(self.fields)}")
        unknown = set(self.fields) - set(FIELDS)
        if unknown:
            raise DataFormatError(f"{self.source}: unknown fields {sorted(unknown)}; allowed {FIELDS}")
        if times.ndim != 1 or (times.size > 1 and np.any(np.diff(times) <= np.timedelta64(0))):
            raise DataFormatError(f"{self.source}: timestamps must be strictly increasing")
        if self.periods_per_year <= 0:
            raise ValueError(f"periods_per_year must be > 0, got {self.periods_per_year}")
        shape = (times.size, len(self.assets))
        for name, values in self.fields.items():
            values = np.asarray(values, dtype=np.float64)
            if values.shape != shape:
                raise DataFormatError(f"{self.source}: field {name!r} has shape {values.shape}, expected {shape}")
            bad = ~np.isfinite(values) | ((values <= 0) if name != "volume" else (values < 0))
            if bad.any():
                row, column = np.argwhere(bad)[0]
                raise DataFormatError(
                    f"{self.source}: {name} of {self.assets[column]!r} at {times[row]} is {values[row, column]!r}; "
                    "prices must be finite and > 0 (volume >= 0)")
            self.fields[name] = values

    @property
    def n_times(self) -> int:
        return self.times.size

    @property
    def n_assets(self) -> int:
        return len(self.assets)

    def field(self, name: str) -> np.ndarray:
        try:
            return self.fields[name]
        except KeyError:
            raise KeyError(f"this panel has no {name!r} field; it has {sorted(self.fields)}") from None

    def between(self, start=None, end=None) -> "PricePanel":
        """Rows with ``start <= time < end`` (either may be None)."""
        keep = np.ones(self.n_times, dtype=bool)
        if start is not None:
            keep &= self.times >= np.datetime64(start, "ns")
        if end is not None:
            keep &= self.times < np.datetime64(end, "ns")
        return PricePanel(self.times[keep], self.assets, {k: v[keep] for k, v in self.fields.items()},
                          self.periods_per_year, self.source)

    def select(self, assets) -> "PricePanel":
        """Columns for the given asset names (in that order)."""
        missing = [a for a in assets if a not in self.assets]
        if missing:
            raise KeyError(f"assets {missing} are not in this panel ({', '.join(self.assets)})")
        index = [self.assets.index(a) for a in assets]
        return PricePanel(self.times, tuple(assets), {k: v[:, index] for k, v in self.fields.items()},
                          self.periods_per_year, self.source)


def split_period(times: np.ndarray, split: str, first_usable: int, episode_steps: int,
                 test_start=None) -> tuple[int, int, str]:
    """First and last decision bars of a train or test period, and the test start date.

    A decision at bar t is marked at bar t + 1, so the train period's last decision bar is the
    bar before ``test_start`` (nothing of the test period is seen in training) and the test
    period ends one bar before the data. ``first_usable`` is the first bar with a full history
    (observation window, indicator warm-up). ``test_start`` defaults to the bar 80 % into the
    data. Raises ValueError when the train period cannot hold one episode or the test period
    is empty.
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    T = times.size
    split_at = int(0.8 * T) if test_start is None else int(np.searchsorted(times, np.datetime64(test_start, "ns")))
    start_date = str(times[min(split_at, T - 1)])[:10]
    if split == "train":
        first, last = first_usable, split_at - 1
        if last - first < episode_steps:
            raise ValueError(f"too few bars for episode_steps = {episode_steps}: the train period (before "
                             f"{start_date}) needs {first_usable + episode_steps + 1} bars ({first_usable} of "
                             f"history, then {episode_steps + 1}), the data have {split_at} there ({T} bars in "
                             "all): move test_start later, shorten episode_steps or give more data")
    else:
        first, last = max(split_at, first_usable), T - 1
        if last - first < 1:
            raise ValueError(f"the test period (from {start_date}) has no step: it needs {first + 2 - split_at} or "
                             f"more bars, the data have {T - split_at} there: move test_start earlier")
    return first, last, start_date


def episode_starts(u, first_bar, last_bar, episode_steps):
    """The first bars of train episodes from uniforms ``u`` in (0, 1): uniform over the bars from
    ``first_bar`` that leave ``episode_steps`` decisions up to ``last_bar`` (from
    :func:`split_period`). NumPy and JAX arrays alike, so that the JAX cores draw the CPU's bars."""
    span = last_bar - episode_steps - first_bar + 1
    return first_bar + (u * span).astype(np.int64)  # u * span >= 0: truncation is the floor


@kernel
def _windows(stack, t, assets, length, close_index):
    """Universe.window, compiled: one pass over the output instead of a gather, a transpose and
    a division of the whole batch."""
    rows, n_assets = assets.shape
    n_features = stack.shape[2]
    out = np.empty((rows, n_features, n_assets, length))
    for b in range(rows):
        first = t[b] - length + 1
        for n in range(n_assets):
            asset = assets[b, n]
            latest = stack[t[b], asset, close_index]
            for f in range(n_features):
                for w in range(length):
                    out[b, f, n, w] = stack[first + w, asset, f] / latest
    return out


@dataclass(frozen=True)
class Universe:
    """The panel as arrays the batch indexes: features (T, N_all, F) and closes (T, N_all)."""

    panel: PricePanel
    features: tuple[str, ...]

    def __post_init__(self):
        missing = [f for f in self.features if f not in self.panel.fields]
        if missing:
            raise ValueError(f"features {missing} are not in the data (it has {sorted(self.panel.fields)}); "
                             "choose features among those")
        if "close" not in self.features:
            raise ValueError("features must include 'close' (the observation is normalised by it)")
        object.__setattr__(self, "_stack", np.stack([self.panel.field(f) for f in self.features], -1))

    @property
    def close_index(self) -> int:
        return self.features.index("close")

    @property
    def close(self) -> np.ndarray:
        return self.panel.field("close")

    def window(self, t: np.ndarray, assets: np.ndarray, length: int) -> np.ndarray:
        """(B, F, N, W) features over bars t-W+1..t of each row's assets, / the close at t."""
        t, assets = np.asarray(t, dtype=np.int64), np.asarray(assets, dtype=np.int64)
        bars, n_all = self._stack.shape[:2]
        # The kernel checks no index: a bar or an asset out of range is an error here.
        if t.size and (t.min() < length - 1 or t.max() >= bars):
            raise ValueError(f"a window of {length} bars needs {length - 1} <= t < {bars}, got t from {t.min()} to {t.max()}")
        if assets.size and (assets.min() < 0 or assets.max() >= n_all):
            raise ValueError(f"asset indices must lie in [0, {n_all}), got {assets.min()} to {assets.max()}")
        return _windows(self._stack, t, assets, int(length), self.close_index)

    def relatives(self, t: np.ndarray, assets: np.ndarray) -> np.ndarray:
        """(B, N+1) price relatives from bar t to t+1, cash (1) first."""
        y = self.close[t[:, None] + 1, assets] / self.close[t[:, None], assets]
        return np.concatenate([np.ones((t.size, 1)), y], axis=1)
