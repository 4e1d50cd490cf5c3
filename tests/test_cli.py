"""The ``envzoo`` command, called in-process through ``envzoo.cli.main``."""

from __future__ import annotations

import dataclasses
import io
import json
import math

import pytest

import envzoo
import envzoo.registry
from envzoo.cli import Progress, _table, _table_in_blocks, main
from envzoo.tools.rollout import is_first_event
from envzoo.tools.throughput import MODES, bench

SERVERLESS = "envzoo/Serverless-v1"
WITH_JAX = "envzoo/MarketMakingAS-v1"
SERVERLESS_IDS = ["envzoo/Serverless-v1", "envzoo/ServerlessMO-v1", "envzoo/ServerlessCluster-v1"]
INSTALLED = envzoo.list_envs(installed=True)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fake_registry(monkeypatch):
    """Serverless-v1 with one cheap policy, and ServerlessMO-v1 needing a missing extra."""
    real = envzoo.registry.entries()
    single = dataclasses.replace(real[SERVERLESS], policies=real[SERVERLESS].policies[:1])
    needs_extra = dataclasses.replace(real["envzoo/ServerlessMO-v1"], extra="train")
    monkeypatch.setattr(envzoo.registry, "entries", lambda: {e.id: e for e in (single, needs_extra)})
    monkeypatch.setattr(envzoo.registry, "missing_packages",
                        lambda extra: ["stable-baselines3"] if extra == "train" else [])
    return single, needs_extra


def test_list_shows_every_serverless_id(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    lines = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    for env_id in SERVERLESS_IDS:
        assert env_id in lines
        assert lines[env_id][2:4] == ["-", "yes"]  # no extra needed, so installed
    assert lines["envzoo/ServerlessCluster-v1"][1] == "pettingzoo-parallel"


def test_list_filters(capsys):
    _, out, _ = run(capsys, "list", "--kind", "pettingzoo-parallel")
    assert "envzoo/ServerlessCluster-v1" in out and "envzoo/Serverless-v1 " not in out
    _, out, _ = run(capsys, "list", "--tag", "multi-objective")
    assert "envzoo/ServerlessMO-v1" in out and "envzoo/ServerlessCluster-v1" not in out
    _, out, _ = run(capsys, "list", "--kind", "mo-gymnasium")
    assert "envzoo/ServerlessMO-v1" in out and "envzoo/Serverless-v1 " not in out
    code, out, err = run(capsys, "list", "--domain", "no-such-domain")
    assert code == 2 and out == "" and err.startswith("envzoo: error: domain must be one of")
    assert "'serverless'" in err
    code, out, err = run(capsys, "list", "--domain", "serverless", "--tag", "finance")
    assert code == 0 and out == "" and "no registry entry" in err


def test_tables_fit_100_columns_unless_wide(capsys):
    _, out, _ = run(capsys, "list")
    assert max(len(line) for line in out.splitlines()) <= 100
    _, wide, _ = run(capsys, "list", "--wide")
    assert max(len(line) for line in wide.splitlines()) > 100
    summary = envzoo.env_info(SERVERLESS).summary
    assert any(line.startswith(SERVERLESS + " ") and line.endswith(summary) for line in wide.splitlines())
    assert summary not in out and summary.split()[-1] in out  # wrapped onto a further line


def test_a_wide_table_continues_in_blocks_that_repeat_the_first_column():
    headers = ["kpi"] + [f"policy-{i}" for i in range(9)]
    rows = [[name] + [f"{i:>9} ± {i / 10:<8}" for i in range(9)] for name in ("return", "length")]
    text = _table_in_blocks(headers, rows, 100)
    assert max(len(line) for line in text.splitlines()) <= 100
    blocks = text.split("\n\n")
    assert len(blocks) > 1 and all(block.startswith("kpi") for block in blocks)
    assert [header for header in headers[1:] if header in text] == headers[1:]
    assert _table_in_blocks(headers, rows, None) == _table(headers, rows)


class _Stream(io.StringIO):
    def __init__(self, terminal: bool):
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize("terminal", [True, False])
def test_progress_redraws_on_a_terminal_and_writes_plain_lines_elsewhere(terminal):
    stream = _Stream(terminal)
    bar = Progress(3, stream=stream)
    bar.label = "job"
    list(bar(range(3)))
    bar.close()
    written = stream.getvalue()
    if terminal:
        assert written.count("\r") == 4 and written.endswith("3/3\n") and written.count("\n") == 1
    else:
        assert "\r" not in written and written.splitlines() == ["job 1/3", "job 2/3", "job 3/3"]


def test_a_bar_that_never_started_writes_nothing():
    stream = _Stream(True)
    Progress(3, stream=stream).close()
    assert stream.getvalue() == ""


def test_info_shows_spaces_metrics_and_policies(capsys):
    code, out, _ = run(capsys, "info", SERVERLESS)
    assert code == 0
    env = envzoo.make(SERVERLESS)
    assert f"observation space: {env.observation_space}" in out
    assert f"action space:      {env.action_space}" in out
    for metric in envzoo.env_info(SERVERLESS).metrics:
        assert metric in out
    assert "FixedConcurrency {'concurrency': 4}" in out
    assert "Schuler" in out and "pod_seconds" in out


def test_info_multi_objective_shows_reward_space(capsys):
    _, out, _ = run(capsys, "info", "envzoo/ServerlessMO-v1")
    assert "reward space:" in out and "objectives:        throughput, latency, cost" in out


def test_info_multi_agent_shows_agents_and_their_spaces(capsys):
    entry = envzoo.env_info("envzoo/ServerlessCluster-v1")
    _, out, _ = run(capsys, "info", entry.id)
    env = envzoo.make(entry.id)
    assert ", ".join(env.possible_agents) in out
    assert str(env.observation_space(env.possible_agents[0])) in out
    assert str(env.action_space(env.possible_agents[0])) in out


def _terminates_after(entry, policy: str, seed: int, steps: int) -> bool:
    """The single-agent ``entry`` played by ``policy`` from ``seed`` terminates at step ``steps``."""
    if entry.kind != "gymnasium":
        return False
    env = envzoo.make(entry.id, **entry.policy(policy).env_kwargs)
    agent = envzoo.make_policy(entry.id, policy, env)
    agent.reset(seed)
    observation, info = env.reset(seed=seed)
    for step in range(1, steps + 1):
        observation, reward, terminated, truncated, info = env.step(agent(observation, info))
        if terminated or truncated:
            return terminated and step == steps
    return False


@pytest.mark.parametrize("entry", INSTALLED, ids=lambda e: e.id)
def test_eval_json_reports_every_registry_metric(capsys, entry):
    policy = entry.policies[0].name
    code, out, err = run(capsys, "eval", entry.id, "--policy", policy, "--episodes", "1",
                         "--seed", "3", "--max-steps", "5", "--json")
    assert code == 0
    report = json.loads(out)
    assert (report["id"], report["policy"], report["episodes"], report["seed"]) == (entry.id, policy, 1, 3)
    assert set(entry.metrics) <= set(report["metrics"])
    for name, stats in report["metrics"].items():
        if is_first_event(name) and stats["happened"] == 0:  # e.g. no diamond in 5 steps: no step to average
            assert stats["mean"] is None and stats["std"] is None and stats["episodes"] == 1
            continue
        assert math.isfinite(stats["mean"]) and stats["std"] == 0.0  # one episode
    [episode] = report["per_episode"]
    length = episode["length"]
    # --max-steps cuts the episode at 5 steps, unless it ended on its own before (a text game's expert
    # can win in one step): then a replay must terminate there too.
    assert length == 5 or (length < 5 and _terminates_after(entry, policy, 3, length))
    assert report["metrics"]["length"]["mean"] == length
    assert episode["seed"] == 3 and set(entry.metrics) <= set(episode["metrics"])
    if entry.is_multi_objective:
        assert {f"return.{name}" for name in entry.objectives} <= set(report["metrics"])
        assert len(episode["return"]) == len(entry.objectives)
    assert "1/1" in err  # the progress bar


def test_eval_table_is_reproducible(capsys):
    argv = ["eval", SERVERLESS, "--policy", "fixed-4", "--episodes", "2", "--max-steps", "4"]
    code, first, _ = run(capsys, *argv)
    assert code == 0
    assert "seeds 0-1" in first and "mean_latency_s" in first and "±" in first
    assert run(capsys, *argv)[1] == first


def test_eval_passes_env_arguments(capsys):
    argv = ["eval", SERVERLESS, "--policy", "fixed-4", "--episodes", "1", "--max-steps", "4", "--json"]
    _, plain, _ = run(capsys, *argv)
    with pytest.raises(SystemExit) as exit_info:  # a malformed KEY=VALUE is refused before anything runs
        main([*argv, "--env", "workload: bursty"])
    assert exit_info.value.code == 2 and "KEY=VALUE" in capsys.readouterr().err
    code, out, _ = run(capsys, *argv, "--env", "workload=bursty")
    report = json.loads(out)
    assert code == 0 and report["env_kwargs"] == {"workload": "bursty"}
    assert report["metrics"] != json.loads(plain)["metrics"]  # the argument reached the env


def test_env_values_are_json_then_flow_yaml_then_strings():
    from envzoo.cli import _env_argument

    assert _env_argument("penetration=1e-1") == ("penetration", 0.1)
    assert _env_argument("flag=true") == ("flag", True) and _env_argument("state=no") == ("state", "no")
    assert _env_argument("start=2016-01-01") == ("start", "2016-01-01")
    assert _env_argument("scenario={kind: grid, rows: 2}") == ("scenario", {"kind": "grid", "rows": 2})
    assert _env_argument("levels=[1, 2]") == ("levels", [1, 2])


@pytest.mark.parametrize("extra, message", [
    (["--env", "workload=bursty", "--env", "workload=spike"], "given twice"),
    (["--env", "max_episode_steps=3"], "--max-steps both set the episode length"),
    (["--env", "worklod=bursty"], "ServerlessEnv has no argument 'worklod' (did you mean 'workload'? "),
])
def test_bad_env_arguments_are_one_line_errors(capsys, extra, message):
    code, out, err = run(capsys, "eval", SERVERLESS, "--policy", "fixed-4", "--episodes", "1", "--max-steps", "4",
                         *extra)
    assert code == 2 and out == "" and message in err and "Traceback" not in err
    assert err.startswith("envzoo: error: ") and len(err.splitlines()) == 1 and err.count(message) == 1


def test_a_type_error_of_the_env_is_said_once(capsys):
    # Gymnasium's make re-raises a TypeError with the message repeated and where it came from.
    code, _, err = run(capsys, "eval", "envzoo/CollisionAvoidance-v1", "--policy", "operator", "--episodes", "1",
                       "--env", "scenario={missx: 1}")
    assert code == 2 and len(err.splitlines()) == 1 and err.count("unknown scenario fields ['missx']") == 1
    assert "was raised from the environment creator" not in err


def test_a_policy_gets_the_env_arguments_it_needs_and_conflicts_are_errors(capsys, monkeypatch):
    real = envzoo.registry.entries()
    needy = dataclasses.replace(real[SERVERLESS].policies[0], env_kwargs={"workload": "bursty"})
    entry = dataclasses.replace(real[SERVERLESS], policies=(needy,))
    monkeypatch.setattr(envzoo.registry, "entries", lambda: {**real, SERVERLESS: entry})
    argv = ["eval", SERVERLESS, "--policy", needy.name, "--episodes", "1", "--max-steps", "4", "--json"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and json.loads(out)["metrics"] == json.loads(run(capsys, *argv, "--env", "workload=bursty")[1])["metrics"]
    code, _, err = run(capsys, *argv, "--env", "workload=steady")
    assert code == 2 and "needs workload='bursty'" in err


def test_unknown_id_exits_2_naming_it(capsys):
    for argv in (["info", "envzoo/NoSuch-v0"], ["eval", "envzoo/NoSuch-v0", "--policy", "x"],
                 ["bench", "envzoo/NoSuch-v0", "--num-envs", "2"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert "envzoo/NoSuch-v0" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("given, meant", [
    ("envzoo/Servrless-v1", "envzoo/Serverless-v1"), ("envzoo/serverless-v1", "envzoo/Serverless-v1"),
    ("Serverless-v1", "envzoo/Serverless-v1"), ("envzoo/Serverless-v0", "envzoo/Serverless-v1"),
    ("envzoo/Crafter", "envzoo/Crafter-v1"),
])
def test_an_unknown_id_says_which_id_was_meant(capsys, given, meant):
    code, _, err = run(capsys, "info", given)
    assert code == 2 and f"{given!r} is not an envzoo id; did you mean {meant!r}?" in err


def test_an_id_like_none_lists_every_id(capsys):
    code, _, err = run(capsys, "info", "envzoo/Qqqqqqqq-v0")  # close to no id ("Nope-v0" is to "TSP-v0")
    assert code == 2 and len(err.splitlines()) == 1
    assert all(entry.id in err for entry in envzoo.registry.entries().values())


def test_a_first_event_that_never_happened_is_never_and_counted():
    from envzoo.cli import _kpis, _mean_std
    from envzoo.tools.rollout import EpisodeResult

    entry = envzoo.env_info("envzoo/Crafter-v1")

    def kpi(steps):
        results = [EpisodeResult({"first_diamond_step": float(step), "achievements": 1.0}, 0.0, 10) for step in steps]
        return _kpis(entry, results)["first_diamond_step"]

    assert _mean_std(*kpi([-1, -1])).split() == ["never", "(0", "of", "2)"]
    assert _mean_std(*kpi([-1, 120, 140])).split() == ["130", "±", "10", "(2", "of", "3)"]
    assert _mean_std(*_kpis(entry, [EpisodeResult({"achievements": 2.0}, 0.0, 10)])["achievements"]).split() == [
        "2", "±", "0"]


def test_unknown_policy_exits_2_listing_known_ones(capsys):
    code, _, err = run(capsys, "eval", SERVERLESS, "--policy", "no-such-policy", "--episodes", "1")
    assert code == 2 and "no-such-policy" in err and "knative-default" in err
    assert err.startswith("envzoo: error:") and len(err.splitlines()) == 1


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", SERVERLESS, "--policy", "fixed-4", "--episodes", "0"])
    assert exit_info.value.code == 2
    assert "--episodes" in capsys.readouterr().err


def test_missing_extra(capsys, fake_registry):
    _, needs_extra = fake_registry
    hint = 'pip install "envzoo[train]"'
    code, _, err = run(capsys, "eval", needs_extra.id, "--policy", "fixed-4")
    assert code == 2 and hint in err and len(err.strip().splitlines()) == 1
    code, out, _ = run(capsys, "info", needs_extra.id)
    assert code == 0 and hint in out and "observation space" not in out
    _, out, _ = run(capsys, "list", "--wide")
    assert out.splitlines()[-1].split()[:4] == [needs_extra.id, "mo-gymnasium", "train", "no"]


def test_bench_measures_every_mode():
    pytest.importorskip("jax")
    result = bench(WITH_JAX, num_envs=2, steps=3)
    assert set(result["steps_per_s"]) == set(MODES) and not result["skipped"]
    assert all(rate > 0 for rate in result["steps_per_s"].values())
    assert result["native_over_sync"] == result["steps_per_s"]["native"] / result["steps_per_s"]["sync"]
    assert result["jax_device"] in ("cpu", "gpu", "tpu")


def test_bench_stops_a_mode_when_its_time_is_up():
    result = bench(SERVERLESS, num_envs=2, steps=10**6, modes=("single", "native"), max_seconds=0.2)
    assert set(result["steps_measured"]) == {"single", "native"}
    assert all(1 <= steps < 10**6 for steps in result["steps_measured"].values())
    with pytest.raises(ValueError, match="max_seconds must be > 0"):
        bench(SERVERLESS, num_envs=2, max_seconds=0)


def test_bench_skips_what_an_id_lacks(monkeypatch):
    real = envzoo.registry.entries()
    no_vector_face = dataclasses.replace(real[SERVERLESS], vector_entry_point=None, jax_entry_point=None)
    monkeypatch.setattr(envzoo.registry, "entries", lambda: {**real, SERVERLESS: no_vector_face})
    assert set(bench(SERVERLESS, num_envs=2, steps=2)["skipped"]) == {"native", "jax", "jax-scan"}
    assert set(bench("envzoo/ServerlessMO-v1", num_envs=2, steps=2, modes=("single", "sync", "native"))
               ["steps_per_s"]) == {"single", "sync", "native"}
    result = bench("envzoo/ServerlessCluster-v1", num_envs=2, steps=2)
    assert set(result["skipped"]) == {"sync", "native", "jax", "jax-scan"}
    assert result["steps_per_s"]["single"] > 0 and result["native_over_sync"] is None


def test_bench_command_prints_rates_and_ratio(capsys):
    pytest.importorskip("jax")
    code, out, err = run(capsys, "bench", WITH_JAX, "--num-envs", "2", "--steps", "2")
    assert code == 0
    assert "SyncVectorEnv x2" in out and "native vector env x2" in out and "native / sync:" in out
    assert "JAX vector env x2 (" in out and "JAX on device, scan x2 (" in out  # (the device)
    measuring = [line for line in err.splitlines() if not line.startswith("envzoo: compiling kernels")]  # a 1st run
    assert measuring == [f"envzoo bench: measuring {mode} ..."
                         for mode in ("single env", "SyncVectorEnv x2", "native vector env x2",
                                      "JAX vector env x2", "JAX on device, scan x2")]


def test_tour_json_covers_every_installed_entry_and_policy(capsys):
    # in this process, whose kernels the suite has compiled already (workers: tests/core/test_warmup.py)
    code, out, err = run(capsys, "tour", "--episodes", "1", "--max-steps", "3", "--json", "--workers", "1")
    assert code == 0
    report = json.loads(out)
    ran = {(r["id"], r["policy"]) for r in report["results"]}
    assert ran == {(e.id, ref.name) for e in INSTALLED for ref in e.policies if ref.installed}
    assert {(s["id"], s["policy"]) for s in report["skipped_policies"]} == \
        {(e.id, ref.name) for e in INSTALLED for ref in e.policies if not ref.installed}
    for result in report["results"]:
        assert set(envzoo.env_info(result["id"]).metrics) <= set(result["metrics"])
        assert all(math.isfinite(s["mean"]) for name, s in result["metrics"].items()
                   if not (is_first_event(name) and s["happened"] == 0))  # never: no step to average
    skipped = envzoo.list_envs(installed=False)
    assert [s["id"] for s in report["skipped"]] == [e.id for e in skipped]
    total = sum(ref.installed for e in INSTALLED for ref in e.policies)
    assert f"{total}/{total}" in err


def test_tour_table_lists_skipped_entries_with_install_hint(capsys, fake_registry):
    single, needs_extra = fake_registry
    code, out, _ = run(capsys, "tour", "--episodes", "1", "--max-steps", "3")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100
    assert f"{single.id}: {single.summary}" in out
    assert single.policies[0].name in out and "mean_latency_s" in out
    skipped = out.split("Skipped")[1]
    assert needs_extra.id in skipped and 'pip install "envzoo[train]"' in skipped


def test_tour_shortens_the_episodes_of_a_policy_with_tour_max_steps(capsys, monkeypatch, fake_registry):
    single, _ = fake_registry
    short = dataclasses.replace(single.policies[0], name="short", tour_max_steps=2)
    entry = dataclasses.replace(single, policies=(single.policies[0], short))
    monkeypatch.setattr(envzoo.registry, "entries", lambda: {entry.id: entry})
    monkeypatch.setattr(envzoo, "make_policy", lambda env_id, name, env: entry.policies[0].load()(env))
    code, out, _ = run(capsys, "tour", "--episodes", "1", "--max-steps", "5", "--json")
    lengths = {r["policy"]: r["metrics"]["length"]["mean"] for r in json.loads(out)["results"]}
    assert code == 0 and lengths == {single.policies[0].name: 5, "short": 2}
    code, out, _ = run(capsys, "tour", "--episodes", "1", "--max-steps", "5")
    assert code == 0 and f"tour_max_steps): {entry.id} short." in " ".join(out.split())


def test_lob_converts_a_stream_and_describes_it(capsys, tmp_path):
    from envzoo.marketmaking.lob.data.store import save_stream
    from envzoo.marketmaking.lob.generator import synthetic_lob

    stream = synthetic_lob(500, levels=5, seed=1)
    save_stream(stream, tmp_path / "raw")
    code, out, _ = run(capsys, "lob", "convert", "--format", "stream", "--book", str(tmp_path / "raw"),
                       "--out", str(tmp_path / "copy"))
    assert code == 0 and "500 updates x 5 levels" in out
    code, out, _ = run(capsys, "lob", "info", str(tmp_path / "copy"))
    assert code == 0 and f"{stream.trade_time.shape[0]:,} trades, 1 day(s)" in out


def test_lob_errors_name_the_path_and_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, "lob", "info", str(tmp_path / "missing"))
    assert code == 2 and "missing: not a stream directory" in err and "envzoo lob convert" in err
    assert err.startswith("envzoo: error:")


def test_lob_convert_errors_show_convert_usage_and_the_envzoo_prefix(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["lob", "convert", "--format", "tardis-snapshot", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert "usage: envzoo lob convert" in err and "--format tardis-snapshot needs --book" in err
    code, _, err = run(capsys, "lob", "convert", "--format", "tardis-snapshot", "--book", str(tmp_path / "none.csv"),
                       "--out", str(tmp_path / "out"))
    assert code == 2 and err.startswith("envzoo: error: no such file")


def test_python_dash_m_envzoo_is_the_envzoo_command():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "envzoo", "info", "envzoo/Serverless-v1"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "envzoo/Serverless-v1" in result.stdout and "knative-default" in result.stdout
