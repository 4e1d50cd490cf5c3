"""Single-asset trading: target positions on daily OHLCV bars, with causal technical indicators."""
