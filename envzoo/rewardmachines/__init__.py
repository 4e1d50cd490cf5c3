"""Timed reward machines over grid worlds: tasks with deadlines and delays written in a small
text format, whose optimal values are computed exactly (value iteration on the digital-clock
product MDP)."""
