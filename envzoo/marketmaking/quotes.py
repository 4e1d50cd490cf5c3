"""The discrete actions of the market makers on a book (``MarketMaking-v1`` and the arena): 0 is a
no-op, 1 .. n quote one (bid level, ask level) pair of the grid, the last flattens the inventory
with a market order."""

from __future__ import annotations


def quote_grid(levels: tuple[int, ...], full_grid: bool) -> tuple[tuple[int, int], ...]:
    """Every (bid level, ask level) pair of ``levels``; without ``full_grid``, all but the
    tightest pair (both at the first level)."""
    return tuple((b, a) for b in levels for a in levels if full_grid or (b, a) != (levels[0], levels[0]))


class QuoteActions:
    """What a parameter class with ``quote_pairs`` knows of its actions."""

    quote_pairs: tuple[tuple[int, int], ...]

    @property
    def n_actions(self) -> int:
        return 2 + len(self.quote_pairs)

    @property
    def flatten_action(self) -> int:
        return self.n_actions - 1

    def action_hint(self) -> str:
        return (f"Actions are integers: 0 no-op, 1..{self.n_actions - 2} quote the (bid level, ask level) "
                f"pairs {self.quote_pairs}, {self.flatten_action} flatten.")

    def last_action_names(self) -> tuple[str, ...]:
        """The observation's one-hot columns of the last action, then the last reward's."""
        return tuple(f"last_action_{a}" for a in range(self.n_actions)) + ("last_reward",)
