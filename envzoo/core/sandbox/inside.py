"""The part of the sandbox that runs inside it, standard library only (it is run by the bare
interpreter, with no site-packages and no envzoo on its path).

``python -I -S inside.py supervise`` is a warm worker's supervisor: process 1 of the sandbox's
PID namespace (the kernel delivers it no signal from inside the namespace). It loads the
worker's seccomp filter, forks the zygote (:func:`fork_server`) before it has read anything,
then reads requests (a 4-byte length, then the JSON request) on its standard input. For each it
has the zygote fork a child that runs the request in the empty folder :data:`RUN_FOLDER`, reads
at most ``output_bytes`` of the child's results until the wall-clock limit (then kills it),
empties the scratch folder, and answers a header (:data:`HEADER`) and those bytes on its
standard output. A program can start no process (its seccomp filter), so nothing of it outlives
it but files, which are deleted; a program that kills the zygote ends the worker (the caller
starts a fresh one).

The harness (:func:`_run_request`) reads the request, sets the resource limits (and, in the
sandbox, the program's seccomp filter), loads the program, calls its function on every input and
writes the results (JSON) on a private pipe; the program's own standard streams go to
``/dev/null``. The harness is not trusted to compare anything: the expected outputs never enter
the sandbox, and the caller parses and checks what comes back.

``python -I inside.py program`` (the unsandboxed opt-out, :func:`run_once`) runs the harness in
a new process per program, under the resource limits only.
"""

from __future__ import annotations

import json
import os
import select
import signal
import struct
import sys
import time

#: Where a program runs, on the sandbox's size-limited tmpfs, emptied after every program.
SCRATCH = "/tmp"
RUN_FOLDER = SCRATCH + "/run"
#: An answer: status, whether the worker still serves, exit code, length of the output that follows.
HEADER = struct.Struct("!4s?iI")
EXITED, TIMED_OUT, TOO_LARGE, ENDED_WORKER = b"exit", b"time", b"size", b"kill"

# ------------------------------------------------------------------------------------ seccomp
#: Syscalls no process of a sandbox may make: other processes' memory, mounts and namespaces,
#: the kernel's persistent objects that would outlive a program (System V IPC, POSIX message
#: queues, keys), and kernel interfaces with a record of escapes (BPF, perf, userfaultfd,
#: io_uring, file handles). They fail with EPERM.
WORKER_DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root", "chroot", "unshare",
    "setns", "fsopen", "fsmount", "move_mount", "open_tree", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key", "request_key",
    "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semctl",
    "semtimedop", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon",
    "swapoff", "acct", "syslog", "open_by_handle_at", "name_to_handle_at", "personality", "fanotify_init",
    "quotactl")
#: A program, in addition, may start no process or thread, run no other executable and open no
#: socket (the tasks need none of them).
PROGRAM_DENIED = WORKER_DENIED + ("clone", "clone3", "fork", "vfork", "execve", "execveat", "socket", "socketpair")
#: Syscall numbers (from the kernel's unistd headers) of the architectures the filter supports.
_X86_64 = dict(
    ptrace=101, process_vm_readv=310, process_vm_writev=311, mount=165, umount2=166, pivot_root=155, chroot=161,
    unshare=272, setns=308, fsopen=430, fsmount=432, move_mount=429, open_tree=428, bpf=321, perf_event_open=298,
    userfaultfd=323, io_uring_setup=425, io_uring_enter=426, io_uring_register=427, keyctl=250, add_key=248,
    request_key=249, shmget=29, shmat=30, shmctl=31, shmdt=67, msgget=68, msgsnd=69, msgrcv=70, msgctl=71,
    semget=64, semop=65, semctl=66, semtimedop=220, mq_open=240, mq_unlink=241, mq_timedsend=242,
    mq_timedreceive=243, mq_notify=244, mq_getsetattr=245, kexec_load=246, kexec_file_load=320, init_module=175,
    finit_module=313, delete_module=176, reboot=169, swapon=167, swapoff=168, acct=163, syslog=103,
    open_by_handle_at=304, name_to_handle_at=303, personality=135, fanotify_init=300, quotactl=179, clone=56,
    clone3=435, fork=57, vfork=58, execve=59, execveat=322, socket=41, socketpair=53)
_AARCH64 = dict(
    ptrace=117, process_vm_readv=270, process_vm_writev=271, mount=40, umount2=39, pivot_root=41, chroot=51,
    unshare=97, setns=268, fsopen=430, fsmount=432, move_mount=429, open_tree=428, bpf=280, perf_event_open=241,
    userfaultfd=282, io_uring_setup=425, io_uring_enter=426, io_uring_register=427, keyctl=219, add_key=217,
    request_key=218, shmget=194, shmat=196, shmctl=195, shmdt=197, msgget=186, msgsnd=189, msgrcv=188,
    msgctl=187, semget=190, semop=193, semctl=191, semtimedop=192, mq_open=180, mq_unlink=181, mq_timedsend=182,
    mq_timedreceive=183, mq_notify=184, mq_getsetattr=185, kexec_load=104, kexec_file_load=294, init_module=105,
    finit_module=273, delete_module=106, reboot=142, swapon=224, swapoff=225, acct=89, syslog=116,
    open_by_handle_at=265, name_to_handle_at=264, personality=92, fanotify_init=262, quotactl=60, clone=220,
    clone3=435, execve=221, execveat=281, socket=198, socketpair=199)  # no fork or vfork on aarch64
#: machine -> (AUDIT_ARCH_* of the seccomp data, syscall numbers)
ARCHITECTURES = {"x86_64": (0xC000003E, _X86_64), "aarch64": (0xC00000B7, _AARCH64)}
_X32_BIT = 0x40000000  # x86_64's x32 ABI: the same syscalls under other numbers; all denied


def seccomp_filter(denied: tuple[str, ...], machine: str | None = None) -> bytes | None:
    """The classic-BPF seccomp program that fails ``denied`` with EPERM (and every syscall of
    another ABI: i386 or x32 on x86_64), allowing the rest; None on an unsupported machine."""
    machine = machine or os.uname().machine
    if machine not in ARCHITECTURES:
        return None
    audit_arch, numbers = ARCHITECTURES[machine]
    numbers = sorted({numbers[name] for name in denied if name in numbers})
    load, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    n = len(numbers)
    # ERRNO is the last instruction; a jump's offset counts from the next instruction
    program = [(load, 0, 0, 4),  # the architecture
               (jeq, 0, n + 3, audit_arch),  # another ABI: deny
               (load, 0, 0, 0),  # the syscall number
               (jge, n + 1, 0, _X32_BIT)]
    program += [(jeq, n - i, 0, number) for i, number in enumerate(numbers)]
    program += [(ret, 0, 0, allow), (ret, 0, 0, deny)]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


def install_filter(denied: tuple[str, ...]) -> bool:
    """Load the seccomp filter of ``denied`` on this process and its future children (it cannot
    be removed); False where the machine is not supported."""
    import ctypes

    program = seccomp_filter(denied)
    if program is None:
        return False

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    fprog = SockFprog(len(program) // 8, program)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) or \
            libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0):
        raise OSError(ctypes.get_errno(), "cannot load the seccomp filter")
    return True


# ------------------------------------------------------------------------------------ harness
def _set_limits(limits: dict) -> None:
    import resource

    # The CPU limit's hard value is a second later, so that reaching it sends SIGXCPU and a
    # SIGKILL means something else (the program ignored SIGXCPU, or the machine ran out of memory).
    cpu = limits["cpu_seconds"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    for name, value in (("RLIMIT_AS", limits["memory_bytes"]), ("RLIMIT_FSIZE", limits["file_bytes"]),
                        ("RLIMIT_NOFILE", limits["open_files"]), ("RLIMIT_CORE", 0),
                        ("RLIMIT_NPROC", 0)):  # NPROC: not enforced for root
        resource.setrlimit(getattr(resource, name), (value, value))


def _call_all(source: str, function: str, inputs: list) -> str:
    """The results as JSON: one ``{"value": ...}`` or ``{"error": name}`` per input, or
    ``{"failed": name}`` when the program could not run (running out of memory ends the run)."""
    try:
        namespace = {"__name__": "solution"}
        exec(compile(source, "solution.py", "exec"), namespace)  # noqa: S102 - inside the sandbox
        if not callable(namespace.get(function)):
            raise NameError(function)
        results = []
        for arguments in inputs:
            try:
                results.append({"value": namespace[function](*arguments)})
            except MemoryError:
                raise
            except Exception as error:
                results.append({"error": type(error).__name__})
        return json.dumps(results, default=repr)
    except BaseException as error:
        return json.dumps({"failed": type(error).__name__})


def _run_request(request: bytes, results_descriptor: int) -> None:
    """Run one request; the results go to ``results_descriptor``, the program's own standard
    streams to ``/dev/null``."""
    request = json.loads(request)
    null = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):
        os.dup2(null, stream)
    os.close(null)
    _set_limits(request["limits"])
    if request["filter"]:
        install_filter(PROGRAM_DENIED)
    text = _call_all(request["source"], request["function"], request["inputs"])
    with os.fdopen(results_descriptor, "w", encoding="utf-8") as results:
        results.write(text)


def harness() -> None:
    """``program`` (the unsandboxed runner): one request from standard input, the results on
    the standard output this process was started with."""
    _run_request(sys.stdin.buffer.read(), os.dup(1))


def _read_results(descriptor: int, deadline: float, output_bytes: int) -> tuple[bytes, bytes]:
    """(status, output): read until end of file (EXITED), the deadline (TIMED_OUT) or more than
    ``output_bytes`` (TOO_LARGE)."""
    output = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return TIMED_OUT, bytes(output)
        if not select.select([descriptor], [], [], left)[0]:
            continue
        chunk = os.read(descriptor, 1 << 16)
        if not chunk:
            return EXITED, bytes(output)
        output += chunk
        if len(output) > output_bytes:
            return TOO_LARGE, bytes(output[:output_bytes])


def run_once(command: list[str], folder: str, request: bytes, wall_seconds: float,
             output_bytes: int) -> tuple[bytes, int, bytes]:
    """(status, exit code, output) of ``command`` (the harness, a new process in its own
    session) run in ``folder`` on ``request``; the session is killed at the end."""
    import subprocess

    deadline = time.monotonic() + wall_seconds
    child = subprocess.Popen(command, cwd=folder, env={"LANG": "C.UTF-8"}, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        child.stdin.write(request)
        child.stdin.close()
    except BrokenPipeError:
        pass
    status, output = _read_results(child.stdout.fileno(), deadline, output_bytes)
    code = -signal.SIGKILL
    if status == EXITED:
        try:
            code = child.wait(timeout=max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            status = TIMED_OUT
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    child.wait()
    child.stdout.close()
    return status, code, output


# ------------------------------------------------------------------------------------ warm worker
def fork_server(channel) -> None:
    """The sandbox's zygote: for each pair of pipe ends handed over ``channel`` (a request to
    read, results to write) it forks a child that runs the request in :data:`RUN_FOLDER`, and
    answers the child's process id, then its exit code. It never holds a request, so a child
    inherits nothing of an earlier program; the harness is imported once, here."""
    import socket

    while True:
        try:
            _, descriptors, _, _ = socket.recv_fds(channel, 1, 2)
        except OSError:
            return
        if len(descriptors) != 2:
            return
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                channel.close()
                os.setsid()
                os.chdir(RUN_FOLDER)
                with os.fdopen(descriptors[0], "rb") as stream:
                    request = stream.read()
                _run_request(request, descriptors[1])
                code = 0
            finally:
                os._exit(code)
        for descriptor in descriptors:
            os.close(descriptor)
        channel.sendall(struct.pack("!i", pid))
        channel.sendall(struct.pack("!i", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])))


def _receive_number(channel, deadline: float) -> int | None:
    """A 4-byte number from the zygote, or None if it died or did not answer by ``deadline``."""
    data = b""
    while len(data) < 4:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([channel], [], [], left)[0]:
            return None
        chunk = channel.recv(4 - len(data))
        if not chunk:
            return None
        data += chunk
    return struct.unpack("!i", data)[0]


def _run_forked(channel, request: bytes, limits: dict) -> tuple[bytes, int, bytes, bool]:
    """(status, exit code, output, whether the zygote still serves) of one request."""
    import socket

    deadline = time.monotonic() + limits["wall_seconds"]
    request_out, request_in = os.pipe()
    results_out, results_in = os.pipe()
    socket.send_fds(channel, [b"r"], [request_out, results_in])
    os.close(request_out)
    os.close(results_in)
    pid = _receive_number(channel, deadline + 1.0)
    if pid is None:
        os.close(request_in)
        os.close(results_out)
        return EXITED, -signal.SIGKILL, b"", False
    try:
        with os.fdopen(request_in, "wb") as stream:
            stream.write(request)
    except BrokenPipeError:
        pass
    status, output = _read_results(results_out, deadline, limits["output_bytes"])
    os.close(results_out)
    code = _receive_number(channel, deadline) if status == EXITED else None
    if code is None and status == EXITED and time.monotonic() < deadline:
        status = ENDED_WORKER  # no exit code before the deadline: the program killed the zygote
    elif code is None:  # past the wall clock: the program ends now
        status = TIMED_OUT if status == EXITED else status
        _kill(pid)
        code = _receive_number(channel, time.monotonic() + 1.0)
    if code is None:  # the zygote is gone: the program's orphan is this process's to reap
        _kill(pid)
        _reap_all()
        return status, -signal.SIGKILL, output, False
    return status, code, output, True


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap_all() -> None:
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                return
        except ChildProcessError:
            return


def _empty(folder: str) -> None:
    """Remove everything in ``folder``, whatever permissions a program gave its folders."""
    import shutil

    for root, folders, _ in os.walk(folder):
        for name in folders:
            os.chmod(os.path.join(root, name), 0o700)
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)


def _read_exactly(stream, size: int) -> bytes:
    data = stream.read(size)
    return data if data is not None and len(data) == size else b""


def supervise() -> None:
    """``supervise``: serve requests until standard input closes, or until a program killed the
    zygote (see the module's docstring)."""
    import socket

    if os.getpid() != 1:  # it must be process 1 of the sandbox's PID namespace: immune to its signals
        raise SystemExit("the supervisor runs only as process 1 of a sandbox's PID namespace")
    if not install_filter(WORKER_DENIED):
        raise SystemExit(f"no seccomp filter for this machine ({os.uname().machine})")
    os.environ.pop("PWD", None)  # bwrap --chdir sets it; a program's environment is LANG only
    ours, theirs = socket.socketpair()
    if os.fork() == 0:
        ours.close()
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        fork_server(theirs)
        os._exit(0)
    theirs.close()
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    serving = True
    while serving:
        length = _read_exactly(requests, 4)
        if not length:
            return
        request = _read_exactly(requests, struct.unpack("!I", length)[0])
        os.mkdir(RUN_FOLDER)
        status, code, output, serving = _run_forked(ours, request, json.loads(request)["limits"])
        try:
            _empty(SCRATCH)
        except (OSError, RecursionError):  # a tree it cannot remove: this worker ends after the answer
            serving = False
        answers.write(HEADER.pack(status, serving, code, len(output)) + output)
        answers.flush()


if __name__ == "__main__":
    {"supervise": supervise, "program": harness}[sys.argv[1]]()
