"""Offline datasets: episodes of a single-agent registry id played by a behaviour policy, written
in Minari's format (the ``dataset`` extra) and as a plain Parquet file (pyarrow), and read back
as arrays.

The behaviour policy is a reference policy of the id or ``random``: uniform actions from the
action space (D4RL's "random" datasets; the id's own ``random`` policy where its registry entry
has one). Episode e is played from ``reset(seed=seed + e)`` with the policy reset to the same
seed, so a dataset is reproducible from its id, policy, episode count and seed. Where the policy
reports ``propensities(observation, action)`` (the probability with which it drew the action's
parts, e.g. the promotion behaviour policies), the Parquet file keeps them for off-policy
evaluation.

The Parquet file has one row per step: ``episode``, ``seed``, ``step``, ``observation``,
``action``, ``reward``, ``cost`` (NaN where the env reports none), ``terminated``, ``truncated``,
``next_observation`` and, where known, ``propensity`` (lists for array values).
The Minari dataset is Minari's own (``data_format="arrow"``; ``"hdf5"`` for a multi-objective
id, whose vector rewards Minari's Arrow storage cannot hold), stored under ``root`` (default:
Minari's, ``$MINARI_DATASETS_PATH`` or ``~/.minari/datasets``); ``minari.load_dataset(id)
.recover_environment()`` makes the env again (``import envzoo`` first, which registers the ids).

Multi-agent (PettingZoo) ids are refused with an error saying so: a Minari dataset holds one
agent's observations and actions; the single-agent ids of the same simulators (``Serverless-v1``
beside ``ServerlessCluster-v1``, ``Dispatch-v0`` beside ``DispatchAgencies-v0``) are the ones
offline RL trains on.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import gymnasium
import numpy as np

from envzoo.core.errors import EnvzooError
from envzoo.core.extras import require
from envzoo.core.policy import Policy, RandomPolicy


@dataclass(frozen=True)
class DatasetReport:
    """What :func:`create` wrote: ``episodes``, ``steps``, ``seconds`` (playing and writing) and
    the size in bytes of each output (``minari_bytes``, ``parquet_bytes``; 0 if not written)."""

    episodes: int
    steps: int
    seconds: float
    minari_path: Path | None
    minari_bytes: int
    parquet_path: Path | None
    parquet_bytes: int


def _size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


@contextmanager
def _minari_root(root: str | os.PathLike | None):
    """Minari finds its datasets through ``MINARI_DATASETS_PATH``: set it while inside."""
    if root is None:
        yield
        return
    before = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(Path(root).resolve())
    try:
        yield
    finally:
        if before is None:
            del os.environ["MINARI_DATASETS_PATH"]
        else:
            os.environ["MINARI_DATASETS_PATH"] = before


def _as_list(value):
    return np.asarray(value).tolist()


#: The name of the uniform random behaviour policy every id has.
RANDOM = "random"


def is_uniform_random(entry, name: str) -> bool:
    """Whether behaviour policy ``name`` of the id means uniform random actions: ``random``
    where the id has no reference policy of that name."""
    return name == RANDOM and RANDOM not in {ref.name for ref in entry.policies}


def behaviour_policy(entry, name: str) -> tuple[Callable[[object], Policy], str]:
    """The maker (``maker(env)``) of the id's reference policy ``name`` and what it plays, in words;
    for ``random`` where the id has no policy of that name, uniform random actions
    (:class:`~envzoo.core.policy.RandomPolicy`). An unknown name fails here, before any env is made."""
    import envzoo

    if is_uniform_random(entry, name):
        return RandomPolicy, "uniform random actions"
    entry.policy(name)
    return (lambda env: envzoo.make_policy(entry.id, name, env)), f"its reference policy {name!r}"


def _check_minari_id(minari_id: str) -> None:
    """Raise :class:`EnvzooError` unless ``minari_id`` is of Minari's form ``(namespace/)name-vN``."""
    require("dataset", "minari")
    from minari.dataset.minari_dataset import parse_dataset_id

    try:
        parse_dataset_id(minari_id)  # a ValueError if malformed, a TypeError if the version is missing
    except (ValueError, TypeError):
        raise EnvzooError(f"{minari_id!r} is not a Minari dataset id: Minari's ids are (namespace/)name-vN, "
                          "e.g. envzoo/promotion-uniform-v0") from None


def _recoverable_spec(spec):
    """The env's spec as Minari stores it (JSON) for ``recover_environment()``: without the
    vector face object (the single env does not need it), and with arguments JSON can hold."""
    spec = replace(spec, vector_entry_point=None)
    try:
        spec.to_json()
    except (TypeError, ValueError) as error:
        raise EnvzooError(f"{spec.id}'s arguments cannot be stored in a Minari dataset ({error}); give them as "
                          "numbers, strings, lists or mappings (a data file by its path)") from None
    return spec


class _StoredSpec(gymnasium.Wrapper):
    """The env with the spec Minari is to store (Minari reads ``env.spec``). Replacing the inner
    env's spec is not enough: a wrapper computes its spec once and keeps it, so once a policy had
    read ``env.spec`` Minari got the registry's, vector face object and all, which JSON cannot hold."""

    def __init__(self, env, spec):
        super().__init__(env)
        self._stored_spec = spec

    @property
    def spec(self):
        return self._stored_spec


def create(env_id: str, policy_name: str, episodes: int, seed: int = 0, *, minari_id: str | None = None,
           root: str | os.PathLike | None = None, parquet: str | os.PathLike | None = None,
           env_kwargs: dict | None = None) -> DatasetReport:
    """Play ``episodes`` episodes of ``env_id`` with the behaviour policy ``policy_name`` (a
    reference policy of the id, or ``random``: :func:`behaviour_policy`) and
    write them as the Minari dataset ``minari_id`` (``namespace/name-vN``) under ``root`` and/or
    the Parquet file ``parquet``."""
    import envzoo

    entry = envzoo.env_info(env_id)
    if entry.is_multi_agent:
        raise EnvzooError(f"{entry.id} is a multi-agent ({entry.kind}) env: Minari datasets hold one agent's "
                          "observations and actions, so datasets are written for single-agent ids only")
    if minari_id is None and parquet is None:
        raise EnvzooError("nothing to write: give a Minari dataset id, a Parquet file or both")
    if episodes < 1:
        raise EnvzooError(f"episodes must be >= 1, got {episodes!r}")
    make_policy, played_by = behaviour_policy(entry, policy_name)
    if minari_id is not None:
        _check_minari_id(minari_id)
        from minari.storage import get_dataset_path

        with _minari_root(root):
            if get_dataset_path(minari_id).exists():
                raise EnvzooError(f"a Minari dataset {minari_id!r} exists already ({get_dataset_path(minari_id)}); "
                                  f"give another id (or version) or delete it")
    started = time.perf_counter()
    env = envzoo.make(entry.id, **(env_kwargs or {}))
    policy = make_policy(env)
    if minari_id is not None:
        minari = require("dataset", "minari")
        # Minari's Arrow storage holds one reward a step, its HDF5 storage the vector of a multi-objective id.
        storage = "hdf5" if entry.is_multi_objective else "arrow"
        try:
            spec = _recoverable_spec(env.spec)
        except EnvzooError:
            env.close()
            raise
        env = minari.DataCollector(_StoredSpec(env, spec), data_format=storage)
    rows: list[dict] = []
    for episode in range(episodes):
        policy.reset(seed + episode)
        observation, info = env.reset(seed=seed + episode)
        done, step = False, 0
        while not done:
            action = policy(observation, info)
            propensity = policy.propensities(observation, action) if hasattr(policy, "propensities") else None
            next_observation, reward, terminated, truncated, info = env.step(action)
            cost = info.get("cost")
            rows.append({"episode": episode, "seed": seed + episode, "step": step,
                         "observation": _as_list(observation), "action": _as_list(action),
                         "reward": _as_list(reward), "cost": float(cost) if np.isscalar(cost) else float("nan"),
                         "terminated": bool(terminated), "truncated": bool(truncated),
                         "next_observation": _as_list(next_observation)}
                        | ({} if propensity is None else {"propensity": _as_list(propensity)}))
            observation, done, step = next_observation, terminated or truncated, step + 1
    minari_path = parquet_path = None
    if minari_id is not None:
        with _minari_root(root), warnings.catch_warnings():
            # Minari asks datasets it is to host for an author and a link to the code; a local one has neither.
            warnings.filterwarnings("ignore", message=r"`(author|author_email|code_permalink)` is set to None")
            dataset = env.create_dataset(
                dataset_id=minari_id, algorithm_name=f"envzoo behaviour policy {policy_name!r} of {entry.id}",
                description=f"{episodes} episodes of {entry.id} played by {played_by}, "
                            f"episode e from seed {seed} + e (envzoo dataset).",
                requirements=["envzoo"], eval_env=spec)
            minari_path = Path(dataset.storage.data_path).parent
    env.close()
    if parquet is not None:
        pyarrow = require("dataset", "pyarrow")
        import pyarrow.parquet as pq

        parquet_path = Path(parquet)
        parquet_path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pyarrow.Table.from_pylist(rows), parquet_path)
    return DatasetReport(episodes, len(rows), time.perf_counter() - started, minari_path,
                         _size(minari_path) if minari_path else 0, parquet_path,
                         _size(parquet_path) if parquet_path else 0)


def _stack(episodes: list[np.ndarray], what: str) -> np.ndarray:
    lengths = {len(e) for e in episodes}
    if len(lengths) != 1:
        raise EnvzooError(f"the episodes' {what} differ in length ({sorted(lengths)}); arrays need equal lengths")
    return np.stack(episodes)


def minari_arrays(minari_id: str, root: str | os.PathLike | None = None) -> dict[str, np.ndarray]:
    """The episodes of a Minari dataset as arrays: ``observations`` (E, T + 1, ...), ``actions``,
    ``rewards``, ``terminations``, ``truncations`` (E, T, ...); equal episode lengths needed."""
    minari = require("dataset", "minari")
    with _minari_root(root):
        episodes = list(minari.load_dataset(minari_id).iterate_episodes())
    return {"observations": _stack([e.observations for e in episodes], "observations"),
            "actions": _stack([e.actions for e in episodes], "actions"),
            "rewards": _stack([e.rewards for e in episodes], "rewards"),
            "terminations": _stack([e.terminations for e in episodes], "terminations"),
            "truncations": _stack([e.truncations for e in episodes], "truncations")}


def parquet_arrays(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The episodes of a Parquet file of :func:`create` as the arrays of :func:`minari_arrays`,
    plus ``costs`` and, where logged, ``propensities`` (E, T, ...)."""
    require("dataset", "pyarrow")
    import pyarrow.parquet as pq

    table = pq.read_table(path).to_pydict()
    episode = np.asarray(table["episode"])
    out: dict[str, np.ndarray] = {}
    for name, column in (("actions", "action"), ("rewards", "reward"), ("costs", "cost"),
                         ("terminations", "terminated"), ("truncations", "truncated"), ("propensities", "propensity")):
        if column in table:
            values = np.asarray(table[column])
            out[name] = _stack([values[episode == e] for e in np.unique(episode)], column)
    observations = np.asarray(table["observation"])
    last = np.asarray(table["next_observation"])
    out["observations"] = _stack([np.concatenate([observations[episode == e], last[episode == e][-1:]])
                                  for e in np.unique(episode)], "observations")
    return out
