"""PPO in JAX end to end: spaces that sample from a JAX key, the actor over MultiDiscrete actions
and Dict observations, and ``envzoo train --framework jax`` training several seeds in one
program, on tiny budgets."""

import json

import numpy as np
import pytest
from gymnasium import spaces

jax = pytest.importorskip("jax")
pytest.importorskip("optax")
envzoo_jax = pytest.importorskip("envzoo.jax")

from envzoo.cli import main  # noqa: E402
from envzoo.jax import spaces as jax_spaces  # noqa: E402
from envzoo.train.hyperparams import config_for  # noqa: E402
from envzoo.train.jax_runs import ppo_config  # noqa: E402
from envzoo.train.ppo_jax import Policy, PPOConfig, flatten, train  # noqa: E402
from envzoo.train.runs import TrainingError  # noqa: E402

TINY = {"num_envs": 8, "num_steps": 16, "update_epochs": 1, "num_minibatches": 2}


@pytest.mark.parametrize("space", [
    spaces.Discrete(5, start=2),
    spaces.MultiDiscrete([4, 2, 3]),
    spaces.Box(0.0, 5.0, (2,), np.float32),
    spaces.Box(np.array([-np.inf, 0.0, -np.inf]), np.array([np.inf, np.inf, 1.0]), dtype=np.float64),
    spaces.Box(-3, 3, (4,), np.int64),
    spaces.Dict({"b": spaces.Box(0.0, 1.0, (3,)), "a": spaces.Discrete(2)}),
])
def test_a_jax_space_samples_under_vmap_what_the_gymnasium_space_contains(space):
    twin = jax_spaces.from_gymnasium(space)
    samples = jax.jit(jax.vmap(twin.sample))(jax.random.split(jax.random.key(0), 500))
    for i in range(500):
        one = jax.tree.map(lambda leaf, i=i: np.asarray(leaf[i]), samples)
        assert space.contains(one if isinstance(one, dict) else one.astype(space.dtype)), one
        assert bool(twin.contains(one))


def test_a_jax_env_offers_its_action_space_as_a_jax_space():
    env, params = envzoo_jax.make("envzoo/Promotion-v1")
    actions = jax.vmap(env.jax_action_space.sample)(jax.random.split(jax.random.key(1), 64))
    assert actions.shape == (64, 16) and int(actions.min()) == 0 and int(actions.max()) == 3
    _, state = env.reset(jax.random.key(0), params)
    jax.jit(env.step)(jax.random.key(2), state, actions[0], params)  # a sampled action steps the env


def test_independent_categoricals_sum_their_log_probabilities_and_entropies():
    policy = Policy(spaces.MultiDiscrete([4, 2, 3]))
    logits = jax.numpy.zeros(policy.n_outputs)
    assert policy.n_outputs == 9
    np.testing.assert_allclose(policy.entropy(logits, None), np.log(4) + np.log(2) + np.log(3))
    np.testing.assert_allclose(policy.log_prob(logits, None, jax.numpy.array([3, 1, 0])), -np.log(24))
    skewed = jax.numpy.array([0, 0, 0, 5.0, 0, 0, 0, 0, 7.0])
    np.testing.assert_array_equal(policy.mode(skewed), [3, 0, 2])


def test_a_dict_observation_is_flattened_in_sorted_key_order():
    observation = {"weights": np.ones((2, 3)), "prices": np.arange(2 * 2 * 2).reshape(2, 2, 2)}
    np.testing.assert_array_equal(flatten(observation)[0], [0, 1, 2, 3, 1, 1, 1])
    np.testing.assert_array_equal(flatten({k: v[0] for k, v in observation.items()}, batch_dims=0),
                                  [0, 1, 2, 3, 1, 1, 1])


@pytest.mark.parametrize("env_id", ["envzoo/Promotion-v1", "envzoo/Portfolio-v1"])
def test_multidiscrete_actions_and_dict_observations_train(env_id):
    env, params = envzoo_jax.make(env_id)
    result = train(env, params, PPOConfig(total_timesteps=2 * 8 * 16, **TINY), jax.random.key(0))
    assert np.all(np.isfinite(result.curve["value_loss"])) and np.all(np.isfinite(result.curve["entropy"]))


def test_a_key_that_is_not_a_ppo_field_is_named(tmp_path):
    path = tmp_path / "jax-ppo.yml"
    path.write_text("default:\n  n_timesteps: 1000\n  n_steps: 64\n")
    with pytest.raises(TrainingError, match="n_steps are not PPOConfig fields"):
        ppo_config("envzoo/MarketMakingAS-v1", config_for("envzoo/MarketMakingAS-v1", "ppo", path, "jax"))


def test_train_command_trains_seeds_together_and_each_equals_its_run_alone(tmp_path, capsys):
    hyperparams = tmp_path / "jax-ppo.yml"
    hyperparams.write_text("default:\n  n_timesteps: 512\n  n_envs: 8\n  num_steps: 16\n  update_epochs: 1\n"
                           "  num_minibatches: 2\n  eval_episodes: 2\n  curve_points: 2\n  curve_episodes: 1\n")
    common = ["train", "envzoo/MarketMakingAS-v1", "--algo", "ppo", "--framework", "jax",
              "--hyperparams", str(hyperparams)]
    assert main(common + ["--seed", "0", "1", "--results", str(tmp_path / "both"),
                          "--run-dir", str(tmp_path / "runs-both")]) == 0
    assert main(common + ["--seed", "0", "--results", str(tmp_path / "alone"),
                          "--run-dir", str(tmp_path / "runs-alone")]) == 0
    both = {seed: json.loads((tmp_path / "both" / "MarketMakingAS-v1" / f"jax-ppo-seed{seed}.json").read_text())
            for seed in (0, 1)}
    alone = json.loads((tmp_path / "alone" / "MarketMakingAS-v1" / "jax-ppo-seed0.json").read_text())
    assert both[0]["timesteps"] == 512 and len(both[0]["curve"]) == 2
    assert both[0]["hyperparams"]["seeds_trained_together"] == [0, 1]
    np.testing.assert_allclose(both[0]["evaluation"]["returns"], alone["evaluation"]["returns"], rtol=1e-6)
    assert both[0]["evaluation"]["returns"] != both[1]["evaluation"]["returns"]
    assert "jax-ppo-seed1" in capsys.readouterr().out


def test_resume_loads_the_checkpoint_exactly_and_no_pickle_is_written(tmp_path):
    from envzoo.train.jax_runs import train_seeds

    hyperparams = tmp_path / "jax-ppo.yml"
    hyperparams.write_text("default:\n  n_timesteps: 256\n  n_envs: 8\n  num_steps: 16\n  update_epochs: 1\n"
                           "  num_minibatches: 2\n  eval_episodes: 2\n  curve_points: 2\n  curve_episodes: 1\n")
    config = config_for("envzoo/MarketMakingAS-v1", "ppo", hyperparams, "jax")
    first = train_seeds("envzoo/MarketMakingAS-v1", "ppo", [3], config, tmp_path / "run", log=lambda line: None)
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["carry.npz", "state.json"]
    # Resumed at its end: nothing more to train, and the reloaded networks play the same episodes.
    again = train_seeds("envzoo/MarketMakingAS-v1", "ppo", [3], config, tmp_path / "run", resume=True,
                        log=lambda line: None)
    assert again[0].evaluation == first[0].evaluation and again[0].curve == first[0].curve
    with pytest.raises(TrainingError, match="seeds"):
        train_seeds("envzoo/MarketMakingAS-v1", "ppo", [4], config, tmp_path / "run", resume=True)
