"""The power-grid domain: devices on a radial distribution feeder with an AC power flow in every
step (after PowerGridworld)."""
