"""Lesson 07, JAX end to end: checkers of discounted returns and generalized advantage estimation
(the core of PPO, :mod:`envzoo.train.ppo_jax`), each written as a backward scan over time."""

from __future__ import annotations

import numpy as np

from envzoo.tools.course import Exercise, Wrong


def _batch(seed: int, steps: int = 9, envs: int = 4):
    generator = np.random.default_rng(seed)
    rewards = generator.normal(size=(steps, envs))
    values = generator.normal(size=(steps, envs))
    dones = generator.random((steps, envs)) < 0.2
    return rewards, values, dones, generator.normal(size=envs)


def reference_returns(rewards, dones, last_value, gamma):
    returns, later = np.zeros_like(rewards), last_value
    for t in reversed(range(len(rewards))):
        later = rewards[t] + gamma * later * (1 - dones[t])
        returns[t] = later
    return returns


def reference_gae(rewards, values, dones, last_value, gamma, lam):
    advantages, running = np.zeros_like(rewards), np.zeros(rewards.shape[1])
    next_values = np.concatenate([values[1:], last_value[None]])
    for t in reversed(range(len(rewards))):
        delta = rewards[t] + gamma * next_values[t] * (1 - dones[t]) - values[t]
        running = delta + gamma * lam * (1 - dones[t]) * running
        advantages[t] = running
    return advantages


def check_returns(answer) -> str:
    for seed, gamma in ((0, 0.99), (1, 0.5)):
        rewards, _, dones, last_value = _batch(seed)
        got = np.asarray(answer(rewards.copy(), dones.copy(), last_value.copy(), gamma), dtype=float)
        want = reference_returns(rewards, dones, last_value, gamma)
        if got.shape != want.shape:
            raise Wrong(f"returns should have the rewards' shape (steps, envs) = {want.shape}, got {got.shape}")
        if not np.allclose(got, want, atol=1e-5):
            hint = "the last step bootstraps on last_value" if np.allclose(got[:-1], want[:-1], atol=1e-5) else \
                "a step with done = True starts a new episode: nothing after it flows back into it"
            raise Wrong(f"with γ = {gamma} your returns differ: {hint}")
    return "discounted returns over episode boundaries, bootstrapped at the end"


def check_gae(answer) -> str:
    for seed, gamma, lam in ((2, 0.99, 0.95), (3, 0.9, 0.0), (4, 0.9, 1.0)):
        rewards, values, dones, last_value = _batch(seed)
        got = np.asarray(answer(rewards.copy(), values.copy(), dones.copy(), last_value.copy(), gamma, lam), dtype=float)
        want = reference_gae(rewards, values, dones, last_value, gamma, lam)
        if got.shape != want.shape or not np.allclose(got, want, atol=1e-5):
            hint = {0.0: "with λ = 0 the advantage is the one-step TD error r + γ V(s') (1 - done) - V(s)",
                    1.0: "with λ = 1 the advantage is the discounted return minus V(s)"}.get(lam, "check the "
                                                                                            "recursion A_t = δ_t + γλ(1 - done_t) A_(t+1)")
            raise Wrong(f"with γ = {gamma}, λ = {lam} your advantages differ: {hint}")
    return "GAE for λ = 0, 0.95 and 1, across episode boundaries"


EXERCISES = (
    Exercise("discounted_returns", "discounted returns over a batch of rollouts", check_returns),
    Exercise("gae", "generalized advantage estimation", check_gae),
)
