"""Settings for the whole suite."""

import pytest


@pytest.fixture(autouse=True)
def _no_warmup_before_a_tour(monkeypatch):
    """A test that runs ``envzoo tour`` must not first start a warm-up process per domain (the
    suite compiles the kernels as its tests call them); tests/core/test_warmup.py tests it."""
    from envzoo.tools import warmup

    monkeypatch.setattr(warmup, "is_warm", lambda: True)


def pytest_collection_modifyitems(config, items):
    """Tests marked ``needs_sandbox`` run model-written programs in bubblewrap's sandbox: where no
    sandbox works they are skipped with the line that says what to install (as the Godot tests
    are without godot3-server). CI installs bubblewrap and runs ``envzoo sandbox check`` besides."""
    needing = [item for item in items if item.get_closest_marker("needs_sandbox")]
    if not needing:
        return
    from envzoo.core.sandbox import sandbox_problem

    problem = sandbox_problem()
    if problem is not None:
        for item in needing:
            item.add_marker(pytest.mark.skip(reason=problem))
