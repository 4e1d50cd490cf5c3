"""The leaderboard's pictures, as PNG files: learning curves with bands, aggregate intervals and
performance profiles (the three plots of Agarwal et al., 2021). Needs the ``plots`` extra
(matplotlib, drawn with its Agg backend: no window)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from envzoo.core.extras import require
from envzoo.leaderboard import BOOTSTRAP_REPS, stats
from envzoo.leaderboard.report import entrant, own_matrices
from envzoo.leaderboard.results import RunResult

ESTIMATOR_LABELS = {"iqm": "IQM", "mean": "mean", "median": "median", "optimality_gap": "optimality gap"}
TAUS = np.linspace(-0.5, 1.5, 41)


def _pyplot():
    matplotlib = require("plots", "matplotlib")
    matplotlib.use("Agg")
    return require("plots", "matplotlib.pyplot")


def curves(results: list[RunResult], env_id: str, path: Path) -> Path:
    """Each entrant's mean learning curve over its seeds (evaluation return against steps), the
    band one standard deviation wide, with the floor's (random play) and the best reference's returns as lines."""
    plt = _pyplot()
    mine = [r for r in results if r.env_id == env_id]
    by_entrant = defaultdict(list)
    for result in mine:
        by_entrant[entrant(result)].append(result)
    figure, axes = plt.subplots(figsize=(6.4, 4))
    for name, runs in sorted(by_entrant.items()):
        # the span every seed's curve covers (their points fall at slightly different steps)
        grid = np.linspace(max(r.curve[0].timesteps for r in runs), min(r.curve[-1].timesteps for r in runs), 50)
        values = np.array([np.interp(grid, [p.timesteps for p in r.curve], [p.mean_return for p in r.curve])
                           for r in runs])
        mean, std = values.mean(axis=0), values.std(axis=0)
        (line,) = axes.plot(grid, mean, linewidth=2, label=f"{name} ({len(runs)} seeds)")
        axes.fill_between(grid, mean - std, mean + std, color=line.get_color(), alpha=0.2)
    references = mine[0].references
    for name in (mine[0].floor, mine[0].best_reference):
        value = references[name].mean_return
        axes.axhline(value, linestyle="--", linewidth=1, color="grey")
        # named inside the plot's left edge, whatever step the curves start at
        axes.annotate(f"{name} {value:,.4g}", (0.01, value), xycoords=("axes fraction", "data"), fontsize=9,
                      color="dimgrey", va="bottom")
    axes.set(title=env_id, xlabel="environment steps", ylabel="evaluation return (mean over seeds, ±1 sd)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=9, loc="best")
    return _save(figure, path)


def intervals(results: list[RunResult], path: Path, reps: int = BOOTSTRAP_REPS) -> Path:
    """IQM, mean, median and optimality gap of each entrant with their 95 % intervals."""
    plt = _pyplot()
    matrices = {name: scores for name, (_, scores) in own_matrices(results).items()}
    # two by two, so that the figure is shown at its own size in a page's column (four side by
    # side were shrunk to half, their text unreadable)
    size = (8.4, 2 * (0.45 * len(matrices) + 1.3))
    figure, panels = plt.subplots(2, 2, figsize=size, sharey=True)
    for axes, (estimator, label) in zip(panels.flat, ESTIMATOR_LABELS.items()):
        for row, (name, scores) in enumerate(matrices.items()):
            low, high = stats.interval(estimator, scores, reps=reps)
            axes.barh(row, high - low, left=low, height=0.6, color=f"C{row}", alpha=0.5)
            axes.plot([getattr(stats, estimator)(scores)] * 2, [row - 0.3, row + 0.3], color="black", linewidth=2)
        axes.set(title=label, xlabel="normalized score")
        axes.set_yticks(range(len(matrices)), list(matrices))
        axes.grid(axis="x", alpha=0.3)
    figure.suptitle("Each entrant over the ids it has run: estimate (black) and 95 % stratified bootstrap interval",
                    fontsize=10)
    return _save(figure, path)


def profiles(results: list[RunResult], path: Path) -> Path:
    """Each entrant's performance profile (fraction of runs above τ) with its 95 % band."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 4))
    for name, (ids, scores) in own_matrices(results).items():
        low, high = stats.profile_interval(scores, TAUS)
        (line,) = axes.plot(TAUS, stats.performance_profile(scores, TAUS), linewidth=2,
                            label=f"{name} ({len(ids)} id{'s' if len(ids) != 1 else ''})")
        axes.fill_between(TAUS, low, high, color=line.get_color(), alpha=0.2)
    axes.set(title="performance profiles", xlabel="normalized score τ",
             ylabel="fraction of runs with score > τ", ylim=(0, 1.02))
    axes.grid(alpha=0.3)
    axes.legend(fontsize=9)
    return _save(figure, path)


def pareto_front(results, env_id: str, path: Path) -> Path:
    """Each multi-objective entrant's points (every seed's policies, the non-dominated ones
    ringed) and the reference policies' points, one panel per pair of objectives (the first
    three pairs)."""
    from envzoo.leaderboard.pareto import non_dominated

    plt = _pyplot()
    mine = [r for r in results if r.env_id == env_id]
    objectives = mine[0].objectives
    pairs = [(i, j) for i in range(len(objectives)) for j in range(i + 1, len(objectives))][:3]
    figure, panels = plt.subplots(1, len(pairs), figsize=(4.2 * len(pairs), 4), squeeze=False)
    by_entrant = defaultdict(list)
    for result in mine:
        by_entrant[f"{result.framework}-{result.algo}"].append(result.points)
    for axes, (i, j) in zip(panels.flat, pairs):
        for k, (name, fronts) in enumerate(sorted(by_entrant.items())):
            points = np.concatenate(fronts)
            axes.scatter(points[:, i], points[:, j], color=f"C{k}", alpha=0.6, label=f"{name} ({len(fronts)} seeds)")
            best = non_dominated(points)
            axes.scatter(best[:, i], best[:, j], facecolors="none", edgecolors=f"C{k}", s=120, linewidths=1.5)
        for name, policy in mine[0].references.items():
            axes.scatter(policy.mean[i], policy.mean[j], marker="x", color="black")
            axes.annotate(name, (policy.mean[i], policy.mean[j]), fontsize=8, color="dimgrey")
        axes.set(xlabel=objectives[i], ylabel=objectives[j])
        axes.grid(alpha=0.3)
    panels.flat[0].legend(fontsize=8, loc="best")
    figure.suptitle(f"{env_id}: points found (ringed: non-dominated) and reference policies (x)", fontsize=10)
    return _save(figure, path)


def _save(figure, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    _pyplot().close(figure)
    return path


def write_all(results: list[RunResult], folder: Path, env_ids: list[str], reps: int = BOOTSTRAP_REPS) -> list[Path]:
    """The curves of every id in ``env_ids`` and, over several entrants or ids, the aggregate plots."""
    folder = Path(folder)
    written = [curves(results, env_id, folder / f"curves-{env_id.split('/', 1)[1]}.png") for env_id in env_ids]
    selected = [r for r in results if r.env_id in env_ids]
    if len(env_ids) > 1 or len({entrant(r) for r in selected}) > 1:
        written += [intervals(selected, folder / "intervals.png", reps), profiles(selected, folder / "profiles.png")]
    return written


def write_report(folder: Path, env_ids: list[str], tables: list, written: list[Path]) -> Path:
    """``folder/report.html``: the leaderboard on one self-contained page (the tables of
    :mod:`envzoo.leaderboard.report` and the plots :func:`write_all` wrote, inlined), a section
    per id under its domain, then the comparisons across ids."""
    from envzoo.registry import env_info
    from envzoo.tools.plots import ReportSection, report_html, rows_html

    def html_table(table) -> str:
        return rows_html(table.columns, table.rows, table.title)

    def of_id(table) -> str | None:  # an id's own tables' titles start with the id
        return next((env_id for env_id in env_ids if table.title.startswith(f"{env_id}:")), None)

    by_name = {path.name: path.read_bytes() for path in written}
    sections = []
    for env_id in env_ids:
        entry = env_info(env_id)
        sections.append(ReportSection(env_id, entry.summary, [by_name[f"curves-{env_id.split('/', 1)[1]}.png"]],
                                      [html_table(t) for t in tables if of_id(t) == env_id], entry.domain))
    across = [t for t in tables if of_id(t) is None]
    images = [by_name[name] for name in ("intervals.png", "profiles.png") if name in by_name]
    if across or images:
        sections.append(ReportSection("Across ids", "normalized scores over every id selected, with bootstrap "
                                      "intervals", images, [html_table(t) for t in across], "comparisons"))
    path = Path(folder) / "report.html"
    path.write_text(report_html("envzoo leaderboard", sections, f"{len(env_ids)} id(s)"), encoding="utf-8")
    return path
