"""Random-action fuzzing (no NaN or inf anywhere, observations inside the observation space) and
invalid actions (rejected early with :class:`InvalidActionError` naming the action space, on the
single env, the native vector env and the parallel env, leaving the env unchanged)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from gymnasium import spaces

from envzoo.core.errors import InvalidActionError

from .support import (
    action_sequence, assert_same, continue_rollout, entry_params, finite_leaves, has_vector_face,
    is_gymnasium, is_parallel, make_env,
)

# Each (entry, strategy) is one test item (xdist spreads them): STEPS steps in episodes of
# HORIZON steps. A serverless step costs ~5-10 ms on a 2-core machine (measured).
STEPS = 700
HORIZON = 60
STRATEGIES = ("uniform", "sticky", "constant")


def _actions(env, entry, strategy: str, seed: int):
    """Action sequences that reach different states: uniformly random, random actions held for
    random durations, and one random action held for a whole episode."""
    uniform = action_sequence(env, entry, STEPS, seed)
    if strategy == "uniform":
        return uniform
    rng = np.random.default_rng(seed)
    out, current, left = [], None, 0
    for t, action in enumerate(uniform):
        if strategy == "constant":
            if t % HORIZON == 0:
                current = action
        elif left == 0:
            current, left = action, int(rng.integers(1, 30))
        left -= 1
        out.append(current)
    return out


def _check_finite(entry, t, observation, reward, info, observation_space):
    problems = list(finite_leaves(observation, "observation")) + list(finite_leaves(reward, "reward"))
    infos = info.items() if is_parallel(entry) else [(None, info)]
    for agent, agent_info in infos:
        prefix = "info" if agent is None else f"infos[{agent!r}]"
        for key in ("cost", "metrics"):
            if key in agent_info:
                problems += finite_leaves(agent_info[key], f"{prefix}[{key!r}]")
    assert not problems, f"step {t}: non-finite values {problems}"
    observations = observation.items() if is_parallel(entry) else [(None, observation)]
    for agent, obs in observations:
        space = observation_space(agent) if is_parallel(entry) else observation_space
        assert space.contains(obs), f"step {t}: observation {obs!r} of {agent or 'the env'} not in {space}"


def _check_cost_declared(entry, info, t):
    if not entry.costs:
        return
    infos = info.values() if is_parallel(entry) else [info]
    for agent_info in infos:
        assert "cost" in agent_info, f"step {t}: info['cost'] missing though the entry declares costs"
        cost = agent_info["cost"]
        if isinstance(cost, dict):
            assert set(cost) == set(entry.costs), f"info['cost'] keys {sorted(cost)} != costs {entry.costs}"
        else:
            assert len(entry.costs) == 1, "a float info['cost'] needs exactly one declared cost"
            assert isinstance(cost, (float, np.floating)), f"info['cost'] is a {type(cost).__name__}"


@pytest.mark.parametrize("entry, strategy", entry_params(extra=[(s,) for s in STRATEGIES]))
def test_random_actions_keep_everything_finite(entry, strategy, closing):
    env = closing(make_env(entry, HORIZON))
    seed = 1000 + STRATEGIES.index(strategy)
    observation, info = env.reset(seed=seed)
    observation_space = env.observation_space
    _check_finite(entry, -1, observation, 0.0, info, observation_space)
    episodes = 0
    for t, action in enumerate(_actions(env, entry, strategy, seed)):
        if is_parallel(entry):
            action = {agent: action[agent] for agent in env.agents}
        observation, reward, terminated, truncated, info = env.step(action)
        _check_finite(entry, t, observation, reward, info, observation_space)
        _check_cost_declared(entry, info, t)
        if (not env.agents) if is_parallel(entry) else (terminated or truncated):
            episodes += 1
            observation, info = env.reset(seed=seed + 100 * episodes if episodes % 2 else None)
            _check_finite(entry, t, observation, 0.0, info, observation_space)
    assert episodes >= STEPS // HORIZON


@pytest.mark.parametrize("entry", entry_params(has_vector_face))
def test_vector_random_actions_keep_everything_finite(entry, closing):
    import gymnasium

    vector = closing(gymnasium.make_vec(entry.id, num_envs=4, max_episode_steps=HORIZON))
    observations, info = vector.reset(seed=3)
    space = copy.deepcopy(vector.action_space)
    space.seed(3)
    for t in range(2 * HORIZON + 5):
        observations, rewards, terminations, truncations, info = vector.step(space.sample())
        assert vector.observation_space.contains(observations), f"step {t}: observations outside the space"
        problems = list(finite_leaves(observations, "obs")) + list(finite_leaves(rewards, "rewards"))
        problems += finite_leaves({k: v for k, v in info.items() if k in ("cost", "metrics")}, "info")
        assert not problems, f"step {t}: non-finite values {problems}"


# ---------------------------------------------------------------------- invalid actions
def invalid_actions(space: spaces.Space) -> list:
    """Values outside ``space``: out of range, wrong type, wrong shape, negative."""
    if isinstance(space, spaces.Text):  # a string is an action here: strings the space does not hold
        return [None, {"action": 0}, 0, b"look", "x" * (space.max_length + 1), "x" * space.min_length + "\x00",
                "caf\u00e9", *([""] if space.min_length > 0 else [])]
    bad = ["a string", None, {"action": 0}]
    if isinstance(space, spaces.Discrete):
        start, n = int(space.start), int(space.n)
        bad += [[start], start + n, start + n + 10**6, start - 1, -1 if start == 0 else start - 100,
                np.int64(start + n), float(start), start + 0.5, np.float32(start),
                np.array([start]), np.array([start, start]), np.array([[start]]),
                np.array(start, dtype=np.float64), np.nan, complex(start, 0)]
    elif isinstance(space, spaces.Box):
        bad += [np.zeros(space.shape + (2,), dtype=space.dtype), np.full(space.shape, np.nan)]
        if np.all(np.isfinite(space.high)):
            bad.append(np.asarray(space.high, dtype=np.float64) + 1.0)
        if np.all(np.isfinite(space.low)):
            bad.append(np.asarray(space.low, dtype=np.float64) - 1.0)
    elif isinstance(space, spaces.MultiDiscrete):
        bad += [np.asarray(space.nvec), np.zeros(space.shape + (2,), dtype=np.int64), -np.ones(space.shape, dtype=np.int64)]
    return bad


def rejection_problems(step, bad_actions, spaces_named, agent=None) -> list[str]:
    """Call ``step(action)`` for every bad action; describe each that is not rejected with an
    InvalidActionError whose message names one of ``spaces_named`` (and ``agent``, if given)."""
    problems = []
    for action in bad_actions:
        try:
            step(action)
        except InvalidActionError as error:
            message = str(error)
            if not any(str(space) in message for space in spaces_named):
                problems.append(f"{action!r}: message does not name the action space "
                                f"{[str(space) for space in spaces_named]}: {message!r}")
            elif agent is not None and agent not in message:
                problems.append(f"{action!r}: message does not name the agent {agent!r}: {message!r}")
        except Exception as error:  # noqa: BLE001 - the wrong kind of error is what we report
            problems.append(f"{action!r}: raised {type(error).__name__}: {error} (not InvalidActionError)")
        else:
            problems.append(f"{action!r}: accepted")
    return problems


def _twins(entry, closing, seed):
    """Two envs in the same state, a few steps into an episode (rendering as text if they can)."""
    from envzoo.registry import load_attr

    modes = getattr(load_attr(entry.entry_point), "metadata", {}).get("render_modes", [])
    kwargs = {"render_mode": "ansi"} if "ansi" in modes else {}
    env, twin = closing(make_env(entry, 30, **kwargs)), closing(make_env(entry, 30, **kwargs))
    warmup = action_sequence(env, entry, 3, seed + 1)
    for each in (env, twin):
        each.reset(seed=seed)
        continue_rollout(each, entry, warmup)
    return env, twin


def _assert_unchanged(env, twin, entry, seed):
    """Rejected actions changed nothing: the env renders and continues as an untouched twin."""
    if env.render_mode == "ansi":
        assert env.render() == twin.render(), "rejected actions changed the rendered state"
    actions = action_sequence(env, entry, 35, seed)
    assert_same(continue_rollout(env, entry, actions), continue_rollout(twin, entry, actions))


@pytest.mark.parametrize("entry", entry_params(is_gymnasium))
def test_invalid_actions_rejected_single(entry, closing):
    env, twin = _twins(entry, closing, seed=9)
    space = env.action_space
    problems = rejection_problems(env.step, invalid_actions(space), [space])
    assert not problems, "\n".join(["invalid actions not rejected properly:", *problems])
    _assert_unchanged(env, twin, entry, seed=9)


@pytest.mark.parametrize("entry", entry_params(has_vector_face))
def test_invalid_actions_rejected_vector(entry, closing):
    import gymnasium

    n = 3
    vector = closing(gymnasium.make_vec(entry.id, num_envs=n, max_episode_steps=30))
    twin = closing(gymnasium.make_vec(entry.id, num_envs=n, max_episode_steps=30))
    vector.reset(seed=4)
    twin.reset(seed=4)
    single = vector.single_action_space
    seeded = copy.deepcopy(vector.action_space)
    seeded.seed(4)
    good = seeded.sample()
    if isinstance(single, spaces.Text):  # the batched Text space is a Tuple; an array slices and stacks
        good = np.array(good, dtype=object)
    batches = [good[:-1], np.concatenate([good, good[:1]]), good[None], "a string", None, list(good)[:-1], good[0]]
    if np.issubdtype(np.asarray(good).dtype, np.integer):  # floats are no discrete actions
        batches.append(good.astype(np.float64))
    for bad in invalid_actions(single):
        if isinstance(single, spaces.Text):
            batches.append([*good[:-1], bad])
        elif isinstance(bad, (int, np.integer, float, np.floating)) and not isinstance(bad, bool):
            batch = good.astype(np.asarray(bad).dtype if np.asarray(bad).dtype.kind in "iu" else np.float64)
            batch = np.array(batch, copy=True)
            batch[-1] = bad
            batches.append(batch)
    problems = rejection_problems(vector.step, batches, [vector.action_space, single])
    assert not problems, "\n".join(["invalid batched actions not rejected properly:", *problems])
    rng_space = copy.deepcopy(vector.action_space)
    rng_space.seed(4)
    for t in range(35):
        actions = rng_space.sample()
        assert_same(vector.step(actions)[:4], twin.step(actions)[:4], f"step {t} after rejected actions")


@pytest.mark.parametrize("entry", entry_params(is_parallel))
def test_invalid_actions_rejected_parallel(entry, closing):
    env, twin = _twins(entry, closing, seed=6)
    good = action_sequence(env, entry, 1, 6)[0]
    for agent in (env.agents[0], env.agents[-1]):
        space = env.action_space(agent)
        problems = rejection_problems(lambda bad: env.step({**good, agent: bad}), invalid_actions(space),
                                      [space], agent)
        assert not problems, "\n".join([f"invalid actions of agent {agent!r} not rejected properly:", *problems])
    # A live agent without an action.
    with pytest.raises(InvalidActionError) as raised:
        env.step({agent: action for agent, action in good.items() if agent != env.agents[0]})
    assert env.agents[0] in str(raised.value)
    _assert_unchanged(env, twin, entry, seed=6)
