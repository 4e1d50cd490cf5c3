"""Running reference policies for whole episodes, for every face of an environment, and the
summaries of their KPIs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from envzoo.core.errors import EnvzooError
from envzoo.core.policy import Policy

#: A standard deviation at most this fraction of the mean is float rounding of equal values.
ROUNDING = 1e-6

#: The value of a first-event metric (:func:`is_first_event`) in an episode where the event never happened.
NEVER = -1


def is_first_event(name: str) -> bool:
    """Whether the metric ``name`` is the step at which an event first happened
    (``first_<event>_step``, e.g. Crafter's ``first_diamond_step``), :data:`NEVER` where it did not."""
    return name.startswith("first_") and name.endswith("_step")


class FirstEventSummary(NamedTuple):
    """A first-event metric over episodes: the mean and standard deviation of its step over the
    ``happened`` episodes (of ``episodes``) where the event happened (NaN where it never did)."""

    mean: float
    std: float
    happened: int
    episodes: int


@dataclass
class EpisodeResult:
    """What one episode produced: its KPIs (``info["metrics"]``), return and length, and the
    reward of each step ((length,) or (length, K) for vector rewards; the agents' mean for
    PettingZoo envs)."""

    metrics: dict[str, float]
    episode_return: float | np.ndarray
    length: int
    step_rewards: np.ndarray | None = None


def run_episode(env, policy: Policy, seed: int | None = None, max_steps: int | None = None) -> EpisodeResult:
    """Play one episode of a Gymnasium or PettingZoo-parallel env with ``policy``, or its first
    ``max_steps`` steps.

    For PettingZoo envs the return is the mean over agents and the metrics are those every
    agent's final info carries.
    """
    policy.reset(seed)
    if hasattr(env, "possible_agents"):
        return _run_parallel(env, policy, seed, max_steps)
    observation, info = env.reset(seed=seed)
    total, rewards = 0.0, []
    while True:
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        rewards.append(np.asarray(reward, dtype=np.float64))
        total = total + rewards[-1]
        if terminated or truncated or len(rewards) == max_steps:
            if "metrics" not in info and hasattr(env.unwrapped, "episode_metrics"):
                info = {**info, "metrics": env.unwrapped.episode_metrics()}  # cut before the episode's end
            return EpisodeResult(_float_metrics(info), _plain(total), len(rewards), np.array(rewards))


def _run_parallel(env, policy: Policy, seed: int | None, max_steps: int | None) -> EpisodeResult:
    observations, infos = env.reset(seed=seed)
    returns = {agent: 0.0 for agent in env.possible_agents}
    step_rewards, last_infos = [], infos
    while env.agents and len(step_rewards) != max_steps:
        # A step's dicts also hold the agents that left at that step; the next step is for the live ones.
        actions = policy({agent: observations[agent] for agent in env.agents},
                         {agent: infos.get(agent, {}) for agent in env.agents})
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():  # a vector per agent for MOMAland's faces
            returns[agent] = returns[agent] + np.asarray(reward, dtype=np.float64)
        step_rewards.append(np.mean([np.asarray(reward, dtype=np.float64) for reward in rewards.values()], axis=0))
        last_infos = infos or last_infos
    metrics = next(iter(last_infos.values())).get("metrics") if last_infos else None
    if metrics is None and hasattr(env.unwrapped, "episode_metrics"):
        metrics = env.unwrapped.episode_metrics()[0]  # cut before the episode's end
    return EpisodeResult(_float_metrics({"metrics": metrics or {}}), _plain(np.mean(list(returns.values()), axis=0)),
                         len(step_rewards), np.array(step_rewards))


def _float_metrics(info: dict) -> dict[str, float]:
    return {name: float(value) for name, value in info.get("metrics", {}).items()}


def _plain(total):
    total = np.asarray(total)
    return float(total) if total.ndim == 0 else total


def evaluate(make_env: Callable[[], object], make_policy: Callable[[object], Policy],
             episodes: int, seed: int = 0, progress: Callable[[Iterable], Iterable] | None = None
             ) -> list[EpisodeResult]:
    """Run ``episodes`` episodes with seeds ``seed, seed + 1, ...`` on a fresh env."""
    env = make_env()
    try:
        policy = make_policy(env)
        seeds = range(seed, seed + episodes)
        return [run_episode(env, policy, s) for s in (progress(seeds) if progress else seeds)]
    finally:
        env.close()


def summarize(results: list[EpisodeResult]) -> dict[str, tuple[float, float]]:
    """Mean and standard deviation of each metric (and the return) over episodes; a first-event
    metric (:func:`is_first_event`) as a :class:`FirstEventSummary`, over the episodes where the
    event happened (a step of -1 averaged in would mean nothing).

    A standard deviation below a millionth of the mean is the rounding of equal values (the
    float32 metrics of identical episodes) and is reported as 0."""
    names = list(results[0].metrics) if results else []
    table = {name: np.array([r.metrics.get(name, np.nan) for r in results]) for name in names}
    if results and np.ndim(results[0].episode_return) == 0:  # vector returns have no single sum
        table["return"] = np.array([r.episode_return for r in results], dtype=np.float64)
    table["length"] = np.array([r.length for r in results], dtype=np.float64)
    return {name: first_event_summary(values) if is_first_event(name) else mean_and_std(values)
            for name, values in table.items()}


def first_event_summary(steps: np.ndarray) -> FirstEventSummary:
    """The steps of a first-event metric (:data:`NEVER` where the event never happened) over the
    episodes where it happened, and how many those were."""
    happened = steps[steps != NEVER]
    mean, std = mean_and_std(happened) if happened.size else (float("nan"), float("nan"))
    return FirstEventSummary(mean, std, int(happened.size), int(steps.size))


def mean_and_std(values: np.ndarray) -> tuple[float, float]:
    """The mean and standard deviation of ``values``, the deviation 0 where it is only rounding."""
    mean, std = float(np.mean(values)), float(np.std(values))
    return mean, (0.0 if std <= ROUNDING * abs(mean) else std)


def make_env(entry, max_steps: int | None = None, env_kwargs: dict | None = None):
    """``envzoo.make`` of the registry entry ``entry`` with ``env_kwargs``, its episodes cut at
    ``max_steps`` if given; arguments the env refuses are one :class:`EnvzooError` naming them."""
    import envzoo

    kwargs = dict(env_kwargs or {})
    if max_steps is not None:
        kwargs["max_cycles" if entry.is_multi_agent else "max_episode_steps"] = max_steps
    if not env_kwargs:
        return envzoo.make(entry.id, **kwargs)
    try:
        return envzoo.make(entry.id, **kwargs)
    except EnvzooError:  # says what was wrong already (a misspelt argument, a missing extra)
        raise
    except (TypeError, ValueError) as error:  # the env refused the arguments given to it
        # Gymnasium's make re-raises a TypeError as a copy with its message and where it came from: the first says it.
        raised = error.__cause__ if type(error.__cause__) is type(error) else error
        raise EnvzooError(f"{entry.id} cannot be made with {env_kwargs}: {raised}") from None


def policy_env_kwargs(entry, policy: str, given: dict) -> dict:
    """The env arguments: those given, plus those the reference policy ``policy`` needs (a
    conflict is an error)."""
    needed = entry.policy(policy).env_kwargs  # an unknown name fails before any env is made
    for key, value in needed.items():
        if key in given and given[key] != value:
            raise EnvzooError(f"policy {policy!r} of {entry.id} needs {key}={value!r}; --env gave {given[key]!r}")
    return {**given, **needed}


def evaluate_policy(entry, policy: str, episodes: int, seed: int = 0, max_steps: int | None = None,
                    progress: Callable[[Iterable], Iterable] | None = None,
                    env_kwargs: dict | None = None) -> list[EpisodeResult]:
    """:func:`evaluate` of the registry entry ``entry``'s reference policy ``policy``."""
    import envzoo

    kwargs = policy_env_kwargs(entry, policy, env_kwargs or {})
    return evaluate(lambda: make_env(entry, max_steps, kwargs), lambda env: envzoo.make_policy(entry.id, policy, env),
                    episodes, seed, progress=progress)
