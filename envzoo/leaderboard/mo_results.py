"""Result files of multi-objective runs: the Pareto front a run found, the leaderboard's input
for the ids with a vector reward (``envzoo leaderboard --mo``).

A file holds the id and its arguments, the algorithm, the framework (``morl``: MORL-Baselines),
the seed, the budget, the wall time, the hyperparameters and library versions, and the return
vectors (in the env's own units, one per evaluation episode, seeds ``EVAL_SEED, EVAL_SEED + 1,
...``) of every policy the run found (``front``, each labelled by the weights it was asked for)
and of the random and reference policies on the same episodes (``references``). The metrics of
:mod:`envzoo.leaderboard.pareto` follow from the mean vectors and the registry's
``hypervolume_reference`` without any other source.

Files live under ``leaderboard/mo-results/<Name-vN>/<framework>-<algo>-seed<S>.json``, apart
from the scalar runs' files (another layout).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from envzoo.leaderboard import results
from envzoo.leaderboard.results import EVAL_SEED, ResultFile, ResultFileError

#: The version of the layout below; a reader refuses files of another.
SCHEMA = 1
#: The default folder of multi-objective result files, relative to a source checkout's root.
MO_RESULTS_DIR = Path("leaderboard") / "mo-results"


@dataclass(frozen=True)
class PolicyReturns:
    """One policy's return vector on each evaluation episode; ``label`` says which policy (the
    weights a multi-policy agent was asked for, or a reference policy's name)."""

    label: str
    returns: tuple[tuple[float, ...], ...]

    @property
    def mean(self) -> np.ndarray:
        """The mean return vector over the evaluation episodes: the policy's point."""
        return np.mean(np.array(self.returns, dtype=np.float64), axis=0)


@dataclass(frozen=True)
class MORunResult(ResultFile):
    """Everything one multi-objective run produced; see the module docstring."""

    env_id: str
    algo: str
    framework: str
    seed: int
    timesteps: int
    env_kwargs: dict[str, Any]
    hyperparams: dict[str, Any]
    versions: dict[str, str]
    wall_seconds: float
    objectives: tuple[str, ...]
    eval_seeds: tuple[int, ...]
    front: tuple[PolicyReturns, ...]
    references: dict[str, PolicyReturns]  # "random" and every reference policy, by name

    @property
    def points(self) -> np.ndarray:
        """The mean return vectors of the run's policies, one row each."""
        return np.array([policy.mean for policy in self.front])

    def to_json(self) -> dict:
        """The result as the JSON object written to its file (with the schema's version and kind)."""
        return {"schema": SCHEMA, "kind": "multi-objective", **asdict(self)}


def write(result: MORunResult, root: Path = MO_RESULTS_DIR) -> Path:
    """Write ``result`` to its place under ``root``; returns the path."""
    return results.write(result, root)


def load(path) -> MORunResult:
    """Read one multi-objective result file, or raise :class:`ResultFileError` naming the file and
    what is wrong with it."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ResultFileError(f"{path}: cannot read it as JSON ({error})") from error
    if not isinstance(raw, dict) or raw.get("schema") != SCHEMA or raw.get("kind") != "multi-objective":
        raise ResultFileError(f"{path}: not a multi-objective result file of schema {SCHEMA} (it needs "
                              f"'schema': {SCHEMA} and 'kind': 'multi-objective')")
    try:
        objectives = tuple(str(name) for name in raw["objectives"])
        result = MORunResult(
            env_id=str(raw["env_id"]), algo=str(raw["algo"]), framework=str(raw["framework"]),
            seed=int(raw["seed"]), timesteps=int(raw["timesteps"]), env_kwargs=dict(raw["env_kwargs"]),
            hyperparams=dict(raw["hyperparams"]), versions=dict(raw["versions"]),
            wall_seconds=float(raw["wall_seconds"]), objectives=objectives,
            eval_seeds=tuple(int(s) for s in raw["eval_seeds"]),
            front=tuple(_policy(p, path, f"front[{k}]", len(objectives)) for k, p in enumerate(raw["front"])),
            references={name: _policy(p, path, f"references.{name}", len(objectives))
                        for name, p in raw["references"].items()})
    except KeyError as error:
        raise ResultFileError(f"{path}: the field {error} is missing") from error
    except (TypeError, ValueError) as error:
        raise ResultFileError(f"{path}: a field has the wrong type ({error})") from error
    if not result.front:
        raise ResultFileError(f"{path}: the front holds no policy")
    if result.eval_seeds != tuple(range(EVAL_SEED, EVAL_SEED + len(result.eval_seeds))):
        raise ResultFileError(f"{path}: evaluation seeds must be {EVAL_SEED}, {EVAL_SEED + 1}, ...; "
                              f"got {list(result.eval_seeds)[:5]}")
    for where, policy in [*((f"front {p.label}", p) for p in result.front), *result.references.items()]:
        if len(policy.returns) != len(result.eval_seeds):
            raise ResultFileError(f"{path}: {where} has {len(policy.returns)} episodes for "
                                  f"{len(result.eval_seeds)} evaluation seeds")
    return result


def _policy(raw: dict, path: Path, where: str, objectives: int) -> PolicyReturns:
    returns = tuple(tuple(float(v) for v in episode) for episode in raw["returns"])
    if any(len(episode) != objectives for episode in returns):
        raise ResultFileError(f"{path}: {where} has a return vector without one value per objective ({objectives})")
    if not all(math.isfinite(v) for episode in returns for v in episode):
        raise ResultFileError(f"{path}: {where} has a return that is NaN or infinite")
    return PolicyReturns(str(raw["label"]), returns)


def collect(root: Path = MO_RESULTS_DIR) -> list[MORunResult]:
    """Every multi-objective result file under ``root``, sorted by id, framework, algorithm and seed."""
    results = [load(path) for path in sorted(Path(root).glob("*/*.json"))]
    return sorted(results, key=lambda r: (r.env_id, r.framework, r.algo, r.seed))
