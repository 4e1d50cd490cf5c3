"""Conformance suite: every registry entry, every face, the ecosystems' own checkers."""
