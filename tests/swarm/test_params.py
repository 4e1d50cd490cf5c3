"""Bad input to the swarm envs: one-line errors naming what was wrong."""

import numpy as np
import pytest

from envzoo.swarm.params import make_params


@pytest.mark.parametrize("kwargs, message", [
    ({"n_agents": 0}, "n_agents must be an integer >= 1"),
    ({"observation": "subsample", "kappa": 16, "n_agents": 16}, "kappa must be at most n_agents - 1 = 15"),
    ({"kappa": 0}, "kappa must be an integer >= 1"),
    ({"graphon": lambda x, y: x * (1 - y)}, "must be symmetric"),
    ({"graphon": lambda x, y: 2 * x * y}, "must lie in [0, 1]"),
    ({"graphon": "erdos"}, "graphon must be one of"),
    ({"graphon": "exponential", "graphon_options": {"length": -1}}, "length must be > 0"),
    ({"graphon": "stochastic_block", "graphon_options": {"bounds": (0.5,), "probabilities": ((1, 0.5), (0.2, 1))}},
     "must be symmetric"),
    ({"graphon": "threshold", "graphon_options": {"height": 2}}, "graphon_options for 'threshold'"),
    ({"scenario": "herding"}, "scenario must be one of"),
    ({"dt": -0.1}, "dt must be a finite number > 0"),
    ({"reward_weights": (1, 2)}, "reward_weights must be 3 non-negative numbers"),
    ({"summation": "fft"}, "summation must be one of"),
    ({"graphon": lambda x, y: x * y, "summation": "sorted"}, "summation='sorted' needs a named graphon"),
])
def test_bad_input_is_a_one_line_error(kwargs, message):
    with pytest.raises(ValueError) as error:
        make_params(**kwargs)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_users_graphon():
    params = make_params(graphon=lambda x, y: np.exp(-(x + y)))
    assert np.isclose(params.graphon(0.2, 0.3), np.exp(-0.5))
    assert np.isclose(params.graphon.degree(0.0), 1 - np.exp(-1), atol=1e-6)
