"""Every page's example of a user's own data files runs as written: the ``python`` block of the
id's docstring (its docs page) is run in a folder holding small files of the names it uses."""

import gzip
import re

import numpy as np
import pandas as pd
import pytest

import envzoo
from envzoo.registry import load_attr

#: The ids whose data arguments take a user's files, and the files their examples read.
EXAMPLES = {
    "envzoo/Trading-v1": "prices", "envzoo/TradingMO-v1": "prices",
    "envzoo/Portfolio-v1": "prices", "envzoo/PortfolioMO-v0": "prices",
    "envzoo/MarketMaking-v1": "book", "envzoo/MarketMakingMO-v1": "book",
    "envzoo/Serverless-v1": "trace", "envzoo/ServerlessMO-v1": "trace", "envzoo/ServerlessCluster-v1": "trace",
    "envzoo/Dispatch-v0": "city", "envzoo/DispatchRelocate-v0": "city", "envzoo/DispatchMO-v0": "city",
    "envzoo/DispatchAgencies-v0": "city", "envzoo/CollisionAvoidance-v1": "satellite",
    "envzoo/CollisionAvoidanceMO-v1": "satellite",
}
#: The module each kind of example's files needs.
NEEDS = {"city": "sumolib", "satellite": "orekit_jpype"}

_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def example_of(env_id: str) -> str:
    """The one ``python`` block of the id's docstring, dedented."""
    doc = load_attr(envzoo.env_info(env_id).entry_point).__doc__
    blocks = [block for block in _BLOCK.findall(doc) if "make(" in block]
    assert len(blocks) == 1, f"{env_id}: expected one example, found {len(blocks)}"
    lines = blocks[0].splitlines()
    indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
    return "\n".join(line[indent:] for line in lines)


def yahoo_csv(path, n=600, seed=0):
    rng = np.random.default_rng(seed)
    close = 50 * np.exp(np.cumsum(rng.normal(0.0003, 0.01, n)))
    pd.DataFrame({"Date": pd.bdate_range("2012-01-02", periods=n).strftime("%Y-%m-%d"), "Open": close,
                  "High": close * 1.01, "Low": close * 0.99, "Close": close, "Adj Close": close,
                  "Volume": 1e6}).to_csv(path, index=False)


def write_prices(folder):
    yahoo_csv(folder / "my_prices.csv")
    (folder / "my_stocks").mkdir()
    for k in range(3):
        yahoo_csv(folder / "my_stocks" / f"S{k}.csv", seed=k)


def write_book(folder):
    from envzoo.marketmaking.lob.generator import synthetic_lob

    stream = synthetic_lob(3000, levels=15, seed=5, days=2)
    book = {"exchange": "test", "symbol": "SYN", "timestamp": stream.time // 1000,
            "local_timestamp": stream.time // 1000}
    for j in range(stream.n_levels):
        book |= {f"asks[{j}].price": stream.ask_price[:, j], f"asks[{j}].amount": stream.ask_size[:, j],
                 f"bids[{j}].price": stream.bid_price[:, j], f"bids[{j}].amount": stream.bid_size[:, j]}
    pd.DataFrame(book).to_csv(folder / "book_snapshot_25.csv.gz", index=False)
    pd.DataFrame({"exchange": "test", "symbol": "SYN", "timestamp": stream.trade_time // 1000,
                  "local_timestamp": stream.trade_time // 1000, "id": np.arange(stream.trade_time.size),
                  "side": np.where(stream.trade_side > 0, "buy", "sell"), "price": stream.trade_price,
                  "amount": stream.trade_size}).to_csv(folder / "trades.csv.gz", index=False)


def write_trace(folder):
    trace = folder / "azurefunctions-dataset2019"
    trace.mkdir()
    header = ["HashOwner", "HashApp", "HashFunction", "Trigger", *map(str, range(1, 1441))]
    rng = np.random.default_rng(0)
    for day in (1, 2):
        rows = [[f"o{f}", f"a{f}", f"f{f}", "http", *rng.poisson(60 * (f + 1), 1440)] for f in range(5)]
        pd.DataFrame(rows, columns=header).to_csv(trace / f"invocations_per_function_md.anon.d{day:02d}.csv",
                                                  index=False)


def write_city(folder):
    from envzoo.dispatch.atlas import load_atlas, network_path

    (folder / "my_city.net.xml").write_bytes(gzip.decompress(network_path("ingolstadt").read_bytes()))
    atlas = load_atlas(folder / "my_city.net.xml")
    nodes = atlas.node_ids[:: max(1, atlas.size // 30)][:30]
    pd.DataFrame({"time_s": np.arange(len(nodes)) * 300.0, "node": nodes,
                  "severity": np.arange(len(nodes)) % 3}).to_csv(folder / "calls.csv", index=False)


def write_satellite(folder):
    (folder / "my_satellite.tle").write_text(
        "ISS (ZARYA)\n1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927\n"
        "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537\n")


WRITERS = {"prices": write_prices, "book": write_book, "trace": write_trace, "city": write_city,
           "satellite": write_satellite}


def run(code: str, env_id: str):
    namespace = {}
    exec(compile(code, f"<{env_id} docstring example>", "exec"), namespace)
    namespace["env"].close()


@pytest.mark.parametrize("env_id", sorted(EXAMPLES))
def test_the_pages_example_of_a_users_files_runs(env_id, tmp_path, monkeypatch):
    if EXAMPLES[env_id] in NEEDS:
        pytest.importorskip(NEEDS[EXAMPLES[env_id]])
    code = example_of(env_id)
    assert len(code.strip().splitlines()) == 5, code
    monkeypatch.setenv("ENVZOO_CACHE_DIR", str(tmp_path / "cache"))  # the atlas of my_city.net.xml
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="does not exist|no such file"):  # it reads the user's files
        run(code, env_id)
    (tmp_path / "files").mkdir()
    monkeypatch.chdir(tmp_path / "files")
    WRITERS[EXAMPLES[env_id]](tmp_path / "files")
    run(code, env_id)
