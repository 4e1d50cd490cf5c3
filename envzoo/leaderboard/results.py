"""Result files: one JSON file per training run, the leaderboard's only input.

A run's file holds what reproduces and judges it: the id and its arguments, the algorithm, the
framework, the seed, the budget and hyperparameters, the library versions, the learning curve,
the trained policy's evaluation episodes and those of the random policy and every reference
policy on the *same* evaluation seeds. From these the run's **normalized score** follows without
any other source: 0 is the random policy's mean return (or that of the id's ``score_floor`` in
the registry: random among the valid actions, where random actions are mostly refused), 1 the
best reference policy's. A
constrained id's file also holds its constraint (the registry's ``constraint``): there the score
is taken from the *constrained return*, each episode that broke the constraint counting as the
constraint's ``infeasible_return``.

Files live under ``leaderboard/results/<Name-vN>/<framework>-<algo>-seed<S>.json``.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import envzoo
from envzoo.core.errors import EnvzooError, RegistryError
from envzoo.registry import EpisodeConstraint

#: The version of the file layout below; a reader refuses files of another.
SCHEMA = 1
#: Evaluation episodes use the seeds ``EVAL_SEED, EVAL_SEED + 1, ...``; training never starts there.
EVAL_SEED = 10_000
#: The default folder of result files, relative to a source checkout's root.
RESULTS_DIR = Path("leaderboard") / "results"


class ResultFileError(EnvzooError, ValueError):
    """A result file that cannot be read or does not follow the layout; names the file and field."""


@dataclass(frozen=True)
class Evaluation:
    """Episodes of one policy on the evaluation seeds: each episode's return and final metrics."""

    seeds: tuple[int, ...]
    returns: tuple[float, ...]
    metrics: dict[str, tuple[float, ...]] = field(default_factory=dict)

    @property
    def mean_return(self) -> float:
        return sum(self.returns) / len(self.returns)


@dataclass(frozen=True)
class CurvePoint:
    """The trained policy's mean evaluation return after ``timesteps`` environment steps."""

    timesteps: int
    mean_return: float
    std_return: float


class ResultFile:
    """Where a run's result file goes, for results with ``env_id``, ``framework``, ``algo`` and
    ``seed`` (this module's and :mod:`envzoo.leaderboard.mo_results`'); their ``to_json`` says
    what goes in it (:func:`write`)."""

    @property
    def file_name(self) -> str:
        """The result file's name: ``<framework>-<algo>-seed<seed>.json``."""
        return f"{self.framework}-{self.algo}-seed{self.seed}.json"

    def path_under(self, root: Path) -> Path:
        """Where the result file goes under ``root``: a folder per id (its name without ``envzoo/``)."""
        return Path(root) / self.env_id.split("/", 1)[1] / self.file_name


@dataclass(frozen=True)
class RunResult(ResultFile):
    """Everything one training run produced; see the module docstring."""

    env_id: str
    algo: str
    framework: str
    seed: int
    timesteps: int
    env_kwargs: dict[str, Any]
    eval_env_kwargs: dict[str, Any]
    hyperparams: dict[str, Any]
    versions: dict[str, str]
    wall_seconds: float
    curve: tuple[CurvePoint, ...]
    evaluation: Evaluation
    references: dict[str, Evaluation]  # "random" and every reference policy, by name
    constraint: EpisodeConstraint | None = None  # a constrained id's: how its episodes are scored

    def scored_return(self, evaluation: Evaluation) -> float:
        """The mean return the scores are taken from: ``evaluation``'s, or for a constrained id its
        constrained return (an episode that broke the constraint counts as ``infeasible_return``)."""
        if self.constraint is None:
            return evaluation.mean_return
        returns = self.constraint.returns(evaluation.returns, evaluation.metrics[self.constraint.metric])
        return sum(returns) / len(returns)

    @property
    def floor(self) -> str:
        """The policy whose scored return is the score's 0: the id's ``score_floor`` in the registry
        (``random`` for an id the registry does not know)."""
        try:
            return envzoo.env_info(self.env_id).score_floor
        except RegistryError:
            return "random"

    @property
    def best_reference(self) -> str:
        """The reference policy (not random, not the floor) with the highest scored return on the
        evaluation seeds."""
        named = {name: ev for name, ev in self.references.items() if name not in ("random", self.floor)}
        if not named:
            raise ResultFileError(f"{self.env_id}: the result has no reference policy besides random to scale by")
        return max(named, key=lambda name: self.scored_return(named[name]))

    @property
    def normalized_score(self) -> float:
        """(scored return - the floor's) / (best reference's - the floor's): 0 is the floor policy
        (:attr:`floor`: random play, or random valid play where the registry says so), 1 the best
        reference."""
        return self.normalize(self.scored_return(self.evaluation))

    def normalize(self, mean_return: float) -> float:
        """``mean_return`` on the scale where the floor's scored return is 0 and the best reference's 1."""
        floor = self.scored_return(self.references[self.floor])
        span = self.scored_return(self.references[self.best_reference]) - floor
        if span <= 0:
            raise ResultFileError(f"{self.env_id}: no reference policy beats {self.floor} on the evaluation seeds, so "
                                  f"scores cannot be normalized ({self.floor} {floor:.6g})")
        return (mean_return - floor) / span

    def to_json(self) -> dict:
        """The result as the JSON object written to its file (with the schema's version)."""
        return {"schema": SCHEMA, **asdict(self)}  # asdict writes the constraint as {metric, infeasible_return}


def write(result: ResultFile, root: Path = RESULTS_DIR) -> Path:
    """Write ``result`` to its place under ``root``; returns the path."""
    path = result.path_under(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result.to_json(), indent=1) + "\n")
    return path


def load(path) -> RunResult:
    """Read one result file, or raise :class:`ResultFileError` naming the file and what is wrong."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ResultFileError(f"{path}: cannot read it as JSON ({error})") from error
    if not isinstance(raw, dict) or raw.get("schema") != SCHEMA:
        raise ResultFileError(f"{path}: not a result file of schema {SCHEMA} (its 'schema' is "
                              f"{raw.get('schema') if isinstance(raw, dict) else None!r})")
    try:
        return RunResult(
            env_id=str(raw["env_id"]), algo=str(raw["algo"]), framework=str(raw["framework"]),
            seed=int(raw["seed"]), timesteps=int(raw["timesteps"]), env_kwargs=dict(raw["env_kwargs"]),
            eval_env_kwargs=dict(raw["eval_env_kwargs"]), hyperparams=dict(raw["hyperparams"]),
            versions=dict(raw["versions"]), wall_seconds=float(raw["wall_seconds"]),
            curve=tuple(CurvePoint(int(p["timesteps"]), float(p["mean_return"]), float(p["std_return"]))
                        for p in raw["curve"]),
            evaluation=_evaluation(raw["evaluation"], path, "evaluation"),
            references={name: _evaluation(ev, path, f"references.{name}") for name, ev in raw["references"].items()},
            constraint=_constraint(raw.get("constraint")))
    except KeyError as error:
        raise ResultFileError(f"{path}: the field {error} is missing") from error
    except (TypeError, ValueError) as error:
        raise ResultFileError(f"{path}: a field has the wrong type ({error})") from error


def _constraint(raw: dict | None) -> EpisodeConstraint | None:
    return None if raw is None else EpisodeConstraint(str(raw["metric"]), float(raw["infeasible_return"]))


def _evaluation(raw: dict, path: Path, where: str) -> Evaluation:
    evaluation = Evaluation(tuple(int(s) for s in raw["seeds"]), tuple(float(r) for r in raw["returns"]),
                            {name: tuple(float(v) for v in values) for name, values in raw.get("metrics", {}).items()})
    if not evaluation.returns or len(evaluation.returns) != len(evaluation.seeds):
        raise ResultFileError(f"{path}: {where} needs one return per seed ({len(evaluation.seeds)} seeds, "
                              f"{len(evaluation.returns)} returns)")
    if not all(math.isfinite(r) for r in evaluation.returns):
        raise ResultFileError(f"{path}: {where} has a return that is NaN or infinite")
    return evaluation


def collect(root: Path = RESULTS_DIR) -> list[RunResult]:
    """Every result file under ``root``, sorted by id, framework, algorithm and seed."""
    results = [load(path) for path in sorted(Path(root).glob("*/*.json"))]
    return sorted(results, key=lambda r: (r.env_id, r.framework, r.algo, r.seed))


def problems(result: RunResult, min_timesteps: int = 1) -> list[str]:
    """What keeps a result off the leaderboard (empty if nothing): an id or version the registry
    does not have, evaluation seeds other than the standard ones or not shared by every
    reference policy, a budget below ``min_timesteps``, metrics the id reports but the result
    lacks, a score that cannot be normalized."""

    found = []
    try:
        entry = envzoo.env_info(result.env_id)
    except RegistryError as error:  # its message says which ids exist
        return [f"unknown id: {error}"]
    seeds = result.evaluation.seeds
    if seeds != tuple(range(EVAL_SEED, EVAL_SEED + len(seeds))):
        found.append(f"evaluation seeds must be {EVAL_SEED}, {EVAL_SEED + 1}, ...; got {list(seeds)[:5]}...")
    for name, evaluation in result.references.items():
        if evaluation.seeds != seeds:
            found.append(f"reference policy {name!r} ran on other seeds than the trained policy")
    if entry.score_floor not in result.references:
        found.append(f"the {entry.score_floor} policy's evaluation is missing (the score's 0)")
    if result.timesteps < min_timesteps:
        found.append(f"budget {result.timesteps:,} steps is below the required {min_timesteps:,}")
    if result.constraint != entry.constraint:
        found.append(f"{entry.id} is scored under the constraint {entry.constraint}; the file has {result.constraint}")
    missing = [name for name in entry.metrics if name not in result.evaluation.metrics]
    if missing:
        found.append(f"metrics missing from the evaluation: {', '.join(missing)}")
    if not found:
        try:
            result.normalized_score
        except ResultFileError as error:
            found.append(str(error))
    return found
