"""``envzoo warmup``: compile every installed domain's kernels for this CPU at once, into the
on-disk kernel cache (:mod:`envzoo.core.compiled`), one worker process per CPU.

The warm-up is a short tour (:mod:`envzoo.tools.parallel_runs`): :data:`WARMUP_STEPS` steps of
the first reference policy on every installed id of every domain that has kernels; the kernels
those steps call compile (or load, where cached) as they would in a tour. A kernel that only a
longer episode reaches still compiles when first called, with the one-line notice. A marker file
(:func:`marker_path`) then says that this CPU, numba version, cache folder and these kernel
sources are warm. ``envzoo tour`` writes it too, after its first run, which compiles the same
kernels in its own worker processes.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numba
from llvmlite import binding

from envzoo.core.compiled import PACKAGE_FOLDER, sources_digest
from envzoo.core.disk_cache import user_cache_dir, write_atomically
from envzoo.tools.parallel_runs import Run, kernel_modules, kernel_source_size, play_all

#: Steps of each reference policy a worker plays on each id.
WARMUP_STEPS = 5

#: What a first run says before it compiles, once.
COMPILING_LINE = "envzoo: compiling kernels for this CPU (first run only) ..."


def domains_with_kernels() -> list[str]:
    """The installed ids' domains that have kernels, those with the most kernel source first."""
    import envzoo

    domains = {entry.domain for entry in envzoo.list_envs(installed=True)}
    return sorted((domain for domain in domains if kernel_source_size(domain)), key=kernel_source_size, reverse=True)


def marker_path() -> Path:
    """The file that says the kernels of every installed domain are compiled: its name hashes
    this CPU, numba's version, ``NUMBA_CACHE_DIR`` and the stamps of every kernel module."""
    key = hashlib.sha256()
    for part in (binding.get_host_cpu_name(), binding.get_host_cpu_features().flatten(), numba.__version__,
                 os.environ.get("NUMBA_CACHE_DIR", ""), str(PACKAGE_FOLDER)):
        key.update(part.encode() + b"\0")
    for domain in domains_with_kernels():
        for module in kernel_modules(domain):
            key.update(sources_digest(module).encode())
    return user_cache_dir() / "kernels" / f"warm-{key.hexdigest()[:24]}"


def is_warm() -> bool:
    return marker_path().is_file()


def mark_warm() -> None:
    """Write :func:`marker_path`: every installed domain's kernels are in the cache."""
    with write_atomically(marker_path()) as partial:
        partial.write_text("\n".join(domains_with_kernels()) + "\n")


def warmup_runs() -> list[Run]:
    """:data:`WARMUP_STEPS` steps of the first installed reference policy of every installed id of
    :func:`domains_with_kernels` (other policies, an optimiser's imports, would cost seconds that
    the tour spends again)."""
    import envzoo

    domains = set(domains_with_kernels())
    return [Run(entry.id, ref.name, WARMUP_STEPS) for entry in envzoo.list_envs(installed=True)
            if entry.domain in domains for ref in entry.policies[:1] if ref.installed]


def warm_up(workers: int | None = None, report: Callable[[str], None] | None = None) -> list[str]:
    """Compile the kernels of :func:`domains_with_kernels` in ``workers`` processes (default: the
    CPUs this process may use), calling ``report(line)`` as each domain finishes; then write the
    marker. Returns the domains."""
    import envzoo

    done = []

    def finished(job: list[Run], seconds: float) -> None:
        done.append(envzoo.env_info(job[0].env_id).domain)
        if report:
            report(f"{len(done)}/{len(domains)} {done[-1]}")

    domains = domains_with_kernels()
    play_all(warmup_runs(), episodes=1, seed=0, workers=workers, finished=finished)
    mark_warm()
    return domains


def warm_up_with_progress(workers: int | None = None, stream=None) -> None:
    """:func:`warm_up`, saying on ``stream`` (stderr) what it does and how far it is."""
    stream = stream or sys.stderr
    stream.write(COMPILING_LINE + "\n")
    stream.flush()

    def report(line: str) -> None:
        stream.write(f"envzoo: compiled {line}\n")
        stream.flush()

    warm_up(workers, report)
