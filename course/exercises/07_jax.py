"""Lesson 07 exercises: fill in each answer, then run `envzoo course check 07` from the
repository's root (or `python -m pytest course/test_exercises.py -k 07`). Write them with
jax.numpy and jax.lax.scan if you can (numpy answers pass too)."""


def discounted_returns(rewards, dones, last_value, gamma):
    """Exercise 1. rewards and dones (steps, envs), last_value (envs,): G_t = r_t + γ (1 - done_t)
    G_(t+1), with G after the last step = last_value. Return G (steps, envs)."""
    raise NotImplementedError


def gae(rewards, values, dones, last_value, gamma, lam):
    """Exercise 2. Generalized advantage estimation: values V(s_t) (steps, envs), V after the last
    step = last_value; δ_t = r_t + γ (1 - done_t) V(s_(t+1)) - V(s_t), A_t = δ_t + γ λ (1 - done_t)
    A_(t+1). Return A (steps, envs)."""
    raise NotImplementedError
