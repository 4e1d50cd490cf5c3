"""The one way envzoo compiles a CPU kernel: numba's nopython mode, cached on disk; the one way a
batched kernel spreads its rows over the CPUs (:func:`over_row_ranges`); and numpy's order of
summation for kernels (:func:`numpy_sum`, :func:`pairwise_sum` where a kernel allocates nothing,
:func:`einsum_dot`), so that a kernel computes what the array code it replaced computed to the last bit.

A kernel is a plain Python function over numpy arrays and numbers, decorated with
:func:`kernel`. The first call in a process compiles it for its argument types, or loads the
machine code that an earlier process cached (next to the module, numba's user-wide cache
directory where the package folder is read-only, or ``NUMBA_CACHE_DIR`` where set), so only the
very first run on a machine pays the compilation; it says so once on stderr
(:data:`COMPILING_NOTICE`). ``error_model="numpy"`` keeps numpy's float semantics (x / 0 is ±inf
or nan, not an exception), so a kernel computes what the array code it replaces computed.

Numba checks a cached kernel against its own source file only, but a kernel inlines the kernels
it calls from other modules and the constants it reads from them. A kernel's cache is therefore
stamped with :func:`sources_digest`: a hash of its module's source and of every envzoo module
that module imports, directly or through others, so that editing any of them compiles the
kernel again (numba writes its cache files whole and renames them into place, so processes that
compile the same kernel at once leave a valid cache).
"""

from __future__ import annotations

import ast
import hashlib
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import numba
import numpy as np
from numba.core import caching
from numba.core import event as numba_event

#: The folder of the ``envzoo`` package: the modules whose sources stamp a kernel's cache.
PACKAGE_FOLDER = Path(__file__).resolve().parents[1]


@cache
def _module_file(name: str) -> Path | None:
    """The source file of envzoo module ``name`` (``envzoo.core.rng``), None if there is none."""
    parts = name.split(".")
    if parts[0] != "envzoo":
        return None
    base = PACKAGE_FOLDER.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def _imported_files(path: Path) -> tuple[Path, ...]:
    """The envzoo source files that the module at ``path`` imports (anywhere in it, so also an
    import inside a function)."""
    names = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from envzoo.core import compiled`` imports a module, ``from envzoo.core.rng import x`` a name
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return tuple(dict.fromkeys(file for file in map(_module_file, names) if file is not None))


def dependency_files(path: str | os.PathLike) -> list[Path]:
    """The module at ``path`` and every envzoo module it imports, directly or through others."""
    seen, waiting = [], [Path(path).resolve()]
    while waiting:
        file = waiting.pop()
        if file not in seen:
            seen.append(file)
            waiting += [other for other in _imported_files(file) if other not in seen]
    return sorted(seen)


def sources_digest(path: str | os.PathLike) -> str:
    """A hash of the sources of :func:`dependency_files` of the module at ``path``: the stamp of
    the cached kernels of that module."""
    digest = hashlib.sha256()
    for file in dependency_files(path):
        name = file.relative_to(PACKAGE_FOLDER).as_posix() if file.is_relative_to(PACKAGE_FOLDER) else file.name
        status = file.stat()
        digest.update(name.encode() + b"\0" + _file_digest(file, status.st_mtime_ns, status.st_size))
    return digest.hexdigest()


@cache
def _file_digest(file: Path, mtime_ns: int, size: int) -> bytes:
    """The hash of a file's bytes, read again only when its time or size changes (each module's
    kernels ask for the same few files)."""
    return hashlib.sha256(file.read_bytes()).digest()


class _StampedByDependencies:
    """A numba cache locator whose stamp is :func:`sources_digest` instead of the hash of the
    kernel's own file: a cache whose stamp differs is ignored and overwritten."""

    def get_source_stamp(self):
        return sources_digest(self._py_file)


class _KernelCacheImpl(caching.CompileResultCacheImpl):
    # numba's own places, in numba's order of preference, each with the dependencies' stamp
    _locator_classes = [type(f"Stamped{locator.__name__}", (_StampedByDependencies, locator), {})
                        for locator in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
                                        caching.UserWideCacheLocator)]


class KernelCache(caching.FunctionCache):
    """numba's on-disk cache of a function's machine code, stamped with :func:`sources_digest`."""

    _impl_class = _KernelCacheImpl


class _KernelCacheOnFirstUse:
    """A :class:`KernelCache` made when the kernel is first compiled or loaded, not when its
    module is imported (its stamp reads the sources of every module the kernel's imports)."""

    def __init__(self, function):
        self._function, self._cache = function, None

    def __getattr__(self, name):
        if self._cache is None:
            self._cache = KernelCache(self._function)
        return getattr(self._cache, name)


#: What a process prints on stderr when it first compiles a kernel (a cached one loads silently).
COMPILING_NOTICE = ("envzoo: compiling kernels for this CPU (first run only; later runs load them from the cache, "
                    "`envzoo warmup` compiles them all at once)")


class _CompilingNotice(numba_event.Listener):
    """Prints :data:`COMPILING_NOTICE` once, when the first envzoo kernel misses the cache."""

    def __init__(self):
        self.shown = False

    def on_start(self, event):
        dispatcher = event.data["dispatcher"]
        module = getattr(dispatcher.py_func, "__module__", "") or ""
        if not self.shown and module.split(".")[0] == "envzoo":
            self.shown = True
            print(COMPILING_NOTICE, file=sys.stderr, flush=True)

    def on_end(self, event):
        pass


_notice = _CompilingNotice()
numba_event.register("numba:compile", _notice)


def silence_compiling_notice() -> None:
    """Print no :data:`COMPILING_NOTICE` in this process (a worker of ``envzoo warmup``, whose
    parent reports the progress)."""
    _notice.shown = True


def kernel(function=None, *, inline: bool = False, allocates: bool = True):
    """``function`` compiled with numba (nopython, numpy's float error model), cached on disk
    by :class:`KernelCache`.

    Numba counts the references of every array a compiled function takes, hands on or takes out
    of a tuple; in an inner loop that costs more than the arithmetic (four times as much in the
    limit-order-book replay). Two options avoid it: ``@kernel(inline=True)`` inlines a small
    helper into the kernels that call it (numba's ``inline="always"``: no call, whose arrays
    would be counted), and ``@kernel(allocates=False)`` compiles a hot kernel that creates no
    array without numba's runtime, so without counts (creating an array there fails to compile).
    """
    options = dict(nogil=True, error_model="numpy", inline="always" if inline else "never")
    if not allocates:
        options["_nrt"] = False

    def compile_cached(function):
        dispatcher = numba.njit(**options)(function)
        dispatcher._cache = _KernelCacheOnFirstUse(function)  # numba's cache=True, with our stamp
        return dispatcher

    return compile_cached if function is None else compile_cached(function)


def worker_threads() -> int:
    """How many threads :func:`over_row_ranges` uses: the environment variable
    ``ENVZOO_THREADS`` if set, else the CPUs this process may run on."""
    setting = os.environ.get("ENVZOO_THREADS")
    if setting is None:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if not setting.isdigit() or int(setting) < 1:
        raise ValueError(f"ENVZOO_THREADS must be a whole number >= 1, got {setting!r}")
    return int(setting)


_pool: ThreadPoolExecutor | None = None


def _forget_pool() -> None:
    global _pool
    _pool = None  # a forked child has none of its parent's threads


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def over_row_ranges(run, n_rows: int, min_rows: int) -> None:
    """Call ``run(start, stop)`` on consecutive ranges that cover ``range(n_rows)``, at the same
    time on up to :func:`worker_threads` threads, each range at least ``min_rows`` long (the
    rows worth a thread's start-up). ``run`` calls a kernel over those rows: kernels release the
    GIL, and rows are independent (each has its own random stream), so the result is the same
    whatever the split. This thread takes the first range."""
    global _pool
    chunks = min(worker_threads(), n_rows // max(min_rows, 1))
    if chunks <= 1:
        run(0, n_rows)
        return
    if _pool is None or _pool._max_workers < chunks - 1:
        _pool = ThreadPoolExecutor(max_workers=chunks - 1, thread_name_prefix="envzoo-rows")
    bounds = [n_rows * i // chunks for i in range(chunks + 1)]
    others = [_pool.submit(run, start, stop) for start, stop in zip(bounds[1:-1], bounds[2:])]
    try:
        run(bounds[0], bounds[1])
    finally:
        for future in others:
            future.result()


@kernel(allocates=False)
def _block_sum(values, start, count):
    """numpy's sum of at most 128 values: eight partial sums, then the rest one by one."""
    if count < 8:
        total = 0.0
        for i in range(start, start + count):
            total += values[i]
        return total
    p0, p1, p2, p3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    p4, p5, p6, p7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = start + 8
    whole = start + count - count % 8
    while i < whole:
        p0 += values[i]
        p1 += values[i + 1]
        p2 += values[i + 2]
        p3 += values[i + 3]
        p4 += values[i + 4]
        p5 += values[i + 5]
        p6 += values[i + 6]
        p7 += values[i + 7]
        i += 8
    total = ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))
    for j in range(i, start + count):
        total += values[j]
    return total


@kernel
def numpy_sum(values, start, count):
    """``values[start:start + count].sum()`` in numpy's order of additions, so that a kernel's
    total equals the array code's bit for bit (:func:`pairwise_sum`, with a workspace of its own
    where the range is longer than one block)."""
    if count <= 128:
        return _block_sum(values, start, count)
    return pairwise_sum(values, start, count, np.empty(_SUM_WORKSPACE))


_SUM_WORKSPACE = (4, 64)  # the stack of pairwise_sum: 64 levels of halving cover any length


def sum_workspace() -> np.ndarray:
    """The workspace of :func:`pairwise_sum`."""
    return np.empty(_SUM_WORKSPACE)


@kernel(allocates=False)
def pairwise_sum(values, start, count, workspace):
    """:func:`numpy_sum` for kernels that allocate nothing, with its stack in ``workspace``
    (:func:`sum_workspace`): blocks of up to 128 values summed by :func:`_block_sum`, longer
    ranges split in two (the first part a multiple of eight long) and the two sums added. The
    split is numpy's recursion, unrolled onto a stack (numba cannot cache a recursive function)."""
    if count <= 128:
        return _block_sum(values, start, count)
    # Each stack entry is a range being summed: its start, length, and the sum of its first
    # part once that is known (left_done, 0 or 1).
    starts, lengths, left_sums, left_done = workspace[0], workspace[1], workspace[2], workspace[3]
    top = 0
    starts[0], lengths[0], left_done[0] = start, count, 0.0
    while True:
        # Descend into first parts until a block is small enough.
        while lengths[top] > 128:
            half = np.int64(lengths[top]) // 2
            half -= half % 8
            starts[top + 1], lengths[top + 1], left_done[top + 1] = starts[top], half, 0.0
            top += 1
        total = _block_sum(values, np.int64(starts[top]), np.int64(lengths[top]))
        # Hand the sum up: a parent waiting for its second part finishes; one that had only
        # its first part now sums its second.
        while True:
            if top == 0:
                return total
            top -= 1
            if left_done[top] > 0:
                total = left_sums[top] + total
                continue
            half = np.int64(lengths[top]) // 2
            half -= half % 8
            left_sums[top], left_done[top] = total, 1.0
            starts[top + 1], lengths[top + 1], left_done[top + 1] = starts[top] + half, lengths[top] - half, 0.0
            top += 1
            break


@kernel
def einsum_dot(a, b):
    """``np.einsum("i,i->", a, b)`` (and every contraction of einsum over a last axis that is
    contiguous in both operands: ``"nij,nj->ni"``, ``"...i,...i->..."``) in numpy's order:
    einsum adds the products into two SIMD lanes, the even and the odd indices, eight products
    at a time from the last pair down, then pair by pair, and adds the lanes at the end. For
    three products that is (a0 b0 + a2 b2) + a1 b1. (numpy 2 on x86-64, whose einsum loops use
    the baseline two-lane registers without fused multiply-add.) ``a`` and ``b``: 1-D arrays, or
    tuples of numbers (a kernel's 3-vectors)."""
    n = len(a)
    even = 0.0
    odd = 0.0
    k = 0
    while n - k >= 8:
        for pair in range(3, -1, -1):
            even += a[k + 2 * pair] * b[k + 2 * pair]
            odd += a[k + 2 * pair + 1] * b[k + 2 * pair + 1]
        k += 8
    while k + 1 < n:
        even += a[k] * b[k]
        odd += a[k + 1] * b[k + 1]
        k += 2
    if k < n:
        even += a[k] * b[k]
    return even + odd
