"""What the finance domains (portfolio, trading, market making) share: price panels and their
loaders, the shipped datasets, a synthetic market, the portfolio book, performance metrics,
risk-adjusted rewards, exponential smoothing and table checks for loaders."""
