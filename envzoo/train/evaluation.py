"""Evaluation episodes on the leaderboard's seeds, for trained and reference policies alike."""

from __future__ import annotations

import functools
import json

import numpy as np

import envzoo
from envzoo.core.policy import RandomPolicy
from envzoo.tools.rollout import evaluate
from envzoo.leaderboard.results import EVAL_SEED, Evaluation


def evaluation(env_id: str, make_policy, env_kwargs: dict, episodes: int, first_seed: int = EVAL_SEED) -> Evaluation:
    """``episodes`` episodes of ``make_policy(env)`` on seeds ``first_seed, first_seed + 1, ...``
    (the leaderboard's, ``EVAL_SEED``, unless told): their returns (in the env's own units) and
    final metrics."""
    results = evaluate(lambda: envzoo.make(env_id, **env_kwargs), make_policy, episodes, first_seed)
    names = sorted({name for result in results for name in result.metrics})
    return Evaluation(seeds=tuple(range(first_seed, first_seed + episodes)),
                      returns=tuple(float(np.sum(result.episode_return)) for result in results),
                      metrics={name: tuple(result.metrics.get(name, float("nan")) for result in results)
                               for name in names})


def reference_evaluations(env_id: str, env_kwargs: dict, episodes: int) -> dict[str, Evaluation]:
    """The random policy's and every installed reference policy's evaluations. Left out: oracles
    (they read what no agent can, see :attr:`envzoo.core.policy.Policy.oracle`) and policies that
    need other env arguments than the run's (they would be another task). The same for every
    run of an id, so computed once per process."""
    return _reference_evaluations(env_id, json.dumps(env_kwargs, sort_keys=True), episodes)


@functools.lru_cache(maxsize=None)
def _reference_evaluations(env_id: str, env_kwargs_json: str, episodes: int) -> dict[str, Evaluation]:
    env_kwargs = json.loads(env_kwargs_json)
    entry = envzoo.env_info(env_id)
    found = {"random": evaluation(env_id, RandomPolicy, env_kwargs, episodes)}
    for ref in entry.policies:
        if ref.installed and not ref.env_kwargs and ref.name != "random" and not getattr(ref.load(), "oracle", False):
            found[ref.name] = evaluation(env_id, lambda env, name=ref.name: envzoo.make_policy(env_id, name, env),
                                         env_kwargs, episodes)
    return found
