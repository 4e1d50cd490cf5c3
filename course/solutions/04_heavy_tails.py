"""Lesson 04 answer key (instructors)."""

import numpy as np


def median_of_means(samples, groups):
    kept = samples[: len(samples) - len(samples) % groups]
    return float(np.median(kept.reshape(groups, -1).mean(axis=1)))


def truncated_mean(samples, u, v, delta):
    i = np.arange(1, len(samples) + 1)
    keep = np.abs(samples) <= (u * i / np.log(1 / delta)) ** (1 / (1 + v))
    return float(np.sum(samples[keep]) / len(samples))


def robust_mean(samples):
    return median_of_means(samples, 10)
