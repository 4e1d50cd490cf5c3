"""Godot games over the Godot RL Agents protocol: the bridge (sim), the faces (env, parallel,
vector), the shipped Chase game (game/, GDScript) and the same game in pure Python (chase)."""
