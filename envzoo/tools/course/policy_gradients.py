"""Lesson 05, policy gradients against the Avellaneda–Stoikov closed form: checkers of the
risk-neutral optimal depth, rewards-to-go, and the closed-form quotes
(:mod:`envzoo.marketmaking.avellaneda_stoikov.policies`)."""

from __future__ import annotations

import numpy as np

from envzoo.marketmaking.avellaneda_stoikov.params import ASParams
from envzoo.marketmaking.avellaneda_stoikov.policies import as_depths
from envzoo.tools.course import Exercise, Wrong


def check_depth(answer) -> str:
    k = ASParams().fill_exponent
    if not isinstance(answer, (int, float, np.floating)):
        raise Wrong(f"answer a depth in price units, not {type(answer).__name__}")
    profit = lambda depth: depth * np.exp(-k * depth)  # noqa: E731  (the step's expected profit over A dt)
    if not abs(answer - 1 / k) < 1e-6:
        side = "deeper" if profit(answer + 1e-3) > profit(answer) else "closer to the mid"
        raise Wrong(f"a depth {side} earns more per step: maximize δ·A·exp(-kδ) over δ (set its derivative to 0) "
                    f"with the env's k = {k}")
    return "the depth that maximizes the expected spread earned per step"


def check_reward_to_go(answer) -> str:
    rewards = np.random.default_rng(5).normal(size=(7, 3))
    for discount in (1.0, 0.9):
        want = np.zeros_like(rewards)
        later = np.zeros(rewards.shape[1])
        for t in reversed(range(len(rewards))):
            later = rewards[t] + discount * later
            want[t] = later
        got = np.asarray(answer(rewards.copy(), discount), dtype=float)
        if got.shape != want.shape:
            raise Wrong(f"the rewards-to-go should have the rewards' shape {want.shape}, got {got.shape}")
        if not np.allclose(got, want):
            what = "the last step's reward-to-go is its own reward" if not np.allclose(got[-1], want[-1]) else \
                "G_t = r_t + discount * G_(t+1): sum from t to the end, not from the start"
            raise Wrong(f"with discount {discount}, your rewards-to-go differ: {what}")
    return "rewards-to-go of a batch of episodes, with and without discount"


def check_as_depths(answer) -> str:
    params = ASParams()
    for gamma, time_left, inventory in ((0.1, 1.0, 0), (0.1, 0.5, 3), (0.5, 0.2, -4), (0.01, 0.9, 10)):
        want = np.asarray(as_depths(params, gamma, time_left, inventory), dtype=float)
        got = np.asarray(answer(time_left, inventory, gamma, params.volatility, params.fill_exponent), dtype=float)
        if got.shape != want.shape or not np.allclose(got, want):
            which = "the spread (try inventory 0 first)" if inventory == 0 else \
                "the skew: a long inventory (q > 0) should quote both sides lower, to sell"
            raise Wrong(f"with γ = {gamma}, T - t = {time_left}, q = {inventory} your depths differ from the closed "
                        f"form's; look at {which}")
    return "the Avellaneda–Stoikov depths (reservation price and spread) for four states"


EXERCISES = (
    Exercise("RISK_NEUTRAL_DEPTH", "the depth that maximizes expected profit per step", check_depth),
    Exercise("reward_to_go", "rewards-to-go, the policy gradient's weights", check_reward_to_go),
    Exercise("as_depths", "the Avellaneda–Stoikov closed-form depths", check_as_depths),
)
