"""The perfect-foresight plan: its car schedule is the simulator's, and it beats the field's rules;
the rolling MPC on forecasts sits between them."""

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.powergrid.mpc import car_schedule
from envzoo.powergrid.policies import DeviceRules, PerfectForesight, RollingMPC
from envzoo.powergrid.sim import T_ASKED


def episode_return(env, policy, seed):
    observation, info = env.reset(seed=seed)
    policy.reset(seed)
    total, done = 0.0, False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        total += reward
        done = terminated or truncated
    return total, info["metrics"]


def test_the_car_schedule_is_the_simulators():
    env = gymnasium.make("envzoo/PowerGrid-v0")
    env.reset(seed=5)
    sim = env.unwrapped.task.sim
    cars = car_schedule(env.unwrapped.params, sim.ev_draws[0])
    for _ in range(env.unwrapped.params.steps):
        env.step(env.action_space.low)
    assert np.isclose(sum(car[3] for car in cars), sim.totals[0, T_ASKED], rtol=1e-12)
    assert all(first <= last for _, first, last, _ in cars)


def test_perfect_foresight_beats_the_rules_and_keeps_the_voltage():
    env = gymnasium.make("envzoo/PowerGrid-v0")
    planned, planned_metrics = episode_return(env, PerfectForesight(env), seed=0)
    rules, rules_metrics = episode_return(env, DeviceRules(env), seed=0)
    assert planned > rules
    assert planned_metrics["voltage_violation"] < 0.1 * rules_metrics["voltage_violation"]
    assert planned_metrics["ev_delivered_kwh"] <= planned_metrics["ev_asked_kwh"] * (1 + 1e-12)


def test_rolling_mpc_on_forecasts_sits_between_the_rules_and_the_oracle():
    """The receding-horizon plan on forecasts (no future car, mean weather) beats the rules and
    keeps the voltage better than they do; the oracle, which knows the day, does better still."""
    env = gymnasium.make("envzoo/PowerGrid-v0")
    rolling, rolling_metrics = episode_return(env, RollingMPC(env), seed=1)
    rules, rules_metrics = episode_return(env, DeviceRules(env), seed=1)
    oracle, _ = episode_return(env, PerfectForesight(env), seed=1)
    assert rules < rolling < oracle
    assert rolling_metrics["voltage_violation"] < rules_metrics["voltage_violation"]
    assert rolling_metrics["ev_delivered_kwh"] <= rolling_metrics["ev_asked_kwh"] * (1 + 1e-12)


def test_rolling_mpc_arguments_are_checked():
    env = gymnasium.make("envzoo/PowerGrid-v0")
    with pytest.raises(ValueError, match="horizon must be a whole number"):
        RollingMPC(env, horizon=0)
