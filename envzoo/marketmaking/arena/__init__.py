"""``MarketMakingArena-v0``: several market makers on one simulated limit-order book."""
