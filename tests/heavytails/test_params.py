"""Bad arguments of the heavy-tailed envs are errors that name them."""

import pytest

from envzoo.heavytails.params import make_params


@pytest.mark.parametrize("kwargs, what", [
    ({"mdp": "river"}, "mdp must be one of"), ({"noise": "cauchy"}, "noise must be one of"),
    ({"v": 0}, r"v must be in \(0, 1\]"), ({"v": 1.5}, r"v must be in \(0, 1\]"),
    ({"horizon": 0}, "horizon must be an integer >= 1"), ({"noise_scale": -1}, "noise_scale"),
    ({"mdp": "riverswim", "actions": 3}, "actions is set by the 'riverswim' MDP"),
    ({"mdp": "grid", "states": 10}, "square number of states"),
    ({"mdp": "garnet", "states": 4, "branching": 5}, "branching must be at most states"),
])
def test_a_bad_argument_is_named(kwargs, what):
    with pytest.raises(ValueError, match=what):
        make_params(**kwargs)
