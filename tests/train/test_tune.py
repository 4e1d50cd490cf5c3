"""`envzoo tune`: rl-baselines3-zoo's search spaces, trials scored on validation seeds that are
not the leaderboard's, the median pruner wired to each evaluation, and a file `envzoo train` reads."""

import math

import pytest

from envzoo.cli import main
from envzoo.leaderboard.results import EVAL_SEED
from envzoo.train import tune as tuning
from envzoo.train.hyperparams import config_for
from envzoo.train.runs import TrainingError, check

optuna = pytest.importorskip("optuna")
pytest.importorskip("stable_baselines3")

ID = "envzoo/RiverSwimHeavy-v0"  # episodes of 20 steps: a trial is a few seconds
BASE = """
default:
  n_timesteps: 256
  eval_episodes: 2
  curve_points: 4
  curve_episodes: 1
  n_steps: 128
  batch_size: 64
"""


@pytest.fixture
def base(tmp_path):
    path = tmp_path / "ppo.yml"
    path.write_text(BASE)
    return path


def test_the_ppo_space_is_rl_zoo3s_and_a_minibatch_is_at_most_one_rollout():
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    for _ in range(40):
        trial = study.ask()
        values = tuning.sample_ppo(trial, n_envs=1)
        assert values["n_steps"] in (32, 64, 128, 256, 512, 1024, 2048)
        assert values["batch_size"] <= values["n_steps"] and values["n_epochs"] in (1, 5, 10, 20)
        assert 0.97 <= values["gamma"] <= 0.9999 and 0.9 <= values["gae_lambda"] <= 0.9999
        assert 1e-5 <= values["learning_rate"] <= 0.002 and 0.3 <= values["max_grad_norm"] <= 2.0
        assert values["policy_kwargs"]["net_arch"] in tuning.NET_ARCHS.values()
        assert values["policy_kwargs"]["activation_fn"] in tuning.ACTIVATIONS
        study.tell(trial, 0.0)


def test_a_study_validates_off_the_leaderboards_seeds_and_writes_a_block_train_reads(tmp_path, base, monkeypatch,
                                                                                       capsys):
    seen = []
    real = tuning.evaluation

    def recorded(env_id, make_policy, env_kwargs, episodes, first_seed=EVAL_SEED):
        seen.append(first_seed)
        return real(env_id, make_policy, env_kwargs, episodes, first_seed)

    monkeypatch.setattr(tuning, "evaluation", recorded)
    out = tmp_path / "tuned.yml"
    assert main(["tune", ID, "--algo", "ppo", "--trials", "2", "--timesteps", "128", "--evaluations", "2",
                 "--episodes", "2", "--hyperparams", str(base), "--out", str(out)]) == 0
    assert seen and set(seen) == {tuning.VALIDATION_SEED} and tuning.VALIDATION_SEED >= EVAL_SEED + 1_000
    printed = capsys.readouterr().out
    assert printed.count("COMPLETE") == 2 and f"wrote {out}" in printed
    tuned = config_for(ID, "ppo", out)
    assert tuned.n_timesteps == 128 and tuned.curve_points == 4  # the base block's, not the search's
    assert tuned.algo_kwargs["policy_kwargs"]["activation_fn"] in tuning.ACTIVATIONS
    assert main(["train", ID, "--algo", "ppo", "--hyperparams", str(out), "--results", str(tmp_path / "results"),
                 "--run-dir", str(tmp_path / "run")]) == 0


def test_a_pruned_trial_stops_at_the_evaluation_the_pruner_rejects(base):
    study = optuna.create_study(direction="maximize", pruner=optuna.pruners.ThresholdPruner(lower=math.inf))
    trial = study.ask()
    config = config_for(ID, "ppo", base)
    with pytest.raises(optuna.TrialPruned):
        tuning._train_and_validate(ID, "ppo", 0, config, trial, episodes=1)
    assert list(trial.storage.get_trial(trial._trial_id).intermediate_values) == [0]


@pytest.mark.parametrize("algo, message", [("sac", "envzoo tune searches ppo, maskable-ppo, a2c"),
                                           ("dqn", "envzoo tune searches")])
def test_an_algorithm_without_a_search_space_is_refused_in_one_line(algo, message):
    with pytest.raises(TrainingError, match=message):
        tuning.tune(ID, algo, trials=1)


def test_an_activation_name_that_is_no_torch_module_is_named(tmp_path, base):
    path = tmp_path / "bad.yml"
    path.write_text(BASE + "  policy_kwargs: {activation_fn: Tanhh}\n")
    with pytest.raises(TrainingError, match="'Tanhh' is no torch.nn module"):
        check(ID, "ppo", "sb3", 0, config_for(ID, "ppo", path))(None)
