"""A user's own price files as the finance envs' ``data``: one file (CSV or Parquet, one asset
or a table of several), a folder, a mapping; and the errors for a missing file, missing columns
and too few rows."""

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from gymnasium.utils.env_checker import check_env

import envzoo  # noqa: F401  (registers the ids)
from envzoo.core.errors import DataFormatError

YAHOO_HEADER = ["Date", "Open", "High", "Low", "Close", "Adj Close", "Volume"]


def yahoo_frame(n=600, seed=0, start="2012-01-02"):
    """Daily bars as Yahoo Finance exports them, with a dividend-adjusted close below the close."""
    rng = np.random.default_rng(seed)
    close = 50 * np.exp(np.cumsum(rng.normal(0.0003, 0.01, n)))
    open_ = close * np.exp(rng.normal(0, 0.004, n))
    high = np.maximum(open_, close) * 1.005
    low = np.minimum(open_, close) * 0.995
    adjusted = close * np.linspace(0.9, 1.0, n)
    return pd.DataFrame({"Date": pd.bdate_range(start, periods=n).strftime("%Y-%m-%d"), "Open": open_,
                         "High": high, "Low": low, "Close": close, "Adj Close": adjusted,
                         "Volume": rng.integers(10**5, 10**6, n)})


def params_of(env):
    return env.unwrapped.task.params


def test_trading_reads_a_yahoo_csv_using_the_adjusted_close(tmp_path):
    frame = yahoo_frame()
    path = tmp_path / "my_prices.csv"
    frame.to_csv(path, index=False)
    env = gym.make("envzoo/Trading-v1", data=str(path))
    params = params_of(env)
    assert params.asset == "my_prices"
    np.testing.assert_allclose(params.closes, frame["Adj Close"])
    ratio = frame["Adj Close"] / frame["Close"]
    np.testing.assert_allclose(params.panel.field("high")[:, 0], frame["High"] * ratio)
    np.testing.assert_array_equal(params.panel.field("volume")[:, 0], frame["Volume"])


def test_a_file_backed_trading_env_passes_gymnasiums_checks(tmp_path):
    path = tmp_path / "prices.csv"
    yahoo_frame().to_csv(path, index=False)
    env = gym.make("envzoo/Trading-v1", data=path, episode_steps=100)
    check_env(env.unwrapped, skip_render_check=True)
    observation, _ = env.reset(seed=3)
    done = False
    while not done:
        observation, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        assert np.isfinite(reward) and env.observation_space.contains(observation)
        done = terminated or truncated
    env.close()


def test_column_names_are_matched_case_insensitively_and_parquet_reads_as_csv(tmp_path):
    frame = yahoo_frame(n=400)
    upper = frame.rename(columns=lambda c: c.upper().replace(" ", "_"))
    upper.to_csv(tmp_path / "UP.csv", index=False)
    frame.to_parquet(tmp_path / "UP.parquet", index=False)
    from_csv = params_of(gym.make("envzoo/Trading-v1", data=tmp_path / "UP.csv", episode_steps=50)).panel
    from_parquet = params_of(gym.make("envzoo/Trading-v1", data=tmp_path / "UP.parquet", episode_steps=50)).panel
    np.testing.assert_array_equal(from_csv.times, from_parquet.times)
    for name in ("open", "high", "low", "close", "volume"):
        np.testing.assert_allclose(from_csv.field(name), from_parquet.field(name), rtol=1e-15)


def test_portfolio_reads_a_folder_and_a_mapping_as_the_same_assets(tmp_path):
    folder = tmp_path / "stocks"
    folder.mkdir()
    for k, name in enumerate(("AAA", "BBB", "CCC")):
        yahoo_frame(seed=k).to_csv(folder / f"{name}.csv", index=False)
    (folder / "notes.txt").write_text("not a price file")
    from_folder = params_of(gym.make("envzoo/Portfolio-v1", data=str(folder), window=20,
                                     episode_steps=50, n_assets=2)).panel
    mapping = {"x": folder / "CCC.csv", "y": folder / "AAA.csv"}
    from_mapping = params_of(gym.make("envzoo/Portfolio-v1", data=mapping, window=20,
                                      episode_steps=50, n_assets=2)).panel
    assert from_folder.assets == ("AAA", "BBB", "CCC")
    assert from_mapping.assets == ("x", "y")
    np.testing.assert_array_equal(from_mapping.field("close")[:, 1], from_folder.field("close")[:, 0])
    env = gym.make("envzoo/PortfolioMO-v0", data=mapping, window=20, episode_steps=50, n_assets=2)
    env.reset(seed=0)
    _, reward, *_ = env.step(env.action_space.sample())
    assert np.all(np.isfinite(reward))


def test_a_long_table_of_several_assets_is_one_file(tmp_path):
    long = pd.concat([yahoo_frame(seed=k).assign(Ticker=name) for k, name in enumerate(("AAA", "BBB"))])
    long.to_csv(tmp_path / "long.csv", index=False)
    params = params_of(gym.make("envzoo/Trading-v1", data=tmp_path / "long.csv", asset="BBB", episode_steps=50))
    np.testing.assert_allclose(params.closes, yahoo_frame(seed=1)["Adj Close"])


def test_a_missing_file_is_named(tmp_path):
    missing = tmp_path / "my_prices.csv"
    with pytest.raises(FileNotFoundError, match="my_prices.csv' does not exist"):
        gym.make("envzoo/Trading-v1", data=str(missing))
    yahoo_frame().to_csv(tmp_path / "a.csv", index=False)
    with pytest.raises(FileNotFoundError, match="'b'.*nope.csv' does not exist"):
        gym.make("envzoo/Portfolio-v1", data={"a": tmp_path / "a.csv", "b": tmp_path / "nope.csv"})
    with pytest.raises(FileNotFoundError, match="no_such_folder' does not exist"):
        gym.make("envzoo/Portfolio-v1", data=tmp_path / "no_such_folder")


def test_an_unknown_name_lists_the_datasets_and_says_a_path_works_too():
    with pytest.raises(KeyError, match="sp500-index.*path of a CSV or Parquet file"):
        gym.make("envzoo/Trading-v1", data="sp500-indx")


def test_missing_columns_are_named_with_the_columns_found(tmp_path):
    frame = yahoo_frame(n=100)
    frame.drop(columns=["Close", "Adj Close"]).to_csv(tmp_path / "no_close.csv", index=False)
    with pytest.raises(DataFormatError, match=r"no_close.csv: missing required column 'close'; columns are "
                                              r"\['date', 'open', 'high', 'low', 'volume'\]"):
        gym.make("envzoo/Trading-v1", data=tmp_path / "no_close.csv")
    frame.drop(columns=["Date"]).to_csv(tmp_path / "no_date.csv", index=False)
    with pytest.raises(DataFormatError, match="no_date.csv: missing required time column"):
        gym.make("envzoo/Trading-v1", data=tmp_path / "no_date.csv")


def test_too_few_rows_for_episode_steps_says_how_many_are_needed(tmp_path):
    yahoo_frame(n=300).to_csv(tmp_path / "short.csv", index=False)
    # Portfolio: window 50 -> 49 bars of history; the train period is the first 80 % (240 bars).
    with pytest.raises(ValueError, match=r"episode_steps = 252: the train period \(before .*\) needs 302 bars "
                                         r"\(49 of history, then 253\), the data have 240 there \(300 bars in all\)"):
        gym.make("envzoo/Portfolio-v1", data=tmp_path / "short.csv", n_assets=1, window=50)
    with pytest.raises(ValueError, match=r"n_assets must lie in \[1, 1\].*got 5: pass n_assets=1 or fewer"):
        gym.make("envzoo/Portfolio-v1", data=tmp_path / "short.csv")
