"""The ecosystems' own checkers on every entry: Gymnasium's ``check_env`` (single-agent ids, and
multi-objective ids scalarized with MO-Gymnasium's ``LinearReward``), PettingZoo's
``parallel_api_test`` / ``parallel_seed_test`` and, for vector rewards per agent, MOMAland's
``api_test``. Any warning they raise fails the test unless it is
in the allow-list below, with the reason it is acceptable."""

from __future__ import annotations

import re
import warnings

import gymnasium
import numpy as np
import pytest

from .support import entry_params, is_momaland, is_multi_objective, is_parallel, is_single_agent, make_env

# (warning category, regex on the message, where it is allowed) -> why it is acceptable.
ALLOWED_WARNINGS = [
    # Observations are rates, counts and times that have no finite upper bound (queue lengths,
    # request rates, pods); the envs document Box(0, inf). Gymnasium only suggests a bound.
    (UserWarning, r"A Box observation space maximum value is infinity", "any"),
    (UserWarning, r"Agent's maximum observation space value is infinity", "any"),  # MOMAland's wording
    # Trading-v1 observes log returns and MACD differences, which have no finite lower bound.
    (UserWarning, r"A Box observation space minimum value is -infinity", "any"),
    # MarketMakingAS-v1's actions are quote depths in price units, Box(0, max_depth) as in
    # mbt-gym; Gymnasium only recommends [-1, 1] (RescaleAction normalises for agents that need it).
    (UserWarning, r"For Box action spaces, we recommend using a symmetric and normalized space", "single"),
    # check_env must see the LinearReward wrapper (the unwrapped multi-objective env returns a
    # vector reward by design, which check_env rejects); it warns whenever it gets a wrapper.
    (UserWarning, r"is different from the unwrapped version", "scalarized"),
    # Traffic agents are named by their light's SUMO id (A0 ... D3), as sumo-rl names them, so
    # that a policy finds its intersection; MOMAland only recommends "<descriptor>_<number>".
    (UserWarning, r"We recommend agents to be named in the format", "parallel"),
    # PowerGridAgents' agents are heterogeneous by design (a building, a PV-and-battery plant, an
    # EV station: each observes its own devices), as PowerGridworld's; MOMAland only flags it.
    (UserWarning, r"Agents have different observation space sizes|Observations are different shapes", "parallel"),
]

# Importing pettingzoo.test loads PettingZoo's own deprecated module shims, which warn at import
# time (outside the checked blocks below); that is PettingZoo's business, not the env's.
pytestmark = pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")

PARALLEL_API_CYCLES = 12  # steps per episode in parallel_api_test (it sets env.max_cycles)
PARALLEL_SEED_CYCLES = 12


class CopyRewardWeights(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """Upstream workaround, not an envzoo fix: MO-Gymnasium 1.3's ``LinearReward`` puts the same
    ``self.w`` array into ``info["reward_weights"]`` at every step, which check_env's "returned
    data not reused" check rejects. This wrapper copies that one entry and nothing else, so
    sharing by the envzoo env itself is still caught."""

    def __init__(self, env):
        gymnasium.utils.RecordConstructorArgs.__init__(self)
        gymnasium.Wrapper.__init__(self, env)

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        if "reward_weights" in info:
            info = {**info, "reward_weights": np.array(info["reward_weights"], copy=True)}
        return observation, reward, terminated, truncated, info


def unexpected(caught, where: str) -> list[str]:
    bad = []
    for warning in caught:
        message = str(warning.message)
        if any(issubclass(warning.category, category) and re.search(pattern, message)
               and scope in ("any", where) for category, pattern, scope in ALLOWED_WARNINGS):
            continue
        bad.append(f"{warning.category.__name__}: {message} ({warning.filename}:{warning.lineno})")
    return bad


@pytest.mark.parametrize("entry", entry_params(is_single_agent))
def test_gymnasium_check_env(entry, closing):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = closing(make_env(entry))
        check_env(env.unwrapped)
    assert unexpected(caught, "single") == []


@pytest.mark.parametrize("entry", entry_params(is_multi_objective))
def test_gymnasium_check_env_on_scalarized_multi_objective(entry, closing):
    from gymnasium.utils.env_checker import check_env
    from mo_gymnasium.wrappers import LinearReward

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = closing(make_env(entry))
        weights = np.ones(len(entry.objectives))
        check_env(CopyRewardWeights(LinearReward(env, weight=weights)))
    assert unexpected(caught, "scalarized") == []


@pytest.mark.parametrize("entry", entry_params(is_parallel))
def test_pettingzoo_parallel_api(entry, closing):
    from pettingzoo.test import parallel_api_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = closing(make_env(entry))
        parallel_api_test(env, num_cycles=PARALLEL_API_CYCLES)
    assert unexpected(caught, "parallel") == []


@pytest.mark.parametrize("entry", entry_params(is_parallel))
def test_pettingzoo_parallel_seed(entry):
    import pettingzoo
    from pettingzoo.test import parallel_seed_test

    import envzoo  # noqa: F401  (registers the ids with PettingZoo)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_seed_test(lambda: pettingzoo.make("parallel", entry.id, max_cycles=PARALLEL_SEED_CYCLES),
                           num_cycles=PARALLEL_SEED_CYCLES)
    assert unexpected(caught, "parallel") == []


@pytest.mark.parametrize("entry", entry_params(is_momaland))
def test_momaland_api(entry, closing):
    """MOMAland's own API test (on the AEC form of the parallel env, as MOMAland runs it)."""
    from momaland.test.api_test import api_test
    from momaland.utils.conversions import mo_parallel_to_aec

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = closing(make_env(entry, PARALLEL_API_CYCLES))
        api_test(mo_parallel_to_aec(env), num_cycles=10 * PARALLEL_API_CYCLES)
    assert unexpected(caught, "parallel") == []
