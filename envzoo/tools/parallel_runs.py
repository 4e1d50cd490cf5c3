"""Reference policies' episodes on many ids, spread over worker processes (``envzoo tour``,
``envzoo warmup``).

A run makes its own env and policy and seeds both, so the process it runs in does not change its
result. What the runs in one process share is what takes time on a new machine: the compiled
kernels (compiled or loaded on first use) and the data a domain builds once per process (the
synthetic order book's features, a policy fitted at construction). So a job is one domain's runs,
one after another in one process, and the jobs go to the worker processes longest first
(:data:`JOB_SECONDS`): while the longest compile, the other workers get through the rest, and the
last jobs to start are short, so the workers end together.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from contextlib import contextmanager
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from envzoo.core.compiled import PACKAGE_FOLDER, dependency_files, silence_compiling_notice, worker_threads
from envzoo.tools.rollout import EpisodeResult, evaluate_policy


@contextmanager
def _without_huge_pages():
    """Workers started inside see ``NUMPY_MADVISE_HUGEPAGE=0`` (unless the user set it): numpy
    asks Linux for huge pages for large arrays, and where the kernel compacts memory to find them
    (``transparent_hugepage/defrag`` = madvise, the common setting) a short-lived worker pays more
    system time than the pages save (1.5 of 2.3 CPU seconds in building the synthetic order
    book's features)."""
    saved = os.environ.get(_HUGE_PAGES)
    os.environ.setdefault(_HUGE_PAGES, "0")
    try:
        yield
    finally:
        if saved is None:
            del os.environ[_HUGE_PAGES]


_HUGE_PAGES = "NUMPY_MADVISE_HUGEPAGE"


@dataclass(frozen=True)
class Run:
    """Reference policy ``policy`` on ``env_id``, its episodes cut at ``max_steps`` if given."""

    env_id: str
    policy: str
    max_steps: int | None = None


@cache  # asked for by the job order, the warm-up's marker and its domains
def kernel_modules(domain: str) -> tuple[Path, ...]:
    """The modules that define kernels among ``domain``'s package and the envzoo modules it
    imports (``envzoo/finance`` for the finance domains), leaving out ``envzoo/core``'s few small
    kernels, which every domain imports."""
    modules = {file for path in (PACKAGE_FOLDER / domain).rglob("*.py") for file in dependency_files(path)}
    return tuple(sorted(path for path in modules
                        if not path.is_relative_to(PACKAGE_FOLDER / "core") and "@kernel" in path.read_text()))


def kernel_source_size(domain: str) -> int:
    """Bytes of :func:`kernel_modules`: what compiling ``domain`` costs, roughly."""
    return sum(path.stat().st_size for path in kernel_modules(domain))


#: CPU seconds of each domain's job in a first ``envzoo tour`` (compiling included) on a 2-core
#: x86-64 machine, as ``python benchmarks/first_run.py --job-seconds`` prints them (2026-12-05).
#: They only order the jobs: a domain that is not here is estimated from its kernel source.
JOB_SECONDS = {
    "orbital": 38.9, "marketmaking": 25.0, "powergrid": 19.3, "crafter": 11.7, "promotion": 8.5,
    "serverless": 6.5, "bazaar": 4.4, "trading": 2.2, "rewardmachines": 1.8, "portfolio": 1.7, "routing": 1.3,
    "swarm": 1.1, "scheduling": 0.6, "godot": 0.4, "heavytails": 0.1, "text": 0.0,
}

#: Kernel source compiled per CPU second, about (the estimate for a domain not in JOB_SECONDS).
KERNEL_BYTES_PER_SECOND = 5_000


def estimated_seconds(domain: str) -> float:
    """How long ``domain``'s tour job takes on a new machine: :data:`JOB_SECONDS`, or its kernel
    source's compile time."""
    return JOB_SECONDS.get(domain, kernel_source_size(domain) / KERNEL_BYTES_PER_SECOND)


def jobs_by_domain(runs: list[Run]) -> list[list[Run]]:
    """``runs`` grouped by domain, in their order within a domain; the longest jobs
    (:func:`estimated_seconds`) first."""
    import envzoo

    jobs: dict[str, list[Run]] = {}
    for run in runs:
        jobs.setdefault(envzoo.env_info(run.env_id).domain, []).append(run)
    return [jobs[domain] for domain in sorted(jobs, key=estimated_seconds, reverse=True)]


def play(job: list[Run], episodes: int, seed: int) -> tuple[list[list[EpisodeResult]], float]:
    """Each run's ``episodes`` episodes (seeds ``seed``, ``seed + 1``, ...), one run after
    another, and the CPU seconds they took."""
    import envzoo

    start = time.process_time()
    results = [evaluate_policy(envzoo.env_info(run.env_id), run.policy, episodes, seed, run.max_steps)
               for run in job]
    return results, time.process_time() - start


def play_all(runs: list[Run], episodes: int, seed: int, workers: int | None = None,
             finished: Callable[[list[Run], float], None] | None = None) -> dict[Run, list[EpisodeResult]]:
    """Every run's results: :func:`play` of each of :func:`jobs_by_domain` in ``workers``
    processes (default :func:`~envzoo.core.compiled.worker_threads`, the CPUs this process may
    use), or in this process where that is one; ``finished(job, cpu_seconds)`` is called as each
    job ends."""
    jobs = jobs_by_domain(runs)
    workers = min(workers or worker_threads(), len(jobs))
    results: dict[Run, list[EpisodeResult]] = {}
    if workers <= 1:
        for job in jobs:
            played, seconds = play(job, episodes, seed)
            results.update(zip(job, played))
            if finished:
                finished(job, seconds)
        return results
    # spawn, not fork: a forked worker would inherit this process's threads and numba state.
    # The workers compile quietly: this process says what is going on.
    with _without_huge_pages(), ProcessPoolExecutor(max_workers=workers, initializer=silence_compiling_notice,
                                                    mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(play, job, episodes, seed): job for job in jobs}
        try:
            for future in as_completed(futures):
                played, seconds = future.result()
                results.update(zip(futures[future], played))
                if finished:
                    finished(futures[future], seconds)
        except BaseException:  # a failed run (or Ctrl-C) ends the tour now, not after the other jobs
            pool.shutdown(cancel_futures=True)
            raise
    return results
