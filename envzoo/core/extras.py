"""Optional dependency groups (extras): which are installed, and the install hint when one is missing.

The extras are ``pyproject.toml``'s ``[project.optional-dependencies]``, read back from the
installed distribution's metadata (``Provides-Extra`` and the ``Requires-Dist`` lines marked
``extra == "..."``, which pip writes from ``pyproject.toml``), so there is no second table to keep
in step. An extra counts as installed when every distribution it requires is installed (an extra
that includes others, as ``test`` includes ``finance``, requires theirs too). After adding an extra
to ``pyproject.toml`` in a checkout, reinstall (``pip install -e .``) so the metadata has it.
"""

from __future__ import annotations

import importlib
import shutil
from functools import lru_cache
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from envzoo.core.errors import EnvzooError, MissingExtraError

DISTRIBUTION = "envzoo"

#: Requirements that are programs on PATH (system packages), not pip extras, by name: the
#: programs, and the command that installs them. The registry declares them (``system_extras:`` in
#: registry.yaml) with :func:`declare_system_extra`, so a domain that needs one edits no code here.
SYSTEM_EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {}


def declare_system_extra(name: str, programs: list[str] | tuple[str, ...], install: str) -> None:
    """Make ``name`` a known extra that is installed when every program is on PATH."""
    SYSTEM_EXTRAS[name] = (tuple(programs), install)


@lru_cache(maxsize=1)
def extra_requirements() -> dict[str, tuple[Requirement, ...]]:
    """Each extra of the installed envzoo and the distributions it requires, in ``pyproject.toml``
    order, the extras it includes (``envzoo[a,b]``) expanded into their requirements."""
    try:
        info = metadata.metadata(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise EnvzooError("envzoo's distribution metadata was not found, so its extras are unknown: "
                          "install envzoo (pip install -e . in a checkout)") from None
    own: dict[str, list[Requirement]] = {extra: [] for extra in info.get_all("Provides-Extra") or []}
    for line in info.get_all("Requires-Dist") or []:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or marker.evaluate({"extra": ""}):
            continue  # a core dependency (possibly platform-conditional), in no extra
        for extra, requirements in own.items():
            if marker.evaluate({"extra": extra}):
                requirements.append(requirement)

    def expand(extra: str) -> list[Requirement]:
        out: list[Requirement] = []
        for requirement in own[extra]:
            if canonicalize_name(requirement.name) == DISTRIBUTION:
                out += [r for included in sorted(requirement.extras) for r in expand(included)]
            else:
                out.append(requirement)
        return out

    def unique(requirements: list[Requirement]) -> tuple[Requirement, ...]:
        first = {}
        for requirement in requirements:
            first.setdefault(canonicalize_name(requirement.name), requirement)
        return tuple(first.values())

    return {extra: unique(expand(extra)) for extra in own}


def known_extras() -> tuple[str, ...]:
    """The pip extras of the installed envzoo and the system requirements (:data:`SYSTEM_EXTRAS`)."""
    return tuple(extra_requirements()) + tuple(SYSTEM_EXTRAS)


def installed_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or ``None`` when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def missing_packages(extra: str | None) -> list[str]:
    """The distributions ``extra`` requires that are not installed (checked without importing
    them); for a system requirement (:data:`SYSTEM_EXTRAS`), the programs not on PATH."""
    if extra is None:
        return []
    if extra in SYSTEM_EXTRAS:
        return [program for program in SYSTEM_EXTRAS[extra][0] if shutil.which(program) is None]
    requirements = extra_requirements()
    if extra not in requirements:
        raise ValueError(f"Unknown extra {extra!r}; known extras: {sorted(known_extras())} (an extra "
                         "added to pyproject.toml is known once envzoo is reinstalled: pip install -e .)")
    return [r.name for r in requirements[extra] if installed_version(r.name) is None]


def install_command(extra: str) -> str:
    """The command that installs ``extra``."""
    return SYSTEM_EXTRAS[extra][1] if extra in SYSTEM_EXTRAS else f'pip install "envzoo[{extra}]"'


def is_installed(extra: str | None) -> bool:
    return not missing_packages(extra)


def require(extra: str, module: str, env_id: str | None = None):
    """Import ``module`` or raise :class:`MissingExtraError` naming ``pip install "envzoo[extra]"``."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError(extra, module, env_id) from error
