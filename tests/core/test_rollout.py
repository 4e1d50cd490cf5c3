"""Summaries of evaluated episodes."""

import numpy as np

from envzoo.tools.rollout import EpisodeResult, summarize


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


def test_step_rewards_add_up_to_the_return_and_max_steps_cuts_the_episode():
    import envzoo
    from envzoo.core.policy import RandomPolicy
    from envzoo.tools.rollout import run_episode

    for env_id in ("envzoo/ServerlessMO-v1", "envzoo/ServerlessCluster-v1"):
        env = envzoo.make(env_id)
        try:
            result = run_episode(env, RandomPolicy(env), seed=1, max_steps=7)
        finally:
            env.close()
        assert result.length == 7 and len(result.step_rewards) == 7
        np.testing.assert_allclose(result.step_rewards.sum(axis=0), result.episode_return)
