"""`envzoo train` and `envzoo leaderboard` end to end on small budgets: result files, the curve,
checkpoints and resume, the tables, and the errors of runs that cannot be trained."""

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from envzoo.cli import main
from envzoo.leaderboard.results import collect, problems
from envzoo.train.hyperparams import HyperparamsError, config_for

pytest.importorskip("stable_baselines3")

#: The studies of baselines/README.md: hyperparameter files for `envzoo train --hyperparams FILE`.
STUDIES_DIR = Path(__file__).resolve().parents[2] / "baselines" / "studies"

HYPERPARAMS = """
default:
  n_timesteps: 256
  eval_episodes: 2
  curve_points: 2
  curve_episodes: 1
  n_steps: 128
  batch_size: 64
envzoo/ServerlessCluster-v1:
  env_kwargs: {max_cycles: 40}
"""


def last_checkpoint(run_dir):
    """The checkpoint folder the run folder's state file names (the only one left)."""
    [folder] = run_dir.glob("checkpoint*")
    assert json.loads((run_dir / "state.json").read_text())["checkpoint"] == folder.name
    return folder


@pytest.fixture
def hyperparams(tmp_path):
    path = tmp_path / "ppo.yml"
    path.write_text(HYPERPARAMS)
    return path


def _train(tmp_path, hyperparams, env_id, *extra):
    return main(["train", env_id, "--algo", "ppo", "--hyperparams", str(hyperparams), "--results",
                 str(tmp_path / "results"), "--run-dir", str(tmp_path / "run" / env_id.split("/")[1]), *extra])


def test_train_writes_a_result_the_leaderboard_accepts_and_resume_goes_on(tmp_path, hyperparams, capsys):
    assert _train(tmp_path, hyperparams, "envzoo/MarketMakingAS-v1", "--seed", "1") == 0
    [result] = collect(tmp_path / "results")
    assert (result.env_id, result.algo, result.framework, result.seed) == ("envzoo/MarketMakingAS-v1", "ppo", "sb3", 1)
    assert [point.timesteps for point in result.curve] == [128, 256]
    assert result.timesteps == 256 and problems(result) == []
    assert set(result.references) >= {"random", "avellaneda-stoikov", "symmetric"}
    assert result.references["random"].seeds == result.evaluation.seeds
    state = json.loads((tmp_path / "run" / "MarketMakingAS-v1" / "state.json").read_text())
    assert len(state["curve"]) == 2

    assert _train(tmp_path, hyperparams, "envzoo/MarketMakingAS-v1", "--seed", "1", "--timesteps", "512",
                  "--resume") == 0
    [resumed] = collect(tmp_path / "results")
    assert [point.timesteps for point in resumed.curve] == [128, 256, 512]  # the first two kept from the checkpoint
    assert resumed.curve[:2] == result.curve

    capsys.readouterr()
    assert main(["leaderboard", "--results", str(tmp_path / "results"), "--reps", "200"]) == 0
    table = capsys.readouterr().out
    assert "sb3-ppo" in table and "reference: avellaneda-stoikov" in table and "score 0 = random" in table
    [path] = (tmp_path / "results").glob("*/*.json")
    assert main(["leaderboard", "--check", str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith(": ok")


def test_a_pettingzoo_id_trains_one_shared_network(tmp_path, hyperparams):
    assert _train(tmp_path, hyperparams, "envzoo/ServerlessCluster-v1") == 0
    [result] = collect(tmp_path / "results")
    assert result.env_kwargs == {"max_cycles": 40} and len(result.evaluation.returns) == 2


@pytest.mark.parametrize("env_id, algo, message", [
    ("envzoo/MarketMakingAS-v1", "dqn", "DQN needs a Discrete action space"),
    ("envzoo/ServerlessMO-v1", "ppo", "vector reward"),
    ("envzoo/Serverless-v1", "nope", "unknown algorithm 'nope'"),
    ("envzoo/Reasoning-v0", "maskable-ppo", "needs a finite set of actions; envzoo/Reasoning-v0 takes free text"),
    ("envzoo/Household-v0", "ppo", "only --algo maskable-ppo restricts to the legal ones"),
])
def test_runs_that_cannot_be_trained_say_why(tmp_path, hyperparams, capsys, env_id, algo, message):
    assert main(["train", env_id, "--algo", algo, "--hyperparams", str(hyperparams), "--results",
                 str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_hyperparameter_blocks_override_the_default_and_bad_ones_are_named(tmp_path, hyperparams):
    config = config_for("envzoo/ServerlessCluster-v1", "ppo", hyperparams)
    assert config.env_kwargs == {"max_cycles": 40} and config.algo_kwargs == {"n_steps": 128, "batch_size": 64}
    bad = tmp_path / "bad.yml"
    bad.write_text("default:\n  n_timesteps: -5\n")
    with pytest.raises(HyperparamsError, match="n_timesteps must be a positive integer"):
        config_for("envzoo/Serverless-v1", "ppo", bad)
    with pytest.raises(HyperparamsError, match="no hyperparameter file"):
        config_for("envzoo/Serverless-v1", "ppo", tmp_path / "missing.yml")


def test_every_seed_is_checked_before_the_first_run_trains(tmp_path, hyperparams, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where the runs' folders would go
    assert main(["train", "envzoo/Serverless-v1", "--algo", "ppo", "--hyperparams", str(hyperparams), "--seed", "0",
                 "10000", "--results", str(tmp_path / "results")]) == 2
    assert "seed must be in [0, 9999)" in capsys.readouterr().err
    assert not (tmp_path / "results").exists() and not (tmp_path / "runs").exists()


def test_hyperparams_takes_a_folder_of_files_named_by_algorithm(tmp_path):
    (tmp_path / "a2c.yml").write_text("default:\n  n_timesteps: 7\n")
    (tmp_path / "rllib-ppo.yml").write_text("default:\n  n_timesteps: 9\n")
    assert config_for("envzoo/Serverless-v1", "a2c", tmp_path).n_timesteps == 7
    assert config_for("envzoo/Serverless-v1", "ppo", tmp_path, "rllib").n_timesteps == 9
    with pytest.raises(HyperparamsError, match=r"no hyperparameter file .*ppo\.yml for sb3 'ppo'"):
        config_for("envzoo/Serverless-v1", "ppo", tmp_path)


def test_every_shipped_hyperparameter_file_reads_for_every_id_it_names():
    import yaml

    import envzoo
    from envzoo.train.hyperparams import CONFIGS_DIR

    for path in sorted(CONFIGS_DIR.glob("*.yml")):
        for env_id in yaml.safe_load(path.read_text()):
            if env_id != "default":
                envzoo.env_info(env_id)  # a misspelled id raises
                assert config_for(env_id, path.stem).n_timesteps > 0
    studies = sorted(STUDIES_DIR.glob("*.yml"))
    assert studies
    for path in studies:
        for env_id in yaml.safe_load(path.read_text()):
            if env_id != "default":
                config = config_for(env_id, "ppo", path)
                assert config.n_timesteps > 0
                envzoo.make(env_id, **config.env_kwargs).close()  # the study's arguments build the env


class _MaskedChoice(gym.Env):
    """Pick one of 4 arms; only the arms the info's mask allows are legal (reward 1 for a legal
    one, -1 and the end of the episode for an illegal one)."""

    observation_space = gym.spaces.Box(0.0, 1.0, (4,), np.float32)
    action_space = gym.spaces.Discrete(4)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        return self._draw()

    def _draw(self):
        self.mask = self.np_random.random(4) < 0.5
        self.mask[self.np_random.integers(4)] = True
        return self.mask.astype(np.float32), {"action_mask": self.mask.copy()}

    def step(self, action):
        legal = bool(self.mask[action])
        observation, info = self._draw()
        return observation, 1.0 if legal else -1.0, not legal, False, info


def test_maskable_ppo_reads_the_mask_from_info_and_never_plays_a_masked_action():
    from sb3_contrib import MaskablePPO

    from envzoo.core.policy import MaskedTrainedPolicy
    from envzoo.train.sb3 import InfoActionMask

    env = InfoActionMask(gym.wrappers.TimeLimit(_MaskedChoice(), 20))
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu").learn(128)
    policy = MaskedTrainedPolicy(env, model)
    observation, info = env.reset(seed=1)
    for _ in range(200):
        action = policy(observation, info)
        assert info["action_mask"][action]
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            observation, info = env.reset()


def test_maskable_ppo_needs_an_env_that_reports_masks(tmp_path, hyperparams, capsys):
    assert main(["train", "envzoo/Serverless-v1", "--algo", "maskable-ppo", "--hyperparams", str(hyperparams),
                 "--results", str(tmp_path)]) == 2
    assert "info['action_mask']" in capsys.readouterr().err


def test_the_dispatch_study_runs_the_optic_er_like_preset():
    import yaml

    from envzoo.dispatch.params import OPTIC_ER_LIKE

    study = yaml.safe_load((STUDIES_DIR / "dispatch-optic-er.yml").read_text())
    as_lists = {name: np.asarray(value).tolist() for name, value in OPTIC_ER_LIKE.items()}
    assert study["default"]["env_kwargs"] == as_lists


class _RecordsActions(gym.Env):
    """A one-dimensional env with the action box [0, 20] that keeps every action it is sent."""

    observation_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
    action_space = gym.spaces.Box(np.float32(0.0), np.float32(20.0), (1,), np.float32)

    def __init__(self):
        self.sent = []

    def reset(self, seed=None, options=None):
        return np.zeros(1, np.float32), {}

    def step(self, action):
        self.sent.append(float(action[0]))
        return np.zeros(1, np.float32), 0.0, False, False, {}


def test_normalized_actions_train_on_the_unit_box_and_play_on_the_env_bounds():
    from stable_baselines3.common.vec_env import DummyVecEnv

    from envzoo.core.policy import Policy
    from envzoo.train.sb3 import UnitActionPolicy, VecUnitActions

    env = _RecordsActions()
    vec = VecUnitActions(DummyVecEnv([lambda: env]))
    assert vec.action_space == gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
    vec.reset()
    for unit in (-1.0, 0.0, 0.5, 1.0):
        vec.step(np.array([[unit]], np.float32))
    assert env.sent == [0.0, 10.0, 15.0, 20.0]

    class Halfway(Policy):
        def __call__(self, observation, info):
            return np.array([0.0], np.float32)

    assert UnitActionPolicy(Halfway(_RecordsActions()))(np.zeros(1), {})[0] == 10.0
    with pytest.raises(ValueError, match="needs a bounded Box action space"):
        VecUnitActions(DummyVecEnv([lambda: gym.make("CartPole-v1")]))


def test_a_pettingzoo_id_trains_with_normalized_actions_and_observations_and_resumes(tmp_path):
    import pickle

    path = tmp_path / "ppo.yml"
    path.write_text(HYPERPARAMS + "envzoo/Bazaar-v0:\n  normalize_actions: true\n  normalize_observations: true\n"
                    "  env_kwargs: {max_cycles: 20}\n")
    assert _train(tmp_path, path, "envzoo/Bazaar-v0", "--timesteps", "128") == 0
    checkpoint = last_checkpoint(tmp_path / "run" / "Bazaar-v0")
    statistics = pickle.loads((checkpoint / "observation_statistics.pkl").read_bytes())
    assert statistics.obs_rms.count > 100  # the running statistics saw the training observations
    assert _train(tmp_path, path, "envzoo/Bazaar-v0", "--resume") == 0
    [result] = collect(tmp_path / "results")
    assert result.timesteps >= 256 and result.hyperparams["normalize_observations"]
    assert result.hyperparams["normalize_actions"] and problems(result) == []
    # Price 0 (the box's low end, where unnormalized PPO settled) bankrupts every firm; the
    # unit box's centre is half the maximum price, so an untrained network trades.
    assert min(result.evaluation.metrics["mean_price"]) > 0


def test_the_lagrange_multiplier_steps_on_the_relative_violation_and_stays_nonnegative():
    from envzoo.train.lagrangian import Multiplier

    multiplier = Multiplier(cost_limit=100.0, learning_rate=0.5)
    multiplier.step()  # no episode ended: no step
    assert multiplier.value == 0.0
    multiplier.episode_costs = [150.0, 250.0]  # mean 200: twice the limit
    multiplier.step()
    assert multiplier.value == 0.5 and multiplier.episode_costs == []
    multiplier.episode_costs = [0.0]
    multiplier.step()
    assert multiplier.value == 0.0  # 0.5 - 0.5, and never below 0
    multiplier.episode_costs = [0.0]
    multiplier.step()
    assert multiplier.value == 0.0


def test_the_lagrangian_penalty_charges_the_cost_at_the_limit_pace():
    from envzoo.train.lagrangian import LagrangianPenalty, Multiplier

    class Costly(_RecordsActions):
        def step(self, action):
            observation, _, _, _, info = super().step(action)
            return observation, 1.0, False, len(self.sent) == 3, {**info, "cost": 4.0}

    multiplier = Multiplier(cost_limit=6.0, learning_rate=0.1, value=1.0)
    env = LagrangianPenalty(Costly(), multiplier, horizon=3)  # the limit's pace: 2 a step
    env.reset()
    rewards = [env.step(np.zeros(1, np.float32))[1] for _ in range(3)]
    assert rewards == [(1.0 - 1.0 * 4.0 / 2.0) / 2.0] * 3
    assert multiplier.episode_costs == [12.0]


def test_ppo_lagrangian_trains_a_constrained_id_and_resumes_with_its_multiplier(tmp_path, capsys):
    path = tmp_path / "ppo-lagrangian.yml"
    path.write_text(HYPERPARAMS + "envzoo/PromotionBudget-v0:\n  lagrangian: {cost_limit: 480, multiplier_lr: 1.0}\n")

    def train(*extra):
        return main(["train", "envzoo/PromotionBudget-v0", "--algo", "ppo-lagrangian", "--hyperparams", str(path),
                     "--results", str(tmp_path / "results"), "--run-dir", str(tmp_path / "run"), *extra])

    assert train() == 0
    saved = json.loads((last_checkpoint(tmp_path / "run") / "lagrange_multiplier.json").read_text())["value"]
    assert saved > 0  # random play overspends the limit, so the multiplier rose
    assert train("--timesteps", "512", "--resume") == 0
    [result] = collect(tmp_path / "results")
    assert result.algo == "ppo-lagrangian" and result.timesteps >= 512 and problems(result) == []
    assert result.constraint is not None
    for env_id, block, message in [
            ("envzoo/Crafter-v1", "  lagrangian: {cost_limit: 1}\n", "one cost signal"),
            ("envzoo/Promotion-v1", "", "needs a block 'lagrangian"),
    ]:
        path.write_text(HYPERPARAMS + f"{env_id}:\n{block}  n_timesteps: 64\n")
        assert main(["train", env_id, "--algo", "ppo-lagrangian", "--hyperparams", str(path),
                     "--results", str(tmp_path / "other")]) == 2
        assert message in capsys.readouterr().err
    path.write_text(HYPERPARAMS + "envzoo/PromotionBudget-v0:\n  lagrangian: {cost_limit: 480}\n")
    assert main(["train", "envzoo/PromotionBudget-v0", "--algo", "ppo", "--hyperparams", str(path),
                 "--results", str(tmp_path / "other")]) == 2
    assert "for --algo ppo-lagrangian" in capsys.readouterr().err


def test_a_text_id_trains_as_a_choice_among_its_admissible_commands(tmp_path, capsys):
    hyperparams = tmp_path / "maskable-ppo.yml"
    hyperparams.write_text("default:\n  n_timesteps: 256\n  n_steps: 128\n  batch_size: 64\n  eval_episodes: 1\n"
                           "  curve_points: 1\n  curve_episodes: 1\n  max_choices: 32\n  torch_threads: 1\n"
                           "  policy: envzoo.train.slot_scorer:SlotScorerPolicy\n")
    import torch

    threads = torch.get_num_threads()
    assert main(["train", "envzoo/Household-v0", "--algo", "maskable-ppo", "--hyperparams", str(hyperparams),
                 "--results", str(tmp_path / "results"), "--run-dir", str(tmp_path / "run")]) == 0
    assert torch.get_num_threads() == threads  # torch_threads holds while training only
    [result] = collect(tmp_path / "results")
    assert (result.env_id, result.algo, result.timesteps) == ("envzoo/Household-v0", "maskable-ppo", 256)
    assert result.hyperparams["max_choices"] == 32 and problems(result) == []
    assert set(result.references) >= {"random", "random-admissible", "expert"}
    [path] = (tmp_path / "results").glob("*/*.json")
    capsys.readouterr()
    assert main(["leaderboard", "--check", str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith(": ok")
