"""Throughput measurements: env-steps per second of a single env, Gymnasium's SyncVectorEnv, a
native vector env and, for ids with a JAX backend, the JAX vector face and the functional JAX env
rolled out on the device, under seeded random actions. ``envzoo bench`` and the benchmarks use
them; nothing here is asserted by a test (speed is measured, never tested)."""

from __future__ import annotations

import time
from collections.abc import Callable

import envzoo
from envzoo.core.extras import missing_packages
from envzoo.registry import EnvEntry

#: Actions are drawn this many at a time, between timed stretches of stepping.
_CHUNK = 1000


def _timed_steps(step, sample, steps: int, max_seconds: float | None) -> tuple[int, float]:
    """Call ``step(sample())`` ``steps`` times, stopping early once the stepping has taken
    ``max_seconds``; the number of steps taken and the seconds of stepping. Actions are drawn in
    chunks outside the timed stretches, so drawing costs neither time nor memory up front."""
    taken, seconds = 0, 0.0
    while taken < steps and (max_seconds is None or seconds < max_seconds):
        actions = [sample() for _ in range(min(_CHUNK, steps - taken))]
        start = time.perf_counter()
        for action in actions:
            step(action)
            taken += 1
            if max_seconds is not None and time.perf_counter() - start + seconds >= max_seconds:
                break
        seconds += time.perf_counter() - start
    return taken, seconds


def _single_rate(entry: EnvEntry, steps: int, seed: int, max_seconds: float | None) -> tuple[float, int]:
    """Steps per second of one env (``envzoo.make``) under random actions, resets included, and
    the steps measured."""
    env = envzoo.make(entry.id)
    try:
        if not entry.is_multi_agent:
            return _gymnasium_measure(env, steps, seed, max_seconds)
        env.reset(seed=seed)
        for i, agent in enumerate(env.possible_agents):
            env.action_space(agent).seed(seed + i)

        def step(action):
            env.step({agent: action[agent] for agent in env.agents})
            if not env.agents:
                env.reset()

        def sample():
            return {agent: env.action_space(agent).sample() for agent in env.possible_agents}

        step(sample())  # untimed: the first step loads the compiled kernels
        taken, seconds = _timed_steps(step, sample, steps, max_seconds)
        return taken / seconds, taken
    finally:
        env.close()


def gymnasium_rate(env, steps: int, seed: int = 0, max_seconds: float | None = None) -> float:
    """Steps per second of a Gymnasium env under seeded random actions, resets included: ``steps``
    steps, or fewer if ``max_seconds`` run out first."""
    return _gymnasium_measure(env, steps, seed, max_seconds)[0]


def vector_rate(envs, steps: int, seed: int = 0, max_seconds: float | None = None) -> float:
    """Env-steps per second of a vector env under random actions (its own autoreset): ``steps``
    batched steps, or fewer if ``max_seconds`` run out first. Closes ``envs``."""
    return _vector_measure(envs, steps, seed, max_seconds)[0]


def _gymnasium_measure(env, steps: int, seed: int, max_seconds: float | None) -> tuple[float, int]:
    """:func:`gymnasium_rate` and the steps it measured."""
    env.reset(seed=seed)
    env.action_space.seed(seed)

    def step(action):
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()

    step(env.action_space.sample())  # untimed: the first step loads the compiled kernels
    taken, seconds = _timed_steps(step, env.action_space.sample, steps, max_seconds)
    return taken / seconds, taken


def _vector_measure(envs, steps: int, seed: int, max_seconds: float | None) -> tuple[float, int]:
    """:func:`vector_rate` and the batched steps it measured."""
    try:
        envs.reset(seed=seed)
        envs.action_space.seed(seed)
        envs.step(envs.action_space.sample())  # untimed: the first step loads the compiled kernels
        taken, seconds = _timed_steps(envs.step, envs.action_space.sample, steps, max_seconds)
        return envs.num_envs * taken / seconds, taken
    finally:
        envs.close()


def _sync_vector(entry: EnvEntry, num_envs: int):
    """Gymnasium's SyncVectorEnv of ``num_envs`` copies (MO-Gymnasium's for vector rewards)."""
    import gymnasium

    if entry.is_multi_objective:  # SyncVectorEnv stores rewards in a float array of shape (N,)
        from mo_gymnasium.wrappers.vector import MOSyncVectorEnv

        return MOSyncVectorEnv([lambda: gymnasium.make(entry.id) for _ in range(num_envs)])
    return gymnasium.make_vec(entry.id, num_envs=num_envs, vectorization_mode="sync")


def jax_device() -> str:
    """The platform JAX computes on by default ("cpu", "gpu", "tpu")."""
    import jax

    return jax.default_backend()


def jax_scan_rate(env_id: str, num_envs: int, steps: int, seed: int = 0, repeats: int = 3) -> float:
    """Env-steps per second of ``env_id``'s functional JAX env, ``num_envs`` instances vmapped and
    rolled out ``steps`` steps by one jitted ``lax.scan`` on JAX's default device, with random
    actions drawn on the device and autoreset: what a PureJaxRL-style training loop sees. The
    best of ``repeats`` timed runs after one that compiles."""
    import jax

    import envzoo.jax

    env, params = envzoo.jax.make(env_id)
    sample = _device_sampler(env.action_space)
    step = jax.vmap(env.step, in_axes=(0, 0, 0, None))

    def rollout(key):
        key, reset_key = jax.random.split(key)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(reset_key, num_envs), params)

        def one_step(carry, _):
            state, key, total = carry
            key, action_key, step_key = jax.random.split(key, 3)
            actions = sample(action_key, num_envs)
            observations, state, reward, _, _ = step(jax.random.split(step_key, num_envs), state, actions, params)
            # The observations and rewards enter the result, as a learner would read them: the
            # compiler leaves out what nothing reads.
            seen = sum(leaf.sum() for leaf in jax.tree.leaves(observations))
            return (state, key, total + reward.sum() + seen), None

        (_, _, total), _ = jax.lax.scan(one_step, (state, key, 0.0), None, steps)
        return total

    compiled = jax.jit(rollout)
    compiled(jax.random.key(seed)).block_until_ready()
    best = float("inf")
    for repeat in range(repeats):
        start = time.perf_counter()
        compiled(jax.random.key(seed + 1 + repeat)).block_until_ready()
        best = min(best, time.perf_counter() - start)
    return num_envs * steps / best


def _device_sampler(space):
    """``sample(key, n)``: n uniformly random actions of a Box (finite bounds), Discrete or
    MultiDiscrete space."""
    import jax
    import jax.numpy as jnp
    from gymnasium import spaces

    if isinstance(space, spaces.Discrete):
        return lambda key, n: jax.random.randint(key, (n,), space.start, space.start + space.n)
    if isinstance(space, spaces.MultiDiscrete):
        start, stop = jnp.asarray(space.start), jnp.asarray(space.start + space.nvec)
        return lambda key, n: jax.random.randint(key, (n, *space.shape), start, stop)
    if isinstance(space, spaces.Box) and space.is_bounded():
        low, high = jnp.asarray(space.low, jnp.float64), jnp.asarray(space.high, jnp.float64)
        return lambda key, n: jax.random.uniform(key, (n, *space.shape), jnp.float64, low, high)
    raise TypeError(f"no on-device sampler for {space}")


MODES = ("single", "sync", "native", "jax", "jax-scan")


def bench(env_id: str, num_envs: int, steps: int = 100, seed: int = 0,
          modes: tuple[str, ...] = MODES, max_seconds: float | None = None,
          progress: Callable[[str], None] | None = None) -> dict:
    """Env-steps per second of ``env_id`` as a single env, a SyncVectorEnv, its native vector env,
    its JAX vector face (``jax``: ``gymnasium.make_vec(..., backend="jax")`` fed NumPy actions)
    and its functional JAX env rolled out on the device (``jax-scan``, :func:`jax_scan_rate`).

    Random actions from the (seeded) action space; timing excludes construction, the first
    reset and the first step (which loads the compiled kernels, or compiles the JAX step).
    ``modes`` chooses which to measure; each runs ``steps`` (batched) steps, or fewer if it has
    taken ``max_seconds`` (``jax-scan`` runs its ``steps`` whole). ``progress(mode)`` is called
    as each mode starts. Returns ``{"id", "num_envs", "steps", "seed", "steps_per_s": {mode:
    rate}, "steps_measured": {mode: steps}, "native_over_sync", "jax_device", "skipped": {mode:
    reason}}``; a skipped mode is absent from ``steps_per_s`` and ``native_over_sync`` is None
    unless both vector modes ran.
    """
    if num_envs < 1 or steps < 1:
        raise ValueError(f"num_envs and steps must be >= 1, got {num_envs} and {steps}")
    if max_seconds is not None and not max_seconds > 0:
        raise ValueError(f"max_seconds must be > 0 (or None for no limit), got {max_seconds}")
    unknown = set(modes) - set(MODES)
    if unknown:
        raise ValueError(f"unknown bench modes {sorted(unknown)}; use {', '.join(MODES)}")
    entry = envzoo.env_info(env_id)
    entry.require_extra()
    announce = progress or (lambda mode: None)
    measured, skipped = {}, {}
    if "single" in modes:
        announce("single")
        measured["single"] = _single_rate(entry, steps, seed, max_seconds)
    vector_modes = [mode for mode in ("sync", "native") if mode in modes]
    if entry.is_multi_agent:
        for mode in vector_modes:
            skipped[mode] = "pettingzoo-parallel ids have no Gymnasium vector env"
    else:
        import gymnasium

        if "sync" in vector_modes:
            announce("sync")
            measured["sync"] = _vector_measure(_sync_vector(entry, num_envs), steps, seed, max_seconds)
        if "native" in vector_modes and entry.vector_entry_point:
            announce("native")
            measured["native"] = _vector_measure(gymnasium.make_vec(entry.id, num_envs=num_envs), steps, seed,
                                                 max_seconds)
        elif "native" in vector_modes:
            skipped["native"] = f"{entry.id} has no native vector env (no vector_entry_point)"
    device = None
    jax_modes = [mode for mode in ("jax", "jax-scan") if mode in modes]
    if jax_modes and not entry.jax_entry_point:
        skipped.update({mode: f"{entry.id} has no JAX backend" for mode in jax_modes})
    elif jax_modes and missing_packages("jax"):
        skipped.update({mode: 'JAX is not installed (pip install "envzoo[jax]")' for mode in jax_modes})
    elif jax_modes:
        import gymnasium

        device = jax_device()
        if "jax" in jax_modes:
            announce("jax")
            measured["jax"] = _vector_measure(gymnasium.make_vec(entry.id, num_envs=num_envs, backend="jax"), steps,
                                              seed, max_seconds)
        if "jax-scan" in jax_modes:
            announce("jax-scan")
            measured["jax-scan"] = (jax_scan_rate(entry.id, num_envs, steps, seed), steps)
    rates = {mode: rate for mode, (rate, _) in measured.items()}
    ratio = rates["native"] / rates["sync"] if {"native", "sync"} <= set(rates) else None
    return {"id": entry.id, "num_envs": num_envs, "steps": steps, "seed": seed, "steps_per_s": rates,
            "steps_measured": {mode: taken for mode, (_, taken) in measured.items()},
            "native_over_sync": ratio, "jax_device": device, "skipped": skipped}
