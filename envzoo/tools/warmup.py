"""``envzoo warmup``: compile every installed domain's kernels for this CPU at once, one worker
process per CPU, into the on-disk kernel cache (:mod:`envzoo.core.compiled`), so that the first
``envzoo tour`` on a machine does not compile them one after another.

A worker plays a few steps of the first reference policy on every installed id of its domain:
the kernels that those steps call compile (or load, where cached) as they would in a tour. A kernel
that only a longer episode reaches still compiles when first called, with the one-line notice.
When every domain is done, a marker file (:func:`marker_path`) says so for this CPU, numba
version, cache folder and these kernel sources, and ``envzoo tour`` skips the warm-up.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import cache
from pathlib import Path

import numba
from llvmlite import binding

from envzoo.core.compiled import (
    PACKAGE_FOLDER,
    dependency_files,
    silence_compiling_notice,
    sources_digest,
    worker_threads,
)
from envzoo.core.disk_cache import user_cache_dir, write_atomically

#: Steps of each reference policy a worker plays on each id.
WARMUP_STEPS = 5


@cache  # asked for by every domain's size, the marker's stamp and the warm-up itself
def kernel_modules(domain: str) -> tuple[Path, ...]:
    """The modules that define kernels among ``domain``'s package and the envzoo modules it
    imports (``envzoo/finance`` for the finance domains), leaving out ``envzoo/core``'s few small
    kernels, which every domain imports."""
    modules = {file for path in (PACKAGE_FOLDER / domain).rglob("*.py") for file in dependency_files(path)}
    return tuple(sorted(path for path in modules
                        if not path.is_relative_to(PACKAGE_FOLDER / "core") and "@kernel" in path.read_text()))


def domains_with_kernels() -> list[str]:
    """The installed ids' domains that have kernels, those with the most kernel source first (they
    take longest to compile, so they start first)."""
    import envzoo

    domains = {entry.domain for entry in envzoo.list_envs(installed=True)}
    sizes = {domain: sum(path.stat().st_size for path in kernel_modules(domain)) for domain in domains}
    return sorted((domain for domain in domains if sizes[domain]), key=lambda domain: -sizes[domain])


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


def warm_up_domain(domain: str) -> str:
    """Play :data:`WARMUP_STEPS` steps of the first reference policy on every installed id of
    ``domain`` (in a worker process); returns the domain."""
    import envzoo
    from envzoo.tools.rollout import run_episode

    silence_compiling_notice()  # the parent reports the progress
    for entry in envzoo.list_envs(domain=domain, installed=True):
        # The env's kernels are what takes long; other policies (an optimiser's imports) would
        # cost this worker seconds that the tour spends again.
        ref = next((ref for ref in entry.policies if ref.installed), None)
        if ref is None:
            continue  # the tour runs nothing on it
        env = envzoo.make(entry.id, **ref.env_kwargs)
        try:
            run_episode(env, envzoo.make_policy(entry.id, ref.name, env), seed=0, max_steps=WARMUP_STEPS)
        finally:
            env.close()
    return domain


def warm_up(workers: int | None = None, report: Callable[[str], None] | None = None) -> list[str]:
    """Compile the kernels of :func:`domains_with_kernels` in ``workers`` processes (default:
    :func:`envzoo.core.compiled.worker_threads`, the CPUs this process may use), calling ``report(line)`` as each domain finishes; then write the
    marker. Returns the domains."""
    domains = domains_with_kernels()
    workers = workers or worker_threads()
    # spawn, not fork: a forked worker would inherit this process's threads and numba state
    with ProcessPoolExecutor(max_workers=max(1, min(workers, len(domains))),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(warm_up_domain, domain) for domain in domains]
        for done, future in enumerate(as_completed(futures), start=1):
            name = future.result()
            if report:
                report(f"{done}/{len(domains)} {name}")
    with write_atomically(marker_path()) as partial:
        partial.write_text("\n".join(domains) + "\n")
    return domains


def warm_up_with_progress(workers: int | None = None, stream=None) -> None:
    """:func:`warm_up`, saying on ``stream`` (stderr) what it does and how far it is."""
    stream = stream or sys.stderr
    stream.write("envzoo: compiling kernels for this CPU (first run only) ...\n")
    stream.flush()

    def report(line: str) -> None:
        stream.write(f"envzoo: compiled {line}\n")
        stream.flush()

    warm_up(workers, report)
