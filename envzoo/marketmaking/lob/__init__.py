"""``MarketMaking-v0`` and ``MarketMakingMO-v0``: market making on a replayed (or synthetic)
limit-order book, after Sadighian (2020)."""
