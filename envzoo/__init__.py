"""envzoo: reinforcement-learning environments for applied domains.

``import envzoo`` reads ``registry.yaml`` and registers every id with Gymnasium (single-agent
and multi-objective ids) and PettingZoo (multi-agent ids). It imports no domain module and no
heavy dependency; environments are imported when they are made.
"""

from envzoo.registry import (
    EnvEntry,
    env_info,
    list_envs,
    make,
    make_policy,
    make_subprocess_vec,
    register_all,
)

__version__ = "0.1.0"
__all__ = ["EnvEntry", "env_info", "list_envs", "make", "make_policy", "make_subprocess_vec", "__version__"]

register_all()
