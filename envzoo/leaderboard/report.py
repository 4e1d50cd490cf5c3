"""The leaderboard's tables, from result files: per id, and aggregated over ids with intervals.

An *entrant* is a framework and algorithm (``sb3-ppo``); its runs are its seeds. Per id the table
lists every entrant's runs and scores next to the reference policies' returns on the same
evaluation seeds. Over several ids, the normalized scores form the (runs, tasks) matrix of
:mod:`envzoo.leaderboard.stats`, taken over the ids every entrant has run and, as that matrix
needs the same number of runs on each task, the lowest seeds of each id up to the fewest any
id has.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from envzoo.tools.rollout import first_event_summary, is_first_event
from envzoo.leaderboard import BOOTSTRAP_REPS, stats
from envzoo.leaderboard.results import ResultFileError, RunResult


def entrant(result: RunResult) -> str:
    return f"{result.framework}-{result.algo}"


@dataclass(frozen=True)
class Table:
    """A table to print or write as Markdown: a title, column names and rows of strings."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def markdown(self) -> str:
        lines = [f"| {' | '.join(self.columns)} |", f"|{'---|' * len(self.columns)}"]
        lines += [f"| {' | '.join(row)} |" for row in self.rows]
        return f"**{self.title}**\n\n" + "\n".join(lines) + "\n"


def _interval(low: float, high: float) -> str:
    return f"[{low:.2f}, {high:.2f}]"


def id_table(results: list[RunResult], env_id: str) -> Table:
    """One id: each entrant's runs, mean return and normalized score, and the reference policies."""
    mine = [r for r in results if r.env_id == env_id]
    if not mine:
        raise ValueError(f"no result files for {env_id}")
    by_entrant = defaultdict(list)
    for result in mine:
        by_entrant[entrant(result)].append(result)
    rows = []
    for name, runs in sorted(by_entrant.items()):
        returns = np.array([r.scored_return(r.evaluation) for r in runs])
        scores = np.array([[r.normalized_score for r in runs]]).T
        low, high = stats.interval("mean", scores) if len(runs) > 1 else (scores[0, 0], scores[0, 0])
        budget = f"{int(np.median([r.timesteps for r in runs])):,}"
        wall = f"{np.median([r.wall_seconds for r in runs]) / 60:.1f}"
        rows.append((name, str(len(runs)), budget, wall, f"{returns.mean():.4g} ± {returns.std():.2g}",
                     f"{scores.mean():.2f} {_interval(low, high)}"))
    reference = mine[0]
    for name, evaluation in sorted(reference.references.items(), key=lambda item: -reference.scored_return(item[1])):
        scored = reference.scored_return(evaluation)
        rows.append((f"reference: {name}", "–", "–", "–", f"{scored:.4g}", f"{reference.normalize(scored):.2f}"))
    episodes = len(reference.evaluation.seeds)
    constrained = "" if reference.constraint is None else (
        f" (constrained return: an episode with {reference.constraint.metric} counts as "
        f"{reference.constraint.infeasible_return:g})")
    return Table(f"{env_id}: {episodes} evaluation episodes per run; score 0 = {reference.floor}, 1 = {reference.best_reference}"
                 f"{constrained}",
                 ("entrant", "runs", "budget (steps)", "wall time (min, a run)", "mean return",
                  "normalized score [95 % CI]"), tuple(rows))


def metrics_table(results: list[RunResult], env_id: str, metrics: list[str], reps: int = BOOTSTRAP_REPS) -> Table:
    """One id's episode metrics (``info["metrics"]`` at each evaluation episode's end): per entrant
    the mean over its runs with a 95 % bootstrap interval over runs (each run counted by its mean
    over the evaluation episodes: seeds are the unit of repetition), and per reference policy its
    mean over the same evaluation episodes. Every run is scored on those episodes, so a run's
    value and a reference's differ by the policy alone. A first-event step (``first_<event>_step``,
    -1 where the event never happened) is the mean over the episodes where it happened and their
    count, or ``never``."""
    mine = [r for r in results if r.env_id == env_id]
    if not mine:
        raise ValueError(f"no result files for {env_id}")
    reference = mine[0]  # the reference policies' rows: every run holds them, on the same episodes
    for run in mine:
        if run.evaluation.seeds != reference.evaluation.seeds:
            raise ResultFileError(f"{env_id}: {entrant(run)} seed {run.seed} was evaluated on other episodes "
                                  f"({run.evaluation.seeds}) than {entrant(reference)} seed {reference.seed} "
                                  f"({reference.evaluation.seeds}); its metrics cannot share one table")
        for policy, evaluation in [(f"{entrant(run)} seed {run.seed}", run.evaluation)] + list(run.references.items()):
            missing = [name for name in metrics if name not in evaluation.metrics]
            if missing:
                raise ResultFileError(f"{env_id}: the result of {entrant(run)} seed {run.seed} records no metric "
                                      f"{', '.join(missing)} for {policy}; it records "
                                      f"{', '.join(sorted(evaluation.metrics)) or 'none'}")

    def cell(values: list[float]) -> str:
        values = np.asarray(values, dtype=np.float64)
        if values.size < 2:
            return f"{values.mean():.4g}"
        low, high = stats.interval("mean", values[:, None], reps)
        return f"{values.mean():.4g} [{low:.4g}, {high:.4g}]"

    def first_event_cell(episodes: list) -> str:
        """A first-event step (-1 where it never happened) over the episodes where it happened."""
        summary = first_event_summary(np.concatenate([np.atleast_1d(np.asarray(e, dtype=np.float64))
                                                      for e in episodes]))
        return (f"{summary.mean:.4g} ({summary.happened} of {summary.episodes})" if summary.happened
                else f"never (0 of {summary.episodes})")

    def entrant_cell(runs: list[RunResult], metric: str) -> str:
        if is_first_event(metric):
            return first_event_cell([r.evaluation.metrics[metric] for r in runs])
        return cell([np.mean(r.evaluation.metrics[metric]) for r in runs])

    def reference_cell(values, metric: str) -> str:
        return first_event_cell([values]) if is_first_event(metric) else f"{np.mean(values):.4g}"

    by_entrant = defaultdict(list)
    for result in mine:
        by_entrant[entrant(result)].append(result)
    rows = [(name, str(len(runs))) + tuple(entrant_cell(runs, m) for m in metrics)
            for name, runs in sorted(by_entrant.items())]
    rows += [(f"reference: {name}", "–") + tuple(reference_cell(evaluation.metrics[m], m) for m in metrics)
             for name, evaluation in sorted(reference.references.items(), key=lambda item: -item[1].mean_return)]
    episodes = len(reference.evaluation.seeds)
    return Table(f"{env_id}: episode metrics, mean over {episodes} evaluation episodes [95 % CI over runs]",
                 ("entrant", "runs") + tuple(metrics), tuple(rows))


def score_matrices(results: list[RunResult], env_ids: list[str] | None = None) -> tuple[list[str], dict]:
    """The ids every entrant of ``results`` has run (of ``env_ids``) and each entrant's (runs,
    tasks) matrix of normalized scores over them."""
    by_key = defaultdict(list)
    for result in results:
        by_key[(entrant(result), result.env_id)].append(result)
    entrants = sorted({name for name, _ in by_key})
    ids = sorted({env_id for _, env_id in by_key} if env_ids is None else env_ids)
    common = [env_id for env_id in ids if all((name, env_id) in by_key for name in entrants)]
    if not common:
        raise ValueError("no id has results of every entrant; compare fewer entrants or ids")
    runs = min(len(by_key[(name, env_id)]) for name in entrants for env_id in common)
    matrices = {name: np.array([[sorted(by_key[(name, env_id)], key=lambda r: r.seed)[n].normalized_score
                                 for env_id in common] for n in range(runs)]) for name in entrants}
    return common, matrices


def own_matrices(results: list[RunResult], env_ids: list[str] | None = None) -> dict[str, tuple[list[str], np.ndarray]]:
    """Each entrant's ids (of ``env_ids``) and its (runs, tasks) matrix over them."""
    names = sorted({entrant(r) for r in results if env_ids is None or r.env_id in env_ids})
    own = {}
    for name in names:
        ids, matrices = score_matrices([r for r in results if entrant(r) == name], env_ids)
        own[name] = ids, matrices[name]
    return own


def aggregate_table(results: list[RunResult], env_ids: list[str] | None = None, reps: int = BOOTSTRAP_REPS
                    ) -> Table:
    """IQM, mean, median and optimality gap of each entrant's normalized scores over the ids it
    has run, with 95 % intervals."""
    rows = []
    for name, (ids, scores) in own_matrices(results, env_ids).items():
        cells = [name, str(len(ids)), str(scores.shape[0])]
        for estimator in ("iqm", "mean", "median", "optimality_gap"):
            low, high = stats.interval(estimator, scores, reps=reps)
            cells.append(f"{getattr(stats, estimator)(scores):.2f} {_interval(low, high)}")
        rows.append(tuple(cells))
    return Table(f"aggregate of each entrant over the ids it has run (stratified bootstrap, {reps:,} replications)",
                 ("entrant", "ids", "runs per id", "IQM", "mean", "median", "optimality gap"), tuple(rows))


def improvement_table(results: list[RunResult], env_ids: list[str] | None = None,
                      reps: int = BOOTSTRAP_REPS) -> Table | None:
    """P(X > Y) for every ordered pair of entrants over the ids both have run, with 95 %
    intervals; None where no two entrants share an id."""
    names = sorted({entrant(r) for r in results if env_ids is None or r.env_id in env_ids})
    rows = []
    for x in names:
        for y in names:
            pair = [r for r in results if entrant(r) in (x, y)]
            if x == y or not set(r.env_id for r in pair if entrant(r) == x) & set(r.env_id for r in pair
                                                                                 if entrant(r) == y):
                continue
            ids, matrices = score_matrices(pair, env_ids)
            low, high = stats.improvement_interval(matrices[x], matrices[y], reps=reps)
            rows.append((x, y, str(len(ids)), f"{stats.probability_of_improvement(matrices[x], matrices[y]):.2f} "
                                              f"{_interval(low, high)}"))
    if not rows:
        return None
    return Table("probability of improvement over the ids both entrants have run",
                 ("X", "Y", "ids", "P(X > Y) [95 % CI]"), tuple(rows))


def profile_table(results: list[RunResult], env_ids: list[str] | None = None,
                  taus=(0.0, 0.25, 0.5, 0.75, 1.0, 1.25)) -> Table:
    """Each entrant's performance profile over the ids it has run: the fraction of runs scoring
    above each threshold."""
    rows = []
    for name, (ids, scores) in own_matrices(results, env_ids).items():
        profile, (low, high) = stats.performance_profile(scores, taus), stats.profile_interval(scores, taus)
        rows.append((name, str(len(ids)), *(f"{p:.2f} {_interval(lo, hi)}" for p, lo, hi in zip(profile, low, high))))
    return Table("performance profiles over the ids each entrant has run: fraction of runs above τ",
                 ("entrant", "ids", *(f"τ = {tau:g}" for tau in taus)), tuple(rows))
