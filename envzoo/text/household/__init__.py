"""Household-v0: ALFWorld-style household tasks on envzoo's own text engine."""
