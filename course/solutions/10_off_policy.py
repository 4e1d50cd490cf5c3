"""Lesson 10 answer key (instructors)."""

import numpy as np


def _weights(alive, behaviour, target):
    return np.cumprod(np.where(alive > 0, target / behaviour, 1.0), axis=1)


def ips(reward, alive, behaviour, target, gamma):
    discounts = gamma ** np.arange(reward.shape[1])
    return float((discounts * _weights(alive, behaviour, target) * reward).sum(axis=1).mean())


def snips(reward, alive, behaviour, target, gamma):
    weights = _weights(alive, behaviour, target)
    discounts = gamma ** np.arange(reward.shape[1])
    return float((discounts * weights / weights.mean(axis=0) * reward).sum(axis=1).mean())


def effective_sample_size(weights):
    return float(weights.sum() ** 2 / (weights ** 2).sum())
