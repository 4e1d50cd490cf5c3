"""Reasoning-v0: procedurally generated questions with programmatic verifiers."""
