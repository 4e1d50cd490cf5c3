"""Caches on disk that several processes may build at once (the travel-time atlas, TextWorld's
generated games, converted order-book streams): a file is written whole under a temporary name
and renamed into place (:func:`write_atomically`), so no process ever reads half of it, and a
costly build runs under a lock (:func:`build_once`), so the second process waits for the first
one's file instead of building it again.

The lock is ``fcntl.flock`` on a hidden ``.NAME.lock`` file beside the cached one (released by
the system if its process dies); where there is no ``fcntl`` (Windows) there is no lock, and two
processes may both build, each renaming a whole file into place.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None


def user_cache_dir() -> Path:
    """envzoo's folder of caches: ``$ENVZOO_CACHE_DIR``, else ``$XDG_CACHE_HOME/envzoo``, else
    ``%LOCALAPPDATA%/envzoo`` (Windows), else ``~/.cache/envzoo``."""
    if os.environ.get("ENVZOO_CACHE_DIR"):
        return Path(os.environ["ENVZOO_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.environ.get("LOCALAPPDATA") or Path.home() / ".cache"
    return Path(base) / "envzoo"


@contextlib.contextmanager
def lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold the lock of ``path`` (the file ``.NAME.lock`` beside it, created if missing) while the
    block runs; another process asking for it waits."""
    lock_file = Path(path).parent / f".{Path(path).name}.lock"
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def write_atomically(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """A temporary path beside ``path`` (ending in ``suffix``, for writers that insist on one) for
    the block to write; renamed to ``path`` when the block ends, deleted if it raises."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".partial{suffix}", dir=path.parent)
    os.close(handle)
    try:
        yield Path(partial)
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)


@contextlib.contextmanager
def folder_atomically(path: str | os.PathLike) -> Iterator[Path]:
    """A new folder beside ``path`` for the block to fill; put in ``path``'s place (replacing
    what is there) when the block ends, deleted if it raises: readers never see half a folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent))
    try:
        yield building
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        building.rename(path)
    finally:
        shutil.rmtree(building, ignore_errors=True)


def build_once(path: str | os.PathLike, is_built: Callable[[], bool], build: Callable[[], None]) -> None:
    """Run ``build()`` unless ``is_built()``, holding the lock of ``path``: of processes that
    find nothing built at once, one builds and the others then find its result."""
    if is_built():
        return
    with lock(path):
        if not is_built():
            build()
