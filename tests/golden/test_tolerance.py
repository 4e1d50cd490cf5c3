"""The golden check tells another machine's numerics from a change of behaviour: floats moved by a
relative 1e-12 (a solver's or a BLAS kernel's last bits) pass, a real change fails and says where."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.registry import entries

from .golden import TOLERANCE, case_id, check, digest, load, load_trajectory, play, trajectory

# Its mantissa sits exactly halfway between two 30-bit roundings, so a relative 1e-12 nudge flips
# the bit digest: the tolerant check, not the digest, has to pass it.
ON_A_ROUNDING_EDGE = 1.0 + 2.0**-30


def _episode(scale: float = 1.0, terminated_at: int = 4, nan_at: int | None = None) -> list:
    records = [("reset", np.array([ON_A_ROUNDING_EDGE, 2.0, -3.0]) * scale)]
    for step in range(1, terminated_at + 1):
        observation = np.array([ON_A_ROUNDING_EDGE * step, 0.5, -1.0 / step]) * scale
        if step == nan_at:
            observation[1] = np.nan
        records.append(("step", observation, 0.1 * step * scale, step == terminated_at, False,
                        {"cost": np.float32(0.25 * scale)}))
    records.append(("metrics", {"return": 1.5 * scale, "steps": terminated_at, "name": "episode"}))
    return records


def _nudged(records, relative: float) -> list:
    """Every float of ``records`` multiplied by 1 + relative (alternating signs), the rest kept."""
    sign = iter(np.tile([1.0, -1.0], 1000))

    def nudge(value):
        if isinstance(value, dict):
            return {key: nudge(item) for key, item in value.items()}
        if isinstance(value, tuple):
            return tuple(nudge(item) for item in value)
        if isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, np.ndarray):
            return value * (1.0 + relative * np.array([next(sign) for _ in range(value.size)]).reshape(value.shape))
        if isinstance(value, np.float32):
            return np.float32(value * (1.0 + relative * next(sign)))
        return value * (1.0 + relative * next(sign))

    return [nudge(record) for record in records]


@pytest.fixture
def recorded():
    records = _episode()
    return digest(records), trajectory(records)


def test_a_relative_1e_12_nudge_changes_the_digest_but_passes_at_tolerance(recorded):
    nudged = _nudged(_episode(), 1e-12)
    assert digest(nudged) != recorded[0]
    verdict = check("case", nudged, *recorded)
    assert verdict.passed, verdict.message
    assert "up to this machine's numerics" in verdict.message


def test_the_same_bits_pass_without_a_word(recorded):
    verdict = check("case", _episode(), *recorded)
    assert verdict.passed and verdict.message == ""


def test_a_float_changed_beyond_tolerance_fails_and_names_the_field_and_step(recorded):
    changed = _episode()
    changed[3] = ("step", changed[3][1], changed[3][2] * (1 + 100 * TOLERANCE), *changed[3][3:])
    verdict = check("case", changed, *recorded)
    assert not verdict.passed
    assert "changed behaviour" in verdict.message and "step/1" in verdict.message and "step 3" in verdict.message


def test_an_episode_ending_sooner_fails_on_its_course(recorded):
    verdict = check("case", _episode(terminated_at=3), *recorded)
    assert not verdict.passed
    assert "its course differs from step 3" in verdict.message and "4 steps recorded, 3 now" in verdict.message


def test_text_and_integers_are_held_exactly(recorded):
    renamed = _episode()
    renamed[-1] = ("metrics", {"return": 1.5, "steps": 4, "name": "another"})
    verdict = check("case", renamed, *recorded)
    assert not verdict.passed and "the final metrics" in verdict.message


def test_a_value_turning_nan_is_a_change_of_course(recorded):
    verdict = check("case", _episode(nan_at=2), *recorded)
    assert not verdict.passed and "its course differs from step 2" in verdict.message


def test_a_field_that_is_zero_throughout_tolerates_a_rounding_residue():
    zeros = [("reset", np.zeros(3)), ("step", np.zeros(3), 0.0, True, False, {"cost": 0.0}), ("metrics", {})]
    residue = [("reset", np.zeros(3)), ("step", np.array([1e-17, 0.0, 0.0]), 0.0, True, False, {"cost": 0.0}),
               ("metrics", {})]
    assert check("case", residue, digest(zeros), trajectory(zeros)).passed


def test_without_a_recorded_trajectory_a_changed_digest_says_how_to_record_one():
    verdict = check("envzoo/X-v0|p|0", _nudged(_episode(), 1e-12), digest(_episode()), None)
    assert not verdict.passed and "python tests/golden/golden.py envzoo/X-v0" in verdict.message


# ---------------------------------------------------------- the portfolio's solvers, nudged
SOLVER_CASES = [("envzoo/Portfolio-v1", "mean-variance"), ("envzoo/Portfolio-v1", "min-variance"),
                ("envzoo/Portfolio-v1", "risk-parity"), ("envzoo/PortfolioMO-v0", "mean-variance")]


def _nudge_every_fit(monkeypatch, relative: float) -> None:
    """Every skfolio fit of the rolling-optimizer references returns weights times 1 + relative
    (alternating signs): what another CPU's solver iterations do to them."""
    pytest.importorskip("skfolio")
    from envzoo.portfolio import policies

    def nudging(make_estimator):
        def estimator(self):
            fitted = make_estimator(self)
            fit = fitted.fit

            def fit_and_nudge(*args, **kwargs):
                result = fit(*args, **kwargs)
                signs = np.where(np.arange(fitted.weights_.size) % 2 == 0, 1.0, -1.0)
                fitted.weights_ = fitted.weights_ * (1.0 + relative * signs)
                return result

            fitted.fit = fit_and_nudge
            return fitted
        return estimator

    for optimizer in (policies.MeanVariance, policies.MinimumVariance, policies.RiskParity):
        monkeypatch.setattr(optimizer, "_estimator", nudging(optimizer._estimator))


@pytest.mark.parametrize("env_id, policy", SOLVER_CASES)
def test_solver_outputs_nudged_by_1e_12_still_pass(monkeypatch, env_id, policy):
    _nudge_every_fit(monkeypatch, 1e-12)
    key = case_id(env_id, policy, 0)
    records = play(entries()[env_id], policy, 0)
    verdict = check(key, records, load()[key], load_trajectory(env_id, policy, 0))
    assert verdict.passed, verdict.message


def test_solver_outputs_changed_for_real_still_fail(monkeypatch):
    _nudge_every_fit(monkeypatch, 1e-3)
    env_id, policy = SOLVER_CASES[1]
    key = case_id(env_id, policy, 0)
    verdict = check(key, play(entries()[env_id], policy, 0), load()[key], load_trajectory(env_id, policy, 0))
    assert not verdict.passed and "changed behaviour" in verdict.message
