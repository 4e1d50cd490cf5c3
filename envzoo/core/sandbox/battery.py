"""Hostile programs against the sandbox: each attempts one escape or abuse, and its check says
how it must fail. ``envzoo sandbox check`` runs them on a user's machine (:func:`run_battery`);
tests/core/test_sandbox.py runs them in CI.

The attempts run one after another in one warm worker, so the last ones also check that
nothing an earlier program left (files, processes) is seen by a later one. The host side of some
attempts is real: a file with a secret token in a folder of this machine, the token in this
process's environment (as ``OPENAI_API_KEY`` and ``HF_TOKEN``), a TCP server on this machine's
loopback; the checks look at the host after the attempt too.
"""

from __future__ import annotations

import os
import secrets
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from envzoo.core.sandbox import bubblewrap
from envzoo.core.sandbox.runner import Outcome, SandboxUnavailableError, run_solution, sandbox_problem

#: Prepended to every program: ``attempt(action)`` is ``["done", result]`` or
#: ``[exception name, errno]``.
PRELUDE = """\
import os
def attempt(action):
    try:
        return ["done", action()]
    except BaseException as error:
        return [type(error).__name__, getattr(error, "errno", None)]
"""
EPERM, ENOENT, EINVAL, EROFS, ENOSPC = 1, 2, 22, 30, 28
SECRET_VARIABLES = ("OPENAI_API_KEY", "HF_TOKEN")


class Host:
    """The host side of the battery: a secret token, a file and environment variables holding
    it, a loopback TCP server; made on entry, removed on exit."""

    def __enter__(self) -> Host:
        self.token = "envzoo-canary-" + secrets.token_hex(8)
        self.folder = Path(tempfile.mkdtemp(prefix="envzoo-battery-"))
        self.secret_file = self.folder / "secret.txt"
        self.secret_file.write_text(self.token)
        self.saved = {name: os.environ.get(name) for name in SECRET_VARIABLES}
        os.environ.update({name: self.token for name in SECRET_VARIABLES})
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.setblocking(False)
        self.port = self.server.getsockname()[1]
        self.home = str(Path.home())
        self.checkout = str(Path(__file__).resolve().parents[3])  # the folder holding the envzoo package
        return self

    def __exit__(self, *_):
        self.server.close()
        for name, value in self.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        for path in self.folder.iterdir():
            path.unlink()
        self.folder.rmdir()

    def fill(self, source: str) -> str:
        return (source.replace("HOME", repr(self.home)).replace("CHECKOUT", repr(self.checkout))
                .replace("SECRET_FILE", repr(str(self.secret_file))).replace("SECRET_FOLDER", repr(str(self.folder)))
                .replace("PORT", str(self.port)))

    def connected(self) -> bool:
        """Whether anything connected to the loopback server."""
        try:
            self.server.accept()[0].close()
            return True
        except BlockingIOError:
            return False

    def only_runtime_in(self, folder: str, listing) -> bool:
        """Whether ``listing`` of ``folder`` in the sandbox shows nothing of the host's ``folder``
        but the way to the Python runtime (a Python installed under the home folder is bound at
        its own path)."""
        prefix = folder.rstrip("/") + "/"
        allowed = {target[len(prefix):].split("/")[0] for _, target in bubblewrap.runtime_view()
                   if target.startswith(prefix)}
        try:
            host = set(os.listdir(folder))
        except OSError:
            host = set()
        return isinstance(listing, list) and not (set(listing) & host) - allowed


@dataclass(frozen=True)
class Attempt:
    name: str
    tries: str  # what the program attempts
    expected: str  # how it must fail, in words
    source: str  # a program defining solve() (after PRELUDE; HOME, PORT... filled in by Host.fill)
    contained: Callable[[Outcome, Host], bool]
    wall_seconds: float = 5.0


def _one(outcome: Outcome):
    return outcome.outputs[0] if outcome.outputs else None


def _missing(outcome: Outcome, host: Host) -> bool:
    return _one(outcome) == ["FileNotFoundError", ENOENT]


def _refused(outcome: Outcome, host: Host) -> bool:
    return _one(outcome) == ["PermissionError", EPERM]


ATTEMPTS = (
    Attempt("read a system file", "open('/etc/passwd')", "no such file: it is not in the sandbox's view",
            "def solve():\n    return attempt(lambda: open('/etc/passwd').read())", _missing),
    Attempt("list the home folder", "os.listdir(home)",
            "no such folder, or none of its entries but the path to the Python runtime",
            "def solve():\n    return attempt(lambda: os.listdir(HOME))",
            lambda o, h: _missing(o, h) or (_one(o)[0] == "done" and h.only_runtime_in(h.home, _one(o)[1]))),
    Attempt("read the project checkout", "open(<checkout>/envzoo/__init__.py)", "no such file",
            "def solve():\n    return attempt(lambda: open(CHECKOUT + '/envzoo/__init__.py').read())", _missing),
    Attempt("read a file of the host", "open(<a temporary file holding a secret>)", "no such file",
            "def solve():\n    return attempt(lambda: open(SECRET_FILE).read())", _missing),
    Attempt("read the caller's API keys", "os.environ, /proc/self/environ, /proc/<parent>/environ, /proc/1/environ",
            "an environment of LANG only and no /proc",
            "def solve():\n    return [dict(os.environ)] + [attempt(lambda p=p: open(p).read()) for p in\n"
            "        ('/proc/self/environ', f'/proc/{os.getppid()}/environ', '/proc/1/environ')]",
            lambda o, h: _one(o) == [{"LANG": "C.UTF-8"}] + [["FileNotFoundError", ENOENT]] * 3
            and h.token not in repr(o)),
    Attempt("write outside the folder", "write '/escape', into the standard library, into a host folder",
            "read-only file system, read-only file system, no such folder; the host folder unchanged",
            "def solve():\n    return [attempt(lambda p=p: open(p, 'w').write('x')) for p in\n"
            "        ('/escape', os.path.dirname(os.__file__) + '/escape.py', SECRET_FOLDER + '/escape')]",
            lambda o, h: _one(o) == [["OSError", EROFS], ["OSError", EROFS], ["FileNotFoundError", ENOENT]]
            and [p.name for p in h.folder.iterdir()] == ["secret.txt"]),
    Attempt("connect to the host's loopback", "a TCP connection to a server on the host's 127.0.0.1",
            "permission denied (no sockets); the server saw no connection",
            "import socket\ndef solve():\n    return attempt(lambda: socket.create_connection(('127.0.0.1', PORT), 1))",
            lambda o, h: _refused(o, h) and not h.connected()),
    Attempt("connect outside", "a TCP connection to 1.1.1.1:53", "permission denied (no sockets, no network)",
            "import socket\ndef solve():\n    return attempt(lambda: socket.create_connection(('1.1.1.1', 53), 1))",
            _refused),
    Attempt("fork bomb", "os.fork() forever", "permission denied at the first fork",
            "def bomb():\n    while True:\n        os.fork()\ndef solve():\n    return attempt(bomb)", _refused),
    Attempt("thread bomb", "start threads forever", "no new thread can start",
            "import threading, time\ndef bomb():\n    while True:\n"
            "        threading.Thread(target=time.sleep, args=(60,)).start()\ndef solve():\n    return attempt(bomb)",
            lambda o, h: _one(o) == ["RuntimeError", None]),
    Attempt("memory bomb", "allocate 16 MiB blocks forever", "out of memory at the address-space limit",
            # bytes(n) maps zeroed pages untouched, so the address-space limit comes before the CPU limit
            "def solve():\n    hog = []\n    while True:\n        hog.append(bytes(2**24))",
            lambda o, h: o.outputs is None and "ran out of memory" in o.failure, wall_seconds=20.0),
    Attempt("fill the disk", "write 512 KiB files until it fails", "no space left, after at most 64 MiB",
            "def solve():\n    count = 0\n    try:\n        while True:\n"
            "            with open(f'fill{count}', 'wb') as out:\n                out.write(bytes(2**19))\n"
            "            count += 1\n    except OSError as error:\n        return [error.errno, count]",
            lambda o, h: _one(o) is not None and _one(o)[0] == ENOSPC
            and _one(o)[1] * 2**19 <= bubblewrap.SCRATCH_BYTES),
    Attempt("infinite loop", "while True: pass", "killed at the CPU-time limit",
            "def solve():\n    while True:\n        pass",
            lambda o, h: o.outputs is None and "CPU-time limit" in o.failure, wall_seconds=20.0),
    Attempt("signal the supervisor", "SIGKILL and SIGTERM to process 1", "ignored: the program carries on",
            "import signal\ndef solve():\n    os.kill(1, signal.SIGKILL)\n    os.kill(1, signal.SIGTERM)\n"
            "    return 'still here'", lambda o, h: o.outputs == ["still here"]),
    Attempt("signal the parent", "SIGKILL to the process that forked it", "a failure; the worker is replaced",
            "import signal\nos.kill(os.getppid(), signal.SIGKILL)\ndef solve():\n    return 0",
            lambda o, h: o.outputs is None and "killed the sandbox's process" in o.failure),
    Attempt("raw syscalls through ctypes", "unshare(CLONE_NEWUSER), ptrace(ATTACH, 1), mount(...)",
            "each -1 with EPERM (the seccomp filter)",
            "import ctypes\ndef solve():\n    libc = ctypes.CDLL(None, use_errno=True)\n    results = []\n"
            "    for call in (lambda: libc.unshare(0x10000000), lambda: libc.ptrace(16, 1, 0, 0),\n"
            "                 lambda: libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)):\n"
            "        ctypes.set_errno(0)\n        results.append([call(), ctypes.get_errno()])\n    return results",
            lambda o, h: _one(o) == [[-1, EPERM]] * 3),
    Attempt("use root's powers", "read its capabilities (capget, the bounding set); chown a file, setuid",
            "no capability at all, even when the caller is root; chown and setuid refused (EINVAL: no other "
            "user exists in its namespace)",
            "import ctypes\ndef solve():\n    libc = ctypes.CDLL(None)\n"
            "    header, sets = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()\n"
            "    return [libc.capget(header, sets), list(sets),\n"
            "            [cap for cap in range(64) if libc.prctl(23, cap, 0, 0, 0) == 1],\n"
            "            attempt(lambda: os.chown('.', 12345, 12345)), attempt(lambda: os.setuid(12345))]",
            lambda o, h: _one(o) == [0, [0] * 6, [], ["OSError", EINVAL], ["OSError", EINVAL]]),
    Attempt("os.system", "os.system('cat /etc/passwd')", "no shell starts (status 127)",
            "def solve():\n    return os.system('cat /etc/passwd')", lambda o, h: o.outputs == [127 << 8]),
    Attempt("subprocess", "subprocess.run(['/bin/sh', '-c', 'id'])", "permission denied",
            "import subprocess\ndef solve():\n    return attempt(lambda: subprocess.run(['/bin/sh', '-c', 'id']))",
            _refused),
    Attempt("symlink out of the folder", "a link to /etc/passwd, then read it", "no such file",
            "def solve():\n    os.symlink('/etc/passwd', 'link')\n    return attempt(lambda: open('link').read())",
            _missing),
    Attempt("huge output", "return 8 MiB", "refused past the 1 MiB output limit",
            "def solve():\n    return 'x' * 2**23", lambda o, h: o.outputs is None and "passed the limit" in o.failure),
    Attempt("forge the results", "write a 'passed' verdict on every open descriptor and exit",
            "a crash: the caller reads values only, never a verdict",
            "for descriptor in range(3, 64):\n    try:\n"
            "        os.write(descriptor, b'[{\"value\": 0, \"passed\": true}]')\n    except OSError:\n        pass\n"
            "os._exit(0)", lambda o, h: o.outputs is None and o.failure.startswith("it crashed")),
    Attempt("tamper with the harness", "replace json.dumps so the harness writes a verdict",
            "a crash: the caller checks the results' form",
            "import json\njson.dumps = lambda *args, **kwargs: '{\"passed\": true}'\ndef solve():\n    return 0",
            lambda o, h: o.outputs is None and o.failure.startswith("it crashed")),
    Attempt("a malformed error name", "raise an exception class with a 5,000-letter name",
            "a crash: error names are checked", "def solve():\n    raise type('E' * 5000, (Exception,), {})()",
            lambda o, h: o.outputs is None and o.failure.startswith("it crashed")),
    Attempt("sleep past the wall limit holding a child", "fork, then sleep 60 s",
            "the fork is refused; killed at the 1 s wall clock",
            "import time\ndef solve():\n    attempt(os.fork)\n    time.sleep(60)",
            lambda o, h: o.outputs is None and "wall-clock limit of 1 s" in o.failure, wall_seconds=1.0),
    Attempt("leave traces", "files in /tmp and in its folder (one locked with chmod 000)", "(the next attempt)",
            "def solve():\n    open('/tmp/trace', 'w').write('x')\n    os.mkdir('locked')\n"
            "    open('locked/trace', 'w').write('x')\n    os.chmod('locked', 0)\n    return 'left'",
            lambda o, h: o.outputs == ["left"]),
    Attempt("find the traces", "list /tmp and its folder; probe process ids 1-300",
            "an empty folder, no trace, no process but itself and the sandbox's two",
            "def alive(pid):\n    try:\n        os.kill(pid, 0)\n        return True\n    except OSError:\n"
            "        return False\ndef solve():\n    return [os.listdir('/tmp'), os.listdir('.'),\n"
            "            [pid for pid in range(1, 300) if alive(pid) and pid not in (os.getpid(), os.getppid())]]",
            lambda o, h: _one(o) == [["run"], [], [1]]),
)


@dataclass(frozen=True)
class Verdict:
    attempt: Attempt
    contained: bool
    outcome: Outcome
    seconds: float


def run_battery(attempts=None, progress: Callable[[Verdict], None] | None = None) -> list[Verdict]:
    """Run every attempt (default: :data:`ATTEMPTS`) in one fresh warm worker, in order;
    ``progress`` sees each verdict."""
    attempts = ATTEMPTS if attempts is None else attempts
    pool = bubblewrap.Pool(1)
    verdicts = []
    try:
        with Host() as host:
            for attempt in attempts:
                start = time.monotonic()
                outcome = run_solution(PRELUDE + host.fill(attempt.source), [[]], attempt.wall_seconds, pool=pool)
                try:
                    contained = bool(attempt.contained(outcome, host))
                except (TypeError, IndexError):
                    contained = False
                verdicts.append(Verdict(attempt, contained, outcome, time.monotonic() - start))
                if progress is not None:
                    progress(verdicts[-1])
    finally:
        pool.close()
    return verdicts


def check(stream=None) -> int:
    """``envzoo sandbox check``: the battery against this machine's sandbox, one line per
    attempt; 0 if every attempt was contained, else 1. No sandbox at all is a
    :class:`SandboxUnavailableError` (the opt-out does not count: this checks the sandbox)."""
    stream = stream or sys.stdout
    problem = sandbox_problem()
    if problem is not None:
        raise SandboxUnavailableError(problem)
    print(f"{bubblewrap.bwrap()}: {len(ATTEMPTS)} hostile programs, one after another in one warm worker",
          file=stream)

    def show(verdict: Verdict) -> None:
        mark = "contained" if verdict.contained else "ESCAPED  "
        print(f"{mark} {verdict.attempt.name} ({verdict.seconds:.2f} s): {verdict.attempt.tries} -> "
              f"{verdict.attempt.expected}", file=stream)
        if not verdict.contained:
            print(f"          got {verdict.outcome}", file=stream)
        stream.flush()

    verdicts = run_battery(progress=show)
    contained = sum(verdict.contained for verdict in verdicts)
    print(f"{contained} of {len(verdicts)} attempts contained", file=stream)
    return 0 if contained == len(verdicts) else 1
