"""The sandbox for untrusted code (envzoo.core.sandbox): the hostile-program battery, each attempt
with the failure mode it must meet; the refusal where no sandbox works, and the explicit opt-out;
what comes back from a program is checked here, not in the sandbox."""

from __future__ import annotations

import ast
import dataclasses
import threading
from pathlib import Path

import pytest

import envzoo
from envzoo.core.sandbox import SandboxUnavailableError, battery, bubblewrap, inside, run_solution, runner

pytestmark = pytest.mark.needs_sandbox


@pytest.fixture(scope="module")
def verdicts():
    """The battery, run once in order on one worker (its last attempts look for earlier traces)."""
    return {verdict.attempt.name: verdict for verdict in battery.run_battery()}


@pytest.mark.parametrize("name", [attempt.name for attempt in battery.ATTEMPTS])
def test_a_hostile_program_fails_as_it_must(verdicts, name):
    verdict = verdicts[name]
    assert verdict.contained, f"{name}: expected {verdict.attempt.expected}, got {verdict.outcome}"


def test_the_battery_has_every_attempt_the_issue_lists():
    assert len(battery.ATTEMPTS) >= 15 and len({attempt.name for attempt in battery.ATTEMPTS}) == len(battery.ATTEMPTS)


@pytest.fixture
def no_bwrap(monkeypatch):
    """A machine without bubblewrap (and a fresh probe)."""
    monkeypatch.setattr(bubblewrap, "bwrap", lambda: None)
    monkeypatch.setattr(runner, "_state", {})
    monkeypatch.delenv(runner.UNSAFE_VARIABLE, raising=False)


def test_without_a_sandbox_untrusted_code_is_refused_in_one_line(no_bwrap):
    with pytest.raises(SandboxUnavailableError) as refusal:
        run_solution("def solve():\n    return 1\n", [[]])
    message = str(refusal.value)
    assert "\n" not in message and "apt-get install bubblewrap" in message and runner.UNSAFE_VARIABLE in message
    with pytest.raises(SandboxUnavailableError):  # Reasoning-v0 refuses at construction, not mid-episode
        envzoo.make("envzoo/Reasoning-v0", families="code")
    envzoo.make("envzoo/Reasoning-v0")  # the families without code need no sandbox


def test_the_opt_out_runs_unsandboxed_and_says_so(no_bwrap, monkeypatch):
    monkeypatch.setenv(runner.UNSAFE_VARIABLE, "1")
    with pytest.warns(RuntimeWarning, match="WITHOUT a sandbox"):
        outcome = run_solution("import os\ndef solve(x):\n    return [x * 2, os.path.exists('/etc/passwd')]",
                               [[1], [2]])
    assert outcome.outputs == [[2, True], [4, True]]  # it sees the host: the reason the opt-out is loud


@pytest.mark.parametrize("output, failure", [
    (b'[{"value": 1}]', "it crashed"),  # one result for two inputs
    (b'[{"value": 1}, {"value": 2, "passed": true}]', "it crashed"),
    (b'{"failed": "MemoryError", "passed": true}', "it crashed"),
    (b'[{"value": 1}, {"error": "not a name"}]', "it crashed"),
    (b'\xff\xfe', "it crashed"),
    (b'{"failed": "NameError"}', "it defines no function solve"),
])
def test_what_a_program_answers_is_checked_by_the_caller(output, failure):
    outcome = runner.outcome(inside.EXITED, 0, output, 2, "solve", 5.0)
    assert outcome.outputs is None and outcome.failure.startswith(failure)
    assert runner.outcome(inside.EXITED, 0, b'[{"value": 1}, {"error": "KeyError"}]', 2, "solve", 5.0) == \
        runner.Outcome([1, None], ("KeyError",))


def test_the_cpu_limit_and_a_kill_are_told_apart():
    """SIGXCPU at the CPU limit says so; a program that ignores SIGXCPU dies a second later by
    SIGKILL, which the failure names as such (it is also what the machine's memory killer sends)."""
    spin = "def solve():\n    while True:\n        pass"
    assert run_solution(spin, [[]], wall_seconds=20.0).failure == \
        f"it ran past the CPU-time limit of {runner.CPU_SECONDS} s"
    ignoring = "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n" + spin
    assert run_solution(ignoring, [[]], wall_seconds=20.0).failure.startswith("it was killed (SIGKILL)")


def test_the_seccomp_filter_is_well_formed():
    program = inside.seccomp_filter(inside.PROGRAM_DENIED, "x86_64")
    assert len(program) % 8 == 0 and len(program) // 8 == len(inside.PROGRAM_DENIED) + 6
    assert inside.seccomp_filter(inside.PROGRAM_DENIED, "sparc64") is None
    for _, numbers in inside.ARCHITECTURES.values():  # every denied syscall has its number (but fork on aarch64)
        assert set(inside.PROGRAM_DENIED) - set(numbers) <= {"fork", "vfork"}


def test_a_worker_outlives_the_thread_that_first_asked_for_it():
    """bwrap --die-with-parent follows the starting thread: the pool starts workers from its own."""
    pool = bubblewrap.Pool(1)
    try:
        thread = threading.Thread(target=run_solution, args=("def solve():\n    return 1\n", [[]]),
                                  kwargs={"pool": pool})
        thread.start()
        thread.join()
        assert run_solution("def solve():\n    return 2\n", [[]], pool=pool).outputs == [2] and pool.started == 1
    finally:
        pool.close()


#: Every module of envzoo that starts a program or runs code it did not import, and why that
#: code is trusted. A new one runs what it did not write through envzoo.core.sandbox, or says
#: here why it is trusted (docs/security.md).
EXECUTES_CODE = {
    "envzoo/core/sandbox/inside.py": "the sandbox's inside: the untrusted program runs here, in the sandbox",
    "envzoo/core/sandbox/bubblewrap.py": "starts bwrap (the sandbox) and ldd",
    "envzoo/text/reasoning/code.py": "runs our own reference solutions",
    "envzoo/core/subprocess_vector.py": "unpickles the env that this process pickled for its worker",
    "envzoo/godot/sim.py": "starts the Godot server on our game",
    "envzoo/traffic/sumo.py": "starts SUMO",
    "envzoo/tools/site_check.py": "starts headless Chromium on the docs site we built",
}


def _executes_code(tree) -> bool:
    """Whether a module calls exec/eval, os.system/popen/exec*/spawn*, pickle.load(s), or
    imports subprocess or runpy."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
            if any(name.split(".")[0] in ("subprocess", "runpy") for name in names):
                return True
        if isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Name) and function.id in ("exec", "eval"):
                return True
            if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and (
                    (function.value.id == "os" and function.attr.startswith(("system", "popen", "exec", "spawn",
                                                                               "posix_spawn")))
                    or (function.value.id == "pickle" and function.attr in ("load", "loads"))):
                return True
    return False


def test_code_the_zoo_did_not_write_runs_only_in_the_sandbox():
    root = Path(envzoo.__file__).parent
    found = {path.relative_to(root.parent).as_posix() for path in root.rglob("*.py")
             if _executes_code(ast.parse(path.read_text(encoding="utf-8")))}
    assert found == set(EXECUTES_CODE)


def test_the_sandbox_gives_the_outcomes_the_unsandboxed_runner_gives(monkeypatch):
    """Reasoning-v0's rewards do not change: the same outputs and error names, sandboxed or not,
    for the reference solutions and for programs that raise or return wrong values."""
    import numpy as np

    from envzoo.text.reasoning.code import LEVELS, make_code_task

    rng = np.random.default_rng(1)
    tasks = [make_code_task(rng, level) for level in range(1, LEVELS + 1)]
    programs = [(task.solution, task.inputs) for task in tasks]
    programs += [("def solve(x):\n    return {'a': [x, (x, None)]} if x else 1 // 0\n", [[0], [3], ["s"]]),
                 ("def solve(*args):\n    return {3}\n", [[1]])]  # not JSON: its repr
    sandboxed = [run_solution(source, inputs) for source, inputs in programs]
    monkeypatch.setenv(runner.UNSAFE_VARIABLE, "1")
    with pytest.warns(RuntimeWarning):
        unsandboxed = [run_solution(source, inputs) for source, inputs in programs]
    assert [outcome.outputs for outcome in sandboxed[:LEVELS]] == [task.expected for task in tasks]
    assert sandboxed == unsandboxed and sandboxed[LEVELS].errors == ("ZeroDivisionError",)



def test_envzoo_sandbox_check_prints_each_attempt_and_exits_by_the_verdicts(monkeypatch, capsys):
    from envzoo.cli import main

    first = battery.ATTEMPTS[0]
    monkeypatch.setattr(battery, "ATTEMPTS", (first,))
    assert main(["sandbox", "check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith(f"contained {first.name} (") and lines[-1] == "1 of 1 attempts contained"
    escaping = dataclasses.replace(first, name="an attempt whose check fails", contained=lambda outcome, host: False)
    monkeypatch.setattr(battery, "ATTEMPTS", (first, escaping))
    assert main(["sandbox", "check"]) == 1
    output = capsys.readouterr().out
    assert "ESCAPED   an attempt whose check fails" in output and output.endswith("1 of 2 attempts contained\n")


def test_envzoo_sandbox_check_without_a_sandbox_exits_2_in_one_line(no_bwrap, capsys):
    from envzoo.cli import main

    assert main(["sandbox", "check"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "apt-get install bubblewrap" in error


def test_a_bwrap_that_cannot_start_a_sandbox_is_refused_in_one_line(monkeypatch):
    """As in a container whose seccomp profile forbids namespaces: bwrap is there but fails."""
    monkeypatch.setattr(bubblewrap, "command", lambda: [bubblewrap.bwrap() or "bwrap", "--no-such-option"])
    monkeypatch.setattr(runner, "_state", {})
    monkeypatch.delenv(runner.UNSAFE_VARIABLE, raising=False)
    with pytest.raises(SandboxUnavailableError, match="does not work here .*user namespaces") as refusal:
        runner.require_sandbox()
    assert "\n" not in str(refusal.value)
