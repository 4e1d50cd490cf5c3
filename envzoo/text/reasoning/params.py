"""The parameters of Reasoning-v0 (:class:`ReasoningParams`), built from the env arguments by
:func:`make_params` and checked there: every bad argument is a ``ValueError`` that names it."""

from __future__ import annotations

from dataclasses import dataclass

from envzoo.text.reasoning.generator import DEFAULT_FAMILIES, FAMILIES, LEVELS


@dataclass(frozen=True)
class ReasoningParams:
    """Which questions an env asks and how many tries an episode gives.

    Attributes:
        families: the question families episodes draw from (uniformly): ``arithmetic``,
            ``linear_equation``, ``sorting``, ``sequence``, ``logic``, ``code``.
        level: the difficulty, 1 .. 5.
        attempts: answers an episode accepts (1: single-turn; more: a wrong answer is told so and
            the agent tries again).
    """

    families: tuple[str, ...] = DEFAULT_FAMILIES
    level: int = 1
    attempts: int = 1


def make_params(families: str | tuple[str, ...] | list[str] | None = None, level: int = 1,
                attempts: int = 1) -> ReasoningParams:
    """The parameters from the env's keyword arguments, checked. ``families`` is one name, a
    list of names, ``"all"`` (the six), or None (the four integer-answer families)."""
    if families is None:
        families = DEFAULT_FAMILIES
    elif families == "all":
        families = FAMILIES
    elif isinstance(families, str):
        families = (families,)
    families = tuple(families)
    if not families or any(family not in FAMILIES for family in families):
        raise ValueError(f"families must be one or more of {FAMILIES}, got {families!r}")
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= LEVELS:
        raise ValueError(f"level must be an integer in [1, {LEVELS}], got {level!r}")
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise ValueError(f"attempts must be an integer >= 1, got {attempts!r}")
    return ReasoningParams(families, level, attempts)
