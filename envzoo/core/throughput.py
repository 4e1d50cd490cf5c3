"""Throughput measurements: env-steps per second of a single env, Gymnasium's SyncVectorEnv and a
native vector env under seeded random actions. ``envzoo bench`` and the benchmarks use them;
nothing here is asserted by a test (speed is measured, never tested)."""

from __future__ import annotations

import time

import envzoo
from envzoo.registry import EnvEntry


def _random_joint_actions(env, steps: int, seed: int) -> list[dict]:
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    return [{agent: env.action_space(agent).sample() for agent in env.possible_agents} for _ in range(steps)]


def _single_rate(entry: EnvEntry, steps: int, seed: int) -> float:
    """Steps per second of one env (``envzoo.make``) under random actions, resets included."""
    env = envzoo.make(entry.id)
    try:
        if entry.is_multi_agent:
            env.reset(seed=seed)
            actions = _random_joint_actions(env, steps, seed)
            start = time.perf_counter()
            for action in actions:
                env.step({agent: action[agent] for agent in env.agents})
                if not env.agents:
                    env.reset()
            return steps / (time.perf_counter() - start)
        return gymnasium_rate(env, steps, seed)
    finally:
        env.close()


def gymnasium_rate(env, steps: int, seed: int = 0) -> float:
    """Steps per second of a Gymnasium env under seeded random actions, resets included."""
    env.reset(seed=seed)
    env.action_space.seed(seed)
    actions = [env.action_space.sample() for _ in range(steps)]
    start = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def vector_rate(envs, steps: int, seed: int = 0) -> float:
    """Env-steps per second of a vector env under random actions (its own autoreset)."""
    try:
        envs.reset(seed=seed)
        envs.action_space.seed(seed)
        actions = [envs.action_space.sample() for _ in range(steps)]
        start = time.perf_counter()
        for action in actions:
            envs.step(action)
        return envs.num_envs * steps / (time.perf_counter() - start)
    finally:
        envs.close()


def _sync_vector(entry: EnvEntry, num_envs: int):
    """Gymnasium's SyncVectorEnv of ``num_envs`` copies (MO-Gymnasium's for vector rewards)."""
    import gymnasium

    if entry.is_multi_objective:  # SyncVectorEnv stores rewards in a float array of shape (N,)
        from mo_gymnasium.wrappers.vector import MOSyncVectorEnv

        return MOSyncVectorEnv([lambda: gymnasium.make(entry.id) for _ in range(num_envs)])
    return gymnasium.make_vec(entry.id, num_envs=num_envs, vectorization_mode="sync")


def bench(env_id: str, num_envs: int, steps: int = 100, seed: int = 0,
          modes: tuple[str, ...] = ("single", "sync", "native")) -> dict:
    """Env-steps per second of ``env_id`` as a single env, a SyncVectorEnv and its native vector env.

    Random actions from the (seeded) action space; timing excludes construction and the first
    reset. ``modes`` chooses which of the three to measure. Returns ``{"id", "num_envs",
    "steps", "seed", "steps_per_s": {"single", "sync", "native"}, "native_over_sync",
    "skipped": {mode: reason}}``; a skipped mode is absent from ``steps_per_s`` and
    ``native_over_sync`` is None unless both vector modes ran.
    """
    if num_envs < 1 or steps < 1:
        raise ValueError(f"num_envs and steps must be >= 1, got {num_envs} and {steps}")
    unknown = set(modes) - {"single", "sync", "native"}
    if unknown:
        raise ValueError(f"unknown bench modes {sorted(unknown)}; use single, sync, native")
    entry = envzoo.env_info(env_id)
    entry.require_extra()
    rates, skipped = {}, {}
    if "single" in modes:
        rates["single"] = _single_rate(entry, steps, seed)
    vector_modes = [mode for mode in ("sync", "native") if mode in modes]
    if entry.is_multi_agent:
        for mode in vector_modes:
            skipped[mode] = "pettingzoo-parallel ids have no Gymnasium vector env"
    else:
        import gymnasium

        if "sync" in vector_modes:
            rates["sync"] = vector_rate(_sync_vector(entry, num_envs), steps, seed)
        if "native" in vector_modes and entry.vector_entry_point:
            rates["native"] = vector_rate(gymnasium.make_vec(entry.id, num_envs=num_envs), steps, seed)
        elif "native" in vector_modes:
            skipped["native"] = f"{entry.id} has no native vector env (no vector_entry_point)"
    ratio = rates["native"] / rates["sync"] if {"native", "sync"} <= set(rates) else None
    return {"id": entry.id, "num_envs": num_envs, "steps": steps, "seed": seed,
            "steps_per_s": rates, "native_over_sync": ratio, "skipped": skipped}
