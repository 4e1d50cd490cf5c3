"""MkDocs hook: the leaderboard page's tables, built from the result files at build time.

``docs/leaderboard.md`` holds the prose; its marker ``<!-- leaderboard-tables -->`` becomes one
table per id with results and, over several entrants or ids, the aggregate tables
(:mod:`envzoo.leaderboard.report`). The result files are read from ``leaderboard/results/``
next to ``mkdocs.yml``; nothing is trained or simulated.
"""

from __future__ import annotations

import sys
from pathlib import Path

MARKER = "<!-- leaderboard-tables -->"
PAGE = "leaderboard.md"


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"docs/{PAGE} lost its marker {MARKER!r}, where the tables go")
    return markdown.replace(MARKER, tables(Path(config.config_file_path).resolve().parent))


def tables(root: Path) -> str:
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from envzoo.leaderboard import report
    from envzoo.leaderboard.results import RESULTS_DIR, collect

    results = collect(root / RESULTS_DIR)
    if not results:
        return "No result files yet."
    ids = sorted({result.env_id for result in results})
    parts = [report.id_table(results, env_id).markdown() for env_id in ids]
    if len(ids) > 1 or len({report.entrant(result) for result in results}) > 1:
        parts += [report.aggregate_table(results).markdown(), report.profile_table(results).markdown()]
        improvement = report.improvement_table(results)
        parts += [improvement.markdown()] if improvement else []
    return "\n".join(parts)
