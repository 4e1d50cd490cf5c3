"""Rows measured side by side in one run, for the comparisons against peer libraries.

Every row runs ``repeats`` times, the rows taking turns, so that a noisy machine slows them
alike. The table gives each row's minimum and median wall time, the minimum's ratio to a
reference row, an optional rate (a count of work over the minimum time) and the counts each run
reports, which show that the rows did the same work (a row whose counts change from repeat to
repeat is flagged: the same seeds must give the same run).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Run:
    """One timed run of a row: its wall time and the counts of the work it did (None when unread)."""

    wall_s: float
    counts: dict | None = None


class RowSkipped(Exception):
    """The row cannot run here; the message says why."""


def measure(rows: dict[str, Callable[[], Run]], repeats: int) -> tuple[dict[str, list[Run]], dict[str, str]]:
    """Run every row ``repeats`` times, taking turns; the runs of each row and the reasons of the
    rows that raised :class:`RowSkipped` (which are not run again)."""
    runs: dict[str, list[Run]] = {label: [] for label in rows}
    skipped: dict[str, str] = {}
    for _ in range(repeats):
        for label, row in rows.items():
            if label in skipped:
                continue
            try:
                runs[label].append(row())
            except RowSkipped as reason:
                skipped[label] = str(reason)
    return runs, skipped


def table(runs: dict[str, list[Run]], skipped: dict[str, str], reference: str, rate: str | None = None,
          rate_unit: str = "") -> str:
    """The comparison table: one line per row, ratios against the row ``reference``; with
    ``rate`` (a counts key), also that count per second of the row's fastest run."""
    reference_s = min(run.wall_s for run in runs[reference])
    width = max(map(len, runs))
    lines = []
    for label, row_runs in runs.items():
        if label in skipped:
            lines.append(f"{label:>{width}}: skipped, {skipped[label]}")
            continue
        walls = [run.wall_s for run in row_runs]
        line = (f"{label:>{width}}: {min(walls):8.3f} s min {statistics.median(walls):8.3f} s median "
                f"{min(walls) / reference_s:6.2f}x the time of {reference}")
        counts = row_runs[-1].counts
        if rate is not None and counts and rate in counts:
            line += f"  {counts[rate] / min(walls):>12,.0f} {rate_unit or rate + '/s'}"
        if counts is not None:
            line += "  counts: " + ", ".join(f"{key} {value}" for key, value in counts.items())
            if any(run.counts != counts for run in row_runs):
                line += " (NOT the same in every repeat)"
        lines.append(line)
    return "\n".join(lines)
