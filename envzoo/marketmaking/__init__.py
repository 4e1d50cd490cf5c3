"""Market making on limit order books (event-based clocks) and on the Avellaneda–Stoikov model."""
