"""Spacecraft collision avoidance: orbits, conjunctions and collision probability."""
