"""`envzoo train --framework rllib` and `envzoo sweep` on small budgets: one single-agent and one
PettingZoo id (shared and per-agent policies), checkpoints and resume, and a sweep of Ray tasks.

Needs the ``rllib`` extra, whose Ray pins ``gymnasium==1.2.2``: CI runs this file in a second
virtual environment with that Gymnasium (see ``.ci/run``)."""

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
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
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


def test_a_sweep_runs_seeds_as_ray_tasks(tmp_path, monkeypatch):
    from envzoo.train import sweep

    monkeypatch.setattr(sweep, "config_for", _tiny_config_for(tmp_path))
    runs = sweep.plan(["envzoo/MarketMakingAS-v1"], ["ppo"], ["sb3"], [0, 1], timesteps=256)
    written = sweep.sweep(runs, tmp_path / "results", run_root=tmp_path, log=lambda line: None)
    assert sorted(path.name for path in written) == ["sb3-ppo-seed0.json", "sb3-ppo-seed1.json"]
    assert [r.seed for r in collect(tmp_path / "results")] == [0, 1]


def _tiny_config_for(tmp_path):
    from envzoo.train.hyperparams import config_for

    path = tmp_path / "ppo.yml"
    path.write_text("default:\n  n_timesteps: 256\n  eval_episodes: 2\n  curve_points: 1\n  curve_episodes: 1\n"
                    "  n_steps: 128\n  batch_size: 64\n")
    return lambda env_id, algo, path_=None, framework="sb3": config_for(env_id, algo, path, framework)
