"""The sandbox for untrusted code (envzoo.core.sandbox): the hostile-program battery, each attempt
with the failure mode it must meet; the refusal where no sandbox works, and the explicit opt-out;
what comes back from a program is checked here, not in the sandbox."""

from __future__ import annotations

import threading

import pytest

import envzoo
from envzoo.core.sandbox import SandboxUnavailableError, battery, bubblewrap, inside, run_solution, runner


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
        outcome = run_solution("import os\ndef solve(x):\n    return [x * 2, os.path.exists('/etc/passwd')]", [[1], [2]])
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
        thread = threading.Thread(target=run_solution, args=("def solve():\n    return 1\n", [[]]), kwargs={"pool": pool})
        thread.start()
        thread.join()
        assert run_solution("def solve():\n    return 2\n", [[]], pool=pool).outputs == [2] and pool.started == 1
    finally:
        pool.close()
