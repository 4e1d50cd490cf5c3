"""Plots of what ``envzoo eval`` and ``envzoo tour`` measure: per-policy KPI bars (mean ± std over
episodes) and per-episode curves (each KPI by episode seed, and the return accumulated through
the episode), with matplotlib's Agg backend (no window); ``report_html`` puts the figures of
several ids into one self-contained HTML file (PNG images inlined as base64)."""

from __future__ import annotations

import base64
import html
import io

import numpy as np

from envzoo.tools.rollout import NEVER, EpisodeResult, is_first_event

#: A figure's KPI panels wrap onto a further row after this many.
PANELS_PER_ROW = 4


def plotted_kpis(kpis: dict[str, tuple[float, float]], metrics: list[str]) -> list[str]:
    """The KPIs a figure shows: the return(s), then every metric of the id (the registry's
    order first, then any further ones the episodes reported)."""
    returns = [name for name in kpis if name.startswith("return")]
    listed = [m for m in metrics if m in kpis]
    return returns + listed + [name for name in kpis if name not in returns + listed + ["length"]]


def _episode_values(results: list[EpisodeResult], name: str, objectives: list[str]) -> np.ndarray:
    if name == "return":
        return np.array([float(r.episode_return) for r in results])
    if name.startswith("return."):
        k = objectives.index(name.split(".", 1)[1])
        return np.array([np.asarray(r.episode_return)[k] for r in results])
    values = np.array([r.metrics.get(name, np.nan) for r in results])
    return np.where(values == NEVER, np.nan, values) if is_first_event(name) else values


def kpi_figure(title: str, runs: list[tuple[str, list[EpisodeResult], dict]], metrics: list[str],
               objectives: list[str] | None = None, seed: int = 0):
    """The figure of one id: ``runs`` is ``[(policy, episode results, kpis), ...]`` (kpis: name ->
    (mean, std), as ``envzoo eval`` prints them)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    objectives = list(objectives or [])
    names = list(dict.fromkeys(name for _, _, kpis in runs for name in plotted_kpis(kpis, metrics)))
    columns = min(max(len(names), 1), PANELS_PER_ROW)
    panel_rows = -(-len(names) // columns)  # each KPI: its bars above its per-episode values
    figure = Figure(figsize=(3.2 * max(columns, 2), 2.8 * (2 * panel_rows + 1)), layout="constrained")
    grid = figure.add_gridspec(2 * panel_rows + 1, columns)
    policies = [policy for policy, _, _ in runs]
    colors = [f"C{i % 10}" for i in range(len(runs))]
    for k, name in enumerate(names):
        row, column = 2 * (k // columns), k % columns
        bars = figure.add_subplot(grid[row, column])
        means = [kpis[name][0] if name in kpis else np.nan for _, _, kpis in runs]
        stds = [kpis[name][1] if name in kpis else 0.0 for _, _, kpis in runs]
        bars.bar(range(len(runs)), means, yerr=stds, color=colors, capsize=4)
        bars.set_xticks(range(len(runs)), policies, rotation=35, ha="right", fontsize=8)
        bars.set_title(f"{name} (mean ± std)", fontsize=9)
        episodes = figure.add_subplot(grid[row + 1, column])
        for (policy, results, _), color in zip(runs, colors):
            values = _episode_values(results, name, objectives)
            episodes.plot(np.arange(seed, seed + len(values)), values, "o-", color=color, label=policy, markersize=4)
        episodes.xaxis.set_major_locator(MaxNLocator(integer=True))
        episodes.set_xlabel("episode seed", fontsize=8)
        episodes.set_title(f"{name} per episode", fontsize=9)
    curve = figure.add_subplot(grid[-1, :])
    for (policy, results, _), color in zip(runs, colors):
        for i, result in enumerate(results):
            rewards = np.asarray(result.step_rewards, dtype=np.float64)
            if rewards.size:
                first = rewards if rewards.ndim == 1 else rewards[:, 0]
                curve.plot(np.cumsum(first), color=color, alpha=0.8, linewidth=1, label=policy if i == 0 else None)
    what = f"return.{objectives[0]}" if objectives else "return"
    curve.set_title(f"{what} accumulated through each episode", fontsize=9)
    curve.set_xlabel("step", fontsize=8)
    curve.legend(fontsize=8, ncols=min(len(runs), 6))
    figure.suptitle(title, fontsize=11)
    return figure


def png_bytes(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80)
    return buffer.getvalue()


def report_html(title: str, sections: list[tuple[str, str, bytes, str]]) -> str:
    """One HTML file: ``sections`` is ``[(heading, text, png, table_html), ...]``."""
    body = [f"<h1>{html.escape(title)}</h1>"]
    for heading, text, png, table in sections:
        image = base64.b64encode(png).decode("ascii")
        body.append(f"<h2>{html.escape(heading)}</h2><p>{html.escape(text)}</p>"
                    f'<img alt="{html.escape(heading)}" src="data:image/png;base64,{image}">{table}')
    style = ("body{font-family:sans-serif;max-width:1400px;margin:2em auto}img{max-width:100%}"
             "table{border-collapse:collapse;font-size:13px}"
             "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n")


def table_html(runs: list[tuple[str, list, dict]], formatter) -> str:
    """The KPI table of one id (policies as columns), cells written by ``formatter(mean, std)``."""
    names = list(dict.fromkeys(name for _, _, kpis in runs for name in kpis))
    head = "".join(f"<th>{html.escape(policy)}</th>" for policy, _, _ in runs)
    rows = "".join(f"<tr><td>{html.escape(name)}</td>" + "".join(
        f"<td>{html.escape(formatter(*kpis[name])) if name in kpis else '-'}</td>" for _, _, kpis in runs) + "</tr>"
        for name in names)
    return f"<table><tr><th>kpi</th>{head}</tr>{rows}</table>"
