"""The multi-objective leaderboard's tables (``envzoo leaderboard --mo``): per id, each
entrant's Pareto-front metrics (:mod:`envzoo.leaderboard.pareto`) beside the reference policies'
points on the same evaluation episodes, and the scalar-trained agent of the id's scalar sibling.

An entrant's runs are its seeds: each metric is the mean over them. A reference policy is one
point, its row the metrics of that point alone. The scalar sibling's result files record scalar
returns, not vectors: its rows give its scalarized mean return and normalized score, and no
front metric.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

import envzoo
from envzoo.leaderboard.mo_results import MORunResult
from envzoo.leaderboard.pareto import front_metrics
from envzoo.leaderboard.report import Table, entrant
from envzoo.leaderboard.results import RunResult

COLUMNS = ("entrant", "runs", "budget (steps)", "wall (s)", "hypervolume", "expected utility", "sparsity",
           "cardinality", "scalar return (normalized)")


def scalar_sibling(env_id: str) -> str | None:
    """The scalar id a multi-objective id was made from: the same name without ``MO`` (and
    version), where the registry has it."""
    name, version = env_id.split("/", 1)[1].rsplit("-", 1)
    if "MO" not in name:
        return None
    known = envzoo.registry.entries()
    return next((f"envzoo/{name.replace('MO', '', 1)}-{v}" for v in (version, "v1", "v0")
                 if f"envzoo/{name.replace('MO', '', 1)}-{v}" in known), None)


def _format(value: float) -> str:
    return f"{value:.4g}"


def mo_table(results: list[MORunResult], env_id: str, scalar_results: list[RunResult] = ()) -> Table:
    """One multi-objective id: each entrant's front metrics (mean over its seeds), each reference
    policy's point on the same metrics, and the scalar sibling's entrants (see the module docstring)."""
    mine = [r for r in results if r.env_id == env_id]
    if not mine:
        raise ValueError(f"no multi-objective result files for {env_id}")
    entry = envzoo.env_info(env_id)
    if entry.hypervolume_reference is None:
        raise ValueError(f"{env_id} has no hypervolume_reference in the registry: the front cannot be scored")
    reference = np.array(entry.hypervolume_reference)
    by_entrant = defaultdict(list)
    for result in mine:
        by_entrant[f"{result.framework}-{result.algo}"].append(result)
    rows = []
    for name, runs in sorted(by_entrant.items()):
        metrics = [front_metrics(run.points, reference) for run in runs]
        rows.append((name, str(len(runs)), f"{int(np.median([r.timesteps for r in runs])):,}",
                     f"{np.mean([r.wall_seconds for r in runs]):.0f}",
                     *(_format(np.mean([getattr(m, field) for m in metrics]))
                       for field in ("hypervolume", "expected_utility", "sparsity", "cardinality")), "–"))
    for name, policy in sorted(mine[0].references.items()):
        metrics = front_metrics(policy.mean[None, :], reference)
        point = "(" + ", ".join(f"{v:.4g}" for v in policy.mean) + ")"
        rows.append((f"reference: {name} {point}", "–", "–", "–", _format(metrics.hypervolume),
                     _format(metrics.expected_utility), "–", "1", "–"))
    sibling = scalar_sibling(env_id)
    scalar_rows = defaultdict(list)
    for result in scalar_results:
        if result.env_id == sibling:
            scalar_rows[entrant(result)].append(result)
    for name, runs in sorted(scalar_rows.items()):
        returns = np.mean([r.scored_return(r.evaluation) for r in runs])
        score = np.mean([r.normalized_score for r in runs])
        rows.append((f"scalar {sibling.split('/', 1)[1]}: {name}", str(len(runs)),
                     f"{int(np.median([r.timesteps for r in runs])):,}",
                     f"{np.mean([r.wall_seconds for r in runs]):.0f}", "–", "–", "–", "–",
                     f"{returns:.4g} ({score:.2f})"))
    objectives = ", ".join(entry.objectives)
    point = ", ".join(f"{v:g}" for v in reference)
    return Table(f"{env_id}: objectives ({objectives}), {len(mine[0].eval_seeds)} evaluation episodes per point, "
                 f"hypervolume reference ({point})", COLUMNS, tuple(rows))
