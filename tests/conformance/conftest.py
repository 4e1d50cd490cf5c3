"""Fixtures of the conformance suite. Tests are parametrized over the registry in each module
(see ``support.entry_params``), so a new ``registry.yaml`` entry is covered without a new test."""

from __future__ import annotations

import pytest


@pytest.fixture
def closing():
    """``env = closing(make(...))``: the env is closed when the test ends, pass or fail."""
    made = []

    def register(env):
        made.append(env)
        return env

    yield register
    for env in reversed(made):
        try:
            env.close()
        except Exception:  # noqa: BLE001 - closing must not mask the test's own failure
            pass
