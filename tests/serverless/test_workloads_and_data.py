"""Workload rates, the Azure trace loader and its errors."""

import numpy as np
import pytest

from envzoo.core.errors import DataFormatError
from envzoo.serverless.data import load_azure_invocations, read_azure_invocations
from envzoo.serverless.generator import Diurnal
from envzoo.serverless.params import SimParams, make_workload
from envzoo.serverless.sim import ServerlessSim
from envzoo.serverless.state import STAT


def write_trace(path, rows):
    header = "HashOwner,HashApp,HashFunction,Trigger," + ",".join(str(m) for m in range(1, 1441))
    lines = [header] + [f"o{i},a{i},{name},http," + ",".join(str(c) for c in counts)
                        for i, (name, counts) in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_diurnal_rate_averages_to_its_base_rate():
    workload = Diurnal(rate=50.0, amplitude=0.8, period_s=3600)
    rates = workload.rates(np.arange(0, 3600, 0.5), workload.start(np.full((3, 1, 2), 0.3)))
    assert rates.mean() == pytest.approx(50.0, rel=1e-3)
    assert rates.min() == pytest.approx(10.0, rel=1e-3) and rates.max() == pytest.approx(90.0, rel=1e-3)


def test_trace_replays_per_minute_counts(tmp_path):
    minutes = np.zeros(1440, dtype=int)
    minutes[:10] = [600, 0, 1200, 60, 60, 60, 0, 0, 3000, 30]
    busy = write_trace(tmp_path / "d01.csv", [("quiet", np.ones(1440, dtype=int)), ("busy", minutes)])
    workload = load_azure_invocations(busy, functions=1)  # the function with most invocations
    assert workload.counts.shape == (1, 1440) and workload.counts[0, 2] == 1200
    params = SimParams(decision_interval_s=60.0)
    sim = ServerlessSim(params, workload, 200)
    sim.reset(np.arange(200), np.arange(1, 201, dtype=np.uint64))
    arrived = [sim.advance(np.full(sim.shape, 0))[..., STAT.arrived].mean() for _ in range(4)]
    np.testing.assert_allclose(arrived, [600, 0, 1200, 60], rtol=0.02, atol=0.1)


def test_trace_loader_names_file_row_and_column(tmp_path):
    counts = np.ones(1440, dtype=object)
    counts[99] = "lots"
    path = write_trace(tmp_path / "bad.csv", [("ok", np.ones(1440, dtype=int)), ("broken", counts)])
    with pytest.raises(DataFormatError, match=r"bad\.csv: row 3 \(HashFunction 'broken'\), column '100'"):
        read_azure_invocations(path)
    header = tmp_path / "header.csv"
    header.write_text("HashOwner,HashApp,Function,Trigger,1\n")
    with pytest.raises(DataFormatError, match="header column 3 should be 'HashFunction'"):
        read_azure_invocations(header)
    with pytest.raises(FileNotFoundError):
        read_azure_invocations(tmp_path / "missing.csv")


def test_unknown_workload_and_bad_options_are_explained():
    with pytest.raises(ValueError, match="unknown workload 'sine'"):
        make_workload("sine", 0.1)
    with pytest.raises(ValueError, match="bad options for workload 'spike'"):
        make_workload({"kind": "spike", "height": 3}, 0.1)
    with pytest.raises(ValueError, match="needs `path`"):
        make_workload("trace", 0.1)


def busy_quiet_days(folder, days=2):
    """Day files of the trace's naming in ``folder``, and a durations file the loader must skip."""
    folder.mkdir()
    for day in range(1, days + 1):
        write_trace(folder / f"invocations_per_function_md.anon.d{day:02d}.csv",
                    [("quiet", np.ones(1440, dtype=int)), ("busy", np.full(1440, 60 * day))])
    (folder / "function_durations_percentiles.anon.d01.csv").write_text("HashOwner,Average\no,1\n")
    return folder


def test_a_trace_is_a_file_a_folder_of_days_or_a_mapping(tmp_path):
    folder = busy_quiet_days(tmp_path / "azure")
    from_folder = load_azure_invocations(folder)
    assert from_folder.counts.shape == (1, 2 * 1440)
    np.testing.assert_array_equal(from_folder.counts[0, [0, 1439, 1440, 2879]], [60, 60, 120, 120])
    day2, day1 = sorted(folder.glob("invocations*"))[::-1]
    from_mapping = load_azure_invocations({"second": day2, "first": day1})
    np.testing.assert_array_equal(from_mapping.counts[0, [0, 1440]], [120, 60])
    # a mapping's days are all the user's, whatever their file names (only a folder is filtered)
    renamed = tmp_path / "day3.csv"
    write_trace(renamed, [("quiet", np.ones(1440, dtype=int)), ("busy", np.full(1440, 180))])
    mixed = load_azure_invocations({"first": day1, "third": renamed})
    np.testing.assert_array_equal(mixed.counts[0, [0, 1440]], [60, 180])
    with pytest.raises(FileNotFoundError, match="'missing.csv' does not exist"):
        load_azure_invocations("missing.csv")
    with pytest.raises(FileNotFoundError, match=r"'d2'.*nope.csv' does not exist"):
        load_azure_invocations({"d1": day1, "d2": tmp_path / "nope.csv"})


def test_trace_columns_are_matched_case_insensitively_and_parquet_reads_as_csv(tmp_path):
    import pandas as pd

    path = write_trace(tmp_path / "day.csv", [("f", np.arange(1440) % 7)])
    table = pd.read_csv(path)
    table.columns = [c.lower() for c in table.columns]
    table.to_csv(tmp_path / "lower.csv", index=False)
    table.to_parquet(tmp_path / "day.parquet", index=False)
    expected = read_azure_invocations(path)
    pd.testing.assert_frame_equal(read_azure_invocations(tmp_path / "lower.csv"), expected)
    pd.testing.assert_frame_equal(read_azure_invocations(tmp_path / "day.parquet"), expected)


def test_the_envs_take_a_trace_path_as_workload(tmp_path):
    import gymnasium as gym
    from pettingzoo.test import parallel_api_test

    import envzoo

    folder = busy_quiet_days(tmp_path / "azure")
    env = gym.make("envzoo/Serverless-v1", workload=str(folder))
    trace = env.unwrapped.task.sim.workload
    assert trace.kind == "trace" and trace.counts.shape == (1, 2 * 1440)
    env.reset(seed=0)
    env.step(0)
    day1 = sorted(folder.glob("invocations*"))[0]
    one_day = gym.make("envzoo/Serverless-v1", workload={"monday": day1}).unwrapped.task.sim.workload
    assert one_day.counts.shape == (1, 1440) and one_day.counts[0, 0] == 60
    cluster = envzoo.make("envzoo/ServerlessCluster-v1", workload={"kind": "trace", "path": folder, "functions": 2},
                          mean_service_s=(1.0, 0.5))
    assert len(cluster.possible_agents) == 2
    parallel_api_test(cluster, num_cycles=3)
    with pytest.raises(FileNotFoundError, match="nowhere.csv' does not exist"):
        gym.make("envzoo/Serverless-v1", workload=str(tmp_path / "nowhere.csv"))
