"""Price loaders: round trips through each file format, the alignment and forward-fill rule,
errors that name file, row and column, and the shipped real datasets."""

import sys

import numpy as np
import pandas as pd
import pytest

from envzoo.finance import datasets
from envzoo.core.errors import DataFormatError, MissingExtraError
from envzoo.finance.loaders import (
    infer_periods_per_year,
    load_binance_klines,
    load_ohlcv,
    load_price_table,
)

DAYS = pd.bdate_range("2021-01-04", periods=8)


def bars(seed, times=DAYS):
    """Consistent OHLCV bars (low <= open, close <= high) with awkward float values."""
    rng = np.random.default_rng(seed)
    close = 100 * np.exp(np.cumsum(rng.normal(0, 0.02, len(times))))
    open_ = close * np.exp(rng.normal(0, 0.01, len(times)))
    high = np.maximum(open_, close) * (1 + rng.uniform(0, 0.02, len(times)))
    low = np.minimum(open_, close) * (1 - rng.uniform(0, 0.02, len(times)))
    volume = rng.integers(1, 10**6, len(times)).astype(float)
    return pd.DataFrame({"open": open_, "high": high, "low": low, "close": close, "volume": volume},
                        index=pd.DatetimeIndex(times, name="date"))


def write_csv(path, frame, header=None):
    """``frame`` as a CSV whose columns are renamed to ``header`` (to test name matching)."""
    out = frame.reset_index()
    if header:
        out.columns = header
    out.to_csv(path, index=False)
    return path


def assert_panel_matches(panel, frames):
    assert list(panel.assets) == list(frames)
    for j, frame in enumerate(frames.values()):
        np.testing.assert_array_equal(panel.times, frame.index.to_numpy())
        for name in frame.columns:
            np.testing.assert_array_equal(panel.field(name)[:, j], frame[name].to_numpy())


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------


def test_one_csv_per_asset_round_trips_exactly_with_any_column_case(tmp_path):
    frames = {"AAA": bars(1), "BBB": bars(2)}
    files = {
        "AAA": write_csv(tmp_path / "a.csv", frames["AAA"], ["Date", "Open", "High", "Low", "Close", "Volume"]),
        "BBB": write_csv(tmp_path / "b.csv.gz", frames["BBB"], ["TIMESTAMP", "OPEN", "high", "LOW", "close", "Vol"]),
    }
    panel = load_ohlcv(files)
    assert_panel_matches(panel, frames)
    assert list(panel.fields) == ["open", "high", "low", "close", "volume"]
    assert panel.periods_per_year == 252  # business days, inferred
    assert str(files["AAA"]) in panel.source


def test_a_folder_is_one_asset_per_file_named_by_the_file(tmp_path):
    frames = {"AAA": bars(1), "BBB": bars(2)}
    for asset, frame in frames.items():
        write_csv(tmp_path / f"{asset}.csv", frame)
    (tmp_path / "README.txt").write_text("not a price file")
    assert_panel_matches(load_ohlcv(tmp_path), frames)


def test_adjusted_uses_adj_close_and_scales_open_high_low_but_not_volume(tmp_path):
    frame = bars(3)
    raw = frame.assign(**{"Adj Close": frame["close"] * 0.5})
    panel = load_ohlcv({"X": write_csv(tmp_path / "x.csv", raw)}, adjusted=True)
    for name in ("open", "high", "low", "close"):
        np.testing.assert_allclose(panel.field(name)[:, 0], frame[name] * 0.5, rtol=1e-15)
    np.testing.assert_array_equal(panel.field("volume")[:, 0], frame["volume"])
    unadjusted = load_ohlcv({"X": tmp_path / "x.csv"})
    np.testing.assert_array_equal(unadjusted.field("close")[:, 0], frame["close"])


def test_long_table_with_shuffled_rows_is_sorted_and_split_by_symbol(tmp_path):
    frames = {"BTC": bars(4), "ETH": bars(5)}
    long = pd.concat([f.reset_index().assign(Symbol=a) for a, f in frames.items()])
    long.sample(frac=1, random_state=0).to_csv(tmp_path / "long.csv", index=False)
    assert_panel_matches(load_price_table(tmp_path / "long.csv"), frames)


def test_wide_table_keeps_asset_names_and_trims_to_the_common_span(tmp_path):
    wide = pd.DataFrame({"Date": DAYS, "Apple": np.arange(1.0, 9.0), "MSFT": np.arange(11.0, 19.0)})
    wide.loc[:1, "MSFT"] = np.nan  # MSFT listed on the third day
    wide.to_csv(tmp_path / "wide.csv", index=False)
    panel = load_price_table(tmp_path / "wide.csv")
    assert panel.assets == ("Apple", "MSFT")
    assert list(panel.fields) == ["close"]
    np.testing.assert_array_equal(panel.times, DAYS[2:].to_numpy())
    np.testing.assert_array_equal(panel.field("close"), np.column_stack([np.arange(3.0, 9.0), np.arange(13.0, 19.0)]))


def test_parquet_round_trips_with_a_time_index(tmp_path):
    pytest.importorskip("pyarrow", reason="reading Parquet needs pyarrow (pandas' parquet engine)")
    frames = {"AAA": bars(6), "BBB": bars(7)}
    frames["AAA"].to_parquet(tmp_path / "AAA.parquet")  # the time is the index
    frames["BBB"].reset_index().to_parquet(tmp_path / "BBB.parquet")  # the time is a column
    assert_panel_matches(load_ohlcv(tmp_path), frames)
    long = pd.concat([f.reset_index().assign(ticker=a) for a, f in frames.items()])
    long.to_parquet(tmp_path / "long.pq")
    assert_panel_matches(load_price_table(tmp_path / "long.pq"), frames)


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    (tmp_path / "x.parquet").write_bytes(b"")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # makes `import pyarrow` fail
    with pytest.raises(MissingExtraError, match=r'pip install "envzoo\[finance\]"'):
        load_ohlcv({"X": tmp_path / "x.parquet"})


def test_epoch_times_and_time_zones_become_naive_utc(tmp_path):
    frame = bars(8, pd.date_range("2024-03-01", periods=8, freq="h"))
    epoch_ms = frame.reset_index(drop=True).assign(timestamp=frame.index.as_unit("ms").asi8)
    epoch_ms.to_csv(tmp_path / "ms.csv", index=False)
    zoned = frame.copy()
    zoned.index = frame.index.tz_localize("UTC").tz_convert("Asia/Tokyo")
    write_csv(tmp_path / "tokyo.csv", zoned)
    panel = load_ohlcv({"ms": tmp_path / "ms.csv", "tokyo": tmp_path / "tokyo.csv"})
    assert_panel_matches(panel, {"ms": frame, "tokyo": frame})
    assert panel.periods_per_year == 365 * 24  # intraday: a 24/7 market


def test_yyyymmdd_integers_are_dates(tmp_path):
    path = tmp_path / "ints.csv"
    path.write_text("date,close\n20210104,1\n20210105,2\n20210106,3\n")
    panel = load_ohlcv({"X": path})
    np.testing.assert_array_equal(panel.times, pd.bdate_range("2021-01-04", periods=3).to_numpy())
    path.write_text("date,close\n20210104,1\n20211305,2\n")
    with pytest.raises(DataFormatError, match=r"row 3, column 'date': .*20211305.* is not a date"):
        load_ohlcv({"X": path})


# --------------------------------------------------------------------------------------------
# Alignment and forward fill
# --------------------------------------------------------------------------------------------


def test_alignment_forward_fills_short_gaps_with_flat_zero_volume_bars(tmp_path):
    a, b = bars(9, pd.bdate_range("2021-01-04", periods=10)), bars(10, pd.bdate_range("2021-01-05", periods=10))
    a_with_gap = a.drop(a.index[[4, 5]])  # two missing bars inside the common span
    panel = load_ohlcv({"A": write_csv(tmp_path / "a.csv", a_with_gap), "B": write_csv(tmp_path / "b.csv", b)},
                       max_fill=2)
    # Common span: the later start (B) to the earlier end (A); calendar = union of timestamps.
    np.testing.assert_array_equal(panel.times, pd.bdate_range("2021-01-05", "2021-01-15").to_numpy())
    rows = {t: i for i, t in enumerate(pd.DatetimeIndex(panel.times))}
    last_close = a["close"].iloc[3]
    for filled in a.index[[4, 5]]:
        i = rows[filled]
        for name in ("open", "high", "low", "close"):
            assert panel.field(name)[i, 0] == last_close
        assert panel.field("volume")[i, 0] == 0
    kept = a_with_gap.loc["2021-01-05":]
    np.testing.assert_array_equal(panel.field("close")[[rows[t] for t in kept.index], 0], kept["close"])
    np.testing.assert_array_equal(panel.field("close")[:, 1], b["close"].iloc[:9])


def test_a_gap_longer_than_max_fill_names_the_asset_file_and_gap(tmp_path):
    a = bars(11, pd.bdate_range("2021-01-04", periods=10))
    files = {"A": write_csv(tmp_path / "a.csv", a.drop(a.index[3:6])),
             "B": write_csv(tmp_path / "b.csv", bars(12, a.index))}
    load_ohlcv(files, max_fill=3)
    with pytest.raises(DataFormatError) as error:
        load_ohlcv(files, max_fill=2)
    message = str(error.value)
    assert "asset 'A'" in message and "a.csv" in message and "3 consecutive bars" in message
    assert str(a.index[3]) in message and str(a.index[5]) in message


def test_assets_without_a_common_span_or_with_different_fields_raise(tmp_path):
    early, late = bars(13, DAYS[:3]), bars(14, DAYS[5:])
    files = {"E": write_csv(tmp_path / "e.csv", early), "L": write_csv(tmp_path / "l.csv", late)}
    with pytest.raises(DataFormatError, match="no common time span"):
        load_ohlcv(files)
    files = {"A": write_csv(tmp_path / "a.csv", bars(1)),
             "B": write_csv(tmp_path / "b.csv", bars(2).drop(columns="volume"))}
    with pytest.raises(DataFormatError, match=r"a\.csv: has column\(s\) \['volume'\]"):
        load_ohlcv(files)
    assert list(load_ohlcv(files, fields=("open", "high", "low")).fields) == ["open", "high", "low", "close"]


def test_infer_periods_per_year():
    assert infer_periods_per_year(pd.date_range("2024-01-01", periods=100, freq="30min")) == 17520
    assert infer_periods_per_year(pd.date_range("2024-01-01", periods=100, freq="D")) == 365
    assert infer_periods_per_year(pd.bdate_range("2024-01-01", periods=100)) == 252
    assert infer_periods_per_year(pd.date_range("2024-01-01", periods=100, freq="W")) == pytest.approx(365.25 / 7)


# --------------------------------------------------------------------------------------------
# Malformed input
# --------------------------------------------------------------------------------------------

HEADER = "Date,Open,High,Low,Close,Volume\n"
GOOD = ["2021-01-04,10,11,9,10.5,100", "2021-01-05,10.5,12,10,11,200", "2021-01-06,11,11.5,10.5,11.2,300"]


@pytest.mark.parametrize("row, line, column, problem", [
    (3, "2021-01-05,10.5,12,10,abc,200", "close", "'abc' is not a number"),
    (2, "2021-01-04,10,11,9,-1,100", "close", "-1.0: a price must be finite and > 0"),
    (4, "2021-01-06,11,11.5,10.5,11.2,-5", "volume", "a volume must be finite and >= 0"),
    (3, "2021-01-05,10.5,9,10,9.5,200", "high", "high 9.0 < low 10.0"),
    (2, "2021-01-04,10,11,9,12,100", "close", "high 11.0 < close 12.0"),
    (4, "2021-01-06,8,11.5,10.5,11.2,300", "open", "open 8.0 < low 10.5"),
    (3, "2021-01-05,10.5,12,10,,200", "close", "empty value"),
    (3, "not a date,10.5,12,10,11,200", "date", "'not a date' is not a date/time"),
])
def test_malformed_values_name_file_row_and_column(tmp_path, row, line, column, problem):
    lines = list(GOOD)
    lines[row - 2] = line
    path = tmp_path / "bad.csv"
    path.write_text(HEADER + "\n".join(lines) + "\n")
    with pytest.raises(DataFormatError) as error:
        load_ohlcv({"X": path})
    assert str(error.value).startswith(f"{path}: row {row}, column '{column}': ")
    assert problem in str(error.value)


def test_missing_columns_and_duplicate_timestamps_are_named(tmp_path):
    path = tmp_path / "no_close.csv"
    path.write_text("Date,Open,High,Low,Volume\n2021-01-04,10,11,9,100\n")
    with pytest.raises(DataFormatError, match=r"no_close\.csv: missing required column 'close'"):
        load_ohlcv({"X": path})
    path = tmp_path / "no_adj.csv"
    path.write_text(HEADER + GOOD[0] + "\n")
    with pytest.raises(DataFormatError, match=r"no_adj\.csv: adjusted=True needs an 'adj close' column"):
        load_ohlcv({"X": path}, adjusted=True)
    path = tmp_path / "no_date.csv"
    path.write_text("Day,Close\nMonday,10\n")
    with pytest.raises(DataFormatError, match=r"no_date\.csv: missing required time column"):
        load_ohlcv({"X": path})
    path = tmp_path / "dup.csv"
    path.write_text(HEADER + "\n".join([GOOD[1], GOOD[0], GOOD[2], GOOD[0]]) + "\n")
    with pytest.raises(DataFormatError, match=r"dup\.csv: row 3 and row 5 have the same timestamp 2021-01-04"):
        load_ohlcv({"X": path})
    path = tmp_path / "unsorted.csv"
    path.write_text(HEADER + "\n".join(GOOD[::-1]) + "\n")
    assert load_ohlcv({"X": path}).field("close")[:, 0].tolist() == [10.5, 11, 11.2]


def test_wide_and_long_tables_report_rows_of_the_file(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("date,A,B\n2021-01-04,1,2\n2021-01-05,1.5,0\n")
    with pytest.raises(DataFormatError, match=r"wide\.csv: row 3, column 'B': 0\.0: a price must be"):
        load_price_table(path)
    path = tmp_path / "long.csv"
    path.write_text("date,symbol,close\n2021-01-04,A,1\n2021-01-04,B,2\n2021-01-05,B,x\n")
    with pytest.raises(DataFormatError, match=r"long\.csv \(asset 'B'\): row 4, column 'close': 'x'"):
        load_price_table(path)


# --------------------------------------------------------------------------------------------
# Binance klines
# --------------------------------------------------------------------------------------------

HALF_HOUR_MS = 30 * 60 * 1000


def kline_rows(frame, unit_per_ms=1):
    """Rows of a Binance kline file for ``frame`` (30-minute bars), times in ms x unit_per_ms."""
    opened = frame.index.as_unit("ms").asi8 * unit_per_ms
    closed = opened + HALF_HOUR_MS * unit_per_ms - 1
    f = frame
    return pd.DataFrame({
        0: opened, 1: f["open"], 2: f["high"], 3: f["low"], 4: f["close"], 5: f["volume"], 6: closed,
        7: f["volume"] * f["close"], 8: 42, 9: f["volume"] / 2, 10: f["volume"] * f["close"] / 2, 11: 0,
    })


def test_binance_klines_with_and_without_header_ms_and_us(tmp_path):
    times = pd.date_range("2021-01-01", periods=12, freq="30min")
    btc, eth = bars(20, times), bars(21, times)
    kline_rows(btc.iloc[:6]).to_csv(tmp_path / "BTCUSDT-30m-2021-01.csv", header=False, index=False)
    kline_rows(btc.iloc[6:]).to_csv(tmp_path / "BTCUSDT-30m-2021-02.csv", header=False, index=False)
    with_header = kline_rows(eth, unit_per_ms=1000)  # newer files: microseconds
    with_header.columns = ["open_time", "open", "high", "low", "close", "volume", "close_time", "quote_volume",
                           "count", "taker_buy_volume", "taker_buy_quote_volume", "ignore"]
    with_header.to_csv(tmp_path / "ETHUSDT-30m-2025-01.csv", index=False)
    panel = load_binance_klines(tmp_path)
    assert panel.assets == ("BTCUSDT", "ETHUSDT")
    assert panel.periods_per_year == 17520
    assert_panel_matches(panel, {"BTCUSDT": btc, "ETHUSDT": eth})
    months = [tmp_path / "BTCUSDT-30m-2021-02.csv", tmp_path / "BTCUSDT-30m-2021-01.csv"]
    as_mapping = load_binance_klines({"BTC": months})
    np.testing.assert_array_equal(as_mapping.field("close")[:, 0], btc["close"])


def test_binance_interval_sets_periods_per_year(tmp_path):
    times = pd.date_range("2021-01-01", periods=5, freq="4h")
    rows = kline_rows(bars(22, times))
    rows[6] = rows[0] + 4 * 3600 * 1000 - 1
    rows.to_csv(tmp_path / "X-4h.csv", header=False, index=False)
    assert load_binance_klines({"X": tmp_path / "X-4h.csv"}).periods_per_year == 365 * 6
    assert load_binance_klines({"X": tmp_path / "X-4h.csv"}, interval="1d").periods_per_year == 365


def test_binance_errors_name_file_and_row(tmp_path):
    times = pd.date_range("2021-01-01", periods=6, freq="30min")
    rows = kline_rows(bars(23, times))
    rows.iloc[:, :11].to_csv(tmp_path / "short.csv", header=False, index=False)
    with pytest.raises(DataFormatError, match=r"short\.csv: 11 columns, expected the 12"):
        load_binance_klines({"X": tmp_path / "short.csv"})
    bad = rows.astype(object)
    bad.iloc[4, 4] = "oops"
    bad.to_csv(tmp_path / "bad.csv", header=False, index=False)
    with pytest.raises(DataFormatError, match=r"bad\.csv: row 5, column 'close': 'oops' is not a number"):
        load_binance_klines({"X": tmp_path / "bad.csv"})
    rows.iloc[:4].to_csv(tmp_path / "X-1.csv", header=False, index=False)
    rows.iloc[3:].to_csv(tmp_path / "X-2.csv", header=False, index=False)
    with pytest.raises(DataFormatError, match=r"X-1\.csv row 4 and .*X-2\.csv row 1 have the same timestamp"):
        load_binance_klines({"X": [tmp_path / "X-1.csv", tmp_path / "X-2.csv"]})


# --------------------------------------------------------------------------------------------
# Shipped datasets
# --------------------------------------------------------------------------------------------


def test_sp500_stocks_dataset_has_its_documented_shape():
    panel = datasets.load_dataset("sp500-stocks")
    assert panel.n_assets == 20 and panel.n_times == 8313
    assert panel.assets[:3] == ("AAPL", "AMD", "BAC") and panel.assets[-1] == "XOM"
    assert panel.times[0] == np.datetime64("1990-01-02") and panel.times[-1] == np.datetime64("2022-12-28")
    assert list(panel.fields) == ["close"] and panel.periods_per_year == 252
    assert panel.field("close")[0, 0] == 0.264  # AAPL on 1990-01-02, as skfolio documents it
    assert "sp500_stocks.csv.gz" in panel.source and "skfolio" in panel.source


@pytest.mark.parametrize("name, asset, first_close", [("sp500-index", "SP500", 1228.099976),
                                                      ("nasdaq-index", "NASDAQ", 2208.050049)])
def test_index_datasets_have_their_documented_shape(name, asset, first_close):
    panel = datasets.load_dataset(name)
    assert panel.assets == (asset,) and panel.n_times == 5031
    assert panel.times[0] == np.datetime64("1999-01-04") and panel.times[-1] == np.datetime64("2018-12-31")
    assert list(panel.fields) == ["open", "high", "low", "close", "volume"]
    assert panel.field("close")[0, 0] == first_close
    assert "arch" in panel.source


def test_unknown_dataset_lists_the_known_ones():
    with pytest.raises(KeyError, match="sp500-stocks"):
        datasets.load_dataset("ftse")


def test_shipped_copies_equal_the_packages_they_came_from():
    pytest.importorskip("skfolio", reason="comparing with the source needs skfolio (envzoo[finance])")
    pytest.importorskip("arch", reason="comparing with the source needs arch (envzoo[finance])")
    pairs = [(datasets.from_skfolio(), "sp500-stocks"), (datasets.from_arch("sp500"), "sp500-index"),
             (datasets.from_arch("nasdaq"), "nasdaq-index")]
    for live, name in pairs:
        copy = datasets.load_dataset(name)
        assert live.assets == copy.assets and list(live.fields) == list(copy.fields)
        np.testing.assert_array_equal(live.times, copy.times)
        for field in live.fields:
            np.testing.assert_array_equal(live.field(field), copy.field(field))


@pytest.mark.parametrize("module, load", [("skfolio", datasets.from_skfolio),
                                          ("arch", lambda: datasets.from_arch("sp500"))])
def test_live_loaders_name_the_finance_extra_when_the_package_is_missing(monkeypatch, module, load):
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    with pytest.raises(MissingExtraError, match=r'pip install "envzoo\[finance\]"'):
        load()


def test_factor_etf_dataset_ships_five_factors():
    from envzoo.finance.datasets import load_dataset

    panel = load_dataset("factor-etfs")
    assert panel.assets == ("MTUM", "QUAL", "SIZE", "USMV", "VLUE")
    assert str(panel.times[0])[:10] == "2014-01-02" and panel.n_times == 2264


def test_the_universe_window_divides_by_the_close_and_refuses_bars_out_of_range():
    from envzoo.finance.prices import PricePanel, Universe

    T, N = 12, 3
    close = np.arange(1.0, T * N + 1).reshape(T, N)
    panel = PricePanel(np.datetime64("2021-01-04") + np.arange(T).astype("timedelta64[D]"), ("a", "b", "c"),
                       {"close": close, "high": close + 0.5}, 252.0, "test")
    universe = Universe(panel, ("close", "high"))
    t, assets = np.array([4, 11]), np.array([[0, 2], [1, 2]])
    window = universe.window(t, assets, 3)
    assert window.shape == (2, 2, 2, 3)
    for b in range(2):
        for n in range(2):
            a = assets[b, n]
            np.testing.assert_array_equal(window[b, 0, n], close[t[b] - 2:t[b] + 1, a] / close[t[b], a])
            np.testing.assert_array_equal(window[b, 1, n], (close[t[b] - 2:t[b] + 1, a] + 0.5) / close[t[b], a])
    with pytest.raises(ValueError, match="needs 2 <= t < 12"):
        universe.window(np.array([1]), assets[:1], 3)
    with pytest.raises(ValueError, match="needs 2 <= t < 12"):
        universe.window(np.array([12]), assets[:1], 3)
    with pytest.raises(ValueError, match="asset indices"):
        universe.window(np.array([5]), np.array([[0, 3]]), 3)
