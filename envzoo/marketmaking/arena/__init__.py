"""``MarketMakingArena-v1``: several market makers on one simulated limit-order book."""
