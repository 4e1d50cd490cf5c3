"""`envzoo leaderboard --plot`: the curves, intervals and profiles are written as real pictures."""

import dataclasses

import numpy as np
import pytest

from envzoo.cli import main
from envzoo.leaderboard.results import CurvePoint, write
from tests.leaderboard.test_results import _result

pytest.importorskip("matplotlib")


def _pixels(path):
    import matplotlib.image

    return matplotlib.image.imread(path)


def test_plots_of_two_entrants_on_two_ids(tmp_path, capsys):
    for env_id in ("envzoo/MarketMakingAS-v1", "envzoo/Serverless-v1"):
        for algo, level in (("ppo", 30.0), ("a2c", 20.0)):
            for seed in range(3):
                curve = (CurvePoint(100 + seed, level / 2, 1.0), CurvePoint(200, level + seed, 2.0))
                result = _result((level + seed, level + 2 * seed))
                result = dataclasses.replace(result, env_id=env_id, algo=algo, seed=seed, curve=curve)
                write(result, tmp_path / "results")
    assert main(["leaderboard", "--results", str(tmp_path / "results"), "--reps", "200",
                 "--plot", str(tmp_path / "plots")]) == 0
    written = sorted(p.name for p in (tmp_path / "plots").glob("*.png"))
    assert written == ["curves-MarketMakingAS-v1.png", "curves-Serverless-v1.png", "intervals.png", "profiles.png"]
    for name in written:
        image = _pixels(tmp_path / "plots" / name)
        assert image.ndim == 3 and image.shape[0] >= 250 and np.std(image) > 0.05  # drawn, not blank
    assert "sb3-ppo" in capsys.readouterr().out
