"""Settings for the whole suite."""

import pytest


@pytest.fixture(autouse=True)
def _no_warmup_before_a_tour(monkeypatch):
    """A test that runs ``envzoo tour`` must not first start a warm-up process per domain (the
    suite compiles the kernels as its tests call them); tests/core/test_warmup.py tests it."""
    from envzoo.core import warmup

    monkeypatch.setattr(warmup, "is_warm", lambda: True)
