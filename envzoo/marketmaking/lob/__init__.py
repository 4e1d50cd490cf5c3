"""``MarketMaking-v1`` and ``MarketMakingMO-v1``: market making on a replayed (or synthetic)
limit-order book, after Sadighian (2020)."""
