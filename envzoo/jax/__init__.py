"""envzoo's JAX backends (extra ``jax``): functional environments in the gymnax style, by id.

    import jax
    import envzoo.jax

    env, params = envzoo.jax.make("envzoo/MarketMakingAS-v1")
    obs, state = env.reset(jax.random.key(0), params)
    obs, state, reward, done, info = env.step(jax.random.key(1), state, env.action_space.sample(), params)

``reset`` and ``step`` are pure functions of pytrees: ``jax.jit`` compiles them, ``jax.vmap``
batches them over instances (and over ``params``), ``jax.lax.scan`` rolls them out on the
device. ``gymnasium.make_vec(id, num_envs=N, backend="jax")`` is the Gymnasium vector face over
the same functions (:class:`envzoo.jax.vector.JaxVectorEnv`). :func:`ids` lists the ids
with a JAX backend.

Importing this module turns on JAX's 64-bit mode (``jax_enable_x64``): the random streams are
SplitMix64 on uint64, as in the CPU cores, and the cores compute in float64 so that on the CPU a
JAX trajectory equals the CPU core's to 1e-9. It changes JAX's default dtypes for the whole
process (arrays made from Python floats become float64), as with any library that needs it.

The kit the domains' JAX cores are written with: :mod:`.env` (the functional env base, with the
registry's horizon and autoreset), :mod:`.vector` (the Gymnasium vector face), :mod:`.rng`
(the counter-based streams of :mod:`envzoo.core.rng`), :mod:`.pcg64` (numpy's PCG64, for cores
whose episodes start from ``default_rng(key)``) and :mod:`.arithmetic` (float operations in the
CPU cores' order).
"""

from __future__ import annotations

from envzoo.core.errors import MissingExtraError

try:
    import jax  # noqa: F401
except ImportError:
    raise MissingExtraError("jax", "jax") from None

from envzoo.jax.env import JaxEnv  # noqa: E402 (after the check that names the extra; turns on 64 bits)


def ids() -> list[str]:
    """The ids that have a JAX backend (``jax_entry_point`` in the registry)."""
    from envzoo.registry import entries  # the registry sits above this kit, which it loads lazily

    return [entry.id for entry in entries().values() if entry.jax_entry_point]


def make(env_id: str, **kwargs) -> tuple[JaxEnv, object]:
    """``(env, params)``: the JAX env of ``env_id`` with the id's default arguments updated by
    ``kwargs`` (the same arguments as ``gymnasium.make``, checked the same way), and its params.
    ``max_episode_steps`` defaults to the registry's horizon."""
    from envzoo.registry import env_info, load_attr

    entry = env_info(env_id)
    if not entry.jax_entry_point:
        raise ValueError(f"{env_id} has no JAX backend; the ids with one: {', '.join(ids())}")
    env_class = load_attr(entry.jax_entry_point)
    arguments = {"max_episode_steps": entry.max_episode_steps, **entry.kwargs, **kwargs}
    env = env_class(**arguments)
    return env, env.default_params
