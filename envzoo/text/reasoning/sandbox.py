"""Runs an untrusted program's function on test inputs in a separate, limited Python process.

The child is ``python -I`` (isolated: no user site-packages, no ``PYTHONPATH``, not the
caller's folder on ``sys.path``) in a fresh temporary folder with an empty environment, in its
own session, under ``setrlimit`` limits on CPU time, address space (memory), written file size,
open files and new processes, and a wall-clock timeout after which its whole process group is
killed. It
receives only the inputs; it writes the function's outputs to a file, and the *caller* compares
them with the expected outputs, so a program cannot claim a pass it did not earn.

Limits of this sandbox: POSIX only (``resource``), no network namespace (the tasks need no
network, but nothing stops a program from opening a socket), and as root a process-count limit
is not enforced (the wall timeout still kills the process group). It keeps honest mistakes and
runaway programs (infinite loops, memory bombs) from hanging or exhausting the machine; it is
not a security boundary against a hostile program.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CPU_SECONDS = 2
WALL_SECONDS = 5.0
MEMORY_BYTES = 512 * 2**20
#: Largest file the program may write (its outputs included).
FILE_BYTES = 2**20
OPEN_FILES = 64

#: The child's program: load the candidate's source, call ``solve`` on every input, write the
#: results (or the exception's name) as JSON. Running out of memory ends the whole run.
HARNESS = """\
import json
try:
    namespace = {"__name__": "solution"}
    exec(compile(open("solution.py").read(), "solution.py", "exec"), namespace)
    if not callable(namespace.get("solve")):
        raise NameError("solve")
    results = []
    for arguments in json.load(open("inputs.json")):
        try:
            results.append({"value": namespace["solve"](*arguments)})
        except MemoryError:
            raise
        except Exception as error:
            results.append({"error": type(error).__name__})
    text = json.dumps(results, default=repr)
except BaseException as error:
    text = json.dumps({"failed": type(error).__name__})
with open("results.json", "w") as out:
    out.write(text)
"""


@dataclass(frozen=True)
class Outcome:
    """What a run gave: ``outputs`` (one JSON value per input, None where it raised) and
    ``errors`` (the names of the exceptions raised), or None with ``failure`` saying why the
    program gave none (time or memory limit, crash, no ``solve``)."""

    outputs: list | None
    errors: tuple[str, ...] = ()
    failure: str = ""


def _limit() -> None:  # runs in the child between fork and exec
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_BYTES, FILE_BYTES))
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # No new processes or threads (the limit counts the user's; as root it is not enforced).
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


def run_solution(source: str, inputs: list[list], wall_seconds: float = WALL_SECONDS) -> Outcome:
    """``solve(*arguments)`` of ``source`` for every ``arguments`` of ``inputs``, in the sandbox."""
    with tempfile.TemporaryDirectory(prefix="envzoo-sandbox-") as folder:
        root = Path(folder)
        (root / "solution.py").write_text(source, encoding="utf-8")
        (root / "inputs.json").write_text(json.dumps(inputs), encoding="utf-8")
        (root / "harness.py").write_text(HARNESS, encoding="utf-8")
        child = subprocess.Popen([sys.executable, "-I", "harness.py"], cwd=root, env={"LANG": "C.UTF-8"},
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 preexec_fn=_limit, start_new_session=True)
        try:
            code = child.wait(timeout=wall_seconds)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            try:  # the child's whole session: any process it started dies with it
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            child.wait()
        if code is None:
            return Outcome(None, failure=f"it ran past the wall-clock limit of {wall_seconds:g} s")
        if code == -signal.SIGXCPU or code == -signal.SIGKILL:
            return Outcome(None, failure=f"it ran past the CPU-time limit of {CPU_SECONDS} s")
        try:
            results = json.loads((root / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Outcome(None, failure=f"it crashed (exit status {code})")
    if isinstance(results, dict):
        return Outcome(None, failure=_failure(results["failed"]))
    errors = tuple(result["error"] for result in results if "error" in result)
    return Outcome([result.get("value") for result in results], errors)


def _failure(name: str) -> str:
    if name == "MemoryError":
        return f"it ran out of memory (limit {MEMORY_BYTES // 2**20} MiB)"
    if name == "NameError":
        return "it defines no function solve"
    return f"it raised {name} before any test ran"
