"""Run an untrusted program's function on inputs: :func:`run_solution`, in the sandbox.

Where bubblewrap works, every program runs in a warm sandboxed worker (:mod:`.bubblewrap`).
Where it does not, :func:`run_solution` refuses (:class:`SandboxUnavailableError`, one line
naming the package to install), unless the caller opted out explicitly: the environment variable
``ENVZOO_UNSAFE_NO_SANDBOX=1`` runs programs as before the sandbox existed, a plain ``python -I``
in a temporary folder under resource limits only, which a hostile program escapes at once (it
can read and write the user's files and use the network); it warns (a ``RuntimeWarning``).

In both cases the program gets only its inputs; this process reads at most
:data:`OUTPUT_BYTES` of what it answers, checks its form and returns it as an :class:`Outcome`,
and the caller compares the outputs with the expected ones, which never leave this process.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass

from envzoo.core.errors import EnvzooError
from envzoo.core.sandbox import bubblewrap, inside

CPU_SECONDS = 2
WALL_SECONDS = 5.0
MEMORY_BYTES = 512 * 2**20
#: Largest file the program may write.
FILE_BYTES = 2**20
OPEN_FILES = 64
#: Most bytes of results read back from a program (more is a failure).
OUTPUT_BYTES = 2**20
UNSAFE_VARIABLE = "ENVZOO_UNSAFE_NO_SANDBOX"
_ERROR_NAME_LENGTH = 64


class SandboxUnavailableError(EnvzooError, RuntimeError):
    """No working sandbox for untrusted code, and no explicit opt-out."""


@dataclass(frozen=True)
class Outcome:
    """What a run gave: ``outputs`` (one JSON value per input, None where it raised) and
    ``errors`` (the names of the exceptions raised), or None with ``failure`` saying why the
    program gave none (time or memory limit, crash, no ``solve``)."""

    outputs: list | None
    errors: tuple[str, ...] = ()
    failure: str = ""


def run_solution(source: str, inputs: list[list], wall_seconds: float = WALL_SECONDS,
                 function: str = "solve", pool: bubblewrap.Pool | None = None) -> Outcome:
    """``function(*arguments)`` of ``source`` for every ``arguments`` of ``inputs``, in the
    sandbox: a worker of ``pool`` (default: this process's pool, one worker per CPU at most).
    See the module's docstring for what happens without a sandbox."""
    request = _request(source, function, inputs, wall_seconds)
    if pool is None and unsafe_opt_out():
        status, code, output = _run_unsandboxed(request)
    else:
        try:
            status, _, code, output = (pool or _pool()).run(dict(request, filter=True))
        except bubblewrap.WorkerFailed as error:  # the worker is replaced; the program gets the blame
            return Outcome(None, failure=f"it broke the sandbox ({error})")
    return outcome(status, code, output, len(inputs), function, wall_seconds)


def _request(source: str, function: str, inputs: list, wall_seconds: float) -> dict:
    limits = {"cpu_seconds": CPU_SECONDS, "memory_bytes": MEMORY_BYTES, "file_bytes": FILE_BYTES,
              "open_files": OPEN_FILES, "wall_seconds": wall_seconds, "output_bytes": OUTPUT_BYTES}
    return {"source": source, "function": function, "inputs": inputs, "limits": limits}


def unsafe_opt_out() -> bool:
    """Whether the user opted out of the sandbox (``ENVZOO_UNSAFE_NO_SANDBOX=1``), with a warning."""
    if os.environ.get(UNSAFE_VARIABLE) != "1":
        return False
    warnings.warn(f"{UNSAFE_VARIABLE}=1: untrusted programs run WITHOUT a sandbox; a hostile one can read and "
                  "write your files and use the network", RuntimeWarning, stacklevel=3)
    return True


def sandbox_problem() -> str | None:
    """Why no sandbox works here (one line naming what to install), or None when it does."""
    with _lock:
        if "problem" not in _state:
            _state["problem"] = _probe()
        return _state["problem"]


def require_sandbox() -> None:
    """Raise :class:`SandboxUnavailableError` unless a sandbox works or the user opted out."""
    if not unsafe_opt_out() and sandbox_problem() is not None:
        raise SandboxUnavailableError(sandbox_problem())


def _probe() -> str | None:
    opt_out = f"or set {UNSAFE_VARIABLE}=1 to run them unsandboxed at your own risk"
    if sys.platform != "linux":
        return (f"untrusted programs run only in a Linux sandbox (bubblewrap), not on {sys.platform}: run them in "
                f"a Linux VM (docs: Security), {opt_out}")
    if bubblewrap.bwrap() is None:
        return ("untrusted programs run only in a sandbox and bubblewrap's bwrap is not on PATH: install bubblewrap "
                f"(Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), {opt_out}")
    worker = None
    try:
        worker = bubblewrap.Worker()
        answer = worker.run(dict(_request("def solve():\n    return 1\n", "solve", [[]], WALL_SECONDS), filter=True))
        problem = None if answer == (inside.EXITED, True, 0, b'[{"value": 1}]') else f"it answered {answer!r}"
    except (OSError, bubblewrap.WorkerFailed) as error:
        problem = str(error)
    finally:
        if worker is not None:
            worker.close()
    if problem is not None:
        return (f"the bubblewrap sandbox does not work here ({problem}): it needs user namespaces and seccomp "
                f"(docs: Security, What to install), {opt_out}")
    return None


_lock = threading.Lock()
_state: dict = {}


def _pool() -> bubblewrap.Pool:
    """This process's pool of warm workers (one per CPU at most), made on first use."""
    require_sandbox()
    with _lock:
        pool = _state.get("pool")
        if pool is None or pool.owner != os.getpid():  # a forked child does not share its parent's pipes
            pool = _state["pool"] = bubblewrap.Pool(os.cpu_count() or 1)
            atexit.register(pool.close)
        return pool


def _run_unsandboxed(request: dict) -> tuple[bytes, int, bytes]:
    with tempfile.TemporaryDirectory(prefix="envzoo-unsandboxed-") as folder:
        return inside.run_once([sys.executable, "-I", inside.__file__, "program"], folder,
                               json.dumps(dict(request, filter=False)).encode(), request["limits"]["wall_seconds"],
                               OUTPUT_BYTES)


def outcome(status: bytes, code: int, output: bytes, count: int, function: str, wall_seconds: float) -> Outcome:
    """The :class:`Outcome` of a run's answer, checked here: the harness ran beside the
    program, so its answer is as untrusted as the program."""
    if status == inside.TIMED_OUT:
        return Outcome(None, failure=f"it ran past the wall-clock limit of {wall_seconds:g} s")
    if status == inside.TOO_LARGE:
        return Outcome(None, failure=f"its results passed the limit of {OUTPUT_BYTES // 2**20} MiB")
    if status == inside.ENDED_WORKER:
        return Outcome(None, failure="it killed the sandbox's process that started it")
    if code == -signal.SIGXCPU:
        return Outcome(None, failure=f"it ran past the CPU-time limit of {CPU_SECONDS} s")
    if code == -signal.SIGKILL:
        return Outcome(None, failure=f"it was killed (SIGKILL): it ignored the CPU-time limit of {CPU_SECONDS} s "
                                     "or the machine ran out of memory")
    crashed = Outcome(None, failure=f"it crashed (exit status {code})")
    try:
        results = json.loads(output.decode("utf-8"))
    except ValueError:
        return crashed
    if isinstance(results, dict) and set(results) == {"failed"} and _is_error_name(results["failed"]):
        return Outcome(None, failure=_failure(results["failed"], function))
    if not isinstance(results, list) or len(results) != count or not all(map(_is_result, results)):
        return crashed
    errors = tuple(result["error"] for result in results if "error" in result)
    return Outcome([result.get("value") for result in results], errors)


def _is_result(result) -> bool:
    return isinstance(result, dict) and (set(result) == {"value"} or
                                         (set(result) == {"error"} and _is_error_name(result["error"])))


def _is_error_name(name) -> bool:
    return isinstance(name, str) and name.isidentifier() and len(name) <= _ERROR_NAME_LENGTH


def _failure(name: str, function: str) -> str:
    if name == "MemoryError":
        return f"it ran out of memory (limit {MEMORY_BYTES // 2**20} MiB)"
    if name == "NameError":
        return f"it defines no function {function}"
    return f"it raised {name} before any test ran"
