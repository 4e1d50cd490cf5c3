"""MkDocs hook: the leaderboard page's tables, built from the result files at build time.

``docs/leaderboard.md`` holds the prose; its marker ``<!-- leaderboard-tables -->`` becomes one
table per id with results (and its learning curves) and, over several entrants or ids, the
aggregate tables and plots (:mod:`envzoo.leaderboard.report`, :mod:`envzoo.leaderboard.plots`).
The result files are read from ``leaderboard/results/`` next to ``mkdocs.yml``; nothing is
trained or simulated. The plots are drawn into the built site (``leaderboard/plots/``) when
matplotlib is installed; without it the page has the tables only.
"""

from __future__ import annotations

import sys
from pathlib import Path

MARKER = "<!-- leaderboard-tables -->"
PAGE = "leaderboard.md"


PLOTS = "plots"  # next to the page's index.html in the site


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"docs/{PAGE} lost its marker {MARKER!r}, where the tables go")
    return markdown.replace(MARKER, tables(Path(config.config_file_path).resolve().parent, config))


def tables(root: Path, config) -> str:
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from envzoo.leaderboard import report
    from envzoo.leaderboard.results import RESULTS_DIR, collect

    results = collect(root / RESULTS_DIR)
    if not results:
        return "No result files yet."
    ids = sorted({result.env_id for result in results})
    images = _draw(results, ids, Path(config.site_dir) / PAGE.removesuffix(".md") / PLOTS)
    parts = []
    for env_id in ids:
        parts.append(report.id_table(results, env_id).markdown())
        parts += [_image(images, f"curves-{env_id.split('/', 1)[1]}.png", f"learning curves on {env_id}")]
    if len(ids) > 1 or len({report.entrant(result) for result in results}) > 1:
        parts += ["## Over every id\n", report.aggregate_table(results).markdown(),
                  _image(images, "intervals.png", "aggregate scores with intervals"),
                  report.profile_table(results).markdown(), _image(images, "profiles.png", "performance profiles")]
        improvement = report.improvement_table(results)
        parts += [improvement.markdown()] if improvement else []
    return "\n".join(parts)


def _draw(results, ids, folder: Path) -> set[str]:
    """The plots' file names, drawn into the site; none without matplotlib."""
    try:
        from envzoo.leaderboard.plots import write_all

        return {path.name for path in write_all(results, folder, ids, reps=5_000)}
    except ImportError:
        return set()


def _image(images: set[str], name: str, alt: str) -> str:
    # At the figure's own size (100 px an inch), no wider than the column: a fixed width shrank
    # the wide ones' text.
    return f'<img src="{PLOTS}/{name}" alt="{alt}">\n' if name in images else ""
