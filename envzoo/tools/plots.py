"""Plots of what ``envzoo eval`` and ``envzoo tour`` measure: per-policy KPI bars (mean ± std over
episodes) and per-episode curves (each KPI by episode seed, and the return accumulated through
the episode), with matplotlib's Agg backend (no window); ``report_html`` puts the figures of
several ids into one self-contained HTML file (PNG images inlined as base64)."""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, field

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


@dataclass
class ReportSection:
    """One part of a report page: a heading (its anchor in the navigation), a line of text, PNG
    images and HTML tables; ``group`` is the navigation's group it is listed under (a domain)."""

    heading: str
    text: str = ""
    images: list[bytes] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    group: str = ""


#: The reports' one stylesheet: a navigation column by group, cards, tables that scroll inside
#: their card rather than widen the page, and a single column on a narrow screen.
REPORT_STYLE = """
:root{--ink:#1f2933;--muted:#616e7c;--line:#e4e7eb;--accent:#00897b;--paper:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);
background:var(--paper)}
header{background:var(--accent);color:#fff;padding:14px 28px}
header h1{margin:0;font-size:20px;font-weight:600}
header p{margin:4px 0 0;opacity:.9;font-size:13px}
.layout{display:grid;grid-template-columns:230px minmax(0,1fr);gap:24px;max-width:1400px;margin:0 auto;padding:20px}
nav{position:sticky;top:12px;align-self:start;max-height:calc(100vh - 24px);overflow-y:auto;font-size:13px}
nav h2{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:14px 0 4px}
nav a{display:block;color:var(--ink);text-decoration:none;padding:2px 8px;border-radius:4px;
overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
nav a:hover{background:var(--line)}
main{min-width:0}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin-bottom:20px}
section h2{margin:0 0 4px;font-size:17px}
section .group{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.06em}
section p{margin:4px 0 12px;color:var(--muted)}
img{display:block;max-width:100%;height:auto;margin:8px 0}
.table{overflow-x:auto;margin:8px 0}
table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:right;white-space:nowrap}
th{background:var(--paper);font-weight:600}
th:first-child,td:first-child{text-align:left}
tr:nth-child(even) td{background:#fafbfc}
caption{text-align:left;font-weight:600;padding:4px 0}
@media (max-width:900px){.layout{grid-template-columns:1fr}nav{position:static;max-height:none}}
"""


def _anchor(text: str, taken: set) -> str:
    base = "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-") or "section"
    anchor, n = base, 1
    while anchor in taken:
        n += 1
        anchor = f"{base}-{n}"
    taken.add(anchor)
    return anchor


def report_html(title: str, sections: list[ReportSection], subtitle: str = "") -> str:
    """One self-contained HTML page (``tour --report``, ``leaderboard --plot``): a header, a
    navigation column listing the sections by group, and each section as a card with its images
    inlined as PNG data URIs; nothing on the page refers outside the file."""
    taken: set = set()
    anchors = [_anchor(section.heading, taken) for section in sections]
    nav = []
    for group in dict.fromkeys(section.group for section in sections):
        nav.append(f"<h2>{html.escape(group or 'contents')}</h2>")
        nav += [f'<a href="#{anchor}">{html.escape(section.heading)}</a>'
                for section, anchor in zip(sections, anchors) if section.group == group]
    cards = []
    for section, anchor in zip(sections, anchors):
        parts = [f'<section id="{anchor}">']
        if section.group:
            parts.append(f'<div class="group">{html.escape(section.group)}</div>')
        parts.append(f"<h2>{html.escape(section.heading)}</h2>")
        if section.text:
            parts.append(f"<p>{html.escape(section.text)}</p>")
        parts += [f'<img alt="{html.escape(section.heading)}" src="data:image/png;base64,'
                  f'{base64.b64encode(png).decode("ascii")}">' for png in section.images]
        parts += [f'<div class="table">{table}</div>' for table in section.tables]
        cards.append("".join(parts) + "</section>")
    head = f"<h1>{html.escape(title)}</h1>" + (f"<p>{html.escape(subtitle)}</p>" if subtitle else "")
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{html.escape(title)}</title>"
            f"<style>{REPORT_STYLE}</style></head><body><header>{head}</header><div class='layout'>"
            f"<nav>{''.join(nav)}</nav><main>{''.join(cards)}</main></div></body></html>\n")


def rows_html(columns, rows, caption: str = "") -> str:
    """A table of strings: ``columns`` the header, ``rows`` the cells, ``caption`` its title."""
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows)
    caption = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f"<table>{caption}<tr>{head}</tr>{body}</table>"


def table_html(runs: list[tuple[str, list, dict]], formatter) -> str:
    """The KPI table of one id (policies as columns), cells written by ``formatter(mean, std)``."""
    names = list(dict.fromkeys(name for _, _, kpis in runs for name in kpis))
    head = "".join(f"<th>{html.escape(policy)}</th>" for policy, _, _ in runs)
    rows = "".join(f"<tr><td>{html.escape(name)}</td>" + "".join(
        f"<td>{html.escape(formatter(*kpis[name])) if name in kpis else '-'}</td>" for _, _, kpis in runs) + "</tr>"
        for name in names)
    return f"<table><tr><th>kpi</th>{head}</tr>{rows}</table>"
