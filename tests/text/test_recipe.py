"""The recipe's trainer learns: on the ladder's first level a few PPO iterations with dense
rewards beat random admissible play clearly on games it never trained on; the group baselines
are what RLOO and GRPO define."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

#: A training experiment, not part of the package: run as ``python baselines/text_recipe.py``.
RECIPE = Path(__file__).resolve().parents[2] / "baselines" / "text_recipe.py"
_spec = importlib.util.spec_from_file_location("text_recipe", RECIPE)
recipe = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recipe)
Config, Episode, advantages, evaluate, random_baseline, train = (
    recipe.Config, recipe.Episode, recipe.advantages, recipe.evaluate, recipe.random_baseline, recipe.train)


def test_ppo_beats_random_admissible_play_on_the_first_level():
    trained, curve = train(Config(algorithm="ppo", reward="dense", train_levels=("L1",), iterations=12,
                                  episodes_per_iteration=16, horizon=20, seed=0))
    learned = evaluate(trained, "L1", episodes=40, horizon=20)
    floor = random_baseline("L1", episodes=40, horizon=20)
    # measured here: success 22.5 % and progress 49 against random play's 7.5 % and 30
    assert learned["progress"] > floor["progress"] + 10 and learned["success"] >= 2 * floor["success"] + 5, (learned,
                                                                                                              floor)


def _episodes(returns):
    return [Episode("L1", 0, rewards=[0.0] * 2 + [r]) for r in returns]


def test_group_baselines():
    returns = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    rloo, _ = advantages(_episodes(returns), Config(algorithm="rloo", group_size=4))
    # leave-one-out: 1 - mean(0, 0, 1) and 0 - mean(1, 0, 1)
    assert rloo[0][0] == pytest.approx(2 / 3) and rloo[1][0] == pytest.approx(-2 / 3)
    assert rloo[4][0] == pytest.approx(1 / 3) and rloo[7][0] == pytest.approx(-1)
    assert all(np.all(a == a[0]) and len(a) == 3 for a in rloo)  # the episode's advantage on every step
    grpo, _ = advantages(_episodes(returns), Config(algorithm="grpo", group_size=4))
    assert grpo[0][0] == pytest.approx(1.0, abs=1e-5) and grpo[1][0] == pytest.approx(-1.0, abs=1e-5)
    assert grpo[7][0] == pytest.approx(-np.sqrt(3), abs=1e-5)


def test_rank_correlation_is_spearmans():
    from scipy.stats import spearmanr

    a, b = np.random.default_rng(0).random((2, 6))
    assert recipe.rank_correlation(a, b) == pytest.approx(spearmanr(a, b).statistic)
