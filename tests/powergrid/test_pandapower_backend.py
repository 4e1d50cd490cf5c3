"""``backend="pandapower"``: the same episodes as the compiled sweep, with pandapower's
Newton–Raphson in every step. pandapower pins pandas below envzoo's, so these run where it is
installed (its own environment: see pandapower_reference.py); without it, the env says what
to install."""

import importlib.util

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401  (registers the ids)
from envzoo.powergrid.policies import VoltVar

HAS_PANDAPOWER = importlib.util.find_spec("pandapower") is not None


def play(backend: str, feeder: str, steps: int = 12):
    env = gymnasium.make("envzoo/PowerGrid-v0", feeder=feeder, backend=backend, steps=steps, start_hour=8.0)
    policy = VoltVar(env)
    observation, info = env.reset(seed=3)
    policy.reset()
    trajectory = [observation]
    for _ in range(steps):
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        trajectory.append(np.append(observation, [reward, info["losses_kw"]]))
        if terminated or truncated:
            break
    return trajectory, info


@pytest.mark.skipif(HAS_PANDAPOWER, reason="pandapower is installed here")
def test_without_pandapower_the_error_names_the_fix():
    with pytest.raises(ImportError, match="pip install pandapower"):
        gymnasium.make("envzoo/PowerGrid-v0", backend="pandapower")
    with pytest.raises(ValueError, match="backend must be one of"):
        gymnasium.make("envzoo/PowerGrid-v0", backend="newton")


@pytest.mark.skipif(not HAS_PANDAPOWER, reason="pandapower is not installed (it pins pandas below envzoo's)")
@pytest.mark.parametrize("feeder", ["ieee13", "cigre_lv"])
def test_pandapower_backend_plays_the_sweeps_episode(feeder):
    sweep, _ = play("sweep", feeder)
    newton, info = play("pandapower", feeder)
    assert len(sweep) == len(newton) and info["powerflow_converged"]
    np.testing.assert_allclose(np.concatenate(newton), np.concatenate(sweep), rtol=0, atol=1e-5)
