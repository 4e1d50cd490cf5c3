"""`envzoo leaderboard --plot`: the curves, intervals and profiles are written as real pictures."""

import base64
import dataclasses
import re

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
    page = (tmp_path / "plots" / "report.html").read_text(encoding="utf-8")
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == 4 and all(base64.b64decode(image).startswith(b"\x89PNG") for image in images)
    links = re.findall(r'href="([^"]*)"', page)
    assert links and all(link.startswith("#") for link in links)  # navigation within the page only
    for anchor in links:
        assert f'id="{anchor[1:]}"' in page
    for heading in ("envzoo/MarketMakingAS-v1", "envzoo/Serverless-v1", "Across ids", "marketmaking", "serverless"):
        assert heading in page
    assert page.count("<table>") >= 4 and "<caption>envzoo/Serverless-v1: " in page


def test_an_entrant_on_one_id_only_is_aggregated_over_its_own_ids(tmp_path, capsys):
    from envzoo.leaderboard import report
    from envzoo.leaderboard.results import collect

    for env_id, algo in (("envzoo/MarketMakingAS-v1", "ppo"), ("envzoo/Serverless-v1", "ppo"),
                         ("envzoo/Serverless-v1", "a2c"), ("envzoo/Trading-v1", "dqn")):
        for seed in range(2):
            write(dataclasses.replace(_result((30.0 + seed, 40.0)), env_id=env_id, algo=algo, seed=seed),
                  tmp_path)
    results = collect(tmp_path)
    rows = {row[0]: row for row in report.aggregate_table(results, reps=200).rows}
    assert (rows["sb3-ppo"][1], rows["sb3-a2c"][1], rows["sb3-dqn"][1]) == ("2", "1", "1")
    pairs = {(row[0], row[1]): row[2] for row in report.improvement_table(results, reps=200).rows}
    assert pairs == {("sb3-a2c", "sb3-ppo"): "1", ("sb3-ppo", "sb3-a2c"): "1"}  # dqn shares no id
