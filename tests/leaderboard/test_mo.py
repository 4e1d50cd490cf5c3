"""Multi-objective result files (their schema and round trip), `envzoo leaderboard --mo` from
fixture files, and a short MORL-Baselines run where that library is installed."""

import dataclasses
import json

import numpy as np
import pytest

from envzoo.cli import main
from envzoo.leaderboard import mo_results
from envzoo.leaderboard.mo_report import mo_table, scalar_sibling
from envzoo.leaderboard.mo_results import MORunResult, PolicyReturns, load, write
from envzoo.leaderboard.results import EVAL_SEED, ResultFileError
from envzoo.leaderboard.results import write as write_scalar
from tests.leaderboard.test_results import _result

ID = "envzoo/TradingMO-v1"  # hypervolume reference (-0.5, -0.1, -0.5)
SEEDS = (EVAL_SEED, EVAL_SEED + 1)


def _policy(label, *point):
    return PolicyReturns(label, (tuple(point), tuple(point)))  # the same vector on both episodes


def _front_result(seed=0, front=((0.5, -0.05, -0.25), (-0.25, 0.0, 0.0)), algo="envelope") -> MORunResult:
    return MORunResult(
        env_id=ID, algo=algo, framework="morl", seed=seed, timesteps=2000, env_kwargs={},
        hyperparams={"batch_size": 64}, versions={"envzoo": "0"}, wall_seconds=12.0,
        objectives=("return", "risk", "trading_costs"), eval_seeds=SEEDS,
        front=tuple(_policy(f"w{k}", *p) for k, p in enumerate(front)),
        references={"random": _policy("random", -0.5, -0.1, -0.5), "buy-and-hold": _policy("buy-and-hold", 0.0, -0.05, 0.0)})


def test_round_trip_and_schema(tmp_path):
    result = _front_result()
    path = write(result, tmp_path)
    assert path == tmp_path / "TradingMO-v1" / "morl-envelope-seed0.json"
    assert load(path) == result
    raw = json.loads(path.read_text())
    assert (raw["schema"], raw["kind"]) == (mo_results.SCHEMA, "multi-objective")
    assert raw["front"][0] == {"label": "w0", "returns": [[0.5, -0.05, -0.25], [0.5, -0.05, -0.25]]}
    assert np.allclose(result.points, [[0.5, -0.05, -0.25], [-0.25, 0.0, 0.0]])


@pytest.mark.parametrize("change, message", [
    (lambda raw: raw.pop("front"), "'front' is missing"),
    (lambda raw: raw.update(kind="scalar"), "not a multi-objective result file"),
    (lambda raw: raw.update(eval_seeds=[1, 2]), "evaluation seeds must be 10000"),
    (lambda raw: raw["front"][0]["returns"].pop(), "front w0 has 1 episodes for 2"),
    (lambda raw: raw["front"][1]["returns"][0].pop(), r"front\[1\] has a return vector without one value"),
    (lambda raw: raw["references"]["random"]["returns"][0].__setitem__(0, float("nan")), "NaN or infinite"),
])
def test_a_broken_file_is_refused_naming_what_is_wrong(tmp_path, change, message):
    path = write(_front_result(), tmp_path)
    raw = json.loads(path.read_text())
    change(raw)
    path.write_text(json.dumps(raw))
    with pytest.raises(ResultFileError, match=message):
        load(path)


def test_scalar_sibling_is_the_name_without_mo():
    assert scalar_sibling(ID) == "envzoo/Trading-v1"
    assert scalar_sibling("envzoo/ServerlessMO-v1") == "envzoo/Serverless-v1"
    assert scalar_sibling("envzoo/Trading-v1") is None


def test_table_of_two_seeds_references_and_the_scalar_sibling():
    # seed 0's front: (0.5,-.05,-.25) and (-.25,0,0) over (-.5,-.1,-.5): boxes 1*.05*.25 + .25*.1*.5 - overlap
    # .25*.05*.25; seed 1 has one point (0, -0.05, 0): box .5*.05*.5
    seed0 = 1 * 0.05 * 0.25 + 0.25 * 0.1 * 0.5 - 0.25 * 0.05 * 0.25
    seed1 = 0.5 * 0.05 * 0.5
    scalar = dataclasses.replace(_result(), env_id="envzoo/Trading-v1", algo="ppo", seed=0)
    table = mo_table([_front_result(0), _front_result(1, front=((0.0, -0.05, 0.0),))], ID, [scalar])
    rows = {row[0].split(" (")[0]: row for row in table.rows}
    assert rows["morl-envelope"][1:4] == ("2", "2,000", "12")
    assert float(rows["morl-envelope"][4]) == pytest.approx((seed0 + seed1) / 2, rel=1e-3)
    assert rows["morl-envelope"][7] == "1.5"  # cardinality 2 and 1
    assert float(rows["reference: buy-and-hold"][4]) == pytest.approx(seed1, rel=1e-3)
    assert float(rows["reference: random"][4]) == 0.0  # on the reference point: no volume
    assert rows["scalar Trading-v1: sb3-ppo"][-1] == (f"{scalar.scored_return(scalar.evaluation):.4g} "
                                                     f"({scalar.normalized_score:.2f})")
    assert "hypervolume reference (-0.5, -0.1, -0.5)" in table.title


def test_leaderboard_mo_prints_a_table_per_id_and_plots_its_front(tmp_path, capsys):
    for seed in range(2):
        write(_front_result(seed), tmp_path / "mo")
    write(dataclasses.replace(_front_result(0, algo="gpi-ls")), tmp_path / "mo")
    write_scalar(dataclasses.replace(_result(), env_id="envzoo/Trading-v1"), tmp_path / "scalar")
    arguments = ["leaderboard", "--mo", "--mo-results", str(tmp_path / "mo"), "--results", str(tmp_path / "scalar")]
    pytest.importorskip("matplotlib")
    assert main([*arguments, "--plot", str(tmp_path / "plots")]) == 0
    out = capsys.readouterr().out
    assert "morl-envelope" in out and "morl-gpi-ls" in out and "scalar Trading-v1: sb3-ppo" in out
    assert "reference: buy-and-hold (0, -0.05, 0)" in out
    import matplotlib.image

    image = matplotlib.image.imread(tmp_path / "plots" / "front-TradingMO-v1.png")
    assert image.shape[1] > image.shape[0] and np.std(image) > 0.05  # three panels, drawn
    assert main([*arguments, "SwarmMO-v0"]) != 0
    assert "no multi-objective result files for SwarmMO-v0" in capsys.readouterr().err


def test_training_refuses_what_does_not_fit():
    from envzoo.train.morl import check
    from envzoo.train.runs import TrainingError

    with pytest.raises(TrainingError, match="capql needs a Box action space; envzoo/TradingMO-v1 has Discrete: "
                                            "use envelope, gpi-ls"):
        check(ID, "capql")
    with pytest.raises(TrainingError, match="unknown MORL algorithm 'pcn'"):
        check(ID, "pcn")
    with pytest.raises(TrainingError, match="kind gymnasium"):
        check("envzoo/Trading-v1", "envelope")
    with pytest.raises(TrainingError, match="PortfolioMO-v0 has no hypervolume_reference"):
        check("envzoo/PortfolioMO-v0", "capql")


def test_a_short_envelope_run_writes_a_front(tmp_path):
    pytest.importorskip("morl_baselines", reason="morl-baselines is not installed (extra `morl`): training is "
                                                 "tested only where it is")
    from envzoo.train.morl import FRONT_WEIGHTS, train_front

    result = train_front(ID, "envelope", seed=0, timesteps=300, episodes=1, log=lambda line: None)
    assert len(result.front) >= FRONT_WEIGHTS and result.eval_seeds == (EVAL_SEED,)
    assert result.versions["morl-baselines"] == "1.3.0"
    assert set(result.references) >= {"random", "buy-and-hold"}
    assert load(write(result, tmp_path)) == result


def test_the_registry_reads_a_reference_point_with_one_number_per_objective():
    from envzoo.core.errors import RegistryError
    from envzoo.registry import parse_registry

    entry = """envs:
  - id: envzoo/ExampleMO-v0
    kind: mo-gymnasium
    domain: example
    summary: An example.
    entry_point: envzoo.example.mo:ExampleMOEnv
    metrics: [score]
    objectives: [gain, cost]
"""
    assert parse_registry(entry + "    hypervolume_reference: [0, -5.5]\n")["envzoo/ExampleMO-v0"] \
        .hypervolume_reference == (0.0, -5.5)
    assert parse_registry(entry)["envzoo/ExampleMO-v0"].hypervolume_reference is None
    with pytest.raises(RegistryError, match=r"hypervolume_reference.*one number per objective \['gain', 'cost'\]"):
        parse_registry(entry + "    hypervolume_reference: [0, -5.5, 1]\n")
    with pytest.raises(RegistryError, match="hypervolume_reference"):
        parse_registry(entry + "    hypervolume_reference: [0, low]\n")
