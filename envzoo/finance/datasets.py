"""Real market data shipped with envzoo, and the same data read from the packages it came from.

:func:`load_dataset` reads the copies in ``envzoo/data/`` (their provenance, licences and the
script that made them are in ``envzoo/data/README.md``); it needs nothing beyond envzoo's own
dependencies and works from an installed wheel. :func:`from_skfolio` and :func:`from_arch` read
the live packages instead (``pip install "envzoo[finance]"``), e.g. to check that a copy still
matches its source.

========================  =================================  =======  ==========================
name                      content                            fields   dates
========================  =================================  =======  ==========================
``sp500-stocks``          20 S&P 500 stocks, adjusted close  close    1990-01-02 → 2022-12-28
``sp500-index``           S&P 500 index (asset ``SP500``)    OHLCV    1999-01-04 → 2018-12-31
``nasdaq-index``          NASDAQ Composite (``NASDAQ``)      OHLCV    1999-01-04 → 2018-12-31
========================  =================================  =======  ==========================

All are daily stock-market bars: ``periods_per_year`` = 252.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from envzoo.core.extras import require
from envzoo.core.user_files import looks_like_path
from envzoo.finance.loaders import align_bars, load_ohlcv, load_price_table, load_prices
from envzoo.finance.prices import PricePanel

TRADING_DAYS = 252


@dataclass(frozen=True)
class Dataset:
    """A shipped file: ``file`` in ``envzoo/data/``; ``asset`` names a one-asset OHLCV file's
    asset (None for a wide table of close prices); ``upstream`` says where the copy came from."""

    file: str
    asset: str | None
    upstream: str


DATASETS: dict[str, Dataset] = {
    "sp500-stocks": Dataset(
        "sp500_stocks.csv.gz", None,
        "skfolio 1.12.2, skfolio.datasets.load_sp500_dataset() (BSD-3-Clause)"),
    "factor-etfs": Dataset(
        "factor_etfs.csv.gz", None,
        "skfolio 1.12.2, skfolio.datasets.load_factors_dataset() (BSD-3-Clause)"),
    "sp500-index": Dataset(
        "sp500_index.csv.gz", "SP500",
        "arch 8.0.0, arch.data.sp500.load() (University of Illinois/NCSA licence)"),
    "nasdaq-index": Dataset(
        "nasdaq_index.csv.gz", "NASDAQ",
        "arch 8.0.0, arch.data.nasdaq.load() (University of Illinois/NCSA licence)"),
}

_ARCH = {"sp500": "SP500", "nasdaq": "NASDAQ"}


def load_dataset(name: str) -> PricePanel:
    """The shipped dataset ``name`` (one of :data:`DATASETS`) as a price panel.

    The files are read through :mod:`importlib.resources`, so this works from a wheel or a
    zipped install as well as from a source checkout.
    """
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; shipped datasets: {', '.join(DATASETS)}; "
                       f"or give {USER_DATA}")
    spec = DATASETS[name]
    with resources.as_file(resources.files("envzoo").joinpath("data", spec.file)) as path:
        if spec.asset is None:
            panel = load_price_table(path, periods_per_year=TRADING_DAYS, max_fill=0)
        else:
            panel = load_ohlcv({spec.asset: path}, periods_per_year=TRADING_DAYS, max_fill=0)
    return dataclasses.replace(panel, source=f"envzoo/data/{spec.file}: copy of {spec.upstream}")


def from_skfolio() -> PricePanel:
    """skfolio's ``load_sp500_dataset()`` (20 stocks, daily adjusted close), read from skfolio."""
    skfolio = require("finance", "skfolio")
    datasets = require("finance", "skfolio.datasets")
    prices = datasets.load_sp500_dataset()
    bars = {str(asset): prices[[asset]].set_axis(["close"], axis=1) for asset in prices.columns}
    return align_bars(bars, periods_per_year=TRADING_DAYS, max_fill=0,
                      source=f"skfolio {skfolio.__version__}, skfolio.datasets.load_sp500_dataset()")


def from_arch(name: str) -> PricePanel:
    """arch's daily index data, ``"sp500"`` or ``"nasdaq"`` (OHLCV; close is the unadjusted
    close, which equals arch's ``Adj Close`` for these indices), read from arch."""
    if name not in _ARCH:
        raise KeyError(f"unknown arch dataset {name!r}; choose among {', '.join(_ARCH)}")
    arch = require("finance", "arch")
    data = require("finance", f"arch.data.{name}").load()
    bars = data[["Open", "High", "Low", "Close", "Volume"]].set_axis(["open", "high", "low", "close", "volume"], axis=1)
    return align_bars({_ARCH[name]: bars.astype(float)}, periods_per_year=TRADING_DAYS, max_fill=0,
                      source=f"arch {arch.__version__}, arch.data.{name}.load()")


SYNTHETIC_PERIODS = 5000


@lru_cache(maxsize=8)
def _named_panel(name: str) -> PricePanel:
    """A shipped or synthetic panel by name, built once per process (envs never modify it)."""
    if name.startswith("synthetic"):
        from envzoo.finance.synthetic import synthetic_market

        preset = name.removeprefix("synthetic").removeprefix("-") or "stocks-daily"
        return synthetic_market(preset, n_periods=SYNTHETIC_PERIODS, seed=0)
    return load_dataset(name)


USER_DATA = ("the path of a CSV or Parquet file, a folder of them (one asset per file) or a mapping "
             "{asset: file}")


def resolve_panel(data) -> PricePanel:
    """A PricePanel from a panel, a shipped dataset name (see :data:`DATASETS`),
    ``"synthetic-<preset>"`` (``"synthetic"`` alone: ``stocks-daily``; 5000 bars, seed 0), or a
    user's files (:func:`~envzoo.finance.loaders.load_prices`): the path of a CSV or Parquet
    file, a folder of them or a mapping ``{asset: file}``."""
    if isinstance(data, PricePanel):
        return data
    if isinstance(data, Mapping) or (looks_like_path(data) and data not in DATASETS):
        return load_prices(data)
    if not isinstance(data, str):
        raise TypeError(f"data must be a PricePanel, a dataset name ({', '.join(DATASETS)}, "
                        f"synthetic-<preset>) or {USER_DATA}; got {type(data).__name__}")
    return _named_panel(data)
