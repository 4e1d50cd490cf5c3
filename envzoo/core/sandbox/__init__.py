"""The sandbox for code the zoo did not write (a policy's or a language model's programs).

:func:`run_solution` runs a program's function on inputs in a warm bubblewrap sandbox
(:mod:`.bubblewrap`: fresh namespaces, a read-only view of the Python runtime only, an empty
size-limited scratch folder, no network, seccomp filters, resource limits and a wall-clock kill;
:mod:`.inside` is what runs in it), refuses without one unless the user opted out
(``ENVZOO_UNSAFE_NO_SANDBOX=1``), and checks what comes back (:mod:`.runner`).
:mod:`.battery` holds the hostile programs that ``envzoo sandbox check`` and the tests run
against it. docs/security.md says what is isolated and what is not.
"""

from envzoo.core.sandbox.runner import (
    CPU_SECONDS,
    MEMORY_BYTES,
    WALL_SECONDS,
    Outcome,
    SandboxUnavailableError,
    require_sandbox,
    run_solution,
    sandbox_problem,
)

__all__ = ["CPU_SECONDS", "MEMORY_BYTES", "WALL_SECONDS", "Outcome", "SandboxUnavailableError", "require_sandbox",
           "run_solution", "sandbox_problem"]
