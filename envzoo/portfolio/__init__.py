"""Portfolio management: allocate wealth across assets (EIIE setting, robo-advisory, constrained portfolios)."""
