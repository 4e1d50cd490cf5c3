"""The JAX backends: every JAX core follows its CPU core's trajectories to 1e-9 (the same
counter-based random stream), and the functional API and the Gymnasium vector face keep their
promises (autoreset, horizon, seeding, checked actions, hand-off to PyTorch)."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding

import envzoo
from envzoo.core.errors import InvalidActionError, RegistryError
from envzoo.core.rng import key_from_generator
from envzoo.registry import parse_registry
from twin_pairs import twin_pair

jax = pytest.importorskip("jax")
jnp = jax.numpy
envzoo_jax = pytest.importorskip("envzoo.jax")

JAX_IDS = envzoo_jax.ids()
#: Arguments away from the defaults that switch the cores' other branches: one or more per id.
OTHER_CONFIGS = {
    "envzoo/Swarm-v0": [{"scenario": "coverage", "observation": "subsample", "kappa": 3, "graphon": "stochastic_block",
                         "n_agents": 12},
                        {"scenario": "rendezvous", "actions": "discrete", "graphon": "threshold", "dynamics": "double",
                         "population": "still", "types": "grid"}],
    "envzoo/SwarmMO-v0": [],  # Swarm-v0's core with the vector reward: its defaults cover what it adds
    "envzoo/TSP-v0": [{"size": 10, "reward": "edge"}, {"instance": "eil51"}],
    "envzoo/CVRP-v0": [{"instance": "E-n22-k4", "reward": "edge"}, {"size": 50}],
    "envzoo/Orienteering-v0": [{"prize_type": "unif", "reward": "edge"}, {"prize_type": "const", "size": 50}],
    "envzoo/MarketMakingAS-v1": [{"reward": "cara", "fill_probability": "poisson", "mid_noise": "gaussian",
                                  "max_inventory": 3, "fee_rate": 0.001, "terminal_penalty": 0.1,
                                  "initial_inventory": 2}],
    "envzoo/Portfolio-v1": [
        {"data": "synthetic-crypto-30m", "features": ("close", "high", "low", "volume"), "n_assets": 4, "window": 8,
         "episode_steps": 120, "allow_short": True, "max_leverage": 1.5, "max_weight": 0.6, "max_turnover": 0.8,
         "cash_rate": 1e-5, "reward": "differential_sharpe", "observation": "flat"},
        {"reward": "sortino", "reward_window": 5, "max_weight": 0.3, "max_turnover": 0.5, "commission": 0.01},
        {"reward": "rolling_sharpe", "split": "test", "test_start": "2022-01-01", "exact_cost": False},
        {"reward": "return_minus_turnover", "assets": ("MSFT", "KO", "XOM"), "n_assets": 2, "window": 3},
    ],
    "envzoo/MarketMaking-v1": [{"updates_per_day": 3000, "days": 3, "latency_ns": 500_000_000,
                                "queue_model": "probabilistic", "max_position": 2, "clock": "time", "interval_s": 2.0,
                                "reward": "differential_sharpe", "maker_fee": -0.0002}],
    "envzoo/MarketMakingMO-v1": [{"updates_per_day": 3000, "days": 3, "split": "test", "reward": "cartea_jaimungal",
                                  "clock": "volume", "volume": 20.0, "max_position": 1}],
    "envzoo/PortfolioMO-v0": [{"risk": "downside", "data": "factor-etfs", "n_assets": 3, "allow_short": True,
                               "max_leverage": 2.0, "observation": "flat"}],
    "envzoo/Trading-v1": [
        {"reward": "log_return", "allow_short": True, "data": "nasdaq-index", "episode_steps": 150,
         "fee_bps": 30.0, "lookback": 3, "indicators": {"rsi_period": 7, "ma_slow": 30}},
        {"positions": (0.0, 1.0, 2.5, 3.0), "split": "test", "test_start": "2018-01-01", "slippage_bps": 0.0},
    ],
    "envzoo/TradingMO-v1": [{"reward": "log_return", "positions": (-3.0, 0.0, 0.5), "allow_short": True,
                             "data": "synthetic"}],
    "envzoo/Serverless-v1": [{"workload": "bursty", "contention": 0.2, "cluster_pods": 6, "initial_level": 0,
                              "reward_weights": (0.05, 2.0, 0.01), "kpa": {"stable_window_s": 20}}],
    "envzoo/CollisionAvoidance-v1": [
        {"action_type": "continuous", "max_delta_v_mps": 0.3, "delta_v_budget_mps": 0.5, "decision_step_s": 900.0,
         "observation": "physical", "fuel_weight": 5.0, "hard_body_radius_m": 300.0, "collision_penalty": 50.0,
         "scenario": {"n_debris": 3, "max_step": 200.0, "miss_distance_range": (0.0, 400.0)},
         "tracking": {"update_interval_s": 1800.0, "velocity_noise": (0.002, 0.01, 0.002)}},
    ],
    "envzoo/CollisionAvoidanceMO-v1": [{"scenario": {"n_debris": 4}, "slot_weight": 1.0, "pc_threshold": 1e-6,
                                        "slot_tolerance_m": 200.0}],
    "envzoo/Promotion-v1": [{"cohort_size": 5, "bonuses": (0.0, 0.1, 0.3, 0.7), "budget": 1.1, "preset": "hard",
                             "churn_power": 1.5}],
    "envzoo/PromotionMO-v1": [{"cohort_size": 40, "preset": "easy", "budget": 30.0, "habit_decay": 0.2}],
    "envzoo/PromotionBudget-v0": [{"cohort_size": 8, "cost_limit": 100.0, "churn_max": 0.9}],
    "envzoo/ServerlessMO-v1": [{"workload": {"kind": "trace", "counts": [[600, 0, 1200, 60, 3000] * 4],
                                             "start_minute": None},
                                "decision_interval_s": 20.0, "cold_start_s": 0.0, "queue_capacity": 30,
                                "kpa": {"min_scale": 0, "scale_to_zero_grace_s": 10}}],
    "envzoo/SchedulingCluster-v0": [{"cpu": (4, 2), "memory": (8, 4), "speeds": 2.0, "idle_power": (1.0, 0.5),
                                      "peak_power": (1.5, 1.0), "boot_time": 0.0, "window": 2,
                                      "queue_capacity": 3, "arrival_rate": 9.0, "max_cpu": 2, "max_memory": 4,
                                      "priorities": 2, "rejection_penalty": 5.0}],
    "envzoo/SchedulingClusterMO-v0": [{"arrival_rate": 2.0, "off_power": 0.1, "boot_time": 0.5}],
}


def test_every_jax_id_has_its_other_configuration_listed():
    assert JAX_IDS and set(JAX_IDS) == set(OTHER_CONFIGS)


#: Ids whose float32 values (observations, vector rewards) may differ by one float32 rounding:
#: the swarm's are casts of O(N) sums, taken by the CPU kernel in loop order and by XLA in its own
#: reduction order, so their float64 values differ in the last bits and a cast can round apart.
FLOAT32_ROUNDING = {"envzoo/Swarm-v0": 2.0**-23, "envzoo/SwarmMO-v0": 2.0**-23}


def _lowest_action(space):
    """The action at the space's lower end: a Box's ``low``, a Discrete's first."""
    return space.low if isinstance(space, gym.spaces.Box) else space.start


def _as_float(value):
    return np.asarray(value, dtype=np.float64)


def _assert_close(cpu, jax_value, what, step, rtol=1e-9):
    """CPU and JAX values (arrays, or dicts of them: Dict observations, named costs) agree."""
    if isinstance(cpu, dict):
        assert set(cpu) == set(jax_value), what
        for name in cpu:
            _assert_close(cpu[name], jax_value[name], f"{what} {name}", step, rtol)
        return
    if np.asarray(cpu).dtype == np.float32:  # a CPU face's float32 reward (the MO faces' vector reward)
        jax_value = np.asarray(jax_value).astype(np.float32)
    np.testing.assert_allclose(_as_float(jax_value), _as_float(cpu), rtol=rtol, atol=rtol,
                               err_msg=f"{what} at step {step}")


CONFIGURATIONS = [pytest.param(env_id, kwargs, id=f"{env_id}-{name}") for env_id in JAX_IDS
                  for name, kwargs in [("defaults", {}), *((f"other-config-{k}", kwargs)
                                                           for k, kwargs in enumerate(OTHER_CONFIGS.get(env_id, ())))]]


@pytest.mark.parametrize("env_id, kwargs", CONFIGURATIONS)
def test_jax_core_follows_the_cpu_core(env_id, kwargs):
    cpu = gym.make(env_id, **kwargs).unwrapped  # without the horizon: both cores run the task's own end
    horizon = gym.spec(env_id).max_episode_steps  # or, for a continuing task, the registry's horizon
    env, params = envzoo_jax.make(env_id, max_episode_steps=None, **kwargs)
    reset, transition, observe, metrics = (jax.jit(f) for f in (env.reset_episode, env.transition, env.observe,
                                                                env.metrics))
    actions = np.random.default_rng(7)
    cpu.action_space.seed(7)
    twins = {name: twin_pair(env, name) for name in ("observe", "transition", "metrics")}  # for the messages
    for seed in (0, 11):
        observation, _ = cpu.reset(seed=seed)
        state = reset(key_from_generator(seeding.np_random(seed)[0]), params)
        rtol32 = FLOAT32_ROUNDING.get(env_id, 1e-9)
        _assert_close(observation, observe(state, params), f"first observation {twins['observe']}", 0, rtol32)
        for step in range(1, max(400, (horizon or 0) + 1)):  # a continuing task runs to its horizon
            action = cpu.action_space.sample() if actions.random() < 0.7 else _lowest_action(cpu.action_space)
            observation, reward, terminated, truncated, info = cpu.step(action)
            state, outcome = transition(state, jnp.asarray(action), params)
            _assert_close(observation, observe(state, params), f"observation {twins['observe']}", step, rtol32)
            _assert_close(reward, outcome.reward, f"reward {twins['transition']}", step,
                          rtol32 if np.ndim(reward) else 1e-9)
            assert bool(outcome.terminated) == terminated, step
            assert bool(outcome.truncated) == truncated, step
            if "cost" in info:
                _assert_close(info["cost"], outcome.cost, f"cost {twins['transition']}", step)
            jax_metrics = metrics(state, params)
            for name, value in info.get("metrics", {}).items():
                _assert_close(value, jax_metrics[name], f"metric {name} {twins['metrics']}", step)
            if terminated or truncated or step == horizon:
                break
        assert terminated or truncated or step == horizon, "the episode should end within 400 steps or its horizon"


#: An action held for the horizon test where the lowest one ends the episode at once (the
#: orienteering problem's action 0 drives back to the depot).
HELD_ACTIONS = {"envzoo/Orienteering-v0": 1}


@pytest.mark.parametrize("env_id", JAX_IDS)
def test_jitted_scan_autoresets_and_counts_the_horizon(env_id):
    env, params = envzoo_jax.make(env_id, max_episode_steps=5)
    action = jnp.asarray(HELD_ACTIONS.get(env_id, _lowest_action(env.action_space)))

    def one_step(carry, key):
        state, episodes = carry
        observation, state, reward, done, info = env.step(key, state, action, params)
        return (state, episodes + done), (done, info["truncated"], state.elapsed)

    _, state = env.reset(jax.random.key(0), params)
    (_, episodes), (done, truncated, elapsed) = jax.jit(
        lambda s: jax.lax.scan(one_step, (s, 0), jax.random.split(jax.random.key(1), 12)))(state)
    assert int(episodes) == 2  # steps 5 and 10 end an episode
    np.testing.assert_array_equal(np.flatnonzero(np.asarray(done)), [4, 9])
    assert bool(truncated[4]) and bool(truncated[9])
    np.testing.assert_array_equal(np.asarray(elapsed), [1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2])


@pytest.mark.parametrize("env_id", JAX_IDS)
def test_vector_face_starts_like_the_cpu_vector_env_and_autoresets(env_id):
    from twins import assert_twins_equal  # a failure names both vector faces' files and functions

    n = 6
    cpu = gym.make_vec(env_id, num_envs=n)
    on_jax = gym.make_vec(env_id, num_envs=n, backend="jax")
    assert on_jax.single_action_space == cpu.single_action_space
    assert on_jax.single_observation_space == cpu.single_observation_space
    cpu_obs, _ = cpu.reset(seed=3)
    jax_obs, _ = on_jax.reset(seed=3)
    assert_twins_equal(cpu_obs, jax_obs, "first observations", cpu.reset, on_jax.reset, rtol=1e-6)
    cpu.action_space.seed(0)
    ended = np.zeros(n, dtype=bool)
    for step in range(cpu.spec.max_episode_steps or 400):
        actions = cpu.action_space.sample()
        cpu_step = cpu.step(actions)
        jax_obs, rewards, terminated, truncated, info = on_jax.step(actions)
        done = np.asarray(terminated | truncated)
        if not ended.any():  # until some episode ends, every sub-env is in its first episode
            assert_twins_equal(cpu_step[1], rewards, f"rewards at step {step}", cpu.step, on_jax.step)
            np.testing.assert_array_equal(done, cpu_step[2] | cpu_step[3])
        if done.any():
            np.testing.assert_array_equal(np.asarray(info["_final_obs"]), done)
            # some part of the observation differs (an orienteering tour that went straight home
            # leaves `visited` as it started: its new instance's locations differ)
            assert any(not np.array_equal(np.asarray(final)[done], np.asarray(fresh)[done])
                       for final, fresh in zip(jax.tree.leaves(info["final_obs"]), jax.tree.leaves(jax_obs)))
        ended |= done
        if ended.all():
            break
    assert ended.all()


def test_vector_face_refuses_actions_outside_the_space():
    env_id = JAX_IDS[0]
    on_jax = gym.make_vec(env_id, num_envs=3, backend="jax")
    on_jax.reset(seed=0)
    space = on_jax.single_action_space
    high = np.broadcast_to(space.high if isinstance(space, gym.spaces.Box) else space.start + space.n - 1,
                           on_jax.action_space.shape)
    with pytest.raises(InvalidActionError, match="within the bounds"):
        on_jax.step(high * 2 + 1)
    with pytest.raises(InvalidActionError, match="shape"):
        on_jax.step(high[:2])
    with pytest.raises(ValueError, match=r"backend must be 'jax' \(the JAX core\) or left out"):
        gym.make_vec(env_id, num_envs=3, backend="cuda")


def test_vector_face_hands_observations_to_torch_without_a_copy():
    torch = pytest.importorskip("torch")
    on_jax = gym.make_vec(JAX_IDS[0], num_envs=4, backend="jax")
    observations = jax.tree.leaves(on_jax.reset(seed=0)[0])[0]
    tensor = torch.from_dlpack(observations)
    assert tuple(tensor.shape) == observations.shape
    assert tensor.data_ptr() == observations.unsafe_buffer_pointer()


def test_ids_without_a_jax_backend_say_so():
    no_jax = next(e.id for e in envzoo.list_envs(kind="gymnasium") if not e.jax_entry_point)
    with pytest.raises(ValueError, match="has no JAX backend"):
        envzoo_jax.make(no_jax)


def test_registry_refuses_a_jax_backend_outside_the_native_vector_face():
    entry = """
envs:
  - id: envzoo/Thing-v0
    kind: gymnasium
    domain: thing
    entry_point: thing.env:ThingEnv
    jax_entry_point: thing.jax_core:ThingJaxEnv
    summary: a thing
    metrics: [score]
"""
    with pytest.raises(RegistryError, match="vector_entry_point: native"):
        parse_registry(entry)
