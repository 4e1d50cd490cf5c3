"""The ``rgb_array`` frame of the text environments: the transcript so far on a terminal (the
newest lines at the bottom) over a chart of the episode's progress (0-100)."""

from __future__ import annotations

import textwrap

import numpy as np

from envzoo.core.draw import BLACK, GREEN, WHITE, Canvas

SCALE = 2  # 12 px monospaced type: about 7 px per character
LINE = 12  # pixels per line of the terminal
COLUMNS = 72
TERMINAL = (0, 18, 600, 294)
CHART = (4, 314, 596, 398)


class TextPicture:
    """``snapshot`` and ``draw`` for a text task: mixed into the tasks of Household-v0,
    TextWorld-v1, Reasoning-v0 and ToolUse-v0, whose ``render_text`` and ``metrics`` it reads."""

    picture_title = "Text"
    #: The metric the chart shows and the factor that puts it on 0-100; the metric counting turns.
    picture_progress = ("progress", 1.0)
    picture_steps = "steps"

    def snapshot(self, row: int = 0) -> dict:
        metrics = self.metrics()
        name, factor = self.picture_progress
        return {"text": self.render_text(row) or "", "progress": factor * float(metrics[name][row]),
                "steps": float(metrics[self.picture_steps][row])}

    def draw(self, canvas: Canvas, snapshots: list[dict]) -> None:
        now = snapshots[-1]
        canvas.text(8, 2, f"{self.picture_title}   turn {now['steps']:.0f}   progress {now['progress']:.0f}%")
        canvas.rect(TERMINAL, BLACK)
        lines = transcript_lines(snapshot["text"] for snapshot in snapshots)
        rows = (TERMINAL[3] - TERMINAL[1] - 8) // LINE
        for i, line in enumerate(lines[-rows:]):
            canvas.text(TERMINAL[0] + 6, TERMINAL[1] + 4 + i * LINE, line, WHITE if i < rows - 1 else GREEN,
                        SCALE, mono=True)
        canvas.legend(TERMINAL[2] - 4, TERMINAL[1] + 4, [("square", BLACK, "transcript"), ("square", GREEN, "newest line")],
                      columns=2, right=True)
        plot = canvas.chart(CHART, "Progress (%)", 0.0, 100.0, "turn", (0, len(snapshots) - 1))
        canvas.series(plot, np.array([s["progress"] for s in snapshots]), GREEN, 0.0, 100.0)


def transcript_lines(texts) -> list[str]:
    """The texts one after another, wrapped at :data:`COLUMNS` characters, blank lines dropped."""
    lines = []
    for text in texts:
        for paragraph in text.splitlines():
            lines += textwrap.wrap(paragraph, COLUMNS) if paragraph.strip() else []
    return lines
