"""`envzoo train --framework rllib` and `envzoo sweep` on small budgets: one single-agent and one
PettingZoo id (shared and per-agent policies), checkpoints and resume, and a sweep of Ray tasks.

Needs the ``rllib`` extra, whose Ray pins ``gymnasium==1.2.2``: CI runs this file in a second
virtual environment with that Gymnasium (see ``.ci/run``)."""

import json
import os
from dataclasses import asdict, replace
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")

from envzoo.cli import main  # noqa: E402
from envzoo.leaderboard.results import collect, problems  # noqa: E402

HYPERPARAMS = """
default:
  n_timesteps: 400
  eval_episodes: 2
  curve_points: 2
  curve_episodes: 1
  train_batch_size_per_learner: 200
  minibatch_size: 50
  num_epochs: 1
envzoo/ServerlessCluster-v1:
  env_kwargs: {max_cycles: 25}
envzoo/MarketMakingArena-v1:
  multi_agent_policies: per-agent
"""


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """A Ray of the tests' own, even where a Ray cluster runs on this machine (address "local")."""
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _train(tmp_path, env_id, *extra):
    hyperparams = tmp_path / "rllib-ppo.yml"
    hyperparams.write_text(HYPERPARAMS)
    return main(["train", env_id, "--algo", "ppo", "--framework", "rllib", "--hyperparams", str(hyperparams),
                 "--results", str(tmp_path / "results"), "--run-dir", str(tmp_path / "run" / env_id.split("/")[1]),
                 *extra])


def test_rllib_trains_a_single_agent_id_and_resumes(tmp_path):
    assert _train(tmp_path, "envzoo/MarketMakingAS-v1") == 0
    [result] = collect(tmp_path / "results")
    assert result.framework == "rllib" and result.timesteps >= 400 and len(result.curve) == 2
    assert problems(result) == [] and result.versions["ray"] != "not installed"
    assert _train(tmp_path, "envzoo/MarketMakingAS-v1", "--timesteps", "800", "--resume") == 0
    [resumed] = collect(tmp_path / "results")
    assert resumed.curve[:2] == result.curve and resumed.timesteps >= 800


@pytest.mark.parametrize("key", ["normalize_actions: true", "torch_threads: 1"])
def test_rllib_refuses_the_sb3_only_keys(tmp_path, capsys, key):
    hyperparams = tmp_path / "rllib-ppo.yml"
    hyperparams.write_text(HYPERPARAMS + f"envzoo/Bazaar-v0:\n  {key}\n")
    assert main(["train", "envzoo/Bazaar-v0", "--algo", "ppo", "--framework", "rllib", "--hyperparams",
                 str(hyperparams), "--results", str(tmp_path / "results")]) == 2
    assert f"{key.split(':')[0]} " in capsys.readouterr().err  # the error names the key


@pytest.mark.parametrize("env_id", ["envzoo/ServerlessCluster-v1", "envzoo/MarketMakingArena-v1"])
def test_rllib_trains_a_pettingzoo_id(tmp_path, env_id):
    assert _train(tmp_path, env_id) == 0
    [result] = collect(tmp_path / "results")
    assert result.env_id == env_id and len(result.evaluation.returns) == 2
    assert result.references["random"].seeds == result.evaluation.seeds


def test_the_shipped_defaults_reach_rllib_and_a_box_action_is_clipped_not_rescaled():
    import envzoo
    from envzoo.train.hyperparams import config_for
    from envzoo.train.rllib import learner_factory

    entry = envzoo.env_info("envzoo/MarketMakingAS-v1")
    config = replace(config_for(entry.id, "ppo", framework="rllib"), n_timesteps=400)
    learner = learner_factory(entry, "ppo", 0, config)(None)
    try:
        settings = learner.algo.config
        assert (settings.normalize_actions, settings.clip_actions) == (False, True)
        assert (settings.lambda_, settings.vf_clip_param, settings.use_kl_loss) == (0.95, float("inf"), False)
        assert list(settings.model_config["fcnet_hiddens"]) == [64, 64]
        env = envzoo.make(entry.id)
        policy = learner.policy(env)
        observation, info = env.reset(seed=0)
        for _ in range(30):
            action = policy(observation, info)
            # The untrained Gaussian is centred near 0, the space's lower bound: unclipped, about
            # half of these depths would be negative.
            assert env.action_space.contains(action), action
            observation, _, terminated, truncated, info = env.step(action)
            assert not (terminated or truncated)
    finally:
        learner.close()


@pytest.mark.parametrize("block, named, valid", [
    ("environment: {normalise_actions: false}", "normalise_actions", "normalize_actions"),
    ("model: {hidden: [64]}", "hidden", "fcnet_hiddens"),
    ("lamda: 0.9", "lamda", "lambda_"),
])
def test_a_key_rllib_does_not_know_is_named_with_the_valid_ones(tmp_path, capsys, block, named, valid):
    hyperparams = tmp_path / "rllib-ppo.yml"
    hyperparams.write_text(HYPERPARAMS + f"envzoo/MarketMakingAS-v1:\n  {block}\n")
    assert main(["train", "envzoo/MarketMakingAS-v1", "--algo", "ppo", "--framework", "rllib", "--hyperparams",
                 str(hyperparams), "--results", str(tmp_path / "results")]) == 2
    [line] = [line for line in capsys.readouterr().err.splitlines() if named in line]
    assert valid in line


def _shipped_blocks():
    import yaml

    from envzoo.train.hyperparams import hyperparams_file

    return sorted(set(yaml.safe_load(hyperparams_file("ppo", "rllib").read_text())) - {"default"})


@pytest.mark.parametrize("env_id", _shipped_blocks())
def test_every_shipped_block_passes_the_checks_made_before_a_run(env_id):
    import envzoo
    from envzoo.train.hyperparams import config_for
    from envzoo.train.rllib import learner_factory

    learner_factory(envzoo.env_info(env_id), "ppo", 0, config_for(env_id, "ppo", framework="rllib"))


SB3_HYPERPARAMS = """
default:
  n_timesteps: 256
  eval_episodes: 2
  curve_points: 2
  curve_episodes: 1
  n_steps: 128
  batch_size: 64
envzoo/Serverless-v1:
  n_steps: 0
"""


@pytest.fixture
def sb3_hyperparams(tmp_path):
    folder = tmp_path / "hyperparams"
    folder.mkdir()
    (folder / "ppo.yml").write_text(SB3_HYPERPARAMS)
    return folder


def test_a_sweep_writes_the_runs_that_finish_and_names_the_one_that_failed(tmp_path, sb3_hyperparams, capsys):
    # Serverless-v1's block breaks PPO (n_steps 0) only once it is built: that run fails, the others go on.
    assert main(["sweep", "--ids", "envzoo/MarketMakingAS-v1", "envzoo/Serverless-v1", "--algos", "ppo",
                 "--seeds", "0", "1", "--hyperparams", str(sb3_hyperparams), "--results", str(tmp_path / "results"),
                 "--runs-dir", str(tmp_path / "runs")]) == 2
    out, err = capsys.readouterr()
    assert [(r.env_id, r.seed) for r in collect(tmp_path / "results")] == [("envzoo/MarketMakingAS-v1", 0),
                                                                          ("envzoo/MarketMakingAS-v1", 1)]
    assert "2 of 4 runs failed (the other 2 result files are written)" in err
    assert "envzoo/Serverless-v1 sb3-ppo seed 0" in err and "n_steps" in err
    # Progress while the runs trained, and the checkpoints under --runs-dir.
    assert "envzoo/MarketMakingAS-v1 ppo seed 1: 128/256 steps" in out
    assert (tmp_path / "runs" / "MarketMakingAS-v1" / "sb3-ppo-seed1" / "state.json").is_file()


@pytest.mark.parametrize("argument, message", [
    (["--seeds", "0", "10000"], "seed must be in [0, 9999)"),
    (["--ids", "envzoo/MarketMakingAS-v1", "envzoo/Nope-v0"], "Nope-v0"),
    (["--algos", "ppo", "sac"], "sb3-sac seed 0: SAC needs a Box action space"),
])
def test_a_sweep_checks_every_run_before_any_starts(tmp_path, sb3_hyperparams, capsys, argument, message):
    command = {"--ids": ["envzoo/Serverless-v1"], "--algos": ["ppo"], "--seeds": ["0"], **{argument[0]: argument[1:]}}
    (sb3_hyperparams / "sac.yml").write_text(SB3_HYPERPARAMS)
    assert main(["sweep", *[word for key, values in command.items() for word in (key, *values)], "--hyperparams",
                 str(sb3_hyperparams), "--results", str(tmp_path / "results"), "--runs-dir",
                 str(tmp_path / "runs")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()  # nothing started


def test_a_sweep_takes_one_file_only_for_one_algorithm(tmp_path, sb3_hyperparams, capsys):
    assert main(["sweep", "--ids", "envzoo/Serverless-v1", "--algos", "ppo", "a2c", "--hyperparams",
                 str(sb3_hyperparams / "ppo.yml")]) == 2
    assert "give a folder with a file per algorithm" in capsys.readouterr().err


def test_a_sweep_run_whose_worker_dies_resumes_from_its_last_checkpoint(tmp_path, sb3_hyperparams):
    import signal

    from envzoo.train import sweep

    (sb3_hyperparams / "ppo.yml").write_text(SB3_HYPERPARAMS.replace("curve_points: 2", "curve_points: 8"))
    [run] = sweep.plan(["envzoo/MarketMakingAS-v1"], ["ppo"], ["sb3"], [0], timesteps=1024,
                       hyperparams=sb3_hyperparams)
    state_file = tmp_path / "runs" / "MarketMakingAS-v1" / "sb3-ppo-seed0" / "state.json"
    lines, killed = [], {}

    def log(line):  # the driver's: kill the task's worker once the run has saved a checkpoint
        lines.append(line)
        if not killed and state_file.is_file():
            killed["curve"] = json.loads(state_file.read_text())["curve"]
            os.kill(_worker_running("train_spec"), signal.SIGKILL)

    [path] = sweep.sweep([run], tmp_path / "results", tmp_path / "runs", log=log)
    [result] = collect(tmp_path / "results")
    assert killed and any(line.startswith("resuming envzoo/MarketMakingAS-v1 ppo seed 0 at ") for line in lines)
    assert [asdict(point) for point in result.curve[:len(killed["curve"])]] == killed["curve"]
    assert result.timesteps >= 1024 and len(result.curve) == 8 and problems(result) == []


def _worker_running(function: str) -> int:
    """The pid of this process's Ray worker executing ``function`` (Ray titles it
    ``ray::FUNCTION``; the workers descend from the Ray this process started)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes().startswith(f"ray::{function}".encode()) and _descends_from_us(cmdline.parent):
                return int(cmdline.parent.name)
        except OSError:  # a process that ended meanwhile
            continue
    raise AssertionError(f"no Ray worker of this process runs {function}")


def _descends_from_us(process: Path) -> bool:
    pid = int(process.name)
    while pid > 1:
        if pid == os.getpid():
            return True
        pid = int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
    return False
