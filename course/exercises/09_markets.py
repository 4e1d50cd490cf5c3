"""Lesson 09 exercises: fill in each answer, then run `envzoo course check 09` from the
repository's root (or `python -m pytest course/test_exercises.py -k 09`)."""

import numpy as np


def monopoly_price(cost: float, max_value: float) -> float:
    """Exercise 1. The price that maximizes a single seller's expected profit per consumer,
    (price - cost) * P(value >= price), when consumers' values are uniform on [0, max_value]."""
    raise NotImplementedError


def bertrand_price(costs: np.ndarray, max_value: float) -> float:
    """Exercise 2. The price at which the market trades in Bertrand competition (firms post prices,
    consumers buy from the cheapest), as the price tick goes to 0, for firms of unit costs `costs`
    and consumers' values uniform on [0, max_value]."""
    raise NotImplementedError
