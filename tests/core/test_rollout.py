"""Summaries of evaluated episodes."""

import numpy as np

from envzoo.core.rollout import EpisodeResult, summarize


def _results(values, returns):
    return [EpisodeResult({"share": value}, episode_return, 10) for value, episode_return in zip(values, returns)]


def test_equal_float32_values_have_no_spread():
    # KPIs equal but for their last bits (float32 sums in another order) printed a spread of 1e-9.
    share = float(np.float32(0.016_7))
    stats = summarize(_results([share, share + share * 1e-9, share], [1.0, 1.0, 1.0]))
    assert stats["share"] == (np.mean([share, share + share * 1e-9, share]), 0.0)
    assert stats["return"][1] == 0.0


def test_a_real_spread_is_kept():
    stats = summarize(_results([1.0, 1.001], [0.0, 2.0]))
    assert np.isclose(stats["share"][1], 0.0005) and stats["return"] == (1.0, 1.0)
