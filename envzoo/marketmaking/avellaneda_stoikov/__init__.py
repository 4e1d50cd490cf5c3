"""``MarketMakingAS-v1``: market making on the Avellaneda–Stoikov (2008) model."""
