"""Result files: the round trip, the normalized score, and what `envzoo leaderboard --check` finds."""

import dataclasses
import json

import pytest

from envzoo.leaderboard.results import (
    EVAL_SEED,
    CurvePoint,
    Evaluation,
    ResultFileError,
    RunResult,
    collect,
    load,
    problems,
    write,
)

SEEDS = (EVAL_SEED, EVAL_SEED + 1)


def _evaluation(*returns, seeds=SEEDS, metrics=None):
    return Evaluation(seeds, tuple(returns), metrics or {})


def _result(trained=(30.0, 50.0), **changes) -> RunResult:
    import envzoo

    metrics = {name: (1.0, 2.0) for name in envzoo.env_info("envzoo/MarketMakingAS-v1").metrics}
    result = RunResult(
        env_id="envzoo/MarketMakingAS-v1", algo="ppo", framework="sb3", seed=3, timesteps=1000, env_kwargs={},
        eval_env_kwargs={}, hyperparams={"n_timesteps": 1000}, versions={"envzoo": "0"}, wall_seconds=1.5,
        curve=(CurvePoint(500, 10.0, 1.0), CurvePoint(1000, 40.0, 2.0)),
        evaluation=_evaluation(*trained, metrics=metrics),
        references={"random": _evaluation(10.0, 10.0), "symmetric": _evaluation(70.0, 50.0),
                    "inventory-skew": _evaluation(40.0, 40.0)})
    return dataclasses.replace(result, **changes)


def test_a_result_survives_its_file(tmp_path):
    result = _result()
    path = write(result, tmp_path)
    assert path == tmp_path / "MarketMakingAS-v1" / "sb3-ppo-seed3.json"
    assert load(path) == result
    assert collect(tmp_path) == [result]


def test_the_score_is_zero_at_random_and_one_at_the_best_reference():
    result = _result()
    assert result.best_reference == "symmetric"  # mean 60 against inventory-skew's 40
    assert result.normalized_score == pytest.approx((40.0 - 10.0) / (60.0 - 10.0))
    assert result.normalize(10.0) == 0.0 and result.normalize(60.0) == 1.0


def test_oracles_and_random_are_not_the_yardstick():
    result = _result(references={"random": _evaluation(10.0, 10.0)})
    with pytest.raises(ResultFileError, match="no reference policy besides random"):
        result.normalized_score
    flat = _result(references={"random": _evaluation(10.0, 10.0), "symmetric": _evaluation(5.0, 5.0)})
    with pytest.raises(ResultFileError, match="beats random"):
        flat.normalized_score


def _budget_result(**changes) -> RunResult:
    """A PromotionBudget-v0 result: "limit_exceeded" marks the episodes that broke the cost limit."""
    import envzoo

    entry = envzoo.env_info("envzoo/PromotionBudget-v0")

    def run(*returns, broke):
        metrics = {name: (0.0,) * len(returns) for name in entry.metrics}
        return _evaluation(*returns, metrics={**metrics, "limit_exceeded": broke})

    result = _result(env_id=entry.id, constraint=entry.constraint, evaluation=run(20.0, 24.0, broke=(0.0, 1.0)),
                     references={"random": run(25.0, 27.0, broke=(1.0, 0.0)), "no-bonus": run(18.0, 18.0, broke=(0, 0)),
                                 "bcrlsp": run(22.0, 24.0, broke=(0.0, 0.0))})
    return dataclasses.replace(result, **changes)


def test_a_constrained_id_scores_the_constrained_return(tmp_path):
    result = _budget_result()
    # Random overspends in its first episode: 0 + 27; the trained run in its second: 20 + 0.
    assert result.scored_return(result.references["random"]) == 13.5
    assert result.best_reference == "bcrlsp"  # 23 against no-bonus's 18
    assert result.normalized_score == pytest.approx((10.0 - 13.5) / (23.0 - 13.5))
    assert load(write(result, tmp_path)) == result
    assert problems(result) == []
    assert any("scored under the constraint" in found for found in problems(_budget_result(constraint=None)))


def test_a_sound_result_has_no_problems():
    assert problems(_result()) == []


@pytest.mark.parametrize("change, problem", [
    ({"env_id": "envzoo/Nope-v0"}, "not an envzoo id"),
    ({"evaluation": _evaluation(1.0, 2.0, seeds=(0, 1))}, "evaluation seeds must be"),
    ({"references": {"symmetric": _evaluation(70.0, 50.0)}}, "random policy's evaluation is missing"),
    ({"evaluation": _evaluation(1.0, 2.0)}, "metrics missing from the evaluation"),
])
def test_check_names_what_keeps_a_result_off_the_board(change, problem):
    assert any(problem in found for found in problems(_result(**change)))


def test_check_wants_the_references_on_the_same_seeds():
    references = {"random": _evaluation(10.0, 10.0), "symmetric": _evaluation(70.0, 50.0, seeds=(5, 6))}
    assert any("other seeds" in found for found in problems(_result(references=references)))
    assert any("below the required" in found for found in problems(_result(), min_timesteps=10_000))


def test_malformed_files_name_the_file_and_field(tmp_path):
    path = write(_result(), tmp_path)
    raw = json.loads(path.read_text())
    del raw["seed"]
    path.write_text(json.dumps(raw))
    with pytest.raises(ResultFileError, match=r"sb3-ppo-seed3.json: the field 'seed' is missing"):
        load(path)
    path.write_text("{not json")
    with pytest.raises(ResultFileError, match="cannot read it as JSON"):
        load(path)
    path.write_text(json.dumps({**raw, "schema": 99}))
    with pytest.raises(ResultFileError, match="not a result file of schema 1"):
        load(path)


def test_the_metrics_table_averages_runs_and_names_missing_metrics():
    from envzoo.leaderboard import report

    metric = next(iter(_result().evaluation.metrics))
    runs = [_result(seed=seed, evaluation=_evaluation(30.0, 50.0, metrics={metric: (value, value + 2.0)}),
                    references={"random": _evaluation(10.0, 10.0, metrics={metric: (0.0, 1.0)}),
                                "symmetric": _evaluation(70.0, 50.0, metrics={metric: (5.0, 7.0)})})
            for seed, value in ((0, 1.0), (1, 3.0))]
    rows = {row[0]: row for row in report.metrics_table(runs, "envzoo/MarketMakingAS-v1", [metric], reps=500).rows}
    mean, interval = rows["sb3-ppo"][2].split(" ", 1)
    assert float(mean) == 3.0  # run means 2 and 4
    low, high = (float(v) for v in interval.strip("[]").split(", "))
    assert 2.0 <= low < 3.0 < high <= 4.0
    assert rows["reference: symmetric"][2] == "6" and rows["reference: random"][2] == "0.5"
    with pytest.raises(ResultFileError, match="no metric nope"):
        report.metrics_table(runs, "envzoo/MarketMakingAS-v1", ["nope"])
    without = dataclasses.replace(runs[1], references={"random": _evaluation(10.0, 10.0)})
    with pytest.raises(ResultFileError, match=f"seed 1 records no metric {metric} for random"):
        report.metrics_table([runs[0], without], "envzoo/MarketMakingAS-v1", [metric])
    elsewhere = dataclasses.replace(runs[1], evaluation=_evaluation(30.0, 50.0, seeds=(1, 2), metrics={metric: (1, 1)}))
    with pytest.raises(ResultFileError, match="evaluated on other episodes"):
        report.metrics_table([runs[0], elsewhere], "envzoo/MarketMakingAS-v1", [metric])


def test_a_first_event_that_never_happened_is_never_in_the_metrics_table():
    from envzoo.leaderboard import report

    event = "first_diamond_step"
    runs = [_result(seed=seed, evaluation=_evaluation(30.0, 50.0, metrics={event: steps}),
                    references={"random": _evaluation(10.0, 10.0, metrics={event: (-1.0, -1.0)}),
                                "symmetric": _evaluation(70.0, 50.0, metrics={event: (-1.0, 400.0)})})
            for seed, steps in ((0, (-1.0, 100.0)), (1, (300.0, -1.0)))]
    rows = {row[0]: row for row in report.metrics_table(runs, "envzoo/MarketMakingAS-v1", [event], reps=500).rows}
    assert rows["sb3-ppo"][2] == "200 (2 of 4)"
    assert rows["reference: random"][2] == "never (0 of 2)" and rows["reference: symmetric"][2] == "400 (1 of 2)"
