"""Warm sandboxed workers on bubblewrap (``bwrap``, Flatpak's sandbox).

A :class:`Worker` is one ``bwrap`` process running :mod:`.inside`'s supervisor as process 1 of
fresh namespaces (user where the kernel allows, mount, PID, network, IPC, UTS, cgroup), with all
capabilities dropped, an empty environment (``bwrap`` itself is started with none, so not even
its own ``/proc/<pid>/environ`` holds the caller's), a new terminal session, and a view of the
file system made of:

- the interpreter, its standard library (its ``site-packages`` hidden under an empty read-only
  folder) and the shared libraries these link (as ``ldd`` lists them), read-only, at their own
  paths (so a Python under the home folder brings that one path of it, nothing else of it);
- :mod:`.inside`, read-only, at ``/sandbox/inside.py``;
- a minimal ``/dev`` (null, zero, full, random, urandom, tty, an empty ``shm``), read-only, and
  no ``/proc``;
- ``/tmp``: an empty tmpfs of :data:`SCRATCH_BYTES`, the only writable place (the root that
  ``bwrap`` builds the view in is remounted read-only).

No network interface but a loopback of its own. It dies with its parent. The supervisor and
every program load :mod:`.inside`'s seccomp filters. A :class:`Pool` keeps workers warm and
hands them to the callers, one program at a time each.
"""

from __future__ import annotations

import functools
import json
import os
import re
import select
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from envzoo.core.sandbox import inside

#: Size of a worker's writable tmpfs (a program's files; emptied after every program).
SCRATCH_BYTES = 64 * 2**20
#: Seconds a worker may take to answer beyond a program's wall-clock limit before it is killed.
GRACE_SECONDS = 10.0
INSIDE = "/sandbox/inside.py"
_LDD_PATH = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x")


def bwrap() -> str | None:
    """The ``bwrap`` program on PATH, or None."""
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def runtime_view() -> tuple[tuple[str, str], ...]:
    """(host path, sandbox path) of everything the interpreter needs: itself, its standard
    library and the shared libraries they link."""
    interpreter, stdlib = os.path.realpath(sys.executable), _stdlib()
    dynload = Path(sysconfig.get_path("platstdlib", vars={"platbase": sys.base_prefix,
                                                             "installed_platbase": sys.base_prefix})) / "lib-dynload"
    binaries = [interpreter] + [str(path) for path in sorted(dynload.glob("*.so"))]
    listing = subprocess.run(["ldd", *binaries], capture_output=True, text=True, env={"LANG": "C"}).stdout
    libraries = sorted({match.group(1) for match in map(_LDD_PATH.search, listing.splitlines()) if match})
    view = [(interpreter, interpreter), (stdlib, stdlib)]
    if not str(dynload).startswith(stdlib + os.sep) and dynload.is_dir():
        view.append((str(dynload), str(dynload)))
    view += [(os.path.realpath(library), library) for library in libraries]
    return tuple(view)


def _stdlib() -> str:
    """The standard library's folder (the base interpreter's, also in a virtual environment)."""
    return sysconfig.get_path("stdlib", vars={"installed_base": sys.base_prefix, "base": sys.base_prefix})


def command() -> list[str]:
    """The ``bwrap`` command line of a worker."""
    interpreter = os.path.realpath(sys.executable)
    arguments = [bwrap(), "--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1", "--cap-drop", "ALL",
                 "--clearenv", "--setenv", "LANG", "C.UTF-8", "--hostname", "sandbox"]
    for source, target in runtime_view():
        arguments += ["--ro-bind", source, target]
    site_packages = sysconfig.get_path("purelib", vars={"base": sys.base_prefix})
    if os.path.isdir(site_packages) and site_packages.startswith(_stdlib() + os.sep):  # hidden, not bound
        arguments += ["--tmpfs", site_packages, "--remount-ro", site_packages]
    arguments += ["--ro-bind", inside.__file__, INSIDE, "--dev", "/dev",
                  "--size", str(SCRATCH_BYTES), "--tmpfs", inside.SCRATCH, "--chdir", inside.SCRATCH,
                  "--remount-ro", "/dev", "--remount-ro", "/",  # bwrap's own root and /dev: read-only too
                  interpreter, "-I", "-S", INSIDE, "supervise"]
    return arguments


class WorkerFailed(RuntimeError):
    """A worker that did not answer as it should (it is killed; the caller starts another)."""


class Worker:
    """One warm sandbox: :meth:`run` sends it a request and returns its answer."""

    def __init__(self):
        self.errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen(command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.errors, env={})

    def run(self, request: dict) -> tuple[bytes, bool, int, bytes]:
        """(status, whether the worker still serves, exit code, output) of one program;
        :class:`WorkerFailed` if the worker breaks the protocol, dies or overruns the wall-clock
        limit by :data:`GRACE_SECONDS`."""
        payload = json.dumps(request).encode()
        limits = request["limits"]
        deadline = time.monotonic() + limits["wall_seconds"] + GRACE_SECONDS
        try:
            self.process.stdin.write(len(payload).to_bytes(4, "big") + payload)
            self.process.stdin.flush()
            status, serving, code, length = inside.HEADER.unpack(self._read(inside.HEADER.size, deadline))
            known = (inside.EXITED, inside.TIMED_OUT, inside.TOO_LARGE, inside.ENDED_WORKER)
            if status not in known or length > limits["output_bytes"]:
                raise WorkerFailed(f"the sandbox answered a malformed header {status!r} {length}")
            return status, serving, code, self._read(length, deadline)
        except (OSError, ValueError) as error:
            raise WorkerFailed(f"the sandbox broke off: {error}; {self.stderr()}") from error

    def _read(self, size: int, deadline: float) -> bytes:
        data, descriptor = bytearray(), self.process.stdout.fileno()
        while len(data) < size:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([descriptor], [], [], left)[0]:
                raise WorkerFailed("the sandbox did not answer in time")
            chunk = os.read(descriptor, size - len(data))
            if not chunk:
                raise WorkerFailed(f"the sandbox ended ({self.stderr()})")
            data += chunk
        return bytes(data)

    def stderr(self) -> str:
        """The last line ``bwrap`` or the supervisor wrote on their standard error (why a start failed)."""
        self.errors.seek(0)
        lines = self.errors.read()[-2000:].decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no message"

    def close(self) -> None:
        """End the worker: its supervisor stops when its input closes; one that does not within a
        second is killed (``bwrap`` takes its namespace, every process in it, along)."""
        try:
            self.process.stdin.close()
            self.process.wait(timeout=1.0)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        self.errors.close()


class Pool:
    """Warm workers, up to ``size`` at once; :meth:`run` borrows one per program (from any
    thread) and a worker that failed is replaced. The pool belongs to the process that made it:
    a forked child makes its own."""

    def __init__(self, size: int):
        self.size, self.owner = size, os.getpid()
        self.idle: list[Worker] = []
        self.started = 0
        self.lock = threading.Condition()
        # bwrap --die-with-parent ends a worker when the *thread* that started it ends: workers
        # are started by this one thread, which lives as long as the pool, whatever thread asks.
        self.spawner = ThreadPoolExecutor(1, thread_name_prefix="envzoo-sandbox")

    def run(self, request: dict) -> tuple[bytes, bool, int, bytes]:
        """:meth:`Worker.run` on a warm worker."""
        worker = self._borrow()
        try:
            answer = worker.run(request)
        except BaseException:
            self._discard(worker)
            raise
        if not answer[1]:  # a program ended the worker's zygote
            self._discard(worker)
            return answer
        with self.lock:
            self.idle.append(worker)
            self.lock.notify()
        return answer

    def _borrow(self) -> Worker:
        with self.lock:
            while not self.idle and self.started >= self.size:
                self.lock.wait()
            if self.idle:
                return self.idle.pop()
            self.started += 1
        try:
            return self.spawner.submit(Worker).result()
        except BaseException:
            with self.lock:
                self.started -= 1
                self.lock.notify()
            raise

    def _discard(self, worker: Worker) -> None:
        worker.close()
        with self.lock:
            self.started -= 1
            self.lock.notify()

    def close(self) -> None:
        """Kill the idle workers (busy ones are killed when their caller is done)."""
        with self.lock:
            idle, self.idle = self.idle, []
            self.started -= len(idle)
        for worker in idle:
            worker.close()
        self.spawner.shutdown()
